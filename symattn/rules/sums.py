"""Rules for finite sums: ``sum_linearity``, ``sum_split``, ``sum_evaluate`` and
``kronecker_delta_contraction``.

Index ranges matter. ``kronecker_delta_contraction`` uses
``sum_{k=lo}^{hi} f(k) delta_{jk} = f(j)`` only when the theorem's hypotheses place ``j`` in
``lo..hi`` (an :class:`~symattn.statement.IndexRange`); outside the range the sum is 0, so
contracting there would be wrong, and the rule says so. ``sum_split`` checks that the split
point lies in the range and that the two pieces meet without gap or overlap.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.sign import provably_le
from symattn.kernel.sums import check_finite, contract, evaluate, index_in_range
from symattn.kernel.terms import alpha_equal
from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal

__all__ = ["linear_normal_form", "contract_deltas", "index_in_range"]


def _map_sums(expr: Any, fn) -> Any:
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: _map_sums(e, fn))
    if not isinstance(expr, sp.Basic):
        return expr
    return expr.replace(lambda e: isinstance(e, sp.Sum), fn)


def _distribute(body: sp.Expr, limit: tuple) -> sp.Expr:
    """``sum over limit`` of ``body``, distributed over the terms of ``body``, with the factors of
    each term that are free of the index pulled out."""
    (k, lo, hi) = limit
    out = sp.S.Zero
    for term in sp.Add.make_args(sp.expand(body)):
        const, dep = term.as_independent(k, as_Add=False)
        out += const * (sp.Sum(dep, limit) if dep != 1 else (hi - lo + 1))
    return out


def _linear_sum(s: sp.Sum) -> sp.Expr:
    """Distribute a sum over the terms of its body and pull out factors free of the index.

    A multi-index sum ``Sum(f, L1, L2, ...)`` is the nested sum with ``L1`` innermost (SymPy merges
    directly nested sums into one), so its limits are applied one at a time, innermost first."""
    out = s.function
    for limit in s.limits:
        out = _distribute(out, limit)
    return out


def linear_normal_form(expr: Any) -> Any:
    """Every sum distributed over its terms, constants pulled out (valid for finite sums)."""
    return _map_sums(expr, _linear_sum)


@rule("sum_linearity", "sum_k (a f(k) + g(k)) = a sum_k f(k) + sum_k g(k) for a free of k")
def check_sum_linearity(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("sum_linearity justifies equalities only")
    if not any(isinstance(x, sp.Basic) and x.atoms(sp.Sum) for x in (lhs, rhs)):
        return failed("no sum on either side")
    check_finite(lhs, "sum_linearity")
    check_finite(rhs, "sum_linearity")
    left, right = linear_normal_form(lhs), linear_normal_form(rhs)
    if alpha_equal(left, right):
        return passed("both sides agree after distributing sums and pulling out constants")
    if equal(left, right):
        return passed("both sides agree after distributing sums and pulling out constants, then algebra")
    return failed("the sides differ after distributing the sums and pulling out constant factors")


def _provably_le(a: Any, b: Any) -> bool:
    return provably_le(a, b)


def contract_deltas(expr: Any, hypotheses) -> Any:
    """Contract ``sum_k f(k) delta(a, b)`` by the kernel's delta rule (:func:`symattn.kernel.sums.contract`):
    the delta's equation is solved for ``k``, and the solution must be an integer in the range
    (known from IndexRange hypotheses for free symbols, from the binder for bound ones)."""
    return contract(expr, hypotheses)


@rule(
    "kronecker_delta_contraction",
    "sum_{k=lo}^{hi} f(k) delta_{jk} = f(j), provided j is known to lie in lo..hi",
)
def check_kronecker_delta_contraction(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("kronecker_delta_contraction justifies equalities only")
    sides = [(name, e, other) for name, e, other in (("left", lhs, rhs), ("right", rhs, lhs)) if _has_delta_sum(e)]
    if not sides:
        return failed("no Kronecker delta inside a sum to contract")
    for name, e, other in sides:
        contracted = contract_deltas(e, ctx.hypotheses)
        then = "" if alpha_equal(contracted, other) else ", then algebra"
        if then == "" or equal(contracted, other):
            return passed(f"deltas in the {name} side contracted (each solution an integer in its range){then}")
    return failed("contracting the deltas does not give the other side")


def _has_delta_sum(e: Any) -> bool:
    if isinstance(e, sp.MatrixBase):
        return any(_has_delta_sum(x) for x in e)
    return isinstance(e, sp.Basic) and any(s.function.has(sp.KroneckerDelta) for s in e.atoms(sp.Sum))


@rule("sum_split", "sum_{k=a}^{b} f = sum_{k=a}^{m} f + sum_{k=m+1}^{b} f, for a-1 <= m <= b", params=("at",))
def check_sum_split(lhs, rhs, relation, ctx, at=None):
    if relation != "=":
        raise RuleError("sum_split justifies equalities only")
    if at is None:
        raise RuleError("sum_split needs at=<split point m>")
    m = sp.sympify(at, strict=True) if isinstance(at, int) else at
    sums = (sorted((s for s in lhs.atoms(sp.Sum) if len(s.limits) == 1), key=sp.default_sort_key)
            if isinstance(lhs, sp.Basic) else [])
    if not sums:
        return failed("no sum on the left side to split")
    for s in sums:
        (k, a, b) = s.limits[0]
        if not index_in_range(m, a - 1, b, ctx.hypotheses):  # a-1 <= m <= b, directly or by an IndexRange
            continue
        pieces = sp.Sum(s.function, (k, a, m)) + sp.Sum(s.function, (k, m + 1, b))
        candidate = lhs.xreplace({s: pieces})
        if equal(candidate, rhs) or equal(_single_terms(candidate), _single_terms(rhs)):
            return passed(f"split sum over {k} = {a}..{b} at {m}")
    return failed(f"splitting at {m} does not give the right side (check the bounds: pieces must be a..m and m+1..b)")


def _single_terms(expr):
    """Evaluate sums over a single index value, sum_{k=c}^{c} f(k) = f(c)."""

    def one(s):
        (k, a, b) = s.limits[0] if len(s.limits) == 1 else (None, 0, 1)
        if k is not None and sp.simplify(b - a) == 0:
            return s.function.xreplace({k: a})
        return s

    return _map_sums(expr, one)


@rule(
    "sum_evaluate",
    "evaluate finite sums by the kernel's closed forms (constants, deltas with their range check, "
    "sum of k, k^2, k^3), then algebra",
)
def check_sum_evaluate(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("sum_evaluate justifies equalities only")
    if not (isinstance(lhs, sp.Basic) and lhs.atoms(sp.Sum)):
        return failed("no sum on the left side to evaluate")
    evaluated = evaluate(lhs, ctx.hypotheses)
    if evaluated == lhs:
        return failed("the kernel knows no closed form for the sums on the left side")
    if equal(evaluated, rhs):
        return passed("summation evaluated by the kernel's closed forms, then algebra")
    return failed(f"the closed form is {sp.sstr(evaluated)}, not the right side")
