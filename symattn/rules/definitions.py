"""``definition``: unfold (or fold) a registered definition.

A definition is a SymPy expression class together with its expansion, for example the softmax
component ``Softmax(f, i, n)`` and ``exp(f(i)) / Sum(exp(f(j)), (j, 1, n))``. The step ``lhs = rhs``
is valid when unfolding every occurrence of the named definition in ``lhs`` gives ``rhs`` exactly
(up to ``algebra``), or unfolding it in ``rhs`` gives ``lhs`` (folding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import sympy as sp

from symattn.rules import RuleError, failed, passed, rule
from symattn.kernel.zero import register_unfolding
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
    return expr.replace(lambda e: isinstance(e, d.cls), d.expand)


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
    if _mentions(lhs, d.cls) and equal(unfold(lhs, name), rhs):
        return passed(f"unfolding {name} in the left side gives the right side")
    if _mentions(rhs, d.cls) and equal(unfold(rhs, name), lhs):
        return passed(f"folding {name}: unfolding it in the right side gives the left side")
    if not (_mentions(lhs, d.cls) or _mentions(rhs, d.cls)):
        return failed(f"neither side mentions {name}")
    return failed(f"unfolding {name} does not turn one side into the other")
