"""When a checked theorem counts as passing, and how a failure is told; the :class:`Outcome` of a
check (what :func:`symattn.engine.checker.check_theorem` returns, re-exported by :mod:`symattn.engine.verdict`).

One rule decides, wherever a theorem is graded as a test (``symattn check``, the pytest plugin
:mod:`symattn.products.pytest_plugin`, the registry test of the built-in library, and
:meth:`symattn.engine.verdict.Outcome.raise_for_verdict`):

    a theorem passes iff its verdict reaches its target, every level that was configured
    (every level not ``n/a``) passes, and at least one level was configured.

The second half matters: a theorem whose target is ``proved-for-instances`` and whose numeric
check fails is ``refuted`` anyway, but one whose derivation is *undecided* while its instances
pass would otherwise reach its target with part of its evidence silently broken.

A theorem can be declared as expected to fail, with :func:`expect_failure`: it then passes
(as pytest's ``xfail``) iff the rule above says it fails, and an expected failure that starts to
pass is an error (strict, as a wrong claim that comes out proved would be a bug of the kernel).

:func:`describe` tells what went wrong: the verdict and its reason, the levels, and the first
step of the derivation that did not check, with its rule, the rule's reason and the residual
(what is left of ``before - after``). It never raises: a description that could not be computed
says so.

>>> import sympy as sp
>>> from symattn.engine.checker import check_theorem
>>> from symattn.language.derivation import Derivation
>>> from symattn.language.statement import Statement
>>> from symattn.engine.theorem import Theorem
>>> x = sp.Symbol("x")
>>> wrong = Theorem(id="square_of_sum", title="(x+1)^2 = x^2 + 2x + 1, by a wrong step", source="extension",
...                 statement=Statement((x + 1)**2, x**2 + 2*x + 1),
...                 derivation=Derivation((x + 1)**2).eq(x**2 + 1, "algebra", note="expand")
...                 .eq(x**2 + 2*x + 1, "algebra"))
>>> outcome = check_theorem(wrong)
>>> judge(wrong, outcome).status
'fail'
>>> print(describe(wrong, outcome))  # doctest: +ELLIPSIS
square_of_sum: undecided, target proved
  reason: symbolic: step 1 (algebra): ...
  levels: symbolic fail, instances n/a, probabilistic n/a, numeric n/a
  failing step 1 (fail): = x**2 + 1
    from:     (x + 1)**2
    rule:     algebra  -- expand
    why:      ...
    residual: before - after = 2*x (should be 0)
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from symattn.kernel.verdict import Level, LevelResult, Verdict

__all__ = [
    "Outcome",
    "Judgement",
    "FailingStep",
    "VerdictError",
    "judge",
    "problems",
    "expect_failure",
    "expected_failure",
    "failing_step",
    "describe",
    "raise_for_verdict",
    "remember",
    "outcome_html",
    "outcome_latex",
]


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
    #: the target of the theorem checked, when known (:func:`symattn.engine.checker.check_theorem` sets it)
    target: Verdict | None = None
    #: a model of the hypotheses (values at which every checkable hypothesis holds), as text
    model: str | None = None
    #: served from the cache of outcomes (:mod:`symattn.engine.cache`), not checked in this run
    cached: bool = False

    def reaches(self, target: Verdict) -> bool:
        return self.verdict != Verdict.REFUTED and self.verdict >= target

    def raise_for_verdict(self, target: Verdict | str | None = None) -> Outcome:
        """Return ``self`` if it passes (:mod:`symattn.engine.acceptance`: the verdict reaches ``target``,
        default the theorem's, and every configured level passes); raise
        :class:`symattn.engine.acceptance.VerdictError` describing the failure otherwise."""
        return raise_for_verdict(self, target)

    def _repr_html_(self) -> str:
        return outcome_html(self)

    def _repr_latex_(self) -> str:
        return outcome_latex(self)


class VerdictError(AssertionError):
    """Raised by :meth:`Outcome.raise_for_verdict` when the outcome does not pass; the message is
    :func:`describe`'s."""


# ---------------------------------------------------------------------------------------------- the rule
def problems(outcome: Outcome, target: Verdict | str) -> list[str]:
    """Why ``outcome`` does not pass for ``target``: an empty list when it passes."""
    target = Verdict.parse(target)
    out = []
    if not outcome.reaches(target):
        out.append(f"verdict {outcome.verdict.value} does not reach the target {target.value}")
    for name, lv in outcome.levels.items():
        if lv.status is Level.UNDECIDED and lv.data.get("kernel_inconclusive"):
            continue  # the kernel's own derived instances, inconclusive: not a level the author configured
        if lv.status is not Level.NA and lv.status is not Level.PASS:
            out.append(f"the {name} level is {lv.status.value}: {_one_line(lv.detail)}")
    if outcome.levels and all(lv.status is Level.NA for lv in outcome.levels.values()):
        # whatever the target, a claim with no evidence at all passes no check (issue 18, class 13)
        out.append("no level of evidence was checked (no derivation, instance, probabilistic or numeric check)")
    return out


#: theorem id -> (the theorem object, the reason it is expected to fail)
_EXPECTED: dict[str, tuple[Any, str]] = {}


def expect_failure(theorem, reason: str):
    """Declare that ``theorem`` is expected not to pass (pytest's ``xfail``, strict), and return it.

    ``reason`` says why, in words a reader of the test report understands. The CLI shows such a
    theorem as an expected failure (not an error); the pytest plugin marks its item ``xfail``;
    if it ever passes, both report it as an error::

        expect_failure(register(Theorem(id="...", ...)), "the step 3 drops a factor 2 on purpose")
    """
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError(f"{getattr(theorem, 'id', theorem)!r}: expect_failure needs a reason (a non-empty string)")
    if not hasattr(theorem, "id") or not hasattr(theorem, "target"):
        raise TypeError(f"expect_failure takes a Theorem, got {type(theorem).__name__}")
    _EXPECTED[theorem.id] = (theorem, reason.strip())
    return theorem


def expected_failure(theorem) -> str | None:
    """The reason ``theorem`` is expected to fail, or None."""
    entry = _EXPECTED.get(getattr(theorem, "id", None))
    return entry[1] if entry is not None and entry[0] is theorem else None


@dataclass(frozen=True)
class Judgement:
    """What the rule says about one checked theorem.

    ``status`` is ``pass``, ``fail``, ``xfail`` (failed as expected) or ``xpass`` (expected to
    fail but passed: an error)."""

    status: str
    problems: tuple = ()
    expected: str | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("pass", "xfail")


def judge(theorem, outcome: Outcome) -> Judgement:
    """Grade ``outcome`` (the check of ``theorem``) with the rule of this module."""
    found = tuple(problems(outcome, theorem.target))
    expected = expected_failure(theorem)
    if expected is None:
        return Judgement("fail" if found else "pass", found)
    return Judgement("xfail" if found else "xpass", found, expected)


# ---------------------------------------------------------------------------------------------- telling
@dataclass
class FailingStep:
    """The first step of a derivation that did not check."""

    number: int  # 1-based
    rule: str  # the justification as written: rule and arguments
    relation: str
    before: str
    after: str
    status: str  # fail / undecided
    reason: str  # the rule's own words
    residual: str  # ``before - after`` simplified (or the gap of an inequality), or why not shown
    note: str = ""
    #: the SymPy objects, for renderings that typeset them (None when not available)
    exprs: dict = field(default_factory=dict)


def _one_line(text: str, limit: int = 400) -> str:
    text = str(text)
    if text.lstrip().startswith("Traceback (most recent call last)"):  # the checker's record of a crash:
        text = text.strip().splitlines()[-1]  # its last line says what happened; the frames are the kernel's
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def _show(x: Any, limit: int = 300) -> str:
    try:
        s = sp.sstr(x)
    except Exception:  # noqa: BLE001 - a display helper must not fail
        s = repr(x)
    return s if len(s) <= limit else s[: limit - 4] + " ..."


def _residual(before: Any, after: Any, relation: str, seconds: float, names=("before", "after")) -> str:
    """What is left of the step: ``before - after`` for ``=`` (should be 0), the gap of an
    inequality (should be >= 0), simplified under the time limit."""
    return _residual_value(before, after, relation, seconds, names)[0]


def _residual_value(before, after, relation, seconds, names=("before", "after")) -> tuple[str, Any]:
    from symattn.kernel.timelimit import TimeLimitExceeded, time_limit

    if relation in ("<=", "<"):
        label, a, b, want = f"{names[1]} - {names[0]}", after, before, ">= 0" if relation == "<=" else "> 0"
    else:
        label, a, b = f"{names[0]} - {names[1]}", before, after
        want = "0" if relation == "=" else (">= 0" if relation == ">=" else "> 0")
    try:
        with time_limit(seconds):
            if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
                diff = sp.Matrix(a) - sp.Matrix(b)
                value = diff.applyfunc(lambda e: sp.simplify(sp.expand(e.doit())))
            else:
                # integrals, limits and sums held opaque: the residual shown is never a value of
                # SymPy's integration, Gruntz or summation (which the kernel does not trust)
                from symattn.kernel.terms import canonical
                from symattn.kernel.zero import opaque_sums

                table: dict = {}
                held = opaque_sums(canonical(sp.sympify(a, strict=True) - sp.sympify(b, strict=True)), table)
                value = sp.simplify(sp.expand(held)).xreplace({v: k for k, v in table.items()})
    except TimeLimitExceeded:
        return f"{label}: not simplified within {seconds:g} s", None
    except Exception as exc:  # noqa: BLE001 - e.g. a matrix against a scalar
        return f"{label}: not computed ({type(exc).__name__}: {_one_line(exc, 120)})", None
    return f"{label} = {_show(value)} (should be {want})", value


def failing_step(theorem, outcome: Outcome, *, seconds: float = 3.0) -> FailingStep | None:
    """The first step of ``theorem``'s derivation whose rule did not pass in ``outcome``, or None
    (no derivation, every step passed, or the derivation cannot be rebuilt)."""
    if not outcome.steps:
        return None
    index = next((n for n, r in enumerate(outcome.steps) if r.status is not Level.PASS), None)
    if index is None:
        return None
    result = outcome.steps[index]
    try:
        d = theorem.get_derivation()
        pairs = list(d.pairs())
        if len(pairs) != len(outcome.steps):
            raise ValueError("the derivation is not the one checked")
        prev, step = pairs[index]
    except Exception:  # noqa: BLE001 - the checker saw it; tell what it said
        return FailingStep(index + 1, "?", "?", "?", "?", result.status.value, result.reason,
                           "not shown (the derivation could not be rebuilt)")
    text, value = _residual_value(prev, step.expr, step.relation, seconds)
    return FailingStep(
        number=index + 1,
        rule=step.justification(),
        relation=step.relation,
        before=_show(prev),
        after=_show(step.expr),
        status=result.status.value,
        reason=result.reason,
        residual=text,
        note=step.note,
        exprs={"before": prev, "after": step.expr, "residual": value},
    )


def _ends(theorem, seconds: float) -> list[str]:
    """When no step failed but the chain is not a proof: where it starts and ends against the
    statement, as residuals."""
    try:
        d = theorem.get_derivation()
    except Exception:  # noqa: BLE001
        return []
    if d is None:
        return []
    st = theorem.statement
    out = []
    for label, a, b in (("start", d.start, st.lhs), ("end", d.end, st.rhs)):
        side = "lhs" if label == "start" else "rhs"
        r = _residual(a, b, "=", seconds, names=(f"chain {label}", f"statement {side}"))
        if not r.endswith("= 0 (should be 0)"):
            out.append(f"residual: {r}")
    return out


def describe(theorem, outcome: Outcome, *, seconds: float = 3.0) -> str:
    """A few lines a reader can act on: verdict against target, the reason, the levels, the
    failing step (rule, rule's reason, residual) or, when every step passed, what else failed."""
    j = judge(theorem, outcome)
    head = f"{theorem.id}: {outcome.verdict.value}, target {theorem.target.value}"
    if j.expected:
        head += f" (expected to fail: {j.expected})"
    lines = [head, f"  reason: {_one_line(outcome.how, 600)}"]
    lines.append("  levels: " + ", ".join(f"{k} {v.status.value}" for k, v in outcome.levels.items()))
    fs = failing_step(theorem, outcome, seconds=seconds)
    for name, lv in outcome.levels.items():  # a level that did not pass, unless told already
        told = _one_line(lv.detail) in _one_line(outcome.how, 10**6) or (name == "symbolic" and fs is not None)
        if lv.status not in (Level.NA, Level.PASS) and not told:
            lines.append(f"  {name} level {lv.status.value}: {_one_line(lv.detail)}")
    if fs is not None:
        lines += [
            f"  failing step {fs.number} ({fs.status}): {fs.relation} {fs.after}",
            f"    from:     {fs.before}",
            f"    rule:     {fs.rule}" + (f"  -- {fs.note}" if fs.note else ""),
            f"    why:      {_one_line(fs.reason, 600)}",
            f"    residual: {fs.residual}",
        ]
    elif outcome.levels.get("symbolic") is not None and outcome.levels["symbolic"].status is Level.FAIL:
        lines += [f"  {e}" for e in _ends(theorem, seconds)]
    if outcome.counterexample and _one_line(outcome.counterexample) not in _one_line(outcome.how, 10**6):
        lines.append(f"  counterexample: {_one_line(outcome.counterexample, 600)}")
    if j.status == "xpass":
        lines.append("  it was declared expected to fail, but it passes: remove expect_failure, or find what changed")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- Outcome
#: id(outcome) -> the theorem it is the check of, while the outcome lives (see :func:`remember`)
_CHECKED: dict[int, Any] = {}


def remember(outcome: Outcome, theorem) -> Outcome:
    """Note that ``outcome`` is the check of ``theorem``, so that its notebook views and
    :meth:`Outcome.raise_for_verdict` can show the failing step of a theorem that is not registered
    (:func:`symattn.engine.checker.check_theorem` calls it). Forgotten when the outcome is."""
    key = id(outcome)
    if key not in _CHECKED:
        weakref.finalize(outcome, _CHECKED.pop, key, None)
    _CHECKED[key] = theorem
    return outcome


def _theorem_of(outcome: Outcome):
    from symattn.engine.library import registry

    thm = _CHECKED.get(id(outcome))
    if thm is not None and thm.id == outcome.theorem_id:
        return thm
    return registry.get(outcome.theorem_id) if outcome.theorem_id in registry else None


def _target_of(outcome: Outcome, target=None) -> Verdict:
    if target is not None:
        return Verdict.parse(target)
    if outcome.target is not None:
        return Verdict.parse(outcome.target)
    thm = _theorem_of(outcome)
    return thm.target if thm is not None else Verdict.PROVED


def raise_for_verdict(outcome: Outcome, target=None) -> Outcome:
    """:meth:`Outcome.raise_for_verdict`: ``outcome`` if it passes for ``target`` (default: the
    theorem's target), else :class:`VerdictError` with :func:`describe`'s text."""
    target = _target_of(outcome, target)
    found = problems(outcome, target)
    if not found:
        return outcome
    thm = _theorem_of(outcome)
    if thm is not None and thm.target == target:
        raise VerdictError(describe(thm, outcome))
    raise VerdictError(f"{outcome.theorem_id}: {outcome.verdict.value}, target {target.value}; " + "; ".join(found))


def _view(outcome: Outcome) -> tuple[Verdict, list[str], FailingStep | None]:
    target = _target_of(outcome)
    thm = _theorem_of(outcome)
    step = failing_step(thm, outcome) if thm is not None else None
    if step is None and outcome.steps:  # not registered: what the checker said, without the expressions
        n = next((i for i, r in enumerate(outcome.steps) if r.status is not Level.PASS), None)
        if n is not None:
            r = outcome.steps[n]
            step = FailingStep(n + 1, "", "", "", "", r.status.value, r.reason, "")
    return target, problems(outcome, target), step


def outcome_html(outcome: Outcome) -> str:
    """An HTML fragment for a notebook: verdict against target, the levels, and the failing step."""
    from html import escape

    target, found, step = _view(outcome)
    ok = not found
    colour = "#1a7f37" if ok else "#cf222e"
    rows = "".join(
        f"<tr><td>{escape(k)}</td><td>{escape(v.status.value)}</td><td>{escape(_one_line(v.detail, 300))}</td></tr>"
        for k, v in outcome.levels.items()
    )
    parts = [
        '<div class="symattn-outcome">',
        f'<p><code>{escape(outcome.theorem_id)}</code>: <strong style="color:{colour}">{escape(outcome.verdict.value)}'
        f"</strong> (target {escape(target.value)}; {'passes' if ok else 'does not pass'})</p>",
        f"<p>{escape(_one_line(outcome.how, 600))}</p>",
        f"<table><tr><th>level</th><th>status</th><th>detail</th></tr>{rows}</table>",
    ]
    if step is not None:
        lines = [f"failing step {step.number} ({step.status})"]
        if step.rule:
            lines += [f"from:     {step.before}", f"to:       {step.relation} {step.after}", f"rule:     {step.rule}"]
        lines.append(f"why:      {_one_line(step.reason, 600)}")
        if step.residual:
            lines.append(f"residual: {step.residual}")
        parts.append("<pre>" + escape("\n".join(lines)) + "</pre>")
    parts.append("</div>")
    return "".join(parts)


def outcome_latex(outcome: Outcome) -> str:
    """The same for LaTeX front ends (``$$ ... $$``, an ``array`` of text and the failing step's maths)."""
    from symattn.language.printing import latex, text_to_tex

    def text(s: str) -> str:
        return r"\text{" + text_to_tex(_one_line(s, 200)) + "}"

    target, found, step = _view(outcome)
    rows = [rf"\textbf{{{text_to_tex(outcome.theorem_id)}}} & " + text(
        f"{outcome.verdict.value} (target {target.value}; {'passes' if not found else 'does not pass'})")]
    rows += [f"{text(k)} & {text(v.status.value)}" for k, v in outcome.levels.items()]
    if step is not None:
        rows.append(f"{text(f'failing step {step.number}')} & {text(step.rule or step.status)}")
        ex = step.exprs
        if ex.get("before") is not None:
            rel = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}.get(step.relation, "=")
            rows.append(rf"& {latex(ex['before'])} \;{rel}\; {latex(ex['after'])}")
        if ex.get("residual") is not None:
            rows.append(rf"{text('residual')} & {latex(ex['residual'])}")
        rows.append(f"{text('why')} & {text(step.reason)}")
    return "$$\\begin{array}{ll}" + r" \\ ".join(rows) + r"\end{array}$$"
