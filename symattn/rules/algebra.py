"""Exact algebra: ``algebra`` (lhs - rhs reduces to 0) and ``inequality`` (rhs - lhs has a sign).

``algebra`` tries a fixed sequence of exact SymPy transformations on ``lhs - rhs`` (expand,
cancel, power/exponential normalisation, trigonometric simplification, ``simplify``) and passes
only when one of them yields exactly ``0``. It never evaluates numerically (no ``equals``, no
``evalf``): failing to find the zero is a ``fail`` with the residual shown, not a guess.

``inequality`` checks ``lhs <= rhs`` (or ``<``) by SymPy's assumption system on ``rhs - lhs``,
optionally through a ``witness``: an expression the author claims equals ``rhs - lhs`` and whose
sign SymPy can read off (a sum of squares times positive factors, say). The witness is itself
checked with ``algebra``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.rules import RuleError, failed, passed, rule

__all__ = ["is_zero", "equal", "residual", "sign_of"]


def _is_matrix(x: Any) -> bool:
    return isinstance(x, (sp.MatrixBase, MatrixExpr))


def _scalar_zero(expr: sp.Expr) -> bool:
    """True when an exact transformation sends ``expr`` to 0."""
    expr = sp.sympify(expr, strict=True)
    if expr == 0:
        return True
    if expr.is_number and expr.is_zero is False:
        return False
    for transform in _TRANSFORMS:
        try:
            e = transform(expr)
        except StopIteration:  # raised inside SymPy's simplify on some sums of Kronecker deltas
            continue
        if e == 0:
            return True
    return False


def _height(s: sp.Sum) -> int:
    inner = [e for e in s.function.atoms(sp.Sum)]
    return 1 + max((_height(e) for e in inner), default=-1)


def canonical_bounds(expr: Any) -> Any:
    """Rename summation indices canonically (by nesting height), so that sums differing only in
    the name of their bound variable compare equal: ``Sum(f(j), (j, 1, n))`` and
    ``Sum(f(k), (k, 1, n))`` both become ``Sum(f(_b0), (_b0, 1, n))``. Renaming a bound variable
    never changes a sum's value."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr

    def rename(s: sp.Sum):
        h = _height(s)
        body, limits = s.function, []
        for depth, (k, lo, hi) in enumerate(s.limits):
            new = sp.Symbol(f"_b{h}_{depth}", integer=True)
            body = body.xreplace({k: new})
            limits.append((new, lo, hi))
        return sp.Sum(body, *limits)

    return expr.replace(lambda e: isinstance(e, sp.Sum), rename)


_TRANSFORMS = (
    sp.expand,
    lambda e: sp.expand(canonical_bounds(e)),
    lambda e: sp.cancel(sp.together(e)),
    lambda e: sp.expand(sp.powsimp(sp.expand(e, power_exp=True, power_base=True, log=False), combine="exp")),
    lambda e: sp.cancel(sp.together(sp.expand(sp.powsimp(e, combine="exp"), power_exp=True))),
    lambda e: sp.factor_terms(sp.expand(e)),
    lambda e: sp.expand(sp.trigsimp(sp.expand_trig(e))),
    lambda e: sp.simplify(e),
    lambda e: sp.expand(sp.simplify(sp.expand(e))),
)


def is_zero(expr: Any) -> bool:
    """Exact zero test for scalars and explicit matrices (entrywise) and matrix expressions."""
    if isinstance(expr, sp.MatrixBase):
        return all(_scalar_zero(e) for e in expr)
    if isinstance(expr, MatrixExpr):
        if isinstance(expr, sp.ZeroMatrix):
            return True
        done = expr.doit()
        if isinstance(done, sp.ZeroMatrix) or done == 0:
            return True
        if isinstance(done, sp.MatrixBase):
            return is_zero(done)
        try:
            explicit = done.as_explicit()
        except (ValueError, TypeError, AttributeError):  # symbolic shape: no explicit form
            return False
        return is_zero(explicit)
    return _scalar_zero(expr)


def residual(lhs: Any, rhs: Any) -> Any:
    """``lhs - rhs`` with shape checks for matrices."""
    if _is_matrix(lhs) or _is_matrix(rhs):
        if not (_is_matrix(lhs) and _is_matrix(rhs)):
            raise RuleError(f"cannot compare a matrix with a scalar: {sp.sstr(lhs)} vs {sp.sstr(rhs)}")
        if lhs.shape != rhs.shape:
            raise RuleError(f"shape mismatch: {lhs.shape} vs {rhs.shape}")
        return lhs - rhs
    return sp.sympify(lhs, strict=True) - sp.sympify(rhs, strict=True)


def equal(lhs: Any, rhs: Any) -> bool:
    """Exact equality: structural, or ``lhs - rhs`` reduces to 0."""
    if lhs == rhs:
        return True
    return is_zero(residual(lhs, rhs))


def _show(x: Any, limit: int = 300) -> str:
    s = sp.sstr(x)
    return s if len(s) <= limit else s[:limit] + " ..."


@rule("algebra", "exact SymPy simplification reduces lhs - rhs to 0 (no numeric fallback)")
def check_algebra(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError(f"algebra justifies equalities only; this step is {relation!r} (use 'inequality')")
    if equal(lhs, rhs):
        return passed("lhs - rhs simplifies to 0")
    return failed(f"lhs - rhs does not reduce to 0; residual: {_show(sp.simplify(residual(lhs, rhs)))}")


class _UnknownRange(Exception):
    pass


def _range_honest(expr: Any) -> Any:
    """Rename every summation index to a fresh integer symbol whose assumptions come from its
    range alone (``>= 1`` -> positive, ``>= 0`` -> nonnegative), so that SymPy cannot read a sign
    from an index's own assumptions that its range contradicts (``Sum(j - 1, (j, 0, n))`` with
    ``j`` declared positive is not nonnegative). A range not known to be well formed
    (``hi >= lo - 1``) makes the sign unknown."""

    def fresh(s: sp.Sum):
        body = s.function
        limits = []
        for (k, lo, hi) in s.limits:
            gap = sp.simplify(hi - lo + 1)
            if not (gap == 0 or gap.is_nonnegative):
                raise _UnknownRange
            lo_pos = lo.is_positive or (lo - 1).is_nonnegative
            lo_nonneg = lo.is_nonnegative
            new = sp.Dummy(str(k), integer=True, positive=True) if lo_pos else (
                sp.Dummy(str(k), integer=True, nonnegative=True) if lo_nonneg else sp.Dummy(str(k), integer=True))
            body = body.xreplace({k: new})
            limits.append((new, lo, hi))
        return sp.Sum(body, *limits)

    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr
    return expr.replace(lambda e: isinstance(e, sp.Sum), fresh)


def sign_of(expr: Any) -> str | None:
    """'positive', 'nonnegative' or None, as SymPy's assumptions decide (after simplification).

    Summation indices are first given the assumptions their ranges justify, and nothing more.
    """
    try:
        expr = _range_honest(sp.sympify(expr, strict=True))
    except _UnknownRange:
        return None
    for e in (expr, sp.expand(expr), sp.factor(expr), sp.simplify(expr)):
        if e.is_positive:
            return "positive"
        if e.is_nonnegative:
            return "nonnegative"
    return None


@rule(
    "inequality",
    "rhs - lhs is nonnegative (positive for strict steps) by SymPy's assumptions, optionally via a checked witness",
    params=("witness",),
)
def check_inequality(lhs, rhs, relation, ctx, witness=None):
    if relation not in ("<=", "<", ">=", ">"):
        raise RuleError(f"inequality justifies <=, <, >=, > steps, not {relation!r}")
    if _is_matrix(lhs) or _is_matrix(rhs):
        raise RuleError("inequality compares scalars, not matrices")
    gap = rhs - lhs if relation in ("<=", "<") else lhs - rhs
    if witness is not None:
        if not equal(witness, gap):
            return failed(f"witness {_show(witness)} is not equal to the gap {_show(gap)}")
        gap = witness
    sign = sign_of(gap)
    strict = relation in ("<", ">")
    if sign == "positive" or (sign == "nonnegative" and not strict):
        return passed(f"the gap {_show(gap)} is {sign}")
    want = "positive" if strict else "nonnegative"
    return failed(f"SymPy cannot show the gap {_show(gap)} is {want} from the symbols' assumptions")
