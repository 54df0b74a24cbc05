"""Time limits for SymPy calls: re-exported from :mod:`symattn.kernel.timelimit`, where the
trusted core keeps them."""

from symattn.kernel.timelimit import DEFAULT_SECONDS, TimeLimitExceeded, TimeLimitUnavailable, time_limit

__all__ = ["time_limit", "TimeLimitExceeded", "TimeLimitUnavailable", "DEFAULT_SECONDS"]
