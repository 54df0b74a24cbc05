"""``symattn check [SOURCE ...]``: run the checks, print a table or JSON.

Exit status 1 when a theorem does not pass (:mod:`symattn.engine.acceptance`: its verdict is below its
target, or a configured level did not pass; an expected failure that passes counts too), or when
a SOURCE registers no theorem; 2 on usage errors and on a SOURCE that cannot be loaded.
"""

from __future__ import annotations

import json
import sys
import time

from symattn.engine.cache import add_arguments as add_cache_arguments
from symattn.engine.cache import from_args as cache_from_args
from symattn.engine.cache import using as using_cache
from symattn.kernel.environment import default_seconds
from symattn.products.commands import usage_error
from symattn.products.commands.sources import add_source_arguments, resolve

HELP = "check theorems at every level and grade them; exit 1 if any does not pass (see symattn.engine.acceptance)"


def add_arguments(parser) -> None:
    add_source_arguments(parser)
    parser.add_argument("-k", dest="pattern", metavar="PATTERN", help="only ids matching PATTERN (regex or glob)")
    parser.add_argument("--json", action="store_true", help="print the stable JSON array (see README)")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="check in N processes")
    try:
        seconds = default_seconds()
    except ValueError:  # reported by the CLI before parsing (symattn.products.cli.main)
        seconds = 8.0
    parser.add_argument("--time-limit", type=float, default=seconds, metavar="SECONDS",
                        help=f"limit for each SymPy call of a rule (default {seconds:g}; SYMATTN_TIME_LIMIT)")
    parser.add_argument("--no-numeric", action="store_true", help="skip the numeric level")
    add_cache_arguments(parser)


def _mark(judgement, outcome, target) -> str:
    if judgement.status == "pass":
        return ""
    if judgement.status == "xfail":
        return "  (expected failure)"
    if judgement.status == "xpass":
        return "  <-- PASSED, but expected to fail"
    if outcome.verdict.value == "refuted":
        return "  <-- REFUTED"
    if not outcome.reaches(target):
        return "  <-- below target"
    return "  <-- a level did not pass"


def run(args) -> int:
    from symattn.engine.acceptance import describe, judge
    from symattn.engine.checker import check_many, outcome_to_json
    from symattn.engine.verdict import Verdict, wording

    status = usage_error("check", args)
    if status is not None:
        return status
    chosen = resolve(args, "check", pattern=args.pattern)
    if chosen.status is not None:
        return chosen.status
    theorems = chosen.theorems
    if not theorems:
        if chosen.empty_sources and not args.pattern:
            return 1  # the warning said which source registers nothing
        print(f"symattn check: no theorem matches {args.pattern!r}", file=sys.stderr)
        return 2
    if chosen.selection is not None:
        from symattn.products.sources import build_errors

        for message in build_errors(chosen.selection.chosen, chosen.selection.sources).values():
            print(f"symattn check: {message}", file=sys.stderr)
    t0 = time.perf_counter()
    progress = None
    if not args.json and sys.stderr.isatty():
        def progress(t, o):
            print(f"  checked {t.id} ({o.seconds:.1f}s)", file=sys.stderr)
    with using_cache(cache_from_args(args)):  # outcomes by content key (symattn.engine.cache)
        outcomes = check_many(theorems, jobs=args.jobs, progress=progress, time_limit=args.time_limit,
                              numeric=not args.no_numeric)
    judgements = [judge(t, o) for t, o in zip(theorems, outcomes)]
    failed = [t for t, j in zip(theorems, judgements) if not j.ok]
    if args.json:
        print(json.dumps([outcome_to_json(t, o) for t, o in zip(theorems, outcomes)], indent=2))
        return 1 if failed or chosen.empty_sources else 0

    w = max(len(t.id) for t in theorems)
    vw = max([26] + [len(wording(o.verdict, t.kind)) for t, o in zip(theorems, outcomes)])
    tw = max([26] + [len(wording(t.target, t.kind)) for t in theorems])
    print(f"{'id':<{w}}  {'verdict':<{vw}} {'target':<{tw}} {'seconds':>7}  how")
    for t, o, j in zip(theorems, outcomes, judgements):
        users = chosen.dependency_of(t.id)
        used = f"  [dependency of {', '.join(users)}]" if users else ""
        shown, aim = wording(o.verdict, t.kind), wording(t.target, t.kind)
        print(f"{t.id:<{w}}  {shown:<{vw}} {aim:<{tw}} {o.seconds:>7.2f}  {o.how}"
              f"{used}{_mark(j, o, t.target)}")
    counts: dict[str, int] = {}
    definitions: dict[str, int] = {}
    for t, o in zip(theorems, outcomes):
        tally = definitions if t.kind == "definition" else counts
        tally[o.verdict.value] = tally.get(o.verdict.value, 0) + 1
    summary = ", ".join(f"{counts[v.value]} {v.value}" for v in reversed(Verdict) if v.value in counts)
    if definitions:  # counted apart: a definition is never a proved result
        summary += "; definitions: " + ", ".join(f"{definitions[v.value]} {wording(v, 'definition')}"
                                                 for v in reversed(Verdict) if v.value in definitions)
    cached = sum(bool(getattr(o, "cached", False)) for o in outcomes)
    served = f" ({cached} from the cache of outcomes)" if cached else ""
    print(f"\n{len(theorems)} theorems in {time.perf_counter() - t0:.1f}s{served}: {summary}")
    for t, o, j in zip(theorems, outcomes, judgements):
        if j.status != "pass":
            where = chosen.origin(t)
            print("\n" + (f"{where}: " if where else "") + describe(t, o, seconds=args.time_limit))
    expected = [t.id for t, j in zip(theorems, judgements) if j.status == "xfail"]
    if expected:
        print(f"\n{len(expected)} failed as expected: {', '.join(expected)}")
    if failed:
        print(f"\n{len(failed)} did not pass: {', '.join(t.id for t in failed)}")
    return 1 if failed or chosen.empty_sources else 0
