r"""Reasoning from index ranges: the rules that propose the kernel's range schemas
(:mod:`symattn.kernel.schemas.ranges`, where the range reasoning lives).

Reasoning from index ranges: masks, absolute values, Kronecker deltas and floors.

Inside ``sum_{j=a}^{b}`` the index satisfies ``a <= j <= b`` -- when the range is known not to be
reversed (``b >= a - 1``; SymPy's sum over a reversed range runs over ``b+1..a-1`` with a minus
sign); an :class:`~symattn.language.statement.IndexRange` hypothesis places a free index the same way, and an
:class:`~symattn.language.statement.Assumption` whose
condition is ``x <= y`` (or ``x >= y``) with one side a symbol bounds that symbol. From these,
:func:`range_sign` decides the sign of an expression that is *linear* in the ranged indices:
for each index (innermost first) whose coefficient has a known sign, the expression is smallest
at one end of the range, so it is enough to sign it there. ``Max``/``Min`` of linear pieces are
handled the same way (``c Max(x, y) >= c x`` for ``c >= 0``, so one piece suffices; ``Min``
needs both). Nothing is evaluated numerically; an expression the procedure cannot sign is
"unknown", never "true".

Rules
-----
* ``mask_restrict``  -- ``sum_{j=a}^{b} 1[lo <= j <= hi] f(j) = sum_{j=max(a,lo)}^{min(b,hi)} f(j)``,
  with ``max``/``min`` resolved where the ranges decide them; the range ``a..b`` and the restricted
  range must be known not to be reversed (``lo' - 1 <= hi'``; otherwise, if it is known to be empty, the sum is 0).
  A mask whose index is a ranged index (a free index with an ``IndexRange``, or an enclosing
  summation index) is evaluated to 1 or 0 where the ranges decide it.
* ``abs_by_sign``  -- ``|x| = x`` where ``x >= 0`` and ``|x| = -x`` where ``x <= 0`` is known.
* ``delta_by_range``  -- ``delta_{ij} = 0`` where ``i != j`` is known (``i - j >= 1`` or ``j - i >= 1``).
* ``floor_by_range``  -- ``floor(x) = k`` for an integer ``k`` with ``k <= x < k + 1`` known.
* ``range_split`` / ``range_join``  -- ``sum_{k=a}^{b} f = sum_{k=a}^{m} f + sum_{k=m+1}^{b} f`` for
  ``a - 1 <= m <= b`` shown from the ranges (``sum_split``'s step, with this module's range
  reasoning: ``m = i - 1`` for a free ``i`` in ``1..n`` splits ``1..n``); ``range_join`` reads it backwards.
* ``range_inequality``  -- ``lhs <= rhs`` when ``scale * (rhs - lhs)`` (``scale`` a factor SymPy
  knows is positive, default 1) is signed by :func:`range_sign` after cancelling: bounds such
  as ``d <= M <= N d`` enter through the ranges.
* ``minmax_by_range``  -- ``max(x, y) = x`` where ``y <= x`` is known, ``min(x, y) = x`` where ``x <= y``.

Each rule rewrites both sides everywhere it applies (with the enclosing summation ranges in
view) and passes when the results agree by exact algebra.

References
----------
Summation with Iverson brackets: Graham, Knuth and Patashnik, *Concrete Mathematics*, 2nd ed.,
section 2.1.
"""

from __future__ import annotations

import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.schemas.ranges import _structural_sign, provably_le, provably_lt, range_sign, ranges_of
from symattn.kernel.terms import KernelError
from symattn.kernel.thm import rewrite
from symattn.rules import RuleError, _require_equality, failed, proved, rule
from symattn.rules.algebra import equal
from symattn.rules.sums import closing as _closing
from symattn.rules.sums import meet

__all__ = ["provably_le", "provably_lt", "range_sign", "ranges_of", "_structural_sign"]

POSITIVE, NONNEGATIVE = "positive", "nonnegative"


def _check(lhs, rhs, relation, name: str, what: str, **params):
    _require_equality(relation, what)
    left, right = axiom(name, expr=lhs, **params), axiom(name, expr=rhs, **params)
    if left.rhs == left.lhs and right.rhs == right.lhs:
        return failed(f"{what} applies nowhere in either side (the ranges do not decide it)")
    if equal(left.rhs, right.rhs):
        return proved(meet(left, right), f"both sides agree after {what}")
    return failed(f"after {what} the sides differ: {sp.sstr(left.rhs)[:240]} vs {sp.sstr(right.rhs)[:240]}")


@rule(
    "mask_restrict",
    "sum_{j=a}^{b} 1[lo <= j <= hi] f(j) = sum_{j=max(a,lo)}^{min(b,hi)} f(j) (range not reversed, else 0 "
    "if empty); masks decided by the ranges evaluate to 1 or 0",
)
def check_mask_restrict(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, "mask_restrict", "restricting the masked sums")


@rule("abs_by_sign", "|x| = x where x >= 0, |x| = -x where x <= 0, from the ranges and sign rules")
def check_abs_by_sign(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, "abs_by_sign", "removing absolute values of known sign")


@rule("delta_by_range", "delta_{ij} = 0 where i != j follows from the ranges (integer indices)")
def check_delta_by_range(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, "delta_by_range", "evaluating Kronecker deltas of distinct indices")


@rule("floor_by_range", "floor(x) = k for an integer k with k <= x < k + 1 known from the ranges", params=("value",))
def check_floor_by_range(lhs, rhs, relation, ctx, value=None):
    if value is None:
        raise RuleError("floor_by_range needs value=<the integer k> (or a list of candidates)")
    values = tuple(sp.Integer(v) if isinstance(v, int) else v
                   for v in (value if isinstance(value, (list, tuple)) else [value]))
    return _check(lhs, rhs, relation, "floor_by_range", "evaluating floors", values=values)


@rule("minmax_by_range", "max(x, y) = x where y <= x, min(x, y) = x where x <= y, known from the ranges")
def check_minmax_by_range(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, "minmax_by_range", "resolving max/min from the ranges")


def _split_check(lhs, rhs, at):
    if at is None:
        raise RuleError("needs at=<split point m>")
    point = sp.Integer(at) if isinstance(at, int) else at
    sums = sorted((x for x in lhs.atoms(sp.Sum) if len(x.limits) == 1), key=sp.default_sort_key) \
        if isinstance(lhs, sp.Basic) else []
    if not sums:
        return None, "no single-index sum on the left side to split"
    why = ""
    for x in sums:
        try:
            t = rewrite(lhs, axiom("range_split", s=x, at=point))
        except KernelError as exc:
            why = why or str(exc)
            continue
        found = _closing(t, rhs)
        if found is not None:
            return found, ""
    return None, (f"splitting at {point} gives no sum equal to the right side, or {point} is not known to lie in "
                  "a - 1..b" + (f" ({why})" if why else ""))


@rule("range_split", "sum_{k=a}^{b} f = sum_{k=a}^{m} f + sum_{k=m+1}^{b} f for a-1 <= m <= b known from the ranges",
      params=("at",))
def check_range_split(lhs, rhs, relation, ctx, at=None):
    if relation != "=":
        raise RuleError("range_split justifies equalities only")
    t, why = _split_check(lhs, rhs, at)
    return proved(t, f"split the sum at {at} (from the ranges)") if t is not None else failed(why)


@rule("range_join", "sum_{k=a}^{m} f + sum_{k=m+1}^{b} f = sum_{k=a}^{b} f (range_split read backwards)",
      params=("at",))
def check_range_join(lhs, rhs, relation, ctx, at=None):
    if relation != "=":
        raise RuleError("range_join justifies equalities only")
    t, why = _split_check(rhs, lhs, at)
    return proved(t, f"joined the sums at {at} (from the ranges)") if t is not None else failed(why)


@rule("range_inequality", "lhs <= rhs when scale * (rhs - lhs) >= 0 (scale > 0) follows from the ranges",
      params=("scale",))
def check_range_inequality(lhs, rhs, relation, ctx, scale=None):
    if relation not in ("<", "<=", ">", ">="):
        raise RuleError(f"range_inequality justifies inequalities, not {relation!r}")
    factor = sp.Integer(scale) if isinstance(scale, int) else scale
    try:
        return proved(axiom("range_inequality", lhs=lhs, rhs=rhs, relation=relation, scale=factor),
                      "the scaled gap is signed on the ranges")
    except KernelError as exc:
        return failed(str(exc))
