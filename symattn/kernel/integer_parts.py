"""SymPy's floor and ceiling of a closed number, checked exactly.

SymPy evaluates ``floor(x)`` and ``ceiling(x)`` of a number that is not rational (and ``frac``,
which uses them) by floating point, with a precision guessed from the magnitude: near an integer the
guess is too small, and the result is wrong. ``floor(5 cos(2^-17))`` is 5 in SymPy; the number is
``4.99999999985...``, its floor 4 (likewise ``floor(5 exp(-2^-40))``, ``ceiling(5 exp(2^-40))``). The
kernel substitutes sizes into statements and SymPy evaluates the floors there, so a wrong integer
would prove a false instance or refute a true one.

:func:`install` (run by :mod:`symattn.kernel.sympy_fixes`, so when a public name of :mod:`symattn` is
first imported) wraps the one function SymPy's
``RoundFunction.eval`` asks, ``get_integer_part``: its answer ``k`` is accepted only when the
kernel's exact sign test (:func:`symattn.kernel.exact.sign`: ball arithmetic that excludes 0, or a
minimal polynomial) shows ``k <= x < k + 1`` (floor; ``k - 1 < x <= k`` for ceiling), for the real
and the imaginary part; otherwise the neighbouring integer SymPy missed is tried, and when neither is
shown, SymPy is told the precision is exhausted and leaves ``floor(x)`` unevaluated (never a guess).

>>> import sympy as sp
>>> install()
>>> sp.floor(5 * sp.cos(sp.Rational(1, 2**17)))
4
>>> sp.ceiling(5 * sp.exp(sp.Rational(1, 2**40)))
6
>>> sp.floor(sp.sqrt(2))
1
"""

from __future__ import annotations

import threading
from typing import Any

import sympy as sp
from sympy.core.evalf import PrecisionExhausted
from sympy.functions.elementary import integers as _integers

__all__ = ["install", "checked_integer_part"]

_ORIGINAL = getattr(_integers.get_integer_part, "__wrapped__", _integers.get_integer_part)


def _shown(x: Any, k: int, no: int) -> bool:
    """Whether ``k`` is shown, exactly, to be the floor (``no = -1``) or ceiling (``no = 1``) of ``x``."""
    from symattn.kernel import exact

    if no < 0:  # k <= x < k + 1
        low, high = exact.sign(x - k), exact.sign(x - (k + 1))
        return low in (0, 1) and high == -1
    low, high = exact.sign(x - (k - 1)), exact.sign(x - k)  # k - 1 < x <= k
    return low == 1 and high in (-1, 0)


def _part(x: Any, k: int, no: int) -> int:
    for candidate in (k, k - 1, k + 1):
        if _shown(x, candidate, no):
            return candidate
    raise PrecisionExhausted(f"the integer part of {sp.sstr(x)[:80]} is not shown exactly")


def checked_integer_part(expr, no, options, return_ints=False):
    """SymPy's ``get_integer_part``, its integers checked exactly (the module docstring)."""
    result = _ORIGINAL(expr, no, options, return_ints=return_ints)
    if not return_ints:
        return result  # evalf's own path (floating point by request): not a decision
    if threading.current_thread() is not threading.main_thread():
        raise PrecisionExhausted("the integer part is checked exactly only on the main thread")
    r, i = result
    try:
        re_part, im_part = sp.re(expr), sp.im(expr)
        r = _part(re_part, int(r), no)
        i = 0 if im_part == 0 else _part(im_part, int(i), no)
    except PrecisionExhausted:
        raise
    except Exception as exc:  # noqa: BLE001 -- not shown: SymPy leaves the floor unevaluated
        raise PrecisionExhausted(f"the integer part is not shown exactly ({type(exc).__name__})") from exc
    return r, i


checked_integer_part.__wrapped__ = _ORIGINAL


def install() -> None:
    """Put :func:`checked_integer_part` where SymPy's floor and ceiling look it up (idempotent)."""
    _integers.get_integer_part = checked_integer_part
