"""symattn.maths.multihead: block objects with symbolic shapes, rank, parameter counts, numpy block helpers."""

import numpy as np
import pytest
import sympy as sp

from symattn.language.printing import latex
from symattn.maths.multihead import (
    Concat,
    FamilyMatrix,
    HConcat,
    MatSum,
    MultiHeadAttention,
    NumEntries,
    Rank,
    Stack,
    VStack,
    concat_heads,
    head_blocks,
    mha_families,
    mha_sum_form,
    row_blocks,
    same_dim,
)

n, d, d_k, d_v, h, m = sp.symbols("n d d_k d_v h m", integer=True, positive=True)
F = sp.Lambda(m, FamilyMatrix("F", m, n, d_v))


def test_concat_and_stack_shapes_are_symbolic():
    assert Concat(F, h).shape == (n, h * d_v)
    assert Stack(sp.Lambda(m, FamilyMatrix("W_O", m, d_v, d)), h).shape == (h * d_v, d)
    lhs, rhs = mha_sum_form(n, d, h)
    assert lhs.shape == rhs.shape == (n, d)  # h * (d/h) = d


def test_matsum_explicit_and_free_symbols():
    S = MatSum(FamilyMatrix("T", m, n, d), (m, 1, 3))
    assert S.explicit() == FamilyMatrix("T", 1, n, d) + FamilyMatrix("T", 2, n, d) + FamilyMatrix("T", 3, n, d)
    assert m not in MatSum(FamilyMatrix("T", m, n, d), (m, 1, h)).free_symbols
    assert {n, d, h} <= MatSum(FamilyMatrix("T", m, n, d), (m, 1, h)).free_symbols


def test_rank_evaluates_exactly_for_rational_matrices_only():
    assert Rank(sp.ImmutableMatrix([[1, 2], [2, 4]])) == 1
    assert Rank(sp.ImmutableMatrix([[1, 0], [0, sp.Rational(1, 3)]])) == 2
    assert isinstance(Rank(sp.ImmutableMatrix([[sp.Symbol("x"), 1], [1, 1]])), Rank)  # no guess for symbols
    assert Rank(sp.MatrixSymbol("A", d, d)).is_integer


def test_num_entries_unfolds_to_rows_times_columns():
    assert NumEntries(sp.MatrixSymbol("W", d, d / h)).expanded() == d**2 / h
    assert NumEntries(sp.MatrixSymbol("W", 3, 5)) == 15


def test_latex_of_block_objects():
    assert latex(FamilyMatrix("W_O", m, d_v, d)) == "W_{O}^{m}"
    assert r"\operatorname{Concat}" in latex(Concat(F, h))
    assert latex(MatSum(FamilyMatrix("T", m, n, d), (m, 1, h))).startswith(r"\sum_{m=1}^{h}")
    assert latex(Rank(sp.MatrixSymbol("A", d, d))) == r"\operatorname{rank}\left(A\right)"


def test_mha_definition_unfolds_to_concat_times_stack():
    X = sp.MatrixSymbol("X", n, d)
    mha = MultiHeadAttention(X, *mha_families(m, d, d_k, d_v), h)
    unfolded = mha.expanded()
    assert unfolded.shape == (n, d)
    assert isinstance(unfolded.args[0], Concat) and isinstance(unfolded.args[1], Stack)


def test_head_blocks_and_row_blocks_reassemble_the_matrix():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(6, 12))
    assert np.array_equal(concat_heads(head_blocks(W, 4)), W)
    assert np.array_equal(np.concatenate(row_blocks(W.T, 3), axis=0), W.T)
    # block product = sum of products of blocks (the identity of mha_sum_of_heads, numerically)
    H, O = rng.normal(size=(5, 12)), rng.normal(size=(12, 7))
    assert np.allclose(H @ O, sum(a @ b for a, b in zip(head_blocks(H, 3), row_blocks(O, 3))))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: head_blocks(np.eye(4), 3), ValueError, "cannot be split into 3 heads"),
        (lambda: head_blocks(np.eye(4), 0), ValueError, ">= 1"),
        (lambda: head_blocks(np.eye(4), 2.0), TypeError, "must be an int"),
        (lambda: head_blocks(np.ones(4), 2), ValueError, "2-D"),
        (lambda: row_blocks(np.eye(5), 2), ValueError, "cannot be split into 2 blocks"),
        (lambda: concat_heads([np.ones((2, 1)), np.ones((3, 1))]), ValueError, "same number of rows"),
        (lambda: concat_heads([]), ValueError, "at least one head"),
        (lambda: HConcat(sp.MatrixSymbol("A", 2, 3), sp.MatrixSymbol("B", 3, 1)), ValueError, "block 2 has 3 rows"),
        (lambda: VStack(sp.MatrixSymbol("A", 2, 3), sp.MatrixSymbol("B", 2, 1)), ValueError, "columns"),
        (lambda: Concat(FamilyMatrix("F", m, n, d), h), TypeError, "one-argument Lambda"),
        (lambda: Concat(sp.Lambda(m, FamilyMatrix("F", m, m, d)), h), ValueError, "same shape"),
        (lambda: Concat(F, 0), ValueError, "positive integer"),
        (lambda: FamilyMatrix(3, m, n, d), TypeError, "name must be a string"),
        (lambda: FamilyMatrix("F", m, -2, d), ValueError, "positive integer"),
        (lambda: MatSum(FamilyMatrix("T", m, n, d), (m, 1)), TypeError, r"\(m, lo, hi\)"),
        (lambda: Rank(sp.Symbol("x")), TypeError, "takes a matrix"),
        (lambda: MultiHeadAttention(sp.MatrixSymbol("X", n, d), *mha_families(m, d + 1, d_k, d_v), h), ValueError,
         "rows"),
    ],
)
def test_invalid_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_same_dim_is_exact():
    assert same_dim(h * (d / h), d)
    assert not same_dim(d, d + 1)
