"""A step's claim re-checked as a whole by the second engine.

Some steps are accepted with no arithmetic fact going through the kernel's zero or sign test: the
term layer (renaming a bound variable, unfolding a definition, rewriting with a hypothesis) and the
rule's own reading of the terms decide. For such a step, and for one whose zero tests flint could
not express, the checker asks the second engine about the claim itself:

* an equation ``lhs = rhs``: flint's zero test of ``lhs - rhs`` (definitions unfolded, sums in the
  atoms' linear normal form); for a ``substitute`` step the equations it names, ``a = b``, are
  substituted first (occurrences of the term ``a``; a hypothesis ``forall`` pattern is not);
* a rank bound ``rank(A_1 ... A_k) <= b``: the factors' shapes and the bound read by :mod:`.ranks`;
* an inequality ``lhs <= rhs`` (``<``, ``>=``, ``>``): Z3's sign test of ``rhs - lhs`` with the
  theorem's ``IndexRange`` ranges (their indices integers) and ``Assumption`` relations as facts.

Only an agreement counts (a step may rest on hypotheses the engine does not read, so its ``disagree``
is reported as ``inexpressible``, never as a failure of the step).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy as sp

from symattn.kernel.second import AGREE, DISAGREE, INEXPRESSIBLE, Check

__all__ = ["recheck_step"]

_INEQUALITIES = {"<=": ("nonnegative", 1), "<": ("positive", 1), ">=": ("nonnegative", -1), ">": ("positive", -1)}


def _as_step(check: Check, fact: str) -> Check:
    verdict = INEXPRESSIBLE if check.verdict == DISAGREE else check.verdict
    reason = check.reason if check.verdict != DISAGREE else f"not shown: {check.reason}"
    return dataclasses.replace(check, verdict=verdict, reason=reason, fact=fact, kind="step",
                               kernel="the step's rule accepted it")


def _equations(hypotheses, args: dict | None) -> dict:
    from symattn.language.statement import Equation

    using = (args or {}).get("using")
    names = [using] if isinstance(using, str) else list(using or ())
    out = {}
    for h in hypotheses or ():
        if isinstance(h, Equation) and h.name in names and not getattr(h, "forall", ()):
            a, b = h.lhs, h.rhs
            for x, y in ((a, b), (b, a)):  # the side that is a term (not a number) is rewritten
                if isinstance(x, sp.Basic) and not x.is_number and x not in out:
                    out[x] = y
                    break
    return out


def recheck_step(lhs: Any, rhs: Any, relation: str, hypotheses=(), rule: str = "",
                 args: dict | None = None) -> Check | None:
    """The second engine on the step ``lhs <relation> rhs`` as a whole (``None``: no such check)."""
    from symattn.kernel.second.flint_zero import recheck_zero
    from symattn.kernel.terms import canonical

    fact = f"the step {_short(lhs)} {relation} {_short(rhs)}"
    try:
        a, b = canonical(lhs), canonical(rhs)
    except (TypeError, ValueError, AttributeError):
        return None
    if relation == "=":
        try:
            diff = a - b
        except (TypeError, ValueError, sp.ShapeError):
            return None
        check = recheck_zero(diff, hypotheses=hypotheses) if hypotheses else recheck_zero(diff)
        if check.verdict != AGREE and rule == "substitute":
            eqs = _equations(hypotheses, args)
            if eqs:
                subst = {canonical(k): canonical(v) for k, v in eqs.items()}
                try:
                    again = recheck_zero(canonical(diff.xreplace(subst)))
                except (TypeError, ValueError):
                    again = check
                if again.verdict == AGREE:
                    check = dataclasses.replace(again, reason=f"{again.reason}, with {len(subst)} equation(s) "
                                                "of the hypotheses substituted")
        return _as_step(check, fact)
    if relation in ("<=", ">="):
        from symattn.kernel.second.ranks import recheck_rank_bound

        small, big = (a, b) if relation == "<=" else (b, a)
        rank = recheck_rank_bound(small, big)
        if rank is not None:
            return _as_step(rank, fact)
    if relation in _INEQUALITIES and not (_is_matrix(a) or _is_matrix(b)):
        from symattn.kernel.second.z3_sign import recheck_sign

        rel, sgn = _INEQUALITIES[relation]
        ranges, conditions, integers = _hypotheses_for_z3(hypotheses)
        expr = sgn * (b - a)
        names = _symbols(expr)  # only what bears on the claim (a condition Z3 cannot read would spoil it)
        for _ in range(3):
            ranges = tuple(r for r in ranges if r[0] in names)
            names |= set().union(set(), *(_symbols(lo) | _symbols(hi) for (_v, lo, hi) in ranges))
        conditions = tuple(c for c in conditions if _symbols(c) & names)
        mapping = {s: sp.Dummy(s.name, integer=True) for s in integers if not s.is_integer}
        if mapping:
            expr = expr.xreplace(mapping)
            ranges = tuple((mapping.get(v, v), lo, hi) for (v, lo, hi) in ranges)
            conditions = tuple(c.xreplace(mapping) for c in conditions)
        return _as_step(recheck_sign(expr, rel, ranges=ranges, conditions=conditions), fact)
    return None


def _hypotheses_for_z3(hypotheses) -> tuple:
    from symattn.language.statement import Assumption, IndexRange

    ranges, conditions, integers = [], [], []
    for h in hypotheses or ():
        if isinstance(h, IndexRange) and isinstance(h.index, sp.Symbol):
            ranges.append((h.index, sp.sympify(h.lower), sp.sympify(h.upper)))
            integers.append(h.index)
        elif isinstance(h, Assumption) and isinstance(h.condition, sp.Basic) and isinstance(
                h.condition, (sp.core.relational.Relational, sp.And)):
            conditions.append(h.condition)
    return tuple(ranges), tuple(conditions), tuple(integers)


def _symbols(x: Any) -> set:
    from symattn.kernel.terms import free_symbols

    return set(free_symbols(x)) if isinstance(x, sp.Basic) else set()


def _is_matrix(x: Any) -> bool:
    return isinstance(x, (sp.MatrixBase, sp.MatrixExpr))


def _short(x: Any, limit: int = 80) -> str:
    s = " ".join(sp.sstr(x).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."
