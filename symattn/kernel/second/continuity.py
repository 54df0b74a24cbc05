"""The second engine's re-check of a continuity fact the kernel read head by head.

The kernel (:func:`symattn.kernel.calculus.check_continuous`) reads ``f`` continuous in ``v`` at the
point ``z0`` from its table of heads and side conditions shown by its sign test. This module reads the
same fact from a table of its own, written separately, with every side condition decided by Z3
(:mod:`.z3_sign`) at the point, never by the kernel's sign test or SymPy's assumptions on compound
terms:

* continuous in every argument, everywhere: ``+``, ``*``, ``exp``, ``sin``, ``cos``, ``sinh``,
  ``cosh``, ``erf``, ``|.|`` (entire functions and the modulus), a power with an exponent free of
  ``v`` that Z3 shows a nonnegative integer (a literal, or an index of its range), a finite sum
  whose bounds are free of ``v`` (its body read over the summation range);
* continuous for a real argument: ``atan``, ``asinh``, ``tanh``, ``sech``, ``max``, ``min`` -- the
  argument is real when every symbol in it is declared real and every head on the way is one that
  keeps real values real (a logarithm or a non-integer power only of a base Z3 shows positive);
* with a condition at the point: ``b**(-k)`` (``k`` an integer not shown ``>= 0``) needs ``b != 0``;
  ``b**e`` for any other exponent needs ``b > 0``; ``log g`` needs ``g > 0``; ``coth``, ``csch`` need a
  real nonzero argument;
* anything else (``tan``, ``sec``, ``Piecewise``, ``floor``, abstract maps, ...): not expressible
  here -- the fact stays checked by one engine.

A constant (a subterm free of ``v``) is continuous. The verdict is ``agree`` when every head on every
path to ``v`` is in the table and every condition is shown by Z3; otherwise ``inexpressible`` (this
reading never shows a function discontinuous, so it never disagrees).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.second import AGREE, INEXPRESSIBLE, Check
from symattn.kernel.second.z3_sign import recheck_sign

__all__ = ["recheck_continuous"]

_ENGINE = "z3"
_KERNEL = "the kernel's head-by-head continuity reading"

_EVERYWHERE = (sp.Add, sp.Mul, sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.erf, sp.Abs)
_ON_REALS = (sp.atan, sp.asinh, sp.tanh, sp.sech, sp.Max, sp.Min)
_NONZERO_REAL = (sp.coth, sp.csch)
#: heads whose value is real for real arguments (for the realness reading)
_REAL_KEEPING = _EVERYWHERE + _ON_REALS + _NONZERO_REAL


class _NotShown(Exception):
    pass


def _short(x: Any, limit: int = 160) -> str:
    s = " ".join(sp.sstr(x).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _depends(e: Any, v: Any) -> bool:
    return isinstance(e, sp.Basic) and v in e.free_symbols


class _Reading:
    def __init__(self, v: Any, at: Any):
        self.v, self.at = v, at
        self.conditions = 0

    def _holds(self, e: Any, relation: str, ranges: tuple) -> None:
        point = e.xreplace({self.v: self.at})
        check = recheck_sign(point, relation, ranges=ranges)
        if check.verdict != AGREE:
            raise _NotShown(f"{_short(point, 80)} {relation} at the point: {check.reason}")
        self.conditions += 1

    def _integer(self, x: Any, ranges: tuple) -> bool:
        """``x`` free of the variable and an integer (a declared-integer symbol, or an index of the ranges),
        as Z3 shows it."""
        if _depends(x, self.v) or not isinstance(x, sp.Expr):
            return False
        from symattn.kernel.second.integers import recheck_integer

        integers = tuple(r[0] for r in ranges)
        return recheck_integer(x, integers=integers, ranges=ranges).verdict == AGREE

    def _natural(self, x: Any, ranges: tuple) -> bool:
        """``x`` an integer shown ``>= 0`` (``b**x`` is then a polynomial in ``b``)."""
        return self._integer(x, ranges) and recheck_sign(x, "nonnegative", ranges=ranges).verdict == AGREE

    def real(self, e: Any, ranges: tuple) -> bool:
        """Whether ``e`` is real wherever it is defined near the point, read from the declared
        assumptions of its symbols and the heads on the way."""
        if isinstance(e, (sp.Integer, sp.Rational)) or e in (sp.pi, sp.E):
            return True
        if isinstance(e, sp.Symbol):
            return bool(e.assumptions0.get("real")) or bool(e.assumptions0.get("integer"))
        if isinstance(e, sp.Indexed):
            return bool(e.base.label.assumptions0.get("real")) and all(self.real(i, ranges) for i in e.indices)
        if isinstance(e, sp.Pow):
            b, x = e.args
            if isinstance(x, sp.Integer):
                return self.real(b, ranges)
            return self.real(b, ranges) and self.real(x, ranges) and \
                recheck_sign(b.xreplace({self.v: self.at}), "positive", ranges=ranges).verdict == AGREE
        if isinstance(e, sp.log):
            return self.real(e.args[0], ranges) and \
                recheck_sign(e.args[0].xreplace({self.v: self.at}), "positive", ranges=ranges).verdict == AGREE
        if isinstance(e, _REAL_KEEPING):
            return all(self.real(a, ranges) for a in e.args)
        if isinstance(e, sp.Sum) and all(len(lim) == 3 for lim in e.limits):
            return self.real(e.function, ranges + tuple(tuple(lim) for lim in e.limits))
        return False

    def continuous(self, e: Any, ranges: tuple) -> None:
        v = self.v
        if not _depends(e, v) or e == v:
            return
        if isinstance(e, sp.Sum):
            for lim in e.limits:
                if len(lim) != 3 or any(_depends(b, v) or b.has(sp.oo, -sp.oo, sp.zoo) for b in lim[1:]):
                    raise _NotShown(f"{_short(e, 80)}: not a finite sum with bounds free of {v}")
            self.continuous(e.function, ranges + tuple(tuple(lim) for lim in e.limits))
            return
        if isinstance(e, sp.Pow):
            b, x = e.args
            if (isinstance(x, sp.Integer) and x >= 0) or self._natural(x, ranges):
                self.continuous(b, ranges)
                return
            if isinstance(x, sp.Integer) or self._integer(x, ranges):
                self._holds(b, "nonzero", ranges)
            else:
                self._holds(b, "positive", ranges)
                self.continuous(x, ranges)
            self.continuous(b, ranges)
            return
        if isinstance(e, sp.log):
            self._holds(e.args[0], "positive", ranges)
            self.continuous(e.args[0], ranges)
            return
        if type(e) in _EVERYWHERE:
            for a in e.args:
                self.continuous(a, ranges)
            return
        if type(e) in _ON_REALS + _NONZERO_REAL:
            for a in e.args:
                if not self.real(a, ranges):
                    raise _NotShown(f"{_short(e, 80)}: its argument is not read as real")
                if type(e) in _NONZERO_REAL:
                    self._holds(a, "nonzero", ranges)
                self.continuous(a, ranges)
            return
        raise _NotShown(f"{type(e).__name__} is not in the second engine's table of continuous heads")


def recheck_continuous(e: Any, v: Any, at: Any, ranges: tuple = ()) -> Check:
    """Re-check the kernel's "``e`` is continuous in ``v`` at ``at``" (``ranges``: ``(k, lo, hi)`` of the
    indices in scope)."""
    fact = f"{_short(e)} continuous in {_short(v, 40)} at {_short(at, 40)}"
    if not isinstance(v, sp.Symbol):
        return Check(_ENGINE, INEXPRESSIBLE, f"continuity in a {type(v).__name__}, not a symbol", fact, _KERNEL)
    if not isinstance(e, sp.Expr) or not isinstance(at, sp.Expr) or at.has(sp.oo, -sp.oo, sp.zoo):
        return Check(_ENGINE, INEXPRESSIBLE, "not a scalar expression at a finite point", fact, _KERNEL)
    reading = _Reading(v, at)
    try:
        reading.continuous(e, tuple(ranges))
    except _NotShown as exc:
        return Check(_ENGINE, INEXPRESSIBLE, f"not shown by the second engine's own table: {exc}", fact, _KERNEL)
    except RecursionError:
        return Check(_ENGINE, INEXPRESSIBLE, "expression too deep", fact, _KERNEL)
    return Check(_ENGINE, AGREE, f"every head on the way to {v} is in the second engine's own table of continuous "
                 f"heads, {reading.conditions} condition(s) at the point shown by Z3", fact, _KERNEL)
