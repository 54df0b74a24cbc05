"""Maxima and minima over an integer range with symbolic bounds: :class:`MaxOver`, :class:`MinOver`
(term constructors; SymPy's ``Max`` needs its arguments listed). They stay unevaluated; ``doit()`` lists
the arguments when the bounds are numbers. The kernel knows them through
:class:`symattn.kernel.calculus.Extremum` (registered below): ``F(j) <= max_l F(l)`` for ``j`` in the
range, and the sign of ``F`` on a nonempty range.

>>> import sympy as sp
>>> k = sp.Symbol("k", integer=True); v = sp.IndexedBase("v", real=True)
>>> MaxOver(v[k], (k, 1, 3)).doit()
Max(v[1], v[2], v[3])
"""

from __future__ import annotations

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits

from symattn.kernel.calculus import Extremum

__all__ = ["MaxOver", "MinOver"]


class _Extremum(ExprWithLimits):
    """Shared machinery of :class:`MaxOver` and :class:`MinOver`: one integer index ``(k, a, b)``."""

    _sympy_fn = None
    _tex = ""

    def __new__(cls, function, *symbols, **assumptions):
        if len(symbols) != 1 or len(sp.Tuple(*symbols[0])) != 3:
            raise ValueError(f"{cls.__name__} takes exactly one range (k, a, b), got {symbols!r}")
        k, a, b = sp.Tuple(*symbols[0])
        if not isinstance(k, sp.Symbol) or k.is_integer is not True:
            raise TypeError(f"{cls.__name__}: the index must be an integer Symbol, got {k!r}")
        return super().__new__(cls, function, *symbols, **assumptions)

    def doit(self, **hints):
        (k, a, b) = self.limits[0]
        if not (a.is_Integer and b.is_Integer):
            return self
        if b < a:
            raise ValueError(f"{type(self).__name__} over the empty range {a}..{b}")
        f = self.function.doit(**hints) if hints.get("deep", True) else self.function
        return self._sympy_fn(*[f.xreplace({k: sp.Integer(x)}) for x in range(int(a), int(b) + 1)])

    def _eval_is_real(self):
        return self.function.is_real

    def _latex(self, printer):
        (k, a, b) = self.limits[0]
        return r"\%s_{%s=%s}^{%s} %s" % (
            self._tex,
            printer._print(k),
            printer._print(a),
            printer._print(b),
            printer.parenthesize(self.function, 50),
        )


class MaxOver(_Extremum):
    """``max_{k=a}^{b} f(k)``, the maximum of ``f`` over the integer range ``a..b`` (nonempty).

    >>> import sympy as sp
    >>> k = sp.Symbol("k", integer=True); n = sp.Symbol("n", integer=True, positive=True)
    >>> from symattn.language.printing import latex
    >>> latex(MaxOver(sp.IndexedBase("v")[k], (k, 1, n)))
    '\\\\max_{k=1}^{n} {v}_{k}'
    """

    _sympy_fn = sp.Max
    _tex = "max"


class MinOver(_Extremum):
    """``min_{k=a}^{b} f(k)``, the minimum of ``f`` over the integer range ``a..b`` (nonempty)."""

    _sympy_fn = sp.Min
    _tex = "min"


Extremum.register(MaxOver, "max")
Extremum.register(MinOver, "min")
