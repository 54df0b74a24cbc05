"""The second engine's own reading of continuity (its table of heads, conditions at the point decided
by Z3), of ``|f|'`` and of block identities: it agrees on what holds and never agrees on what does not."""

import pytest
import sympy as sp

from symattn.kernel.second import AGREE, INEXPRESSIBLE
from symattn.kernel.second.continuity import recheck_continuous
from symattn.kernel.second.derivatives import recheck_derivative
from symattn.kernel.second.flint_zero import recheck_zero
from symattn.maths.multihead import FamilyMatrix, HConcat, MatSum, VStack

x = sp.Symbol("x", real=True)
a = sp.Symbol("a", real=True)
p = sp.Symbol("p", positive=True)
z = sp.Symbol("z")  # complex
k = sp.Symbol("k", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
X = sp.IndexedBase("X", real=True)

CONTINUOUS = [
    (sp.exp(a * x) / (sp.exp(a * x) + 1), x, 0),
    (x**2 * sp.sin(x) + sp.cos(3 * x), x, 1),
    (sp.Abs(x), x, 0),
    (sp.Max(x, 0) + sp.Min(x, 1), x, 0),
    (sp.log(1 + x**2), x, 0),
    (1 / (x - 2), x, 0),
    (sp.sqrt(x + 1), x, 3),
    (sp.tanh(x) + sp.atan(x), x, 5),
    (sp.exp(z) * sp.sin(z), z, 0),  # entire functions, complex argument
    (sp.Sum(X[k] * x**k, (k, 1, n)), x, 0),
    (p**x, x, 0),
    (x**n, x, 0),  # a positive integer exponent: a polynomial
    (1 + p * sp.exp(-x), x, 0),
]

NOT_AGREED = [
    (1 / x, x, 0),  # a pole at the point
    (1 / (x - 2), x, 2),
    (sp.log(x), x, 0),  # log at 0
    (sp.sqrt(x), x, 0),  # the base is not > 0 at the point: not in the table (one-sided only)
    (x**a, x, 0),
    (x**k, x, 0),  # k may be negative: a pole at 0
    (sp.tan(x), x, 0),  # not in the second engine's table
    (sp.floor(x), x, 1),
    (sp.Function("g")(x), x, 0),  # an abstract map
    (sp.atan(z), z, 0),  # not read as real
    (sp.coth(x), x, 0),
    (sp.log(a), a, 0),
]


@pytest.mark.parametrize("e, v, at", CONTINUOUS, ids=lambda t: sp.sstr(t)[:40])
def test_continuous_heads_are_agreed(e, v, at):
    check = recheck_continuous(e, v, sp.S(at))
    assert check.verdict == AGREE, check.reason


@pytest.mark.parametrize("e, v, at", NOT_AGREED, ids=lambda t: sp.sstr(t)[:40])
def test_discontinuous_or_unknown_heads_are_never_agreed(e, v, at):
    check = recheck_continuous(e, v, sp.S(at))
    assert check.verdict == INEXPRESSIBLE, check.reason


def test_points_at_infinity_are_not_read():
    assert recheck_continuous(sp.exp(-x), x, sp.oo).verdict == INEXPRESSIBLE


def test_the_derivative_of_a_modulus_is_the_sign_times_the_inner_derivative():
    agreed = recheck_derivative(sp.Abs(x - 2), x, sp.sign(x - 2))
    assert agreed.verdict == AGREE, agreed.reason
    wrong = recheck_derivative(sp.Abs(x - 2), x, -sp.sign(x - 2))
    assert wrong.verdict != AGREE, wrong.reason
    chained = recheck_derivative(sp.Abs(x**2 - 2), x, 2 * x * sp.sign(x**2 - 2))
    assert chained.verdict == AGREE, chained.reason


d, m_, q = (sp.Symbol(s, integer=True, positive=True) for s in "dmq")
A1, A2 = sp.MatrixSymbol("A_1", n, d), sp.MatrixSymbol("A_2", n, d)
A3 = sp.MatrixSymbol("A_3", n, q)
B1, B2 = sp.MatrixSymbol("B_1", d, n), sp.MatrixSymbol("B_2", d, n)
h = sp.Symbol("h", integer=True, positive=True)
F = FamilyMatrix("F", m_, n, n)


def test_a_block_row_times_a_block_column_is_the_sum_of_the_pairs():
    good = sp.MatMul(HConcat(A1, A2), VStack(B1, B2)) - sp.MatAdd(sp.MatMul(A1, B1), sp.MatMul(A2, B2))
    assert recheck_zero(good).verdict == AGREE
    swapped = sp.MatMul(HConcat(A1, A2), VStack(B1, B2)) - sp.MatAdd(sp.MatMul(A1, B2), sp.MatMul(A2, B1))
    assert recheck_zero(swapped).verdict != AGREE


def test_blocks_that_do_not_fit_are_not_multiplied_out():
    # A_3 is n x q, B_2 is d x n: q and d are different sizes, the pairing is not the product
    bad = sp.MatMul(HConcat(A1, A3), VStack(B1, sp.MatrixSymbol("B_3", q, n)))
    wrong = bad - sp.MatAdd(sp.MatMul(A1, B1), sp.MatMul(A3, B2))
    assert recheck_zero(wrong).verdict != AGREE


def test_a_sum_over_literal_bounds_is_written_out():
    one = MatSum(F, (m_, 1, 1)) - FamilyMatrix("F", 1, n, n)
    assert recheck_zero(one).verdict == AGREE
    three = MatSum(F, (m_, 1, 3)) - sp.MatAdd(*(FamilyMatrix("F", j, n, n) for j in (1, 2, 3)))
    assert recheck_zero(three).verdict == AGREE
    off_by_one = MatSum(F, (m_, 1, 2)) - FamilyMatrix("F", 1, n, n)
    assert recheck_zero(off_by_one).verdict != AGREE
