r"""Axiom schemas of probability: expectation, variance, covariance, independence, declared moments.

The random variables are the entries ``base[i]`` of the families a theorem declares with
:class:`~symattn.language.statement.RandomFamily` hypotheses (``i`` an integer in ``1..dim``; the entries of one
family mutually independent, identically distributed, with the declared mean, variance and raw
moments). An :class:`~symattn.language.statement.Independent` hypothesis makes the listed families mutually
independent; a :class:`~symattn.language.statement.CorrelatedPairs` hypothesis says that the pairs
``(q_i, k_i)`` of two families are independent across ``i``, with the declared covariance and mixed
moments. Every other term is a constant. All moments used are assumed finite.

Every schema rewrites one moment object ``node`` (an :class:`~symattn.kernel.objects.moments.Expectation`,
:class:`~symattn.kernel.objects.moments.Variance`, :class:`~symattn.kernel.objects.moments.Covariance` or
:class:`~symattn.kernel.objects.moments.StandardDeviation`: data classes, whose methods the kernel never calls)
inside a term ``expr``: the instance is ``expr = expr[node := new]``, where the schema builds ``new``
from ``node`` alone and replaces only the occurrences at which its side conditions hold *in their
context*: inside ``sum_{v=lo}^{hi}`` the variable ``v`` ranges over ``lo..hi`` (only when ``lo`` is an
integer and the range is shown not reversed; under any other binder nothing is rewritten). An
occurrence whose conditions fail is left alone; when none is left to rewrite the schema refuses,
naming the condition.

The schemas (side conditions in brackets, each discharged by the kernel's tests: integrality, the
range test :func:`~symattn.kernel.sums.index_in_range`, the sign test, the zero test):

* ``linearity_of_expectation`` -- ``E[c] = c``, ``E[sum_i f(i)] = sum_i E[f(i)]``,
  ``E[X_1 + ... + X_n] = E[X_1] + ... + E[X_n]`` (after ``expand``), ``E[c X] = c E[X]`` [``c`` free of
  random entries; the bounds of the sum free of random entries];
* ``independence`` -- ``E[c X_1 ... X_n] = c E[X_1] ... E[X_n]`` [every entry is a declared entry
  (integer index in ``1..dim``); all families involved listed together in one ``Independent``
  hypothesis (or a single family); the groups ``X_a`` use disjoint entries: two entries of one family
  in different groups have indices shown distinct (by the sign test, or an ``Assumption`` ``Ne(i, j)``
  on free indices), and an index bound inside the product may be any entry];
* ``variance_of_independent_product`` -- ``Var(X_1 ... X_n) = prod (Var X_a + E[X_a]^2) - prod E[X_a]^2``
  [as for ``independence``];
* ``variance_of_independent_sum`` -- ``Var(sum_{i=lo}^{hi} f(i)) = sum_{i=lo}^{hi} Var(f(i))`` [one
  variable ``i``; ``lo`` an integer and ``lo - 1 <= hi``; every random entry of ``f(i)`` has index exactly
  ``i``; ``1 <= lo`` and ``hi <= dim`` for every family involved; the families jointly independent];
* ``variance_of_pair_sum`` -- the same sum rule when the entries of ``f(i)`` are ``q_i``, ``k_i`` of one
  ``CorrelatedPairs`` hypothesis (pairs independent across ``i``) [range inside ``1..dim`` of the pair];
* ``variance_definition`` ``Var X = E[X^2] - E[X]^2``; ``covariance_definition``
  ``Cov(X, Y) = E[XY] - E[X] E[Y]``; ``std_definition`` ``sd X = sqrt(Var X)``;
* ``variance_scaling`` -- ``Var(c X) = c^2 Var X`` [``c`` free of random entries and real];
* ``moment`` -- ``E[q_i] = mean``, ``Var(q_i) = variance``, ``E[q_i^2] = variance + mean^2``,
  ``E[q_i^r] =`` the declared raw moment of order ``r`` [``q_i`` a declared entry, ``r`` a positive integer];
* ``pair_moment`` -- ``E[q_i k_i] = covariance + mean_q mean_k`` and ``E[q_i^a k_i^b] =`` the declared mixed
  moment [``q_i``, ``k_i`` at the same index, a declared pair: integer index in ``1..dim``]. The
  covariance alone is ``E[q_i k_i]`` only when the means are 0: the zero test decides that, never a rule.

Consistency (:func:`problems`). Before any schema is instantiated, the probability hypotheses are
checked for consistency (cached per hypothesis set), and a schema refuses to work under inconsistent
ones; :func:`problems` is also what :class:`symattn.engine.checker.Checker` consults before it counts a model of
the hypotheses. Each inconsistency names the hypotheses:

* a family declared twice; a variance not shown ``>= 0``; ``dim`` not a positive integer;
* declared raw moments: order 1 or 2 different from ``mean`` / ``variance + mean^2``; an even moment
  shown ``< (variance + mean^2)^{r/2}`` (Jensen; a fourth moment of 0 with variance ``> 0``); Cauchy--Schwarz
  ``M_{a+b}^2 <= M_{2a} M_{2b}`` shown violated among the known moments; with variance 0, a moment
  shown different from ``mean^r``;
* ``Independent`` naming no declared family, or one family twice;
* ``CorrelatedPairs`` on undeclared families, on one family with itself, with a dimension not equal to
  the families', a correlation shown ``> 1`` (``cov^2 > var_q var_k``), a mixed moment contradicting the
  marginals, an even mixed moment shown negative, ``E[q^2 k^2] < E[qk]^2``; two pairs on the same families;
  families listed both in an ``Independent`` hypothesis and in a ``CorrelatedPairs`` one;
* an ``Equation`` hypothesis on moments whose sides, evaluated by these schemas (linearity, independence,
  declared moments), differ by a term shown nonzero (``E[q_1] = 1`` against a mean-0 family);
* an ``Assumption`` on moments false by the declared laws (``Var(q_1) > 2 sigma^2`` for variance ``sigma^2``);
  declared laws whose parameters are random entries; real entries with a mean or moment not real;
* two ``Equation`` hypotheses with the same left side (their ``forall`` variables renamed alike, with the
  same assumptions and ranges) whose right sides differ by a term shown nonzero, or one equation whose
  sides do (``L_t = t`` and ``L_t = t + 1``); a ``forall`` equation and an equation at one of its instances
  inside its domain (every declared assumption of the variable, its IndexRange) that disagree
  (``L_t = t`` for all ``t`` and ``L_1 = 2``). No contradiction is claimed for a ``forall`` variable an
  ``Assumption`` speaks of, or whose range may be empty.

A constraint the kernel can neither show nor refute (a correlation ``rho`` with no bound on it) is a
condition on the parameters, not a contradiction: :func:`constraints` lists them (``|Cov| <= sqrt(Var Var)``,
Jensen for declared even moments, moment equations and assumptions read by the declared laws:
``E[q_1] = 0`` with mean ``mu`` says ``mu = 0``), and :class:`symattn.engine.checker.Checker` adds them to the
hypotheses a model of the hypotheses must satisfy point by point (so ``rho > 1`` leaves no model).

Two more refusals of every schema: with no ``RandomFamily`` nothing is random, and an entry printed like
a family's whose ``IndexedBase`` differs (other assumptions) would pass for a constant.

What the schemas trust besides the kernel's tests: the moment classes of :mod:`symattn.kernel.objects.moments` as data
(``.args``; their ``doit`` does not evaluate them), and their SymPy assumption handlers: the expectation,
variance and covariance of real arguments are real, a variance and a standard deviation of a real
argument are nonnegative (all moments are assumed finite).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits

from symattn.kernel.axioms import schema
from symattn.kernel.objects.moments import Covariance, Expectation, StandardDeviation, Variance
from symattn.kernel.second import recorded_cache
from symattn.kernel.sign import nonzero, sign_of
from symattn.kernel.sums import _is_integer, _not_reversed, check_finite, index_in_range
from symattn.kernel.terms import KernelError, canonical, is_matrix
from symattn.kernel.zero import equal
from symattn.language.statement import (
    Assumption,
    CorrelatedPairs,
    Equation,
    Independent,
    IndexRange,
    RandomFamily,
)

__all__ = ["Setting", "setting", "problems", "constraints", "MOMENTS", "NotApplicable"]

MOMENTS = (Expectation, Variance, StandardDeviation, Covariance)


class NotApplicable(KernelError):
    """The moment is not of the schema's shape (as opposed to a side condition that fails)."""


def _show(x: Any, limit: int = 200) -> str:
    s = sp.sstr(x)
    return s if len(s) <= limit else s[:limit] + " ..."


def _hyps():
    from symattn.kernel.thm import _hypotheses

    return _hypotheses()


# ------------------------------------------------------------------------------------------ setting
@dataclass(frozen=True)
class Setting:
    """The probability hypotheses of a theorem, validated: ``families`` base -> RandomFamily; ``groups``
    (bases, hypothesis name) of each Independent hypothesis; ``pairs`` the CorrelatedPairs."""

    families: dict
    groups: tuple
    pairs: tuple
    hypotheses: tuple

    # -- tests on entries --------------------------------------------------------------------
    def random_entries(self, expr: Any) -> list:
        """The entries of declared families in ``expr`` (any index; sums inside included), outside the moment
        objects in it (an expectation, a variance is a number)."""
        out: set = set()

        def walk(e):
            if isinstance(e, sp.Indexed) and e.base in self.families:
                out.add(e)
            elif isinstance(e, sp.Basic) and e.args and not isinstance(e, MOMENTS):
                for a in e.args:
                    walk(a)

        walk(expr)
        return sorted(out, key=sp.default_sort_key)

    def random_in(self, expr: Any) -> bool:
        return bool(self.random_entries(expr))

    def ranges(self, env: dict) -> list:
        out = [(h.index, h.lower, h.upper) for h in self.hypotheses if isinstance(h, IndexRange)]
        return out + [(v, lo, hi) for v, (lo, hi) in env.items()]

    def integer(self, x: Any, env: dict) -> bool:
        return _is_integer(x, self.hypotheses, env)

    def undeclared(self, entry: sp.Indexed, env: dict, dim: Any = None) -> str | None:
        """Why ``entry`` is not a declared entry (an integer index in ``1..dim``), or None."""
        if len(entry.indices) != 1:
            return f"{_show(entry)}: entries of a family take one index"
        (idx,) = entry.indices
        dim = self.families[entry.base].dim if dim is None else dim
        if not self.integer(idx, env):
            return f"the index {_show(idx)} of {_show(entry)} is not shown to be an integer"
        if not index_in_range(idx, sp.S.One, dim, self.hypotheses, env):
            return f"the index {_show(idx)} of {_show(entry)} is not shown to lie in 1..{_show(dim)}"
        return None

    def distinct(self, a: Any, b: Any, env: dict) -> bool:
        """``a != b`` for two indices: by the sign test of ``a - b`` with the ranges, or an Assumption
        ``Ne(a, b)`` on free indices (a canonical bound variable is never a hypothesis' symbol)."""
        gap = sp.expand(a - b)
        # all the ranges, then each enclosing sum's alone (a subset of true facts is true; the sign test
        # rewrites only a few ranged symbols, so fewer can succeed where all do not)
        if nonzero(gap, self.ranges(env)) or any(nonzero(gap, self.ranges({v: r})) for v, r in env.items()):
            return True
        # each hypothesis' range alone, too: j in i+1..n shows j - i > 0, which the sign test misses once
        # i's own range has rewritten i
        alone = [(h.index, h.lower, h.upper) for h in self.hypotheses if isinstance(h, IndexRange)]
        if len(alone) > 1 and any(nonzero(gap, [r]) for r in alone if r[0] in gap.free_symbols):
            return True
        for h in self.hypotheses:
            if isinstance(h, Assumption) and isinstance(h.condition, sp.Ne):
                if {h.condition.lhs, h.condition.rhs} == {a, b}:
                    return True
        return False

    def jointly_independent(self, bases: set) -> str | None:
        """None when the families are one, or listed together in one Independent hypothesis."""
        if len(bases) <= 1:
            return None
        for group, _name in self.groups:
            if bases <= group:
                return None
        return (f"the families {sorted(map(str, bases))} are not listed together in one Independent hypothesis "
                "(pairwise independence is not enough)")


def _family_of(f: Any, hypotheses: tuple):
    if isinstance(f, RandomFamily):
        return f if f in hypotheses else None
    for h in hypotheses:
        if isinstance(h, RandomFamily) and (h.name == f if isinstance(f, str) else h.base == f):
            return h
    return None


def _build(hypotheses: tuple) -> tuple[Setting, list]:
    out: list[str] = []
    families: dict = {}
    for h in hypotheses:
        if isinstance(h, RandomFamily):
            if h.base in families:
                out.append(f"RandomFamily {families[h.base].name!r} and {h.name!r} both declare {h.base}")
                continue
            families[h.base] = h
    groups = []
    for h in hypotheses:
        if isinstance(h, Independent):
            bases = []
            for f in h.families:
                fam = _family_of(f, hypotheses)
                if fam is None:
                    out.append(f"Independent {h.name!r} names {f!r}, which no RandomFamily hypothesis declares")
                else:
                    bases.append(fam.base)
            if len(set(bases)) != len(bases):
                out.append(f"Independent {h.name!r} lists a family twice (a family is not independent of itself)")
            groups.append((frozenset(bases), h.name))
    pairs = tuple(h for h in hypotheses if isinstance(h, CorrelatedPairs))
    return Setting(families, tuple(groups), pairs, tuple(hypotheses)), out


# ------------------------------------------------------------------------------------------ consistency
def _shown_negative(x: Any, ranges=()) -> bool:
    x = sp.expand(x)
    return x != 0 and sign_of(-x, ranges) == "positive"


def _shown_nonzero(x: Any, ranges=()) -> bool:
    x = sp.expand(x)
    if x == 0:
        return False
    return nonzero(x, ranges)


def _family_moments(f: RandomFamily) -> tuple[dict, list]:
    """Known raw moments of one entry (order -> value) and the problems of the declaration."""
    out: list[str] = []
    m, v = sp.sympify(f.mean), sp.sympify(f.variance)
    known = {0: sp.S.One, 1: m, 2: v + m**2}
    seen: dict = {}
    for item in f.moments or ():
        try:
            order, value = item
        except (TypeError, ValueError):
            out.append(f"RandomFamily {f.name!r}: a moment must be (order, value), got {item!r}")
            continue
        if isinstance(order, bool) or not isinstance(order, (int, sp.Integer)) or int(order) < 1:
            out.append(f"RandomFamily {f.name!r}: moment order {order!r} is not a positive integer")
            continue
        order, value = int(order), sp.sympify(value)
        if order in seen:
            out.append(f"RandomFamily {f.name!r}: the moment of order {order} is declared twice")
            continue
        seen[order] = value
        if order in (1, 2):
            if not equal(value, known[order]):
                what = "the mean" if order == 1 else "variance + mean^2"
                out.append(f"RandomFamily {f.name!r}: the declared moment of order {order}, {_show(value)}, is not "
                           f"{what} ({_show(known[order])})")
            continue
        known[order] = value
    return known, out


def _real_entries(base) -> bool:
    return sp.Indexed(base, sp.Dummy("entry", integer=True)).is_real is True


def _pair_like(item) -> bool:
    return isinstance(item, tuple) and len(item) == 2


def _random_values(st: Setting) -> list:
    """A declared law whose parameters are themselves random entries (a moment is a number)."""
    out = []
    for f in st.families.values():
        values = [f.mean, f.variance, f.dim] + [item[1] for item in (f.moments or ()) if _pair_like(item)]
        if any(st.random_in(sp.sympify(x)) for x in values):
            out.append(f"RandomFamily {f.name!r}: its mean, variance, dim or moments mention random entries")
    for p in st.pairs:
        values = [p.dim, p.covariance] + [item[1] for item in p.mixed if _pair_like(item)]
        if any(st.random_in(sp.sympify(x)) for x in values):
            out.append(f"CorrelatedPairs {p.name!r}: its dim, covariance or mixed moments mention random entries")
    return out


def _moment_problems(f: RandomFamily) -> list:
    known, out = _family_moments(f)
    v = sp.sympify(f.variance)
    m = sp.sympify(f.mean)
    if sign_of(v) not in ("positive", "nonnegative") and not equal(v, 0):
        out.append(f"RandomFamily {f.name!r}: the variance {_show(v)} is not shown >= 0")
    dim = sp.sympify(f.dim)
    if not (dim.is_integer and sign_of(dim) == "positive"):
        out.append(f"RandomFamily {f.name!r}: dim {_show(dim)} is not shown to be a positive integer")
    if not _real_entries(f.base):
        return out  # complex entries: the moment inequalities below are of real random variables
    declared = [(f"moment of order {r}", x) for r, x in known.items() if r >= 3]
    for what, value in [("mean", m), ("variance", v)] + declared:
        if sp.sympify(value).is_real is False:
            out.append(f"RandomFamily {f.name!r}: the entries of {f.base} are real, but the {what} {_show(value)} is "
                       "not real")
    second = known[2]
    for r, value in sorted(known.items()):
        if r < 3:
            continue
        if r % 2 == 0:
            if _shown_negative(value):
                out.append(f"RandomFamily {f.name!r}: the even moment E[x^{r}] = {_show(value)} is negative")
            elif _shown_negative(value - second ** (r // 2)):
                out.append(f"RandomFamily {f.name!r}: E[x^{r}] = {_show(value)} < E[x^2]^{r // 2} = "
                           f"{_show(second ** (r // 2))}, impossible (Jensen: E[x^{r}] >= E[x^2]^{r // 2})")
        if equal(v, 0) and _shown_nonzero(value - m**r):
            out.append(f"RandomFamily {f.name!r}: with variance 0 every entry equals its mean, so E[x^{r}] is "
                       f"{_show(m**r)}, not {_show(value)}")
    for a, b in itertools.combinations_with_replacement(sorted(known), 2):
        if a + b in known and 2 * a in known and 2 * b in known and a != b:
            gap = known[2 * a] * known[2 * b] - known[a + b] ** 2
            if _shown_negative(gap):
                out.append(f"RandomFamily {f.name!r}: E[x^{a + b}]^2 > E[x^{2 * a}] E[x^{2 * b}], impossible "
                           "(Cauchy-Schwarz)")
    return out


def _pair_problems(st: Setting) -> list:
    out: list[str] = []
    seen: dict = {}
    for p in st.pairs:
        fq, fk = st.families.get(p.q), st.families.get(p.k)
        for base, fam in ((p.q, fq), (p.k, fk)):
            if fam is None:
                out.append(f"CorrelatedPairs {p.name!r}: the family {base} is declared by no RandomFamily hypothesis "
                           "(its marginal law is needed)")
        if p.q == p.k:
            out.append(f"CorrelatedPairs {p.name!r} pairs the family {p.q} with itself")
            continue
        key = frozenset((p.q, p.k))
        if key in seen:
            out.append(f"CorrelatedPairs {seen[key]!r} and {p.name!r} both declare the pairs of {p.q} and {p.k}")
        seen[key] = p.name
        for group, name in st.groups:
            if p.q in group and p.k in group:
                out.append(f"Independent {name!r} and CorrelatedPairs {p.name!r} both speak of the families {p.q} "
                           f"and {p.k}: they cannot be both independent and correlated")
        if fq is None or fk is None:
            continue
        for fam in (fq, fk):
            if not equal(p.dim, fam.dim):
                out.append(f"CorrelatedPairs {p.name!r}: dim {_show(p.dim)} is not the dim {_show(fam.dim)} of "
                           f"RandomFamily {fam.name!r}")
        if not (_real_entries(p.q) and _real_entries(p.k)):
            continue  # the inequalities below are of real random variables
        vq, vk = sp.sympify(fq.variance), sp.sympify(fk.variance)
        cov = sp.sympify(p.covariance)
        if _shown_negative(vq * vk - cov**2):
            out.append(f"CorrelatedPairs {p.name!r}: the covariance {_show(cov)} exceeds sqrt(Var q Var k) "
                       f"(RandomFamily {fq.name!r}, {fk.name!r}): |correlation| > 1 is impossible")
        kq, _ = _family_moments(fq)
        kk, _ = _family_moments(fk)
        first = _first_mixed(p, fq, fk)
        for item in p.mixed:
            key = _mixed_key(item)
            if key is None:
                out.append(f"CorrelatedPairs {p.name!r}: a mixed moment must be ((a, b), value) with integer orders, "
                           f"got {item!r}")
                continue
            (a, b), value = key, sp.sympify(item[1])
            if a < 0 or b < 0 or a + b == 0:
                out.append(f"CorrelatedPairs {p.name!r}: mixed moment orders ({a}, {b}) are not positive")
                continue
            marginal = kq.get(a) if b == 0 else kk.get(b) if a == 0 else first if (a, b) == (1, 1) else None
            if marginal is not None and not equal(value, marginal):
                out.append(f"CorrelatedPairs {p.name!r}: E[{p.q}^{a} {p.k}^{b}] = {_show(value)} contradicts "
                           f"{_show(marginal)}, fixed by the covariance and the marginal laws")
            if a % 2 == 0 and b % 2 == 0 and _shown_negative(value):
                out.append(f"CorrelatedPairs {p.name!r}: the even mixed moment E[{p.q}^{a} {p.k}^{b}] = {_show(value)} "
                           "is negative")
            if (a, b) == (2, 2) and _shown_negative(value - first**2):
                out.append(f"CorrelatedPairs {p.name!r}: E[{p.q}^2 {p.k}^2] = {_show(value)} < E[{p.q} {p.k}]^2 = "
                           f"{_show(first**2)}, impossible")
            if 2 * a in kq and 2 * b in kk and _shown_negative(kq[2 * a] * kk[2 * b] - value**2):
                out.append(f"CorrelatedPairs {p.name!r}: E[{p.q}^{a} {p.k}^{b}]^2 > E[{p.q}^{2 * a}] E[{p.k}^{2 * b}], "
                           "impossible (Cauchy-Schwarz)")
    return out


def _positional(eq: Equation, hypotheses: tuple) -> tuple:
    """``(lhs, rhs)`` with the forall variables replaced by positional dummies (by first appearance in the
    left side, then the right), each keeping its assumptions, so two equations can be compared."""
    order = []
    for side in (eq.lhs, eq.rhs):
        if isinstance(side, sp.Basic):
            for node in sp.preorder_traversal(side):
                if node in (eq.forall or ()) and node not in order:
                    order.append(node)
    # the same dummy for the same position and assumptions, in every equation
    ren = {v: sp.Dummy(f"forall{n}", dummy_index=7_900_000 + n, **v.assumptions0) for n, v in enumerate(order)}
    key = tuple((n, tuple(sorted(v.assumptions0.items())), _range_of(v, hypotheses)) for n, v in enumerate(order))
    return (_sub(eq.lhs, ren), _sub(eq.rhs, ren), key, ren)


def _range_of(v, hypotheses):
    return tuple((h.lower, h.upper) for h in hypotheses if isinstance(h, IndexRange) and h.index == v)


def _sub(x, ren):
    return x.xreplace(ren) if isinstance(x, sp.Basic) else sp.sympify(x, strict=True)


def _forall_ok(eq: Equation, hypotheses) -> bool:
    """Every forall variable of ``eq`` ranges over a nonempty domain (its IndexRange shown nonempty), and no
    Assumption hypothesis speaks of it (it might restrict the domain; then no contradiction is claimed)."""
    for h in hypotheses:
        c = getattr(h, "condition", None) if isinstance(h, Assumption) else None
        if isinstance(c, sp.Basic) and set(eq.forall or ()) & c.free_symbols:
            return False
    for v in eq.forall or ():
        for h in hypotheses:
            if isinstance(h, IndexRange) and h.index == v and not _not_reversed(h.lower + 1, h.upper, hypotheses, {}):
                return False
    return True


def _equation_problems(st: Setting) -> list:
    out: list[str] = []
    eqs = [h for h in st.hypotheses if isinstance(h, Equation) and not is_matrix(h.lhs) and not is_matrix(h.rhs)]
    ranges = st.ranges({})
    for e in eqs:
        if not _forall_ok(e, st.hypotheses):
            continue
        lhs, rhs = _sub(e.lhs, {}), _sub(e.rhs, {})
        if _shown_nonzero(lhs - rhs, ranges):
            out.append(f"Equation {e.name!r}: its sides differ by {_show(sp.expand(lhs - rhs))}, never 0")
            continue
        if st.families and (_has_moment(lhs) or _has_moment(rhs)):
            try:
                a, b = _evaluate(lhs, st), _evaluate(rhs, st)
            except KernelError:
                continue
            if _shown_nonzero(a - b, ranges):
                out.append(f"Equation {e.name!r}: by the declared laws {_show(lhs)} is {_show(a)} and {_show(rhs)} is "
                           f"{_show(b)}; they differ")
    for h in st.hypotheses:
        c = getattr(h, "condition", None) if isinstance(h, Assumption) else None
        if st.families and isinstance(c, sp.core.relational.Relational) and (_has_moment(c.lhs) or _has_moment(c.rhs)):
            try:
                gap = sp.expand(_evaluate(c.lhs, st) - _evaluate(c.rhs, st))
            except KernelError:
                continue
            false = {sp.Eq: lambda g: _shown_nonzero(g, ranges), sp.Ne: lambda g: g == 0,
                     sp.Lt: lambda g: g == 0 or sign_of(g, ranges) in ("positive", "nonnegative"),
                     sp.Le: lambda g: sign_of(g, ranges) == "positive",
                     sp.Gt: lambda g: g == 0 or sign_of(-g, ranges) in ("positive", "nonnegative"),
                     sp.Ge: lambda g: sign_of(-g, ranges) == "positive"}.get(type(c))
            if false is not None and false(gap):
                out.append(f"Assumption {h.name!r}: {_show(c)} is false by the declared laws "
                           f"(lhs - rhs = {_show(gap)})")
    for e1, e2 in itertools.combinations(eqs, 2):
        if not (_forall_ok(e1, st.hypotheses) and _forall_ok(e2, st.hypotheses)):
            continue
        l1, r1, k1, _ = _positional(e1, st.hypotheses)
        l2, r2, k2, _ = _positional(e2, st.hypotheses)
        for (a, b), (c, d) in (((l1, r1), (l2, r2)), ((l1, r1), (r2, l2))):
            if k1 == k2 and a == c and _shown_nonzero(b - d, ranges):
                out.append(f"Equations {e1.name!r} and {e2.name!r} give {_show(a)} two values that differ by "
                           f"{_show(sp.expand(b - d))}")
                break
        for general, special in ((e1, e2), (e2, e1)):
            clash = _instance_clash(general, special, st, ranges)
            if clash:
                out.append(clash)
    return out


def _instance_clash(general: Equation, special: Equation, st: Setting, ranges) -> str | None:
    """``general`` holds for all its forall variables (``L_t = f(t)``), ``special`` is an equation whose side is
    the head of ``general`` at values in its domain (``L_1 = c``): the values must agree."""
    if not general.forall or special.forall or not isinstance(general.lhs, (sp.Indexed, sp.Function)):
        return None
    if not _forall_ok(general, st.hypotheses):
        return None
    pattern = general.lhs
    args = pattern.indices if isinstance(pattern, sp.Indexed) else pattern.args
    if len(set(args)) != len(args) or not all(a in general.forall for a in args):
        return None
    for side, other in ((special.lhs, special.rhs), (special.rhs, special.lhs)):
        if not isinstance(side, type(pattern)) or (isinstance(side, sp.Indexed) and side.base != pattern.base) or (
                not isinstance(side, sp.Indexed) and side.func != pattern.func):
            continue
        values = side.indices if isinstance(side, sp.Indexed) else side.args
        if len(values) != len(args):
            continue
        point = dict(zip(args, values))
        if not all(_in_domain(var, value, st) for var, value in point.items()):
            continue
        gap = sp.expand(_sub(general.rhs, point) - _sub(other, {}))
        if _shown_nonzero(gap, ranges):
            return (f"Equations {general.name!r} (for all {', '.join(map(str, general.forall))}) and {special.name!r} "
                    f"give {_show(side)} two values that differ by {_show(gap)}")
    return None


def _in_domain(var, value, st: Setting) -> bool:
    """``value`` is shown to lie in the domain of the quantified ``var`` (its assumptions, its IndexRange)."""
    for key, want in var.assumptions0.items():  # every declared fact (integer, even, noninteger, ...) must hold
        if getattr(value, f"is_{key}", None) is not want:
            return False
    for h in st.hypotheses:
        if isinstance(h, IndexRange) and h.index == var and not index_in_range(value, h.lower, h.upper, st.hypotheses):
            return False
    return True


def _has_moment(x: Any) -> bool:
    return isinstance(x, sp.Basic) and x.has(*MOMENTS)


def _evaluate(expr: Any, st: Setting, rounds: int = 16) -> Any:
    """``expr`` with the schemas applied wherever they hold (a value of the declared laws; only used to
    find contradictions, so it needs no Thm)."""
    cur = canonical(expr)
    for _ in range(rounds):
        changed = False
        for node in _nodes(cur):
            for build in (_linearity, _independence, _definitions_all, _moment, _pair_moment):
                try:
                    new = build(node, st)
                    cur2, n, _ = _rewrite(cur, node, new[0], new[1], st)
                except KernelError:
                    continue
                if n:
                    cur, changed = canonical(cur2), True
                    break
            if changed:
                break
        if not changed:
            return cur
    return cur


def _definitions_all(node, st):
    for fn in (_variance_definition, _covariance_definition, _std_definition):
        try:
            return fn(node, st)
        except KernelError:
            continue
    raise NotApplicable("no definition applies")


def _nodes(expr: Any) -> list:
    """The moment objects of ``expr``, outermost first, each once."""
    seen, out = set(), []
    if isinstance(expr, sp.Basic):
        for n in sp.preorder_traversal(expr):
            if isinstance(n, MOMENTS) and n not in seen:
                seen.add(n)
                out.append(n)
    return out


@recorded_cache(maxsize=256)
def _problems_cached(hypotheses: tuple) -> tuple:
    st, out = _build(hypotheses)
    for f in st.families.values():
        out += _moment_problems(f)
    out += _pair_problems(st)
    out += _random_values(st)
    if not out:
        out += _equation_problems(st)
    return tuple(out)


def problems(hypotheses) -> list:
    """The inconsistencies of the probability (and equation) hypotheses, each naming the hypotheses."""
    hypotheses = tuple(hypotheses)
    try:
        return list(_problems_cached(hypotheses))
    except TypeError:  # an unhashable hypothesis: no cache
        return list(_problems_cached.__wrapped__(hypotheses))


def constraints(hypotheses) -> list:
    """``(hypothesis names, condition)`` for the conditions on the parameters that the probability
    hypotheses impose (variance >= 0, Jensen, |correlation| <= 1, ...), for a model search to evaluate at a
    point: a point where one is false is no model."""
    st, _ = _build(tuple(hypotheses))
    out = []
    for f in st.families.values():
        known, _ = _family_moments(f)
        out.append(((f.name,), sp.Ge(sp.sympify(f.variance), 0)))
        if not _real_entries(f.base):
            continue  # the inequalities are of real random variables
        for r, value in sorted(known.items()):
            if r >= 3 and r % 2 == 0:
                out.append(((f.name,), sp.Ge(value, known[2] ** (r // 2))))
    for p in st.pairs:
        fq, fk = st.families.get(p.q), st.families.get(p.k)
        if fq is None or fk is None or not (_real_entries(p.q) and _real_entries(p.k)):
            continue
        out.append(((p.name, fq.name, fk.name), sp.Le(sp.sympify(p.covariance) ** 2,
                                                      sp.sympify(fq.variance) * sp.sympify(fk.variance))))
    if not problems(hypotheses):
        out += _moment_conditions(st)
    return out


def _moment_conditions(st: Setting) -> list:
    """An Equation or Assumption on moments, with the moments evaluated by the declared laws: a condition on
    the parameters (``E[q_1] = 0`` with mean ``mu`` says ``mu = 0``), when no moment is left in it."""
    out = []
    for h in st.hypotheses:
        if isinstance(h, Equation) and not h.forall and not is_matrix(h.lhs) and not is_matrix(h.rhs):
            sides, rel = (h.lhs, h.rhs), sp.Eq
        elif isinstance(h, Assumption) and isinstance(h.condition, sp.core.relational.Relational):
            sides, rel = (h.condition.lhs, h.condition.rhs), type(h.condition)
        else:
            continue
        if not any(_has_moment(x) for x in sides):
            continue
        try:
            a, b = (_evaluate(_sub(x, {}), st) for x in sides)
        except KernelError:
            continue
        if not (_has_moment(a) or _has_moment(b) or st.random_in(a) or st.random_in(b)):
            cond = rel(a, b)
            if isinstance(cond, sp.Basic) and cond is not sp.true:
                out.append(((h.name,), cond))
    return out


def setting(hypotheses=None) -> Setting:
    """The validated setting of the step's hypotheses; raises when they are inconsistent."""
    hypotheses = tuple(_hyps() if hypotheses is None else hypotheses)
    found = problems(hypotheses)
    if found:
        raise KernelError("the hypotheses are inconsistent: " + "; ".join(found))
    return _build(hypotheses)[0]


# ------------------------------------------------------------------------------------------ congruence
def _rewrite(expr: Any, node: Any, new: Any, check, st: Setting) -> tuple[Any, int, list]:
    """``expr`` with the occurrences of ``node`` where ``check(env)`` returns None replaced by ``new``;
    ``env`` maps the variables of the enclosing sums to their ranges. Returns (term, count, reasons)."""
    reasons: list[str] = []

    def walk(e, env):
        if e == node:
            why = check(env)
            if why is None:
                return new, 1
            reasons.append(why)
            return e, 0
        if not isinstance(e, sp.Basic) or not e.args or not e.has(node):
            return e, 0
        if isinstance(e, sp.Sum):
            inner = dict(env)
            for (v, lo, hi) in reversed(e.limits):  # outermost first: inner bounds may use outer variables
                if not (st.integer(lo, inner) and _not_reversed(lo, hi, st.hypotheses, inner)):
                    reasons.append(f"the range {_show(lo)}..{_show(hi)} of an enclosing sum is not shown to start at "
                                   "an integer and not be reversed")
                    return e, 0
                inner[v] = (lo, hi)
            body, n = walk(e.function, inner)
            return (e.func(body, *e.limits) if n else e), n
        if isinstance(e, (ExprWithLimits, sp.Lambda, sp.Limit)):
            reasons.append(f"{type(e).__name__} binds a variable around it; moments are rewritten only under sums")
            return e, 0
        args, total = [], 0
        for a in e.args:
            b, n = walk(a, env)
            args.append(b)
            total += n
        return (e.func(*args) if total else e), total

    out, n = walk(expr, {})
    return out, n, reasons


def _instance(expr: Any, node: Any, build, name: str):
    """The schema instance ``expr = expr[node := new]`` (``build(node, setting) -> (new, check)``)."""
    if is_matrix(expr):
        raise KernelError(f"{name}: moments inside matrices are not supported")
    if not isinstance(node, MOMENTS):
        raise KernelError(f"{name}: {_show(node)} is not an expectation, variance, covariance or sd")
    expr = canonical(expr)  # the node is the rule's occurrence in this canonical term, as it stands
    check_finite(expr, name)
    st = setting()
    if not st.families:
        raise KernelError(f"{name}: no RandomFamily hypothesis declares random entries, so nothing here is random "
                          "(declare the families whose moments the step uses)")
    _no_lookalikes(expr, st, name)
    new, check = build(node, st)
    out, n, reasons = _rewrite(expr, node, new, check, st)
    if not n:
        if not reasons:
            raise NotApplicable(f"{name}: {_show(node)} does not occur in {_show(expr)}")
        raise KernelError(f"{name} at {_show(node)}: " + "; ".join(dict.fromkeys(reasons)))
    return expr, out, "="


def _no_lookalikes(expr: Any, st: Setting, name: str) -> None:
    """Refuse an entry that prints like a family's but is not one (its IndexedBase differs, say by its
    assumptions): it would be taken for a constant while the reader sees a random entry."""
    names = {str(b.label): b for b in st.families}
    for x in expr.atoms(sp.Indexed) if isinstance(expr, sp.Basic) else ():
        b = names.get(str(x.base.label))
        if b is not None and x.base != b:
            raise KernelError(f"{name}: {_show(x)} is named like an entry of the family {b} but its base differs "
                              f"({sp.srepr(x.base)} is not {sp.srepr(b)}): declare it with the same IndexedBase")


def _always(env):
    return None


def _entries_env(x: Any, env: dict, st: Setting, local: frozenset = frozenset()):
    """``(entry, env, local)`` for each random entry of ``x``: ``env`` the ranges of the sums around it,
    ``local`` the variables bound inside ``x`` (raises when an entry sits under a range it cannot read)."""
    if isinstance(x, sp.Indexed) and x.base in st.families:
        yield x, env, local
        return
    if not isinstance(x, sp.Basic) or not x.args:
        return
    if isinstance(x, sp.Sum):
        inner = dict(env)
        for (v, lo, hi) in reversed(x.limits):
            if st.random_in(lo) or st.random_in(hi):
                raise KernelError(f"the bounds of {_show(x)} are random")
            if not (st.integer(lo, inner) and _not_reversed(lo, hi, st.hypotheses, inner)):
                raise KernelError(f"the range {_show(lo)}..{_show(hi)} of {_show(x)} is not shown to start at an "
                                  "integer and not be reversed")
            inner[v] = (lo, hi)
            local = local | {v}
        yield from _entries_env(x.function, inner, st, local)
        return
    if isinstance(x, MOMENTS):
        return  # a moment is a number
    if isinstance(x, (ExprWithLimits, sp.Lambda, sp.Limit)) and st.random_in(x):
        raise KernelError(f"random entries under {type(x).__name__} are not supported")
    for a in x.args:
        yield from _entries_env(a, env, st, local)


def _split(x: Any, st: Setting) -> tuple[Any, list]:
    """``x = c * X_1 * ... * X_n``: the constant factor and the random factors."""
    factors = list(sp.Mul.make_args(x))
    const = sp.Mul(*[f for f in factors if not st.random_in(f)])
    return const, [f for f in factors if st.random_in(f)]


def _groups_check(groups: list, st: Setting):
    """The check (env -> reason or None) that the groups are functions of disjoint sets of entries of
    jointly independent families, all declared."""

    def check(env):
        per = []
        for g in groups:
            try:
                per.append(list(_entries_env(g, env, st)))
            except KernelError as exc:
                return str(exc)
        bases = {e.base for items in per for e, _, _ in items}
        why = st.jointly_independent(bases)
        if why:
            return why
        for items in per:
            for e, inner, _local in items:
                why = st.undeclared(e, inner)
                if why:
                    return why
        for (ga, a_items), (gb, b_items) in itertools.combinations(list(zip(groups, per)), 2):
            for a, ea, la in a_items:
                for b, eb, lb in b_items:
                    if a.base != b.base:
                        continue
                    (ia,), (ib,) = a.indices, b.indices
                    if (ia.free_symbols | ib.free_symbols) & (la & lb):
                        # the two factors bind the same canonical variable (each its own sum): one symbol
                        # would stand for two independent values
                        return (f"{_show(a)} and {_show(b)} (in {_show(ga)} and {_show(gb)}): indices bound inside "
                                "both factors cannot be compared, so the factors may share entries")
                    # each index over the range of every sum around it (outside the product, or inside its factor)
                    if not st.distinct(ia, ib, {**ea, **eb}):
                        return (f"{_show(a)} and {_show(b)} (in {_show(ga)} and {_show(gb)}) are not shown to be "
                                f"different entries ({_show(ia)} != {_show(ib)} is not shown)")
        return None

    return check


def _grouping(x: Any, st: Setting, groups) -> tuple[Any, list]:
    const, rand = _split(x, st)
    if groups is None:
        groups = _finest(rand, st)
    else:
        groups = [canonical(g) for g in groups]
        have = sorted(rand, key=sp.default_sort_key)
        want = sorted((f for g in groups for f in sp.Mul.make_args(g)), key=sp.default_sort_key)
        if have != want or any(not st.random_in(g) for g in groups):
            raise KernelError(f"the groups {[_show(g) for g in groups]} are not a partition of the random factors "
                              f"{[_show(f) for f in rand]} of {_show(x)}")
    if len(groups) < 2:
        raise NotApplicable(f"{_show(x)} has fewer than two random factors to separate")
    return const, groups


def _finest(rand: list, st: Setting) -> list:
    """A proposal of groups: two factors share a group when they hold entries of one family whose indices
    are not shown different (or are bound inside a factor). The groups are then checked in context."""
    n = len(rand)
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in itertools.combinations(range(n), 2):
        local = rand[a].has(sp.Sum) or rand[b].has(sp.Sum)
        if any(x.base == y.base and (local or not st.distinct(x.indices[0], y.indices[0], {}))
               for x in st.random_entries(rand[a]) for y in st.random_entries(rand[b])):
            parent[find(a)] = find(b)
    out: dict = {}
    for a in range(n):
        out.setdefault(find(a), []).append(rand[a])
    return [sp.Mul(*g) for g in out.values()]


# ------------------------------------------------------------------------------------------ builders
def _linearity(node, st):
    if not isinstance(node, Expectation):
        raise NotApplicable("linearity applies to an expectation")
    (x,) = node.args
    if not st.random_in(x):
        return x, _always
    if isinstance(x, sp.Sum):
        for (_v, lo, hi) in x.limits:
            if st.random_in(lo) or st.random_in(hi):
                raise KernelError(f"the bounds of {_show(x)} are random")
        return sp.Sum(Expectation(x.function), *x.limits), _always
    expanded = sp.expand(x, deep=False)
    if isinstance(expanded, sp.Add):
        return sp.Add(*[Expectation(t) for t in expanded.args]), _always
    const, rand = _split(expanded, st)
    if const != 1:
        return const * Expectation(sp.Mul(*rand)), _always
    raise NotApplicable(f"E[{_show(x)}]: no constant term or factor to move out, and not a sum")


def _independence(node, st, groups=None):
    if not isinstance(node, Expectation):
        raise NotApplicable("independence applies to an expectation")
    const, groups = _grouping(node.args[0], st, groups)
    return const * sp.Mul(*[Expectation(g) for g in groups]), _groups_check(groups, st)


def _variance_of_product(node, st, groups=None):
    if not isinstance(node, Variance):
        raise NotApplicable("the variance of a product applies to a variance")
    const, groups = _grouping(node.args[0], st, groups)
    groups = [const * groups[0]] + groups[1:]
    second = sp.Mul(*[Variance(g) + Expectation(g) ** 2 for g in groups])
    first = sp.Mul(*[Expectation(g) ** 2 for g in groups])
    return second - first, _groups_check(groups, st)


def _one_sum(node):
    if not isinstance(node, Variance):
        raise NotApplicable("the variance of a sum applies to a variance")
    (x,) = node.args
    if not isinstance(x, sp.Sum) or len(x.limits) != 1:
        raise NotApplicable(f"{_show(x)} is not a sum over one index")
    (i, lo, hi) = x.limits[0]
    return i, lo, hi, x.function


def _sum_check(st, lo, hi, dims, independent):
    def check(env):
        if not st.integer(lo, env):
            return f"the lower bound {_show(lo)} is not shown to be an integer"
        if not _not_reversed(lo, hi, st.hypotheses, env):
            return f"the range {_show(lo)}..{_show(hi)} is not shown to be not reversed"
        for base, dim in dims:
            if not (_le(1, lo, st, env) and _le(hi, dim, st, env)):
                return f"the range {_show(lo)}..{_show(hi)} is not shown to lie inside 1..{_show(dim)} of {base}"
        return independent

    return check


def _le(a, b, st, env) -> bool:
    """``a <= b`` by the sign test, moving ranged symbols of either side to the ends of their ranges."""
    from symattn.kernel.sign import provably_le
    from symattn.kernel.sums import _linear_bounds, _ranges

    ranges = _ranges(st.hypotheses, env)
    return (provably_le(a, b, st.ranges(env))
            or any(provably_le(u, v) for _, u in _linear_bounds(sp.sympify(a), ranges)
                   for v, _ in _linear_bounds(sp.sympify(b), ranges)))


def _sum_entries(f, i, st):
    entries = list(_entries_env(f, {}, st))
    if not entries:
        raise NotApplicable(f"{_show(f)} has no random entries")
    for e, _env, _local in entries:
        if len(e.indices) != 1 or e.indices[0] != i:
            raise KernelError(f"the entry {_show(e)} is not indexed by the summation variable alone, so the terms "
                              "may share entries")
    return {e.base for e, _, _ in entries}


def _variance_of_sum(node, st):
    i, lo, hi, f = _one_sum(node)
    bases = _sum_entries(f, i, st)
    why = st.jointly_independent(bases)
    dims = [(b, st.families[b].dim) for b in sorted(bases, key=str)]
    return sp.Sum(Variance(f), (i, lo, hi)), _sum_check(st, lo, hi, dims, why)


def _variance_of_pair_sum(node, st):
    i, lo, hi, f = _one_sum(node)
    bases = _sum_entries(f, i, st)
    for p in st.pairs:
        if bases <= {p.q, p.k}:
            dims = [(f"{p.q}, {p.k} ({p.name})", p.dim)] + [(b, st.families[b].dim) for b in sorted(bases, key=str)]
            return sp.Sum(Variance(f), (i, lo, hi)), _sum_check(st, lo, hi, dims, None)
    raise KernelError(f"the families {sorted(map(str, bases))} are not the two of one CorrelatedPairs hypothesis")


def _variance_definition(node, st):
    if not isinstance(node, Variance):
        raise NotApplicable("the definition of variance applies to a variance")
    (x,) = node.args
    return Expectation(x**2) - Expectation(x) ** 2, _always


def _covariance_definition(node, st):
    if not isinstance(node, Covariance):
        raise NotApplicable("the definition of covariance applies to a covariance")
    x, y = node.args
    return Expectation(x * y) - Expectation(x) * Expectation(y), _always


def _std_definition(node, st):
    if not isinstance(node, StandardDeviation):
        raise NotApplicable("the definition of the standard deviation applies to an sd")
    return sp.sqrt(Variance(node.args[0])), _always


def _variance_scaling(node, st):
    if not isinstance(node, Variance):
        raise NotApplicable("variance scaling applies to a variance")
    const, rand = _split(node.args[0], st)
    if const == 1 or not rand:
        raise NotApplicable(f"Var({_show(node.args[0])}) has no constant factor and random part to separate")
    if const.is_real is not True:
        raise KernelError(f"the factor {_show(const)} is not known to be real (Var(cX) = c^2 Var X needs c real)")
    return const**2 * Variance(sp.Mul(*rand)), _always


def _entry_power(x):
    base, power = (x.base, x.exp) if isinstance(x, sp.Pow) else (x, sp.S.One)
    return base, power


def _moment(node, st):
    if isinstance(node, Variance):
        x = node.args[0]
        if not (isinstance(x, sp.Indexed) and x.base in st.families):
            raise NotApplicable(f"{_show(x)} is not an entry of a declared family")
        fam = st.families[x.base]
        return sp.sympify(fam.variance), lambda env: st.undeclared(x, env)
    if not isinstance(node, Expectation):
        raise NotApplicable("the moments are of expectations and variances")
    base, power = _entry_power(node.args[0])
    if not (isinstance(base, sp.Indexed) and base.base in st.families):
        raise NotApplicable(f"{_show(node.args[0])} is not a power of an entry of a declared family")
    if not (power.is_Integer and power >= 1):
        raise KernelError(f"the power {_show(power)} is not a positive integer")
    fam = st.families[base.base]
    known, _ = _family_moments(fam)
    r = int(power)
    if r not in known:
        raise KernelError(f"RandomFamily {fam.name!r} declares no moment of order {r}")
    return known[r], lambda env: st.undeclared(base, env)


def _pair_moment(node, st):
    if not isinstance(node, Expectation):
        raise NotApplicable("a mixed moment is an expectation")
    x = node.args[0]
    powers: dict = {}
    index = None
    for f in sp.Mul.make_args(x):
        base, p = _entry_power(f)
        if not (isinstance(base, sp.Indexed) and len(base.indices) == 1 and p.is_Integer and p >= 1):
            raise NotApplicable(f"{_show(x)} is not a product of powers of entries")
        if index is not None and sp.expand(base.indices[0] - index) != 0:
            raise KernelError(f"the entries of {_show(x)} are not at the same index")
        index = base.indices[0]
        powers[base.base] = powers.get(base.base, 0) + int(p)
    for p in st.pairs:
        if set(powers) == {p.q, p.k}:
            a, b = powers[p.q], powers[p.k]
            fq, fk = st.families[p.q], st.families[p.k]
            if (a, b) == (1, 1):
                value = _first_mixed(p, fq, fk)
            else:
                value = next((sp.sympify(item[1]) for item in p.mixed if _mixed_key(item) == (a, b)), None)
                if value is None:
                    raise KernelError(f"CorrelatedPairs {p.name!r} declares no mixed moment E[{p.q}^{a} {p.k}^{b}]")
            return value, functools.partial(_pair_declared, st, p.q[index], p.dim)
    raise NotApplicable(f"{_show(x)} is not a mixed moment of the two families of a CorrelatedPairs hypothesis")


def _mixed_key(item) -> tuple | None:
    """``(a, b)`` of a declared mixed moment ``((a, b), value)`` with integer orders, else None."""
    try:
        (a, b), _value = item
    except (TypeError, ValueError):
        return None
    if any(isinstance(x, bool) or not isinstance(x, (int, sp.Integer)) for x in (a, b)):
        return None
    return int(a), int(b)


def _first_mixed(p: CorrelatedPairs, fq: RandomFamily, fk: RandomFamily):
    """E[q_i k_i] = Cov(q_i, k_i) + E[q_i] E[k_i]: the covariance alone only when a mean is 0."""
    return sp.sympify(p.covariance) + sp.sympify(fq.mean) * sp.sympify(fk.mean)


def _pair_declared(st, entry, dim, env):
    return st.undeclared(entry, env, dim) or st.undeclared(entry, env)


# ------------------------------------------------------------------------------------------ the schemas
@schema("linearity_of_expectation",
        "E[c] = c; E[sum_i f(i)] = sum_i E[f(i)] (finite sum, bounds not random); E[X + Y] = E[X] + E[Y]; "
        "E[cX] = c E[X] (c free of random entries)")
def linearity_of_expectation(expr, node):
    return _instance(expr, node, _linearity, "linearity of expectation")


@schema("independence",
        "E[c X_1 ... X_n] = c E[X_1] ... E[X_n] when the X_a are functions of disjoint sets of declared entries "
        "(integer indices in 1..dim, shown distinct) of families listed together in one Independent hypothesis")
def independence(expr, node, groups=None):
    return _instance(expr, node, lambda n, st: _independence(n, st, groups), "independence")


@schema("variance_of_independent_product",
        "Var(X_1 ... X_n) = prod_a (Var X_a + E[X_a]^2) - prod_a E[X_a]^2 for X_a as in 'independence'")
def variance_of_independent_product(expr, node, groups=None):
    return _instance(expr, node, lambda n, st: _variance_of_product(n, st, groups),
                     "the variance of an independent product")


@schema("variance_of_independent_sum",
        "Var(sum_{i=lo}^{hi} f(i)) = sum_{i=lo}^{hi} Var f(i) when every random entry of f(i) is indexed by i, "
        "the families are listed together in one Independent hypothesis (or are one), lo is an integer, "
        "lo - 1 <= hi, and 1 <= lo, hi <= dim")
def variance_of_independent_sum(expr, node):
    return _instance(expr, node, _variance_of_sum, "the variance of an independent sum")


@schema("variance_of_pair_sum",
        "Var(sum_{i=lo}^{hi} f(i)) = sum_{i=lo}^{hi} Var f(i) when the random entries of f(i) are q_i, k_i of one "
        "CorrelatedPairs hypothesis (pairs independent across i), lo an integer, lo - 1 <= hi, 1 <= lo, hi <= dim")
def variance_of_pair_sum(expr, node):
    return _instance(expr, node, _variance_of_pair_sum, "the variance of a sum of independent pairs")


@schema("variance_definition", "Var X = E[X^2] - E[X]^2")
def variance_definition(expr, node):
    return _instance(expr, node, _variance_definition, "the definition of variance")


@schema("covariance_definition", "Cov(X, Y) = E[XY] - E[X] E[Y]")
def covariance_definition(expr, node):
    return _instance(expr, node, _covariance_definition, "the definition of covariance")


@schema("std_definition", "sd X = sqrt(Var X)")
def std_definition(expr, node):
    return _instance(expr, node, _std_definition, "the definition of the standard deviation")


@schema("variance_scaling", "Var(c X) = c^2 Var X for c free of random entries and real")
def variance_scaling(expr, node):
    return _instance(expr, node, _variance_scaling, "variance scaling")


@schema("moment",
        "E[q_i] = mean, Var q_i = variance, E[q_i^2] = variance + mean^2, E[q_i^r] = the declared raw moment, "
        "for a declared entry q_i (integer i in 1..dim) of a RandomFamily")
def moment(expr, node):
    return _instance(expr, node, _moment, "the moments of the families")


@schema("pair_moment",
        "E[q_i k_i] = Cov + E[q_i] E[k_i], E[q_i^a k_i^b] = the declared mixed moment, for a pair (q_i, k_i) of a "
        "CorrelatedPairs hypothesis (integer i in 1..dim)")
def pair_moment(expr, node):
    return _instance(expr, node, _pair_moment, "the moments of the correlated pairs")
