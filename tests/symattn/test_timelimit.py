import threading
import time

import pytest
import sympy as sp

from symattn.timelimit import TimeLimitExceeded, TimeLimitUnavailable, time_limit


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


@pytest.mark.parametrize("bad", [0, -1])
def test_non_positive_limits_are_rejected(bad):
    with pytest.raises(ValueError, match="positive"):
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
