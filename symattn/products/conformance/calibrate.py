"""Calibration of the error protocol on trusted peers (``symattn conform --calibrate``).

Each peer -- torch SDPA with its math and its flash CPU backend, JAX's ``dot_product_attention``,
:func:`numeric.attention` and :func:`numeric.tiled_attention` -- is run on many drawn cases (the
shapes :func:`~symattn.products.conformance.cases.cases` draws, with causal, boolean masks and grouped
kv heads in turn), forward and backward, in each dtype it supports. For every result the figure
is ``ratio = err / bound``, the implementation's error over the protocol's bound
(``2 x reference error + allowance``; 3x in float64): a correct implementation must stay below 1.
The same ratio against the bound of a single reference algorithm (``numeric`` alone, the protocol
before the ensemble) shows what the ensemble buys.

Outside CI (it takes minutes per peer); CI runs a small sample through
``tests/symattn/products/test_conformance_users.py``. On a shared machine run it niced, one thread
(``OMP_NUM_THREADS=1``), with ``--calibration-out FILE`` (rewritten after every case) and
``--until HH:MM``: the streams advance in turn, so a run stopped early has sampled each about
equally, and ``--resume`` continues it with the cases an uninterrupted run would draw.
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

__all__ = ["CONFIGS", "Peer", "calibrate", "draw_case", "format_table", "load", "peers", "save"]

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
    """One case as :func:`~symattn.products.conformance.cases.cases` draws it, from a numpy generator."""
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


def _stream_key(peer: str, dtype: str) -> str:
    return f"{peer} | {dtype}"


def load(path) -> list[dict]:
    """The rows a previous (possibly stopped) run wrote to ``path``; [] if there is none."""
    import os

    if not path or not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "peer" in r and "dtype" in r for r in rows):
        raise ValueError(f"{path}: not a calibration file (a JSON list of rows with peer and dtype)")
    return rows


def save(path, rows: list[dict]) -> None:
    """Write ``rows`` to ``path`` atomically (a stopped run leaves the last complete snapshot)."""
    import os
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".calibration-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(dumps(rows) + "\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def calibrate(cases: int = 2000, *, max_n: int = 256, seed: int = 0, only: str | None = None,
              dtypes=None, progress: Callable[[str], None] | None = None, out: str | None = None,
              resume: bool = False, deadline: float | None = None) -> list[dict]:
    """One row per (peer, dtype): cases run, worst ratio per result (ensemble; numeric alone), seconds.

    ``only`` keeps the peers whose name contains it, ``dtypes`` the dtypes listed. The (peer,
    dtype) streams advance in turn, one case each, so a run stopped early (``deadline``, a
    ``time.time()`` after which no case starts; or killed) has sampled every stream about equally.
    ``out``: a JSON file rewritten (atomically) after every case; with ``resume`` a stream found
    there with the same ``seed`` and ``max_n`` continues after its last case (the generator is
    fast-forwarded, so the cases are those an uninterrupted run draws) up to ``cases`` in all.
    Each row lists every result over 1 (``over``) with its case."""
    previous = {_stream_key(r["peer"], r["dtype"]): r for r in (load(out) if resume else [])
                if r.get("seed", 0) == seed and r.get("max_n") == max_n}
    streams = []
    for peer in peers():
        if only and only not in peer.name:
            continue
        for dtype in peer.dtypes:
            if dtypes and dtype not in dtypes:
                continue
            adapter = peer.adapter(dtype) if peer.adapter else None
            runners = []
            for config in CONFIGS:
                declared = {**config, **peer.options}
                runner, _ = prepare(peer.fn, dtype=dtype, dtypes=(dtype,) if adapter is None else None,
                                    max_n=max_n, adapter=adapter, backward=peer.backward,
                                    returns_lse=peer.returns_lse, **declared)
                runners.append((runner, config))
            row = {"peer": peer.name, "dtype": dtype, "cases": 0, "max_n": max_n, "seed": seed,
                   "worst": {}, "worst_case": {}, "over": [], "seconds": 0.0}
            old = previous.get(_stream_key(peer.name, dtype))
            if old:
                row.update({key: old[key] for key in ("cases", "worst", "worst_case", "over", "seconds") if key in old})
            rng = np.random.default_rng(seed)
            for i in range(row["cases"]):  # fast-forward: the draws the earlier run made
                runner, config = runners[i % len(runners)]
                draw_case(rng, runner.space, kv_heads=bool(config.get("kv_heads")))
            streams.append({"peer": peer, "dtype": dtype, "runners": runners, "rng": rng, "row": row})
    rows = [s["row"] for s in streams]
    stopped = False
    while not stopped and any(s["row"]["cases"] < cases for s in streams):
        for s in streams:
            row = s["row"]
            if row["cases"] >= cases:
                continue
            if deadline is not None and time.time() >= deadline:
                stopped = True
                break
            i = row["cases"]
            runner, config = s["runners"][i % len(s["runners"])]
            kv = bool(config.get("kv_heads"))
            case = draw_case(s["rng"], runner.space, kv_heads=kv)
            t0 = time.perf_counter()
            found = _ratios(runner, case, {"kv_heads": True} if kv else {})
            row["seconds"] = round(row["seconds"] + time.perf_counter() - t0, 1)
            label = f"{row['peer']} {row['dtype']}"
            for name, pair in found.items():
                old = row["worst"].get(name, (0.0, 0.0))
                if pair[0] > old[0]:
                    row["worst_case"][name] = f"{case.describe()}; {config or 'plain'}"
                if pair[0] > 1:
                    row["over"].append({"result": name, "ratio": round(float(pair[0]), 4), "case_index": i,
                                        "case": f"{case.describe()}; {config or 'plain'}"})
                    if progress:
                        progress(f"{label}: {name} {pair[0]:.2f} > 1 at {row['over'][-1]['case']!r}")
                row["worst"][name] = [round(max(old[0], float(pair[0])), 4), round(max(old[1], float(pair[1])), 4)]
            row["cases"] = i + 1
            if out:
                save(out, rows)
            if progress and row["cases"] % 100 == 0:
                progress(f"{label}: {row['cases']}/{cases} cases, worst {_short(row['worst'])}")
    if out:
        save(out, rows)
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


