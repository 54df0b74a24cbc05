"""Argument checking shared by the reference implementations and the tiled kernel.

Every public function of :mod:`numeric` checks its inputs here, so that the reference
(:mod:`numeric.reference`) and the kernel (:mod:`numeric.tiled`) reject exactly the same
inputs with exactly the same messages. A message always names the offending argument and its
shape, type or value.

Conventions checked here (the variants are described in :mod:`numeric.reference`):

* ``q`` is ``(..., n_q, d)``, ``k`` is ``(..., n_k, d)``, ``v`` is ``(..., n_k, d_v)``; the leading
  (batch, head) dimensions broadcast against each other, except that the **head** dimension
  (-3) may be grouped: ``q`` with ``h`` heads and ``k``/``v`` with ``h_kv`` heads, ``h % h_kv == 0``
  (grouped-query attention). ``d >= 1``; ``n_q``, ``n_k`` and ``d_v`` may be 0.
* all three share one floating dtype (float16, float32 or float64); integers, booleans and complex
  numbers are a :class:`TypeError`.
* ``mask`` is boolean (``True`` = may attend) or floating (added to the scores; ``-inf``
  means "may not attend"), broadcastable to ``(..., h, n_q, n_k)``.
* ``causal`` is ``False``, ``True`` / ``"top_left"`` or ``"bottom_right"``; ``align`` is
  ``None``, ``"top_left"`` or ``"bottom_right"``; ``window`` a pair of ``None`` or non-negative
  integers; ``softcap`` a finite positive real; ``alibi_slopes`` finite non-negative reals of shape
  ``(h,)`` (or broadcastable ``(..., h)``); ``key_lengths`` integers ``0 <= len <= n_k`` of shape
  ``(batch,)`` for 4-D ``q``.

Internally the arguments are brought to one layout (:class:`AttentionArgs`): every array has the
same number of dimensions, at least one batch dimension, and grouped heads are split into
``(h_kv, group)`` so that grouped-query attention becomes ordinary broadcasting of ``k`` and ``v``
over the group axis. :meth:`AttentionArgs.user` and :meth:`AttentionArgs.user_grads` map results
back to the caller's shapes.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

__all__ = [
    "AttentionArgs",
    "check_attention_args",
    "check_block_size",
    "check_causal",
    "check_threads",
    "compute_dtype",
    "key_band",
    "unbroadcast",
    "visible_range",
    "zero_ignored_keys",
]

_FLOATS = (np.float16, np.float32, np.float64)
_CAUSAL = {False: None, True: "top_left", "top_left": "top_left", "bottom_right": "bottom_right"}
_ALIGN = ("top_left", "bottom_right")


@dataclass(frozen=True)
class AttentionArgs:
    """Checked attention arguments in the internal layout (see the module docstring).

    ``q``, ``k``, ``v`` are the caller's arrays reshaped (views, never copies): each has
    ``len(batch) + 2`` dimensions and broadcasts to ``(*batch, n, .)``. ``mask`` likewise (or
    None). ``slopes`` has shape ``(*b, 1, 1)`` broadcastable to ``(*batch, 1, 1)`` (or None);
    ``lengths`` has shape ``(batch[0], 1, ..., 1)`` (``len(batch) + 1`` dimensions: key lengths
    broadcast against a row of keys) or is None.

    Positions: query ``i`` may see key ``j`` iff ``i + offset - left <= j <= i + offset + right``
    (``left``/``right`` None = unbounded; a causal mask is folded into ``right``), the mask
    allows it, and ``j < lengths[b]``.
    """

    q: np.ndarray  # (*b, n_q, d)
    k: np.ndarray  # (*b, n_k, d)
    v: np.ndarray  # (*b, n_k, d_v)
    mask: np.ndarray | None  # (*b, n_q, n_k), bool or floating
    causal: str | None  # None, "top_left" or "bottom_right"
    scale: float
    batch: tuple[int, ...]  # the broadcast internal batch dimensions (at least one)
    n_q: int
    n_k: int
    d: int
    d_v: int
    offset: int = 0  # 0 (top-left) or n_k - n_q (bottom-right)
    left: int | None = None  # window: keys at most `left` positions before the aligned diagonal
    right: int | None = None  # ... and at most `right` after it (0 when causal)
    softcap: float | None = None
    slopes: np.ndarray | None = None  # (*b, 1, 1) ALiBi slopes
    lengths: np.ndarray | None = None  # (batch[0], 1, ..., 1) key lengths
    user_batch: tuple[int, ...] = ()  # the caller's broadcast leading dimensions
    shapes: tuple = ()  # ((q.shape, internal q shape), (k...), (v...)) of the caller's arrays

    @property
    def banded(self) -> bool:
        """Whether positions restrict which keys a query sees (causal or a window)."""
        return self.left is not None or self.right is not None

    def user(self, x: np.ndarray, trailing: int) -> np.ndarray:
        """Reshape an internal ``(*batch, ...)`` result (``trailing`` dims after the batch) to the caller's."""
        return x.reshape(*self.user_batch, *x.shape[x.ndim - trailing :])

    def user_grads(self, dq, dk, dv, dtype):
        """Sum internal gradients over broadcast (and grouped) axes; the caller's shapes and ``dtype``."""
        grads = []
        for g, (shape, internal) in zip((dq, dk, dv), self.shapes):
            grads.append(unbroadcast(g, internal).reshape(shape).astype(dtype, copy=False))
        return tuple(grads)


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The precision the arithmetic runs in: float16 accumulates in float32.

    >>> compute_dtype(np.dtype(np.float16)), compute_dtype(np.dtype(np.float64))
    (dtype('float32'), dtype('float64'))
    """
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


def check_causal(causal) -> str | None:
    """Normalise ``causal`` to ``None``, ``"top_left"`` or ``"bottom_right"``.

    >>> check_causal(True), check_causal("bottom_right"), check_causal(False)
    ('top_left', 'bottom_right', None)
    """
    try:
        return _CAUSAL[causal]
    except (KeyError, TypeError):
        pass
    raise ValueError(
        f"causal must be False, True, 'top_left' or 'bottom_right', got {causal!r}"
    )


def check_block_size(name: str, value, default: int) -> int:
    """A block size is a positive integer; ``None`` selects the default.

    >>> check_block_size("block_q", None, 128), check_block_size("block_k", 7, 128)
    (128, 7)
    """
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_threads(threads, default: int) -> int:
    """``threads`` is a positive integer; ``None`` selects ``default`` (the CPU count).

    >>> check_threads(None, 4), check_threads(1, 4)
    (4, 1)
    """
    if threads is None:
        return max(1, int(default))
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads <= 0:
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    return int(threads)


def _check_float(name: str, x) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.type not in _FLOATS:
        raise TypeError(
            f"{name} must have a floating dtype (float16, float32 or float64), got {x.dtype}"
        )
    return x


def _check_alignment(causal, align) -> tuple[str | None, str]:
    """``(causal, align)`` normalised; a contradiction names both arguments."""
    norm = check_causal(causal)
    if align is not None and align not in _ALIGN:
        raise ValueError(f"align must be None, 'top_left' or 'bottom_right', got {align!r}")
    if causal is True or norm is None:  # True follows align; no causal mask: align alone decides
        align = align or "top_left"
        return (None if norm is None else align), align
    if align is not None and align != norm:  # "top_left" or "bottom_right" spelled out
        raise ValueError(f"causal={causal!r} contradicts align={align!r}")
    return norm, norm


def _check_window(window) -> tuple[int | None, int | None]:
    if window is None:
        return None, None
    if isinstance(window, (str, bytes)) or not hasattr(window, "__len__") or len(window) != 2:
        raise ValueError(f"window must be a pair (left, right) of None or non-negative integers, got {window!r}")
    sides = []
    for name, w in zip(("left", "right"), window):
        if w is None:
            sides.append(None)
            continue
        if isinstance(w, bool) or not isinstance(w, numbers.Integral) or w < 0:
            raise ValueError(f"window {name} must be None or a non-negative integer, got {w!r}")
        sides.append(int(w))
    return sides[0], sides[1]


def _check_softcap(softcap) -> float | None:
    if softcap is None:
        return None
    if isinstance(softcap, bool) or not isinstance(softcap, numbers.Real) or not (
        math.isfinite(softcap) and softcap > 0
    ):
        raise ValueError(f"softcap must be a finite positive real number (or None), got {softcap!r}")
    return float(softcap)


class _Layout:
    """Maps the caller's shapes to the internal layout: pad to ``nd`` dims, split grouped heads."""

    def __init__(self, q, k, v):
        self.nd = max(q.ndim, k.ndim, v.ndim)
        self.group = None  # (h_kv, g) when grouped-query attention applies
        if q.ndim >= 3:
            h = q.shape[-3]
            kv = {name: x.shape[-3] for name, x in (("k", k), ("v", v)) if x.ndim >= 3 and x.shape[-3] != 1}
            if set(kv.values()) - {h}:
                if len(set(kv.values())) > 1:
                    raise ValueError(
                        f"k and v must have the same number of heads (dimension -3): "
                        f"k has shape {k.shape}, v has shape {v.shape}"
                    )
                name, h_kv = next(iter(kv.items()))
                if h % h_kv:
                    raise ValueError(
                        f"grouped-query attention needs the number of query heads to be a multiple of "
                        f"the key/value heads (dimension -3): q has {h} heads (shape {q.shape}), "
                        f"{name} has {h_kv} (shape {(k if name == 'k' else v).shape})"
                    )
                self.group = (h_kv, h // h_kv)
        # at least one batch dimension internally (thread splitting slices axis 0)
        self.extra = 1 if self.nd + (self.group is not None) == 2 else 0

    def internal(self, shape: tuple[int, ...], role: str) -> tuple[int, ...]:
        """The internal shape of an array of ``shape`` playing ``role`` ("q" or other)."""
        shape = (1,) * (self.nd - len(shape)) + tuple(shape)
        if self.group is not None:
            h_kv, g = self.group
            heads = shape[-3]
            if role == "q":
                split = (h_kv, g)
            elif role in ("k", "v"):  # h_kv heads, or 1 (broadcast)
                split = (h_kv, 1) if heads == h_kv else (1, 1)
            else:  # a mask or slopes: one per query head, or 1 (broadcast)
                split = (h_kv, g) if heads == h_kv * g else (1, 1)
            shape = (*shape[:-3], *split, *shape[-2:])
        return (1,) * self.extra + shape


def _broadcast_target(x, target) -> bool:
    try:
        return np.broadcast_shapes(x.shape, target) == target
    except ValueError:
        return False


def check_attention_args(
    q, k, v, mask=None, causal=False, scale=None, *, window=None, softcap=None,
    alibi_slopes=None, key_lengths=None, align=None,
) -> AttentionArgs:  # fmt: skip
    """Check and resolve the arguments of an attention call.

    >>> a = check_attention_args(np.zeros((2, 3, 4)), np.zeros((5, 4)), np.zeros((5, 6)))
    >>> a.user_batch, a.n_q, a.n_k, a.d, a.d_v, a.scale
    ((2,), 3, 5, 4, 6, 0.5)
    >>> a = check_attention_args(np.zeros((8, 3, 4)), np.zeros((2, 5, 4)), np.zeros((2, 5, 4)))
    >>> a.batch, a.q.shape, a.k.shape                # 8 query heads in 2 groups of 4
    ((2, 4), (2, 4, 3, 4), (2, 1, 5, 4))
    """
    q, k, v = (_check_float(name, x) for name, x in (("q", q), ("k", k), ("v", v)))
    for name, x in (("q", q), ("k", k), ("v", v)):
        if x.ndim < 2:
            raise ValueError(f"{name} must have at least 2 dimensions (..., n, d), got shape {x.shape}")
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k, v must share one dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must share the feature dimension d: q has shape {q.shape}, k has shape {k.shape}"
        )
    if q.shape[-1] == 0:
        raise ValueError(f"the feature dimension d of q and k must be at least 1, got q of shape {q.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of keys: k has shape {k.shape}, v has shape {v.shape}"
        )
    layout = _Layout(q, k, v)
    shapes = tuple((x.shape, layout.internal(x.shape, role)) for x, role in ((q, "q"), (k, "k"), (v, "v")))
    try:
        batch = np.broadcast_shapes(*(internal[:-2] for _, internal in shapes))
    except ValueError:
        raise ValueError(
            f"leading dimensions of q {q.shape}, k {k.shape}, v {v.shape} do not broadcast"
        ) from None
    n_q, d = q.shape[-2:]
    n_k, d_v = v.shape[-2:]
    user_batch = batch[layout.extra :]
    if layout.group is not None:  # (..., h_kv, g) internally: the caller sees h = h_kv g heads
        user_batch = (*user_batch[:-2], user_batch[-2] * user_batch[-1])
    q, k, v = (x.reshape(internal) for x, (_, internal) in zip((q, k, v), shapes))

    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != np.bool_ and mask.dtype.type not in _FLOATS:
            raise TypeError(f"mask must be boolean or floating, got dtype {mask.dtype}")
        target = (*user_batch, n_q, n_k)
        if not _broadcast_target(mask, target):
            raise ValueError(f"mask of shape {mask.shape} does not broadcast to (..., n_q, n_k) = {target}")
        mask = mask.reshape(layout.internal(mask.shape, "mask"))
    if scale is None:
        scale = 1.0 / math.sqrt(d)
    elif (
        isinstance(scale, bool)
        or not isinstance(scale, numbers.Real)
        or not math.isfinite(scale)
    ):
        raise ValueError(f"scale must be a finite real number, got {scale!r}")
    causal, align = _check_alignment(causal, align)
    left, right = _check_window(window)
    if causal is not None:
        right = 0 if right is None else min(right, 0)
    offset = 0 if align == "top_left" else n_k - n_q
    softcap = _check_softcap(softcap)

    slopes = None
    if alibi_slopes is not None:
        slopes = np.asarray(alibi_slopes)
        if slopes.dtype == np.bool_ or not (np.issubdtype(slopes.dtype, np.floating)
                                            or np.issubdtype(slopes.dtype, np.integer)):
            raise TypeError(f"alibi_slopes must be real numbers, got dtype {slopes.dtype}")
        heads = user_batch[-1] if user_batch else 1
        fits = _broadcast_target(slopes, tuple(user_batch)) if user_batch else slopes.shape == (1,)
        if slopes.ndim == 0 or not fits:
            raise ValueError(
                f"alibi_slopes must have shape (h,) = ({heads},) or broadcast to the leading dimensions "
                f"{tuple(user_batch)} (one slope per query head), got shape {slopes.shape}"
            )
        if not (np.isfinite(slopes).all() and (slopes >= 0).all()):
            raise ValueError("alibi_slopes must be finite and non-negative (bias -slope * |i - j|)")
        if not user_batch:
            slopes = slopes.reshape(())
        slopes = slopes.reshape(layout.internal((*slopes.shape, 1, 1), "slopes"))

    lengths = None
    if key_lengths is not None:
        if len(shapes[0][0]) != 4:
            raise ValueError(
                f"key_lengths needs 4-D inputs (batch, heads, n, d): q has shape {shapes[0][0]}"
            )
        lengths = np.asarray(key_lengths)
        if lengths.dtype == np.bool_ or not np.issubdtype(lengths.dtype, np.integer):
            raise TypeError(f"key_lengths must be integers, got dtype {lengths.dtype}")
        if lengths.shape != (user_batch[0],):
            raise ValueError(f"key_lengths must have shape (batch,) = ({user_batch[0]},), got {lengths.shape}")
        if lengths.size and (lengths.min() < 0 or lengths.max() > n_k):
            raise ValueError(f"key_lengths must lie in [0, n_k] = [0, {n_k}], got {lengths.tolist()}")
        lengths = lengths.astype(np.int64).reshape(-1, *(1,) * (len(batch)))
    return AttentionArgs(
        q, k, v, mask, causal, float(scale), tuple(batch), n_q, n_k, d, d_v,
        offset=offset, left=left, right=right, softcap=softcap, slopes=slopes, lengths=lengths,
        user_batch=tuple(user_batch), shapes=shapes,
    )  # fmt: skip


def visible_range(causal: str | None, n_q: int, n_k: int) -> int:
    """The causal offset ``o``: query ``i`` may see keys ``j <= i + o`` (``None`` if not causal).

    Top-left alignment (torch ``scaled_dot_product_attention``) has ``o = 0``; bottom-right
    alignment (FlashAttention >= 2.1) has ``o = n_k - n_q``.

    >>> visible_range("top_left", 3, 5), visible_range("bottom_right", 3, 5)
    (0, 2)
    """
    if causal is None:
        return None
    return 0 if causal == "top_left" else n_k - n_q


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes along which an input of ``shape`` was broadcast.

    >>> unbroadcast(np.ones((2, 3, 4)), (1, 3, 4)).shape, float(unbroadcast(np.ones((2, 3, 4)), (3, 4))[0, 0])
    ((1, 3, 4), 2.0)
    """
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, (g, s) in enumerate(zip(grad.shape, shape)) if s == 1 and g != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad


def key_band(args: AttentionArgs) -> tuple[int, int]:
    """``[j_lo, j_hi)``: the keys that some query may see by position (window, causal, n_k).

    >>> key_band(check_attention_args(np.zeros((3, 2)), np.zeros((5, 2)), np.zeros((5, 2)), causal=True))
    (0, 3)
    """
    if args.n_q == 0:
        return 0, 0
    lo = 0 if args.left is None else max(0, args.offset - args.left)
    hi = args.n_k if args.right is None else min(args.n_k, max(0, args.n_q - 1 + args.offset + args.right + 1))
    return lo, max(lo, hi)


def zero_ignored_keys(args: AttentionArgs) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(k, v)`` with non-finite entries of keys that no query may see replaced by 0.

    A key is *ignored* when the mask excludes it for every query (boolean ``False`` or additive
    ``-inf`` in its whole column), when it lies outside every query's window (causal included), or
    beyond its batch element's key length. Its row of ``k`` and ``v`` is then never used
    mathematically; zeroing non-finite entries keeps a NaN or inf stored there (padding, say) out
    of the output and the gradients, because ``0 * nan = nan`` inside a matrix product would
    otherwise spread it. Finite inputs are returned untouched (no copy).

    >>> k = np.array([[1.0], [np.nan]]); v = np.array([[2.0], [np.inf]])
    >>> args = check_attention_args(np.ones((1, 1)), k, v, mask=np.array([[True, False]]))
    >>> [a.ravel().tolist() for a in zero_ignored_keys(args)]
    [[1.0, 0.0], [2.0, 0.0]]
    """
    k, v = args.k, args.v
    bad_k = ~np.isfinite(k).all(axis=-1)  # (..., n_k)
    bad_v = ~np.isfinite(v).all(axis=-1)  # (..., n_k)
    if not (bad_k.any() or bad_v.any()):
        return k, v
    seen = np.ones((*args.batch, args.n_k), dtype=bool)  # (..., n_k) key j seen by some query
    if args.mask is not None:
        full = np.broadcast_to(args.mask, (*args.batch, args.n_q, args.n_k))
        if full.dtype == np.bool_:
            seen &= full.any(axis=-2)
        else:
            seen &= full.max(axis=-2, initial=-np.inf) > -np.inf
    lo, hi = key_band(args)
    seen[..., :lo] = False
    seen[..., hi:] = False
    if args.lengths is not None:
        seen &= np.arange(args.n_k) < args.lengths  # (B, 1, ..., 1) vs (n_k,)
    ignored = ~seen[..., None]  # (..., n_k, 1)
    k = np.where(ignored & ~np.isfinite(k), 0, k).astype(k.dtype, copy=False)
    v = np.where(ignored & ~np.isfinite(v), 0, v).astype(v.dtype, copy=False)
    return k, v
