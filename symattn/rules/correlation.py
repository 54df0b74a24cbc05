r"""Correlated pairs of random entries: ``pair_moment`` and ``variance_of_pair_sum``.

A :class:`CorrelatedPairs` hypothesis says that the entries ``q_i`` and ``k_i`` of two families
(each also declared by a :class:`~symattn.language.statement.RandomFamily`, for its own moments) are
dependent *at the same index*, with ``Cov(q_i, k_i) = covariance`` and the mixed moments
``E[q_i^a k_i^b]`` it lists, while the pairs ``(q_i, k_i)`` for different ``i`` are independent.
(The families are *not* independent of each other, so the rules of :mod:`.expectation` that need
an :class:`~symattn.language.statement.Independent` hypothesis do not apply to them, rightly.)

* ``pair_moment``  -- ``E[q_i k_i] = covariance + E[q_i] E[k_i]`` (so the covariance alone when the
  declared means are 0, which the kernel's zero test decides) and ``E[q_i^a k_i^b] =`` the declared
  mixed moment, for an integer ``i`` in ``1..dim``.
* ``variance_of_pair_sum``  -- ``Var(sum_{i=lo}^{hi} f(i)) = sum_i Var(f(i))`` when every random
  entry in ``f(i)`` is ``q_i`` or ``k_i`` (so the terms are independent) and ``lo..hi`` lies in ``1..dim``.

Both are proposers of the kernel's schemas of the same names
(:mod:`symattn.kernel.schemas.probability`); the hypothesis class lives in :mod:`symattn.language.statement`.

>>> import sympy as sp
>>> q, k = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
>>> d = sp.Symbol("d", integer=True, positive=True); r = sp.Symbol("rho")
>>> CorrelatedPairs("pairs", q=q, k=k, dim=d, covariance=r).describe()
'(q_i, k_i) for i in 1..d: Cov = rho, independent across i'
"""

from __future__ import annotations

from symattn.language.statement import CorrelatedPairs
from symattn.rules import RuleError, rule
from symattn.rules.expectation import _prove

__all__ = ["CorrelatedPairs"]


def _require_pairs(ctx) -> None:
    if not any(isinstance(h, CorrelatedPairs) for h in ctx.hypotheses):
        raise RuleError("no CorrelatedPairs hypothesis")


@rule("pair_moment", "E[q_i k_i] = Cov + E[q_i]E[k_i] and E[q_i^a k_i^b] = the declared mixed moment of a "
      "CorrelatedPairs hypothesis")
def check_pair_moment(lhs, rhs, relation, ctx):
    _require_pairs(ctx)
    return _prove(lhs, rhs, relation, ctx, ("pair_moment",), "the moments of the correlated pairs")


@rule(
    "variance_of_pair_sum",
    "Var(sum_i f(i)) = sum_i Var(f(i)) when f(i) involves only q_i, k_i of a CorrelatedPairs hypothesis "
    "(independent across i) and i runs inside 1..dim",
)
def check_variance_of_pair_sum(lhs, rhs, relation, ctx):
    _require_pairs(ctx)
    return _prove(lhs, rhs, relation, ctx, ("variance_of_pair_sum",), "the variance of a sum of independent pairs")
