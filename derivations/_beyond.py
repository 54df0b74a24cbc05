"""Shared pieces of the "Beyond the texts" modules (gqa, masks, softcap, flash_io, rope_decay,
lipschitz, mup): the topic they are grouped under, an instance builder that evaluates the
theorem's own statement at concrete sizes, and the numeric result of an exact count."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from symattn.engine.theorem import NumericResult
from symattn.language.statement import Statement

TOPIC = "beyond"


def _at(expr: Any, mapping: dict) -> Any:
    if not hasattr(expr, "xreplace"):
        return expr
    out = expr.xreplace(mapping)
    return out.doit() if hasattr(out, "doit") else out


def statement_at(statement: Statement, mapping: Callable[[int], dict]) -> Callable[[int], Statement]:
    """``build(size)``: the statement itself with its dimensions replaced by the integers
    ``mapping(size)`` and every definition evaluated (``doit``)."""

    def build(size: int) -> Statement:
        m = {k: sp.sympify(v, strict=True) if isinstance(v, int) else v for k, v in mapping(size).items()}
        return Statement(_at(statement.lhs, m), _at(statement.rhs, m), statement.relation)

    build.mapping = mapping  # so that a variant of the statement can be instantiated the same way
    return build


def exact_count(bad: str | None, samples: int, seed: int, detail: str) -> NumericResult:
    """The numeric evidence of an exact count: ``bad`` describes a disagreement found (``None`` when
    all ``samples`` matched); the error is 0 or 1 against a tolerance of 0."""
    return NumericResult(bad is None, samples, seed, 0.0 if bad is None else 1.0, 0.0, detail, counterexample=bad)
