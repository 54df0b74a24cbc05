"""Grading: from the four levels of evidence to one verdict.

The rules, in order:

1. A concrete level that failed on the theorem's own statement (an instance derived from the
   statement, a probabilistic point, the numeric check) is a counterexample: ``refuted``.
   An instance the author built that fails, but is not derived from the statement, is no
   counterexample to the theorem; it still conflicts with any other evidence: ``undecided``.
2. Hypotheses with no model found give at most ``undecided``: from inconsistent hypotheses
   anything follows, so no level counts.
3. Otherwise the strongest passing level decides. The symbolic level counts as ``proved`` only if
   every theorem it used is proved (it is capped by the weakest) and -- with :data:`REQUIRE_RECHECK`,
   the default (``SYMATTN_REQUIRE_RECHECK=0`` turns it off for diagnostics) -- every step was
   re-checked by the second engine (:mod:`.second`; a derivation checked by the kernel alone at some
   step then does not count). Either way ``how`` names the steps the second engine did not
   re-check; an instance level counts only if
   its instances were derived from the statement; the probabilistic level only if its false-pass
   bound is at most :data:`MAX_FALSE_PASS`.
4. A heuristic or empirical observation is never graded above ``numerically-consistent``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from symattn.kernel.verdict import Level, LevelResult, Verdict

__all__ = ["grade", "MAX_FALSE_PASS"]

#: the largest false-pass probability at which a Schwartz--Zippel test counts
MAX_FALSE_PASS = 2.0**-30

#: a derivation counts as ``proved`` only if the second engine re-checked every step -- the default
#: (every library theorem reaches its target so): ``proved`` means re-checked by the second engine.
#: ``SYMATTN_REQUIRE_RECHECK=0`` turns it off, for diagnostics only (a derivation checked by the
#: kernel alone at some step then counts, and ``how`` names such steps); with the second engine off
#: (``SYMATTN_SECOND_ENGINE=0``) no step is re-checked, so no derivation counts unless it is off too.
REQUIRE_RECHECK = os.environ.get("SYMATTN_REQUIRE_RECHECK", "1") != "0"


def grade(
    kind: str,
    levels: dict[str, LevelResult],
    used: Iterable[str],
    verdict_of: Callable[[str], Verdict],
    model: str | None,
    no_model: str | None = None,
) -> tuple[Verdict, str, str | None]:
    """``(verdict, how, counterexample)`` for a theorem of ``kind`` whose levels are ``levels``.

    ``model`` describes the model of the hypotheses that was found (shown in ``how``);
    ``no_model`` says why none was found (then the verdict is at most ``undecided``).
    """
    for name in ("instances", "probabilistic", "numeric"):
        lv = levels[name]
        if lv.status is Level.FAIL:
            cex = lv.data.get("counterexample") or lv.detail
            how = f"{name} check failed: {lv.detail}"
            if levels["symbolic"].status is Level.FAIL:  # say why the derivation did not check, too
                how += f" (the derivation did not check: {levels['symbolic'].detail})"
            return Verdict.REFUTED, how, str(cex)
    for name in ("instances", "probabilistic"):
        lv = levels[name]
        if lv.status is Level.UNDECIDED and lv.data.get("builder_counterexample"):
            # the evidence conflicts: an instance the author built fails, even if it is not shown to be
            # the theorem's; nothing else may then lift the verdict
            return Verdict.UNDECIDED, f"{name}: {lv.detail}", None
    if no_model is not None:
        return Verdict.UNDECIDED, f"no model of the hypotheses was found ({no_model}): nothing follows from them", None
    sym = levels["symbolic"]
    candidates: list[tuple[Verdict, str]] = []
    one_engine = sym.data.get("one_engine") if sym.status is Level.PASS else None
    if one_engine and REQUIRE_RECHECK:
        pass  # not a proof until the second engine re-checks every step (named in ``how`` below)
    elif sym.status is Level.PASS:
        cap = Verdict.PROVED
        weakest = None
        for dep in sorted(used):
            v = verdict_of(dep)
            if v < cap:
                cap, weakest = (v if v != Verdict.REFUTED else Verdict.UNDECIDED), dep
        how = f"derivation: {sym.detail}"
        if weakest:
            how += f"; capped by {weakest} ({cap.value})"
        candidates.append((cap, how))
    inst = levels["instances"]
    if inst.status is Level.PASS and inst.data.get("derived", False):
        candidates.append((Verdict.PROVED_FOR_INSTANCES, inst.detail))
    prob = levels["probabilistic"]
    if prob.status is Level.PASS and prob.data.get("error_bound", 1.0) <= MAX_FALSE_PASS and prob.data.get("derived"):
        candidates.append((Verdict.CHECKED_PROBABILISTICALLY, prob.detail))
    if levels["numeric"].status is Level.PASS:
        candidates.append((Verdict.NUMERICALLY_CONSISTENT, "numeric: " + levels["numeric"].detail))
    if not candidates:
        reasons = [f"{k}: {v.detail}" for k, v in levels.items() if v.status is not Level.NA]
        if one_engine and REQUIRE_RECHECK:
            reasons.append(f"not every step was re-checked by the second engine: {'; '.join(one_engine[:3])}")
        if not reasons:  # every level was n/a: say what each lacked
            reasons = ["no check available"] + [f"{k}: {v.detail}" for k, v in levels.items() if v.detail]
        return Verdict.UNDECIDED, "; ".join(reasons), None
    verdict, how = max(candidates, key=lambda c: c[0].rank)
    if sym.status is Level.FAIL and verdict < Verdict.PROVED:
        how += f" (the derivation did not check: {sym.detail})"
    if one_engine:
        steps = f"{'; '.join(one_engine[:3])}{'; ...' if len(one_engine) > 3 else ''}"
        how += (f" (the derivation checked, but not every step was re-checked by the second engine, so it is not "
                f"counted as a proof: {steps})" if REQUIRE_RECHECK else
                f" (checked by one engine only at: {steps})")
    if kind in ("heuristic", "empirical") and verdict > Verdict.NUMERICALLY_CONSISTENT:
        how = f"{kind}: graded at most numerically-consistent; its checkable part reached {verdict.value} ({how})"
        verdict = Verdict.NUMERICALLY_CONSISTENT
    if model:
        how += f"; model of the hypotheses: {model}"
    return verdict, how, None
