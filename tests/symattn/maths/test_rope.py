"""symattn.maths.rope: explicit RoPE/sinusoidal matrices against numeric.rope (an independent
implementation), orientation, the permutation between layouts, printing, argument errors."""

import numpy as np
import pytest
import sympy as sp

from numeric.rope import rope as rope_numeric
from numeric.rope import rope_permutation as perm_numeric
from numeric.rope import sinusoidal_encoding
from symattn.language.printing import latex
from symattn.maths.rope import (
    Bilinear,
    Inner,
    PairBlockDiagonal,
    PairOf,
    PairPermutation,
    Rope,
    Rotation,
    SinusoidalEncoding,
    pair_coordinates,
    rope_frequency,
    rope_matrix,
    rope_permutation,
    rotation,
    sinusoidal_vector,
)

p = sp.Symbol("p", real=True)
t = sp.Symbol("t", real=True)
B = sp.Symbol("B", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)


def test_rotation_is_counter_clockwise():
    assert rotation(sp.pi / 2) * sp.Matrix([1, 0]) == sp.Matrix([0, 1])
    assert rotation(sp.pi / 2) * sp.Matrix([0, 1]) == sp.Matrix([-1, 0])
    assert sp.simplify(rotation(t).det()) == 1


@pytest.mark.parametrize("d", [2, 4, 6, 8])
@pytest.mark.parametrize("convention", ["interleaved", "half"])
def test_rope_matrix_equals_numeric_rope_for_any_layout(d, convention):
    rng = np.random.default_rng(d)
    f = sp.lambdify(p, rope_matrix(d, p, convention=convention), "numpy")
    for pos in rng.uniform(-300, 300, size=5):
        x = rng.standard_normal(d)
        expected = rope_numeric(x[None], np.array([pos]), convention=convention)[0]
        np.testing.assert_allclose(np.asarray(f(pos), dtype=float) @ x, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("d", [2, 4, 6, 8, 10])
def test_rope_permutation_is_numeric_index_array_and_conjugates_layouts(d):
    P = rope_permutation(d)
    assert P * P.T == sp.eye(d)
    x = sp.Matrix(sp.symbols(f"x0:{d}"))
    assert list(P * x) == [x[i] for i in perm_numeric(d)]
    assert rope_matrix(d, p, convention="half") == P * rope_matrix(d, p) * P.T


@pytest.mark.parametrize("d", [2, 4, 8, 16])
def test_sinusoidal_vector_equals_numeric_table(d):
    f = sp.lambdify(p, sinusoidal_vector(d, p), "numpy")
    table = sinusoidal_encoding(20, d)
    for pos in range(20):
        np.testing.assert_allclose(np.asarray(f(pos), dtype=float).ravel(), table[pos], rtol=0, atol=1e-12)


def test_symbolic_objects_agree_with_explicit_ones():
    assert Rope(p, 3).doit() == rope_matrix(6, p)
    assert Rope(p, 2, convention="half").explicit() == rope_matrix(4, p, convention="half")
    assert PairPermutation(4).explicit() == rope_permutation(8)
    assert SinusoidalEncoding(p, 2).explicit() == sinusoidal_vector(4, p)
    assert Rope(p, B).block(m) == Rotation(p * rope_frequency(m, 2 * B))
    assert Rope(p, B).shape == (2 * B, 2 * B)


def test_permutation_column_formula_for_symbolic_B():
    Pi = PairPermutation(B)
    r = sp.Symbol("r", integer=True, nonnegative=True)
    # with B = m + 1 + r, m < B is decidable: Pi sends coordinate 2m to m and 2m + 1 to m + B
    assert Pi.column(m).xreplace({B: m + 1 + r}) == 2 * m
    assert sp.expand(Pi.column(m + B).xreplace({B: m + 1 + r})) == 2 * m + 1


def test_pair_coordinates_of_both_layouts():
    assert pair_coordinates(m, B) == (2 * m, 2 * m + 1)
    assert pair_coordinates(m, B, "half") == (m, m + B)
    q = sp.MatrixSymbol("q", 2 * B, 1)
    assert PairOf(q, m).doit() == sp.ImmutableMatrix([q[2 * m, 0], q[2 * m + 1, 0]])


def test_inner_and_bilinear_evaluate_on_explicit_vectors():
    u, v = sp.ImmutableMatrix([1, 2]), sp.ImmutableMatrix([3, 4])
    assert Inner(u, v).doit() == 11
    assert Bilinear(u, sp.ImmutableMatrix([[0, 1], [1, 0]]), v).doit() == 1 * 4 + 2 * 3
    q = sp.MatrixSymbol("q", 2 * B, 1)
    assert Inner(q, q).doit() == Inner(q, q)  # symbolic length: stays unevaluated


@pytest.mark.parametrize(
    "expr, tex",
    [
        (Rotation(t), r"R\left(t\right)"),
        (Rope(p, B), r"R_{p}"),
        (Rope(p, B, convention="half"), r"R^{\mathrm{half}}_{p}"),
        (PairPermutation(B), r"\Pi"),
        (SinusoidalEncoding(p, B), r"\mathrm{PE}\left(p\right)"),
        (Inner(sp.MatrixSymbol("q", 2 * B, 1), sp.MatrixSymbol("k", 2 * B, 1)), r"\left\langle q,\, k\right\rangle"),
    ],
)
def test_latex_of_rope_objects(expr, tex):
    assert latex(expr) == tex


def _bad_calls():
    q = sp.MatrixSymbol("q", 2 * B, 1)
    return [
        ("odd_d", lambda: rope_matrix(3, p), ValueError, "even"),
        ("zero_d", lambda: rope_matrix(0, p), ValueError, "positive"),
        ("negative_d", lambda: rope_matrix(-4, p), ValueError, "positive"),
        ("float_d", lambda: rope_matrix(4.0, p), TypeError, "int"),
        ("bool_d", lambda: rope_matrix(True, p), TypeError, "int"),
        ("symbolic_d", lambda: rope_matrix(2 * B, p), TypeError, "symbolic"),
        ("unknown_convention", lambda: rope_matrix(4, p, convention="rotate_half"), ValueError, "convention"),
        ("odd_permutation", lambda: rope_permutation(5), ValueError, "even"),
        ("odd_sinusoidal", lambda: sinusoidal_vector(7, p), ValueError, "even"),
        ("string_angle", lambda: rotation("x"), TypeError, "angle"),
        ("matrix_angle", lambda: rotation(sp.eye(2)), TypeError, "angle"),
        ("string_position", lambda: Rope("p", B), TypeError, "position"),
        ("negative_blocks", lambda: Rope(p, -1), ValueError, "positive integer"),
        ("fractional_blocks", lambda: Rope(p, sp.Rational(3, 2)), ValueError, "positive integer"),
        ("negative_base", lambda: Rope(p, B, base=-3), ValueError, "base"),
        ("non_lambda_blocks", lambda: PairBlockDiagonal(Rotation(t), B), TypeError, "Lambda"),
        ("3x3_blocks", lambda: PairBlockDiagonal(sp.Lambda(m, sp.eye(3)), B), ValueError, "2x2"),
        ("pair_of_matrix", lambda: PairOf(sp.MatrixSymbol("W", 2 * B, 2 * B), m), TypeError, "column"),
        ("inner_lengths", lambda: Inner(q, sp.MatrixSymbol("k", 2 * B + 2, 1)), ValueError, "lengths"),
        ("inner_scalar", lambda: Inner(q, p), TypeError, "column"),
        ("bilinear_shapes", lambda: Bilinear(q, sp.Identity(3), q), ValueError, "shapes"),
    ]


@pytest.mark.parametrize("name, call, exc, words", _bad_calls(), ids=[c[0] for c in _bad_calls()])
def test_invalid_arguments_raise_clear_errors(name, call, exc, words):
    with pytest.raises(exc, match=words):
        call()
