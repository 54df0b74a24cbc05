r"""Permutations of the sequence axis, and the maps that commute with them.

A permutation :math:`\sigma` of :math:`\{1, \dots, n\}` acts on the rows of an
:math:`n \times d` matrix through the permutation matrix :math:`P`, :math:`P_{ik} = \delta_{\sigma(i) k}`:

.. math::

    (PS)_{ij} = S_{\sigma(i) j}, \qquad (SP^\top)_{ij} = S_{i \sigma(j)}, \qquad P^\top P = P P^\top = I .

Row-wise softmax, attention, layer normalisation and the MLP commute with it:

.. math::

    \operatorname{softmax_{rows}}(PSP^\top) = P \operatorname{softmax_{rows}}(S) P^\top, \qquad
    \operatorname{Attention}(PXW_Q, PXW_K, PXW_V) = P \operatorname{Attention}(XW_Q, XW_K, XW_V).

The objects here are unevaluated matrix expressions with symbolic shapes. Each knows its
:math:`(i, j)` entry (1-based indices) through ``_symattn_entry``, which the ``matrix_entrywise``
rule of :mod:`symattn.rules.matrices` uses; with explicit matrices, ``doit()`` evaluates exactly.

* :class:`Permutation` -- the hypothesis "sigma is a permutation of {1, ..., n}";
* :class:`PermutationMatrix` -- :math:`P` for a symbolic :math:`\sigma` and :math:`n`;
* :class:`SoftmaxRows`, :class:`Attention`, :class:`LayerNorm`, :class:`ElementwiseMap`,
  :class:`MLP` -- the maps of a transformer layer (definitions ``"softmax_rows"``,
  ``"attention"``, ``"mlp"``);
* :func:`permutation_matrix`, :func:`softmax_rows_explicit`, :func:`attention_explicit` --
  explicit (exact) versions for concrete sizes.

Examples
========

>>> import sympy as sp
>>> permutation_matrix((2, 3, 1))                 # sigma(1) = 2: row 1 of P S is row 2 of S
Matrix([
[0, 1, 0],
[0, 0, 1],
[1, 0, 0]])
>>> S = sp.Matrix([[0, sp.log(3)], [0, 0]])
>>> softmax_rows_explicit(S)                      # exp(log 3) = 3: row 1 is (1, 3)/4
Matrix([
[1/4, 3/4],
[1/2, 1/2]])

References
==========
Seed 000, Proposition "Attention is permutation equivariant"; seed 004, "Positional Encoding";
Vaswani et al. (2017), Sec. 3.5; Lee et al. (2019), "Set Transformer", Property 1.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.definitions import define
from symattn.kernel.objects.permutations import (
    Permutation,
    PermutationMatrix,
    all_permutation_matrices,
    permutation_matrix,
)
from symattn.language.shapes import ShapedExpr, same_dim
from symattn.maths.softmax import Softmax

__all__ = [
    "Permutation",
    "PermutationMatrix",
    "SoftmaxRows",
    "Attention",
    "LayerNorm",
    "ElementwiseMap",
    "MLP",
    "permutation_matrix",
    "all_permutation_matrices",
    "softmax_rows_explicit",
    "attention_explicit",
    "layer_norm_explicit",
    "Entry",
    "fresh_index",
]


def fresh_index(depth: int) -> sp.Symbol:
    """The summation index introduced at nesting ``depth`` (``k_1``, ``k_2``, ...). Deterministic
    names make the entry of an expression reproducible, so a derivation can be written against it."""
    return sp.Symbol(f"k_{depth}", integer=True, positive=True)


def _matrix(x: Any, what: str) -> Any:
    if not isinstance(x, (MatrixExpr, sp.MatrixBase)):
        raise TypeError(f"{what} must be a matrix expression, got {type(x).__name__}")
    return x


def _explicit(M: Any):
    """``M`` as an explicit matrix when it has concrete shape and no unevaluated parts, else None."""
    if isinstance(M, sp.MatrixBase):
        return sp.ImmutableMatrix(M)
    try:
        if all(getattr(s, "is_Integer", False) for s in M.shape):
            done = M.doit()
            if isinstance(done, sp.MatrixBase):
                return sp.ImmutableMatrix(done)
            return sp.ImmutableMatrix(done.as_explicit())
    except (TypeError, ValueError, AttributeError, NotImplementedError):
        return None
    return None


# ----------------------------------------------------------------------------------------- maps
class SoftmaxRows(ShapedExpr):
    r"""Row-wise softmax: :math:`\operatorname{softmax_{rows}}(S)_{ij} = e^{S_{ij}} / \sum_{l} e^{S_{il}}`.

    >>> import sympy as sp
    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> SoftmaxRows(sp.MatrixSymbol("S", n, n)).shape
    (n, n)
    >>> SoftmaxRows(sp.ImmutableMatrix([[0, 0]])).doit()
    Matrix([[1/2, 1/2]])
    """

    def __new__(cls, S):
        return super().__new__(cls, _matrix(S, "the argument of softmax_rows"))

    @property
    def shape(self):
        return self.args[0].shape

    def doit(self, **hints):
        arg = self.args[0].doit(**hints) if hints.get("deep", True) else self.args[0]
        explicit = _explicit(arg)
        if explicit is not None:
            return softmax_rows_explicit(explicit)
        return SoftmaxRows(arg)

    def expanded(self):
        return self.doit()

    def _symattn_entry(self, i, j, depth, entry):
        S = self.args[0]
        k = fresh_index(depth + 1)
        return Softmax(sp.Lambda(k, entry(S, i, k, depth + 1)), j, S.shape[1])

    def _sympystr(self, printer):
        return f"softmax_rows({printer._print(self.args[0])})"

    def _latex(self, printer):
        return r"\operatorname{softmax}_{\mathrm{rows}}\left(%s\right)" % printer._print(self.args[0])


def softmax_rows_explicit(S, causal: bool = False) -> sp.ImmutableMatrix:
    """Exact row-wise softmax of an explicit matrix; ``causal`` keeps columns ``j <= i`` only.

    >>> softmax_rows_explicit(sp.zeros(2, 2), causal=True)
    Matrix([
    [  1,   0],
    [1/2, 1/2]])
    """
    S = sp.Matrix(S)
    rows, cols = S.shape
    out = sp.zeros(rows, cols)
    for r in range(rows):
        keep = [c for c in range(cols) if not causal or c <= r]
        exps = {c: sp.exp(S[r, c]) for c in keep}
        total = sp.Add(*exps.values())
        for c in keep:
            out[r, c] = exps[c] / total
    return sp.ImmutableMatrix(out)


class Attention(ShapedExpr):
    r""":math:`\operatorname{Attention}(Q, K, V) = \operatorname{softmax_{rows}}(QK^\top/\sqrt{d_k})\,V`,
    :math:`d_k` the number of columns of :math:`Q`.

    >>> import sympy as sp
    >>> n, d_k, d_v = sp.symbols("n d_k d_v", integer=True, positive=True)
    >>> Q, K = sp.MatrixSymbol("Q", n, d_k), sp.MatrixSymbol("K", n, d_k)
    >>> Attention(Q, K, sp.MatrixSymbol("V", n, d_v)).shape
    (n, d_v)
    >>> Attention(Q, sp.MatrixSymbol("K", n, 2), Q)
    Traceback (most recent call last):
    ...
    ValueError: Attention: Q and K must have the same number of columns, got (n, d_k) and (n, 2)
    """

    def __new__(cls, Q, K, V):
        for x, w in ((Q, "Q"), (K, "K"), (V, "V")):
            _matrix(x, w)
        if not same_dim(Q.shape[1], K.shape[1]):
            raise ValueError(
                f"Attention: Q and K must have the same number of columns, got {Q.shape} and {K.shape}"
            )
        if not same_dim(K.shape[0], V.shape[0]):
            raise ValueError(f"Attention: K and V must have the same number of rows, got {K.shape} and {V.shape}")
        return super().__new__(cls, Q, K, V)

    @property
    def shape(self):
        return (self.args[0].shape[0], self.args[2].shape[1])

    def expanded(self):
        Q, K, V = self.args
        return sp.MatMul(SoftmaxRows(Q * K.T / sp.sqrt(Q.shape[1])), V)

    def doit(self, **hints):
        args = [a.doit(**hints) for a in self.args] if hints.get("deep", True) else list(self.args)
        if all(_explicit(a) is not None for a in args):
            return attention_explicit(*[_explicit(a) for a in args])
        return Attention(*args)

    def _latex(self, printer):
        return r"\operatorname{Attention}\left(%s\right)" % ", ".join(printer._print(a) for a in self.args)


def attention_explicit(Q, K, V, causal: bool = False) -> sp.ImmutableMatrix:
    """Exact attention of explicit matrices (``causal``: position ``i`` sees ``j <= i`` only).

    >>> attention_explicit(sp.Matrix([[0]]), sp.Matrix([[0], [0]]), sp.Matrix([[1], [3]]))
    Matrix([[2]])
    """
    Q, K, V = (sp.Matrix(x) for x in (Q, K, V))
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError(f"attention_explicit: shapes Q {Q.shape}, K {K.shape}, V {V.shape} do not fit")
    A = softmax_rows_explicit(Q * K.T / sp.sqrt(Q.shape[1]), causal=causal)
    return sp.ImmutableMatrix(A * V)


class LayerNorm(ShapedExpr):
    r"""Row-wise layer normalisation of an ``n x d`` matrix ``X`` with gain and bias rows ``gamma``,
    ``beta`` (``1 x d``) and ``eps > 0``:
    :math:`\operatorname{LN}(X)_{ij} = \gamma_j (X_{ij} - \mu_i)/\sqrt{\sigma_i^2 + \varepsilon} + \beta_j`,
    :math:`\mu_i = \frac1d \sum_k X_{ik}`, :math:`\sigma_i^2 = \frac1d \sum_k (X_{ik} - \mu_i)^2`.

    >>> import sympy as sp
    >>> n, d = sp.symbols("n d", integer=True, positive=True)
    >>> g, b = sp.MatrixSymbol("gamma", 1, d), sp.MatrixSymbol("beta", 1, d)
    >>> LayerNorm(sp.MatrixSymbol("X", n, d), g, b, sp.Symbol("epsilon", positive=True)).shape
    (n, d)
    """

    def __new__(cls, X, gamma, beta, eps):
        for x, w in ((X, "X"), (gamma, "gamma"), (beta, "beta")):
            _matrix(x, w)
        for x, w in ((gamma, "gamma"), (beta, "beta")):
            if not (same_dim(x.shape[0], 1) and same_dim(x.shape[1], X.shape[1])):
                raise ValueError(f"LayerNorm: {w} must be 1 x {X.shape[1]}, got {x.shape}")
        if not isinstance(eps, sp.Expr) or eps.is_positive is False:
            raise ValueError(f"LayerNorm: eps must be a positive expression, got {eps!r}")
        return super().__new__(cls, X, gamma, beta, eps)

    @property
    def shape(self):
        return self.args[0].shape

    def _symattn_entry(self, i, j, depth, entry):
        X, gamma, beta, eps = self.args
        d = X.shape[1]
        k1, k2 = fresh_index(depth + 1), fresh_index(depth + 2)
        mean = sp.Sum(entry(X, i, k1, depth + 1), (k1, 1, d)) / d
        inner_mean = sp.Sum(entry(X, i, k2, depth + 2), (k2, 1, d)) / d
        var = sp.Sum((entry(X, i, k1, depth + 1) - inner_mean) ** 2, (k1, 1, d)) / d
        return entry(gamma, 1, j, depth) * (entry(X, i, j, depth) - mean) / sp.sqrt(var + eps) + entry(
            beta, 1, j, depth
        )

    def doit(self, **hints):
        X, gamma, beta, eps = (a.doit(**hints) if hints.get("deep", True) else a for a in self.args)
        parts = [_explicit(a) for a in (X, gamma, beta)]
        if all(p is not None for p in parts):
            return layer_norm_explicit(*parts, eps)
        return LayerNorm(X, gamma, beta, eps)

    def _latex(self, printer):
        return r"\operatorname{LN}\left(%s\right)" % printer._print(self.args[0])


def layer_norm_explicit(X, gamma, beta, eps) -> sp.ImmutableMatrix:
    """Exact row-wise layer normalisation of an explicit matrix (``gamma``, ``beta``: 1 x d).

    >>> layer_norm_explicit(sp.Matrix([[1, 3]]), sp.Matrix([[1, 1]]), sp.Matrix([[0, 0]]), 0)
    Matrix([[-1, 1]])
    """
    X, gamma, beta = sp.Matrix(X), sp.Matrix(gamma), sp.Matrix(beta)
    rows, d = X.shape
    if gamma.shape != (1, d) or beta.shape != (1, d):
        raise ValueError(f"layer_norm_explicit: gamma and beta must be 1 x {d}, got {gamma.shape}, {beta.shape}")
    out = sp.zeros(rows, d)
    for r in range(rows):
        mean = sum(X[r, :]) / d
        var = sum((x - mean) ** 2 for x in X[r, :]) / d
        for c in range(d):
            out[r, c] = gamma[0, c] * (X[r, c] - mean) / sp.sqrt(var + eps) + beta[0, c]
    return sp.ImmutableMatrix(out)


class ElementwiseMap(ShapedExpr):
    r"""A scalar function applied to every entry: :math:`\rho(M)_{ij} = \rho(M_{ij})`; ``f`` is a
    one-argument :class:`~sympy.Lambda`.

    >>> import sympy as sp
    >>> t = sp.Symbol("t")
    >>> ElementwiseMap(sp.Lambda(t, t**2), sp.ImmutableMatrix([[1, 2]])).doit()
    Matrix([[1, 4]])
    """

    def __new__(cls, f, M):
        if not isinstance(f, sp.Lambda) or len(f.variables) != 1:
            raise TypeError(f"ElementwiseMap needs a one-argument Lambda, got {f!r}")
        return super().__new__(cls, f, _matrix(M, "the argument of ElementwiseMap"))

    @property
    def shape(self):
        return self.args[1].shape

    def doit(self, **hints):
        f, M = self.args
        M = M.doit(**hints) if hints.get("deep", True) else M
        explicit = _explicit(M)
        if explicit is not None:
            return explicit.applyfunc(f)
        return ElementwiseMap(f, M)

    def _symattn_entry(self, i, j, depth, entry):
        f, M = self.args
        return f(entry(M, i, j, depth))

    def _latex(self, printer):
        f, M = self.args
        return r"\left(%s\right)\left(%s\right)" % (printer._print(f), printer._print(M))


class MLP(ShapedExpr):
    r"""The position-wise MLP on the rows of ``X``:
    :math:`\operatorname{MLP}(X) = \rho(XW_1 + \mathbf 1 b_1)\,W_2 + \mathbf 1 b_2`
    (``W_1: d x r``, ``b_1: 1 x r``, ``W_2: r x d``, ``b_2: 1 x d``, :math:`\mathbf 1` the all-ones
    column; seed 000 writes the same map on columns, :math:`W_2\rho(W_1x)`).

    >>> import sympy as sp
    >>> n, d, r = sp.symbols("n d r", integer=True, positive=True)
    >>> t = sp.Symbol("t")
    >>> W1, b1 = sp.MatrixSymbol("W_1", d, r), sp.MatrixSymbol("b_1", 1, r)
    >>> W2, b2 = sp.MatrixSymbol("W_2", r, d), sp.MatrixSymbol("b_2", 1, d)
    >>> rho = sp.Lambda(t, sp.Function("rho")(t))
    >>> MLP(sp.MatrixSymbol("X", n, d), W1, b1, W2, b2, rho).shape
    (n, d)
    """

    def __new__(cls, X, W1, b1, W2, b2, rho):
        for x, w in ((X, "X"), (W1, "W_1"), (b1, "b_1"), (W2, "W_2"), (b2, "b_2")):
            _matrix(x, w)
        checks = (
            (W1.shape[0], X.shape[1], "W_1 rows = width of X"),
            (b1.shape[1], W1.shape[1], "b_1 columns = W_1 columns"),
            (W2.shape[0], W1.shape[1], "W_2 rows = W_1 columns"),
            (b2.shape[1], W2.shape[1], "b_2 columns = W_2 columns"),
            (b1.shape[0], 1, "b_1 is a row"),
            (b2.shape[0], 1, "b_2 is a row"),
        )
        for a, b, what in checks:
            if not same_dim(a, b):
                raise ValueError(f"MLP: shapes do not fit ({what}): {a} vs {b}")
        if not isinstance(rho, sp.Lambda) or len(rho.variables) != 1:
            raise TypeError(f"MLP activation must be a one-argument Lambda, got {rho!r}")
        return super().__new__(cls, X, W1, b1, W2, b2, rho)

    @property
    def shape(self):
        return (self.args[0].shape[0], self.args[3].shape[1])

    def expanded(self):
        X, W1, b1, W2, b2, rho = self.args
        ones = sp.OneMatrix(X.shape[0], 1)
        return ElementwiseMap(rho, X * W1 + ones * b1) * W2 + ones * b2

    def doit(self, **hints):
        args = [a.doit(**hints) if hints.get("deep", True) and isinstance(a, MatrixExpr) else a for a in self.args]
        if all(_explicit(a) is not None for a in args[:5]):
            X, W1, b1, W2, b2 = (sp.Matrix(_explicit(a)) for a in args[:5])
            ones = sp.ones(X.shape[0], 1)
            return sp.ImmutableMatrix((X * W1 + ones * b1).applyfunc(args[5]) * W2 + ones * b2)
        return MLP(*args)

    def _latex(self, printer):
        return r"\operatorname{MLP}\left(%s\right)" % printer._print(self.args[0])


define("softmax_rows", SoftmaxRows, lambda e: e.expanded(),
       text=r"\operatorname{softmax_{rows}}(S)_{ij} = e^{S_{ij}}/\sum_l e^{S_{il}}")
define("attention", Attention, lambda e: e.expanded(),
       text=r"\operatorname{Attention}(Q,K,V) = \operatorname{softmax_{rows}}(QK^\top/\sqrt{d_k})V")
define("mlp", MLP, lambda e: e.expanded(), text=r"\operatorname{MLP}(X) = \rho(XW_1 + \mathbf 1 b_1)W_2 + \mathbf 1 "
                                                r"b_2")


class Entry(sp.Function):
    r"""The :math:`(i, j)` entry of a real matrix expression, 1-based, unevaluated: ``Entry(M, i, j)``
    prints :math:`M_{ij}`; the definition ``entry`` unfolds it (a matrix symbol ``X`` has the real
    entries ``X[i, j]``, an :class:`~sympy.IndexedBase` declared real) through the entry of each map
    (a product becomes a sum over a fresh index, ``softmax_rows`` a :class:`~symattn.maths.softmax.Softmax`).
    Unlike SymPy's ``M[i, j]`` (0-based, and expanded at once for products) it keeps the statement
    readable: the output of attention is ``Entry(Attention(Q, K, V), i, c)``.

    >>> n, d = sp.symbols("n d", integer=True, positive=True)
    >>> i, j = sp.symbols("i j", integer=True, positive=True)
    >>> X, W = sp.MatrixSymbol("X", n, d), sp.MatrixSymbol("W", d, d)
    >>> Entry(X * W, i, j).doit()
    Sum(W[k_1, j]*X[i, k_1], (k_1, 1, d))
    """

    nargs = 3
    is_commutative = True

    @classmethod
    def eval(cls, M, i, j):
        _matrix(M, "the matrix of Entry")
        return None

    def expanded(self):
        from symattn.kernel.schemas.matrices import matrix_entry as entry

        M, i, j = self.args
        if isinstance(M, Attention):
            M = M.expanded()
        out = entry(M, i, j)
        # the matrices are real: their entries are real-valued IndexedBase entries
        real = {sp.IndexedBase(x.name): sp.IndexedBase(x.name, real=True) for x in M.atoms(sp.MatrixSymbol)}
        return out.xreplace(real)

    def doit(self, **hints):
        return self.expanded()

    def _latex(self, printer):
        M, i, j = self.args
        return r"\left(%s\right)_{%s %s}" % (printer._print(M), printer._print(i), printer._print(j))


define("entry", Entry, lambda e: e.expanded(), text=r"(M)_{ij}, the entry in row i and column j (from 1)")
