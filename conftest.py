"""Shared pytest configuration: the deterministic Hypothesis profile used everywhere."""

import os

from hypothesis import HealthCheck, settings

# CI profile: derandomized (same examples every run), no per-example deadline
# (a 2-core CI box is noisy; time is measured by `symattn bench`, never by a test).
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=40,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("SYMATTN_HYPOTHESIS_PROFILE", "ci"))

# The flat 0.1 module paths (symattn/checker.py, ...) are deprecated aliases that replace themselves
# with the moved modules in sys.modules; their doctests are the moved modules', collected there, and
# collecting an alias as a file would import the moved module under the alias's path.
_SYMATTN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "symattn")
collect_ignore = [os.path.join(_SYMATTN, f) for f in sorted(os.listdir(_SYMATTN))
                  if f.endswith(".py") and f not in ("__init__.py", "__main__.py")]
