"""``substitute``: use a hypothesis equation ``a = b`` to rewrite.

The step ``lhs = rhs`` is valid when replacing occurrences of ``a`` by ``b`` (or ``b`` by ``a``)
in ``lhs`` gives ``rhs`` up to ``algebra``. Symbols listed in the equation's ``forall`` are
pattern variables (an equation ``E[q_i] = 0`` for all ``i`` rewrites ``E[q_j]`` too), each kept
in its declared domain (its assumptions and IndexRange hypotheses, checked on the matched value
with the ranges of the binders around it: ``E[q_i] = mu`` for positive ``i`` says nothing at
``i = 0``). Terms are canonical (bound variables are dummies), so an equation about a free ``j``
never rewrites a bound ``j``. Only
equations the theorem declares as hypotheses may be used: a proof cannot assume what it likes.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.hypotheses import rewrite_with
from symattn.kernel.terms import KernelError, canonical
from symattn.kernel.thm import by_zero, refl, sym, trans
from symattn.language.statement import Equation
from symattn.rules import RuleError, failed, proved, rule
from symattn.rules.algebra import equal

__all__ = ["rewrite"]


def rewrite(expr: Any, a: Any, b: Any) -> Any:
    """Replace ``a`` by ``b`` in ``expr`` (a hint for the rules that search: no pattern variables)."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: rewrite(e, a, b))
    if not isinstance(expr, sp.Basic):
        return expr
    return expr.xreplace({a: b})


def _rewritten(expr, eqs, problems):
    """The kernel's theorem ``expr = expr'`` rewriting with each equation in turn (where it occurs)."""
    t = refl(expr)
    for h in eqs:
        try:
            t = trans(t, rewrite_with(t.rhs, h, problems=problems))
        except KernelError:
            continue
    return t


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
    problems: list = []
    forward = _rewritten(lhs, eqs, problems)
    backward = _rewritten(rhs, eqs, problems)
    if forward.rhs == canonical(lhs) and backward.rhs == canonical(rhs):
        if problems:
            return failed(f"{', '.join(names)} applies only in its domain: {'; '.join(sorted(set(problems)))}")
        return failed(f"{', '.join(names)} does not occur in either side")
    for a, b in ((forward.rhs, rhs), (forward.rhs, backward.rhs), (lhs, backward.rhs)):
        if equal(a, b):
            return proved(trans(forward, by_zero(forward.rhs, backward.rhs), sym(backward)),
                          f"rewriting with {', '.join(names)}")
    outside = f"; not applied outside its domain: {'; '.join(sorted(set(problems)))}" if problems else ""
    return failed(f"rewriting with {', '.join(names)} does not turn the left side into the right side{outside}")
