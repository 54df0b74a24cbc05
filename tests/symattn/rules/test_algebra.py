"""The ``algebra`` and ``inequality`` rules: exact, and never fooled by near-misses."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.rules import ProofContext, check_step

x, y = sp.symbols("x y", real=True)
p = sp.Symbol("p", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
ctx = ProofContext()


def status(lhs, rhs, rule="algebra", relation="=", **args):
    return check_step(lhs, rhs, relation, rule, args, ctx).status


@pytest.mark.parametrize(
    "lhs, rhs",
    [
        ((x + y) ** 2, x**2 + 2 * x * y + y**2),
        (sp.exp(x + y), sp.exp(x) * sp.exp(y)),
        (sp.sin(x) ** 2 + sp.cos(x) ** 2, 1),
        ((x**2 - 1) / (x**2 + 1), 1 - 2 / (x**2 + 1)),
        (sp.Matrix([[x, 1], [0, y]]) * sp.Matrix([1, 1]), sp.Matrix([x + 1, y])),
        (sp.sqrt(p) ** 2, p),
    ],
)
def test_algebra_accepts_true_identities(lhs, rhs):
    assert status(lhs, rhs) is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, why",
    [
        ((x + y) ** 2, x**2 + y**2, "dropped cross term"),
        ((x + y) ** 2, x**2 - 2 * x * y + y**2, "sign error"),
        (sp.exp(x + y), sp.exp(x) + sp.exp(y), "exp of a sum is not a sum"),
        (2 * x, x, "dropped factor"),
        (sp.sqrt(x**2), x, "sqrt(x^2) = |x| for real x"),
        (sp.Matrix([x, y]), sp.Matrix([y, x]), "swapped entries"),
        (sp.Matrix([x, y]), sp.Matrix([[x, y]]), "wrong shape"),
        (x + sp.Rational(1, 10**30), x, "tiny difference is still a difference"),
    ],
)
def test_algebra_rejects_false_steps(lhs, rhs, why):
    assert status(lhs, rhs) is Level.FAIL, why


def test_algebra_refuses_inequality_steps():
    assert status(x, x + p, relation="<=") is Level.FAIL


def test_inequality_accepts_gap_with_known_sign():
    assert status(x, x + p, "inequality", "<") is Level.PASS
    assert status(x**2, x**2 + y**2, "inequality", "<=") is Level.PASS
    assert status(2 * x * y, x**2 + y**2, "inequality", "<=", witness=(x - y) ** 2) is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, relation, args, why",
    [
        (x, x + y, "<=", {}, "gap of unknown sign"),
        (x, x, "<", {}, "strict inequality with zero gap"),
        (2 * x * y, x**2 + y**2, "<=", {"witness": (x + y) ** 2}, "witness not equal to the gap"),
        (x + p, x, "<=", {}, "reversed"),
        (x, x + p, "=", {}, "inequality rule on an equality step"),
    ],
)
def test_inequality_rejects_invalid_steps(lhs, rhs, relation, args, why):
    assert status(lhs, rhs, "inequality", relation, **args) is Level.FAIL, why


def test_unknown_rule_and_bad_arguments_fail_with_a_reason():
    r = check_step(x, x, "=", "no_such_rule", {}, ctx)
    assert r.status is Level.FAIL and "unknown rule" in r.reason
    r = check_step(x, x, "=", "inequality", {"bogus": 1}, ctx)
    assert r.status is Level.FAIL and "bogus" in r.reason


def test_inequality_reads_summation_signs_from_ranges_not_index_assumptions():
    j = sp.Symbol("j", integer=True, positive=True)  # declared positive, but the range starts at 0
    n = sp.Symbol("n", integer=True, positive=True)
    assert status(sp.S(0), sp.Sum(j - 1, (j, 0, n)), "inequality", "<=") is Level.FAIL  # n = 1 gives -1
    assert status(sp.S(0), sp.Sum(j - 1, (j, 1, n)), "inequality", "<=") is Level.PASS
    # a range not known to be well formed (n may be 1: Karr's convention makes the sum negative)
    assert status(sp.S(0), sp.Sum(j, (j, 3, n)), "inequality", "<=") is Level.FAIL


def test_algebra_sees_through_bound_variable_names_but_not_bounds():
    j, k = sp.symbols("j k", integer=True, positive=True)
    f = sp.IndexedBase("f")
    assert status(sp.Sum(f[j], (j, 1, n)), sp.Sum(f[k], (k, 1, n))) is Level.PASS
    assert status(sp.Sum(f[j], (j, 1, n)), sp.Sum(f[k], (k, 1, n + 1))) is Level.FAIL
    assert status(sp.Sum(f[j], (j, 1, n)), sp.Sum(f[k], (k, 0, n))) is Level.FAIL
    # capture: the outer index must not be confused with the inner one
    outer = sp.Sum(sp.Sum(j * f[k], (k, 1, n)), (j, 1, n))  # = n(n+1)/2 * sum_k f_k
    inner = sp.Sum(sp.Sum(k * f[k], (k, 1, n)), (j, 1, n))  # = n * sum_k k f_k
    assert status(outer, inner) is Level.FAIL
    renamed = sp.Sum(sp.Sum(k * f[j], (j, 1, n)), (k, 1, n))  # outer renamed consistently
    assert status(outer, renamed) is Level.PASS


def test_algebra_cancels_a_factor_only_where_it_is_shown_nonzero():
    from symattn.language.statement import Assumption

    bare = check_step((x**2 - 1) / (x - 1), x + 1, "=", "algebra", {}, ctx)
    assert bare.status is Level.FAIL and "x - 1 != 0" in bare.reason
    hyp = ProofContext(hypotheses=(Assumption("x_ne_1", condition=sp.Ne(x, 1)),))
    assert check_step((x**2 - 1) / (x - 1), x + 1, "=", "algebra", {}, hyp).status is Level.PASS


@pytest.mark.parametrize("typed, suggested", [("algebr", "algebra"), ("inequalty", "inequality"),
                                              ("definitoin", "definition")])
def test_an_unknown_rule_suggests_the_close_names_not_the_whole_list(typed, suggested):
    r = check_step(x, x, "=", typed, {}, ctx)
    assert r.status is Level.FAIL and f"unknown rule {typed!r}; did you mean" in r.reason
    assert repr(suggested) in r.reason and "known rules" not in r.reason
    far = check_step(x, x, "=", "zzzzqqq", {}, ctx)
    assert "known rules: [" in far.reason
