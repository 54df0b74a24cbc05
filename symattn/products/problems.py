"""Problems and exercises of the source texts, each tied to the theorems that solve it.

A :class:`Problem` is a problem as a text poses it (seed 000's seven problems, seed 002's three
exercises): its statement in words, a worked solution, the ids of the registered theorems that
settle it, and optionally values computed by the toolkit (exact SymPy expressions) and a pointer
to an implementation and its tests (for coding problems).

Problems are registered by :mod:`derivations.problems` with :func:`register_problem`;
:func:`all_problems` imports the derivations and returns them in registration order.

Examples
========

>>> p = Problem(id="toy", title="A toy", source="extension", kind="exercise",
...             statement="Show 1 + 1 = 2.", theorem_ids=(), solution="Count.")
>>> p.kind, p.theorem_ids
('exercise', ())
>>> Problem(id="toy", title="t", source="extension", kind="essay", statement="s", theorem_ids=(), solution="x")
Traceback (most recent call last):
  ...
ValueError: toy: kind must be one of ('proof', 'numerical', 'coding', 'exercise'), got 'essay'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PROBLEM_KINDS", "Problem", "register_problem", "all_problems", "get_problem", "missing_theorems"]

PROBLEM_KINDS = ("proof", "numerical", "coding", "exercise")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Problem:
    """A problem or exercise of a source text and how the toolkit solves it.

    Parameters
    ==========
    id : snake_case identifier
    title : the problem's title as the text gives it
    source : seed file and problem name (``"000_ccf06b253f58a07c.txt, problem '...'"``)
    kind : ``"proof"``, ``"numerical"``, ``"coding"`` or ``"exercise"``
    statement : the problem in plain words
    theorem_ids : registered theorems that solve it
    solution : a worked solution paragraph
    computed : optional mapping name -> value computed by the toolkit (SymPy expressions, numbers)
    implementation : for coding problems, the dotted name of the implementation
    tests : test files or node ids that exercise the implementation
    """

    id: str
    title: str
    source: str
    kind: str
    statement: str
    theorem_ids: tuple
    solution: str
    computed: dict = field(default_factory=dict)
    implementation: str = ""
    tests: tuple = ()

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"problem id must be snake_case ascii, got {self.id!r}")
        if self.kind not in PROBLEM_KINDS:
            raise ValueError(f"{self.id}: kind must be one of {PROBLEM_KINDS}, got {self.kind!r}")
        for name in ("title", "source", "statement", "solution"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ValueError(f"{self.id}: {name} must be a non-empty string")
        if isinstance(self.theorem_ids, str) or not all(isinstance(t, str) for t in self.theorem_ids):
            raise TypeError(f"{self.id}: theorem_ids must be a tuple of theorem id strings, got {self.theorem_ids!r}")
        object.__setattr__(self, "theorem_ids", tuple(self.theorem_ids))
        object.__setattr__(self, "tests", tuple(self.tests))
        if not isinstance(self.computed, dict):
            raise TypeError(f"{self.id}: computed must be a dict, got {type(self.computed).__name__}")
        if self.kind == "coding" and not self.implementation:
            raise ValueError(f"{self.id}: a coding problem names its implementation")

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record (computed values as strings)."""
        return {
            "id": self.id,
            "title": self.title,
            "source": self.source,
            "kind": self.kind,
            "statement": self.statement,
            "theorem_ids": list(self.theorem_ids),
            "solution": self.solution,
            "computed": {k: str(v) for k, v in self.computed.items()},
            "implementation": self.implementation,
            "tests": list(self.tests),
        }


_PROBLEMS: dict[str, Problem] = {}


def register_problem(problem: Problem) -> Problem:
    """Add ``problem`` to the list (its id must be new)."""
    if not isinstance(problem, Problem):
        raise TypeError(f"register_problem needs a Problem, got {type(problem).__name__}")
    if problem.id in _PROBLEMS and _PROBLEMS[problem.id] is not problem:
        raise ValueError(f"problem id {problem.id!r} registered twice")
    _PROBLEMS[problem.id] = problem
    return problem


def all_problems() -> list[Problem]:
    """Every registered problem, in registration order (imports :mod:`derivations`)."""
    from symattn.engine.theorem import load_all

    load_all()
    return list(_PROBLEMS.values())


def get_problem(problem_id: str) -> Problem:
    """The problem with id ``problem_id``."""
    all_problems()
    try:
        return _PROBLEMS[problem_id]
    except KeyError:
        raise KeyError(f"no problem with id {problem_id!r}; have {sorted(_PROBLEMS)}") from None


def missing_theorems() -> dict[str, list[str]]:
    """Problem id -> referenced theorem ids that are not (yet) registered."""
    from symattn.engine.theorem import registry

    out = {}
    for p in all_problems():
        missing = [t for t in p.theorem_ids if t not in registry]
        if missing:
            out[p.id] = missing
    return out
