"""``symattn report``: check the theorems and write the HTML, LaTeX and PDF reports.

Exit status 1 if any theorem is refuted or below its target (the report is still written, as
``symattn check`` would grade it), or if the report could not be built (the previous report is
then left untouched); 2 on usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from symattn.timelimit import DEFAULT_SECONDS

HELP = "check the theorems and write the reports (offline HTML, LaTeX, PDF)"


def add_arguments(parser) -> None:
    parser.add_argument("--format", dest="formats", default="html,latex,pdf", metavar="FORMATS",
                        help="comma-separated subset of html,latex,pdf (default: all)")
    parser.add_argument("--out", default="reports", metavar="DIR",
                        help="output directory, replaced atomically (default: reports)")
    parser.add_argument("-k", dest="pattern", metavar="PATTERN", help="only ids matching PATTERN (regex or glob)")
    parser.add_argument("--templates", metavar="DIR",
                        help="directory of templates overriding the built-in ones (same file names)")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="check in N processes (default: the number of CPUs)")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help=f"limit for each SymPy call of a rule (default {DEFAULT_SECONDS:g})")
    parser.add_argument("--no-numeric", action="store_true", help="skip the numeric level")
    parser.add_argument("--figures", choices=("all", "used", "none"), default="all",
                        help="draw all registered figures (default), only those the theorems name, or none")
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
    from symattn.report.build import ReportError, ReportOptions, build_report
    from symattn.theorem import all_theorems
    from symattn.verdict import Verdict

    try:
        options = ReportOptions(out=args.out, formats=args.formats, pattern=args.pattern,
                                templates=args.templates, jobs=args.jobs, time_limit=args.time_limit,
                                numeric=not args.no_numeric, timings=args.timings, timestamp=args.timestamp,
                                figures=args.figures, sections=args.sections,
                                check=not args.no_check)
    except ValueError as exc:
        print(f"symattn report: {exc}", file=sys.stderr)
        return 2
    theorems = all_theorems(args.pattern)
    if not theorems:
        print(f"symattn report: no theorem matches {args.pattern!r}", file=sys.stderr)
        return 2
    extra = []
    for spec in args.conform:
        from symattn import conformance
        from symattn.report.content import conformance_section

        try:
            fn = conformance.load_callable(spec)
        except (ValueError, TypeError, ImportError) as exc:
            print(f"symattn report: --conform {spec}: {exc}", file=sys.stderr)
            return 2
        print(f"checking conformance of {spec}", file=sys.stderr)
        extra.append(conformance_section(conformance.check(fn, target=spec)))
    progress = Progress(len(theorems))
    t0 = time.perf_counter()
    try:
        result = build_report(options, theorems=theorems, progress=progress, extra_sections=extra)
    except ReportError as exc:
        progress.close()
        print(f"symattn report: {exc}\nThe previous report in {options.out} was left unchanged.", file=sys.stderr)
        return 1
    progress.close()

    counts = ", ".join(f"{n} {v}" for v, n in result.counts.items())
    defs = ", ".join(f"{n} {v}" for v, n in getattr(result, "definition_counts", {}).items())
    print(f"{len(theorems)} theorems in {time.perf_counter() - t0:.1f}s: {counts}"
          + (f"; definitions (not proved, counted apart): {defs}" if defs else ""))
    slow = sorted(result.outcomes.items(), key=lambda kv: -kv[1].seconds)[:5]
    print("slowest checks: " + ", ".join(f"{i} {o.seconds:.1f}s" for i, o in slow))
    if result.audit_counts:
        print("claim audit: " + ", ".join(f"{n} {v}" for v, n in sorted(result.audit_counts.items())))
    if result.below_target:
        print(f"{len(result.below_target)} below target: {', '.join(result.below_target)}")
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
    return 1 if result.below_target else 0
