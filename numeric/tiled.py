r"""Tiled exact attention: the FlashAttention recurrence in numpy, forward and backward.

The ``n_q x n_k`` score matrix is never formed. Queries are taken ``block_q`` rows at a time and
keys ``block_k`` at a time; each query block keeps, per row, a running maximum ``m``, a running
normaliser ``l`` and an unnormalised output ``acc``, and absorbs one key tile with the
online-softmax recurrence

.. math::

    S = \text{scale}\cdot Q_i K_j^\top + M_{ij}, \qquad
    m' = \max(m, \operatorname{rowmax} S), \qquad
    P = e^{S - m'},

    l' = e^{m - m'}\, l + \operatorname{rowsum} P, \qquad
    \text{acc}' = e^{m - m'}\, \text{acc} + P V_j,

and finally :math:`O = \text{acc}/l`, :math:`\text{lse} = m + \log l`. That the rescaling by
:math:`e^{m - m'}` makes the result equal to the softmax over all keys is the theorem
``online_softmax_merge`` in :mod:`derivations.online_softmax` (merging the statistics of two
disjoint key sets gives the statistics of their union).

The backward pass recomputes :math:`P = e^{S - \text{lse}}` tile by tile from the saved
log-sum-exp instead of storing it (FlashAttention-2, Algorithm 2):

.. math::

    D = \operatorname{rowsum}(dO \odot O),\quad dV \mathrel{+}= P^\top dO,\quad dP = dO\,V^\top,\quad
    dS = P \odot (dP - D),\quad dQ \mathrel{+}= \text{scale}\cdot dS\,K,\quad dK \mathrel{+}= \text{scale}\cdot dS^\top Q.

Memory
------
Besides its inputs and outputs, each call holds O(B * (block_q + d) * block_k + B * n * d)
numbers, where ``B`` is the product of the batch/head dimensions (all of them are processed
together in each tile matmul): a few ``block_q x block_k`` tiles, and per-row statistics. Causal
masks are generated per tile (a ``block_q x block_k`` boolean, only for tiles that cross the
diagonal); tiles entirely above the diagonal are skipped. A user-supplied mask is read tile by
tile through a broadcast view, so it costs nothing beyond the user's own array.

Conventions
-----------
Those of :func:`numeric.reference.attention`: fully masked rows give output 0, log-sum-exp
``-inf`` and gradient 0 (no NaN, no warnings); keys masked for every query are ignored even if
they hold NaN/inf; non-finite values elsewhere propagate (not rejected). float16 inputs are computed in float32;
the output and gradients are returned in float16, the log-sum-exp in float32.

References
----------
Milakov & Gimelshein, "Online normalizer calculation for softmax", 2018.
Dao et al., "FlashAttention", NeurIPS 2022, Algorithm 1; Dao, "FlashAttention-2", 2023, Algorithms 1-2.
"""

from __future__ import annotations

import numpy as np

from .validation import (
    check_attention_args,
    check_block_size,
    compute_dtype,
    unbroadcast,
    visible_range,
    zero_ignored_keys,
)

__all__ = [
    "DEFAULT_BLOCK_K",
    "DEFAULT_BLOCK_Q",
    "SAFE_LOGIT",
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


class _TileMasks:
    """Masks for one ``(query block, key block)`` tile: causal generated, user mask sliced."""

    def __init__(self, args):
        self.offset = visible_range(args.causal, args.n_q, args.n_k)  # j <= i + offset, or None
        self.n_k = args.n_k
        mask = args.mask
        if mask is not None:
            # A broadcast view: slicing it per tile never copies the (..., n_q, n_k) matrix.
            mask = np.broadcast_to(mask, (*args.batch, args.n_q, args.n_k))
        self.mask = mask

    def key_end(self, i1: int) -> int:
        """One past the last key any query ``< i1`` may see (causal tiles after it are skipped)."""
        if self.offset is None:
            return self.n_k
        return max(0, min(self.n_k, i1 + self.offset))

    def query_start(self, j0: int) -> int:
        """The first query that may see key ``j0`` or a later one."""
        return 0 if self.offset is None else max(0, j0 - self.offset)

    def apply(self, s: np.ndarray, i0: int, i1: int, j0: int, j1: int) -> None:
        """Set the masked entries of the score tile ``s`` (..., i1-i0, j1-j0) to -inf, in place."""
        if self.offset is not None and j1 - 1 > i0 + self.offset:  # the tile crosses the diagonal
            rows = np.arange(i0 + self.offset, i1 + self.offset)[:, None]  # (bq, 1)
            cols = np.arange(j0, j1)[None, :]  # (1, bk)
            np.copyto(s, -np.inf, where=cols > rows)  # (bq, bk) boolean, broadcast over batch
        if self.mask is not None:
            m = self.mask[..., i0:i1, j0:j1]  # (..., bq, bk) view
            if m.dtype == np.bool_:
                np.copyto(s, -np.inf, where=~m)
            else:
                with np.errstate(invalid="ignore"):  # inf - inf at masked entries: reset below
                    s += m
                np.copyto(s, -np.inf, where=m == -np.inf)


class _ScoreBound:
    """Cauchy-Schwarz bound on a tile's scores: :math:`|S_{ij}| \\le \\text{scale}\\,|q_i|\\,|k_j|`.

    ``small(i0, i1, j0)`` is True when the bound is at most :data:`SAFE_LOGIT` for the whole tile,
    so that its exponentials lie in ``[e^-20, e^20]``. Additive masks (which may add anything)
    and values so large that ``e^20 * block_k * max|v|`` could overflow disable the shortcut.
    """

    def __init__(self, args, q, k, v, bk):
        self.bk = bk
        ct = q.dtype
        # max |v| without an |v|-sized temporary; NaN/inf make the comparison below False
        v_max = max(float(v.max(initial=0.0)), -float(v.min(initial=0.0)))
        self.enabled = (
            (args.mask is None or args.mask.dtype == np.bool_)
            and v_max * bk * np.exp(SAFE_LOGIT) < np.finfo(ct).max / 16
        )
        if self.enabled:
            # one number per block: the largest |q_i| (times scale) and |k_j| over batch dims too
            with np.errstate(over="ignore", invalid="ignore"):
                q_norm = np.sqrt(np.einsum("...d,...d->...", q, q)) * abs(args.scale)  # (..., n_q)
                k_norm = np.sqrt(np.einsum("...d,...d->...", k, k))  # (..., n_k)
            self.q_norm = q_norm.reshape(-1, q_norm.shape[-1]).max(axis=0)  # (n_q,)
            k_norm = k_norm.reshape(-1, k_norm.shape[-1]).max(axis=0)  # (n_k,)
            self.k_block_max = [float(k_norm[j0 : j0 + bk].max()) for j0 in range(0, len(k_norm), bk)]

    def small(self, i0: int, i1: int, j0: int) -> bool:
        if not self.enabled:
            return False
        # NaN norms (non-finite inputs) compare False: the exact path then propagates them.
        return bool(float(self.q_norm[i0:i1].max()) * self.k_block_max[j0 // self.bk] <= SAFE_LOGIT)


def _prepare(args, block_q, block_k):
    bq = check_block_size("block_q", block_q, DEFAULT_BLOCK_Q)
    bk = check_block_size("block_k", block_k, DEFAULT_BLOCK_K)
    ct = compute_dtype(args.q.dtype)
    k, v = zero_ignored_keys(args)
    q, k, v = (x.astype(ct, copy=False) for x in (args.q, k, v))
    return q, k, v, ct, bq, bk


def tiled_attention(
    q, k, v, *, mask=None, causal=False, scale=None, block_q=None, block_k=None
) -> tuple[np.ndarray, np.ndarray]:
    r"""Exact attention computed tile by tile; returns ``(out, lse)``.

    Parameters
    ----------
    q, k, v, mask, causal, scale
        As in :func:`numeric.reference.attention`.
    block_q, block_k : int, optional
        Tile sizes (any positive integer; need not divide ``n``). Default
        :data:`DEFAULT_BLOCK_Q` x :data:`DEFAULT_BLOCK_K`.

    Returns
    -------
    out : ``(..., n_q, d_v)``, the attention output, in the input dtype.
    lse : ``(..., n_q)``, the row log-sum-exp of the scaled, masked scores (``-inf`` for a
        fully masked row), in the compute precision.

    Examples
    --------
    One query, two keys with scores 0 and log 3: weights 1/4 and 3/4, lse = log(1 + 3).

    >>> q = np.array([[1.0]]); k = np.array([[0.0], [np.log(3.0)]]); v = np.array([[4.0], [8.0]])
    >>> out, lse = tiled_attention(q, k, v, scale=1.0, block_k=1)    # one key per tile
    >>> out, bool(np.isclose(lse[0], np.log(4.0)))
    (array([[7.]]), True)
    """
    args = check_attention_args(q, k, v, mask=mask, causal=causal, scale=scale)
    q, k, v, ct, bq, bk = _prepare(args, block_q, block_k)
    batch, n_q, n_k, d_v = args.batch, args.n_q, args.n_k, args.d_v
    tiles = _TileMasks(args)
    neg_inf = ct.type(-np.inf)

    k_t = k.swapaxes(-1, -2)  # (..., d, n_k)  a view; BLAS reads it transposed
    # The column of ones makes the row sums of P fall out of the same matmul as P V.
    v1 = np.concatenate([v, np.ones((*v.shape[:-1], 1), ct)], axis=-1)  # (..., n_k, d_v + 1)
    out = np.empty((*batch, n_q, d_v), ct)  # (..., n_q, d_v)
    lse = np.empty((*batch, n_q), ct)  # (..., n_q)
    s_full = np.empty((*batch, bq, bk), ct) if n_q >= bq and n_k >= bk else None
    bounded = _ScoreBound(args, q, k, v, bk)

    for i0 in range(0, n_q, bq):
        i1 = min(i0 + bq, n_q)
        q_i = q[..., i0:i1, :] * ct.type(args.scale)  # (..., bq, d)  scale folded into Q
        m = np.full((*batch, i1 - i0, 1), neg_inf, ct)  # (..., bq, 1)  running shift (max)
        acc = np.zeros((*batch, i1 - i0, d_v + 1), ct)  # (..., bq, d_v + 1)  [P V | rowsum P]
        for j0 in range(0, tiles.key_end(i1), bk):
            j1 = min(j0 + bk, tiles.key_end(i1))
            if s_full is not None and (i1 - i0, j1 - j0) == (bq, bk):
                s = np.matmul(q_i, k_t[..., :, j0:j1], out=s_full)  # (..., bq, bk)
            else:
                s = np.matmul(q_i, k_t[..., :, j0:j1])  # (..., bq, bk)  an edge tile
            tiles.apply(s, i0, i1, j0, j1)
            if bounded.small(i0, i1, j0):
                # Every |S_ij| <= SAFE_LOGIT: exp(S) can neither overflow nor underflow, so
                # the tile is shifted by 0 instead of its row max, which saves the max and
                # subtract passes; the shift is applied to the (bq, d_v + 1) product instead:
                # exp(S - m') V = exp(-m') (exp(S) V), with m' = max(m, 0).
                np.exp(s, out=s)  # (..., bq, bk)  exp(S)
                m_new = np.maximum(m, 0)  # (..., bq, 1)
                acc *= np.exp(m - m_new)  # (..., bq, d_v + 1)  rescale the old statistics
                acc += np.matmul(s, v1[..., j0:j1, :]) * np.exp(-m_new)  # (..., bq, d_v + 1)
                m = m_new
                continue
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))  # (..., bq, 1)
            # Rows that have seen no visible key yet keep m = -inf; shift them by 0 instead,
            # so that exp(S - m') is exp(-inf) = 0 and never exp(-inf + inf) = nan.
            m_shift = np.where(m_new == neg_inf, 0, m_new)  # (..., bq, 1)
            np.subtract(s, m_shift, out=s)
            np.exp(s, out=s)  # (..., bq, bk)  P, unnormalised
            acc *= np.exp(m - m_shift)  # (..., bq, d_v + 1)  rescale the old statistics
            acc += np.matmul(s, v1[..., j0:j1, :])  # (..., bq, d_v + 1)
            m = m_new

        l = acc[..., d_v:]  # (..., bq, 1)  rowsum of exp(S - m) over all keys
        empty = l == 0  # fully masked rows
        np.divide(acc[..., :d_v], np.where(empty, 1, l), out=out[..., i0:i1, :])
        with np.errstate(divide="ignore"):  # log 0 = -inf is the lse of an empty row
            lse[..., i0:i1] = (np.where(empty, neg_inf, m) + np.log(l))[..., 0]

    return out.astype(args.q.dtype, copy=False), lse


def tiled_attention_backward(
    q, k, v, out, lse, d_out, *, mask=None, causal=False, scale=None, block_q=None, block_k=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Gradients ``(dq, dk, dv)`` of :func:`tiled_attention`, by recomputation from ``lse``.

    ``out`` and ``lse`` are what :func:`tiled_attention` returned for the same arguments and
    ``d_out`` (``(..., n_q, d_v)``) is the gradient of the loss with respect to ``out``. Key
    blocks form the outer loop (``dK``, ``dV`` for the block accumulate locally) and query blocks
    the inner one (``dQ`` accumulates in an ``n_q x d`` array). Each gradient has its input's
    shape (summed over broadcast dimensions) and dtype.

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
    args = check_attention_args(q, k, v, mask=mask, causal=causal, scale=scale)
    q, k, v, ct, bq, bk = _prepare(args, block_q, block_k)
    batch, n_q, n_k, d, d_v = args.batch, args.n_q, args.n_k, args.d, args.d_v
    out, d_out, lse = np.asarray(out), np.asarray(d_out), np.asarray(lse)
    for name, x, shape in (
        ("out", out, (*batch, n_q, d_v)),
        ("d_out", d_out, (*batch, n_q, d_v)),
        ("lse", lse, (*batch, n_q)),
    ):
        if x.shape != shape:
            raise ValueError(f"{name} has shape {x.shape}, expected {shape}")
    tiles = _TileMasks(args)

    do = d_out.astype(ct, copy=False)  # (..., n_q, d_v)
    big_d = np.sum(do * out.astype(ct, copy=False), axis=-1, keepdims=True)  # (..., n_q, 1)  D
    # A fully masked row has lse = -inf; using +inf there makes P = exp(S - lse) = 0 exactly.
    lse_c = lse.astype(ct)[..., None]  # (..., n_q, 1)
    lse_c[lse_c == -np.inf] = np.inf
    q_s = q * ct.type(args.scale)  # (..., n_q, d)  scale folded into Q; dK = dS^T (scale Q)
    dq = np.zeros((*batch, n_q, d), ct)  # (..., n_q, d)  accumulates dS K
    dk = np.zeros((*batch, n_k, d), ct)  # (..., n_k, d)
    dv = np.zeros((*batch, n_k, d_v), ct)  # (..., n_k, d_v)

    for j0 in range(0, n_k, bk):
        j1 = min(j0 + bk, n_k)
        k_j = k[..., j0:j1, :]  # (..., bk, d)
        v_j = v[..., j0:j1, :]  # (..., bk, d_v)
        dk_j = dk[..., j0:j1, :]  # (..., bk, d)  views: accumulate in place
        dv_j = dv[..., j0:j1, :]  # (..., bk, d_v)
        for i0 in range(tiles.query_start(j0), n_q, bq):
            i1 = min(i0 + bq, n_q)
            q_i = q_s[..., i0:i1, :]  # (..., bq, d)
            do_i = do[..., i0:i1, :]  # (..., bq, d_v)
            p = np.matmul(q_i, k_j.swapaxes(-1, -2))  # (..., bq, bk)  S
            tiles.apply(p, i0, i1, j0, j1)
            np.subtract(p, lse_c[..., i0:i1, :], out=p)
            np.exp(p, out=p)  # (..., bq, bk)  P = exp(S - lse)
            dv_j += np.matmul(p.swapaxes(-1, -2), do_i)  # (..., bk, d_v)  P^T dO
            ds = np.matmul(do_i, v_j.swapaxes(-1, -2))  # (..., bq, bk)  dP = dO V^T
            np.subtract(ds, big_d[..., i0:i1, :], out=ds)
            np.multiply(ds, p, out=ds)  # (..., bq, bk)  dS = P * (dP - D)
            dq[..., i0:i1, :] += np.matmul(ds, k_j)  # (..., bq, d)  dS K
            dk_j += np.matmul(ds.swapaxes(-1, -2), q_i)  # (..., bk, d)  dS^T (scale Q)
    dq *= ct.type(args.scale)

    dt = args.q.dtype
    return (
        unbroadcast(dq, args.q.shape).astype(dt, copy=False),
        unbroadcast(dk, args.k.shape).astype(dt, copy=False),
        unbroadcast(dv, args.v.shape).astype(dt, copy=False),
    )
