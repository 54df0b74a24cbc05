"""``symattn list [SOURCE ...]``: every registered theorem, or those of the given sources."""

from __future__ import annotations

import json
import sys

from symattn.products.commands.sources import add_source_arguments, resolve

HELP = "list theorems (the library, or those SOURCEs register): id, title, source, kind, target verdict"


def add_arguments(parser) -> None:
    add_source_arguments(parser)
    parser.add_argument("-k", dest="pattern", metavar="PATTERN", help="only ids matching PATTERN (regex or glob)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args) -> int:
    chosen = resolve(args, "list", pattern=args.pattern)
    if chosen.status is not None:
        return chosen.status
    theorems = chosen.theorems
    if args.json:
        records = []
        for t in theorems:
            r = {"id": t.id, "title": t.title, "claim": t.claim, "source": t.source, "kind": t.kind,
                 "target": t.target.value,
                 "topic": t.topic}
            if chosen.selection is not None:
                r["origin"] = chosen.origin(t)
                r["dependency_of"] = chosen.dependency_of(t.id)
            records.append(r)
        print(json.dumps(records, indent=2))
        return 0
    width = max((len(t.id) for t in theorems), default=2)
    for t in theorems:
        print(f"{t.id:<{width}}  {t.target.value:<26} {t.kind:<10} {t.title}")
        print(f"{'':<{width}}  source: {t.source}")
        if chosen.selection is not None:
            users = chosen.dependency_of(t.id)
            where = f"defined at {chosen.origin(t)}"
            print(f"{'':<{width}}  {where}" + (f"; dependency of {', '.join(users)}" if users else ""))
    deps = sum(1 for t in theorems if chosen.dependency_of(t.id))
    print(f"{len(theorems)} theorems" + (f" ({deps} of them dependencies)" if deps else ""))
    if not theorems and chosen.selection is None and args.pattern:
        print(f"symattn list: no theorem matches {args.pattern!r}", file=sys.stderr)
    return 0
