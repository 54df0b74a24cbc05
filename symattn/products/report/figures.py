"""Figures for the reports: each a picture of one claim, drawn deterministically.

A figure is registered under a name (:data:`FIGURES`); theorems name the figures that
illustrate them in ``Theorem.figures``. Every figure is drawn with matplotlib's object API (no
``pyplot``, no global backend switch), from fixed random seeds, and saved with
``svg.hashsalt`` set and the date metadata removed, so that the same inputs give the same bytes:
SVG for the HTML report (inlined), PDF for the LaTeX report.

Figures
-------
``dot_product_spread``
    Monte Carlo standard deviation of :math:`\\langle q, k\\rangle` and of
    :math:`\\langle q, k\\rangle/\\sqrt{d_k}` against :math:`d_k`, with the reference lines
    :math:`\\sqrt{d_k}` and 1 (seed 002's demonstration, as a picture).
``softmax_saturation``
    :math:`\\|J\\|_2` of the softmax Jacobian and :math:`\\max_j a_j` against the logit scale.
``rope_logit_diagonals``
    The RoPE logit :math:`\\langle R_p q, R_{p'} k\\rangle` over :math:`(p, p')`: constant along
    diagonals.
``flops_crossover``
    Attention-score and MLP FLOPs against :math:`n` at fixed :math:`d`, with the crossover.
``tiled_memory``
    Working memory of the tiled kernel and of the naive formula against :math:`n`, counted from
    array sizes (measured peaks only with ``timings``).

>>> sorted(FIGURES)[:2]
['dot_product_spread', 'flops_crossover']
>>> render("rope_logit_diagonals", "svg")[:5]
b'<svg '
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Figure", "FIGURES", "figure", "render", "DrawOptions"]


@dataclass(frozen=True)
class DrawOptions:
    """What a figure may depend on besides its seed. ``timings`` allows wall-clock data
    (never reproducible byte for byte), off by default."""

    timings: bool = False


@dataclass(frozen=True)
class Figure:
    """A named figure: ``draw(fig, options)`` draws on a matplotlib figure and returns a
    caption sentence describing what was computed (sample sizes, seeds, data source)."""

    name: str
    title: str
    caption: str
    draw: Callable[[Any, DrawOptions], str]
    size: tuple = (6.4, 3.6)


FIGURES: dict[str, Figure] = {}


def figure(name: str, title: str, caption: str, size: tuple = (6.4, 3.6)):
    """Register the decorated ``draw(fig, options) -> str`` function as figure ``name``."""

    def register(fn):
        if name in FIGURES:
            raise ValueError(f"figure {name!r} registered twice")
        FIGURES[name] = Figure(name, title, caption, fn, size)
        return fn

    return register


@dataclass
class Rendered:
    """A drawn figure in one format, with the caption the draw function returned."""

    name: str
    fmt: str
    data: bytes
    detail: str = ""
    extra: dict = field(default_factory=dict)


_RC = {
    "svg.fonttype": "none",  # text stays text: smaller, selectable, and independent of font files
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.6,
    "pdf.compression": 6,
}


def render(name: str, fmt: str = "svg", options: DrawOptions | None = None) -> bytes:
    """The bytes of figure ``name`` in ``fmt`` (``"svg"`` or ``"pdf"``)."""
    return render_formats(name, (fmt,), options)[fmt].data


def render_formats(name: str, formats=("svg", "pdf"), options: DrawOptions | None = None) -> dict[str, Rendered]:
    """Draw figure ``name`` once and save it in each of ``formats``.

    Raises ``KeyError`` for an unknown name and ``ValueError`` for an unknown format.
    """
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    if name not in FIGURES:
        raise KeyError(f"no figure named {name!r}; known figures: {sorted(FIGURES)}")
    bad = [f for f in formats if f not in ("svg", "pdf")]
    if bad:
        raise ValueError(f"figure formats must be 'svg' or 'pdf', got {bad}")
    spec = FIGURES[name]
    options = options or DrawOptions()
    # a salt per figure: inlined SVGs in one page must not share clip-path ids
    with matplotlib.rc_context({**_RC, "svg.hashsalt": f"symattn-{name}"}):
        fig = MplFigure(figsize=spec.size, layout="constrained")
        FigureCanvasAgg(fig)
        detail = spec.draw(fig, options)
        out = {}
        for fmt in formats:
            buf = io.BytesIO()
            meta = {"Date": None} if fmt == "svg" else {"CreationDate": None, "ModDate": None, "Producer": None}
            fig.savefig(buf, format=fmt, metadata=meta)
            data = buf.getvalue()
            if fmt == "svg":
                data = _inline_svg(data)
            out[fmt] = Rendered(name, fmt, data, detail)
    return out


def _inline_svg(data: bytes) -> bytes:
    """Strip the XML prolog and DOCTYPE so the SVG can be inlined in HTML, and make it scale."""
    text = data.decode("utf-8")
    text = text[text.index("<svg"):]
    # responsive: keep the viewBox, let CSS decide the width
    text = re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1', text, count=1)
    return text.encode("utf-8")


# ---------------------------------------------------------------------------------------------- figures
@figure(
    "dot_product_spread",
    r"Spread of the dot product with and without the $1/\sqrt{d_k}$ factor",
    r"Standard deviation of $\langle q, k\rangle$ over random $q, k$ with i.i.d. $N(0, 1)$ entries, against $d_k$ "
    r"(log-log). Unscaled, the spread follows $\sqrt{d_k}$; divided by $\sqrt{d_k}$ it stays at $1$.",
)
def _dot_product_spread(fig, options: DrawOptions) -> str:
    rng = np.random.default_rng(2)
    samples = 4000
    dims = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
    raw, scaled = [], []
    for d in dims:
        q = rng.standard_normal((samples, d))  # (samples, d_k)
        k = rng.standard_normal((samples, d))  # (samples, d_k)
        dot = np.einsum("sd,sd->s", q, k)  # (samples,)
        raw.append(dot.std(ddof=1))
        scaled.append((dot / np.sqrt(d)).std(ddof=1))
    raw, scaled = np.array(raw), np.array(scaled)
    # the legend writes d_k^{1/2}, not \sqrt{d_k}: an SVG with text as text (svg.fonttype none) draws
    # a radical's bar as a line and its sign in the browser's font, which do not meet
    # a sample std of n draws has relative standard error about sqrt((kurtosis - 1) / (4 n));
    # <q,k> has kurtosis 3 + 6/d_k, so 1.96 * sqrt((2 + 6/d) / (4 n)) is a 95% band
    rel = 1.96 * np.sqrt((2 + 6 / dims) / (4 * samples))
    ax = fig.add_subplot()
    ax.errorbar(dims, raw, yerr=rel * raw, fmt="o-", color="C3", capsize=2, label=r"std of $\langle q,k\rangle$")
    ax.errorbar(dims, scaled, yerr=rel * scaled, fmt="s-", color="C0", capsize=2,
                label=r"std of $\langle q,k\rangle\, d_k^{-1/2}$")
    ax.plot(dims, np.sqrt(dims), "--", color="0.3", label=r"$d_k^{1/2}$")
    ax.plot(dims, np.ones_like(dims, dtype=float), ":", color="0.3", label="1")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel(r"head dimension $d_k$")
    ax.set_ylabel("standard deviation")
    ax.legend(loc="upper left", fontsize=8)
    worst = float(np.max(np.abs(scaled - 1)))
    return (f"{samples} Monte Carlo pairs per d_k, seed 2; error bars are approximate 95% intervals; "
            f"largest deviation of the scaled spread from 1: {worst:.3f}.")


@figure(
    "softmax_saturation",
    "Softmax saturation: the Jacobian vanishes as the logits spread",
    r"For random logits $z$ ($n = 16$, i.i.d. $N(0, 1)$) scaled by $t$: the spectral norm of the softmax "
    r"Jacobian $\operatorname{diag}(a) - a a^\top$ and the largest weight $\max_j a_j$, against $t$. Medians over "
    "draws, with the 10-90% range shaded.",
)
def _softmax_saturation(fig, options: DrawOptions) -> str:
    rng = np.random.default_rng(0)
    n, draws = 16, 64
    scales = np.logspace(-1, 2, 61)
    z = rng.standard_normal((draws, n))  # (draws, n)
    norms = np.empty((draws, scales.size))
    peaks = np.empty((draws, scales.size))
    for c, t in enumerate(scales):
        s = t * z
        a = np.exp(s - s.max(axis=1, keepdims=True))
        a /= a.sum(axis=1, keepdims=True)  # (draws, n)
        jac = np.einsum("bi,ij->bij", a, np.eye(n)) - np.einsum("bi,bj->bij", a, a)  # (draws, n, n)
        norms[:, c] = np.linalg.eigvalsh(jac)[:, -1]  # symmetric PSD: spectral norm = top eigenvalue
        peaks[:, c] = a.max(axis=1)
    ax = fig.add_subplot()
    for data, color, label in ((norms, "C3", r"$\|J\|_2$"), (peaks, "C0", r"$\max_j a_j$")):
        lo, med, hi = np.percentile(data, [10, 50, 90], axis=0)
        ax.fill_between(scales, lo, hi, color=color, alpha=0.2, linewidth=0)
        ax.plot(scales, med, color=color, label=label)
    ax.axvline(8.0, color="0.3", linestyle="--", linewidth=1)
    ax.annotate(r"$t = 8$: unscaled logits at $d_k = 64$", (8.0, 0.55), xytext=(6, 0),
                textcoords="offset points", fontsize=8, color="0.3")
    ax.axvline(1.0, color="0.3", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(r"logit scale $t$ (logits $t z$)")
    ax.set_ylabel("value")
    ax.legend(loc="center left", fontsize=8)
    return f"{draws} draws of n = {n} logits, seed 0; {scales.size} scales from 0.1 to 100."


def _rope_rotate(x: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, str]:
    """RoPE via :func:`numeric.rope.rope` when it is importable, else the formula here."""
    try:
        from numeric.rope import rope

        return rope(x, positions), "numeric.rope.rope"
    except ImportError:
        d = x.shape[-1]
        theta = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
        ang = positions[:, None] * theta  # (n, d/2)
        a, b = x[..., 0::2], x[..., 1::2]
        out = np.empty_like(x)
        out[..., 0::2] = a * np.cos(ang) - b * np.sin(ang)
        out[..., 1::2] = a * np.sin(ang) + b * np.cos(ang)
        return out, "the RoPE formula"


@figure(
    "rope_logit_diagonals",
    "RoPE logits depend only on the offset $p' - p$",
    r"The logit $\langle R_p q, R_{p'} k\rangle$ for one fixed query $q$ and key $k$ ($d = 8$), over positions "
    r"$p, p' = 0, \dots, 31$. Every diagonal $p' - p = \mathrm{const}$ has a single colour.",
    size=(5.2, 4.2),
)
def _rope_logit_diagonals(fig, options: DrawOptions) -> str:
    rng = np.random.default_rng(5)
    d, n = 8, 32
    q = rng.standard_normal(d)
    k = rng.standard_normal(d)
    pos = np.arange(n, dtype=float)
    rq, how = _rope_rotate(np.tile(q, (n, 1)), pos)  # (n, d): R_p q for every p
    rk, _ = _rope_rotate(np.tile(k, (n, 1)), pos)  # (n, d): R_p' k for every p'
    logits = rq @ rk.T  # (p, p')
    # the largest spread along any diagonal: zero up to rounding
    spread = max(float(np.ptp(np.diagonal(logits, offset=o))) for o in range(-n + 1, n))
    ax = fig.add_subplot()
    im = ax.imshow(logits, origin="lower", cmap="RdBu_r", interpolation="nearest")
    fig.colorbar(im, ax=ax, shrink=0.85, label="logit")
    ax.set_xlabel(r"key position $p'$")
    ax.set_ylabel(r"query position $p$")
    ax.grid(False)
    return (f"q, k from seed 5, rotated with {how}; largest variation along a diagonal: {spread:.1e} "
            "(floating-point rounding).")


def _costs(n: np.ndarray, d: int, h: int = 32) -> tuple[np.ndarray, np.ndarray, str]:
    """Attention-score MACs (``QK^T`` and ``AV``) and MLP MACs per layer.

    From :func:`symattn.maths.complexity.layer_costs` (keys ``logits``, ``attention_values``, ``mlp``)
    when it is importable, else from the table of seed 000: ``n^2 d`` each for ``QK^T`` and
    ``AV``, ``8 n d^2`` for the MLP.
    """
    try:
        from symattn.maths.complexity import layer_costs
    except ImportError:
        return 2.0 * n**2 * d, 8.0 * n * d**2, "the formulas 2 n^2 d (QK^T and AV) and 8 n d^2 (MLP)"
    attn, mlp = [], []
    for m in n:
        t = layer_costs(int(m), d, h)
        attn.append(float(t["logits"] + t["attention_values"]))
        mlp.append(float(t["mlp"]))
    return np.array(attn), np.array(mlp), f"symattn.maths.complexity.layer_costs (h = {h})"


@figure(
    "flops_crossover",
    "Attention against MLP cost: the crossover in sequence length",
    "Multiply-accumulate counts per layer at width $d = 4096$: the attention scores and mixing "
    r"($QK^\top$ and $AV$, $2 n^2 d$) against the MLP ($8 n d^2$). They cross at $n = 4d$.",
)
def _flops_crossover(fig, options: DrawOptions) -> str:
    d = 4096
    n = np.unique(np.logspace(8, 18, 81, base=2).astype(np.int64)).astype(float)
    attn, mlp, how = _costs(n, d)
    ax = fig.add_subplot()
    ax.plot(n, attn, color="C3", label=r"attention ($QK^\top$, $AV$)")
    ax.plot(n, mlp, color="C0", label="MLP")
    sign = np.sign(attn - mlp)
    cross = np.nonzero(np.diff(sign))[0]
    text = "no crossover in the plotted range"
    if cross.size:
        i = int(cross[0])
        # the costs are polynomials in n: interpolate the crossing on the log scale
        x0, x1 = np.log(n[i]), np.log(n[i + 1])
        r0, r1 = np.log(attn[i] / mlp[i]), np.log(attn[i + 1] / mlp[i + 1])
        nc = float(np.exp(x0 - r0 * (x1 - x0) / (r1 - r0)))
        ax.axvline(nc, color="0.3", linestyle="--", linewidth=1)
        ax.annotate(f"crossover n ≈ {nc:,.0f} ({nc / d:.2g} d)", (nc, float(mlp.min())), xytext=(6, 8),
                    textcoords="offset points", fontsize=8, color="0.3")
        text = f"crossover at n ≈ {nc:,.0f} = {nc / d:.3g} d"
    for marker in (2048, 128_000):
        ratio = float(np.interp(np.log(marker), np.log(n), np.log(attn / mlp)))
        ax.plot([marker], [float(np.exp(np.interp(np.log(marker), np.log(n), np.log(attn))))], "k.")
        ax.annotate(f"n = {marker:,}: attention/MLP = {np.exp(ratio):.2g}", (marker, float(attn.min())),
                    xytext=(4, 30 if marker == 2048 else 50), textcoords="offset points", fontsize=7, rotation=90)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("multiply-accumulates per layer")
    ax.legend(loc="upper left", fontsize=8)
    return f"d = {d}; costs from {how}; {text}."


def _memory_rows(sizes) -> tuple[list[dict], str]:
    """Peak memory rows measured in a fresh interpreter.

    tracemalloc peaks include Python's own small allocations, which depend on what the process
    has done before (free lists, caches): in a long-lived process they drift by a few hundred
    bytes from call to call, in a fresh one they are the same every time. Measuring in a child
    process keeps the figure reproducible byte for byte.
    """
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]  # the checkout: symattn/products/report/figures.py
    code = ("import json, sys; from symattn.products.report.figures import _measure_memory; "
            "print(json.dumps(_measure_memory([int(a) for a in sys.argv[1:]])))")
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONHASHSEED"}
    env["PYTHONPATH"] = str(root) + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, "-c", code, *map(str, sizes)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=root)
    if proc.returncode != 0:
        raise RuntimeError(f"the memory measurement failed: {proc.stderr.strip()[-500:]}")
    rows, how = json.loads(proc.stdout)
    return rows, how


def _measure_memory(sizes) -> tuple[list[dict], str]:
    try:
        from numeric.bench import memory_profile

        return memory_profile(sizes), "numeric.bench.memory_profile"
    except ImportError:
        pass
    import gc
    import time
    import tracemalloc

    from numeric import attention, tiled_attention  # ImportError: the figure cannot be drawn

    rows = []
    rng = np.random.default_rng(0)
    for n in sizes:
        q, k, v = (rng.standard_normal((n, 64)).astype(np.float32) for _ in range(3))
        row = {"n": n}
        for name, fn in (("tiled", lambda q=q, k=k, v=v: tiled_attention(q, k, v)),
                         ("naive", lambda q=q, k=k, v=v: attention(q, k, v))):
            fn()
            gc.collect()
            tracemalloc.start()
            t0 = time.perf_counter()
            fn()
            row[f"{name}_s"] = time.perf_counter() - t0
            row[f"{name}_peak_bytes"] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        rows.append(row)
    return rows, "tracemalloc around numeric.tiled_attention / numeric.attention"


@figure(
    "tiled_memory",
    "Tiled (FlashAttention-style) against naive attention: working memory",
    "The memory each computation needs beyond its inputs and output (float32, $d = 64$), against $n$, counted "
    r"from the sizes of the arrays it holds at once: the naive formula materialises the $n \times n$ score "
    r"matrix (grows as $n^2$); the tiled kernel holds one tile of scores per worker thread and two numbers "
    r"per query row (drawn for one worker: grows as $n$ once $n$ exceeds the tile). Counted, not measured, "
    "so that the report is the same byte for byte on every run; `symattn bench` measures the peaks, and "
    "`--timings` adds them here.",
)
def _tiled_memory(fig, options: DrawOptions) -> str:
    from numeric.tiled import DEFAULT_BLOCK_K, DEFAULT_BLOCK_Q

    sizes = (128, 256, 512, 1024, 2048, 4096)
    n = np.array(sizes, dtype=float)
    item = 4  # bytes of a float32
    naive = n * n * item / 2**20  # the (n, n) scores
    # one (block_q, block_k) tile of scores, and the running max and sum of every query row
    tiled = (np.minimum(n, DEFAULT_BLOCK_Q) * np.minimum(n, DEFAULT_BLOCK_K) + 2 * n) * item / 2**20
    axes = fig.subplots(1, 2) if options.timings else [fig.add_subplot()]
    ax = axes[0]
    ax.plot(n, naive, "o-", color="C3", label=r"naive: the $n \times n$ scores")
    ax.plot(n, tiled, "s-", color="C0", label="tiled: one tile and 2 numbers per row")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("working memory (MiB)")
    how = (f"array sizes at n = {', '.join(map(str, sizes))} with tiles of {DEFAULT_BLOCK_Q} x {DEFAULT_BLOCK_K} "
           f"(numeric.tiled.DEFAULT_BLOCK_Q, DEFAULT_BLOCK_K)")
    if options.timings:
        rows, measured_how = _memory_rows(sizes[:-1])
        m = np.array([r["n"] for r in rows], dtype=float)
        ax.plot(m, np.array([r["naive_peak_bytes"] for r in rows]) / 2**20, "o:", color="C3", alpha=0.6,
                label="naive, measured peak")
        ax.plot(m, np.array([r["tiled_peak_bytes"] for r in rows]) / 2**20, "s:", color="C0", alpha=0.6,
                label="tiled, measured peak")
        axes[1].plot(m, np.array([r["naive_s"] for r in rows]) * 1e3, "o-", color="C3", label="naive")
        axes[1].plot(m, np.array([r["tiled_s"] for r in rows]) * 1e3, "s-", color="C0", label="tiled")
        axes[1].set_xscale("log", base=2)
        axes[1].set_yscale("log")
        axes[1].set_xlabel("sequence length n")
        axes[1].set_ylabel("time of one call (ms)")
        axes[1].legend(fontsize=8)
        how += f"; measured peaks and times with {measured_how}, one measurement each (this run only)"
    ax.legend(loc="upper left", fontsize=8)
    return f"Counted from {how}."


# ------------------------------------------------------------------ Beyond the texts (issue 14)
@figure(
    "rope_decay",
    "RoPE's long-term decay: the average partial-sum bound against the relative distance",
    r"$\frac{1}{d/2} \sum_{j=1}^{d/2} |S_j|$ with $S_j = \sum_{k<j} e^{i (m-n) \theta_k}$, $\theta_k = 10000^{-2k/d}$, "
    r"$d = 128$, for relative distances $m - n = 0, \dots, 250$ (RoFormer, Figure 2). The bound of "
    r"`rope_abel_summation_bound` is $\max_i |h_{i+1} - h_i|$ times $d/2$ times this curve.",
)
def _rope_decay(fig, options: DrawOptions) -> str:
    d = 128
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)  # (d/2,)
    dist = np.arange(0, 251)  # (r,)
    partial = np.cumsum(np.exp(1j * dist[:, None] * theta[None, :]), axis=1)  # (r, d/2): S_1..S_{d/2}
    bound = np.abs(partial).mean(axis=1)  # (r,)
    ax = fig.add_subplot()
    ax.plot(dist, bound, color="C0")
    ax.set_xlabel("relative distance m - n")
    ax.set_ylabel(r"relative upper bound $\frac{2}{d} \sum_j |S_j|$")
    return (f"d = {d}; the average is {bound[0]:.1f} at distance 0 ((d/2 + 1)/2: S_j = j), {bound[50]:.1f} at 50, "
            f"{bound[250]:.1f} at 250 (exact partial sums, numpy complex128).")
