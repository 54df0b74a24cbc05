"""Summation rules: linearity, splitting (bounds checked), evaluation, delta contraction (range checked)."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.language.statement import IndexRange
from symattn.rules import ProofContext, check_step

n = sp.Symbol("n", integer=True, positive=True)
m = sp.Symbol("m", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True, positive=True)
c = sp.Symbol("c", real=True)
f = sp.IndexedBase("f")
g = sp.IndexedBase("g")
in_range = ProofContext(hypotheses=(IndexRange("j_range", index=j, lower=1, upper=n),))
no_range = ProofContext()


def st(lhs, rhs, rule, ctx=no_range, **args):
    return check_step(lhs, rhs, "=", rule, args, ctx).status


def S(body, lo=1, hi=n):
    return sp.Sum(body, (k, lo, hi))


def test_sum_linearity_valid():
    assert st(S(c * f[k] + g[k]), c * S(f[k]) + S(g[k]), "sum_linearity") is Level.PASS
    assert st(S(sp.exp(c) * f[k]), sp.exp(c) * S(f[k]), "sum_linearity") is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, why",
    [
        (S(k * f[k]), k * S(f[k]), "pulled out a factor that depends on the index"),
        (S(c * f[k] + g[k]), c * S(f[k]) - S(g[k]), "sign error"),
        (S(c * f[k]), S(f[k]), "dropped factor"),
        (S(f[k] * g[k]), S(f[k]) * S(g[k]), "sum of products is not a product of sums"),
    ],
)
def test_sum_linearity_invalid(lhs, rhs, why):
    assert st(lhs, rhs, "sum_linearity") is Level.FAIL, why


def test_sum_split_valid_and_peel_last_term():
    assert st(S(f[k]), S(f[k], 1, m) + S(f[k], m + 1, n), "sum_split", at=m) is Level.FAIL  # m not known <= n
    assert st(S(f[k]), S(f[k], 1, n - 1) + f[n], "sum_split", at=n - 1) is Level.PASS
    assert st(S(f[k], 1, n + m), S(f[k], 1, n) + S(f[k], n + 1, n + m), "sum_split", at=n) is Level.PASS


@pytest.mark.parametrize(
    "rhs, at, why",
    [
        (S(f[k], 1, n) + S(f[k], n, n + m), n, "overlap: second piece starts at m, not m+1"),
        (S(f[k], 1, n - 1) + S(f[k], n + 1, n + m), n, "gap: term n dropped"),
        (S(f[k], 1, n) + S(f[k], n + 1, n + m + 1), n, "off-by-one upper bound"),
        (S(f[k], 1, n + m + 1) + S(f[k], n + m + 2, n + m), n + m + 1, "split point beyond the range"),
    ],
)
def test_sum_split_invalid(rhs, at, why):
    assert st(S(f[k], 1, n + m), rhs, "sum_split", at=at) is Level.FAIL, why


def test_sum_evaluate():
    assert st(S(c), n * c, "sum_evaluate") is Level.PASS
    assert st(S(k), n * (n + 1) / 2, "sum_evaluate") is Level.PASS
    assert st(S(c), (n + 1) * c, "sum_evaluate") is Level.FAIL
    assert st(c * n, c * n, "sum_evaluate") is Level.FAIL  # nothing to evaluate


def test_delta_contraction_requires_index_in_range():
    lhs = S(f[k] * sp.KroneckerDelta(j, k))
    assert st(lhs, f[j], "kronecker_delta_contraction", in_range) is Level.PASS
    # without the range hypothesis the contraction is not justified (the sum is 0 for j > n)
    assert st(lhs, f[j], "kronecker_delta_contraction", no_range) is Level.FAIL
    # range 1..n-1 does not contain j in 1..n
    assert st(S(f[k] * sp.KroneckerDelta(j, k), 1, n - 1), f[j], "kronecker_delta_contraction", in_range) is Level.FAIL


def test_delta_contraction_rejects_wrong_result():
    lhs = S(f[k] * sp.KroneckerDelta(j, k))
    assert st(lhs, f[k], "kronecker_delta_contraction", in_range) is Level.FAIL
    assert st(lhs, 2 * f[j], "kronecker_delta_contraction", in_range) is Level.FAIL
    assert st(S(f[k]), f[j], "kronecker_delta_contraction", in_range) is Level.FAIL  # no delta at all


def test_sum_split_uses_index_range_hypotheses_for_the_split_point():
    ctx = ProofContext(hypotheses=(IndexRange("m_range", index=m, lower=1, upper=n),))
    assert st(S(f[k]), S(f[k], 1, m) + S(f[k], m + 1, n), "sum_split", ctx, at=m) is Level.PASS
    wide = ProofContext(hypotheses=(IndexRange("m_range", index=m, lower=1, upper=n + 1),))
    assert st(S(f[k]), S(f[k], 1, m) + S(f[k], m + 1, n), "sum_split", wide, at=m) is Level.FAIL


def test_delta_contraction_reads_the_range_of_an_enclosing_sum_not_a_hypothesis():
    # j is bound by the outer sum over 1..n+1; a hypothesis about a free j (1..n) must not be used
    inner = S(f[k] * sp.KroneckerDelta(j, k))
    outer = sp.Sum(inner, (j, 1, n + 1))
    assert st(outer, sp.Sum(f[j], (j, 1, n + 1)), "kronecker_delta_contraction", in_range) is Level.FAIL
    good = sp.Sum(inner, (j, 1, n))
    assert st(good, sp.Sum(f[j], (j, 1, n)), "kronecker_delta_contraction", no_range) is Level.PASS
