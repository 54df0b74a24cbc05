"""trig_identity (exact trigonometric expansion) and block_diagonal_product (symbolic B blocks)."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.maths.rope import (
    Bilinear,
    Inner,
    PairBlockDiagonal,
    PairOf,
    PairPermutation,
    Rope,
    Rotation,
    rotation,
)
from symattn.rules import ProofContext, check_step
from symattn.rules.trig import trig_zero

a, b, c = sp.symbols("a b c", real=True)
B, C = sp.symbols("B C", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
p, p2 = sp.symbols("p p'", real=True)
q = sp.MatrixSymbol("q", 2 * B, 1)
k = sp.MatrixSymbol("k", 2 * B, 1)
ctx = ProofContext()


def status(lhs, rhs, rule, relation="="):
    return check_step(lhs, rhs, relation, rule, {}, ctx).status


def blocks_sum(body, lo=0, hi=B - 1):
    return sp.Sum(body, (m, lo, hi))


# ============================================================================= trig_identity
@pytest.mark.parametrize(
    "lhs, rhs",
    [
        (sp.sin(a + b), sp.sin(a) * sp.cos(b) + sp.cos(a) * sp.sin(b)),
        (sp.cos(a - b), sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b)),
        (sp.sin(a) ** 2 + sp.cos(a) ** 2, 1),
        (sp.cos(2 * a), 1 - 2 * sp.sin(a) ** 2),
        (sp.cos(c * (a + b)), sp.cos(c * a) * sp.cos(c * b) - sp.sin(c * a) * sp.sin(c * b)),
        (sp.cos(a) ** 4 - sp.sin(a) ** 4, sp.cos(2 * a)),
        (rotation(a).T * rotation(b), rotation(b - a)),
        (blocks_sum(sp.cos(a * m) * sp.cos(a * m + b) + sp.sin(a * m) * sp.sin(a * m + b)), blocks_sum(sp.cos(b))),
    ],
    ids=["sin_add", "cos_sub", "pythagoras", "double_angle", "scaled_angles", "fourth_powers", "matrix", "sum_bodies"],
)
def test_trig_identity_accepts_true_identities(lhs, rhs):
    assert status(lhs, rhs, "trig_identity") is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, relation",
    [
        (sp.sin(a + b), sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b), "="),  # sign error
        (sp.cos(a + b), sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b), "="),  # cos(a+b) with cos(a-b)'s sign
        (sp.sin(2 * a), sp.sin(a) * sp.cos(a), "="),  # dropped factor 2
        (sp.sin(a), a - a**3 / 6, "="),  # close for small a, not an identity
        (rotation(a).T * rotation(b), rotation(a - b), "="),  # wrong orientation
        (sp.sin(a) ** 2, 1, "<="),  # not an equality step
        (blocks_sum(sp.cos(a * m) ** 2 + sp.sin(a * m) ** 2), blocks_sum(1, hi=B), "="),  # off-by-one bound
        (rotation(a), sp.cos(a), "="),  # matrix vs scalar
    ],
    ids=["sign", "wrong_formula", "dropped_factor", "taylor", "orientation", "relation", "off_by_one", "kind"],
)
def test_trig_identity_rejects_invalid_steps(lhs, rhs, relation):
    assert status(lhs, rhs, "trig_identity", relation) is Level.FAIL


def test_trig_zero_is_exact_not_numeric():
    # differs from 0 by 1e-30: a numeric check would call it zero, the exact one does not
    assert not trig_zero(sp.sin(a) ** 2 + sp.cos(a) ** 2 - 1 + sp.Rational(1, 10**30))
    assert trig_zero(sp.sin(a) ** 2 + sp.cos(a) ** 2 - 1)


# ============================================================================= block_diagonal_product
def per_block(Rp, Rq, u=q, v=k):
    return Bilinear(PairOf(u, m), sp.MatMul(sp.Transpose(Rp.block(m)), Rq.block(m)), PairOf(v, m))


def test_inner_product_splits_into_blocks_for_symbolic_B():
    Rp, Rq = Rope(p, B), Rope(p2, B)
    lhs = Inner(sp.MatMul(Rp, q), sp.MatMul(Rq, k))
    assert status(lhs, blocks_sum(per_block(Rp, Rq)), "block_diagonal_product") is Level.PASS
    # and back: folding a sum over blocks into an inner product
    composed = blocks_sum(Bilinear(PairOf(q, m), Rope(p2 - p, B).block(m), PairOf(k, m)))
    assert status(composed, Inner(q, sp.MatMul(Rope(p2 - p, B), k)), "block_diagonal_product") is Level.PASS


def test_block_products_and_identities():
    Rp = Rope(p, B)
    prod = sp.MatMul(sp.Transpose(Rp), Rp)
    blockwise = PairBlockDiagonal(sp.Lambda(m, sp.MatMul(sp.Transpose(Rp.block(m)), Rp.block(m))), B)
    assert status(prod, blockwise, "block_diagonal_product") is Level.PASS
    ident = PairBlockDiagonal(sp.Lambda(m, sp.Identity(2)), B)
    assert status(ident, sp.Identity(2 * B), "block_diagonal_product") is Level.PASS
    assert status(Rope(0, B), sp.Identity(2 * B), "block_diagonal_product") is Level.PASS
    assert status(Inner(sp.MatMul(Rp, q), sp.MatMul(Rp, q)), Bilinear(q, prod, q),
                  "block_diagonal_product") is Level.PASS


def test_conjugation_by_the_pair_permutation_changes_layout():
    Pi = PairPermutation(B)
    lhs = Rope(p, B, convention="half")
    assert status(lhs, sp.MatMul(Pi, Rope(p, B), sp.Transpose(Pi)), "block_diagonal_product") is Level.PASS
    assert status(Rope(p, 3, convention="half"),
                  sp.MatMul(PairPermutation(3), Rope(p, 3), sp.Transpose(PairPermutation(3))),
                  "block_diagonal_product") is Level.PASS


class _WrongPermutation(PairPermutation):
    """Odd coordinates first: sends pair (2m, 2m+1) to (m + B, m) -- the pair is flipped."""

    def column(self, i):
        return sp.Piecewise((2 * i + 1, sp.Lt(i, self.num_blocks)), (2 * (i - self.num_blocks), True))


def _invalid_block_steps():
    Rp, Rq = Rope(p, B), Rope(p2, B)
    logit = Inner(sp.MatMul(Rp, q), sp.MatMul(Rq, k))
    W = sp.MatrixSymbol("W", 2 * B, 2 * B)
    Pi = PairPermutation(B)
    wrong_sign = Bilinear(PairOf(q, m), Rope(p - p2, B).block(m), PairOf(k, m))
    return [
        ("off_by_one_upper", logit, blocks_sum(per_block(Rp, Rq), hi=B)),
        ("starts_at_one", logit, blocks_sum(per_block(Rp, Rq), lo=1)),
        ("sign_error", blocks_sum(wrong_sign), Inner(q, sp.MatMul(Rope(p2 - p, B), k))),
        ("dropped_factor", logit, blocks_sum(Bilinear(PairOf(q, m), Rq.block(m), PairOf(k, m)))),
        ("wrong_pairs", logit,
         blocks_sum(Bilinear(PairOf(q, m, "half"), sp.MatMul(sp.Transpose(Rp.block(m)), Rq.block(m)),
                                                    PairOf(k, m, "half")))),
        ("mixed_layouts", Inner(sp.MatMul(Rp, q), sp.MatMul(Rope(p2, B, convention="half"), k)),
         blocks_sum(per_block(Rp, Rq))),
        ("not_block_diagonal", Inner(sp.MatMul(W, q), k), blocks_sum(Inner(PairOf(q, m), PairOf(k, m)))),
        ("different_B", Rope(p, B), Rope(p, C)),
        ("conjugation_reversed", Rope(p, B, convention="half"), sp.MatMul(sp.Transpose(Pi), Rope(p, B), Pi)),
        ("wrong_permutation", Rope(p, B, convention="half"),
         sp.MatMul(_WrongPermutation(B), Rope(p, B), sp.Transpose(_WrongPermutation(B)))),
        ("permutation_alone", sp.MatMul(Pi, Rope(p, B)), sp.MatMul(Rope(p, B, convention="half"), Pi)),
        ("two_sums", blocks_sum(per_block(Rp, Rq)), blocks_sum(per_block(Rp, Rq))),
    ]


@pytest.mark.parametrize("name, lhs, rhs", _invalid_block_steps(), ids=[c[0] for c in _invalid_block_steps()])
def test_block_diagonal_product_rejects_invalid_steps(name, lhs, rhs):
    assert status(lhs, rhs, "block_diagonal_product") is Level.FAIL


def test_block_diagonal_product_rejects_inequalities():
    Rp = Rope(p, B)
    assert status(Inner(sp.MatMul(Rp, q), sp.MatMul(Rp, q)), Inner(q, q), "block_diagonal_product", "<=") is Level.FAIL


def test_rotation_class_matches_explicit_rotation():
    assert Rotation(a).doit() == rotation(a)
