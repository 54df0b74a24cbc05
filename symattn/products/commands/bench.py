"""``symattn bench``: time the tiled attention kernel against naive numpy and torch (if present).

Thin: parses arguments and calls :func:`numeric.bench.run_bench`. A benchmark, not a test: it
reports numbers and never fails on them (exit 0), except for usage errors (exit 2).
"""

from __future__ import annotations

import json
import math
import sys

from symattn.kernel.environment import seconds_problem

HELP = "benchmark tiled attention (forward/backward, variants) against naive numpy and torch SDPA"


def _sizes(text: str) -> list[int]:
    sizes = [int(s) for s in text.replace(",", " ").split()]
    if not sizes or min(sizes) <= 0:
        raise ValueError(text)
    return sizes


VARIANT_NAMES = ("plain", "gqa", "window", "softcap", "alibi")


def _variants(text: str | None) -> list[str | None] | None:
    """``--variant``'s list (``None`` for plain), or ``None`` when a name is unknown."""
    if text is None:
        return [None]
    names = [s for s in text.replace(",", " ").split()]
    if not names or any(name not in VARIANT_NAMES for name in names):
        return None
    return [None if name == "plain" else name for name in names]


def add_arguments(parser) -> None:
    parser.add_argument("--sizes", default="1024,4096,16384", metavar="N,N,...",
                        help="sequence lengths (default 1024,4096,16384; e.g. 8192,65536)")
    parser.add_argument("--d", type=int, default=64, help="head dimension (default 64)")
    parser.add_argument("--batch", type=int, default=1, metavar="B", help="batch x heads (default 1)")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--causal", action="store_true", help="causal (top-left) attention")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per measurement and round (median)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="interleaved rounds: every measurement once per round; ratios are the median over "
                             "rounds of the ratio within a round (default 3)")
    parser.add_argument("--budget", type=float, default=10.0, metavar="SECONDS",
                        help="stop repeating a measurement after this long (default 10)")
    parser.add_argument("--no-backward", dest="backward", action="store_false", help="forward only")
    parser.add_argument("--no-torch", dest="torch", action="store_false", help="skip the torch peer")
    parser.add_argument("--no-memory", dest="memory", action="store_false", help="skip tracemalloc runs")
    parser.add_argument("--naive-cap", type=float, default=4096.0, metavar="MiB",
                        help="skip naive attention where its n x n matrices would exceed this (default 4096)")
    parser.add_argument("--block-q", type=int, default=None, help="tiled query block (default: tuned)")
    parser.add_argument("--block-k", type=int, default=None, help="tiled key block (default: tuned)")
    parser.add_argument("--threads", type=int, default=None, help="tiled kernel worker threads (default: CPU count)")
    parser.add_argument("--variant", default=None, metavar="V[,V...]",
                        help="time attention variants against torch, in the same run: plain, gqa (SDPA "
                             "enable_gqa), window (a boolean band mask), softcap (the explicit formula), alibi "
                             "(SDPA with a float bias mask); e.g. plain,gqa (default plain)")
    parser.add_argument("--window", type=int, default=256, metavar="W",
                        help="--variant window: keys to the left of the diagonal (default 256)")
    parser.add_argument("--softcap", type=float, default=50.0, metavar="C",
                        help="--variant softcap: the cap (default 50)")
    parser.add_argument("--group", type=int, default=4, metavar="G",
                        help="--variant gqa: query heads per key/value head (default 4)")
    parser.add_argument("--matmul-n", type=int, default=2048, metavar="N",
                        help="size of the square float32 matmul that calibrates GFLOP/s (default 2048)")
    parser.add_argument("--startup", action="store_true",
                        help="time the command's own startup instead (symattn --help, check of a user file) "
                             "as ratios against python -c pass in the same run")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args) -> int:
    if args.startup:
        from symattn.products import startup

        if args.repeats <= 0:
            print(f"symattn bench: --repeats must be positive, got {args.repeats}", file=sys.stderr)
            return 2
        result = startup.measure(args.repeats)
        print(json.dumps(result, indent=2) if args.json else startup.format_table(result))
        return 0
    from numeric.bench import (  # lazy: keeps `symattn --help` fast
        format_table,
        run_bench,
    )

    try:
        sizes = _sizes(args.sizes)
    except ValueError:
        print(f"symattn bench: --sizes must be positive integers, got {args.sizes!r}", file=sys.stderr)
        return 2
    variants = _variants(args.variant)
    if variants is None:
        print(f"symattn bench: --variant must be a comma-separated list of {', '.join(VARIANT_NAMES)}, "
              f"got {args.variant!r}", file=sys.stderr)
        return 2
    for name in ("d", "batch", "repeats", "rounds", "block_q", "block_k", "matmul_n", "threads", "window",
                 "softcap", "group"):
        value = getattr(args, name)
        if value is not None and not (math.isfinite(value) and value > 0):
            print(f"symattn bench: --{name.replace('_', '-')} must be positive, got {value}", file=sys.stderr)
            return 2
    if not (math.isfinite(args.naive_cap) and args.naive_cap > 0):
        print(f"symattn bench: --naive-cap must be a positive number of MiB, got {args.naive_cap}", file=sys.stderr)
        return 2
    problem = seconds_problem(args.budget)
    if problem is not None:
        print(f"symattn bench: --budget {problem}, got {args.budget}", file=sys.stderr)
        return 2
    progress = None if args.json or not sys.stderr.isatty() else (lambda m: print(m, file=sys.stderr))
    result = run_bench(
        sizes, d=args.d, batch=args.batch, dtype=args.dtype, causal=args.causal, repeats=args.repeats,
        budget=args.budget, backward=args.backward, naive_cap_mib=args.naive_cap, use_torch=args.torch,
        memory=args.memory, block_q=args.block_q, block_k=args.block_k, threads=args.threads,
        rounds=args.rounds, variant=variants, window=args.window, softcap=args.softcap, group=args.group,
        matmul_n=args.matmul_n, progress=progress,
    )  # fmt: skip
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0
