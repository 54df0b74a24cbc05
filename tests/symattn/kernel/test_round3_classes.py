"""Adversarial review 3 (public API): two classes of false claims that were graded ``proved``.

1. A sum with bounds that are not integers mixed two readings: the constant part counted
   ``hi - lo + 1`` terms (k = 1/2, 3/2, 5/2) while a Kronecker delta was contracted as if ``k`` ran over
   the integers in ``[lo, hi]``. The kernel's sums run over integer ranges: a bound shown not to be an
   integer is refused as a term, and a delta is contracted only over a lower bound shown an integer.
2. A power with a symbolic exponent, ``a**x`` or ``x**a``, is defined where the base is nonzero *or*
   the exponent is positive (``0**x = 0`` for ``x > 0``); the kernel's condition ``base != 0`` is an
   over-approximation, so it may not match a condition of the other side: ``d/dx a**x = a**x log(a)``
   at ``a = 0``, ``x = 1`` has a defined left side (0) and an undefined right side.
Each class: false claims not proved, true claims of the same shape still proved.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, IndexRange, Verdict
from tests.symattn.kernel.claims import check_chain

KD = sp.KroneckerDelta
half = sp.Rational(1, 2)
i, j = sp.Symbol("i", integer=True), sp.Symbol("j", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
a, x, t = sp.symbols("a x t", real=True)
D = sp.Derivative


def _check(lhs, rhs, steps, hyps=(), dims=(), tid="r3"):
    return check_chain(lhs, rhs, steps, hyps, dims, tid)


J_IN = IndexRange("j_in", index=j, lower=1, upper=n)
J_12 = IndexRange("j_12", index=j, lower=1, upper=2)

NON_INTEGER_BOUNDS = [
    # (lhs, rhs, steps, hypotheses, dimensions): each false under the integer reading, or mixing two
    ("count_minus_delta_symbolic", sp.Sum(1 - KD(i, j), (i, half, n + half)), n,
     [(sp.Sum(1, (i, half, n + half)) - sp.Sum(KD(i, j), (i, half, n + half)), "sum_linearity"),
      (n, "sum_evaluate")], (J_IN,), (n,)),
    ("count_minus_delta_literal", sp.Sum(1 - KD(i, 1), (i, half, 5 * half)), 2,
     [(sp.Sum(1, (i, half, 5 * half)) - sp.Sum(KD(i, 1), (i, half, 5 * half)), "sum_linearity"),
      (2, "sum_evaluate")], (), ()),
    ("delta_over_half_integers", sp.Sum(KD(i, j), (i, half, 5 * half)), 1, [(1, "sum_evaluate")], (J_12,), ()),
    ("count_over_half_integers", sp.Sum(1, (i, half, 5 * half)), 3, [(3, "sum_evaluate")], (), ()),
    ("upper_bound_off_the_integers", sp.Sum(KD(i, 1), (i, 1, n + half)), 1, [(1, "sum_evaluate")], (), (n,)),
    ("product_over_half_integers", sp.Product(i, (i, half, 5 * half)), sp.Rational(15, 8),
     [(sp.Rational(15, 8), "algebra")], (), ()),
    ("delta_over_a_real_lower_bound", sp.Sum(KD(i, 1), (i, t, t + 2)), 1, [(1, "sum_evaluate")],
     (Assumption("t_in", condition=sp.And(t > 0, t < 1)),), ()),
    ("delta_over_a_real_lower_bound_wide", sp.Sum(KD(i, 2), (i, t, t + 3)), 1, [(1, "sum_evaluate")],
     (Assumption("t_in", condition=sp.And(t > 0, t < 1)),), ()),
]

INTEGER_BOUNDS = [
    ("count_minus_delta", sp.Sum(1 - KD(i, j), (i, 1, n)), n - 1,
     [(sp.Sum(1, (i, 1, n)) - sp.Sum(KD(i, j), (i, 1, n)), "sum_linearity"), (n - 1, "sum_evaluate")], (J_IN,), (n,)),
    ("delta_in_range", sp.Sum(KD(i, j), (i, 1, 2)), 1, [(1, "sum_evaluate")], (J_12,), ()),
    ("count_literal", sp.Sum(1, (i, 1, 3)), 3, [(3, "sum_evaluate")], (), ()),
    ("delta_shifted_range", sp.Sum(KD(i, j), (i, 0, n)), 1, [(1, "sum_evaluate")], (J_IN,), (n,)),
]


@pytest.mark.parametrize("case", NON_INTEGER_BOUNDS, ids=lambda c: c[0])
def test_sums_off_the_integers_are_not_proved(case):
    tid, lhs, rhs, steps, hyps, dims = case
    out = _check(lhs, rhs, steps, hyps, dims, tid)
    assert out.verdict is not Verdict.PROVED, out.how
    assert out.verdict is not Verdict.REFUTED or out.counterexample is not None, out.how
    assert "integer" in out.how, out.how


@pytest.mark.parametrize("case", INTEGER_BOUNDS, ids=lambda c: c[0])
def test_sums_over_integer_ranges_are_still_proved(case):
    tid, lhs, rhs, steps, hyps, dims = case
    out = _check(lhs, rhs, steps, hyps, dims, tid)
    assert out.verdict is Verdict.PROVED, out.how


A_POS = Assumption("a_pos", condition=a > 0)
X_POS = Assumption("x_pos", condition=x > 0)
SYMBOLIC_EXPONENTS = [
    ("exponential_base_may_be_0", D(a**x, x), a**x * sp.log(a), ()),
    ("power_exponent_may_be_0", D(x**a, x), a * x ** (a - 1), ()),
    ("power_written_with_a_quotient", D(x**a, x), a * x**a / x, ()),
    ("power_of_a_shifted_exponent", D(x ** (a + 1), x), (a + 1) * x**a, ()),
    ("second_exponential", D(a ** (2 * x), x), 2 * a ** (2 * x) * sp.log(a), ()),
    ("product_of_powers", x**a * x**t, x ** (a + t), ()),
]
SYMBOLIC_EXPONENTS_WITH_HYPOTHESES = [
    ("exponential_base_positive", D(a**x, x), a**x * sp.log(a), (A_POS,)),
    ("power_base_positive", D(x**a, x), a * x ** (a - 1), (X_POS,)),
    ("power_quotient_base_positive", D(x**a, x), a * x**a / x, (X_POS,)),
    ("second_exponential_base_positive", D(a ** (2 * x), x), 2 * a ** (2 * x) * sp.log(a), (A_POS,)),
]


@pytest.mark.parametrize("case", SYMBOLIC_EXPONENTS, ids=lambda c: c[0])
def test_a_symbolic_exponent_does_not_hide_a_domain_difference(case):
    tid, lhs, rhs, hyps = case
    rule = "algebra" if not isinstance(lhs, sp.Derivative) else "differentiate"
    out = _check(lhs, rhs, [(rhs, rule)], hyps, (), tid)
    assert out.verdict is not Verdict.PROVED, out.how
    assert "!= 0" in out.how, out.how


@pytest.mark.parametrize("case", SYMBOLIC_EXPONENTS_WITH_HYPOTHESES, ids=lambda c: c[0])
def test_with_the_base_positive_the_same_claims_are_proved(case):
    tid, lhs, rhs, hyps = case
    out = _check(lhs, rhs, [(rhs, "differentiate")], hyps, (), tid)
    assert out.verdict is Verdict.PROVED, out.how


# ------------------------------------------------------------------------------ review 4
# 3. A matrix inverse exists only where the determinant is nonzero: a step that brings in A^-1 A = I
#    (SymPy cancels it on sight) holds only for an invertible A ("AB = 0 implies B = 0" was derived).
# 4. SymPy's binomial(n, k) = binomial(n, n - k) is false for a negative n: a binomial whose top is not
#    shown a nonnegative integer is opaque to the kernel's zero test.
from symattn import Equation  # noqa: E402

N = sp.Symbol("N", integer=True, positive=True)
A_, B_ = sp.MatrixSymbol("A", N, N), sp.MatrixSymbol("B", N, N)
AB_ZERO = Equation("ab_zero", lhs=A_ * B_, rhs=sp.ZeroMatrix(N, N))


def _symbolic(out):
    return out.levels["symbolic"].status.value


INVERSE_STEPS = [
    ("inverse_brought_in_by_distributivity", B_, A_.I * (A_ * B_ + B_) - A_.I * B_, "matrix_distributivity", ()),
    ("inverse_brought_in_by_algebra", B_, A_.I * (A_ * B_ + B_) - A_.I * B_, "algebra", ()),
    ("identity_through_an_inverse", sp.Identity(N), A_.I * (A_ + B_) - A_.I * B_, "algebra", ()),
    ("negative_power", sp.Identity(N), sp.MatPow(A_, -1) * (A_ + B_) - sp.MatPow(A_, -1) * B_, "algebra", ()),
]
# (A^-1 A B alone is no case: SymPy cancels A^-1 A when the product is built, before the kernel sees it)


@pytest.mark.parametrize("case", INVERSE_STEPS, ids=lambda c: c[0])
def test_a_step_through_an_inverse_needs_the_determinant_nonzero(case):
    tid, lhs, rhs, rule, hyps = case
    out = _check(lhs, rhs, [(rhs, rule)], (AB_ZERO,) + hyps, (N,), tid)
    assert out.verdict is not Verdict.PROVED, out.how
    assert _symbolic(out) == "fail", out.how
    if rule == "matrix_distributivity":  # the rule's own step is sound; the domains differ
        assert "Determinant" in out.how, out.how


def test_the_false_cancellation_derives_nothing():
    out = _check(B_, sp.ZeroMatrix(N, N), [(A_.I * (A_ * B_ + B_) - A_.I * B_, "matrix_distributivity"),
                                         (A_.I * B_ - A_.I * B_, "substitute"), (sp.ZeroMatrix(N, N), "algebra")],
                 (AB_ZERO,), (N,), "ab_zero_b_zero")
    assert out.verdict is not Verdict.PROVED and _symbolic(out) == "fail", out.how


m_int, k_int = sp.Symbol("m", integer=True), sp.Symbol("k", integer=True)
m_nat = sp.Symbol("m", integer=True, nonnegative=True)
WORDS = Assumption("words", text="a hypothesis stated in words only")
BINOMIAL_FALSE = [
    ("symmetry_for_any_integer_top", sp.binomial(m_int, k_int), sp.binomial(m_int, m_int - k_int)),
    ("symmetry_for_a_real_top", sp.binomial(x, k_int), sp.binomial(x, x - k_int)),
    ("symmetry_shifted", sp.binomial(m_int - 3, k_int), sp.binomial(m_int - 3, m_int - 3 - k_int)),
]
BINOMIAL_TRUE = [
    ("symmetry_for_a_natural_top", sp.binomial(m_nat, k_int), sp.binomial(m_nat, m_nat - k_int)),
    ("same_binomial_twice", sp.binomial(m_int, k_int) + sp.binomial(m_int, k_int), 2 * sp.binomial(m_int, k_int)),
]


@pytest.mark.parametrize("case", BINOMIAL_FALSE, ids=lambda c: c[0])
def test_binomial_symmetry_is_not_taken_for_a_top_that_may_be_negative(case):
    tid, lhs, rhs = case
    out = _check(lhs, rhs, [(rhs, "algebra")], (WORDS,), (), tid)
    assert out.verdict is not Verdict.PROVED and _symbolic(out) == "fail", out.how


@pytest.mark.parametrize("case", BINOMIAL_TRUE, ids=lambda c: c[0])
def test_binomial_identities_that_hold_still_check(case):
    tid, lhs, rhs = case
    out = _check(lhs, rhs, [(rhs, "algebra")], (), (), tid)
    assert _symbolic(out) == "pass", out.how


# ------------------------------------------------------------------------------ review 5
# 5. A matrix power with a non-integer exponent is a matrix root, neither unique nor always defined:
#    (A**2)**(1/2) = A was proved (false at A = [[-1]]) by merging the exponents. Refused as a term.
C1 = sp.MatrixSymbol("C", 1, 1)
MATRIX_ROOTS = [
    ("square_root_of_a_square", sp.MatPow(sp.MatPow(A_, 2), half), A_, (N,)),
    ("cube_root_of_a_cube", sp.MatPow(sp.MatPow(A_, 3), sp.Rational(1, 3)), A_, (N,)),
    ("fourth_root_of_a_fourth_power", sp.MatPow(sp.MatPow(A_, 4), sp.Rational(1, 4)), A_, (N,)),
    ("root_squared", sp.MatPow(sp.MatPow(A_, half), 2), A_, (N,)),
    ("root_of_a_one_by_one_square", sp.MatPow(sp.MatPow(C1, 2), half), C1, ()),
    ("real_power", sp.MatPow(sp.MatPow(A_, 2), x), sp.MatPow(A_, 2 * x), (N,)),
]


@pytest.mark.parametrize("case", MATRIX_ROOTS, ids=lambda c: c[0])
def test_a_matrix_power_off_the_integers_is_refused(case):
    tid, lhs, rhs, dims = case
    out = _check(lhs, rhs, [(rhs, "algebra")], (), dims, tid)
    assert out.verdict is not Verdict.PROVED and out.verdict is not Verdict.PROVED_FOR_INSTANCES, out.how
    assert "matrix power" in out.how and "not shown an integer" in out.how, out.how


def test_integer_matrix_powers_still_check():
    lhs, rhs = sp.MatPow(sp.MatPow(A_, 2), 3), sp.MatPow(A_, 6)
    out = _check(lhs, rhs, [(rhs, "algebra")], (), (N,), "integer_powers")
    assert _symbolic(out) == "pass", out.how
