"""What a report says, independent of its format.

:func:`theorem_entry` turns a theorem and its :class:`~symattn.engine.verdict.Outcome` into a
:class:`TheoremEntry`: plain strings and LaTeX strings only, computed once, rendered by both the
HTML and the LaTeX templates. Keeping the content in one place is what makes the PDF and the
browser show the same mathematics: the HTML converts the very same LaTeX strings to MathML.

Sections beyond the theorems (the claim audit, the problems, and later ``--conform``) are
:class:`ReportSection` objects: a title and a list of blocks (:class:`Paragraph`,
:class:`Table`, :class:`Math`) that both formats know how to draw. That list is the extension
point: a new section needs no new template.

>>> import sympy as sp
>>> from symattn.language.statement import Statement
>>> from symattn.engine.theorem import Theorem
>>> x = sp.Symbol("x")
>>> e = theorem_entry(Theorem("square_expand", "Expand", Statement((x + 1)**2, x**2 + 2*x + 1),
...                           source="extension"), None)
>>> e.statement, e.verdict
('\\\\left(x + 1\\\\right)^{2} = x^{2} + 2 x + 1', None)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from symattn.engine.verdict import LEVELS, Level, Outcome, Verdict, meaning_for, wording
from symattn.kernel.timelimit import TimeLimitExceeded, time_limit
from symattn.products.report.typeset import (
    LINE_EM,
    PRINT_SECONDS,
    bound_names,
    display_lines,
    plain_with_names,
    restore_names,
    rich,
    sanitize_math,
    tex_of,
    tex_width,
)

__all__ = [
    "TOPIC_ORDER",
    "SEED_TITLES",
    "short_source",
    "KIND_BOXES",
    "TheoremEntry",
    "StepEntry",
    "LevelEntry",
    "ReportSection",
    "Paragraph",
    "Table",
    "Math",
    "Links",
    "theorem_entry",
    "link_uses",
    "ArgEntry",
    "DerivationEntry",
    "topic_key",
    "group_by_topic",
    "audit_section",
    "problems_section",
    "text_with_math",
    "parse_text",
    "check_text",
    "pdf_text",
    "TextError",
    "expand_macros",
    "SEED_MACROS",
]

#: The order in which topics (``derivations`` module names) appear; others follow alphabetically.
TOPIC_ORDER = (
    "attention",
    "scaling",
    "softmax",
    "equivariance",
    "multihead",
    "positional",
    "rope",
    "residual",
    "kernel_smoother",
    "online_softmax",
    "complexity",
    "problems",
)

#: Heuristics and empirical observations are boxed and labelled as the source texts do.
KIND_BOXES = {
    "heuristic": (
        "Heuristic",
        "a reasoning shortcut that predicts the right answer in the regimes discussed here. "
        "It is not a proof and can fail outside them.",
    ),
    "empirical": (
        "Empirical observation",
        "a regularity seen in experiments. No theorem here establishes it in general.",
    ),
}



@dataclass
class ArgEntry:
    """One argument of a step's rule, typeset: ``kind`` is ``math`` (``value`` LaTeX), ``code`` (a
    name), ``ref`` (a theorem id), ``mapping`` (``value`` a list of ``(LaTeX, LaTeX)`` pairs),
    ``proof`` (a nested derivation, shown below the step) or ``list`` (``value`` a list of
    ``ArgEntry``)."""

    name: str
    kind: str
    value: Any
    #: a long formula (``kind`` math) as display lines, else empty
    lines: list = field(default_factory=list)


@dataclass
class DerivationEntry:
    """A nested derivation (an induction's base case or step, an entrywise proof), numbered like
    ``3.1`` under step 3. ``assumes`` are the extra hypotheses the chain may use ``[(name, LaTeX)]``
    (the induction hypothesis, the range of the induction variable)."""

    number: str
    label: str
    start: str
    steps: list
    note: str = ""
    assumes: list = field(default_factory=list)
    start_lines: list = field(default_factory=list)


@dataclass
class StepEntry:
    relation: str  # LaTeX: "=", "\le", ...
    expr: str  # LaTeX
    justification: str
    note: str
    status: str  # pass / fail / undecided / unchecked
    reason: str
    number: str = ""
    rule: str = ""
    args: list = field(default_factory=list)  # [ArgEntry], the nested proofs excluded
    #: ``apply_theorem``: the lemma's id, the instance (``[(LaTeX, LaTeX)]``) and the lemma's
    #: hypotheses at that instance, checked by the kernel before the step passes
    lemma: str | None = None
    mapping: list = field(default_factory=list)
    side_conditions: list = field(default_factory=list)  # [(name, LaTeX or None, words)]
    nested: list = field(default_factory=list)  # [DerivationEntry]
    #: the expression as display lines (a long sum broken before a top-level sign)
    expr_lines: list = field(default_factory=list)
    #: the reason as parts (:func:`symattn.products.report.typeset.rich`): words, typeset maths, program output
    reason_parts: list = field(default_factory=list)
    #: what is left of a step that did not pass (``before - after``, or an inequality's gap), as parts
    residual: list = field(default_factory=list)
    #: which engines checked a step that passed ("re-checked by the second engine" / "checked by one
    #: engine"), from the outcome's record
    engines: str = ""


@dataclass
class LevelEntry:
    name: str
    status: str
    detail: str
    data: list  # [(key, formatted value)]
    #: ``detail`` as parts (:func:`symattn.products.report.typeset.rich`)
    detail_parts: list = field(default_factory=list)


@dataclass
class TheoremEntry:
    id: str
    title: str
    topic: str
    kind: str
    source: str
    plain: str
    notes: str
    target: str
    statement: str  # LaTeX
    hypotheses: list  # [(name, LaTeX or None, words)]
    start: str | None  # LaTeX of the derivation's first expression
    steps: list  # [StepEntry]
    derivation_note: str
    derivation_error: str
    figures: tuple
    verdict: str | None  # None when not checked
    verdict_meaning: str
    #: the verdict as shown: its name, or for a definition the wording of its checks (never "proved-...")
    verdict_label: str | None
    how: str
    levels: list  # [LevelEntry]
    counterexample: str | None
    seconds: float
    below_target: bool
    box: tuple | None  # (label, text) for heuristics/empirical observations
    #: theorems this one's derivation applies (``apply_theorem``, nested proofs included), and
    #: those of the report that apply this one (filled in by :func:`link_uses`)
    uses: list = field(default_factory=list)
    used_by: list = field(default_factory=list)
    #: the statement and the derivation's start as display lines
    statement_lines: list = field(default_factory=list)
    start_lines: list = field(default_factory=list)
    #: ``how`` and the counterexample as parts (:func:`symattn.products.report.typeset.rich`)
    how_parts: list = field(default_factory=list)
    counterexample_parts: list = field(default_factory=list)
    #: the claim in one sentence (``Theorem.claim``, when the theorem has one), beside the statement
    claim: str = ""

    @property
    def short_source(self) -> str:
        return short_source(self.source)

    @property
    def anchor(self) -> str:
        return f"thm-{self.id}"


_REL = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}


def _format_value(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:.3g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_format_value(x) for x in v) or "none"
    return str(v)


def theorem_entry(thm, outcome: Outcome | None) -> TheoremEntry:
    """Everything the templates need about ``thm`` (``outcome`` None: not checked)."""
    hyps = [(h.name, _hyp_latex(h), _hyp_words(h)) for h in thm.hypotheses]
    start, steps, dnote, derr = None, [], "", ""
    try:
        with time_limit(PRINT_SECONDS):
            d = thm.get_derivation()
    except (Exception, TimeLimitExceeded) as exc:  # rendered as text: the check reports the same failure
        d, derr = None, f"building the derivation raised {type(exc).__name__}: {exc}"
    where = f"theorem {thm.id}"
    for name in ("title", "claim", "plain", "notes"):
        check_text(getattr(thm, name), f"{where}, field {name}")
    for h in thm.hypotheses:
        check_text(_hyp_words(h), f"{where}, hypothesis {h.name}")
    uses: list = []
    names = bound_names(getattr(thm.statement, "lhs", None), getattr(thm.statement, "rhs", None))
    start_lines: list = []
    if d is not None:
        start, dnote = tex_of(d.start), check_text(d.note, f"{where}, derivation note")
        start_lines = _lines(d.start)
        results = list(outcome.steps) if outcome is not None else []
        engines = _rechecked(outcome)
        for k, (prev, step) in enumerate(d.pairs()):
            res = results[k] if k < len(results) else None
            status = res.status.value if res is not None else "unchecked"
            entry = _step_entry(prev, step, str(k + 1), status, res.reason if res is not None else "",
                                f"{where}, step {k + 1}", uses, result=res, outer=names)
            if k < len(engines) and status == "pass":
                entry.engines = engines[k]
            steps.append(entry)
        for prev, step in d.pairs():
            for level, v in bound_names(prev, step.expr).items():
                names.setdefault(level, v)
    if outcome is not None:
        sym = outcome.levels.get("symbolic")
        for u in (getattr(sym, "data", None) or {}).get("used", ()) if sym is not None else ():
            if u not in uses:
                uses.append(u)
    levels = []
    if outcome is not None:
        for name in LEVELS:
            lv = outcome.levels.get(name)
            if lv is None:
                continue
            data = [(k, rich(_format_value(v), names)) for k, v in lv.data.items()]
            from symattn.engine.checker import shown_status  # "not-counted" for a pass that does not count

            levels.append(LevelEntry(name, shown_status(lv), lv.detail, data, detail_parts=rich(lv.detail, names)))
    return TheoremEntry(
        id=thm.id,
        title=thm.title,
        topic=thm.topic or "other",
        kind=thm.kind,
        source=thm.source,
        plain=thm.plain,
        notes=thm.notes,
        target=thm.target.value,
        statement=sanitize_math(thm.statement.latex()),
        hypotheses=hyps,
        start=start,
        steps=steps,
        derivation_note=dnote,
        derivation_error=derr,
        figures=tuple(thm.figures),
        verdict=outcome.verdict.value if outcome is not None else None,
        verdict_meaning=meaning_for(outcome.verdict, thm.kind) if outcome is not None else "",
        verdict_label=wording(outcome.verdict, thm.kind) if outcome is not None else None,
        claim=thm.claim,
        how=outcome.how if outcome is not None else "",
        levels=levels,
        counterexample=outcome.counterexample if outcome is not None else None,
        seconds=outcome.seconds if outcome is not None else 0.0,
        below_target=outcome is not None and not outcome.reaches(thm.target),
        box=KIND_BOXES.get(thm.kind),
        uses=uses,
        statement_lines=_statement_lines(thm.statement),
        start_lines=start_lines,
        how_parts=rich(outcome.how, names) if outcome is not None else [],
        counterexample_parts=rich(outcome.counterexample, names) if outcome is not None else [],
    )


def link_uses(entries: list) -> None:
    """Fill ``used_by`` of every entry from the ``uses`` of the others (report order)."""
    by_id = {e.id: e for e in entries}
    for e in entries:
        e.used_by = []
    for e in entries:
        for u in e.uses:
            if u in by_id and e.id not in by_id[u].used_by:
                by_id[u].used_by.append(e.id)


#: how a nested derivation is introduced, by the name of the rule argument that holds it
_NESTED_LABELS = {"base": "Base case", "step": "Inductive step", "proof": "Entrywise proof"}


def _lines(expr: Any, width: float = LINE_EM) -> list:
    try:
        with time_limit(PRINT_SECONDS):
            return [sanitize_math(x) for x in display_lines(expr, width)]
    except (Exception, TimeLimitExceeded):
        return [tex_of(expr)]


_LATEX_REL = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">", "==": "="}


def _statement_lines(statement) -> list:
    """The statement as display lines: one line if it fits, else the left side, then the
    relation and the right side broken at its top-level sum."""
    whole = sanitize_math(statement.latex())
    lhs, rhs, rel = (getattr(statement, a, None) for a in ("lhs", "rhs", "relation"))
    if tex_width(whole) <= LINE_EM or lhs is None or rhs is None or rel not in _LATEX_REL:
        return [whole]
    left = _lines(lhs)
    right = _lines(rhs, LINE_EM - 2)
    return left[:-1] + [left[-1] + " " + _LATEX_REL[rel]] + right if tex_width(left[-1]) < 8 and len(right) == 1 \
        and tex_width(left[-1] + right[0]) <= LINE_EM else left + [_LATEX_REL[rel] + " " + right[0]] + right[1:]


#: what the checker's account of a step's engines (``rechecked``) is called in the report
_RECHECKED = {"both": "re-checked by the second engine", "one-engine": "checked by one engine"}


def _rechecked(outcome) -> list:
    """Per step, which engines checked it, in words (empty when the outcome does not say)."""
    if outcome is None or not getattr(outcome, "engines", None):
        return []
    try:
        from symattn.engine.checker import rechecked_json

        return [_RECHECKED.get(s.get("rechecked"), "") for s in rechecked_json(outcome)["steps"]]
    except Exception:  # noqa: BLE001 - an account this report does not know: say nothing
        return []


def _residual_parts(prev, step, names: dict) -> list:
    """What is left of a step that did not pass, typeset (empty if it cannot be computed in time)."""
    from symattn.engine.acceptance import _residual_value
    from symattn.kernel.message import Message

    try:
        text, value = _residual_value(prev, step.expr, step.relation, RESIDUAL_SECONDS)
    except Exception:  # noqa: BLE001 - the residual is a help to the reader, never a failure
        return []
    if value is None:
        return rich(text, names)
    label, _, rest = text.partition(" = ")
    want = rest[rest.rfind("(should be"):] if "(should be" in rest else ""
    label = label.replace("before", "left side").replace("after", "right side")
    return rich(Message(label + " = ", value, " " + want if want else ""), names)


#: seconds for simplifying the residual of a step that did not pass
RESIDUAL_SECONDS = 3.0


def _step_entry(prev, step, number: str, status: str, reason: str, where: str, uses: list, result=None,
                outer: dict | None = None) -> StepEntry:
    """A step with its rule arguments typeset and its nested derivations expanded (recursively)."""
    from symattn.language.derivation import Derivation

    names = bound_names(prev, step.expr)
    for level, v in (outer or {}).items():
        names.setdefault(level, v)
    note = check_text(step.note, f"{where}, note")
    args, nested, lemma, mapping, side = [], [], None, [], []
    for key, value in step.args.items():
        if isinstance(value, Derivation):
            nested.append((key, value))
            continue
        if step.rule == "apply_theorem" and key == "theorem" and isinstance(value, str):
            lemma = value
            if value not in uses:
                uses.append(value)
            continue
        if step.rule == "apply_theorem" and key == "mapping" and isinstance(value, dict):
            mapping = [(tex_of(a), tex_of(b)) for a, b in value.items()]
            continue
        args.append(_arg_entry(key, value))
    if lemma is not None:
        side = _side_conditions(lemma, step.args.get("mapping") or {}, names)
    entry = StepEntry(
        relation=_REL[step.relation], expr=tex_of(step.expr), justification=step.justification(), note=note,
        status=status, reason=plain_with_names(reason, names), number=number, rule=step.rule, args=args, lemma=lemma,
        mapping=mapping, side_conditions=side, expr_lines=_lines(step.expr), reason_parts=rich(reason, names),
        residual=_residual_parts(prev, step, names) if result is not None and status in ("fail", "undecided") else [])
    for n, (key, d) in enumerate(nested, start=1):
        sub = f"{number}.{n}"
        label = _NESTED_LABELS.get(key) or str(getattr(d, "name", "") or key.replace("_", " ").capitalize())
        sub_steps = [_step_entry(p, st, f"{sub}.{m}", status, "",
                                 f"{where}, {label.lower()} step {m}", uses, outer=names)
                     for m, (p, st) in enumerate(d.pairs(), start=1)]
        entry.nested.append(DerivationEntry(
            number=sub, label=label, start=tex_of(d.start), steps=sub_steps, start_lines=_lines(d.start),
            note=check_text(d.note, f"{where}, {label.lower()} note"),
            assumes=_nested_assumptions(step, key, prev)))
    return entry


def _arg_entry(key: str, value: Any) -> ArgEntry:
    if isinstance(value, bool) or value is None:
        return ArgEntry(key, "code", str(value))
    if isinstance(value, str):
        return ArgEntry(key, "code", value)
    if isinstance(value, (int, float, sp.Basic, sp.MatrixBase)):
        tex = tex_of(value)
        lines = _lines(value, LINE_EM - 4) if tex_width(tex) > LINE_EM / 2 else []
        return ArgEntry(key, "math", tex, lines if len(lines) > 1 or (lines and tex_width(tex) > LINE_EM - 4) else [])
    if isinstance(value, dict):
        return ArgEntry(key, "mapping", [(tex_of(a), tex_of(b)) for a, b in value.items()])
    if isinstance(value, (list, tuple)):
        return ArgEntry(key, "list", [_arg_entry("", v) for v in value])
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return ArgEntry(key, "code", name)
    return ArgEntry(key, "code", str(value))


def _side_conditions(lemma: str, mapping: dict, names: dict | None = None) -> list:
    """The hypotheses of ``lemma`` at the instance ``mapping``: what the kernel checked to hold
    before it accepted the step (``[(name, LaTeX or None, words)]``); empty if the lemma is not
    registered or cannot be instantiated (the step's reason then says why). The kernel states them
    in canonical form; their bound variables get the step's names back (``names``)."""
    from symattn.engine.theorem import registry

    try:
        from symattn.rules.theorems import instantiate

        thm = registry.get(lemma)
        with time_limit(PRINT_SECONDS):
            _, _, hyps = instantiate(thm, dict(mapping))
    except (Exception, TimeLimitExceeded):
        return []
    return [(h.name, _hyp_latex(_with_names(h, names or {})), _hyp_words(h)) for h in hyps]


def _with_names(h, names: dict):
    """A hypothesis (a dataclass) with the canonical dummies in its SymPy fields renamed; itself
    if it is not a dataclass or cannot be rebuilt."""
    import dataclasses

    if not dataclasses.is_dataclass(h):
        return h
    try:
        changes = {f.name: restore_names(getattr(h, f.name), names) for f in dataclasses.fields(h)
                   if isinstance(getattr(h, f.name, None), (sp.Basic, sp.MatrixBase))}
        return dataclasses.replace(h, **changes) if changes else h
    except Exception:  # noqa: BLE001 - the canonical names are still correct, only less familiar
        return h


def _nested_assumptions(step, key: str, prev) -> list:
    """The hypotheses a nested chain may use beyond the theorem's: for an induction step, the
    induction hypothesis (and the range of the induction variable)."""
    if key != "step":
        return []
    a = step.args
    try:
        with time_limit(PRINT_SECONDS):
            if step.rule == "bounded_induction":
                t, lo, T, d = a.get("var"), a.get("start", 0), a.get("on"), a["step"]
                back = {t: t - 1}
                return [("induction_hypothesis", tex_of(d.start.xreplace(back)) + " = " + tex_of(d.end.xreplace(back))),
                        ("induction_range", tex_of(sp.sympify(lo) + 1) + r" \le " + tex_of(t) + r" \le " + tex_of(T))]
    except (Exception, TimeLimitExceeded):
        return []
    return []


def _hyp_latex(h) -> str | None:
    """LaTeX of a hypothesis stated as a formula; None for one stated in words (the templates
    then show the words as text: wrapping prose in ``\\text{}`` breaks on ``^``, ``&``, ``%``)."""
    from symattn.language.statement import Assumption, Hypothesis

    if type(h).latex is Hypothesis.latex:
        return None
    if isinstance(h, Assumption) and (h.condition is None or isinstance(h.condition, str)):
        return None
    try:
        with time_limit(PRINT_SECONDS):
            return sanitize_math(h.latex())
    except (Exception, TimeLimitExceeded) as exc:
        return r"\text{(could not print: %s)}" % type(exc).__name__


def _hyp_words(h) -> str:
    """Prose for a hypothesis: the assumption's text, or the description of a hypothesis that
    has no formula."""
    from symattn.language.statement import Hypothesis

    text = str(getattr(h, "text", "") or "")
    if not text and type(h).latex is Hypothesis.latex:
        try:
            text = h.describe()
        except Exception:
            text = h.name
    return text


def undecided_outcome(theorem_id: str, reason: str) -> Outcome:
    """The outcome recorded for a theorem whose check could not run to the end."""
    from symattn.engine.verdict import LevelResult

    levels = {lv: LevelResult(Level.NA, "not run") for lv in LEVELS}
    levels["symbolic"] = LevelResult(Level.UNDECIDED, reason)
    return Outcome(theorem_id, Verdict.UNDECIDED, reason, levels)


#: short titles of the source texts, for the summary table (the theorem sections name the files)
SEED_TITLES = {
    "000_ccf06b253f58a07c.txt": "Mathematics of Transformers",
    "002_e97041f43d35f9ac.txt": "Math Behind Transformer Attention",
    "004_b987b516506401e6.txt": "Attention and Transformers",
}
_SEED_FILE = re.compile(r"\b\d{3}_[0-9a-f]{16}\.txt\b")


def short_source(source: str) -> str:
    """The summary's source cell: each seed file replaced by its short title, each result by its
    name, parenthetical remarks dropped.

    >>> short_source("000_ccf06b253f58a07c.txt, Proposition 'Softmax saturation' (and its Key idea); "
    ...              "002_e97041f43d35f9ac.txt, Exercise 3")
    "Mathematics of Transformers: Proposition 'Softmax saturation'; Math Behind Transformer Attention: Exercise 3"
    """
    parts = []
    for part in str(source or "").split(";"):
        part = _drop_parentheses(part).strip()
        m = _SEED_FILE.search(part)
        if m:
            title = SEED_TITLES.get(m.group(0), m.group(0))
            before, after = part[:m.start()].strip(), part[m.end():].strip().lstrip(",").strip()
            part = (before + " " if before else "") + title + (": " + after if after else "")
        if part:
            parts.append(re.sub(r"\s+", " ", part))
    return "; ".join(parts)


def _drop_parentheses(text: str) -> str:
    """``text`` without its parenthesised remarks (parentheses inside ``$...$`` are maths, kept)."""
    out, depth, maths, prev = [], 0, False, ""
    for ch in text:
        if ch == "$" and prev != "\\":
            maths = not maths
        prev = ch
        if maths or ch == "$":
            if depth == 0:
                out.append(ch)
        elif ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return re.sub(r"\s+([,.;:])", r"\1", "".join(out))


def topic_key(topic: str) -> tuple:
    """Sort key: the topics of :data:`TOPIC_ORDER` first, in that order, then the rest by name.

    >>> sorted(["zeta", "rope", "attention", "alpha"], key=topic_key)
    ['attention', 'rope', 'alpha', 'zeta']
    """
    if topic in TOPIC_ORDER:
        return (0, TOPIC_ORDER.index(topic), "")
    return (1, 0, topic)


TOPIC_TITLES = {
    "attention": "Attention",
    "scaling": r"Why the scaling is $1/\sqrt{d_k}$",
    "softmax": "The softmax and its Jacobian",
    "equivariance": "Permutation equivariance",
    "multihead": "Multi-head attention",
    "positional": "Sinusoidal positional encoding",
    "rope": "Rotary embeddings (RoPE)",
    "residual": "Residual stream and normalisation",
    "kernel_smoother": "Attention as a kernel smoother",
    "online_softmax": "Online softmax and tiled attention",
    "complexity": "Complexity",
    "problems": "Problems, solved",
    "beyond": "Beyond the texts",
}


def topic_title(topic: str) -> str:
    """A heading for a topic: ``rope`` -> ``Rotary embeddings (RoPE)``; unknown topics
    ``kernel_smoother`` -> ``Kernel smoother``."""
    if topic not in TOPIC_TITLES and " " in topic:  # a user source's title (its docstring): as written
        return topic
    return TOPIC_TITLES.get(topic) or topic.replace("_", " ").capitalize()


def group_by_topic(entries: Iterable[TheoremEntry], order: dict[str, int] | None = None) -> list:
    """``[(topic, title, [entries])]`` in topic order; within a topic, registration order."""
    groups: dict[str, list] = {}
    for e in entries:
        groups.setdefault(e.topic, []).append(e)
    return [(t, topic_title(t), groups[t]) for t in sorted(groups, key=topic_key)]


# ---------------------------------------------------------------------------------------------- sections
@dataclass
class Paragraph:
    """Text; ``$...$`` spans inside it are inline mathematics."""

    text: str
    kind: str = "paragraph"


@dataclass
class Math:
    """A displayed formula (a LaTeX string from :func:`symattn.language.printing.latex`)."""

    latex: str
    kind: str = "math"


@dataclass
class Table:
    """A table of cells; each cell is text (``$...$`` for maths) or a :class:`Math`."""

    header: list
    rows: list
    kind: str = "table"
    #: relative column widths for the LaTeX version (one per column, summing to about 1)
    widths: list = field(default_factory=list)


@dataclass
class ReportSection:
    """A section after the theorems: ``id`` is the anchor, ``blocks`` what it shows."""

    id: str
    title: str
    blocks: list = field(default_factory=list)
    summary: str = ""


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, (sp.Basic, sp.MatrixBase)):
        return Math(tex_of(value))
    if hasattr(value, "latex") and callable(value.latex):
        try:
            return Math(value.latex())
        except Exception:
            return str(value)
    if isinstance(value, Verdict):
        return value.value
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def audit_section() -> tuple[ReportSection, list]:
    """The claim audit (:func:`symattn.products.audit.run_audit`), or a note if it is not available.

    Returns the section and the list of verdict strings (for the summary counts)."""
    try:
        from symattn.products.audit import run_audit
    except ModuleNotFoundError as exc:
        if exc.name in ("symattn.products.audit",):
            return ReportSection("claim-audit", "Claim audit", [Paragraph("Audit not available: the module "
                                                                          "symattn.products.audit is not installed.")],
                                 summary="audit not available"), []
        raise
    try:
        entries = list(run_audit())
    except Exception as exc:
        return ReportSection("claim-audit", "Claim audit", [Paragraph(
            f"Audit not available: run_audit() raised {type(exc).__name__}: {exc}")],
            summary="audit failed"), []
    rows, verdicts = [], []
    for a in entries:
        eid = str(getattr(a, "id", ""))
        check_text(_display_claim(a), f"audit entry {eid}, field claim")
        for name in ("stated", "note"):
            check_text(str(getattr(a, name, "") or ""), f"audit entry {eid}, field {name}")
        verdict = _cell(getattr(a, "verdict", ""))
        verdicts.append(verdict if isinstance(verdict, str) else "")
        rows.append([
            f"`{eid}`",
            _claim_cell(_display_claim(a)),
            _claim_cell(getattr(a, "stated", "")),
            _computed_cell(getattr(a, "computed", "")),
            verdict,
            _cell(getattr(a, "note", "")),
            SEED_TITLES.get(str(getattr(a, "source", "")), str(getattr(a, "source", ""))),
        ])
    blocks = [Paragraph(
        "Every numerical or quantitative claim of the source texts, recomputed. 'stated' is what the "
        "text says, 'computed' what symattn finds."),
        Table(["id", "claim", "stated", "computed", "verdict", "note", "source"], rows,
              widths=[0.15, 0.24, 0.12, 0.12, 0.1, 0.18, 0.09])]
    return ReportSection("claim-audit", "Claim audit", blocks, summary=f"{len(rows)} claims"), verdicts


def problems_section(known_ids: set) -> ReportSection:
    """The problems of the texts (:func:`symattn.products.problems.all_problems`), or a note."""
    try:
        from symattn.products.problems import all_problems
    except ModuleNotFoundError as exc:
        if exc.name in ("symattn.products.problems",):
            return ReportSection("problems", "Problem statements", [Paragraph(
                "Problems not available: the module symattn.products.problems is not installed.")])
        raise
    try:
        problems = list(all_problems())
    except Exception as exc:
        return ReportSection("problems", "Problem statements", [Paragraph(
            f"Problems not available: all_problems() raised {type(exc).__name__}: {exc}")])
    blocks: list = []
    for p in problems:
        for name in ("title", "statement", "solution"):
            value = getattr(p, name, "")
            if isinstance(value, str):
                check_text(value, f"problem {getattr(p, 'id', '')}, field {name}")
        title = f"{getattr(p, 'title', '')}"
        blocks.append(Paragraph(title, kind="heading"))
        meta = ", ".join(x for x in (f"`{getattr(p, 'id', '')}`", str(getattr(p, "kind", "") or ""),
                                     str(getattr(p, "source", "") or "")) if x.strip("`"))
        if meta:
            blocks.append(Paragraph(meta, kind="meta"))
        for label, value in (("Statement", getattr(p, "statement", None)), ("Solution", getattr(p, "solution", None))):
            if value is None or value == "":
                continue
            cell = _cell(value)
            if isinstance(cell, Math):
                blocks.append(Paragraph(f"{label}:", kind="label"))
                blocks.append(cell)
            else:
                blocks.append(Paragraph(f"{label}: {cell}"))
        ids = [str(i) for i in (getattr(p, "theorem_ids", ()) or ())]
        if ids:
            blocks.append(_links(ids, known_ids))
    if not problems:
        blocks.append(Paragraph("No problems are registered."))
    return ReportSection("problems", "Problem statements", blocks, summary=f"{len(problems)} problems")


@dataclass
class Links:
    """Links to theorem sections (ids not in the report are shown unlinked)."""

    ids: list
    known: list
    kind: str = "links"


def _links(ids: list, known_ids: set) -> Links:
    return Links(ids, [i in known_ids for i in ids])


# ---------------------------------------------------------------------------------------------- text
#: Macros of the source texts (seed 000 writes \\E, \\Var, \\ip{q}{k}, \\R, \\diag) as standard LaTeX,
#: so that quotations of the texts render in both formats. The LaTeX preamble defines the same.
SEED_MACROS = {
    "R": r"\mathbb{R}",
    "E": r"\mathbb{E}",
    "Var": r"\operatorname{Var}",
    "Cov": r"\operatorname{Cov}",
    "diag": r"\operatorname{diag}",
    "tr": r"\operatorname{tr}",
}
_MACRO = re.compile(r"\\(%s)(?![A-Za-z])" % "|".join(sorted(SEED_MACROS, key=len, reverse=True)))
_IP = re.compile(r"\\ip(?![A-Za-z])\s*")


def _braced(text: str, k: int) -> tuple[str, int]:
    """The balanced ``{...}`` group starting at ``text[k]`` (or one token), and the index after it."""
    while k < len(text) and text[k] == " ":
        k += 1
    if k >= len(text):
        raise ValueError("missing argument")
    if text[k] != "{":
        return text[k], k + 1
    depth = 0
    for m in range(k, len(text)):
        depth += {"{": 1, "}": -1}.get(text[m], 0)
        if depth == 0:
            return text[k + 1:m], m + 1
    raise ValueError("unbalanced braces")


def expand_macros(latex: str) -> str:
    """Rewrite the source texts' macros as standard LaTeX.

    >>> print(expand_macros(r"\\E\\ip{q_i}{k_j} = 0, \\Var(x), x \\in \\R^n, \\Rightarrow"))
    \\mathbb{E}\\left\\langle q_i, k_j\\right\\rangle = 0, \\operatorname{Var}(x), x \\in \\mathbb{R}^n, \\Rightarrow
    """
    if "\\" not in latex:
        return latex
    out, k = [], 0
    for m in _IP.finditer(latex):
        if m.start() < k:
            continue
        try:
            a, j = _braced(latex, m.end())
            b, j = _braced(latex, j)
        except ValueError:
            continue
        out.append(latex[k:m.start()])
        out.append(r"\left\langle %s, %s\right\rangle" % (expand_macros(a), expand_macros(b)))
        k = j
    out.append(latex[k:])
    return _MACRO.sub(lambda m: SEED_MACROS[m.group(1)], "".join(out))


_BARE_LATEX = re.compile(r"\\[A-Za-z]+")


def _display_claim(entry) -> str:
    """The claim as typeset (``display_claim``); a quoted line of program output (the seed's
    printed lines) as code."""
    claim = str(getattr(entry, "display_claim", None) or getattr(entry, "claim", ""))
    if claim == str(getattr(entry, "claim", "")) and str(getattr(entry, "stated", "")) == f"`{claim}`":
        return f"`{claim}`"
    return claim


@dataclass
class Rich:
    """Program output as parts (:func:`symattn.products.report.typeset.rich`): words, typeset maths."""

    parts: list
    kind: str = "rich"


def _computed_cell(value) -> object:
    """What the audit computed: program output, its expressions (SymPy's notation) typeset; a value
    already written in the prose convention (with ``$...$``) as prose."""
    cell = _cell(value)
    if isinstance(cell, str) and cell and "$" not in cell and "`" not in cell:
        # program output: its words stay in typewriter type, its expressions are typeset
        return Rich([("code" if kind == "text" else kind, part) for kind, part in rich(value)])
    return cell


def _claim_cell(value) -> object:
    """A quotation of the texts: displayed maths there has no ``$`` delimiters, so a quotation
    that contains LaTeX commands but no ``$`` is shown as a formula."""
    cell = _cell(value)
    if isinstance(cell, str) and not has_math_delimiters(cell) and _BARE_LATEX.search(cell):
        return Math(cell)
    return cell


_DOLLAR = re.compile(r"(?<!\\)\$")


_PAREN_MATH = r"\\\((.+?)\\\)|\\\[(.+?)\\\]"
_WITH_DOLLARS = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$|" + _PAREN_MATH, re.S)
_WITHOUT_DOLLARS = re.compile(_PAREN_MATH, re.S)


def text_with_math(text: str) -> list:
    """Split ``text`` into ``("text", s)`` and ``("math", latex)`` parts. Maths is delimited by
    ``$...$``, ``\\(...\\)`` or ``\\[...\\]``; an odd number of (unescaped) dollars means the dollars
    are not delimiters, and ``\\$`` is a dollar sign.

    >>> text_with_math("variance $d_k \\\\sigma^4$ grows")
    [('text', 'variance '), ('math', 'd_k \\\\sigma^4'), ('text', ' grows')]
    >>> text_with_math("costs $5, or \\\\(x^2\\\\)")
    [('text', 'costs $5, or '), ('math', 'x^2')]
    """
    if not text:
        return []
    rx = _WITH_DOLLARS if len(_DOLLAR.findall(text)) % 2 == 0 else _WITHOUT_DOLLARS
    out, k = [], 0
    for m in rx.finditer(text):
        if m.start() > k:
            out.append(("text", text[k:m.start()]))
        out.append(("math", next(g for g in m.groups() if g is not None).strip()))
        k = m.end()
    if k < len(text):
        out.append(("text", text[k:]))
    return [(kind, part.replace(r"\$", "$") if kind == "text" else part) for kind, part in out]


class TextError(ValueError):
    """A text field breaks the prose convention (an unbalanced ``$``, an unclosed backtick)."""


_PROSE = re.compile(r"\\\$|\$|`|\\\(|\\\[")
_ID_WORD = re.compile(r"(?<![A-Za-z0-9_.])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![A-Za-z0-9_])")


def parse_text(text: str, where: str = "", refs: Iterable[str] = ()) -> list:
    r"""Split prose written in the report's convention into parts:

    * ``("math", latex)`` for ``$...$`` (and ``\(...\)``, ``\[...\]``, kept for quotations of
      the source texts); ``\$`` is a literal dollar sign;
    * ``("code", s)`` for ```...``` (a file, a rule or a Python name);
    * ``("ref", id)`` for a word that is one of the theorem ids ``refs`` (a link in both formats);
    * ``("text", s)`` for the rest.

    An unbalanced ``$`` or backtick raises :class:`TextError` naming ``where``.

    >>> parse_text(r"costs \$5, variance $d_k \sigma^4$ by `dot_product_variance`")
    [('text', 'costs $5, variance '), ('math', 'd_k \\sigma^4'), ('text', ' by '), ('code', 'dot_product_variance')]
    >>> parse_text("see softmax_add_const.", refs={"softmax_add_const"})
    [('text', 'see '), ('ref', 'softmax_add_const'), ('text', '.')]
    >>> parse_text("a $b", where="theorem t, field plain")
    Traceback (most recent call last):
    ...
    symattn.products.report.content.TextError: theorem t, field plain: unbalanced $ (a maths span opened at character 2 is never closed): 'a $b'
    """  # noqa: E501 -- a doctest traceback line (must match the message exactly)
    text = str(text or "")
    out: list = []
    buf: list = []
    k = 0
    closers = {"$": "$", "`": "`", "\\(": "\\)", "\\[": "\\]"}
    while k < len(text):
        m = _PROSE.search(text, k)
        if m is None:
            buf.append(text[k:])
            break
        buf.append(text[k:m.start()])
        tok = m.group(0)
        if tok == "\\$":
            buf.append("$")
            k = m.end()
            continue
        close = closers[tok]
        j = m.end()
        while True:
            j = text.find(close, j)
            if j < 0 or close != "$" or text[j - 1] != "\\":
                break
            j += 1
        if j < 0:
            what = {"$": "unbalanced $ (a maths span", "`": "unclosed ` (a code span"}.get(
                tok, f"unclosed {tok} (a maths span")
            raise TextError(f"{where + ': ' if where else ''}{what} opened at character {m.start()} is never closed): "
                            f"{text[:120]!r}")
        if buf:
            out.extend(_refs("".join(buf), refs))
            buf = []
        body = text[m.end():j]
        out.append(("code" if tok == "`" else "math", body if tok == "`" else body.strip()))
        k = j + len(close)
    if buf:
        out.extend(_refs("".join(buf), refs))
    return [p for p in out if p[1] != "" or p[0] == "math"]


#: names that read as code without backticks: files, dotted Python names of our packages and of
#: the libraries we compare with, and the ids of the claim audit's entries
_CODE_WORD = re.compile(
    r"(?<![\w./])(?:[\w./-]+\.py(?:::\w+)?|(?:numeric|symattn|derivations|sympy|torch|jax|np|nn)\.[A-Za-z_][\w.]*"
    r"(?:\([\w, ]*\))?|s00[024]_[a-z0-9_]+)(?![\w/])")


def _refs(text: str, refs) -> list:
    """Theorem ids (``refs``) as ``ref`` parts and code-like names as ``code`` parts."""
    refs = set(refs or ())
    if "_" not in text and "." not in text:
        return [("text", text)] if text else []
    hits = [(m.start(), m.end(), "code") for m in _CODE_WORD.finditer(text)]
    hits += [(m.start(), m.end(), "ref") for m in _ID_WORD.finditer(text) if m.group(0) in refs
             and not any(a <= m.start() < b for a, b, _ in hits)]
    out, k = [], 0
    for a, b, kind in sorted(hits):
        if a < k:
            continue
        if a > k:
            out.append(("text", text[k:a]))
        word = text[a:b]
        if kind == "code" and word.endswith(".") and not word.endswith(".py"):
            word, b = word[:-1], b - 1
        out.append((kind, word))
        k = b
    if k < len(text):
        out.append(("text", text[k:]))
    return out


def check_text(text: str, where: str) -> str:
    """``text`` unchanged if it follows the prose convention, else :class:`TextError`."""
    parse_text(text, where)
    return text


def pdf_text(text: str) -> str:
    """A plain-text rendering for PDF bookmarks (``\\texorpdfstring``'s second argument): maths
    approximated in Unicode (``\\sqrt{d_k}`` -> ``√d_k``, ``\\le`` -> ``≤``), no TeX commands left.

    >>> pdf_text(r"The scaled logit $\\langle q, k\\rangle/\\sqrt{d_k}$ has sd $\\sigma^2$")
    'The scaled logit ⟨q, k⟩/√(d_k) has sd σ²'
    """
    out = []
    for kind, s in parse_text(text):
        out.append(_unicode_math(s) if kind == "math" else s)
    return "".join(out)


_UNI = {
    "le": "≤", "ge": "≥", "ne": "≠", "approx": "≈", "sim": "∼", "to": "→", "in": "∈", "times": "×", "cdot": "·",
    "infty": "∞", "sum": "Σ", "prod": "Π", "partial": "∂", "langle": "⟨", "rangle": "⟩", "lVert": "‖", "rVert": "‖",
    "top": "ᵀ", "dots": "…", "ldots": "…", "cdots": "⋯", "circ": "∘", "mapsto": "↦", "pm": "±", "log": "log",
    "exp": "exp", "max": "max", "min": "min", "sin": "sin", "cos": "cos", "Rightarrow": "⇒", "setminus": "∖",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "theta": "θ",
    "kappa": "κ", "lambda": "λ", "mu": "μ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ",
    "omega": "ω", "Delta": "Δ", "Theta": "Θ", "Sigma": "Σ", "Pi": "Π", "Omega": "Ω", "nabla": "∇", "ell": "ℓ",
}
_SUP = str.maketrans("0123456789+-()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾ⁿ")


def _unicode_math(s: str) -> str:
    s = s.replace("^\\top", "ᵀ").replace("^{\\top}", "ᵀ")
    s = re.sub(r"\\mathbb\{R\}", "ℝ", s)
    s = re.sub(r"\\mathbb\{E\}", "E", s)
    s = re.sub(r"\\sqrt\{([^{}]*)\}", lambda m: "√" + (m.group(1) if len(m.group(1)) == 1 else f"({m.group(1)})"), s)
    s = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", s)
    s = re.sub(r"\\(?:operatorname|mathrm|mathbf|mathcal|text|mathit)\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\([A-Za-z]+)( ?)", lambda m: (lambda u: u + (m.group(2) if u[-1:].isalpha() else ""))(
        _UNI.get(m.group(1), m.group(1))), s)
    s = re.sub(r"\^\{?([0-9+\-n()]+)\}?(?![A-Za-z0-9])", lambda m: m.group(1).translate(_SUP), s)
    s = s.replace("\\,", " ").replace("\\ ", " ").replace("\\!", "").replace("\\{", "{").replace("\\}", "}")
    s = s.replace("{", "").replace("}", "").replace("\\", "")
    return re.sub(r"\s+", " ", s).strip()


def has_math_delimiters(text: str) -> bool:
    """Whether ``text`` contains maths delimited as :func:`text_with_math` understands."""
    return any(kind == "math" for kind, _ in text_with_math(text))


def conformance_section(result) -> ReportSection:
    """A :class:`~symattn.products.conformance.ConformanceResult` as a report section: one row per property,
    with the theorem it comes from, its verdict and the shrunk counterexample."""
    options = ", ".join(f"{k} {v}" for k, v in result.options.items())
    rows = [[p.name, p.basis, p.status, p.detail, p.counterexample or ""] for p in result.properties]
    verdict = "passes every property" if result.passed else "fails: " + ", ".join(result.failed())
    blocks = [
        Paragraph(f"Implementation {result.target} ({options}) {verdict}. Each property is searched with "
                  "Hypothesis; a failure shows the minimal (shrunk) input found."),
        Table(["property", "from", "result", "detail", "counterexample"], rows, widths=[0.16, 0.2, 0.08, 0.28, 0.28]),
    ]
    anchor = "conformance-" + "".join(c if c.isalnum() else "-" for c in result.target).strip("-")
    return ReportSection(anchor, f"Conformance of {result.target}", blocks,
                         summary="pass" if result.passed else "fail")
