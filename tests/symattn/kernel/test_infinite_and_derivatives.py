"""Classes 5 and 6 of issue 10: infinite sums (refused: no rule knows convergence) and derivatives
through binders (taken after alpha-renaming, with the kernel's delta rule and its range check)."""

import pytest
import sympy as sp

from symattn import IndexRange
from tests.symattn.kernel.claims import (
    Claim,
    assert_proved,
    assert_rejected,
    delta,
    i,
    j,
    k,
    n,
    s,
    step,
    x,
)

oo = sp.oo
grandi = sp.Sum((-1) ** k, (k, 0, oo))
cond = (i - j) / (i + j) ** 3

INFINITE_FALSE = [
    Claim("divergent_sum_split_by_linearity", sp.Sum(1, (k, 1, oo)), sp.Sum(k + 1, (k, 1, oo)) - sp.Sum(k, (k, 1, oo)),
          (step(sp.Sum(k + 1, (k, 1, oo)) - sp.Sum(k, (k, 1, oo)), "sum_linearity"),), bad_step=1, why="infinite"),
    Claim("conditionally_convergent_double_sum_interchanged", sp.Sum(sp.Sum(cond, (i, 1, oo)), (j, 1, oo)),
          sp.Sum(sp.Sum(cond, (j, 1, oo)), (i, 1, oo)),
          (step(sp.Sum(sp.Sum(cond, (j, 1, oo)), (i, 1, oo)), "sum_interchange"),), bad_step=1, why="infinite"),
    Claim("grandi_series_split", grandi, 1 + sp.Sum((-1) ** k, (k, 1, oo)),
          (step(1 + sp.Sum((-1) ** k, (k, 1, oo)), "sum_split", at=0),), bad_step=1, why="infinite"),
    Claim("grandi_series_evaluated", grandi, sp.Rational(1, 2), (step(sp.Rational(1, 2), "sum_evaluate"),),
          bad_step=1, why="infinite"),
    Claim("grandi_series_by_algebra", grandi, sp.Rational(1, 2), (step(sp.Rational(1, 2), "algebra"),),
          bad_step=1, why="infinite"),
    Claim("infinite_delta_sum_contracted_outside_the_range", sp.Sum(s[k] * delta(k, j), (k, 1, oo)), s[j],
          (step(s[j], "kronecker_delta_contraction"),), hypotheses=(IndexRange("j0", index=j, lower=0, upper=n),),
          bad_step=1, why="infinite"),
    Claim("divergent_difference_by_linearity", sp.Sum(k - k**2, (k, 1, oo)),
          sp.Sum(k, (k, 1, oo)) - sp.Sum(k**2, (k, 1, oo)),
          (step(sp.Sum(k, (k, 1, oo)) - sp.Sum(k**2, (k, 1, oo)), "sum_linearity"),), bad_step=1, why="infinite"),
    Claim("harmonic_series_bounded", sp.Sum(1 / k, (k, 1, oo)), 10, (step(10, "inequality", "<="),),
          relation="<=", bad_step=1, why="infinite"),
]

INFINITE_TRUE_FINITE_SHAPE = [
    Claim("finite_sum_split_by_linearity", sp.Sum(k + 1, (k, 1, n)), sp.Sum(k, (k, 1, n)) + sp.Sum(1, (k, 1, n)),
          (step(sp.Sum(k, (k, 1, n)) + sp.Sum(1, (k, 1, n)), "sum_linearity"),)),
    Claim("finite_double_sum_interchanged", sp.Sum(sp.Sum(cond, (i, 1, n)), (j, 1, n)),
          sp.Sum(sp.Sum(cond, (j, 1, n)), (i, 1, n)),
          (step(sp.Sum(sp.Sum(cond, (j, 1, n)), (i, 1, n)), "sum_interchange"),)),
    Claim("finite_alternating_sum_split", sp.Sum((-1) ** k, (k, 0, n)), 1 + sp.Sum((-1) ** k, (k, 1, n)),
          (step(1 + sp.Sum((-1) ** k, (k, 1, n)), "sum_split", at=0),)),
]

lse = sp.log(sp.Sum(sp.exp(s[j]), (j, 1, n)))
Z = sp.Sum(sp.exp(s[k]), (k, 1, n))
i_in = IndexRange("i_range", index=i, lower=1, upper=n)
j_in = IndexRange("j_range", index=j, lower=1, upper=n)
ji = sp.Symbol("j", integer=True)

DERIVATIVE_FALSE = [
    Claim("log_sum_exp_differentiated_with_the_bound_index",
          sp.Derivative(sp.log(sp.Sum(sp.exp(s[i]), (i, 1, n))), s[i]),
          1, (step(1, "differentiate"),), hypotheses=(i_in,), bad_step=1, why="derivative is"),
    Claim("sum_of_squares_differentiated_termwise_as_free", sp.Derivative(sp.Sum(s[i] ** 2, (i, 1, n)), s[i]),
          2 * sp.Sum(s[i], (i, 1, n)), (step(2 * sp.Sum(s[i], (i, 1, n)), "differentiate"),), hypotheses=(i_in,),
          bad_step=1, why="derivative is"),
    Claim("derivative_at_an_index_with_no_range", sp.Derivative(Z, s[ji]), sp.exp(s[ji]),
          (step(sp.exp(s[ji]), "differentiate"),), bad_step=1, why="derivative is"),
    Claim("derivative_at_an_index_that_may_be_n_plus_1", sp.Derivative(Z, s[j]), sp.exp(s[j]),
          (step(sp.exp(s[j]), "differentiate"),), hypotheses=(IndexRange("j1", index=j, lower=1, upper=n + 1),),
          bad_step=1, why="derivative is"),
    Claim("sum_of_entries_differentiated_as_n", sp.Derivative(sp.Sum(s[i], (i, 1, n)), s[i]), n,
          (step(n, "differentiate"),), hypotheses=(i_in,), bad_step=1, why="derivative is"),
    Claim("softmax_derivative_with_the_wrong_sign", sp.Derivative(sp.exp(s[i]) / Z, s[j]),
          sp.exp(s[i]) * sp.exp(s[j]) / Z**2, (step(sp.exp(s[i]) * sp.exp(s[j]) / Z**2, "differentiate"),),
          hypotheses=(i_in, j_in), bad_step=1, why="derivative is"),
    Claim("derivative_at_an_index_below_the_range", sp.Derivative(sp.Sum(sp.exp(s[k]), (k, 2, n)), s[i]), sp.exp(s[i]),
          (step(sp.exp(s[i]), "differentiate"),), hypotheses=(i_in,), bad_step=1, why="derivative is"),
    Claim("derivative_with_respect_to_a_bound_name", sp.Derivative(sp.Sum(k**2, (k, 1, n)), k),
          sp.Sum(2 * k, (k, 1, n)), (step(sp.Sum(2 * k, (k, 1, n)), "differentiate"),), bad_step=1,
          why="derivative is"),
]

DERIVATIVE_TRUE = [
    Claim("log_sum_exp_gradient", sp.Derivative(lse, s[i]), sp.exp(s[i]) / sp.Sum(sp.exp(s[j]), (j, 1, n)),
          (step(sp.exp(s[i]) / sp.Sum(sp.exp(s[j]), (j, 1, n)), "differentiate"),), hypotheses=(i_in,)),
    Claim("sum_of_squares_gradient", sp.Derivative(sp.Sum(s[k] ** 2, (k, 1, n)), s[i]), 2 * s[i],
          (step(2 * s[i], "differentiate"),), hypotheses=(i_in,)),
    Claim("softmax_derivative", sp.Derivative(sp.exp(s[i]) / Z, s[j]),
          sp.exp(s[i]) * delta(i, j) / Z - sp.exp(s[i]) * sp.exp(s[j]) / Z**2,
          (step(sp.exp(s[i]) * delta(i, j) / Z - sp.exp(s[i]) * sp.exp(s[j]) / Z**2, "differentiate"),),
          hypotheses=(i_in, j_in)),
    Claim("derivative_with_respect_to_a_symbol_only_bound_is_zero", sp.Derivative(sp.Sum(k**2, (k, 1, n)), k), 0,
          (step(0, "differentiate"),)),
    Claim("derivative_of_a_sum_at_an_index_in_range", sp.Derivative(Z, s[j]), sp.exp(s[j]),
          (step(sp.exp(s[j]), "differentiate"),), hypotheses=(j_in,)),
    Claim("derivative_of_a_sum_from_0", sp.Derivative(sp.Sum(sp.exp(s[k]), (k, 0, n)), s[i]), sp.exp(s[i]),
          (step(sp.exp(s[i]), "differentiate"),), hypotheses=(i_in,)),
    Claim("sum_of_entries_gradient", sp.Derivative(sp.Sum(s[k], (k, 1, n)), s[i]), 1,
          (step(1, "differentiate"),), hypotheses=(i_in,)),
    Claim("plain_derivative", sp.Derivative(x**2, x), 2 * x, (step(2 * x, "differentiate"),)),
]


@pytest.mark.parametrize("claim", INFINITE_FALSE, ids=lambda c: c.id)
def test_infinite_sums_are_refused_by_every_rule(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", INFINITE_TRUE_FINITE_SHAPE, ids=lambda c: c.id)
def test_the_same_steps_on_finite_sums_are_proved(claim):
    assert_proved(claim)


@pytest.mark.parametrize("claim", DERIVATIVE_FALSE, ids=lambda c: c.id)
def test_derivative_through_a_binder_is_taken_after_renaming(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", DERIVATIVE_TRUE, ids=lambda c: c.id)
def test_true_derivatives_through_binders_are_proved(claim):
    assert_proved(claim)
