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

from itertools import permutations
from typing import Any

import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.schemas.sums import flatten_sums, rectangular
from symattn.kernel.sums import check_finite
from symattn.kernel.terms import KernelError, canonical
from symattn.kernel.thm import by_zero, rewrite, sym, trans
from symattn.rules import RuleError, failed, proved, rule
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
    if canonical(lhs) == canonical(rhs) or alpha_equal(lhs, rhs):
        return proved(by_zero(lhs, rhs), "equal after renaming bound variables canonically")
    return failed("the sides differ by more than the names of bound variables")


# ----------------------------------------------------------------------------------- interchange
def interchange_sites(expr: Any) -> list:
    """``(sum, order)`` for every rectangular multi-index sum of ``expr`` and every other order of its limits."""
    if not isinstance(expr, sp.Basic):
        return []
    out = []
    for s in sorted(expr.atoms(sp.Sum), key=sp.default_sort_key):
        if len(s.limits) < 2 or len(s.limits) > 4 or not rectangular(s):
            continue
        out += [(s, order) for order in permutations(s.limits) if tuple(order) != tuple(s.limits)]
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
    left, right = axiom("sum_flatten", expr=lhs), axiom("sum_flatten", expr=rhs)
    if left.rhs == right.rhs:
        return failed("no interchange needed: the sides agree already (use rename_bound or sum_linearity)")
    for s, order in interchange_sites(left.rhs):
        try:
            t = trans(left, rewrite(left.rhs, axiom("sum_interchange", s=s, order=order)))
        except KernelError:
            continue
        if t.rhs == right.rhs or (sp.expand(t.rhs - right.rhs) == 0):
            return proved(trans(t, by_zero(t.rhs, right.rhs), sym(right)),
                          "interchanged independent summations (finite sums commute)")
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
        return proved(sym(result.thm), f"joined adjacent ranges ({result.reason}, read backwards)")
    return failed(f"joining at {at} does not give the right side: {result.reason}")
