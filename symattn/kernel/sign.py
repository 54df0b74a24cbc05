"""The sign test: ``sign_of(expr)`` is ``'positive'``, ``'nonnegative'`` or ``None``.

What is trusted: SymPy's assumption system (``is_positive``/``is_nonnegative`` on the canonical
form of ``expr`` and on its ``expand``/``factor``), which reads signs from the symbols' declared
assumptions and the structure of the expression; no numeric evaluation.

Bound variables know only their range (the term layer's :func:`~symattn.kernel.terms.canonical`):
an index declared ``positive`` but summed from 0 lends nothing. SymPy does not decide the sign of a
``Sum``; the kernel does, before asking SymPy about the rest: a finite sum whose range is provably
not reversed (``hi >= lo - 1``) is nonnegative when its summand is, and positive when its summand is
positive and the range is provably nonempty (``hi >= lo``). Each such sum is replaced by a fresh
symbol carrying exactly that fact. A sum with an infinite limit gets no sign.

>>> import sympy as sp
>>> j = sp.Symbol("j", integer=True, positive=True)
>>> n = sp.Symbol("n", integer=True, positive=True)
>>> sign_of(sp.Sum(j, (j, 1, n))), sign_of(sp.Sum(j - 1, (j, 0, n)))
('positive', None)
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.terms import canonical

__all__ = ["nonzero", "provably_le", "range_nonempty", "range_not_reversed", "sign_of"]


def _sympy_sign(e: Any) -> str | None:
    for f in (lambda x: x, sp.expand, sp.factor):
        try:
            x = f(e)
        except (sp.PolynomialError, NotImplementedError, ValueError, TypeError):
            continue
        if x.is_positive:
            return "positive"
        if x.is_nonnegative:
            return "nonnegative"
    return None


def _sum_sign(s: sp.Sum) -> str | None:
    body = s.function
    limits = list(s.limits)
    for (_v, lo, hi) in limits:
        if any(b.is_infinite or b.has(sp.oo, -sp.oo, sp.zoo) for b in (lo, hi)):
            return None
    inner = _sign(body)
    if inner is None:
        return None
    gaps = [sp.expand(hi - lo) for (_v, lo, hi) in limits]
    if inner == "positive" and all(_sympy_sign(g) in ("positive", "nonnegative") or g == 0 for g in gaps):
        return "positive"
    if all(g + 1 == 0 or _sympy_sign(g + 1) in ("positive", "nonnegative") for g in gaps):
        return "nonnegative"
    return None


def _atomize(expr: Any) -> Any:
    """Replace every Sum by a fresh symbol carrying the sign the kernel can show for it."""

    def atom(s: sp.Sum):
        sign = _sum_sign(s)
        if sign == "positive":
            return sp.Dummy("S", positive=True)
        if sign == "nonnegative":
            return sp.Dummy("S", nonnegative=True)
        return sp.Dummy("S")

    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr
    # outermost sums first (their summands are handled inside _sum_sign)
    return _replace_outer(expr, sp.Sum, atom)


def _replace_outer(expr: Any, kind: type, fn) -> Any:
    if isinstance(expr, kind):
        return fn(expr)
    if not isinstance(expr, sp.Basic) or not expr.args or not expr.has(kind):
        return expr
    return expr.func(*[_replace_outer(a, kind, fn) for a in expr.args])


def _sign(expr: Any) -> str | None:
    expr = _atomize(expr)
    return _sympy_sign(expr)


def sign_of(expr: Any) -> str | None:
    """'positive', 'nonnegative' or None (see the module docstring)."""
    expr = canonical(sp.sympify(expr, strict=True))
    return _sign(expr)


def nonzero(expr: Any) -> bool:
    """Whether ``expr != 0`` follows from the symbols' assumptions (and the kernel's sum signs)."""
    expr = canonical(sp.sympify(expr, strict=True))
    if expr.is_zero is False:
        return True
    return _sign(expr) == "positive" or _sign(-expr) == "positive"


def provably_le(a: Any, b: Any) -> bool:
    """``a <= b`` from the assumptions."""
    d = sp.expand(b - a)
    return d == 0 or sign_of(d) in ("positive", "nonnegative")


def range_nonempty(lo: Any, hi: Any) -> bool:
    return provably_le(lo, hi)


def range_not_reversed(lo: Any, hi: Any) -> bool:
    return provably_le(lo - 1, hi)
