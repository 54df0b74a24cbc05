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


@dataclass(frozen=True)
class Instances:
    """Exact checks at concrete sizes: ``build(size)`` returns the statement at that size (a
    :class:`Statement` with explicit matrices/sums), checked with exact algebra."""

    build: Callable[[int], Statement]
    sizes: tuple
    label: str = "n"
    #: what a size sets in the theorem's statement: a symbol (set to the size) or a function
    #: ``size -> {symbol: value}``; by default the statement's one symbol named ``label``. The kernel
    #: derives the instance from the statement with it and checks the builder's statement is that;
    #: without it the instances are not counted toward the verdict.
    at: Any = None

    def describe(self) -> str:
        s = sorted(self.sizes)
        return f"{self.label} in {{{', '.join(map(str, s))}}}"


@dataclass(frozen=True)
class Probabilistic:
    """Schwartz--Zippel identity test: ``build(size)`` returns a statement whose sides are
    rational functions of their free symbols; they are evaluated exactly at random rational
    points drawn from a set of ``field_size`` values."""

    build: Callable[[int], Statement]
    sizes: tuple
    trials: int = 3
    field_size: int = 2**31 - 1
    seed: int = 0
    #: what a size sets in the statement (as for :class:`Instances`); the label is ``n`` by default
    at: Any = None
    label: str = "n"


@dataclass
class NumericResult:
    """Floating-point evidence for a statement: what was compared, how many samples, the
    largest error seen and the tolerance it had to meet."""

    ok: bool
    samples: int
    seed: int
    max_error: float
    tolerance: float
    detail: str = ""
    counterexample: str | None = None

    def describe(self) -> str:
        s = (
            f"{self.samples} samples, seed {self.seed}, max error {self.max_error:.3g} "
            f"(tolerance {self.tolerance:.3g})"
        )
        return f"{s}; {self.detail}" if self.detail else s


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
