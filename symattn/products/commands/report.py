"""``symattn report [SOURCE ...]``: check the theorems and write the HTML, LaTeX and PDF reports.

With SOURCEs, the report is of the theorems they register (and the library theorems those use),
titled ``--title`` (default: the module name), without the claim audit and the problems unless
``--sections``, and with only the figures the theorems name unless ``--figures all``.

Exit status 1 if any theorem does not pass (:mod:`symattn.engine.acceptance`, as ``symattn check`` grades
it; the report is still written), if a SOURCE registers no theorem, or if the report could not be
built (the previous report is then left untouched); 2 on usage errors and unloadable SOURCEs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from symattn.engine.cache import add_arguments as add_cache_arguments
from symattn.engine.cache import from_args as cache_from_args
from symattn.engine.cache import using as using_cache
from symattn.kernel.environment import default_seconds
from symattn.products.commands import usage_error
from symattn.products.commands.sources import add_source_arguments, resolve

HELP = "check the theorems and write the reports (offline HTML, LaTeX, PDF)"


def add_arguments(parser) -> None:
    add_source_arguments(parser)
    parser.add_argument("--title", metavar="TITLE", help="the report's title (default: the library's, or with "
                                                         "SOURCEs the first one's module name)")
    parser.add_argument("--format", dest="formats", default="html,latex,pdf", metavar="FORMATS",
                        help="comma-separated subset of html,latex,pdf (default: all)")
    parser.add_argument("--out", default="reports", metavar="DIR",
                        help="output directory, replaced atomically (default: reports)")
    parser.add_argument("-k", dest="pattern", metavar="PATTERN", help="only ids matching PATTERN (regex or glob)")
    parser.add_argument("--templates", metavar="DIR",
                        help="directory of templates overriding the built-in ones (same file names)")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="check in N processes (default: the number of CPUs)")
    try:
        seconds = default_seconds()
    except ValueError:  # reported by the CLI before parsing (symattn.products.cli.main)
        seconds = 8.0
    parser.add_argument("--time-limit", type=float, default=seconds, metavar="SECONDS",
                        help=f"limit for each SymPy call of a rule (default {seconds:g}; SYMATTN_TIME_LIMIT)")
    parser.add_argument("--no-numeric", action="store_true", help="skip the numeric level")
    add_cache_arguments(parser)
    parser.add_argument("--figures", choices=("all", "used", "none"), default=None,
                        help="draw all registered figures (default), only those the theorems name (default "
                             "with SOURCEs), or none")
    parser.add_argument("--sections", action=argparse.BooleanOptionalAction, default=None,
                        help="include the claim audit and the problems (default: only without -k)")
    parser.add_argument("--no-check", action="store_true",
                        help="render the theorems without checking them (a fast preview of the layout)")
    parser.add_argument("--timings", action="store_true",
                        help="put check durations in the report and write timings.json "
                             "(the report is then not byte-for-byte reproducible)")
    parser.add_argument("--timestamp", action="store_true", help="date the report (not reproducible)")
    parser.add_argument("--conform", action="append", default=[], metavar="MODULE:FUNCTION",
                        help="add a section checking this attention implementation against the theorems' "
                             "properties (see `symattn conform`); may be repeated")
    parser.add_argument("--conform-examples", type=int, default=40, metavar="N",
                        help="drawn cases per property in each --conform section (default 40, as `symattn conform`)")


def output_problem(out: str) -> str | None:
    """Why the report cannot be written to directory ``out`` (None: it can), found before any check.

    The report is built in a fresh directory next to ``out`` and renamed into place, so ``out``
    must be a directory or not exist, and its nearest existing ancestor must be a directory in
    which a directory can be created (not ``/proc``, not read-only, not through a file)."""
    import tempfile
    from pathlib import Path

    path = Path(out).expanduser()
    if path.exists() and not path.is_dir():
        return f"--out {out}: exists and is not a directory"
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return f"--out {out}: {parent} is not a directory"
    try:
        probe = tempfile.mkdtemp(prefix=".symattn-write-test-", dir=parent)
    except OSError as exc:
        return f"--out {out}: cannot create a directory in {parent} ({exc.strerror or exc})"
    try:
        Path(probe).rmdir()
    except OSError:
        pass
    if path.is_dir() and not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        return f"--out {out}: the existing directory cannot be read and replaced"
    return None


class Progress:
    """One status line on stderr, rewritten in place on a terminal, one line per event otherwise."""

    def __init__(self, total: int, stream=None):
        self.total, self.done, self.stream = total, 0, stream or sys.stderr
        self.tty = self.stream.isatty()

    def __call__(self, stage: str, name: str, outcome) -> None:
        if stage == "check":
            self.done += 1
            msg = f"[{self.done}/{self.total}] checked {name}: {outcome.verdict.value} ({outcome.seconds:.1f}s)"
        elif stage == "figure":
            msg = f"drawing figure {name}"
        else:
            msg = f"compiling {name}"
        if self.tty:
            self.stream.write("\r\033[K" + msg[:150])
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def run(args) -> int:
    from symattn.engine.acceptance import judge
    from symattn.products.report.build import ReportError, ReportOptions, build_report

    with_sources = bool(args.sources)
    title = args.title
    if title is not None and not title.strip():
        print("symattn report: --title must not be empty", file=sys.stderr)
        return 2
    status = usage_error("report", args)
    if status is not None:
        return status
    if args.conform_examples < 1:
        print(f"symattn report: --conform-examples must be at least 1, got {args.conform_examples}", file=sys.stderr)
        return 2
    try:
        options = ReportOptions(out=args.out, formats=args.formats, pattern=args.pattern,
                                templates=args.templates, jobs=args.jobs, time_limit=args.time_limit,
                                numeric=not args.no_numeric, timings=args.timings, timestamp=args.timestamp,
                                figures=args.figures or ("used" if with_sources else "all"),
                                sections=args.sections if args.sections is not None or not with_sources
                                else args.with_library and args.pattern is None,
                                check=not args.no_check, title=title)
    except ValueError as exc:
        print(f"symattn report: {exc}", file=sys.stderr)
        return 2
    problem = output_problem(args.out)
    if problem is not None:  # before loading, checking or drawing anything
        print(f"symattn report: {problem}", file=sys.stderr)
        return 2
    # the whole library loaded, as before lazy loading (issue 22): a report is not a quick check
    chosen = resolve(args, "report", pattern=args.pattern, library=True)
    if chosen.status is not None:
        return chosen.status
    theorems = chosen.theorems
    if not theorems:
        if chosen.empty_sources and not args.pattern:
            return 1
        print(f"symattn report: no theorem matches {args.pattern!r}", file=sys.stderr)
        return 2
    if chosen.selection is not None:
        from symattn.products.sources import build_errors

        if options.title is None:
            options.title = chosen.selection.sources[0].title
        for message in build_errors(chosen.selection.chosen, chosen.selection.sources).values():
            print(f"symattn report: {message}", file=sys.stderr)
    extra = []
    for spec in args.conform:
        from symattn.products import conformance
        from symattn.products.report.content import conformance_section

        try:
            fn = conformance.load_callable(spec)
        except (ValueError, TypeError, ImportError) as exc:
            print(f"symattn report: --conform {spec}: {exc}", file=sys.stderr)
            return 2
        print(f"checking conformance of {spec}", file=sys.stderr)
        extra.append(conformance_section(conformance.check(fn, target=spec, examples=args.conform_examples)))
    progress = Progress(len(theorems))
    t0 = time.perf_counter()
    try:
        with using_cache(cache_from_args(args)):  # outcomes by content key (symattn.engine.cache)
            result = build_report(options, theorems=theorems, progress=progress, extra_sections=extra)
    except ReportError as exc:
        progress.close()
        print(f"symattn report: {exc}\nThe previous report in {options.out} was left unchanged.", file=sys.stderr)
        return 1
    progress.close()

    counts = ", ".join(f"{n} {v}" for v, n in result.counts.items())
    defs = ", ".join(f"{n} {v}" for v, n in getattr(result, "definition_counts", {}).items())
    cached = sum(bool(getattr(o, "cached", False)) for o in result.outcomes.values())
    served = f" ({cached} outcomes from the cache)" if cached else ""
    print(f"{len(theorems)} theorems in {time.perf_counter() - t0:.1f}s{served}: {counts}"
          + (f"; definitions (not proved, counted apart): {defs}" if defs else ""))
    slow = sorted(result.outcomes.items(), key=lambda kv: -kv[1].seconds)[:5]
    print("slowest checks: " + ", ".join(f"{i} {o.seconds:.1f}s" for i, o in slow))
    if result.audit_counts:
        print("claim audit: " + ", ".join(f"{n} {v}" for v, n in sorted(result.audit_counts.items())))
    if result.below_target:
        print(f"{len(result.below_target)} below target: {', '.join(result.below_target)}")
    by_id = {t.id: t for t in theorems}
    judged = {i: judge(by_id[i], o) for i, o in result.outcomes.items() if i in by_id}
    expected = sorted(i for i, j in judged.items() if j.status == "xfail")
    failed = sorted(i for i, j in judged.items() if not j.ok)
    if expected:
        print(f"{len(expected)} failed as expected: {', '.join(expected)}")
    if result.figure_errors:
        for name, err in sorted(result.figure_errors.items()):
            print(f"figure {name} not drawn: {err}")
    if result.mathml_fallbacks:
        print(f"{len(result.mathml_fallbacks)} formulas shown as LaTeX source (MathML conversion failed)")
    for name, err in sorted(result.latex_errors.items()):
        print(f"warning: tex/{name}.tex could not be typeset and was replaced by a notice in the PDF: {err}")
    if result.pdf == "missing":
        print(result.pdf_message, file=sys.stderr)
    out = result.out
    wrote = [name for name in ("index.html", "symattn.tex", "symattn.pdf") if name in result.files]
    print(f"wrote {', '.join(str(out / w) for w in wrote)} (+ tex/, figures/)")
    if failed:
        print(f"{len(failed)} did not pass: {', '.join(failed)}")
    return 1 if failed or chosen.empty_sources else 0
