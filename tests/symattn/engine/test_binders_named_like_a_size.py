"""A binder whose variable is named like a size or a free symbol (adversarial round 26): substituting
the size ``n = 1`` into ``Softmax(Lambda(n, s_n n), i, n)`` put 1 into the Lambda's signature (SymPy's
``BadSignatureError``), so true claims had no derived instance ("not well-formed") or no model, and a
false one stayed ``undecided``. Sizes and model points now reach the free occurrences only. True claims
pass their derived instances, false ones are refuted."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, Derivation, IndexRange, Softmax, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem

n = sp.Symbol("n", integer=True, positive=True)
i, k = sp.symbols("i k", integer=True)
s = sp.IndexedBase("s", real=True)
I_RANGE = IndexRange("ri", index=i, lower=1, upper=n)
EXPANDED = n * sp.exp(s[i] * i) / sp.Sum(sp.exp(s[k] * k), (k, 1, n))


def theorem(lhs, rhs, hyps=(I_RANGE,), derivation=None):
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, rhs),
                   hypotheses=tuple(hyps), dimensions=(n,), derivation=derivation)


LAMBDA_N = n * Softmax(sp.Lambda(n, s[n] * n), i, n)  # the Lambda binds a variable named like the size
LAMBDA_I = n * Softmax(sp.Lambda(i, s[i] * i), i, n)  # ... like the component index

TRUE = [
    ("lambda_named_like_the_size", theorem(LAMBDA_N, EXPANDED)),
    ("lambda_named_like_the_index", theorem(LAMBDA_I, EXPANDED)),
    ("sum_named_like_the_size", theorem(n * sp.Sum(s[n], (n, 1, 3)), n * (s[1] + s[2] + s[3]), hyps=())),
]
FALSE = [
    ("lambda_named_like_the_size", theorem(LAMBDA_N, n * sp.exp(s[i] * i) / n)),
    ("lambda_against_a_free_k", theorem(n * Softmax(sp.Lambda(k, sp.Max(k, 5) * s[k]), i, n),
                                        n * Softmax(sp.Lambda(k, k * s[k]), i, n),
                                        hyps=(I_RANGE, Assumption("hk", k >= 5)))),
    ("sum_named_like_the_size", theorem(n * sp.Sum(s[n], (n, 1, 3)), 3 * n * s[1], hyps=())),
]


@pytest.mark.parametrize("name,thm", TRUE, ids=[t[0] for t in TRUE])
def test_a_true_claim_passes_its_derived_instances(name, thm):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is not Verdict.REFUTED, (name, o.how)
    assert o.levels["instances"].detail.startswith("exact for n in {1, 2, 3}"), (name, o.levels["instances"].detail)


@pytest.mark.parametrize("name,thm", FALSE, ids=[t[0] for t in FALSE])
def test_a_false_claim_is_refuted(name, thm):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is Verdict.REFUTED, (name, o.how)


def test_the_definition_step_of_a_lambda_named_like_the_size_is_still_proved():
    step = Derivation(LAMBDA_N).eq(EXPANDED, "definition", name="softmax")
    thm = theorem(LAMBDA_N, EXPANDED, derivation=lambda: step)
    o = check_theorem(thm, numeric=False)
    assert o.verdict is Verdict.PROVED, o.how
    assert o.levels["instances"].detail.startswith("exact for n in {1, 2, 3}"), o.levels["instances"].detail
