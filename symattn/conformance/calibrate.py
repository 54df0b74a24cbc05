"""Calibration of the error protocol on trusted peers (``symattn conform --calibrate``).

Each peer -- torch SDPA with its math and its flash CPU backend, JAX's ``dot_product_attention``,
:func:`numeric.attention` and :func:`numeric.tiled_attention` -- is run on many drawn cases (the
shapes :func:`~symattn.conformance.cases.cases` draws, with causal, boolean masks and grouped
kv heads in turn), forward and backward, in each dtype it supports. For every result the figure
is ``ratio = err / bound``, the implementation's error over the protocol's bound
(``2 x reference error + allowance``; 3x in float64): a correct implementation must stay below 1.
The same ratio against the bound of a single reference algorithm (``numeric`` alone, the protocol
before the ensemble) shows what the ensemble buys.

Outside CI (it takes minutes per peer); CI runs a small sample through
``tests/symattn/test_conformance_calibration.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .cases import Case, Space, interesting_lengths
from .properties import member_errors
from .protocol import compare
from .references import magnitudes, reference, reference_backward
from .runner import prepare

__all__ = ["CONFIGS", "Peer", "calibrate", "draw_case", "format_table", "peers"]

# the options cycled through, case by case (torch cannot take causal and a mask together)
CONFIGS = ({}, {"causal": True}, {"mask": True}, {"kv_heads": True}, {"causal": True, "kv_heads": True})


@dataclass
class Peer:
    name: str
    fn: Callable
    dtypes: tuple[str, ...]
    adapter: Callable[[str], object] | None = None  # dtype -> Adapter (None: numpy)
    backward: object = "autograd"
    returns_lse: bool = False
    options: dict = field(default_factory=dict)


def draw_case(rng: np.random.Generator, space: Space, kv_heads: bool = False) -> Case:
    """One case as :func:`~symattn.conformance.cases.cases` draws it, from a numpy generator."""
    lengths = interesting_lengths(space.max_n)
    n_k = int(rng.choice(lengths))
    n_q = n_k if space.square else int(rng.choice(lengths))
    d = int(rng.choice(space.dims))
    d_v = d if space.value_dim == "same" else int(rng.choice(space.dims))
    small = n_q * n_k * (d + d_v) <= 2**22
    b = int(rng.integers(1, space.max_batch + 1)) if small else 1
    if kv_heads:
        h = int(rng.choice((1, 2, 3, 4, 6))) if small else 2
        h_kv = int(rng.choice([x for x in range(1, h + 1) if h % x == 0]))
    else:
        h, h_kv = (int(rng.integers(1, space.max_heads + 1)) if small else 1), None
    return Case(b, h, n_q, n_k, d, d_v, int(rng.integers(0, 2**16)), float(rng.choice((1.0, 3.0))), h_kv)


def peers() -> list[Peer]:
    """The trusted peers installed here."""
    import numeric

    def tiled(q, k, v, **o):
        return numeric.tiled_attention(q, k, v, block_q=64, block_k=64, **o)

    def tiled_backward(q, k, v, out, lse, d_out, **o):
        return numeric.tiled_attention_backward(q, k, v, out, lse, d_out, block_q=64, block_k=64, **o)

    def explicit_backward(q, k, v, out, d_out, **o):
        return numeric.attention_backward(q, k, v, d_out, **o)

    found = [Peer("numeric.attention", numeric.attention, ("float64", "float32", "float16"), None, explicit_backward),
             Peer("numeric.tiled_attention (tiles of 64)", tiled, ("float64", "float32", "float16"), None,
                  tiled_backward, returns_lse=True)]
    try:
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel

        from .adapters import torch_adapter

        def backend(which):
            def sdpa(q, k, v, **o):
                with sdpa_kernel([which]):
                    return torch.nn.functional.scaled_dot_product_attention(q, k, v, **o)
            sdpa.__qualname__ = f"scaled_dot_product_attention[{which.name}]"
            return sdpa

        def adapter(dtype):
            return torch_adapter(dtype="bfloat16") if dtype == "bfloat16" else torch_adapter()

        found += [Peer("torch SDPA math", backend(SDPBackend.MATH), ("float64", "float32", "bfloat16"), adapter),
                  Peer("torch SDPA flash (CPU)", backend(SDPBackend.FLASH_ATTENTION),
                       ("float64", "float32", "bfloat16"), adapter, options={"value_dim": "same"})]
    except ImportError:
        pass
    try:
        import jax

        from .adapters import jax_adapter

        found.append(Peer("jax dot_product_attention", jax.nn.dot_product_attention, ("float32",),
                          lambda dtype: jax_adapter(), options={"value_dim": "same"}))
    except ImportError:
        pass
    return found


def _ratios(runner, case: Case, extra: dict) -> dict:
    """``{result: (ratio with the ensemble, ratio with numeric alone)}`` on one case."""
    opts = runner.options(case, **extra)
    (q, k, v), (qt, kt, vt) = runner.inputs(case)
    empty = runner.empty_rows(case, opts)
    rows = {"out": ~empty, "dq": ~empty, "dk": None, "dv": None}
    results = {"out": runner.out(qt, kt, vt, **opts)}
    exact = {"out": reference(q, k, v, opts)}
    refs = member_errors(runner, case, opts, "out")
    d_out = np.where(empty[..., None], 0.0, case.d_out())
    if runner.backward is not None:
        _, grads = runner.grads(qt, kt, vt, runner.prec.cast(d_out), **opts)
        results.update(zip(("dq", "dk", "dv"), grads))
        exact.update(zip(("dq", "dk", "dv"), reference_backward(q, k, v, d_out, opts)))
        refs.update(member_errors(runner, case, opts, "grads"))
    sizes = magnitudes(q, k, v, d_out, opts, grads=runner.backward is not None)
    found = {}
    for name, value in results.items():
        pair = []
        for ref_err in (max(refs[name].values()), refs[name]["numeric"]):
            c = compare(value, exact[name], ref_err, runner.prec, sizes[name], rows=rows[name])
            bound = c.factor * c.ref_err + c.allowance
            pair.append(c.err / bound if bound > 0 else (0.0 if c.err == 0 else np.inf))
        found[name] = tuple(pair)
    return found


def calibrate(cases: int = 2000, *, max_n: int = 256, seed: int = 0, only: str | None = None,
              dtypes=None, progress: Callable[[str], None] | None = None) -> list[dict]:
    """One row per (peer, dtype): cases run, worst ratio per result (ensemble; numeric alone), seconds.

    ``only`` keeps the peers whose name contains it, ``dtypes`` the dtypes listed."""
    rows = []
    for peer in peers():
        if only and only not in peer.name:
            continue
        for dtype in peer.dtypes:
            if dtypes and dtype not in dtypes:
                continue
            rng = np.random.default_rng(seed)
            adapter = peer.adapter(dtype) if peer.adapter else None
            runners = []
            for config in CONFIGS:
                declared = {**config, **peer.options}
                runner, _ = prepare(peer.fn, dtype=dtype, dtypes=(dtype,) if adapter is None else None,
                                    max_n=max_n, adapter=adapter, backward=peer.backward,
                                    returns_lse=peer.returns_lse, **declared)
                runners.append((runner, config))
            worst: dict = {}
            where: dict = {}
            t0 = time.perf_counter()
            for i in range(cases):
                runner, config = runners[i % len(runners)]
                kv = bool(config.get("kv_heads"))
                case = draw_case(rng, runner.space, kv_heads=kv)
                for name, pair in _ratios(runner, case, {"kv_heads": True} if kv else {}).items():
                    old = worst.get(name, (0.0, 0.0))
                    if pair[0] > old[0]:
                        where[name] = f"{case.describe()}; {config or 'plain'}"
                        if progress and pair[0] > 1:
                            progress(f"{peer.name} {dtype}: {name} {pair[0]:.2f} > 1 at {where[name]!r}")
                    worst[name] = (max(old[0], pair[0]), max(old[1], pair[1]))
                if progress and (i + 1) % 100 == 0:
                    progress(f"{peer.name} {dtype}: {i + 1}/{cases} cases, worst {_short(worst)}")
            rows.append({"peer": peer.name, "dtype": dtype, "cases": cases, "max_n": max_n,
                         "worst": {k: [round(a, 4), round(b, 4)] for k, (a, b) in worst.items()},
                         "worst_case": where, "seconds": round(time.perf_counter() - t0, 1)})
    return rows


def _short(worst: dict) -> str:
    return ", ".join(f"{k} {a:.2f} ({b:.2f})" for k, (a, b) in worst.items())


def format_table(rows: list[dict]) -> str:
    """A Markdown table: worst err / bound per peer and dtype (in brackets: numeric's bound alone)."""
    names = ("out", "dq", "dk", "dv")
    lines = ["| peer | dtype | cases | " + " | ".join(names) + " |", "| --- | --- | ---: |" + " ---: |" * len(names)]
    for r in rows:
        cells = [f"{r['worst'][n][0]:.2f} ({r['worst'][n][1]:.2f})" if n in r["worst"] else "--" for n in names]
        lines.append(f"| {r['peer']} | {r['dtype']} | {r['cases']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def dumps(rows: list[dict]) -> str:
    return json.dumps(rows, indent=2)


