"""symattn.maths.permutation: permutation matrices and the position-wise maps, symbolic and explicit,
against numpy (oracle tests) and with precise errors for bad arguments."""

import itertools

import numpy as np
import pytest
import sympy as sp

from numeric.reference import attention, layer_norm
from symattn.language.printing import latex
from symattn.maths.permutation import (
    MLP,
    Attention,
    ElementwiseMap,
    LayerNorm,
    Permutation,
    PermutationMatrix,
    SoftmaxRows,
    all_permutation_matrices,
    attention_explicit,
    layer_norm_explicit,
    permutation_matrix,
    softmax_rows_explicit,
)
from symattn.rules.matrices import entry

n, d, r = sp.symbols("n d r", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
t = sp.Symbol("t")


def test_permutation_matrix_moves_row_sigma_i_to_row_i():
    perm = (3, 1, 2)
    Pm = permutation_matrix(perm)
    S = sp.Matrix(3, 3, lambda a, b: 10 * (a + 1) + b + 1)
    for a in range(3):
        assert list((Pm * S)[a, :]) == list(S[perm[a] - 1, :])
    assert Pm.T * Pm == sp.eye(3)


def test_all_permutation_matrices_are_distinct_and_orthogonal():
    mats = [Pm for _, Pm in all_permutation_matrices(4)]
    assert len(mats) == 24 and len(set(mats)) == 24
    assert all(Pm * Pm.T == sp.eye(4) for Pm in mats)


def test_symbolic_permutation_matrix_entry_is_a_delta():
    P = PermutationMatrix("sigma", n)
    assert entry(P, i, j) == sp.KroneckerDelta(sp.Function("sigma")(i), j)
    assert latex(P) == r"P_{\sigma}"


def test_explicit_softmax_rows_and_attention_match_numpy():
    rng = np.random.default_rng(1)
    q = sp.Matrix(rng.integers(-3, 4, size=(3, 2)).tolist())
    k = sp.Matrix(rng.integers(-3, 4, size=(4, 2)).tolist())
    v = sp.Matrix(rng.integers(-3, 4, size=(4, 2)).tolist())
    exact = np.array(attention_explicit(q, k, v).evalf(30), dtype=float)
    f = lambda M: np.array(M, dtype=float)  # noqa: E731
    assert np.allclose(exact, attention(f(q), f(k), f(v)))
    causal = np.array(attention_explicit(q, k[:3, :], v[:3, :], causal=True).evalf(30), dtype=float)
    assert np.allclose(causal, attention(f(q), f(k[:3, :]), f(v[:3, :]), causal=True))
    rows = softmax_rows_explicit(q * k.T)
    assert all(sp.simplify(sum(rows[a, :]) - 1) == 0 for a in range(3))


def test_explicit_layer_norm_matches_numpy():
    x = sp.Matrix([[1, 2, 4], [0, -1, 3]])
    g, b = sp.Matrix([[1, 2, 3]]), sp.Matrix([[0, 1, 0]])
    exact = np.array(layer_norm_explicit(x, g, b, sp.Rational(1, 100)).evalf(30), dtype=float)
    assert np.allclose(exact, layer_norm(np.array(x, dtype=float), np.array([1, 2, 3.0]), np.array([0, 1, 0.0]),
                                         eps=0.01))


def test_doit_evaluates_explicit_arguments_only():
    S = sp.MatrixSymbol("S", n, n)
    assert SoftmaxRows(S).doit() == SoftmaxRows(S)
    assert ElementwiseMap(sp.Lambda(t, 2 * t), sp.ImmutableMatrix([[1, 2]])).doit() == sp.ImmutableMatrix([[2, 4]])
    rho = sp.Lambda(t, sp.Function("rho")(t))
    x = sp.ImmutableMatrix([[1, 2]])
    w1, b1, w2, b2 = sp.ImmutableMatrix([[1], [1]]), sp.ImmutableMatrix([[0]]), sp.ImmutableMatrix([[1, 0]]), \
        sp.ImmutableMatrix([[0, 5]])
    assert MLP(x, w1, b1, w2, b2, rho).doit() == sp.ImmutableMatrix([[sp.Function("rho")(3), 5]])


def test_permuted_inputs_permute_outputs_for_every_permutation_of_three():
    x = sp.Matrix([[0], [1], [2]]) * sp.log(2)
    base = attention_explicit(x, x, x)
    for perm in itertools.permutations((1, 2, 3)):
        Pm = permutation_matrix(perm)
        assert attention_explicit(Pm * x, Pm * x, Pm * x) == Pm * base


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: permutation_matrix((1, 1, 2)), ValueError, "not a permutation"),
        (lambda: permutation_matrix(()), ValueError, "not a permutation"),
        (lambda: list(all_permutation_matrices(0)), ValueError, "positive int"),
        (lambda: PermutationMatrix(sp.Symbol("sigma"), n), TypeError, "name"),
        (lambda: PermutationMatrix("sigma", -1), ValueError, "positive integer"),
        (lambda: Permutation("p", sigma="not an identifier", n=n), TypeError, "identifier"),
        (lambda: Permutation("p", sigma="sigma"), ValueError, "needs n"),
        (lambda: SoftmaxRows(sp.Symbol("x")), TypeError, "matrix expression"),
        (lambda: Attention(sp.MatrixSymbol("Q", n, d), sp.MatrixSymbol("K", n, r), sp.MatrixSymbol("V", n, d)),
         ValueError, "same number of columns"),
        (lambda: Attention(sp.MatrixSymbol("Q", n, d), sp.MatrixSymbol("K", n, d), sp.MatrixSymbol("V", r, d)),
         ValueError, "same number of rows"),
        (lambda: LayerNorm(sp.MatrixSymbol("X", n, d), sp.MatrixSymbol("g", 1, r), sp.MatrixSymbol("b", 1, d),
                           sp.Symbol("e", positive=True)), ValueError, "gamma must be 1 x d"),
        (lambda: MLP(sp.MatrixSymbol("X", n, d), sp.MatrixSymbol("W1", r, r), sp.MatrixSymbol("b1", 1, r),
                     sp.MatrixSymbol("W2", r, d), sp.MatrixSymbol("b2", 1, d), sp.Lambda(t, t)), ValueError,
         "W_1 rows"),
        (lambda: ElementwiseMap(sp.Function("rho"), sp.MatrixSymbol("X", n, d)), TypeError, "one-argument Lambda"),
        (lambda: attention_explicit(sp.ones(2, 2), sp.ones(2, 3), sp.ones(2, 1)), ValueError, "do not fit"),
        (lambda: layer_norm_explicit(sp.ones(2, 2), sp.ones(1, 3), sp.ones(1, 2), 0), ValueError, "1 x 2"),
    ],
)
def test_invalid_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
