r"""Shifting a summation index, and the triangle inequality: ``sum_shift``, ``triangle_inequality``.

* ``sum_shift``  -- :math:`\sum_{k=a}^{b} f(k) = \sum_{k=a+c}^{b+c} f(k - c)` for any integer ``c``:
  every single-index sum on both sides is rewritten to start at 0,
  :math:`\sum_{k=0}^{b-a} f(k + a)`, and the two sides must then agree by exact algebra (the
  shift is a bijection of the index range, so the value never changes; it holds for SymPy's
  convention for reversed ranges too, which depends only on the length ``b - a``).
* ``triangle_inequality``  -- :math:`|\sum_{k=a}^{b} f(k)| \le \sum_{k=a}^{b} |f(k)|` for
  complex (or real) ``f`` and a range that is not reversed (``b >= a - 1``; with SymPy's
  convention a reversed range gives the *negative* of a sum, for which the bound is false).
  The bound may sit inside a larger expression that is increasing in it: ``c |S| + e <= c T + e``
  for ``c >= 0``; for a real sum, ``S^2 = |S|^2 <= T^2`` as well.
* ``weighted_cauchy_schwarz``  -- :math:`(\sum_k w_k u_k)^2 \le (\sum_k w_k)(\sum_k w_k u_k^2)` for
  weights ``w_k >= 0`` and real ``u_k`` (given as ``weight=``, ``values=``) over a range that is not
  reversed (Cauchy--Schwarz with :math:`\sqrt{w_k}` and :math:`\sqrt{w_k} u_k`).
* ``termwise_bound``  -- two sums over the same range, compared term by term with the sign rules.

>>> import sympy as sp
>>> k = sp.Symbol("k", integer=True); f = sp.IndexedBase("f")
>>> n = sp.Symbol("n", integer=True, positive=True)
>>> shifted_to_zero(sp.Sum(f[k], (k, 1, n)))
Sum(f[_k + 1], (_k, 0, n - 1))
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal, sign_of

__all__ = ["index_argument", "shifted_to_zero"]


def shifted_to_zero(expr: Any) -> Any:
    """Every single-index sum rewritten to start at 0 (innermost first)."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr

    def shift(s: sp.Sum):
        if len(s.limits) != 1:
            return s
        (k, a, b) = s.limits[0]
        if a == 0:
            return s
        new = sp.Symbol(f"_{k}", integer=True)
        return sp.Sum(s.function.xreplace({k: new + a}), (new, 0, b - a))

    return expr.replace(lambda e: isinstance(e, sp.Sum), shift)


@rule("sum_shift", "sum_{k=a}^{b} f(k) = sum_{k=a+c}^{b+c} f(k-c): both sides agree once every sum starts at 0")
def check_sum_shift(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("sum_shift justifies equalities only")
    if not any(isinstance(x, sp.Basic) and x.has(sp.Sum) for x in (lhs, rhs)):
        return failed("no sum on either side")
    a, b = shifted_to_zero(lhs), shifted_to_zero(rhs)
    if equal(a, b):
        return passed("equal once every sum is shifted to start at 0")
    return failed("the sides differ after shifting every sum to start at 0")


def _not_reversed(lo, hi, ctx) -> bool:
    from symattn.rules.ranges import provably_le, ranges_of

    return provably_le(lo - 1, hi, ranges_of(ctx.hypotheses))


def _abs_forms(f):
    """``|f|``, and ``prod |f_i|`` for a product ``f = prod f_i`` (an identity SymPy applies only to
    the factors whose absolute value it can evaluate; the sums around it are opaque to the zero test)."""
    forms = [sp.Abs(f)]
    if isinstance(f, sp.Mul):
        forms.append(sp.Mul(*[sp.Abs(t) for t in f.args]))
    return forms


def index_argument(exprs, var, *step) -> tuple:
    """Rule arguments that speak about a summand (``weight=``, ``values=``) name the sum's bound
    index by the user's symbol; the step's sides reach the rule in canonical form, where that index
    is the canonical variable ``var``. Returns ``exprs`` with the user's symbol replaced by ``var``:
    the one symbol free in the arguments and nowhere free in the step (``step``: its sides). An
    argument free of such a symbol does not depend on the index; two candidates are refused."""
    from symattn.kernel.terms import free_symbols, substitute

    in_step = set().union(*(free_symbols(x) for x in step)) if step else set()
    mentioned = set().union(*(free_symbols(x) for x in exprs)) if exprs else set()
    candidates = sorted((x for x in mentioned - in_step if isinstance(x, sp.Symbol)), key=sp.default_sort_key)
    if not candidates:
        return tuple(exprs)
    if len(candidates) > 1:
        raise RuleError(f"the arguments name the summation index ambiguously: {candidates} are all free in the "
                        "arguments and nowhere in the step")
    x = candidates[0]
    if not all(var.assumptions0.get(key) == val for key, val in x.assumptions0.items() if val is not None):
        raise RuleError(f"the arguments' summation index {x} carries assumptions its range does not give")
    return tuple(substitute(e, {x: var}) for e in exprs)


@rule(
    "triangle_inequality",
    "|sum_k f(k)| <= sum_k |f(k)| over a range that is not reversed, also inside an expression increasing in it",
)
def check_triangle_inequality(lhs, rhs, relation, ctx):
    if relation not in ("<=", ">="):
        raise RuleError(f"triangle_inequality justifies <= (or >=) steps, not {relation!r}")
    small, big = (lhs, rhs) if relation == "<=" else (rhs, lhs)
    if not isinstance(small, sp.Basic):
        return failed("no |sum| on the smaller side")
    candidates = [a for a in small.atoms(sp.Abs) if isinstance(a.args[0], sp.Sum) and len(a.args[0].limits) == 1]
    # a real sum squared is |sum|^2: the square of a nonnegative number increases with it
    squares = [p for p in small.atoms(sp.Pow) if isinstance(p.base, sp.Sum) and len(p.base.limits) == 1
               and p.exp == 2 and p.base.is_extended_real]
    reasons = []
    for p in sorted(squares, key=sp.default_sort_key):
        s = p.base
        (k, lo, hi) = s.limits[0]
        if not _not_reversed(lo, hi, ctx):
            reasons.append(f"the range {lo}..{hi} is not known to be not reversed (hi >= lo - 1)")
            continue
        x = sp.Dummy("x", nonnegative=True)
        F = small.xreplace({p: x**2})
        slope = sp.diff(F, x)
        if F.has(s) or sign_of(slope) not in ("positive", "nonnegative"):
            reasons.append(f"the expression is not known to increase with |sum over {k}|")
            continue
        if any(equal(F.xreplace({x: sp.Sum(body, (k, lo, hi))}), big) for body in _abs_forms(s.function)):
            return passed(f"(sum over {k} = {lo}..{hi})^2 = |sum|^2 <= (sum of absolute values)^2")
    for a in sorted(candidates, key=sp.default_sort_key):
        s = a.args[0]
        (k, lo, hi) = s.limits[0]
        if not _not_reversed(lo, hi, ctx):
            reasons.append(f"the range {lo}..{hi} is not known to be not reversed (hi >= lo - 1)")
            continue
        x = sp.Dummy("x", nonnegative=True)
        F = small.xreplace({a: x})
        slope = sp.diff(F, x)
        if slope.has(x) or not (slope == 1 or sign_of(slope) in ("positive", "nonnegative")):
            reasons.append(f"the expression is not known to increase with |sum over {k}|")
            continue
        if any(equal(F.xreplace({x: sp.Sum(body, (k, lo, hi))}), big) for body in _abs_forms(s.function)):
            return passed(f"|sum over {k} = {lo}..{hi}| <= sum of absolute values (range not reversed)")
    if reasons:
        return failed("; ".join(reasons))
    return failed("no |sum_k f| on the smaller side whose replacement by sum_k |f| gives the other side")


@rule(
    "termwise_bound",
    "sum_{k=a}^{b} f(k) <= sum_{k=a}^{b} g(k) when g(k) - f(k) >= 0 for every k in a..b (b >= a - 1), "
    "sign rules of positivity (max/min over a range included)",
)
def check_termwise_bound(lhs, rhs, relation, ctx):
    from symattn.rules.inequalities import sign
    from symattn.statement import IndexRange

    if relation not in ("<=", ">="):
        raise RuleError(f"termwise_bound justifies <= (or >=) steps, not {relation!r}")
    small, big = (lhs, rhs) if relation == "<=" else (rhs, lhs)
    if not (isinstance(small, sp.Sum) and isinstance(big, sp.Sum)) or len(small.limits) != 1 or len(big.limits) != 1:
        raise RuleError("termwise_bound compares two single-index sums, one on each side")
    (k, lo, hi), (k2, lo2, hi2) = small.limits[0], big.limits[0]
    if sp.expand(lo - lo2) != 0 or sp.expand(hi - hi2) != 0:
        return failed(f"the sums run over different ranges: {lo}..{hi} vs {lo2}..{hi2}")
    fresh = sp.Dummy(str(k), integer=True)
    f, g = small.function.xreplace({k: fresh}), big.function.xreplace({k2: fresh})
    if not _not_reversed(lo, hi, ctx):
        return failed(f"the range {lo}..{hi} may be reversed (then the sums are negative sums)")
    local = tuple(ctx.hypotheses) + (IndexRange("_summation_index", index=fresh, lower=lo, upper=hi),)
    gap = g - f
    for form in (gap, sp.factor_terms(gap), sp.expand(gap)):
        if sign(form, local) is not None:
            return passed(f"every term gap is nonnegative for {k} in {lo}..{hi}")
    return failed(f"cannot show the termwise gap {sp.sstr(gap)[:200]} is nonnegative for {k} in {lo}..{hi}")


@rule(
    "weighted_cauchy_schwarz",
    "(sum_k w_k u_k)^2 <= (sum_k w_k)(sum_k w_k u_k^2) for w_k >= 0, u_k real, over a range not reversed",
    params=("weight", "values"),
)
def check_weighted_cauchy_schwarz(lhs, rhs, relation, ctx, weight=None, values=None):
    from symattn.rules.ranges import _structural_sign, ranges_of

    if relation != "<=":
        raise RuleError(f"weighted_cauchy_schwarz justifies <= steps, not {relation!r}")
    if weight is None or values is None:
        raise RuleError("weighted_cauchy_schwarz needs weight=<w_k> and values=<u_k>")
    if not (isinstance(lhs, sp.Pow) and lhs.exp == 2 and isinstance(lhs.base, sp.Sum) and len(lhs.base.limits) == 1):
        return failed(f"the left side must be the square of a single-index sum, got {sp.sstr(lhs)[:120]}")
    (k, lo, hi) = lhs.base.limits[0]
    if not _not_reversed(lo, hi, ctx):
        return failed(f"the range {lo}..{hi} is not known to be not reversed")
    weight, values = index_argument((weight, values), k, lhs, rhs)
    if not equal(lhs.base.function, weight * values):
        return failed("the summand on the left is not weight * values")
    ranges = ranges_of(ctx.hypotheses) + [(k, lo, hi)]
    if _structural_sign(weight, ranges) is None:
        return failed(f"the weight {sp.sstr(weight)[:120]} is not known to be nonnegative")
    if values.is_extended_real is not True:
        return failed(f"the values {sp.sstr(values)[:120]} are not known to be real")
    want = sp.Sum(weight, (k, lo, hi)) * sp.Sum(weight * values**2, (k, lo, hi))
    if equal(want, rhs):
        return passed("weighted Cauchy-Schwarz (Jensen for the square)")
    return failed("the right side is not (sum w)(sum w u^2)")
