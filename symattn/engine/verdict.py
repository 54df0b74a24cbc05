"""The outcome of checking a theorem, and the verdict types it is made of (re-exported).

The verdict types (:class:`Verdict`, :class:`Level`, :class:`LevelResult`, :data:`LEVELS`,
:func:`wording`, :func:`meaning_for`) live with the kernel's grading, in
:mod:`symattn.kernel.verdict` (see there for the scale); :class:`Outcome`, with the methods that
tell whether it passes, lives in :mod:`symattn.engine.acceptance`.
"""

from __future__ import annotations

from symattn.engine.acceptance import Outcome
from symattn.kernel.verdict import LEVELS, Level, LevelResult, Verdict, meaning_for, wording

__all__ = ["Verdict", "Level", "LevelResult", "Outcome", "LEVELS", "wording", "meaning_for"]
