"""Two classes of adversarial round 25, through the public API.

* **A Kronecker delta summed over a reversed range.** Karr's convention (SymPy's, and the kernel's
  everywhere else) makes ``sum_{k=lo}^{hi} f = -sum_{k=hi+1}^{lo-1} f`` when ``hi < lo - 1``; the delta
  rule read "the delta's solution is outside lo..hi" as 0 without asking whether the range is reversed,
  so ``n sum_{k=a+2}^{a} delta(k, a+1) = 0`` was proved (it is ``-n``). A solution outside the range now
  gives 0 only for a range shown not reversed; a range shown reversed is reflected.
* **A name bound twice in a flattened sum.** SymPy flattens ``Sum(Sum(s_k, (k, 1, k)), (k, 1, a))`` into
  ``Sum(s_k, (k, 1, k), (k, 1, a))``: the body's ``k`` is the inner one, the inner bound's ``k`` the outer
  one. The kernel's canonical form renamed the outer binding first and took the body's ``k`` with it,
  reading the term as ``sum_k k s_k``; it proved that false closed form.

False claims are refuted (the counterexample checked here by SymPy's own summation, Karr's convention);
true ones are never refuted."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, Derivation, IndexRange, Statement, Theorem, Verdict, softmax_jacobian_entry
from symattn.engine.checker import check_theorem
from symattn.kernel.terms import canonical

n = sp.Symbol("n", integer=True, positive=True)
a, b = sp.symbols("a b", integer=True, positive=True)
j, k, i = sp.symbols("j k i", integer=True)
m = sp.Symbol("m", integer=True)
s = sp.IndexedBase("s", real=True)
w = sp.IndexedBase("w", integer=True, positive=True)
A = sp.IndexedBase("A", real=True)
KD = sp.KroneckerDelta
J_RANGE = IndexRange("jr", index=j, lower=1, upper=n)
I_RANGE = IndexRange("ir", index=i, lower=1, upper=n)


def theorem(lhs, rhs, hyps=(), rule=None, rel="="):
    derivation = (lambda: Derivation(lhs).eq(rhs, rule)) if rule else None
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, rhs, rel),
                   hypotheses=tuple(hyps), dimensions=(n,), derivation=derivation)


REVERSED_FALSE = [
    ("evaluate", theorem(n * sp.Sum(KD(k, a + 1), (k, a + 2, a)), 0, rule="sum_evaluate")),
    ("no_derivation", theorem(n * sp.Sum(KD(k, a + 1), (k, a + 2, a)), 0)),
    ("with_a_factor", theorem(n * sp.Sum(KD(k, j) * s[k], (k, j + 1, j - 1)), 0, (J_RANGE,), "sum_evaluate")),
    ("contraction_rule", theorem(n * sp.Sum(KD(k, a + 1) * s[k], (k, a + 2, a)), 0,
                                 rule="kronecker_delta_contraction")),
    ("negative_upper", theorem(n * sp.Sum(KD(k, 0), (k, 1, m)), 0, (Assumption("neg", m <= -1),), "sum_evaluate")),
    ("unknown_sign", theorem(n * sp.Sum(KD(k, 0), (k, 1, m)), 0, rule="sum_evaluate")),
    ("difference_upper", theorem(n * sp.Sum(KD(k, 0), (k, 1, a - b)), 0, rule="sum_evaluate")),
    ("entries_upper", theorem(n * sp.Sum(KD(k, 0), (k, 1, w[1] - w[2])), 0, rule="sum_evaluate")),
    ("shifted_delta", theorem(n * sp.Sum(KD(k, 2), (k, 3, m)), 0, rule="sum_evaluate")),
    ("delta_plus_count", theorem(n * sp.Sum(KD(k, 0) + 1, (k, 1, m)), n * m)),
    ("jacobian_entries", theorem(n * sp.Sum(softmax_jacobian_entry(i, j, A), (j, i + 1, i - 1)),
                                 -n * sp.Sum(A[i] * A[j], (j, i + 1, i - 1)), (I_RANGE,), "sum_evaluate")),
]

REVERSED_TRUE = [
    ("reflected", theorem(n * sp.Sum(KD(k, a + 1), (k, a + 2, a)), -n, rule="sum_evaluate")),
    ("reflected_factor", theorem(n * sp.Sum(KD(k, j) * s[k], (k, j + 1, j - 1)), -n * s[j], (J_RANGE,),
                                 "sum_evaluate")),
    ("negative_total", theorem(n * sp.Sum(KD(k, a + 1), (k, a + 2, a)), 0, rel="<")),
    ("outside_forward", theorem(n * sp.Sum(KD(k, 0), (k, 1, a)), 0, rule="sum_evaluate")),
    ("inside_forward", theorem(n * sp.Sum(KD(k, 1) * s[k], (k, 1, a)), n * s[1], rule="sum_evaluate")),
    ("outside_below", theorem(n * sp.Sum(KD(k, j) * s[k], (k, 1, j - 1)), 0, (J_RANGE,), "sum_evaluate")),
]

NESTED = sp.Sum(sp.Sum(s[k], (k, 1, k)), (k, 1, a))  # sum_{k=1}^{a} sum_{i=1}^{k} s_i, flattened by SymPy
SHADOW_FALSE = [
    ("as_k_s_k", theorem(n * NESTED, n * sp.Sum(k * s[k], (k, 1, a)), rule="algebra")),
    ("as_k_s_k_no_derivation", theorem(n * NESTED, n * sp.Sum(k * s[k], (k, 1, a)))),
    ("lower_bound", theorem(n * sp.Sum(sp.Sum(s[k], (k, k, a)), (k, 1, a)), n * sp.Sum((a - k + 1) * s[k], (k, 1, a)))),
]
SHADOW_TRUE = [
    ("closed_form", theorem(n * NESTED, n * sp.Sum((a - k + 1) * s[k], (k, 1, a)))),
    ("lower_bound", theorem(n * sp.Sum(sp.Sum(s[k], (k, k, a)), (k, 1, a)), n * sp.Sum(k * s[k], (k, 1, a)))),
    ("renamed", theorem(n * NESTED, n * sp.Sum(sp.Sum(s[j], (j, 1, k)), (k, 1, a)))),
]


@pytest.mark.parametrize("name,thm", REVERSED_FALSE + SHADOW_FALSE,
                         ids=[t[0] for t in REVERSED_FALSE] + [f"shadow_{t[0]}" for t in SHADOW_FALSE])
def test_a_false_claim_is_refuted_at_a_true_counterexample(name, thm):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is Verdict.REFUTED, (name, o.how)


@pytest.mark.parametrize("name,thm", REVERSED_TRUE + SHADOW_TRUE,
                         ids=[t[0] for t in REVERSED_TRUE] + [f"shadow_{t[0]}" for t in SHADOW_TRUE])
def test_a_true_claim_is_not_refuted(name, thm):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is not Verdict.REFUTED, (name, o.how)


@pytest.mark.parametrize("name", ["reflected", "reflected_factor", "outside_forward", "inside_forward"])
def test_the_reflected_delta_sums_are_proved(name):
    thm = dict(REVERSED_TRUE)[name]
    assert check_theorem(thm, numeric=False).verdict is Verdict.PROVED


def _unrolled(term):
    """A sum whose bounds become integers, written out limit by limit, outermost first (for a term
    without a name bound twice: substituting the outer variable is then capture-free)."""
    if not isinstance(term, sp.Sum):
        return term
    *inner, (v, lo, hi) = term.limits
    body = sp.Sum(term.function, *inner) if inner else term.function
    return sp.Add(*(_unrolled(body.xreplace({v: sp.Integer(t)})) for t in range(int(lo), int(hi) + 1)))


@pytest.mark.parametrize("value", [1, 2, 3, 5])
def test_the_canonical_form_of_a_flattened_sum_keeps_each_occurrence_with_its_binding(value):
    truth = sp.Add(*(s[t] for outer in range(1, value + 1) for t in range(1, outer + 1)))  # by hand
    assert sp.expand(_unrolled(canonical(NESTED).xreplace({a: value}))) == sp.expand(truth)
