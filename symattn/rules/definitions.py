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

from typing import Any

import sympy as sp

from symattn.kernel import definitions as _kernel
from symattn.kernel.definitions import DEFINITIONS, Definition, define
from symattn.kernel.thm import by_zero, sym, trans
from symattn.rules import RuleError, failed, proved, rule
from symattn.rules.algebra import equal

__all__ = ["Definition", "define", "DEFINITIONS", "unfold"]


def unfold(expr: Any, name: str) -> Any:
    """``expr`` with every occurrence of definition ``name`` unfolded (the kernel's expansion)."""
    d = DEFINITIONS.get(name)
    if d is None:
        raise RuleError(f"unknown definition {name!r}; known: {sorted(DEFINITIONS)}")
    return _kernel.expand(expr, d)


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
        t = _kernel.unfold(lhs, name)
        if equal(t.rhs, rhs):
            return proved(trans(t, by_zero(t.rhs, rhs)), f"unfolding {name} in the left side gives the right side")
    if _mentions(rhs, d.cls):
        t = _kernel.unfold(rhs, name)
        if equal(t.rhs, lhs):
            return proved(sym(trans(t, by_zero(t.rhs, lhs))),
                          f"folding {name}: unfolding it in the right side gives the left side")
    if not (_mentions(lhs, d.cls) or _mentions(rhs, d.cls)):
        return failed(f"neither side mentions {name}")
    return failed(f"unfolding {name} does not turn one side into the other")
