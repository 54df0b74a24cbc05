"""Mutation test over the whole registry: a perturbed derivation must not prove its theorem.

For every registered derivation, one step is perturbed in each of four ways -- scaled by 2,
sign changed, two indices swapped, a summation bound shifted -- and the theorem, with the
perturbed derivation and no other evidence, must no longer reach ``proved``. A mutation that
leaves the step mathematically unchanged (e.g. swapping symmetric indices) is not a mutation
and is skipped; the test records how many real mutations were tried.
"""

import dataclasses

import pytest
import sympy as sp

from symattn.checker import Checker
from symattn.rules.algebra import equal, is_zero
from symattn.theorem import load_all
from symattn.timelimit import TimeLimitExceeded, time_limit
from symattn.verdict import Verdict

REGISTRY = load_all()
PROVED = [t for t in REGISTRY if t.target is Verdict.PROVED and t.derivation is not None]


def _scale(e):
    return 2 * e


def _negate(e):
    return -e


def _swap_indices(e):
    idx = sorted(
        (s for s in e.free_symbols if isinstance(s, sp.Symbol) and s.is_integer), key=lambda s: s.name
    ) if isinstance(e, sp.Basic) else []
    if len(idx) < 2:
        return None
    a, b = idx[0], idx[1]
    return e.xreplace({a: b, b: a})


def _shift_bound(e):
    if not isinstance(e, sp.Basic):
        return None
    sums = sorted(e.atoms(sp.Sum), key=sp.default_sort_key)
    if not sums:
        return None
    s0 = sums[0]
    (k, lo, hi) = s0.limits[0]
    return e.xreplace({s0: sp.Sum(s0.function, (k, lo, hi + 1), *s0.limits[1:])})


MUTATIONS = {"scale_by_2": _scale, "negate": _negate, "swap_indices": _swap_indices, "shift_bound": _shift_bound}


def _candidates(derivation):
    """Step indices whose neighbouring relations are all '=' (a changed value must break them)."""
    steps = derivation.steps
    out = []
    for k, st in enumerate(steps):
        after = steps[k + 1].relation if k + 1 < len(steps) else "="
        if st.relation == "=" and after == "=":
            out.append(k)
    return out


def _differs(a, b, name) -> bool:
    """Whether the mutation really changed the value. Scaling by 2 and negating change every
    non-zero expression, so for those only an expression known to be 0 is skipped."""
    try:
        with time_limit(5):
            if name in ("scale_by_2", "negate"):
                return not (b == 0 or is_zero(b))
            return not equal(a, b)
    except (TimeLimitExceeded, Exception):
        return name in ("scale_by_2", "negate")


@pytest.mark.parametrize("theorem", PROVED, ids=[t.id for t in PROVED])
def test_perturbed_derivation_does_not_prove(theorem):
    derivation = theorem.get_derivation()
    candidates = _candidates(derivation)
    tried = 0
    for name, mutate in MUTATIONS.items():
        for k in reversed(candidates):  # the last qualifying step where this mutation changes something
            original = derivation.steps[k].expr
            try:
                mutated = mutate(original)
            except Exception:
                mutated = None
            if mutated is None or mutated == original or not _differs(mutated, original, name):
                continue
            broken = dataclasses.replace(
                theorem, derivation=derivation.replaced(k, mutated), instances=None, probabilistic=None,
                numeric=None,
            )
            outcome = Checker().check(broken)
            assert outcome.verdict is not Verdict.PROVED, (
                f"{theorem.id}: step {k + 1} mutated by {name} still proves the theorem"
            )
            tried += 1
            break
    assert tried >= 1 or not candidates, f"{theorem.id}: no mutation applied to any step"
