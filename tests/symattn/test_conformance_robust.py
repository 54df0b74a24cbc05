"""Conformance against functions that misbehave as callables: a call that never returns (the
watchdog), a signature lacking the declared options (an early error)."""

import threading
import time

import pytest

import numeric
from symattn import conformance
from symattn.cli import main

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in matmul:RuntimeWarning")


# ------------------------------------------------------------------------------------ watchdog
def sleeps_forever(q, k, v, **opts):
    threading.Event().wait()  # never set: never returns


def hangs_on_long_keys(q, k, v, **opts):
    """Correct, except that it never returns once n_k > 4 (a kernel stuck in a loop)."""
    if k.shape[-2] > 4:
        threading.Event().wait()
    return numeric.attention(q, k, v, **opts)


def slow_but_returns(q, k, v, **opts):
    time.sleep(0.01)
    return numeric.attention(q, k, v, **opts)


@pytest.mark.parametrize("fn", [sleeps_forever, hangs_on_long_keys])
def test_a_call_that_never_returns_fails_the_check_instead_of_hanging_it(fn):
    t0 = time.monotonic()
    r = conformance.check(fn, examples=5, max_n=16, call_timeout=0.3)
    assert time.monotonic() - t0 < 30
    assert not r.passed
    failed = [p for p in r.properties if p.status == "fail"]
    assert len(failed) == 1 and "did not return within 0.3 s" in failed[0].detail
    assert failed[0].counterexample.startswith("shapes q ")
    later = r.properties[r.properties.index(failed[0]) + 1:]
    assert later and all(p.status == "skipped" and "timed out" in p.detail for p in later)
    assert [p.name for p in r.properties] == list(conformance.PROPERTIES)


def test_a_slow_function_within_the_limit_passes_and_no_limit_is_allowed():
    assert conformance.check(slow_but_returns, examples=2, max_n=8, call_timeout=5).passed
    assert conformance.check(numeric.attention, examples=2, max_n=8, call_timeout=None).passed


def test_cli_call_timeout_exits_1_with_the_reason(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parent))
    code = main(["conform", f"{__name__}:sleeps_forever", "--examples", "3", "--max-n", "8",
                 "--call-timeout", "0.3"])
    out = capsys.readouterr().out
    assert code == 1 and "did not return within 0.3 s" in out and "--call-timeout S" in out


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "5", True])
def test_a_bad_call_timeout_is_an_early_error(bad):
    with pytest.raises(ValueError, match="call_timeout must be a positive number"):
        conformance.check(numeric.attention, call_timeout=bad)
