"""The Cauchy--Schwarz inequality for finite sums: ``cauchy_schwarz``.

.. math:: \\Big(\\sum_{k=a}^{b} x_k y_k\\Big)^2 \\le \\Big(\\sum_{k=a}^{b} x_k^2\\Big)\\Big(\\sum_{k=a}^{b} y_k^2\\Big)
   \\qquad (x_k, y_k \\text{ real}).

The step ``lhs <= rhs`` is accepted when

* ``lhs`` is ``(sum_{k=a}^{b} f(k))**2`` and ``rhs`` is the product of exactly two sums
  ``sum_{p=a}^{b} x(p)**2`` and ``sum_{q=a}^{b} y(q)**2`` over the *same* range (the names of the
  indices may differ), with ``f(k) = x(k) y(k)`` exactly (``algebra``) and ``x``, ``y`` real
  (SymPy's assumptions, after unfolding registered definitions such as ``SoftmaxJacobian``);
* the range is provably well formed, ``b >= a - 1`` (from the symbols' assumptions or an
  :class:`~symattn.statement.IndexRange` hypothesis), so the sums are ordinary finite sums;
* or both sides are sums over the same well-formed range ``sum_i L(i) <= sum_i R(i)`` whose
  summands are such an instance for every ``i`` (a termwise inequality summed up).

Nothing else: no strict inequality (equality holds when ``x`` and ``y`` are proportional), no
``>=`` written the wrong way round, no dropped square, no mismatched ranges.

References: Hardy, Littlewood, Polya, *Inequalities* (2nd ed., 1952), Theorem 7.

>>> import sympy as sp
>>> from symattn.rules import ProofContext, check_step
>>> k = sp.Symbol("k", integer=True); n = sp.Symbol("n", integer=True, positive=True)
>>> x, y = sp.IndexedBase("x", real=True), sp.IndexedBase("y", real=True)
>>> lhs = sp.Sum(x[k] * y[k], (k, 1, n)) ** 2
>>> rhs = sp.Sum(x[k] ** 2, (k, 1, n)) * sp.Sum(y[k] ** 2, (k, 1, n))
>>> check_step(lhs, rhs, "<=", "cauchy_schwarz", {}, ProofContext()).ok
True
>>> check_step(rhs, lhs, "<=", "cauchy_schwarz", {}, ProofContext()).ok   # the wrong way round
False
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.rules import RuleError, passed, rule
from symattn.rules.algebra import equal

__all__ = ["cauchy_schwarz_instance"]


def _well_formed(lo: Any, hi: Any, hypotheses) -> bool:
    from symattn.rules.calculus import range_not_reversed

    return range_not_reversed(lo, hi, hypotheses)


def _single_range(s: sp.Sum, what: str) -> tuple:
    if len(s.limits) != 1 or len(s.limits[0]) != 3:
        raise RuleError(f"{what} must be a single-index sum with both bounds, got {sp.sstr(s)}")
    return tuple(s.limits[0])


def _unfolded(expr: Any) -> Any:
    """``expr`` with registered definitions (Softmax, SoftmaxJacobian, ...) expanded, so that SymPy
    can read realness from the formula rather than from an opaque name."""
    from symattn.rules.definitions import DEFINITIONS

    for d in DEFINITIONS.values():
        expr = expr.replace(lambda e, cls=d.cls: isinstance(e, cls), d.expand)
    return expr


def _real(expr: Any) -> bool:
    return expr.is_extended_real is True or _unfolded(expr).is_extended_real is True


def _square_base(term: Any) -> Any:
    """``x`` when ``term`` is ``x**2``; otherwise an error (a dropped square is not Cauchy-Schwarz)."""
    if isinstance(term, sp.Pow) and term.exp == 2:
        return term.base
    raise RuleError(f"each factor on the right must be a sum of squares x_k**2; got summand {sp.sstr(term)}")


def cauchy_schwarz_instance(lhs: Any, rhs: Any, hypotheses=()) -> str:
    """Check that ``lhs <= rhs`` is ``(sum_k x_k y_k)^2 <= (sum_k x_k^2)(sum_k y_k^2)``; return the
    reason, or raise :class:`RuleError` saying what is not of that form."""
    if not (isinstance(lhs, sp.Pow) and lhs.exp == 2 and isinstance(lhs.base, sp.Sum)):
        raise RuleError(f"the left side must be the square of a sum, got {sp.sstr(lhs)}")
    (k, lo, hi) = _single_range(lhs.base, "the summed product")
    factors = sp.Mul.make_args(rhs)
    sums = [f for f in factors if isinstance(f, sp.Sum)]
    if len(sums) != 2 or len(factors) != 2:
        raise RuleError(f"the right side must be a product of exactly two sums, got {sp.sstr(rhs)}")
    bases = []
    for s in sums:
        (p, plo, phi) = _single_range(s, "each factor on the right")
        if not (equal(plo, lo) and equal(phi, hi)):
            raise RuleError(f"the sums run over different ranges: {lo}..{hi} vs {plo}..{phi}")
        bases.append(_square_base(s.function).xreplace({p: k}))
    if not _well_formed(lo, hi, hypotheses):
        raise RuleError(f"the range {lo}..{hi} is not known to be well formed ({hi} >= {lo} - 1)")
    x, y = bases
    for b in (x, y):
        if not _real(b):
            raise RuleError(f"{sp.sstr(b)} is not known to be real (Cauchy-Schwarz needs real terms)")
    if not equal(lhs.base.function, x * y):
        raise RuleError(f"the summand {sp.sstr(lhs.base.function)} is not the product {sp.sstr(x * y)}")
    return f"(sum x y)^2 <= (sum x^2)(sum y^2) with x = {sp.sstr(x)}, y = {sp.sstr(y)}, {k} in {lo}..{hi}"


@rule(
    "cauchy_schwarz",
    "(sum_k x_k y_k)^2 <= (sum_k x_k^2)(sum_k y_k^2) for real x, y over one well-formed range; also summed "
    "termwise under a common outer sum",
)
def check_cauchy_schwarz(lhs, rhs, relation, ctx):
    if relation == ">=":
        lhs, rhs = rhs, lhs
    elif relation != "<=":
        raise RuleError(f"cauchy_schwarz justifies <= (or >=) steps, not {relation!r}")
    outer = []
    # sum_i L(i) <= sum_i R(i) from L(i) <= R(i) for every i of a well-formed range
    while isinstance(lhs, sp.Sum) and isinstance(rhs, sp.Sum):
        (i, lo, hi) = _single_range(lhs, "the outer sum")
        (i2, lo2, hi2) = _single_range(rhs, "the outer sum")
        if not (equal(lo, lo2) and equal(hi, hi2)):
            raise RuleError(f"the outer sums run over different ranges: {lo}..{hi} vs {lo2}..{hi2}")
        if not _well_formed(lo, hi, ctx.hypotheses):
            raise RuleError(f"the outer range {lo}..{hi} is not known to be well formed")
        lhs, rhs = lhs.function, rhs.function.xreplace({i2: i})
        outer.append(f"{i} in {lo}..{hi}")
    reason = cauchy_schwarz_instance(lhs, rhs, ctx.hypotheses)
    if outer:
        reason += "; summed termwise over " + ", ".join(outer)
    return passed(reason)
