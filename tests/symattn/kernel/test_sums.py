"""Class 4 of issue 10, trusting SymPy's evaluation of sums: the kernel evaluates sums by its own
closed forms, and contracts a delta only at an integer solution inside the range."""

import pytest
import sympy as sp

from symattn import IndexRange
from symattn.kernel.sums import evaluate
from symattn.kernel.terms import KernelError
from tests.symattn.kernel.claims import (
    Claim,
    assert_proved,
    assert_rejected,
    delta,
    j,
    k,
    m,
    n,
    s,
    step,
)

j_in_1_n = IndexRange("j_range", index=j, lower=1, upper=n)
js = sp.Symbol("j", integer=True)  # a plain integer j (no sign)

FALSE_CLAIMS = [
    Claim("delta_at_half_m_summed_by_sum_evaluate", sp.Sum(delta(k, m / 2), (k, 0, m)), 1,
          (step(1, "sum_evaluate"),), bad_step=1, why="not known to be an integer"),
    Claim("delta_at_half_m_summed_by_algebra", sp.Sum(delta(k, m / 2), (k, 0, m)), 1,
          (step(1, "algebra"),), bad_step=1, why="does not reduce"),
    Claim("delta_at_half_m_contracted", sp.Sum(s[k] * delta(k, m / 2), (k, 0, m)), s[m / 2],
          (step(s[m / 2], "kronecker_delta_contraction"),), bad_step=1, why="integer"),
    Claim("delta_at_j_minus_1_contracted_as_if_at_j", sp.Sum(s[k] * delta(j, k + 1), (k, 1, n)), s[j],
          (step(s[j], "kronecker_delta_contraction"),), hypotheses=(j_in_1_n,), bad_step=1, why="range"),
    Claim("delta_at_j_minus_1_contracted_where_j_minus_1_may_be_0", sp.Sum(s[k] * delta(j, k + 1), (k, 1, n)),
          s[j - 1], (step(s[j - 1], "kronecker_delta_contraction"),), hypotheses=(j_in_1_n,), bad_step=1,
          why="range"),
    Claim("delta_contracted_with_no_range_for_j", sp.Sum(s[k] * delta(js, k), (k, 1, n)), s[js],
          (step(s[js], "kronecker_delta_contraction"),), bad_step=1, why="range"),
    Claim("delta_contracted_where_j_may_be_0", sp.Sum(s[k] * delta(js, k), (k, 1, n)), s[js],
          (step(s[js], "kronecker_delta_contraction"),),
          hypotheses=(IndexRange("j0", index=js, lower=0, upper=n),), bad_step=1, why="range"),
    Claim("delta_contracted_where_j_may_be_n_plus_1", sp.Sum(delta(k, j), (k, 1, n)), 1,
          (step(1, "sum_evaluate"),), hypotheses=(IndexRange("j1", index=j, lower=1, upper=n + 1),),
          bad_step=1, why="range"),
    Claim("delta_at_even_index_counted_for_odd_j", sp.Sum(delta(2 * k, j), (k, 1, n)), 1,
          (step(1, "sum_evaluate"),), hypotheses=(j_in_1_n,), bad_step=1, why="integer"),
    Claim("delta_matrix_evaluated_explicitly", sp.Matrix([sp.Sum(delta(k, m / 2), (k, 0, m))]), sp.Matrix([1]),
          (step(sp.Matrix([1]), "evaluate_explicit"),), bad_step=1, why="evaluates to"),
]

TRUE_CLAIMS = [
    Claim("delta_at_2m_summed_over_0_to_2m", sp.Sum(delta(k, 2 * m), (k, 0, 2 * m)), 1, (step(1, "sum_evaluate"),)),
    Claim("delta_at_j_contracted_in_range", sp.Sum(s[k] * delta(j, k), (k, 1, n)), s[j],
          (step(s[j], "kronecker_delta_contraction"),), hypotheses=(j_in_1_n,)),
    Claim("delta_at_j_minus_1_contracted_for_j_in_2_to_n_plus_1", sp.Sum(s[k] * delta(j, k + 1), (k, 1, n)),
          s[j - 1], (step(s[j - 1], "kronecker_delta_contraction"),),
          hypotheses=(IndexRange("j2", index=j, lower=2, upper=n + 1),)),
    Claim("delta_outside_the_range_gives_0", sp.Sum(s[k] * delta(k, n + 1), (k, 1, n)), 0,
          (step(0, "sum_evaluate"),)),
    Claim("constant_summed", sp.Sum(3, (k, 1, n)), 3 * n, (step(3 * n, "sum_evaluate"),)),
    Claim("arithmetic_series", sp.Sum(k, (k, 1, n)), n * (n + 1) / 2, (step(n * (n + 1) / 2, "sum_evaluate"),)),
    Claim("sum_of_squares", sp.Sum(k**2, (k, 1, n)), n * (n + 1) * (2 * n + 1) / 6,
          (step(n * (n + 1) * (2 * n + 1) / 6, "sum_evaluate"),)),
    Claim("delta_row_of_a_double_sum", sp.Sum(sp.Sum(s[k] * delta(j, k), (k, 1, n)), (j, 1, n)),
          sp.Sum(s[j], (j, 1, n)), (step(sp.Sum(s[j], (j, 1, n)), "sum_evaluate"),)),
]


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda c: c.id)
def test_sum_evaluation_sympy_gets_wrong_is_refused(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda c: c.id)
def test_sum_evaluation_by_the_kernels_closed_forms_is_proved(claim):
    assert_proved(claim)


def test_kernel_refuses_a_delta_whose_solution_may_not_be_an_integer():
    with pytest.raises(KernelError, match="not known to be an integer"):
        evaluate(sp.Sum(delta(k, m / 2), (k, 0, m)))


def test_kernel_refuses_infinite_sums():
    with pytest.raises(KernelError, match="infinite"):
        evaluate(sp.Sum(1 / k**2, (k, 1, sp.oo)))


def test_outer_range_possibly_reversed_lends_nothing_to_the_inner_delta():
    # for n - q < 0 the outer sum reads its summand at i = n-q+1..0, outside 1..n, where the inner
    # delta sum is 0, not 1: contracting with i's binder range would be wrong there
    n_, q_ = sp.symbols("n q", integer=True, nonnegative=True)
    i_, j_ = sp.symbols("i j", integer=True)
    e = sp.Sum(sp.Sum(sp.KroneckerDelta(j_, i_), (j_, 1, n_)), (i_, 1, n_ - q_))
    with pytest.raises(KernelError, match="not known to lie"):
        evaluate(e)
    ok = sp.Sum(sp.Sum(sp.KroneckerDelta(j_, i_), (j_, 1, n_)), (i_, 1, n_))  # 1..n is never reversed
    assert evaluate(ok) == n_


@pytest.mark.parametrize("lo, hi, counted", [
    # hi >= lo - 1 from the Max's pieces: i + 1 - 1 >= 0 and i + 1 - (i - w + 1) = w >= 0
    (lambda i, w: sp.Max(1, i - w + 1), lambda i, w: i, True),
    (lambda i, w: sp.Min(i, w), lambda i, w: i, True),
    # w = 1 gives lo = i + 1 > hi + 1 = i: reversed, and by Karr's convention (SymPy's, the sign
    # test's) still hi - lo + 1 = -1 there: one convention everywhere (issue 19, class 5)
    (lambda i, w: sp.Max(1, i - w + 2), lambda i, w: i - 1, True),
    # a non-integer bound is no count at all (issue 18, class 10)
    (lambda i, w: sp.Integer(1), lambda i, w: i / 2, False),
])
def test_constant_sum_over_a_max_min_window_is_counted_by_karrs_convention(lo, hi, counted):
    i_, w_, n_ = sp.symbols("i w n", integer=True, positive=True)
    j_ = sp.Symbol("j", integer=True)
    a, b = lo(i_, w_), hi(i_, w_)
    got = evaluate(sp.Sum(1, (j_, a, b)), (IndexRange("i_range", index=i_, lower=1, upper=n_),))
    if counted:
        assert not got.has(sp.Sum) and sp.expand(got - (b - a + 1)) == 0, got
    else:
        assert got.has(sp.Sum), got
