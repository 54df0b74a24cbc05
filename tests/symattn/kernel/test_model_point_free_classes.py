"""A size is outside the hypotheses only when no point of it can be a model.

The class: the model search tries a few points at each size; when none was a model, every failure was
read as "outside the hypotheses" if its message said a hypothesis was false *at the point tried*. A
hypothesis ``x > 10^9 (n - 1)^2 (n - 3)^2`` has models at every size, but at n = 2 none of the small
values tried reaches it, so n = 2 (and n = 4, 5, ...) was skipped as outside, and the false claim
``(n - 1)(n - 3) x = 0`` was ``proved-for-instances`` "for n in {1, 3}", with n = 2 named outside.

Now a failure counts as showing the size outside only when the failing condition takes nothing from the
point (every symbol and entry in it was concrete at the size: ``Reason.shown_false``); otherwise the size
is undecided, which stops the instances. And a bound of a symbol by a closed number (``x > a``, either way
round, alone or in an ``And``) is where the model search draws the symbol from, so such sizes are reached.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.kernel.search import Reason, find_model

R = sp.Rational
n = sp.Symbol("n", integer=True, positive=True)
x, y = sp.symbols("x y", real=True)
xi = sp.Symbol("x", integer=True)
xp = sp.Symbol("x", positive=True)
a = sp.IndexedBase("a", real=True)
j = sp.Symbol("j", integer=True)
f = (n - 1) * (n - 3)  # 0 at n = 1 and n = 3 only
BIG = 10**9


def _thm(tid, lhs, rhs, relation="=", hyps=(), dims=(n,)):
    return Theorem(id=tid, title=tid, source="extension", statement=Statement(lhs, rhs, relation),
                   hypotheses=tuple(hyps), dimensions=tuple(dims), target="proved-for-instances")


def _check(t):
    return check_theorem(t, numeric=False)


#: false at n = 2, with models at n = 2 that no small value reaches: never proved-for-instances
FALSE_AT_A_SKIPPED_SIZE = [
    _thm("far_bound", f * x, 0, hyps=[Assumption("h", x > BIG * f**2)]),
    _thm("far_bound_reversed", f * x, 0, hyps=[Assumption("h", BIG * f**2 < x)]),
    _thm("far_bound_integer", f * xi, 0, hyps=[Assumption("h", xi >= BIG * f**2 + 1)]),
    _thm("far_interval", f * x, 0, hyps=[Assumption("h", sp.Contains(x, sp.Interval(BIG * f**2 + 1, sp.oo)))]),
    _thm("thin_window", f * (x - 1), 0, hyps=[Assumption("h", sp.And(x > 1 + f**2, x < 1 + f**2 + R(1, BIG)))]),
    _thm("far_cube", f * x, 0, hyps=[Assumption("h", x**3 > BIG * f**2)]),
    _thm("far_square", f * x, 0, hyps=[Assumption("h", x**2 > BIG * f**2 + BIG)]),
    _thm("far_sum", f * (x + y), 0, hyps=[Assumption("h", x + y > BIG * f**2)]),
    _thm("far_entry", f * a[1], 0, hyps=[Assumption("h", a[1] > BIG * f**2)]),
    _thm("far_exp", f * x, 0, hyps=[Assumption("h", sp.exp(x) > BIG * (f**2 + 1))]),
    _thm("far_inequality", f**2 * x, 0, "<=", hyps=[Assumption("h", x > BIG * f**2)]),
]


@pytest.mark.parametrize("t", FALSE_AT_A_SKIPPED_SIZE, ids=[t.id for t in FALSE_AT_A_SKIPPED_SIZE])
def test_a_size_whose_models_were_not_reached_is_not_skipped_as_outside(t):
    o = _check(t)
    assert o.verdict not in (Verdict.PROVED, Verdict.PROVED_FOR_INSTANCES), o.how
    if o.verdict is Verdict.REFUTED:  # the counterexample is at the smallest size the claim fails at
        assert "n = 2" in o.how, o.how
    else:
        assert "none is shown impossible" in o.how or "no model of the hypotheses was found" in o.how, o.how


#: bounds by closed numbers are drawn from: these are refuted exactly, at n = 2
REACHED = ["far_bound", "far_bound_reversed", "far_bound_integer", "far_interval", "thin_window",
           "far_inequality"]


@pytest.mark.parametrize("tid", REACHED)
def test_a_bound_by_a_closed_number_is_where_the_model_search_draws(tid):
    t = next(t for t in FALSE_AT_A_SKIPPED_SIZE if t.id == tid)
    o = _check(t)
    assert o.verdict is Verdict.REFUTED and "n = 2" in o.how, o.how


#: true at every size inside the hypotheses; the other sizes are shown outside (no point is a model)
TRUE_WITH_SIZES_OUTSIDE = [
    # the set is empty at n >= 4 (1 - f^2 < 0): every point of those sizes is outside
    _thm("empty_interval", (n - 1) * (n - 2) * (n - 3) * x, 0,
         hyps=[Assumption("h", sp.Contains(x, sp.Interval(0, 1 - f**2)))]),
    # closed at the size: f^2 < 1/2 only at n = 1, 3
    _thm("closed_condition", f * x, 0, hyps=[Assumption("h", f**2 < R(1, 2)), Assumption("g", x > BIG)]),
    # an index range empty at n = 1 and n = 2 (floor(2/n) x is 0 from n = 3 on)
    _thm("empty_range", sp.floor(2 / n) * x, 0, hyps=[IndexRange("r", index=j, lower=3, upper=n),
                                                      Assumption("h", x > BIG)]),
    # no member of the finite set fits at n != 2 (x must be in {-f} and positive)
    _thm("finite_member", xp * (n - 2), 0, hyps=[Assumption("h", sp.Contains(xp, sp.FiniteSet(-f)))]),
    # identities whose hypotheses have models only far from the small values: every size is reached
    _thm("bound_true", f * x + x, (f + 1) * x, hyps=[Assumption("h", x > BIG * f**2)]),
    _thm("window_true", (x - 1) * (x + 1), x**2 - 1, hyps=[Assumption("h", sp.And(x > 1 + f**2,
                                                                                  x < 1 + f**2 + R(1, BIG)))]),
    _thm("integer_bound_true", xi**2 - 1, (xi - 1) * (xi + 1), hyps=[Assumption("h", xi >= BIG * f**2 + 1)]),
    _thm("reversed_true", (x - f)**2, x**2 - 2 * f * x + f**2, hyps=[Assumption("h", BIG * f**2 < x)]),
]


@pytest.mark.parametrize("t", TRUE_WITH_SIZES_OUTSIDE, ids=[t.id for t in TRUE_WITH_SIZES_OUTSIDE])
def test_true_claims_pass_and_sizes_with_no_model_are_still_outside(t):
    o = _check(t)
    assert o.verdict is not Verdict.REFUTED, o.how
    assert o.levels["instances"].status.value == "pass", o.how


def _reasons(hyps, extra=()):
    model, reasons = find_model([], hyps, tries=4, seconds=20, extra=extra)
    assert model is None
    assert reasons and all(isinstance(r, Reason) for r in reasons), reasons
    return reasons


@pytest.mark.parametrize("hyps", [
    [Assumption("h", sp.Lt(R(1), R(0)))],                                  # nothing open
    [Assumption("h", sp.Contains(x, sp.EmptySet))],
    [Assumption("h", sp.Contains(x, sp.FiniteSet(-1, -2))), Assumption("p", x > 0)],
    [Assumption("h", sp.Contains(x, sp.Interval(2, 1)))],
], ids=["closed_false", "empty_set", "members_against_a_closed_bound", "empty_interval"])
def test_failures_with_nothing_open_are_shown_false_everywhere(hyps):
    assert any(r.shown_false for r in _reasons(hyps, extra=(x,)))


def test_a_drawn_member_breaking_a_condition_on_it_is_not_shown_false():
    # x is drawn from {-1, -2} and breaks x^2 > 5, a condition on the drawn value (x = -3 would not)
    hyps = [Assumption("h", sp.Contains(x, sp.FiniteSet(-1, -2, y))), Assumption("p", x**2 > 5)]
    model, reasons = find_model([], hyps, tries=1, seconds=20, extra=(x, y))
    assert all(isinstance(r, Reason) for r in reasons)
    assert not any(r.shown_false for r in reasons), reasons


@pytest.mark.parametrize("cond", [
    x**2 > BIG, x**3 > BIG, sp.exp(x) > BIG, x + y > BIG, a[1] > BIG, sp.sin(x) > R(999999, 1000000) + 0 * y,
    sp.And(x**2 > BIG, y > 0), sp.Eq(x**5 - x, 3 * BIG),
], ids=["square", "cube", "exp", "sum", "entry", "sine", "and", "quintic"])
def test_a_condition_on_drawn_values_false_at_the_points_tried_is_not_shown_false(cond):
    reasons = _reasons([Assumption("h", cond)], extra=(x, y))
    assert not any(r.shown_false for r in reasons), reasons
