"""Every registered theorem is a test: it must reach its target verdict, and every level of
evidence it configures must pass.

``pytest`` is the proof check: one item per theorem, ids = theorem ids. A level that is
configured (not ``n/a``) and does not pass -- a numeric check that raised, an instance builder
that timed out or was rejected, a probabilistic test too weak to count -- fails the item, even
when the verdict reaches its target through another level.

The items check through the cache of outcomes (:mod:`symattn.engine.cache`), as the library's other test
items do (``tests/derivations/conftest.py``): a theorem that another test of the session, or another
xdist worker, already checked with the same content key is not checked again (``SYMATTN_NO_CACHE=1``
turns the cache off).
"""

import pytest

from symattn.engine.cache import Cache, using
from symattn.engine.checker import Checker
from symattn.engine.theorem import load_all
from symattn.engine.verdict import Level
from symattn.products.pytest_plugin import assert_theorem

REGISTRY = load_all()
_checker = Checker()
_CACHE = Cache()


@pytest.fixture(autouse=True)
def _outcome_cache():
    with using(_CACHE):
        yield


@pytest.mark.parametrize("theorem", list(REGISTRY), ids=[t.id for t in REGISTRY])
def test_theorem_reaches_target_verdict(theorem):
    # the same rule as `pytest --symattn` items and `symattn check` (symattn.engine.acceptance): the
    # verdict reaches the target and every configured level passes; a failure shows the failing
    # step, its rule and residual, not a traceback; then what only the registry promises: every
    # configured level passes, unconfigured ones are n/a, and the hypotheses have a model
    outcome = _checker.check(theorem)
    assert_theorem(theorem, outcome)
    levels = {k: (v.status.value, v.detail) for k, v in outcome.levels.items()}
    configured = {
        "symbolic": theorem.derivation is not None,
        "instances": theorem.instances is not None,
        "probabilistic": theorem.probabilistic is not None,
        "numeric": theorem.numeric is not None,
    }
    for name, present in configured.items():
        lv = outcome.levels[name]
        status = lv.status
        # the kernel instantiates every theorem with integer dimensions itself (no builder needed): its
        # derived instances pass, fail (refuted), or are inconclusive -- which shows, and counts for nothing
        kernel_inconclusive = name == "instances" and status is Level.UNDECIDED and lv.data.get("kernel_inconclusive")
        if present:
            ok = status is Level.PASS or (kernel_inconclusive and lv.data.get("builder") == "pass")
            assert ok, f"{theorem.id}: configured level {name} is {status.value}: {levels[name][1]}"
        elif name == "instances":
            assert status in (Level.NA, Level.PASS) or kernel_inconclusive, \
                f"{theorem.id}: the kernel's instances are {status.value}: {levels[name][1]}"
        else:
            assert status is Level.NA, f"{theorem.id}: level {name} has no check but is {status.value}"
    if theorem.target.value == "proved":
        assert outcome.levels["symbolic"].status is Level.PASS, levels
    assert outcome.model is not None, f"{theorem.id}: no model of its hypotheses: {outcome.how}"


def test_theorem_ids_name_conclusions_and_are_unique():
    ids = [t.id for t in REGISTRY]
    assert len(ids) == len(set(ids))
    assert all(t.source for t in REGISTRY)


def test_every_theorem_cites_a_seed_or_says_extension():
    seeds = ("000_ccf06b253f58a07c.txt", "002_e97041f43d35f9ac.txt", "004_b987b516506401e6.txt", "extension")
    for t in REGISTRY:
        assert any(s in t.source for s in seeds), f"{t.id}: source {t.source!r} names no seed file"
