"""Hypotheses that hold at one point only (adversarial round 25: false claims were ``undecided``, no
model found): an assumption ``Eq(a, b)`` linear in a symbol is solved for it (``Eq(3 x, 1)``,
``Eq(x + y, -7)``, ``Eq(x y, 6)`` once ``x`` is fixed), a quadratic in one symbol gives its two roots
(``Eq(x^2, 2)``). The solution is only proposed: the point is a model when every hypothesis holds
there exactly, checked here independently. False claims are refuted at such a point, true ones never."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem

n = sp.Symbol("n", integer=True, positive=True)
m = sp.Symbol("m", integer=True)
x, y = sp.symbols("x y", real=True)
p = sp.Symbol("p", positive=True)


def theorem(lhs, rhs, rel, condition):
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, rhs, rel),
                   hypotheses=(Assumption("h", condition),), dimensions=(n,))


# each with the points of its hypotheses, by hand: the refutation must name one of them
FALSE = [
    ("integer_value", theorem(n * m, 4 * n, "=", sp.Eq(m, 5)), [{m: 5}]),
    ("negative_value", theorem(n * x, 0, ">=", sp.Eq(x, -3)), [{x: -3}]),
    ("scaled", theorem(n * x, 0, "<=", sp.Eq(3 * x, 1)), [{x: sp.Rational(1, 3)}]),
    ("two_symbols", theorem(n * (x + y), 0, ">", sp.Eq(x + y, -7)), None),  # a line: checked below
    ("quadratic", theorem(n * x**2, 3 * n, "=", sp.Eq(x**2, 2)), [{x: sp.sqrt(2)}, {x: -sp.sqrt(2)}]),
    ("quadratic_positive_root", theorem(n * p, 2 * n, "<", sp.Eq(p**2 - 5 * p + 6, 0)), [{p: 2}, {p: 3}]),
    ("chained", theorem(n * x * y, 0, "<", sp.And(sp.Eq(x, 2), sp.Eq(x * y, 6))), [{x: 2, y: 3}]),
    ("with_a_bound", theorem(n * x, 10 * n, ">", sp.And(sp.Eq(2 * x - 1, 0), x > 0)), [{x: sp.Rational(1, 2)}]),
]

TRUE = [
    ("integer_value", theorem(n * m, 5 * n, "=", sp.Eq(m, 5))),
    ("two_symbols", theorem(n * (x + y), -7 * n, "=", sp.Eq(x + y, -7))),
    ("scaled", theorem(n * x, 0, ">", sp.Eq(3 * x, 1))),
    ("quadratic", theorem(n * x**2, 2 * n, "=", sp.Eq(x**2, 2))),
    ("chained", theorem(n * x * y, 6 * n, "=", sp.And(sp.Eq(x, 2), sp.Eq(x * y, 6)))),
    ("no_integer_solution", theorem(n * m, 0, ">=", sp.And(sp.Eq(3 * m, 1), m > 0))),  # no model at all
]


def _named(point: dict) -> str:
    return ", ".join(f"{sp.sstr(k)} = {sp.sstr(v)}" for k, v in sorted(point.items(), key=lambda kv: str(kv[0])))


@pytest.mark.parametrize("name,thm,points", FALSE, ids=[t[0] for t in FALSE])
def test_a_false_claim_is_refuted_at_the_one_point_of_its_hypotheses(name, thm, points):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is Verdict.REFUTED, (name, o.how)
    detail = o.levels["instances"].detail
    (h,) = thm.hypotheses
    st = thm.statement
    relation = {"=": sp.Eq, "<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge}[st.relation]
    if points is None:  # x + y = -7: the kernel's point is x = -7 - y at its y
        assert "x = -7, y = 0" in detail, detail
        points = [{x: -7, y: 0}]
    else:
        assert any(f"at {_named(pt)}" in detail for pt in points), (name, detail)
    for pt in points:  # the table itself: inside the hypotheses, and the claim false there
        at = {n: sp.Integer(1), **{k: sp.sympify(v) for k, v in pt.items()}}
        assert sp.simplify(h.condition.xreplace(at)) is sp.true, (name, at)
        assert relation(sp.simplify(st.lhs.xreplace(at)), sp.simplify(st.rhs.xreplace(at))) is sp.false, (name, at)


@pytest.mark.parametrize("name,thm", TRUE, ids=[t[0] for t in TRUE])
def test_a_true_claim_is_not_refuted(name, thm):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is not Verdict.REFUTED, (name, o.how)


# an index range bounded by an entry (round 25: "the range of i is not concrete", no model at all)
i = sp.Symbol("i", integer=True)
w = sp.IndexedBase("w", integer=True, positive=True)
ENTRY_RANGE = IndexRange("ir", index=i, lower=1, upper=w[1])


def ranged(lhs, rhs, rel):
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, rhs, rel),
                   hypotheses=(ENTRY_RANGE,), dimensions=(n,))


@pytest.mark.parametrize("thm", [ranged(n * i, n * w[1] - n, "<="), ranged(n * i, 1, ">"),
                                 ranged(n * i, n * w[1], "<")], ids=["below_its_end", "above_one", "strictly_below"])
def test_a_false_claim_over_a_range_bounded_by_an_entry_is_refuted(thm):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is Verdict.REFUTED, o.how
    assert "i = 1, w[1] = 1" in o.levels["instances"].detail  # 1 <= i <= w[1] holds there, the claim not


@pytest.mark.parametrize("thm", [ranged(n * i, n * w[1], "<="), ranged(n * i, n, ">=")],
                         ids=["at_most_its_end", "at_least_one"])
def test_a_true_claim_over_a_range_bounded_by_an_entry_is_not_refuted(thm):
    assert check_theorem(thm, numeric=False).verdict is not Verdict.REFUTED


# nested ranges whose bound is an entry at another index (round 27: w[i] and w[1] were valued apart at
# i = 1, and true claims refuted at that inconsistent point)
j = sp.Symbol("j", integer=True)
ONE = IndexRange("r", index=i, lower=1, upper=1)
TOP = IndexRange("r", index=i, lower=n, upper=n)


def nested(lhs, rhs, rel, first, second):
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, rhs, rel),
                   hypotheses=(first, second), dimensions=(n,))


NESTED_TRUE = [
    nested(n * j, n * w[1], "=", ONE, IndexRange("r2", index=j, lower=w[i], upper=w[i])),
    nested(n * j, n * w[1], "<=", ONE, IndexRange("r2", index=j, lower=1, upper=w[i])),
    nested(n * j, n * w[n], "<=", TOP, IndexRange("r2", index=j, lower=1, upper=w[i])),
    nested(n * sp.KroneckerDelta(j, w[1] + 1), 0, "=", ONE, IndexRange("r2", index=j, lower=1, upper=w[i])),
    nested(n * (j - w[1]), 0, "<=", ONE, IndexRange("r2", index=j, lower=1, upper=w[i])),
]


@pytest.mark.parametrize("thm", NESTED_TRUE, ids=["equal", "at_most", "at_most_top", "delta", "difference"])
def test_a_true_claim_over_ranges_bounded_by_an_entry_at_another_index_is_not_refuted(thm):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is not Verdict.REFUTED, o.how


def test_a_false_claim_over_ranges_bounded_by_an_entry_at_another_index_is_refuted_consistently():
    o = check_theorem(nested(n * j, n * w[1], ">", ONE, IndexRange("r2", index=j, lower=1, upper=w[i])), numeric=False)
    assert o.verdict is Verdict.REFUTED, o.how
    assert "w[i]" not in o.levels["instances"].detail, o.levels["instances"].detail
