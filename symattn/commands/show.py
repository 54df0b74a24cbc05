"""``symattn show ID [SOURCE ...]``: a theorem's statement, hypotheses and derivation as text."""

from __future__ import annotations

import sys

import sympy as sp

from symattn.theorem import load_all

HELP = "show a theorem: statement, hypotheses and derivation"


def add_arguments(parser) -> None:
    parser.add_argument("id", help="theorem id (see `symattn list`)")
    parser.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="a .py file or dotted module name to load first (for the theorems it registers)")


def render(t) -> str:
    lines = [f"{t.id}: {t.title}", f"  kind: {t.kind}    target: {t.target.value}", f"  source: {t.source}", ""]
    if t.claim:
        lines += ["  claim: " + t.claim, ""]
    if t.plain:
        lines += ["  " + t.plain, ""]
    lines.append(f"  Statement:  {t.statement}")
    if t.hypotheses:
        lines.append("  Hypotheses:")
        lines += [f"    - {h.describe()}" for h in t.hypotheses]
    if t.dimensions:
        lines.append("  Symbolic dimensions: " + ", ".join(map(str, t.dimensions)))
    d = t.get_derivation()
    if d is not None:
        lines.append("  Derivation:")
        lines.append(f"        {sp.sstr(d.start)}")
        for s in d.steps:
            lines.append(f"     {s.relation:>2} {sp.sstr(s.expr)}")
            just = s.justification() + (f" -- {s.note}" if s.note else "")
            lines.append(f"          by {just}")
    if t.instances is not None:
        lines.append(f"  Instances: exact check for {t.instances.describe()}")
    if t.notes:
        lines += ["", "  Notes: " + t.notes]
    return "\n".join(lines)


def run(args) -> int:
    reg = load_all()
    if args.sources:
        from symattn.sources import SourceError, load_sources

        try:
            load_sources(args.sources)
        except SourceError as exc:
            print(f"symattn show: {exc}", file=sys.stderr)
            return 2
    if args.id not in reg:
        close = [t.id for t in reg if args.id in t.id or t.id in args.id]
        hint = f"; did you mean: {', '.join(close)}" if close else "; see `symattn list`"
        print(f"symattn show: no theorem with id {args.id!r}{hint}", file=sys.stderr)
        return 2
    print(render(reg.get(args.id)))
    return 0
