r"""Multi-head attention as a sum of low-rank maps.

With :math:`h` heads :math:`\mathrm{head}_m \in \mathbb{R}^{n\times d_v}` and the output matrix
partitioned into row blocks :math:`W_O^m \in \mathbb{R}^{d_v\times d}`,

.. math::

    \operatorname{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)\, W_O
    = \begin{pmatrix}\mathrm{head}_1 & \cdots & \mathrm{head}_h\end{pmatrix}
      \begin{pmatrix} W_O^1 \\ \vdots \\ W_O^h\end{pmatrix}
    = \sum_{m=1}^{h} \mathrm{head}_m W_O^m ,

and since :math:`\mathrm{head}_m = A^m X W_V^m`, each term factors through the
:math:`d_v`-dimensional product :math:`W_V^m W_O^m`, of rank at most :math:`d_v` (:math:`= d/h`).

The objects are unevaluated matrix expressions with symbolic shapes:

* :class:`FamilyMatrix` -- the member :math:`W^m` of an indexed family of matrices;
* :class:`Concat` / :class:`Stack` -- horizontal / vertical concatenation of a family
  :math:`m \mapsto F(m)`, :math:`m = 1, \dots, h`, for symbolic :math:`h`;
* :class:`HConcat` / :class:`VStack` -- concatenation of an explicit list of blocks;
* :class:`MatSum` -- :math:`\sum_{m=lo}^{hi} T(m)` for matrix terms, symbolic bounds allowed;
* :class:`Rank` -- the rank of a matrix (evaluates for explicit rational matrices).

For concrete numpy arrays, :func:`head_blocks` and :func:`row_blocks` cut a matrix into its head
blocks, and :func:`mha_sum_form` builds both sides of the identity symbolically.

Examples
========

>>> import sympy as sp
>>> n, d, d_v, h = sp.symbols("n d d_v h", integer=True, positive=True)
>>> lhs, rhs = mha_sum_form(n, d, h, d_v=d_v)
>>> lhs.shape == rhs.shape == (n, d)
True
>>> import numpy as np
>>> W = np.arange(12).reshape(2, 6)
>>> [b.tolist() for b in head_blocks(W, 3)]        # 6 columns, 3 heads of width 2
[[[0, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [10, 11]]]

References
==========
Seed 000, Proposition "Multi-head attention is a sum of low-rank attention maps" and its Key idea;
seed 004, "Multi-Head Attention"; Vaswani et al. (2017), "Attention Is All You Need", Sec. 3.2.2.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from symattn.kernel.definitions import define
from symattn.kernel.objects.block_matrices import (
    Concat,
    FamilyMatrix,
    HConcat,
    MatSum,
    NumEntries,
    Rank,
    Stack,
    VStack,
    _dim,
    _family,
    _matrix,
)
from symattn.language.shapes import ShapedExpr, same_dim

__all__ = [
    "FamilyMatrix",
    "Concat",
    "Stack",
    "HConcat",
    "VStack",
    "MatSum",
    "Rank",
    "NumEntries",
    "MultiHeadAttention",
    "mha_families",
    "same_dim",
    "ShapedExpr",
    "mha_sum_form",
    "head_blocks",
    "row_blocks",
    "concat_heads",
]


class MultiHeadAttention(ShapedExpr):
    r"""``MHA(X) = Concat(head_1, ..., head_h) W_O`` with
    ``head_m = Attention(X W_Q^m, X W_K^m, X W_V^m)`` and ``W_O`` stacked from row blocks ``W_O^m``.

    Arguments: ``X`` and four families ``Lambda(m, W^m)`` (query, key, value, output blocks) and
    the number of heads ``h``. The ``definition`` rule (name ``"mha"``) unfolds it.

    >>> import sympy as sp
    >>> n, d, d_k, d_v, h, m = sp.symbols("n d d_k d_v h m", integer=True, positive=True)
    >>> mha = MultiHeadAttention(sp.MatrixSymbol("X", n, d), *mha_families(m, d, d_k, d_v), h)
    >>> mha.shape
    (n, d)
    """

    def __new__(cls, X, wq, wk, wv, wo, h):
        _matrix(X, "X")
        for f, what in ((wq, "W_Q"), (wk, "W_K"), (wv, "W_V"), (wo, "W_O")):
            _family(f, f"the {what} family")
        h = _dim(h, "the number of heads")
        d = X.shape[1]
        if not (same_dim(wq.expr.shape[0], d) and same_dim(wk.expr.shape[0], d) and same_dim(wv.expr.shape[0], d)):
            raise ValueError(f"W_Q^m, W_K^m, W_V^m must have {d} rows (the width of X)")
        if not same_dim(wq.expr.shape[1], wk.expr.shape[1]):
            raise ValueError(f"W_Q^m and W_K^m must have the same width, got {wq.expr.shape} and {wk.expr.shape}")
        if not same_dim(wo.expr.shape[0], wv.expr.shape[1]):
            raise ValueError(f"W_O^m must have d_v = {wv.expr.shape[1]} rows, got {wo.expr.shape}")
        return super().__new__(cls, X, wq, wk, wv, wo, h)

    @property
    def shape(self):
        return (self.args[0].shape[0], self.args[4].expr.shape[1])

    def expanded(self):
        from symattn.maths.permutation import Attention

        X, wq, wk, wv, wo, h = self.args
        m = wq.variables[0]
        heads = sp.Lambda(m, Attention(X * wq(m), X * wk(m), X * wv(m)))
        return Concat(heads, h) * Stack(sp.Lambda(m, wo(m)), h)

    def _sympystr(self, printer):
        return f"MHA({printer._print(self.args[0])}, h={printer._print(self.args[5])})"

    def _latex(self, printer):
        return r"\operatorname{MHA}\left(%s\right)" % printer._print(self.args[0])


def mha_families(m, d, d_k, d_v, names=("W_Q", "W_K", "W_V", "W_O")):
    """The four families ``Lambda(m, W^m)`` of per-head projection blocks."""
    wq, wk, wv, wo = names
    return (
        sp.Lambda(m, FamilyMatrix(wq, m, d, d_k)),
        sp.Lambda(m, FamilyMatrix(wk, m, d, d_k)),
        sp.Lambda(m, FamilyMatrix(wv, m, d, d_v)),
        sp.Lambda(m, FamilyMatrix(wo, m, d_v, d)),
    )


define("mha", MultiHeadAttention, lambda e: e.expanded(),
       text=r"\operatorname{MHA}(X) = \operatorname{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h) W_O")


def mha_sum_form(n, d, h, *, d_v=None, m=None):
    r"""Both sides of :math:`\operatorname{Concat}(\mathrm{head}_m)_m W_O = \sum_m \mathrm{head}_m W_O^m`.

    ``head_m`` is the family member ``FamilyMatrix("head", m, n, d_v)`` and ``W_O^m`` the member
    ``FamilyMatrix("W_O", m, d_v, d)``; ``d_v`` defaults to ``d/h``.

    >>> import sympy as sp
    >>> n, d, h = sp.symbols("n d h", integer=True, positive=True)
    >>> lhs, rhs = mha_sum_form(n, d, h)
    >>> rhs
    MatSum(head^(m)*W_O^(m), (m, 1, h))
    """
    m = sp.Symbol("m", integer=True, positive=True) if m is None else m
    d_v = d / h if d_v is None else d_v
    head = FamilyMatrix("head", m, n, d_v)
    wo = FamilyMatrix("W_O", m, d_v, d)
    lhs = Concat(sp.Lambda(m, head), h) * Stack(sp.Lambda(m, wo), h)
    rhs = MatSum(head * wo, (m, 1, h))
    return lhs, rhs


# ----------------------------------------------------------------------------------------- numpy
def _heads_arg(W, h) -> tuple[np.ndarray, int]:
    W = np.asarray(W)
    if W.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got shape {W.shape}")
    if isinstance(h, bool) or not isinstance(h, (int, np.integer)):
        raise TypeError(f"the number of heads must be an int, got {type(h).__name__}")
    if h < 1:
        raise ValueError(f"the number of heads must be >= 1, got {h}")
    return W, int(h)


def head_blocks(W, h) -> list[np.ndarray]:
    """Cut the columns of ``W`` (``d x h*w``) into ``h`` head blocks of width ``w``.

    >>> head_blocks(np.eye(4), 2)[1].shape          # 4 columns, 2 heads: blocks of width 2
    (4, 2)
    >>> head_blocks(np.eye(4), 3)
    Traceback (most recent call last):
    ...
    ValueError: 4 columns cannot be split into 3 heads of equal width
    """
    W, h = _heads_arg(W, h)
    if W.shape[1] % h:
        raise ValueError(f"{W.shape[1]} columns cannot be split into {h} heads of equal width")
    w = W.shape[1] // h
    return [W[:, k * w:(k + 1) * w] for k in range(h)]


def row_blocks(W, h) -> list[np.ndarray]:
    """Cut the rows of ``W`` (``h*w x d``) into ``h`` blocks ``W^m`` of ``w`` rows each (``W_O^m``).

    >>> [b.tolist() for b in row_blocks(np.arange(4).reshape(4, 1), 2)]
    [[[0], [1]], [[2], [3]]]
    """
    W, h = _heads_arg(W, h)
    if W.shape[0] % h:
        raise ValueError(f"{W.shape[0]} rows cannot be split into {h} blocks of equal height")
    w = W.shape[0] // h
    return [W[k * w:(k + 1) * w, :] for k in range(h)]


def concat_heads(heads) -> np.ndarray:
    """``[head_1 ... head_h]`` for equal-height numpy blocks.

    >>> concat_heads([np.ones((2, 1)), np.zeros((2, 2))]).tolist()
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    heads = [np.asarray(x) for x in heads]
    if not heads:
        raise ValueError("concat_heads needs at least one head")
    rows = {x.shape[0] for x in heads if x.ndim == 2}
    if any(x.ndim != 2 for x in heads) or len(rows) != 1:
        raise ValueError(f"heads must be 2-D with the same number of rows, got shapes {[x.shape for x in heads]}")
    return np.concatenate(heads, axis=1)
