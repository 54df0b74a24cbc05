"""The kernel's block-diagonal schemas: ``blockwise_form`` (a bilinear form of 2B-vectors with operators
block diagonal on coordinate pairs is the sum over m = 0..B-1 of the per-block forms) and
``blockwise_equal`` (two such operators are equal when their 2 x 2 blocks at a fresh block index are). Wrong
blocks, a wrong number of blocks or range, wrong or mixed layouts, a permutation that does not map the
pairs, an operator that is not block diagonal, an odd dimension: each fails at the kernel; the true
statements of the same shapes are proved."""

import pytest
import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.terms import KernelError
from symattn.maths.rope import Bilinear, Inner, PairBlockDiagonal, PairOf, PairPermutation, Rope, Rotation
from tests.symattn.kernel.claims import Claim, assert_proved, assert_rejected, step

B, C = sp.symbols("B C", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
p, p2 = sp.symbols("p p'", real=True)
q, k = sp.MatrixSymbol("q", 2 * B, 1), sp.MatrixSymbol("k", 2 * B, 1)
W = sp.MatrixSymbol("W", 2 * B, 2 * B)
Rp, Rq = Rope(p, B), Rope(p2, B)
Pi = PairPermutation(B)
LOGIT = Inner(sp.MatMul(Rp, q), sp.MatMul(Rq, k))


def blocks(body, lo=0, hi=B - 1):
    return sp.Sum(body, (m, lo, hi))


def per_block(A, C_, u=q, v=k, layout="interleaved"):
    return Bilinear(PairOf(u, m, layout), sp.MatMul(sp.Transpose(A.block(m)), C_.block(m)), PairOf(v, m, layout))


def bd(name, lhs, rhs, why=""):
    return Claim(name, lhs, rhs, (step(rhs, "block_diagonal_product"),), bad_step=1, why=why)


class _FlippedPermutation(PairPermutation):
    """Sends pair (2m, 2m + 1) to (m + B, m): the pair flipped (a subclass the kernel does not trust)."""

    def column(self, i):
        return sp.Piecewise((2 * i + 1, sp.Lt(i, self.num_blocks)), (2 * (i - self.num_blocks), True))


I2 = sp.Identity(2)
FALSE_CLAIMS = [
    bd("sum_one_block_too_many", LOGIT, blocks(per_block(Rp, Rq), hi=B), "differ"),
    bd("sum_starting_at_block_1", LOGIT, blocks(per_block(Rp, Rq), lo=1), "starts at"),
    bd("rotation_angle_sign_error", blocks(Bilinear(PairOf(q, m), Rope(p - p2, B).block(m), PairOf(k, m))),
       Inner(q, sp.MatMul(Rope(p2 - p, B), k)), "differ"),
    bd("a_block_factor_dropped", LOGIT, blocks(Bilinear(PairOf(q, m), Rq.block(m), PairOf(k, m))), "differ"),
    bd("the_pairs_of_the_other_layout", LOGIT, blocks(per_block(Rp, Rq, layout="half")), "differ"),
    bd("mixed_layouts", Inner(sp.MatMul(Rp, q), sp.MatMul(Rope(p2, B, convention="half"), k)),
       blocks(per_block(Rp, Rq)), "layouts"),
    bd("an_operator_not_block_diagonal", Inner(sp.MatMul(W, q), k), blocks(Inner(PairOf(q, m), PairOf(k, m))),
       "not known to be block diagonal"),
    bd("another_number_of_blocks", Rope(p, B), Rope(p, C), "numbers of blocks differ"),
    bd("wrong_blocks", Rope(p, B), Rope(p2, B), "blocks differ"),
    bd("rope_is_not_the_identity", Rope(p, B), sp.Identity(2 * B), "blocks differ"),
    bd("conjugation_the_wrong_way", Rope(p, B, convention="half"), sp.MatMul(sp.Transpose(Pi), Rope(p, B), Pi),
       "not block diagonal"),
    bd("a_permutation_of_the_wrong_pairs", Rope(p, B, convention="half"),
       sp.MatMul(_FlippedPermutation(B), Rope(p, B), sp.Transpose(_FlippedPermutation(B))),
       "defines column"),  # refused as a term: a subclass overriding the library head's own method
    bd("a_permutation_alone", sp.MatMul(Pi, Rope(p, B)), sp.MatMul(Rope(p, B, convention="half"), Pi),
       "not block diagonal"),
    bd("half_and_interleaved_are_the_same", Rope(p, B, convention="half"), Rope(p, B), "different layouts"),
    bd("an_identity_of_odd_size", sp.Identity(2 * B + 1), PairBlockDiagonal(sp.Lambda(m, I2), B), "even"),
    bd("blocks_of_another_rotation", PairBlockDiagonal(sp.Lambda(m, Rotation(p)), B),
       PairBlockDiagonal(sp.Lambda(m, Rotation(2 * p)), B), "blocks differ"),
]

TRUE_CLAIMS = [
    bd("logit_splits_into_blocks", LOGIT, blocks(per_block(Rp, Rq))),
    bd("blocks_fold_into_a_logit", blocks(Bilinear(PairOf(q, m), Rope(p2 - p, B).block(m), PairOf(k, m))),
       Inner(q, sp.MatMul(Rope(p2 - p, B), k))),
    bd("product_of_block_diagonal_operators", sp.MatMul(sp.Transpose(Rp), Rp),
       PairBlockDiagonal(sp.Lambda(m, sp.MatMul(sp.Transpose(Rp.block(m)), Rp.block(m))), B)),
    bd("identity_blocks", PairBlockDiagonal(sp.Lambda(m, I2), B), sp.Identity(2 * B)),
    bd("rope_at_zero", Rope(0, B), sp.Identity(2 * B)),
    bd("inner_product_as_a_bilinear_form", Inner(sp.MatMul(Rp, q), sp.MatMul(Rp, q)),
       Bilinear(q, sp.MatMul(sp.Transpose(Rp), Rp), q)),
    bd("conjugation_changes_the_layout", Rope(p, B, convention="half"), sp.MatMul(Pi, Rope(p, B), sp.Transpose(Pi))),
    bd("conjugation_at_three_blocks", Rope(p, 3, convention="half"),
       sp.MatMul(PairPermutation(3), Rope(p, 3), sp.Transpose(PairPermutation(3)))),
    bd("rotation_blocks_compose", PairBlockDiagonal(sp.Lambda(m, sp.MatMul(Rotation(p), Rotation(p2))), B),
       PairBlockDiagonal(sp.Lambda(m, Rotation(p + p2)), B)),
    bd("a_scaled_logit", 3 * LOGIT, blocks(3 * per_block(Rp, Rq))),
]


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda c: c.id)
def test_blockwise_with_a_side_condition_broken_is_refused(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda c: c.id)
def test_blockwise_true_statements_are_proved(claim):
    assert_proved(claim)


# ------------------------------------------------------------------ the schemas themselves, without the rule
def test_blockwise_form_is_a_sum_over_exactly_the_blocks():
    t = axiom("blockwise_form", expr=LOGIT)
    assert t.relation == "=" and isinstance(t.rhs, sp.Sum)
    (_v, lo, hi), = t.rhs.limits
    assert (lo, hi) == (0, B - 1)
    assert not t.rhs.has(PairOf) and not t.rhs.has(Inner)  # the 2-dimensional objects are written out


@pytest.mark.parametrize("expr, why", [
    (Inner(sp.MatMul(W, q), k), "not known to be block diagonal"),
    (Rope(p, B), "a scalar"),
    (Inner(q, sp.MatMul(Rp, k)) - Inner(
        sp.MatrixSymbol("u", 2 * C, 1), sp.MatrixSymbol("v", 2 * C, 1)), "numbers of blocks differ"),
    (sp.Sum(Inner(PairOf(q, m), PairOf(k, m)), (m, 1, B)), "starts at"),
])
def test_blockwise_form_refuses(expr, why):
    with pytest.raises(KernelError, match=why):
        axiom("blockwise_form", expr=expr)


@pytest.mark.parametrize("lhs, rhs, ok", [
    (Rope(0, B), sp.Identity(2 * B), True),
    (Rope(p, B), Rope(p, B, convention="half"), False),
    (Rope(p, B), sp.Identity(2 * B), False),
    (sp.MatMul(Rp, Rq), Rope(p + p2, B), True),  # rotations compose: the addition formulas, block by block
    (sp.MatMul(Rp, Rq), Rope(p * p2, B), False),
])
def test_blockwise_equal_decides_by_the_blocks(lhs, rhs, ok):
    if ok:
        assert axiom("blockwise_equal", lhs=lhs, rhs=rhs).relation == "="
    else:
        with pytest.raises(KernelError):
            axiom("blockwise_equal", lhs=lhs, rhs=rhs)


def test_the_kernel_reads_the_permutation_from_its_entries(monkeypatch):
    # the library's PairPermutation with its columns flipped within each pair: the kernel must see it
    flipped = _FlippedPermutation.column
    monkeypatch.setattr(PairPermutation, "column", flipped)
    with pytest.raises(KernelError, match="cannot show that row"):
        axiom("blockwise_equal", lhs=Rope(p, B, convention="half"), rhs=sp.MatMul(Pi, Rope(p, B), sp.Transpose(Pi)))
    monkeypatch.undo()
    assert axiom("blockwise_equal", lhs=Rope(p, B, convention="half"),
                 rhs=sp.MatMul(Pi, Rope(p, B), sp.Transpose(Pi))).relation == "="
