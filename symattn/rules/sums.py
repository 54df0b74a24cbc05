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

from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal, sign_of
from symattn.statement import IndexRange

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
    if equal(linear_normal_form(lhs), linear_normal_form(rhs)):
        return passed("both sides agree after distributing sums and pulling out constants")
    return failed("the sides differ after distributing the sums and pulling out constant factors")


def _provably_le(a: Any, b: Any) -> bool:
    d = sp.simplify(b - a)
    return d == 0 or sign_of(d) in ("positive", "nonnegative")


def index_in_range(j: Any, lo: Any, hi: Any, hypotheses) -> bool:
    """Whether the hypotheses (or the bounds themselves) place integer ``j`` in ``lo..hi``."""
    if _provably_le(lo, j) and _provably_le(j, hi):
        return True
    for h in hypotheses:
        if isinstance(h, IndexRange) and h.index == j:
            if _provably_le(lo, h.lower) and _provably_le(h.upper, hi):
                return True
    return False


def contract_deltas(expr: Any, hypotheses) -> Any:
    """Contract ``sum_k f(k) delta(j, k)`` to ``f(j)``, checking that ``j`` lies in the range.

    Where ``j`` is itself the index of an enclosing sum, its range is that sum's range, whatever
    the hypotheses say about a free symbol of the same name.
    """

    def contract(s: sp.Sum, bound: dict):
        # Contract along the innermost index (the first limit); further limits enclose it.
        (k, lo, hi), outer = s.limits[0], s.limits[1:]
        bound = dict(bound)
        for (v, a, b) in outer:
            bound[v] = (a, b)
        hyps = [h for h in hypotheses if not (isinstance(h, IndexRange) and h.index in bound)]
        hyps += [IndexRange(f"bound_{v}", index=v, lower=a, upper=b) for v, (a, b) in bound.items()]
        rest = sp.S.Zero
        out = sp.S.Zero
        for term in sp.Add.make_args(sp.expand(s.function)):
            deltas = [
                f for f in sp.Mul.make_args(term)
                if isinstance(f, sp.KroneckerDelta) and k in f.free_symbols
            ]
            if not deltas:
                rest += term
                continue
            delta = deltas[0]
            a, b = delta.args[:2]
            j = b if a == k else a
            if k in getattr(j, "free_symbols", set()):
                rest += term
                continue
            if not index_in_range(j, lo, hi, hyps):
                raise RuleError(
                    f"cannot contract delta({a}, {b}) in a sum over {k} = {lo}..{hi}: "
                    f"{j} is not known to lie in that range"
                )
            out += (term / delta).xreplace({k: j})
        if out == 0:
            return s
        contracted = sp.Sum(out, *outer) if outer else out
        return contracted + (sp.Sum(rest, (k, lo, hi), *outer) if rest != 0 else 0)

    def walk(e: Any, bound: dict) -> Any:
        if isinstance(e, sp.Sum):
            inner = dict(bound)
            for (v, lo, hi) in e.limits:  # every index of this sum encloses its body
                inner[v] = (lo, hi)
            body = walk(e.function, inner)
            return contract(sp.Sum(body, *e.limits) if body is not e.function else e, bound)
        if isinstance(e, sp.Basic) and e.args and e.has(sp.Sum):
            args = [walk(a, bound) for a in e.args]
            if any(x is not y for x, y in zip(args, e.args)):
                return e.func(*args)
        return e

    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: walk(e, {}))
    return walk(expr, {})


@rule(
    "kronecker_delta_contraction",
    "sum_{k=lo}^{hi} f(k) delta_{jk} = f(j), provided j is known to lie in lo..hi",
)
def check_kronecker_delta_contraction(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("kronecker_delta_contraction justifies equalities only")
    contracted = contract_deltas(lhs, ctx.hypotheses)
    if contracted == lhs:
        contracted_rhs = contract_deltas(rhs, ctx.hypotheses)
        if contracted_rhs == rhs:
            return failed("no Kronecker delta inside a sum to contract")
        return passed("contracting the deltas in the right side gives the left side") if equal(
            contracted_rhs, lhs
        ) else failed("contracting the deltas does not give the other side")
    if equal(contracted, rhs):
        return passed("deltas contracted; indices checked to lie in the summation range")
    return failed("contracting the deltas does not give the right side")


@rule("sum_split", "sum_{k=a}^{b} f = sum_{k=a}^{m} f + sum_{k=m+1}^{b} f, for a-1 <= m <= b", params=("at",))
def check_sum_split(lhs, rhs, relation, ctx, at=None):
    if relation != "=":
        raise RuleError("sum_split justifies equalities only")
    if at is None:
        raise RuleError("sum_split needs at=<split point m>")
    m = sp.sympify(at, strict=True) if isinstance(at, int) else at
    sums = sorted((s for s in lhs.atoms(sp.Sum) if len(s.limits) == 1), key=sp.default_sort_key) if isinstance(lhs, sp.Basic) else []
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


@rule("sum_evaluate", "evaluate a finite sum in closed form (SymPy summation; e.g. sum_{k=1}^{n} c = n c)")
def check_sum_evaluate(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("sum_evaluate justifies equalities only")
    if not (isinstance(lhs, sp.Basic) and lhs.atoms(sp.Sum)):
        return failed("no sum on the left side to evaluate")
    evaluated = lhs.replace(lambda e: isinstance(e, sp.Sum), lambda s: s.doit())
    if equal(evaluated, rhs):
        return passed("summation evaluated in closed form")
    return failed(f"the closed form is {sp.sstr(evaluated)}, not the right side")
