"""The second engine: every fact the kernel accepts, re-checked by code that shares nothing with
SymPy's simplifier.

* :mod:`.atoms` turns a SymPy expression into a rational function over Q of opaque *atoms*
  (every subterm that is not rational arithmetic: sums, indexed entries, ``exp``, ``log``, roots,
  function applications, ...), identical atoms sharing one variable. It reads SymPy trees as data
  only (``.args``, ``.func``, the declared assumptions of symbols), never simplifies.
* :mod:`.flint_zero` decides ``p/q == 0`` with python-flint's exact multivariate polynomials
  (``fmpq_mpoly``).
* :mod:`.z3_sign` decides sign, nonzero and integrality obligations with Z3 (nonlinear real and
  integer arithmetic), every atom carrying only the facts derived from its structure.
* :mod:`.derivatives` re-checks a derivative the kernel took with SymPy's ``diff`` by the second
  engine's own differentiation over the atoms, compared by flint.
* :mod:`.matrices` reads matrix expressions of symbolic shape as noncommutative polynomials;
  :mod:`.ranks` re-checks rank bounds of products from the factors' shapes; :mod:`.steps` re-checks
  a step's claim as a whole.

Each re-check gives a :class:`Check`: ``agree`` (the second engine shows the same fact),
``disagree`` (it shows the fact false: the kernel refuses it), or ``inexpressible`` (it cannot
express or decide the fact: the fact stands on the kernel alone, "checked by one engine").
A Z3 ``unknown`` (timeout) is ``inexpressible``, never agreement.

The kernel records every check made while a step is checked in the list opened by
:func:`collecting` (the checker opens one per step). A memoised decision of the kernel
(:func:`recorded_cache`) keeps the checks made while it was computed and records them again whenever
its value is reused, so what a step records never depends on what was decided earlier in the process.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass

from symattn.kernel.environment import environment_value

__all__ = ["AGREE", "Check", "DISAGREE", "INEXPRESSIBLE", "collecting", "disabled", "enabled", "record",
           "recorded_cache", "step_rechecked", "theorem_rechecked"]

AGREE, DISAGREE, INEXPRESSIBLE = "agree", "disagree", "inexpressible"


@dataclass(frozen=True)
class Check:
    """One re-check: which engine, its verdict, a one-line reason, the fact and the kernel's answer."""

    engine: str  # 'flint' | 'z3'
    verdict: str  # AGREE | DISAGREE | INEXPRESSIBLE
    reason: str
    fact: str = ""  # what was checked, e.g. "x**2 + 1 > 0"
    kernel: str = ""  # the kernel's (SymPy's) answer, e.g. "SymPy reduces lhs - rhs to 0"
    #: 'zero' (a zero test), 'sign' (sign, nonzero, integrality), 'step' (the step's claim as a whole)
    kind: str = ""

    @property
    def status(self) -> str:
        """The verdict, under the name :mod:`symattn.kernel.ledger` reads."""
        return self.verdict

    def as_json(self) -> dict:
        return {"engine": self.engine, "verdict": self.verdict, "fact": self.fact, "reason": self.reason}

    def both_answers(self) -> str:
        return f"the engines disagree on {self.fact}: kernel: {self.kernel}; {self.engine}: {self.reason}"


_LEDGER: contextvars.ContextVar = contextvars.ContextVar("symattn_second_engine_ledger", default=None)
#: ``SYMATTN_SECOND_ENGINE=0`` runs the kernel alone (to measure what the second engine costs)
_ENABLED: contextvars.ContextVar = contextvars.ContextVar(
    "symattn_second_engine_enabled", default=os.environ.get("SYMATTN_SECOND_ENGINE", "1") != "0")


def enabled() -> bool:
    return _ENABLED.get()


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """The kernel alone (for measuring the second engine's cost, and inside the engine itself)."""
    token = _ENABLED.set(False)
    try:
        yield
    finally:
        _ENABLED.reset(token)


#: the second engine's own limit per fact (seconds); its time does not count against the kernel's
#: step limit (the step's limit is paused meanwhile), so re-checking never makes a step undecided
SECONDS = environment_value("SYMATTN_SECOND_ENGINE_SECONDS", 10.0)


def bounded(engine: str, fact: str, thunk) -> Check:
    """``thunk()`` (a :class:`Check`) with the kernel's limits paused and the engine's own limit;
    running out of it is ``inexpressible``, never agreement."""
    from symattn.kernel.timelimit import TimeLimitExceeded, TimeLimitUnavailable, paused_time_limits, time_limit

    with paused_time_limits():
        try:
            with time_limit(SECONDS):
                return thunk()
        except TimeLimitExceeded:
            return Check(engine, INEXPRESSIBLE, f"the second engine ran past its own limit of {SECONDS:g} s", fact)
        except TimeLimitUnavailable:  # off the main thread: Z3's own timeout still bounds each call
            return thunk()


#: the lists of the memoised decisions being computed (innermost last): a check recorded meanwhile
#: goes to the innermost only, which records it again when it returns (:func:`recorded_cache`)
_CAPTURE: contextvars.ContextVar = contextvars.ContextVar("symattn_second_engine_capture", default=None)


def record(check: Check, kind: str = "") -> Check:
    """Add ``check`` (as a fact of ``kind``) to the list of the step being checked, if one is open."""
    if kind and check.kind != kind:
        check = dataclasses.replace(check, kind=kind)
    capture = _CAPTURE.get()
    if capture is not None:  # inside a memoised decision: kept with its value, recorded on its return
        capture.append(check)
        return check
    ledger = _LEDGER.get()
    if ledger is not None:  # inside a step: also onto the kernel's ledger (the step's RuleResult.checks)
        ledger.append(check)
        from symattn.kernel import ledger as kernel_ledger

        kernel_ledger.record(check)
    return check


def recorded_cache(maxsize: int):
    """``functools.lru_cache(maxsize)`` for a decision of the kernel that may record checks: the checks
    made while a value is computed are kept with it and recorded (in order) every time the value is
    returned, the first time included. Without this a step that reused a decision made earlier (by
    another step, theorem or test) would record none of its facts and be shown checked by one engine
    only: the re-check status of a step would depend on the history of the process. A computation that
    raises records what it recorded before raising."""

    def decorate(fn):
        @functools.lru_cache(maxsize=maxsize)
        def cached(*args):
            captured: list = []
            token = _CAPTURE.set(captured)
            try:
                value = fn(*args)
            except BaseException:
                _CAPTURE.reset(token)
                for c in captured:
                    record(c)
                raise
            _CAPTURE.reset(token)
            return value, tuple(captured)

        @functools.wraps(fn)
        def wrapper(*args):
            value, checks = cached(*args)
            for c in checks:
                record(c)
            return value

        wrapper.cache_clear = cached.cache_clear
        wrapper.cache_info = cached.cache_info
        return wrapper

    return decorate


@contextlib.contextmanager
def collecting() -> Iterator[list]:
    """A fresh list receiving every :class:`Check` made inside the block."""
    ledger: list = []
    token = _LEDGER.set(ledger)
    try:
        yield ledger
    finally:
        _LEDGER.reset(token)


def step_rechecked(checks: list) -> tuple[str, str]:
    """``('both' | 'one-engine', why)`` for a step whose facts were re-checked by ``checks``.

    Both engines when every fact the kernel accepted was agreed, or when the second engine agreed
    with the step's claim as a whole (a ``'step'`` check) -- which stands for the zero tests made on
    the way, not for the sign, nonzero and integrality facts (definedness, ranges), each of which
    must still be agreed."""
    facts = [c for c in checks if c.kind != "step"]
    whole = [c for c in checks if c.kind == "step" and c.verdict == AGREE]
    bad = [c for c in facts if c.verdict != AGREE and not (whole and c.kind == "zero")]
    if not facts and not whole:
        tried = [c for c in checks if c.kind == "step"]
        why = f"; the step as a whole: {tried[0].engine}: {tried[0].reason}" if tried else ""
        return "one-engine", "no fact of the step went through the kernel's zero or sign test" + why
    if not bad:
        agreed = [c for c in facts if c.verdict == AGREE]
        engines = ", ".join(sorted({c.engine for c in agreed + whole}))
        return "both", (f"{len(agreed)} of {len(facts)} facts re-checked ({engines})"
                        + ("; the step's claim re-checked as a whole" if whole else ""))
    return "one-engine", f"{len(bad)} of {len(facts)} facts not re-checked: {bad[0].engine}: {bad[0].reason}"


def theorem_rechecked(per_step: list[str]) -> str:
    """``'all'``, ``'partial'`` or ``'none'`` from the steps' ``'both' | 'one-engine'``."""
    if not per_step:
        return "none"
    both = sum(1 for s in per_step if s == "both")
    return "all" if both == len(per_step) else ("none" if both == 0 else "partial")
