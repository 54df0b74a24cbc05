"""LaTeX printing for symattn objects.

One printer serves LaTeX and HTML alike: the HTML report converts the very same strings to
MathML, so what a reader sees in the PDF and in the browser cannot drift apart. The printer
extends SymPy's :class:`~sympy.printing.latex.LatexPrinter` and follows its pattern (see
``sympy/printing/printer.py``): dispatch on the class name to ``_print_<Class>``, print children
through ``self._print``. Our own expression classes either define ``_latex(printer)`` (SymPy's
protocol, looked up first) or get a ``_print_<Class>`` method here.

Conventions added on top of SymPy's:

* Kronecker deltas read :math:`\\delta_{ij}` (with a thin space between the indices);
* assumptions ``Q.real(x)``, ``Q.positive(n)`` ... read as set membership or an inequality
  (:math:`x \\in \\mathbb{R}`, :math:`n > 0`), not SymPy's ``Q_{real}(x)``;
* matrices are printed with round brackets.

>>> import sympy as sp
>>> print(latex(sp.Symbol("d_k") * sp.Symbol("sigma")**4))
d_{k} \\sigma^{4}
>>> print(latex(sp.Q.positive(sp.Symbol("n"))))
n > 0
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.printing.latex import LatexPrinter

__all__ = ["SymattnLatexPrinter", "latex", "text_to_tex", "TEX_SPECIALS"]

#: Characters that are special in TeX text mode, and what stands for each.
TEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    # in maths: in text a dollar sign can come from the TS1 (text companion) font, which without
    # cm-super is a bitmap font that microtype's font expansion refuses
    "$": r"\ensuremath{\$}",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def text_to_tex(text: str) -> str:
    r"""Escape plain text for TeX text mode (e.g. inside ``\text{...}``).

    >>> print(text_to_tex("a_i^2 & 100%"))
    a\_i\textasciicircum{}2 \& 100\%
    """
    return "".join(TEX_SPECIALS.get(ch, ch) for ch in text)

# Q.<name>(x) as "x <relation or membership>"; the names are SymPy's predicate names.
_PREDICATES = {
    "real": r"\in \mathbb{R}",
    "extended_real": r"\in \overline{\mathbb{R}}",
    "integer": r"\in \mathbb{Z}",
    "rational": r"\in \mathbb{Q}",
    "complex": r"\in \mathbb{C}",
    "positive": "> 0",
    "negative": "< 0",
    "nonnegative": r"\ge 0",
    "nonpositive": r"\le 0",
    "nonzero": r"\ne 0",
    "zero": "= 0",
}
# predicates that are words rather than relations
_PREDICATE_WORDS = {"even": "even", "odd": "odd", "prime": "prime", "finite": "finite",
                    "symmetric": "symmetric", "orthogonal": "orthogonal", "invertible": "invertible",
                    "diagonal": "diagonal", "positive_definite": "positive definite"}


class SymattnLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer with symattn's conventions."""

    printmethod = "_latex"

    def __init__(self, settings: dict | None = None):
        base = {"mat_delim": "(", "mat_str": "matrix", "fold_short_frac": False}
        base.update(settings or {})
        super().__init__(base)

    def _print(self, expr, **kwargs):
        # Our classes define ``_latex(printer)``; SymPy passes ``exp=`` when the object is the base
        # of a power (``J_{ij}^2``). Objects that do not take it are printed and then raised, in
        # parentheses, so that a power of any of our objects prints instead of crashing.
        method = getattr(type(expr), self.printmethod, None)
        if kwargs.get("exp") is not None and method is not None and not isinstance(expr, type):
            try:
                return method(expr, self, **kwargs)
            except TypeError as exc:
                if "exp" not in str(exc):
                    raise
                return r"\left(%s\right)^{%s}" % (method(expr, self), kwargs["exp"])
        return super()._print(expr, **kwargs)

    def _print_KroneckerDelta(self, expr, exp=None):
        i, j = (self._print(a) for a in expr.args[:2])
        tex = r"\delta_{%s %s}" % (i, j)
        return tex if exp is None else r"%s^{%s}" % (tex, exp)

    def _print_AppliedPredicate(self, expr):
        name = expr.function.name
        args = ", ".join(self._print(a) for a in expr.arguments)
        if name in _PREDICATES:
            return f"{args} {_PREDICATES[name]}"
        if name in _PREDICATE_WORDS:
            return r"%s \text{ %s}" % (args, _PREDICATE_WORDS[name])
        return r"\operatorname{%s}(%s)" % (name.replace("_", r"\_"), args)


def latex(expr: Any, **settings) -> str:
    """LaTeX for a SymPy expression, matrix, or symattn object.

    Objects that are not SymPy expressions but know how to print themselves (a
    :class:`~symattn.language.statement.Statement`, a hypothesis) are asked for their own ``latex()``.

    Examples
    ========

    >>> import sympy as sp
    >>> i, j = sp.symbols("i j")
    >>> print(latex(sp.KroneckerDelta(i, j)))
    \\delta_{i j}
    >>> print(latex(sp.Matrix([[1, 2]])))
    \\left(\\begin{matrix}1 & 2\\end{matrix}\\right)
    """
    if hasattr(expr, "latex") and not isinstance(expr, sp.Basic) and callable(expr.latex):
        return expr.latex()
    return SymattnLatexPrinter(settings).doprint(expr)
