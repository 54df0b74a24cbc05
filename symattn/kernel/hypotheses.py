"""Using the theorem's hypotheses: an equation as stated, or rewritten at instances of its ``forall``.

:func:`use` gives the ``Thm`` of a hypothesis the theorem has (never one a rule builds: it must be one
of the step's hypotheses, the very object or an equal one). :func:`rewrite_with` rewrites a term with an
:class:`~symattn.language.statement.Equation` hypothesis: occurrences of its left side (right side, with
``reverse``) are replaced, and a symbol in the equation's ``forall`` matches a subterm only where the
matched value lies in the symbol's declared domain:

* every assumption the variable is declared with (``integer``, ``positive``, ``nonnegative``,
  ``negative``, ``nonpositive``, ``nonzero``, ``real``, ``rational``, ``irrational``, ``noninteger``,
  ``imaginary``, ``complex``, ``even``, ``odd``, ``prime``, ``finite``), shown of the value by the
  kernel's tests (sign test, integrality with the ranges) or by the value's own declared assumptions;
* a variable used as an index (inside an ``Indexed``) is an integer whatever it is declared as: ``v_{2w}``
  never matches ``v_j`` at ``w = j/2``;
* every :class:`~symattn.language.statement.IndexRange` hypothesis on the variable, with the ranges of the binders
  around the occurrence.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits

from symattn.kernel.terms import KernelError, canonical
from symattn.kernel.thm import _member, _step_hypotheses

__all__ = ["use", "rewrite_with", "in_domain"]

_FACTS = ("integer", "positive", "nonnegative", "negative", "nonpositive", "nonzero", "real", "rational",
          "irrational", "noninteger", "imaginary", "complex", "even", "odd", "prime", "finite")


def use(h: Any):
    """The ``Thm`` of hypothesis ``h`` (an equation without ``forall``, or an Assumption's relation)."""
    from symattn.kernel.thm import hypothesis

    _member(h)
    return hypothesis(h)


def _index_variables(expr: Any, forall: tuple) -> set:
    out = set()
    if isinstance(expr, sp.Basic):
        for node in sp.preorder_traversal(expr):
            if isinstance(node, sp.Indexed):
                for i in node.indices:
                    out |= {v for v in forall if v in getattr(i, "free_symbols", ())}
    return out


def in_domain(var: Any, value: Any, hypotheses, env: dict, as_index: bool = False) -> str | None:
    """None when ``value`` lies where the forall variable ``var`` is declared to range, else why not."""
    from symattn.kernel.sign import has_fact, sign_of
    from symattn.kernel.sums import _is_integer, index_in_range
    from symattn.kernel.zero import _shown_nonzero
    from symattn.language.statement import IndexRange

    wanted = [f for f in _FACTS if getattr(var, f"is_{f}", None) is True]
    if as_index and "integer" not in wanted:
        wanted.insert(0, "integer")
    for fact in wanted:
        if has_fact(value, fact):
            continue
        if fact == "integer" and _is_integer(value, hypotheses, env):
            continue
        if fact == "positive" and (sign_of(value) == "positive" or index_in_range(value, 1, value, hypotheses, env)):
            continue
        if fact == "nonnegative" and (sign_of(value) in ("positive", "nonnegative")
                                      or index_in_range(value, 0, value, hypotheses, env)):
            continue
        if fact == "negative" and sign_of(-value) == "positive":
            continue
        if fact == "nonpositive" and sign_of(-value) in ("positive", "nonnegative"):
            continue
        if fact == "nonzero" and _shown_nonzero(value, hypotheses):
            continue
        if fact in ("real", "complex", "finite") and _is_integer(value, hypotheses, env):
            continue
        why = "an index" if (fact == "integer" and as_index and var.is_integer is not True) else fact
        return f"{var} is {why} in the equation, but {sp.sstr(value)} is not known to be {fact}"
    for h in hypotheses:
        if (isinstance(h, IndexRange) and h.index == var
                and not index_in_range(value, h.lower, h.upper, hypotheses, env)):
            return f"{var} ranges over {sp.sstr(h.lower)}..{sp.sstr(h.upper)}, but {sp.sstr(value)} is not known to"
    return None


def _rewrite(e, pat, tmpl, wilds, index_vars, hyps, env, problems):
    if not isinstance(e, sp.Basic):
        return e
    if not isinstance(e, sp.Number) and wilds:
        m = e.match(pat)
        if m is not None and all(w in m for w in wilds.values()):
            why = [r for var, w in wilds.items()
                   if (r := in_domain(var, m[w], hyps, env, as_index=var in index_vars))]
            if not why:
                return tmpl.xreplace(m)
            problems.extend(why)
    elif not wilds and e == pat:
        return tmpl
    if not e.args:
        return e
    if isinstance(e, ExprWithLimits):
        # the bounds are terms of the enclosing scope (rewritten there); the body sees the ranges
        limits = []
        for lim in e.limits:
            limits.append(sp.Tuple(lim[0], *(_rewrite(b, pat, tmpl, wilds, index_vars, hyps, env, problems)
                                             for b in lim[1:])))
        inner = dict(env)
        for lim in limits:
            if len(lim) == 3:
                inner[lim[0]] = (lim[1], lim[2])
        body = _rewrite(e.function, pat, tmpl, wilds, index_vars, hyps, inner, problems)
        if body is e.function and all(a == b for a, b in zip(limits, e.limits)):
            return e
        return e.func(body, *limits)
    args = [_rewrite(x, pat, tmpl, wilds, index_vars, hyps, env, problems) for x in e.args]
    if all(x is y for x, y in zip(args, e.args)):
        return e
    return e.func(*args)


def rewrite_with(expr: Any, h: Any, reverse: bool = False, problems: list | None = None):
    """``expr = expr'`` where ``expr'`` replaces the instances (in their domain) of the equation's side."""
    from symattn.kernel.thm import _make
    from symattn.language.statement import Equation

    _member(h)
    if not isinstance(h, Equation):
        raise KernelError(f"hypothesis {h.name!r} is not an equation")
    hyps = _step_hypotheses()
    a, b = canonical(h.lhs), canonical(h.rhs)
    if reverse:
        a, b = b, a
    forall = tuple(h.forall or ())
    wilds = {s: sp.Wild(f"w_{s}") for s in forall}
    pat = a.xreplace(wilds) if wilds else a
    tmpl = sp.sympify(b, strict=True).xreplace(wilds) if wilds else b
    problems = [] if problems is None else problems
    e = canonical(expr)
    if isinstance(e, sp.MatrixBase):
        new = e.applyfunc(lambda x: _rewrite(x, pat, tmpl, wilds, _index_variables(a, forall), hyps, {}, problems))
    else:
        new = _rewrite(e, pat, tmpl, wilds, _index_variables(a, forall), hyps, {}, problems)
    if new == e:
        raise KernelError(f"{h.name} does not occur" + (f" in its domain: {'; '.join(sorted(set(problems)))}"
                                                         if problems else ""))
    return _make(e, new, "=", f"hypothesis {h.name}")
