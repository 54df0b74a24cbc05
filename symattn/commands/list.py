"""``symattn list``: every registered theorem."""

from __future__ import annotations

import json

from symattn.theorem import all_theorems

HELP = "list every registered theorem: id, title, source, kind, target verdict"


def add_arguments(parser) -> None:
    parser.add_argument("-k", dest="pattern", metavar="PATTERN", help="only ids matching PATTERN (regex or glob)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args) -> int:
    theorems = all_theorems(args.pattern)
    if args.json:
        print(json.dumps([
            {"id": t.id, "title": t.title, "source": t.source, "kind": t.kind, "target": t.target.value,
             "topic": t.topic}
            for t in theorems
        ], indent=2))
        return 0
    width = max((len(t.id) for t in theorems), default=2)
    for t in theorems:
        print(f"{t.id:<{width}}  {t.target.value:<26} {t.kind:<10} {t.title}")
        print(f"{'':<{width}}  source: {t.source}")
    print(f"{len(theorems)} theorems")
    return 0
