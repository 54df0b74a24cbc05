"""``symattn check``: run the checks, print a table or JSON; exit 1 on any refuted theorem or
any theorem below its target."""

from __future__ import annotations

import json
import sys
import time

from symattn.checker import check_many, outcome_to_json
from symattn.theorem import all_theorems
from symattn.timelimit import DEFAULT_SECONDS
from symattn.verdict import Verdict

HELP = "check theorems at every level and grade them; exit 1 if any is refuted or below target"


def add_arguments(parser) -> None:
    parser.add_argument("-k", dest="pattern", metavar="PATTERN", help="only ids matching PATTERN (regex or glob)")
    parser.add_argument("--json", action="store_true", help="print the stable JSON array (see README)")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="check in N processes")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help=f"limit for each SymPy call of a rule (default {DEFAULT_SECONDS:g})")
    parser.add_argument("--no-numeric", action="store_true", help="skip the numeric level")


def run(args) -> int:
    if args.jobs < 1:
        print(f"symattn check: --jobs must be >= 1, got {args.jobs}", file=sys.stderr)
        return 2
    if args.time_limit <= 0:
        print(f"symattn check: --time-limit must be positive, got {args.time_limit}", file=sys.stderr)
        return 2
    theorems = all_theorems(args.pattern)
    if not theorems:
        print(f"symattn check: no theorem matches {args.pattern!r}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    progress = None
    if not args.json and sys.stderr.isatty():
        def progress(t, o):
            print(f"  checked {t.id} ({o.seconds:.1f}s)", file=sys.stderr)
    outcomes = check_many(theorems, jobs=args.jobs, progress=progress, time_limit=args.time_limit,
                          numeric=not args.no_numeric)
    records = [outcome_to_json(t, o) for t, o in zip(theorems, outcomes)]
    bad = [r for r, o, t in zip(records, outcomes, theorems) if not o.reaches(t.target)]
    if args.json:
        print(json.dumps(records, indent=2))
    else:
        w = max(len(r["id"]) for r in records)
        print(f"{'id':<{w}}  {'verdict':<26} {'target':<26} {'seconds':>7}  how")
        for r in records:
            mark = "" if r not in bad else "  <-- below target" if r["verdict"] != "refuted" else "  <-- REFUTED"
            print(f"{r['id']:<{w}}  {r['verdict']:<26} {r['target']:<26} {r['seconds']:>7.2f}  {r['how']}{mark}")
        counts: dict[str, int] = {}
        for r in records:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        summary = ", ".join(f"{counts[v.value]} {v.value}" for v in reversed(Verdict) if v.value in counts)
        print(f"\n{len(records)} theorems in {time.perf_counter() - t0:.1f}s: {summary}")
        if bad:
            print(f"{len(bad)} below target: {', '.join(r['id'] for r in bad)}")
    return 1 if bad else 0
