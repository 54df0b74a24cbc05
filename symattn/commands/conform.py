"""``symattn conform MODULE:FUNCTION``: check an attention implementation against the theorems."""

from __future__ import annotations

import sys

from symattn import conformance

HELP = "check an attention implementation (MODULE:FUNCTION) against the properties the theorems guarantee"


def add_arguments(parser) -> None:
    parser.add_argument("target", metavar="MODULE:FUNCTION", help="e.g. numeric:attention")
    parser.add_argument("--causal", nargs="?", const="top_left", choices=["top_left", "bottom_right"],
                        default=None, help="test causal masking (alignment: top_left (default) or bottom_right)")
    parser.add_argument("--mask", action="store_true", help="also pass random boolean masks (True = may attend)")
    parser.add_argument("--dtype", choices=["float32", "float64", "float16"], default="float64")
    parser.add_argument("--examples", type=int, default=40, metavar="N", help="Hypothesis examples per property")
    parser.add_argument("--adapter", choices=["numpy", "torch"], default="numpy",
                        help="how to call the function: numpy arrays, or torch CPU tensors (mask->attn_mask, "
                             "causal->is_causal)")
    parser.add_argument("--layout", choices=["bhnd", "bnhd"], default="bhnd",
                        help="the function's layout: (batch, heads, n, d) or (batch, n, heads, d)")
    parser.add_argument("--rope", metavar="MODULE:FUNCTION", help="a rope(x, positions) function to test")
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args) -> int:
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("symattn conform: needs Hypothesis, which drives the property search: "
              "pip install 'symattn[conform]'", file=sys.stderr)
        return 2
    if args.examples < 1:
        print(f"symattn conform: --examples must be >= 1, got {args.examples}", file=sys.stderr)
        return 2
    try:
        fn = conformance.load_callable(args.target)
        rope = conformance.load_callable(args.rope) if args.rope else None
        if args.adapter == "torch":
            adapter = conformance.torch_adapter(args.layout)
        else:
            adapter = conformance.Adapter(layout=args.layout)
    except (ValueError, TypeError, ImportError) as exc:
        print(f"symattn conform: {exc}", file=sys.stderr)
        return 2
    result = conformance.check(fn, causal=args.causal or False, mask=args.mask, dtype=args.dtype,
                               examples=args.examples, adapter=adapter, rope=rope, target=args.target)
    print(conformance.dumps(result) if args.json else result.table())
    return 0 if result.passed else 1
