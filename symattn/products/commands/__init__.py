"""The CLI's subcommands, one module each; what they share is here."""

from __future__ import annotations

import sys

from symattn.kernel.environment import seconds_problem

__all__ = ["usage_error"]


def usage_error(command: str, args) -> int | None:
    """2 (after a one-line message naming the option and the value) when ``--jobs`` is not a positive
    integer or ``--time-limit`` is not a valid number of seconds, else ``None``; checked before any work."""
    jobs = getattr(args, "jobs", None)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        print(f"symattn {command}: --jobs must be a positive integer, got {jobs}", file=sys.stderr)
        return 2
    seconds = getattr(args, "time_limit", None)
    problem = None if seconds is None else seconds_problem(seconds)
    if problem is not None:
        print(f"symattn {command}: --time-limit {problem}, got {seconds}", file=sys.stderr)
        return 2
    return None
