"""Every registered theorem is a test: it must reach its target verdict.

``pytest`` is the proof check: one item per theorem, ids = theorem ids.
"""

import pytest

from symattn.checker import Checker
from symattn.theorem import load_all

REGISTRY = load_all()
_checker = Checker()


@pytest.mark.parametrize("theorem", list(REGISTRY), ids=[t.id for t in REGISTRY])
def test_theorem_reaches_target_verdict(theorem):
    outcome = _checker.check(theorem)
    levels = {k: (v.status.value, v.detail) for k, v in outcome.levels.items()}
    assert outcome.reaches(theorem.target), (
        f"{theorem.id}: {outcome.verdict.value} (target {theorem.target.value}); how: {outcome.how}; "
        f"levels: {levels}"
    )
    # a failing level is reported, never hidden: no theorem at target may have a failing level
    assert all(v.status.value != "fail" for k, v in outcome.levels.items() if k != "symbolic"), levels
    if theorem.target.value == "proved":
        assert outcome.levels["symbolic"].status.value == "pass", levels


def test_theorem_ids_name_conclusions_and_are_unique():
    ids = [t.id for t in REGISTRY]
    assert len(ids) == len(set(ids))
    assert all(t.source for t in REGISTRY)


def test_every_theorem_cites_a_seed_or_says_extension():
    seeds = ("000_ccf06b253f58a07c.txt", "002_e97041f43d35f9ac.txt", "004_b987b516506401e6.txt", "extension")
    for t in REGISTRY:
        assert any(s in t.source for s in seeds), f"{t.id}: source {t.source!r} names no seed file"
