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
