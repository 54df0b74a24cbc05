"""Axiom schemas of trigonometry: ``trig_identity`` (the addition formulas and ``sin^2 + cos^2 = 1``).

``trig_identity`` states ``lhs = rhs`` when ``lhs - rhs`` reduces to exactly 0: both sides are expanded
(arguments distributed, then ``sin(a +- b)``, ``cos(a +- b)`` and integer multiples by ``expand_trig``),
every ``cos^k x`` with ``k >= 2`` is rewritten as ``cos^{k-2} x (1 - sin^2 x)``, and the result must be
the polynomial 0 (over a denominator that is not itself 0). Each rewrite is an identity. The
2-dimensional objects of :mod:`symattn.maths.rope` (pairs, rotations, inner products, bilinear forms of
concrete shape) are first written out by their definitions; matrices are compared entrywise; two sums
with the same limits through their bodies. No numerics, no ``simplify``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.axioms import schema
from symattn.kernel.terms import KernelError
from symattn.kernel.zero import equal, opaque_foreign

__all__ = ["trig_zero", "explicit_small"]


# ============================================================================= trig_identity
def _reduce_cos_squares(e: sp.Expr) -> sp.Expr:
    """Rewrite cos(x)**k (k >= 2) as cos(x)**(k-2) (1 - sin(x)**2) until none is left."""

    def is_cos_power(t):
        return t.is_Pow and isinstance(t.base, sp.cos) and t.exp.is_Integer and t.exp >= 2

    for _ in range(64):
        if not e.has(sp.cos) or not any(is_cos_power(t) for t in sp.preorder_traversal(e)):
            return e
        e = sp.expand(e.replace(is_cos_power, lambda t: t.base ** (t.exp - 2) * (1 - sp.sin(t.base.args[0]) ** 2)))
    return e


def trig_zero(expr: Any) -> bool:
    """True when ``expr`` is 0 by the addition formulas and sin^2 + cos^2 = 1 (exact)."""
    e = sp.sympify(expr, strict=True) if isinstance(expr, (int, float)) else expr
    e = opaque_foreign(e)  # a user's head class never runs its own expansion hooks here
    if e == 0:
        return True
    e = sp.expand(e)  # distribute inside arguments: cos(w (p + D)) -> cos(w p + w D)
    e = sp.expand(sp.expand_trig(e))
    if e == 0:
        return True
    num, den = sp.fraction(sp.together(e))
    num = sp.expand(sp.expand_trig(sp.expand(num)))
    if _reduce_cos_squares(num) != 0:
        return False
    # a zero numerator says nothing over a denominator that is itself 0 (0/0); the kernel's
    # definedness check (every step) then asks for the denominators of the sides to be nonzero
    return _reduce_cos_squares(sp.expand(sp.expand_trig(sp.expand(den)))) != 0


def _strip_sums(lhs: Any, rhs: Any) -> tuple[Any, Any]:
    """Bodies of two sums with the same limits (index renamed); the sides unchanged otherwise."""
    if isinstance(lhs, sp.Sum) and isinstance(rhs, sp.Sum) and len(lhs.limits) == len(rhs.limits) == 1:
        (i, a, b), (j, c, d) = lhs.limits[0], rhs.limits[0]
        if equal(a, c) and equal(b, d):
            k = sp.Dummy("k", integer=True)
            return lhs.function.xreplace({i: k}), rhs.function.xreplace({j: k})
    return lhs, rhs


def _entries(x: Any) -> list:
    if isinstance(x, sp.MatrixBase):
        return list(x)
    if isinstance(x, MatrixExpr):
        done = x.doit()
        if isinstance(done, MatrixExpr):
            done = done.as_explicit()
        return list(done)
    return [x]


# ============================================================================= 2-dimensional objects
def _small() -> tuple:
    from symattn.kernel.objects.rotations import Bilinear, Inner, PairOf, Rotation

    return (PairOf, Rotation, Inner, Bilinear)


def explicit_small(expr: Any) -> Any:
    """Evaluate rotations, pairs, inner products and bilinear forms whose shapes are concrete."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(explicit_small)
    if not isinstance(expr, sp.Basic):
        return expr

    out = expr
    for cls in _small():  # pairs and rotations first, so that the scalars see explicit matrices
        out = out.replace(lambda e, c=cls: isinstance(e, c), lambda e: e.doit())
    if isinstance(out, MatrixExpr) and all(sp.sympify(s).is_Integer for s in out.shape):
        done = out.doit()
        out = sp.ImmutableMatrix(done if isinstance(done, sp.MatrixBase) else done.as_explicit())
    return out




@schema("trig_identity", "lhs = rhs when lhs - rhs expands to 0 by the addition formulas and sin^2 + cos^2 = 1 "
                         "(entrywise; sums with the same limits through their bodies)")
def _trig_identity(lhs: Any, rhs: Any):
    a, b = _strip_sums(explicit_small(lhs), explicit_small(rhs))
    if isinstance(a, sp.Basic) and a.has(sp.Sum) or isinstance(b, sp.Basic) and b.has(sp.Sum):
        raise KernelError("trig_identity compares sums only through their bodies: both sides must be sums with "
                          "the same limits")
    is_mat = [isinstance(x, (sp.MatrixBase, MatrixExpr)) for x in (a, b)]
    if any(is_mat):
        if not all(is_mat):
            raise KernelError("cannot compare a matrix with a scalar")
        if tuple(a.shape) != tuple(b.shape):
            raise KernelError(f"shape mismatch: {a.shape} vs {b.shape}")
    left, right = _entries(a), _entries(b)
    for n, (x, y) in enumerate(zip(left, right)):
        if not trig_zero(x - y):
            where = f" (entry {n})" if len(left) > 1 else ""
            raise KernelError(f"not an identity of sines and cosines{where}: {sp.sstr(x)} vs {sp.sstr(y)}")
    return lhs, rhs, "="
