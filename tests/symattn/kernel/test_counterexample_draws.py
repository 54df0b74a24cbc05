"""The counterexample search over points inside the hypotheses: a draw the hypotheses reject is no
try, so a false claim under a relational hypothesis that half the draws miss (``x <= y``) is still
refuted, by an exact point inside the hypotheses; a true claim of the same shape never is."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level

x, y, z = sp.symbols("x y z", real=True)


def _theorem(st, *conds):
    hyps = tuple(Assumption(f"h{k}", condition=c) for k, c in enumerate(conds))
    return Theorem(id="claim", title="claim", source="extension", statement=st, hypotheses=hyps)


FALSE = [
    ("square_monotone", Statement(x**2, y**2, "<="), x <= y),
    ("square_monotone_strict", Statement(x**2, y**2, "<"), x < y),
    ("abs_below", Statement(sp.Abs(x), y, "<="), x <= y),
    ("reciprocal_antitone", Statement(1 / y, 1 / x, "<="), sp.And(x < y, sp.Ne(x, 0), sp.Ne(y, 0))),
    ("product_monotone", Statement(x * z, y * z, "<="), x <= y),
    ("cube_root_free", Statement(x**2 * y, y, "<="), x <= y),
    ("chain_square", Statement(x**2, z**2, "<="), sp.And(x <= y, y <= z)),
    ("sum_of_two", Statement(x + y, 2 * y - 1, "<="), x <= y),
]

TRUE = [
    ("square_of_nonnegatives", Statement(x**2, y**2, "<="), sp.And(x >= 0, x <= y)),
    ("abs_bound", Statement(x**2, y**2, "<="), sp.Abs(x) <= y),
    ("shift", Statement(x + 1, y + 1, "<="), x <= y),
    ("scaled", Statement(2 * x, 2 * y, "<="), x <= y),
    ("cube", Statement(x**3, y**3, "<="), x <= y),
    ("negated", Statement(-y, -x, "<="), x <= y),
    ("chain", Statement(x, z, "<="), sp.And(x <= y, y <= z)),
    ("midpoint", Statement(x, (x + y) / 2, "<="), x <= y),
]


@pytest.mark.parametrize("name,st,cond", FALSE, ids=[c[0] for c in FALSE])
def test_a_false_claim_under_a_relational_hypothesis_is_refuted_inside_it(name, st, cond):
    o = check_theorem(_theorem(st, cond), numeric=False)
    assert o.verdict is Verdict.REFUTED, o.how
    failing = [lv for lv in o.levels.values() if lv.status is Level.FAIL]
    assert failing and "hypotheses hold there" in failing[0].detail, o.how
    assert "." not in failing[0].detail.split("at ", 1)[1].split(";")[0], failing[0].detail  # exact values


@pytest.mark.parametrize("name,st,cond", TRUE, ids=[c[0] for c in TRUE])
def test_a_true_claim_of_the_same_shape_is_never_refuted(name, st, cond):
    o = check_theorem(_theorem(st, cond), numeric=False)
    assert o.verdict is not Verdict.REFUTED, o.how
