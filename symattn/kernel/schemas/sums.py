"""Axiom schemas of finite sums (Karr's convention: ``sum_{k=a}^{b}`` over integer bounds).

* ``sum_linearity``: every finite sum in a term distributed over the terms of its (expanded) summand,
  with the factors free of the index pulled out, and a summand free of the index summed to
  ``(b - a + 1) c`` when both bounds are shown integers;
* ``delta_contraction``: the kernel's delta rule (:func:`symattn.kernel.sums.contract`): the delta's
  equation solved for the index, the solution an integer in the range (or provably outside it: 0);
* ``sum_evaluate``: the kernel's closed forms (:func:`symattn.kernel.sums.evaluate`: constants, deltas,
  Faulhaber's ``k, k^2, k^3``);
* ``sum_split``: ``sum_{k=a}^{b} f = sum_{k=a}^{m} f + sum_{k=m+1}^{b} f`` for an integer ``m`` with
  ``a - 1 <= m <= b`` shown by the kernel;
* ``single_term``: ``sum_{k=a}^{a} f(k) = f(a)``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.axioms import schema
from symattn.kernel.sums import _is_integer, check_finite, contract, evaluate, index_in_range, linear_normal_form
from symattn.kernel.terms import KernelError, canonical, substitute


def _hyps() -> tuple:
    from symattn.kernel.context import HYPOTHESES

    return tuple(HYPOTHESES.get() or ())


@schema("sum_linearity", "sum_k (a f(k) + g(k)) = a sum_k f(k) + sum_k g(k) for a free of k; "
                         "sum_{k=a}^{b} c = (b - a + 1) c for integer b - a >= -1")
def _sum_linearity(expr: Any):
    check_finite(expr, "sum_linearity")
    e = canonical(expr)
    return e, linear_normal_form(e, _hyps()), "="


@schema("delta_contraction", "sum_{k=lo}^{hi} f(k) delta(k, j) = f(j) for an integer j in lo..hi (0 outside)")
def _delta_contraction(expr: Any):
    check_finite(expr, "delta_contraction")
    e = canonical(expr)
    return e, contract(e, _hyps()), "="


@schema("sum_evaluate", "the kernel's closed forms of finite sums: constants, deltas, sum of k, k^2, k^3")
def _sum_evaluate(expr: Any):
    check_finite(expr, "sum_evaluate")
    e = canonical(expr)
    return e, evaluate(e, _hyps()), "="


@schema("sum_split", "sum_{k=a}^{b} f = sum_{k=a}^{m} f + sum_{k=m+1}^{b} f for an integer m, a-1 <= m <= b")
def _sum_split(s: Any, at: Any):
    s = canonical(s)
    if not isinstance(s, sp.Sum) or len(s.limits) != 1:
        raise KernelError("sum_split splits a sum over one index")
    (k, a, b) = s.limits[0]
    m = sp.sympify(at, strict=True)
    hyps = _hyps()
    if not _is_integer(m, hyps, {}):
        raise KernelError(f"the split point {sp.sstr(m)} is not known to be an integer")
    if not _is_integer(b - a, hyps, {}):
        raise KernelError(f"the bounds {sp.sstr(a)}..{sp.sstr(b)} are not known to be integers apart")
    if not index_in_range(m, a - 1, b, hyps):
        raise KernelError(f"the split point {sp.sstr(m)} is not known to lie in {sp.sstr(a - 1)}..{sp.sstr(b)}")
    return s, sp.Sum(s.function, (k, a, m)) + sp.Sum(s.function, (k, m + 1, b)), "="


@schema("single_term", "sum_{k=a}^{a} f(k) = f(a)")
def _single_term(s: Any):
    s = canonical(s)
    if not isinstance(s, sp.Sum) or len(s.limits) != 1:
        raise KernelError("single_term evaluates a sum over one index")
    (k, a, b) = s.limits[0]
    if canonical(b - a) != 0:
        raise KernelError(f"{sp.sstr(s)} is not a sum of one term")
    return s, substitute(s.function, {k: a}), "="


# ----------------------------------------------------------------------------------- reordering
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


@schema("sum_flatten", "sum_L (A sum_M B) = sum_{M, L} A B for A free of the inner indices (finite sums)")
def _sum_flatten(expr: Any):
    check_finite(expr, "sum_flatten")
    e = canonical(expr)
    return e, flatten_sums(e), "="


def rectangular(s: sp.Sum) -> bool:
    """No bound of the sum mentions any of its own indices (the index set is a box)."""
    variables = {lim[0] for lim in s.limits}
    return all(len(lim) == 3 and not (sp.Tuple(*lim[1:]).free_symbols & variables) for lim in s.limits)


@schema("sum_interchange", "sum_j sum_c f = sum_c sum_j f when no range mentions another index (finite sums, "
                           "Karr's convention: signed finite sums commute)")
def _sum_interchange(s: Any, order: tuple):
    check_finite(s, "sum_interchange")
    if not isinstance(s, sp.Sum) or not rectangular(s):
        raise KernelError("sum_interchange reorders a multi-index sum none of whose ranges mentions another index")
    if sorted(map(str, order)) != sorted(map(str, s.limits)) or set(order) != set(s.limits):
        raise KernelError("sum_interchange: the new order must be a permutation of the sum's limits")
    return s, sp.Sum(s.function, *order), "="
