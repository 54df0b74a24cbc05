r"""Index bands: the indicator :math:`\mathbb 1[lo \le j \le hi]` (:class:`Band`), which masks are
written with (:mod:`symattn.maths.masks`) and the range schemas evaluate
(:mod:`symattn.kernel.schemas.ranges`).
"""

from __future__ import annotations

import numbers
from typing import Any

import sympy as sp

from symattn.kernel.definitions import define

__all__ = ["Band"]


def _expr(x: Any, what: str) -> sp.Expr:
    if isinstance(x, bool) or isinstance(x, str):
        raise TypeError(f"{what} must be an integer or a SymPy expression, got {x!r}")
    if isinstance(x, numbers.Integral):
        return sp.Integer(int(x))
    if isinstance(x, sp.Expr):
        return x
    raise TypeError(f"{what} must be an integer or a SymPy expression, got {type(x).__name__}")



class Band(sp.Function):
    r"""The indicator :math:`\mathbb 1[lo \le j \le hi]` (``lo`` may be ``-oo``, ``hi`` may be ``oo``).

    Evaluates to ``1`` or ``0`` when the comparison is decided by the numbers alone; otherwise
    stays unevaluated (the rules of :mod:`symattn.rules.ranges` evaluate it from summation ranges).

    >>> j = sp.Symbol("j", integer=True)
    >>> Band(3, 1, 5), Band(7, 1, 5), Band(j, 1, 5)
    (1, 0, Band(j, 1, 5))
    >>> Band(j, 1, 5).doit()
    Piecewise((1, (j >= 1) & (j <= 5)), (0, True))
    """

    nargs = 3

    def __new__(cls, j, lo, hi, **options):
        # refuse strings before SymPy would parse them
        return super().__new__(cls, _expr(j, "Band index"), _expr(lo, "Band lower end"), _expr(hi, "Band upper end"),
                               **options)

    @classmethod
    def eval(cls, j, lo, hi):
        for x, what in ((j, "index"), (lo, "lower end"), (hi, "upper end")):
            if not isinstance(x, sp.Expr):
                raise TypeError(f"Band: {what} must be a SymPy expression, got {x!r}")
        if j.is_infinite:
            raise ValueError(f"Band: the index must be finite, got {j}")
        below, above = sp.Ge(j, lo) if lo != -sp.oo else sp.true, sp.Le(j, hi) if hi != sp.oo else sp.true
        if below in (sp.true, sp.false) and above in (sp.true, sp.false):
            return sp.S.One if (below is sp.true and above is sp.true) else sp.S.Zero
        if below is sp.false or above is sp.false:
            return sp.S.Zero
        return None

    def _eval_is_nonnegative(self):
        return True

    def _eval_is_integer(self):
        return True

    def _eval_is_real(self):
        return True

    def interval(self) -> tuple:
        """``(j, lo, hi)``."""
        return tuple(self.args)

    def as_piecewise(self) -> sp.Expr:
        j, lo, hi = self.args
        cond = sp.And(*([sp.Ge(j, lo)] if lo != -sp.oo else []), *([sp.Le(j, hi)] if hi != sp.oo else []))
        return sp.Piecewise((sp.S.One, cond), (sp.S.Zero, True))

    def doit(self, **hints):
        args = [a.doit(**hints) for a in self.args] if hints.get("deep", True) else self.args
        out = Band(*args)
        return out.as_piecewise() if isinstance(out, Band) else out

    def _latex(self, printer):
        j, lo, hi = (printer._print(a) for a in self.args)
        if self.args[1] == -sp.oo:
            return r"\mathbb{1}\left[%s \le %s\right]" % (j, hi)
        if self.args[2] == sp.oo:
            return r"\mathbb{1}\left[%s \le %s\right]" % (lo, j)
        return r"\mathbb{1}\left[%s \le %s \le %s\right]" % (lo, j, hi)



define("band", Band, lambda e: e.as_piecewise(), text=r"\mathbb 1[lo \le j \le hi]")
