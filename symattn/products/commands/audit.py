"""``symattn audit``: every number and checkable claim of the source texts, recomputed and graded.

Prints a table (or, with ``--json``, the list of ``{"id", "source", "claim", "stated", "computed",
"verdict", "note"}`` records). Exit status 0: an audit finding is a result, not an error.
"""

from __future__ import annotations

import json
import sys
import textwrap

HELP = "audit every stated number and claim of the source texts: holds, to rounding, does not hold, ambiguous"


def add_arguments(parser) -> None:
    parser.add_argument("-k", dest="pattern", metavar="PATTERN", help="only entries whose id matches PATTERN (regex)")
    parser.add_argument("--json", action="store_true", help="print the JSON list of entries")


def run(args) -> int:
    from symattn.products.audit import AUDIT_VERDICTS, run_audit

    entries = run_audit(args.pattern)
    if args.json:
        print(json.dumps([e.to_json() for e in entries], indent=2, ensure_ascii=False))
        return 0
    if not entries:
        print(f"symattn audit: no entry matches {args.pattern!r}", file=sys.stderr)
        return 0
    w = max(len(e.id) for e in entries)
    print(f"{'id':<{w}}  {'verdict':<24}  source")
    for e in entries:
        print(f"{e.id:<{w}}  {e.verdict:<24}  {e.source}")
        for label, text in (("claim", e.claim), ("stated", e.stated), ("computed", e.computed), ("note", e.note)):
            if text:
                body = textwrap.fill(text.replace("\t", " | "), width=100, initial_indent=" " * (w + 2) + f"{label}: ",
                                     subsequent_indent=" " * (w + 4 + len(label)))
                print(body)
    counts = {v: sum(e.verdict == v for e in entries) for v in AUDIT_VERDICTS}
    print(f"\n{len(entries)} claims: " + ", ".join(f"{c} {v}" for v, c in counts.items() if c))
    return 0
