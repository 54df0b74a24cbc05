"""The report pipeline: check, draw, render, compile, and replace the old report atomically.

:func:`build_report` does, in order:

1. check the selected theorems (:func:`symattn.engine.checker.check_many`, in ``jobs`` processes);
   a theorem whose check raises or runs out of time is recorded as ``undecided`` with the reason;
2. draw the figures (:mod:`symattn.products.report.figures`): those the theorems name, and every other
   registered figure in a closing "Figures" section;
3. render ``index.html`` (self-contained: CSS and SVG inline, maths as MathML) and
   ``symattn.tex`` with one fragment per theorem in ``tex/`` plus ``tex/preamble.tex``;
4. compile ``symattn.pdf`` with pdflatex, when asked and available;
5. swap the new report in for the old one.

Reproducibility
---------------
Two builds from the same inputs give the same bytes, every file included: seeds are fixed, the
order is stable, PDFs carry no dates (``SOURCE_DATE_EPOCH``, ``\\pdfinfoomitdate``), and wall-clock
data is kept out of the files. Check durations are shown in the terminal summary only; ``timings=True``
(``--timings``) adds them to the report and writes ``timings.json`` -- such a report is not
reproducible, by design. ``timestamp=True`` (``--timestamp``) likewise dates the title page.

Atomicity
---------
Everything is written to a fresh directory beside the target (``.<name>.tmp-*``). Only when all of
it succeeded is the old report moved aside, the new one renamed into place and the old one
deleted; entries of the old directory that the report does not produce (``.gitkeep``, a README)
are carried over. A failure at any stage raises :class:`ReportError` and leaves the old report
untouched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from symattn.engine.verdict import Outcome, Verdict
from symattn.kernel.timelimit import DEFAULT_SECONDS, seconds_problem
from symattn.products.report.content import (
    ReportSection,
    audit_section,
    group_by_topic,
    link_uses,
    problems_section,
    theorem_entry,
    undecided_outcome,
)

__all__ = ["ReportOptions", "ReportResult", "ReportError", "build_report", "FORMATS", "OUTPUTS"]

FORMATS = ("html", "latex", "pdf")
#: top-level names the report owns in its directory (everything else there is carried over)
OUTPUTS = ("index.html", "symattn.tex", "symattn.pdf", "tex", "figures", "timings.json")

TITLE = "symattn: the mathematics of transformer attention, machine-checked"
SUBTITLE = "Every step checked by a named rule; every verdict says how it was obtained."


class ReportError(Exception):
    """The report could not be built; the previous report (if any) is left as it was."""


@dataclass
class ReportOptions:
    out: Path = Path("reports")
    formats: tuple = FORMATS
    pattern: str | None = None
    templates: Path | None = None
    jobs: int = 1
    time_limit: float = DEFAULT_SECONDS
    numeric: bool = True
    timings: bool = False
    timestamp: bool = False
    #: which figures to draw: "all" (those the theorems name, then every other registered one
    #: in a closing "Figures" section), "used" (only those the theorems name) or "none"
    figures: str = "all"
    #: include the claim audit and the problems; None: only for the full report (no pattern)
    sections: bool | None = None
    #: check the theorems; False renders them unchecked (a fast preview of the layout)
    check: bool = True
    #: the report's title (default: the library's); ``symattn report SOURCE`` gives the module name
    title: str | None = None

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        if isinstance(self.formats, str):
            self.formats = tuple(f.strip() for f in self.formats.split(",") if f.strip())
        bad = [f for f in self.formats if f not in FORMATS]
        if bad or not self.formats:
            raise ValueError(f"formats must be a non-empty subset of {FORMATS}, got {list(self.formats)}")
        if not isinstance(self.jobs, int) or self.jobs < 1:
            raise ValueError(f"jobs must be a positive integer, got {self.jobs!r}")
        if self.figures not in ("all", "used", "none"):
            raise ValueError(f"figures must be 'all', 'used' or 'none', got {self.figures!r}")
        problem = seconds_problem(self.time_limit)
        if problem is not None:
            raise ValueError(f"time_limit {problem}, got {self.time_limit!r}")
        if self.templates is not None:
            self.templates = Path(self.templates)
            if not self.templates.is_dir():
                raise ValueError(f"templates must be a directory, got {str(self.templates)!r}")


@dataclass
class ReportResult:
    out: Path
    files: list
    counts: dict  # verdict -> number of theorems
    below_target: list  # theorem ids
    outcomes: dict  # id -> Outcome
    pdf: str = "not requested"  # ok / missing / not requested
    pdf_message: str = ""
    mathml_fallbacks: list = field(default_factory=list)
    figure_errors: dict = field(default_factory=dict)
    audit_counts: dict = field(default_factory=dict)
    #: verdicts of the definitions, counted apart from ``counts`` (a definition is never proved)
    definition_counts: dict = field(default_factory=dict)
    #: fragments (theorem ids, ``section-<id>``) that pdflatex could not typeset -> the error
    latex_errors: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.below_target


# ---------------------------------------------------------------------------------------------- checking
def check_theorems(theorems: list, *, jobs: int, time_limit: float, numeric: bool,
                   progress: Callable | None = None) -> list[Outcome]:
    """Outcomes in input order. Registered theorems are checked in ``jobs`` processes; a theorem
    not in the registry (a test's) is checked here. Any failure of the machinery itself becomes
    ``undecided`` with the reason, never a missing section."""
    from symattn.engine.checker import Checker, check_many
    from symattn.engine.theorem import registry

    def report(t, o):
        if progress:
            progress("check", t.id, o)

    outcomes: dict[str, Outcome] = {}
    registered = [t for t in theorems if registry.peek(t.id) is t]
    if registered:
        try:
            for t, o in zip(registered, check_many(registered, jobs=jobs, progress=report,
                                                    time_limit=time_limit, numeric=numeric)):
                outcomes[t.id] = o
        except Exception:  # a worker died: check the rest one by one, here
            pass
    checker = Checker(time_limit=time_limit, numeric=numeric)
    for t in theorems:
        if t.id in outcomes:
            continue
        try:
            o = checker.check(t)
        except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt is re-raised below
            if isinstance(exc, KeyboardInterrupt):
                raise
            o = undecided_outcome(t.id, f"the check raised {type(exc).__name__}: {exc}")
        outcomes[t.id] = o
        report(t, o)
    return [outcomes[t.id] for t in theorems]


# ---------------------------------------------------------------------------------------------- figures
def draw_figures(names: Iterable[str], *, timings: bool, progress: Callable | None = None):
    """``({name: {svg, pdf, title, caption}}, {name: error})``; a figure that fails is reported,
    not fatal."""
    from symattn.products.report.figures import FIGURES, DrawOptions, render_formats

    drawn, errors = {}, {}
    for name in names:
        if progress:
            progress("figure", name, None)
        if name not in FIGURES:
            errors[name] = f"no figure named {name!r} is registered"
            continue
        try:
            r = render_formats(name, ("svg", "pdf"), DrawOptions(timings=timings))
        except Exception as exc:
            errors[name] = f"{type(exc).__name__}: {exc}"
            continue
        spec = FIGURES[name]
        # the caption is prose; what the drawing measured is program output, shown as such
        drawn[name] = {"svg": r["svg"].data.decode("utf-8"), "pdf": r["pdf"].data,
                       "title": spec.title, "caption": spec.caption, "detail": r["svg"].detail or ""}
    return drawn, errors


def _graph_figure(graph_out, g, lay, title: str) -> dict:
    """One topic's dependency figure: the layout, its SVG, where its PDF goes, and a caption
    (``title``: the topic's title in the prose convention)."""
    members = sum(1 for n in g.nodes if n.topic == lay.topic)
    inside = sum(1 for p in lay.nodes.values() if p.node.kind != "external")
    left = members - inside
    caption = (f"{title}: {len(lay.edges)} use{'s' if len(lay.edges) != 1 else ''} among {inside} of its results"
               + (" (dashed: a result of another topic)" if len(lay.nodes) > inside else "")
               + (f"; the other {left} stand{'s' if left == 1 else ''} alone" if left else "") + ".")
    # a user source's topic is its title, with spaces and quotes: file names and ids use a slug
    slug = re.sub(r"[^A-Za-z0-9]+", "-", lay.topic).strip("-") or "topic"
    return {"topic": slug, "layout": lay, "caption": caption,
            "svg": graph_out.to_svg(lay, prefix=f"depgraph-{slug}"),
            "pdf_name": f"figures/dependencies-{slug}.pdf"}


# ---------------------------------------------------------------------------------------------- building
def build_report(
    options: ReportOptions | None = None,
    *,
    theorems: list | None = None,
    extra_sections: Iterable[ReportSection] = (),
    progress: Callable | None = None,
) -> ReportResult:
    """Build the report described by ``options`` and return what was written.

    ``theorems`` overrides the selection from the registry (``options.pattern``).
    ``extra_sections`` are appended after the problems (the ``--conform`` hook).
    ``progress(stage, name, outcome)`` is called as theorems are checked and figures drawn.
    Raises :class:`ReportError` (old report intact) if anything fails.
    """
    from markupsafe import Markup

    from symattn.engine.theorem import all_theorems
    from symattn.products import __version__
    from symattn.products.report import html as html_out
    from symattn.products.report import tex as tex_out
    from symattn.products.report.figures import FIGURES

    options = options or ReportOptions()
    t0 = time.perf_counter()
    if theorems is None:
        theorems = all_theorems(options.pattern)
    theorems = list(theorems)
    out = options.out.resolve()
    _refuse_dangerous_target(out)

    if options.check:
        outcomes = check_theorems(theorems, jobs=options.jobs, time_limit=options.time_limit,
                                  numeric=options.numeric, progress=progress)
    else:
        outcomes = [None] * len(theorems)
    by_id = {t.id: o for t, o in zip(theorems, outcomes) if o is not None}
    entries = []
    for t, o in zip(theorems, outcomes):
        try:
            entries.append(theorem_entry(t, o))
        except Exception as exc:  # a theorem that cannot even be printed is still listed
            raise ReportError(f"{t.id}: could not render: {type(exc).__name__}: {exc}") from exc
    link_uses(entries)
    groups = group_by_topic(entries)
    known = {t.id for t in theorems}
    named = []
    if options.figures != "none":
        for e in entries:
            named += [f for f in e.figures if f not in named]
    loose = [f for f in sorted(FIGURES) if f not in named] if options.figures == "all" else []
    figures, figure_errors = draw_figures(named + loose, timings=options.timings, progress=progress)
    loose = [f for f in loose if f in figures]

    sections, audit_verdicts = [], []
    if options.sections if options.sections is not None else options.pattern is None:
        audit, audit_verdicts = audit_section()
        sections += [audit, problems_section(known)]
    sections.extend(extra_sections)

    # definitions are counted apart: they have no derivation and are never "proved"
    counts: dict[str, int] = {}
    definition_counts: dict[str, int] = {}
    for t, o in zip(theorems, outcomes):
        key = o.verdict.value if o is not None else "unchecked"
        tally = definition_counts if t.kind == "definition" else counts
        tally[key] = tally.get(key, 0) + 1
    definitions = [e.id for e in entries if e.kind == "definition"]
    graph = None
    if len(entries) > 1:
        from symattn.products.report import graph as graph_out

        g = graph_out.dependency_graph(groups)
        # the section is there even when no result uses another: it says so
        titles = {topic: title for topic, title, _ in groups}
        drawn = [_graph_figure(graph_out, g, lay, titles[lay.topic]) for lay in graph_out.topic_layouts(g)]
        shown = {d["layout"].topic for d in drawn}
        graph = {"figures": drawn, "legend_svg": graph_out.legend_svg(),
                 "quiet": [title for topic, title, _ in groups if topic not in shown]}
    audit_counts: dict[str, int] = {}
    for v in audit_verdicts:
        if v:
            audit_counts[v] = audit_counts.get(v, 0) + 1
    bad = [t.id for t, o in zip(theorems, outcomes) if o is not None and not o.reaches(t.target)]
    ordered = [v.value for v in reversed(Verdict)] + ["unchecked"]
    context = dict(
        title=options.title or TITLE,
        subtitle=SUBTITLE,
        version=__version__,
        timestamp=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()) if options.timestamp else "",
        timings=options.timings,
        groups=groups,
        total=len(entries) - len(definitions),
        counts=[(v, counts[v]) for v in ordered if v in counts],
        definitions=definitions,
        definition_counts=[(v, definition_counts[v]) for v in ordered if v in definition_counts],
        graph=graph,
        audit_counts=sorted(audit_counts.items(), key=lambda kv: (ordered.index(kv[0]) if kv[0] in ordered
                                                                   else len(ordered), kv[0])),
        bad=bad,
        sections=sections,
        known_ids=known,
        figures=figures,
        figure_errors=figure_errors,
        loose_figures=loose,
        verdicts=[(v.value, v.meaning) for v in reversed(Verdict)],
    )

    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    result = ReportResult(out=out, files=[], counts=counts, below_target=bad, outcomes=by_id,
                          definition_counts=definition_counts,
                          figure_errors=figure_errors, audit_counts=audit_counts)
    try:
        written: list[str] = []
        if "html" in options.formats:
            mathml = html_out.MathML()
            mathml.refs = known
            env = html_out.environment(mathml, options.templates)
            css = env.loader.get_source(env, "report.css")[0]
            page = env.get_template("index.html.j2").render(
                **{**context, "figures": {k: {**v, "svg": Markup(v["svg"])} for k, v in figures.items()},
                   "graph": {**graph, "legend_svg": Markup(graph["legend_svg"]),
                          "figures": [{**f, "svg": Markup(f["svg"])} for f in graph["figures"]]} if graph else None},
                css=Markup(css))
            _write(stage / "index.html", page, written, stage)
            result.mathml_fallbacks = list(mathml.fallbacks)
        if "latex" in options.formats or "pdf" in options.formats:
            env = tex_out.environment(options.templates, refs=known)
            (stage / "tex").mkdir()
            (stage / "figures").mkdir(exist_ok=True)
            _write(stage / "tex" / "preamble.tex", env.get_template("preamble.tex.j2").render(**context),
                   written, stage)
            frag = env.get_template("theorem.tex.j2")
            for e in entries:
                _write(stage / "tex" / f"{e.id}.tex", frag.render(entry=e, figures=figures, known_ids=known), written,
                       stage)
            sect = env.get_template("section.tex.j2")
            for s in sections:
                _write(stage / "tex" / f"section-{s.id}.tex", sect.render(section=s, known_ids=known),
                       written, stage)
            for name, fig in sorted(figures.items()):
                _write(stage / "figures" / f"{name}.pdf", fig["pdf"], written, stage)
            if graph:
                from symattn.products.report import graph as graph_out

                _write(stage / "figures" / "dependencies-legend.pdf", graph_out.legend_pdf(), written, stage)
                for f in graph["figures"]:
                    _write(stage / f["pdf_name"], graph_out.to_pdf(f["layout"]), written, stage)
                    _write(stage / "tex" / f"graph-{f['topic']}.tex", graph_out.to_tex(f["layout"], f["pdf_name"]),
                           written, stage)
            _write(stage / "symattn.tex", env.get_template("symattn.tex.j2").render(**context), written, stage)
        if "html" in options.formats and figures:
            (stage / "figures").mkdir(exist_ok=True)
            for name, fig in sorted(figures.items()):
                _write(stage / "figures" / f"{name}.svg", fig["svg"], written, stage)
        if options.timings:
            timings = {t.id: round(o.seconds, 3) for t, o in zip(theorems, outcomes) if o is not None}
            _write(stage / "timings.json", json.dumps(timings, indent=2) + "\n", written, stage)
        if "pdf" in options.formats:
            if progress:
                progress("pdf", "symattn.pdf", None)
            titles = {e.id: e.title for e in entries} | {f"section-{x.id}": x.title for x in sections}
            pdf = _compile_with_quarantine(stage, titles, result.latex_errors, env)
            result.pdf, result.pdf_message = pdf.status, pdf.message
            if pdf.status == "error":
                raise ReportError("pdflatex failed on symattn.tex:\n" + pdf.message)
            if pdf.status == "ok":
                written.append("symattn.pdf")
        _swap_in(stage, out)
    except BaseException as exc:
        shutil.rmtree(stage, ignore_errors=True)
        if isinstance(exc, (ReportError, KeyboardInterrupt)):
            raise
        raise ReportError(f"the report could not be written: {type(exc).__name__}: {exc}\n"
                          + traceback.format_exc(limit=4)) from exc
    result.files = sorted(written)
    result.seconds = time.perf_counter() - t0
    return result


_FRAGMENT_ERROR = re.compile(r"^(?:\./)?tex/([A-Za-z0-9_\-]+)\.tex:\d+: (.*)$", re.M)


def _compile_with_quarantine(stage: Path, titles: dict, errors: dict, env):
    """Compile the PDF; when pdflatex stops in one fragment (a theorem whose LaTeX is broken),
    replace that fragment by a notice naming the error and compile again. The other sections
    still make it into the PDF, and ``errors`` records what was left out (the HTML shows it)."""
    from symattn.products.report import tex as tex_out

    while True:
        pdf = tex_out.compile_pdf(stage)
        if pdf.status != "error":
            return pdf
        m = _FRAGMENT_ERROR.search(pdf.message)
        if m is None or m.group(1) in errors or m.group(1) not in titles:
            return pdf  # an error in the document itself, or one we already quarantined
        name, message = m.group(1), m.group(2).strip()
        errors[name] = message
        notice = env.get_template("broken.tex.j2").render(
            id=name.removeprefix("section-"), title=titles[name], message=message,
            is_section=name.startswith("section-"))
        (stage / "tex" / f"{name}.tex").write_text(notice, encoding="utf-8", newline="\n")


def _write(path: Path, data, written: list, root: Path) -> None:
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="\n")
    else:
        path.write_bytes(data)
    written.append(str(path.relative_to(root)))


def _refuse_dangerous_target(out: Path) -> None:
    """The target directory is replaced wholesale: never the working directory, a parent of it,
    the home directory or the root."""
    cwd = Path.cwd().resolve()
    home = Path.home().resolve()
    if out == Path(out.anchor) or out == home or out == cwd or out in cwd.parents:
        raise ReportError(f"refusing to write the report to {out}: the output directory is replaced "
                          "wholesale; choose a dedicated directory such as ./reports")
    if out.exists() and not out.is_dir():
        raise ReportError(f"the output path {out} exists and is not a directory")


def _swap_in(stage: Path, out: Path) -> None:
    """Carry over what the old report directory holds besides the report, then rename."""
    if out.exists():
        for entry in sorted(out.iterdir()):
            if entry.name in OUTPUTS:
                continue
            target = stage / entry.name
            if entry.is_dir() and not entry.is_symlink():
                shutil.copytree(entry, target, symlinks=True)
            else:
                shutil.copy2(entry, target, follow_symlinks=False)
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        old.rmdir()
        os.rename(out, old)
        try:
            os.rename(stage, out)
        except BaseException:
            os.rename(old, out)  # put the old report back
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(stage, out)
    os.chmod(out, 0o755)  # mkdtemp creates 0700
