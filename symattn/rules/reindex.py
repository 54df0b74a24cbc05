"""Renaming and reordering the indices of finite sums: ``rename_bound`` and ``sum_interchange``.

* ``rename_bound`` (alpha-conversion): the name of a bound variable does not matter,
  ``sum_{j=1}^{n} e^{s_j} = sum_{k=1}^{n} e^{s_k}``. SymPy compares sums structurally, so
  ``Sum(f(j), (j, 1, n)) - Sum(f(k), (k, 1, n))`` does not reduce to 0 under ``algebra``;
  :func:`canonical_bound` renames every bound variable (of sums, products, integrals,
  :class:`~sympy.Lambda` and our own ``ExprWithLimits`` classes) to a canonical dummy, after which
  ``algebra`` decides the step.
* ``sum_interchange`` (Fubini for finite sums):
  ``sum_{j=a}^{b} sum_{c=p}^{q} f(j, c) = sum_{c=p}^{q} sum_{j=a}^{b} f(j, c)`` when neither range
  depends on the other index. It holds for all integer bounds, empty ranges included: SymPy's
  (Karr's) convention makes a sum a signed finite sum, and finite signed sums commute. A factor
  of the outer body that is free of the inner index may ride along into the inner sum.

Canonical names are chosen bottom-up by *height* (one more than the highest binder inside the
body), so a renamed outer variable can never capture a variable bound further in.

>>> import sympy as sp
>>> j, k = sp.symbols("j k", integer=True)
>>> n = sp.Symbol("n", integer=True, positive=True)
>>> s = sp.IndexedBase("s")
>>> canonical_bound(sp.Sum(s[j], (j, 1, n))) == canonical_bound(sp.Sum(s[k], (k, 1, n)))
True
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits

from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal

__all__ = ["canonical_bound", "alpha_equal", "flatten_sums", "interchange_sites"]

_DUMMIES: dict[tuple, sp.Dummy] = {}


def _dummy(height: int, integer: bool) -> sp.Dummy:
    key = (height, integer)
    if key not in _DUMMIES:
        _DUMMIES[key] = sp.Dummy(f"b{height}", integer=True) if integer else sp.Dummy(f"b{height}")
    return _DUMMIES[key]


def _height(expr: Any) -> int:
    """The number of nested binders in ``expr`` (0 when none)."""
    if not isinstance(expr, sp.Basic) or not expr.args:
        return 0
    inner = max((_height(a) for a in expr.args), default=0)
    if isinstance(expr, ExprWithLimits):
        return inner + len(expr.limits)
    if isinstance(expr, sp.Lambda):
        return inner + len(expr.variables)
    return inner


def canonical_bound(expr: Any) -> Any:
    """``expr`` with every bound variable renamed to a canonical dummy (alpha-normal form).

    Sum indices become integer dummies when both bounds are integers (the index then only takes
    integer values); other bound variables get dummies without assumptions, which is always
    sound (assumptions are only ever dropped, never added).
    """
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(canonical_bound)
    if not isinstance(expr, sp.Basic) or not expr.args:
        return expr
    if isinstance(expr, ExprWithLimits):
        # Own indices first become fresh dummies, so that renaming them to canonical names below
        # cannot collide with a canonical name already bound inside the body (an input that is
        # itself canonical would otherwise come out with its inner binders renamed too).
        fresh = {lim[0]: sp.Dummy(lim[0].name) for lim in expr.limits}
        body = canonical_bound(expr.function.xreplace(fresh))
        height = _height(body)
        new_vars = []
        # SymPy lists the innermost limit first: Sum(f, (inner, ...), (outer, ...)); the bounds of
        # limit p lie in the scope of the limits after it (the outer ones) only
        for lim in expr.limits:
            height += 1
            bounds = lim[1:]
            integer = len(bounds) == 2 and all(getattr(b, "is_integer", False) for b in bounds)
            new_vars.append(_dummy(height, integer))
        limits = []
        for p, lim in enumerate(expr.limits):
            outer = {l[0]: new_vars[q] for q, l in enumerate(expr.limits) if q > p}
            bounds = tuple(canonical_bound(b).xreplace(outer) for b in lim[1:])
            limits.append((new_vars[p], *bounds))
        mapping = {fresh[lim[0]]: v for lim, v in zip(expr.limits, new_vars)}
        return expr.func(body.xreplace(mapping), *limits)
    if isinstance(expr, sp.Lambda):
        body = canonical_bound(expr.expr)
        height = _height(body)
        mapping = {}
        for var in expr.variables:
            height += 1
            mapping[var] = _dummy(height, False)
        return sp.Lambda(tuple(mapping[v] for v in expr.variables), body.xreplace(mapping))
    new_args = [canonical_bound(a) for a in expr.args]
    if all(a is b for a, b in zip(new_args, expr.args)):
        return expr
    return expr.func(*new_args)


def alpha_equal(lhs: Any, rhs: Any) -> bool:
    """Equal up to the names of bound variables (and exact algebra)."""
    return equal(canonical_bound(lhs), canonical_bound(rhs))


@rule("rename_bound", "rename bound summation (or Lambda) variables: sum_j f(j) = sum_k f(k)")
def check_rename_bound(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("rename_bound justifies equalities only")
    if alpha_equal(lhs, rhs):
        return passed("equal after renaming bound variables canonically")
    return failed("the sides differ by more than the names of bound variables")


# ----------------------------------------------------------------------------------- interchange
def _rectangular(s: sp.Sum) -> bool:
    """No bound of the sum mentions any of its own indices (the index set is a box)."""
    variables = {lim[0] for lim in s.limits}
    return all(len(lim) == 3 and not (sp.Tuple(*lim[1:]).free_symbols & variables) for lim in s.limits)


def _pull_in(s: sp.Sum):
    """``sum_L A * sum_M B`` -> ``sum_{M, L} A B`` when ``A`` does not mention the inner indices."""
    factors = sp.Mul.make_args(s.function)
    sums = [f for f in factors if isinstance(f, sp.Sum)]
    if len(sums) != 1:
        return s
    inner = sums[0]
    rest = sp.Mul(*[f for f in factors if f is not inner])
    inner_vars = [lim[0] for lim in inner.limits]
    outer_bounds = sp.Tuple(*[b for lim in s.limits for b in lim[1:]])
    # Only free occurrences can be captured: a sum inside A that binds the same name is untouched.
    if any(v in rest.free_symbols or v in outer_bounds.free_symbols for v in inner_vars):
        return s  # moving A inside would capture one of its symbols
    return sp.Sum(rest * inner.function, *inner.limits, *s.limits)


def flatten_sums(expr: Any) -> Any:
    """Nested sums as multi-index sums, every factor moved into the innermost body (linearity)."""
    if not isinstance(expr, sp.Basic):
        return expr
    prev = None
    while prev != expr:
        prev = expr
        expr = expr.replace(lambda e: isinstance(e, sp.Sum), _pull_in)
    return expr


def interchange_sites(expr: Any) -> list:
    """``expr`` with the limits of one rectangular multi-index sum permuted, in every way."""
    from itertools import permutations

    if not isinstance(expr, sp.Basic):
        return []
    out = []
    for s in sorted(expr.atoms(sp.Sum), key=sp.default_sort_key):
        if len(s.limits) < 2 or len(s.limits) > 4 or not _rectangular(s):
            continue
        for order in permutations(s.limits):
            if tuple(order) != tuple(s.limits):
                out.append(expr.xreplace({s: sp.Sum(s.function, *order)}))
    return out


@rule(
    "sum_interchange",
    "sum_j sum_c f = sum_c sum_j f when neither range depends on the other index (finite sums)",
)
def check_sum_interchange(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("sum_interchange justifies equalities only")
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        raise RuleError("sum_interchange works on scalar expressions")
    left = canonical_bound(flatten_sums(canonical_bound(lhs)))
    right = canonical_bound(flatten_sums(canonical_bound(rhs)))
    if left == right:
        return failed("no interchange needed: the sides agree already (use rename_bound or sum_linearity)")
    candidates = [canonical_bound(cand) for cand in interchange_sites(left)]
    # structural matches first; then cheap exact algebra (no simplify: failing candidates are the
    # rule, and simplify on quotients of sums is slow to fail)
    if any(cand == right for cand in candidates):
        return passed("interchanged independent summations (finite sums commute)")
    for cand in candidates:
        diff = cand - right
        if sp.expand(diff) == 0 or sp.cancel(sp.together(diff)) == 0:
            return passed("interchanged independent summations (finite sums commute), then exact algebra")
    return failed("no reordering of independent summations turns one side into the other")


# ----------------------------------------------------------------------------------- joining
@rule(
    "sum_join",
    "sum_{k=a}^{m} f + sum_{k=m+1}^{b} f = sum_{k=a}^{b} f for a-1 <= m <= b (sum_split read backwards)",
    params=("at",),
)
def check_sum_join(lhs, rhs, relation, ctx, at=None):
    from symattn.rules.sums import check_sum_split

    result = check_sum_split(rhs, lhs, relation, ctx, at=at)
    if result.ok:
        return passed(f"joined adjacent ranges ({result.reason}, read backwards)")
    return failed(f"joining at {at} does not give the right side: {result.reason}")
