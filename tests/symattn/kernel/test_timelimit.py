import threading
import time

import pytest
import sympy as sp

from symattn.kernel.timelimit import TimeLimitExceeded, TimeLimitUnavailable, time_limit


def test_limit_interrupts_a_slow_sympy_call():
    x = sp.Symbol("x")
    t0 = time.perf_counter()
    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.3):
            sp.factor(sp.expand((x + 1) ** 400 * (x - 3) ** 400 + 1))
    assert time.perf_counter() - t0 < 5


def test_inner_limit_never_extends_the_outer_one():
    t0 = time.perf_counter()
    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.2):
            with time_limit(10):
                time.sleep(3)
    assert time.perf_counter() - t0 < 2


def test_outer_limit_still_applies_after_an_inner_block():
    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.3):
            with time_limit(5):
                pass
            time.sleep(3)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), -float("inf"), 1e300, 86400.5, True, "abc"])
def test_limits_not_finite_positive_and_at_most_a_day_are_rejected(bad):
    with pytest.raises(ValueError, match="positive number of seconds at most 86400"):
        with time_limit(bad):
            pass


def test_off_main_thread_refuses_rather_than_running_unbounded():
    errors = []

    def body():
        try:
            with time_limit(1):
                pass
        except TimeLimitUnavailable as exc:
            errors.append(exc)

    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert errors


def test_except_exception_inside_sympy_cannot_swallow_the_limit():
    t0 = time.perf_counter()
    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.2):
            while True:
                try:
                    time.sleep(0.01)
                except Exception:  # what SymPy's internals do in places
                    pass
    assert time.perf_counter() - t0 < 3


def test_the_alarm_fires_again_if_something_swallows_it_entirely():
    swallowed = 0
    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.1):
            while True:
                try:
                    time.sleep(0.01)
                except BaseException:
                    swallowed += 1
                    if swallowed >= 3:
                        raise
    assert swallowed == 3


def test_no_stale_alarm_after_a_block_ends():
    for _ in range(50):
        with time_limit(0.001 + 1e-4):
            pass
    time.sleep(0.05)  # an alarm delivered now would raise here
    with time_limit(1):
        time.sleep(0.05)


class _Cycle:
    """Garbage that only the cyclic collector frees, with a slow weakref callback."""

    def __init__(self):
        self.me = self


@pytest.mark.parametrize("where", ["gc_callback", "weakref_callback"])
def test_an_alarm_during_garbage_collection_waits_until_the_collection_ends(monkeypatch, where):
    """Python swallows exceptions raised in gc callbacks (Hypothesis installs one) and in the
    weakref callbacks of collected objects; the limit must neither be lost there nor reported
    as an 'unraisable' exception."""
    import gc
    import sys
    import weakref

    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    ran = []

    def busy(*_):
        ran.append(True)
        end = time.monotonic() + 0.15
        while time.monotonic() < end:  # the deadline passes in here
            pass

    def slow_gc_callback(phase, info):
        if phase == "start":
            busy()

    keep = []
    if where == "gc_callback":
        gc.callbacks.append(slow_gc_callback)
    try:
        with pytest.raises(TimeLimitExceeded):
            with time_limit(0.05):
                if where == "weakref_callback":
                    obj = _Cycle()
                    keep.append(weakref.ref(obj, busy))
                    del obj
                gc.collect()
                while True:  # the limit fires after the collection, here
                    time.sleep(0.001)
    finally:
        if where == "gc_callback":
            gc.callbacks.remove(slow_gc_callback)
    assert ran and not unraisable


@pytest.mark.parametrize("value, ok", [(8, True), (0.5, True), ("2.5", True), (86400, True), (0, False), (-1, False),
                                       (float("nan"), False), (float("inf"), False), ("1e300", False), ("abc", False),
                                       (None, False), (True, False), (1 + 2j, False)])
def test_one_validator_of_seconds(value, ok):
    from symattn.kernel.environment import check_seconds, seconds_problem

    assert (seconds_problem(value) is None) is ok
    if ok:
        assert check_seconds(value) == float(value)
    else:
        with pytest.raises(ValueError, match=r"^the limit must be a positive number .*, got "):
            check_seconds(value, "the limit")
