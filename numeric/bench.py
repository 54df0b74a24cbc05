r"""Benchmark of the tiled kernel against naive numpy attention and torch, in one run.

For each sequence length ``n`` it measures, on ``(B, n, d)`` float32 inputs (``B`` = batch x
heads):

* the median wall time of the tiled forward (:func:`numeric.tiled.tiled_attention`) and
  backward (:func:`numeric.tiled.tiled_attention_backward`);
* the same for the naive reference (:func:`numeric.reference.attention` and
  :func:`numeric.reference.attention_backward`), unless its ``n x n`` matrices would exceed the
  memory cap;
* when torch is importable, ``torch.nn.functional.scaled_dot_product_attention`` on CPU with its
  fused FlashAttention kernel, and its autograd backward (an optional peer: absent torch is
  reported, never an error);
* the achieved GFLOP/s -- forward attention is :math:`4 n^2 d` FLOPs per head (two matmuls of
  :math:`2 n^2 d`), halved (about) when causal; the backward is :math:`2.5\times` that (five
  matmuls) -- against this machine's float32 matmul rate, measured in the same run;
* the peak extra memory of the tiled and naive forward and backward, with :mod:`tracemalloc`
  (numpy reports its data allocations to it), in a separate, untimed run.

This is a benchmark, not a test: nothing here asserts a time. ``symattn bench`` is its CLI.
"""

from __future__ import annotations

import gc
import importlib
import json
import math
import os
import platform
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence

import numpy as np

from .reference import attention, attention_backward
from .tiled import (
    DEFAULT_BLOCK_K,
    DEFAULT_BLOCK_Q,
    _default_blocks,
    cpu_count,
    tiled_attention,
    tiled_attention_backward,
)
from .validation import check_attention_args

__all__ = [
    "DEFAULT_SIZES",
    "VARIANTS",
    "attention_flops",
    "format_table",
    "matmul_gflops",
    "median_time",
    "memory_profile",
    "naive_bytes",
    "peak_memory",
    "run_bench",
    "timings",
    "visible_pairs",
]

DEFAULT_SIZES = (1024, 4096, 16384)
MIB = 2**20


def attention_flops(n_q: int, n_k: int, d: int, *, batch: int = 1, causal: bool = False) -> float:
    """FLOPs of one attention forward: ``S = Q K^T`` and ``O = P V``, ``2 n_q n_k d`` each.

    >>> attention_flops(1024, 1024, 64) / 1e9           # 4 * 1024^2 * 64
    0.268435456
    """
    pairs = n_q * n_k if not causal else n_q * n_k - n_q * (n_q - 1) / 2  # visible (i, j)
    return 4.0 * pairs * d * batch


def naive_bytes(n_q: int, n_k: int, *, batch: int = 1, itemsize: int = 4, backward: bool = False) -> int:
    """Rough peak of the naive reference: it holds ~3 (forward) or ~5 (backward) ``n_q x n_k`` arrays.

    >>> naive_bytes(16384, 16384) / 2**30                # three float32 16384^2 matrices: 3 GiB
    3.0
    """
    return (5 if backward else 3) * n_q * n_k * batch * itemsize


def timings(fn: Callable[[], object], *, repeats: int = 5, budget: float = 10.0) -> list[float]:
    """Wall times of up to ``repeats`` calls of ``fn()``, after one warm-up call.

    Stops early once ``budget`` seconds have been spent (at least one timed call). When the
    warm-up alone exceeds the budget its time is the single sample.
    """
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    if first > budget:
        return [first]
    times: list[float] = []
    spent = first
    while len(times) < repeats and (not times or spent < budget):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        spent += times[-1]
    return times


def median_time(fn: Callable[[], object], *, repeats: int = 5, budget: float = 10.0) -> tuple[float, int]:
    """``(median seconds, number of timed calls)`` of :func:`timings`.

    >>> seconds, runs = median_time(lambda: None, repeats=3)
    >>> runs, seconds < 1.0
    (3, True)
    """
    times = timings(fn, repeats=repeats, budget=budget)
    return statistics.median(times), len(times)


def peak_memory(fn: Callable[[], object]) -> tuple[int, object]:
    """Peak bytes allocated (as seen by tracemalloc) while ``fn()`` runs, above what was live before.

    >>> peak, _ = peak_memory(lambda: np.ones(2**20))     # one 8 MiB array
    >>> 8 * 2**20 <= peak < 9 * 2**20
    True
    """
    gc.collect()
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if started:
            tracemalloc.stop()
    return peak - base, result


def matmul_gflops(n: int = 2048, dtype=np.float32, repeats: int = 5) -> float:
    """This machine's matmul rate (GFLOP/s) on one ``n x n`` product, median of ``repeats``."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32).astype(dtype)
    b = rng.standard_normal((n, n), dtype=np.float32).astype(dtype)
    c = np.empty_like(a)
    seconds, _ = median_time(lambda: np.matmul(a, b, out=c), repeats=repeats)
    return 2.0 * n**3 / seconds / 1e9


def _torch():
    try:
        return importlib.import_module("torch")
    except ImportError:
        return None


def _inputs(n: int, d: int, batch: int, dtype, seed: int = 0):
    rng = np.random.default_rng(seed)
    q, k, v, d_out = (rng.standard_normal((batch, n, d), dtype=np.float32).astype(dtype) for _ in range(4))
    return q, k, v, d_out


def visible_pairs(n: int, *, causal: bool = False, window: int | None = None) -> int:
    """Number of (query, key) pairs that may attend, self-attention of length ``n``.

    ``window`` is the left width of a causal sliding window (query ``i`` sees ``i - w .. i``).

    >>> visible_pairs(4), visible_pairs(4, causal=True), visible_pairs(4, causal=True, window=1)
    (16, 10, 7)
    """
    i = np.arange(n)
    if window is not None:
        return int(np.minimum(i + 1, window + 1).sum())
    return int((i + 1).sum()) if causal else n * n


def _wall(fn: Callable[[], object]) -> Callable[[], float]:
    def timed() -> float:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    return timed


VARIANTS = ("gqa", "window", "softcap", "alibi")


class _Workload:
    """Inputs, keyword arguments and the torch peer of one benchmark configuration.

    * ``None``: ``(B, n, d)`` plain (or causal) attention; torch SDPA's fused kernel.
    * ``"gqa"``: ``B`` query heads sharing ``B / group`` key/value heads, causal if asked;
      torch SDPA with ``enable_gqa=True`` (fused kernel).
    * ``"window"``: a causal sliding window of ``window`` keys to the left (Mistral-style);
      torch SDPA with the equivalent boolean band mask (an ``n x n`` input; the fused kernel
      still computes every tile).
    * ``"softcap"``: Gemma-2 style ``c tanh(s / c)``, causal if asked; torch has no soft-cap in
      SDPA, so its peer is the explicit formula (``n x n`` scores, autograd).
    * ``"alibi"``: the slopes of :func:`numeric.alibi_slopes` for ``B`` heads, causal if asked;
      torch SDPA with the bias as a float ``(1, B, n, n)`` mask (``-inf`` above the diagonal
      when causal), which torch runs on its non-fused path.
    """

    def __init__(self, variant, n, d, batch, dtype, causal, *, window=256, softcap=50.0, group=4):
        from .reference import alibi_slopes

        self.variant, self.n, self.causal = variant, n, causal
        rng = np.random.default_rng(0)

        def normal(*shape):
            return rng.standard_normal(shape, dtype=np.float32).astype(dtype)

        self.kw: dict = dict(causal=causal)
        pairs = visible_pairs(n, causal=causal)
        heads = batch
        if variant is None:
            self.q, self.k, self.v, self.d_out = (normal(batch, n, d) for _ in range(4))
        elif variant == "gqa":
            heads = batch if batch % group == 0 and batch > group else 2 * group
            self.q, self.d_out = normal(1, heads, n, d), normal(1, heads, n, d)
            self.k, self.v = normal(1, heads // group, n, d), normal(1, heads // group, n, d)
        else:
            self.q, self.k, self.v, self.d_out = (normal(1, batch, n, d) for _ in range(4))
            if variant == "window":
                self.kw = dict(causal=True, window=(window, 0))
                pairs = visible_pairs(n, causal=True, window=window)
            elif variant == "softcap":
                self.kw["softcap"] = softcap
            elif variant == "alibi":
                self.kw["alibi_slopes"] = alibi_slopes(batch)
            else:
                raise ValueError(f"variant must be one of {VARIANTS} or None, got {variant!r}")
        self.heads = heads
        self.flops = 4.0 * pairs * d * heads
        self.description = {
            None: "plain" + (" causal" if causal else ""),
            "gqa": f"GQA: {heads} query heads on {heads // group} key/value heads" + (", causal" if causal else ""),
            "window": f"causal sliding window of {window} keys",
            "softcap": f"soft-cap {softcap:g}" + (", causal" if causal else ""),
            "alibi": f"ALiBi, {batch} heads" + (", causal" if causal else ""),
        }[variant]
        self.window, self.softcap = window, softcap

    def naive_matrices(self) -> int:
        """How many n x n score matrices (over all heads) the naive reference holds at once."""
        return self.heads

    def torch_runs(self, torch, backward: bool) -> tuple[dict[str, Callable[[], float]], str]:
        """Timed calls of the torch peer (forward, backward), and what the peer is."""
        from torch.nn.attention import SDPBackend, sdpa_kernel

        sdpa = torch.nn.functional.scaled_dot_product_attention
        tq, tk, tv, tdo = (torch.from_numpy(x) for x in (self.q, self.k, self.v, self.d_out))
        if tq.ndim == 3:
            # torch only uses its fused kernels on 4-D inputs and would otherwise fall back to
            # the math path, which materialises n x n (an OOM at n = 65536).
            tq, tk, tv, tdo = (x.reshape(1, *x.shape) for x in (tq, tk, tv, tdo))
        n, causal = self.n, self.causal
        fused = [SDPBackend.FLASH_ATTENTION]
        if self.variant in (None, "gqa"):
            extra = dict(is_causal=causal, enable_gqa=self.variant == "gqa")
            backends, peer = fused, "SDPA fused (flash) kernel" + (", enable_gqa" if self.variant else "")
        elif self.variant == "window":
            i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
            extra = dict(attn_mask=(j <= i) & (j >= i - self.window))  # (n, n) boolean band
            backends, peer = fused, "SDPA fused kernel with a boolean n x n band mask"
        elif self.variant == "alibi":
            slopes = torch.from_numpy(self.kw["alibi_slopes"]).to(tq.dtype)
            i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
            bias = -slopes[:, None, None] * (i - j).abs().to(tq.dtype)  # (h, n, n)
            if causal:
                bias = bias.masked_fill(j > i, float("-inf"))
            extra = dict(attn_mask=bias[None])  # (1, h, n, n)
            backends, peer = None, "SDPA (default backend) with a float (1, h, n, n) bias mask"
        else:  # softcap: torch has none in SDPA; the formula
            c = self.softcap
            scale = 1.0 / math.sqrt(tq.shape[-1])
            causal_mask = torch.ones(n, n, dtype=torch.bool).triu(1) if causal else None

            def sdpa(q, k, v, **_):
                s = (q @ k.transpose(-1, -2)) * scale
                s = c * torch.tanh(s / c)
                if causal_mask is not None:
                    s = s.masked_fill(causal_mask, float("-inf"))
                return torch.softmax(s, dim=-1) @ v

            extra, backends, peer = {}, None, "explicit formula (n x n scores, autograd)"

        def call(*args):
            if backends is None:
                return sdpa(*args, **extra)
            with sdpa_kernel(backends):
                return sdpa(*args, **extra)

        def forward():
            with torch.no_grad():
                call(tq, tk, tv)

        runs = {"torch_fwd": _wall(forward)}
        if backward:
            leaves = [x.clone().requires_grad_() for x in (tq, tk, tv)]

            def backward_only() -> float:
                for x in leaves:
                    x.grad = None
                o = call(*leaves)  # builds the graph, untimed
                t0 = time.perf_counter()
                o.backward(tdo)
                return time.perf_counter() - t0

            runs["torch_bwd"] = backward_only
        return runs, peer


def _rounds(runs: dict[str, Callable[[], float]], *, rounds: int, repeats: int, budget: float,
            pause: float = 0.25) -> dict[str, list[list[float]]]:  # fmt: skip
    """Time every measurement in ``rounds`` rounds; returns, per key, the samples of each round.

    In a round each measurement gets its own group: a pause, one untimed warm-up call, then up to
    ``repeats`` timed calls, stopping once ``budget / rounds`` seconds are spent (at least one).
    A first warm-up slower than the whole budget is the single sample of the single round.

    Groups, not calls, are interleaved: alternating torch (OpenMP worker threads) with numpy
    (OpenBLAS worker threads) call by call made both libraries' spinning workers fight over the 2
    cores, slowing torch's backward tenfold. ``pause`` seconds before and after each torch group
    let the previous library's workers go to sleep. Rounds are interleaved so that a change in the machine's load
    (other processes) hits every measurement of a round alike: a ratio taken within one round, then
    the median over rounds, is far steadier than a ratio of medians taken minutes apart.
    """
    times: dict[str, list[list[float]]] = {key: [] for key in runs}
    slow: set[str] = set()
    per_round = budget / rounds
    library = None
    for r in range(rounds):
        for key, fn in runs.items():
            if key in slow:
                continue
            if key.split("_")[0] == "torch" or library == "torch":
                time.sleep(pause)  # switching between OpenMP (torch) and OpenBLAS (numpy) workers
            library = key.split("_")[0]
            first = fn()
            if r == 0 and first > budget:
                times[key].append([first])
                slow.add(key)
                continue
            samples: list[float] = []
            while len(samples) < repeats and (not samples or sum(samples) < per_round):
                samples.append(fn())
            times[key].append(samples)
    return times


def _round_ratios(a: list[list[float]] | None, b: list[list[float]] | None) -> list[float]:
    """Per round, median of ``a`` over median of ``b`` (the rounds both have)."""
    if not a or not b:
        return []
    return [statistics.median(x) / statistics.median(y) for x, y in zip(a, b) if x and y]


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - platform without getloadavg
        return None


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover
        pass
    return platform.processor() or platform.machine()


def run_bench(
    sizes: Sequence[int] = DEFAULT_SIZES,
    *,
    d: int = 64,
    batch: int = 1,
    dtype=np.float32,
    causal: bool = False,
    repeats: int = 5,
    rounds: int = 3,
    budget: float = 10.0,
    backward: bool = True,
    naive_cap_mib: float = 4096.0,
    use_torch: bool = True,
    memory: bool = True,
    block_q: int | None = None,
    block_k: int | None = None,
    threads: int | None = None,
    variant: str | Sequence[str | None] | None = None,
    window: int = 256,
    softcap: float = 50.0,
    group: int = 4,
    matmul_n: int = 2048,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Run the benchmark; returns a JSON-ready dict ``{"machine": ..., "config": ..., "rows": [...]}``.

    Every row has ``n`` and, per implementation ``tiled``, ``naive``, ``torch``, the keys
    ``<impl>_fwd_s``, ``<impl>_bwd_s`` (median seconds, ``None`` when skipped), ``<impl>_fwd_gflops``
    and, for tiled and naive, ``<impl>_fwd_peak_mib`` / ``<impl>_bwd_peak_mib``; ``ratios`` holds
    ``tiled/torch`` and ``naive/tiled`` for forward and backward -- each the median over the
    ``rounds`` of the ratio within a round (see :func:`_rounds`; the per-round ratios are in
    ``round_ratios``); ``notes`` explains skips.
    ``variant`` (one of :data:`VARIANTS`, or ``None`` / ``"plain"`` for plain attention) selects a
    workload of :class:`_Workload`; a sequence of them times every workload in the same run (rows
    in that order, each with its ``variant`` and ``workload``).
    """
    variants = list(variant) if isinstance(variant, (list, tuple)) else [variant]
    variants = [None if v == "plain" else v for v in variants]
    for v in variants:
        if v is not None and v not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS} or None, got {v!r}")
    if rounds < 1:
        raise ValueError(f"rounds must be positive, got {rounds}")
    say = progress or (lambda message: None)
    torch = _torch() if use_torch else None
    say("measuring the float32 matmul rate")
    machine = {
        "platform": platform.platform(),
        "processor": _cpu_name(),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "torch": getattr(torch, "__version__", None),
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "load_average_before": _load(),
        "matmul_n": matmul_n,
        "matmul_gflops": matmul_gflops(matmul_n),
    }
    config = dict(
        sizes=list(sizes), d=d, batch=batch, dtype=np.dtype(dtype).name, causal=causal,
        repeats=repeats, rounds=rounds, budget_s=budget, backward=backward, naive_cap_mib=naive_cap_mib,
        block_q=block_q or DEFAULT_BLOCK_Q, block_k=block_k or DEFAULT_BLOCK_K,
        threads=threads or cpu_count(), variant=variants[0] if len(variants) == 1 else variants,
    )  # fmt: skip
    tiled_kw = dict(block_q=block_q, block_k=block_k, threads=threads)
    itemsize = np.dtype(dtype).itemsize
    def one_size(n: int, variant: str | None) -> dict:  # a function: the timed closures bind this size's arrays
        w = _Workload(variant, n, d, batch, dtype, causal, window=window, softcap=softcap, group=group)
        row: dict = {"n": n, "variant": variant, "workload": w.description, "notes": []}
        workloads = config.setdefault("workloads", [])
        if w.description not in workloads:
            workloads.append(w.description)
        config["workload"] = "; ".join(workloads)
        default_q, default_k = _default_blocks(check_attention_args(w.q, w.k, w.v, **w.kw))
        config["block_q"], config["block_k"] = block_q or default_q, block_k or default_k
        row["block_q"], row["block_k"] = config["block_q"], config["block_k"]
        q, k, v, d_out, kw = w.q, w.k, w.v, w.d_out, w.kw
        flops = w.flops
        out, lse = tiled_attention(q, k, v, **kw, **tiled_kw)

        # Each measurement is a callable returning the seconds it took (so that torch's
        # backward can exclude the forward that builds its graph); all run on the same inputs.
        runs: dict[str, Callable[[], float]] = {
            "tiled_fwd": _wall(lambda: tiled_attention(q, k, v, **kw, **tiled_kw)),
        }
        if backward:
            runs["tiled_bwd"] = _wall(lambda: tiled_attention_backward(q, k, v, out, lse, d_out, **kw, **tiled_kw))
        heads = w.naive_matrices()
        naive_fwd = naive_bytes(n, n, batch=heads, itemsize=itemsize) <= naive_cap_mib * MIB
        naive_bwd = backward and naive_bytes(n, n, batch=heads, itemsize=itemsize, backward=True) <= naive_cap_mib * MIB
        if naive_fwd:
            runs["naive_fwd"] = _wall(lambda: attention(q, k, v, **kw))
        else:
            row["notes"].append(
                f"naive skipped at n={n}: its n x n matrices need ~"
                f"{naive_bytes(n, n, batch=heads, itemsize=itemsize) / MIB:.0f} MiB > cap {naive_cap_mib:.0f} MiB"
            )
        if naive_bwd:
            runs["naive_bwd"] = _wall(lambda: attention_backward(q, k, v, d_out, **kw))
        elif backward and naive_fwd:
            row["notes"].append(f"naive backward skipped at n={n}: over the memory cap")
        if torch is not None:
            # torch's softcap and ALiBi peers hold n x n float matrices per head, like naive
            # (the window's boolean band mask is one n x n byte matrix: always run)
            if variant in ("softcap", "alibi") and not naive_fwd:
                row["notes"].append(f"torch peer skipped at n={n}: its n x n matrices exceed the memory cap")
            else:
                try:
                    torch_runs, peer = w.torch_runs(torch, backward)
                    torch_runs["torch_fwd"]()  # fails fast if the requested kernel is unavailable
                    runs.update(torch_runs)
                    row["torch_peer"] = peer
                    peers = config.setdefault("torch_peers", [])
                    if peer not in peers:
                        peers.append(peer)
                    config["torch_peer"] = "; ".join(peers)
                except (ImportError, RuntimeError) as exc:
                    row["notes"].append(f"torch kernel unavailable, torch peer skipped: {exc}")
        elif use_torch:
            row["notes"].append("torch not importable: torch peer skipped")
        else:
            row["notes"].append("torch peer disabled")

        say(f"n={n}: timing {', '.join(runs)}")
        timed = _rounds(runs, rounds=rounds, repeats=repeats, budget=budget)
        for key, per_round in timed.items():
            times = [t for samples in per_round for t in samples]
            row[f"{key}_s"] = statistics.median(times)
            row[f"{key}_min_s"] = min(times)
            row[f"{key}_runs"] = len(times)

        if memory:
            say(f"n={n}: peak memory (tracemalloc)")
            row["tiled_fwd_peak_mib"] = peak_memory(lambda: tiled_attention(q, k, v, **kw, **tiled_kw))[0] / MIB
            if backward:
                row["tiled_bwd_peak_mib"] = peak_memory(
                    lambda: tiled_attention_backward(q, k, v, out, lse, d_out, **kw, **tiled_kw)
                )[0] / MIB  # fmt: skip
            if naive_fwd:
                row["naive_fwd_peak_mib"] = peak_memory(lambda: attention(q, k, v, **kw))[0] / MIB
            if naive_bwd:
                row["naive_bwd_peak_mib"] = peak_memory(lambda: attention_backward(q, k, v, d_out, **kw))[0] / MIB

        for impl in ("tiled", "naive", "torch"):
            t = row.get(f"{impl}_fwd_s")
            row[f"{impl}_fwd_gflops"] = flops / t / 1e9 if t else None
            t = row.get(f"{impl}_bwd_s")
            row[f"{impl}_bwd_gflops"] = 2.5 * flops / t / 1e9 if t else None
        ratios, round_ratios = {}, {}
        for phase in ("fwd", "bwd"):
            tiled, naive, tt = (timed.get(f"{impl}_{phase}") for impl in ("tiled", "naive", "torch"))
            for name, (a, b) in (("tiled/torch", (tiled, tt)), ("naive/tiled", (naive, tiled))):
                per_round = _round_ratios(a, b)
                ratios[f"{name}_{phase}"] = statistics.median(per_round) if per_round else None
                round_ratios[f"{name}_{phase}"] = per_round
        row["ratios"] = ratios
        row["round_ratios"] = round_ratios
        row["load_average"] = _load()
        return row

    rows = []
    for variant_ in variants:
        for n in sizes:
            rows.append(one_size(n, variant_))
            gc.collect()
    machine["load_average_after"] = _load()
    return {"machine": machine, "config": config, "rows": rows}


def _fmt(x, spec: str) -> str:
    width = int("".join(c for c in spec.split(".")[0] if c.isdigit()) or 0)
    return "-".rjust(width) if x is None else format(x, spec)


def format_table(result: dict) -> str:
    """A readable table of :func:`run_bench`'s result."""
    m, c = result["machine"], result["config"]
    lines = [
        f"attention benchmark: {c.get('workload', '')}; d={c['d']}, batch*heads={c['batch']}, {c['dtype']}, "
        f"causal={c['causal']}, blocks {c['block_q']}x{c['block_k']}, {c.get('threads')} threads",
        f"torch peer: {c.get('torch_peer', 'none')}",
        f"machine: {m['processor']}, {m['cpus']} CPUs, numpy {m['numpy']}, torch {m['torch'] or 'not used'}"
        + (f" ({m['torch_threads']} threads)" if m["torch"] else ""),
        f"float32 matmul rate ({m['matmul_n']}^3, measured now): {m['matmul_gflops']:.1f} GFLOP/s; "
        f"load average before {m['load_average_before']}, after {m.get('load_average_after')}",
        f"times are medians over {c.get('rounds', 1)} interleaved rounds of up to {c['repeats']} calls "
        "after a warm-up (min in --json); ratios are the median over rounds of the ratio within a round; "
        "GF/s = 4 d x visible pairs (x2.5 backward) / time",
        "",
    ]
    head = (
        f"{'n':>7} {'phase':>5} | {'tiled s':>8} {'naive s':>8} {'torch s':>8} | "
        f"{'tiled/torch':>11} {'naive/tiled':>11} | {'tiled GF/s':>10} {'%matmul':>7} | "
        f"{'tiled MiB':>9} {'naive MiB':>9}"
    )
    lines += [head, "-" * len(head)]
    several = len(c.get("workloads", [])) > 1
    shown = None
    for r in result["rows"]:
        if several and r.get("workload") != shown:
            shown = r.get("workload")
            blocks = f"{r.get('block_q')}x{r.get('block_k')}"
            lines.append(f"{shown} (blocks {blocks}; torch: {r.get('torch_peer', 'none')})")
        for phase in ("fwd", "bwd"):
            if f"tiled_{phase}_s" not in r:
                continue
            gf = r.get(f"tiled_{phase}_gflops")
            lines.append(
                f"{r['n']:>7} {phase:>5} | {_fmt(r.get(f'tiled_{phase}_s'), '8.3f')} "
                f"{_fmt(r.get(f'naive_{phase}_s'), '8.3f')} {_fmt(r.get(f'torch_{phase}_s'), '8.3f')} | "
                f"{_fmt(r['ratios'][f'tiled/torch_{phase}'], '11.2f')} "
                f"{_fmt(r['ratios'][f'naive/tiled_{phase}'], '11.2f')} | "
                f"{_fmt(gf, '10.1f')} {_fmt(gf and 100 * gf / m['matmul_gflops'], '6.0f')}% | "
                f"{_fmt(r.get(f'tiled_{phase}_peak_mib'), '9.1f')} {_fmt(r.get(f'naive_{phase}_peak_mib'), '9.1f')}"
            )
    notes = [note for r in result["rows"] for note in r["notes"]]
    if notes:
        lines += ["", *("note: " + note for note in notes)]
    return "\n".join(lines)


def memory_profile(sizes: Sequence[int] = (512, 1024, 2048, 4096), *, d: int = 64, dtype=np.float32) -> list[dict]:
    """Peak extra memory and time of the tiled and naive forward at small sizes (a few seconds).

    Returns one dict per size: ``n``, ``tiled_peak_bytes``, ``naive_peak_bytes``, ``tiled_s``,
    ``naive_s`` (one call each, after a warm-up). The naive peak grows as ``n^2``, the tiled one
    as ``n``: the figure in the report.

    >>> [row["n"] for row in memory_profile((64, 128))]
    [64, 128]
    """
    rows = []
    for n in sizes:
        q, k, v, _ = _inputs(n, d, 1, dtype)
        row = {"n": n}
        for name, fn in (("tiled", lambda q=q, k=k, v=v: tiled_attention(q, k, v)),
                         ("naive", lambda q=q, k=k, v=v: attention(q, k, v))):
            fn()
            row[f"{name}_peak_bytes"] = peak_memory(fn)[0]
            t0 = time.perf_counter()
            fn()
            row[f"{name}_s"] = time.perf_counter() - t0
        rows.append(row)
    return rows


def to_json(result: dict) -> str:
    return json.dumps(result, indent=2)
