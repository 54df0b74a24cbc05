"""Time limits for SymPy calls.

Every potentially slow SymPy call made on behalf of a rule runs inside :func:`time_limit`.
Exceeding the limit raises :class:`TimeLimitExceeded`, which the kernel turns into the verdict
``undecided`` -- never a hang.

The limit uses ``SIGALRM`` (POSIX, main thread). Limits nest: an inner limit never extends an
outer one. Off the main thread, where signals cannot be delivered, the call runs in the main
thread's budget only if one is active; otherwise it raises :class:`TimeLimitUnavailable` so
that no unbounded SymPy call is ever made silently.

>>> with time_limit(1.0):
...     x = 1 + 1
>>> import time
>>> try:
...     with time_limit(0.05):
...         time.sleep(1)
... except TimeLimitExceeded as exc:
...     print("stopped:", exc)
stopped: time limit of 0.05 s exceeded
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from typing import Callable, Iterator, TypeVar

__all__ = ["time_limit", "TimeLimitExceeded", "TimeLimitUnavailable", "DEFAULT_SECONDS", "limited"]

T = TypeVar("T")

#: Default limit for one rule check, configurable with ``SYMATTN_TIME_LIMIT`` (seconds).
DEFAULT_SECONDS = float(os.environ.get("SYMATTN_TIME_LIMIT", "8"))


class TimeLimitExceeded(Exception):
    """A SymPy call ran past its time limit."""


class TimeLimitUnavailable(RuntimeError):
    """No way to bound the call's time (not on the main thread)."""


_deadlines: list[float] = []  # stack of absolute deadlines (monotonic clock)


def _handler(signum, frame):  # pragma: no cover - exercised through time_limit
    raise TimeLimitExceeded(f"time limit of {_current_limit[0]:g} s exceeded")


_current_limit = [0.0]


@contextlib.contextmanager
def time_limit(seconds: float | None = None) -> Iterator[None]:
    """Run the body with a wall-clock limit of ``seconds`` (default :data:`DEFAULT_SECONDS`)."""
    seconds = DEFAULT_SECONDS if seconds is None else float(seconds)
    if seconds <= 0:
        raise ValueError(f"time limit must be positive, got {seconds}")
    if threading.current_thread() is not threading.main_thread():
        raise TimeLimitUnavailable("SymPy checks must run on the main thread so that they can be time-limited")
    now = time.monotonic()
    deadline = now + seconds
    outer = _deadlines[-1] if _deadlines else None
    if outer is not None and outer < deadline:
        deadline = outer  # an inner limit never extends the outer one
    previous_handler = signal.signal(signal.SIGALRM, _handler)
    _deadlines.append(deadline)
    saved_limit = _current_limit[0]
    _current_limit[0] = seconds if outer is None or outer >= now + seconds else saved_limit
    try:
        signal.setitimer(signal.ITIMER_REAL, max(deadline - now, 1e-4))
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _deadlines.pop()
        _current_limit[0] = saved_limit
        signal.signal(signal.SIGALRM, previous_handler)
        if _deadlines:  # re-arm the outer limit with what is left of it
            remaining = _deadlines[-1] - time.monotonic()
            if remaining <= 0:
                raise TimeLimitExceeded(f"time limit of {saved_limit:g} s exceeded")
            signal.setitimer(signal.ITIMER_REAL, remaining)


def limited(fn: Callable[[], T], seconds: float | None = None) -> T:
    """Call ``fn()`` under :func:`time_limit`."""
    with time_limit(seconds):
        return fn()
