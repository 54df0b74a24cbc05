r"""The constructors of random vectors, each of whose declared law is checked first: :func:`iid_vector`
(i.i.d. entries of a given mean, variance and moments), :func:`gaussian_vector`, and
:func:`correlated_vectors` (pairs ``(q_i, k_i)`` correlated, independent across ``i``).

A law shown impossible (a negative even moment, Jensen, ``|correlation| > 1``, Cauchy--Schwarz, ...) is
refused with the consistency check of the probability schemas
(:func:`symattn.kernel.schemas.probability.problems`), which read the moment objects of
:mod:`symattn.kernel.objects.moments`: so the constructors sit above both.

>>> import sympy as sp
>>> from symattn.kernel.objects.moments import Var, dot
>>> d = sp.Symbol("d_k", integer=True, positive=True)
>>> q = iid_vector("q", d, variance=1); k = iid_vector("k", d, variance=1)
>>> Var(dot(q, k))
d_k
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.objects.moments import (
    CorrelatedPair,
    RandomVector,
    _GaussianMoments,
    _moment_table,
    _new_vector,
    _order,
    _register,
    _value,
)
from symattn.language.statement import CorrelatedPairs, RandomFamily

__all__ = ["iid_vector", "gaussian_vector", "correlated_vectors"]


def _make(name: str, dim: Any, mean: Any, variance: Any, raw: dict, central: dict) -> RandomVector:
    vec = _new_vector(name, dim, mean, variance, raw, central)
    if raw or (central and not isinstance(central, _GaussianMoments)):
        orders = sorted(set(raw) | set(central))
        family = RandomFamily(f"{name}_iid", base=vec.base, dim=vec.dim, mean=vec.mean, variance=vec.variance,
                              moments=tuple((r, vec.raw_moment(r)) for r in orders))
        _refuse_impossible(f"iid_vector {name!r}", [family])
    return _register(vec)


def _refuse_impossible(what: str, hypotheses: list) -> None:
    """``ValueError`` when the declared law is shown impossible (a negative even moment, Jensen
    E[x^4] >= E[x^2]^2, |correlation| > 1, Cauchy-Schwarz, ...): the theorem layer's own check of the
    same hypotheses (:func:`symattn.kernel.schemas.probability.problems`). What is only *not shown*
    possible (symbolic moments of unknown sign) is accepted, as is a check that runs out of time."""
    from symattn.kernel.schemas.probability import problems
    from symattn.kernel.timelimit import TimeLimitExceeded, TimeLimitUnavailable, time_limit

    try:
        with time_limit(_VALIDATION_SECONDS):
            found = problems(hypotheses)
    except (TimeLimitExceeded, TimeLimitUnavailable):
        return
    found = [f for f in found if "not shown" not in f]
    if found:
        raise ValueError(f"{what}: impossible distribution: " + "; ".join(found))


_VALIDATION_SECONDS = 2.0


def iid_vector(name: str, dim: Any, *, mean: Any = 0, variance: Any, moments: dict | None = None,
               central_moments: dict | None = None) -> RandomVector:
    """A random vector of length ``dim`` with i.i.d. entries of the given mean and variance.

    Parameters
    ==========
    name : printed name of the vector (``q[i]``)
    dim : a positive integer, or a SymPy symbol declared ``integer=True, positive=True``
    mean, variance : the entries' mean and variance (numbers or SymPy expressions)
    moments : optional ``{order: raw moment E[x^order]}`` for orders >= 3
    central_moments : optional ``{order: E[(x - mean)^order]}`` for orders >= 3

    Moments given neither way are fresh symbols ``mu_r^name`` (central moments).

    Examples
    ========
    >>> import sympy as sp
    >>> d = sp.Symbol("d", integer=True, positive=True); s = sp.Symbol("s", positive=True)
    >>> q = iid_vector("q", d, variance=s**2)
    >>> from symattn.kernel.objects.moments import Var, dot
    >>> Var(dot(q, q))   # sum of d i.i.d. squares, each of variance mu_4 - s^4
    d*(mu_4^q - s**4)
    >>> r = iid_vector("r", d, variance=1, moments={4: 1})   # Rademacher: r_i^2 = 1
    >>> Var(dot(r, r))
    0
    """
    return _make(name, dim, mean, variance, _moment_table(moments, "moments"),
                 _moment_table(central_moments, "central_moments"))


def gaussian_vector(name: str, dim: Any, sigma: Any, mean: Any = 0) -> RandomVector:
    """A random vector with i.i.d. ``Normal(mean, sigma^2)`` entries (all moments known).

    Central moments are ``0`` for odd orders and ``(r-1)!! sigma^r`` for even orders ``r``.

    Examples
    ========
    >>> import sympy as sp
    >>> d = sp.Symbol("d", integer=True, positive=True); s = sp.Symbol("s", positive=True)
    >>> q = gaussian_vector("q", d, s)
    >>> from symattn.kernel.objects.moments import E, Var, dot
    >>> Var(dot(q, q))   # chi-square: Var(||q||^2) = 2 d s^4
    2*d*s**4
    >>> E(dot(q, q)**2)
    d*s**4*(d + 2)
    """
    s = _value(sigma, "sigma")
    if s.is_nonpositive or s.is_real is False:
        raise ValueError(f"sigma must be a positive real number, got {sigma!r}")
    # Isserlis: centred Gaussian moments of all orders, computed on demand
    return _make(name, dim, mean, s**2, {}, _GaussianMoments(s))


def correlated_vectors(name_q: str, name_k: str, dim: Any, *, variance: Any, covariance: Any,
                       gaussian: bool = False, mixed_moments: dict | None = None) -> tuple:
    """Two random vectors whose pairs ``(q_i, k_i)`` are correlated: mean 0, variance ``variance``,
    ``Cov(q_i, k_i) = covariance``, pairs independent across ``i`` (and of every other vector).

    ``gaussian=True`` makes each pair bivariate normal (all mixed moments by Isserlis); otherwise
    ``mixed_moments`` ``{(a, b): E[q_i^a k_i^b]}`` gives the ones known and the others are fresh
    symbols ``mu_ab^qk`` (marginal moments of order >= 3 too, as in :func:`iid_vector`).
    :func:`E`, :func:`Var` and :func:`Cov` work on them as on independent vectors.

    Examples
    ========
    Aligned queries and keys (covariance ``rho sigma^2``): the logit grows like ``d``, not ``sqrt(d)``:

    >>> import sympy as sp
    >>> d = sp.Symbol("d", integer=True, positive=True)
    >>> s, r = sp.symbols("sigma rho", positive=True)
    >>> q, k = correlated_vectors("q", "k", d, variance=s**2, covariance=r * s**2, gaussian=True)
    >>> from symattn.kernel.objects.moments import E, Var, dot
    >>> E(dot(q, k))
    d*rho*sigma**2
    >>> sp.factor(Var(dot(q, k)))
    d*sigma**4*(rho**2 + 1)
    >>> q2, k2 = correlated_vectors("q", "k", d, variance=1, covariance=r)   # any law
    >>> Var(dot(q2, k2))
    d*(mu_22^qk - rho**2)
    >>> correlated_vectors("q", "k", d, variance=1, covariance=2)
    Traceback (most recent call last):
      ...
    ValueError: |covariance| <= variance is needed (Cauchy-Schwarz), got covariance 2, variance 1
    """
    var = _value(variance, "variance")
    cov = _value(covariance, "covariance")
    if not isinstance(gaussian, bool):
        raise TypeError(f"gaussian must be True or False, got {gaussian!r}")
    gap = sp.simplify(var - abs(cov)) if cov.is_number and var.is_number else None
    if gap is not None and gap.is_negative:
        raise ValueError(f"|covariance| <= variance is needed (Cauchy-Schwarz), got covariance {cov}, variance {var}")
    mixed = {}
    for key, value in (mixed_moments or {}).items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise TypeError(f"mixed_moments keys must be (a, b) orders, got {key!r}")
        mixed[(_order(key[0]), _order(key[1]))] = _value(value, f"mixed_moments[{key}]")
    if gaussian:
        q = gaussian_vector(name_q, dim, sp.sqrt(var))
        k = gaussian_vector(name_k, dim, sp.sqrt(var))
    else:
        q = iid_vector(name_q, dim, variance=var)
        k = iid_vector(name_k, dim, variance=var)
    _refuse_impossible(f"correlated_vectors {name_q!r}, {name_k!r}", [
        q.family(f"{name_q}_iid"), k.family(f"{name_k}_iid"),
        CorrelatedPairs(f"{name_q}{name_k}_pairs", q=q.base, k=k.base, dim=q.dim, covariance=cov,
                        mixed=tuple(sorted(mixed.items())))])
    pair = CorrelatedPair(q, k, var, cov, gaussian, mixed)
    object.__setattr__(q, "pair", pair)
    object.__setattr__(k, "pair", pair)
    return q, k
