"""The second engine re-checks identities of families of blocks (symattn's ``Concat``, ``Stack``,
``MatSum`` over a block index): a factor free of the block index comes out of a ``Concat`` on the
left, of a ``Stack`` on the right, of a ``MatSum`` on either side (the kernel's schema
``factor_out_of_blocks``, issue 18). True identities are agreed; others never are."""

import pytest
import sympy as sp

from symattn.kernel.second import AGREE
from symattn.kernel.second.flint_zero import recheck_zero
from symattn.kernel.terms import canonical
from symattn.maths.multihead import Concat, FamilyMatrix, MatSum, Stack

n, dv, h = sp.symbols("n d_v h", integer=True, positive=True)
m = sp.Symbol("m", integer=True, positive=True)
L, L2 = sp.MatrixSymbol("L", n, n), sp.MatrixSymbol("L_2", n, n)
R, R2 = sp.MatrixSymbol("R", n, n), sp.MatrixSymbol("R_2", n, n)
Bm, Em = FamilyMatrix("B", m, n, dv), FamilyMatrix("E", m, n, dv)  # blocks of a Concat
Cm = FamilyMatrix("C", m, dv, n)  # blocks of a Stack
Sm = FamilyMatrix("S", m, n, n)  # terms of a MatSum


def concat(body, count=h):
    return Concat(sp.Lambda(m, body), count)


def stack(body, count=h):
    return Stack(sp.Lambda(m, body), count)


TRUE = [
    (concat(L * Bm), L * concat(Bm)),
    (stack(Cm * R), stack(Cm) * R),
    (MatSum(L * Sm * R, (m, 1, h)), L * MatSum(Sm, (m, 1, h)) * R),
    (concat(L * L2 * Bm), L * L2 * concat(Bm)),
    (concat(L * (Bm + Em)), L * concat(Bm + Em)),
    (concat(L.T * Bm), L.T * concat(Bm)),
    (stack(Cm * R * R2), stack(Cm * R) * R2),
    (concat(L * Bm) * stack(Cm * R), L * concat(Bm) * stack(Cm) * R),
    (MatSum(L * Sm, (m, 1, h)), L * MatSum(Sm, (m, 1, h))),
]

FALSE = [
    (concat(L * Bm), L2 * concat(Bm)),  # another factor
    (concat(L * Bm), L * concat(Bm, h + 1)),  # another number of blocks
    (MatSum(L * Sm, (m, 1, h)), L * MatSum(Sm, (m, 2, h))),  # other bounds
    (concat(2 * L * Bm), L * concat(Bm)),  # a factor 2 lost
    (stack(Cm * R), stack(Cm) * R.T),
    (MatSum(Sm * R, (m, 1, h)), R * MatSum(Sm, (m, 1, h))),  # the wrong side
    (concat(L * Bm), L * concat(Em)),  # other blocks
    (MatSum(L * Sm * R, (m, 1, h)), L * MatSum(Sm, (m, 1, h)) * R2),
    (stack(Cm * R * R2), stack(Cm) * R2 * R),
]


@pytest.mark.parametrize("lhs, rhs", TRUE)
def test_a_factor_out_of_blocks_is_agreed(lhs, rhs):
    check = recheck_zero(canonical(lhs) - canonical(rhs))
    assert check.verdict == AGREE, check.reason


@pytest.mark.parametrize("lhs, rhs", FALSE)
def test_a_false_block_identity_is_never_agreed(lhs, rhs):
    assert recheck_zero(canonical(lhs) - canonical(rhs)).verdict != AGREE


def test_a_factor_that_depends_on_the_block_index_stays_inside():
    Lm = FamilyMatrix("L", m, n, n)
    k = sp.Symbol("k", integer=True, positive=True)
    # [L^(m) B^(m)]_m is not L^(k) [B^(m)]_m
    lhs, rhs = concat(Lm * Bm), FamilyMatrix("L", k, n, n) * concat(Bm)
    assert recheck_zero(canonical(lhs) - canonical(rhs)).verdict != AGREE
    assert recheck_zero(canonical(lhs) - canonical(lhs)).verdict == AGREE
