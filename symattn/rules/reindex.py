"""Renaming and reordering the indices of finite sums: ``rename_bound`` and ``sum_interchange``.

* ``rename_bound`` (alpha-conversion): the name of a bound variable does not matter,
  ``sum_{j=1}^{n} e^{s_j} = sum_{k=1}^{n} e^{s_k}``. SymPy compares sums structurally, so
  ``Sum(f(j), (j, 1, n)) - Sum(f(k), (k, 1, n))`` does not reduce to 0 under ``algebra``;
  the kernel's term layer (:func:`canonical_bound`, i.e. :func:`symattn.kernel.terms.canonical`)
  renames every bound variable to the canonical dummy of its depth, after which the kernel's zero
  test decides the step.
* ``sum_interchange`` (Fubini for finite sums):
  ``sum_{j=a}^{b} sum_{c=p}^{q} f(j, c) = sum_{c=p}^{q} sum_{j=a}^{b} f(j, c)`` when neither range
  depends on the other index. It holds for all integer bounds, empty ranges included: SymPy's
  (Karr's) convention makes a sum a signed finite sum, and finite signed sums commute. A factor
  of the outer body that is free of the inner index may ride along into the inner sum.

Finite sums only: an infinite limit is refused (interchanging a conditionally convergent double
series changes its value).

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

from symattn.kernel.sums import check_finite
from symattn.kernel.terms import canonical
from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal

__all__ = ["canonical_bound", "alpha_equal", "flatten_sums", "interchange_sites"]

#: the kernel's alpha-normal form (:func:`symattn.kernel.terms.canonical`)
canonical_bound = canonical


def alpha_equal(lhs: Any, rhs: Any) -> bool:
    """Equal up to the names of bound variables (and exact algebra)."""
    return equal(canonical_bound(lhs), canonical_bound(rhs))


@rule("rename_bound", "rename bound summation (or Lambda) variables: sum_j f(j) = sum_k f(k)")
def check_rename_bound(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("rename_bound justifies equalities only")
    if canonical(lhs) == canonical(rhs):
        return passed("equal after renaming bound variables canonically")
    if alpha_equal(lhs, rhs):
        return passed("equal after renaming bound variables canonically, then algebra")
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
    check_finite(lhs, "sum_interchange")
    check_finite(rhs, "sum_interchange")
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
