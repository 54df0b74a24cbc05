"""``symattn conform MODULE:FUNCTION``: check an attention implementation against the theorems."""

from __future__ import annotations

import sys

HELP = "check an attention implementation (MODULE:FUNCTION) against the properties the theorems guarantee"


def add_arguments(parser) -> None:
    parser.add_argument("target", metavar="MODULE:FUNCTION", nargs="?",
                        help="e.g. numeric:attention (not with --calibrate)")
    parser.add_argument("--causal", nargs="?", const="top_left", choices=["top_left", "bottom_right"],
                        default=None, help="test causal masking (alignment: top_left (default) or bottom_right)")
    parser.add_argument("--mask", nargs="?", const="bool", choices=["bool", "float"], default=False,
                        help="the function takes masks: boolean (True = may attend; the default) or float "
                             "(additive, 0 or -inf)")
    parser.add_argument("--dtype", choices=["float32", "float64", "float16", "bfloat16"], default=None,
                        help="the precision tested (default float64; the adapter's: float32 for jax; "
                             "bfloat16: with --adapter torch)")
    parser.add_argument("--examples", type=int, default=40, metavar="N", help="Hypothesis examples per property")
    parser.add_argument("--adapter", choices=["numpy", "torch", "jax"], default="numpy",
                        help="how to call the function: numpy arrays, torch tensors (mask->attn_mask, "
                             "causal->is_causal) or jnp arrays (layout bnhd unless --layout)")
    parser.add_argument("--layout", choices=["bhnd", "bnhd"], default=None,
                        help="the function's layout: (batch, heads, n, d) or (batch, n, heads, d)")
    parser.add_argument("--device", default="cpu", help="torch device (cpu, or cuda when present)")
    parser.add_argument("--rope", metavar="MODULE:FUNCTION", help="a rope(x, positions) function to test")
    # the declared input space
    parser.add_argument("--value-dim", choices=["any", "same"], default=None,
                        help="'same': the function needs d_v = d (default any; same for --adapter jax)")
    parser.add_argument("--square", action="store_true", help="the function needs n_q = n_k")
    parser.add_argument("--max-n", type=int, default=512, metavar="N", help="longest sequence drawn (default 512)")
    parser.add_argument("--head-dims", metavar="D,D,...", help="the head dims supported, e.g. 64,128")
    parser.add_argument("--dtypes", metavar="DT,DT,...", help="the dtypes accepted (default all three numpy ones)")
    # gradients and lse
    parser.add_argument("--backward", nargs="?", const="autograd", metavar="MODULE:FUNCTION",
                        help="check gradients: through the adapter's autograd (no value) or with "
                             "bwd(q, k, v, out, [lse,] d_out, **options)")
    parser.add_argument("--returns-lse", action="store_true", help="the function returns (out, lse)")
    # variants
    parser.add_argument("--kv-heads", nargs="?", const="any", metavar="GROUP",
                        help="grouped kv heads (no value: every divisor; a number: the group size h/h_kv)")
    parser.add_argument("--window", metavar="LEFT,RIGHT", help="sliding window, e.g. 16,0 ('none' = unbounded)")
    parser.add_argument("--align", default="top_left,bottom_right", metavar="A,A",
                        help="window alignments to test (default both)")
    parser.add_argument("--softcap", type=float, metavar="C", help="logit soft-cap c")
    parser.add_argument("--alibi", action="store_true", help="ALiBi slopes (alibi_slopes=)")
    parser.add_argument("--key-lengths", action="store_true", help="variable key lengths per batch element")
    parser.add_argument("--dropout", type=float, metavar="P", help="dropout probability (with a seed)")
    parser.add_argument("--masked-values-safe", action="store_true",
                        help="the function promises NaN/inf behind a mask never reaches its results "
                             "(masked_values_do_not_leak is then graded, not reported)")
    parser.add_argument("--call-timeout", type=float, default=60.0, metavar="S",
                        help="seconds one call of the function may take (default 60): a call still running "
                             "fails the check (exit 1) instead of hanging it")
    parser.add_argument("--json", action="store_true", help="print JSON")
    # calibration of the protocol (no MODULE:FUNCTION)
    parser.add_argument("--calibrate", action="store_true",
                        help="measure the protocol on the trusted peers (torch SDPA math and flash, JAX, numeric): "
                             "worst err/bound per peer and dtype; minutes of CPU")
    parser.add_argument("--cases", type=int, default=2000, metavar="N", help="cases per peer and dtype (--calibrate)")
    parser.add_argument("--peer", metavar="TEXT", help="only the peers whose name contains TEXT (--calibrate)")
    parser.add_argument("--calibration-out", metavar="FILE",
                        help="--calibrate: rewrite FILE (JSON) after every case, so a stopped run keeps its figures")
    parser.add_argument("--resume", action="store_true",
                        help="--calibrate: continue the streams found in --calibration-out (same --seed, --max-n)")
    parser.add_argument("--seed", type=int, default=0, help="--calibrate: the seed of the drawn cases (default 0)")
    parser.add_argument("--until", metavar="HH:MM",
                        help="--calibrate: start no case after this UTC time (the streams advance in turn)")


def _ints(text: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"{what} must be a comma-separated list of integers, got {text!r}") from None
    if not values:
        raise ValueError(f"{what} must list at least one integer, got {text!r}")
    return values


def _window(text: str):
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(f"--window must be LEFT,RIGHT (integers or 'none'), got {text!r}")
    out = []
    for part in parts:
        part = part.strip().lower()
        if part == "none":
            out.append(None)
            continue
        try:
            out.append(int(part))
        except ValueError:
            raise ValueError(f"--window must be LEFT,RIGHT (integers or 'none'), got {text!r}") from None
    return tuple(out)


def _adapter(args):
    from symattn.products import conformance

    layout = args.layout
    if args.adapter == "torch":
        return conformance.torch_adapter(layout or "bhnd", device=args.device,
                                         dtype="bfloat16" if args.dtype == "bfloat16" else None)
    if args.adapter == "jax":
        return conformance.jax_adapter(layout or "bnhd")
    if args.device != "cpu":
        raise ValueError("--device applies to --adapter torch")
    return conformance.Adapter(layout=layout or "bhnd")


def run(args) -> int:
    from symattn.products import conformance
    from symattn.products.conformance.hints import for_cli

    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("symattn conform: needs Hypothesis, which drives the property search: "
              "pip install 'symattn[conform]'", file=sys.stderr)
        return 2
    if args.calibrate:
        return _calibrate(args)
    if args.target is None:
        print("symattn conform: MODULE:FUNCTION is required (or --calibrate)", file=sys.stderr)
        return 2
    if args.examples < 1:
        print(f"symattn conform: --examples must be >= 1, got {args.examples}", file=sys.stderr)
        return 2
    try:
        fn = conformance.load_callable(args.target)
        rope = conformance.load_callable(args.rope) if args.rope else None
        backward = args.backward
        if backward is not None and backward != "autograd":
            backward = conformance.load_callable(backward)
        kv_heads = None
        if args.kv_heads is not None:
            kv_heads = True if args.kv_heads == "any" else _ints(args.kv_heads, "--kv-heads")[0]
        kwargs = {
            "causal": args.causal or False, "mask": args.mask, "dtype": args.dtype, "examples": args.examples,
            "adapter": _adapter(args), "rope": rope, "target": args.target, "value_dim": args.value_dim, "hints": "cli",
            "square": args.square, "max_n": args.max_n,
            "head_dims": _ints(args.head_dims, "--head-dims") if args.head_dims else None,
            "dtypes": [x.strip() for x in args.dtypes.split(",")] if args.dtypes else None,
            "backward": backward, "returns_lse": args.returns_lse, "kv_heads": kv_heads,
            "window": _window(args.window) if args.window else None,
            "align": [x.strip() for x in args.align.split(",")], "softcap": args.softcap, "alibi": args.alibi,
            "key_lengths": args.key_lengths, "dropout": args.dropout, "masked_values_safe": args.masked_values_safe,
            "call_timeout": args.call_timeout,
        }
        result = conformance.check(fn, **kwargs)
    except (ValueError, TypeError, ImportError) as exc:
        print(f"symattn conform: {for_cli(str(exc))}", file=sys.stderr)
        return 2
    print(conformance.dumps(result) if args.json else result.table())
    return 0 if result.passed else 1


def _calibrate(args) -> int:
    from symattn.products.conformance import calibrate

    if args.target is not None:
        print("symattn conform: --calibrate runs the trusted peers; it takes no MODULE:FUNCTION", file=sys.stderr)
        return 2
    if args.cases < 1:
        print(f"symattn conform: --cases must be >= 1, got {args.cases}", file=sys.stderr)
        return 2
    if args.resume and not args.calibration_out:
        print("symattn conform: --resume needs --calibration-out FILE (the run to continue)", file=sys.stderr)
        return 2
    try:
        deadline = _deadline(args.until) if args.until else None
        if args.calibration_out:
            _writable(args.calibration_out)
            if args.resume:
                calibrate.load(args.calibration_out)
    except (ValueError, OSError) as exc:
        print(f"symattn conform: {exc}", file=sys.stderr)
        return 2
    max_n = args.max_n if args.max_n != 512 else 256
    dtypes = [x.strip() for x in args.dtypes.split(",")] if args.dtypes else None

    def progress(line):
        print(line, file=sys.stderr, flush=True)

    rows = calibrate.calibrate(args.cases, max_n=max_n, only=args.peer, dtypes=dtypes, progress=progress,
                               seed=args.seed, out=args.calibration_out, resume=args.resume, deadline=deadline)
    if not rows:
        print(f"symattn conform: no peer matches --peer {args.peer!r}", file=sys.stderr)
        return 2
    print(calibrate.dumps(rows) if args.json else calibrate.format_table(rows))
    return 0 if all(v[0] <= 1 for r in rows for v in r["worst"].values()) else 1


def _deadline(text: str) -> float:
    """``HH:MM`` (UTC) as a ``time.time()``: today, or tomorrow if that time has passed."""
    import datetime as dt

    try:
        hh, mm = (int(x) for x in text.split(":"))
        at = dt.time(hh, mm)
    except ValueError:
        raise ValueError(f"--until must be HH:MM (UTC), got {text!r}") from None
    now = dt.datetime.now(dt.UTC)
    when = dt.datetime.combine(now.date(), at, tzinfo=dt.UTC)
    if when <= now:
        when += dt.timedelta(days=1)
    return when.timestamp()


def _writable(path: str) -> None:
    """Refuse, before any case runs, a calibration file that cannot be written."""
    import os

    folder = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise ValueError(f"--calibration-out {path!r} is a directory")
    if not os.path.isdir(folder):
        raise ValueError(f"--calibration-out {path!r}: no directory {folder!r}")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"--calibration-out {path!r}: directory {folder!r} is not writable")
