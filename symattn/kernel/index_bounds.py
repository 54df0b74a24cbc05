"""Index bounds: a library head that reads an entry or component by index unfolds only inside its shape.

``Entry(M, i, j)`` (1-based) is the entry of ``M`` only for ``1 <= i <= rows(M)`` and ``1 <= j <= cols(M)``;
``Softmax(s, i, n)`` is a component only for ``1 <= i <= n``; ``PairOf(v, m)`` is block ``m`` of a
``2B``-vector only for ``0 <= m <= B - 1``. Outside, the head stands for nothing: its formula would
extend past the shape (``Entry(Identity(n), n + 1, n + 1)`` read as ``delta(n + 1, n + 1) = 1``), so
the kernel refuses to unfold it there.

:func:`check` decides each bound by the kernel's sign test (:func:`~symattn.kernel.sign.provably_le`)
with the ambient ranges: the ``IndexRange`` hypotheses of the step (:data:`~symattn.kernel.zero.HYPOTHESES`)
and the ranges of the binders enclosing the head (:data:`ENCLOSING`, set by :func:`scoped_replace`:
a bound variable of a sum ranges over the sum's bounds, Karr's convention when the range is not shown
in order; the variable of ``Softmax(Lambda(j, ...), i, n)`` over ``1..n``; any other bound variable
over nothing). A bound variable is renamed to a fresh symbol carrying only its range, so a hypothesis
about a free ``i`` never reaches a bound ``i``. At concrete integer indices and shape the test is exact:
an index outside raises :class:`OutsideShape` (the statement is not defined there).
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits

from symattn.kernel.terms import KernelError, substitute

__all__ = ["ENCLOSING", "OutsideShape", "check", "obligations", "scoped_replace", "unchecked"]

#: ``(ranges, renaming)`` of the binders enclosing the head being unfolded: ``ranges`` lists
#: ``(w, lo, hi)`` for fresh symbols ``w``, ``renaming`` maps each bound variable to its ``w``
ENCLOSING: contextvars.ContextVar = contextvars.ContextVar("symattn_enclosing_ranges", default=((), {}))

#: set by the second engine only: it re-checks facts the kernel accepted (it can only refuse one),
#: so its unfoldings need not repeat the bound check
_SKIP: contextvars.ContextVar = contextvars.ContextVar("symattn_index_bounds_skip", default=False)


class OutsideShape(KernelError):
    """An index shown outside the shape (concrete integers): the head is not defined there."""


@contextlib.contextmanager
def unchecked():
    token = _SKIP.set(True)
    try:
        yield
    finally:
        _SKIP.reset(token)


def _is(e: Any, module: str, name: str) -> bool:
    return type(e).__name__ == name and (type(e).__module__ or "") == module


def obligations(e: Any) -> list:
    """``[(what, index, lo, hi)]``: the bounds ``lo <= index <= hi`` under which head ``e`` unfolds,
    with ``what`` naming the index and the shape for the message."""
    if _is(e, "symattn.maths.permutation", "Entry"):
        M, i, j = e.args
        rows, cols = M.shape
        shape = f"{sp.sstr(rows)} x {sp.sstr(cols)}"
        return [(f"row index {sp.sstr(i)} of Entry({sp.sstr(M)}, {sp.sstr(i)}, {sp.sstr(j)}) ({shape} matrix)",
                 i, sp.S.One, rows),
                (f"column index {sp.sstr(j)} of Entry({sp.sstr(M)}, {sp.sstr(i)}, {sp.sstr(j)}) ({shape} matrix)",
                 j, sp.S.One, cols)]
    if _is(e, "symattn.maths.softmax", "Softmax"):
        _f, i, n = e.args
        return [(f"component {sp.sstr(i)} of a softmax over {sp.sstr(n)} scores", i, sp.S.One, n)]
    if _is(e, "symattn.kernel.objects.rotations", "PairOf"):
        v, m = e.args[0], e.args[1]
        rows = v.shape[0]
        return [(f"block {sp.sstr(m)} of PairOf({sp.sstr(v)}, {sp.sstr(m)}) ({sp.sstr(rows)} x 1 vector, blocks "
                 f"0..{sp.sstr(rows / 2 - 1)})", m, sp.S.Zero, rows / 2 - 1)]
    return []


def _ambient() -> tuple:
    from symattn.kernel.zero import HYPOTHESES, index_ranges

    ranges, renaming = ENCLOSING.get()
    return tuple(index_ranges(HYPOTHESES.get())) + tuple(ranges), renaming


def check(e: Any, ranges: tuple | None = None, renaming: dict | None = None) -> None:
    """Refuse (``KernelError``) unless every index of head ``e`` is shown inside its shape (see the
    module docstring); :class:`OutsideShape` when concrete integers put it outside."""
    obs = obligations(e)
    if not obs or _SKIP.get():
        return
    if ranges is None:
        ranges, amb = _ambient()
        renaming = amb if renaming is None else renaming
    renaming = renaming or {}
    from symattn.kernel.sign import provably_le

    for what, x, lo, hi in obs:
        x, lo, hi = (substitute(sp.sympify(t), renaming) if renaming else sp.sympify(t) for t in (x, lo, hi))
        if all(t.is_Integer for t in (x, lo, hi)):
            if not lo <= x <= hi:
                raise OutsideShape(f"the {what} is {sp.sstr(x)}, outside {sp.sstr(lo)}..{sp.sstr(hi)}: "
                                   "the entry is not defined there")
            continue
        if _permuted_inside(x, lo, hi, ranges):
            continue
        if not (provably_le(lo, x, ranges) and provably_le(x, hi, ranges)):
            raise KernelError(f"the {what} is not shown inside {sp.sstr(lo)}..{sp.sstr(hi)} (from the index ranges "
                              "of the hypotheses and of the enclosing sums): the head is not unfolded outside its "
                              "shape")


def _permuted_inside(x: Any, lo: Any, hi: Any, ranges: tuple) -> bool:
    """``sigma(a)`` for a ``Permutation`` hypothesis "sigma is a permutation of 1..m" with ``a`` shown in
    ``1..m`` lies in ``1..m``: inside ``lo..hi`` when ``lo <= 1`` and ``m <= hi`` are shown."""
    from sympy.core.function import AppliedUndef

    from symattn.kernel.sign import provably_le
    from symattn.kernel.zero import HYPOTHESES

    if not (isinstance(x, AppliedUndef) and len(x.args) == 1):
        return False
    for h in HYPOTHESES.get() or ():
        if type(h).__name__ == "Permutation" and getattr(h, "sigma", None) == type(x).__name__:
            m = sp.sympify(h.n)
            a = x.args[0]
            if (provably_le(1, a, ranges) and provably_le(a, m, ranges) and provably_le(lo, 1, ranges)
                    and provably_le(m, hi, ranges)):
                return True
    return False


# ------------------------------------------------------------------------------------- scoped replace
def _binder_range(v: Any, lo: Any, hi: Any, ranges: tuple, renaming: dict) -> tuple:
    """``(w, lo, hi)`` for the bound variable ``v`` of a sum over ``lo..hi`` (bounds renamed into the
    enclosing scope): Karr's convention when ``hi >= lo - 1`` is not shown."""
    from symattn.kernel.sign import provably_le

    lo, hi = (substitute(sp.sympify(b), renaming) if renaming else sp.sympify(b) for b in (lo, hi))
    integral = bool(getattr(lo, "is_integer", False) or getattr(hi, "is_integer", False))
    w = sp.Dummy(str(v), integer=True) if integral else sp.Dummy(str(v))
    if not provably_le(lo - 1, hi, ranges):
        lo, hi = sp.Min(lo, hi + 1), sp.Max(hi, lo - 1)
    return w, lo, hi


def _shadow(v: Any, ranges: tuple, renaming: dict) -> tuple:
    w = sp.Dummy(str(v))
    return tuple(r for r in ranges if r[0] != v), {**renaming, v: w}


def scoped_replace(expr: Any, pred, fn) -> Any:
    """``expr.replace(pred, fn)`` (bottom-up), with :data:`ENCLOSING` set at each call of ``fn`` to the
    ranges of the binders enclosing the node."""
    if not isinstance(expr, sp.Basic):
        return expr
    return _walk(expr, pred, fn, (), {})


def _walk(e: Any, pred, fn, ranges: tuple, renaming: dict) -> Any:
    if not isinstance(e, sp.Basic):
        return e
    new = e
    if e.args:
        new = _rebuild(e, pred, fn, ranges, renaming)
    if pred(new):
        token = ENCLOSING.set((ranges, renaming))
        try:
            return fn(new)
        finally:
            ENCLOSING.reset(token)
    return new


def _rebuild(e: Any, pred, fn, ranges: tuple, renaming: dict) -> Any:
    from symattn.kernel.terms import LAMBDA_RANGES

    def go(a, r=ranges, m=renaming):
        return _walk(a, pred, fn, r, m)

    if isinstance(e, ExprWithLimits):
        limits = [list(lim) for lim in e.limits]
        r, m = ranges, renaming
        for idx in range(len(limits) - 1, -1, -1):  # outermost first: its bounds are in the enclosing scope
            lim = limits[idx]
            v = lim[0]
            if len(lim) == 3:
                lim[1], lim[2] = go(lim[1], r, m), go(lim[2], r, m)
                if not isinstance(e, sp.Integral):
                    w, lo, hi = _binder_range(v, lim[1], lim[2], r, m)
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
            w, lo, hi = _binder_range(v, lo, hi, ranges, renaming)
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
