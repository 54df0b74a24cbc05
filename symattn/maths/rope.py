r"""Rotary position embeddings (RoPE) and the sinusoidal position encoding, symbolically.

The identity this module exists for (RoFormer, Su et al. 2021, eq. 16):

.. math::

    \langle R_p\, q,\; R_{p'}\, k\rangle = \langle q,\; R_{p'-p}\, k\rangle,
    \qquad R_p = \operatorname{diag}_{m=0}^{B-1} R(\theta_m p),\quad
    \theta_m = \text{base}^{-2m/d},\quad d = 2B,

where :math:`R(t) = \begin{pmatrix}\cos t & -\sin t\\ \sin t & \cos t\end{pmatrix}` is the
counter-clockwise rotation of the plane. The pair of coordinates rotated by block ``m`` depends
on the *convention*:

* ``"interleaved"``: coordinates ``(2m, 2m + 1)`` -- seed 000 and RoFormer;
* ``"half"``: coordinates ``(m, m + B)`` -- the ``rotate_half`` layout of many open models.

Both are the same operator up to the permutation :class:`PairPermutation`
(:math:`R^{\text{half}}_p = \Pi R^{\text{inter}}_p \Pi^\top`).

Objects
-------
Explicit matrices for concrete sizes: :func:`rotation`, :func:`rope_matrix`,
:func:`rope_permutation`, :func:`sinusoidal_vector`.

Unevaluated objects for a symbolic number of blocks ``B`` (SymPy matrix expressions of shape
``(2B, 2B)`` or ``(2B, 1)``), which the ``block_diagonal_product`` rule
(:mod:`symattn.rules.trig`) knows how to cut into ``2 x 2`` blocks:
:class:`Rotation`, :class:`PairBlockDiagonal`, :class:`Rope`, :class:`PairPermutation`,
:class:`SinusoidalEncoding`, the pair selector :class:`PairOf`, and the scalars :class:`Inner`
(:math:`\langle x, y\rangle`) and :class:`Bilinear` (:math:`u^\top M v`).

Indices are 0-based, as in the seed (pairs ``(2m, 2m + 1)``, ``m = 0, ..., d/2 - 1``).

>>> import sympy as sp
>>> a, b = sp.symbols("a b", real=True)
>>> sp.simplify(rotation(a).T * rotation(b) - rotation(b - a))
Matrix([
[0, 0],
[0, 0]])

References
----------
* Su, Lu, Pan, Murtadha, Wen, Liu, "RoFormer: Enhanced Transformer with Rotary Position
  Embedding", 2021, section 3.4 (eqs. 14-16).
* Vaswani et al., "Attention Is All You Need", 2017, section 3.5 (sinusoidal encoding).
* Seed 000, Definition "Sinusoidal positional encoding" and Proposition "Rotary embeddings make
  the logit depend only on relative position"; seed 004, "Positional Encoding".
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.objects.rotations import (
    CONVENTIONS,
    DEFAULT_BASE,
    Bilinear,
    Inner,
    PairBlockDiagonal,
    PairOf,
    PairPermutation,
    Rope,
    Rotation,
    SinusoidalEncoding,
    _convention,
    _scalar,
    pair_coordinates,
    rope_frequency,
    rotation,
)

__all__ = [
    "CONVENTIONS",
    "rotation",
    "rope_frequency",
    "rope_matrix",
    "rope_permutation",
    "sinusoidal_vector",
    "pair_coordinates",
    "Rotation",
    "PairBlockDiagonal",
    "Rope",
    "PairPermutation",
    "PairOf",
    "SinusoidalEncoding",
    "Inner",
    "Bilinear",
]


def _even_dimension(d: Any, what: str) -> int:
    if isinstance(d, bool) or not isinstance(d, (int, sp.Integer)):
        raise TypeError(f"{what}: d must be a concrete int (use the unevaluated classes for symbolic d), got {d!r}")
    d = int(d)
    if d <= 0:
        raise ValueError(f"{what}: d must be positive, got d={d}")
    if d % 2:
        raise ValueError(f"{what}: d must be even (coordinates come in pairs), got d={d}")
    return d


def rope_matrix(d: int, p: Any, *, base: Any = DEFAULT_BASE, convention: str = "interleaved") -> sp.ImmutableMatrix:
    r"""The explicit ``d x d`` RoPE matrix :math:`R_p` (``d`` concrete and even, ``p`` may be symbolic).

    Block ``m`` rotates the coordinates :func:`pair_coordinates` by :math:`\theta_m p`,
    :math:`\theta_m = \text{base}^{-2m/d}`.

    Examples
    --------
    With ``d = 4`` and base 100 the frequencies are 1 and 1/10:

    >>> import sympy as sp
    >>> p = sp.Symbol("p")
    >>> rope_matrix(4, p, base=100)
    Matrix([
    [cos(p), -sin(p),         0,          0],
    [sin(p),  cos(p),         0,          0],
    [     0,       0, cos(p/10), -sin(p/10)],
    [     0,       0, sin(p/10),  cos(p/10)]])
    >>> rope_matrix(4, p, base=100, convention="half")[:, 0].T     # pair 0 is (0, 2)
    Matrix([[cos(p), 0, sin(p), 0]])
    """
    d = _even_dimension(d, "rope_matrix")
    conv = _convention(convention)
    return Rope(_scalar(p, "position p"), d // 2, base, conv).explicit()


def rope_permutation(d: int) -> sp.ImmutableMatrix:
    r"""The permutation matrix :math:`\Pi` with :math:`R^{\text{half}}_p = \Pi R^{\text{inter}}_p \Pi^\top`.

    :math:`(\Pi x)_i = x_{\pi(i)}` with :math:`\pi = (0, 2, \dots, d-2, 1, 3, \dots, d-1)`: the
    even coordinates first, then the odd ones, so that pair ``(2m, 2m+1)`` lands on ``(m, m + d/2)``.
    This is ``numeric.rope.rope_permutation``'s index array as a matrix.

    >>> rope_permutation(4)
    Matrix([
    [1, 0, 0, 0],
    [0, 0, 1, 0],
    [0, 1, 0, 0],
    [0, 0, 0, 1]])
    """
    d = _even_dimension(d, "rope_permutation")
    return PairPermutation(d // 2).explicit()


def sinusoidal_vector(d: int, p: Any, *, base: Any = DEFAULT_BASE) -> sp.ImmutableMatrix:
    r"""The sinusoidal encoding :math:`\mathrm{PE}(p)` as an explicit ``d x 1`` column:
    :math:`\mathrm{PE}(p)_{2m} = \sin(p\,\omega_m)`, :math:`\mathrm{PE}(p)_{2m+1} = \cos(p\,\omega_m)`,
    :math:`\omega_m = \text{base}^{-2m/d}`.

    >>> sinusoidal_vector(4, 0).T           # position 0: every sine is 0, every cosine is 1
    Matrix([[0, 1, 0, 1]])
    """
    d = _even_dimension(d, "sinusoidal_vector")
    return SinusoidalEncoding(_scalar(p, "position p"), d // 2, base).explicit()
