"""Adversarial review 9, class A: sum bounds not shown to be integers. The kernel's sums run over
integer ranges, but a bound merely *not shown* an integer (a real ``x``) slipped through: ``range_split``
split at a real point, ``mask_restrict`` turned a band with real limits into a sum with real bounds,
``sum_evaluate`` counted ``sum_{j=x}^{x+1} 1`` as 2 because ``(x + 1) - x`` is an integer. Now every
finite bound of a sum or product not shown an integer by its assumptions is part of the term's
definedness (``IntegerBound(b)``): matched by the same condition of the other side of a step, or shown
by the kernel's integrality test (index ranges, ``T = N/B`` with ``T`` an integer, ``Eq(Mod(n, 2), 0)``);
the closed forms need both bounds shown integers; and at a concrete point a sum over a bound that is a
number but no integer is undefined there (the size is skipped), never SymPy's value."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, Equation, IndexRange
from symattn.engine.verdict import Verdict
from symattn.kernel.index_bounds import OutsideShape
from symattn.kernel.search import expand_finite
from symattn.kernel.zero import IntegerBound, definedness_conditions
from symattn.maths.masks import Band

from .claims import Claim, assert_proved, check, k, n, s, step, x

j = sp.Symbol("j", integer=True)
T = sp.Symbol("T", integer=True, positive=True)
X_IN = (Assumption("a", condition=x >= 1), Assumption("b", condition=x + 1 <= n))
K_IN = (Assumption("a", condition=k >= 1), Assumption("b", condition=k + 1 <= n))
EVEN = (Assumption("even", condition=sp.Eq(sp.Mod(n, 2), 0)),)
HALF = (Equation("half", lhs=T, rhs=n / 2),)


def _split(at):
    return sp.Sum(s[j], (j, 1, at)) + sp.Sum(s[j], (j, at + 1, n))


def _count_split(at):
    return sp.Sum(Band(j, 1, at), (j, 1, n)) + sp.Sum(Band(j, at + 1, n), (j, 1, n))


#: false claims (n = 3, x = 7/4 refutes each, or a side is undefined off the integers): none is proved
REAL_BOUNDS = [
    Claim("range_split_real", sp.Sum(s[j], (j, 1, n)), _split(x), (step(_split(x), "range_split", at=x),),
          hypotheses=X_IN, dimensions=(n,)),
    Claim("split_count_real", sp.Sum(1, (j, 1, n)), _count_split(x),
          (step(sp.Sum(1, (j, 1, x)) + sp.Sum(1, (j, x + 1, n)), "range_split", at=x),
           step(_count_split(x), "mask_restrict")), hypotheses=X_IN, dimensions=(n,)),
    Claim("split_mask_real", sp.Sum(s[j], (j, 1, n)),
          sp.Sum(Band(j, 1, x) * s[j], (j, 1, n)) + sp.Sum(Band(j, x + 1, n) * s[j], (j, 1, n)),
          (step(_split(x), "range_split", at=x),
           step(sp.Sum(Band(j, 1, x) * s[j], (j, 1, n)) + sp.Sum(Band(j, x + 1, n) * s[j], (j, 1, n)),
                "mask_restrict")), hypotheses=X_IN, dimensions=(n,)),
    Claim("mask_restrict_count_real", sp.Sum(Band(j, x, x + 1), (j, 1, n)), 2,
          (step(sp.Sum(1, (j, x, x + 1)), "mask_restrict"), step(sp.S(2), "sum_evaluate")),
          hypotheses=X_IN, dimensions=(n,)),
    Claim("mask_restrict_f_real", sp.Sum(Band(j, x, x + 1) * s[j], (j, 1, n)), sp.Sum(s[j], (j, x, x + 1)),
          (step(sp.Sum(s[j], (j, x, x + 1)), "mask_restrict"),), hypotheses=X_IN, dimensions=(n,)),
    Claim("evaluate_shift_count", sp.Sum(1, (j, x, x + 1)), 2, (step(sp.S(2), "sum_evaluate"),)),
    Claim("evaluate_count_hyp", sp.Sum(1, (j, x, x + 1)), 2, (step(sp.S(2), "sum_evaluate"),),
          hypotheses=(Assumption("a", condition=x >= 1),)),
    Claim("evaluate_dim", sp.Sum(1, (j, x, x + n)), n + 1, (step(n + 1, "sum_evaluate"),), dimensions=(n,)),
    Claim("evaluate_const", sp.Sum(3, (j, x, x + 2)), 9, (step(sp.S(9), "sum_evaluate"),)),
    Claim("linearity_count", sp.Sum(1, (j, x, x + 1)), 2, (step(sp.S(2), "sum_linearity"),)),
    Claim("evaluate_half_no_parity", sp.Sum(1, (j, n / 2, n / 2 + 1)), 2, (step(sp.S(2), "sum_evaluate"),),
          dimensions=(n,)),
]

#: the same steps over bounds that are integers (declared, or made whole by the hypotheses): proved
INTEGER_BOUNDS = [
    Claim("range_split_integer", sp.Sum(s[j], (j, 1, n)), _split(k), (step(_split(k), "range_split", at=k),),
          hypotheses=K_IN, dimensions=(n,)),
    Claim("sum_split_integer", sp.Sum(s[j], (j, 1, n)), _split(k), (step(_split(k), "sum_split", at=k),),
          hypotheses=(IndexRange("k_in", index=k, lower=1, upper=n - 1),), dimensions=(n,)),
    Claim("split_count_integer", sp.Sum(1, (j, 1, n)), _count_split(k),
          (step(sp.Sum(1, (j, 1, k)) + sp.Sum(1, (j, k + 1, n)), "range_split", at=k),
           step(_count_split(k), "mask_restrict")), hypotheses=K_IN, dimensions=(n,)),
    Claim("mask_restrict_count_integer", sp.Sum(Band(j, k, k + 1), (j, 1, n)), 2,
          (step(sp.Sum(1, (j, k, k + 1)), "mask_restrict"), step(sp.S(2), "sum_evaluate")),
          hypotheses=K_IN, dimensions=(n,)),
    Claim("evaluate_shift_count_integer", sp.Sum(1, (j, k, k + 1)), 2, (step(sp.S(2), "sum_evaluate"),)),
    Claim("linearity_count_integer", sp.Sum(3, (j, k, k + 2)), 9, (step(sp.S(9), "sum_linearity"),)),
    Claim("half_count_even", sp.Sum(1, (j, 1, n / 2)), n / 2, (step(n / 2, "sum_evaluate"),), hypotheses=EVEN),
    Claim("half_count_quotient", sp.Sum(1, (j, 1, n / 2)), n / 2, (step(n / 2, "sum_evaluate"),),
          hypotheses=HALF, dimensions=(n,)),
    Claim("half_split_even", sp.Sum(s[j], (j, 1, n)), _split(n / 2), (step(_split(n / 2), "range_split", at=n / 2),),
          hypotheses=EVEN),
    Claim("half_shift_count_even", sp.Sum(1, (j, n / 2, n / 2 + 1)), 2, (step(sp.S(2), "sum_evaluate"),),
          hypotheses=EVEN),
    Claim("faulhaber", sp.Sum(j, (j, 1, n)), n * (n + 1) / 2, (step(n * (n + 1) / 2, "sum_evaluate"),),
          dimensions=(n,)),
]


@pytest.mark.parametrize("claim", REAL_BOUNDS, ids=[c.id for c in REAL_BOUNDS])
def test_a_bound_not_shown_an_integer_proves_nothing(claim):
    out = check(claim)
    assert out.verdict in (Verdict.REFUTED, Verdict.UNDECIDED, Verdict.PROVED_FOR_INSTANCES), out.how
    assert out.verdict is not Verdict.PROVED
    assert any(r.status.value == "fail" for r in out.steps), out.how


@pytest.mark.parametrize("claim", INTEGER_BOUNDS, ids=[c.id for c in INTEGER_BOUNDS])
def test_bounds_shown_integers_stay_proved(claim):
    assert_proved(claim)


def test_the_refusal_names_the_bound():
    out = check(REAL_BOUNDS[3])
    # a band's real ends are read as ceiling(x)..floor(x + 1): no sum from x is formed, and the ranges
    # do not decide the restriction (or, with a sum from x written, its bound is refused)
    assert out.steps[0].status.value == "fail", out.steps[0].reason
    assert ("the bound x is an integer" in out.steps[0].reason
            or "restricting the masked sums applies nowhere" in out.steps[0].reason), out.steps[0].reason
    out = check(REAL_BOUNDS[0])
    assert "the split point x is not known to be an integer" in out.steps[0].reason, out.steps[0].reason


def test_the_condition_is_the_bound_up_to_an_integer_shift():
    conds = definedness_conditions(sp.Sum(s[j], (j, x + 1, n)) + sp.Sum(s[j], (j, 1, 2 - x)))
    assert conds == [IntegerBound(x)]
    assert definedness_conditions(sp.Sum(s[j], (j, k, n + 1))) == []
    assert IntegerBound(sp.Rational(7, 4)) == 0 and IntegerBound(sp.Integer(2)) == 1


def test_a_concrete_sum_over_a_non_integer_bound_is_undefined_not_evaluated():
    with pytest.raises(OutsideShape, match="1/2"):
        expand_finite(sp.Sum(1, (j, sp.Rational(1, 2), sp.Rational(3, 2))))
    assert expand_finite(sp.Sum(1, (j, 1, 3))) == 3
