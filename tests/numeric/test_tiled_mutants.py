"""Every path through the tiled kernel has a case that fails when the path is broken.

``CASES`` are small problems, each aimed at one path of :mod:`numeric.tiled` (a rescale, a mask,
a skipped range, the small-score shortcut, the threads); each must equal the reference. ``MUTANTS``
are deliberate one-line breakages of the kernel's source; each mutated kernel is loaded as a
module of its own and must fail at least one case (a wrong value, a NaN, or an exception). A
mutant that survives means a path no case checks; a mutant whose line no longer exists in the
source fails loudly, so the list follows the kernel.
"""

from __future__ import annotations

import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import numeric.tiled
from numeric import alibi_slopes, attention, attention_backward

SOURCE = Path(numeric.tiled.__file__).read_text()


def _rng(seed):
    return np.random.default_rng(seed)


def _case_small_after_negative_exact():
    # The example: one query, four keys, two per tile. Tile 0 has scores -25, -30 (not
    # bounded by 20: the exact path, row max m = -25); tile 1 has scores 0.1, 0.2 (the
    # small-score path, m' = max(m, 0) = 0): tile 0's statistics must be rescaled by e^-25.
    q = np.array([[1.0, 0.0]])
    k = np.array([[-25.0, 0.0], [-30.0, 1.0], [0.1, 0.0], [0.2, 0.0]])
    v = np.array([[1.0], [2.0], [3.0], [-4.0]])
    return dict(q=q, k=k, v=v, kw=dict(scale=1.0), block_q=1, block_k=2, threads=1)


def _case_small_after_huge_exact():
    # Tile 0 has scores ~ 800 (m = 800, beyond exp's float64 range), tile 1 small ones: the
    # small path must keep the shift m' = max(m, 0) = 800, not restart from 0 (e^800 = inf).
    q = np.array([[1.0, 0.0], [0.5, 0.0]])
    k = np.array([[800.0, 0.0], [799.0, 0.0], [0.1, 0.0], [0.2, 0.0]])
    v = np.array([[1.0], [2.0], [3.0], [-4.0]])
    return dict(q=q, k=k, v=v, kw=dict(scale=1.0), block_q=2, block_k=2, threads=1)


def _case_exact_after_small():
    # Tile 0 small (scores ~ 0, shift 0), tile 1 large (scores ~ 40): the exact path's rescale
    # by e^(0 - 40); then a small tile again after m = 40.
    rng = _rng(1)
    q = np.tile([[1.0, 0.0, 0.0]], (5, 1)) + 0.01 * rng.normal(size=(5, 3))
    k = np.concatenate([0.1 * rng.normal(size=(3, 3)), [[40.0, 0, 0], [39.0, 0, 0], [38.5, 1, 0]],
                        0.1 * rng.normal(size=(3, 3))])  # fmt: skip
    v = rng.normal(size=(9, 2))
    return dict(q=q, k=k, v=v, kw=dict(scale=1.0), block_q=2, block_k=3, threads=1)


def _case_fully_masked_first_tile():
    # Rows whose first tiles are entirely masked keep m = -inf on the exact path (large scores):
    # the shift must be 0 there, not -inf (nan).
    rng = _rng(2)
    q, k, v = 10 * rng.normal(size=(6, 4)), 10 * rng.normal(size=(8, 4)), rng.normal(size=(8, 3))
    mask = np.ones((6, 8), bool)
    mask[:, :4] = False
    mask[5] = False  # and one row masked everywhere
    return dict(q=q, k=k, v=v, kw=dict(mask=mask), block_q=3, block_k=2, threads=1)


def _case_large_scores_ignore_the_bound():
    # Scores ~ 1e3: exp would overflow without the shift; the small-score shortcut must not apply.
    rng = _rng(3)
    q, k, v = 30 * rng.normal(size=(5, 4)), 30 * rng.normal(size=(7, 4)), rng.normal(size=(7, 2))
    return dict(q=q, k=k, v=v, kw=dict(scale=1.0), block_q=2, block_k=3, threads=1)


def _case_large_softcap():
    # A cap of 1000 bounds nothing useful: scores ~ 800 still need the max shift.
    rng = _rng(4)
    q, k, v = 30 * rng.normal(size=(5, 4)), 30 * rng.normal(size=(7, 4)), rng.normal(size=(7, 2))
    return dict(q=q, k=k, v=v, kw=dict(scale=1.0, softcap=1000.0), block_q=2, block_k=3, threads=1)


def _case_small_softcap():
    # A cap of 3 with huge raw scores: every tile takes the capped shortcut; tanh saturates.
    rng = _rng(5)
    q, k, v = 10 * rng.normal(size=(2, 5, 4)), 10 * rng.normal(size=(2, 7, 4)), rng.normal(size=(2, 7, 2))
    return dict(q=q, k=k, v=v, kw=dict(softcap=3.0, causal=True), block_q=2, block_k=3, threads=1)


def _case_alibi_far_keys():
    # Steep ALiBi slopes and a mask that leaves only distant keys: every visible score is below
    # -700, so unshifted exponentials would underflow to 0 (an "empty" row).
    rng = _rng(6)
    q, k, v = rng.normal(size=(2, 6, 4)), rng.normal(size=(2, 16, 4)), rng.normal(size=(2, 16, 3))
    mask = np.zeros((6, 16), bool)
    mask[:, 10:] = True
    return dict(q=q, k=k, v=v, kw=dict(alibi_slopes=np.array([100.0, 80.0]), mask=mask),
                block_q=3, block_k=4, threads=1)  # fmt: skip


def _case_float_mask_very_negative():
    # An additive mask of -1000 on every key: the shortcut would underflow every row to "empty".
    rng = _rng(7)
    q, k, v = rng.normal(size=(5, 4)), rng.normal(size=(9, 4)), rng.normal(size=(9, 2))
    mask = -1000.0 + rng.normal(size=(5, 9))
    return dict(q=q, k=k, v=v, kw=dict(mask=mask), block_q=2, block_k=4, threads=1)


def _case_window(left, right, align, bq, bk, n_q=13, n_k=17, seed=8):
    rng = _rng(seed)
    q, k, v = rng.normal(size=(2, n_q, 4)), rng.normal(size=(2, n_k, 4)), rng.normal(size=(2, n_k, 3))
    return dict(q=q, k=k, v=v, kw=dict(window=(left, right), align=align), block_q=bq, block_k=bk, threads=1)


def _case_causal_bottom_right():
    rng = _rng(9)
    q, k, v = rng.normal(size=(9, 4)), rng.normal(size=(14, 4)), rng.normal(size=(14, 3))
    return dict(q=q, k=k, v=v, kw=dict(causal="bottom_right"), block_q=4, block_k=3, threads=1)


def _case_key_lengths(threads=1):
    # Different lengths per batch element, a tile straddling each end, and a padded tail of
    # whole tiles for the shorter sequence.
    rng = _rng(10)
    q, k, v = rng.normal(size=(3, 2, 7, 4)), rng.normal(size=(3, 2, 16, 4)), rng.normal(size=(3, 2, 16, 3))
    return dict(q=q, k=k, v=v, kw=dict(key_lengths=np.array([5, 16, 9])), block_q=3, block_k=4,
                threads=threads)  # fmt: skip


def _case_alibi_bottom_right():
    rng = _rng(11)
    q, k, v = rng.normal(size=(1, 4, 5, 4)), rng.normal(size=(1, 2, 11, 4)), rng.normal(size=(1, 2, 11, 3))
    return dict(q=q, k=k, v=v, kw=dict(alibi_slopes=alibi_slopes(4), align="bottom_right"),
                block_q=2, block_k=3, threads=1)  # fmt: skip


def _case_threads(batch=2, n=40, bq=8, bk=8):
    # Many key blocks on two workers: dQ is accumulated per worker and summed.
    rng = _rng(12)
    q, k, v = (rng.normal(size=(batch, 3, n, 4)) for _ in range(3))
    return dict(q=q, k=k, v=v, kw=dict(causal=True, softcap=4.0), block_q=bq, block_k=bk, threads=2)


def _case_grouped(kw, threads=1, bq=3, bk=4, n_q=7, n_k=11, batch=2, seed=13):
    # Grouped-query heads (4 query heads on 2 key/value heads) folded into the query rows; a
    # query block of 3 rows straddles positions (2 rows per position when position-major).
    rng = _rng(seed)
    q = rng.normal(size=(batch, 4, n_q, 4))
    k, v = rng.normal(size=(batch, 2, n_k, 4)), rng.normal(size=(batch, 2, n_k, 3))
    return dict(q=q, k=k, v=v, kw=kw, block_q=bq, block_k=bk, threads=threads)


def _case_grouped_masked():
    # A boolean mask per query head (and steep ALiBi slopes): the group must not be folded.
    rng = _rng(14)
    mask = rng.random(size=(1, 4, 7, 11)) < 0.6
    mask[..., 0] = True
    return _case_grouped(dict(mask=mask, causal="bottom_right"), batch=1)


CASES = {
    "small tile after a negative exact tile": _case_small_after_negative_exact(),
    "small tile after a huge exact tile": _case_small_after_huge_exact(),
    "exact tile after a small tile": _case_exact_after_small(),
    "fully masked first tiles": _case_fully_masked_first_tile(),
    "scores of 1e3": _case_large_scores_ignore_the_bound(),
    "softcap 1000": _case_large_softcap(),
    "softcap 3": _case_small_softcap(),
    "alibi, only far keys": _case_alibi_far_keys(),
    "float mask of -1000": _case_float_mask_very_negative(),
    "window (2, 3), tiles 4 x 3": _case_window(2, 3, "top_left", 4, 3),
    "window (5, 0) bottom-right, tiles 5 x 2": _case_window(5, 0, "bottom_right", 5, 2),
    "window (0, None), tiles 3 x 4": _case_window(0, None, "top_left", 3, 4),
    "window (None, 2) more queries than keys": _case_window(None, 2, "bottom_right", 4, 3, n_q=17, n_k=9),
    "causal bottom-right": _case_causal_bottom_right(),
    "key lengths": _case_key_lengths(),
    "key lengths, two threads": _case_key_lengths(threads=2),
    "alibi bottom-right, grouped heads": _case_alibi_bottom_right(),
    "two threads, many key blocks": _case_threads(),
    "two threads, batch slices": _case_threads(batch=4, n=10, bq=16, bk=4),
    "grouped heads, causal bottom-right": _case_grouped(dict(causal="bottom_right")),
    "grouped heads, window (2, 1), two threads": _case_grouped(dict(window=(2, 1)), threads=2),
    "grouped heads, key lengths, softcap": _case_grouped(dict(key_lengths=np.array([5, 11]), softcap=2.0)),
    "grouped heads, per-head mask": _case_grouped_masked(),
    "grouped heads, per-head ALiBi": _case_grouped(dict(alibi_slopes=np.array([9.0, 5.0, 1.0, 0.5]), causal=True)),
}


def check_case(kernel, case) -> None:
    """The kernel's forward and backward on ``case`` equal the reference (float64, 1e-10)."""
    q, k, v, kw = case["q"], case["k"], case["v"], case["kw"]
    blocks = dict(block_q=case["block_q"], block_k=case["block_k"], threads=case["threads"])
    expected = attention(q, k, v, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a mutant may warn; the values decide
        out, lse = kernel.tiled_attention(q, k, v, **kw, **blocks)
        d_out = _rng(99).normal(size=out.shape)
        grads = kernel.tiled_attention_backward(q, k, v, out, lse, d_out, **kw, **blocks)
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)
    for g, r in zip(grads, attention_backward(q, k, v, d_out, **kw)):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)


@pytest.fixture(autouse=True)
def _threads_even_for_tiny_problems(monkeypatch):
    monkeypatch.setattr(numeric.tiled, "MIN_PARALLEL_FLOPS", 0)


@pytest.mark.parametrize("name", list(CASES))
def test_each_kernel_path_case_equals_the_reference(name):
    check_case(numeric.tiled, CASES[name])


# (name, a line of numeric/tiled.py, its broken replacement)
MUTANTS = [
    ("small path: no rescale of the old statistics",
     "acc *= exp(m - m_new)  # (*b_s, bq, d_v + 1)  rescale the old statistics", "pass"),
    ("small path: shift not applied to the product", "pv *= exp(-m_new)", "pass"),
    ("small path: still unshifted after an exact tile", "            plain = False\n", ""),
    ("small path: unshifted tile does not reset the shift", "m = np.zeros_like(m)", "pass"),
    ("small path: shift always 0", "m_new = np.maximum(m, 0)  # (*b_s, bq, 1)", "m_new = np.zeros_like(m)"),
    ("small path: running max not updated", "m = m_new\n                continue", "continue"),
    ("exact path: no rescale of the old statistics",
     "acc *= exp(m - m_shift)  # (*b_s, bq, d_v + 1)  rescale the old statistics", "pass"),
    ("exact path: old max forgotten",
     "m_new = np.maximum(m, s.max(axis=-1, keepdims=True))", "m_new = s.max(axis=-1, keepdims=True)"),
    ("exact path: -inf shift for rows with no visible key yet",
     "m_shift = np.where(m_new == neg_inf, 0, m_new)  # (*b_s, bq, 1)", "m_shift = m_new"),
    ("shortcut: bound ignored", "return bool(q_bound * float(self.k_norm[j0:j1].max()) <= SAFE_LOGIT)",
     "return True"),
    ("shortcut: any softcap counts as small",
     "self.capped = self.shortcut and self.c is not None and self.c <= SAFE_LOGIT",
     "self.capped = self.shortcut and self.c is not None"),
    ("shortcut: allowed with ALiBi", "and not self.float_mask and self.slopes is None", "and not self.float_mask"),
    ("shortcut: allowed with a float mask", "and not self.float_mask and self.slopes is None",
     "and self.slopes is None"),
    ("base 2: lse left in log2 units", "m.astype(np.float64) / pr.unit)", "m.astype(np.float64))"),
    ("base 2: backward lse not converted", "lse_c = (lse_c.astype(np.float64) * pr.unit).astype(ct)", "pass"),
    ("base 2: with a float mask", "self.base2 = not self.float_mask and self.slopes is None",
     "self.base2 = self.slopes is None"),
    ("base 2: with ALiBi", "self.base2 = not self.float_mask and self.slopes is None",
     "self.base2 = not self.float_mask"),
    ("base 2: softcap without log2 e", "c = None if pr.c is None else ct.type(pr.c * pr.unit)",
     "c = None if pr.c is None else ct.type(pr.c)"),
    ("base 2: backward softcap without log2 e", "c_unit = None if pr.c is None else ct.type(pr.c * pr.unit)",
     "c_unit = None if pr.c is None else ct.type(pr.c)"),
    ("softcap: forward not multiplied by c", "s *= c  # c tanh(scale q.k / c)", "pass"),
    ("softcap: backward without the tanh derivative", "np.multiply(ds, t, out=ds)  # dR = dS (1 - tanh^2)",
     "pass"),
    ("alibi: bias added instead of "
     "subtracted", "s -= _take(self.slopes, sl) * dist", "s += _take(self.slopes, sl) * dist"),
    ("alibi/band: positions not aligned", "rows = (np.arange(i0, i1) // self.rep + self.offset)[:, None]",
     "rows = (np.arange(i0, i1) // self.rep)[:, None]"),
    ("band: left edge tested on the first row only", "j0 < p_last + self.offset - self.left",
     "j0 < p0 + self.offset - self.left"),
    ("band: right edge tested on the last row only", "j1 - 1 > p0 + self.offset + self.right",
     "j1 - 1 > p_last + self.offset + self.right"),
    ("band: left edge off by one", "where=cols < rows - self.left", "where=cols <= rows - self.left"),
    ("band: right edge off by one", "where=cols > rows + self.right", "where=cols >= rows + self.right"),
    ("skip: forward key range starts one late", "lo = 0 if self.left is None else max(0, p0 + self.offset - self.left)",
     "lo = 0 if self.left is None else max(0, p0 + self.offset - self.left + 1)"),
    ("skip: forward key range ends one early", "min(self.n_k, p1 + self.offset + self.right)",
     "min(self.n_k, p1 - 1 + self.offset + self.right)"),
    ("skip: backward query range starts one late", "max(0, j0 - self.offset - self.right)",
     "max(0, j0 - self.offset - self.right + 1)"),
    ("skip: backward query range ends one early", "min(self.n_q, (j1 - self.offset + self.left) * self.rep)",
     "min(self.n_q, (j1 - 1 - self.offset + self.left) * self.rep)"),
    ("fold: rows taken as positions", "rows = (np.arange(i0, i1) // self.rep + self.offset)",
     "rows = (np.arange(i0, i1) + self.offset)"),
    ("fold: key range from rows, not positions", "p0, p1 = i0 // self.rep, (i1 - 1) // self.rep + 1",
     "p0, p1 = i0, i1"),
    ("fold: band edges tested on rows, not positions",
     "p0, p_last = i0 // self.rep, (i1 - 1) // self.rep  # positions", "p0, p_last = i0, i1 - 1  # positions"),
    ("fold: backward query range in positions, not rows", "(j1 - self.offset + self.left) * self.rep)",
     "(j1 - self.offset + self.left))"),
    ("fold: head-major rows under a band", "self.rep = self.group if self.group > 1 and args.banded else 1",
     "self.rep = 1"),
    ("fold: unfolded head-major when interleaved",
     "return x.reshape(*self.batch[:-1], n_q, g, c).swapaxes(-3, -2)", "return x.reshape(*self.batch[:-1], g, n_q, c)"),
    ("fold: folded with a mask", "if len(args.batch) < 2 or args.mask is not None or args.slopes is not None:",
     "if len(args.batch) < 2 or args.slopes is not None:"),
    ("fold: folded with ALiBi", "if len(args.batch) < 2 or args.mask is not None or args.slopes is not None:",
     "if len(args.batch) < 2 or args.mask is not None:"),
    ("key lengths: range cut at the shortest", "hi = min(hi, int(lengths.max(initial=0)))",
     "hi = min(hi, int(lengths.min(initial=0)))"),
    ("key lengths: mask skipped unless every sequence is short", "if j1 > int(lengths.min(initial=j1)):",
     "if j1 > int(lengths.max(initial=j1)):"),
    ("key lengths: mask off by one", "where=np.arange(j0, j1) >= lengths[..., None]",
     "where=np.arange(j0, j1) > lengths[..., None]"),
    ("key lengths: backward skips blocks of the longer sequences",
     "if lengths is not None and j0 >= int(lengths.max(initial=0)):",
     "if lengths is not None and j0 >= int(lengths.min(initial=0)):"),
    ("backward: fully masked rows not given lse = +inf", "lse_c[lse_c == -np.inf] = np.inf", "pass"),
    ("threads: worker accumulators not summed", "dq += acc", "pass"),
    ("threads: batch slices ignored", "return x[tuple(slice(None) if n == 1 else s for n, s in zip(x.shape, sl))]",
     "return x"),
    ("threads: last batch slice dropped", "for a, b in zip(edges[:-1], edges[1:]) if b > a])",
     "for a, b in zip(edges[:-2], edges[1:-1]) if b > a])"),
]  # fmt: skip


def _mutant(old: str, new: str) -> types.ModuleType:
    assert SOURCE.count(old) == 1, f"the mutated line is not (exactly once) in numeric/tiled.py: {old!r}"
    module = types.ModuleType("numeric._tiled_mutant")
    module.__package__ = "numeric"
    exec(compile(SOURCE.replace(old, new), "numeric/tiled.py (mutant)", "exec"), module.__dict__)  # noqa: S102
    module.MIN_PARALLEL_FLOPS = 0
    return module


def _caught(kernel) -> list[str]:
    caught = []
    for name, case in CASES.items():
        try:
            check_case(kernel, case)
        except Exception:  # noqa: BLE001 - a wrong value, a NaN or a crash all count as caught
            caught.append(name)
    return caught


def test_the_unmutated_source_passes_every_case_when_loaded_the_same_way():
    assert _caught(_mutant("DEFAULT_BLOCK_Q = 1024", "DEFAULT_BLOCK_Q = 1024")) == []


@pytest.mark.parametrize(("old", "new"), [m[1:] for m in MUTANTS], ids=[m[0] for m in MUTANTS])
def test_every_mutant_of_the_kernel_fails_some_case(old, new):
    assert _caught(_mutant(old, new)), "no case notices this breakage"
