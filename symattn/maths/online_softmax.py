r"""The online softmax: partial states of key blocks and the merge that combines them.

For a block ``B`` of keys with scores ``s_j`` and values ``v_j``, and any real reference ``m``
(in practice the block maximum), the *state* of ``B`` is

.. math::

    (m,\; \ell,\; o) = \Bigl(m,\; \sum_{j \in B} e^{s_j - m},\; \sum_{j \in B} e^{s_j - m} v_j\Bigr),

and two states of disjoint blocks merge, for any real ``m`` (in practice ``max(m_A, m_B)``), into

.. math::

    \operatorname{merge} = \bigl(m,\; e^{m_A - m}\ell_A + e^{m_B - m}\ell_B,\;
    e^{m_A - m} o_A + e^{m_B - m} o_B\bigr),

which is the state of ``A \cup B`` (theorem ``online_softmax_merge``); ``o / \ell`` is then the
softmax-weighted average of the values and ``m + \log \ell`` the log-sum-exp of the scores.

:class:`TileEnd` is the last key of tile ``t`` when tiles of widths ``w_1, w_2, ...`` cover the
keys in order: ``TileEnd(w, t) = w_1 + ... + w_t``, unfolded one tile at a time by the
``definition`` rule (name ``"tile_end"``) as ``TileEnd(w, t - 1) + w_t``.

Examples
--------
Two blocks of one key each; merging their states gives the state of both keys (here with the
reference ``m = max(s_1, s_2)`` that a kernel would use):

>>> import sympy as sp
>>> s1, s2, v1, v2 = sp.symbols("s1 s2 v1 v2", real=True)
>>> both = merge(state([s1], [v1]), state([s2], [v2]))
>>> sp.simplify(both.output - (sp.exp(s1)*v1 + sp.exp(s2)*v2) / (sp.exp(s1) + sp.exp(s2)))
0

References
----------
Milakov & Gimelshein, "Online normalizer calculation for softmax", 2018, Algorithm 3.
Dao et al., "FlashAttention", NeurIPS 2022, Algorithm 1 (lines 9-12).
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any

import sympy as sp

from symattn.kernel.definitions import define

__all__ = ["SoftmaxState", "state", "merge", "TileEnd"]


@dataclass(frozen=True)
class SoftmaxState:
    """The running statistics ``(m, l, o)`` of a block of keys; ``o`` may be a column/row matrix."""

    m: Any
    l: Any  # noqa: E741 - the paper's name for the normaliser
    o: Any

    @property
    def output(self) -> Any:
        """``o / l``: the softmax-weighted average of the block's values."""
        return self.o / self.l

    @property
    def lse(self) -> Any:
        """``m + log l``: the log-sum-exp of the block's scores."""
        return self.m + sp.log(self.l)

    def as_matrix(self) -> sp.ImmutableMatrix:
        """``(l, o)`` as a column (for scalar ``o``), the form the theorems state."""
        if isinstance(self.o, sp.MatrixBase):
            raise TypeError("as_matrix needs a scalar accumulator o (one value coordinate)")
        return sp.ImmutableMatrix([self.l, self.o])


def _expr(x: Any, what: str) -> sp.Expr:
    if isinstance(x, bool) or isinstance(x, str):
        raise TypeError(f"{what} must be a SymPy expression or a number, got {type(x).__name__}")
    if isinstance(x, (int, float)):
        return sp.sympify(x, strict=True)
    if not isinstance(x, (sp.Expr, sp.MatrixBase)):
        raise TypeError(f"{what} must be a SymPy expression or a number, got {type(x).__name__}")
    return x


def state(scores: Any, values: Any, m: Any = None, *, index: tuple | None = None) -> SoftmaxState:
    """The state ``(m, sum e^{s_j - m}, sum e^{s_j - m} v_j)`` of a block of keys.

    Parameters
    ==========
    scores, values
        Either two sequences of the same nonzero length (explicit keys), or two
        :class:`~sympy.IndexedBase` objects together with ``index=(j, a, b)`` (the keys ``a..b``,
        symbolic bounds allowed).
    m
        The reference value. Any real value gives a valid state; the default is the maximum of
        the scores for explicit keys (required for a symbolic block).

    Examples
    ========
    >>> import sympy as sp
    >>> j = sp.Symbol("j", integer=True); a = sp.Symbol("a", integer=True, positive=True)
    >>> s, v = sp.IndexedBase("s"), sp.IndexedBase("v")
    >>> state(s, v, sp.Symbol("m"), index=(j, 1, a)).l
    Sum(exp(-m + s[j]), (j, 1, a))
    >>> state([0, 0], [1, 3]).output  # two equal scores: the plain average of 1 and 3
    2
    """
    if index is not None:
        if not (isinstance(scores, sp.IndexedBase) and isinstance(values, sp.IndexedBase)):
            raise TypeError("with index=(j, a, b), scores and values must be IndexedBase objects")
        if len(index) != 3:
            raise ValueError(f"index must be (j, a, b), got {index!r}")
        if m is None:
            raise ValueError("a symbolic block needs its reference value m")
        j, a, b = index
        m = _expr(m, "m")
        weight = sp.exp(scores[j] - m)
        return SoftmaxState(m, sp.Sum(weight, (j, a, b)), sp.Sum(weight * values[j], (j, a, b)))
    if isinstance(scores, (sp.Basic, str)) or isinstance(values, (sp.Basic, str)):
        raise TypeError("scores and values must be sequences (or IndexedBase objects with index=)")
    scores = [_expr(x, "a score") for x in scores]
    values = [_expr(x, "a value") for x in values]
    if len(scores) != len(values):
        raise ValueError(f"{len(scores)} scores but {len(values)} values")
    if not scores:
        raise ValueError("a block needs at least one key")
    m = sp.Max(*scores) if m is None else _expr(m, "m")
    weights = [sp.exp(x - m) for x in scores]
    terms = [w * x for w, x in zip(weights, values)]
    return SoftmaxState(m, sp.Add(*weights), functools.reduce(operator.add, terms))


def merge(a: SoftmaxState, b: SoftmaxState, m: Any = None) -> SoftmaxState:
    """Merge the states of two disjoint blocks; ``m`` defaults to ``max(a.m, b.m)``.

    Any real ``m`` gives the same exact result (theorem ``online_softmax_merge``); the maximum
    only keeps the exponentials ``e^{m_A - m}``, ``e^{m_B - m}`` at most 1 in floating point.

    Examples
    ========
    >>> import sympy as sp
    >>> mA, mB, lA, lB, oA, oB = sp.symbols("m_A m_B l_A l_B o_A o_B", real=True)
    >>> merged = merge(SoftmaxState(mA, lA, oA), SoftmaxState(mB, lB, oB), m=mA)
    >>> merged.l
    l_A + l_B*exp(-m_A + m_B)
    """
    if not (isinstance(a, SoftmaxState) and isinstance(b, SoftmaxState)):
        raise TypeError(f"merge takes two SoftmaxState objects, got {type(a).__name__}, {type(b).__name__}")
    m = sp.Max(a.m, b.m) if m is None else _expr(m, "m")
    ea, eb = sp.exp(a.m - m), sp.exp(b.m - m)
    return SoftmaxState(m, ea * a.l + eb * b.l, ea * a.o + eb * b.o)


class TileEnd(sp.Function):
    """``w_1 + ... + w_t``: the last key of tile ``t`` when tiles of widths ``w`` cover the keys.

    ``w`` is an :class:`~sympy.IndexedBase` of nonnegative integers, ``t`` an integer. Stays
    unevaluated except ``TileEnd(w, 0) = 0`` (no tiles, no keys).

    >>> import sympy as sp
    >>> w = sp.IndexedBase("w", integer=True, nonnegative=True)
    >>> t = sp.Symbol("t", integer=True, positive=True)
    >>> TileEnd(w, 0), TileEnd(w, t - 1).is_nonnegative, TileEnd(w, 3).doit()
    (0, True, w[1] + w[2] + w[3])
    """

    nargs = 2

    @classmethod
    def eval(cls, w, t):
        if not isinstance(w, sp.IndexedBase):
            raise TypeError(f"TileEnd needs an IndexedBase of tile widths, got {w!r}")
        if w.assumptions0.get("integer") is not True or w.assumptions0.get("nonnegative") is not True:
            if w.assumptions0.get("positive") is not True or w.assumptions0.get("integer") is not True:
                raise ValueError("tile widths must be declared integer and nonnegative (or positive)")
        if t.is_integer is False:  # unknown (a pattern variable, say) is allowed
            raise TypeError(f"TileEnd needs an integer tile number, got {t!r}")
        if t == 0:
            return sp.S.Zero  # no tiles cover no keys
        return None

    def _eval_is_integer(self):
        return True

    def _eval_is_nonnegative(self):
        # a sum of t >= 0 nonnegative widths; for t < 0 SymPy's convention would make it negative
        return True if self.args[1].is_nonnegative else None

    def _eval_is_positive(self):
        w, t = self.args
        return True if (w.assumptions0.get("positive") is True and t.is_positive) else None

    def unfold(self) -> sp.Expr:
        """One tile: ``TileEnd(w, t) = TileEnd(w, t - 1) + w_t``."""
        w, t = self.args
        return TileEnd(w, t - 1) + w[t]

    def doit(self, **hints):
        w, t = self.args
        r = sp.Dummy("r", integer=True)
        total = sp.Sum(w[r], (r, 1, t))
        return total.doit() if t.is_Integer else total

    def _latex(self, printer):
        w, t = self.args
        return r"\operatorname{end}_{%s}(%s)" % (printer._print(w), printer._print(t))


define(
    "tile_end",
    TileEnd,
    lambda e: e.unfold(),
    text=r"\operatorname{end}_w(t) = \operatorname{end}_w(t-1) + w_t,\ \operatorname{end}_w(0) = 0",
)
