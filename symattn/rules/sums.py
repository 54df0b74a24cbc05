"""Rules for finite sums: ``sum_linearity``, ``sum_split``, ``sum_evaluate`` and
``kronecker_delta_contraction``.

Index ranges matter. ``kronecker_delta_contraction`` uses
``sum_{k=lo}^{hi} f(k) delta_{jk} = f(j)`` only when the theorem's hypotheses place ``j`` in
``lo..hi`` (an :class:`~symattn.language.statement.IndexRange`); outside the range the sum is 0, so
contracting there would be wrong, and the rule says so. ``sum_split`` checks that the split
point lies in the range and that the two pieces meet without gap or overlap.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.sign import provably_le
from symattn.kernel.sums import check_finite, contract, index_in_range
from symattn.kernel.terms import KernelError
from symattn.kernel.thm import by_zero, refl, rewrite, sym, trans
from symattn.kernel.zero import plausibly_equal
from symattn.rules import RuleError, failed, proved, rule
from symattn.rules.algebra import equal

__all__ = ["linear_normal_form", "contract_deltas", "index_in_range", "meet"]


def linear_normal_form(expr: Any) -> Any:
    """Every sum distributed over its terms, constants pulled out (the kernel's ``sum_linearity``)."""
    return axiom("sum_linearity", expr=expr).rhs


def _provably_le(a: Any, b: Any) -> bool:
    """A hint for the rules that search (the kernel decides): ``a <= b`` by the kernel's sign test."""
    return provably_le(a, b)


def meet(left, right):
    """``a = b`` from the kernel's theorems ``a = x`` and ``b = y`` when ``x = y`` by the zero test."""
    return trans(left, by_zero(left.rhs, right.rhs), sym(right))


@rule("sum_linearity", "sum_k (a f(k) + g(k)) = a sum_k f(k) + sum_k g(k) for a free of k")
def check_sum_linearity(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("sum_linearity justifies equalities only")
    if not any(isinstance(x, sp.Basic) and x.atoms(sp.Sum) for x in (lhs, rhs)):
        return failed("no sum on either side")
    check_finite(lhs, "sum_linearity")
    check_finite(rhs, "sum_linearity")
    left, right = axiom("sum_linearity", expr=lhs), axiom("sum_linearity", expr=rhs)
    if equal(left.rhs, right.rhs):
        return proved(meet(left, right), "both sides agree after distributing sums and pulling out constants")
    return failed("the sides differ after distributing the sums and pulling out constant factors")


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
        t = axiom("delta_contraction", expr=e)
        if equal(t.rhs, other):
            thm = trans(t, by_zero(t.rhs, other))
            return proved(thm if name == "left" else sym(thm),
                          f"deltas in the {name} side contracted (each solution an integer in its range)")
    return failed("contracting the deltas does not give the other side")


def _has_delta_sum(e: Any) -> bool:
    if isinstance(e, sp.MatrixBase):
        return any(_has_delta_sum(x) for x in e)
    return isinstance(e, sp.Basic) and any(s.function.has(sp.KroneckerDelta) for s in e.atoms(sp.Sum))


def closing(t, rhs):
    """``t`` (``lhs = x``) continued to ``rhs``, with the sums of one term evaluated on either side: the
    candidates a cheap hint finds equal are tried first, then the others by the zero test."""
    left = single_terms(t)
    pairs = [(t, refl(rhs)), (left, single_terms(refl(rhs))), (left, single_terms(axiom("sum_linearity", expr=rhs)))]
    ordered = [p for p in pairs if plausibly_equal(p[0].rhs, p[1].rhs)] + pairs
    for a, b in ordered:
        if equal(a.rhs, b.rhs):
            return meet(a, b)
    return None


def single_terms(t):
    """``t`` continued by the kernel's ``single_term`` for each sum of one term on its right side."""
    for s in sorted(t.rhs.atoms(sp.Sum) if isinstance(t.rhs, sp.Basic) else (), key=sp.default_sort_key):
        try:
            t = trans(t, rewrite(t.rhs, axiom("single_term", s=s)))
        except KernelError:
            continue
    return t


@rule("sum_split", "sum_{k=a}^{b} f = sum_{k=a}^{m} f + sum_{k=m+1}^{b} f, for a-1 <= m <= b", params=("at",))
def check_sum_split(lhs, rhs, relation, ctx, at=None):
    if relation != "=":
        raise RuleError("sum_split justifies equalities only")
    if at is None:
        raise RuleError("sum_split needs at=<split point m>")
    m = sp.Integer(at) if isinstance(at, int) else at
    sums = (sorted((s for s in lhs.atoms(sp.Sum) if len(s.limits) == 1), key=sp.default_sort_key)
            if isinstance(lhs, sp.Basic) else [])
    if not sums:
        return failed("no sum on the left side to split")
    reasons = []
    for s in sums:
        try:
            t = rewrite(lhs, axiom("sum_split", s=s, at=m))
        except KernelError as exc:
            reasons.append(str(exc))
            continue
        found = closing(t, rhs)
        if found is not None:
            return proved(found, f"split sum at {m}")
    why = f" ({'; '.join(reasons)})" if reasons else ""
    return failed(f"splitting at {m} does not give the right side (check the bounds: pieces must be a..m and "
                  f"m+1..b){why}")


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
    t = axiom("sum_evaluate", expr=lhs)
    if t.rhs == t.lhs:
        return failed("the kernel knows no closed form for the sums on the left side")
    if equal(t.rhs, rhs):
        return proved(trans(t, by_zero(t.rhs, rhs)), "summation evaluated by the kernel's closed forms, then algebra")
    if isinstance(rhs, sp.Basic) and rhs.has(sp.Sum):  # the right side keeps a sum the kernel also evaluates
        r = axiom("sum_evaluate", expr=rhs)
        if equal(t.rhs, r.rhs):
            return proved(meet(t, r), "both sides' sums evaluated by the kernel's closed forms, then algebra")
    return failed(f"the closed form is {sp.sstr(t.rhs)}, not the right side")
