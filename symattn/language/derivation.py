"""Derivations: chains ``e0 = e1 <= e2 = ... = ek`` with a justification on every step.

A :class:`Derivation` reads like Lean's ``calc`` block or a LaTeX ``align``: a starting
expression, then steps, each a new expression, the relation to the previous one, and the rule
that justifies it (a name from :mod:`symattn.rules` and the rule's arguments)::

    Derivation(lhs)
        .eq(e1, "definition", name="softmax")
        .eq(e2, "sum_linearity")
        .le(e3, "inequality", witness=...)

The kernel checks every step with its rule, that ``e0`` matches the statement's left-hand side,
that ``ek`` matches its right-hand side, and that the chain's relation implies the statement's.

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> d = Derivation((x + 1)**2).eq(x**2 + 2*x + 1, "algebra", note="expand the square")
>>> d.relation, len(d.steps)
('=', 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from symattn.language.statement import RELATIONS

__all__ = ["Derivation", "Step", "compose_relations", "set_display"]

#: Jupyter display of kernel objects, by name (``theorem_latex``, ``derivation_html``, ...). The kernel
#: never imports the report package: until a display function is set with :func:`set_display`, a repr
#: request loads it lazily from :data:`DISPLAY_MODULE`, at that moment and not before.
DISPLAY_MODULE = "symattn.products.report.jupyter"
_display: dict = {}


def set_display(name: str, function) -> None:
    """Set the function that renders a kernel object for Jupyter (``name`` as in :data:`DISPLAY_MODULE`)."""
    _display[name] = function


def display(name: str, obj: Any) -> str:
    """Render ``obj`` with the display function ``name`` (loading :data:`DISPLAY_MODULE` on first use)."""
    if name not in _display:
        import importlib

        _display[name] = getattr(importlib.import_module(DISPLAY_MODULE), name)
    return _display[name](obj)


@dataclass(frozen=True)
class Step:
    """One line of a derivation: ``relation expr`` justified by ``rule(**args)``."""

    expr: Any
    rule: str
    relation: str = "="
    args: dict = field(default_factory=dict)
    note: str = ""

    def justification(self) -> str:
        """The rule and its arguments as one readable line."""
        if not self.args:
            return self.rule
        parts = ", ".join(f"{k}={_short(v)}" for k, v in self.args.items())
        return f"{self.rule}({parts})"


def _short(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_short(a)}: {_short(b)}" for a, b in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "(" + ", ".join(_short(x) for x in v) + ")"
    if hasattr(v, "name") and not isinstance(v, sp.Basic):
        return str(v.name)
    return sp.sstr(v)


class Derivation:
    """An ordered chain of expressions, each step justified by a named rule."""

    def __init__(self, start: Any, *, note: str = ""):
        self.start = start
        self.note = note
        self.steps: list[Step] = []

    # -- building -------------------------------------------------------------------------
    def step(self, expr: Any, rule: str, relation: str = "=", *, note: str = "", **args) -> Derivation:
        if relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
        if not isinstance(rule, str) or not rule:
            raise TypeError(f"rule must be a rule name (str), got {rule!r}")
        self.steps.append(Step(expr, rule, relation, dict(args), note))
        return self

    def eq(self, expr: Any, rule: str, *, note: str = "", **args) -> Derivation:
        return self.step(expr, rule, "=", note=note, **args)

    def le(self, expr: Any, rule: str, *, note: str = "", **args) -> Derivation:
        return self.step(expr, rule, "<=", note=note, **args)

    def lt(self, expr: Any, rule: str, *, note: str = "", **args) -> Derivation:
        return self.step(expr, rule, "<", note=note, **args)

    def ge(self, expr: Any, rule: str, *, note: str = "", **args) -> Derivation:
        return self.step(expr, rule, ">=", note=note, **args)

    # -- reading --------------------------------------------------------------------------
    @property
    def end(self) -> Any:
        return self.steps[-1].expr if self.steps else self.start

    @property
    def relation(self) -> str:
        return compose_relations([s.relation for s in self.steps])

    def pairs(self):
        """Yield ``(previous, step)`` for every step."""
        prev = self.start
        for s in self.steps:
            yield prev, s
            prev = s.expr

    def replaced(self, index: int, expr: Any) -> Derivation:
        """A copy with step ``index``'s expression replaced (index -1 replaces the start).
        Used by the mutation tests."""
        d = Derivation(expr if index == -1 else self.start, note=self.note)
        d.steps = [
            Step(expr, s.rule, s.relation, s.args, s.note) if i == index else s for i, s in enumerate(self.steps)
        ]
        return d

    def __str__(self) -> str:
        lines = [f"    {sp.sstr(self.start)}"]
        for s in self.steps:
            lines.append(f" {s.relation:>2} {sp.sstr(s.expr)}    [{s.justification()}]")
        return "\n".join(lines)

    def _repr_latex_(self) -> str:
        return "$$" + display("derivation_latex", self) + "$$"

    def _repr_html_(self) -> str:
        return display("derivation_html", self)


def compose_relations(relations: list[str]) -> str:
    """The relation implied by a chain: ``=`` then ``<=`` gives ``<=``; ``<`` anywhere in an
    ascending chain gives ``<``. Mixing ascending and descending steps is an error.

    >>> compose_relations(["=", "<=", "="]), compose_relations(["<=", "<"]), compose_relations([])
    ('<=', '<', '=')
    """
    ascending = {r for r in relations if r in ("<=", "<")}
    descending = {r for r in relations if r in (">=", ">")}
    if ascending and descending:
        raise ValueError(f"a chain cannot mix <= and >= steps: {relations}")
    if ascending:
        return "<" if "<" in ascending else "<="
    if descending:
        return ">" if ">" in descending else ">="
    return "="


def relation_implies(chain: str, claimed: str) -> bool:
    """Whether a chain proving ``a chain b`` establishes ``a claimed b``."""
    if chain == claimed:
        return True
    return (chain, claimed) in {("=", "<="), ("=", ">="), ("<", "<="), (">", ">=")}
