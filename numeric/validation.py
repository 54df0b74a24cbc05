"""Argument checking shared by the reference implementations and the tiled kernel.

Every public function of :mod:`numeric` checks its inputs here, so that the reference
(:mod:`numeric.reference`) and the kernel (:mod:`numeric.tiled`) reject exactly the same
inputs with exactly the same messages. A message always names the offending shapes or values.

Conventions checked here:

* ``q`` is ``(..., n_q, d)``, ``k`` is ``(..., n_k, d)``, ``v`` is ``(..., n_k, d_v)``; the leading
  (batch, head) dimensions broadcast against each other.
* all three share one floating dtype (float16, float32 or float64); integers, booleans and complex
  numbers are a :class:`TypeError`.
* ``mask`` is boolean (``True`` = may attend) or floating (added to the scaled scores; ``-inf``
  means "may not attend"), broadcastable to ``(..., n_q, n_k)``.
* ``causal`` is ``False``, ``True`` (= ``"top_left"``) or ``"bottom_right"``.
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
    "compute_dtype",
    "unbroadcast",
    "visible_range",
    "zero_ignored_keys",
]

_FLOATS = (np.float16, np.float32, np.float64)
_CAUSAL = {False: None, True: "top_left", "top_left": "top_left", "bottom_right": "bottom_right"}


@dataclass(frozen=True)
class AttentionArgs:
    """Checked attention arguments (arrays untouched, shapes resolved)."""

    q: np.ndarray  # (..., n_q, d)
    k: np.ndarray  # (..., n_k, d)
    v: np.ndarray  # (..., n_k, d_v)
    mask: np.ndarray | None  # broadcastable to (..., n_q, n_k), bool or floating
    causal: str | None  # None, "top_left" or "bottom_right"
    scale: float
    batch: tuple[int, ...]  # the broadcast leading dimensions
    n_q: int
    n_k: int
    d: int
    d_v: int


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


def _check_float(name: str, x) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.type not in _FLOATS:
        raise TypeError(
            f"{name} must have a floating dtype (float16, float32 or float64), got {x.dtype}"
        )
    return x


def check_attention_args(q, k, v, mask=None, causal=False, scale=None) -> AttentionArgs:
    """Check and resolve the arguments of an attention call.

    >>> a = check_attention_args(np.zeros((2, 3, 4)), np.zeros((5, 4)), np.zeros((5, 6)))
    >>> a.batch, a.n_q, a.n_k, a.d, a.d_v, a.scale
    ((2,), 3, 5, 4, 6, 0.5)
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
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of keys: k has shape {k.shape}, v has shape {v.shape}"
        )
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"leading dimensions of q {q.shape}, k {k.shape}, v {v.shape} do not broadcast"
        ) from None
    n_q, d = q.shape[-2:]
    n_k, d_v = v.shape[-2:]
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != np.bool_ and mask.dtype.type not in _FLOATS:
            raise TypeError(f"mask must be boolean or floating, got dtype {mask.dtype}")
        target = (*batch, n_q, n_k)
        try:
            if np.broadcast_shapes(mask.shape, target) != target:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"mask of shape {mask.shape} does not broadcast to (..., n_q, n_k) = {target}"
            ) from None
    if scale is None:
        scale = 1.0 / math.sqrt(d) if d > 0 else 1.0
    elif (
        isinstance(scale, bool)
        or not isinstance(scale, numbers.Real)
        or not math.isfinite(scale)
    ):
        raise ValueError(f"scale must be a finite real number, got {scale!r}")
    return AttentionArgs(
        q, k, v, mask, check_causal(causal), float(scale), tuple(batch), n_q, n_k, d, d_v
    )


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


def zero_ignored_keys(args: AttentionArgs) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(k, v)`` with non-finite entries of keys that no query may see replaced by 0.

    A key is *ignored* when the mask excludes it for every query (boolean ``False`` or additive
    ``-inf`` in its whole column) or when the causal alignment places it after every query. Its
    row of ``k`` and ``v`` is then never used mathematically; zeroing non-finite entries keeps a
    NaN or inf stored there (padding, say) out of the output, because ``0 * nan = nan`` inside a
    matrix product would otherwise spread it. Finite inputs are returned untouched (no copy).

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
    offset = visible_range(args.causal, args.n_q, args.n_k)
    if offset is not None:
        seen[..., max(args.n_q - 1 + offset + 1, 0):] = False
    ignored = ~seen[..., None]  # (..., n_k, 1)
    k = np.where(ignored & ~np.isfinite(k), 0, k).astype(k.dtype, copy=False)
    v = np.where(ignored & ~np.isfinite(v), 0, v).astype(v.dtype, copy=False)
    return k, v
