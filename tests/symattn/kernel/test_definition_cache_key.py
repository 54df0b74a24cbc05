"""Adversarial round 3, (15): the cache keys see what a user's definition unfolds to.

A definition whose expansion reads outside state (an environment variable) unfolds differently in
another process; the full key holds the frozen expansion of every user head its terms use, and the
quick key every user definition's expansion frozen by ``define()``, so neither can serve the outcome
of the other expansion. Unchanged expansions keep the keys (no needless re-check).
"""

from __future__ import annotations

import sympy as sp

from symattn import Derivation, Statement, Theorem
from symattn.engine.cache import quick_key, theorem_key
from symattn.kernel import definitions as defs

x = sp.Symbol("x", real=True)


def _keys(offset, cls):
    # a fresh process: the same class and code, the outside state giving ``offset``
    defs.DEFINITIONS.pop("wf_cache_hc", None)
    for key in [k for k in defs._FROZEN if k[0] == "wf_cache_hc"]:
        defs._FROZEN.pop(key)
        defs.AT_DEFINITION.pop(key, None)
    state = {"off": offset}
    defs.define("wf_cache_hc", cls, lambda e: e.args[0] + state["off"])
    thm = Theorem(id="wf_cache", title="t", source="test", statement=Statement(x + 1, x + 1),
                  derivation=lambda: Derivation(x + 1).eq(cls(x), "definition", name="wf_cache_hc"))
    options = {"time_limit": 10}
    return theorem_key(thm, options), quick_key(thm, options)


def test_the_keys_change_with_the_expansion_and_only_then():
    cls = type("HcCacheT", (sp.Function,), {"__module__": "tests.user_heads_cache"})
    try:
        k1, q1 = _keys(1, cls)
        k1b, q1b = _keys(1, cls)
        k2, q2 = _keys(2, cls)
    finally:
        defs.DEFINITIONS.pop("wf_cache_hc", None)
    assert (k1, q1) == (k1b, q1b)
    assert k1 != k2  # the head occurs only in the derivation: the full key sees its expansion
    assert q1 != q2  # the quick key sees every definition's expansion
