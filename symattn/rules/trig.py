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
    (:class:`~symattn.maths.rope.Rope`, :class:`~symattn.maths.rope.PairBlockDiagonal`, identities, their
    transposes, products, sums, scalar multiples, and conjugation ``Pi D Pi^T`` by
    :class:`~symattn.maths.rope.PairPermutation`) into their ``2 x 2`` blocks, for a *symbolic*
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
from symattn.kernel.schemas.blocks import block_form, per_block_scalar
from symattn.kernel.schemas.trig import explicit_small, trig_zero
from symattn.kernel.terms import KernelError
from symattn.kernel.thm import by_zero, sym, trans
from symattn.rules import RuleError, failed, proved, rule

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


# ============================================================================= block_diagonal_product
def _bridge(x: Any, y: Any):
    """The kernel's ``x = y`` for two sums over the blocks: the zero test, else the addition formulas
    through the bodies (``trig_identity``)."""
    try:
        return by_zero(x, y)
    except KernelError:
        return axiom("trig_identity", lhs=x, rhs=y)


@rule(
    "block_diagonal_product",
    "block-diagonal operators on coordinate pairs act blockwise: <A u, C v> = sum_{m=0}^{B-1} "
    "<A_m u_(m), C_m v_(m)>, and block-diagonal operators are equal when their 2x2 blocks are "
    "(the kernel's blockwise_form and blockwise_equal)",
)
def check_block_diagonal_product(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError(f"block_diagonal_product justifies equalities only; this step is {relation!r}")
    mats = [isinstance(x, (MatrixExpr, sp.MatrixBase)) for x in (lhs, rhs)]
    if all(mats):
        return proved(axiom("blockwise_equal", lhs=lhs, rhs=rhs), "equal 2x2 blocks for every m in 0..B-1")
    if any(mats):
        raise RuleError("cannot compare a matrix with a scalar")
    if isinstance(lhs, sp.Sum) and isinstance(rhs, sp.Sum):
        raise RuleError("both sides are sums over blocks: nothing block diagonal to split (use algebra)")
    left, right = axiom("blockwise_form", expr=lhs), axiom("blockwise_form", expr=rhs)
    try:
        middle = _bridge(left.rhs, right.rhs)
    except KernelError as exc:
        return failed(f"the per-block expressions differ: {exc}")
    return proved(trans(left, middle, sym(right)), "both sides are sum_(m=0)^(B-1) of the same per-block expression")
