"""Time limits for SymPy calls: re-exported from :mod:`symattn.kernel.timelimit`, where the
trusted core keeps them; and the validation of the environment variables symattn reads.

The re-exports are imported on first use, so that :func:`check_environment` (which the CLI runs
before anything else) can report a bad ``SYMATTN_TIME_LIMIT`` in one line instead of the
traceback of a failed import.

>>> environment_errors({"SYMATTN_TIME_LIMIT": "abc"})
["SYMATTN_TIME_LIMIT must be a positive number of seconds (e.g. 8 or 0.5), got 'abc'"]
>>> environment_errors({"SYMATTN_TIME_LIMIT": "2.5"})
[]
"""

from __future__ import annotations

import math
import os

__all__ = ["time_limit", "TimeLimitExceeded", "TimeLimitUnavailable", "DEFAULT_SECONDS", "ENVIRONMENT",  # noqa: F822
           "check_environment", "default_seconds", "environment_errors"]

_FALLBACK = 8.0


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError("must be a positive number of seconds (e.g. 8 or 0.5)")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise ValueError("must be a positive integer")
    return value


def _choice(*allowed: str):
    def parse(text: str) -> str:
        if text.strip().lower() not in allowed:
            raise ValueError("must be one of " + ", ".join(repr(a) for a in allowed))
        return text
    return parse


#: every environment variable symattn reads -> (parser raising ValueError(what it must be), meaning)
ENVIRONMENT = {
    "SYMATTN_TIME_LIMIT": (_positive_seconds, "default limit in seconds for one SymPy call of a rule"),
    "SYMATTN_SECOND_ENGINE": (_choice("0", "1"), "0 turns the second engine's re-check off"),
    "SYMATTN_SECOND_ENGINE_SECONDS": (_positive_seconds, "limit in seconds for one re-check of the second engine"),
    "SYMATTN_Z3_TIMEOUT_MS": (_positive_int, "z3's timeout in milliseconds"),
    "SYMATTN_REQUIRE_RECHECK": (_choice("0", "1"), "0: proved without the re-check (diagnostics)"),
    "SYMATTN_NO_CACHE": (_choice("", "0", "1", "false", "true", "no", "yes"), "turns the cache of outcomes off"),
}


def environment_errors(environ=None) -> list[str]:
    """One line per environment variable that is set but invalid."""
    environ = os.environ if environ is None else environ
    errors = []
    for name, (parse, _) in ENVIRONMENT.items():
        if name in environ:
            try:
                parse(environ[name])
            except ValueError as exc:
                errors.append(f"{name} {exc}, got {environ[name]!r}")
    return errors


def check_environment(environ=None) -> None:
    """Raise ``ValueError`` (one line per variable) when a symattn environment variable is invalid."""
    errors = environment_errors(environ)
    if errors:
        raise ValueError("; ".join(errors))


def default_seconds(environ=None) -> float:
    """``SYMATTN_TIME_LIMIT`` (validated) or 8: what :data:`DEFAULT_SECONDS` is, without importing
    the kernel."""
    environ = os.environ if environ is None else environ
    if "SYMATTN_TIME_LIMIT" not in environ:
        return _FALLBACK
    check_environment({"SYMATTN_TIME_LIMIT": environ["SYMATTN_TIME_LIMIT"]})
    return _positive_seconds(environ["SYMATTN_TIME_LIMIT"])


def __getattr__(name: str):
    if name in ("time_limit", "TimeLimitExceeded", "TimeLimitUnavailable", "DEFAULT_SECONDS"):
        check_environment()
        from symattn.kernel import timelimit

        return getattr(timelimit, name)
    raise AttributeError(f"module 'symattn.timelimit' has no attribute {name!r}")
