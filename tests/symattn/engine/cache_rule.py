"""A rule of its own module for tests/symattn/engine/test_cache.py: changing this file's source must
re-check exactly the theorems whose derivations use the rule."""

from symattn.kernel.thm import by_zero
from symattn.rules import Rule, failed, passed


def _double(lhs, rhs, relation, ctx):
    if relation != "=":
        return failed("equalities only")
    return passed("w + w = 2 w, by the kernel's zero test", thm=by_zero(lhs, rhs))


RULE = Rule("zz_cache_double", _double, "an equality the kernel's zero test shows (a rule for the cache's tests)")
