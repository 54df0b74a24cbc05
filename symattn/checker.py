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

import json
import multiprocessing
import random
import time
import traceback
from fractions import Fraction
from typing import Any, Iterable

import sympy as sp

from symattn.derivation import relation_implies
from symattn.rules import ProofContext, RuleResult, check_step
from symattn.rules.algebra import equal, is_zero, residual, sign_of
from symattn.statement import Statement
from symattn.theorem import Theorem, registry
from symattn.timelimit import DEFAULT_SECONDS, TimeLimitExceeded, time_limit
from symattn.verdict import LEVELS, Level, LevelResult, Outcome, Verdict

__all__ = ["check_theorem", "check_many", "outcome_to_json", "Checker"]


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
        thm = registry.get(theorem_id)
        saved = self._stack
        try:
            return self.check(thm).verdict
        finally:
            self._stack = saved

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
        symbolic, steps = self._symbolic(thm, ctx)
        levels["symbolic"] = symbolic
        levels["instances"] = self._instances(thm)
        levels["probabilistic"] = self._probabilistic(thm)
        levels["numeric"] = self._numeric(thm)
        verdict, how, counterexample = self._grade(thm, levels, ctx)
        return Outcome(thm.id, verdict, how, levels, steps=steps, counterexample=counterexample)

    # -- symbolic --------------------------------------------------------------------------------
    def _symbolic(self, thm: Theorem, ctx: ProofContext) -> tuple[LevelResult, list[RuleResult]]:
        try:
            d = thm.get_derivation()
        except Exception as exc:
            return LevelResult(Level.FAIL, f"building the derivation raised {type(exc).__name__}: {exc}"), []
        if d is None:
            return LevelResult(Level.NA, "no derivation"), []
        st = thm.statement
        steps: list[RuleResult] = []
        problems: list[str] = []
        undecided: list[str] = []
        for label, a, b in (("start", d.start, st.lhs), ("end", d.end, st.rhs)):
            r = _limited_equal(a, b, self.time_limit)
            if r is None:
                undecided.append(f"could not decide (time limit) whether the chain's {label} matches the statement")
            elif not r:
                side = "left" if label == "start" else "right"
                problems.append(f"the chain's {label} does not match the statement's {side}-hand side")
        for n, (prev, step) in enumerate(d.pairs(), start=1):
            res = check_step(prev, step.expr, step.relation, step.rule, step.args, ctx)
            steps.append(res)
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
        data = {"steps": len(d.steps), "used": sorted(ctx.used)}
        if problems:
            return LevelResult(Level.FAIL, "; ".join(problems), data), steps
        if undecided:
            return LevelResult(Level.UNDECIDED, "; ".join(undecided), data), steps
        dims = ", ".join(map(str, thm.dimensions)) or "none"
        return LevelResult(Level.PASS, f"all {len(d.steps)} steps checked; symbolic dimensions: {dims}", data), steps

    # -- instances --------------------------------------------------------------------------------
    def _instances(self, thm: Theorem) -> LevelResult:
        spec = thm.instances
        if spec is None:
            return LevelResult(Level.NA, "no instance check")
        checked = []
        for size in sorted(spec.sizes):
            try:
                with time_limit(self.time_limit):
                    st = spec.build(size)
                    ok = _statement_holds(st)
            except TimeLimitExceeded:
                return LevelResult(Level.UNDECIDED, f"time limit at {spec.label} = {size}", {"checked": checked})
            except Exception as exc:
                return LevelResult(
                    Level.UNDECIDED, f"instance {spec.label} = {size} raised {type(exc).__name__}: {exc}"
                )
            if ok:
                checked.append(size)
                continue
            cex = _find_counterexample(st, self.seed, self.time_limit)
            if cex is not None:
                return LevelResult(Level.FAIL, f"{spec.label} = {size}: {cex}", {"counterexample": cex})
            return LevelResult(
                Level.UNDECIDED, f"{spec.label} = {size}: not shown exactly, and no counterexample found"
            )
        return LevelResult(Level.PASS, f"exact for {spec.describe()}", {"sizes": checked})

    # -- probabilistic ----------------------------------------------------------------------------
    def _probabilistic(self, thm: Theorem) -> LevelResult:
        spec = thm.probabilistic
        if spec is None:
            return LevelResult(Level.NA, "no probabilistic check")
        rng = random.Random(spec.seed)
        bounds = []
        for size in sorted(spec.sizes):
            try:
                with time_limit(self.time_limit):
                    st = spec.build(size)
                    res = _schwartz_zippel(st, rng, spec.trials, spec.field_size)
            except TimeLimitExceeded:
                return LevelResult(Level.UNDECIDED, f"time limit at size {size}")
            except _NotRational as exc:
                return LevelResult(Level.NA, f"size {size}: {exc}")
            if res[0] == "fail":
                return LevelResult(Level.FAIL, f"size {size}: {res[1]}", {"counterexample": res[1]})
            bounds.append(res[1])
        err = max(bounds) if bounds else 0.0
        return LevelResult(
            Level.PASS,
            f"exact evaluation at {spec.trials} random points per size {sorted(spec.sizes)}, "
            f"values drawn from 0..{spec.field_size - 1}, seed {spec.seed}; "
            f"probability of a false pass <= {err:.3g}",
            {"seed": spec.seed, "error_bound": err},
        )

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

    # -- grading ----------------------------------------------------------------------------------
    def _grade(self, thm: Theorem, levels: dict[str, LevelResult], ctx: ProofContext):
        for name in ("instances", "probabilistic", "numeric"):
            lv = levels[name]
            if lv.status is Level.FAIL:
                cex = lv.data.get("counterexample") or lv.detail
                return Verdict.REFUTED, f"{name} check failed: {lv.detail}", str(cex)
        sym = levels["symbolic"]
        candidates: list[tuple[Verdict, str]] = []
        if sym.status is Level.PASS:
            cap = Verdict.PROVED
            weakest = None
            for dep in sorted(ctx.used):
                v = self.verdict_of(dep)
                if v < cap:
                    cap, weakest = (v if v != Verdict.REFUTED else Verdict.UNDECIDED), dep
            how = f"derivation: {sym.detail}"
            if weakest:
                how += f"; capped by {weakest} ({cap.value})"
            candidates.append((cap, how))
        if levels["instances"].status is Level.PASS:
            candidates.append((Verdict.PROVED_FOR_INSTANCES, levels["instances"].detail))
        if levels["probabilistic"].status is Level.PASS:
            candidates.append((Verdict.CHECKED_PROBABILISTICALLY, levels["probabilistic"].detail))
        if levels["numeric"].status is Level.PASS:
            candidates.append((Verdict.NUMERICALLY_CONSISTENT, "numeric: " + levels["numeric"].detail))
        if not candidates:
            reasons = [f"{k}: {v.detail}" for k, v in levels.items() if v.status is not Level.NA]
            return Verdict.UNDECIDED, "; ".join(reasons) or "no check available", None
        verdict, how = max(candidates, key=lambda c: c[0].rank)
        if sym.status is Level.FAIL and verdict < Verdict.PROVED:
            how += f" (the derivation did not check: {sym.detail})"
        if thm.kind in ("heuristic", "empirical") and verdict > Verdict.NUMERICALLY_CONSISTENT:
            how = f"{thm.kind}: graded at most numerically-consistent; its checkable part reached {verdict.value} ({how})"
            verdict = Verdict.NUMERICALLY_CONSISTENT
        return verdict, how, None


# ---------------------------------------------------------------------------------------------- helpers
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


def _limited_equal(a: Any, b: Any, seconds: float) -> bool | None:
    try:
        with time_limit(seconds):
            return equal(a, b)
    except TimeLimitExceeded:
        return None
    except Exception:
        return False


def _statement_holds(st: Statement) -> bool:
    if st.relation == "=":
        return equal(st.lhs, st.rhs)
    gap = st.rhs - st.lhs if st.relation in ("<=", "<") else st.lhs - st.rhs
    gap = sp.simplify(gap)
    sign = sign_of(gap)
    return sign == "positive" or (sign == "nonnegative" and st.relation in ("<=", ">="))


def _entries(x: Any) -> list:
    return list(x) if isinstance(x, sp.MatrixBase) else [x]


def _sample_value(sym: Any, rng: random.Random) -> sp.Rational:
    """A small random value that respects the symbol's assumptions (integer, positive,
    nonnegative), so that a counterexample is never outside the statement's domain."""
    value = sp.Integer(rng.randint(-9, 9)) if sym.is_integer else sp.Rational(rng.randint(-9, 9), rng.randint(1, 5))
    if sym.is_positive:
        value = abs(value) + 1
    elif sym.is_nonnegative:
        value = abs(value)
    return value


# A difference this small at 50 significant digits is not taken as a counterexample (it may be
# evaluation error on an identity that holds).
_NOISE = sp.Float("1e-30", 50)


def _violates(gap: sp.Float, relation: str) -> bool:
    """Whether ``left - right = gap`` clearly contradicts ``left relation right``."""
    if abs(gap) <= _NOISE:
        return False
    return {"=": True, "<=": gap > 0, "<": gap > 0, ">=": gap < 0, ">": gap < 0}[relation]


def _find_counterexample(st: Statement, seed: int, seconds: float) -> str | None:
    """Concrete values at which the statement fails, evaluated to 50 digits, or None."""
    rng = random.Random(seed)
    syms = sorted(st.free_symbols, key=str)
    for _ in range(5):
        point = {s: _sample_value(s, rng) for s in syms}
        try:
            with time_limit(seconds):
                lhs, rhs = (side.xreplace(point) if hasattr(side, "xreplace") else side for side in (st.lhs, st.rhs))
                for a, b in zip(_entries(lhs), _entries(rhs)):
                    da = sp.N(sp.sympify(a).doit(), 50)
                    db = sp.N(sp.sympify(b).doit(), 50)
                    if da.is_number and db.is_number and _violates(da - db, st.relation):
                        where = ", ".join(f"{s} = {v}" for s, v in point.items()) or "no free symbols"
                        return f"at {where}: left = {sp.N(da, 12)}, right = {sp.N(db, 12)}"
        except (TimeLimitExceeded, TypeError, ValueError, AttributeError):
            continue
    return None


class _NotRational(Exception):
    pass


def _degree_bound(e: sp.Expr) -> int:
    """Upper bound on the total degree of a polynomial expression tree (without expanding)."""
    if e.is_number:
        return 0
    if isinstance(e, (sp.Symbol, sp.Indexed)):
        return 1
    if isinstance(e, sp.Add):
        return max(_degree_bound(a) for a in e.args)
    if isinstance(e, sp.Mul):
        return sum(_degree_bound(a) for a in e.args)
    if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp >= 0:
        return int(e.exp) * _degree_bound(e.base)
    raise _NotRational(f"not a rational function of its symbols ({type(e).__name__} in the identity)")


def _schwartz_zippel(st: Statement, rng: random.Random, trials: int, field_size: int):
    if st.relation != "=":
        raise _NotRational("only identities can be tested probabilistically")
    diff = residual(st.lhs, st.rhs)
    entries = [sp.together(e) for e in _entries(sp.Matrix(diff) if isinstance(diff, sp.MatrixBase) else diff)]
    syms = sorted(set().union(*(e.free_symbols for e in entries)), key=str)
    degree = 0
    for e in entries:
        num, den = e.as_numer_denom()
        degree = max(degree, _degree_bound(num), _degree_bound(den))
    done = 0
    while done < trials:
        point = {s: sp.Integer(rng.randrange(field_size)) for s in syms}
        for e in entries:
            num, den = e.as_numer_denom()
            if den.xreplace(point) == 0:
                break
            value = num.xreplace(point)
            if value != 0:
                where = ", ".join(f"{s} = {v}" for s, v in point.items())
                return ("fail", f"at {where}: left - right = {value}/{den.xreplace(point)} != 0")
        else:
            done += 1
    # Schwartz--Zippel: a non-zero polynomial of degree D vanishes at a uniform point of S^k with
    # probability <= D/|S|; independent trials multiply.
    return ("pass", float(Fraction(degree, field_size)) ** trials)


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
        "source": thm.source,
        "kind": thm.kind,
        "verdict": o.verdict.value,
        "target": thm.target.value,
        "how": o.how,
        "levels": {k: o.levels[k].status.value if k in o.levels else "n/a" for k in LEVELS},
        "seconds": round(o.seconds, 3),
    }


def dumps(records: list[dict]) -> str:
    return json.dumps(records, indent=2, sort_keys=False)
