"""A gallery of deliberately broken attention implementations, each with one classic bug.

Each takes ``(q, k, v, *, causal=False, mask=None)`` like a real kernel. The conformance tests
assert that each bug is caught by the property it violates -- and by no unrelated property.
"""

import numpy as np


def _softmax(x, axis=-1):
    with np.errstate(invalid="ignore"):  # a fully masked row gives NaN here, like many real kernels
        x = x - x.max(axis=axis, keepdims=True)
        e = np.exp(x)
        return e / e.sum(axis=axis, keepdims=True)


def _scores(q, k, scale, causal, mask):
    s = (q @ np.swapaxes(k, -1, -2)) * scale  # (..., n_q, n_k)
    n_q, n_k = s.shape[-2:]
    allowed = np.ones((n_q, n_k), dtype=bool)
    if causal:
        allowed &= np.arange(n_k)[None, :] <= np.arange(n_q)[:, None]
    if mask is not None:
        allowed = allowed & mask
    return np.where(allowed, s, -np.inf)


def correct(q, k, v, *, causal=False, mask=None):
    return _softmax(_scores(q, k, 1 / np.sqrt(q.shape[-1]), causal, mask)) @ v


def no_scaling(q, k, v, *, causal=False, mask=None):
    return _softmax(_scores(q, k, 1.0, causal, mask)) @ v


def scale_one_over_d(q, k, v, *, causal=False, mask=None):
    return _softmax(_scores(q, k, 1 / q.shape[-1], causal, mask)) @ v


def softmax_wrong_axis(q, k, v, *, causal=False, mask=None):
    s = _scores(q, k, 1 / np.sqrt(q.shape[-1]), causal, mask)
    return np.nan_to_num(_softmax(s, axis=-2)) @ v  # normalises over queries, not keys


def causal_off_by_one(q, k, v, *, causal=False, mask=None):
    s = (q @ np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    n_q, n_k = s.shape[-2:]
    if causal:
        s = np.where(np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + 1, s, -np.inf)  # sees one key too many
    return _softmax(s) @ v


def no_max_subtraction(q, k, v, *, causal=False, mask=None):
    s = _scores(q, k, 1 / np.sqrt(q.shape[-1]), causal, mask)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s)  # overflows for scores above ~709 (float64)
        return (e / e.sum(axis=-1, keepdims=True)) @ v


def keys_permuted_without_values(q, k, v, *, causal=False, mask=None):
    k = np.roll(k, 1, axis=-2)  # keys shifted by one position, values not: pairs broken
    return _softmax(_scores(q, k, 1 / np.sqrt(q.shape[-1]), causal, mask)) @ v


# ------------------------------------------------------------------------------------------------
# Tiled kernels with tiles of 64 keys: the FlashAttention forward (online softmax) and backward
# (recomputation from the log-sum-exp), correct, and each with one bug a kernel engineer makes.
# Layout (batch, heads, n, d); k and v may have fewer (grouped) heads.

BLOCK = 64


def _tiled(q, k, v, *, causal=False, mask=None, window=None, align=None, softcap=None, bug=None):
    """``(out, lse)`` by tiles of BLOCK keys, with ``bug`` (None: correct)."""
    b, h, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    heads = np.arange(h) % h_kv if bug == "gqa_head_mapping" else np.arange(h) // (h // h_kv)
    k, v = k[:, heads], v[:, heads]  # (b, h, n_k, .)  the kv head of each query head
    ct = np.float32 if q.dtype == np.float16 else q.dtype.type
    q, k, v = (a.astype(ct) for a in (q, k, v))
    scale = ct(1 / np.sqrt(d))
    bottom_right = causal == "bottom_right" or align == "bottom_right"
    offset = n_k - n_q if bottom_right else 0
    i = np.arange(n_q)[:, None] + offset  # (n_q, 1)  aligned query positions
    m = np.full((b, h, n_q, 1), -np.inf, ct)  # running max
    l = np.zeros((b, h, n_q, 1), ct)  # running normaliser
    acc = np.zeros((b, h, n_q, v.shape[-1]), ct)  # unnormalised output
    n_tiles = -(-n_k // BLOCK)
    if bug == "last_partial_tile_dropped":
        n_tiles = max(1, n_k // BLOCK)
    last_lse = None
    for j0 in range(0, n_tiles * BLOCK, BLOCK):
        j1 = min(j0 + BLOCK, n_k)
        with np.errstate(invalid="ignore"):  # NaN in padded keys: masked just below
            s = (q @ k[..., j0:j1, :].swapaxes(-1, -2)) * scale  # (b, h, n_q, bk)
        if softcap is not None and bug != "softcap_after_masking":
            s = ct(softcap) * np.tanh(s / ct(softcap))
        j = np.arange(j0, j1)[None, :]  # (1, bk)
        allowed = np.ones((n_q, j1 - j0), dtype=bool)
        if causal:
            jc = np.arange(j1 - j0)[None, :] if bug == "causal_local_index" else j  # local index: wrong past tile 0
            allowed &= jc <= i
        if window is not None:
            left, right = window
            if left is not None:
                allowed &= j >= i - left - (1 if bug == "window_off_by_one" else 0)
            if right is not None:
                allowed &= j <= i + right
        if mask is not None:
            m_j = mask[..., j0:j1]
            if m_j.dtype != np.bool_:  # additive: 0 or -inf here
                s = s + m_j.astype(ct)
                m_j = m_j != -np.inf
            allowed = allowed & m_j
        s = np.where(allowed, s, -np.inf)
        if softcap is not None and bug == "softcap_after_masking":
            s = ct(softcap) * np.tanh(s / ct(softcap))  # -inf becomes -softcap: masked keys get weight
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(m_new == -np.inf, 0, m_new)
        p = np.exp(s - shift)  # (b, h, n_q, bk)
        alpha = np.exp(m - shift)  # rescales the statistics of the earlier tiles
        l = alpha * l + p.sum(axis=-1, keepdims=True)
        # keys no query of the block may see contribute 0, even if they hold NaN/inf (padding)
        v_j = np.where(np.isneginf(s).all(axis=-2)[..., None], 0, v[..., j0:j1, :])  # (b, h, bk, d_v)
        acc = (acc if bug == "no_rescale" else alpha * acc) + p @ v_j
        if bug == "float16_accumulation":  # the running sums kept in float16 between tiles
            acc, l = acc.astype(np.float16).astype(ct), l.astype(np.float16).astype(ct)
        with np.errstate(divide="ignore"):
            last_lse = shift + np.log(p.sum(axis=-1, keepdims=True))
        m = m_new
    empty = l == 0
    out = acc / np.where(empty, 1, l)
    with np.errstate(divide="ignore"):
        lse = np.where(empty, -np.inf, m + np.log(np.where(empty, 1, l)))
    if bug == "lse_of_wrong_tile":
        lse = np.where(empty, -np.inf, last_lse)  # the statistics of the last tile only
    return out, lse[..., 0]


def _forward(bug, with_lse=False):
    def fn(q, k, v, *, causal=False, mask=None, window=None, align=None, softcap=None):
        out, lse = _tiled(q, k, v, causal=causal, mask=mask, window=window, align=align, softcap=softcap, bug=bug)
        out = out.astype(q.dtype)
        return (out, lse) if with_lse else out

    fn.__name__ = fn.__qualname__ = f"tiled_{bug or 'correct'}"
    return fn


tiled_correct = _forward(None)
tiled_correct_with_lse = _forward(None, with_lse=True)
tiled_no_rescale = _forward("no_rescale")
tiled_last_partial_tile_dropped = _forward("last_partial_tile_dropped")
tiled_causal_local_index = _forward("causal_local_index")
tiled_lse_of_wrong_tile = _forward("lse_of_wrong_tile", with_lse=True)
tiled_gqa_head_mapping = _forward("gqa_head_mapping")
tiled_window_off_by_one = _forward("window_off_by_one")
tiled_softcap_after_masking = _forward("softcap_after_masking")
tiled_float16_accumulation = _forward("float16_accumulation")


def _backward(bug):
    def bwd(q, k, v, out, lse, d_out, *, causal=False, mask=None):
        """FlashAttention-2's backward by tiles of BLOCK keys, P recomputed from the saved lse."""
        dt = q.dtype
        q, k, v, out, d_out = (a.astype(np.float64 if dt == np.float64 else np.float32) for a in (q, k, v, out, d_out))
        n_q, n_k = q.shape[-2], k.shape[-2]
        scale = 1 / np.sqrt(q.shape[-1])
        big_d = np.sum(d_out * out, axis=-1, keepdims=True)  # D = rowsum(dO * O)
        lse_c = np.where(lse == -np.inf, np.inf, lse)[..., None]
        dq, dk, dv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
        i = np.arange(n_q)[:, None] + (n_k - n_q if causal == "bottom_right" else 0)
        for j0 in range(0, n_k, BLOCK):
            j1 = min(j0 + BLOCK, n_k)
            with np.errstate(invalid="ignore"):
                s = (q @ k[..., j0:j1, :].swapaxes(-1, -2)) * scale
            allowed = np.ones((n_q, j1 - j0), dtype=bool)
            if causal:
                allowed &= np.arange(j0, j1)[None, :] <= i
            if mask is not None:
                m_j = mask[..., j0:j1]
                allowed = allowed & (m_j if m_j.dtype == np.bool_ else m_j != -np.inf)
            with np.errstate(invalid="ignore"):  # NaN in padded keys: masked just below
                p = np.where(allowed, np.exp(s - lse_c), 0)  # (b, h, n_q, bk)
            hidden = ~allowed.any(axis=-2)[..., None]  # (.., bk, 1) keys no query sees: padding
            k_j = np.where(hidden, 0, k[..., j0:j1, :])
            v_j = np.where(hidden, 0, v[..., j0:j1, :])
            dv[..., j0:j1, :] = p.swapaxes(-1, -2) @ d_out
            dp = d_out @ v_j.swapaxes(-1, -2)
            ds = p * dp if bug == "no_D_term" else p * (dp - big_d)
            dq += scale * (ds @ k_j)
            dk[..., j0:j1, :] = (1.0 if bug == "unscaled_dk" else scale) * (ds.swapaxes(-1, -2) @ q)
        return tuple(g.astype(dt) for g in (dq, dk, dv))

    bwd.__name__ = bwd.__qualname__ = f"tiled_backward_{bug or 'correct'}"
    return bwd


tiled_backward_correct = _backward(None)
tiled_backward_no_D_term = _backward("no_D_term")
tiled_backward_unscaled_dk = _backward("unscaled_dk")
