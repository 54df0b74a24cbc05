"""Derived instances of theorems about correlated pairs (issue 19): at a concrete dimension, the
moments of entries of two families related by a ``CorrelatedPairs`` hypothesis are evaluated from
their joint law (pairs independent across i, centred, one variance, the given covariance and mixed
moments), so a true theorem passes its derived instances and a false one is refuted exactly. A law
the kernel does not know (means not 0, different variances) leaves the instance unevaluated: no
evidence, never a refutation. Through the public API, tables of true and false cases."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from symattn import RandomFamily, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level
from symattn.language.statement import CorrelatedPairs
from symattn.rules.expectation import Expectation, Variance

d = sp.Symbol("d", integer=True, positive=True)
i = sp.Symbol("i", integer=True)
sigma = sp.Symbol("sigma", positive=True)
rho = sp.Symbol("rho", real=True)
m22 = sp.Symbol("m_22", positive=True)
q, kk = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
c = rho * sigma**2
PAIRS = (RandomFamily("q_entries", base=q, dim=d, mean=0, variance=sigma**2),
         RandomFamily("k_entries", base=kk, dim=d, mean=0, variance=sigma**2),
         CorrelatedPairs("pairs", q=q, k=kk, dim=d, covariance=c))
MIXED = PAIRS[:2] + (CorrelatedPairs("pairs", q=q, k=kk, dim=d, covariance=c, mixed=(((2, 2), m22),)),)


def S(body):
    return sp.Sum(body, (i, 1, d))


def theorem(statement, hyps):
    return Theorem(id="claim", title="claim", source="extension", statement=statement, hypotheses=hyps,
                   dimensions=(d,))


def check(thm):
    return check_theorem(thm, numeric=False)


TRUE = [
    ("logit_mean", Statement(Expectation(S(q[i] * kk[i])), d * c), PAIRS),
    ("one_pair", Statement(Expectation(q[1] * kk[1]), c), PAIRS),
    ("logit_variance", Statement(Variance(S(q[i] * kk[i])), d * (m22 - c**2)), MIXED),
    ("query_norm", Statement(Expectation(S(q[i] ** 2)), d * sigma**2), PAIRS),
    ("sums_product", Statement(Expectation(S(q[i]) * S(kk[i])), d * c), PAIRS),
    ("difference_norm", Statement(Expectation(S((q[i] - kk[i]) ** 2)), 2 * d * (sigma**2 - c)), PAIRS),
    ("logit_plus_sum", Statement(Expectation(S(q[i] * kk[i]) + S(q[i])), d * c), PAIRS),
    ("sum_variance", Statement(Variance(S(q[i] + kk[i])), d * (2 * sigma**2 + 2 * c)), PAIRS),
]

FALSE = [
    ("logit_mean_zero", Statement(Expectation(S(q[i] * kk[i])), 0), PAIRS),
    ("logit_mean_quadratic", Statement(Expectation(S(q[i] * kk[i])), d**2 * c), PAIRS),
    ("logit_variance_independent", Statement(Variance(S(q[i] * kk[i])), d * sigma**4), MIXED),
    ("sums_product_quadratic", Statement(Expectation(S(q[i]) * S(kk[i])), d**2 * c), PAIRS),
    ("difference_norm_uncorrelated", Statement(Expectation(S((q[i] - kk[i]) ** 2)), 2 * d * sigma**2), PAIRS),
    ("sum_variance_uncorrelated", Statement(Variance(S(q[i] + kk[i])), 2 * d * sigma**2), PAIRS),
    ("one_pair_is_variance", Statement(Expectation(q[1] * kk[1]), sigma**2), PAIRS),
    ("logit_mean_sqrt", Statement(Expectation(S(q[i] * kk[i])), sp.sqrt(d) * c), PAIRS),
]


@pytest.mark.parametrize("name,st,hyps", TRUE, ids=[t[0] for t in TRUE])
def test_a_true_correlated_theorem_passes_its_derived_instances(name, st, hyps):
    o = check(theorem(st, hyps))
    lv = o.levels["instances"]
    assert lv.status is Level.PASS and lv.data["derived"], lv.detail
    assert "exact for d in {1, 2, 3}" in lv.detail, lv.detail
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES, o.how


@pytest.mark.parametrize("name,st,hyps", FALSE, ids=[t[0] for t in FALSE])
def test_a_false_correlated_theorem_is_refuted_exactly(name, st, hyps):
    o = check(theorem(st, hyps))
    assert o.verdict is Verdict.REFUTED, o.how
    lv = o.levels["instances"]
    assert lv.status is Level.FAIL and lv.data["derived"], lv.detail
    assert not re.search(r"\d\.\d|e[+-]\d", o.counterexample), "exact numbers only: " + o.counterexample


@pytest.mark.parametrize("q_law", [dict(mean=1, variance=sigma**2), dict(mean=0, variance=2 * sigma**2)],
                         ids=["not_centred", "other_variance"])
def test_a_joint_law_the_kernel_does_not_know_is_no_evidence(q_law):
    hyps = (RandomFamily("q_entries", base=q, dim=d, **q_law),) + PAIRS[1:]
    o = check(theorem(Statement(Expectation(S(q[i] * kk[i])), 0), hyps))  # false under most laws
    lv = o.levels["instances"]
    assert lv.status is Level.UNDECIDED, lv.detail
    assert o.verdict is not Verdict.REFUTED and o.verdict is not Verdict.PROVED_FOR_INSTANCES, o.how
