"""The evidence a theorem declares beside its derivation: exact checks at concrete sizes
(:class:`Instances`), a Schwartz--Zippel identity test (:class:`Probabilistic`), and the
floating-point evidence a numeric callback returns (:class:`NumericResult`).

Data only: the checker reads them (:mod:`symattn.engine.checker`), the kernel decides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from symattn.language.statement import Statement

__all__ = ["Instances", "NumericResult", "Probabilistic"]


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
