"""Index bounds: a library head that reads an entry or component by index unfolds only inside its shape.

``Entry(M, i, j)`` (1-based) is the entry of ``M`` only for ``1 <= i <= rows(M)`` and ``1 <= j <= cols(M)``;
``Softmax(s, i, n)`` is a component only for ``1 <= i <= n``; ``PairOf(v, m)`` is block ``m`` of a
``2B``-vector only for ``0 <= m <= B - 1``. Outside, the head stands for nothing: its formula would
extend past the shape (``Entry(Identity(n), n + 1, n + 1)`` read as ``delta(n + 1, n + 1) = 1``), so
the kernel refuses to unfold it there.

:func:`check` decides each bound by the kernel's sign test (:func:`~symattn.kernel.sign.provably_le`)
with the ambient ranges: the ``IndexRange`` hypotheses of the step
(:data:`~symattn.kernel.context.HYPOTHESES`) and the ranges of the binders enclosing the head
(:data:`~symattn.kernel.context.ENCLOSING`, set by :func:`scoped_replace`: a bound variable of a sum
ranges over the sum's bounds, Karr's convention when the range is not shown in order; the variable of
``Softmax(Lambda(j, ...), i, n)`` over ``1..n``; any other bound variable over nothing). A bound
variable is renamed to a fresh symbol carrying only its range, so a hypothesis about a free ``i``
never reaches a bound ``i``. At concrete integer indices and shape the test is exact:
an index outside raises :class:`OutsideShape` (the statement is not defined there).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel import context
from symattn.kernel.context import _SKIP, ENCLOSING, unchecked
from symattn.kernel.terms import KernelError, substitute

__all__ = ["ENCLOSING", "OutsideShape", "check", "obligations", "scoped_replace", "unchecked"]

class OutsideShape(KernelError):
    """An index shown outside the shape (concrete integers): the head is not defined there."""


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
    from symattn.kernel.context import HYPOTHESES, index_ranges

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

    from symattn.kernel.context import HYPOTHESES
    from symattn.kernel.sign import provably_le

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


def scoped_replace(expr: Any, pred, fn) -> Any:
    """``expr.replace(pred, fn)`` (bottom-up), with :data:`ENCLOSING` set at each call of ``fn`` to the
    ranges of the binders enclosing the node, decided by the sign test
    (:func:`symattn.kernel.context.scoped_replace`)."""
    from symattn.kernel.sign import provably_le

    return context.scoped_replace(expr, pred, fn, provably_le)
