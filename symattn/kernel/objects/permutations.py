r"""Permutations: the hypothesis that a function is a bijection of ``{1, ..., n}`` (:class:`Permutation`),
its matrix (:class:`PermutationMatrix`, :math:`P_{ik} = \delta_{\sigma(i) k}`) and explicit permutation
matrices.

The equivariance helpers (:mod:`symattn.maths.permutation`) are written with them; the matrix schemas
and the concrete levels (:mod:`symattn.kernel.instances`) read them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.core.symbol import Str
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.language.statement import Hypothesis

__all__ = ["Permutation", "PermutationMatrix", "permutation_matrix", "all_permutation_matrices"]


@dataclass(frozen=True)
class Permutation(Hypothesis):
    """Hypothesis: the function named ``sigma`` is a permutation (a bijection) of ``{1, ..., n}``.

    >>> import sympy as sp
    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> H = Permutation("sigma_perm", sigma="sigma", n=n)
    >>> H.describe(), H.function(sp.Symbol("i"))
    ('sigma is a permutation of {1, ..., n}', sigma(i))
    """

    sigma: str = "sigma"
    n: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.sigma, str) or not self.sigma.isidentifier():
            raise TypeError(f"sigma must be the name of the permutation (an identifier), got {self.sigma!r}")
        if self.n is None:
            raise ValueError("Permutation needs n (the size of the permuted set)")

    @property
    def function(self):
        return sp.Function(self.sigma)

    def describe(self) -> str:
        return f"{self.sigma} is a permutation of {{1, ..., {sp.sstr(self.n)}}}"

    def latex(self) -> str:
        from symattn.language.printing import latex

        return r"\%s \text{ is a permutation of } \{1, \dots, %s\}" % (self.sigma, latex(self.n)) if self.sigma in (
            "sigma", "tau", "pi") else r"%s \text{ is a permutation of } \{1, \dots, %s\}" % (self.sigma, latex(self.n))



# ----------------------------------------------------------------------------------------- P
class PermutationMatrix(MatrixExpr):
    r"""The ``n x n`` permutation matrix of ``sigma``: :math:`P_{ik} = \delta_{\sigma(i) k}`, so that
    :math:`(PS)_{ij} = S_{\sigma(i) j}`.

    >>> import sympy as sp
    >>> n, i, j = sp.symbols("n i j", integer=True, positive=True)
    >>> P = PermutationMatrix("sigma", n)
    >>> P.shape, P.sigma(i)
    ((n, n), sigma(i))
    """

    def __new__(cls, sigma, n):
        if isinstance(sigma, str):
            sigma = Str(sigma)
        if not isinstance(sigma, Str):
            raise TypeError(f"PermutationMatrix needs the permutation's name, got {sigma!r}")
        n = sp.sympify(n, strict=True) if isinstance(n, int) else n
        if not isinstance(n, sp.Expr) or n.is_integer is False or n.is_positive is False:
            raise ValueError(f"PermutationMatrix size must be a positive integer, got {n!r}")
        return super().__new__(cls, sigma, n)

    @property
    def name(self) -> str:
        return self.args[0].name

    @property
    def sigma(self):
        return sp.Function(self.name)

    @property
    def shape(self):
        return (self.args[1], self.args[1])

    def _symattn_entry(self, i, j, depth, entry):
        return sp.KroneckerDelta(self.sigma(i), j)

    def _sympystr(self, printer):
        return f"P_{self.name}"

    def _latex(self, printer):
        return r"P_{%s}" % (r"\%s" % self.name if self.name in ("sigma", "tau", "pi") else self.name)



def permutation_matrix(perm) -> sp.ImmutableMatrix:
    """The explicit permutation matrix with ``P[i, perm[i]] = 1`` (``perm`` a tuple of 1-based values,
    ``perm[i-1] = sigma(i)``).

    >>> permutation_matrix((1,))
    Matrix([[1]])
    >>> permutation_matrix((1, 1))
    Traceback (most recent call last):
    ...
    ValueError: (1, 1) is not a permutation of 1..2
    """
    perm = tuple(perm)
    n = len(perm)
    if n == 0 or sorted(perm) != list(range(1, n + 1)) or not all(isinstance(p, int) for p in perm):
        raise ValueError(f"{perm} is not a permutation of 1..{n}")
    return sp.ImmutableMatrix(n, n, lambda i, k: 1 if perm[i] == k + 1 else 0)



def all_permutation_matrices(n: int):
    """Every ``n x n`` permutation matrix, with its permutation.

    >>> [p for p, _ in all_permutation_matrices(2)]
    [(1, 2), (2, 1)]
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    for perm in itertools.permutations(range(1, n + 1)):
        yield perm, permutation_matrix(perm)
