"""The outcome of checking a theorem: its verdict and what each level found.

The verdict types (:class:`Verdict`, :class:`Level`, :class:`LevelResult`, :data:`LEVELS`,
:func:`wording`, :func:`meaning_for`) live with the kernel's grading, in
:mod:`symattn.kernel.verdict`, and are re-exported here; see there for the scale.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from symattn.kernel.verdict import LEVELS, Level, LevelResult, Verdict, meaning_for, wording

__all__ = ["Verdict", "Level", "LevelResult", "Outcome", "LEVELS", "wording", "meaning_for"]


@dataclass
class Outcome:
    """The result of checking one theorem."""

    theorem_id: str
    verdict: Verdict
    how: str
    levels: dict[str, LevelResult]
    seconds: float = 0.0
    steps: list[Any] = field(default_factory=list)  # per-step RuleResult, for reports
    #: per step, ``(rule, checks)``: the second engine's re-checks of the facts the kernel accepted
    #: (a list of :class:`symattn.kernel.second.Check`)
    engines: list[Any] = field(default_factory=list)
    counterexample: str | None = None
    #: the target of the theorem checked, when known (:func:`symattn.checker.check_theorem` sets it)
    target: Verdict | None = None
    #: a model of the hypotheses (values at which every checkable hypothesis holds), as text
    model: str | None = None
    #: served from the cache of outcomes (:mod:`symattn.cache`), not checked in this run
    cached: bool = False

    def reaches(self, target: Verdict) -> bool:
        return self.verdict != Verdict.REFUTED and self.verdict >= target

    def raise_for_verdict(self, target: Verdict | str | None = None) -> Outcome:
        """Return ``self`` if it passes (:mod:`symattn.acceptance`: the verdict reaches ``target``,
        default the theorem's, and every configured level passes); raise
        :class:`symattn.acceptance.VerdictError` describing the failure otherwise."""
        from symattn.acceptance import raise_for_verdict

        return raise_for_verdict(self, target)

    def _repr_html_(self) -> str:
        from symattn.acceptance import outcome_html

        return outcome_html(self)

    def _repr_latex_(self) -> str:
        from symattn.acceptance import outcome_latex

        return outcome_latex(self)
