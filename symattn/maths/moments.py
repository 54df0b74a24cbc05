r"""Random vectors and the moments of polynomials in them, in the symbolic dimension: the module users
import.

The moment objects and their calculus (:mod:`symattn.kernel.objects.moments`) and the constructors
that check each declared law (:mod:`symattn.kernel.objects.random_vectors`) live in the trusted core,
because the concrete levels evaluate moments with them; this module gathers them.

>>> import sympy as sp
>>> d_k = sp.Symbol("d_k", integer=True, positive=True)
>>> sigma = sp.Symbol("sigma", positive=True)
>>> q, k = gaussian_vector("q", d_k, sigma), gaussian_vector("k", d_k, sigma)
>>> Var(dot(q, k))          # the logit's variance grows like d_k: hence the 1/sqrt(d_k)
d_k*sigma**4
"""

from __future__ import annotations

from symattn.kernel.objects.moments import (
    MOMENT_CLASSES,
    CorrelatedPair,
    Cov,
    Covariance,
    E,
    Expectation,
    RandomVector,
    StandardDeviation,
    Var,
    Variance,
    dot,
    explicit_expectation,
    random_vector_of,
)
from symattn.kernel.objects.moments import (
    _Moment as _Moment,  # the base class, for isinstance tests of older callers
)
from symattn.kernel.objects.random_vectors import correlated_vectors, gaussian_vector, iid_vector

__all__ = [
    "Expectation",
    "Variance",
    "StandardDeviation",
    "Covariance",
    "MOMENT_CLASSES",
    "RandomVector",
    "iid_vector",
    "gaussian_vector",
    "dot",
    "E",
    "Var",
    "Cov",
    "random_vector_of",
    "explicit_expectation",
    "CorrelatedPair",
    "correlated_vectors",
]
