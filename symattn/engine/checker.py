"""Checking a theorem: run every level of evidence and grade the result.

Levels, each ``pass``/``fail``/``undecided``/``n/a``:

* **symbolic** -- every step of the derivation passes its rule, the chain starts at the
  statement's left side and ends at its right side, its relation implies the statement's, and
  the declared dimensions are still free symbols of the statement;
* **instances** -- the statement at each concrete size, checked with exact algebra;
* **probabilistic** -- a Schwartz--Zippel identity test at random rational points;
* **numeric** -- the theorem's floating-point check.

Grading (see :mod:`symattn.engine.verdict`): a failure at a concrete level (a counterexample) makes the
verdict ``refuted``; otherwise the strongest passing level decides, the symbolic level counting
as ``proved`` only if every theorem it used is proved. A heuristic or empirical observation is
never graded above ``numerically-consistent``, whatever its checkable parts reach.
"""

from __future__ import annotations

import contextvars
import dataclasses
import json
import multiprocessing
import random
import time
import traceback
from collections.abc import Iterable
from typing import Any

import sympy as sp

from symattn.engine.library import registry
from symattn.engine.verdict import LEVELS, Level, LevelResult, Outcome, Verdict, wording
from symattn.kernel import exact, second
from symattn.kernel.environment import check_seconds
from symattn.kernel.grading import MAX_FALSE_PASS, grade
from symattn.kernel.index_bounds import OutsideShape
from symattn.kernel.instances import (  # _xreplace: the kernel's capture-free substitution of sizes
    UndecidedSize,
    _xreplace,
    candidate_sizes,
    concrete_cases,
    describe_point,
    describe_sizes,
    domain_violation,
    finite_domain,
    hypotheses_at,
    pythagorean_zero,
    shown_by_z3,
    size_symbols,
    undefined_side,
    unfold_forall,
)
from symattn.kernel.search import (
    evaluate_derivatives,
    expand_finite,
    find_counterexample,
    find_model,
    hypothesis_symbols,
    statement_symbols,
)
from symattn.kernel.sums import is_infinite_sum
from symattn.kernel.terms import KernelError
from symattn.kernel.timelimit import DEFAULT_SECONDS, TimeLimitExceeded, paused_time_limits, time_limit
from symattn.kernel.wellformed import check_hypotheses, check_statement_names, check_terms
from symattn.kernel.zero import HYPOTHESES, side_singularities, singular_message
from symattn.kernel.zippel import NotRational as _NotRational
from symattn.kernel.zippel import Refused as _Refused
from symattn.kernel.zippel import schwartz_zippel as _schwartz_zippel
from symattn.kernel.zippel import solve_equations
from symattn.language.derivation import relation_implies
from symattn.language.evidence import NumericResult
from symattn.language.statement import Statement
from symattn.rules import ProofContext, RuleResult, check_step
from symattn.rules.algebra import equal, is_zero, residual, sign_of

__all__ = ["check_theorem", "check_many", "outcome_to_json", "Checker"]

#: the sizes of an infinite domain that a ``proved-for-instances`` verdict counts (the smallest)
COUNTED_SIZES = 3
#: the further sizes searched for a counterexample beyond them (not counted when merely shown)
SEARCHED_SIZES = 6


def _applied_ids(d) -> list[str]:
    """Ids named by ``apply_theorem`` steps of the derivation ``d`` and of the derivations nested in
    its steps' arguments, in order of first use."""
    from symattn.language.derivation import Derivation

    def nested(value):
        if isinstance(value, Derivation):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from nested(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                yield from nested(v)

    out: list[str] = []
    todo, seen = [d], set()
    while todo:
        chain = todo.pop(0)
        if id(chain) in seen:
            continue
        seen.add(id(chain))
        for step in chain.steps:
            used = step.args.get("theorem")
            if step.rule == "apply_theorem" and isinstance(used, str) and used not in out:
                out.append(used)
            todo.extend(nested(step.args))
    return out


class Checker:
    """Checks theorems, memoising outcomes so that ``apply_theorem`` dependencies are checked once."""

    def __init__(self, *, time_limit: float = DEFAULT_SECONDS, numeric: bool = True, seed: int = 0,
                 cache=None):
        # bad options are an error here, at the call, never a verdict of each theorem checked
        self.time_limit = check_seconds(time_limit, "Checker: time_limit")
        if not isinstance(numeric, bool):
            raise TypeError(f"Checker: numeric must be True or False, got {numeric!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"Checker: seed must be an int, got {seed!r}")
        self.numeric = numeric
        self.seed = seed
        #: a :class:`symattn.engine.cache.Cache` of outcomes by content key (None: the ambient one, if any,
        #: at the time of each check; see :func:`symattn.engine.cache.using`)
        self.cache = cache
        self._outcomes: dict[str, Outcome] = {}
        self._memo_of: dict[str, Any] = {}  # the theorem object each memoised outcome is of
        self._stack: tuple = ()

    # -------------------------------------------------------------------------------------------
    def check(self, thm: Any) -> Outcome:
        # outcomes are memoised by id for the very theorem object checked: another theorem of the same
        # id (a factory over other data, a replaced statement) is checked afresh, its keys recomputed
        if thm.id in self._outcomes and self._memo_of.get(thm.id) is thm:
            return self._outcomes[thm.id]
        if thm.id in self._memo_of and self._memo_of[thm.id] is not thm:
            self._outcomes.pop(thm.id, None)
            self.__dict__.pop("_cache_keys", None)  # the cache's memo of keys, by id
        self._memo_of[thm.id] = thm
        cache = self.cache if self.cache is not None else _ambient_cache()
        if cache is None:
            return self._check_fresh(thm)
        from symattn.engine.cache import cached_check

        return cached_check(self, thm, cache)  # the stored outcome of thm's content key, or _check_fresh

    def _check_fresh(self, thm: Any) -> Outcome:
        t0 = time.perf_counter()
        saved_stack = self._stack  # _check pushes thm.id; pop it afterwards (cycle detection only)
        try:
            outcome = self._check(thm)
        except (Exception, TimeLimitExceeded) as exc:  # a broken theorem must not take the run down
            outcome = Outcome(
                thm.id,
                Verdict.UNDECIDED,
                f"the check raised {type(exc).__name__}: {exc}",
                {lv: LevelResult() for lv in LEVELS},
            )
            outcome.levels["symbolic"] = LevelResult(Level.UNDECIDED, traceback.format_exc(limit=3))
        finally:
            self._stack = saved_stack
        outcome.seconds = time.perf_counter() - t0
        self._outcomes[thm.id] = outcome
        return outcome

    def verdict_of(self, theorem_id: str) -> Verdict:
        """The verdict of a dependency; its check does not count against a time limit running around
        the call (a step's): the limit is paused meanwhile."""
        thm = registry.get(theorem_id)
        saved = self._stack
        try:
            with paused_time_limits():
                return self.check(thm).verdict
        finally:
            self._stack = saved

    def _check_dependencies(self, thm: Any, d) -> None:
        """Check the theorems named by ``apply_theorem`` steps of ``d`` (nested derivations included)
        before its steps run, so that the steps find their verdicts memoised. A circular or unknown
        id is left to the step, which reports it."""
        for used in _applied_ids(d):
            if used == thm.id or used in self._stack or used in self._outcomes:
                continue
            try:
                registry.get(used)
            except KeyError:
                continue
            self.verdict_of(used)

    # -------------------------------------------------------------------------------------------
    def _check(self, thm: Any) -> Outcome:
        self._stack = self._stack + (thm.id,)
        ctx = ProofContext(
            hypotheses=thm.hypotheses,
            theorem_id=thm.id,
            time_limit=self.time_limit,
            registry=registry,
            stack=self._stack[:-1],
            verdict_of=self.verdict_of,
        )
        levels: dict[str, LevelResult] = {}
        try:  # the kernel looks only at terms whose equality, hashing and arithmetic are SymPy's
            check_terms((thm.statement.lhs, thm.statement.rhs), f"the statement of {thm.id}")
            check_statement_names(thm.statement.lhs, thm.statement.rhs, f"of {thm.id}")
            check_hypotheses(thm.hypotheses, f"a hypothesis of {thm.id}")
        except KernelError as exc:
            why = f"{thm.id}: {exc}"
            return Outcome(thm.id, Verdict.UNDECIDED, why,
                           {lv: (LevelResult(Level.FAIL, why) if lv == "symbolic" else LevelResult())
                            for lv in LEVELS})
        model, no_model = self._model(thm)
        symbolic, steps, engines = self._symbolic(thm, ctx)
        if model is not None:
            symbolic.data["model"] = model
        levels["symbolic"] = symbolic
        self._no_model = no_model  # the point search refutes nothing from hypotheses with no model
        levels["instances"] = self._instances(thm)
        levels["probabilistic"] = self._probabilistic(thm)
        levels["numeric"] = self._numeric(thm)
        verdict, how, counterexample = grade(thm.kind, levels, ctx.used, self.verdict_of, model, no_model)
        return Outcome(thm.id, verdict, how, levels, steps=steps, counterexample=counterexample, model=model,
                       engines=engines)

    # -- model of the hypotheses -----------------------------------------------------------------
    def _model(self, thm: Any) -> tuple[str | None, str | None]:
        """``(description of a model, None)`` or ``(None, why none was found)``; no hypotheses and
        no symbols: the empty model."""
        false = [h.name for h in thm.hypotheses if type(h).__name__ == "Assumption"
                 and (h.condition is False or h.condition is sp.false)]
        if false:
            return None, (f"the hypothesis {', '.join(map(repr, false))} is the literal False: the hypotheses "
                          "have no model")
        inconsistent = _inconsistencies(thm.hypotheses, self.time_limit)
        if inconsistent:
            return None, "the hypotheses are inconsistent: " + "; ".join(inconsistent)
        syms = statement_symbols(thm.statement)
        # the conditions the probability laws put on the parameters are checked at each point as well
        hyps = thm.hypotheses + _law_conditions(thm.hypotheses)
        model, reasons = find_model([], hyps, seed=self.seed, seconds=self.time_limit, extra=syms,
                                    sides=(thm.statement.lhs, thm.statement.rhs))
        if model is None:
            return None, "; ".join(reasons[:3]) or "no assignment satisfied them"
        return model.describe(), None

    # -- symbolic --------------------------------------------------------------------------------
    def _symbolic(self, thm: Any, ctx: ProofContext) -> tuple[LevelResult, list[RuleResult], list]:
        try:
            d = thm.get_derivation()
        except Exception as exc:
            return LevelResult(Level.FAIL, f"building the derivation raised {type(exc).__name__}: {exc}"), [], []
        if d is None:
            return LevelResult(Level.NA, "no derivation"), [], []
        st = thm.statement
        try:
            check_terms([d.start] + [s.expr for s in d.steps], f"the derivation of {thm.id}")
        except KernelError as exc:
            return LevelResult(Level.FAIL, f"{thm.id}: {exc}"), [], []
        steps: list[RuleResult] = []
        engines: list[list] = []
        problems: list[str] = []
        try:  # a summand undefined somewhere in its range, as written (canonical forms evaluate it away)
            singular = side_singularities(st.lhs, st.rhs, thm.hypotheses)
        except (KernelError, TypeError, ValueError) as exc:
            singular = []
            problems.append(f"the statement's definedness could not be checked: {exc}")
        if singular:
            problems.append(f"the statement: {singular_message(singular)}")
        undecided: list[str] = []
        if not d.steps:
            # no step: nothing was checked, so the sides must be the same term (bound names aside)
            if not (_alpha_equal(d.start, st.lhs) and _alpha_equal(d.start, st.rhs)):
                problems.append(
                    "a derivation with no steps proves only a statement whose sides are the same term; "
                    "these sides differ structurally (add steps that justify the difference)"
                )
            infinite = _infinite_binder(st.lhs)
            if infinite is not None:
                # X = X holds where X is a value; the kernel shows no series convergent (every rule
                # refuses infinite sums), so a side that is one is not a term it can equate to itself
                problems.append(
                    f"a derivation with no steps equates the side with itself, but it holds the infinite "
                    f"{type(infinite).__name__.lower()} {sp.sstr(infinite)[:80]}, whose convergence the kernel "
                    "does not show (a divergent series is no value)"
                )
        for label, a, b in (("start", d.start, st.lhs), ("end", d.end, st.rhs)):
            r = _ends_match(a, b, self.time_limit)
            if r is None:
                undecided.append(f"could not decide (time limit) whether the chain's {label} matches the statement")
            elif not r:
                side = "left" if label == "start" else "right"
                problems.append(
                    f"the chain's {label} is not the statement's {side}-hand side (compared as terms, "
                    "or by the exact zero test when neither contains a sum, limit, integral or derivative)"
                )
        # the lemmas the chain applies are checked first, each under its own limits: checked inside a
        # step, a lemma's check would count against that step's time limit
        self._check_dependencies(thm, d)
        for n, (prev, step) in enumerate(d.pairs(), start=1):
            with second.collecting() as checks:
                res = check_step(prev, step.expr, step.relation, step.rule, step.args, ctx)
                if res.ok and res.thm is None:  # the grading's guard: a pass the kernel did not show is no proof
                    res = RuleResult(Level.FAIL, f"{step.rule}: passed without a theorem of the kernel; a step is "
                                                 "taken only when the kernel has shown it")
                if res.ok and second.enabled() and second.step_rechecked(checks)[0] != "both":
                    _recheck_whole_step(checks, prev, step, ctx)
            disagree = [c for c in checks if c.verdict == second.DISAGREE]
            if disagree:  # the engines disagree on a fact of the step: the step fails, both answers shown
                res = RuleResult(Level.FAIL, "; ".join([res.reason] * bool(res.reason and not res.ok)
                                                       + [c.both_answers() for c in disagree[:2]]))
            # the outcome keeps what the kernel decided, not its Thm (a Thm never leaves the process)
            steps.append(dataclasses.replace(res, thm=None))
            engines.append((step.rule, list(checks)))
            if res.status is Level.FAIL:
                problems.append(f"step {n} ({step.justification()}): {res.reason}")
            elif res.status is Level.UNDECIDED:
                undecided.append(f"step {n} ({step.justification()}): {res.reason}")
        try:
            chain = d.relation
            if not relation_implies(chain, st.relation):
                problems.append(f"the chain proves {chain!r}, the statement claims {st.relation!r}")
        except ValueError as exc:
            problems.append(str(exc))
        lost = [s for s in thm.dimensions if s not in _symbols_with_shapes(st)]
        if lost:
            problems.append(f"dimensions {lost} are not free in the statement: not a general proof")
        pinned = pinned_dimensions(thm.dimensions, thm.hypotheses)
        if pinned:
            said = ", ".join(f"{sym} (by {why})" for sym, why in pinned.items())
            problems.append(f"dimensions fixed by the hypotheses are not symbolic: {said}; not a general proof")
        data = {"steps": len(d.steps), "used": sorted(ctx.used)}
        if problems:
            return LevelResult(Level.FAIL, "; ".join(problems), data), steps, engines
        if undecided:
            return LevelResult(Level.UNDECIDED, "; ".join(undecided), data), steps, engines
        if second.enabled():  # the grading counts a derivation as a proof only if every step was re-checked
            per_step = _per_step(steps, engines)
            data["rechecked"] = second.theorem_rechecked([r for _, (r, _) in per_step])
            if data["rechecked"] != "all":
                data["one_engine"] = [f"step {n} ({rule}): {why}" for n, (rule, (r, why))
                                      in enumerate(per_step, start=1) if r != "both"]
        elif d.steps:  # the second engine is off: no step was re-checked (the grading reads it so)
            data["rechecked"] = "none"
            data["one_engine"] = ["every step: the second engine is off (SYMATTN_SECOND_ENGINE=0)"]
        dims = ", ".join(map(str, thm.dimensions)) or "none"
        return (LevelResult(Level.PASS, f"all {len(d.steps)} steps checked; symbolic dimensions: {dims}", data),
                steps, engines)

    # -- instances --------------------------------------------------------------------------------
    def _derived(self, thm: Any, spec, size: int) -> tuple[Statement | None, dict | None, str]:
        """The theorem's statement at ``size``, derived by the kernel (the size substituted, finite
        sums unrolled by :func:`~symattn.kernel.search.expand_finite`), with the substitution used;
        ``(None, None, why)`` when the spec does not say which symbols the size sets."""
        mapping = _size_mapping(thm, spec, size)
        st = thm.statement
        derived = Statement(*(expand_finite(_xreplace(side, mapping)) for side in (st.lhs, st.rhs)), st.relation)
        return derived, mapping, ""

    def _matches(self, built: Statement, derived: Statement) -> str | None:
        """None when the builder's statement is the derived one; otherwise what differs."""
        if built.relation != derived.relation:
            return f"relation {built.relation} instead of {derived.relation}"
        ours, theirs = statement_symbols(derived), statement_symbols(built)
        if ours != theirs:  # cheap, and decisive for a builder written in other symbols
            return (f"its symbols {sorted(map(str, theirs))[:8]} are not the theorem's "
                    f"{sorted(map(str, ours))[:8]} at that size")
        for name, a, b in (("left", built.lhs, derived.lhs), ("right", built.rhs, derived.rhs)):
            r = _limited(lambda a=a, b=b: _alpha_equal(a, b) or equal(a, b), self.time_limit)
            if r is None:
                return f"could not decide (time limit) whether the {name} sides agree"
            if not r:
                return f"{name} side {_short(a)} is not the theorem's {_short(b)}"
        return None

    def _instances(self, thm: Any) -> LevelResult:
        """The kernel's derived instances (every theorem with integer dimensions), and the author's
        builder, if any, checked against them: only instances derived from the statement count."""
        kernel = self._kernel_instances(thm)
        if kernel is not None and kernel.status is Level.NA and thm.instances is not None:
            kernel = None  # a search of points that found nothing: the builder's instances decide
        if kernel is not None and kernel.status is Level.UNDECIDED:
            # the kernel's own instances were inconclusive: no evidence either way, and nothing the author
            # configured failed (acceptance does not count it against the theorem; a failure refutes)
            kernel.data["kernel_inconclusive"] = True
        if thm.instances is None:
            return kernel if kernel is not None else LevelResult(
                Level.NA, "no instance check (no integer dimension to instantiate, and no builder)")
        built = self._builder_instances(thm)
        if kernel is None:
            return built
        counted = built.status is Level.PASS and built.data.get("derived")
        if built.status is Level.FAIL:
            return built  # a counterexample at a derived instance of the builder's size
        if kernel.status is Level.FAIL:
            return LevelResult(Level.FAIL, f"{kernel.detail}; the builder's instances: {built.status.value}, "
                               f"{built.detail}", kernel.data)
        if built.data.get("builder_counterexample"):
            return built  # evidence in conflict: it decides
        if counted:
            detail = f"{built.detail}; and {kernel.detail}" if kernel.status is Level.PASS else built.detail
            return LevelResult(Level.PASS, detail, {**built.data, "kernel": kernel.data.get("sizes")})
        note = f"the builder's instances: {built.status.value}, {built.detail}"
        if kernel.status is Level.PASS:
            return LevelResult(Level.PASS, f"{kernel.detail}; {note} (not counted)",
                               {**kernel.data, "builder": built.status.value})
        if built.status is Level.PASS:  # the builder's pass does not count, and the kernel's check was inconclusive
            return LevelResult(Level.UNDECIDED, f"{kernel.detail}; {note} (not counted)",
                               {**kernel.data, "builder": built.status.value, "derived": False})
        return LevelResult(built.status, f"{built.detail}; the kernel's instances: {kernel.detail}", built.data)

    def _kernel_instances(self, thm: Any) -> LevelResult | None:
        """The statement at the smallest sizes inside the hypotheses (:mod:`symattn.kernel.instances`),
        each shown exactly or refuted by an exact counterexample; None when the theorem has no integer
        dimension (then :meth:`_points` searches the statement's points for a counterexample).

        A finite domain (``Contains(n, {1, 2, 3, 4})``, ``1 <= n <= 4``) is checked at every value; an
        infinite one at the :data:`COUNTED_SIZES` smallest sizes, then searched for a counterexample at
        up to :data:`SEARCHED_SIZES` further sizes (the smallest exact counterexample refutes; a size
        neither shown nor refuted there is named, not counted). A size where a side is not a finite
        exact value (a pole: ``zoo``, ``nan``, ``oo``) is outside the statement's domain: skipped, with why."""
        seconds = min(self.time_limit, 8.0)
        dims = tuple(thm.dimensions)
        if thm.instances is not None:  # the symbol the builder's size sets is a size too
            try:
                dims += tuple(s for s in _size_mapping(thm, thm.instances, 1) if s not in dims)
            except Exception:  # noqa: BLE001 -- the builder's own check reports it
                pass
        syms = size_symbols(thm.statement, tuple(thm.hypotheses), dims)
        if not syms:
            return self._points(thm)
        try:
            with time_limit(seconds):
                finite = finite_domain(thm.statement, thm.hypotheses, dims)
        except TimeLimitExceeded:
            finite = None
        want = finite if finite is not None else COUNTED_SIZES
        more = 0 if finite is not None else SEARCHED_SIZES
        per = None if finite is not None else {1: 16, 2: 6, 3: 4}.get(len(syms), 3)
        gen = candidate_sizes(thm.statement, thm.hypotheses, dims, per=per, seconds=seconds / 2)
        checked, skipped, searched, unshown, by_z3 = [], [], [], [], []
        budget = None  # the deadline of the search beyond the counted sizes
        while True:
            phase_search = len(checked) >= want
            if phase_search and budget is None:
                budget = time.monotonic() + seconds / 2
            if phase_search and (len(searched) + len(unshown) >= more or time.monotonic() > budget):
                break
            try:
                with time_limit(seconds if not phase_search else max(0.5, min(seconds, budget - time.monotonic()))):
                    item = next(gen, None)
            except TimeLimitExceeded:
                if phase_search:
                    break
                return LevelResult(Level.UNDECIDED, "time limit while choosing the sizes inside the hypotheses",
                                   {"derived": True, "timed_out": True})
            if item is None:
                break
            mapping, why = item
            if isinstance(why, UndecidedSize):
                if phase_search:  # beyond the counted sizes: named, not counted
                    unshown.append(mapping)
                    continue
                return LevelResult(Level.UNDECIDED, f"instance derived at {describe_point(syms, mapping)}: {why} (so "
                                   "the sizes after it are not the smallest inside the hypotheses)",
                                   {"derived": True, "sizes": [describe_point(syms, m) for m in checked]})
            if why is not None:
                skipped.append((mapping, why))
                continue
            limit = seconds if not phase_search else max(0.5, min(seconds, budget - time.monotonic()))
            status, detail = self._size_result(thm, syms, mapping, limit)
            where = describe_point(syms, mapping)
            if status == "outside":
                skipped.append((mapping, detail))
                continue
            if status == "fail":
                where, detail = detail
                beyond = (f" (beyond the counted sizes {describe_sizes(syms, checked)}: the smallest exact "
                          "counterexample the search over further sizes found)") if phase_search else ""
                return LevelResult(Level.FAIL, f"{where} (derived by the kernel): {detail}{beyond}",
                                   {"counterexample": f"{where}: {detail}", "derived": True})
            if status != "pass":
                if phase_search:
                    unshown.append(mapping)
                    if status == "timeout":
                        break
                    continue
                return LevelResult(Level.UNDECIDED, f"instance derived at {detail}",
                                   {"derived": True, "sizes": [describe_point(syms, m) for m in checked],
                                    **({"timed_out": True} if status == "timeout" else {})})
            (searched if phase_search else checked).append(mapping)
            if detail == "z3" and not phase_search:
                by_z3.append(mapping)
        swept = False
        if checked and finite is None:
            tried = [*checked, *searched, *unshown, *(m for m, _w in skipped)]
            swept, found = self._sweep(thm, syms, tried, min(seconds / 2, 3.0))
            if found is not None:
                mapping, (where, detail) = found
                which = ("the smallest exact counterexample the sweep of larger sizes found" if len(syms) == 1 else
                         "the first exact counterexample the sweep of larger sizes found, by largest size")
                return LevelResult(Level.FAIL, f"{where} (derived by the kernel): {detail} (beyond the counted sizes "
                                   f"{describe_sizes(syms, checked)}: {which}, where the sides are numbers)",
                                   {"counterexample": f"{where}: {detail}", "derived": True})
        if not checked:
            why = "; ".join(f"{describe_point(syms, m)}: {w}" for m, w in skipped[:3]) or "no candidate size"
            return LevelResult(Level.UNDECIDED, f"no size inside the hypotheses and the statement's domain ({why})",
                               {"derived": True})
        shown = describe_sizes(syms, checked)
        if finite is not None:
            shown += " (every value of the finite domain)"
        if skipped:
            shown += " (skipped, outside the hypotheses or the statement's domain: " + "; ".join(
                f"{describe_point(syms, m)}: {w}" for m, w in skipped[:3]) + (
                "; ..." if len(skipped) > 3 else "") + ")"
        if searched or unshown:
            # how many further sizes the search reached depends on the machine's load (it has a time
            # budget), so the detail -- which the report prints -- names no number of them: the same
            # inputs give the same bytes; data["searched"] keeps what this run reached
            shown += "; the search over further sizes found no counterexample"
            if unshown:
                shown += (" (at some of them the instance was neither shown nor refuted: no point inside the "
                          "hypotheses was found there, or the instance was not decided)")
        if swept:
            shown += "; a sweep of larger sizes, where the sides are numbers, found none either within its time budget"
        if by_z3:
            shown += (f"; at {describe_sizes(syms, by_z3)} the instance is shown by the second engine's Z3 sign "
                      "test alone (the kernel's sign test could not show it)")
        return LevelResult(Level.PASS, f"exact for {shown}: instances derived by the kernel at the smallest sizes "
                           "inside the hypotheses",
                           {"derived": True, "sizes": [describe_point(syms, m) for m in checked],
                            "z3_only": [describe_point(syms, m) for m in by_z3],
                            "searched": [describe_point(syms, m) for m in searched],
                            "not_shown": [describe_point(syms, m) for m in unshown]})

    def _sweep(self, thm: Any, syms: list, tried: list, budget: float):
        """``(ran, found)``: when the statement and its hypotheses mention no symbol but the sizes (at
        each size the sides are numbers), a sweep of larger sizes (:data:`SWEEP_VALUES`, smallest
        first; several sizes: by largest value, then sum) screened cheaply -- the sides written out and
        compared exactly -- and a size that fails the screen confirmed by the full check of the size
        (:meth:`_size_result`); ``found`` is ``(mapping, (where, detail))`` of the first confirmed, or
        None. One size: the values the sweep stepped over below a confirmed counterexample (65 to 98,
        ...) are then probed the same way, smallest first, for at most 2 s, so ``floor(n/70) = 0`` is
        refuted at 70, not at 99. Only sizes inside the hypotheses, shown exactly, are swept. ``ran``
        is False when the statement is not closed at its sizes (no sweep)."""
        st = thm.statement
        sizes = set(syms)
        if not statement_symbols(st) <= sizes or not hypothesis_symbols(thm.hypotheses) <= sizes:
            return False, None
        tame = _tame_growth(st, sizes)
        if tame is None:
            return False, None
        first = tried[0]
        try:
            with time_limit(min(budget, 1.0)):
                closed = all(not expand_finite(_xreplace(side, first)).free_symbols for side in (st.lhs, st.rhs))
        except TimeLimitExceeded:
            return False, None
        except Exception:  # noqa: BLE001 -- not written out: no sweep
            return False, None
        if not closed:
            return False, None
        seen = {tuple(m[s] for s in syms) for m in tried}
        screened = [0]  # the sizes the screen evaluated: a sweep that reached none says nothing
        # a size an equation of the hypotheses determines from the others (Eq(m, n + 1)) is computed,
        # not swept: the sweep runs over the free sizes only
        determined = _determined_sizes(thm.hypotheses, syms)
        free = [v for v in syms if v not in determined]

        def full(values):
            """The sizes at the free ones' ``values`` (None: a determined one is no positive integer)."""
            mapping = dict(zip(free, (sp.Integer(v) for v in values)))
            for _ in range(len(determined)):
                for v, expr in determined.items():
                    if v not in mapping and not (expr.free_symbols - set(mapping)):
                        mapping[v] = sp.expand(expr.xreplace(mapping))
            if len(mapping) != len(syms) or not all(x.is_Integer and x > 0 for x in mapping.values()):
                return None
            return mapping

        def probe(values, deadline):
            """``"stop"`` (the sizes after ``values`` are larger still: no further probe), None (not
            a counterexample, or not shown to be one) or ``(mapping, detail)`` of a confirmed one."""
            left = deadline - time.monotonic()
            if left <= 0:
                return "stop"
            mapping = full(values)
            if mapping is None or tuple(mapping[v] for v in syms) in seen:
                return None
            try:
                with time_limit(min(left, 1.0)):
                    if not _small_enough(tame, mapping):
                        return "stop"  # a value too large to write out exactly: the sizes after it are larger
                    if domain_violation(mapping, thm.hypotheses) is not None:
                        return None
                    a, b = (expand_finite(_xreplace(side, mapping)) for side in (st.lhs, st.rhs))
                    fails = _screen_fails(a, b, st.relation, min(left, 1.0))
                    screened[0] += 1
            except TimeLimitExceeded:
                return "stop"  # the sizes after it are larger: slower still
            except Exception:  # noqa: BLE001 -- not evaluated there: the full check is not asked
                return None
            if not fails:
                return None
            status, detail = self._size_result(thm, syms, mapping, max(1.0, min(8.0, self.time_limit)))
            return (mapping, detail) if status == "fail" else None

        deadline = time.monotonic() + budget
        small = [sorted({m[v] for m in tried if v in m})[:3] for v in free]
        for values in _sweep_points(len(free), small):
            got = probe(values, deadline)
            if got == "stop":
                break
            if got is None:
                continue
            if len(free) == 1:  # the sizes the sweep stepped over below it, smallest first
                swept = set(SWEEP_VALUES)
                narrow = time.monotonic() + min(budget, 2.0)
                for v in range(1, values[0]):
                    if v in swept:
                        continue
                    smaller = probe((v,), narrow)
                    if smaller == "stop":
                        break
                    if smaller is not None:
                        return True, smaller
            return True, got
        return screened[0] > 0, None

    def _size_result(self, thm: Any, syms: list, mapping: dict, seconds: float) -> tuple[str, str]:
        """The statement at one size: ``("pass", "")``, ``("fail", counterexample)``, ``("outside",
        why)`` (a side is not a finite exact value there), ``("undecided", why)`` or ``("timeout", why)``."""
        where = describe_point(syms, mapping)
        vanishing = _vanishing_condition(thm.statement, mapping, seconds)
        if vanishing:  # read before the size is put in: SymPy folds 0 * h(0) to 0 for a head h with a pole
            return "outside", f"the statement is not defined there: {vanishing}"
        try:
            with time_limit(seconds):
                st = thm.statement
                hyps = _hypotheses_at(thm.hypotheses, mapping)
                # the index ranges at this size show an entry's index inside its shape
                token = HYPOTHESES.set(tuple(hyps))
                try:
                    st = Statement(*(evaluate_derivatives(expand_finite(_xreplace(side, mapping)))
                                     for side in (st.lhs, st.rhs)), st.relation)
                finally:
                    HYPOTHESES.reset(token)
                st = _moments_at(st, hyps)
                cases = concrete_cases(st, hyps)
        except TimeLimitExceeded:
            return "timeout", f"{where}: time limit deriving the instance"
        except (OutsideShape, IndexError) as exc:  # an entry read outside its matrix: no value there
            return "outside", f"the statement is not defined there ({type(exc).__name__}: {exc})"
        except Exception as exc:
            return "undecided", f"{where}: deriving the instance raised {type(exc).__name__}: {exc}"
        # the sides as stated, at this size, before SymPy's evaluation of the written-out terms can
        # cancel a pole (s_1 s_2 / s_2 is s_1 once the product is written out): an instance whose sides
        # are defined at different points is not shown, whatever the written-out sides say
        apart = _defined_apart(thm.statement, mapping, hyps, seconds)
        # the cases of the instance (every permutation of a Permutation hypothesis, matrices written
        # out): exhaustive, so the instance holds when every case does
        z3_shown: list = []
        token = _Z3_SHOWN.set(z3_shown)
        try:
            return self._cases_result(cases, st, hyps, where, apart, seconds, z3_shown)
        finally:
            _Z3_SHOWN.reset(token)

    def _cases_result(self, cases, st, hyps, where, apart, seconds, z3_shown) -> tuple[str, str]:
        for label, case, case_hyps in cases:
            at = f"{where}, {label}" if label else where
            for side in (case.lhs, case.rhs):
                why = undefined_side(side)
                if why:
                    return "outside", f"the statement is not defined there: {why}"
            ok = _limited(lambda st=case, hyps=case_hyps: _instance_holds(st, hyps), seconds)
            if not ok and not label and case != st:  # the statement as derived, before writing it out
                ok = _limited(lambda st=st, hyps=hyps: _instance_holds(st, hyps), seconds) or ok
            if ok and apart:
                return "undecided", (f"{at}: the two sides are defined at different points ({apart}): the "
                                     "written-out sides agree, but not where one side is undefined")
            if ok:
                continue
            cex = find_counterexample(case, case_hyps, seed=self.seed, seconds=seconds)
            if cex is not None:
                return "fail", (at, str(cex) + self._witness(cex, case_hyps, seconds))
            reason = "time limit" if ok is None else "not shown exactly, and no counterexample found"
            return ("timeout" if ok is None else "undecided"), f"{at}: {reason}"
        return "pass", ("z3" if z3_shown else "")

    def _witness(self, cex, hypotheses, seconds: float) -> str:
        """For a counterexample whose sides are numbers at the size (nothing to assign) under hypotheses
        that still mention symbols (``n <= 3 + sin(pi x)`` at ``n = 4``): a point of the hypotheses there,
        shown exactly, so the counterexample names the whole point (``x = 1/2``) inside them."""
        if cex.model.values or not hypothesis_symbols(hypotheses):
            return ""
        model, _why = find_model([], hypotheses, seed=self.seed, seconds=seconds)
        if model is None or not model.values:
            return ""
        return "; inside the hypotheses " + model.describe()

    def _points(self, thm: Any) -> LevelResult | None:
        """A theorem with no integer dimension: the statement evaluated exactly at points inside the
        hypotheses (the model the search finds first, then small rational and integer points;
        :func:`~symattn.kernel.search.find_counterexample`). An exact point where the sides differ is a
        counterexample (the level fails, whatever the other levels say); otherwise n/a, saying so (a
        search that finds nothing is no evidence), or None when no search runs."""
        if getattr(self, "_no_model", None) is not None:
            return None  # hypotheses with no model: no point is inside them
        if thm.kind in ("heuristic", "empirical"):
            return None  # its symbols name measured quantities, not variables the claim is universal over
        seconds = min(self.time_limit, 8.0)
        try:
            with time_limit(seconds):
                cex = find_counterexample(thm.statement, thm.hypotheses, seed=self.seed, tries=8, seconds=seconds / 2)
        except TimeLimitExceeded:
            return None
        except Exception:  # noqa: BLE001 -- a search that breaks finds nothing
            return None
        if cex is None:
            return LevelResult(Level.NA, "no integer dimension to instantiate; no counterexample at the exact points "
                               "searched inside the hypotheses (a search that finds none is no evidence)")
        return LevelResult(Level.FAIL, f"exact point inside the hypotheses (found by the kernel): {cex}",
                           {"counterexample": str(cex), "derived": True})

    def _builder_instances(self, thm: Any) -> LevelResult:
        spec = thm.instances
        checked = []
        derived_all = True
        why_not = ""
        skipped = []
        witnesses: set = set()
        for size in sorted(spec.sizes):
            try:
                mapping = _size_mapping(thm, spec, size)
            except Exception as exc:
                return LevelResult(Level.UNDECIDED, f"instance {spec.label} = {size}: what the size sets raised "
                                   f"{type(exc).__name__}: {exc}")
            # a size is a value of an integer symbol; setting a real or complex scalar variable is a sample
            # point, not a size (a matrix set to a witness is shown as such)
            pinned = sorted((str(v) for v in mapping if isinstance(v, sp.Symbol) and not v.is_integer), key=str)
            witnesses |= {str(v) for v in mapping if isinstance(v, sp.MatrixSymbol)}
            if pinned and derived_all:
                derived_all, why_not = False, (
                    f"the instance sets {', '.join(pinned)}, which is not an integer symbol (a size): it pins a "
                    "variable at a point, it is no instance at a size")
            outside = domain_violation(mapping, thm.hypotheses) if not pinned else None
            if outside is not None:
                skipped.append(f"{spec.label} = {size} ({outside})")
                continue
            try:
                with time_limit(self.time_limit):
                    st = spec.build(size)
                    if not isinstance(st, Statement):
                        return LevelResult(Level.UNDECIDED, f"instance {spec.label} = {size}: the builder returned "
                                           f"{type(st).__name__}, not a Statement")
                    st = Statement(expand_finite(st.lhs), expand_finite(st.rhs), st.relation)
                    if derived_all:
                        derived, mapping, why = self._derived(thm, spec, size)
                    else:  # one size already did not match: the spec is not derived, do not try again
                        derived, mapping, why = None, None, why_not
            except TimeLimitExceeded:
                return LevelResult(Level.UNDECIDED, f"time limit at {spec.label} = {size}", {"checked": checked})
            except Exception as exc:
                return LevelResult(
                    Level.UNDECIDED, f"instance {spec.label} = {size} raised {type(exc).__name__}: {exc}"
                )
            hyps = thm.hypotheses
            if derived is not None:
                diff = self._matches(st, derived)
                if diff is not None and getattr(spec, "at", None) is None:
                    # the size was read off the label: a builder of another form is not rejected,
                    # only not counted
                    derived, why = None, (f"at {spec.label} = {size} the builder's statement is not the "
                                          f"theorem's with {spec.label} = {size} substituted ({diff}); give "
                                          "Instances(at=...) to derive it")
                elif diff is not None:
                    return LevelResult(
                        Level.UNDECIDED,
                        f"rejected: the builder's statement at {spec.label} = {size} is not the theorem's statement "
                        f"there ({diff})",
                        {"derived": False},
                    )
            if derived is not None:
                hyps = _hypotheses_at(thm.hypotheses, mapping)
                st = _limited(lambda st=st, hyps=hyps: _moments_at(st, hyps), self.time_limit) or st
            else:
                derived_all, why_not = False, why
            undefined = undefined_side(st.lhs) or undefined_side(st.rhs)
            if undefined:  # a pole: outside the statement's domain, neither a pass nor a counterexample
                skipped.append(f"{spec.label} = {size}: the statement is not defined there: {undefined}")
                continue
            ok = _limited(lambda st=st: _statement_holds(st), self.time_limit)
            if ok:
                checked.append(size)
                continue
            cex = find_counterexample(st, hyps, seed=self.seed, seconds=self.time_limit)
            if cex is not None and derived is not None:
                return LevelResult(
                    Level.FAIL, f"{spec.label} = {size}: {cex}", {"counterexample": str(cex), "derived": True}
                )
            if cex is not None:
                return LevelResult(
                    Level.UNDECIDED,
                    f"the builder's statement fails at {spec.label} = {size} ({cex}), but it is not derived from "
                    f"the theorem's statement ({why_not}), so it is no counterexample to the theorem",
                    {"derived": False, "builder_counterexample": str(cex)},
                )
            if ok is None:
                return LevelResult(Level.UNDECIDED, f"time limit at {spec.label} = {size}", {"checked": checked})
            return LevelResult(
                Level.UNDECIDED, f"{spec.label} = {size}: not shown exactly, and no counterexample found"
            )
        shown = f"{spec.label} in {{{', '.join(map(str, checked))}}}"
        if witnesses:
            shown += f", with {', '.join(sorted(witnesses))} set to the builder's witness values"
        if skipped:
            shown += f" (sizes outside the symbols' domains or the hypotheses, not used: {'; '.join(skipped)})"
        if not checked:
            return LevelResult(Level.NA, f"no size of the builder is inside the hypotheses: {'; '.join(skipped)}",
                               {"derived": False})
        if derived_all:
            return LevelResult(
                Level.PASS, f"exact for {shown} (the builder's instances are the statement's at those sizes)",
                {"sizes": checked, "derived": True},
            )
        return LevelResult(
            Level.PASS,
            f"exact for {shown}, for the builder's statements, which are not derived from the theorem's "
            f"({why_not}): not counted toward the verdict",
            {"sizes": checked, "derived": False, "not_counted": why_not},
        )

    # -- probabilistic ----------------------------------------------------------------------------
    def _probabilistic(self, thm: Any) -> LevelResult:
        spec = thm.probabilistic
        if spec is None:
            return LevelResult(Level.NA, "no probabilistic check")
        rng = random.Random(spec.seed)
        bounds = []
        derived_all, why_not = True, ""
        for size in sorted(spec.sizes):
            try:
                with time_limit(self.time_limit):
                    st = spec.build(size)
                    st = Statement(expand_finite(st.lhs), expand_finite(st.rhs), st.relation)
                    if derived_all:
                        derived, _mapping, why = self._derived(thm, spec, size)
                    else:
                        derived, why = None, why_not
                    if derived is not None:
                        diff = self._matches(st, derived)
                        if diff is not None and getattr(spec, "at", None) is None:
                            derived, why = None, f"the builder's statement is not the theorem's at size {size}: {diff}"
                        elif diff is not None:
                            return LevelResult(
                                Level.UNDECIDED,
                                f"rejected: the builder's statement at size {size} is not the theorem's statement "
                                f"there ({diff})",
                            )
                    if derived is None:
                        derived_all, why_not = False, why
                        # the hypotheses that speak of the builder's symbols (it may be written in others)
                        syms = statement_symbols(st)
                        hyps = tuple(h for h in thm.hypotheses if _hypothesis_symbols(h) & syms)
                    else:
                        hyps = _hypotheses_at(thm.hypotheses, _mapping)
                    res = _schwartz_zippel(st, hyps, rng, spec.trials, spec.field_size)
            except TimeLimitExceeded:
                return LevelResult(Level.UNDECIDED, f"time limit at size {size}")
            except _NotRational as exc:
                return LevelResult(Level.NA, f"size {size}: {exc}")
            except _Refused as exc:
                return LevelResult(Level.NA, f"size {size}: Schwartz-Zippel does not run: {exc}")
            if res[0] == "fail":
                if derived is None:
                    return LevelResult(
                        Level.UNDECIDED,
                        f"size {size}: the builder's statement fails ({res[1]}), but it is not derived from the "
                        f"theorem's statement ({why_not})",
                        {"derived": False, "builder_counterexample": res[1]},
                    )
                return LevelResult(Level.FAIL, f"size {size}: {res[1]}", {"counterexample": res[1], "derived": True})
            if res[0] == "undefined":
                return LevelResult(Level.UNDECIDED, f"size {size}: {res[1]}")
            bounds.append(res[1])
        err = max(bounds) if bounds else 0.0
        detail = (
            f"exact evaluation at {spec.trials} random points per size {sorted(spec.sizes)}, "
            f"values drawn from 0..{spec.field_size - 1}, seed {spec.seed}; "
            f"probability of a false pass <= {err:.3g}"
        )
        data = {"seed": spec.seed, "error_bound": err, "derived": derived_all}
        if err > MAX_FALSE_PASS:
            return LevelResult(
                Level.UNDECIDED,
                f"{detail}, above the 2**-30 a pass must reach (more trials or a larger field): not counted",
                data,
            )
        if not derived_all:
            detail += f"; for the builder's statements, not derived from the theorem's ({why_not}): not counted"
        return LevelResult(Level.PASS, detail, data)

    # -- numeric ----------------------------------------------------------------------------------
    def _numeric(self, thm: Any) -> LevelResult:
        if thm.numeric is None:
            return LevelResult(Level.NA, "no numeric check")
        if not self.numeric:
            return LevelResult(Level.NA, "numeric checks skipped")
        try:
            res = thm.numeric(self.seed)
        except Exception as exc:
            return LevelResult(Level.UNDECIDED, f"numeric check raised {type(exc).__name__}: {exc}")
        if not isinstance(res, NumericResult) or not _truth_value(res.ok):
            got = f"{type(res).__name__} {res!r}" if not isinstance(res, NumericResult) else f"ok={res.ok!r}"
            return LevelResult(Level.UNDECIDED, (f"theorem {thm.id!r}: its numeric callback must return a symattn."
                                                 f"NumericResult (ok: bool, samples, seed, max_error, tolerance), "
                                                 f"got {got}")[:400])
        data = {
            "samples": res.samples,
            "seed": res.seed,
            "max_error": float(res.max_error),
            "tolerance": float(res.tolerance),
        }
        if res.counterexample:
            data["counterexample"] = res.counterexample
        return LevelResult(Level.PASS if res.ok else Level.FAIL, res.describe(), data)

# ---------------------------------------------------------------------------------------------- helpers
def _recheck_whole_step(checks: list, prev: Any, step, ctx: ProofContext) -> None:
    """The second engine on the step's claim as a whole (:mod:`symattn.kernel.second.steps`)."""
    from symattn.kernel.second.steps import recheck_step

    try:
        whole = second.bounded("second engine", "the step", lambda: recheck_step(
            prev, step.expr, step.relation, ctx.hypotheses, step.rule, step.args))
    except Exception:  # the re-check is evidence only: it never breaks a step
        return
    if whole is not None:
        checks.append(dataclasses.replace(whole, kind="step"))


def _truth_value(ok: Any) -> bool:
    """Whether ``ok`` is a truth value: a bool, or one that equals True or False (numpy's, SymPy's
    ``true``/``false``); not a string, ``None`` or an array."""
    if isinstance(ok, bool):
        return True
    if ok is None or isinstance(ok, (str, bytes)):
        return False
    try:
        return bool(ok == True) or bool(ok == False)  # noqa: E712
    except Exception:
        return False


def _ambient_cache():
    from symattn.engine.cache import ambient

    return ambient()


def _inconsistencies(hypotheses, seconds: float) -> list:
    """What the kernel shows contradictory in the hypotheses (probability laws, moment equations, two
    values for one term: :func:`symattn.kernel.schemas.probability.problems`); none when it runs out of time."""
    from symattn.kernel.schemas.probability import problems

    try:
        with time_limit(seconds):
            return problems(hypotheses)
    except TimeLimitExceeded:
        return []


def _law_conditions(hypotheses) -> tuple:
    """The conditions the probability hypotheses put on their parameters (|correlation| <= 1, Jensen, ...:
    :func:`symattn.kernel.schemas.probability.constraints`), as assumptions a model must satisfy."""
    from symattn.kernel.schemas.probability import constraints
    from symattn.language.statement import Assumption

    out = []
    for names, cond in constraints(hypotheses):
        if isinstance(cond, sp.Basic) and cond is not sp.true:
            laws = f"with {', '.join(names[1:])}" if names[1:] else "by the declared laws"
            out.append(Assumption(f"{names[0]} ({laws})", condition=cond))
    return tuple(out)


def _symbols_with_shapes(st: Statement) -> set:
    """Free symbols of a statement, including those in the shapes of matrix symbols (SymPy leaves
    ``n`` out of ``MatrixSymbol("X", n, d).free_symbols``)."""
    out = set(st.free_symbols)
    for side in (st.lhs, st.rhs):
        if isinstance(side, sp.Basic):
            for m in side.atoms(sp.MatrixSymbol) | ({side} if isinstance(side, sp.MatrixExpr) else set()):
                for dim in m.shape:
                    out |= set(getattr(dim, "free_symbols", set()))
    return out


#: the values of one size the sweep of larger sizes takes (:meth:`Checker._sweep`), smallest first: every
#: value to 256, then powers of two and of ten with their neighbours to 10^4
SWEEP_VALUES = tuple(range(1, 257)) + (257, 511, 512, 513, 999, 1000, 1001, 1023, 1024, 1025, 2047, 2048, 2049,
                                        4095, 4096, 4097, 9999, 10000, 10001)
#: the largest value of each size when several sizes are swept together (every combination up to it)
SWEEP_JOINT = 24


def _determined_sizes(hypotheses, syms: list) -> dict:
    """The sizes an equation of the hypotheses gives in terms of the others (``Eq(m, n + 1)``: ``m``),
    as the model search solves them (:func:`symattn.kernel.search._determined`), kept only when at
    least one size stays free and each solution mentions sizes only."""
    from symattn.kernel.search import _determined

    try:
        found = _determined(hypotheses, set(syms))
    except Exception:  # noqa: BLE001 -- no solution read: every size is swept
        return {}
    out = {v: sp.sympify(e) for v, e in found.items() if v in syms and sp.sympify(e).free_symbols <= set(syms)}
    return out if len(out) < len(syms) else {}


def _sweep_points(count: int, small: list | None = None):
    """The tuples of sizes the sweep takes: one size, :data:`SWEEP_VALUES`; several, every combination of
    values up to :data:`SWEEP_JOINT`, by largest value, then sum; then, for each value of
    :data:`SWEEP_VALUES` beyond it, (two sizes) that value against the other's smallest values (1, 2,
    3 and ``small``, the smallest each size takes inside the hypotheses), then every size at it."""
    if count == 1:
        return [(v,) for v in SWEEP_VALUES]
    import itertools

    combos = sorted(itertools.product(range(1, SWEEP_JOINT + 1), repeat=count), key=lambda t: (max(t), sum(t), t))
    partners = [sorted({1, 2, 3} | {int(u) for u in (small[pos] if small else ())}) for pos in range(count)]
    for v in (v for v in SWEEP_VALUES if v > SWEEP_JOINT):
        if count == 2:
            off = {(v, u) for u in partners[1] if u < v} | {(u, v) for u in partners[0] if u < v}
            combos += sorted(off, key=lambda t: (sum(t), t))
        combos.append((v,) * count)
    return combos


#: the heads a statement swept at larger sizes may use (:func:`_tame_growth`): SymPy's own, whose
#: values at a size are computed without unfolding anything
_TAME_HEADS = (sp.Add, sp.Mul, sp.Pow, sp.Symbol, sp.Number, sp.NumberSymbol, sp.floor, sp.ceiling, sp.Mod,
               sp.Min, sp.Max, sp.Abs, sp.Sum, sp.Product, sp.KroneckerDelta, sp.Piecewise, sp.factorial,
               sp.binomial, sp.exp, sp.log, sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc, sp.asin,
               sp.acos, sp.atan, sp.acot, sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch, sp.asinh,
               sp.acosh, sp.atanh, sp.acoth, sp.erf, sp.erfc, sp.frac, sp.sign, sp.Tuple, sp.logic.boolalg.Boolean,
               sp.core.relational.Relational, sp.functions.elementary.piecewise.ExprCondPair)
#: heads whose value grows at least exponentially in their argument
_STEEP = (sp.factorial, sp.binomial, sp.Product, sp.exp, sp.sinh, sp.cosh, sp.csch, sp.sech)
#: the most bits a value written out by the sweep may have (estimated before it is computed)
_SWEEP_BITS = 1 << 16


def _tame_growth(st: Statement, sizes: set):
    """``(steep, bound)`` for ``st``: its steep terms (a power with a size or a summation index in its
    exponent, a factorial, a product, ...) and the summation indices with their ranges, when the
    value of each steep term at a size can be bounded before it is computed; None for a head
    outside :data:`_TAME_HEADS`, or a steep term inside the exponent or argument of another
    (``2^(2^n)``, whose exact value at ``n = 64`` no machine holds). Python's big-integer arithmetic
    cannot be interrupted by the time limit, so no value is computed before its size is bounded."""
    bound = []
    for side in (st.lhs, st.rhs):
        for node in sp.preorder_traversal(side):
            if not isinstance(node, _TAME_HEADS):
                return None
            if isinstance(node, (sp.Sum, sp.Product)):
                for lim in node.limits:
                    if len(lim) != 3:
                        return None
                    bound.append(tuple(lim))
    growing = set(sizes) | {lim[0] for lim in bound}
    steep = []
    for side in (st.lhs, st.rhs):
        for node in sp.preorder_traversal(side):
            if not (getattr(node, "free_symbols", set()) & growing) and not isinstance(node, sp.Product):
                continue
            if isinstance(node, sp.Pow) and node.exp.free_symbols & growing:
                inner = (node.base, node.exp)
            elif isinstance(node, _STEEP):
                inner = node.args
            else:
                continue
            for part in inner:
                for sub in sp.preorder_traversal(part):
                    if (isinstance(sub, sp.Pow) and sub.exp.free_symbols & growing) or isinstance(sub, _STEEP):
                        return None
            steep.append(node)
    return steep, bound


def _bits(x: int) -> float:
    return float(max(abs(int(x)).bit_length(), 1))


def _small_enough(tame, mapping: dict) -> bool:
    """Whether every steep term of :func:`_tame_growth` has, at the sizes ``mapping``, a value of at most
    :data:`_SWEEP_BITS` bits, estimated with each summation index at the largest magnitude of its range
    (the arguments of a steep term are polynomial, so computing them is safe)."""
    steep, bound = tame
    at = dict(mapping)
    for var, lo, hi in bound:
        ends = [expand_finite(_xreplace(_xreplace(b, at), mapping)) for b in (lo, hi)]
        if not all(e.is_Integer for e in ends):
            return False
        at[var] = sp.Integer(max(abs(int(e)) for e in ends))

    def value(e):
        v = expand_finite(_xreplace(e, at))
        return v if v.is_Rational else None

    def magnitude(e):
        """An upper bound of ``|e|`` at the point (a size estimate, never a decision), or None."""
        v = expand_finite(_xreplace(e, at))
        if v.is_Rational:
            return abs(v)
        if v.free_symbols or not v.is_number:
            return None
        approx = sp.N(sp.Abs(v), 30)
        if not approx.is_Float or not approx.is_finite:
            return None
        return sp.Rational(approx) * sp.Rational(1001, 1000) + 1

    def height(e):
        """The bits of the rationals in a closed base, plus its number of terms: what a power of it,
        written out, costs per unit of the exponent (at most)."""
        v = expand_finite(_xreplace(e, at))
        if v.free_symbols:
            return None
        return sum(max(_bits(r.p), _bits(r.q)) for r in v.atoms(sp.Rational)) + len(sp.Add.make_args(v)) + 2

    for node in steep:
        if isinstance(node, sp.Pow):
            base, e = value(node.base), magnitude(node.exp)
            if e is None:
                return False
            if base is not None:
                size = max(_bits(base.p), _bits(base.q)) * float(e)
            else:
                h = height(node.base)
                if h is None:
                    return False
                size = float(h) * float(e)
        elif isinstance(node, sp.Product):
            size = 0.0
            for _var, lo, hi in node.limits:
                lo, hi = value(lo), value(hi)
                if lo is None or hi is None:
                    return False
                size += 64.0 * max(0.0, float(hi - lo + 1))
        else:
            args = [magnitude(a) for a in node.args]
            if any(a is None for a in args):
                return False
            top = max(int(sp.ceiling(a)) for a in args)
            size = float(top) * _bits(top)
        if size > _SWEEP_BITS:
            return False
    return True


def _screen_fails(a: Any, b: Any, relation: str, seconds: float) -> bool:
    """Whether the closed sides ``a``, ``b`` are shown, exactly, to break ``relation`` (a screen only:
    the size is then checked in full)."""
    if not (isinstance(a, sp.Expr) and isinstance(b, sp.Expr)) or a.free_symbols or b.free_symbols:
        return False
    if relation == "=":
        return exact.equal(a, b, seconds) is False
    gap = b - a if relation in ("<=", "<") else a - b
    sg = exact.sign(gap, seconds)
    return sg == -1 or (sg == 0 and relation in ("<", ">"))


def _hypothesis_symbols(h) -> set:
    return hypothesis_symbols((h,))


def _limited(fn, seconds: float):
    """``fn()`` under the time limit: its value, ``None`` on time-out, ``False`` if it raised."""
    try:
        with time_limit(seconds):
            return fn()
    except TimeLimitExceeded:
        return None
    except Exception:
        return False


def _short(x: Any, limit: int = 160) -> str:
    s = sp.sstr(x)
    return s if len(s) <= limit else s[:limit] + " ..."


def spec_label(spec) -> str:
    return getattr(spec, "label", "size")


def _size_mapping(thm: Any, spec, size: int) -> dict | None:
    """What the size sets: ``spec.at`` (a symbol, or ``size -> substitution``), else the one symbol
    of the statement named like the spec's label."""
    at = getattr(spec, "at", None)
    if callable(at) and not isinstance(at, sp.Basic):
        return dict(at(size))
    if isinstance(at, sp.Basic):
        return {at: sp.Integer(size)}
    label = getattr(spec, "label", "n") if hasattr(spec, "label") else None
    named = [x for x in _symbols_with_shapes(thm.statement) if isinstance(x, sp.Symbol) and x.name == label]
    if len(named) == 1:
        return {named[0]: sp.Integer(size)}
    # no symbol named like the label: the instance may still be the statement itself, expanded
    return {}


def _moments_at(st: Statement, hypotheses) -> Statement:
    """A derived instance's moments (``Expectation``, ``Variance``, ...) of entries of
    :class:`~symattn.language.statement.RandomFamily` families of concrete size, evaluated from their law by
    :mod:`symattn.kernel.objects.moments` (entries i.i.d. with the family's mean, variance and given moments).
    Several families only when every pair of them is made independent by an ``Independent``
    hypothesis or is related by a ``CorrelatedPairs`` one (their joint law: pairs independent across
    i, both centred, of one variance, no further marginal moments given), and no other hypothesis
    relates them. The statement unchanged when that is not all of
    it: families not shown independent (their joint law is not known), an entry outside ``1..dim``,
    or a moment a family does not give (it would come back as a fresh symbol, free to take values no
    law has)."""
    from symattn.kernel.objects.moments import _Moment
    from symattn.kernel.objects.random_vectors import correlated_vectors, iid_vector
    from symattn.language.statement import Independent, RandomFamily

    sides = (st.lhs, st.rhs)
    if not any(isinstance(x, sp.Basic) and x.has(_Moment) for x in sides):
        return st
    families = {h.base: h for h in hypotheses if isinstance(h, RandomFamily)}
    entries = {a for x in sides if isinstance(x, sp.Basic) for a in x.atoms(sp.Indexed) if a.base in families}
    used = {a.base for a in entries}
    if not used:
        return st
    # a CorrelatedPairs hypothesis over two of the families gives their joint law (pairs independent
    # across i, mean 0: :func:`symattn.kernel.objects.moments.correlated_vectors`), when both are centred, of one
    # variance, with no further marginal moments given
    correlated = {}
    for h in hypotheses:
        if type(h).__name__ == "CorrelatedPairs" and h.q in used and h.k in used:
            fq, fk = families[h.q], families[h.k]
            if h.q in correlated or h.k in correlated or fq.moments or fk.moments:
                return st
            if not (sp.sympify(fq.mean) == 0 and sp.sympify(fk.mean) == 0 and sp.sympify(fq.variance) ==
                    sp.sympify(fk.variance) and sp.sympify(fq.dim) == sp.sympify(fk.dim) == sp.sympify(h.dim)):
                return st
            correlated[h.q] = correlated[h.k] = h
    if len(used) > 1:
        pairs = {frozenset((f, g)) for h in hypotheses if isinstance(h, Independent)
                 for f in h.families for g in h.families if f != g}
        pairs |= {frozenset((h.q, h.k)) for h in correlated.values()}
        if any(frozenset((f, g)) not in pairs for f in used for g in used if f != g):
            return st
        for h in hypotheses:  # anything else about two of them (a correlation) contradicts the i.i.d. law
            if isinstance(h, (RandomFamily, Independent)) or h in correlated.values():
                continue
            named = {getattr(h, f, None) for f in ("q", "k", "base", "first", "second")} & used
            if len(named) > 1 or (named and type(h).__name__ == "CorrelatedPairs"):
                return st
    subs = {}
    before = set().union(*(x.free_symbols for x in sides if isinstance(x, sp.Basic)))
    joint = {}
    for h in correlated.values():
        if h.q not in joint:
            dim = sp.sympify(h.dim)
            if not dim.is_Integer:
                return st
            fq = families[h.q]
            joint[h.q], joint[h.k] = correlated_vectors(str(h.q), str(h.k), int(dim), variance=fq.variance,
                                                        covariance=h.covariance, mixed_moments=dict(h.mixed))
            before |= set(sp.sympify(h.covariance).free_symbols) | {
                y for _, v in h.mixed for y in sp.sympify(v).free_symbols}
    for base in used:
        fam = families[base]
        dim = sp.sympify(fam.dim)
        if not dim.is_Integer:
            return st
        law = joint.get(base) or iid_vector(str(fam.base), int(dim), mean=fam.mean, variance=fam.variance,
                                            moments=dict(fam.moments))
        for a in (e for e in entries if e.base == base):
            if len(a.indices) != 1 or not a.indices[0].is_Integer or not 1 <= int(a.indices[0]) <= int(dim):
                return st
            subs[a] = law[int(a.indices[0])]
        before |= {y for v in (fam.mean, fam.variance, *(m for _, m in fam.moments))
                   for y in sp.sympify(v).free_symbols}

    def evaluate(x):
        if not isinstance(x, sp.Basic):
            return x
        return x.xreplace(subs).replace(lambda e: isinstance(e, _Moment), lambda e: e.closed_form())

    new = [evaluate(x) for x in sides]
    if any(isinstance(x, sp.Basic) and (x.has(_Moment) or x.atoms(sp.Indexed) & set(subs.values())
                                        or not x.free_symbols <= before) for x in new):
        return st
    return Statement(new[0], new[1], st.relation)


def _hypotheses_at(hypotheses: tuple, mapping: dict) -> tuple:
    """The hypotheses with the instance's substitution applied (see :mod:`symattn.kernel.instances`)."""
    return hypotheses_at(hypotheses, mapping)


def _instance_holds(st: Statement, hypotheses) -> bool:
    """Whether an instance holds, shown exactly: a free index whose range the size made concrete
    (``i`` in ``1..2``) is split into its cases (every value checked: exhaustive, so exact); the
    equation hypotheses are solved for a variable each (as Schwartz--Zippel does,
    :func:`symattn.kernel.zippel.solve_equations`) and substituted; then the sides are compared by
    the zero test (or the sign test). A few cases are tried before the statement as a whole: the
    statement at ``p = 2`` is far cheaper to show than with ``KroneckerDelta(1, p)`` left in it."""
    from symattn.language.statement import IndexRange

    free = statement_symbols(st) | _derivative_indices(st)
    cases = [{}]
    for h in hypotheses:
        if isinstance(h, IndexRange) and h.index in free:
            lo, hi = (expand_finite(sp.sympify(e)) for e in (h.lower, h.upper))
            if lo.is_Integer and hi.is_Integer and lo <= hi:
                cases = [{**c, h.index: sp.Integer(v)} for c in cases for v in range(int(lo), int(hi) + 1)]
    if len(cases) > 64:
        cases = [{}]
    few = bool(cases[0]) and len(cases) <= _FEW_CASES
    if few and all(_case_holds(st, hypotheses, case) for case in cases):
        return True  # every value the split indices can take (each case is far cheaper to show)
    if _statement_holds(st, hypotheses):
        return True
    if few:  # the cases were tried first: the equations solved on the whole statement
        return _case_holds(st, hypotheses, {})
    return all(_case_holds(st, hypotheses, case) for case in cases)


_FEW_CASES = 16  # up to this many cases of the split indices are tried before the statement as a whole


def _defined_apart(st: Statement, mapping: dict, hypotheses, seconds: float) -> str:
    """The definedness conditions one side of ``st`` has at the sizes ``mapping`` and the other lacks,
    not shown from the hypotheses, read on the sides as stated (the sizes substituted, nothing
    written out or evaluated), as ``"s[2] != 0, ..."``; ``""`` when there are none. A side whose
    conditions cannot be read is reported as such (the instance is then not shown)."""
    from symattn.kernel.zero import undischarged

    sides = [_xreplace(side, mapping) for side in (st.lhs, st.rhs)]
    try:
        with time_limit(seconds):
            missing = undischarged(sides[0], sides[1], tuple(hypotheses))
            # the conditions read on the symbolic sides too, then put at the size: a head whose pole
            # SymPy folds away once its argument is a number (0 * h(0) = 0) keeps it there
            for f in undischarged(st.lhs, st.rhs, ()):
                g = _xreplace(f, mapping)
                if g not in missing:
                    missing.append(g)
            missing = [f for f in missing if not _nonzero_at_instance(f, tuple(hypotheses))]
    except TimeLimitExceeded:
        return "the conditions of the sides were not read in time"
    except (KernelError, TypeError, ValueError, AttributeError, NotImplementedError) as exc:
        return f"the conditions of the sides could not be read: {type(exc).__name__}: {_short(str(exc), 80)}"
    return ", ".join(f"{sp.sstr(f)} != 0" for f in missing[:3]) + (", ..." if len(missing) > 3 else "")


def _vanishing_condition(st: Statement, mapping: dict, seconds: float) -> str:
    """A definedness condition of a side, read on the statement as stated (symbolic), that is exactly
    0 at the sizes ``mapping`` (``n - 1`` of ``(n - 1) h(n - 1)`` with ``h(x) = 1/x`` at ``n = 1``), as
    ``"n - 1 = 0"``; ``""`` when none is."""
    from symattn.kernel.zero import definedness_conditions

    try:
        with time_limit(seconds):
            for side in (st.lhs, st.rhs):
                for f in definedness_conditions(side):
                    g = expand_finite(_xreplace(f, mapping))
                    if isinstance(g, sp.Basic) and g.is_number and exact.is_zero(g) is True:
                        return f"{sp.sstr(f)} = 0 there"
    except (TimeLimitExceeded, KernelError, TypeError, ValueError, AttributeError, NotImplementedError):
        return ""
    return ""


def _nonzero_at_instance(f: Any, hypotheses: tuple) -> bool:
    """Whether a definedness condition ``f != 0`` holds at a concrete instance: ``f`` written out (its
    finite sums unrolled, the entries a ``forall`` equation defines unfolded, the equations solved),
    for every value of each free index whose range the size made concrete, is shown nonzero by the
    sign test or the hypotheses (a masked normaliser ``sum_k e^{s_ik} 1[k = i]`` is ``e^{s_ii} > 0``)."""
    from symattn.kernel.zero import _shown_nonzero
    from symattn.language.statement import IndexRange

    g = evaluate_derivatives(expand_finite(f))
    cases = [{}]
    for h in hypotheses:
        if isinstance(h, IndexRange) and isinstance(h.index, sp.Symbol) and h.index in g.free_symbols:
            lo, hi = (expand_finite(sp.sympify(e)) for e in (h.lower, h.upper))
            if not (lo.is_Integer and hi.is_Integer) or hi - lo > 16:
                return False
            cases = [{**c, h.index: sp.Integer(v)} for c in cases for v in range(int(lo), int(hi) + 1)]
    if len(cases) > 64:
        return False
    for case in cases:
        hyps = _hypotheses_at(hypotheses, case) if case else hypotheses
        e = expand_finite(_xreplace(g, case)) if case else g
        try:
            unfolded = unfold_forall(hyps, [e])
            _solution, (e,) = solve_equations(hyps, unfolded, strict=False)
        except (_Refused, TypeError, ValueError):
            pass
        e = expand_finite(e)
        if e.is_number:
            if exact.is_zero(e) is not False:
                return False
            continue
        if not _shown_nonzero(e, hyps):
            return False
    return True


def _derivative_indices(st: Statement) -> set:
    """The symbols in the indices of derivative variables (``j`` in ``d/ds_j``): SymPy does not count
    a derivative's variables as free, but an index in one is free in the statement."""
    out: set = set()
    for side in (st.lhs, st.rhs):
        if isinstance(side, (sp.Basic, sp.MatrixBase)):
            for d in (side.atoms(sp.Derivative) if isinstance(side, sp.Basic) else
                      set().union(*(sp.sympify(e).atoms(sp.Derivative) for e in side))):
                for v, _ in d.variable_count:
                    if isinstance(v, sp.Indexed):
                        out |= {t for t in v.free_symbols if isinstance(t, sp.Symbol)} - {v.base.label}
    return out


def _case_holds(st: Statement, hypotheses, case: dict) -> bool:
    if case:
        st = Statement(*(evaluate_derivatives(expand_finite(_xreplace(x, case))) for x in (st.lhs, st.rhs)),
                       st.relation)
        hypotheses = _hypotheses_at(hypotheses, case)
        if _statement_holds(st, hypotheses):
            return True
    try:
        # the entries a forall equation defines (a recurrence) are unfolded at their concrete indices
        unfolded = unfold_forall(hypotheses, [st.lhs, st.rhs])
        solution, sides = solve_equations(hypotheses, unfolded, strict=False)
    except (_Refused, TypeError, ValueError):
        return False
    if not solution and unfolded == [st.lhs, st.rhs]:
        return False
    return _statement_holds(Statement(sides[0], sides[1], st.relation), hypotheses)


_EVALUATING = (sp.Sum, sp.Product, sp.Integral, sp.Limit, sp.Derivative)


def _canonical(x: Any) -> Any:
    """``x`` with every bound variable of a sum or product renamed to a canonical dummy that
    depends only on its nesting depth, position and assumptions (alpha-equivalence classes)."""
    if isinstance(x, sp.MatrixBase):
        return x.applyfunc(_canonical)
    if not isinstance(x, sp.Basic) or not x.has(sp.Sum, sp.Product, sp.MatAdd):
        return x
    return _canon(x, 0)


_CANON: dict = {}


def _canon_symbol(depth: int, pos: int, var: sp.Symbol) -> sp.Dummy:
    key = (depth, pos, tuple(sorted(var.assumptions0.items())))
    if key not in _CANON:
        _CANON[key] = sp.Dummy(f"b{depth}_{pos}", **var.assumptions0)
    return _CANON[key]


def _canon(x: Any, depth: int) -> Any:
    if not isinstance(x, sp.Basic) or x.is_Atom:
        return x
    if isinstance(x, (sp.Sum, sp.Product)):
        body, limits = x.function, []
        outer = list(x.limits)
        renames = {}
        for pos, (v, lo, hi) in reversed(list(enumerate(outer))):  # outermost first
            lo, hi = lo.xreplace(renames), hi.xreplace(renames)
            new = _canon_symbol(depth, pos, v)
            renames[v] = new
            limits.insert(0, (new, _canon(lo, depth), _canon(hi, depth)))
        body = _canon(body.xreplace(renames), depth + 1)
        return type(x)(body, *limits)
    if isinstance(x, sp.MatAdd):  # a sum of matrices: its terms as a flat, ordered list (nothing is evaluated)
        flat = []
        for a in x.args:
            flat.extend(a.args if isinstance(a, sp.MatAdd) else (a,))
        return sp.MatAdd(*sorted((_canon(a, depth) for a in flat), key=sp.default_sort_key), evaluate=False)
    return x.func(*[_canon(a, depth) for a in x.args])


def _infinite_binder(x: Any) -> Any:
    """The first sum or product of ``x`` over an infinite range (None: none)."""
    if not isinstance(x, sp.Basic):
        return None
    for node in sp.preorder_traversal(x):
        if isinstance(node, (sp.Sum, sp.Product)) and is_infinite_sum(node):
            return node
    return None


def _alpha_equal(a: Any, b: Any) -> bool:
    """Structural equality up to the names of bound variables."""
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
        if not (isinstance(a, sp.MatrixBase) and isinstance(b, sp.MatrixBase)) or a.shape != b.shape:
            return False
        return all(_alpha_equal(x, y) for x, y in zip(a, b))
    if a == b:
        return True
    return _canonical(a) == _canonical(b)


def _evaluates(x: Any) -> bool:
    """Whether SymPy's simplification could *evaluate* something in ``x`` (a sum, a limit, a head of
    symattn's through its definition) rather than only rearrange it."""
    if isinstance(x, sp.MatrixBase):
        return any(_evaluates(e) for e in x)
    if not isinstance(x, sp.Basic):
        return False
    return bool(x.atoms(*_EVALUATING)) or any(
        (type(e).__module__ or "").startswith("symattn.") for e in sp.preorder_traversal(x)
    )


def _ends_match(a: Any, b: Any, seconds: float) -> bool | None:
    """Whether the chain's end ``a`` is the statement's side ``b``: the same term (bound names
    aside), or, when neither side holds anything SymPy could evaluate, equal by the exact zero test.
    The end comparison never does the proof's work of evaluating a sum or a definition."""
    if _alpha_equal(a, b):
        return True
    if _evaluates(a) or _evaluates(b):
        return False
    return _limited(lambda: is_zero(residual(a, b)), seconds)


def pinned_dimensions(dimensions: Iterable, hypotheses: Iterable) -> dict:
    """Dimensions whose value the hypotheses determine (``n = 3``; ``d = 2 h`` with ``h`` pinned;
    an index range ``lo..lo``), each with the hypothesis that pins it."""
    dims = set(dimensions)
    pinned: dict = {}
    changed = True
    while changed:
        changed = False
        for h in hypotheses:
            kind = type(h).__name__
            eqs = []
            if kind == "Equation" and not h.forall:
                eqs.append((h.lhs, h.rhs))
            elif kind == "Assumption" and isinstance(h.condition, sp.Eq):
                eqs.append((h.condition.lhs, h.condition.rhs))
            elif kind == "IndexRange" and isinstance(h.index, sp.Symbol):
                lo, hi = sp.sympify(h.lower), sp.sympify(h.upper)
                if lo == hi:
                    eqs.append((h.index, lo))
            for lhs, rhs in eqs:
                try:
                    r = sp.sympify(lhs) - sp.sympify(rhs)
                except (TypeError, sp.SympifyError):
                    continue
                if not isinstance(r, sp.Expr):
                    continue
                free = {x for x in r.free_symbols if isinstance(x, sp.Symbol)}
                open_ = free - set(pinned)
                if len(open_) == 1:
                    (sym,) = open_
                    if r.has(sym):
                        pinned[sym] = h.name
                        changed = True
    return {sym: why for sym, why in pinned.items() if sym in dims}


def _statement_holds(st: Statement, hypotheses=None) -> bool:
    """Whether a concrete statement is shown: an equation by the zero test under the instance's
    hypotheses (an ``Assumption`` such as a nonzero normaliser discharges the definedness condition
    it states; a size without a model of them is never instantiated), else closed numbers compared
    exactly; an inequality by the sign test."""
    if undefined_side(st.lhs) or undefined_side(st.rhs):
        return False  # a pole (zoo, nan, oo) is no value: "zoo = 2 zoo" is not shown by anything
    if st.relation == "=":
        # sines and cosines first: the reduction by sin^2 + cos^2 = 1
        # (:func:`~symattn.kernel.instances.pythagorean_zero`) is exact division of polynomials, cheap
        # and of steady cost, where the zero test's trigsimp can take seconds on a loaded machine
        diff = _difference(st.lhs, st.rhs)
        if diff is not None and pythagorean_zero(diff):
            # sin^2 + cos^2 = 1 says nothing of where the sides are defined: that is the zero test's
            from symattn.kernel.zero import undischarged

            return not undischarged(st.lhs, st.rhs, tuple(hypotheses) if hypotheses else ())
        if equal(st.lhs, st.rhs, tuple(hypotheses) if hypotheses else None):
            return True
        if _unfolded_equal(st.lhs, st.rhs, hypotheses):
            return True
        pairs = _closed_pairs(st.lhs, st.rhs)
        if pairs and all(exact.equal(a, b) is True for a, b in pairs):
            return True  # closed numbers: equal exactly (minimal polynomials, never by structure)
        return _by_z3(st, hypotheses)
    gap = st.rhs - st.lhs if st.relation in ("<=", "<") else st.lhs - st.rhs
    gap = sp.simplify(gap)
    sign = sign_of(gap)
    if sign == "positive" or (sign == "nonnegative" and st.relation in ("<=", ">=")):
        return True
    return _by_z3(st, hypotheses)


def _unfolded_equal(lhs: Any, rhs: Any, hypotheses) -> bool:
    """Whether the sides are equal once every registered definition is unfolded in both (the kernel's
    own unfolding, :func:`symattn.kernel.zero.unfold_all`), and then once their sums over adjacent
    ranges are joined (:func:`_join_adjacent_sums`). The zero test leaves a defined head such as
    ``Softmax`` opaque, so an instance whose one side is the head and the other its expansion at a
    symbolic width (``O_1 / L_1`` against softmax attention over ``w_1`` keys) was not shown. Unfolding
    a definition is an equality; the zero test then reads the definedness of the unfolded sides."""
    from symattn.kernel.context import UNFOLDINGS
    from symattn.kernel.zero import unfold_all

    hyps = tuple(hypotheses) if hypotheses else None
    a, b = lhs, rhs
    if UNFOLDINGS and any(isinstance(x, sp.Basic) and x.has(*UNFOLDINGS) for x in (lhs, rhs)):
        try:
            a, b = unfold_all(lhs), unfold_all(rhs)
        except (KernelError, TypeError, ValueError, AttributeError, NotImplementedError):
            return False
        if (a, b) != (lhs, rhs) and equal(a, b, hyps):
            return True
    if not any(isinstance(x, sp.Basic) and x.has(sp.Sum) for x in (a, b)):
        return False
    joined = tuple(_join_adjacent_sums(x, hyps or ()) for x in (a, b))
    return joined != (a, b) and equal(*joined, hyps)


def _join_adjacent_sums(expr: Any, hypotheses: tuple) -> Any:
    """``expr`` with the sums of a sum of terms over adjacent ranges of the same summand joined:
    ``c_1 sum_{j=a}^{m} f_1 + c_2 sum_{j=m+1}^{b} f_2`` becomes ``sum_{j=a}^{b} f`` when ``c_1 f_1`` and
    ``c_2 f_2``, their exponentials multiplied out, are the same ``f`` (the tiles of an online softmax
    at ``T = 2``: ``e^{mu_1 - M_1} e^{M_1 - M_2} sum_{j <= w_1} e^{s_j - mu_1}`` and
    ``e^{mu_2 - M_2} sum_{w_1 < j <= w_1 + w_2} e^{s_j - mu_2}``). The zero test does not join adjacent
    sums; each step here is shown by the kernel: a coefficient moved into its sum by the zero test
    (:func:`equal`), a join by the axiom ``sum_split`` at ``m`` (its side conditions -- integer bounds,
    ``a - 1 <= m <= b`` -- discharged by the kernel, and its two sums the two terms up to bound
    variables). A step not shown is not taken."""
    from symattn.kernel.axioms import axiom
    from symattn.kernel.context import HYPOTHESES
    from symattn.kernel.terms import canonical

    def merged(term):
        factors = sp.Mul.make_args(term)
        exps = [f for f in factors if isinstance(f, sp.exp)]
        if len(exps) < 2:
            return term
        return sp.Mul(*(f for f in factors if not isinstance(f, sp.exp))) * sp.exp(sp.Add(*(f.args[0] for f in exps)))

    def inward(term):
        """``c sum f`` as ``sum (c f)``, shown by the zero test; else the term as it is."""
        coeff, sums = [], []
        for f in sp.Mul.make_args(term):
            (sums if isinstance(f, sp.Sum) else coeff).append(f)
        if len(sums) != 1 or len(sums[0].limits) != 1:
            return term
        (s,) = sums
        k = s.limits[0][0]
        c = sp.Mul(*coeff)
        if k in c.free_symbols:
            return term
        candidate = sp.Sum(merged(c * s.function), s.limits[0])
        if candidate == term:
            return term
        return candidate if equal(term, candidate, hypotheses or None) else term

    def join(add):
        terms = [inward(t) for t in add.args]
        changed = True
        while changed:
            changed = False
            for i, s1 in enumerate(terms):
                for j2, s2 in enumerate(terms):
                    if i == j2 or not (isinstance(s1, sp.Sum) and isinstance(s2, sp.Sum)):
                        continue
                    if len(s1.limits) != 1 or len(s2.limits) != 1:
                        continue
                    (k1, a1, m), (k2, a2, b2) = s1.limits[0], s2.limits[0]
                    f2 = s2.function.xreplace({k2: k1}) if k1 not in s2.function.free_symbols - {k2} else None
                    if f2 is None or f2 != s1.function or sp.expand(a2 - m - 1) != 0:
                        continue
                    whole = sp.Sum(s1.function, (k1, a1, b2))
                    try:
                        thm = axiom("sum_split", s=whole, at=m)
                    except (KernelError, TypeError, ValueError):
                        continue
                    if thm.relation != "=" or canonical(thm.rhs) != canonical(s1 + s2):
                        continue
                    terms = [t for n_, t in enumerate(terms) if n_ not in (i, j2)] + [whole]
                    changed = True
                    break
                if changed:
                    break
        return sp.Add(*terms)

    def visit(e):
        if not isinstance(e, sp.Basic) or e.is_Atom or not e.has(sp.Sum):
            return e
        if not isinstance(e, (sp.Sum, sp.Lambda)):
            e = e.func(*(visit(x) for x in e.args))
        return join(e) if isinstance(e, sp.Add) else e

    token = HYPOTHESES.set(tuple(hypotheses))
    try:
        return visit(expr)
    finally:
        HYPOTHESES.reset(token)


def _by_z3(st: Statement, hypotheses) -> bool:
    """The last resort of a derived instance: the second engine's Z3 sign test (recorded in
    :data:`_Z3_SHOWN`, so the level names the sizes that rest on it)."""
    shown = _Z3_SHOWN.get()
    if shown is None:  # only the kernel's derived instances fall back on Z3, and say so
        return False
    why = shown_by_z3(st, tuple(hypotheses) if hypotheses else ())
    if why is None:
        return False
    shown.append(why)
    return True


#: while the kernel's derived instance at one size is checked: the reasons of the inequalities shown
#: by the second engine's Z3 sign test alone (the kernel's own sign test could not show them), so
#: that the level says which sizes rest on Z3 alone (None: no fallback on Z3)
_Z3_SHOWN: contextvars.ContextVar = contextvars.ContextVar("symattn_z3_shown", default=None)


def _closed_pairs(a: Any, b: Any) -> list | None:
    """The entries of two sides, paired, when every one is a closed number (no free symbol, nothing
    unevaluated); otherwise None."""
    la = list(a) if isinstance(a, sp.MatrixBase) else [a]
    lb = list(b) if isinstance(b, sp.MatrixBase) else [b]
    if isinstance(a, sp.MatrixBase) != isinstance(b, sp.MatrixBase) or len(la) != len(lb):
        return None
    if isinstance(a, sp.MatrixBase) and a.shape != b.shape:
        return None
    pairs = []
    for x, y in zip(la, lb):
        x, y = sp.sympify(x), sp.sympify(y)
        if not (x.is_number and y.is_number) or any(e.has(*_EVALUATING) for e in (x, y)):
            return None
        pairs.append((x, y))
    return pairs


def _difference(a: Any, b: Any) -> Any:
    """``a - b`` for two scalars or two explicit matrices of one shape (None otherwise)."""
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
        if isinstance(a, sp.MatrixBase) and isinstance(b, sp.MatrixBase) and a.shape == b.shape:
            return a - b
        return None
    if isinstance(a, sp.MatrixExpr) or isinstance(b, sp.MatrixExpr):
        return None
    try:
        return sp.sympify(a) - sp.sympify(b)
    except (TypeError, sp.SympifyError):
        return None


def _entries(x: Any) -> list:
    if isinstance(x, sp.MatrixBase):
        return list(x)
    return [x]


# ---------------------------------------------------------------------------------------------- API
def check_theorem(thm: Any, **kwargs) -> Outcome:
    """Check one theorem (all levels) and return its :class:`Outcome` (which knows the target)."""
    from symattn.engine.acceptance import remember

    outcome = _checker(kwargs, "check_theorem").check(thm)
    outcome.target = thm.target
    return remember(outcome, thm)


_OPTIONS = ("time_limit", "numeric", "seed", "cache")


def _checker(kwargs: dict, where: str) -> Checker:
    """A :class:`Checker` of ``kwargs``; an unknown option is a ``TypeError`` naming it and the known ones."""
    unknown = sorted(set(kwargs) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"{where}: unknown option(s) {', '.join(unknown)}; the options are {', '.join(_OPTIONS)}")
    return Checker(**kwargs)


def _worker(args):
    theorem_id, kwargs = args
    # a forked worker has the parent's registry; an id it lacks loads the library (Registry.get)
    return Checker(**kwargs).check(registry.get(theorem_id))


def check_many(theorems: Iterable, *, jobs: int = 1, progress=None, **kwargs) -> list[Outcome]:
    """Check many theorems, in parallel processes when ``jobs > 1``; results in input order."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"check_many: jobs must be an integer >= 1, got {jobs!r}")
    checker = _checker(kwargs, "check_many")  # the options validated before any work, whatever jobs is
    theorems = list(theorems)
    if jobs <= 1 or len(theorems) <= 1:
        out = []
        for t in theorems:
            o = checker.check(t)
            if progress:
                progress(t, o)
            out.append(o)
        return out
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs) as pool:
        out = []
        for t, o in zip(theorems, pool.imap(_worker, [(t.id, kwargs) for t in theorems])):
            if progress:
                progress(t, o)
            out.append(o)
        return out


def outcome_to_json(thm: Any, o: Outcome) -> dict:
    """The stable ``symattn check --json`` record."""
    return {
        "id": thm.id,
        "title": thm.title,
        "claim": thm.claim,
        "source": thm.source,
        "kind": thm.kind,
        "verdict": o.verdict.value,
        "shown_as": wording(o.verdict, thm.kind),
        "target": thm.target.value,
        "how": o.how,
        "levels": {k: shown_status(o.levels[k]) if k in o.levels else "n/a" for k in LEVELS},
        "not_counted": {k: o.levels[k].detail for k in LEVELS if k in o.levels
                        and shown_status(o.levels[k]) == "not-counted"},
        "seconds": round(o.seconds, 3),
        "cached": bool(getattr(o, "cached", False)),
        **rechecked_json(o),
    }


def rechecked_json(o: Outcome) -> dict:
    """Per theorem and per step, whether the second engine re-checked the facts the kernel accepted."""
    per_step = _per_step(o.steps, o.engines)
    return {
        "rechecked": second.theorem_rechecked([r for _, (r, _) in per_step]),
        "steps": [{"step": n, "rule": rule, "status": r.status.value, "rechecked": s, "why": why}
                  for n, (r, (rule, (s, why))) in enumerate(zip(o.steps, per_step), start=1)],
    }


def _per_step(steps: list, engines: list) -> list:
    """``(rule, (status, why))`` per step: ``'both'`` or ``'one-engine'`` from the second engine's checks
    (:func:`symattn.kernel.second.step_rechecked`); the grading's ``REQUIRE_RECHECK`` and the JSON read the
    same list. (A step no theorem of the kernel shows never gets here as a pass: the symbolic level fails
    it, see :meth:`Checker._symbolic`.)"""
    return [(rule, second.step_rechecked(list(c))) for rule, c in engines]


def shown_status(lv: LevelResult) -> str:
    """A level's status as the JSON and the report show it: ``pass`` only when the level counts toward
    the verdict (instances derived from the statement; a Schwartz--Zippel test of the statement whose
    bound is small enough); a pass that does not count is ``not-counted`` (its detail says why)."""
    if lv.status is Level.PASS and "derived" in lv.data and not lv.data["derived"]:
        return "not-counted"
    if lv.status is Level.PASS and lv.data.get("error_bound", 0.0) > MAX_FALSE_PASS:
        return "not-counted"
    return lv.status.value


def dumps(records: list[dict]) -> str:
    return json.dumps(records, indent=2, sort_keys=False)
