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

from symattn.kernel.terms import alpha_equal, canonical
from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal
from symattn.statement import Equation, IndexRange

__all__ = ["rewrite"]


def _pattern(expr: Any, forall: tuple) -> tuple[Any, dict]:
    wilds = {s: sp.Wild(f"w_{s}") for s in forall}
    return (expr.xreplace(wilds) if wilds and hasattr(expr, "xreplace") else expr), wilds


def rewrite(expr: Any, a: Any, b: Any, forall: tuple = (), hypotheses=(), problems: list | None = None) -> Any:
    """Replace ``a`` by ``b`` in ``expr``; symbols in ``forall`` match any subexpression that lies in
    their declared domain: the symbol's assumptions (``positive``, ``integer``, ...) and the
    :class:`~symattn.statement.IndexRange` hypotheses about it, checked on the matched value with
    the ranges of the binders around the occurrence. Matches outside the domain are left alone and
    described in ``problems``."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: rewrite(e, a, b, forall, hypotheses, problems))
    if not isinstance(expr, sp.Basic):
        return expr
    if not forall:
        out = expr.xreplace({a: b})
        return out if out != expr else expr.subs(a, b)
    pat, wilds = _pattern(a, forall)
    b = sp.sympify(b, strict=True) if isinstance(b, (int, float)) else b
    tmpl = b.xreplace(wilds) if hasattr(b, "xreplace") else b
    return _rewrite_in_domain(expr, pat, tmpl, wilds, tuple(hypotheses), {}, problems if problems is not None else [])


def _in_domain(var: Any, value: Any, hypotheses, env: dict) -> str | None:
    """None when ``value`` satisfies what the forall variable ``var`` is declared to be, else why not."""
    from symattn.kernel.sign import sign_of
    from symattn.kernel.sums import _is_integer, index_in_range
    from symattn.kernel.zero import _shown_nonzero

    for fact in ("integer", "positive", "nonnegative", "negative", "nonpositive", "nonzero", "real",
                 "even", "odd", "prime"):
        if getattr(var, f"is_{fact}", None) is not True or getattr(value, f"is_{fact}", None) is True:
            continue
        if fact == "integer" and _is_integer(value, hypotheses, env):
            continue
        if fact == "positive" and (sign_of(value) == "positive" or index_in_range(value, 1, value, hypotheses, env)):
            continue
        if fact == "nonnegative" and (sign_of(value) in ("positive", "nonnegative")
                                      or index_in_range(value, 0, value, hypotheses, env)):
            continue
        if fact == "nonzero" and _shown_nonzero(value, hypotheses):
            continue
        return f"{var} is {fact} in the equation, but {sp.sstr(value)} is not known to be {fact}"
    for h in hypotheses:
        if (isinstance(h, IndexRange) and h.index == var
                and not index_in_range(value, h.lower, h.upper, hypotheses, env)):
            return f"{var} ranges over {sp.sstr(h.lower)}..{sp.sstr(h.upper)}, but {sp.sstr(value)} is not known to"
    return None


def _rewrite_in_domain(e, pat, tmpl, wilds, hyps, env, problems):
    from sympy.concrete.expr_with_limits import ExprWithLimits

    if not isinstance(e, sp.Basic):
        return e
    if not isinstance(e, sp.Number):
        m = e.match(pat)
        if m is not None and all(w in m for w in wilds.values()):
            why = [r for var, w in wilds.items() if (r := _in_domain(var, m[w], hyps, env))]
            if not why:
                return tmpl.xreplace(m)
            problems.extend(why)
    if not e.args:
        return e
    if isinstance(e, ExprWithLimits):
        inner = dict(env)
        for lim in e.limits:
            if len(lim) == 3:
                inner[lim[0]] = (lim[1], lim[2])
        body = _rewrite_in_domain(e.function, pat, tmpl, wilds, hyps, inner, problems)
        return e.func(body, *e.limits) if body is not e.function else e
    args = [_rewrite_in_domain(x, pat, tmpl, wilds, hyps, env, problems) for x in e.args]
    if all(x is y for x, y in zip(args, e.args)):
        return e
    return e.func(*args)


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
    problems: list = []
    for h in eqs:
        forall = tuple(getattr(h, "forall", ()) or ())
        a, b = canonical(h.lhs), canonical(h.rhs)
        forward = rewrite(forward, a, b, forall, ctx.hypotheses, problems)
        backward = rewrite(backward, a, b, forall, ctx.hypotheses, problems)
    if forward == lhs and backward == rhs:
        if problems:
            return failed(f"{', '.join(names)} applies only in its domain: {'; '.join(sorted(set(problems)))}")
        return failed(f"{', '.join(names)} does not occur in either side")
    for a, b in ((forward, rhs), (forward, backward), (lhs, backward)):
        if alpha_equal(a, b):
            return passed(f"rewriting with {', '.join(names)}")
    if equal(forward, rhs) or equal(forward, backward) or equal(lhs, backward):
        return passed(f"rewriting with {', '.join(names)}, then algebra")
    outside = f"; not applied outside its domain: {'; '.join(sorted(set(problems)))}" if problems else ""
    return failed(f"rewriting with {', '.join(names)} does not turn the left side into the right side{outside}")
