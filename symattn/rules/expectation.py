r"""Expectation, variance and covariance as unevaluated objects, and the rules that move them.

The objects: :class:`Expectation` (:math:`\mathbb{E}[X]`), :class:`Variance`
(:math:`\operatorname{Var}(X)`), :class:`Covariance` (:math:`\operatorname{Cov}(X, Y)`) and
:class:`StandardDeviation` (:math:`\operatorname{sd}(X)`).

The random variables are the entries ``base[i]`` of the families a theorem declares with
:class:`~symattn.statement.RandomFamily` hypotheses (``i`` in ``1..dim``, mutually independent,
identically distributed with the stated mean and variance); an
:class:`~symattn.statement.Independent` hypothesis makes the listed families mutually independent.
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

Each rule rewrites both sides of a step to its normal form (every valid application of the rule,
everywhere, repeated) and passes only when the two normal forms are equal by exact algebra. A
rewrite is made only when its side conditions are verified; where they are not, the expression
is left alone, so an invalid step fails with the condition that was missing. All moments used
are assumed finite.

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

import itertools
from collections.abc import Callable
from typing import Any

import sympy as sp

from symattn.rules import RuleError, _require_equality, _rewrite_to_fixpoint, failed, passed, rule
from symattn.rules.algebra import equal
from symattn.statement import Assumption, Independent, RandomFamily

__all__ = [
    "Expectation",
    "Variance",
    "Covariance",
    "StandardDeviation",
    "RandomSetting",
    "latex",
]


def latex(expr) -> str:
    """LaTeX through symattn's printer (re-exported here for the doctest)."""
    from symattn.printing import latex as _latex

    return _latex(expr)


# ----------------------------------------------------------------------------------- objects
class _Moment(sp.Expr):
    """Base of the unevaluated moment objects: arguments are SymPy expressions, never strings."""

    is_commutative = True
    nargs = 1

    def __new__(cls, *args):
        if len(args) != cls.nargs:
            raise TypeError(f"{cls.__name__} takes {cls.nargs} argument(s), got {len(args)}")
        out = []
        for a in args:
            if isinstance(a, str) or isinstance(a, bool):
                raise TypeError(f"{cls.__name__}: argument must be a SymPy expression, got {a!r}")
            if isinstance(a, (int, float)):
                a = sp.sympify(a, strict=True)
            if not isinstance(a, sp.Expr):
                raise TypeError(f"{cls.__name__}: argument must be a SymPy expression, got {type(a).__name__}")
            out.append(a)
        return sp.Expr.__new__(cls, *out)

    def _eval_is_real(self):
        return True if all(a.is_real for a in self.args) else None

    def _closed_form(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def doit(self, **hints):
        """The closed form from :mod:`symattn.moments` when the argument is built from its random
        vectors; otherwise the object itself (with its argument evaluated)."""
        args = [a.doit(**hints) if hints.get("deep", True) else a for a in self.args]
        obj = self.func(*args)
        from symattn.moments import random_vector_of

        if any(random_vector_of(x) is not None for a in args for x in a.atoms(sp.Indexed)):
            return obj._closed_form()
        return obj


class Expectation(_Moment):
    r"""The expectation :math:`\mathbb{E}[X]`, unevaluated.

    >>> import sympy as sp
    >>> from symattn.moments import iid_vector
    >>> q = iid_vector("q", 3, mean=2, variance=1)
    >>> Expectation(q[1]**2).doit()   # Var + mean^2
    5
    """

    def _closed_form(self):
        from symattn.moments import E

        return E(self.args[0])

    def _latex(self, printer):
        return r"\mathbb{E}\left[%s\right]" % printer._print(self.args[0])


class Variance(_Moment):
    r"""The variance :math:`\operatorname{Var}(X) = \mathbb{E}[X^2] - \mathbb{E}[X]^2`, unevaluated.

    >>> import sympy as sp
    >>> from symattn.moments import gaussian_vector, dot
    >>> d = sp.Symbol("d", integer=True, positive=True); s = sp.Symbol("s", positive=True)
    >>> Variance(dot(gaussian_vector("q", d, s), gaussian_vector("k", d, s))).doit()
    d*s**4
    """

    def _eval_is_nonnegative(self):
        return True if self.args[0].is_real else None

    def _closed_form(self):
        from symattn.moments import Var

        return Var(self.args[0])

    def _latex(self, printer):
        return r"\operatorname{Var}\left(%s\right)" % printer._print(self.args[0])


class StandardDeviation(_Moment):
    r"""The standard deviation :math:`\operatorname{sd}(X) = \sqrt{\operatorname{Var}(X)}`, unevaluated.

    >>> import sympy as sp
    >>> from symattn.moments import iid_vector
    >>> StandardDeviation(3 * iid_vector("q", 2, variance=4)[1]).doit()
    6
    """

    def _eval_is_nonnegative(self):
        return True if self.args[0].is_real else None

    def _closed_form(self):
        from symattn.moments import Var

        return sp.sqrt(Var(self.args[0]))

    def _latex(self, printer):
        return r"\operatorname{sd}\left(%s\right)" % printer._print(self.args[0])


class Covariance(_Moment):
    r"""The covariance :math:`\operatorname{Cov}(X, Y) = \mathbb{E}[XY] - \mathbb{E}[X]\mathbb{E}[Y]`.

    >>> import sympy as sp
    >>> from symattn.moments import iid_vector
    >>> q = iid_vector("q", 2, mean=1, variance=1)
    >>> Covariance(q[1] + q[2], q[1]).doit()
    1
    """

    nargs = 2

    def _closed_form(self):
        from symattn.moments import Cov

        return Cov(*self.args)

    def _latex(self, printer):
        return r"\operatorname{Cov}\left(%s, %s\right)" % tuple(printer._print(a) for a in self.args)


_MOMENT_CLASSES = (Expectation, Variance, StandardDeviation, Covariance)


# ----------------------------------------------------------------------------------- the setting
class RandomSetting:
    """What the hypotheses say about randomness: the families, which families are jointly
    independent, and which free indices are known to differ (``Assumption(condition=Ne(i, j))``).

    ``bound`` arguments below map summation indices enclosing the expression to their limits.
    """

    def __init__(self, hypotheses=()):
        self.families: dict = {}
        names: dict = {}
        for h in hypotheses:
            if isinstance(h, RandomFamily):
                if h.base in self.families:
                    raise RuleError(f"two RandomFamily hypotheses for {h.base}")
                self.families[h.base] = h
                names[h.name] = h.base
        self.groups: list[set] = []
        for h in hypotheses:
            if isinstance(h, Independent):
                group = set()
                for f in h.families:
                    base = names.get(f) if isinstance(f, str) else (f.base if isinstance(f, RandomFamily) else f)
                    if base not in self.families:
                        raise RuleError(f"Independent hypothesis {h.name!r} names {f!r}, which is no RandomFamily")
                    group.add(base)
                self.groups.append(group)
        self.distinct: set = set()
        for h in hypotheses:
            if isinstance(h, Assumption) and isinstance(h.condition, sp.Ne):
                self.distinct.add(frozenset(h.condition.args))
        self.hypotheses = tuple(hypotheses)

    # -- entries ----------------------------------------------------------------------------
    def is_entry(self, x: Any) -> bool:
        return isinstance(x, sp.Indexed) and x.base in self.families

    def entries(self, expr: Any) -> list:
        if not isinstance(expr, sp.Basic):
            return []
        out = [x for x in expr.atoms(sp.Indexed) if x.base in self.families]
        for x in out:
            if len(x.indices) != 1:
                raise RuleError(f"entries of the family {x.base} take one index, got {x}")
        return out

    def is_random(self, expr: Any) -> bool:
        return bool(self.entries(expr))

    def in_range(self, entry: sp.Indexed, bound: dict) -> bool:
        """Whether the hypotheses place the entry's index in ``1..dim`` of its family."""
        from symattn.rules.sums import _provably_le, index_in_range

        (idx,) = entry.indices
        dim = self.families[entry.base].dim
        for b, (lo, hi) in bound.items():
            offset = sp.simplify(idx - b)
            if offset.is_Integer:  # idx = b + offset runs over lo+offset..hi+offset
                return (_provably_le(1, lo + offset) and _provably_le(hi + offset, dim)
                        and _provably_le(lo - 1, hi))
        if idx.free_symbols & set(bound):
            return False
        return index_in_range(idx, sp.S.One, dim, self.hypotheses)

    def all_in_range(self, expr: Any, bound: dict) -> bool:
        """Every family entry in ``expr`` (sums inside it included) is a declared entry."""
        if not isinstance(expr, sp.Basic):
            return True
        if isinstance(expr, sp.Sum):
            inner = dict(bound)
            for (i, lo, hi) in expr.limits:
                if i in inner:
                    return False  # a rebound name: refuse rather than guess which is meant
                inner[i] = (lo, hi)
            return self.all_in_range(expr.function, inner)
        if self.is_entry(expr):
            return self.in_range(expr, bound)
        return all(self.all_in_range(a, bound) for a in expr.args)

    def distinct_indices(self, a: Any, b: Any, bound: dict) -> bool:
        """``a != b`` is known: they differ by a non-zero integer constant, or a hypothesis says
        so (only for indices not bound by a sum)."""
        diff = sp.simplify(a - b)
        if diff.is_Integer:
            return diff != 0
        if a.is_Symbol and b.is_Symbol and a not in bound and b not in bound:
            return frozenset((a, b)) in self.distinct
        return False

    def jointly_independent(self, bases: set) -> bool:
        if len(bases) <= 1:
            return True
        return any(bases <= g for g in self.groups)

    def independent(self, x: Any, y: Any, bound: dict) -> bool:
        """Whether ``x`` and ``y`` are functions of disjoint sets of jointly independent entries.

        An entry whose index involves a variable bound inside ``x`` or ``y`` (a summation index
        of a sum in them) may be any entry of its family.
        """
        ex, ey = self.entries(x), self.entries(y)
        if not ex or not ey:
            return True  # a constant is independent of everything
        bases = {e.base for e in ex} | {e.base for e in ey}
        if not self.jointly_independent(bases):
            return False
        local = _bound_inside(x) | _bound_inside(y)
        for a in ex:
            for b in ey:
                if a.base != b.base:
                    continue
                (ia,), (ib,) = a.indices, b.indices
                if (ia.free_symbols | ib.free_symbols) & local:
                    return False
                if not self.distinct_indices(ia, ib, bound):
                    return False
        return True


def _bound_inside(expr: Any) -> set:
    out = set()
    if isinstance(expr, sp.Basic):
        for s in sorted(expr.atoms(sp.Sum), key=sp.default_sort_key):
            out |= {lim[0] for lim in s.limits}
    return out


# ----------------------------------------------------------------------------------- traversal
def _walk(expr: Any, fn: Callable[[Any, dict], Any], bound: dict) -> Any:
    """Rebuild ``expr`` bottom-up, calling ``fn(node, bound)`` on every moment object; ``bound``
    maps the summation indices enclosing the node to their limits."""
    if not isinstance(expr, sp.Basic) or expr.is_Atom:
        return expr
    if isinstance(expr, sp.Sum):
        inner = dict(bound)
        for (i, lo, hi) in expr.limits:
            inner[i] = (lo, hi)
        body = _walk(expr.function, fn, inner)
        return expr if body == expr.function else sp.Sum(body, *expr.limits)
    if isinstance(expr, (sp.Product, sp.Integral, sp.Lambda)):
        if any(isinstance(a, _MOMENT_CLASSES) for a in sp.preorder_traversal(expr)):
            raise RuleError(f"moments inside {type(expr).__name__} are not supported")
        return expr
    args = [_walk(a, fn, bound) for a in expr.args]
    node = expr if all(a is b for a, b in zip(args, expr.args)) else expr.func(*args)
    if isinstance(node, _MOMENT_CLASSES):
        return fn(node, bound)
    return node


def _normal_form(expr: Any, fn, setting: RandomSetting, bound: dict | None = None, rounds: int = 12) -> Any:
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: _normal_form(e, fn, setting, bound, rounds))

    def step(e):
        return _walk(e, lambda node, b: fn(node, b, setting), dict(bound or {}))

    return _rewrite_to_fixpoint(expr, step, rounds)


def _check(lhs, rhs, relation, ctx, fn, what: str):
    _require_equality(relation, what)
    setting = RandomSetting(ctx.hypotheses)
    nl = _normal_form(lhs, fn, setting)
    nr = _normal_form(rhs, fn, setting)
    if nl == lhs and nr == rhs:
        return failed(f"{what} applies nowhere in either side (its conditions are not met, or there is "
                      f"nothing to rewrite){_diagnose((lhs, rhs), setting)}")
    if equal(nl, nr):
        return passed(f"both sides agree after applying {what}")
    return failed(f"after applying {what} the sides differ: {_show(nl)} vs {_show(nr)}")


def _diagnose(exprs, setting: RandomSetting) -> str:
    """Hints for a failed step: undeclared families, families not declared jointly independent."""
    entries = [e for x in exprs for e in setting.entries(x)] if setting.families else []
    bases = {e.base for e in entries}
    hints = []
    if not setting.families:
        hints.append("no RandomFamily hypothesis declares any random entries")
    if len(bases) > 1 and not setting.jointly_independent(bases):
        hints.append(f"families {sorted(map(str, bases))} are not declared jointly independent")
    return "; " + "; ".join(hints) if hints else ""


def _show(x: Any, limit: int = 240) -> str:
    s = sp.sstr(x)
    return s if len(s) <= limit else s[:limit] + " ..."


def _split_constant(expr: Any, setting: RandomSetting) -> tuple[Any, Any]:
    """``expr = c * X`` with ``c`` free of random entries."""
    entries = setting.entries(expr)
    if not entries:
        return expr, sp.S.One
    if isinstance(expr, sp.Mul):
        const = [a for a in expr.args if not setting.is_random(a)]
        rand = [a for a in expr.args if setting.is_random(a)]
        return sp.Mul(*const), sp.Mul(*rand)
    return sp.S.One, expr


# ----------------------------------------------------------------------------------- linearity
def _linearity(node, bound, setting):
    if not isinstance(node, Expectation):
        return node
    (x,) = node.args
    if not setting.is_random(x):
        return x  # E[c] = c
    if isinstance(x, sp.Sum):  # finite sum: E commutes with it
        for (_i, lo, hi) in x.limits:
            if setting.is_random(lo) or setting.is_random(hi):
                raise RuleError(f"random summation bounds in {x}")
        return sp.Sum(Expectation(x.function), *x.limits)
    expanded = sp.expand(x, deep=False)
    if isinstance(expanded, sp.Add):
        return sp.Add(*[Expectation(t) for t in expanded.args])
    const, rand = _split_constant(expanded, setting)
    if const != 1:
        return const * Expectation(rand)
    return node


@rule(
    "linearity_of_expectation",
    "E[aX + bY + c] = aE[X] + bE[Y] + c for constants a, b, c; E[sum_i f(i)] = sum_i E[f(i)] (finite sums)",
)
def check_linearity_of_expectation(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, ctx, _linearity, "linearity of expectation")


# ----------------------------------------------------------------------------------- independence
def _components(factors: list, setting: RandomSetting, bound: dict) -> list[list]:
    """Group factors so that factors in different groups are provably independent."""
    n = len(factors)
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in itertools.combinations(range(n), 2):
        if not setting.independent(factors[a], factors[b], bound):
            parent[find(a)] = find(b)
    groups: dict = {}
    for a in range(n):
        groups.setdefault(find(a), []).append(factors[a])
    return list(groups.values())


def _independent_factors(x, setting: RandomSetting, bound: dict):
    """The product ``x`` as mutually independent random factors, or None if it does not split."""
    const, rand = _split_constant(x, setting)
    if not isinstance(rand, sp.Mul):
        return None
    factors = list(rand.args)
    bases = {e.base for e in setting.entries(rand)}
    if not setting.jointly_independent(bases) or not setting.all_in_range(rand, bound):
        return None  # undeclared entries (index outside 1..dim) are not known to be independent
    groups = _components(factors, setting, bound)
    if len(groups) < 2:
        return None
    return const, [sp.Mul(*g) for g in groups]


def _independence(node, bound, setting):
    if not isinstance(node, Expectation):
        return node
    split = _independent_factors(node.args[0], setting, bound)
    if split is None:
        return node
    const, parts = split
    return sp.Mul(*[Expectation(const * parts[0])] + [Expectation(p) for p in parts[1:]])


@rule(
    "independence",
    "E[XY] = E[X]E[Y] when X, Y are functions of disjoint sets of entries of jointly independent families",
)
def check_independence(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, ctx, _independence, "independence")


# ----------------------------------------------------------------------------------- variances
def _variance_of_one_sum(node: Any) -> tuple | None:
    """``(i, lo, hi, f)`` when ``node`` is ``Var(sum_{i=lo}^{hi} f)`` over a single index, else ``None``."""
    if not isinstance(node, Variance):
        return None
    (x,) = node.args
    if not isinstance(x, sp.Sum) or len(x.limits) != 1:
        return None
    (i, lo, hi) = x.limits[0]
    return i, lo, hi, x.function


def _runs_inside(lo, hi, dim) -> bool:
    """The range ``lo..hi`` is provably not reversed and inside ``1..dim``."""
    from symattn.rules.sums import _provably_le

    return _provably_le(1, lo) and _provably_le(hi, dim) and _provably_le(lo - 1, hi)


def _variance_of_sum(node, bound, setting):
    parts = _variance_of_one_sum(node)
    if parts is None:
        return node
    i, lo, hi, f = parts
    entries = setting.entries(f)
    if not entries:
        return node
    if i in _bound_inside(f):
        return node  # an inner sum rebinds i
    if any(e.indices[0] != i for e in entries):
        return node  # a term would share entries with the terms of other indices
    bases = {e.base for e in entries}
    if not setting.jointly_independent(bases):
        return node
    for b in bases:
        if not _runs_inside(lo, hi, setting.families[b].dim):
            return node  # i must run inside 1..dim
    return sp.Sum(Variance(f), (i, lo, hi))


@rule(
    "variance_of_independent_sum",
    "Var(sum_i f(i)) = sum_i Var(f(i)) when f(i) depends only on the entries indexed by i of jointly "
    "independent families, and i runs inside 1..dim",
)
def check_variance_of_independent_sum(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, ctx, _variance_of_sum, "the variance of an independent sum")


def _variance_of_product(node, bound, setting):
    if isinstance(node, Expectation):
        return _independence(node, bound, setting)
    if not isinstance(node, Variance):
        return node
    split = _independent_factors(node.args[0], setting, bound)
    if split is None:
        return node
    const, parts = split
    if const != 1:
        return node  # a constant factor is variance_scaling's business
    second = sp.Mul(*[Variance(p) + Expectation(p) ** 2 for p in parts])
    first = sp.Mul(*[Expectation(p) ** 2 for p in parts])
    return second - first


@rule(
    "variance_of_independent_product",
    "Var(XY) = (Var X + E[X]^2)(Var Y + E[Y]^2) - E[X]^2 E[Y]^2 for independent X, Y",
)
def check_variance_of_independent_product(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, ctx, _variance_of_product, "the variance of an independent product")


def _variance_definition(node, bound, setting):
    if isinstance(node, Variance):
        (x,) = node.args
        return Expectation(x**2) - Expectation(x) ** 2
    return node


@rule("variance_definition", "Var X = E[X^2] - E[X]^2")
def check_variance_definition(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, ctx, _variance_definition, "the definition of variance")


def _covariance_definition(node, bound, setting):
    if isinstance(node, Covariance):
        x, y = node.args
        return Expectation(x * y) - Expectation(x) * Expectation(y)
    return node


@rule("covariance_definition", "Cov(X, Y) = E[XY] - E[X]E[Y]")
def check_covariance_definition(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, ctx, _covariance_definition, "the definition of covariance")


def _std_definition(node, bound, setting):
    if isinstance(node, StandardDeviation):
        return sp.sqrt(Variance(node.args[0]))
    return node


@rule("std_definition", "sd(X) = sqrt(Var X)")
def check_std_definition(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, ctx, _std_definition, "the definition of the standard deviation")


def _variance_scaling(node, bound, setting):
    if not isinstance(node, Variance):
        return node
    const, rand = _split_constant(node.args[0], setting)
    if const == 1 or rand == 1:
        return node
    if const.is_real is not True:
        return node  # Var(cX) = c^2 Var X needs c real
    return const**2 * Variance(rand)


@rule("variance_scaling", "Var(cX) = c^2 Var X for a real constant c")
def check_variance_scaling(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, ctx, _variance_scaling, "variance scaling")


# ----------------------------------------------------------------------------------- moments
def _moment(node, bound, setting):
    if isinstance(node, Expectation):
        x = node.args[0]
        base, power = (x.base, x.exp) if isinstance(x, sp.Pow) else (x, sp.S.One)
        if not setting.is_entry(base) or not setting.in_range(base, bound):
            return node
        fam = setting.families[base.base]
        if power == 1:
            return fam.mean
        if power == 2:
            return fam.variance + fam.mean**2
        raw = dict(fam.moments or ())
        if power.is_Integer and int(power) in raw:
            return raw[int(power)]
        return node
    if isinstance(node, Variance):
        x = node.args[0]
        if setting.is_entry(x) and setting.in_range(x, bound):
            return setting.families[x.base].variance
        return node
    return node


@rule(
    "moment",
    "E[q_i] = mean, Var(q_i) = variance, E[q_i^2] = variance + mean^2, E[q_i^r] = the declared raw moment, "
    "for entries of a RandomFamily whose index lies in 1..dim",
)
def check_moment(lhs, rhs, relation, ctx):
    return _check(lhs, rhs, relation, ctx, _moment, "the moments of the families")
