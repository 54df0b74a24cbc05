r"""Tiled exact attention: the FlashAttention recurrence in numpy, forward and backward, on every core.

The ``n_q x n_k`` score matrix is never formed. Queries are taken ``block_q`` rows at a time and
keys ``block_k`` at a time; each query block keeps, per row, a running maximum ``m``, a running
normaliser ``l`` and an unnormalised output ``acc``, and absorbs one key tile with the
online-softmax recurrence

.. math::

    S = \text{score}(Q_i K_j^\top), \qquad
    m' = \max(m, \operatorname{rowmax} S), \qquad
    P = e^{S - m'},

    l' = e^{m - m'}\, l + \operatorname{rowsum} P, \qquad
    \text{acc}' = e^{m - m'}\, \text{acc} + P V_j,

and finally :math:`O = \text{acc}/l`, :math:`\text{lse} = m + \log l`. That the rescaling by
:math:`e^{m - m'}` makes the result equal to the softmax over all keys is the theorem
``online_softmax_merge`` in :mod:`derivations.online_softmax` (merging the statistics of two
disjoint key sets gives the statistics of their union). ``score`` applies, in this order, the
scale, the soft-cap :math:`c\tanh(\cdot/c)`, the additive float mask and ALiBi bias, and the
masks (boolean mask, causal/window band, key lengths) -- the conventions of
:mod:`numeric.reference`, where each variant and its source are described.

The backward pass recomputes :math:`P = e^{S - \text{lse}}` tile by tile from the saved
log-sum-exp instead of storing it (FlashAttention-2, Algorithm 2):

.. math::

    D = \operatorname{rowsum}(dO \odot O),\quad dV \mathrel{+}= P^\top dO,\quad dP = dO\,V^\top,\quad
    dS = P \odot (dP - D),

    dR = dS \odot (1 - \tanh^2(R/c)) \text{ (soft-cap only)},\quad
    dQ \mathrel{+}= \text{scale}\cdot dR\,K,\quad dK \mathrel{+}= \text{scale}\cdot dR^\top Q.

Skipped tiles
-------------
A query block only visits the key range its rows may see: causal and window bands (in the
aligned coordinates) and the largest key length bound it, so tiles entirely outside the band are
never computed (a sliding window costs O(n w d), not O(n^2 d)); the backward does the same from
the key side. Band masks are generated per tile, only for tiles that cross a band edge.

Small-score tiles
-----------------
When a tile's scores are bounded by :data:`SAFE_LOGIT` in absolute value -- by Cauchy-Schwarz,
:math:`|S_{ij}| \le \text{scale}\,|q_i|\,|k_j|`, or by the soft-cap :math:`|c\tanh(\cdot)| < c` --
the exponentials are taken unshifted (no max and subtract passes) and the shift is applied to
the small ``(block_q, d_v + 1)`` product instead. Disabled with an additive float mask or ALiBi
(a bias can push every score of a row towards ``-inf`` and underflow the unshifted sum).

Base 2
------
numpy's float32 ``exp2`` is about twice as fast as its ``exp``, and :math:`e^x = 2^{x \log_2 e}`:
unless an additive float mask or ALiBi bias (given in natural units) is added to the scores,
:math:`\log_2 e` is folded into the query scale (or, with a soft-cap, into :math:`c` after the
tanh), the running maxima and shifts are in base 2, and the log-sum-exp is returned in natural
units, :math:`\text{lse} = m \ln 2 + \log l`. The backward recomputes :math:`P` the same way
from :math:`\text{lse}\,\log_2 e`; :math:`dS` and the gradients are unaffected.

Threads
-------
The work is split into units -- (batch slice, query block) in the forward, (batch slice, key
block) in the backward -- and run on a pool of ``threads`` workers (default: the CPUs this
process may use). numpy releases the GIL inside matmul and ufuncs, so the workers overlap;
while they run, BLAS is pinned to one thread (:mod:`threadpoolctl`), so that ``threads``
workers use ``threads`` cores instead of ``threads x`` BLAS's own pool. (The limit is
process-wide for the duration of the call: another thread calling BLAS at the same moment also
runs single-threaded.) Problems below :data:`MIN_PARALLEL_FLOPS` run in the calling thread.

Determinism. A unit's arithmetic is fixed by the shape, the block sizes and ``threads`` (which
units exist, and whether BLAS runs on one thread), never by which worker runs it or when, so
the forward is bitwise reproducible for a given ``threads``. The backward gives each worker its
own ``dQ`` accumulator, and assigns the units to workers by a fixed rule (largest first, to the
least loaded worker, ties by index) before anything runs; the accumulators are summed in worker
order. So for a given shape, block sizes and ``threads`` the gradients are bitwise reproducible
too. Different thread counts agree to rounding only: the summation order of ``dQ`` over key
blocks changes, and so may BLAS's blocking when it is pinned to one thread.

Memory
------
Besides its inputs and outputs, each worker holds a few ``B_s x block_q x block_k`` tiles
(``B_s`` the batch slice it works on) and per-row statistics; the backward adds one
``B x n_q x d`` accumulator for ``dQ`` per worker. All of it is O(n) in the sequence length.
A user-supplied mask is read tile by tile through a broadcast view, so it costs nothing beyond
the user's own array.

Conventions
-----------
Those of :func:`numeric.reference.attention`: fully masked rows give output 0, log-sum-exp
``-inf`` and gradient 0 (no NaN, no warnings); keys no query may see are ignored even if they
hold NaN/inf; non-finite values elsewhere propagate (not rejected). float16 inputs are computed
in float32; the output and gradients are returned in float16, the log-sum-exp in float32.

References
----------
Milakov & Gimelshein, "Online normalizer calculation for softmax", 2018.
Dao et al., "FlashAttention", NeurIPS 2022, Algorithm 1; Dao, "FlashAttention-2", 2023, Algorithms 1-2.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .validation import (
    check_attention_args,
    check_block_size,
    check_threads,
    compute_dtype,
    zero_ignored_keys,
)

__all__ = [
    "DEFAULT_BLOCK_K",
    "DEFAULT_BLOCK_Q",
    "MIN_PARALLEL_FLOPS",
    "SAFE_LOGIT",
    "TILE_ELEMENTS",
    "cpu_count",
    "decode_step",
    "tiled_attention",
    "tiled_attention_backward",
]

# Tuned on the 2-core AMD EPYC (Zen 4, 2 MiB L2 per core, OpenBLAS 0.3.31) this was written
# on, n = 4096 and 8192, d = 64, float32, best of 5 interleaved runs (the machine was shared, so
# differences under ~10% are noise): 1024 x 512 was fastest or within noise of it for both the
# forward and the backward. Smaller query blocks lose because OpenBLAS runs the thin Q_i K_j^T
# (inner dimension d = 64) below its full rate when the product has few rows; the 2 MiB
# float32 tile still stays within L2/L3 for the elementwise passes. Candidates tried:
# 256x1024, 512x512, 512x1024, 1024x512, 1024x1024, 2048x256, 512x2048, 256x2048.
DEFAULT_BLOCK_Q = 1024
DEFAULT_BLOCK_K = 512

# Scores bounded by this in absolute value (Cauchy-Schwarz, per tile) are exponentiated without
# the max shift: e^20 ~ 5e8 is far from overflow in float32 and e^-20 far from underflow.
SAFE_LOGIT = 20.0

LOG2E = 1.0 / math.log(2.0)  # log2 e: e^x = 2^(x log2 e)

# The most numbers one score tile may hold (batch slice x block_q x block_k): one float32
# 1024 x 512 tile, 2 MiB, the size the block defaults were tuned at.
TILE_ELEMENTS = DEFAULT_BLOCK_Q * DEFAULT_BLOCK_K

# Below this many matmul FLOPs (4 n_q n_k d B) a call runs in the calling thread: starting a
# pool costs ~0.1 ms, more than the whole computation of a small problem.
MIN_PARALLEL_FLOPS = 2e7


def _default_blocks(args) -> tuple[int, int]:
    """Tile sizes: the tuned defaults, or square tiles about as wide as a narrow window.

    A query block of ``b`` rows under a window ``w`` keys wide visits ``b + w`` keys; with the
    defaults and ``w = 256`` four fifths of each tile would be masked. Square tiles of about the
    window's width (the power of two at most ``w``, clamped to 128 ... :data:`DEFAULT_BLOCK_K`)
    keep about half of every tile useful.
    """
    if args.left is None or args.right is None:
        return DEFAULT_BLOCK_Q, DEFAULT_BLOCK_K
    width = args.left + args.right + 1
    b = min(DEFAULT_BLOCK_K, max(128, 1 << (width.bit_length() - 1)))  # the power of two <= width
    return (b, b) if width < DEFAULT_BLOCK_K else (DEFAULT_BLOCK_Q, DEFAULT_BLOCK_K)


def cpu_count() -> int:
    """The CPUs this process may run on (the default ``threads``)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return os.cpu_count() or 1


class _BlasPin:
    """BLAS on one thread while any parallel call runs (threadpoolctl), counted across callers.

    Reference-counted: if two user threads run parallel kernels at once, the first to enter pins
    BLAS and the last to leave restores it (a plain nested ``limit`` could restore the pinned
    value last and leave BLAS single-threaded for good).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._users = 0
        self._limit = None
        self._controller = None

    def __enter__(self):
        with self._lock:
            if self._users == 0:
                if self._controller is None:
                    from threadpoolctl import ThreadpoolController

                    self._controller = ThreadpoolController()
                self._limit = self._controller.limit(limits=1, user_api="blas")
            self._users += 1
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._users -= 1
            if self._users == 0:
                self._limit.restore_original_limits()
                self._limit = None
        return False


_blas_pin = _BlasPin()


def _blas_single_threaded():
    """A context in which BLAS runs on one thread."""
    return _blas_pin


def _take(x, sl: tuple[slice, ...]):
    """``x`` restricted to the batch slices ``sl`` (one per batch axis), except along axes where
    ``x`` is broadcast (size 1)."""
    if x is None:
        return None
    return x[tuple(slice(None) if n == 1 else s for n, s in zip(x.shape, sl))]


def _foldable(args) -> int:
    """Query heads per key/value head that can be folded into the query rows (1: no folding).

    The last batch axis (the query heads of one key/value head, after :mod:`numeric.validation`
    split grouped heads) folds when ``k`` and ``v`` are broadcast along it and ``q`` is not, and
    nothing else depends on the query head: no mask and no ALiBi slopes (one per query head).
    Key lengths depend on the batch element only.
    """
    if len(args.batch) < 2 or args.mask is not None or args.slopes is not None:
        return 1
    g = args.q.shape[-3]
    return g if g > 1 and args.k.shape[-3] == 1 and args.v.shape[-3] == 1 else 1


class _Problem:
    """Everything a worker needs: checked arguments, compute-precision arrays, tile masks."""

    def __init__(self, args, block_q, block_k, threads):
        self.args = args
        default_q, default_k = _default_blocks(args)
        self.bq = check_block_size("block_q", block_q, default_q)
        self.bk = check_block_size("block_k", block_k, default_k)
        self.threads = check_threads(threads, cpu_count())
        self.ct = ct = compute_dtype(args.q.dtype)
        k, v = zero_ignored_keys(args)
        self.batch, self.n_q, self.n_k = args.batch, args.n_q, args.n_k
        # Grouped-query heads folded into the query rows (see "Grouped-query attention" above):
        # `group` query heads per key/value head, `rep` consecutive rows per query position.
        self.group = _foldable(args)
        self.rep = self.group if self.group > 1 and args.banded else 1
        self.interleaved = self.rep > 1
        if self.group > 1:
            self.batch = (*args.batch[:-1], 1)
            self.n_q = args.n_q * self.group
        self.q, self.k, self.v = (x.astype(ct, copy=False) for x in (self.fold(args.q), k, v))
        self.offset, self.left, self.right = args.offset, args.left, args.right
        self.c = args.softcap
        # scores are (scale / c) q . k, then c tanh(.), or scale q . k
        self.q_factor = args.scale / self.c if self.c is not None else args.scale
        mask = args.mask
        if mask is not None:
            # A broadcast view: slicing it per tile never copies the (..., n_q, n_k) matrix.
            mask = np.broadcast_to(mask, (*args.batch, args.n_q, args.n_k))
        self.mask = mask
        self.float_mask = mask is not None and mask.dtype != np.bool_
        self.slopes = None if args.slopes is None else args.slopes.astype(ct)
        self.lengths = args.lengths  # (B, 1, ..., 1) or None
        # Base 2 (see "Base 2" above): scores times log2 e, exponentials by exp2, unless an
        # additive float mask or ALiBi bias (natural units) is added to the scores.
        self.base2 = not self.float_mask and self.slopes is None
        self.unit = LOG2E if self.base2 else 1.0  # units of the computed scores per natural unit
        self.exp = np.exp2 if self.base2 else np.exp
        self._bound_init()

    # -- folded grouped-query heads -----------------------------------------------------------
    def fold(self, x):
        """An internal ``(*batch, n_q, c)`` array of query rows in the folded layout ``(*b, 1, g n_q, c)``.

        Head-major (a view when possible) without a band, position-major (row ``r`` is position
        ``r // g``; a copy) with one, so that a query block covers consecutive positions.
        """
        if self.group == 1:
            return x
        if self.interleaved:
            x = x.swapaxes(-3, -2)  # (*b, n_q, g, c)
        return x.reshape(*self.batch, self.n_q, x.shape[-1])

    def unfold(self, x):
        """Inverse of :meth:`fold`: a folded ``(*b, 1, g n_q, c)`` array back to ``(*batch, n_q, c)``."""
        if self.group == 1:
            return x
        n_q, g, c = self.args.n_q, self.group, x.shape[-1]
        if self.interleaved:
            return x.reshape(*self.batch[:-1], n_q, g, c).swapaxes(-3, -2)
        return x.reshape(*self.batch[:-1], g, n_q, c)

    # -- positions -----------------------------------------------------------------------------
    def key_range(self, i0: int, i1: int, lengths) -> tuple[int, int]:
        """``[lo, hi)``: the keys some query row in ``[i0, i1)`` may see (band, key lengths)."""
        p0, p1 = i0 // self.rep, (i1 - 1) // self.rep + 1  # the positions of the rows
        lo = 0 if self.left is None else max(0, p0 + self.offset - self.left)
        hi = self.n_k if self.right is None else min(self.n_k, p1 + self.offset + self.right)
        if lengths is not None:
            hi = min(hi, int(lengths.max(initial=0)))
        return lo, max(lo, hi)

    def query_range(self, j0: int, j1: int) -> tuple[int, int]:
        """``[lo, hi)``: the query rows that may see some key in ``[j0, j1)`` (band only)."""
        lo = 0 if self.right is None else max(0, j0 - self.offset - self.right) * self.rep
        hi = self.n_q if self.left is None else min(self.n_q, (j1 - self.offset + self.left) * self.rep)
        return lo, max(lo, hi)

    def bias_and_mask(self, s, sl: tuple[slice, ...], i0: int, i1: int, j0: int, j1: int) -> None:
        """Add the float mask and ALiBi bias to the score tile ``s`` and set masked entries to -inf, in place."""
        rows = cols = None
        p0, p_last = i0 // self.rep, (i1 - 1) // self.rep  # positions of the first and last row
        if self.slopes is not None or self.left is not None or self.right is not None:
            rows = (np.arange(i0, i1) // self.rep + self.offset)[:, None]  # (bq, 1)  aligned positions
            cols = np.arange(j0, j1)[None, :]  # (1, bk)
        if self.slopes is not None:
            dist = np.abs(rows - cols).astype(self.ct)  # (bq, bk)
            s -= _take(self.slopes, sl) * dist  # (*b, bq, bk)  -slope |i - j|
        if self.mask is not None:
            m = _take(self.mask, sl)[..., i0:i1, j0:j1]  # (*b, bq, bk) view
            if m.dtype == np.bool_:
                np.copyto(s, -np.inf, where=~m)
            else:
                with np.errstate(invalid="ignore"):  # inf - inf at masked entries: reset below
                    s += m
                np.copyto(s, -np.inf, where=m == -np.inf)
        if self.left is not None and j0 < p_last + self.offset - self.left:  # crosses the left edge
            np.copyto(s, -np.inf, where=cols < rows - self.left)  # (bq, bk), broadcast over batch
        if self.right is not None and j1 - 1 > p0 + self.offset + self.right:  # crosses the right edge
            np.copyto(s, -np.inf, where=cols > rows + self.right)
        if self.lengths is not None:
            lengths = _take(self.lengths, sl)  # (B_s, 1, ..., 1)
            if j1 > int(lengths.min(initial=j1)):
                np.copyto(s, -np.inf, where=np.arange(j0, j1) >= lengths[..., None])  # (B_s, .., 1, bk)

    # -- the small-score shortcut ----------------------------------------------------------------
    def _bound_init(self):
        ct = self.ct
        v = self.v
        # max |v| without an |v|-sized temporary; NaN/inf make the comparison below False
        v_max = max(float(v.max(initial=0.0)), -float(v.min(initial=0.0)))
        self.shortcut = (
            self.q.size > 0 and self.k.size > 0 and not self.float_mask and self.slopes is None
            and v_max * self.bk * np.exp(SAFE_LOGIT) < np.finfo(ct).max / 16
        )  # fmt: skip
        self.capped = self.shortcut and self.c is not None and self.c <= SAFE_LOGIT
        if self.shortcut and not self.capped:
            # one number per row: the largest |q_i| (times scale) and |k_j| over batch dims too
            with np.errstate(over="ignore", invalid="ignore"):
                q_norm = np.sqrt(np.einsum("...d,...d->...", self.q, self.q)) * abs(self.args.scale)
                k_norm = np.sqrt(np.einsum("...d,...d->...", self.k, self.k))
            self.q_norm = q_norm.reshape(-1, q_norm.shape[-1]).max(axis=0)  # (n_q,)
            self.k_norm = k_norm.reshape(-1, k_norm.shape[-1]).max(axis=0)  # (n_k,)

    def small(self, q_bound: float, j0: int, j1: int) -> bool:
        """Whether every score of the tile lies in ``[-SAFE_LOGIT, SAFE_LOGIT]``."""
        if self.capped:
            return True
        if not self.shortcut:
            return False
        # NaN norms (non-finite inputs) compare False: the exact path then propagates them.
        return bool(q_bound * float(self.k_norm[j0:j1].max()) <= SAFE_LOGIT)

    def q_bound(self, i0: int, i1: int) -> float:
        return float(self.q_norm[i0:i1].max()) if self.shortcut and not self.capped else math.inf

    # -- splitting ---------------------------------------------------------------------------
    def batch_slices(self, blocks: int) -> list[tuple[slice, ...]]:
        """Batch slices (one slice per batch axis) that form the units with the blocks.

        More than one when there are few blocks per thread, and enough that one score tile holds
        at most :data:`TILE_ELEMENTS` numbers (a batch-wide tile of 16 heads would be 16 x 2 MiB,
        far out of cache for the elementwise passes). The largest batch axes are split first.
        """
        sizes = self.batch
        want = 1 if self.threads == 1 or blocks >= 2 * self.threads else self.threads
        tile = min(self.bq, self.n_q) * min(self.bk, self.n_k)
        want = max(want, -(-math.prod(sizes) * tile // TILE_ELEMENTS))
        splits = [1] * len(sizes)
        for a in sorted(range(len(sizes)), key=lambda a: (-sizes[a], a)):
            if math.prod(splits) >= want:
                break
            splits[a] = max(1, min(sizes[a], -(-want // math.prod(splits))))
        per_axis = []
        for size, pieces in zip(sizes, splits):
            edges = np.linspace(0, size, pieces + 1).round().astype(int)
            per_axis.append([slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a])
        return list(itertools.product(*per_axis))

    @staticmethod
    def slice_batch(sl: tuple[slice, ...]) -> tuple[int, ...]:
        return tuple(s.stop - s.start for s in sl)

    def parallel(self, flops: float) -> bool:
        return self.threads > 1 and flops >= MIN_PARALLEL_FLOPS


def _lpt(costs: list[float], workers: int) -> list[list[int]]:
    """Assign units to workers: largest first, each to the least loaded (ties: lowest index)."""
    loads = [0.0] * workers
    plan: list[list[int]] = [[] for _ in range(workers)]
    for u in sorted(range(len(costs)), key=lambda u: (-costs[u], u)):
        w = min(range(workers), key=lambda w: (loads[w], w))
        plan[w].append(u)
        loads[w] += costs[u]
    return plan


def _run(units, fn, pr: _Problem, flops: float):
    """Run ``fn(unit)`` for every unit, on the pool when the problem is big enough."""
    if len(units) <= 1 or not pr.parallel(flops):
        for u in units:
            fn(u)
        return
    with _blas_single_threaded(), ThreadPoolExecutor(max_workers=pr.threads) as pool:
        for future in [pool.submit(fn, u) for u in units]:
            future.result()  # re-raises a worker's exception


_DOC_VARIANTS = """q, k, v, mask, causal, scale, window, softcap, alibi_slopes, key_lengths, align
        As in :func:`numeric.reference.attention` (grouped-query heads, variants, alignment).
    block_q, block_k : int, optional
        Tile sizes (any positive integer; need not divide ``n``). Default
        :data:`DEFAULT_BLOCK_Q` x :data:`DEFAULT_BLOCK_K`.
    threads : int, optional
        Worker threads (default :func:`cpu_count`); see Threads in the module docstring."""


def tiled_attention(
    q, k, v, *, mask=None, causal=False, scale=None, window=None, softcap=None, alibi_slopes=None,
    key_lengths=None, align=None, block_q=None, block_k=None, threads=None,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    r"""Exact attention computed tile by tile; returns ``(out, lse)``.

    Parameters
    ----------
    {variants}

    Returns
    -------
    out : ``(..., h, n_q, d_v)``, the attention output, in the input dtype.
    lse : ``(..., h, n_q)``, the row log-sum-exp of the scores the softmax sees (``-inf`` for a
        fully masked row, and for every row when ``n_k = 0``), in the compute precision.

    Examples
    --------
    One query, two keys with scores 0 and log 3: weights 1/4 and 3/4, lse = log(1 + 3).

    >>> q = np.array([[1.0]]); k = np.array([[0.0], [np.log(3.0)]]); v = np.array([[4.0], [8.0]])
    >>> out, lse = tiled_attention(q, k, v, scale=1.0, block_k=1)    # one key per tile
    >>> out, bool(np.isclose(lse[0], np.log(4.0)))
    (array([[7.]]), True)
    """
    args = check_attention_args(
        q, k, v, mask=mask, causal=causal, scale=scale, window=window, softcap=softcap,
        alibi_slopes=alibi_slopes, key_lengths=key_lengths, align=align,
    )  # fmt: skip
    pr = _Problem(args, block_q, block_k, threads)
    ct, d_v = pr.ct, args.d_v
    out = np.zeros((*pr.batch, pr.n_q, d_v), ct)  # (*b, n_q, d_v)  (folded rows, if any)
    lse = np.full((*pr.batch, pr.n_q), -np.inf, ct)  # (*b, n_q)
    if args.n_q and args.n_k:
        _forward(pr, out, lse)
    out, lse = pr.unfold(out), pr.unfold(lse[..., None])[..., 0]
    return args.user(out, 2).astype(args.q.dtype, copy=False), args.user(lse, 1)


def _forward(pr: _Problem, out, lse):
    ct, bq, bk = pr.ct, pr.bq, pr.bk
    neg_inf = ct.type(-np.inf)
    d_v = pr.args.d_v
    exp = pr.exp  # exp2 in base 2: every score, shift and statistic below is in pr.unit units
    # scale (over softcap) folded into Q, and log2 e unless a softcap applies it after the tanh
    q_s = pr.q * ct.type(pr.q_factor * (pr.unit if pr.c is None else 1.0))  # (*b, n_q, d)
    k_t = pr.k.swapaxes(-1, -2)  # (*b, d, n_k)  a view; BLAS reads it transposed
    # The column of ones makes the row sums of P fall out of the same matmul as P V.
    v1 = np.concatenate([pr.v, np.ones((*pr.v.shape[:-1], 1), ct)], axis=-1)  # (*b, n_k, d_v + 1)
    c = None if pr.c is None else ct.type(pr.c * pr.unit)

    def unit(u):
        sl, i0 = u
        i1 = min(i0 + bq, pr.n_q)
        lengths = _take(pr.lengths, sl)
        j_lo, j_hi = pr.key_range(i0, i1, lengths)
        q_i = _take(q_s, sl)[..., i0:i1, :]  # (*b_s, bq, d)
        k_ts, v1_s = _take(k_t, sl), _take(v1, sl)
        bshape = pr.slice_batch(sl)
        m = np.full((*bshape, i1 - i0, 1), neg_inf, ct)  # (*b_s, bq, 1)  running shift (max)
        acc = np.zeros((*bshape, i1 - i0, d_v + 1), ct)  # (*b_s, bq, d_v + 1)  [P V | rowsum P]
        buf = np.empty((*bshape, i1 - i0, bk), ct) if j_hi - j_lo >= bk else None
        pv = np.empty_like(acc)  # (*b_s, bq, d_v + 1)  one tile's [P V | rowsum P]
        q_bound = pr.q_bound(i0, i1)
        # `plain`: every row has m = 0, or m = -inf and acc = 0 (nothing seen yet). A small tile's
        # shift max(m, 0) is then 0 and the rescale factors e^(m - 0), e^(-0) change nothing.
        plain = True
        for j0 in range(j_lo, j_hi, bk):
            j1 = min(j0 + bk, j_hi)
            s = np.matmul(q_i, k_ts[..., :, j0:j1], out=buf if j1 - j0 == bk else None)  # (*b_s, bq, bk)
            if c is not None:
                np.tanh(s, out=s)
                s *= c  # c tanh(scale q.k / c)
            pr.bias_and_mask(s, sl, i0, i1, j0, j1)
            if pr.small(q_bound, j0, j1):
                # Every |S_ij| <= SAFE_LOGIT: exp(S) can neither overflow nor underflow, so
                # the tile is shifted by 0 instead of its row max, which saves the max and
                # subtract passes; the shift is applied to the (bq, d_v + 1) product instead:
                # exp(S - m') V = exp(-m') (exp(S) V), with m' = max(m, 0).
                exp(s, out=s)  # (*b_s, bq, bk)  exp(S)
                np.matmul(s, v1_s[..., j0:j1, :], out=pv)  # (*b_s, bq, d_v + 1)
                if plain:
                    m = np.zeros_like(m)
                    acc += pv
                    continue
                m_new = np.maximum(m, 0)  # (*b_s, bq, 1)
                acc *= exp(m - m_new)  # (*b_s, bq, d_v + 1)  rescale the old statistics
                pv *= exp(-m_new)
                acc += pv
                m = m_new
                continue
            plain = False
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))  # (*b_s, bq, 1)
            # Rows that have seen no visible key yet keep m = -inf; shift them by 0 instead,
            # so that exp(S - m') is exp(-inf) = 0 and never exp(-inf + inf) = nan.
            m_shift = np.where(m_new == neg_inf, 0, m_new)  # (*b_s, bq, 1)
            np.subtract(s, m_shift, out=s)
            exp(s, out=s)  # (*b_s, bq, bk)  P, unnormalised
            acc *= exp(m - m_shift)  # (*b_s, bq, d_v + 1)  rescale the old statistics
            acc += np.matmul(s, v1_s[..., j0:j1, :], out=pv)  # (*b_s, bq, d_v + 1)
            m = m_new

        l = acc[..., d_v:]  # (*b_s, bq, 1)  rowsum of exp(S - m) over all keys
        empty = l == 0  # fully masked rows
        out_s, lse_s = _take(out, sl), _take(lse, sl)
        np.divide(acc[..., :d_v], np.where(empty, 1, l), out=out_s[..., i0:i1, :])
        with np.errstate(divide="ignore"):  # log 0 = -inf is the lse of an empty row
            # lse = m ln 2 + log l in base 2 (m in log2 units), m + log l otherwise; per row, in
            # float64 and rounded once (m ln 2 rounded to float32 first would add an error ~ |m| eps)
            m64 = np.where(empty, -np.inf, m.astype(np.float64) / pr.unit)
            lse_s[..., i0:i1] = (m64 + np.log(l.astype(np.float64)))[..., 0]

    blocks = list(range(0, pr.n_q, bq))
    units = [(sl, i0) for sl in pr.batch_slices(len(blocks)) for i0 in blocks]

    def cost(u):
        sl, i0 = u
        lo, hi = pr.key_range(i0, min(i0 + bq, pr.n_q), _take(pr.lengths, sl))
        return (hi - lo) * math.prod(pr.slice_batch(sl))

    units.sort(key=lambda u: -cost(u))  # largest first: the pool balances the tail
    flops = 4.0 * pr.n_q * pr.n_k * pr.q.shape[-1] * math.prod(pr.batch)
    _run(units, unit, pr, flops)


def tiled_attention_backward(
    q, k, v, out, lse, d_out, *, mask=None, causal=False, scale=None, window=None, softcap=None,
    alibi_slopes=None, key_lengths=None, align=None, block_q=None, block_k=None, threads=None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    r"""Gradients ``(dq, dk, dv)`` of :func:`tiled_attention`, by recomputation from ``lse``.

    ``out`` and ``lse`` are what :func:`tiled_attention` returned for the same arguments and
    ``d_out`` (``(..., h, n_q, d_v)``) is the gradient of the loss with respect to ``out``. Key
    blocks form the outer loop (``dK``, ``dV`` for the block accumulate locally) and query blocks
    the inner one (``dQ`` accumulates in one ``n_q x d`` array per worker). Each gradient has its
    input's shape (summed over broadcast dimensions and over the query heads of a group) and dtype.

    Parameters
    ----------
    {variants}

    Examples
    --------
    The gradient of ``sum(out)`` for one query and two keys, compared with the explicit formula.

    >>> from numeric.reference import attention_backward
    >>> rng = np.random.default_rng(0); q, k, v = rng.normal(size=(3, 2, 4))
    >>> out, lse = tiled_attention(q, k, v, block_q=1, block_k=1)
    >>> grads = tiled_attention_backward(q, k, v, out, lse, np.ones_like(out), block_q=1, block_k=1)
    >>> all(np.allclose(g, r) for g, r in zip(grads, attention_backward(q, k, v, np.ones_like(out))))
    True
    """
    args = check_attention_args(
        q, k, v, mask=mask, causal=causal, scale=scale, window=window, softcap=softcap,
        alibi_slopes=alibi_slopes, key_lengths=key_lengths, align=align,
    )  # fmt: skip
    n_q, d_v = args.n_q, args.d_v
    out, d_out, lse = np.asarray(out), np.asarray(d_out), np.asarray(lse)
    for name, x, shape in (
        ("out", out, (*args.user_batch, n_q, d_v)),
        ("d_out", d_out, (*args.user_batch, n_q, d_v)),
        ("lse", lse, (*args.user_batch, n_q)),
    ):
        if x.shape != shape:
            raise ValueError(f"{name} has shape {x.shape}, expected {shape}")
    pr = _Problem(args, block_q, block_k, threads)
    ct, batch = pr.ct, args.batch
    # Folded grouped-query heads: dQ in the folded rows, dK and dV already summed over the group.
    dq = np.zeros((*pr.batch, pr.n_q, args.d), ct)  # (*b, n_q, d)
    dk = np.zeros((*pr.batch, args.n_k, args.d), ct)  # (*b, n_k, d)
    dv = np.zeros((*pr.batch, args.n_k, d_v), ct)  # (*b, n_k, d_v)
    if n_q and args.n_k:
        do = d_out.astype(ct, copy=False).reshape(*batch, n_q, d_v)  # (*b, n_q, d_v)
        o = out.astype(ct, copy=False).reshape(*batch, n_q, d_v)
        big_d = np.sum(do * o, axis=-1, keepdims=True)  # (*b, n_q, 1)  D = rowsum(dO * O)
        # A fully masked row has lse = -inf; using +inf there makes P = exp(S - lse) = 0 exactly.
        lse_c = lse.astype(ct).reshape(*batch, n_q, 1)  # (*b, n_q, 1)  (a copy)
        lse_c[lse_c == -np.inf] = np.inf
        do, big_d, lse_c = (pr.fold(x) for x in (do, big_d, lse_c))
        _backward(pr, do, big_d, lse_c, dq, dk, dv)
    return args.user_grads(pr.unfold(dq), dk, dv, args.q.dtype)


def _backward(pr: _Problem, do, big_d, lse_c, dq, dk, dv):
    ct, bq, bk = pr.ct, pr.bq, pr.bk
    exp = pr.exp  # exp2 in base 2: scores and lse below in pr.unit units (dS stays natural)
    # R / c = q_s k^T (natural units, for the tanh), or R times log2 e = q_s k^T
    q_s = pr.q * ct.type(pr.q_factor * (pr.unit if pr.c is None else 1.0))  # (*b, n_q, d)
    c = None if pr.c is None else ct.type(pr.c)
    c_unit = None if pr.c is None else ct.type(pr.c * pr.unit)
    if pr.base2:  # lse log2 e, rounded once from float64 (+inf stays +inf)
        lse_c = (lse_c.astype(np.float64) * pr.unit).astype(ct)

    def unit(u, dq_acc):
        sl, j0 = u
        j1 = min(j0 + bk, pr.n_k)
        lengths = _take(pr.lengths, sl)
        if lengths is not None and j0 >= int(lengths.max(initial=0)):
            return  # padding for every batch element of the slice: gradients stay 0
        k_j = _take(pr.k, sl)[..., j0:j1, :]  # (*b_s, bk, d)
        v_j = _take(pr.v, sl)[..., j0:j1, :]  # (*b_s, bk, d_v)
        dk_j = _take(dk, sl)[..., j0:j1, :]  # (*b_s, bk, d)  views: accumulate in place
        dv_j = _take(dv, sl)[..., j0:j1, :]  # (*b_s, bk, d_v)
        qs, dos, ds_, ls = (_take(x, sl) for x in (q_s, do, big_d, lse_c))
        q_raw = _take(pr.q, sl)
        dq_s = _take(dq_acc, sl)
        i_lo, i_hi = pr.query_range(j0, j1)
        bshape = (*pr.slice_batch(sl), min(bq, i_hi - i_lo), j1 - j0)
        p_buf, ds_buf = np.empty(bshape, ct), np.empty(bshape, ct)  # (*b_s, bq, bk) tiles, reused
        for i0 in range(i_lo, i_hi, bq):
            i1 = min(i0 + bq, i_hi)
            full = i1 - i0 == bshape[-2]
            do_i = dos[..., i0:i1, :]  # (*b_s, bq, d_v)
            p = np.matmul(qs[..., i0:i1, :], k_j.swapaxes(-1, -2), out=p_buf if full else None)  # (*b_s, bq, bk)
            t = None
            if c is not None:
                np.tanh(p, out=p)
                t = p.copy()  # tanh(R / c), for the chain rule below
                p *= c_unit  # c tanh(R / c), in pr.unit units
            pr.bias_and_mask(p, sl, i0, i1, j0, j1)
            np.subtract(p, ls[..., i0:i1, :], out=p)
            exp(p, out=p)  # (*b_s, bq, bk)  P = exp(S - lse) = exp2(S log2 e - lse log2 e)
            dv_j += np.matmul(p.swapaxes(-1, -2), do_i)  # (*b_s, bk, d_v)  P^T dO
            ds = np.matmul(do_i, v_j.swapaxes(-1, -2), out=ds_buf if full else None)  # (*b_s, bq, bk)  dP = dO V^T
            np.subtract(ds, ds_[..., i0:i1, :], out=ds)
            np.multiply(ds, p, out=ds)  # (*b_s, bq, bk)  dS = P * (dP - D)
            if t is not None:
                np.multiply(t, t, out=t)
                np.subtract(1, t, out=t)
                np.multiply(ds, t, out=ds)  # dR = dS (1 - tanh^2)
            dq_s[..., i0:i1, :] += np.matmul(ds, k_j)  # (*b_s, bq, d)  dR K
            dk_j += np.matmul(ds.swapaxes(-1, -2), q_raw[..., i0:i1, :])  # (*b_s, bk, d)  dR^T Q

    blocks = list(range(0, pr.n_k, bk))
    units = [(sl, j0) for sl in pr.batch_slices(len(blocks)) for j0 in blocks]
    flops = 10.0 * pr.n_q * pr.n_k * pr.q.shape[-1] * math.prod(pr.batch)
    if len(units) <= 1 or not pr.parallel(flops):
        for u in units:
            unit(u, dq)
    else:
        def cost(u):
            sl, j0 = u
            lo, hi = pr.query_range(j0, min(j0 + bk, pr.n_k))
            return (hi - lo) * math.prod(pr.slice_batch(sl))

        plan = _lpt([cost(u) for u in units], pr.threads)
        accs = [dq] + [np.zeros_like(dq) for _ in plan[1:]]

        def worker(w):
            for u in plan[w]:
                unit(units[u], accs[w])

        with _blas_single_threaded(), ThreadPoolExecutor(max_workers=len(plan)) as pool:
            for future in [pool.submit(worker, w) for w in range(len(plan))]:
                future.result()
        for acc in accs[1:]:  # fixed order: reproducible for a given thread count
            dq += acc
    dq *= ct.type(pr.args.scale)
    dk *= ct.type(pr.args.scale)


def decode_step(
    q_t, k_cache, v_cache, *, scale=None, softcap=None, alibi_slopes=None, window=None, mask=None,
    block_k=None, threads=None, return_lse=False,
):  # fmt: skip
    r"""One decoding step with a key/value cache: attention of the newest token over the cache.

    ``q_t`` is ``(..., h, 1, d)``, the caches ``(..., h_kv, n, d)`` and ``(..., h_kv, n, d_v)``
    (the newest token's key and value included, at position ``n - 1``). The result equals the
    last row of full causal attention over the cache, bottom-right aligned (the query sits at
    position ``n - 1``; ``window`` and ``alibi_slopes`` measure distances from there), i.e.
    :func:`tiled_attention` with ``causal="bottom_right"``, of which this is a thin wrapper.

    Returns ``out`` (``(..., h, 1, d_v)``), or ``(out, lse)`` with ``return_lse=True`` (the
    log-sum-exp lets split-cache partial results be merged, as in Flash-Decoding). A ragged
    cache (different fill per sequence) is not modelled: mask its unused tail with ``mask``
    (positions then still count from the end of the cache).

    >>> rng = np.random.default_rng(0); k, v = rng.normal(size=(2, 5, 4)); q = rng.normal(size=(5, 4))
    >>> full, _ = tiled_attention(q, k, v, causal=True)
    >>> bool(np.allclose(decode_step(q[-1:], k, v), full[-1:]))
    True
    """
    q_t = np.asarray(q_t)
    if q_t.ndim >= 2 and q_t.shape[-2] != 1:
        raise ValueError(f"decode_step takes one query (q_t of shape (..., 1, d)), got shape {q_t.shape}")
    out, lse = tiled_attention(
        q_t, k_cache, v_cache, causal="bottom_right", scale=scale, softcap=softcap,
        alibi_slopes=alibi_slopes, window=window, mask=mask, block_k=block_k, threads=threads,
    )  # fmt: skip
    return (out, lse) if return_lse else out


for _f in (tiled_attention, tiled_attention_backward):
    _f.__doc__ = _f.__doc__.replace("{variants}", _DOC_VARIANTS)
del _f
