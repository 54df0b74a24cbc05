r"""Rotary position embedding (RoPE) and the sinusoidal position encoding, as the formulas read.

RoPE rotates each pair of features of a query or key at position ``p`` by the angle
:math:`p\,\theta_m`, :math:`\theta_m = \text{base}^{-2m/d}`, ``m = 0 .. d/2 - 1``:

.. math::

    \begin{pmatrix} x'_a \\ x'_b \end{pmatrix} =
    \begin{pmatrix} \cos p\theta_m & -\sin p\theta_m \\ \sin p\theta_m & \cos p\theta_m \end{pmatrix}
    \begin{pmatrix} x_a \\ x_b \end{pmatrix}

Two conventions choose the pair ``(a, b)``:

* ``"interleaved"``: ``(2m, 2m + 1)``, as in RoFormer (Su et al., eq. 34);
* ``"half"``: ``(m, m + d/2)``, the ``rotate_half`` of LLaMA-style implementations.

They are the same map up to the feature permutation :func:`rope_permutation`. Because rotations
compose, :math:`\langle R_p q, R_{p'} k\rangle = \langle q, R_{p'-p} k\rangle`: scores depend only
on the offset ``p' - p``.

References
----------
Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding", 2021, section 3.4.
Vaswani et al., "Attention Is All You Need", 2017, section 3.5 (sinusoidal encoding).
"""

from __future__ import annotations

import numpy as np

__all__ = ["rope", "rope_frequencies", "rope_permutation", "sinusoidal_encoding"]

_CONVENTIONS = ("interleaved", "half")


def _check_even(d: int, what: str) -> None:
    if d % 2:
        raise ValueError(f"{what} needs an even feature dimension, got d={d}")


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    r"""The ``d/2`` angular frequencies :math:`\theta_m = \text{base}^{-2m/d}`.

    >>> rope_frequencies(4, base=100.0)            # 100^0, 100^(-2/4)
    array([1. , 0.1])
    """
    _check_even(d, "rope_frequencies")
    return base ** (-np.arange(0, d, 2) / d)


def rope(x, positions, *, base: float = 10000.0, convention: str = "interleaved") -> np.ndarray:
    r"""Rotate the feature pairs of ``x (..., n, d)`` by ``positions (n,)`` (or broadcastable to ``x.shape[:-1]``).

    Examples
    --------
    With ``d = 2`` there is one pair and :math:`\theta_0 = 1`: position ``p`` rotates by ``p`` radians.

    >>> np.round(rope(np.array([[1.0, 0.0]]), np.array([np.pi / 2])), 12)   # (1, 0) -> (0, 1)
    array([[0., 1.]])
    """
    x = np.asarray(x)
    if convention not in _CONVENTIONS:
        raise ValueError(f"convention must be one of {_CONVENTIONS}, got {convention!r}")
    d = x.shape[-1]
    _check_even(d, "rope")
    angle = np.asarray(positions, dtype=np.float64)[..., None] * rope_frequencies(d, base)  # (..., n, d/2)
    cos, sin = np.cos(angle).astype(x.dtype), np.sin(angle).astype(x.dtype)
    if convention == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]  # (..., n, d/2) pairs (2m, 2m+1)
    else:
        a, b = x[..., : d // 2], x[..., d // 2 :]  # (..., n, d/2) pairs (m, m + d/2)
    ra = a * cos - b * sin  # (..., n, d/2)
    rb = a * sin + b * cos  # (..., n, d/2)
    out = np.empty(np.broadcast_shapes(x.shape, ra.shape[:-1] + (d,)), dtype=ra.dtype)
    if convention == "interleaved":
        out[..., 0::2], out[..., 1::2] = ra, rb
    else:
        out[..., : d // 2], out[..., d // 2 :] = ra, rb
    return out


def rope_permutation(d: int) -> np.ndarray:
    """The feature permutation taking the interleaved layout to the half layout.

    ``rope(x[..., perm], p, convention="half") == rope(x, p, convention="interleaved")[..., perm]``:
    pair ``(2m, 2m + 1)`` is sent to positions ``(m, m + d/2)``.

    >>> rope_permutation(6)                        # evens first, then odds
    array([0, 2, 4, 1, 3, 5])
    """
    _check_even(d, "rope_permutation")
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def sinusoidal_encoding(num_positions: int, d: int) -> np.ndarray:
    r"""The sinusoidal position encoding ``(num_positions, d)``:
    :math:`PE(p)_{2m} = \sin(p\,\omega_m)`, :math:`PE(p)_{2m+1} = \cos(p\,\omega_m)`,
    :math:`\omega_m = 10000^{-2m/d}`.

    Shifting by :math:`\Delta` rotates each pair: :math:`PE(p+\Delta)_{[2m, 2m+1]} =
    \begin{pmatrix}\cos & \sin \\ -\sin & \cos\end{pmatrix}(\omega_m\Delta)\, PE(p)_{[2m, 2m+1]}`.

    >>> sinusoidal_encoding(1, 4)                  # PE(0) = (sin 0, cos 0, sin 0, cos 0)
    array([[0., 1., 0., 1.]])
    """
    _check_even(d, "sinusoidal_encoding")
    angle = np.arange(num_positions)[:, None] * rope_frequencies(d)  # (P, d/2)
    pe = np.empty((num_positions, d))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle)
    return pe
