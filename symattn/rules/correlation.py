r"""Correlated pairs of random entries: ``pair_moment`` and ``variance_of_pair_sum``.

A :class:`CorrelatedPairs` hypothesis says that the entries ``q_i`` and ``k_i`` of two families
(each also declared by a :class:`~symattn.statement.RandomFamily`, for its own moments) are
dependent *at the same index*, with ``Cov(q_i, k_i) = covariance`` and the mixed moments
``E[q_i^a k_i^b]`` it lists, while the pairs ``(q_i, k_i)`` for different ``i`` are independent.
(The families are *not* independent of each other, so the rules of :mod:`.expectation` that need
an :class:`~symattn.statement.Independent` hypothesis do not apply to them, rightly.)

* ``pair_moment``  -- ``E[q_i k_i] = covariance`` (the families have mean 0) and
  ``E[q_i^a k_i^b] =`` the declared mixed moment, for ``i`` in ``1..dim``.
* ``variance_of_pair_sum``  -- ``Var(sum_{i=lo}^{hi} f(i)) = sum_i Var(f(i))`` when every random
  entry in ``f(i)`` is ``q_i`` or ``k_i`` (so the terms are independent) and ``lo..hi`` lies in ``1..dim``.

>>> import sympy as sp
>>> q, k = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
>>> d = sp.Symbol("d", integer=True, positive=True); r = sp.Symbol("rho")
>>> CorrelatedPairs("pairs", q=q, k=k, dim=d, covariance=r).describe()
'(q_i, k_i) for i in 1..d: Cov = rho, independent across i'
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from symattn.rules import RuleError, rule
from symattn.rules.expectation import Expectation, Variance, _bound_inside, _check, _runs_inside, _variance_of_one_sum
from symattn.statement import Hypothesis

__all__ = ["CorrelatedPairs"]


@dataclass(frozen=True)
class CorrelatedPairs(Hypothesis):
    """Pairs ``(q_i, k_i)``, ``i = 1..dim``: ``Cov(q_i, k_i) = covariance``, the mixed moments
    ``E[q_i^a k_i^b]`` listed in ``mixed`` (``((a, b), value)``), independent across ``i``."""

    q: sp.IndexedBase = None  # type: ignore[assignment]
    k: sp.IndexedBase = None  # type: ignore[assignment]
    dim: sp.Expr = None  # type: ignore[assignment]
    covariance: sp.Expr = None  # type: ignore[assignment]
    mixed: tuple = ()

    def describe(self) -> str:
        extra = "".join(f", E[{self.q}^{a} {self.k}^{b}] = {sp.sstr(v)}" for (a, b), v in self.mixed)
        return (f"({self.q}_i, {self.k}_i) for i in 1..{self.dim}: Cov = {sp.sstr(self.covariance)}{extra}, "
                "independent across i")

    def latex(self) -> str:
        from symattn.printing import latex

        q, k = latex(self.q), latex(self.k)
        extra = "".join(rf",\ \mathbb{{E}}[{q}_i^{{{a}}} {k}_i^{{{b}}}] = {latex(v)}" for (a, b), v in self.mixed)
        return (rf"({q}_i, {k}_i)_{{i=1}}^{{{latex(self.dim)}}} \text{{ independent across }} i,\ "
                rf"\operatorname{{Cov}}({q}_i, {k}_i) = {latex(self.covariance)}{extra}")

    def moment(self, a: int, b: int):
        if (a, b) == (1, 1):
            return self.covariance
        for (key, value) in self.mixed:
            if tuple(key) == (a, b):
                return value
        return None


def _pairs(ctx) -> list:
    return [h for h in ctx.hypotheses if isinstance(h, CorrelatedPairs)]


def _in_dim(idx, bound, dim, setting) -> bool:
    from symattn.rules.sums import _provably_le, index_in_range

    for b, (lo, hi) in bound.items():
        if idx == b:
            return _provably_le(1, lo) and _provably_le(hi, dim) and _provably_le(lo - 1, hi)
    if idx.free_symbols & set(bound):
        return False
    return index_in_range(idx, sp.S.One, dim, setting.hypotheses)


def _pair_moment_fn(pairs):
    def fn(node, bound, setting):
        if not isinstance(node, Expectation):
            return node
        x = node.args[0]
        for h in pairs:
            powers = {h.q: 0, h.k: 0}
            index = None
            ok = True
            for f in sp.Mul.make_args(x):
                base, p = (f.base, f.exp) if isinstance(f, sp.Pow) else (f, sp.S.One)
                if not (isinstance(base, sp.Indexed) and base.base in powers and p.is_Integer and p > 0):
                    ok = False
                    break
                (idx,) = base.indices
                if index is not None and sp.simplify(idx - index) != 0:
                    ok = False
                    break
                index = idx
                powers[base.base] += int(p)
            if not ok or index is None or powers[h.q] == 0 or powers[h.k] == 0:
                continue
            if not _in_dim(index, bound, h.dim, setting):
                continue
            value = h.moment(powers[h.q], powers[h.k])
            if value is not None:
                return value
        return node

    return fn


@rule("pair_moment", "E[q_i k_i] = Cov and E[q_i^a k_i^b] = the declared mixed moment of a CorrelatedPairs hypothesis")
def check_pair_moment(lhs, rhs, relation, ctx):
    pairs = _pairs(ctx)
    if not pairs:
        raise RuleError("no CorrelatedPairs hypothesis")
    return _check(lhs, rhs, relation, ctx, _pair_moment_fn(pairs), "the moments of the correlated pairs")


def _pair_sum_fn(pairs):
    def fn(node, bound, setting):
        parts = _variance_of_one_sum(node)
        if parts is None:
            return node
        i, lo, hi, f = parts
        if i in _bound_inside(f):
            return node
        entries = [e for e in f.atoms(sp.Indexed)]
        for h in pairs:
            if not entries or any(e.base not in (h.q, h.k) or e.indices != (i,) for e in entries):
                continue
            if _runs_inside(lo, hi, h.dim):
                return sp.Sum(Variance(f), (i, lo, hi))
        return node

    return fn


@rule(
    "variance_of_pair_sum",
    "Var(sum_i f(i)) = sum_i Var(f(i)) when f(i) involves only q_i, k_i of a CorrelatedPairs hypothesis "
    "(independent across i) and i runs inside 1..dim",
)
def check_variance_of_pair_sum(lhs, rhs, relation, ctx):
    pairs = _pairs(ctx)
    if not pairs:
        raise RuleError("no CorrelatedPairs hypothesis")
    return _check(lhs, rhs, relation, ctx, _pair_sum_fn(pairs), "the variance of a sum of independent pairs")

