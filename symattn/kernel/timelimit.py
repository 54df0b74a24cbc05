"""Time limits for SymPy calls.

Every potentially slow SymPy call made on behalf of a rule runs inside :func:`time_limit`.
Exceeding the limit raises :class:`TimeLimitExceeded`, which the kernel turns into the verdict
``undecided`` -- never a hang.

The limit uses ``SIGALRM`` (POSIX, main thread). Limits nest: an inner limit never extends an
outer one. Off the main thread, where the signal cannot be delivered, :func:`time_limit` raises
:class:`TimeLimitUnavailable`, so that no unbounded SymPy call is ever made silently.

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
import gc
import signal
import threading
import time
from collections.abc import Iterator

# the one validation (a leaf module); its names are also this module's, which the deprecated path
# ``symattn.timelimit`` (time limits and validation in one module) now names
from symattn.kernel.environment import (
    ENVIRONMENT,
    MAX_SECONDS,
    check_environment,
    check_seconds,
    default_seconds,
    environment_errors,
    environment_value,
    seconds_problem,
)

__all__ = ["time_limit", "paused_time_limits", "TimeLimitExceeded", "TimeLimitUnavailable", "DEFAULT_SECONDS",
           "ENVIRONMENT", "MAX_SECONDS", "check_environment", "check_seconds", "default_seconds",
           "environment_errors", "environment_value", "seconds_problem"]

#: Default limit for one rule check, configurable with ``SYMATTN_TIME_LIMIT`` (seconds).
DEFAULT_SECONDS = default_seconds()


class TimeLimitExceeded(BaseException):
    """A SymPy call ran past its time limit.

    A :class:`BaseException`, like :class:`KeyboardInterrupt`, so that the ``except Exception``
    clauses inside SymPy cannot swallow it and carry on computing past the limit.
    """


class TimeLimitUnavailable(RuntimeError):
    """No way to bound the call's time (not on the main thread)."""


_deadlines: list[float] = []  # stack of absolute deadlines (monotonic clock)
_limits: list[float] = []  # the limit in seconds that each deadline enforces, for messages

# While a limit is exceeded the alarm keeps firing at this interval, in case something caught
# the first exception (a bare ``except:``) and went on.
_REFIRE_SECONDS = 0.05


_collecting = False  # a garbage collection is running (set by the gc callback below)


def _track_collection(phase, info) -> None:
    global _collecting
    _collecting = phase == "start"


gc.callbacks.insert(0, _track_collection)


def _swallowing_context(frame) -> bool:
    """Whether an exception raised now would be swallowed and reported as 'unraisable': during a
    garbage collection (weakref callbacks and finalizers of collected objects run there) or inside
    another gc callback (such as the one Hypothesis installs to time collections). The alarm then
    waits for its next refire instead."""
    if _collecting:
        return True
    codes = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    codes.discard(None)
    depth = 0
    while codes and frame is not None and depth < 64:
        if frame.f_code in codes:
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def _handler(signum, frame):  # pragma: no cover - exercised through time_limit
    # A stale alarm (delivered after its block ended) is ignored: raise only if the innermost
    # active deadline has really passed.
    if _deadlines and time.monotonic() >= _deadlines[-1] - 1e-3 and not _swallowing_context(frame):
        raise TimeLimitExceeded(f"time limit of {_limits[-1]:g} s exceeded")


def _arm(deadline: float) -> None:
    signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 1e-4), _REFIRE_SECONDS)


@contextlib.contextmanager
def time_limit(seconds: float | None = None) -> Iterator[None]:
    """Run the body with a wall-clock limit of ``seconds`` (default :data:`DEFAULT_SECONDS`)."""
    seconds = DEFAULT_SECONDS if seconds is None else check_seconds(seconds)
    if threading.current_thread() is not threading.main_thread():
        raise TimeLimitUnavailable("SymPy checks must run on the main thread so that they can be time-limited")
    now = time.monotonic()
    deadline, limit = now + seconds, seconds
    if _deadlines and _deadlines[-1] < deadline:  # an inner limit never extends the outer one
        deadline, limit = _deadlines[-1], _limits[-1]
    previous_handler = signal.signal(signal.SIGALRM, _handler)
    _deadlines.append(deadline)
    _limits.append(limit)
    try:
        _arm(deadline)
        yield
    finally:
        # No alarm may interrupt the bookkeeping below (it would leave a stale deadline behind).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
            _deadlines.pop()
            _limits.pop()
            signal.signal(signal.SIGALRM, previous_handler)
            if _deadlines:  # re-arm the outer limit with what is left of it (it fires at once if passed)
                _arm(_deadlines[-1])
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})


@contextlib.contextmanager
def paused_time_limits() -> Iterator[None]:
    """Run the body with every active limit paused: the body's time does not count against them
    (limits the body sets itself apply as usual). Afterwards each active deadline moves on by the
    time the body took. For work done on behalf of a limited call that has limits of its own, such
    as checking a lemma that a proof step applies."""
    if not _deadlines or threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        signal.setitimer(signal.ITIMER_REAL, 0)
        saved_deadlines, saved_limits = list(_deadlines), list(_limits)
        _deadlines.clear()
        _limits.clear()
        start = time.monotonic()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
            shift = time.monotonic() - start
            _deadlines[:] = [t + shift for t in saved_deadlines]
            _limits[:] = saved_limits
            signal.signal(signal.SIGALRM, _handler)
            _arm(_deadlines[-1])
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
