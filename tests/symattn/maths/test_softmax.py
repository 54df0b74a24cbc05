"""symattn.maths.softmax: the softmax, its Jacobian and the categorical variance."""

import numpy as np
import pytest
import sympy as sp

from symattn.language.printing import latex
from symattn.maths.softmax import (
    CategoricalVariance,
    Softmax,
    SoftmaxJacobian,
    SpectralNorm,
    softmax,
    softmax_jacobian,
    softmax_jacobian_entry,
    softmax_jacobian_matrix,
)

a, v = sp.IndexedBase("a"), sp.IndexedBase("v")
i, j = sp.symbols("i j", integer=True)
n = sp.Symbol("n", integer=True, positive=True)


def test_softmax_sums_to_one_and_is_shift_invariant():
    x = sp.symbols("x1:5", real=True)
    p = softmax(list(x))
    assert sp.simplify(sum(p) - 1) == 0
    shifted = softmax([xi + 3 for xi in x])
    assert all(sp.simplify(u - w) == 0 for u, w in zip(p, shifted))


def test_softmax_jacobian_matches_sympy_jacobian_of_softmax():
    x = list(sp.symbols("x1:4", real=True))
    p = softmax(x)
    assert sp.simplify(p.jacobian(x) - softmax_jacobian(x)) == sp.zeros(3, 3)


def test_softmax_jacobian_of_numbers_matches_numpy_finite_differences():
    logits = [sp.Rational(1, 2), sp.Integer(-1), sp.Integer(2)]
    exact = np.array(softmax_jacobian(logits).evalf(), dtype=float)
    z = np.array([0.5, -1.0, 2.0])
    sm = lambda t: np.exp(t) / np.exp(t).sum()  # noqa: E731
    h = 1e-6
    fd = np.stack([(sm(z + h * e) - sm(z - h * e)) / (2 * h) for e in np.eye(3)], axis=1)
    assert np.abs(exact - fd).max() < 1e-8


def test_jacobian_entry_is_the_expanded_class():
    assert softmax_jacobian_entry(i, j, a) == SoftmaxJacobian(a, i, j).doit() == a[i] * (sp.KroneckerDelta(i, j) - a[j])
    assert softmax_jacobian_entry(2, 2, a) == a[2] * (1 - a[2])


def test_categorical_variance_at_n2_is_the_weighted_variance():
    p = sp.Symbol("p")
    val = CategoricalVariance(a, v, 2).doit().doit().subs({a[1]: p, a[2]: 1 - p})
    assert sp.expand(val - p * (1 - p) * (v[1] - v[2]) ** 2) == 0


def test_spectral_norm_of_explicit_matrix_and_symbolic_shape():
    assert SpectralNorm(sp.Matrix([[1, 1], [0, 1]])).doit() == sp.sqrt(sp.Rational(3, 2) + sp.sqrt(5) / 2)
    J = softmax_jacobian_matrix(a, n)
    assert SpectralNorm(J).doit() == SpectralNorm(J)
    assert latex(SpectralNorm(J)).startswith(r"\left\|")


def test_latex_of_the_new_classes():
    assert latex(SoftmaxJacobian(a, i, j)) == r"J^{\operatorname{softmax}}_{i j}"
    assert latex(CategoricalVariance(a, v, n)) == r"\operatorname{Var}_{J\sim a}\left(v_{J}\right)"


def test_softmax_class_unchanged():
    s = sp.IndexedBase("s")
    assert Softmax(sp.Lambda(j, s[j]), i, n).doit() == sp.exp(s[i]) / sp.Sum(sp.exp(s[j]), (j, 1, n))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: softmax([]), ValueError),
        (lambda: softmax("x, y"), TypeError),
        (lambda: softmax(["x"]), TypeError),
        (lambda: softmax(sp.Matrix([[1, 2], [3, 4]])), ValueError),
        (lambda: softmax(3), TypeError),
        (lambda: softmax_jacobian(0), ValueError),
        (lambda: softmax_jacobian(True), TypeError),
        (lambda: softmax_jacobian_entry("i", j), TypeError),
        (lambda: softmax_jacobian_entry(i, j, a="a"), TypeError),
        (lambda: SoftmaxJacobian(sp.Symbol("a"), i, j), TypeError),
        (lambda: CategoricalVariance(a, v, -1), ValueError),
        (lambda: SpectralNorm(sp.Symbol("x")), TypeError),
        (lambda: softmax_jacobian_matrix(sp.Symbol("a"), n), TypeError),
    ],
)
def test_invalid_arguments_raise_clear_errors(call, error):
    with pytest.raises(error):
        call()
