"""The second engine: flint re-checks the kernel's zero tests, Z3 its sign obligations; a step on
which they disagree fails with both answers shown; the JSON says what was re-checked."""

import pytest
import sympy as sp

from symattn import Derivation, Statement, Theorem, Verdict
from symattn.checker import Checker, outcome_to_json
from symattn.kernel import second
from symattn.kernel.second import flint_zero
from symattn.kernel.second.flint_zero import recheck_zero
from symattn.kernel.zero import _reduces_to_zero, zero_test

x, y, z = sp.symbols("x y z", real=True)
p = sp.Symbol("p", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
X = sp.IndexedBase("X")
f = sp.Function("f")
S = sp.Sum(X[k], (k, 1, n))

# claims lhs == rhs that are identities: SymPy (the kernel) reduces them to 0 and flint agrees
TRUE_ZERO = [
    ((x + y) ** 2, x**2 + 2 * x * y + y**2),
    ((x**2 - 1) / (x - 1), x + 1),
    (1 / x + 1 / y, (x + y) / (x * y)),
    (sp.exp(x + y), sp.exp(x) * sp.exp(y)),
    (sp.exp(2 * x), sp.exp(x) ** 2),
    ((1 + sp.sqrt(p)) * (1 - sp.sqrt(p)), 1 - p),
    (2 ** (n + 1), 2 * 2**n),
    (sp.Sum(X[k] + 2 * y * X[k] ** 2, (k, 1, n)), S + 2 * y * sp.Sum(X[k] ** 2, (k, 1, n))),
    (sp.Sum(y, (k, 1, n)), n * y),  # Karr's convention: (hi - lo + 1) copies
    (f(x + x) * X[k + 1 - 1], f(2 * x) * X[k]),
    ((x + sp.I) * (x - sp.I), x**2 + 1),
]

# claims that are false: SymPy does not reduce them to 0, and flint shows them nonzero
FALSE_ZERO = [
    ((x + y) ** 2, x**2 + y**2),
    ((x**2 - 1) / (x - 1), x - 1),
    (1 / x + 1 / y, 2 / (x + y)),
    (X[k], X[k + 1]),
    (f(x), f(y)),
    (sp.pi * x, 3 * x),
    ((x + sp.I) * (x - sp.I), x**2 - 1),
    (x**3 - y**3, (x - y) * (x**2 + y**2)),
    (sp.Rational(1, 3) * x, x / 4),
    (X[1] * X[2] - X[2] * X[1] + z, 0),
]


@pytest.mark.parametrize("lhs,rhs", TRUE_ZERO)
def test_true_zero_claims_both_engines_agree(lhs, rhs):
    assert _reduces_to_zero(lhs - rhs)
    check = recheck_zero(lhs - rhs)
    assert check.verdict == second.AGREE, check.reason
    assert check.engine == "flint"


@pytest.mark.parametrize("lhs,rhs", FALSE_ZERO)
def test_false_zero_claims_both_engines_refuse(lhs, rhs):
    assert not _reduces_to_zero(lhs - rhs)
    check = recheck_zero(lhs - rhs)
    assert check.verdict == second.DISAGREE, check.reason  # flint on its own: not identically 0
    assert not zero_test(lhs, rhs).ok


def test_a_sum_is_one_atom_whatever_its_binding_level():
    # flint alone (SymPy's simplifier does not take the inner sum out): keys are alpha-invariant
    assert recheck_zero(sp.Sum(X[k] * S, (k, 1, n)) - S**2).verdict == second.AGREE


@pytest.mark.parametrize("expr,why", [
    (sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, "may be related"),  # atoms with relations flint does not know
    (sp.Float(0.5) * x - x / 3, "floating-point"),
    (sp.log(x * y) - sp.log(x) - sp.log(y), "may be related"),
    (sp.Sum(y, (k, 1, n / 2)) - n * y / 2, "may be related"),  # no count for a non-integer bound
])
def test_what_flint_cannot_decide_is_inexpressible_never_agreement(expr, why):
    check = recheck_zero(expr)
    assert check.verdict == second.INEXPRESSIBLE
    assert why in check.reason


def _theorem(lhs, rhs, derivation, **kw):
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, rhs),
                   derivation=derivation, numeric=False, **kw)


def test_an_injected_disagreement_fails_the_step_with_both_answers(monkeypatch):
    lie = second.Check("flint", second.DISAGREE, "the numerator over Q is the nonzero polynomial 1 (injected)",
                       "(x + 1)**2 - x**2 - 2*x - 1 == 0", "SymPy reduces it to 0")
    monkeypatch.setattr(flint_zero, "recheck_zero", lambda expr, **kw: lie)
    thm = _theorem((x + 1) ** 2, x**2 + 2 * x + 1, Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra"))
    out = Checker(numeric=False).check(thm)
    assert out.verdict != Verdict.PROVED
    reason = out.steps[0].reason
    assert "kernel: SymPy reduces it to 0" in reason and "flint: the numerator over Q is" in reason
    assert out.levels["symbolic"].status.value == "fail"


def test_without_the_injection_the_same_step_is_rechecked_by_both():
    thm = _theorem((x + 1) ** 2, x**2 + 2 * x + 1, Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra"))
    out = Checker(numeric=False).check(thm)
    rec = outcome_to_json(thm, out)
    assert rec["steps"][0]["rechecked"] == "both", rec["steps"]
    assert rec["rechecked"] == "all"
    assert any(c.engine == "flint" and c.verdict == second.AGREE for c in out.engines[0])


def test_a_step_flint_cannot_express_is_shown_as_one_engine():
    lhs, rhs = sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1)
    thm = _theorem(lhs, rhs, Derivation(lhs).eq(rhs, "algebra"))
    out = Checker(numeric=False).check(thm)
    rec = outcome_to_json(thm, out)
    assert out.steps[0].ok
    assert rec["steps"][0]["rechecked"] == "one-engine" and "may be related" in rec["steps"][0]["why"]
    assert rec["rechecked"] == "none"
