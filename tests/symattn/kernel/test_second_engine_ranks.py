"""The second engine re-checks rank bounds ``rank(A_1 ... A_k) <= b`` (the kernel's schema
``rank_product_bound``, no zero or sign test on the way) from the product's factors and shapes
(issue 18): a dimension of a factor or the rank of a run of the factors is agreed; any other bound
is never agreed."""

import pytest
import sympy as sp

from symattn.kernel.second import AGREE, INEXPRESSIBLE
from symattn.kernel.second.ranks import recheck_rank_bound
from symattn.kernel.second.steps import recheck_step
from symattn.maths.multihead import Rank

d, h, n, m, q = sp.symbols("d h n m q", integer=True, positive=True)
A = sp.MatrixSymbol("A", n, m)
B = sp.MatrixSymbol("B", m, q)
C = sp.MatrixSymbol("C", q, n)
WV = sp.MatrixSymbol("W_V", d, d / h)
WO = sp.MatrixSymbol("W_O", d / h, d)
WK = sp.MatrixSymbol("W_K", d, d / h)
D = sp.MatrixSymbol("D", n, n)

TRUE = [
    (Rank(A * B), m),  # the inner dimension
    (Rank(A * B), n),  # the rows of the first factor
    (Rank(A * B), q),  # the columns of the last
    (Rank(A * B), Rank(A)),
    (Rank(A * B), Rank(B)),
    (Rank(A * B), sp.Min(m, Rank(A), evaluate=False)),
    (Rank(A * B * C), Rank(B * C)),
    (Rank(A * B * C), Rank(B)),
    (Rank(2 * A * B), m),  # a scalar factor changes no bound
    (Rank(WV * WO), d / h),  # mha_head_rank_le
    (Rank(WV * WK.T), d * h / h**2),  # the same dimension, written otherwise
]

FALSE = [
    (Rank(A * B), m - 1),
    (Rank(A * B), 2 * m + n),
    (Rank(A * B), d),  # a symbol of no factor
    (Rank(A * B * C), Rank(A * C)),  # not a run of the factors
    (Rank(A * B), Rank(C)),
    (Rank(A * B), sp.Min(m, m - 1, evaluate=False)),
    (Rank(WV * WO), d / h - 1),
    (Rank(A * B * C), Rank(C * A)),
]


@pytest.mark.parametrize("lhs, rhs", TRUE)
def test_a_valid_rank_bound_is_agreed(lhs, rhs):
    check = recheck_rank_bound(lhs, rhs)
    assert check.verdict == AGREE, check.reason


@pytest.mark.parametrize("lhs, rhs", FALSE)
def test_another_bound_is_never_agreed(lhs, rhs):
    assert recheck_rank_bound(lhs, rhs).verdict == INEXPRESSIBLE


def test_factors_whose_shapes_do_not_fit_are_not_agreed():
    E = sp.MatrixSymbol("E", n + 1, q)  # n + 1 rows after m columns: not shown to fit
    prod = sp.MatMul(A, E)  # not validated when built (SymPy validates shapes on evaluation)
    assert recheck_rank_bound(Rank(prod), q).verdict == INEXPRESSIBLE


def test_not_a_rank_is_no_rank_check():
    assert recheck_rank_bound(n, m) is None


@pytest.mark.parametrize("lhs, rhs", TRUE[:4])
def test_the_step_as_a_whole_in_both_orientations(lhs, rhs):
    assert recheck_step(lhs, rhs, "<=").verdict == AGREE
    assert recheck_step(rhs, lhs, ">=").verdict == AGREE
    assert recheck_step(lhs, rhs - 1, "<=").verdict == INEXPRESSIBLE
