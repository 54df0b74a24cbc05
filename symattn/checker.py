"""Checking a theorem: run every level of evidence and grade the result.

Levels, each ``pass``/``fail``/``undecided``/``n/a``:

* **symbolic** -- every step of the derivation passes its rule, the chain starts at the
  statement's left side and ends at its right side, its relation implies the statement's, and
  the declared dimensions are still free symbols of the statement;
* **instances** -- the statement at each concrete size, checked with exact algebra;
* **probabilistic** -- a Schwartz--Zippel identity test at random rational points;
* **numeric** -- the theorem's floating-point check.

Grading (see :mod:`symattn.verdict`): a failure at a concrete level (a counterexample) makes the
verdict ``refuted``; otherwise the strongest passing level decides, the symbolic level counting
as ``proved`` only if every theorem it used is proved. A heuristic or empirical observation is
never graded above ``numerically-consistent``, whatever its checkable parts reach.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import random
import time
import traceback
from collections.abc import Iterable
from typing import Any

import sympy as sp

from symattn.derivation import relation_implies
from symattn.kernel import second
from symattn.kernel.grading import MAX_FALSE_PASS, grade
from symattn.kernel.search import expand_finite, find_counterexample, find_model, hypothesis_symbols, statement_symbols
from symattn.kernel.timelimit import DEFAULT_SECONDS, TimeLimitExceeded, paused_time_limits, time_limit
from symattn.kernel.zippel import NotRational as _NotRational
from symattn.kernel.zippel import Refused as _Refused
from symattn.kernel.zippel import schwartz_zippel as _schwartz_zippel
from symattn.rules import ProofContext, RuleResult, check_step
from symattn.rules.algebra import equal, is_zero, residual, sign_of
from symattn.statement import Statement
from symattn.theorem import Theorem, registry
from symattn.verdict import LEVELS, Level, LevelResult, Outcome, Verdict, wording

__all__ = ["check_theorem", "check_many", "outcome_to_json", "Checker"]


def _applied_ids(d) -> list[str]:
    """Ids named by ``apply_theorem`` steps of the derivation ``d`` and of the derivations nested in
    its steps' arguments, in order of first use."""
    from symattn.derivation import Derivation

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

    def __init__(self, *, time_limit: float = DEFAULT_SECONDS, numeric: bool = True, seed: int = 0):
        self.time_limit = time_limit
        self.numeric = numeric
        self.seed = seed
        self._outcomes: dict[str, Outcome] = {}
        self._stack: tuple = ()

    # -------------------------------------------------------------------------------------------
    def check(self, thm: Theorem) -> Outcome:
        if thm.id in self._outcomes:
            return self._outcomes[thm.id]
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

    def _check_dependencies(self, thm: Theorem, d) -> None:
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
    def _check(self, thm: Theorem) -> Outcome:
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
        model, no_model = self._model(thm)
        symbolic, steps, engines = self._symbolic(thm, ctx)
        if model is not None:
            symbolic.data["model"] = model
        levels["symbolic"] = symbolic
        levels["instances"] = self._instances(thm)
        levels["probabilistic"] = self._probabilistic(thm)
        levels["numeric"] = self._numeric(thm)
        verdict, how, counterexample = grade(thm.kind, levels, ctx.used, self.verdict_of, model, no_model)
        return Outcome(thm.id, verdict, how, levels, steps=steps, counterexample=counterexample, model=model,
                       engines=engines)

    # -- model of the hypotheses -----------------------------------------------------------------
    def _model(self, thm: Theorem) -> tuple[str | None, str | None]:
        """``(description of a model, None)`` or ``(None, why none was found)``; no hypotheses and
        no symbols: the empty model."""
        inconsistent = _inconsistencies(thm.hypotheses, self.time_limit)
        if inconsistent:
            return None, "the hypotheses are inconsistent: " + "; ".join(inconsistent)
        syms = statement_symbols(thm.statement)
        # the conditions the probability laws put on the parameters are checked at each point as well
        hyps = thm.hypotheses + _law_conditions(thm.hypotheses)
        model, reasons = find_model([], hyps, seed=self.seed, seconds=self.time_limit, extra=syms)
        if model is None:
            return None, "; ".join(reasons[:3]) or "no assignment satisfied them"
        return model.describe(), None

    # -- symbolic --------------------------------------------------------------------------------
    def _symbolic(self, thm: Theorem, ctx: ProofContext) -> tuple[LevelResult, list[RuleResult], list]:
        try:
            d = thm.get_derivation()
        except Exception as exc:
            return LevelResult(Level.FAIL, f"building the derivation raised {type(exc).__name__}: {exc}"), [], []
        if d is None:
            return LevelResult(Level.NA, "no derivation"), [], []
        st = thm.statement
        steps: list[RuleResult] = []
        engines: list[list] = []
        problems: list[str] = []
        undecided: list[str] = []
        if not d.steps:
            # no step: nothing was checked, so the sides must be the same term (bound names aside)
            if not (_alpha_equal(d.start, st.lhs) and _alpha_equal(d.start, st.rhs)):
                problems.append(
                    "a derivation with no steps proves only a statement whose sides are the same term; "
                    "these sides differ structurally (add steps that justify the difference)"
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
            disagree = [c for c in checks if c.verdict == second.DISAGREE]
            if disagree:  # the engines disagree on a fact of the step: the step fails, both answers shown
                res = RuleResult(Level.FAIL, "; ".join([res.reason] * bool(res.reason and not res.ok)
                                                       + [c.both_answers() for c in disagree[:2]]))
            # the outcome keeps what the kernel decided, not its Thm (a Thm never leaves the process)
            steps.append(dataclasses.replace(res, thm=None))
            engines.append(list(checks))
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
        dims = ", ".join(map(str, thm.dimensions)) or "none"
        return (LevelResult(Level.PASS, f"all {len(d.steps)} steps checked; symbolic dimensions: {dims}", data),
                steps, engines)

    # -- instances --------------------------------------------------------------------------------
    def _derived(self, thm: Theorem, spec, size: int) -> tuple[Statement | None, dict | None, str]:
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

    def _instances(self, thm: Theorem) -> LevelResult:
        spec = thm.instances
        if spec is None:
            return LevelResult(Level.NA, "no instance check")
        checked = []
        derived_all = True
        why_not = ""
        for size in sorted(spec.sizes):
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
        if derived_all:
            return LevelResult(
                Level.PASS, f"exact for {spec.describe()} (instances derived from the statement)",
                {"sizes": checked, "derived": True},
            )
        return LevelResult(
            Level.PASS,
            f"exact for {spec.describe()}, for the builder's statements, which are not derived from the theorem's "
            f"({why_not}): not counted toward the verdict",
            {"sizes": checked, "derived": False},
        )

    # -- probabilistic ----------------------------------------------------------------------------
    def _probabilistic(self, thm: Theorem) -> LevelResult:
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
    def _numeric(self, thm: Theorem) -> LevelResult:
        if thm.numeric is None:
            return LevelResult(Level.NA, "no numeric check")
        if not self.numeric:
            return LevelResult(Level.NA, "numeric checks skipped")
        try:
            res = thm.numeric(self.seed)
        except Exception as exc:
            return LevelResult(Level.UNDECIDED, f"numeric check raised {type(exc).__name__}: {exc}")
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
    from symattn.statement import Assumption

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


def _xreplace(x: Any, mapping: dict) -> Any:
    return x.xreplace(mapping) if hasattr(x, "xreplace") else x


def spec_label(spec) -> str:
    return getattr(spec, "label", "size")


def _size_mapping(thm: Theorem, spec, size: int) -> dict | None:
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
    """A derived instance's moments (``Expectation``, ``Variance``, ...) of entries of one
    :class:`~symattn.statement.RandomFamily` of concrete size, evaluated from the family's law by
    :mod:`symattn.moments` (entries i.i.d. with the family's mean, variance and given moments).
    The statement unchanged when that is not all of it: several families (their joint law is not
    i.i.d.), an entry outside ``1..dim``, or a moment the family does not give (it would come back
    as a fresh symbol, free to take values no law has)."""
    from symattn.moments import _Moment, iid_vector
    from symattn.statement import RandomFamily

    sides = (st.lhs, st.rhs)
    if not any(isinstance(x, sp.Basic) and x.has(_Moment) for x in sides):
        return st
    families = {h.base: h for h in hypotheses if isinstance(h, RandomFamily)}
    entries = {a for x in sides if isinstance(x, sp.Basic) for a in x.atoms(sp.Indexed) if a.base in families}
    used = {a.base for a in entries}
    if len(used) != 1:
        return st
    fam = families[next(iter(used))]
    dim = sp.sympify(fam.dim)
    if not dim.is_Integer:
        return st
    law = iid_vector(str(fam.base), int(dim), mean=fam.mean, variance=fam.variance, moments=dict(fam.moments))
    subs = {}
    for a in entries:
        if len(a.indices) != 1 or not a.indices[0].is_Integer or not 1 <= int(a.indices[0]) <= int(dim):
            return st
        subs[a] = law[int(a.indices[0])]
    before = set().union(*(x.free_symbols for x in sides if isinstance(x, sp.Basic)))
    before |= {y for v in (fam.mean, fam.variance, *(m for _, m in fam.moments)) for y in sp.sympify(v).free_symbols}

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
    """The hypotheses with the instance's substitution applied."""
    import dataclasses

    from symattn.statement import Assumption, IndexRange

    out = []
    for h in hypotheses:
        if isinstance(h, IndexRange) and h.index in mapping:  # the size sets the index: a condition on it
            v = mapping[h.index]
            lo, hi = (_xreplace(sp.sympify(e), mapping) for e in (h.lower, h.upper))
            out.append(Assumption(h.name, condition=sp.And(sp.Le(lo, v), sp.Le(v, hi)), text=h.describe()))
            continue
        changes = {}
        for f in dataclasses.fields(h):
            v = getattr(h, f.name)
            if isinstance(v, sp.Basic) and f.name != "name":
                changes[f.name] = v.xreplace(mapping)
        out.append(dataclasses.replace(h, **changes) if changes else h)
    return tuple(out)


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


def _statement_holds(st: Statement) -> bool:
    if st.relation == "=":
        return equal(st.lhs, st.rhs)
    gap = st.rhs - st.lhs if st.relation in ("<=", "<") else st.lhs - st.rhs
    gap = sp.simplify(gap)
    sign = sign_of(gap)
    return sign == "positive" or (sign == "nonnegative" and st.relation in ("<=", ">="))


def _entries(x: Any) -> list:
    if isinstance(x, sp.MatrixBase):
        return list(x)
    return [x]


# ---------------------------------------------------------------------------------------------- API
def check_theorem(thm: Theorem, **kwargs) -> Outcome:
    """Check one theorem (all levels) and return its :class:`Outcome` (which knows the target)."""
    from symattn.acceptance import remember

    outcome = Checker(**kwargs).check(thm)
    outcome.target = thm.target
    return remember(outcome, thm)


def _worker(args):
    theorem_id, kwargs = args
    from symattn.theorem import load_all

    load_all()
    return Checker(**kwargs).check(registry.get(theorem_id))


def check_many(theorems: Iterable[Theorem], *, jobs: int = 1, progress=None, **kwargs) -> list[Outcome]:
    """Check many theorems, in parallel processes when ``jobs > 1``; results in input order."""
    theorems = list(theorems)
    if jobs <= 1 or len(theorems) <= 1:
        checker = Checker(**kwargs)
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


def outcome_to_json(thm: Theorem, o: Outcome) -> dict:
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
        "levels": {k: o.levels[k].status.value if k in o.levels else "n/a" for k in LEVELS},
        "seconds": round(o.seconds, 3),
        **rechecked_json(o),
    }


def rechecked_json(o: Outcome) -> dict:
    """Per theorem and per step, whether the second engine re-checked the facts the kernel accepted."""
    per_step = [second.step_rechecked(list(c)) for c in o.engines]
    return {
        "rechecked": second.theorem_rechecked([s for s, _ in per_step]),
        "steps": [{"step": n, "status": r.status.value, "rechecked": s, "why": why}
                  for n, (r, (s, why)) in enumerate(zip(o.steps, per_step), start=1)],
    }


def dumps(records: list[dict]) -> str:
    return json.dumps(records, indent=2, sort_keys=False)
