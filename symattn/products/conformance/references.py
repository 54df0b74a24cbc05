"""The references every property compares with: :mod:`numeric`, in float64 and in the tested dtype.

Options arrive under symattn's names (those of :func:`numeric.attention`). Grouped key/value
heads are expanded here by the definition (query head ``m`` uses kv head ``m // (h / h_kv)``;
Ainslie et al., "GQA", 2023), so the reference never relies on the implementation's own
head mapping; their gradients are summed back over each group.
"""

from __future__ import annotations

import numpy as np

from .protocol import Precision

__all__ = ["explicit_mask", "magnitudes", "reference", "reference_backward", "reference_lse"]

_VARIANTS = ("window", "align", "softcap", "alibi_slopes", "key_lengths")


def _expand(q, k, v):
    h, h_kv = q.shape[-3], k.shape[-3]
    if q.ndim < 3 or h == h_kv:
        return k, v, 1
    g = h // h_kv
    return np.repeat(k, g, axis=-3), np.repeat(v, g, axis=-3), g


def _fold(grad, g):  # (b, h, n, d) -> (b, h_kv, n, d): sum over each group of query heads
    if g == 1:
        return grad
    b, h, n, d = grad.shape
    return grad.reshape(b, h // g, g, n, d).sum(axis=2)


def _kwargs(opts: dict) -> dict:
    kw = {"mask": opts.get("mask"), "causal": opts.get("causal") or False}
    kw.update({key: opts[key] for key in _VARIANTS if opts.get(key) is not None})
    return kw


def explicit_mask(opts: dict, shape: tuple) -> np.ndarray | None:
    """Every position-dependent option as one mask for ``shape = (b, h, n_q, n_k)``.

    Boolean (True = may attend) when only masking options are set; float (``-inf`` = may not
    attend, ALiBi's bias elsewhere) when ``alibi_slopes`` is. Follows the definitions of
    :func:`numeric.attention`: offset ``n_k - n_q`` for ``align="bottom_right"`` (0 otherwise);
    a window ``(left, right)`` lets query ``i`` see key ``j`` iff
    ``i + offset - left <= j <= i + offset + right``; ``key_lengths[b]`` hides keys ``>= length``.
    """
    b, h, n_q, n_k = shape
    i = np.arange(n_q)[:, None]  # (n_q, 1)
    j = np.arange(n_k)[None, :]  # (1, n_k)
    allowed = np.ones((b, h, n_q, n_k), dtype=bool)
    if opts.get("mask") is not None:
        m = np.asarray(opts["mask"])
        allowed &= m if m.dtype == np.bool_ else m != -np.inf
    causal = opts.get("causal")
    if causal:
        allowed &= j <= i + (n_k - n_q if causal == "bottom_right" else 0)
    offset = n_k - n_q if opts.get("align") == "bottom_right" else 0
    if opts.get("window") is not None:
        left, right = opts["window"]
        if left is not None:
            allowed &= j >= i + offset - left
        if right is not None:
            allowed &= j <= i + offset + right
    if opts.get("key_lengths") is not None:
        lengths = np.asarray(opts["key_lengths"])[:, None, None, None]  # (b, 1, 1, 1)
        allowed &= j[None, None] < lengths
    if opts.get("alibi_slopes") is None:
        return allowed
    slopes = np.asarray(opts["alibi_slopes"], dtype=np.float64)[None, :, None, None]  # (1, h, 1, 1)
    bias = -slopes * np.abs(i + offset - j)  # (1, h, n_q, n_k)
    return np.where(allowed, bias, -np.inf)


def reference(q, k, v, opts: dict, prec: Precision | None = None) -> np.ndarray:
    """The output in float64 (``prec=None``) or as computed in ``prec`` from inputs already in ``prec``."""
    import numeric

    k, v, _ = _expand(q, k, v)
    if prec is None or prec.name == "float64":
        return numeric.attention(*(np.asarray(a, np.float64) for a in (q, k, v)), **_kwargs(opts))
    out = numeric.attention(*(a.astype(prec.storage) for a in (q, k, v)), **_kwargs(opts))
    return prec.finish(out)


def reference_lse(q, k, v, opts: dict, prec: Precision | None = None) -> np.ndarray:
    """The row log-sum-exp ``(b, h, n_q)`` of the scaled, masked scores (``-inf`` on empty rows)."""
    import numeric

    k, v, _ = _expand(q, k, v)
    dtype = np.float64 if prec is None or prec.name == "float64" else prec.storage
    q, k, v = (np.asarray(a).astype(dtype) for a in (q, k, v))
    return numeric.logsumexp(numeric.attention_scores(q, k, **_kwargs(opts)), axis=-1).astype(np.float64)


def reference_backward(q, k, v, d_out, opts: dict, prec: Precision | None = None):
    """``(dq, dk, dv)`` in float64 or as computed in ``prec``."""
    import numeric

    k, v, g = _expand(q, k, v)
    dtype = np.float64 if prec is None or prec.name == "float64" else prec.storage
    args = (np.asarray(a).astype(dtype) for a in (q, k, v, d_out))
    dq, dk, dv = numeric.attention_backward(*args, **_kwargs(opts))
    if prec is not None:
        dq, dk, dv = (prec.finish(x) for x in (dq, dk, dv))
    return dq, _fold(dk, g), _fold(dv, g)


def reference_backward_from_lse(q, k, v, d_out, opts: dict, prec: Precision):
    """``(dq, dk, dv)`` as computed in ``prec`` from the saved ``out`` and ``lse`` (rounded to
    ``prec``): :func:`numeric.tiled_attention_backward` with one tile, i.e. FlashAttention-2's
    formulas (``P = exp(S - lse)``, ``D = rowsum(dO * O)``) evaluated once over the whole matrix."""
    import numeric

    k, v, g = _expand(q, k, v)
    q, k, v, d_out = (np.asarray(a).astype(prec.storage) for a in (q, k, v, d_out))
    out = prec.cast(reference(q, k, v, opts, prec))
    lse = reference_lse(q, k, v, opts, prec)
    lse = lse.astype(np.float32 if prec.storage != np.float64 else np.float64)
    n_q, n_k = q.shape[-2], k.shape[-2]
    dq, dk, dv = numeric.tiled_attention_backward(q, k, v, out, lse, d_out, block_q=max(n_q, 1),
                                                  block_k=max(n_k, 1), **_kwargs(opts))
    dq, dk, dv = (prec.finish(x) for x in (dq, dk, dv))
    return dq, _fold(dk, g), _fold(dv, g)


def probabilities(q, k, opts: dict) -> np.ndarray:
    """The attention weights ``P (b, h, n_q, n_k)`` in float64."""
    import numeric

    k, _, _ = _expand(q, k, k)
    scores = numeric.attention_scores(np.asarray(q, np.float64), np.asarray(k, np.float64), **_kwargs(opts))
    return numeric.softmax(scores, axis=-1)


def magnitudes(q, k, v, d_out, opts: dict, grads: bool = False) -> dict:
    """The size of the terms each result is summed from, in float64 (the unit of the allowance).

    ``out = P V`` has terms of size ``P |V|``; the gradients ``dV = P^T dO``,
    ``dQ = scale dS K`` and ``dK = scale dS^T Q`` with ``dS = P (dP - D)`` have terms of size
    ``P (|dP| + |D|)`` times ``|K|``, ``|Q|``. A gradient can vanish while its terms do not
    (``dS`` sums to zero over the keys: one key gives ``dq = 0`` exactly), and a correct kernel
    is then one rounding of those terms away from 0, whichever formula it uses for ``D``.
    """
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    p = probabilities(q, k, opts)  # (b, h, n_q, n_k)
    k_e, v_e, g = _expand(q, k, v)
    sizes = {"out": float(np.max(p @ np.abs(v_e), initial=0.0))}
    if grads:
        do = np.asarray(d_out, np.float64)
        scale = 1.0 / np.sqrt(q.shape[-1]) if q.shape[-1] else 1.0
        dp = do @ v_e.swapaxes(-1, -2)  # (b, h, n_q, n_k)
        big_d = np.sum(do * (p @ v_e), axis=-1, keepdims=True)  # (b, h, n_q, 1)
        ds = p * (np.abs(dp) + np.abs(big_d))  # (b, h, n_q, n_k)
        sizes["dq"] = scale * float(np.max(ds @ np.abs(k_e), initial=0.0))
        sizes["dk"] = scale * float(np.max(_fold(ds.swapaxes(-1, -2) @ np.abs(q), g), initial=0.0))
        sizes["dv"] = float(np.max(_fold(p.swapaxes(-1, -2) @ np.abs(do), g), initial=0.0))
    return sizes


# ------------------------------------------------------------------------------------ the ensemble
# The reference's own error is a sample of one algorithm's rounding: a correct kernel that orders
# its sums, scales or exponentials differently is off by a different (often larger) amount, and
# which of them is larger depends on the CPU's BLAS kernels. So the protocol's "reference error"
# is the worst of several correct float32 algorithms, each one that real kernels use:
#
#   numeric      softmax(scale Q K^T) V, normalised before the product (the textbook; JAX's XLA path)
#   sqrt_scale   (sqrt(scale) Q)(sqrt(scale) K)^T, then as above (torch's math backend)
#   sqrt_scale_seq  the same with Q K^T summed by a plain loop over the head dim, the order of a
#                GEMM micro-kernel accumulating each entry over k in turn (MKL's sgemm under torch's
#                math backend: bit for bit, measured)
#   seq_u20      Q K^T summed in that order, scaled after, exp_u20, normalised after the product
#                (torch's flash CPU forward: the same sgemm, then its exponential)
#   exp2         exp2((s - m) log2 e) in the compute precision (FlashAttention's exponential)
#   tiled_64     scale folded into Q, online softmax over tiles of 64 keys, normalised after the
#                product (FlashAttention-2's order; torch's flash CPU backend)
#   exp_u20      the exponential of vectorised kernels, accurate to ~20 ulp rather than 1 (a
#                degree-5 polynomial after the reduction x = n ln 2 + r; torch's flash CPU
#                forward uses its exp_u20), normalised after the product
#
# and for the gradients: numeric's explicit formulas, the same through sqrt(scale) Q and K (what
# autograd through torch's math backend computes), the tiled backward over tiles of 64 from its own
# saved lse, and FlashAttention-2's formulas (P = exp(S - lse), D = rowsum(dO * O)) from the out
# and lse a forward saved, with the scores recomputed in another way than that forward's:
# "recompute_sqrt" (forward through sqrt(scale) Q and K, backward scale after Q K^T) and
# "recompute_seq" (the backward's Q K^T summed by a plain loop over the head dim, as a separate
# backward kernel may: P is then off by the dot product's rounding, relative; torch's flash CPU
# backend is such a pair of kernels), and "recompute_u20" (the forward's exponential to ~20 ulp,
# the backward's to 1 and its scores summed by the loop: torch's flash CPU pair of kernels). In
# float16 and bfloat16 also FlashAttention's rounding of P (and dS) to the dtype before the
# matmuls that take them ("p_rounded", "recompute_rounded").
ENSEMBLE = ("numeric", "sqrt_scale", "sqrt_scale_seq", "exp2", "tiled_64", "exp_u20", "seq_u20")
# In float16 and bfloat16, "accumulate_rounded": the gradients summed tile by tile *in the dtype*,
# each tile's product added into the stored gradient and the sum rounded (C = round(C + A_t B_t)):
# dK and dV over tiles of 32 queries, dQ over tiles of 512 keys. torch's flash CPU backward does
# exactly this (cpublas::gemm with beta = 1 into the bfloat16 grad_k, grad_v, grad_q; query tiles
# of 32 below 192 queries, 64 below 768, 256 above; key tiles of 512), so its dK and dV carry one
# rounding per query tile, not one in all: up to 3x the single-rounding reference's error (causal,
# 150 queries), which is what made it exceed the bound. 32 is the smallest query tile it uses (the
# most roundings, so the largest correct error); a kernel that rounds more often (every query, or
# tiles of 8) is not covered. With grouped kv heads torch sums each kv head's dK, dV in the same
# bfloat16 running sum through the group's query heads, tile after tile (measured: its errors are
# the model's exactly); so does the member (g x n_q / 32 roundings, not one group sum at the end).
ACCUMULATE_TILES = (32, 512)
ENSEMBLE_BACKWARD = ("numeric", "sqrt_scale", "tiled_64", "recompute_sqrt", "recompute_seq", "recompute_u20",
                     "recompute_kscaled")
_LOG2E = 1.4426950408889634


def _scale_of(q) -> float:
    d = q.shape[-1]
    return 1.0 / np.sqrt(d) if d else 1.0


def _ct(prec: Precision):
    return np.float64 if prec.storage == np.float64 else np.float32


def ensemble(q, k, v, opts: dict, prec: Precision) -> dict:
    """``{member: output}``: each algorithm of :data:`ENSEMBLE` computed in ``prec`` from inputs
    already in ``prec`` (float16/bfloat16: arithmetic in float32, the result rounded as stored)."""
    import numeric

    k, v, _ = _expand(q, k, v)
    ct = _ct(prec)
    q, k, v = (np.asarray(a).astype(prec.storage).astype(ct) for a in (q, k, v))
    kw = _kwargs(opts)
    outs = {"numeric": numeric.attention(q, k, v, **kw)}
    a = ct(np.sqrt(_scale_of(q)))
    outs["sqrt_scale"] = numeric.attention(q * a, k * a, v, scale=1.0, **kw)
    s = numeric.attention_scores(q, k, **kw)  # (b, h, n_q, n_k), -inf where masked
    m = np.max(s, axis=-1, keepdims=True, initial=-np.inf)
    m = np.where(m == -np.inf, 0, m).astype(ct)
    e = np.exp2((s - m) * ct(_LOG2E))
    z = np.sum(e, axis=-1, keepdims=True)
    outs["exp2"] = (e / np.where(z == 0, 1, z)) @ v
    e20 = exp_u20(s - m) if ct == np.float32 else e
    z20 = np.sum(e20, axis=-1, keepdims=True)
    outs["exp_u20"] = (e20 @ v) / np.where(z20 == 0, 1, z20)
    if prec.storage != ct or prec.name == "bfloat16":  # P rounded to the dtype, normalised after P V
        outs["p_rounded"] = (prec.cast(e) @ v) / np.where(z == 0, 1, z)
    # torch's math backend in float32: sqrt(scale) on Q and K, then MKL's sgemm, whose micro-kernel
    # accumulates each entry of Q K^T over the head dim in order (measured: bit for bit a plain
    # left-to-right FMA loop), not in the blocked/pairwise order of numpy's BLAS; its rounding grows
    # with d (up to 4x numeric's at d >= 96 with scores scaled by 3)
    s_seq = _sequential_scores(q * a, k * a, dict(kw, scale=1.0))
    m_seq = np.max(s_seq, axis=-1, keepdims=True, initial=-np.inf)
    e_seq = np.exp(s_seq - np.where(m_seq == -np.inf, 0, m_seq).astype(ct))
    z_seq = np.sum(e_seq, axis=-1, keepdims=True)
    outs["sqrt_scale_seq"] = (e_seq / np.where(z_seq == 0, 1, z_seq)) @ v
    # torch's flash CPU forward: Q K^T by the same sgemm (in order over the head dim), the scale
    # applied after, its exp_u20, normalised after P V
    s_fl = _sequential_scores(q, k, kw)
    m_fl = np.max(s_fl, axis=-1, keepdims=True, initial=-np.inf)
    s_fl = s_fl - np.where(m_fl == -np.inf, 0, m_fl).astype(ct)
    e_fl = exp_u20(s_fl) if ct == np.float32 else np.exp(s_fl)
    z_fl = np.sum(e_fl, axis=-1, keepdims=True)
    outs["seq_u20"] = (e_fl @ v) / np.where(z_fl == 0, 1, z_fl)
    n_q, n_k = q.shape[-2], k.shape[-2]
    if n_q and n_k:
        outs["tiled_64"] = numeric.tiled_attention(q, k, v, block_q=64, block_k=64, threads=1, **kw)[0]
    return {name: prec.finish(x) for name, x in outs.items()}


def ensemble_backward(q, k, v, d_out, opts: dict, prec: Precision) -> dict:
    """``{member: (dq, dk, dv)}`` for :data:`ENSEMBLE_BACKWARD`, as :func:`ensemble`."""
    import numeric

    k_e, v_e, g = _expand(q, k, v)
    ct = _ct(prec)
    q, k_e, v_e, do = (np.asarray(x).astype(prec.storage).astype(ct) for x in (q, k_e, v_e, d_out))
    kw = _kwargs(opts)
    grads = {"numeric": numeric.attention_backward(q, k_e, v_e, do, **kw)}
    a = ct(np.sqrt(_scale_of(q)))
    dq, dk, dv = numeric.attention_backward(q * a, k_e * a, v_e, do, scale=1.0, **kw)
    grads["sqrt_scale"] = (dq * a, dk * a, dv)
    n_q, n_k = q.shape[-2], k_e.shape[-2]
    if n_q and n_k:
        tiles = {"block_q": 64, "block_k": 64, "threads": 1}
        out, lse = numeric.tiled_attention(q, k_e, v_e, **tiles, **kw)
        out, lse = prec.cast(out).astype(ct), lse.astype(ct)  # saved as the dtype stores them
        grads["tiled_64"] = numeric.tiled_attention_backward(q, k_e, v_e, out, lse, do, **tiles, **kw)
        grads["recompute_seq"] = _recompute(q, k_e, v_e, do, out, lse, kw, scores=_sequential_scores)
        if ct == np.float32:  # the forward's exponential to ~20 ulp, the backward's to 1 (torch's flash CPU)
            sc = numeric.attention_scores(q, k_e, **kw)
            m = np.max(sc, axis=-1, keepdims=True, initial=-np.inf)
            m = np.where(m == -np.inf, 0, m).astype(ct)
            e = exp_u20(sc - m)
            z = np.sum(e, axis=-1, keepdims=True)
            out20 = prec.cast((e @ v_e) / np.where(z == 0, 1, z)).astype(ct)
            with np.errstate(divide="ignore"):
                lse20 = (m + np.log(z))[..., 0].astype(ct)
            grads["recompute_u20"] = _recompute(q, k_e, v_e, do, out20, lse20, kw, scores=_sequential_scores)
            # torch's flash CPU backward recomputes the scores as gemm(alpha = scale, K, Q^T), and the
            # sgemm folds alpha into K as it packs it: (scale K) Q^T, each entry of scale K rounded, then
            # summed in order (measured on torch 2.13: its P is this one's to ~2 ulp of exp, where the
            # scale-after order is off by up to 31 ulp, 2.8x the ensemble's dq error)
            grads["recompute_kscaled"] = _recompute(q, k_e, v_e, do, out20, lse20, kw, scores=_kscaled_scores)
        out, lse = numeric.tiled_attention(q * a, k_e * a, v_e, scale=1.0, **tiles, **kw)
        grads["recompute_sqrt"] = _recompute(q, k_e, v_e, do, prec.cast(out).astype(ct), lse.astype(ct), kw)
        if prec.storage != ct or prec.name == "bfloat16":
            rounded = (lambda x: prec.cast(x).astype(ct))
            grads["recompute_rounded"] = _recompute(q, k_e, v_e, do, prec.cast(out).astype(ct), lse.astype(ct), kw,
                                                    rounded)
            # its forward as FlashAttention's in these dtypes: P rounded before P V, normalised after
            sc = numeric.attention_scores(q, k_e, **kw)
            m = np.max(sc, axis=-1, keepdims=True, initial=-np.inf)
            m = np.where(m == -np.inf, 0, m).astype(ct)
            e = np.exp(sc - m)
            z = np.sum(e, axis=-1, keepdims=True)
            out_r = rounded((rounded(e) @ v_e) / np.where(z == 0, 1, z))
            with np.errstate(divide="ignore"):
                lse_r = (m + np.log(z))[..., 0].astype(ct)
            folded = _recompute(q, k_e, v_e, do, out_r, lse_r, kw, rounded, accumulate=ACCUMULATE_TILES, group=g)
    # each head's gradient is stored in the dtype, then a group's are summed and stored again
    found = {name: (prec.finish(dq), prec.finish(_fold(prec.finish(dk), g)), prec.finish(_fold(prec.finish(dv), g)))
             for name, (dq, dk, dv) in grads.items()}
    if n_q and n_k and (prec.storage != ct or prec.name == "bfloat16"):  # summed over the group as it goes
        found["accumulate_rounded"] = tuple(prec.finish(x) for x in folded)
    return found


def exp_u20(x) -> np.ndarray:
    """``exp`` in float32 as vectorised kernels compute it, to ~20 ulp: ``x = n ln 2 + r`` (ln 2 in
    two parts), ``e^r`` by its degree-5 Taylor polynomial (Horner), times ``2^n``; ``exp(-inf) = 0``.

    >>> float(exp_u20(np.float32(0.0))), float(exp_u20(np.float32(-np.inf)))
    (1.0, 0.0)
    """
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        n = np.rint(x * np.float32(_LOG2E))
        n = np.where(np.isfinite(n), n, 0).astype(np.float32)
        r = (x - n * np.float32(0.693145751953125)) - n * np.float32(1.428606765330187e-06)
        p = np.float32(1 / 120)
        for c in (1 / 24, 1 / 6, 1 / 2, 1.0, 1.0):
            p = p * r + np.float32(c)
        out = np.ldexp(p, n.astype(np.int32)).astype(np.float32)
    return np.where(x == -np.inf, np.float32(0), out)


def _sequential_scores(q, k, kw: dict) -> np.ndarray:
    """:func:`numeric.attention_scores` with ``Q K^T`` summed by a plain loop over the head dim
    (left to right, one rounding per term) instead of BLAS's blocked order."""
    import numeric

    ct = q.dtype.type
    scale = ct(kw["scale"] if kw.get("scale") is not None else _scale_of(q))
    blas = numeric.attention_scores(q, k, **kw)  # masked, capped, biased: the reference's
    raw_blas = (q @ k.swapaxes(-1, -2)) * scale
    raw = np.zeros(raw_blas.shape, q.dtype)
    for t in range(q.shape[-1]):
        raw = raw + q[..., :, t, None] * k[..., None, :, t]
    raw = raw * scale
    if kw.get("softcap") is not None:
        c = ct(kw["softcap"])
        raw, raw_blas = c * np.tanh(raw / c), c * np.tanh(raw_blas / c)
    with np.errstate(invalid="ignore"):
        return np.where(blas == -np.inf, blas, blas + (raw - raw_blas))  # the same mask and bias


def _kscaled_scores(q, k, kw: dict) -> np.ndarray:
    """:func:`_sequential_scores` with the scale folded into ``K`` first (``(scale K) Q^T``)."""
    ct = q.dtype.type
    scale = ct(kw["scale"] if kw.get("scale") is not None else _scale_of(q))
    return _sequential_scores(q, k * scale, dict(kw, scale=1.0))


def _accumulated(a, b, axis_tile: int, block: int, alpha, rounded):
    """``alpha * (a @ b)`` summed tile by tile over the contracted axis, the running sum rounded
    by ``rounded`` after each tile (a gradient the kernel adds each tile's product into, stored
    in the dtype: ``C = round(C + alpha A_t B_t)``). ``axis_tile`` is the contracted axis of ``a``."""
    n = a.shape[axis_tile]
    acc = None
    for t0 in range(0, n, block):
        part = alpha * (np.take(a, range(t0, min(t0 + block, n)), axis=axis_tile)
                        @ np.take(b, range(t0, min(t0 + block, n)), axis=-2))
        acc = rounded(part if acc is None else acc + part)
    return acc


def _grouped(x_t, y, g: int, block: int):
    """``x_t (b, h, n_k, n_q)``, ``y (b, h, n_q, d)`` with each group's ``g`` query heads laid end to
    end along the queries (each padded with zeros to whole tiles of ``block``): ``(b, h / g, n_k,
    g n_q')`` and ``(b, h / g, g n_q', d)``, so a sum over tiles runs through the group's heads."""
    b, h, n_k, n_q = x_t.shape
    pad = -(-n_q // block) * block - n_q
    x_t = np.pad(x_t, [(0, 0), (0, 0), (0, 0), (0, pad)])
    y = np.pad(y, [(0, 0), (0, 0), (0, pad), (0, 0)])
    x_t = x_t.reshape(b, h // g, g, n_k, n_q + pad).transpose(0, 1, 3, 2, 4).reshape(b, h // g, n_k, -1)
    return x_t, y.reshape(b, h // g, g * (n_q + pad), y.shape[-1])


def _recompute(q, k, v, do, out, lse, kw: dict, rounded=None, scores=None, accumulate=None, group: int = 1):
    """FlashAttention-2's backward from a saved ``out`` and ``lse``, the scores recomputed as
    ``(Q K^T) scale`` (then soft-capped, biased, masked as in :func:`numeric.attention_scores`);
    ``rounded`` (optional) rounds P and dS before the matmuls that take them; ``scores(q, k, kw)``
    (optional) recomputes the scores another way; ``accumulate = (block_q, block_k)`` (optional,
    with ``rounded``) sums dK, dV over tiles of ``block_q`` queries and dQ over tiles of
    ``block_k`` keys, rounding each running sum after every tile (see :data:`ACCUMULATE_TILES`);
    with ``group`` > 1 (grouped kv heads) dK and dV are then summed over each group's query heads
    in the same running sum, head after head, and returned per kv head."""
    import numeric

    ct = q.dtype.type
    scale = ct(_scale_of(q))
    s = (scores or (lambda q, k, kw: numeric.attention_scores(q, k, **kw)))(q, k, kw)  # -inf where masked
    lse = np.where(lse == -np.inf, 0, lse)[..., None]  # empty rows: P = 0 (s is -inf there)
    p = np.exp(s - lse)
    rounded = rounded or (lambda x: x)
    dv = rounded(p).swapaxes(-1, -2) @ do
    dp = do @ v.swapaxes(-1, -2)
    ds = p * (dp - np.sum(do * out, axis=-1, keepdims=True))
    if kw.get("softcap") is not None:
        c = ct(kw["softcap"])
        t = np.tanh((q @ k.swapaxes(-1, -2)) * scale / c)
        ds = ds * (1 - t * t)
    ds = rounded(ds)
    if accumulate is not None:
        block_q, block_k = accumulate
        p_t = rounded(p).swapaxes(-1, -2)  # (.., n_k, n_q)
        ds_t = ds.swapaxes(-1, -2)
        q_g, do_g = q, do
        if group > 1:
            (ds_t, q_g), (p_t, do_g) = _grouped(ds_t, q, group, block_q), _grouped(p_t, do, group, block_q)
        return (_accumulated(ds, k, -1, block_k, scale, rounded), _accumulated(ds_t, q_g, -1, block_q, scale, rounded),
                _accumulated(p_t, do_g, -1, block_q, ct(1), rounded))
    return scale * (ds @ k), scale * (ds.swapaxes(-1, -2) @ q), dv
