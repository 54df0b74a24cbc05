"""The context a decision is made in: the hypotheses of the step (:data:`HYPOTHESES`), the definitions
the kernel unfolds (:data:`UNFOLDINGS`), the ranges of the binders enclosing a head being unfolded
(:data:`ENCLOSING`, set by :func:`scoped_replace`), and whether the index bounds are checked at all
(:func:`unchecked`, the second engine's re-checks only).

The state every test of the core reads, with the walk that sets it: below the zero test, the sign test,
the index bounds and the second engine, which all read it, so that none of them imports another for it.
The walk decides each binder's range with an order test it is given (the sign test's
:func:`~symattn.kernel.sign.provably_le`): the sign test itself unfolds a user's heads with this walk.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.terms import LAMBDA_RANGES, substitute

__all__ = ["ENCLOSING", "HYPOTHESES", "UNFOLDINGS", "index_ranges", "register_unfolding", "scoped_replace",
           "unchecked", "unfold_all"]

#: the hypotheses of the step being checked (a tuple), consulted when none are passed
HYPOTHESES: contextvars.ContextVar = contextvars.ContextVar("symattn_kernel_hypotheses", default=())


#: class -> its unfolding (registered by :func:`symattn.rules.definitions.define`): an opaque head
#: is defined exactly where its unfolding is
UNFOLDINGS: dict = {}


def register_unfolding(cls: type, expand) -> None:
    UNFOLDINGS[cls] = expand


#: ``(ranges, renaming)`` of the binders enclosing the head being unfolded: ``ranges`` lists
#: ``(w, lo, hi)`` for fresh symbols ``w``, ``renaming`` maps each bound variable to its ``w``
ENCLOSING: contextvars.ContextVar = contextvars.ContextVar("symattn_enclosing_ranges", default=((), {}))

#: set by the second engine only: it re-checks facts the kernel accepted (it can only refuse one),
#: so its unfoldings need not repeat the bound check
_SKIP: contextvars.ContextVar = contextvars.ContextVar("symattn_index_bounds_skip", default=False)


@contextlib.contextmanager
def unchecked():
    token = _SKIP.set(True)
    try:
        yield
    finally:
        _SKIP.reset(token)


def index_ranges(hypotheses) -> tuple:
    """``(v, lo, hi)`` for every ``IndexRange`` hypothesis on a symbol (for the sign test)."""
    from symattn.language.statement import IndexRange  # the hypothesis classes (data only)

    return tuple((h.index, h.lower, h.upper) for h in hypotheses or ()
                 if isinstance(h, IndexRange) and isinstance(h.index, sp.Symbol)
                 and isinstance(h.lower, (sp.Basic, int)) and isinstance(h.upper, (sp.Basic, int)))


def unfold_all(expr: Any, le) -> Any:
    """Every registered definition unfolded (repeatedly), for comparing conditions; ``le`` as for
    :func:`scoped_replace`."""
    if not UNFOLDINGS or not isinstance(expr, sp.Basic):
        return expr
    for _ in range(6):
        new = scoped_replace(expr, lambda e: isinstance(e, tuple(UNFOLDINGS)) and not isinstance(e, MatrixExpr),
                             _unfold_one, le)
        if new == expr:
            return expr
        expr = new
    return expr


def _unfold_one(e: Any) -> Any:
    for cls, fn in UNFOLDINGS.items():
        if isinstance(e, cls):
            try:
                return fn(e)
            except Exception:  # an unfolding that does not apply leaves the head
                return e
    return e


def _binder_range(v: Any, lo: Any, hi: Any, ranges: tuple, renaming: dict, le) -> tuple:
    """``(w, lo, hi)`` for the bound variable ``v`` of a sum over ``lo..hi`` (bounds renamed into the
    enclosing scope): Karr's convention when ``hi >= lo - 1`` is not shown."""
    lo, hi = (substitute(sp.sympify(b), renaming) if renaming else sp.sympify(b) for b in (lo, hi))
    integral = bool(getattr(lo, "is_integer", False) or getattr(hi, "is_integer", False))
    w = sp.Dummy(str(v), integer=True) if integral else sp.Dummy(str(v))
    if not le(lo - 1, hi, ranges):
        lo, hi = sp.Min(lo, hi + 1), sp.Max(hi, lo - 1)
    return w, lo, hi


def _shadow(v: Any, ranges: tuple, renaming: dict) -> tuple:
    w = sp.Dummy(str(v))
    return tuple(r for r in ranges if r[0] != v), {**renaming, v: w}


def scoped_replace(expr: Any, pred, fn, le) -> Any:
    """``expr.replace(pred, fn)`` (bottom-up), with :data:`ENCLOSING` set at each call of ``fn`` to the
    ranges of the binders enclosing the node. ``le(a, b, ranges)``: whether ``a <= b`` is shown (the
    kernel's sign test, :func:`symattn.kernel.sign.provably_le`), which decides each range's orientation."""
    if not isinstance(expr, sp.Basic):
        return expr
    return _walk(expr, pred, fn, (), {}, le)


def _walk(e: Any, pred, fn, ranges: tuple, renaming: dict, le) -> Any:
    if not isinstance(e, sp.Basic):
        return e
    new = e
    if e.args:
        new = _rebuild(e, pred, fn, ranges, renaming, le)
    if pred(new):
        token = ENCLOSING.set((ranges, renaming))
        try:
            return fn(new)
        finally:
            ENCLOSING.reset(token)
    return new


def _rebuild(e: Any, pred, fn, ranges: tuple, renaming: dict, le) -> Any:
    def go(a, r=ranges, m=renaming):
        return _walk(a, pred, fn, r, m, le)

    if isinstance(e, ExprWithLimits):
        limits = [list(lim) for lim in e.limits]
        r, m = ranges, renaming
        for idx in range(len(limits) - 1, -1, -1):  # outermost first: its bounds are in the enclosing scope
            lim = limits[idx]
            v = lim[0]
            if len(lim) == 3:
                lim[1], lim[2] = go(lim[1], r, m), go(lim[2], r, m)
                if not isinstance(e, sp.Integral):
                    w, lo, hi = _binder_range(v, lim[1], lim[2], r, m, le)
                    r = tuple(x for x in r if x[0] != v) + ((w, lo, hi),)
                    m = {**m, v: w}
                    continue
            r, m = _shadow(v, r, m)
        body = go(e.function, r, m)
        args = (body, *[tuple(lim) for lim in limits])
    elif isinstance(e, sp.Lambda):
        r, m = ranges, renaming
        for v in e.variables:
            r, m = _shadow(v, r, m)
        args = (e.args[0], go(e.expr, r, m))
    elif isinstance(e, sp.Limit):
        body, z, z0, direction = e.args
        r, m = _shadow(z, ranges, renaming)
        args = (go(body, r, m), z, go(z0), direction)
    elif LAMBDA_RANGES and type(e) in LAMBDA_RANGES and isinstance(e.args[0], sp.Lambda) \
            and len(e.args[0].variables) == 1:
        lam = e.args[0]
        v = lam.variables[0]
        try:
            lo, hi = LAMBDA_RANGES[type(e)](e.args)
        except Exception:  # noqa: BLE001 - no range known: the variable ranges over nothing
            r, m = _shadow(v, ranges, renaming)
        else:
            w, lo, hi = _binder_range(v, lo, hi, ranges, renaming, le)
            r, m = tuple(x for x in ranges if x[0] != v) + ((w, lo, hi),), {**renaming, v: w}
        args = (sp.Lambda(v, go(lam.expr, r, m)), *[go(a) for a in e.args[1:]])
    else:
        args = tuple(go(a) for a in e.args)
    if all(a is b for a, b in zip(args, e.args)):
        return e
    try:
        return e.func(*args)
    except (TypeError, ValueError):  # a class that cannot be rebuilt from its args: left as it is
        return e
