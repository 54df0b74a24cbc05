r"""Reference implementations: attention and the transformer layer, written as the formulas read.

These are the slow, obvious versions against which everything else (the tiled kernel in
:mod:`numeric.tiled`, the symbolic results in :mod:`derivations`) is checked. Every function
materialises whatever the formula names, the ``n_q x n_k`` score matrix included.

.. math::

    \operatorname{Attention}(Q, K, V) = \operatorname{softmax}(S)\,V, \qquad
    S_{ij} = \operatorname{cap}(\text{scale}\cdot q_i\cdot k_j) + M_{ij} + B_{ij}
    \ \text{where allowed, } -\infty \text{ elsewhere}

Conventions
-----------
* Shapes: ``q (..., h, n_q, d)``, ``k (..., h_kv, n_k, d)``, ``v (..., h_kv, n_k, d_v)``;
  leading dims broadcast; ``d >= 1``. The head axis is dimension -3.
* **Order of operations** (that of FlashAttention's reference ``attention_ref`` and of Gemma 2):
  scale, then soft-cap, then the additive float mask and the ALiBi bias, then the masks
  (boolean mask, causal/window band, key lengths) set entries to ``-inf``.
* ``mask``: boolean (``True`` = may attend) or additive float (``-inf`` = may not attend).
* **Alignment.** Query ``i`` sits at position ``i + offset`` among the keys, ``offset = 0``
  (``align="top_left"``, the default, torch ``scaled_dot_product_attention``) or
  ``n_k - n_q`` (``align="bottom_right"``, FlashAttention >= 2.1, a query block that ends the key
  sequence). The offset serves ``causal=True``, ``window`` and ``alibi_slopes``.
  ``causal="bottom_right"`` implies ``align="bottom_right"``; ``causal="top_left"`` with
  ``align="bottom_right"`` (or the reverse) is an error naming both.
* **Causal**: query ``i`` sees keys ``j <= i + offset``.
* **Sliding window** ``window=(left, right)`` (Longformer, Beltagy et al. 2020; Mistral 7B,
  Jiang et al. 2023; FlashAttention's ``window_size``): query ``i`` sees key ``j`` iff
  ``i + offset - left <= j <= i + offset + right``; ``None`` leaves that side unbounded. With
  ``causal``, ``right`` becomes ``min(right, 0)``; ``causal=True`` is ``window=(None, 0)``.
* **Logit soft-capping** ``softcap=c`` (Gemma 2, Gemma Team 2024; Grok-1): the scaled score ``s``
  becomes ``c * tanh(s / c)``, before masks and biases; masked entries stay ``-inf``.
* **ALiBi** ``alibi_slopes`` (Press, Smith & Lewis, "Train Short, Test Long", ICLR 2022): query
  head ``m`` adds ``-slopes[m] * |i + offset - j|`` to its scores (after soft-capping, like the
  float mask). Slopes are finite and non-negative, shape ``(h,)`` or broadcastable ``(..., h)``;
  :func:`alibi_slopes` gives the paper's geometric slopes.
* **Grouped-query / multi-query attention** (Ainslie et al., "GQA", 2023; Shazeer, "Fast
  Transformer Decoding", 2019): ``h % h_kv == 0`` and query head ``m`` uses key/value head
  ``m // (h // h_kv)`` (consecutive query heads share a key/value head: torch's ``enable_gqa``
  and FlashAttention's convention). The gradients of a shared key/value head are summed over its
  group. ``h_kv = 1`` is multi-query attention (it is also plain broadcasting).
* **Key lengths** ``key_lengths`` (shape ``(batch,)``, 4-D inputs ``(batch, heads, n, d)``):
  keys at positions ``>= key_lengths[b]`` are masked for batch element ``b`` (right padding).
  Positions for the alignment are still those of the padded arrays.
* **Fully masked rows** (a query that may see no key) have output 0, gradient 0 and
  log-sum-exp ``-inf``: the softmax of an all ``-inf`` row is defined here as the zero vector,
  never NaN. :func:`numeric.tiled.tiled_attention` follows the same convention. Empty inputs
  (``n_q = 0`` or ``n_k = 0``) give empty or zero outputs.
* **Ignored keys** (masked for every query: by the mask, the band, or the key lengths) never
  reach the output or the gradients, even if they hold NaN or inf (see
  :func:`numeric.validation.zero_ignored_keys`). Non-finite values elsewhere are not rejected;
  they propagate as IEEE arithmetic does: a NaN in query ``i`` makes row ``i`` NaN, and a NaN in a
  key or value that some query may see can reach every row (``0 * nan = nan`` inside
  :math:`PV`). Checking would cost a pass over the inputs and hide bugs upstream.
* float16 inputs are computed in float32 and the result returned in float16.

References
----------
Vaswani et al., "Attention Is All You Need", 2017, eq. (1) and section 3.2.2 (multi-head).
Xiong et al., "On Layer Normalization in the Transformer Architecture", 2020 (pre-/post-norm).
Press, Smith & Lewis, "Train Short, Test Long: Attention with Linear Biases", ICLR 2022 (ALiBi).
Ainslie et al., "GQA: Training Generalized Multi-Query Transformer Models", EMNLP 2023.
Beltagy et al., "Longformer", 2020; Jiang et al., "Mistral 7B", 2023 (sliding windows).
Gemma Team, "Gemma 2: Improving Open Language Models at a Practical Size", 2024 (soft-capping).
Dao, "FlashAttention-2", 2023 (bottom-right causal alignment, ``window_size``, ``softcap``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .validation import (
    check_attention_args,
    compute_dtype,
    zero_ignored_keys,
)

__all__ = [
    "TransformerLayerParams",
    "alibi_slopes",
    "attention",
    "attention_backward",
    "attention_scores",
    "gelu",
    "layer_norm",
    "logsumexp",
    "mha_sum_of_heads",
    "mlp",
    "multi_head_attention",
    "post_norm_layer",
    "pre_norm_layer",
    "relu",
    "softmax",
    "softmax_jacobian",
]


# ---------------------------------------------------------------------------------------------
# softmax


def _row_max(x: np.ndarray, axis: int) -> np.ndarray:
    # The stabilising shift. A row that is entirely -inf is shifted by 0 (not -inf), so that
    # x - m stays -inf instead of becoming (-inf) - (-inf) = nan.
    m = np.max(x, axis=axis, keepdims=True)
    return np.where(m == -np.inf, 0, m)


def softmax(x, axis: int = -1) -> np.ndarray:
    r"""Numerically stable softmax, :math:`\operatorname{softmax}(x)_i = e^{x_i - m} / \sum_j e^{x_j - m}`.

    ``m`` is the row maximum, so no exponential overflows. A row that is entirely ``-inf``
    (a fully masked attention row) gives the zero vector.

    Examples
    --------
    >>> softmax(np.array([0.0, np.log(3.0)]))          # e^0 : e^{log 3} = 1 : 3
    array([0.25, 0.75])
    >>> softmax(np.array([1e4, 1e4]))                  # no overflow
    array([0.5, 0.5])
    >>> softmax(np.array([-np.inf, -np.inf]))          # fully masked: zeros, not nan
    array([0., 0.])
    """
    x = np.asarray(x)
    e = np.exp(x - _row_max(x, axis))
    z = np.sum(e, axis=axis, keepdims=True)
    return e / np.where(z == 0, 1, z)


def logsumexp(x, axis: int = -1) -> np.ndarray:
    r"""Stable :math:`\log \sum_j e^{x_j}`; ``-inf`` for an all ``-inf`` row.

    >>> float(logsumexp(np.array([0.0, 0.0])) - np.log(2.0))
    0.0
    >>> logsumexp(np.array([-np.inf, -np.inf]))
    np.float64(-inf)
    """
    x = np.asarray(x)
    m = _row_max(x, axis)
    with np.errstate(divide="ignore"):  # log(0) = -inf is the intended value for empty rows
        return np.squeeze(m, axis) + np.log(np.sum(np.exp(x - m), axis=axis))


def softmax_jacobian(a) -> np.ndarray:
    r"""Jacobian of the softmax at output ``a``: :math:`J = \operatorname{diag}(a) - a a^\top`.

    ``a`` is a probability vector ``(n,)`` or a batch ``(..., n)``; returns ``(..., n, n)``.

    Examples
    --------
    >>> softmax_jacobian(np.array([0.5, 0.5]))          # 0.5 - 0.25 on the diagonal
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    """
    a = np.asarray(a)
    diag = a[..., :, None] * np.eye(a.shape[-1], dtype=a.dtype)  # (..., n, n)
    return diag - a[..., :, None] * a[..., None, :]


# ---------------------------------------------------------------------------------------------
# scaled dot-product attention and its variants


_VARIANT_DOC = """
    mask : bool or float array broadcastable to ``(..., h, n_q, n_k)``, optional
        Boolean: ``True`` where the query may attend. Float: added to the (soft-capped) scores.
    causal : False, True / "top_left", or "bottom_right"
        Query ``i`` sees keys ``j <= i + offset``. ``True`` uses ``align``; ``"bottom_right"``
        implies ``align="bottom_right"``.
    scale : float, optional
        Defaults to :math:`1/\\sqrt d`.
    window : (left, right), optional
        Query ``i`` sees key ``j`` iff ``i + offset - left <= j <= i + offset + right``
        (``None`` = unbounded on that side).
    softcap : float > 0, optional
        Scores become ``softcap * tanh(s / softcap)`` after scaling, before masks and biases.
    alibi_slopes : array ``(h,)`` or broadcastable ``(..., h)``, optional
        Adds ``-slope * |i + offset - j|`` to the scores of each query head.
    key_lengths : int array ``(batch,)``, optional (4-D inputs only)
        Keys at positions ``>= key_lengths[b]`` are masked for batch element ``b``.
    align : None, "top_left" or "bottom_right"
        The coordinate offset (``0`` or ``n_k - n_q``) used by ``causal=True``, ``window`` and
        ``alibi_slopes``; default top-left (unless ``causal="bottom_right"``)."""


def _check(q, k, v, mask, causal, scale, window, softcap, alibi_slopes, key_lengths, align):
    return check_attention_args(
        q, k, v, mask=mask, causal=causal, scale=scale, window=window, softcap=softcap,
        alibi_slopes=alibi_slopes, key_lengths=key_lengths, align=align,
    )  # fmt: skip


def _allowed(args) -> np.ndarray | None:
    """The boolean ``(*b, n_q, n_k)`` "may attend" matrix (mask, band, key lengths), or None."""
    allowed = None

    def both(a, b):
        return b if a is None else a & b

    if args.mask is not None:
        mask = args.mask
        allowed = mask if mask.dtype == np.bool_ else mask != -np.inf
    i = np.arange(args.n_q)[:, None] + args.offset  # (n_q, 1)  query positions, aligned
    j = np.arange(args.n_k)[None, :]  # (1, n_k)
    if args.left is not None:
        allowed = both(allowed, j >= i - args.left)  # (n_q, n_k)
    if args.right is not None:
        allowed = both(allowed, j <= i + args.right)  # (n_q, n_k)  causal: right = 0
    if args.lengths is not None:
        key_ok = np.arange(args.n_k) < args.lengths  # (B, 1, ..., 1, n_k)
        allowed = both(allowed, key_ok[..., None, :])  # (B, 1, ..., 1, 1, n_k)
    return allowed


def _bias(args, ct) -> np.ndarray | None:
    """ALiBi's ``-slope * |i + offset - j|`` (``(*b, n_q, n_k)``), or None."""
    if args.slopes is None:
        return None
    i = np.arange(args.n_q)[:, None] + args.offset  # (n_q, 1)
    j = np.arange(args.n_k)[None, :]  # (1, n_k)
    return -args.slopes.astype(ct) * np.abs(i - j).astype(ct)  # (*b, n_q, n_k)


def _scores(args, q, k, want_tanh: bool = False):
    """The scores ``s`` (``-inf`` where masked) and, if asked, ``tanh(raw / softcap)`` (or None)."""
    ct = compute_dtype(args.q.dtype)
    q, k = q.astype(ct, copy=False), k.astype(ct, copy=False)
    s = (q @ k.swapaxes(-1, -2)) * ct.type(args.scale)  # (*b, n_q, n_k)  scale QK^T
    t = None
    if args.softcap is not None:
        c = ct.type(args.softcap)
        t = np.tanh(s / c)  # (*b, n_q, n_k)
        s = c * t  # soft-capped, before any mask or bias
    if args.mask is not None and args.mask.dtype != np.bool_:
        with np.errstate(invalid="ignore"):  # inf - inf where masked: overwritten just below
            s = s + args.mask.astype(ct, copy=False)
    bias = _bias(args, ct)
    if bias is not None:
        s = s + bias
    allowed = _allowed(args)
    if allowed is not None:
        s = np.where(allowed, s, ct.type(-np.inf))
    return (s, t) if want_tanh else s


def attention_scores(q, k, *, mask=None, causal=False, scale=None, window=None, softcap=None,
                     alibi_slopes=None, key_lengths=None, align=None) -> np.ndarray:  # fmt: skip
    r"""The score matrix :math:`S` that the softmax sees, ``-inf`` where masked.

    Scaled, soft-capped, biased and masked as in :func:`attention`. Returns ``(..., n_q, n_k)``
    in the compute precision (float32 for float16 inputs).

    >>> attention_scores(np.eye(2), np.eye(2), causal=True, scale=1.0)
    array([[  1., -inf],
           [  0.,   1.]])
    """
    k = np.asarray(k)
    args = _check(q, k, k, mask, causal, scale, window, softcap, alibi_slopes, key_lengths, align)
    return args.user(_scores(args, args.q, args.k), 2)


def _physical_memory() -> int | None:
    import os

    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _require_score_memory(args, ct, what: str, matrices: int) -> None:
    """Refuse, with a pointer to the tiled kernel, a score matrix that cannot fit in memory."""
    batch = int(np.prod(args.batch, dtype=np.int64)) if args.batch else 1
    need = batch * args.n_q * args.n_k * np.dtype(ct).itemsize * matrices
    have = _physical_memory()
    if have is not None and need > have:
        gib = 2.0**30
        raise MemoryError(
            f"{what} forms {matrices} score matrices of {batch} x {args.n_q} x {args.n_k} ({need / gib:.1f} GiB), "
            f"more than this machine's {have / gib:.1f} GiB of memory; numeric.tiled_attention computes the same "
            "result tile by tile without forming them (numeric.tiled_attention_backward for the gradients)")


def attention(q, k, v, *, mask=None, causal=False, scale=None, window=None, softcap=None,
              alibi_slopes=None, key_lengths=None, align=None) -> np.ndarray:  # fmt: skip
    r"""Scaled dot-product attention, :math:`\operatorname{softmax}(S)\,V` with the variants above.

    Parameters
    ----------
    q, k, v : arrays ``(..., h, n_q, d)``, ``(..., h_kv, n_k, d)``, ``(..., h_kv, n_k, d_v)``
        Leading (batch, head) dimensions broadcast; ``h % h_kv == 0`` (grouped-query attention:
        query head ``m`` uses key/value head ``m // (h // h_kv)``). One floating dtype.
    {variants}

    Returns
    -------
    ``(..., h, n_q, d_v)``, same dtype as the inputs. Fully masked rows are 0.

    Examples
    --------
    One query, two keys with scores 0 and log 3 (scale 1): weights 1/4 and 3/4.

    >>> q = np.array([[1.0]]); k = np.array([[0.0], [np.log(3.0)]]); v = np.array([[4.0], [8.0]])
    >>> attention(q, k, v, scale=1.0)                 # 4/4 + 8*3/4 = 7
    array([[7.]])
    >>> attention(q, k, v, mask=np.array([[False, False]]))   # fully masked row: 0
    array([[0.]])
    >>> attention(q, k, v, scale=1.0, window=(0, 0))   # query 0 sees key 0 only
    array([[4.]])
    """
    args = _check(q, k, v, mask, causal, scale, window, softcap, alibi_slopes, key_lengths, align)
    ct = compute_dtype(args.q.dtype)
    if args.n_q == 0 or args.n_k == 0:  # no query, or nothing to attend to: zeros
        return np.zeros((*args.user_batch, args.n_q, args.d_v), args.q.dtype)
    _require_score_memory(args, ct, "attention", 2)
    k, v = zero_ignored_keys(args)
    try:
        s = _scores(args, args.q, k)  # (*b, n_q, n_k)
        p = softmax(s, axis=-1)  # (*b, n_q, n_k)
    except MemoryError:
        raise MemoryError(f"attention ran out of memory forming the {args.n_q} x {args.n_k} score matrix; "
                          "numeric.tiled_attention computes the same result without forming it") from None
    out = p @ v.astype(ct, copy=False)  # (*b, n_q, d_v)
    return args.user(out, 2).astype(args.q.dtype, copy=False)


def attention_backward(q, k, v, d_out, *, mask=None, causal=False, scale=None, window=None, softcap=None,
                       alibi_slopes=None, key_lengths=None, align=None):  # fmt: skip
    r"""Gradients ``(dq, dk, dv)`` of :func:`attention`, from the explicit formulas.

    With :math:`P = \operatorname{softmax}(S)`, upstream gradient :math:`dO`, raw scores
    :math:`R = \text{scale}\cdot QK^\top` and :math:`S = c \tanh(R / c) + B` (or :math:`R + B`
    without soft-capping; :math:`B` the float mask and ALiBi bias):

    .. math::

        dV = P^\top dO,\quad dP = dO\,V^\top,\quad
        dS_{i\cdot} = J(P_{i\cdot})\,dP_{i\cdot} = P_{i\cdot} \odot (dP_{i\cdot} - P_{i\cdot}\cdot dP_{i\cdot}),

        dR = dS \odot (1 - \tanh^2(R / c)) \;(\text{or } dS),\quad
        dQ = \text{scale}\cdot dR\,K,\quad dK = \text{scale}\cdot dR^\top Q

    where :math:`J` is :func:`softmax_jacobian`. Each gradient has its input's shape (summed
    over broadcast dimensions and over the query heads of a group).

    Examples
    --------
    With a single key the output is ``v`` whatever ``q`` is, so ``dq = dk = 0`` and ``dv = d_out``.

    >>> dq, dk, dv = attention_backward(np.ones((1, 2)), np.ones((1, 2)), np.ones((1, 3)), np.ones((1, 3)))
    >>> dq.tolist(), dk.tolist(), dv.tolist()
    ([[0.0, 0.0]], [[0.0, 0.0]], [[1.0, 1.0, 1.0]])
    """
    args = _check(q, k, v, mask, causal, scale, window, softcap, alibi_slopes, key_lengths, align)
    d_out = np.asarray(d_out)
    expected = (*args.user_batch, args.n_q, args.d_v)
    if d_out.shape != expected:
        raise ValueError(f"d_out has shape {d_out.shape}, expected {expected}")
    ct = compute_dtype(args.q.dtype)
    if args.n_q == 0 or args.n_k == 0:
        zeros = [np.zeros(shape, ct) for shape, _ in args.shapes]
        return tuple(z.astype(args.q.dtype) for z in zeros)
    _require_score_memory(args, ct, "attention_backward", 4)
    k0, v0 = zero_ignored_keys(args)
    q_, k_, v_ = (x.astype(ct, copy=False) for x in (args.q, k0, v0))
    do = d_out.astype(ct, copy=False).reshape(*args.batch, args.n_q, args.d_v)  # (*b, n_q, d_v)
    s, t = _scores(args, args.q, k0, want_tanh=True)
    p = softmax(s, axis=-1)  # (*b, n_q, n_k)
    dv = p.swapaxes(-1, -2) @ do  # (*b, n_k, d_v)
    dp = do @ v_.swapaxes(-1, -2)  # (*b, n_q, n_k)
    ds = p * (dp - np.sum(p * dp, axis=-1, keepdims=True))  # (*b, n_q, n_k)  J(p) dp, row by row
    if t is not None:
        ds = ds * (1 - t * t)  # d/dR of c tanh(R / c)
    dq = args.scale * (ds @ k_)  # (*b, n_q, d)
    dk = args.scale * (ds.swapaxes(-1, -2) @ q_)  # (*b, n_k, d)
    return args.user_grads(dq, dk, dv, args.q.dtype)


attention.__doc__ = attention.__doc__.replace("    {variants}", _VARIANT_DOC.strip("\n"))


# ---------------------------------------------------------------------------------------------
# multi-head attention


def _split_heads(x: np.ndarray, heads: int) -> np.ndarray:
    *lead, n, c = x.shape
    return x.reshape(*lead, n, heads, c // heads).swapaxes(-3, -2)  # (..., H, n, c/H)


def _check_heads(heads, w_q, w_k, w_v):
    if isinstance(heads, bool) or not isinstance(heads, (int, np.integer)) or heads <= 0:
        raise ValueError(f"heads must be a positive integer, got {heads!r}")
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        if w.shape[-1] % heads:
            raise ValueError(f"{name} has {w.shape[-1]} output features, not divisible by heads={heads}")


def _affine(x, w, b):
    y = x @ w
    return y if b is None else y + b


def multi_head_attention(
    x, w_q, w_k, w_v, w_o, *, heads, b_q=None, b_k=None, b_v=None, b_o=None, mask=None, causal=False
) -> np.ndarray:
    r"""Multi-head self-attention, :math:`\operatorname{Concat}(\text{head}_1, \dots, \text{head}_H)\,W_O`.

    Projections act on the right, :math:`Q = X W_Q + b_Q`, and head ``m`` takes the ``m``-th
    consecutive slice of the features. ``x (..., n, d_model)``, ``w_q, w_k (d_model, H*d_k)``,
    ``w_v (d_model, H*d_v)``, ``w_o (H*d_v, d_out)``. ``mask`` broadcasts to ``(..., n, n)``
    (the head axis is inserted) with the conventions of :func:`attention`.

    Examples
    --------
    Identity projections and one head: plain self-attention.

    >>> x = np.array([[1.0, 0.0], [0.0, 1.0]]); eye = np.eye(2)
    >>> bool(np.allclose(multi_head_attention(x, eye, eye, eye, eye, heads=1), attention(x, x, x)))
    True
    """
    x = np.asarray(x)
    _check_heads(heads, w_q, w_k, w_v)
    q = _split_heads(_affine(x, w_q, b_q), heads)  # (..., H, n, d_k)
    k = _split_heads(_affine(x, w_k, b_k), heads)  # (..., H, n, d_k)
    v = _split_heads(_affine(x, w_v, b_v), heads)  # (..., H, n, d_v)
    if mask is not None:
        mask = np.asarray(mask)[..., None, :, :]  # (..., 1, n, n)  same mask for every head
    y = attention(q, k, v, mask=mask, causal=causal)  # (..., H, n, d_v)
    y = y.swapaxes(-3, -2)  # (..., n, H, d_v)
    y = y.reshape(*y.shape[:-2], -1)  # (..., n, H*d_v)  heads concatenated in order
    return _affine(y, w_o, b_o)


def mha_sum_of_heads(
    x, w_q, w_k, w_v, w_o, *, heads, b_q=None, b_k=None, b_v=None, b_o=None, mask=None, causal=False
) -> np.ndarray:
    r"""Multi-head attention as a sum of per-head low-rank maps, :math:`\sum_m A^m X W_V^m W_O^m`.

    :math:`A^m` is head ``m``'s attention matrix, :math:`W_V^m` the ``m``-th column block of
    :math:`W_V` and :math:`W_O^m` the ``m``-th row block of :math:`W_O` (biases: :math:`X W_V^m`
    becomes :math:`X W_V^m + b_V^m`, and :math:`b_O` is added once). Equal to
    :func:`multi_head_attention`; each term has rank at most :math:`d_v`.

    >>> rng = np.random.default_rng(0); x = rng.normal(size=(3, 4)); w = rng.normal(size=(4, 4, 4))
    >>> a = multi_head_attention(x, *w, heads=2); b = mha_sum_of_heads(x, *w, heads=2)
    >>> bool(np.allclose(a, b))
    True
    """
    x = np.asarray(x)
    _check_heads(heads, w_q, w_k, w_v)
    d_k = w_q.shape[-1] // heads
    d_v = w_v.shape[-1] // heads
    total = 0
    for m in range(heads):
        qs, vs = slice(m * d_k, (m + 1) * d_k), slice(m * d_v, (m + 1) * d_v)
        q = _affine(x, w_q[:, qs], None if b_q is None else b_q[qs])  # (..., n, d_k)
        k = _affine(x, w_k[:, qs], None if b_k is None else b_k[qs])  # (..., n, d_k)
        xv = _affine(x, w_v[:, vs], None if b_v is None else b_v[vs])  # (..., n, d_v)
        s = attention_scores(q, k, mask=mask, causal=causal)  # (..., n, n)
        a = softmax(s, axis=-1)  # (..., n, n)  A^m
        total = total + a @ xv @ w_o[vs, :]  # (..., n, d_out)  A^m X W_V^m W_O^m
    return total if b_o is None else total + b_o


# ---------------------------------------------------------------------------------------------
# the rest of a transformer layer


def layer_norm(x, gamma=None, beta=None, eps: float = 1e-5) -> np.ndarray:
    r"""Layer normalisation over the last axis, :math:`\gamma \odot (x - \mu)/\sqrt{\sigma^2 + \epsilon} + \beta`.

    :math:`\sigma^2` is the biased (population) variance, as in torch ``nn.LayerNorm``.

    >>> layer_norm(np.array([1.0, 3.0]), eps=0.0)     # mean 2, std 1
    array([-1.,  1.])
    """
    x = np.asarray(x)
    mu = x.mean(axis=-1, keepdims=True)  # (..., 1)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)  # (..., 1)
    y = (x - mu) / np.sqrt(var + eps)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


def relu(x) -> np.ndarray:
    """:math:`\\max(x, 0)`.

    >>> relu(np.array([-1.0, 2.0]))
    array([0., 2.])
    """
    return np.maximum(x, 0)


def gelu(x) -> np.ndarray:
    r"""GELU, tanh approximation (GPT-2): :math:`\tfrac12 x (1 + \tanh(\sqrt{2/\pi}(x + 0.044715 x^3)))`.

    >>> gelu(np.array([0.0]))
    array([0.])
    """
    x = np.asarray(x)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


_ACTIVATIONS: dict[str, Callable] = {"gelu": gelu, "relu": relu}


def mlp(x, w_1, w_2, b_1=None, b_2=None, *, activation="gelu") -> np.ndarray:
    r"""Position-wise feed-forward network, :math:`\phi(X W_1 + b_1) W_2 + b_2`.

    ``activation`` is ``"gelu"``, ``"relu"`` or any callable.

    >>> mlp(np.array([[1.0, -1.0]]), np.eye(2), np.eye(2), activation="relu")
    array([[1., 0.]])
    """
    if isinstance(activation, str):
        try:
            activation = _ACTIVATIONS[activation]
        except KeyError:
            raise ValueError(
                f"unknown activation {activation!r}; expected one of {sorted(_ACTIVATIONS)} or a callable"
            ) from None
    return _affine(activation(_affine(np.asarray(x), w_1, b_1)), w_2, b_2)


@dataclass(frozen=True)
class TransformerLayerParams:
    """The weights of one transformer layer (attention, MLP, two layer norms).

    >>> p = TransformerLayerParams.random(d_model=8, d_ff=16, rng=np.random.default_rng(0))
    >>> p.w_q.shape, p.w_1.shape, p.ln_1_gamma.shape
    ((8, 8), (8, 16), (8,))
    """

    w_q: np.ndarray  # (d_model, d_model)
    w_k: np.ndarray  # (d_model, d_model)
    w_v: np.ndarray  # (d_model, d_model)
    w_o: np.ndarray  # (d_model, d_model)
    w_1: np.ndarray  # (d_model, d_ff)
    w_2: np.ndarray  # (d_ff, d_model)
    b_q: np.ndarray | None = None
    b_k: np.ndarray | None = None
    b_v: np.ndarray | None = None
    b_o: np.ndarray | None = None
    b_1: np.ndarray | None = None
    b_2: np.ndarray | None = None
    ln_1_gamma: np.ndarray | None = None
    ln_1_beta: np.ndarray | None = None
    ln_2_gamma: np.ndarray | None = None
    ln_2_beta: np.ndarray | None = None

    @classmethod
    def random(cls, d_model: int, d_ff: int, rng: np.random.Generator) -> TransformerLayerParams:
        """Gaussian weights with variance 1/fan_in, small random biases and norm parameters."""

        def w(fan_in, fan_out):
            return rng.normal(scale=fan_in**-0.5, size=(fan_in, fan_out))

        def b(size):
            return rng.normal(scale=0.1, size=size)

        return cls(
            w_q=w(d_model, d_model), w_k=w(d_model, d_model), w_v=w(d_model, d_model),
            w_o=w(d_model, d_model), w_1=w(d_model, d_ff), w_2=w(d_ff, d_model),
            b_q=b(d_model), b_k=b(d_model), b_v=b(d_model), b_o=b(d_model), b_1=b(d_ff), b_2=b(d_model),
            ln_1_gamma=1 + b(d_model), ln_1_beta=b(d_model),
            ln_2_gamma=1 + b(d_model), ln_2_beta=b(d_model),
        )  # fmt: skip


def _mha(x, p: TransformerLayerParams, heads, mask, causal):
    return multi_head_attention(
        x, p.w_q, p.w_k, p.w_v, p.w_o, heads=heads,
        b_q=p.b_q, b_k=p.b_k, b_v=p.b_v, b_o=p.b_o, mask=mask, causal=causal,
    )  # fmt: skip


def pre_norm_layer(x, params: TransformerLayerParams, *, heads, mask=None, causal=False,
                   activation="gelu", eps: float = 1e-5) -> np.ndarray:  # fmt: skip
    r"""Pre-norm transformer layer (GPT-2): :math:`X \leftarrow X + \operatorname{MHA}(\operatorname{LN}_1(X))`,
    then :math:`X \leftarrow X + \operatorname{MLP}(\operatorname{LN}_2(X))`.

    >>> p = TransformerLayerParams.random(4, 8, np.random.default_rng(0))
    >>> pre_norm_layer(np.zeros((3, 4)), p, heads=2).shape
    (3, 4)
    """
    p = params
    x = np.asarray(x)  # (..., n, d_model)
    x = x + _mha(layer_norm(x, p.ln_1_gamma, p.ln_1_beta, eps), p, heads, mask, causal)
    x = x + mlp(layer_norm(x, p.ln_2_gamma, p.ln_2_beta, eps), p.w_1, p.w_2, p.b_1, p.b_2,
                activation=activation)  # fmt: skip
    return x


def post_norm_layer(x, params: TransformerLayerParams, *, heads, mask=None, causal=False,
                    activation="gelu", eps: float = 1e-5) -> np.ndarray:  # fmt: skip
    r"""Post-norm transformer layer (Vaswani et al.):
    :math:`X \leftarrow \operatorname{LN}_1(X + \operatorname{MHA}(X))`,
    then :math:`X \leftarrow \operatorname{LN}_2(X + \operatorname{MLP}(X))`.

    >>> p = TransformerLayerParams.random(4, 8, np.random.default_rng(0))
    >>> post_norm_layer(np.zeros((3, 4)), p, heads=2).shape
    (3, 4)
    """
    p = params
    x = np.asarray(x)  # (..., n, d_model)
    x = layer_norm(x + _mha(x, p, heads, mask, causal), p.ln_1_gamma, p.ln_1_beta, eps)
    x = layer_norm(x + mlp(x, p.w_1, p.w_2, p.b_1, p.b_2, activation=activation),
                   p.ln_2_gamma, p.ln_2_beta, eps)  # fmt: skip
    return x


# ---------------------------------------------------------------------------------------------
# ALiBi


def alibi_slopes(h) -> np.ndarray:
    r"""The ALiBi head slopes of Press et al. (2022), section 3, for ``h`` heads.

    For ``h`` a power of two the slopes are the geometric sequence
    :math:`2^{-8/h}, 2^{-16/h}, \dots, 2^{-8}` (start and ratio :math:`2^{-8/h}`). Otherwise,
    with :math:`p` the largest power of two below ``h``, the ``p`` slopes for ``p`` heads come
    first, followed by every other slope of the ``2p``-head sequence (the odd-numbered ones,
    :math:`2^{-4/p}, 2^{-12/p}, \dots`) until there are ``h`` -- the rule of the paper's
    reference code (``get_slopes`` in ofirpress/attention_with_linear_biases).

    >>> alibi_slopes(8).tolist()                     # 2^-1, 2^-2, ..., 2^-8
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    >>> alibi_slopes(3).tolist()                     # p = 2: 2^-4, 2^-8, then 2^-2 from the 4-head set
    [0.0625, 0.00390625, 0.25]
    """
    if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or h <= 0:
        raise ValueError(f"alibi_slopes needs a positive integer number of heads h, got {h!r}")
    h = int(h)

    def powers_of_two(n: int) -> list[float]:  # n a power of two
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]

    p = 1 << (h.bit_length() - 1)  # largest power of two <= h
    slopes = powers_of_two(p)
    if p < h:
        slopes += powers_of_two(2 * p)[0::2][: h - p]
    return np.array(slopes)
