"""tanh_bound, hyperbolic_as_exp, limit_evaluate (rules.hyperbolic); sum_shift, triangle_inequality,
termwise_bound (rules.summation); pair_moment, variance_of_pair_sum (rules.correlation): valid uses,
and invalid uses rejected for their own reason."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.language.derivation import Derivation
from symattn.language.statement import IndexRange, RandomFamily
from symattn.rules import ProofContext, check_step
from symattn.rules.correlation import CorrelatedPairs
from symattn.rules.expectation import Expectation, Variance
from symattn.rules.inequalities import MaxOver

c = sp.Symbol("c", positive=True)
s = sp.Symbol("s", real=True)
z = sp.Symbol("z")  # complex
y = sp.Symbol("y", real=True)
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
f = sp.IndexedBase("f", complex=True)
NONE = ProofContext()


def step(lhs, rhs, rel, rule, ctx=NONE, **args):
    return check_step(lhs, rhs, rel, rule, args, ctx)


@pytest.mark.parametrize("lhs, rel, rhs", [
    (c * sp.Abs(sp.tanh(s / c)), "<", c),
    (c * sp.tanh(s / c), "<", c),
    (c * sp.tanh(s / c), ">", -c),
    (2 - sp.tanh(s), ">", 1),            # decreasing in tanh: the lower end is approached from above
    (sp.exp(y) * sp.tanh(s) + y, "<", sp.exp(y) + y),
])
def test_tanh_bound_valid(lhs, rel, rhs):
    res = step(lhs, rhs, rel, "tanh_bound")
    assert res.status is Level.PASS, res.reason


@pytest.mark.parametrize("lhs, rel, rhs, why", [
    (c * sp.tanh(s / c), "<", c / 2, "not the right side"),        # c/2 is no end of the range
    (c * sp.tanh(s / c), ">", c, "the other direction"),           # the wrong direction
    (c * sp.tanh(z), "<", c, "not known to be real"),              # tanh of a complex number is unbounded
    (y * sp.tanh(s), "<", y, "sign of the derivative"),            # the slope y may be negative
    (sp.tanh(s) ** 2, "<", 1, "sign of the derivative"),           # x^2 is not monotone on (-1, 1)
])
def test_tanh_bound_invalid(lhs, rel, rhs, why):
    res = step(lhs, rhs, rel, "tanh_bound")
    assert res.status is Level.FAIL and why in res.reason, res.reason


def test_hyperbolic_as_exp_and_limit():
    assert step(1 - sp.tanh(s) ** 2, 4 / (sp.exp(s) + sp.exp(-s)) ** 2, "=", "hyperbolic_as_exp").status is Level.PASS
    bad = step(1 - sp.tanh(s) ** 2, 2 / (sp.exp(s) + sp.exp(-s)) ** 2, "=", "hyperbolic_as_exp")
    assert bad.status is Level.FAIL and "differ" in bad.reason
    assert step(s, s, "=", "hyperbolic_as_exp").status is Level.FAIL
    assert step(sp.Limit(c * sp.tanh(s / c), c, sp.oo), s, "=", "limit_evaluate").status is Level.PASS
    wrong = step(sp.Limit(c * sp.tanh(s / c), c, sp.oo), 2 * s, "=", "limit_evaluate")
    assert wrong.status is Level.FAIL and "evaluate to" in wrong.reason


def test_sum_shift_valid_and_invalid():
    assert step(sp.Sum(f[k], (k, 1, n)), sp.Sum(f[k + 1], (k, 0, n - 1)), "=", "sum_shift").status is Level.PASS
    # shifting the bounds without shifting the summand changes the sum
    bad = step(sp.Sum(f[k], (k, 1, n)), sp.Sum(f[k], (k, 0, n - 1)), "=", "sum_shift")
    assert bad.status is Level.FAIL and "differ" in bad.reason


def test_triangle_inequality_valid_and_invalid():
    lhs = sp.Abs(sp.Sum(f[k], (k, 1, n)))
    assert step(lhs, sp.Sum(sp.Abs(f[k]), (k, 1, n)), "<=", "triangle_inequality").status is Level.PASS
    assert step(2 * lhs + 1, 2 * sp.Sum(sp.Abs(f[k]), (k, 1, n)) + 1, "<=", "triangle_inequality").status is Level.PASS
    # a possibly reversed range: SymPy's convention makes the right side a negative sum
    m = sp.Symbol("m", integer=True)
    rev = step(sp.Abs(sp.Sum(f[k], (k, 1, m))), sp.Sum(sp.Abs(f[k]), (k, 1, m)), "<=", "triangle_inequality")
    assert rev.status is Level.FAIL and "not reversed" in rev.reason
    # inside a decreasing context the bound goes the other way
    dec = step(-lhs, -sp.Sum(sp.Abs(f[k]), (k, 1, n)), "<=", "triangle_inequality")
    assert dec.status is Level.FAIL


def test_termwise_bound_valid_and_invalid():
    h = sp.IndexedBase("h", complex=True)
    i = sp.Symbol("i", integer=True)
    big = MaxOver(sp.Abs(h[k]), (k, 1, n))
    ok = step(sp.Sum(sp.Abs(h[i]), (i, 1, n)), sp.Sum(big, (i, 1, n)), "<=", "termwise_bound")
    assert ok.status is Level.PASS, ok.reason
    # the index may leave the range of the maximum
    out = step(sp.Sum(sp.Abs(h[i]), (i, 1, n + 1)), sp.Sum(big, (i, 1, n + 1)), "<=", "termwise_bound")
    assert out.status is Level.FAIL and "cannot show" in out.reason


d = sp.Symbol("d", integer=True, positive=True)
rho, sigma = sp.Symbol("rho", real=True), sp.Symbol("sigma", positive=True)
q, kk = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
i = sp.Symbol("i", integer=True, positive=True)
FAMILIES = (RandomFamily("q_e", base=q, dim=d, mean=0, variance=sigma**2),
            RandomFamily("k_e", base=kk, dim=d, mean=0, variance=sigma**2))
PAIRS = CorrelatedPairs("pairs", q=q, k=kk, dim=d, covariance=rho * sigma**2, mixed=(((2, 2), 3 * sigma**4),))
WITH = ProofContext(hypotheses=FAMILIES + (PAIRS,))


def test_pair_moment_valid_and_invalid():
    body = sp.Sum(Expectation(q[i] * kk[i]), (i, 1, d))
    assert step(body, sp.Sum(rho * sigma**2, (i, 1, d)), "=", "pair_moment", WITH).status is Level.PASS
    sq = sp.Sum(Expectation(q[i] ** 2 * kk[i] ** 2), (i, 1, d))
    assert step(sq, sp.Sum(3 * sigma**4, (i, 1, d)), "=", "pair_moment", WITH).status is Level.PASS
    # entries at different indices are not a pair
    j = sp.Symbol("j", integer=True, positive=True)
    cross = step(Expectation(q[i] * kk[j]), rho * sigma**2, "=", "pair_moment", WITH)
    assert cross.status is Level.FAIL and "applies nowhere" in cross.reason
    # an index outside 1..d
    out = step(sp.Sum(Expectation(q[i] * kk[i]), (i, 1, d + 1)), sp.Sum(rho * sigma**2, (i, 1, d + 1)),
               "=", "pair_moment", WITH)
    assert out.status is Level.FAIL and "applies nowhere" in out.reason
    # an undeclared mixed moment is not invented
    odd = step(Expectation(q[i] ** 3 * kk[i]), 0, "=", "pair_moment",
               ProofContext(hypotheses=FAMILIES + (PAIRS, IndexRange("i", index=i, lower=1, upper=d))))
    assert odd.status is Level.FAIL
    with_none = step(Expectation(q[i] * kk[i]), rho * sigma**2, "=", "pair_moment", ProofContext(hypotheses=FAMILIES))
    assert with_none.status is Level.FAIL and "no CorrelatedPairs" in with_none.reason


def test_variance_of_pair_sum_valid_and_invalid():
    logit = sp.Sum(q[i] * kk[i], (i, 1, d))
    ok = step(Variance(logit), sp.Sum(Variance(q[i] * kk[i]), (i, 1, d)), "=", "variance_of_pair_sum", WITH)
    assert ok.status is Level.PASS, ok.reason
    # q_i k_{i+1} shares k_{i+1} with the next term's q_{i+1}? No: with q_{i+1}'s partner; terms are dependent
    shifted = sp.Sum(q[i] * kk[i + 1], (i, 1, d - 1))
    bad = step(Variance(shifted), sp.Sum(Variance(q[i] * kk[i + 1]), (i, 1, d - 1)), "=", "variance_of_pair_sum", WITH)
    assert bad.status is Level.FAIL and "applies nowhere" in bad.reason


# ------------------------------------------------------------------------ monotone_step, hyperbolic_witness
TANH_LT_1 = Derivation(sp.tanh(s)).lt(sp.S.One, "tanh_bound")
TANH_GT_M1 = Derivation(sp.tanh(s)).step(sp.S.NegativeOne, "tanh_bound", ">")


@pytest.mark.parametrize("lhs, rel, rhs, at, proof", [
    (sp.exp(c * sp.tanh(s)), "<", sp.exp(c), sp.tanh(s), TANH_LT_1),        # increasing
    (1 / (1 + sp.exp(sp.tanh(s))), ">", 1 / (1 + sp.E), sp.tanh(s), TANH_LT_1),  # decreasing: the bound flips
    (sp.exp(c * sp.tanh(s)), ">=", sp.exp(-c), sp.tanh(s), TANH_GT_M1),
])
def test_monotone_step_valid(lhs, rel, rhs, at, proof):
    res = step(lhs, rhs, rel, "monotone_step", at=at, proof=proof)
    assert res.status is Level.PASS, res.reason


def test_monotone_step_bounds_a_sum_termwise():
    x = sp.IndexedBase("x", real=True)
    body = sp.exp(c * sp.tanh(x[k]))
    summand = Derivation(body).lt(sp.exp(c), "monotone_step", at=sp.tanh(x[k]),
                                  proof=Derivation(sp.tanh(x[k])).lt(sp.S.One, "tanh_bound"))
    lhs = 1 / (1 + sp.Sum(body, (k, 1, n)))
    res = step(lhs, 1 / (1 + sp.Sum(sp.exp(c), (k, 1, n))), ">=", "monotone_step",
               at=sp.Sum(body, (k, 1, n)), proof=summand)
    assert res.status is Level.PASS, res.reason


@pytest.mark.parametrize("lhs, rel, rhs, at, proof, why", [
    # the right direction for an increasing F is <, not >
    (sp.exp(c * sp.tanh(s)), ">", sp.exp(c), sp.tanh(s), TANH_LT_1, "other way"),
    # x^2 is not monotone on the reals: no sign for 2x
    (sp.tanh(s) ** 2, "<", 1, sp.tanh(s), TANH_LT_1, "derivative"),
    # the nested proof starts elsewhere
    (sp.exp(sp.tanh(y)), "<", sp.E, sp.tanh(y), TANH_LT_1, "starts at"),
    # the replacement does not give the right side
    (sp.exp(c * sp.tanh(s)), "<", sp.exp(2 * c), sp.tanh(s), TANH_LT_1, "does not give the right side"),
])
def test_monotone_step_invalid(lhs, rel, rhs, at, proof, why):
    res = step(lhs, rhs, rel, "monotone_step", at=at, proof=proof)
    assert res.status is Level.FAIL and why in res.reason, res.reason


def test_monotone_step_refuses_a_sum_over_a_possibly_reversed_range():
    m = sp.Symbol("m", integer=True)
    x = sp.IndexedBase("x", real=True)
    body = sp.exp(c * sp.tanh(x[k]))
    summand = Derivation(body).lt(sp.exp(c), "monotone_step", at=sp.tanh(x[k]),
                                  proof=Derivation(sp.tanh(x[k])).lt(sp.S.One, "tanh_bound"))
    res = step(sp.Sum(body, (k, 1, m)), sp.Sum(sp.exp(c), (k, 1, m)), "<=", "monotone_step",
               at=sp.Sum(body, (k, 1, m)), proof=summand)
    assert res.status is Level.FAIL and "reversed" in res.reason


def test_hyperbolic_witness_valid_and_invalid():
    gap_ok = step(sp.exp(-c), sp.exp(c), "<", "hyperbolic_witness", witness=2 * sp.sinh(c))
    assert gap_ok.status is Level.PASS, gap_ok.reason
    wrong = step(sp.exp(-c), sp.exp(c), "<", "hyperbolic_witness", witness=sp.sinh(c))
    assert wrong.status is Level.FAIL and "not equal to the gap" in wrong.reason
    unsigned = step(sp.exp(-s), sp.exp(s), "<", "hyperbolic_witness", witness=2 * sp.sinh(s))  # s may be negative
    assert unsigned.status is Level.FAIL and "cannot sign" in unsigned.reason


# the nested proof about a summand names the sum's bound index by a symbol of its own; the sum reaches
# the rule in canonical form (its index a canonical variable), so the rule opens the binder itself
def _summand_bound(idx, x):
    return Derivation(sp.exp(c * sp.tanh(x[idx]))).lt(
        sp.exp(c), "monotone_step", at=sp.tanh(x[idx]), proof=Derivation(sp.tanh(x[idx])).lt(sp.S.One, "tanh_bound"))


@pytest.mark.parametrize("idx", [k, sp.Symbol("q"), sp.Symbol("j", integer=True, positive=True)])
def test_monotone_step_summand_proof_may_name_the_index_by_any_fresh_symbol(idx):
    x = sp.IndexedBase("x", real=True)
    at = sp.Sum(sp.exp(c * sp.tanh(x[k])), (k, 1, n))
    res = step(at, sp.Sum(sp.exp(c), (k, 1, n)), "<=", "monotone_step", at=at, proof=_summand_bound(idx, x))
    assert res.status is Level.PASS, res.reason


def test_monotone_step_summand_index_with_assumptions_the_range_lacks_is_refused():
    # q is positive, the sum runs from 0: a proof about a positive q says nothing about k = 0
    x = sp.IndexedBase("x", real=True)
    q = sp.Symbol("q", positive=True)
    at = sp.Sum(sp.exp(c * sp.tanh(x[k])), (k, 0, n))
    res = step(at, sp.Sum(sp.exp(c), (k, 0, n)), "<=", "monotone_step", at=at, proof=_summand_bound(q, x))
    assert res.status is Level.FAIL and "assumptions" in res.reason, res.reason


@pytest.mark.parametrize("where", ["left side", "hypothesis"])
def test_monotone_step_summand_index_that_means_something_else_is_refused(where):
    # j is free in the step (or constrained by a hypothesis): the bound k must not be conflated with it
    x = sp.IndexedBase("x", real=True)
    j = sp.Symbol("j", integer=True)
    at = sp.Sum(sp.exp(c * sp.tanh(x[k])), (k, 1, n))
    bound = sp.Sum(sp.exp(c), (k, 1, n))
    lhs, rhs = (at + x[j], bound + x[j]) if where == "left side" else (at, bound)
    ctx = ProofContext(hypotheses=(IndexRange("jr", index=j, lower=2, upper=n),)) if where == "hypothesis" else NONE
    res = step(lhs, rhs, "<=", "monotone_step", ctx, at=at, proof=_summand_bound(j, x))
    assert res.status is Level.FAIL and "rename" in res.reason, res.reason


def test_monotone_step_nested_sum_summand_keeps_the_outer_index_apart_from_the_inner():
    # the summand of an outer sum holds an inner sum: opening the outer binder must not let the
    # inner binder capture the outer index (both are canonical variables)
    a = sp.IndexedBase("a", positive=True)
    i, j = sp.symbols("i j", integer=True, positive=True)
    inner_sum = sp.Sum(a[i] * a[j], (j, 1, n)) ** 2  # squared: SymPy would merge a bare nested sum
    at = sp.Sum(inner_sum, (i, 1, n))
    captured = sp.Sum(a[j] ** 2, (j, 1, n)) ** 2  # the summand if the inner binder captured i
    wrong = Derivation(captured).le(captured + 1, "positivity")
    res = step(at, sp.Sum(captured + 1, (i, 1, n)), "<=", "monotone_step", at=at, proof=wrong)
    assert res.status is Level.FAIL and "starts at" in res.reason, res.reason
    right = Derivation(inner_sum).le(inner_sum + 1, "positivity")
    res = step(at, sp.Sum(inner_sum + 1, (i, 1, n)), "<=", "monotone_step", at=at, proof=right)
    assert res.status is Level.PASS, res.reason


# ------------------------------------------------------------------------ limit_evaluate refusals
x_ = sp.Symbol("x", real=True)


@pytest.mark.parametrize("lim, why", [
    (sp.Limit(sp.sin(1 / x_), x_, 0), "not shown nonzero at the point"),     # no limit: 1/x has no value at 0
    (sp.Limit(sp.sin(x_), x_, sp.oo), "outside decaying exponentials"),       # no limit at oo
    (sp.Limit(sp.Sum(1 / k**2, (k, 1, n)), n, sp.oo), "bounds free of"),      # an infinite series: no lemma
    (sp.Limit(sp.Derivative(sp.Function("g")(x_), x_), x_, 0), "holds a derivative"),
])
def test_limit_evaluate_refuses_what_no_kernel_lemma_closes(lim, why):
    res = step(lim, sp.S.Zero, "=", "limit_evaluate")
    assert res.status is Level.FAIL and why in res.reason, res.reason


def test_limit_variable_is_bound_a_hypothesis_about_the_free_symbol_does_not_reach_it():
    from symattn.language.statement import Equation

    # c = 1 for the free c says nothing about the c the limit runs over
    ctx = ProofContext(hypotheses=(Equation("c_is_1", lhs=c, rhs=sp.S.One),))
    lim = sp.Limit(c * sp.tanh(s / c), c, sp.oo)
    res = step(lim, sp.Limit(sp.tanh(s), c, sp.oo), "=", "substitute", ctx, using="c_is_1")
    assert res.status is Level.FAIL, res.reason
    # the limit variable knows only the approach: the user's assumptions on a free c are not lent
    from symattn.kernel.terms import canonical

    z = canonical(sp.Limit(sp.sqrt(x_**2) / x_, x_, 0, "+")).args[1]
    assert z.is_real and z.is_positive is None


# ------------------------------------------------------------------------ weighted_cauchy_schwarz
wt = sp.IndexedBase("w", nonnegative=True)
u = sp.IndexedBase("u", real=True)


@pytest.mark.parametrize("idx", [k, sp.Symbol("q", integer=True), sp.Symbol("r")])
def test_weighted_cauchy_schwarz_weight_and_values_may_name_the_index_by_any_fresh_symbol(idx):
    lhs = sp.Sum(wt[k] * u[k], (k, 1, n)) ** 2
    rhs = sp.Sum(wt[k], (k, 1, n)) * sp.Sum(wt[k] * u[k] ** 2, (k, 1, n))
    res = step(lhs, rhs, "<=", "weighted_cauchy_schwarz", weight=wt[idx], values=u[idx])
    assert res.status is Level.PASS, res.reason


@pytest.mark.parametrize("weight, values, why", [
    (u[k], wt[k], "not known to be nonnegative"),         # the weight may be negative
    (wt[k], u[k] ** 2, "not weight * values"),             # not the summand
    (wt[k], u[n], "not weight * values"),                  # n is free in the step: not the index
    (wt[sp.Symbol("q", positive=True)], u[sp.Symbol("q", positive=True)], "assumptions"),  # 0..n has k = 0
])
def test_weighted_cauchy_schwarz_refuses_a_weight_or_values_that_are_not_the_summands(weight, values, why):
    lhs = sp.Sum(wt[k] * u[k], (k, 0, n)) ** 2
    rhs = sp.Sum(wt[k], (k, 0, n)) * sp.Sum(wt[k] * u[k] ** 2, (k, 0, n))
    res = step(lhs, rhs, "<=", "weighted_cauchy_schwarz", weight=weight, values=values)
    assert res.status is Level.FAIL and why in res.reason, res.reason
