r"""Rotations of coordinate pairs: the objects of rotary position embeddings (RoPE) and the sinusoidal
encoding for a symbolic number of blocks ``B`` -- :class:`Rotation`, :class:`PairBlockDiagonal`,
:class:`Rope`, :class:`PairPermutation`, :class:`SinusoidalEncoding`, the pair selector :class:`PairOf`,
and the scalars :class:`Inner` (:math:`\langle x, y\rangle`) and :class:`Bilinear` (:math:`u^\top M v`)
-- with the plane rotation :func:`rotation`, the frequencies and the pair layouts they are made of.

The trigonometric and block schemas (:mod:`symattn.kernel.schemas.trig`,
:mod:`symattn.kernel.schemas.blocks`) and the index bounds read them; :mod:`symattn.maths.rope` adds
the explicit matrices for concrete sizes and re-exports them. Indices are 0-based, as in the seed.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.core.symbol import Str
from sympy.matrices.expressions.matexpr import MatrixElement, MatrixExpr

from symattn.kernel.definitions import define
from symattn.kernel.terms import declare_binder

__all__ = ["CONVENTIONS", "DEFAULT_BASE", "rotation", "rope_frequency", "pair_coordinates", "Rotation",
           "PairBlockDiagonal", "Rope", "PairPermutation", "PairOf", "SinusoidalEncoding", "Inner", "Bilinear"]


#: the two layouts of coordinate pairs
CONVENTIONS = ("interleaved", "half")



#: RoFormer's and the original transformer's frequency base
DEFAULT_BASE = 10000



# ----------------------------------------------------------------------------- validation
def _convention(convention: Any) -> str:
    name = convention.name if isinstance(convention, Str) else convention
    if name not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    return name



def _num_blocks(B: Any, what: str) -> sp.Expr:
    B = sp.sympify(B, strict=True) if isinstance(B, int) and not isinstance(B, bool) else B
    if not isinstance(B, sp.Expr):
        raise TypeError(f"{what}: the number of blocks must be an int or a SymPy expression, got {B!r}")
    if B.is_integer is False or B.is_positive is False:
        raise ValueError(f"{what}: the number of blocks must be a positive integer, got {B}")
    if B.is_number and not (B.is_Integer and B > 0):
        raise ValueError(f"{what}: the number of blocks must be a positive integer, got {B}")
    return B



def _scalar(x: Any, what: str) -> sp.Expr:
    if isinstance(x, bool):
        raise TypeError(f"{what} must be a number or a SymPy expression, got {x!r}")
    if isinstance(x, (int, float)):
        return sp.sympify(x, strict=True)
    if isinstance(x, sp.Expr) and not isinstance(x, MatrixExpr):
        return x
    raise TypeError(f"{what} must be a number or a SymPy scalar expression, got {type(x).__name__}: {x!r}")



# ----------------------------------------------------------------------------- explicit helpers
def rotation(theta: Any) -> sp.ImmutableMatrix:
    r"""The counter-clockwise rotation of the plane by ``theta``.

    Examples
    --------
    Counter-clockwise: :math:`e_1 = (1, 0)` goes to :math:`(0, 1)` at a quarter turn.

    >>> import sympy as sp
    >>> rotation(sp.pi / 2) * sp.Matrix([1, 0])
    Matrix([
    [0],
    [1]])
    >>> rotation(sp.Symbol("t"))
    Matrix([
    [cos(t), -sin(t)],
    [sin(t),  cos(t)]])
    """
    t = _scalar(theta, "rotation angle")
    return sp.ImmutableMatrix([[sp.cos(t), -sp.sin(t)], [sp.sin(t), sp.cos(t)]])



def rope_frequency(m: Any, d: Any, base: Any = DEFAULT_BASE) -> sp.Expr:
    r""":math:`\theta_m = \text{base}^{-2m/d}`, the angular frequency of pair ``m``.

    >>> rope_frequency(1, 4, base=100)      # 100^(-2/4)
    1/10
    >>> rope_frequency(0, 8)                # the first pair turns by one radian per position
    1
    """
    m, d, base = _scalar(m, "m"), _scalar(d, "d"), _scalar(base, "base")
    if base.is_positive is False:
        raise ValueError(f"base must be positive, got {base}")
    return base ** (-2 * m / d)



def pair_coordinates(m: Any, B: Any, convention: str = "interleaved") -> tuple:
    """The two coordinates (0-based) rotated by block ``m`` of ``B`` under ``convention``.

    >>> pair_coordinates(1, 3), pair_coordinates(1, 3, "half")
    ((2, 3), (1, 4))
    """
    conv = _convention(convention)
    m = _scalar(m, "m")
    B = _num_blocks(B, "pair_coordinates")
    if conv == "interleaved":
        return (2 * m, 2 * m + 1)
    return (m, m + B)



def _locate(i: int, B: int, convention: str) -> tuple[int, int]:
    """(block, position in the pair) of coordinate ``i``; the inverse of :func:`pair_coordinates`."""
    if convention == "interleaved":
        return i // 2, i % 2
    return i % B, i // B



# ----------------------------------------------------------------------------- 2 x 2 rotation
class Rotation(MatrixExpr):
    r"""Unevaluated counter-clockwise rotation :math:`R(\theta)` of the plane (a ``2 x 2`` matrix).

    ``doit()`` (and the definition ``"rotation"``) gives :func:`rotation`.

    >>> import sympy as sp
    >>> t = sp.Symbol("t")
    >>> Rotation(t).shape, Rotation(t).doit() == rotation(t)
    ((2, 2), True)
    """

    def __new__(cls, theta):
        return super().__new__(cls, _scalar(theta, "rotation angle"))

    @property
    def angle(self) -> sp.Expr:
        return self.args[0]

    @property
    def shape(self):
        return (sp.Integer(2), sp.Integer(2))

    def explicit(self) -> sp.ImmutableMatrix:
        return rotation(self.angle)

    def _entry(self, i, j, **kwargs):
        return self.explicit()[i, j]

    def doit(self, **hints):
        return self.explicit()

    def _latex(self, printer):
        return r"R\left(%s\right)" % printer._print(self.angle)



# ----------------------------------------------------------------------------- block-diagonal operators
class _PairBlocks(MatrixExpr):
    """Common part of the ``(2B x 2B)`` operators made of ``2 x 2`` blocks on coordinate pairs."""

    @property
    def num_blocks(self) -> sp.Expr:
        raise NotImplementedError

    @property
    def convention(self) -> str:
        raise NotImplementedError

    def block(self, m) -> Any:  # pragma: no cover - overridden
        """The ``2 x 2`` block acting on pair ``m`` (a matrix expression)."""
        raise NotImplementedError

    @property
    def shape(self):
        return (2 * self.num_blocks, 2 * self.num_blocks)

    def explicit(self) -> sp.ImmutableMatrix:
        B = self.num_blocks
        if not B.is_Integer:
            raise ValueError(f"an explicit matrix needs a concrete number of blocks, got B = {B}")
        return sp.ImmutableMatrix(2 * int(B), 2 * int(B), lambda i, j: self._entry(i, j))

    def _entry(self, i, j, **kwargs):
        B = self.num_blocks
        if not (B.is_Integer and sp.sympify(i).is_Integer and sp.sympify(j).is_Integer):
            return MatrixElement(self, i, j)
        (mi, a), (mj, b) = _locate(int(i), int(B), self.convention), _locate(int(j), int(B), self.convention)
        if mi != mj:
            return sp.S.Zero
        blk = self.block(sp.Integer(mi))
        blk = blk.doit() if isinstance(blk, MatrixExpr) else blk
        return blk[a, b]

    def doit(self, **hints):
        return self.explicit() if self.num_blocks.is_Integer else self



class PairBlockDiagonal(_PairBlocks):
    r"""The block-diagonal operator :math:`\operatorname{diag}_{m=0}^{B-1} A_m` whose ``m``-th
    ``2 x 2`` block ``A_m = blocks(m)`` acts on the pair of coordinates of ``convention``.

    ``blocks`` is a one-argument :class:`~sympy.Lambda` whose body is a ``2 x 2`` matrix
    (explicit or a matrix expression such as :class:`Rotation`).

    >>> import sympy as sp
    >>> m = sp.Symbol("m", integer=True, nonnegative=True)
    >>> D = PairBlockDiagonal(sp.Lambda(m, Rotation(m)), 2)
    >>> D.shape, D.block(1)
    ((4, 4), Rotation(1))
    """

    def __new__(cls, blocks, B, convention="interleaved"):
        if not isinstance(blocks, sp.Lambda) or len(blocks.variables) != 1:
            raise TypeError(f"blocks must be a one-argument Lambda m -> 2x2 matrix, got {blocks!r}")
        body = blocks.expr
        if not (hasattr(body, "shape") and tuple(body.shape) == (2, 2)):
            raise ValueError(f"each block must be a 2x2 matrix, got {body!r}")
        B = _num_blocks(B, "PairBlockDiagonal")
        return super().__new__(cls, blocks, B, Str(_convention(convention)))

    @property
    def blocks(self) -> sp.Lambda:
        return self.args[0]

    @property
    def num_blocks(self) -> sp.Expr:
        return self.args[1]

    @property
    def convention(self) -> str:
        return self.args[2].name

    def block(self, m):
        return self.blocks(m)

    def _latex(self, printer):
        m = self.blocks.variables[0]
        return r"\operatorname{diag}_{%s=0}^{%s}\left(%s\right)" % (
            printer._print(m),
            printer._print(self.num_blocks - 1),
            printer._print(self.blocks.expr),
        )



class Rope(_PairBlocks):
    r"""The RoPE operator :math:`R_p` on :math:`\mathbb{R}^{2B}`: block ``m`` is the rotation
    :math:`R(\theta_m p)`, :math:`\theta_m = \text{base}^{-2m/d} = \text{base}^{-m/B}`, on the pair of
    coordinates of ``convention``.

    For concrete ``B``, ``doit()`` gives :func:`rope_matrix`; for symbolic ``B`` it stays a
    ``(2B x 2B)`` matrix expression that the ``block_diagonal_product`` rule cuts into blocks.

    >>> import sympy as sp
    >>> p = sp.Symbol("p", real=True); B = sp.Symbol("B", integer=True, positive=True)
    >>> m = sp.Symbol("m", integer=True, nonnegative=True)
    >>> R = Rope(p, B)
    >>> R.shape, R.block(m)
    ((2*B, 2*B), Rotation(p/10000**(m/B)))
    """

    def __new__(cls, p, B, base=DEFAULT_BASE, convention="interleaved"):
        p = _scalar(p, "position p")
        B = _num_blocks(B, "Rope")
        base = _scalar(base, "base")
        if base.is_positive is False:
            raise ValueError(f"Rope: base must be positive, got {base}")
        return super().__new__(cls, p, B, base, Str(_convention(convention)))

    @property
    def position(self) -> sp.Expr:
        return self.args[0]

    @property
    def num_blocks(self) -> sp.Expr:
        return self.args[1]

    @property
    def base(self) -> sp.Expr:
        return self.args[2]

    @property
    def convention(self) -> str:
        return self.args[3].name

    def frequency(self, m) -> sp.Expr:
        return rope_frequency(m, 2 * self.num_blocks, self.base)

    def block(self, m):
        # the angle is expanded so that theta_m (p' - p) reads theta_m p' - theta_m p
        return Rotation(sp.expand(self.frequency(m) * self.position))

    def _latex(self, printer):
        tag = "" if self.convention == "interleaved" else r"^{\mathrm{half}}"
        return r"R%s_{%s}" % (tag, printer._print(self.position))



class PairPermutation(_PairBlocks):
    r"""The permutation matrix :math:`\Pi` on :math:`\mathbb{R}^{2B}` sending the interleaved
    layout to the half layout: :math:`(\Pi x)_i = x_{c(i)}` with :math:`c(i) = 2i` for
    :math:`i < B` and :math:`c(i) = 2(i - B) + 1` for :math:`i \ge B`.

    Row ``i`` has its single 1 in column :meth:`column` ``(i)``.

    >>> import sympy as sp
    >>> PairPermutation(3).explicit() * sp.Matrix(sp.symbols("x0:6"))
    Matrix([
    [x0],
    [x2],
    [x4],
    [x1],
    [x3],
    [x5]])
    """

    def __new__(cls, B):
        return super().__new__(cls, _num_blocks(B, "PairPermutation"))

    @property
    def num_blocks(self) -> sp.Expr:
        return self.args[0]

    #: the layouts it maps between: P (source-layout operator) P^T = target-layout operator
    source = "interleaved"
    target = "half"

    @property
    def convention(self) -> str:  # not block diagonal; _entry is overridden
        raise TypeError("a permutation has no block layout")

    def column(self, i) -> sp.Expr:
        """The column holding the 1 of row ``i`` (a Piecewise for symbolic ``i``)."""
        i = _scalar(i, "row index")
        B = self.num_blocks
        return sp.Piecewise((2 * i, sp.Lt(i, B)), (2 * (i - B) + 1, True))

    def _entry(self, i, j, **kwargs):
        return sp.KroneckerDelta(j, self.column(i))

    def explicit(self) -> sp.ImmutableMatrix:
        B = self.num_blocks
        if not B.is_Integer:
            raise ValueError(f"an explicit matrix needs a concrete number of blocks, got B = {B}")
        n = 2 * int(B)
        return sp.ImmutableMatrix(n, n, lambda i, j: 1 if j == self.column(i) else 0)

    def _latex(self, printer):
        return r"\Pi"



class SinusoidalEncoding(MatrixExpr):
    r"""The sinusoidal position encoding :math:`\mathrm{PE}(p) \in \mathbb{R}^{d}`, ``d = 2B``, as a
    column: :math:`\mathrm{PE}(p)_{2m} = \sin(p\,\omega_m)`, :math:`\mathrm{PE}(p)_{2m+1} = \cos(p\,\omega_m)`,
    :math:`\omega_m = \text{base}^{-2m/d}` (seed 000, Definition "Sinusoidal positional encoding").

    Entries with an index of known parity inside ``0..2B-1`` evaluate; an index not known to be inside
    (``2m`` for a nonnegative integer ``m`` with no upper bound) stays an unevaluated entry:

    >>> import sympy as sp
    >>> p = sp.Symbol("p", real=True); B = sp.Symbol("B", integer=True, positive=True)
    >>> m = sp.Symbol("m", integer=True, nonnegative=True)
    >>> SinusoidalEncoding(p, 2)[2, 0], SinusoidalEncoding(p, 2)[3, 0]
    (sin(p/100), cos(p/100))
    >>> SinusoidalEncoding(p, B)[2*m, 0]
    SinusoidalEncoding(p, B, 10000)[2*m, 0]
    """

    def __new__(cls, p, B, base=DEFAULT_BASE):
        p = _scalar(p, "position p")
        B = _num_blocks(B, "SinusoidalEncoding")
        base = _scalar(base, "base")
        if base.is_positive is False:
            raise ValueError(f"SinusoidalEncoding: base must be positive, got {base}")
        return super().__new__(cls, p, B, base)

    @property
    def position(self) -> sp.Expr:
        return self.args[0]

    @property
    def num_blocks(self) -> sp.Expr:
        return self.args[1]

    @property
    def base(self) -> sp.Expr:
        return self.args[2]

    @property
    def shape(self):
        return (2 * self.num_blocks, sp.Integer(1))

    def frequency(self, m) -> sp.Expr:
        return rope_frequency(m, 2 * self.num_blocks, self.base)

    def coordinate(self, i) -> sp.Expr:
        """Coordinate ``i`` (0-based) by the formula, for an ``i`` the caller has shown inside
        ``0..2B-1`` (:class:`PairOf` does, through the kernel's bound on its block); ``None`` when the
        parity of ``i`` is not known."""
        i = sp.sympify(i)
        p = self.position
        # angles expanded, as in Rope.block: omega_m (p + D) reads omega_m p + omega_m D
        if i.is_even:
            return sp.sin(sp.expand(p * self.frequency(i / 2)))
        if i.is_odd:
            return sp.cos(sp.expand(p * self.frequency((i - 1) / 2)))
        return None

    def _entry(self, i, j, **kwargs):
        # SymPy reads PE[i, j] here when it is built, with no hypothesis in sight: the formula is given
        # only for an index its assumptions put inside 0..2B-1 (PE[2m, 0] for m in 0..B stays an
        # unevaluated element, which nothing unfolds: the formula would run past the vector)
        i = sp.sympify(i)
        inside = (sp.sympify(i).is_nonnegative is True and (2 * self.num_blocks - 1 - i).is_nonnegative is True
                  and sp.sympify(j).is_zero is True)
        got = self.coordinate(i) if inside else None
        return MatrixElement(self, i, j) if got is None else got

    def explicit(self) -> sp.ImmutableMatrix:
        B = self.num_blocks
        if not B.is_Integer:
            raise ValueError(f"an explicit vector needs a concrete number of blocks, got B = {B}")
        return sp.ImmutableMatrix(2 * int(B), 1, lambda i, j: self._entry(sp.Integer(i), 0))

    def doit(self, **hints):
        return self.explicit() if self.num_blocks.is_Integer else self

    def _latex(self, printer):
        return r"\mathrm{PE}\left(%s\right)" % printer._print(self.position)



class PairOf(MatrixExpr):
    r"""The ``2 x 1`` pair of coordinates of block ``m`` of a ``(2B x 1)`` vector ``v``:
    :math:`v_{(m)} = (v_{2m}, v_{2m+1})` (interleaved) or :math:`(v_m, v_{m+B})` (half).

    >>> import sympy as sp
    >>> B = sp.Symbol("B", integer=True, positive=True); m = sp.Symbol("m", integer=True, nonnegative=True)
    >>> q = sp.MatrixSymbol("q", 2*B, 1)
    >>> PairOf(q, m).doit().T, PairOf(q, m, "half").doit().T
    (Matrix([[q[2*m, 0], q[2*m + 1, 0]]]), Matrix([[q[m, 0], q[B + m, 0]]]))
    """

    def __new__(cls, v, m, convention="interleaved"):
        if not (isinstance(v, MatrixExpr) and v.shape[1] == 1):
            raise TypeError(f"PairOf needs a column vector (a matrix expression of shape (2B, 1)), got {v!r}")
        rows = v.shape[0]
        if not (rows / 2).is_integer:
            raise ValueError(f"PairOf needs an even number of rows, got {rows}")
        return super().__new__(cls, v, _scalar(m, "block index m"), Str(_convention(convention)))

    @property
    def vector(self):
        return self.args[0]

    @property
    def index(self) -> sp.Expr:
        return self.args[1]

    @property
    def convention(self) -> str:
        return self.args[2].name

    @property
    def shape(self):
        return (sp.Integer(2), sp.Integer(1))

    def explicit(self) -> sp.ImmutableMatrix:
        i0, i1 = pair_coordinates(self.index, self.vector.shape[0] / 2, self.convention)
        v = self.vector
        if isinstance(v, SinusoidalEncoding):  # the block is inside 0..B-1 (the kernel's bound on PairOf)
            pair = [v.coordinate(i0), v.coordinate(i1)]
            if all(c is not None for c in pair):
                return sp.ImmutableMatrix(pair)
        return sp.ImmutableMatrix([v[i0, 0], v[i1, 0]])

    def _entry(self, i, j, **kwargs):
        return self.explicit()[i, j]

    def doit(self, **hints):
        return self.explicit()

    def _latex(self, printer):
        v = printer._print(self.vector)
        if not isinstance(self.vector, sp.MatrixSymbol):
            v = r"\left(%s\right)" % v
        return r"%s_{(%s)}" % (v, printer._print(self.index))



# ----------------------------------------------------------------------------- scalars
def _column(x: Any, what: str):
    if not (isinstance(x, (MatrixExpr, sp.MatrixBase)) and x.shape[1] == 1):
        raise TypeError(f"{what} must be a column vector (shape (n, 1)), got {x!r}")
    return x



class Inner(sp.Expr):
    r"""The unevaluated inner product :math:`\langle x, y\rangle = x^\top y` of two column vectors.

    ``doit()`` (definition ``"inner"``) evaluates it when the vectors are explicit.

    >>> import sympy as sp
    >>> a, b, c, d = sp.symbols("a b c d")
    >>> Inner(sp.ImmutableMatrix([a, b]), sp.ImmutableMatrix([c, d])).doit()
    a*c + b*d
    """

    is_commutative = True

    def __new__(cls, x, y):
        x, y = _column(x, "Inner: x"), _column(y, "Inner: y")
        if sp.simplify(x.shape[0] - y.shape[0]) != 0:
            raise ValueError(f"Inner: vectors of different lengths {x.shape[0]} and {y.shape[0]}")
        return super().__new__(cls, sp.ImmutableMatrix(x) if isinstance(x, sp.MatrixBase) else x,
                               sp.ImmutableMatrix(y) if isinstance(y, sp.MatrixBase) else y)

    def explicit(self) -> sp.Expr:
        x, y = (_explicit_matrix(a) for a in self.args)
        return (x.T * y)[0, 0]

    def doit(self, **hints):
        try:
            return self.explicit()
        except ValueError:
            return self

    def _latex(self, printer):
        return r"\left\langle %s,\, %s\right\rangle" % (printer._print(self.args[0]), printer._print(self.args[1]))



class Bilinear(sp.Expr):
    r"""The unevaluated bilinear form :math:`u^\top M v` (``u``, ``v`` columns, ``M`` a matrix).

    Kept unevaluated so that a proof can rewrite ``M`` (say :math:`R(a)^\top R(b)`) in place.

    >>> import sympy as sp
    >>> u = sp.ImmutableMatrix([1, 0]); v = sp.ImmutableMatrix([0, 1])
    >>> Bilinear(u, Rotation(sp.pi / 2), v).doit()        # (1, 0) R(pi/2) (0, 1)^T = -sin(pi/2)
    -1
    """

    is_commutative = True

    def __new__(cls, u, M, v):
        u, v = _column(u, "Bilinear: u"), _column(v, "Bilinear: v")
        if not isinstance(M, (MatrixExpr, sp.MatrixBase)):
            raise TypeError(f"Bilinear: M must be a matrix, got {M!r}")
        if sp.simplify(M.shape[0] - u.shape[0]) != 0 or sp.simplify(M.shape[1] - v.shape[0]) != 0:
            raise ValueError(f"Bilinear: shapes do not fit: u {u.shape}, M {M.shape}, v {v.shape}")
        fix = lambda a: sp.ImmutableMatrix(a) if isinstance(a, sp.MatrixBase) else a  # noqa: E731
        return super().__new__(cls, fix(u), fix(M), fix(v))

    def explicit(self) -> sp.Expr:
        u, M, v = (_explicit_matrix(a) for a in self.args)
        return (u.T * M * v)[0, 0]

    def doit(self, **hints):
        try:
            return self.explicit()
        except ValueError:
            return self

    def _latex(self, printer):
        u, M, v = (printer._print(a) for a in self.args)
        return r"%s^{\top} %s\, %s" % (u, M, v)



def _explicit_matrix(x: Any) -> sp.ImmutableMatrix:
    """An explicit matrix for ``x`` when its shape is concrete; ValueError otherwise."""
    if isinstance(x, sp.MatrixBase):
        return sp.ImmutableMatrix(x)
    done = x.doit()
    if isinstance(done, sp.MatrixBase):
        return sp.ImmutableMatrix(done)
    if all(sp.sympify(s).is_Integer for s in done.shape):
        return sp.ImmutableMatrix(done.as_explicit())
    raise ValueError(f"{x} has symbolic shape {done.shape}; no explicit form")



declare_binder(PairBlockDiagonal, lambda args: (sp.S.Zero, args[1] - 1))  # block m in 0..B-1
define("rotation", Rotation, lambda e: e.explicit(), text=r"R(t) = \begin{pmatrix}\cos t & -\sin t\\ \sin t & \cos "
                                                          r"t\end{pmatrix}")
define("pair", PairOf, lambda e: e.explicit(), text=r"v_{(m)} = (v_{2m}, v_{2m+1})")
define("inner", Inner, lambda e: e.doit(), text=r"\langle x, y\rangle = x^\top y")
define("bilinear", Bilinear, lambda e: e.doit(), text=r"u^\top M v")
