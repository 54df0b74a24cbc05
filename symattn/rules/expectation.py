r"""Expectation, variance and covariance as unevaluated objects, and the rules that move them.

The objects: :class:`Expectation` (:math:`\mathbb{E}[X]`), :class:`Variance`
(:math:`\operatorname{Var}(X)`), :class:`Covariance` (:math:`\operatorname{Cov}(X, Y)`) and
:class:`StandardDeviation` (:math:`\operatorname{sd}(X)`).

The random variables are the entries ``base[i]`` of the families a theorem declares with
:class:`~symattn.language.statement.RandomFamily` hypotheses (``i`` in ``1..dim``, mutually independent,
identically distributed with the stated mean and variance); an
:class:`~symattn.language.statement.Independent` hypothesis makes the listed families mutually independent.
Everything else is a constant. Then the entries of all families listed together in one
``Independent`` hypothesis are jointly mutually independent, and functions of *disjoint* sets of
them are independent. The rules use exactly that, and nothing more:

* ``linearity_of_expectation``  -- E[a X + b Y + c] = a E[X] + b E[Y] + c and
  E[sum_i f(i)] = sum_i E[f(i)] (finite sums, a, b, c constants);
* ``independence``  -- E[X Y] = E[X] E[Y] when X and Y are functions of disjoint sets of entries
  of jointly independent families (``q[i]`` and ``q[j]`` are disjoint only if ``i != j`` is known);
* ``variance_of_independent_sum``  -- Var(sum_{i=lo}^{hi} f(i)) = sum_i Var(f(i)) when every
  random entry in f(i) is ``base[i]`` for families that are jointly independent, and lo..hi lies in
  1..dim;
* ``variance_of_independent_product``  -- Var(X Y) = (Var X + E[X]^2)(Var Y + E[Y]^2) - E[X]^2 E[Y]^2
  for independent X, Y (and the same for more mutually independent factors);
* ``variance_definition``  -- Var X = E[X^2] - E[X]^2;  ``covariance_definition`` --
  Cov(X, Y) = E[XY] - E[X]E[Y];  ``std_definition`` -- sd(X) = sqrt(Var X);
* ``variance_scaling``  -- Var(c X) = c^2 Var X for a real constant c;
* ``moment``  -- E[q_i] = mean, Var(q_i) = variance, E[q_i^2] = variance + mean^2 and the raw
  moments a family declares, for entries whose index is known to lie in 1..dim.

Each rule is an untrusted proposer: it rewrites both sides of a step towards a normal form by
instances of the kernel's axiom schemas of the same names (:mod:`symattn.kernel.schemas.probability`,
which build each instance and discharge its side conditions), and hands the kernel's theorem
``lhs = rhs`` obtained by chaining them with the zero test between the two normal forms. Where a
schema's conditions fail, the moment is left alone, so an invalid step fails with the condition that
was missing. The kernel also refuses to work under inconsistent probability hypotheses (a
correlation above 1, a fourth moment below the square of the second, ...). All moments used are
assumed finite.

The moment objects themselves are data defined in :mod:`symattn.kernel.objects.moments` (re-exported here).

>>> import sympy as sp
>>> q = sp.IndexedBase("q", real=True); i = sp.Symbol("i", integer=True)
>>> print(latex(Variance(q[i]) + Expectation(q[i]**2)))
\mathbb{E}\left[{q}_{i}^{2}\right] + \operatorname{Var}\left({q}_{i}\right)

References
----------
Any probability text, e.g. Grimmett & Stirzaker, *Probability and Random Processes*, 3rd ed.,
sections 3.3 (expectation), 3.6 (variance of sums of independent variables).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.objects.moments import Covariance, Expectation, StandardDeviation, Variance
from symattn.kernel.objects.moments import _Moment as _Moment  # noqa: F401 -- re-exported for older callers
from symattn.kernel.schemas.probability import (
    NotApplicable,
    _nodes,  # the moment objects, outermost first, each once
    setting,
)
from symattn.kernel.thm import by_zero, refl, sym, trans
from symattn.rules import RuleError, _require_equality, failed, proved, rule

__all__ = [
    "Expectation",
    "Variance",
    "Covariance",
    "StandardDeviation",
    "latex",
]


def latex(expr) -> str:
    """LaTeX through symattn's printer (re-exported here for the doctest)."""
    from symattn.language.printing import latex as _latex

    return _latex(expr)


def _show(x: Any, limit: int = 240) -> str:
    s = sp.sstr(x)
    return s if len(s) <= limit else s[:limit] + " ..."


def _normalize(expr: Any, schemas: tuple, skip, reasons: list, rounds: int = 24):
    """``(thm, normal form)``: ``thm`` states ``expr = normal form``, each rewrite an instance of one of the
    ``schemas`` at a moment of the current term (the kernel decides whether it applies)."""
    thm = refl(expr)
    cur = thm.rhs
    for _ in range(rounds):
        step = None
        for node in _nodes(cur):
            if skip is not None and skip(node):
                continue
            for name in schemas:
                for params in _proposals(name, node):
                    try:
                        step = axiom(name, expr=cur, node=node, **params)
                    except NotApplicable:
                        continue
                    except RuleError as exc:  # a side condition the kernel did not show
                        reasons.append(str(exc))
                        continue
                    break
                if step is not None:
                    break
            if step is not None:
                break
        if step is None:
            break
        thm = trans(thm, step)
        cur = thm.rhs
    return thm, cur


def _proposals(name: str, node) -> list:
    """The parameters to try for schema ``name`` at ``node``: for the independence schemas, the kernel's own
    grouping first, then every random factor on its own (entries shown distinct only in context, such as
    ``q_i, q_j`` under ``sum_{j=i+1}^{d}``)."""
    if name not in ("independence", "variance_of_independent_product"):
        return [{}]
    st = setting()
    factors = [f for f in sp.Mul.make_args(node.args[0]) if st.random_in(f)]
    return [{}, {"groups": tuple(factors)}] if len(factors) >= 2 else [{}]


def _prove(lhs, rhs, relation, ctx, schemas: tuple, what: str, skip=None):
    """The step ``lhs = rhs``: both sides rewritten by the schemas, then the zero test between them."""
    _require_equality(relation, what)
    setting(ctx.hypotheses)  # inconsistent probability hypotheses: refused, with the reason
    reasons: list = []
    tl, nl = _normalize(lhs, schemas, skip, reasons)
    tr, nr = _normalize(rhs, schemas, skip, reasons)
    why = "; ".join(dict.fromkeys(reasons))
    if tl.lhs == tl.rhs and tr.lhs == tr.rhs:
        return failed(f"{what} applies nowhere in either side" + (f": {why}" if why else
                      " (there is nothing to rewrite)"))
    try:
        middle = by_zero(nl, nr)
    except RuleError:
        extra = f" (not rewritten: {why})" if why else ""
        return failed(f"after applying {what} the sides differ: {_show(nl)} vs {_show(nr)}{extra}")
    return proved(trans(tl, middle, sym(tr)), f"both sides agree after applying {what}")


def _has_constant_factor(node) -> bool:
    """A variance with a constant factor is variance_scaling's business (the search skips it)."""
    if not isinstance(node, Variance):
        return False
    st = setting()
    return any(not st.random_in(f) for f in sp.Mul.make_args(node.args[0]))


@rule(
    "linearity_of_expectation",
    "E[aX + bY + c] = aE[X] + bE[Y] + c for constants a, b, c; E[sum_i f(i)] = sum_i E[f(i)] (finite sums)",
)
def check_linearity_of_expectation(lhs, rhs, relation, ctx):
    return _prove(lhs, rhs, relation, ctx, ("linearity_of_expectation",), "linearity of expectation")


@rule(
    "independence",
    "E[XY] = E[X]E[Y] when X, Y are functions of disjoint sets of entries of jointly independent families",
)
def check_independence(lhs, rhs, relation, ctx):
    return _prove(lhs, rhs, relation, ctx, ("independence",), "independence")


@rule(
    "variance_of_independent_sum",
    "Var(sum_i f(i)) = sum_i Var(f(i)) when f(i) depends only on the entries indexed by i of jointly "
    "independent families, and i runs inside 1..dim",
)
def check_variance_of_independent_sum(lhs, rhs, relation, ctx):
    return _prove(lhs, rhs, relation, ctx, ("variance_of_independent_sum",), "the variance of an independent sum")


@rule(
    "variance_of_independent_product",
    "Var(XY) = (Var X + E[X]^2)(Var Y + E[Y]^2) - E[X]^2 E[Y]^2 for independent X, Y",
)
def check_variance_of_independent_product(lhs, rhs, relation, ctx):
    return _prove(lhs, rhs, relation, ctx, ("variance_of_independent_product", "independence"),
                  "the variance of an independent product", skip=_has_constant_factor)


@rule("variance_definition", "Var X = E[X^2] - E[X]^2")
def check_variance_definition(lhs, rhs, relation, ctx):
    return _prove(lhs, rhs, relation, ctx, ("variance_definition",), "the definition of variance")


@rule("covariance_definition", "Cov(X, Y) = E[XY] - E[X]E[Y]")
def check_covariance_definition(lhs, rhs, relation, ctx):
    return _prove(lhs, rhs, relation, ctx, ("covariance_definition",), "the definition of covariance")


@rule("std_definition", "sd(X) = sqrt(Var X)")
def check_std_definition(lhs, rhs, relation, ctx):
    return _prove(lhs, rhs, relation, ctx, ("std_definition",), "the definition of the standard deviation")


@rule("variance_scaling", "Var(cX) = c^2 Var X for a real constant c")
def check_variance_scaling(lhs, rhs, relation, ctx):
    return _prove(lhs, rhs, relation, ctx, ("variance_scaling",), "variance scaling")


@rule(
    "moment",
    "E[q_i] = mean, Var(q_i) = variance, E[q_i^2] = variance + mean^2, E[q_i^r] = the declared raw moment, "
    "for entries of a RandomFamily whose index lies in 1..dim",
)
def check_moment(lhs, rhs, relation, ctx):
    return _prove(lhs, rhs, relation, ctx, ("moment",), "the moments of the families")
