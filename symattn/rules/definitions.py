"""``definition``: unfold (or fold) a registered definition.

A definition is a SymPy expression class together with its expansion, for example the softmax
component ``Softmax(f, i, n)`` and ``exp(f(i)) / Sum(exp(f(j)), (j, 1, n))``. The step ``lhs = rhs``
is valid when unfolding every occurrence of the named definition in ``lhs`` gives ``rhs`` exactly
(up to ``algebra``), or unfolding it in ``rhs`` gives ``lhs`` (folding); the reason then says
"definition, then algebra" when more than a structural match was needed.

Only symattn's own unevaluated heads can be defined (never SymPy's classes such as ``exp``), and
an unfolding never captures: it is computed on fresh names and substituted back capture-avoidingly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp

from symattn.kernel.terms import alpha_equal, substitute
from symattn.kernel.zero import register_unfolding
from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal

__all__ = ["Definition", "define", "DEFINITIONS", "unfold"]


@dataclass(frozen=True)
class Definition:
    name: str
    cls: type
    expand: Callable[[Any], Any]  # instance of cls -> its expansion
    text: str = ""


DEFINITIONS: dict[str, Definition] = {}


def define(name: str, cls: type, expand: Callable[[Any], Any], text: str = "") -> Definition:
    """Register the definition ``name``: occurrences of ``cls`` expand through ``expand``."""
    if not (isinstance(cls, type) and issubclass(cls, sp.Basic)):
        raise TypeError(f"definition {name!r}: {cls!r} is not a SymPy expression class")
    if cls.__module__.split(".")[0] == "sympy":
        raise ValueError(
            f"definition {name!r}: {cls.__name__} is SymPy's own class ({cls.__module__}); only symattn's "
            "unevaluated heads can be defined (SymPy evaluates its own classes, so a 'definition' would "
            "contradict it)"
        )
    existing = DEFINITIONS.get(name)
    if existing is not None and existing.cls is not cls:
        raise ValueError(f"definition {name!r} already registered for {existing.cls.__name__}")
    d = Definition(name, cls, expand, text)
    DEFINITIONS[name] = d
    register_unfolding(cls, expand)
    return d


def unfold(expr: Any, name: str) -> Any:
    d = DEFINITIONS.get(name)
    if d is None:
        raise RuleError(f"unknown definition {name!r}; known: {sorted(DEFINITIONS)}")
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: unfold(e, name))
    if not isinstance(expr, sp.Basic):
        return expr
    return expr.replace(lambda e: isinstance(e, d.cls), lambda e: _expand_without_capture(d, e))


def _expand_without_capture(d: Definition, e: Any) -> Any:
    """``d.expand(e)``, computed on ``e`` with its free symbols renamed to fresh dummies and then
    substituted back capture-avoidingly: a binder in the definition's body (a sum over a fixed
    ``j``) can never capture a free ``j`` of the instance."""
    labels = {b.label for b in e.atoms(sp.IndexedBase)} if isinstance(e, sp.Basic) else set()
    syms = [x for x in e.free_symbols if isinstance(x, sp.Symbol) and not isinstance(x, sp.Dummy) and x not in labels]
    fresh = {x: sp.Dummy(x.name, **x.assumptions0) for x in syms}
    body = d.expand(e.xreplace(fresh) if fresh else e)
    return substitute(body, {v: k for k, v in fresh.items()}) if fresh else body


def _mentions(expr: Any, cls: type) -> bool:
    if isinstance(expr, sp.MatrixBase):
        return any(_mentions(e, cls) for e in expr)
    return isinstance(expr, sp.Basic) and bool(expr.atoms(cls)) or isinstance(expr, cls)


@rule("definition", "unfold (or fold back) every occurrence of a registered definition", params=("name",))
def check_definition(lhs, rhs, relation, ctx, name=None):
    if relation != "=":
        raise RuleError("a definition justifies equalities only")
    if name is None:
        raise RuleError("definition needs name=<definition name>")
    d = DEFINITIONS.get(name)
    if d is None:
        raise RuleError(f"unknown definition {name!r}; known: {sorted(DEFINITIONS)}")
    if _mentions(lhs, d.cls):
        u = unfold(lhs, name)
        if alpha_equal(u, rhs):
            return passed(f"unfolding {name} in the left side gives the right side")
        if equal(u, rhs):
            return passed(f"definition, then algebra: unfolding {name} in the left side gives the right side")
    if _mentions(rhs, d.cls):
        u = unfold(rhs, name)
        if alpha_equal(u, lhs):
            return passed(f"folding {name}: unfolding it in the right side gives the left side")
        if equal(u, lhs):
            return passed(f"definition, then algebra: folding {name} (unfolding the right side gives the left)")
    if not (_mentions(lhs, d.cls) or _mentions(rhs, d.cls)):
        return failed(f"neither side mentions {name}")
    return failed(f"unfolding {name} does not turn one side into the other")
