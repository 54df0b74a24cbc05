"""Mutation test over the whole registry: a perturbed step must be rejected by its rule.

For every registered derivation, intermediate expressions (steps *before* the last, so that the
end-of-chain comparison cannot be what catches them) are perturbed -- scaled by 2, negated, or
shifted by 1 -- where a neighbouring relation is ``=``, so that the perturbation makes that step
false. The rule of the mutated step, or of the next one, must then *fail*: ``undecided`` (a time
limit) or an exception is not a rejection. A derivation of one step has no intermediate
expression; its only step is perturbed and its own rule must fail (not merely the end check).

Every derivation gets at least one mutation, and the result is reported per theorem. Cost: a few
mutants per theorem, each checking the two steps it touches; one mutant per theorem is also run
through the whole checker, which must grade the symbolic level ``fail`` at that step.
"""

import dataclasses
import time

import pytest
import sympy as sp

from symattn.engine.checker import Checker, _applied_ids
from symattn.engine.theorem import load_all, registry
from symattn.engine.verdict import Level, Verdict
from symattn.kernel.timelimit import TimeLimitExceeded, time_limit
from symattn.rules import ProofContext, check_step
from symattn.rules.algebra import is_zero

REGISTRY = load_all()
DERIVED = [t for t in REGISTRY if t.derivation is not None]
STEP_SECONDS = 6.0  # per-step limit for mutants (a mutant that times out counts as *not* caught)
MUTANTS_PER_THEOREM = 2
SECOND_MUTANT_BUDGET = 3.0  # seconds: a second mutant is tried only if the first came this cheap


def _is_matrix(e):
    return isinstance(e, (sp.MatrixBase, sp.MatrixExpr))


MUTATIONS = {
    "scale_by_2": lambda e: 2 * e,
    "negate": lambda e: -e,
    "plus_one": lambda e: None if _is_matrix(e) else e + 1,
}


def _changes_value(name, e) -> bool:
    """Scaling and negating change every non-zero value; adding 1 changes every value."""
    if name == "plus_one":
        return True
    try:
        with time_limit(3):
            return not (e == 0 or is_zero(e))
    except (TimeLimitExceeded, Exception):
        return True  # a value not shown to be zero: 2e = e would need e = 0


def _candidates(derivation):
    """``(index, kind)`` of each mutable expression. ``"eq"``: a step before the last with an '='
    on at least one side (a value change makes that '=' false); a one-step derivation offers its
    only step. ``"ineq"``: an inequality step, whose expression is replaced by the previous one
    moved the wrong way by 1 (``a <= a - 1`` is false for every real ``a``)."""
    steps = derivation.steps
    out = []
    if len(steps) == 1 and steps[0].relation == "=":
        out.append((0, "eq"))
    for k in range(len(steps) - 1):
        if steps[k].relation == "=" or steps[k + 1].relation == "=":
            out.append((k, "eq"))
    out += [(k, "ineq") for k, st in enumerate(steps) if st.relation != "="]
    return out


def _false_bound(prev, relation):
    """An expression that makes ``prev relation it`` false for every real value of ``prev``."""
    return prev - 1 if relation in ("<=", "<") else prev + 1


def _context(theorem, checker):
    return ProofContext(hypotheses=theorem.hypotheses, theorem_id=theorem.id, time_limit=STEP_SECONDS,
                        registry=registry, stack=(theorem.id,), verdict_of=checker.verdict_of)


def _touched(derivation, k, mutated):
    """The steps a mutation of step k's expression touches: (1-based number, lhs, rhs, step)."""
    steps = derivation.steps
    prev = derivation.start if k == 0 else steps[k - 1].expr
    out = [(k + 1, prev, mutated, steps[k])]
    if k + 1 < len(steps):
        out.append((k + 2, mutated, steps[k + 1].expr, steps[k + 1]))
    return out


_checker = Checker(time_limit=STEP_SECONDS, numeric=False)


#: the registered theorems the mutants apply (``apply_theorem``), checked once per test process with the
#: options of the mutants' own check, their outcomes handed to each mutant's fresh checker
_LEMMAS = Checker(numeric=False)


def _check_broken(broken):
    """``Checker(numeric=False).check(broken)``, the lemmas it applies answered by :data:`_LEMMAS` (a fresh
    checker would check each again, in full, for every mutant that applies it). ``broken`` keeps the id
    of the theorem it mutates, so it is checked only by its own fresh checker, never by the shared one;
    a mutation changes expressions, not the theorems a step applies, and no lemma of the (acyclic)
    registry applies the theorem that applies it, so each lemma's outcome is the one a fresh checker
    would compute."""
    checker = Checker(numeric=False)
    for used in _applied_ids(broken.get_derivation()):
        if used != broken.id and used in registry:
            checker._outcomes[used] = _LEMMAS.check(registry.get(used))
    return checker.check(broken)


def _step_seconds(derivation, ctx):
    """How long each original step takes its rule (a mutant of a cheap step is cheap to reject)."""
    out = []
    for prev, step in derivation.pairs():
        t0 = time.perf_counter()
        check_step(prev, step.expr, step.relation, step.rule, step.args, ctx)
        out.append(time.perf_counter() - t0)
    return out


def _spread(candidates, seconds):
    """Candidates in an order that tries steps before the last first, value changes before false
    bounds, and steps whose rules were quick on the original before slow ones."""
    last = max(k for k, _ in candidates)

    def cost(c):
        k, kind = c
        touched = seconds[k] + (seconds[k + 1] if kind == "eq" and k + 1 < len(seconds) else 0.0)
        return (c[0] == last and last > 0, kind == "ineq", round(touched, 1), k)

    return sorted(candidates, key=cost)


@pytest.mark.parametrize("theorem", DERIVED, ids=[t.id for t in DERIVED])
def test_a_mutated_intermediate_step_is_rejected_by_its_rule(theorem):
    derivation = theorem.get_derivation()
    candidates = _candidates(derivation)
    assert candidates, f"{theorem.id}: no step can be mutated (add an '=' step or a mutation for this chain)"
    ctx = _context(theorem, _checker)
    caught, accepted, undecided = [], [], []
    seconds = _step_seconds(derivation, ctx)
    t0 = time.perf_counter()
    for k, kind in _spread(candidates, seconds):
        if len(caught) >= MUTANTS_PER_THEOREM or (caught and time.perf_counter() - t0 > SECOND_MUTANT_BUDGET):
            break
        prev = derivation.start if k == 0 else derivation.steps[k - 1].expr
        options = MUTATIONS.items() if kind == "eq" else [
            ("false_bound", lambda e, p=prev, r=derivation.steps[k].relation: _false_bound(p, r))]
        for name, mutate in options:
            original = derivation.steps[k].expr
            try:
                mutated = mutate(original)
            except Exception:
                mutated = None
            if mutated is None or mutated == original or (kind == "eq" and not _changes_value(name, original)):
                continue
            touched = _touched(derivation, k, mutated)
            if kind == "ineq":
                touched = touched[:1]  # the false bound makes this step false; the next may still hold
            results = []
            for number, lhs, rhs, step in touched:
                res = check_step(lhs, rhs, step.relation, step.rule, step.args, ctx)
                results.append((number, step, res))
            failing = [n for n, _, r in results if r.status is Level.FAIL]
            said = f"step {k + 1} {name}: " + "; ".join(
                f"step {n} [{st.rule}] {r.status.value}: {r.reason[:120]}" for n, st, r in results)
            if failing:
                caught.append((k, name, failing, mutated))
            elif all(r.status is Level.PASS for _, _, r in results):
                accepted.append(said)  # every touched rule passed a false step: unsound
            else:
                undecided.append(said)  # a time-out is no rejection: try another mutation of this step
                continue
            break  # one decided mutation per step
    assert not accepted, f"{theorem.id}: false steps accepted by their rules: {accepted}"
    assert caught, f"{theorem.id}: no mutant rejected by a rule (undecided does not count): {undecided}"

    # the first mutant through the whole checker: symbolic level fail, at the mutated step or the next
    k, name, failing, mutated = caught[0]
    broken = dataclasses.replace(theorem, derivation=derivation.replaced(k, mutated), instances=None,
                                 probabilistic=None, numeric=None)
    outcome = _check_broken(broken)
    assert outcome.verdict is not Verdict.PROVED
    sym = outcome.levels["symbolic"]
    assert sym.status is Level.FAIL, (theorem.id, sym.status, sym.detail[:300])
    assert any(f"step {n} " in sym.detail for n in failing), (theorem.id, failing, sym.detail[:300])
