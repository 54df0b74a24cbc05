"""``substitute``: use a hypothesis equation ``a = b`` to rewrite.

The step ``lhs = rhs`` is valid when replacing occurrences of ``a`` by ``b`` (or ``b`` by ``a``)
in ``lhs`` gives ``rhs`` up to ``algebra``. Symbols listed in the equation's ``forall`` are
pattern variables (an equation ``E[q_i] = 0`` for all ``i`` rewrites ``E[q_j]`` too). Only
equations the theorem declares as hypotheses may be used: a proof cannot assume what it likes.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.terms import canonical
from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal
from symattn.statement import Equation

__all__ = ["rewrite"]


def _pattern(expr: Any, forall: tuple) -> tuple[Any, dict]:
    wilds = {s: sp.Wild(f"w_{s}") for s in forall}
    return (expr.xreplace(wilds) if wilds and hasattr(expr, "xreplace") else expr), wilds


def rewrite(expr: Any, a: Any, b: Any, forall: tuple = ()) -> Any:
    """Replace ``a`` by ``b`` in ``expr``; symbols in ``forall`` match any subexpression."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: rewrite(e, a, b, forall))
    if not isinstance(expr, sp.Basic):
        return expr
    if not forall:
        out = expr.xreplace({a: b})
        return out if out != expr else expr.subs(a, b)
    pat, wilds = _pattern(a, forall)
    tmpl = b.xreplace(wilds) if hasattr(b, "xreplace") else b
    return expr.replace(pat, tmpl, exact=False)


@rule(
    "substitute",
    "rewrite with a hypothesis equation a = b (either direction)",
    params=("using",),
)
def check_substitute(lhs, rhs, relation, ctx, using=None):
    if relation != "=":
        raise RuleError("substitute justifies equalities only")
    if using is None:
        raise RuleError("substitute needs using=<hypothesis name> (or a list of names)")
    names = [using] if isinstance(using, str) else list(using)
    eqs = []
    for name in names:
        h = ctx.hypothesis(name)
        if not isinstance(h, Equation):
            raise RuleError(f"hypothesis {name!r} is not an equation")
        eqs.append(h)
    forward, backward = lhs, rhs
    for h in eqs:
        forall = tuple(getattr(h, "forall", ()) or ())
        a, b = canonical(h.lhs), canonical(h.rhs)
        forward = rewrite(forward, a, b, forall)
        backward = rewrite(backward, a, b, forall)
    if forward == lhs and backward == rhs:
        return failed(f"{', '.join(names)} does not occur in either side")
    if equal(forward, rhs) or equal(forward, backward) or equal(lhs, backward):
        return passed(f"rewriting with {', '.join(names)}")
    return failed(f"rewriting with {', '.join(names)} does not turn the left side into the right side")
