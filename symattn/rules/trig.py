r"""Trigonometric and block-diagonal rules: ``trig_identity`` and ``block_diagonal_product``.

``trig_identity``
    ``lhs = rhs`` when ``lhs - rhs`` reduces to exactly 0 by the addition formulas and
    :math:`\sin^2 + \cos^2 = 1`: both sides are expanded (arguments distributed, then
    :math:`\sin(a \pm b)`, :math:`\cos(a \pm b)` and integer multiples expanded by
    ``expand_trig``), every :math:`\cos^k x` with ``k >= 2`` is rewritten as
    :math:`\cos^{k-2}x\,(1 - \sin^2 x)`, and the result must be the polynomial 0. Each rewrite is
    an identity, so a pass is a proof; a failure shows the residual. Matrices are compared
    entrywise; sums with the same limits are compared through their bodies. No numerics.

``block_diagonal_product``
    Cuts expressions built from operators that are block diagonal on coordinate pairs
    (:class:`~symattn.rope.Rope`, :class:`~symattn.rope.PairBlockDiagonal`, identities, their
    transposes, products, sums, scalar multiples, and conjugation ``Pi D Pi^T`` by
    :class:`~symattn.rope.PairPermutation`) into their ``2 x 2`` blocks, for a *symbolic*
    number of blocks ``B`` (dimension ``d = 2B``). It justifies

    * ``<A u, C v> = sum_{m=0}^{B-1} <A_m u_(m), C_m v_(m)>`` (and ``u^T M v`` likewise):
      a bilinear form with block-diagonal operators is the sum of the per-block forms;
    * ``D = D'`` for two block-diagonal operators with the same layout: equal blocks;

    in either direction. The per-block expressions (``2 x 2``, in a symbolic block index ``m``)
    are compared exactly (``algebra``'s ``equal`` after evaluating the 2-dimensional objects).
    The rule checks that all operators of one bilinear form share ``B`` and the pair layout (an
    interleaved operator times a half-layout one is not block diagonal in either), that the
    vectors have ``2B`` rows, and that a sum runs over exactly ``m = 0, ..., B - 1``.
    For ``Pi D Pi^T`` it checks, from the entries of ``Pi``, that row ``t_j(m)`` of ``Pi`` (target
    layout) has its 1 in column ``s_j(m)`` (source layout) for every ``m`` in ``0..B-1``, so that
    :math:`(\Pi D \Pi^\top)_{t_i(m), t_j(m')} = D_{s_i(m), s_j(m')}`.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.axioms import axiom
from symattn.kernel.schemas.trig import _entries, explicit_small, trig_zero
from symattn.kernel.terms import KernelError
from symattn.rope import (
    Bilinear,
    Inner,
    PairOf,
    PairPermutation,
    _PairBlocks,
    pair_coordinates,
)
from symattn.rules import RuleError, failed, passed, proved, rule
from symattn.rules.algebra import equal

__all__ = ["trig_zero", "explicit_small", "block_form", "per_block_scalar"]


# ============================================================================= trig_identity
@rule("trig_identity", "lhs - rhs is 0 by the addition formulas and sin^2 + cos^2 = 1 (exact, entrywise)")
def check_trig_identity(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError(f"trig_identity justifies equalities only; this step is {relation!r}")
    try:
        return proved(axiom("trig_identity", lhs=lhs, rhs=rhs),
                      "the difference expands to 0 (addition formulas, sin^2 + cos^2 = 1)")
    except KernelError as exc:
        return failed(str(exc))


# ============================================================================= block structure
class _Blocks:
    """A (2B x 2B) operator seen as B blocks of size 2 x 2 on the pairs of ``layout``
    (``None``: any layout, e.g. the identity)."""

    def __init__(self, B, layout, block):
        self.B, self.layout, self.block = B, layout, block


def _same_B(a, b, what: str):
    if not equal(a, b):
        raise RuleError(f"{what}: numbers of blocks differ ({a} vs {b})")


def _join_layouts(layouts, what: str):
    named = {x for x in layouts if x is not None}
    if len(named) > 1:
        raise RuleError(
            f"{what}: operators with different pair layouts {sorted(named)} are not block diagonal in a common layout"
        )
    return named.pop() if named else None


def _half_dimension(n: Any, what: str):
    B = sp.sympify(n) / 2
    if B.is_integer is not True:
        raise RuleError(f"{what}: dimension {n} is not known to be even")
    return B


def _check_permutation(P: PairPermutation, m: sp.Symbol) -> None:
    """Row t_j(m) (target layout) of P has its 1 in column s_j(m) (source layout), for all m in 0..B-1."""
    B = P.num_blocks
    if B.is_Integer:
        points = [(sp.Integer(k), {}) for k in range(int(B))]
        Bm = {}
    elif B.is_Symbol:
        r = sp.Dummy("r", integer=True, nonnegative=True)
        # m <= B - 1 is not visible to SymPy's assumptions; write B = m + 1 + r with r >= 0
        Bm = {B: m + 1 + r}
        points = [(m, Bm)]
    else:
        raise RuleError(f"the number of blocks of {P} must be an integer or a symbol, got {B}")
    for mm, sub in points:
        targets = pair_coordinates(mm, B, P.target)
        sources = pair_coordinates(mm, B, P.source)
        for t, s in zip(targets, sources):
            col = P.column(t).xreplace(sub) if sub else P.column(t)
            col = sp.piecewise_fold(col)
            want = s.xreplace(sub) if sub else s
            if isinstance(col, sp.Piecewise) or not equal(col, want):
                raise RuleError(
                    f"cannot show that row {t} of the permutation has its 1 in column {s} (found {sp.sstr(col)})"
                )


def block_form(M: Any, m: sp.Symbol) -> _Blocks:
    """The block structure of a matrix expression built from pair-block-diagonal operators."""
    if isinstance(M, PairPermutation):
        raise RuleError("a permutation is not block diagonal; only P D P^T (conjugation) is")
    if isinstance(M, _PairBlocks):
        return _Blocks(M.num_blocks, M.convention, M.block(m))
    if isinstance(M, sp.Identity):
        return _Blocks(_half_dimension(M.rows, "identity"), None, sp.Identity(2))
    if isinstance(M, sp.ZeroMatrix):
        if not equal(M.rows, M.cols):
            raise RuleError("a non-square zero matrix is not block diagonal")
        return _Blocks(_half_dimension(M.rows, "zero matrix"), None, sp.ZeroMatrix(2, 2))
    if isinstance(M, sp.Transpose):
        inner = block_form(M.arg, m)
        return _Blocks(inner.B, inner.layout, sp.Transpose(inner.block))
    if isinstance(M, sp.MatMul):
        scalars = [a for a in M.args if not isinstance(a, (MatrixExpr, sp.MatrixBase))]
        mats = [a for a in M.args if isinstance(a, (MatrixExpr, sp.MatrixBase))]
        coeff = sp.Mul(*scalars)
        if m in getattr(coeff, "free_symbols", set()):
            raise RuleError("a scalar factor depends on the block index")
        first, last = mats[0], mats[-1]
        if (
            len(mats) >= 3
            and isinstance(first, PairPermutation)
            and isinstance(last, sp.Transpose)
            and isinstance(last.arg, PairPermutation)
        ):
            _same_B(first.num_blocks, last.arg.num_blocks, "P D P^T")
            inner = block_form(sp.MatMul(*mats[1:-1]) if len(mats) > 3 else mats[1], m)
            _same_B(inner.B, first.num_blocks, "P D P^T")
            if inner.layout not in (None, first.source):
                raise RuleError(
                    f"P maps the {first.source} layout to the {first.target} layout; "
                    f"the operator between P and P^T is in the {inner.layout} layout"
                )
            _check_permutation(first, m)
            return _Blocks(inner.B, first.target if inner.layout else None, coeff * inner.block)
        parts = [block_form(a, m) for a in mats]
        for p in parts[1:]:
            _same_B(parts[0].B, p.B, "product")
        layout = _join_layouts([p.layout for p in parts], "product")
        return _Blocks(parts[0].B, layout, coeff * sp.MatMul(*[p.block for p in parts]))
    if isinstance(M, sp.MatAdd):
        parts = [block_form(a, m) for a in M.args]
        for p in parts[1:]:
            _same_B(parts[0].B, p.B, "sum")
        layout = _join_layouts([p.layout for p in parts], "sum")
        return _Blocks(parts[0].B, layout, sp.MatAdd(*[p.block for p in parts]))
    raise RuleError(f"{sp.sstr(M)} is not known to be block diagonal on coordinate pairs")


def _split_applied(x: Any, m: sp.Symbol):
    """``x = A u`` with ``A`` a product of operators (or nothing) and ``u`` a column leaf."""
    if isinstance(x, sp.MatMul):
        args = list(x.args)
        leaf = args[-1]
        if not (isinstance(leaf, MatrixExpr) and leaf.shape[1] == 1):
            raise RuleError(f"{sp.sstr(x)}: the last factor must be a column vector")
        rest = args[:-1]
        return (sp.MatMul(*rest) if len(rest) > 1 or isinstance(rest[0], MatrixExpr) else rest[0]), leaf
    if isinstance(x, MatrixExpr) and x.shape[1] == 1:
        return None, x
    raise RuleError(f"{sp.sstr(x)} is not a column vector (operator times vector)")


def _applied_block(x: Any, m: sp.Symbol):
    """(B, layout, A_m, leaf) for a column ``x = A u``."""
    A, leaf = _split_applied(x, m)
    B = _half_dimension(leaf.shape[0], f"vector {leaf}")
    if isinstance(leaf, (PairOf, sp.MatrixBase)):
        raise RuleError(f"{sp.sstr(leaf)} is already a 2-vector, not a 2B-vector")
    if A is None:
        return B, None, sp.Identity(2), leaf
    if not isinstance(A, (MatrixExpr, sp.MatrixBase)):  # a scalar coefficient
        if m in getattr(A, "free_symbols", set()):
            raise RuleError("a scalar factor depends on the block index")
        return B, None, A * sp.Identity(2), leaf
    bf = block_form(A, m)
    _same_B(bf.B, B, f"operator applied to {leaf}")
    return B, bf.layout, bf.block, leaf


def _global_term(form: Any, m: sp.Symbol):
    """(B, f(m)) with form = sum_{m=0}^{B-1} f(m), for an inner product or bilinear form on 2B-vectors."""
    if isinstance(form, Inner):
        x, y = form.args
        Bx, Lx, Ax, u = _applied_block(x, m)
        By, Ly, Ay, v = _applied_block(y, m)
        _same_B(Bx, By, "inner product")
        layout = _join_layouts([Lx, Ly], "inner product") or "interleaved"
        body = Inner(sp.MatMul(Ax, PairOf(u, m, layout)), sp.MatMul(Ay, PairOf(v, m, layout)))
        return Bx, body
    if isinstance(form, Bilinear):
        x, M, y = form.args
        Bx, Lx, Ax, u = _applied_block(x, m)
        By, Ly, Ay, v = _applied_block(y, m)
        bf = block_form(M, m)
        _same_B(Bx, By, "bilinear form")
        _same_B(Bx, bf.B, "bilinear form")
        layout = _join_layouts([Lx, Ly, bf.layout], "bilinear form") or "interleaved"
        body = Bilinear(sp.MatMul(Ax, PairOf(u, m, layout)), bf.block, sp.MatMul(Ay, PairOf(v, m, layout)))
        return Bx, body
    raise RuleError(f"{sp.sstr(form)} is not an inner product or bilinear form")


def per_block_scalar(expr: Any, m: sp.Symbol):
    """(B, f(m)) such that ``expr = sum_{m=0}^{B-1} f(m)``: a sum over blocks, or a linear
    combination (coefficients free of ``m``) of inner products / bilinear forms on 2B-vectors."""
    if isinstance(expr, sp.Sum):
        if len(expr.limits) != 1:
            raise RuleError("only single sums over the block index are supported")
        j, lo, hi = expr.limits[0]
        if not equal(lo, 0):
            raise RuleError(f"a sum over blocks starts at m = 0, this one at {lo}")
        return hi + 1, expr.function.xreplace({j: m})
    if isinstance(expr, (Inner, Bilinear)):
        return _global_term(expr, m)
    if isinstance(expr, sp.Add):
        parts = [per_block_scalar(a, m) for a in expr.args]
        for p in parts[1:]:
            _same_B(parts[0][0], p[0], "sum of forms")
        return parts[0][0], sp.Add(*[p[1] for p in parts])
    if isinstance(expr, sp.Mul):
        inner = [a for a in expr.args if isinstance(a, (Inner, Bilinear, sp.Sum, sp.Add))]
        if len(inner) != 1:
            raise RuleError(f"{sp.sstr(expr)}: expected one form times a constant")
        coeff = expr / inner[0]
        if m in coeff.free_symbols:
            raise RuleError("a coefficient depends on the block index")
        B, f = per_block_scalar(inner[0], m)
        return B, coeff * f
    raise RuleError(f"{sp.sstr(expr)} is neither a sum over blocks nor a bilinear form on pair-structured vectors")


def _block_equal(a: Any, b: Any) -> bool:
    """Exact equality of two per-block expressions (2 x 2 matrices or scalars in the block index):
    structural, or the difference expands to 0, or it is 0 by :func:`trig_zero`. No ``simplify``:
    a wrong per-block claim fails quickly instead of running out of time."""
    if a == b:
        return True
    is_mat = [isinstance(x, (sp.MatrixBase, MatrixExpr)) for x in (a, b)]
    if any(is_mat):
        if not all(is_mat) or tuple(a.shape) != tuple(b.shape):
            return False
        return all(_block_equal(x, y) for x, y in zip(_entries(a), _entries(b)))
    diff = a - b
    return sp.expand(diff) == 0 or trig_zero(diff)


@rule(
    "block_diagonal_product",
    "block-diagonal operators on coordinate pairs act blockwise: <A u, C v> = sum_{m=0}^{B-1} "
    "<A_m u_(m), C_m v_(m)>, and block-diagonal operators are equal when their 2x2 blocks are",
)
def check_block_diagonal_product(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError(f"block_diagonal_product justifies equalities only; this step is {relation!r}")
    m = sp.Dummy("m", integer=True, nonnegative=True)
    mats = [isinstance(x, (MatrixExpr, sp.MatrixBase)) for x in (lhs, rhs)]
    if all(mats):
        L, R = block_form(lhs, m), block_form(rhs, m)
        _same_B(L.B, R.B, "the two sides")
        if L.layout is not None and R.layout is not None and L.layout != R.layout:
            raise RuleError(f"the sides are block diagonal in different layouts ({L.layout} vs {R.layout})")
        a, b = explicit_small(L.block), explicit_small(R.block)
        if _block_equal(a, b):
            return passed(f"equal 2x2 blocks for every m in 0..B-1 (B = {L.B})")
        return failed(f"the blocks differ: {sp.sstr(a)} vs {sp.sstr(b)}")
    if any(mats):
        raise RuleError("cannot compare a matrix with a scalar")
    if isinstance(lhs, sp.Sum) and isinstance(rhs, sp.Sum):
        raise RuleError("both sides are sums over blocks: nothing block diagonal to split (use algebra)")
    BL, fL = per_block_scalar(lhs, m)
    BR, fR = per_block_scalar(rhs, m)
    _same_B(BL, BR, "the two sides (a sum over blocks must run over m = 0, ..., B - 1)")
    a, b = explicit_small(fL), explicit_small(fR)
    if _block_equal(a, b):
        return passed(f"both sides are sum_(m=0)^({BL - 1}) of the same per-block expression")
    return failed(f"the per-block expressions differ: {sp.sstr(a)} vs {sp.sstr(b)}")
