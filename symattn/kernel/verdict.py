"""Graded verdicts: what a check established about a theorem, and how (the verdict types the
kernel's grading (:mod:`.grading`) produces; :mod:`symattn.engine.verdict` adds the checker's
:class:`~symattn.engine.verdict.Outcome`).

A verdict is a promise, so the scale is explicit and ordered, strongest first:

``proved``
    every step of the derivation was checked symbolically, with the dimensions as symbols;
``proved-for-instances``
    an exact symbolic/rational check passed for every concrete size in a stated range;
``checked-probabilistically``
    exact evaluation at random rational points (Schwartz--Zippel) with a stated error bound and seed;
``numerically-consistent``
    floating-point or Monte Carlo evidence only, with tolerance and seed;
``undecided``
    nothing conclusive (for instance a SymPy call hit its time limit);
``refuted``
    a counterexample: concrete values at which the statement fails, shown.

Each check of a theorem runs at four *levels* (symbolic, instances, probabilistic,
numeric); each level ends ``pass``, ``fail``, ``undecided`` or ``n/a``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Verdict", "Level", "LevelResult", "LEVELS", "wording", "meaning_for"]


class Verdict(enum.Enum):
    """The verdict scale. Comparison follows strength: ``refuted < undecided < ... < proved``."""

    REFUTED = "refuted"
    UNDECIDED = "undecided"
    NUMERICALLY_CONSISTENT = "numerically-consistent"
    CHECKED_PROBABILISTICALLY = "checked-probabilistically"
    PROVED_FOR_INSTANCES = "proved-for-instances"
    PROVED = "proved"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def __lt__(self, other: Verdict) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: Verdict) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: Verdict) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: Verdict) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.rank >= other.rank

    @property
    def meaning(self) -> str:
        return _MEANING[self]

    @classmethod
    def parse(cls, value: Verdict | str) -> Verdict:
        if isinstance(value, Verdict):
            return value
        for v in cls:
            if v.value == value:
                return v
        raise ValueError(f"unknown verdict {value!r}; expected one of {[v.value for v in cls]}")


_RANK = {v: i for i, v in enumerate(Verdict)}

_MEANING = {
    Verdict.PROVED: "every step of the derivation was checked symbolically, dimensions as symbols",
    Verdict.PROVED_FOR_INSTANCES: "exact check for every concrete size in the stated range (not a general proof)",
    Verdict.CHECKED_PROBABILISTICALLY: "exact evaluation at random rational points; may be wrong with the stated "
                                       "probability",
    Verdict.NUMERICALLY_CONSISTENT: "floating-point evidence only, within the stated tolerance",
    Verdict.UNDECIDED: "no check was conclusive (time limit, unsupported expression, or no check available)",
    Verdict.REFUTED: "a counterexample was found: the statement is false as written",
}


class Level(str, enum.Enum):  # noqa: UP042 -- enum.StrEnum would change str() and format() of a Level
    """Outcome of one level of checking."""

    PASS = "pass"
    FAIL = "fail"
    UNDECIDED = "undecided"
    NA = "n/a"


LEVELS = ("symbolic", "instances", "probabilistic", "numeric")


@dataclass
class LevelResult:
    """What one level of checking found, in words a reader can audit."""

    status: Level = Level.NA
    detail: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status.value, "detail": self.detail, **_jsonable(self.data)}


def _jsonable(data: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in data.items():
        if isinstance(v, (int, float, str, bool)) or v is None:
            out[k] = v
        elif isinstance(v, (list, tuple)):
            out[k] = [x if isinstance(x, (int, float, str, bool)) or x is None else str(x) for x in v]
        else:
            out[k] = str(v)
    return out


#: how the checks of a *definition* are worded: a definition is never a result, so its checks only
#: confirm that the symbolic object expands to the formula it names (at concrete sizes, or numerically)
_DEFINITION_WORDING = {
    Verdict.PROVED: "definition, expansion checked symbolically",
    Verdict.PROVED_FOR_INSTANCES: "definition, expansion checked at instances",
    Verdict.CHECKED_PROBABILISTICALLY: "definition, expansion checked at random points",
    Verdict.NUMERICALLY_CONSISTENT: "definition, expansion checked numerically",
    Verdict.UNDECIDED: "definition, expansion not checked",
    Verdict.REFUTED: "definition, expansion contradicted",
}
_DEFINITION_MEANING = (
    "a definition, not a result: nothing is proved; its checks confirm that the symbolic object expands to the "
    "formula it defines"
)


def wording(verdict: Verdict, kind: str = "theorem") -> str:
    """The verdict as shown for a theorem of ``kind``: the verdict's own name, except for a
    definition, whose checks get their own words (a definition is never 'proved-for-instances').

    >>> wording(Verdict.PROVED_FOR_INSTANCES), wording(Verdict.PROVED_FOR_INSTANCES, "definition")
    ('proved-for-instances', 'definition, expansion checked at instances')
    """
    verdict = Verdict.parse(verdict)
    return _DEFINITION_WORDING[verdict] if kind == "definition" else verdict.value


def meaning_for(verdict: Verdict, kind: str = "theorem") -> str:
    """What the verdict promises for a theorem of ``kind`` (see :func:`wording`)."""
    verdict = Verdict.parse(verdict)
    if kind == "definition":
        return f"{_DEFINITION_MEANING}; {_MEANING[verdict]}"
    return verdict.meaning
