"""``symattn show ID [SOURCE ...]``: a theorem's statement, hypotheses and derivation as text."""

from __future__ import annotations

import sys

HELP = "show a theorem: statement, hypotheses and derivation"


def add_arguments(parser) -> None:
    parser.add_argument("id", help="theorem id (see `symattn list`)")
    parser.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="a .py file or dotted module name to load first (for the theorems it registers)")
    parser.add_argument("--no-check", action="store_true",
                        help="do not check the theorem (the verdict line is then omitted)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                        help="limit for each SymPy call of a rule (default SYMATTN_TIME_LIMIT or 8)")


def render(t, outcome=None) -> str:
    import sympy as sp

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
    if outcome is not None:
        from symattn.engine.verdict import wording

        lines += ["", f"  Verdict: {wording(outcome.verdict, t.kind)} (target {wording(t.target, t.kind)}; "
                      f"{outcome.seconds:.1f}s)"
                      + (f" -- {outcome.how}" if getattr(outcome, "how", "") else "")]
    return "\n".join(lines)


def suggestions(wanted: str, ids, n: int = 5) -> list[str]:
    """Close ids: difflib's closest (cutoff 0.6) first, then those containing it or contained in it."""
    import difflib

    ids = list(ids)
    close = difflib.get_close_matches(wanted, ids, n=n, cutoff=0.6)
    close += [i for i in ids if (wanted in i or i in wanted) and i not in close]
    return close[:n]


def run(args) -> int:
    from symattn.engine.theorem import load_all
    from symattn.kernel.environment import seconds_problem

    problem = None if args.time_limit is None else seconds_problem(args.time_limit)
    if problem is not None:
        print(f"symattn show: --time-limit {problem}, got {args.time_limit}", file=sys.stderr)
        return 2
    reg = load_all()
    if args.sources:
        from symattn.products.sources import SourceError, load_sources

        try:
            load_sources(args.sources)
        except SourceError as exc:
            print(f"symattn show: {exc}", file=sys.stderr)
            return 2
    if args.id not in reg:
        close = suggestions(args.id, [t.id for t in reg])
        hint = f"; did you mean: {', '.join(close)}" if close else "; see `symattn list`"
        print(f"symattn show: no theorem with id {args.id!r}{hint}", file=sys.stderr)
        return 2
    theorem = reg.get(args.id)
    outcome = None
    if not args.no_check:
        from symattn.engine.checker import check_theorem
        from symattn.kernel.environment import default_seconds

        outcome = check_theorem(theorem, time_limit=args.time_limit or default_seconds())
    print(render(theorem, outcome))
    return 0
