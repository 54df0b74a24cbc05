r"""Attention masks as indicator functions, and the number of score pairs they keep.

A mask keeps the key ``j`` for the query ``i`` when ``lo(i) <= j <= hi(i)``. Implementations add
``0`` or ``-inf`` to the scores; since ``e^{s - inf} = 0``, that is the same as multiplying each
exponential by the indicator :math:`\mathbb 1[lo \le j \le hi]`, which is how masks are written
here (:class:`Band`), so that sums over keys stay finite SymPy sums.

* :func:`causal_mask` -- ``j <= i + offset`` (``offset = 0``: top-left causal; ``offset = n_k - n_q``:
  bottom-right, the convention of decoding with a cache, where the last query sees every key);
* :func:`window_mask` -- a sliding window: the query sees itself and the ``w - 1`` keys before it,
  ``i - w + 1 <= j <= i``;
* :func:`score_pairs` -- how many (query, key) pairs a mask keeps, in closed form.

The rules ``mask_restrict``, ``abs_by_sign``, ``delta_by_range`` and ``floor_by_range`` of
:mod:`symattn.rules.ranges` use the summation ranges to evaluate these objects.

>>> import sympy as sp
>>> i, j = sp.symbols("i j", integer=True)
>>> causal_mask(i, j), window_mask(i, j, 4)
(Band(j, -oo, i), Band(j, i - 3, i))
>>> window_mask(5, 2, 4), window_mask(5, 3, 4)          # keys 2..5 are the window of query 5
(1, 1)
>>> window_mask(5, 1, 4)
0
>>> n = sp.Symbol("n", integer=True, positive=True)
>>> score_pairs(n, causal=True)                          # n(n+1)/2 of the n^2 pairs
n**2/2 + n/2
>>> score_pairs(8, window=3)                             # 3*4/2 + (8 - 3)*3
21

References
----------
Beltagy, Peters and Cohan, "Longformer" (2020), section 3.1 (sliding window); Press, Smith and
Lewis, "ALiBi" (ICLR 2022), section 3; PyTorch ``scaled_dot_product_attention`` (``is_causal``,
top-left) and FlashAttention 2's bottom-right causal convention for ``n_q != n_k``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.objects.bands import Band, _expr
from symattn.language.sizes import dimension as _dimension

__all__ = ["Band", "causal_mask", "score_pairs", "window_mask"]


def causal_mask(i: Any, j: Any, offset: Any = 0) -> sp.Expr:
    """Key ``j`` is visible to query ``i`` when ``j <= i + offset`` (``offset = n_k - n_q`` for the
    bottom-right convention).

    >>> i, j = sp.symbols("i j", integer=True)
    >>> causal_mask(i, j, offset=2)
    Band(j, -oo, i + 2)
    """
    i, j, offset = _expr(i, "i"), _expr(j, "j"), _expr(offset, "offset")
    return Band(j, -sp.oo, i + offset)


def window_mask(i: Any, j: Any, w: Any) -> sp.Expr:
    """Key ``j`` is visible to query ``i`` when ``i - w + 1 <= j <= i``: the query and the
    ``w - 1`` keys before it (``w >= 1``).

    >>> window_mask(4, 4, 1), window_mask(4, 3, 1)
    (1, 0)
    """
    i, j, w = _expr(i, "i"), _expr(j, "j"), _expr(w, "w")
    if w.is_positive is False or (w.is_number and not w.is_integer):
        raise ValueError(f"window must be a positive integer, got {w}")
    return Band(j, i - w + 1, i)


def score_pairs(n_q: Any, n_k: Any = None, *, causal: bool | str = False, window: Any = None) -> sp.Expr:
    """The number of (query, key) pairs whose score is computed.

    * no mask: ``n_q n_k``;
    * ``causal=True`` with ``n_q = n_k = n``: ``n(n+1)/2`` (both alignments agree);
    * ``causal="top_left"`` (torch ``is_causal``, :func:`numeric.attention`'s ``causal=True``: query ``i``
      sees keys ``j <= i``): ``m(m+1)/2 + (n_q - m) n_k`` with ``m = min(n_q, n_k)``, so ``n_q(n_q+1)/2``
      for ``n_q <= n_k``;
    * ``causal="bottom_right"`` (FlashAttention >= 2.1, decoding with a cache: the queries are the last
      ``n_q`` positions, ``j <= i + n_k - n_q``), ``n_q <= n_k``: ``n_q n_k - n_q(n_q - 1)/2``;
    * ``window=w`` (implies causal, ``n_q = n_k = n``, ``1 <= w <= n``): ``w(w+1)/2 + (n - w) w``.

    ``causal=True`` with ``n_q`` and ``n_k`` not shown equal is refused: the two alignments count
    differently there, so name one.

    With symbols whose order is not known from their assumptions, ``w`` (or ``n_q``) is replaced by
    ``Min(w, n)`` (``Min(n_q, n_k)``), so the formula returned holds at every size, not only where
    ``w <= n``: ``score_pairs(n, window=w)`` has ``Min(n, w)`` in it.

    These are the theorems ``causal_score_pairs`` and ``sliding_window_score_pairs``.

    >>> score_pairs(4), score_pairs(4, causal=True), score_pairs(2, 5, causal="bottom_right")
    (16, 10, 9)
    >>> score_pairs(2, 5, causal="top_left"), score_pairs(5, 2, causal="top_left")   # 1 + 2; 1 + 2 + 3 * 2
    (3, 9)
    >>> score_pairs(4, window=4) == score_pairs(4, causal=True)   # a window as long as the sequence
    True
    >>> score_pairs(2, 5, causal=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    ValueError: causal=True with n_q = 2 and n_k = 5: the alignments differ there; say causal="top_left" ...
    >>> score_pairs(3, 5, window=2)
    Traceback (most recent call last):
      ...
    ValueError: window= needs n_q = n_k (self-attention); got n_q = 3, n_k = 5
    """
    n_q = _dimension("n_q", n_q)
    n_k = n_q if n_k is None else _dimension("n_k", n_k)
    if causal not in (False, True, "top_left", "bottom_right") or not isinstance(causal, (bool, str)):
        raise TypeError(f'causal must be False, True, "top_left" or "bottom_right", got {causal!r}')
    if window is not None:
        w = _dimension("window", window)
        if sp.simplify(n_q - n_k) != 0:
            raise ValueError(f"window= needs n_q = n_k (self-attention); got n_q = {n_q}, n_k = {n_k}")
        if (n_q - w).is_negative:
            raise ValueError(f"window = {w} is longer than the sequence (n = {n_q}): a causal sliding window that "
                             "long is the causal mask; drop window= and say causal=True")
        if (n_q - w).is_nonnegative is not True:
            # w <= n not shown: a window longer than the sequence is the causal mask, so the count at
            # min(w, n) is the count at every w, not only where w <= n
            w = sp.Min(w, n_q)
        return sp.expand(w * (w + 1) / 2 + (n_q - w) * w)
    if causal is False:
        return sp.expand(n_q * n_k)
    if causal is True:
        if sp.expand(n_q - n_k) != 0:
            raise ValueError(f"causal=True with n_q = {n_q} and n_k = {n_k}: the alignments differ there; say "
                             'causal="top_left" (torch\'s is_causal, numeric.attention\'s causal=True) or '
                             'causal="bottom_right" (FlashAttention >= 2.1)')
        return sp.expand(n_q * (n_q + 1) / 2)
    if causal == "top_left":
        # query i (1-based) sees keys 1..min(i, n_k)
        m = n_q if (n_k - n_q).is_nonnegative else n_k if (n_q - n_k).is_nonnegative else sp.Min(n_q, n_k)
        return sp.expand(m * (m + 1) / 2 + (n_q - m) * n_k)
    if (n_k - n_q).is_negative:
        raise ValueError(f"causal with n_q = {n_q} > n_k = {n_k}: the first queries would see no key")
    if (n_k - n_q).is_nonnegative is not True:
        # n_q <= n_k not shown: the count for n_q > n_k (the queries past the keys see from the first key on)
        # is the same formula at min(n_q, n_k)
        m = sp.Min(n_q, n_k)
        return sp.expand(m * n_k - m * (m - 1) / 2)
    return sp.expand(n_q * n_k - n_q * (n_q - 1) / 2)
