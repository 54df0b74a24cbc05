"""Shapes of symattn's matrix expressions: the base class that counts the symbols of a shape as
free symbols, and the equality of (possibly symbolic) dimensions.

Both :mod:`symattn.maths.multihead` (blocks and heads) and :mod:`symattn.maths.permutation` (the maps of a
transformer layer) build on these.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

__all__ = ["ShapedExpr", "same_dim"]


def same_dim(a: Any, b: Any) -> bool:
    """Whether two (possibly symbolic) dimensions are provably equal.

    >>> import sympy as sp
    >>> d, h = sp.symbols("d h", positive=True, integer=True)
    >>> same_dim(h * (d / h), d), same_dim(d, d + 1)
    (True, False)
    """
    a, b = sp.sympify(a, strict=True), sp.sympify(b, strict=True)
    if a == b:
        return True
    return sp.simplify(a - b) == 0


class ShapedExpr(MatrixExpr):
    """Base of our matrix expressions: the symbols of the shape count as free symbols (a statement
    about ``X`` in ``R^{n x d}`` depends on ``n`` and ``d``, and stays general only while they are
    free)."""

    @property
    def free_symbols(self):
        out = set()
        for a in self.args:
            out |= getattr(a, "free_symbols", set())
        for node in sp.preorder_traversal(self):
            if isinstance(node, MatrixExpr):
                for s in node.shape:
                    out |= getattr(sp.sympify(s), "free_symbols", set())
        return out
