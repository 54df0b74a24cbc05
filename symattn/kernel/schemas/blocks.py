r"""Axiom schemas of operators block diagonal on coordinate pairs (RoPE, :mod:`symattn.maths.rope`).

The kernel reads the block structure of a ``2B x 2B`` expression built from symattn's pair-block
operators (:class:`~symattn.maths.rope.Rope`, :class:`~symattn.maths.rope.PairBlockDiagonal`, identities, zero
matrices, their transposes, products, sums, scalar multiples free of the block index, and conjugation
``Pi D Pi^T`` by :class:`~symattn.maths.rope.PairPermutation`, each row ``t_j(m)`` of ``Pi`` shown to have its 1
in column ``s_j(m)`` for every ``m`` in ``0..B-1``): :func:`block_form` gives ``B``, the pair layout and the
``2 x 2`` block at a block index ``m`` the kernel makes fresh. Numbers of blocks are compared by the zero
test, even dimensions by the declared assumptions; operators of different layouts are refused.

* ``blockwise_form``: a bilinear form or inner product of ``2B``-vectors with block-diagonal operators
  (or a linear combination of such, coefficients free of ``m``), or a sum over ``m = 0..B-1``, equals
  ``sum_{m=0}^{B-1} f(m)`` with ``f(m)`` its per-block form (``<A_m u_(m), C_m v_(m)>``), the 2-dimensional
  objects written out by their definitions.
* ``blockwise_equal``: two block-diagonal operators with the same ``B`` and compatible layouts are equal
  when their ``2 x 2`` blocks at the fresh ``m`` are equal, entry by entry, by the zero test or by the
  addition formulas (:func:`~symattn.kernel.schemas.trig.trig_zero`).
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.axioms import schema
from symattn.kernel.terms import KernelError, canonical, free_symbols

__all__ = ["block_form", "per_block_scalar", "block_index"]


def _equal(a: Any, b: Any) -> bool:
    from symattn.kernel.zero import equal

    return equal(a, b)


def block_index() -> sp.Dummy:
    """The generic block index ``m`` (an integer ``>= 0``; ``m <= B - 1`` is used where it is needed)."""
    return sp.Dummy("m", integer=True, nonnegative=True)


def _rope():
    import symattn.kernel.objects.rotations as rope

    return rope


def _own(x: Any, cls) -> bool:
    """``x`` is an instance of symattn's own ``cls`` (a subclass defined elsewhere is not trusted)."""
    return isinstance(x, cls) and type(x).__module__ == "symattn.kernel.objects.rotations"


class _Blocks:
    """A ``2B x 2B`` operator seen as ``B`` blocks ``2 x 2`` on the pairs of ``layout`` (``None``: any)."""

    def __init__(self, B, layout, block):
        self.B, self.layout, self.block = B, layout, block


def _same_B(a, b, what: str) -> None:
    if not _equal(a, b):
        raise KernelError(f"{what}: numbers of blocks differ ({a} vs {b})")


def _join_layouts(layouts, what: str):
    named = {x for x in layouts if x is not None}
    if len(named) > 1:
        raise KernelError(f"{what}: operators with different pair layouts {sorted(named)} are not block diagonal "
                          "in a common layout")
    return named.pop() if named else None


def _half_dimension(n: Any, what: str):
    B = sp.sympify(n) / 2
    if B.is_integer is not True:
        raise KernelError(f"{what}: dimension {n} is not known to be even")
    return B


def _check_permutation(P, m) -> None:
    """Row ``t_j(m)`` (target layout) of ``P`` has its 1 in column ``s_j(m)`` (source layout), every ``m``
    in ``0..B-1``."""
    rope = _rope()
    B = P.num_blocks
    if B.is_Integer:
        points = [(sp.Integer(k), {}) for k in range(int(B))]
    elif B.is_Symbol:
        r = sp.Dummy("r", integer=True, nonnegative=True)
        points = [(m, {B: m + 1 + r})]  # m <= B - 1: B = m + 1 + r with r >= 0
    else:
        raise KernelError(f"the number of blocks of {P} must be an integer or a symbol, got {B}")
    for mm, sub in points:
        targets = rope.pair_coordinates(mm, B, P.target)
        sources = rope.pair_coordinates(mm, B, P.source)
        for t, s in zip(targets, sources):
            col = sp.piecewise_fold(P.column(t).xreplace(sub) if sub else P.column(t))
            want = s.xreplace(sub) if sub else s
            if isinstance(col, sp.Piecewise) or not _equal(col, want):
                raise KernelError(f"cannot show that row {t} of the permutation has its 1 in column {s} "
                                  f"(found {sp.sstr(col)})")


def block_form(M: Any, m) -> _Blocks:
    """The block structure of a matrix expression built from pair-block-diagonal operators."""
    rope = _rope()
    if _own(M, rope.PairPermutation):
        raise KernelError("a permutation is not block diagonal; only P D P^T (conjugation) is")
    if _own(M, rope._PairBlocks):
        return _Blocks(M.num_blocks, M.convention, M.block(m))
    if type(M) is sp.Identity:
        return _Blocks(_half_dimension(M.rows, "identity"), None, sp.Identity(2))
    if type(M) is sp.ZeroMatrix:
        if not _equal(M.rows, M.cols):
            raise KernelError("a non-square zero matrix is not block diagonal")
        return _Blocks(_half_dimension(M.rows, "zero matrix"), None, sp.ZeroMatrix(2, 2))
    if type(M) is sp.Transpose:
        inner = block_form(M.arg, m)
        return _Blocks(inner.B, inner.layout, sp.Transpose(inner.block))
    if type(M) is sp.MatMul:
        scalars = [a for a in M.args if not isinstance(a, (MatrixExpr, sp.MatrixBase))]
        mats = [a for a in M.args if isinstance(a, (MatrixExpr, sp.MatrixBase))]
        coeff = sp.Mul(*scalars)
        if m in free_symbols(coeff):
            raise KernelError("a scalar factor depends on the block index")
        first, last = mats[0], mats[-1]
        if (len(mats) >= 3 and _own(first, rope.PairPermutation) and type(last) is sp.Transpose
                and _own(last.arg, rope.PairPermutation)):
            _same_B(first.num_blocks, last.arg.num_blocks, "P D P^T")
            inner = block_form(sp.MatMul(*mats[1:-1]) if len(mats) > 3 else mats[1], m)
            _same_B(inner.B, first.num_blocks, "P D P^T")
            if inner.layout not in (None, first.source):
                raise KernelError(f"P maps the {first.source} layout to the {first.target} layout; the operator "
                                  f"between P and P^T is in the {inner.layout} layout")
            _check_permutation(first, m)
            return _Blocks(inner.B, first.target if inner.layout else None, coeff * inner.block)
        parts = [block_form(a, m) for a in mats]
        for p in parts[1:]:
            _same_B(parts[0].B, p.B, "product")
        layout = _join_layouts([p.layout for p in parts], "product")
        return _Blocks(parts[0].B, layout, coeff * sp.MatMul(*[p.block for p in parts]))
    if type(M) is sp.MatAdd:
        parts = [block_form(a, m) for a in M.args]
        for p in parts[1:]:
            _same_B(parts[0].B, p.B, "sum")
        layout = _join_layouts([p.layout for p in parts], "sum")
        return _Blocks(parts[0].B, layout, sp.MatAdd(*[p.block for p in parts]))
    raise KernelError(f"{sp.sstr(M)} is not known to be block diagonal on coordinate pairs")


def _split_applied(x: Any):
    """``x = A u`` with ``A`` a product of operators (or nothing) and ``u`` a column leaf."""
    if type(x) is sp.MatMul:
        args = list(x.args)
        leaf = args[-1]
        if not (isinstance(leaf, MatrixExpr) and leaf.shape[1] == 1):
            raise KernelError(f"{sp.sstr(x)}: the last factor must be a column vector")
        rest = args[:-1]
        return (sp.MatMul(*rest) if len(rest) > 1 or isinstance(rest[0], MatrixExpr) else rest[0]), leaf
    if isinstance(x, MatrixExpr) and x.shape[1] == 1:
        return None, x
    raise KernelError(f"{sp.sstr(x)} is not a column vector (operator times vector)")


def _applied_block(x: Any, m):
    """``(B, layout, A_m, leaf)`` for a column ``x = A u``."""
    rope = _rope()
    A, leaf = _split_applied(x)
    B = _half_dimension(leaf.shape[0], f"vector {leaf}")
    if isinstance(leaf, (rope.PairOf, sp.MatrixBase)):
        raise KernelError(f"{sp.sstr(leaf)} is already a 2-vector, not a 2B-vector")
    if A is None:
        return B, None, sp.Identity(2), leaf
    if not isinstance(A, (MatrixExpr, sp.MatrixBase)):  # a scalar coefficient
        if m in free_symbols(A):
            raise KernelError("a scalar factor depends on the block index")
        return B, None, A * sp.Identity(2), leaf
    bf = block_form(A, m)
    _same_B(bf.B, B, f"operator applied to {leaf}")
    return B, bf.layout, bf.block, leaf


def _global_term(form: Any, m):
    """``(B, f(m))`` with ``form = sum_{m=0}^{B-1} f(m)``, for an inner product or bilinear form."""
    rope = _rope()
    if _own(form, rope.Inner):
        x, y = form.args
        Bx, Lx, Ax, u = _applied_block(x, m)
        By, Ly, Ay, v = _applied_block(y, m)
        _same_B(Bx, By, "inner product")
        layout = _join_layouts([Lx, Ly], "inner product") or "interleaved"
        return Bx, rope.Inner(sp.MatMul(Ax, rope.PairOf(u, m, layout)), sp.MatMul(Ay, rope.PairOf(v, m, layout)))
    if _own(form, rope.Bilinear):
        x, M, y = form.args
        Bx, Lx, Ax, u = _applied_block(x, m)
        By, Ly, Ay, v = _applied_block(y, m)
        bf = block_form(M, m)
        _same_B(Bx, By, "bilinear form")
        _same_B(Bx, bf.B, "bilinear form")
        layout = _join_layouts([Lx, Ly, bf.layout], "bilinear form") or "interleaved"
        return Bx, rope.Bilinear(sp.MatMul(Ax, rope.PairOf(u, m, layout)), bf.block,
                                 sp.MatMul(Ay, rope.PairOf(v, m, layout)))
    raise KernelError(f"{sp.sstr(form)} is not an inner product or bilinear form")


def per_block_scalar(expr: Any, m):
    """``(B, f(m))`` with ``expr = sum_{m=0}^{B-1} f(m)``: a sum over blocks, or a linear combination
    (coefficients free of ``m``) of inner products / bilinear forms on ``2B``-vectors."""
    rope = _rope()
    if type(expr) is sp.Sum:
        if len(expr.limits) != 1:
            raise KernelError("only single sums over the block index are supported")
        j, lo, hi = expr.limits[0]
        if not _equal(lo, 0):
            raise KernelError(f"a sum over blocks starts at m = 0, this one at {lo}")
        return hi + 1, expr.function.xreplace({j: m})
    if _own(expr, rope.Inner) or _own(expr, rope.Bilinear):
        return _global_term(expr, m)
    if type(expr) is sp.Add:
        parts = [per_block_scalar(a, m) for a in expr.args]
        for p in parts[1:]:
            _same_B(parts[0][0], p[0], "sum of forms")
        return parts[0][0], sp.Add(*[p[1] for p in parts])
    if type(expr) is sp.Mul:
        inner = [a for a in expr.args if _own(a, rope.Inner) or _own(a, rope.Bilinear) or type(a) in (sp.Sum, sp.Add)]
        if len(inner) != 1:
            raise KernelError(f"{sp.sstr(expr)}: expected one form times a constant")
        coeff = sp.Mul(*[a for a in expr.args if a is not inner[0]])
        if m in free_symbols(coeff):
            raise KernelError("a coefficient depends on the block index")
        B, f = per_block_scalar(inner[0], m)
        return B, coeff * f
    raise KernelError(f"{sp.sstr(expr)} is neither a sum over blocks nor a bilinear form on pair-structured vectors")


@schema("blockwise_form", "<A u, C v> = sum_{m=0}^{B-1} <A_m u_(m), C_m v_(m)> (and u^T M v, linear combinations "
                          "with coefficients free of m, sums over m = 0..B-1) for operators block diagonal on "
                          "coordinate pairs with the same B and layout, vectors of 2B rows; the 2-dimensional "
                          "objects written out")
def _blockwise_form(expr: Any):
    from symattn.kernel.schemas.trig import explicit_small

    e = canonical(expr)
    if isinstance(e, (MatrixExpr, sp.MatrixBase)):
        raise KernelError("blockwise_form: a scalar (a bilinear form or a sum over blocks) is needed")
    m = block_index()
    B, f = per_block_scalar(e, m)
    return e, canonical(sp.Sum(explicit_small(f), (m, 0, B - 1))), "="


def _entries_equal(a: Any, b: Any) -> bool:
    from symattn.kernel.schemas.trig import _entries

    if a == b:
        return True
    is_mat = [isinstance(x, (sp.MatrixBase, MatrixExpr)) for x in (a, b)]
    if not all(is_mat) or tuple(a.shape) != tuple(b.shape):
        return False
    return all(x == y or _equal(x, y) or _trig_equal(x, y) for x, y in zip(_entries(a), _entries(b)))


def _trig_equal(x: Any, y: Any) -> bool:
    """``x = y`` by the addition formulas, the second engine asked too (recorded for the step; a
    disagreement refuses)."""
    from symattn.kernel.schemas.trig import trig_zero
    from symattn.kernel.zero import _refused

    if not trig_zero(x - y):
        return False
    both = _refused(canonical(x - y))
    if both:
        raise KernelError(f"blockwise_equal: {both}")
    return True


@schema("blockwise_equal", "D = D' for operators block diagonal on coordinate pairs with the same number of blocks "
                           "B and compatible layouts, when their 2 x 2 blocks at a fresh block index m are equal "
                           "entry by entry (the zero test, or the addition formulas)")
def _blockwise_equal(lhs: Any, rhs: Any):
    from symattn.kernel.schemas.trig import explicit_small

    a, b = canonical(lhs), canonical(rhs)
    if not (isinstance(a, MatrixExpr) and isinstance(b, MatrixExpr)):
        raise KernelError("blockwise_equal: both sides must be matrix expressions")
    m = block_index()
    L, R = block_form(a, m), block_form(b, m)
    _same_B(L.B, R.B, "the two sides")
    if L.layout is not None and R.layout is not None and L.layout != R.layout:
        raise KernelError(f"the sides are block diagonal in different layouts ({L.layout} vs {R.layout})")
    x, y = explicit_small(L.block), explicit_small(R.block)
    if not _entries_equal(x, y):
        raise KernelError(f"the blocks differ: {sp.sstr(x)} vs {sp.sstr(y)}")
    return a, b, "="
