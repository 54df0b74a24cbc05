"""The softmax: ``softmax(s)_i = exp(s_i) / sum_{j=1}^{n} exp(s_j)``.

:class:`Softmax` is the unevaluated component for a symbolic length ``n``; the vector is given
as a :class:`~sympy.Lambda` of the summation index, so ``softmax(s + c 1)`` is
``Softmax(Lambda(j, s[j] + c), i, n)``. ``doit()`` unfolds the definition; the ``definition``
rule (name ``"softmax"``) uses the same expansion.

>>> import sympy as sp
>>> s = sp.IndexedBase("s"); i, j = sp.symbols("i j", integer=True)
>>> n = sp.Symbol("n", integer=True, positive=True)
>>> Softmax(sp.Lambda(j, s[j]), i, n).doit()
exp(s[i])/Sum(exp(s[j]), (j, 1, n))

References
----------
Seed 000, "Scaled dot-product attention"; seed 004, "Scaled Dot-Product Attention".
"""

from __future__ import annotations

import sympy as sp

from symattn.kernel.definitions import define
from symattn.kernel.terms import declare_binder

__all__ = ["Softmax", "Score"]


class Softmax(sp.Function):
    """Component ``i`` of the softmax of the length-``n`` vector ``f(1), ..., f(n)``.

    Arguments: ``f`` (a one-argument :class:`~sympy.Lambda`), the component index ``i``, the
    length ``n``. Stays unevaluated until ``doit()``.
    """

    nargs = 3
    # a scalar; without this SymPy infers None from the Lambda argument, and products containing
    # a Softmax become non-commutative (as_independent then refuses to pull factors apart)
    is_commutative = True

    @classmethod
    def eval(cls, f, i, n):
        if not isinstance(f, sp.Lambda) or len(f.variables) != 1:
            raise TypeError(f"Softmax needs a one-argument Lambda for the vector, got {f!r}")
        return None  # never evaluate automatically: the definition is unfolded explicitly

    @property
    def vector(self) -> sp.Lambda:
        return self.args[0]

    def expanded(self) -> sp.Expr:
        f, i, n = self.args
        j = f.variables[0]
        k = j if j != i else sp.Dummy("k", integer=True)
        return sp.exp(f(i)) / sp.Sum(sp.exp(f(k)), (k, 1, n))

    def doit(self, **hints):
        return self.expanded()

    def _latex(self, printer):
        f, i, n = self.args
        j = f.variables[0]
        body = printer._print(f.expr)
        return r"\operatorname{softmax}\left(\left(%s\right)_{%s=1}^{%s}\right)_{%s}" % (
            body,
            printer._print(j),
            printer._print(n),
            printer._print(i),
        )


declare_binder(Softmax, lambda args: (sp.S.One, args[2]))  # the vector's index runs over 1..n

define(
    "softmax",
    Softmax,
    lambda e: e.expanded(),
    text=r"\operatorname{softmax}(s)_i = e^{s_i} / \sum_{j=1}^{n} e^{s_j}",
)


_T = sp.Symbol("t", integer=True, positive=True)  # the feature index summed in a score


class Score(sp.Function):
    r"""The scaled attention score :math:`S_{xy} = \sum_{t=1}^{d_k} Q_{xt} K_{yt} / \sqrt{d_k}`
    (unevaluated; the definition ``attention_score`` unfolds it), printed :math:`S_{xy}`.

    Arguments: ``Q, K`` (:class:`~sympy.IndexedBase`), the query row ``x``, the key row ``y``, ``d_k``.

    >>> Q, K = sp.IndexedBase("Q"), sp.IndexedBase("K")
    >>> x, y = sp.symbols("x y", integer=True); d = sp.Symbol("d_k", integer=True, positive=True)
    >>> Score(Q, K, x, y, d).doit()
    Sum(K[y, t]*Q[x, t], (t, 1, d_k))/sqrt(d_k)
    """

    nargs = 5
    is_commutative = True

    @classmethod
    def eval(cls, q, k, x, y, d):
        return None  # never evaluate automatically: the definition is unfolded explicitly

    def expanded(self) -> sp.Expr:
        q, k, x, y, d = self.args
        return sp.Sum(q[x, _T] * k[y, _T], (_T, 1, d)) / sp.sqrt(d)

    def doit(self, **hints):
        return self.expanded()

    def _latex(self, printer):
        x, y = (printer._print(a) for a in self.args[2:4])
        return r"S_{%s %s}" % (x, y)


define("attention_score", Score, lambda e: e.expanded(),
       text=r"S_{xy} = \sum_{t=1}^{d_k} Q_{xt} K_{yt} / \sqrt{d_k}")


# ----------------------------------------------------------------------------------- the Jacobian
#
# d a_i / d s_j = a_i (delta_ij - a_j) for a = softmax(s): the matrix diag(a) - a a^T.
# Seed 000, Proposition "Softmax saturation kills the gradient".


def _indexed_base(a, what: str) -> sp.IndexedBase:
    if isinstance(a, sp.IndexedBase):
        return a
    raise TypeError(f"{what} must be a sympy IndexedBase (a vector with entries a[i]), got {type(a).__name__}")


class SoftmaxJacobian(sp.Function):
    """Entry ``(i, j)`` of the softmax Jacobian ``diag(a) - a a^T``, written through the softmax
    output ``a``: ``J_ij = d a_i / d s_j = a_i (delta_ij - a_j)``.

    Arguments: ``a`` (an :class:`~sympy.IndexedBase`, the probability vector), the row index
    ``i`` and the column index ``j``. Stays unevaluated until ``doit()``; the ``definition``
    rule (name ``"softmax_jacobian"``) uses the same expansion.

    Examples
    ========

    >>> import sympy as sp
    >>> a = sp.IndexedBase("a"); i, j = sp.symbols("i j", integer=True)
    >>> SoftmaxJacobian(a, i, j).doit()
    (KroneckerDelta(i, j) - a[j])*a[i]
    >>> SoftmaxJacobian(a, 2, 2).doit()   # a diagonal entry: a_2 (1 - a_2)
    (1 - a[2])*a[2]
    """

    nargs = 3

    @classmethod
    def eval(cls, a, i, j):
        _indexed_base(a, "SoftmaxJacobian's first argument")
        return None  # unfolded explicitly, by doit() or the definition rule

    def expanded(self) -> sp.Expr:
        a, i, j = self.args
        return a[i] * (sp.KroneckerDelta(i, j) - a[j])

    def doit(self, **hints):
        return self.expanded()

    def _latex(self, printer):
        a, i, j = self.args
        return r"J^{\operatorname{softmax}}_{%s %s}" % (printer._print(i), printer._print(j))


def softmax_jacobian_entry(i, j, a=None) -> sp.Expr:
    """``a_i (delta_ij - a_j)``, entry ``(i, j)`` of the softmax Jacobian, for symbolic indices.

    Parameters
    ==========
    i, j : row and column index (SymPy integers or integer symbols)
    a : the softmax output as an :class:`~sympy.IndexedBase` (default ``a``)

    Examples
    ========

    >>> import sympy as sp
    >>> i, j = sp.symbols("i j", integer=True)
    >>> softmax_jacobian_entry(i, j)
    (KroneckerDelta(i, j) - a[j])*a[i]
    """
    a = sp.IndexedBase("a") if a is None else _indexed_base(a, "a")
    for name, x in (("i", i), ("j", j)):
        if isinstance(x, str) or not (isinstance(x, (int, sp.Basic)) and not isinstance(x, bool)):
            raise TypeError(f"index {name} must be an int or a SymPy integer expression, got {x!r}")
    return SoftmaxJacobian(a, i, j).expanded()


class CategoricalVariance(sp.Function):
    r"""``Var_{J ~ a}(v_J)``: the variance of the value ``v_J`` when the position ``J`` is drawn
    with probabilities ``P(J = j) = a_j`` (``a_j >= 0``, ``sum_j a_j = 1``):

    .. math:: \operatorname{Var}_{J\sim a}(v_J) = \sum_{j=1}^{n} a_j \Big(v_j - \sum_{k=1}^{n} a_k v_k\Big)^2 .

    Arguments: ``a`` and ``v`` (:class:`~sympy.IndexedBase` vectors) and the length ``n``.
    The expansion is the definition above, with mean ``sum_k a_k v_k``; it is the variance of
    ``v_J`` only when ``a`` is a probability vector, which theorems using it state as hypotheses.

    Examples
    ========

    >>> import sympy as sp
    >>> a, v = sp.IndexedBase("a"), sp.IndexedBase("v")
    >>> CategoricalVariance(a, v, 2).doit().doit()   # n = 2: the two deviations, weighted
    (-a[1]*v[1] - a[2]*v[2] + v[1])**2*a[1] + (-a[1]*v[1] - a[2]*v[2] + v[2])**2*a[2]
    """

    nargs = 3

    @classmethod
    def eval(cls, a, v, n):
        _indexed_base(a, "CategoricalVariance's weights")
        _indexed_base(v, "CategoricalVariance's values")
        if n.is_integer is False or n.is_positive is False:
            raise ValueError(f"the length n must be a positive integer, got {n}")
        return None

    def expanded(self) -> sp.Expr:
        a, v, n = self.args
        j, k = _VAR_J, _VAR_K
        if {j, k} & n.free_symbols:
            j, k = sp.Dummy("j", integer=True, positive=True), sp.Dummy("k", integer=True, positive=True)
        mean = sp.Sum(a[k] * v[k], (k, 1, n))
        return sp.Sum(a[j] * (v[j] - mean) ** 2, (j, 1, n))

    def doit(self, **hints):
        return self.expanded()

    def _latex(self, printer):
        a, v, n = self.args
        return r"\operatorname{Var}_{J\sim %s}\left(%s_{J}\right)" % (printer._print(a), printer._print(v))


_VAR_J = sp.Symbol("j", integer=True, positive=True)
_VAR_K = sp.Symbol("k", integer=True, positive=True)


class SpectralNorm(sp.Function):
    r"""``||M||_2``, the largest singular value of ``M`` (unevaluated for symbolic shapes).

    For an explicit numeric matrix ``doit()`` returns the exact value
    ``sqrt(max eigenvalue of M^T M)``; for anything else it stays unevaluated.

    Examples
    ========

    >>> import sympy as sp
    >>> SpectralNorm(sp.Matrix([[3, 0], [0, -4]])).doit()   # singular values 3 and 4
    4
    """

    nargs = 1

    @classmethod
    def eval(cls, m):
        if not isinstance(m, (sp.MatrixBase, sp.MatrixExpr)):
            raise TypeError(f"SpectralNorm needs a matrix, got {type(m).__name__}")
        return None

    def doit(self, **hints):
        m = self.args[0]
        if isinstance(m, sp.MatrixBase) and not m.free_symbols:
            gram = sp.Matrix(m).T * sp.Matrix(m)
            return sp.sqrt(sp.Max(*gram.eigenvals().keys()))
        return self

    def _latex(self, printer):
        return r"\left\| %s \right\|_{2}" % printer._print(self.args[0])


def softmax_jacobian_matrix(a, n) -> sp.FunctionMatrix:
    """The ``n x n`` softmax Jacobian ``diag(a) - a a^T`` as a matrix expression (symbolic ``n``).

    >>> import sympy as sp
    >>> softmax_jacobian_matrix(sp.IndexedBase("a"), sp.Symbol("n", integer=True, positive=True)).shape
    (n, n)
    """
    a = _indexed_base(a, "a")
    r, c = sp.symbols("r c", integer=True, positive=True)
    return sp.FunctionMatrix(n, n, sp.Lambda((r, c), SoftmaxJacobian(a, r, c)))


# ------------------------------------------------------------------------ explicit, concrete n


def _vector(x, what: str) -> list:
    if isinstance(x, str):
        raise TypeError(f"{what}: strings are not parsed; build the entries with SymPy")
    if isinstance(x, sp.MatrixBase):
        if 1 not in x.shape:
            raise ValueError(f"{what} must be a row or column vector, got shape {x.shape}")
        entries = list(x)
    elif isinstance(x, (list, tuple)):
        entries = list(x)
    else:
        raise TypeError(f"{what} must be a list, tuple or SymPy vector, got {type(x).__name__}")
    if not entries:
        raise ValueError(f"{what} must have at least one entry")
    out = []
    for e in entries:
        if isinstance(e, (str, bool)) or not isinstance(e, (int, float, sp.Basic)):
            raise TypeError(f"{what}: entries must be numbers or SymPy expressions, got {e!r}")
        if isinstance(e, sp.MatrixBase) or (isinstance(e, sp.Basic) and not isinstance(e, sp.Expr)):
            raise TypeError(f"{what}: entries must be scalars, got {e!r}")
        out.append(sp.sympify(e, strict=True) if isinstance(e, (int, float)) else e)
    return out


def softmax(vector) -> sp.Matrix:
    """The softmax of an explicit vector, as an exact column :class:`~sympy.Matrix`.

    Examples
    ========

    >>> import sympy as sp
    >>> softmax([0, 0])          # equal logits: equal weights
    Matrix([
    [1/2],
    [1/2]])
    >>> x, y = sp.symbols("x y", real=True)
    >>> softmax([x, y])[0]
    exp(x)/(exp(x) + exp(y))
    """
    entries = _vector(vector, "softmax")
    exps = [sp.exp(e) for e in entries]
    z = sp.Add(*exps)
    return sp.Matrix([e / z for e in exps])


def softmax_jacobian(n_or_vector) -> sp.Matrix:
    """``diag(a) - a a^T`` for ``a = softmax(s)``, explicit.

    Give an integer ``n`` for the logits ``s1, ..., sn`` (real symbols), or the logit vector.

    Examples
    ========

    >>> J = softmax_jacobian([0, 0])   # a = (1/2, 1/2): diag(a) - a a^T
    >>> J
    Matrix([
    [ 1/4, -1/4],
    [-1/4,  1/4]])
    >>> softmax_jacobian(3).shape
    (3, 3)
    """
    if isinstance(n_or_vector, bool):
        raise TypeError("softmax_jacobian needs a positive integer n or a vector, got a bool")
    if isinstance(n_or_vector, int):
        if n_or_vector < 1:
            raise ValueError(f"softmax_jacobian: n must be a positive integer, got {n_or_vector}")
        vector = list(sp.symbols(f"s1:{n_or_vector + 1}", real=True))
    else:
        vector = n_or_vector
    a = softmax(vector)
    return sp.diag(*a) - a * a.T


__all__ += [
    "SoftmaxJacobian",
    "CategoricalVariance",
    "SpectralNorm",
    "softmax",
    "softmax_jacobian",
    "softmax_jacobian_entry",
    "softmax_jacobian_matrix",
]

define(
    "softmax_jacobian",
    SoftmaxJacobian,
    lambda e: e.expanded(),
    text=r"J_{ij} = \partial a_i / \partial s_j = a_i(\delta_{ij} - a_j)",
)
define(
    "categorical_variance",
    CategoricalVariance,
    lambda e: e.expanded(),
    text=r"\operatorname{Var}_{J\sim a}(v_J) = \sum_j a_j (v_j - \sum_k a_k v_k)^2",
)
