"""The second engine re-checks each derivative the kernel takes with SymPy's ``diff``: its own
differentiation over the rational form of atoms, compared by flint (issue 18).

True derivatives are agreed; a wrong one (SymPy's answer altered) is shown false and the kernel refuses
it; a derivative the second engine has no rule for is ``inexpressible``, never agreement."""

import pytest
import sympy as sp

from symattn.kernel import calculus, second
from symattn.kernel.second import AGREE, DISAGREE, INEXPRESSIBLE
from symattn.kernel.second.derivatives import recheck_derivative
from symattn.kernel.terms import KernelError

x, y, c = sp.symbols("x y c", real=True)
p = sp.Symbol("p", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
k, i, j = sp.symbols("k i j", integer=True)
s = sp.IndexedBase("s", real=True)
Q = sp.IndexedBase("Q", real=True)
K = sp.IndexedBase("K", real=True)
F = sp.Function("F")

# (f, v): the library's shapes (softmax, softcap, attention scores, segments) and the rules' heads
FUNCTIONS = [
    (c * sp.tanh(x / c), x),
    (sp.exp(s[i]) / sp.Sum(sp.exp(s[k]), (k, 1, n)), s[j]),
    (sp.Sum(sp.exp(sp.Sum(K[k, j] * Q[i, j], (j, 1, n)) / sp.sqrt(n)), (k, 1, n)), Q[1, 2]),
    ((x * sp.exp(x * y) + y * sp.exp(y**2)) / (sp.exp(y**2) + sp.exp(x * y)), y),
    (sp.log(p * x**2 + 1), x),
    (sp.sqrt(x**2 + 1), x),
    (x**y, x),
    (p**x, x),
    (sp.atan(x**2), x),
    (sp.asinh(x), x),
    (sp.erf(2 * x), x),
    (sp.sin(x) * sp.cos(x) ** 2, x),
    (sp.sinh(x) / sp.cosh(x), x),
    (x * F(x), x),
    (sp.Sum(k * x**k, (k, 1, n)), x),
    (x / (x + sp.Sum(sp.exp(c * sp.tanh(s[k] / c)), (k, 1, n))), x),
]


@pytest.mark.parametrize("f, v", FUNCTIONS)
def test_sympys_derivative_is_agreed(f, v):
    check = recheck_derivative(f, v, sp.diff(f, v))
    assert check.verdict == AGREE, check.reason


@pytest.mark.parametrize("f, v", FUNCTIONS)
def test_a_derivative_off_by_a_free_term_is_shown_false(f, v):
    wrong = sp.diff(f, v) + (v if v != x else y) + 1
    assert recheck_derivative(f, v, wrong).verdict == DISAGREE


# derivatives SymPy might plausibly get wrong, each false as written
FALSE = [
    (x**3, x, 3 * x**3),
    (sp.exp(x**2), x, sp.exp(x**2)),  # the inner derivative forgotten: differs by exp(x**2)(2x - 1)...
    (sp.log(x**2 + 1), x, 1 / (x**2 + 1)),
    (sp.sqrt(x**2 + 1), x, 1 / (2 * sp.sqrt(x**2 + 1))),
    (sp.atan(x), x, 1 / (1 - x**2)),
    (s[i] * s[j], s[j], s[i]),  # the Kronecker delta of the indices forgotten
    (sp.Sum(s[k] ** 2, (k, 1, n)), s[j], 2 * s[j] * n),
    (c * sp.tanh(x / c), x, 1 + sp.tanh(x / c) ** 2),
    (x**2, x, 2 * x + 1),
]


@pytest.mark.parametrize("f, v, wrong", FALSE)
def test_a_wrong_derivative_is_never_agreed(f, v, wrong):
    assert recheck_derivative(f, v, wrong).verdict in (DISAGREE, INEXPRESSIBLE)
    assert recheck_derivative(f, v, sp.diff(f, v)).verdict == AGREE


# wrong derivatives whose error is a nonzero rational function of free variables: shown false
RATIONAL_ERRORS = [
    (x**3, x, 3 * x**3),
    (sp.log(x**2 + 1), x, 1 / (x**2 + 1)),
    (sp.atan(x), x, 1 / (1 - x**2)),
    (x**2, x, 2 * x + 1),
    (x * y**2, y, x * y),
    (s[i] ** 2, s[i], s[i]),
    ((x + 1) / (x - 1), x, 1 / (x - 1)),
    (sp.Sum(k * x**2, (k, 1, n)), x, x * n**2),
    (x * y + 1 / x, x, y - 1 / x),
]


@pytest.mark.parametrize("f, v, wrong", RATIONAL_ERRORS)
def test_a_wrong_rational_derivative_is_a_disagreement(f, v, wrong):
    assert recheck_derivative(f, v, wrong).verdict == DISAGREE


def test_higher_derivatives():
    assert recheck_derivative(x**3, x, 6 * x, count=2).verdict == AGREE
    assert recheck_derivative(x**3, x, 6, count=2).verdict == DISAGREE
    assert recheck_derivative(sp.exp(2 * x), x, 4 * sp.exp(2 * x), count=2).verdict == AGREE


@pytest.mark.parametrize("f, v", [
    (F(x**2), x),  # the chain rule of an abstract map: SymPy writes Subs(Derivative(F(xi), xi), xi, x**2)
    (sp.Sum(x * k, (k, 1, sp.floor(x))), x),  # a bound that moves with the variable: no rule
])
def test_no_rule_is_inexpressible_never_agreement(f, v):
    assert recheck_derivative(f, v, sp.diff(f, v) + 1).verdict != AGREE
    if sp.diff(f, v).has(sp.Derivative):  # SymPy keeps the derivative unevaluated: the same atom
        return
    assert recheck_derivative(f, v, sp.diff(f, v)).verdict == INEXPRESSIBLE


def test_the_modulus_has_its_rule_where_it_is_differentiable():
    # |g|' = sign(g) g' (the kernel asks g real and nonzero before it differentiates)
    f = sp.Abs(x - y)
    assert recheck_derivative(f, x, sp.diff(f, x)).verdict == AGREE
    assert recheck_derivative(f, x, sp.diff(f, x) + 1).verdict != AGREE
    assert recheck_derivative(f, y, sp.diff(f, x)).verdict != AGREE  # d/dy is -sign(x - y)


def test_the_kernel_records_the_recheck_and_refuses_a_wrong_diff(monkeypatch):
    f = sp.exp(s[i]) / sp.Sum(sp.exp(s[k]), (k, 1, n))
    with second.collecting() as checks:
        calculus.derivative(f, s[j])
    assert [(ch.kind, ch.verdict) for ch in checks if ch.kind == "calculus"] == [("calculus", AGREE)]
    assert second.step_rechecked(checks)[0] == "both"
    real_diff = sp.diff
    monkeypatch.setattr(calculus.sp, "diff", lambda e, v: real_diff(e, v) + 2 * s[j])
    with second.collecting(), pytest.raises(KernelError, match="the engines disagree"):
        calculus.derivative(f, s[j])
