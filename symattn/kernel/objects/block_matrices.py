r"""Block matrices and ranks: the members of indexed families of matrices (:class:`FamilyMatrix`), their
concatenations (:class:`Concat`, :class:`Stack`, :class:`HConcat`, :class:`VStack`), sums over an index
(:class:`MatSum`), and :class:`Rank` and :class:`NumEntries`.

Multi-head attention is written with them (:mod:`symattn.maths.multihead`); the matrix schemas
(:mod:`symattn.kernel.schemas.matrices`) and the second engine's ranks read them.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.core.symbol import Str
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.definitions import define
from symattn.language.shapes import ShapedExpr, same_dim

__all__ = ["FamilyMatrix", "Concat", "Stack", "HConcat", "VStack", "MatSum", "Rank", "NumEntries"]


def _dim(x: Any, what: str) -> sp.Expr:
    x = sp.sympify(x, strict=True) if isinstance(x, int) else x
    if not isinstance(x, sp.Expr):
        raise TypeError(f"{what} must be an integer or a SymPy expression, got {type(x).__name__}")
    if x.is_integer is False or x.is_positive is False:
        raise ValueError(f"{what} must be a positive integer, got {x}")
    return x



def _matrix(x: Any, what: str) -> Any:
    if not isinstance(x, (MatrixExpr, sp.MatrixBase)):
        raise TypeError(f"{what} must be a matrix expression, got {type(x).__name__}")
    return x



def _family(f: Any, what: str) -> sp.Lambda:
    if not isinstance(f, sp.Lambda) or len(f.variables) != 1:
        raise TypeError(f"{what} must be a one-argument Lambda m -> matrix, got {f!r}")
    body = f.expr
    _matrix(body, f"the body of {what}")
    m = f.variables[0]
    if any(m in sp.sympify(s).free_symbols for s in body.shape):
        raise ValueError(f"the blocks of {what} must all have the same shape; {body.shape} depends on {m}")
    return f



# ----------------------------------------------------------------------------------------- families
class FamilyMatrix(MatrixExpr):
    r"""The member :math:`W^{m}` of an indexed family of ``rows x cols`` matrices.

    >>> import sympy as sp
    >>> m, d, d_v = sp.symbols("m d d_v", integer=True, positive=True)
    >>> W = FamilyMatrix("W_V", m, d, d_v)
    >>> W.shape, W.index
    ((d, d_v), m)
    >>> W.at(2)
    W_V^(2)
    """

    def __new__(cls, name, index, rows, cols):
        if isinstance(name, str):
            name = Str(name)
        if not isinstance(name, Str):
            raise TypeError(f"FamilyMatrix name must be a string, got {type(name).__name__}")
        index = sp.sympify(index, strict=True) if isinstance(index, int) else index
        if not isinstance(index, sp.Expr):
            raise TypeError(f"FamilyMatrix index must be a SymPy expression, got {type(index).__name__}")
        return super().__new__(cls, name, index, _dim(rows, "rows"), _dim(cols, "cols"))

    @property
    def name(self) -> str:
        return self.args[0].name

    @property
    def index(self):
        return self.args[1]

    @property
    def shape(self):
        return (self.args[2], self.args[3])

    def at(self, index) -> FamilyMatrix:
        """The member with another index."""
        return FamilyMatrix(self.name, index, *self.shape)

    def _symattn_entry(self, i, j, depth, entry):
        return sp.IndexedBase(self.name)[self.index, i, j]

    def _sympystr(self, printer):
        return f"{self.name}^({printer._print(self.index)})"

    def _latex(self, printer):
        return r"%s^{%s}" % (printer._print(sp.Symbol(self.name)), printer._print(self.index))



class _IndexedBlocks(ShapedExpr):
    """Common part of :class:`Concat` and :class:`Stack`: a family and a count."""

    _what = ""

    def __new__(cls, family, count):
        family = _family(family, f"the family of {cls.__name__}")
        count = _dim(count, f"the number of blocks of {cls.__name__}")
        return super().__new__(cls, family, count)

    @property
    def family(self) -> sp.Lambda:
        return self.args[0]

    @property
    def count(self):
        return self.args[1]

    @property
    def block_shape(self):
        return self.family.expr.shape

    def member(self, m) -> Any:
        """The block with index ``m`` (1-based)."""
        return self.family(m)

    def _members_latex(self, printer) -> str:
        f = self.family
        one = printer._print(f(sp.Integer(1)))
        last = printer._print(f(self.count))
        return r"%s, \dots, %s" % (one, last)



class Concat(_IndexedBlocks):
    r"""Horizontal concatenation :math:`\begin{pmatrix}F(1) & \cdots & F(h)\end{pmatrix}`.

    >>> import sympy as sp
    >>> m, n, d_v, h = sp.symbols("m n d_v h", integer=True, positive=True)
    >>> C = Concat(sp.Lambda(m, FamilyMatrix("H", m, n, d_v)), h)
    >>> C.shape
    (n, d_v*h)
    """

    @property
    def shape(self):
        r, c = self.block_shape
        return (r, self.count * c)

    def _sympystr(self, printer):
        return f"Concat({printer._print(self.family)}, {printer._print(self.count)})"

    def _latex(self, printer):
        return r"\operatorname{Concat}\left(%s\right)" % self._members_latex(printer)



class Stack(_IndexedBlocks):
    r"""Vertical stacking :math:`\begin{pmatrix}F(1) \\ \vdots \\ F(h)\end{pmatrix}`.

    >>> import sympy as sp
    >>> m, d, d_v, h = sp.symbols("m d d_v h", integer=True, positive=True)
    >>> Stack(sp.Lambda(m, FamilyMatrix("W_O", m, d_v, d)), h).shape
    (d_v*h, d)
    """

    @property
    def shape(self):
        r, c = self.block_shape
        return (self.count * r, c)

    def _sympystr(self, printer):
        return f"Stack({printer._print(self.family)}, {printer._print(self.count)})"

    def _latex(self, printer):
        f = self.family
        return r"\begin{pmatrix} %s \\ \vdots \\ %s \end{pmatrix}" % (
            printer._print(f(sp.Integer(1))),
            printer._print(f(self.count)),
        )



class _ExplicitBlocks(ShapedExpr):
    _axis = 0

    def __new__(cls, *blocks):
        if len(blocks) < 1:
            raise ValueError(f"{cls.__name__} needs at least one block")
        blocks = [_matrix(b, f"block {k + 1} of {cls.__name__}") for k, b in enumerate(blocks)]
        shared = 0 if cls._axis == 1 else 1  # HConcat shares rows, VStack shares columns
        first = blocks[0].shape[shared]
        for k, b in enumerate(blocks[1:], start=2):
            if not same_dim(b.shape[shared], first):
                what = "rows" if shared == 0 else "columns"
                raise ValueError(
                    f"{cls.__name__}: block {k} has {b.shape[shared]} {what}, block 1 has {first}; "
                    f"shapes {[tuple(x.shape) for x in blocks]}"
                )
        return super().__new__(cls, *blocks)

    @property
    def blocks(self) -> tuple:
        return self.args



class HConcat(_ExplicitBlocks):
    r"""``[A_1 A_2 ... A_k]``: blocks side by side (same number of rows).

    >>> import sympy as sp
    >>> A, B = sp.MatrixSymbol("A", 2, 3), sp.MatrixSymbol("B", 2, 1)
    >>> HConcat(A, B).shape
    (2, 4)
    >>> HConcat(A, sp.MatrixSymbol("C", 3, 1))
    Traceback (most recent call last):
    ...
    ValueError: HConcat: block 2 has 3 rows, block 1 has 2; shapes [(2, 3), (3, 1)]
    """

    _axis = 1

    @property
    def shape(self):
        return (self.blocks[0].shape[0], sp.Add(*[b.shape[1] for b in self.blocks]))

    def _latex(self, printer):
        return r"\begin{pmatrix} %s \end{pmatrix}" % " & ".join(printer._print(b) for b in self.blocks)



class VStack(_ExplicitBlocks):
    r"""``[B_1; B_2; ...; B_k]``: blocks on top of each other (same number of columns).

    >>> import sympy as sp
    >>> VStack(sp.MatrixSymbol("A", 2, 3), sp.MatrixSymbol("B", 1, 3)).shape
    (3, 3)
    """

    _axis = 0

    @property
    def shape(self):
        return (sp.Add(*[b.shape[0] for b in self.blocks]), self.blocks[0].shape[1])

    def _latex(self, printer):
        return r"\begin{pmatrix} %s \end{pmatrix}" % r" \\ ".join(printer._print(b) for b in self.blocks)



class MatSum(MatrixExpr):
    r""":math:`\sum_{m=lo}^{hi} T(m)` for a matrix-valued term, bounds possibly symbolic.

    >>> import sympy as sp
    >>> m, n, d, h = sp.symbols("m n d h", integer=True, positive=True)
    >>> S = MatSum(FamilyMatrix("T", m, n, d), (m, 1, h))
    >>> S.shape, S.variable, S.bounds
    ((n, d), m, (1, h))
    >>> MatSum(FamilyMatrix("T", m, n, d), (m, 1, 2)).explicit()
    T^(1) + T^(2)
    """

    def __new__(cls, term, limits):
        _matrix(term, "the term of MatSum")
        if not (isinstance(limits, (tuple, sp.Tuple)) and len(limits) == 3):
            raise TypeError(f"MatSum limits must be (m, lo, hi), got {limits!r}")
        m, lo, hi = (sp.sympify(x, strict=True) if isinstance(x, int) else x for x in limits)
        if not isinstance(m, sp.Symbol):
            raise TypeError(f"MatSum index must be a Symbol, got {m!r}")
        if any(m in sp.sympify(s).free_symbols for s in term.shape):
            raise ValueError(f"the terms of MatSum must all have the same shape; {term.shape} depends on {m}")
        return super().__new__(cls, term, sp.Tuple(m, lo, hi))

    @property
    def term(self):
        return self.args[0]

    @property
    def variable(self):
        return self.args[1][0]

    @property
    def bounds(self):
        return tuple(self.args[1][1:])

    @property
    def shape(self):
        return self.term.shape

    @property
    def free_symbols(self):
        m, lo, hi = self.args[1]
        shape = set().union(*(sp.sympify(s).free_symbols for s in self.term.shape))
        return ((self.term.free_symbols | shape) - {m}) | lo.free_symbols | hi.free_symbols

    def at(self, value):
        """The term with the index set to ``value``."""
        return self.term.xreplace({self.variable: value})

    def explicit(self):
        """The sum written out, for integer bounds."""
        lo, hi = self.bounds
        if not (lo.is_Integer and hi.is_Integer):
            raise ValueError(f"MatSum.explicit needs integer bounds, got {lo}..{hi}")
        terms = [self.at(sp.Integer(k)) for k in range(int(lo), int(hi) + 1)]
        if not terms:
            return sp.ZeroMatrix(*self.shape)
        return sp.MatAdd(*terms).doit() if len(terms) > 1 else terms[0]

    def _symattn_entry(self, i, j, depth, entry):
        m, lo, hi = self.args[1]
        return sp.Sum(entry(self.term, i, j, depth), (m, lo, hi))

    def _sympystr(self, printer):
        m, lo, hi = self.args[1]
        return f"MatSum({printer._print(self.term)}, ({m}, {printer._print(lo)}, {printer._print(hi)}))"

    def _latex(self, printer):
        m, lo, hi = self.args[1]
        return r"\sum_{%s=%s}^{%s} %s" % (
            printer._print(m), printer._print(lo), printer._print(hi), printer.parenthesize(self.term, 0)
        )



class Rank(sp.Function):
    r"""The rank of a matrix; evaluates exactly for explicit matrices with rational entries.

    >>> import sympy as sp
    >>> Rank(sp.ImmutableMatrix([[1, 2], [2, 4]]))
    1
    >>> d = sp.Symbol("d", integer=True, positive=True)
    >>> Rank(sp.MatrixSymbol("A", d, d)).is_nonnegative
    True
    """

    nargs = 1

    @classmethod
    def eval(cls, M):
        if not isinstance(M, (MatrixExpr, sp.MatrixBase)):
            raise TypeError(f"Rank takes a matrix, got {type(M).__name__}")
        if isinstance(M, MatrixExpr) and not isinstance(M, sp.MatrixBase):
            try:
                explicit = M.as_explicit() if all(s.is_Integer for s in M.shape) and not M.free_symbols else None
            except Exception:  # an unevaluated object without an explicit form
                explicit = None
            if explicit is None:
                return None
            M = explicit
        if all(e.is_Rational for e in M):
            return sp.Integer(sp.Matrix(M).rank())
        return None

    def _eval_is_integer(self):
        return True

    def _eval_is_extended_real(self):
        return True

    def _eval_is_nonnegative(self):
        return True

    def _latex(self, printer, exp=None):
        tex = r"\operatorname{rank}\left(%s\right)" % printer._print(self.args[0])
        return tex if exp is None else r"%s^{%s}" % (tex, exp)



class NumEntries(sp.Function):
    r"""The number of entries (parameters) of a matrix, ``rows * cols``; evaluates only for
    concrete shapes, so that a derivation unfolds it explicitly (definition ``"num_entries"``).

    >>> import sympy as sp
    >>> d, h = sp.symbols("d h", integer=True, positive=True)
    >>> NumEntries(sp.MatrixSymbol("W", 3, 4))
    12
    >>> NumEntries(sp.MatrixSymbol("W", d, d / h)).expanded()
    d**2/h
    """

    nargs = 1

    @classmethod
    def eval(cls, M):
        if not isinstance(M, (MatrixExpr, sp.MatrixBase)):
            raise TypeError(f"NumEntries takes a matrix, got {type(M).__name__}")
        rows, cols = M.shape
        if sp.sympify(rows).is_Integer and sp.sympify(cols).is_Integer:
            return sp.Integer(rows * cols)
        return None

    def expanded(self):
        rows, cols = self.args[0].shape
        return rows * cols

    def _eval_is_integer(self):
        return True

    def _eval_is_positive(self):
        return True

    def _latex(self, printer, exp=None):
        tex = r"\#\left(%s\right)" % printer._print(self.args[0])
        return tex if exp is None else r"%s^{%s}" % (tex, exp)



define("num_entries", NumEntries, lambda e: e.expanded(), text=r"\#(W) = \text{rows}(W)\,\text{cols}(W)")
