"""Derived instances of theorems about recurrences (issue 19): at a concrete size, the entries a
``forall`` equation defines (``L[t] = L[t-1] + x[t]`` for all t) are unfolded at their concrete
indices -- only where the quantified variable's assumptions and ranges allow -- before the equations
without ``forall`` are solved and the sides compared exactly. A true theorem passes its derived
instances; a false one is refuted exactly; a recurrence is never applied outside its range. Through
the public API, tables of true and false cases."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from symattn import Equation, IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level
from symattn.kernel.instances import unfold_forall

n = sp.Symbol("n", integer=True, positive=True)
t = sp.Symbol("t", integer=True, positive=True)
j = sp.Symbol("j", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True)
r = sp.Symbol("r", real=True)
E, S, L, P, G, C, F, M, s, x, h = (sp.IndexedBase(name, real=True) for name in "ESLPGCFMsxh")

PREFIX = (Equation("partial_sums", lhs=E[j], rhs=S[j + 1] - S[j], forall=(j,)), Equation("empty", lhs=S[0], rhs=0))
RUNNING = (Equation("step", lhs=L[t], rhs=L[t - 1] + x[t], forall=(t,)), Equation("start", lhs=L[0], rhs=0))
PRODUCT = (Equation("step", lhs=P[t], rhs=P[t - 1] * x[t], forall=(t,)), Equation("start", lhs=P[0], rhs=1))
GEOMETRIC = (Equation("step", lhs=G[t], rhs=r * G[t - 1], forall=(t,)), Equation("start", lhs=G[0], rhs=1))
COUNTER = (Equation("step", lhs=C[t], rhs=C[t - 1] + 1, forall=(t,)), Equation("start", lhs=C[0], rhs=0))
NORMALISER = (Equation("step", lhs=L[t], rhs=sp.exp(M[t - 1] - M[t]) * L[t - 1] + sp.exp(s[t] - M[t]), forall=(t,)),
              Equation("start", lhs=L[0], rhs=0))
FIBONACCI = (Equation("step", lhs=F[t], rhs=F[t - 1] + F[t - 2], forall=(t,)),
             IndexRange("t_range", index=t, lower=2, upper=n + 2),
             Equation("f0", lhs=F[0], rhs=0), Equation("f1", lhs=F[1], rhs=1))
ABEL = (Equation("partial_sums", lhs=E[j], rhs=S[j + 1] - S[j], forall=(j,)), Equation("empty", lhs=S[0], rhs=0),
        Equation("beyond", lhs=h[n], rhs=0))


def theorem(statement, hyps):
    return Theorem(id="claim", title="claim", source="extension", statement=statement, hypotheses=hyps,
                   dimensions=(n,))


def check(thm):
    return check_theorem(thm, numeric=False)


TRUE = [
    ("telescoping", Statement(sp.Sum(E[k], (k, 0, n - 1)), S[n]), PREFIX),
    ("running_sum", Statement(L[n], sp.Sum(x[k], (k, 1, n))), RUNNING),
    ("running_product", Statement(P[n], sp.Product(x[k], (k, 1, n))), PRODUCT),
    ("geometric", Statement(G[n], r**n), GEOMETRIC),
    ("counter", Statement(C[n], n), COUNTER),
    ("rescaled_normaliser", Statement(L[n] * sp.exp(M[n]), sp.Sum(sp.exp(s[k]), (k, 1, n))), NORMALISER),
    ("fibonacci_partial_sums", Statement(sp.Sum(F[k], (k, 0, n)), F[n + 2] - 1), FIBONACCI),
    ("abel_summation", Statement(sp.Sum(E[k] * h[k], (k, 0, n - 1)),
                                 sp.Sum((h[k] - h[k + 1]) * S[k + 1], (k, 0, n - 1))), ABEL),
]

FALSE = [
    ("telescoping_off_by_one", Statement(sp.Sum(E[k], (k, 0, n - 1)), S[n - 1]), PREFIX),
    ("running_sum_short", Statement(L[n], sp.Sum(x[k], (k, 1, n - 1))), RUNNING),
    ("running_product_is_sum", Statement(P[n], sp.Sum(x[k], (k, 1, n))), PRODUCT),
    ("geometric_is_linear", Statement(G[n], r * n), GEOMETRIC),
    ("counter_plus_one", Statement(C[n], n + 1), COUNTER),
    ("normaliser_not_rescaled", Statement(L[n], sp.Sum(sp.exp(s[k]), (k, 1, n))), NORMALISER),
    ("fibonacci_sum_without_minus_one", Statement(sp.Sum(F[k], (k, 0, n)), F[n + 2]), FIBONACCI),
    ("abel_wrong_sign", Statement(sp.Sum(E[k] * h[k], (k, 0, n - 1)),
                                  sp.Sum((h[k + 1] - h[k]) * S[k + 1], (k, 0, n - 1))), ABEL),
]


@pytest.mark.parametrize("name,st,hyps", TRUE, ids=[c[0] for c in TRUE])
def test_a_true_recurrence_theorem_passes_its_derived_instances(name, st, hyps):
    o = check(theorem(st, hyps))
    lv = o.levels["instances"]
    assert lv.status is Level.PASS and lv.data["derived"], lv.detail
    assert "exact for n in {1, 2, 3}" in lv.detail, lv.detail
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES, o.how


@pytest.mark.parametrize("name,st,hyps", FALSE, ids=[c[0] for c in FALSE])
def test_a_false_recurrence_theorem_is_refuted_exactly(name, st, hyps):
    o = check(theorem(st, hyps))
    assert o.verdict is Verdict.REFUTED, o.how
    lv = o.levels["instances"]
    assert lv.status is Level.FAIL and lv.data["derived"], lv.detail
    assert not re.search(r"\d\.\d|e[+-]\d", o.counterexample), "exact numbers only: " + o.counterexample


def test_a_recurrence_is_not_applied_outside_its_range():
    # F[t] = F[t-1] + F[t-2] holds for t >= 2 only: F[1] is not F[0] + F[-1]
    hyps = (Equation("step", lhs=F[t], rhs=F[t - 1] + F[t - 2], forall=(t,)),
            IndexRange("t_range", index=t, lower=2, upper=5))
    assert unfold_forall(hyps, [F[1], F[2]]) == [F[1], F[1] + F[0]]
    # nor outside the quantified variable's assumptions (t positive: L[0] is not unfolded)
    assert unfold_forall(RUNNING, [L[0], L[2]]) == [L[0], L[0] + x[1] + x[2]]


def test_a_claim_that_needs_the_recurrence_outside_its_range_does_not_pass():
    hyps = (Equation("step", lhs=L[t], rhs=L[t - 1] + x[t], forall=(t,)),
            IndexRange("t_range", index=t, lower=2, upper=n), Equation("start", lhs=L[0], rhs=0))
    o = check(theorem(Statement(L[n], sp.Sum(x[k], (k, 1, n))), hyps))
    assert o.verdict is not Verdict.PROVED_FOR_INSTANCES, o.how
    assert o.levels["instances"].status is not Level.PASS, o.levels["instances"].detail


def test_a_recurrence_that_does_not_terminate_is_left_alone():
    hyps = (Equation("loop", lhs=L[t], rhs=L[t + 1] - x[t], forall=(t,)),)
    assert unfold_forall(hyps, [L[1]]) == [L[1]]
