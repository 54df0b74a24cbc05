"""A rule of its own module for tests/symattn/test_cache.py: changing this file's source must
re-check exactly the theorems whose derivations use the rule."""

import sympy as sp

from symattn.rules import Rule, failed, passed


def _double(lhs, rhs, relation, ctx):
    if relation == "=" and sp.expand(lhs - rhs) == 0:
        return passed("w + w = 2 w")
    return failed("not w + w = 2 w")


RULE = Rule("zz_cache_double", _double, "w + w = 2 w (a rule for the cache's tests)")
