"""The environment variables symattn reads, and the one validation of every time limit.

A leaf module (the standard library only), so that :func:`check_environment` (which the CLI runs
before anything else) can report a bad ``SYMATTN_TIME_LIMIT`` in one line instead of the
traceback of a failed import of :mod:`symattn.kernel.timelimit`, which reads it on import.

>>> environment_errors({"SYMATTN_TIME_LIMIT": "abc"})
["SYMATTN_TIME_LIMIT must be a positive number of seconds at most 86400 (e.g. 8 or 0.5), got 'abc'"]
>>> environment_errors({"SYMATTN_TIME_LIMIT": "2.5"})
[]
"""

from __future__ import annotations

import math
import os

__all__ = ["ENVIRONMENT", "check_environment", "default_seconds", "environment_errors", "MAX_SECONDS",
           "seconds_problem",
           "check_seconds", "environment_value"]

_FALLBACK = 8.0

#: the longest time limit accepted (one day): beyond it, or not finite, a limit is a mistake (and
#: the system timer overflows)
MAX_SECONDS = 86400.0

_SECONDS_RULE = f"a positive number of seconds at most {MAX_SECONDS:g} (e.g. 8 or 0.5)"


def seconds_problem(value) -> str | None:
    """What is wrong with ``value`` as a time limit in seconds (a number, or the text of one), or ``None``.

    The one validator of every time limit read from the command line, the environment or an option:
    finite, positive and at most :data:`MAX_SECONDS`.

    >>> [seconds_problem(v) is None for v in (8, 0.5, "2.5", 86400)]
    [True, True, True, True]
    >>> [seconds_problem(v) is None for v in (0, -1, float("nan"), float("inf"), "1e300", "abc", True, None)]
    [False, False, False, False, False, False, False, False]
    """
    if isinstance(value, bool):
        return f"must be {_SECONDS_RULE}, not a bool"
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return f"must be {_SECONDS_RULE}"
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return f"must be {_SECONDS_RULE}"
    if not (math.isfinite(number) and 0 < number <= MAX_SECONDS):
        return f"must be {_SECONDS_RULE}"
    return None


def check_seconds(value, name: str = "time limit") -> float:
    """``value`` as a float when :func:`seconds_problem` finds nothing wrong; otherwise ``ValueError``
    naming ``name`` and the value."""
    problem = seconds_problem(value)
    if problem is not None:
        raise ValueError(f"{name} {problem}, got {value!r}")
    return float(value)


def _positive_seconds(text: str) -> float:
    problem = seconds_problem(text)
    if problem is not None:
        raise ValueError(problem)
    return float(text)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 0 < value <= _MAX_INT:
        raise ValueError(f"must be a positive integer at most {_MAX_INT}")
    return value


_MAX_INT = int(MAX_SECONDS * 1000)  # (the one integer variable is z3's timeout in milliseconds)


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


def environment_value(name: str, default):
    """The validated value of the environment variable ``name`` (one of :data:`ENVIRONMENT`), or
    ``default`` when it is not set; ``ValueError`` naming it and its value otherwise."""
    if name not in os.environ:
        return default
    text = os.environ[name]
    try:
        return ENVIRONMENT[name][0](text)
    except ValueError as exc:
        raise ValueError(f"{name} {exc}, got {text!r}") from None


def default_seconds(environ=None) -> float:
    """``SYMATTN_TIME_LIMIT`` (validated) or 8: what :data:`DEFAULT_SECONDS` is, without importing
    the kernel."""
    environ = os.environ if environ is None else environ
    if "SYMATTN_TIME_LIMIT" not in environ:
        return _FALLBACK
    check_environment({"SYMATTN_TIME_LIMIT": environ["SYMATTN_TIME_LIMIT"]})
    return _positive_seconds(environ["SYMATTN_TIME_LIMIT"])

