"""The second engine's zero test knows one fact of the step's permutation hypotheses: a sum over
``1..n`` of ``f(sigma(k))``, ``k`` only inside ``sigma(k)``, is the sum of ``f(k)`` when ``sigma`` is a
permutation of ``1..n`` (softmax_rows_permutation_conjugate's normaliser, issue 18). Without the
hypothesis, on another range or with the index outside ``sigma``, nothing is agreed."""

import pytest
import sympy as sp

from symattn.kernel.second import AGREE
from symattn.kernel.second.flint_zero import recheck_zero
from symattn.maths.permutation import Permutation

n, m = sp.symbols("n m", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True)
y = sp.Symbol("y", real=True)
S, X, Y = sp.IndexedBase("S"), sp.IndexedBase("X"), sp.IndexedBase("Y")
sigma, tau, f = sp.Function("sigma"), sp.Function("tau"), sp.Function("f")
SIGMA = (Permutation("sigma_perm", sigma="sigma", n=n),)
BOTH = SIGMA + (Permutation("tau_perm", sigma="tau", n=n),)


def total(body, lo=1, hi=n):
    return sp.Sum(body, (k, lo, hi))


TRUE = [
    (total(sp.exp(S[sigma(i), sigma(k)])), total(sp.exp(S[sigma(i), k])), SIGMA),
    (total(X[sigma(k)]), total(X[k]), SIGMA),
    (total(X[sigma(k)] ** 2), total(X[k] ** 2), SIGMA),
    (total(y * f(sigma(k))), y * total(f(k)), SIGMA),
    (sp.exp(S[sigma(i), sigma(j)]) / total(sp.exp(S[sigma(i), sigma(k)])),
     sp.exp(S[sigma(i), sigma(j)]) / total(sp.exp(S[sigma(i), k])), SIGMA),
    (total(X[sigma(k)] * Y[sigma(k)]), total(X[k] * Y[k]), SIGMA),
    (total(X[sigma(k)]) + total(Y[sigma(k)]), total(X[k] + Y[k]), SIGMA),
    (total(X[tau(k)]), total(X[sigma(k)]), BOTH),
]

FALSE = [
    (total(X[sigma(k)]), total(X[k]), ()),  # no hypothesis
    (total(X[sigma(k)], 1, n - 1), total(X[k], 1, n - 1), SIGMA),  # not the permuted range
    (total(X[sigma(k)], 0, n - 1), total(X[k], 0, n - 1), SIGMA),
    (total(k * X[sigma(k)]), total(k * X[k]), SIGMA),  # the index outside sigma
    (total(X[sigma(k)]), total(X[k]), (Permutation("sigma_perm", sigma="sigma", n=m),)),  # of 1..m
    (total(X[tau(k)]), total(X[k]), SIGMA),  # tau is not declared
    (total(X[sigma(k + 1)]), total(X[k + 1]), SIGMA),
    (total(X[sigma(k)] * X[k]), total(X[k] ** 2), SIGMA),
]


@pytest.mark.parametrize("lhs, rhs, hyps", TRUE)
def test_a_sum_over_a_permuted_range_is_agreed(lhs, rhs, hyps):
    check = recheck_zero(lhs - rhs, hypotheses=hyps)
    assert check.verdict == AGREE, check.reason


@pytest.mark.parametrize("lhs, rhs, hyps", FALSE)
def test_otherwise_never_agreed(lhs, rhs, hyps):
    assert recheck_zero(lhs - rhs, hypotheses=hyps).verdict != AGREE


def test_an_agreement_under_the_hypothesis_is_not_remembered_without_it():
    lhs, rhs, hyps = TRUE[1]
    assert recheck_zero(lhs - rhs, hypotheses=hyps).verdict == AGREE
    assert recheck_zero(lhs - rhs, hypotheses=()).verdict != AGREE
    assert recheck_zero(lhs - rhs).verdict != AGREE  # outside a step: no hypotheses


def test_the_steps_hypotheses_are_read():
    from symattn.kernel.zero import HYPOTHESES

    lhs, rhs, hyps = TRUE[0]
    token = HYPOTHESES.set(hyps)
    try:
        assert recheck_zero(lhs - rhs).verdict == AGREE
    finally:
        HYPOTHESES.reset(token)
