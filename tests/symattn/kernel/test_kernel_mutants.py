"""The kernel's claim tables can tell the kernel from a weakened one.

Each mutant removes one check of the core (the lower bound of a range, the integer check of a
delta's solution, the definedness conditions, the renaming of bound variables, the range-only
assumptions of a bound variable); for each, some false claim of the tables must stop being
rejected. A mutant no table notices would mean the check it removes is untested. The second
engine is off here: it is meant to catch what a weakened kernel lets through, which could hide an
untested kernel check.
"""

from __future__ import annotations

import pytest

import symattn.kernel.hypotheses as khyp
import symattn.kernel.lemmas as klemmas
import symattn.kernel.sign as ksign
import symattn.kernel.sums as ksums
import symattn.kernel.terms as kterms
import symattn.kernel.thm as kthm
import symattn.kernel.zero as kzero
import symattn.rules as rules_pkg
from symattn.kernel import second
from tests.symattn.kernel import test_binders, test_definedness, test_ranges, test_sums
from tests.symattn.kernel.claims import assert_rejected


def _no_lower_bound(j, lo, hi, hypotheses=(), env=None):
    return ORIGINAL_IN_RANGE(j, j, hi, hypotheses, env)


ORIGINAL_IN_RANGE = ksums.index_in_range

MUTANTS = {
    "range_lower_bound_dropped": (
        [(ksums, "index_in_range", _no_lower_bound)], test_sums.FALSE_CLAIMS),
    "delta_solution_integer_check_dropped": (
        [(ksums, "_is_integer", lambda *a: True)], test_sums.FALSE_CLAIMS),
    "definedness_conditions_dropped": (
        [(kzero, "undischarged", lambda *a, **k: []), (rules_pkg, "undischarged", lambda *a, **k: [])],
        test_definedness.FALSE_CLAIMS),
    "bound_variables_not_renamed": (
        [(m, "canonical", lambda e, level=0: e) for m in (kterms, rules_pkg, kthm, khyp, klemmas)],
        test_binders.FALSE_CLAIMS),
    "bound_variable_keeps_its_own_assumptions": (
        [(kterms, "_range_assumptions", lambda lo, hi, integral: {"integer": True, "positive": True})],
        test_ranges.FALSE_CLAIMS),
}


def _clear_caches() -> None:
    kzero._conditions_cached.cache_clear()
    kzero._reduces_cached.cache_clear()
    ksign._sign_cached.cache_clear()
    kterms._canonical_cached.cache_clear()


def _survives(claim) -> bool:
    try:
        assert_rejected(claim)
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_every_kernel_check_is_needed_by_some_false_claim(name, monkeypatch):
    patches, claims = MUTANTS[name]
    for module, attr, value in patches:
        monkeypatch.setattr(module, attr, value)
    _clear_caches()  # results computed by the real kernel must not answer for the mutant, nor back
    try:
        with second.disabled():
            noticed = [c.id for c in claims if not _survives(c)]
    finally:
        _clear_caches()
    assert noticed, f"kernel mutant {name!r} passes every false-claim table: the check it removes is untested"
