"""Rules ``differentiate`` and ``nonnegative_terms``: valid steps pass, invalid ones are rejected."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.language.statement import IndexRange
from symattn.maths.softmax import Softmax
from symattn.rules import ProofContext, check_step

n = sp.Symbol("n", integer=True, positive=True)
i, j, k, m = sp.symbols("i j k m", integer=True, positive=True)
x = sp.Symbol("x", real=True)
s = sp.IndexedBase("s", real=True)
a = sp.IndexedBase("a", nonnegative=True)
X = sp.IndexedBase("X", real=True)
KD = sp.KroneckerDelta
Z = sp.Sum(sp.exp(s[k]), (k, 1, n))
CTX = ProofContext(hypotheses=(IndexRange("m_range", index=m, lower=1, upper=n),))


def _ok(lhs, rhs, rule, relation="=", **args):
    return check_step(lhs, rhs, relation, rule, args, CTX).ok


def _fails(lhs, rhs, rule, relation="=", **args):
    """The step is rejected with ``fail`` (a time-out or a crash is not a rejection)."""
    return check_step(lhs, rhs, relation, rule, args, CTX).status is Level.FAIL


# ------------------------------------------------------------------------------- differentiate
def test_differentiate_accepts_the_quotient_rule_on_the_softmax_formula():
    lhs = sp.Derivative(sp.exp(s[i]) / Z, s[j])
    rhs = sp.exp(s[i]) * KD(i, j) / Z - sp.exp(s[i]) * sp.Sum(sp.exp(s[k]) * KD(j, k), (k, 1, n)) / Z**2
    assert _ok(lhs, rhs, "differentiate")


def test_differentiate_accepts_a_chain_rule_step():
    assert _ok(sp.Derivative(sp.sin(x**2), x), 2 * x * sp.cos(x**2), "differentiate")


def test_differentiate_compares_derivatives_on_both_sides():
    f = sp.Function("f")
    assert _ok(sp.Derivative(x + f(x), x), sp.Derivative(x, x) + sp.Derivative(f(x), x), "differentiate")


@pytest.mark.parametrize(
    "lhs, rhs, why",
    [
        (sp.Derivative(sp.sin(x**2), x), -2 * x * sp.cos(x**2), "sign error"),
        (sp.Derivative(sp.sin(x**2), x), sp.cos(x**2), "dropped inner factor"),
        (sp.Derivative(sp.exp(s[i]) / Z, s[j]), sp.exp(s[i]) * KD(i, j) / Z, "dropped the denominator's term"),
        (sp.Derivative(Softmax(sp.Lambda(k, s[k]), i, n), s[j]), 0, "definition not unfolded"),
        (sp.Derivative(sp.Function("G")(X), X[i, j]), 0, "opaque dependency on X"),
        (sp.sin(x), sp.sin(x), "no derivative"),
    ],
)
def test_differentiate_rejects_invalid_steps(lhs, rhs, why):
    assert _fails(lhs, rhs, "differentiate"), why


def test_differentiate_rejects_inequalities():
    assert _fails(sp.Derivative(x**2, x), 2 * x, "differentiate", relation="<=")


# --------------------------------------------------------------------------- nonnegative_terms
def test_nonnegative_terms_drops_a_sum_with_a_kronecker_delta_factor():
    lhs = 1 - a[m] ** 2 - sp.Sum(a[j] ** 2 * (1 - KD(j, m)), (j, 1, n))
    assert _ok(lhs, 1 - a[m] ** 2, "nonnegative_terms", relation="<=")


def test_nonnegative_terms_uses_index_ranges_for_possibly_empty_sums():
    # sum_{j=m+1}^{n} is a genuine (possibly empty) range because m <= n by hypothesis
    assert _ok(a[m], a[m] + sp.Sum(a[j] ** 2, (j, m + 1, n)), "nonnegative_terms", relation="<=")
    no_range = ProofContext()
    assert check_step(a[m], a[m] + sp.Sum(a[j] ** 2, (j, m + 1, n)), "<=", "nonnegative_terms", {},
                      no_range).status is Level.FAIL


def test_nonnegative_terms_checks_the_witness():
    lhs, rhs = 1 - a[m] ** 2, 2 * (1 - a[m])
    assert _ok(lhs, rhs, "nonnegative_terms", relation="<=", witness=(1 - a[m]) ** 2)
    assert _fails(lhs, rhs, "nonnegative_terms", relation="<=", witness=(1 + a[m]) ** 2)


@pytest.mark.parametrize(
    "lhs, rhs, relation, why",
    [
        (1 - a[m] ** 2, 1 - a[m] ** 2 - sp.Sum(a[j] ** 2, (j, 1, n)), "<=", "reversed inequality (sign error)"),
        (sp.Integer(0), sp.Sum(a[j] * (1 - 2 * KD(j, m)), (j, 1, n)), "<=", "summand negative when delta = 1"),
        (sp.Integer(0), sp.Sum(j - 1, (j, 0, n)), "<=", "index assumption (positive) claims more than the range"),
        (sp.Integer(0), sp.Sum(a[j], (j, 1, n - 5)), "<=", "range possibly reversed"),
        (sp.Integer(0), sp.Sum(a[j], (j, 1, n)), "<", "strict steps are not this rule's"),
    ],
)
def test_nonnegative_terms_rejects_invalid_steps(lhs, rhs, relation, why):
    assert _fails(lhs, rhs, "nonnegative_terms", relation=relation), why
