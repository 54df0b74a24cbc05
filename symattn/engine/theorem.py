"""Theorems (the registry that collects them is :mod:`symattn.engine.library`, re-exported here).

A :class:`Theorem` is what the texts state, in checkable form: an id that names the conclusion
(Mathlib style: ``softmax_add_const``, ``dot_product_variance``), a SymPy :class:`Statement`,
its hypotheses, where it comes from, its kind (``theorem``, ``definition``, ``heuristic``,
``empirical``), the verdict it should reach, and the evidence: a derivation, exact instance
checks, a probabilistic identity test and a numeric check.

Theorems are registered at import time by the modules of :mod:`derivations`;
:func:`load_all` imports them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from symattn.engine.library import Registry, all_theorems, load_all, register, registry
from symattn.engine.verdict import Verdict
from symattn.language.derivation import Derivation, display
from symattn.language.evidence import Instances, NumericResult, Probabilistic
from symattn.language.statement import Statement

__all__ = [
    "Theorem",
    "Instances",
    "Probabilistic",
    "NumericResult",
    "Registry",
    "registry",
    "register",
    "load_all",
    "all_theorems",
    "KINDS",
]

KINDS = ("theorem", "definition", "heuristic", "empirical")

_ID = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass
class Theorem:
    id: str
    title: str
    statement: Statement
    source: str
    kind: str = "theorem"
    target: Verdict | str = Verdict.PROVED
    hypotheses: tuple = ()
    derivation: Derivation | Callable[[], Derivation] | None = None
    #: symbols that must stay symbolic for the verdict ``proved`` (d_k, n, d, h, ...)
    dimensions: tuple = ()
    instances: Instances | None = None
    probabilistic: Probabilistic | None = None
    numeric: Callable[[int], NumericResult] | None = None
    #: the statement in plain words, for readers of the report (a paragraph: what it says and why)
    plain: str = ""
    #: the claim in one sentence, what a reader would quote; it says no more than the formal statement
    #: (``tests/derivations/test_quantifiers.py`` checks that quantified words are backed by it).
    #: Required for the library's theorems (``tests/derivations/test_claims.py``)
    claim: str = ""
    #: caveats: where the source states it loosely, what the text does not say
    notes: str = ""
    #: names of figures (see :mod:`symattn.products.report.figures`) that illustrate the theorem
    figures: tuple = ()
    topic: str = ""
    order: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"theorem id must be snake_case ascii, got {self.id!r}")
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if not isinstance(self.statement, Statement):
            raise TypeError(f"{self.id}: statement must be a Statement, got {type(self.statement).__name__}")
        self.target = Verdict.parse(self.target)
        if self.kind in ("heuristic", "empirical") and self.target > Verdict.NUMERICALLY_CONSISTENT:
            raise ValueError(
                f"{self.id}: a {self.kind} is never shown as proved; its target can be at most "
                f"'numerically-consistent'"
            )
        if not isinstance(self.claim, str) or "\n" in self.claim:
            raise ValueError(f"{self.id}: claim must be one line of text, got {self.claim!r}")
        if not self.source:
            raise ValueError(f"{self.id}: source is required (seed file and result name, or 'extension')")
        self.hypotheses = tuple(self.hypotheses)
        names = [h.name for h in self.hypotheses]
        if len(names) != len(set(names)):
            raise ValueError(f"{self.id}: hypothesis names must be unique, got {names}")

    def get_derivation(self) -> Derivation | None:
        d = self.derivation
        if d is None or isinstance(d, Derivation):
            return d
        return d()

    def check(self, **options) -> Any:
        """Check this theorem at every level and return its :class:`~symattn.engine.verdict.Outcome`;
        ``options`` are :class:`~symattn.engine.checker.Checker`'s (``time_limit``, ``numeric``, ``seed``)."""
        from symattn.engine.checker import check_theorem

        return check_theorem(self, **options)

    def _repr_latex_(self) -> str:
        return display("theorem_latex", self)

    def _repr_html_(self) -> str:
        return display("theorem_html", self)
