"""bounded_induction: base case and generic step checked; unsound inductions rejected."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.language.derivation import Derivation
from symattn.language.statement import Equation, IndexRange
from symattn.rules import ProofContext, check_step

T = sp.Symbol("T", integer=True, nonnegative=True)
t = sp.Symbol("t", integer=True, positive=True)
j = sp.Symbol("j", integer=True)
x = sp.IndexedBase("x")
acc = sp.IndexedBase("A")  # running sums A_t = A_{t-1} + x_t, A_0 = 0

HYPS = (
    Equation("initial", lhs=acc[0], rhs=sp.S.Zero),
    Equation("recurrence", lhs=acc[t], rhs=acc[t - 1] + x[t], forall=(t,)),
)


def prefix(upper):
    return sp.Sum(x[j], (j, 1, upper))


def proof(step_end=None, base_end=None):
    base = Derivation(acc[0]).eq(sp.S.Zero, "substitute", using="initial").eq(
        prefix(0) if base_end is None else base_end, "algebra")
    step = (
        Derivation(acc[t])
        .eq(acc[t - 1] + x[t], "substitute", using="recurrence")
        .eq(prefix(t - 1) + x[t], "substitute", using="induction_hypothesis")
        .eq(prefix(t) if step_end is None else step_end, "sum_join", at=t - 1)
    )
    return {"on": T, "var": t, "start": 0, "base": base, "step": step}


def status(lhs, rhs, args, hyps=HYPS):
    return check_step(lhs, rhs, "=", "bounded_induction", args, ProofContext(hypotheses=hyps)).status


def test_induction_proves_the_running_sum():
    assert status(acc[T], prefix(T), proof()) is Level.PASS
    # the claim at T may also be used to rewrite inside a larger expression
    assert status(2 * acc[T] + 1, 2 * prefix(T) + 1, proof()) is Level.PASS


def test_false_claim_with_plausible_induction_is_rejected():
    # "A_T = sum_{j<=T} x_j + 1": the step case checks (the constant rides along), only the base
    # case fails -- which is exactly why both are checked.
    step = (
        Derivation(acc[t])
        .eq(acc[t - 1] + x[t], "substitute", using="recurrence")
        .eq(prefix(t - 1) + 1 + x[t], "substitute", using="induction_hypothesis")
        .eq(prefix(t) + 1, "sum_join", at=t - 1)
    )
    base = Derivation(acc[0]).eq(sp.S.Zero, "substitute", using="initial").eq(prefix(0) + 1, "algebra")
    args = {"on": T, "var": t, "start": 0, "base": base, "step": step}
    result = check_step(acc[T], prefix(T) + 1, "=", "bounded_induction", args, ProofContext(hypotheses=HYPS))
    assert result.status is Level.FAIL
    assert "base case" in result.reason


@pytest.mark.parametrize(
    "change, why",
    [
        (lambda a: {**a, "var": sp.Symbol("t", integer=True, positive=True, even=True)}, "even induction variable"),
        (lambda a: {**a, "var": sp.Symbol("u", real=True)}, "not an integer variable"),
        (lambda a: {**a, "on": sp.Symbol("T", integer=True)}, "T not known to be >= 0"),
        (lambda a: {**a, "start": 1}, "base case proved at 0 but claimed at 1"),
        (lambda a: {**a, "base": Derivation(acc[0]).eq(prefix(0), "algebra")}, "base case without its hypothesis"),
        (lambda a: {**a, "step": Derivation(acc[t]).eq(prefix(t), "algebra")}, "a step that does not check"),
        (lambda a: {**a, "base": None}, "missing base case"),
    ],
)
def test_invalid_inductions_are_rejected(change, why):
    assert status(acc[T], prefix(T), change(proof())) is Level.FAIL, why


def test_hypothesis_about_a_particular_t_cannot_be_used_generically():
    hyps = HYPS + (IndexRange("t_is_one", index=t, lower=1, upper=1),)
    assert status(acc[T], prefix(T), proof(), hyps) is Level.FAIL


def test_step_relation_must_be_an_equality():
    st = check_step(acc[T], prefix(T), "<=", "bounded_induction", proof(), ProofContext(hypotheses=HYPS))
    assert st.status is Level.FAIL
