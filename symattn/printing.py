"""LaTeX printing for symattn objects.

One printer serves LaTeX and HTML alike (HTML converts the same strings to MathML). It extends
SymPy's :class:`~sympy.printing.latex.LatexPrinter`; our own expression classes either define
``_latex(printer)`` (SymPy's protocol) or get a ``_print_<Class>`` method here.

>>> import sympy as sp
>>> print(latex(sp.Symbol("d_k") * sp.Symbol("sigma")**4))
d_{k} \\sigma^{4}
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.printing.latex import LatexPrinter

__all__ = ["SymattnLatexPrinter", "latex"]


class SymattnLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer with symattn's conventions."""

    printmethod = "_latex"

    def __init__(self, settings: dict | None = None):
        base = {"mat_delim": "(", "mat_str": "matrix", "fold_short_frac": False}
        base.update(settings or {})
        super().__init__(base)

    def _print_KroneckerDelta(self, expr, exp=None):
        i, j = (self._print(a) for a in expr.args[:2])
        tex = r"\delta_{%s %s}" % (i, j)
        return tex if exp is None else r"%s^{%s}" % (tex, exp)


def latex(expr: Any, **settings) -> str:
    """LaTeX for a SymPy expression, matrix, or symattn object."""
    if hasattr(expr, "latex") and not isinstance(expr, sp.Basic) and callable(expr.latex):
        return expr.latex()
    return SymattnLatexPrinter(settings).doprint(expr)
