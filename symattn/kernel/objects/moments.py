r"""Moments of polynomials in random vectors with i.i.d. entries, in the symbolic dimension.

For a random vector :math:`q \in \mathbb{R}^d` whose entries are independent and identically
distributed, every expectation of a polynomial in sums over its entries is a polynomial in
``d`` and the entries' moments. The identity behind the computation is

.. math::

    \mathbb{E}\Big[\sum_{i_1,\dots,i_m=1}^{d} \prod_r x^{(r)}_{i_{a_r}}\Big]
      = \sum_{\pi \in \Pi(m)} d(d-1)\cdots(d-|\pi|+1)\;
        \prod_{B \in \pi}\ \prod_{x} \mathbb{E}\big[x_1^{\,n_{x,B}}\big],

where :math:`\Pi(m)` is the set of partitions of the summation indices into blocks of equal
values (the *coincidence pattern*), the falling factorial counts the index tuples with exactly
that pattern, and :math:`n_{x,B}` is the power of vector ``x`` at the indices of block ``B``.
Entries at distinct indices, and entries of distinct vectors, are independent, so the
expectation of a monomial is the product of the entries' raw moments.

:func:`iid_vector` and :func:`gaussian_vector` make vectors; :func:`dot` makes the inner product
``Sum(q[i]*k[i], (i, 1, d))``; :func:`E`, :func:`Var` and :func:`Cov` return closed forms.

>>> import sympy as sp
>>> d = sp.Symbol("d_k", integer=True, positive=True)
>>> sigma = sp.Symbol("sigma", positive=True)
>>> from symattn.kernel.objects.random_vectors import gaussian_vector
>>> q = gaussian_vector("q", d, sigma); k = gaussian_vector("k", d, sigma)
>>> Var(dot(q, k))
d_k*sigma**4

All moments used are assumed finite. Every call to :func:`iid_vector` or
:func:`gaussian_vector` makes a *new* vector, independent of all others, even if a name is reused
(the name is only for printing; moment symbols of vectors with the same name coincide, so give
distinct vectors distinct names).

References
----------
* Seed 000, Proposition "Why the scaling is 1/sqrt(d_k)"; seed 002, "Why divide by sqrt(d_k)".
* Isserlis (1918) for the Gaussian moments: E[X^{2m}] = (2m-1)!! sigma^{2m} for centred X.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

__all__ = [
    "Expectation",
    "Variance",
    "Covariance",
    "StandardDeviation",
    "MOMENT_CLASSES",
    "RandomVector",
    "dot",
    "E",
    "Var",
    "Cov",
    "random_vector_of",
    "explicit_expectation",
    "CorrelatedPair",
]


# ----------------------------------------------------------------------------------- moment objects
class _Moment(sp.Expr):
    """Base of the unevaluated moment objects: arguments are SymPy expressions, never strings.

    They are data: SymPy's ``doit`` (which ``simplify`` calls) leaves them unevaluated, so the
    kernel's zero test never evaluates a moment by this module's calculus. :meth:`closed_form`
    evaluates one explicitly (the instance checks use it, never a proof).
    """

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
        """The object with its arguments evaluated, still unevaluated itself (see :meth:`closed_form`)."""
        args = [a.doit(**hints) if hints.get("deep", True) else a for a in self.args]
        return self.func(*args)

    def closed_form(self):
        """The closed form from this module's calculus when the argument is built from its random
        vectors (:func:`iid_vector`, ...); otherwise the object itself."""
        if any(random_vector_of(x) is not None for a in self.args for x in a.atoms(sp.Indexed)):
            return self._closed_form()
        return self


class Expectation(_Moment):
    r"""The expectation :math:`\mathbb{E}[X]`, unevaluated.

    >>> from symattn.kernel.objects.random_vectors import iid_vector
    >>> q = iid_vector("q", 3, mean=2, variance=1)
    >>> Expectation(q[1]**2).closed_form()   # Var + mean^2
    5
    """

    def _closed_form(self):
        return E(self.args[0])

    def _latex(self, printer):
        return r"\mathbb{E}\left[%s\right]" % printer._print(self.args[0])


class Variance(_Moment):
    r"""The variance :math:`\operatorname{Var}(X) = \mathbb{E}[X^2] - \mathbb{E}[X]^2`, unevaluated.

    >>> d = sp.Symbol("d", integer=True, positive=True); s = sp.Symbol("s", positive=True)
    >>> from symattn.kernel.objects.random_vectors import gaussian_vector
    >>> Variance(dot(gaussian_vector("q", d, s), gaussian_vector("k", d, s))).closed_form()
    d*s**4
    """

    def _eval_is_nonnegative(self):
        return True if self.args[0].is_real else None

    def _closed_form(self):
        return Var(self.args[0])

    def _latex(self, printer):
        return r"\operatorname{Var}\left(%s\right)" % printer._print(self.args[0])


class StandardDeviation(_Moment):
    r"""The standard deviation :math:`\operatorname{sd}(X) = \sqrt{\operatorname{Var}(X)}`, unevaluated.

    >>> from symattn.kernel.objects.random_vectors import iid_vector
    >>> StandardDeviation(3 * iid_vector("q", 2, variance=4)[1]).closed_form()
    6
    """

    def _eval_is_nonnegative(self):
        return True if self.args[0].is_real else None

    def _closed_form(self):
        return sp.sqrt(Var(self.args[0]))

    def _latex(self, printer):
        return r"\operatorname{sd}\left(%s\right)" % printer._print(self.args[0])


class Covariance(_Moment):
    r"""The covariance :math:`\operatorname{Cov}(X, Y) = \mathbb{E}[XY] - \mathbb{E}[X]\mathbb{E}[Y]`.

    >>> from symattn.kernel.objects.random_vectors import iid_vector
    >>> q = iid_vector("q", 2, mean=1, variance=1)
    >>> Covariance(q[1] + q[2], q[1]).closed_form()
    1
    """

    nargs = 2

    def _closed_form(self):
        return Cov(*self.args)

    def _latex(self, printer):
        return r"\operatorname{Cov}\left(%s, %s\right)" % tuple(printer._print(a) for a in self.args)


#: the moment objects (data for the kernel's probability schemas)
MOMENT_CLASSES = (Expectation, Variance, StandardDeviation, Covariance)


# ----------------------------------------------------------------------------------- vectors
class _EntryLabel(sp.Symbol):
    """The label of a random vector's IndexedBase: prints as its name, but two vectors with the
    same name are different objects (a serial number is part of the identity)."""

    _serial: int

    def __new__(cls, name: str, serial: int):
        obj = sp.Symbol.__xnew__(cls, name, real=True)
        obj._serial = serial
        return obj

    def _hashable_content(self):
        return super()._hashable_content() + (self._serial,)

    def __getnewargs_ex__(self):
        return ((self.name, self._serial), {})


_VECTORS: dict[_EntryLabel, RandomVector] = {}
_serials = itertools.count(1)


@dataclass(frozen=True, eq=False)
class RandomVector:
    """A random vector of length ``dim`` with i.i.d. entries ``base[1], ..., base[dim]``.

    ``mean`` and ``variance`` are the entries' first two moments; ``raw`` and ``central`` map
    orders ``>= 3`` to given raw or central moments. Orders given neither way are fresh symbols
    ``mu_r^name`` standing for the central moment of order ``r``.
    """

    name: str
    dim: Any
    mean: Any
    variance: Any
    raw: dict = field(default_factory=dict)
    central: dict = field(default_factory=dict)
    base: sp.IndexedBase = None  # type: ignore[assignment]
    _cache: dict = field(default_factory=dict, repr=False)
    #: for the two vectors of :func:`correlated_vectors`: the pair (entries at the same index are
    #: dependent, entries at different indices independent); ``None`` for independent vectors
    pair: Any = field(default=None, repr=False)

    def __getitem__(self, index) -> sp.Indexed:
        return self.base[index]

    def __repr__(self) -> str:
        return f"RandomVector({self.name!r}, dim={self.dim}, mean={self.mean}, variance={self.variance})"

    def central_moment(self, order: int) -> sp.Expr:
        """``E[(x - mean)^order]`` for one entry ``x``.

        >>> import sympy as sp
        >>> s = sp.Symbol("s", positive=True)
        >>> from symattn.kernel.objects.random_vectors import gaussian_vector, iid_vector
        >>> gaussian_vector("g", 3, s).central_moment(4)
        3*s**4
        >>> iid_vector("u", 3, variance=s**2).central_moment(3)
        mu_3^u
        """
        order = _order(order)
        if order == 0:
            return sp.S.One
        if order == 1:
            return sp.S.Zero
        if order == 2:
            return self.variance
        if order in self.central:
            return self.central[order]
        if order in self.raw:  # E[(x-m)^r] = sum_j C(r,j) (-m)^(r-j) E[x^j]
            m = self.mean
            return sp.expand(sum(sp.binomial(order, j) * (-m) ** (order - j) * self.raw_moment(j)
                                 for j in range(order + 1)))
        key = ("mu", order)
        if key not in self._cache:
            even = {"nonnegative": True} if order % 2 == 0 else {}  # odd moments have no sign
            self._cache[key] = sp.Symbol(f"mu_{order}^{self.name}", real=True, **even)
        return self._cache[key]

    def raw_moment(self, order: int) -> sp.Expr:
        """``E[x^order]`` for one entry ``x``.

        >>> import sympy as sp
        >>> m, s = sp.symbols("m s", positive=True)
        >>> from symattn.kernel.objects.random_vectors import gaussian_vector
        >>> gaussian_vector("g", 3, s, mean=m).raw_moment(2)
        m**2 + s**2
        """
        order = _order(order)
        if order in self.raw:
            return self.raw[order]
        if order == 0:
            return sp.S.One
        if order == 1:
            return self.mean
        m = self.mean
        # E[x^r] = E[((x-m) + m)^r] = sum_j C(r,j) m^(r-j) E[(x-m)^j]
        return sp.expand(sum(sp.binomial(order, j) * m ** (order - j) * self.central_moment(j)
                             for j in range(order + 1)))

    def family(self, name: str | None = None):
        """The :class:`~symattn.language.statement.RandomFamily` hypothesis describing this vector, for
        theorems whose proofs use the expectation rules."""
        from symattn.language.statement import RandomFamily

        moments = tuple(sorted((r, v) for r, v in self.raw.items()))
        return RandomFamily(name or f"{self.name}_iid", base=self.base, dim=self.dim, mean=self.mean,
                            variance=self.variance, moments=moments)


def _order(order: Any) -> int:
    if isinstance(order, bool) or not isinstance(order, (int, sp.Integer)):
        raise TypeError(f"moment order must be an int, got {order!r}")
    order = int(order)
    if order < 0:
        raise ValueError(f"moment order must be >= 0, got {order}")
    return order


def _value(x: Any, what: str) -> sp.Expr:
    """A SymPy expression from a Python number or a SymPy expression; strings are refused."""
    if isinstance(x, bool) or isinstance(x, str) or x is None:
        raise TypeError(f"{what} must be a number or a SymPy expression, got {x!r}")
    if isinstance(x, (int, float)):
        return sp.sympify(x, strict=True)
    if isinstance(x, sp.Expr):
        return x
    raise TypeError(f"{what} must be a number or a SymPy expression, got {type(x).__name__}")


def _dimension(dim: Any) -> sp.Expr:
    if isinstance(dim, bool) or not isinstance(dim, (int, sp.Expr)):
        raise TypeError(f"dim must be a positive integer or a SymPy integer symbol, got {dim!r}")
    d = sp.sympify(dim, strict=True) if isinstance(dim, int) else dim
    if d.is_integer is not True or d.is_positive is not True:
        raise ValueError(
            f"dim must be known to be a positive integer, got {dim!r} "
            f"(declare symbols with integer=True, positive=True)"
        )
    return d


def _moment_table(moments: Any, what: str) -> dict:
    if moments is None:
        return {}
    if not isinstance(moments, dict):
        raise TypeError(f"{what} must be a dict {{order: value}}, got {type(moments).__name__}")
    out = {}
    for order, value in moments.items():
        order = _order(order)
        if order < 3:
            raise ValueError(f"{what}: order {order} is fixed by mean and variance; give orders >= 3")
        out[order] = _value(value, f"{what}[{order}]")
    return out


def _new_vector(name: str, dim: Any, mean: Any, variance: Any, raw: dict, central: dict) -> RandomVector:
    """A vector of the given law, not yet known to :func:`random_vector_of` (:func:`_register` makes it
    so, once the constructors of :mod:`symattn.kernel.objects.random_vectors` have checked the law)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"name must be an identifier string such as 'q', got {name!r}")
    d = _dimension(dim)
    m = _value(mean, "mean")
    v = _value(variance, "variance")
    if v.is_negative:
        raise ValueError(f"variance must be nonnegative, got {variance!r}")
    if set(raw) & set(central):
        raise ValueError(f"orders {sorted(set(raw) & set(central))} given both as raw and as central moments")
    label = _EntryLabel(name, next(_serials))
    central = central if isinstance(central, _GaussianMoments) else dict(central)
    return RandomVector(name, d, m, v, dict(raw), central, sp.IndexedBase(label, real=True))


def _register(vec: RandomVector) -> RandomVector:
    _VECTORS[vec.base.label] = vec
    return vec


class _GaussianMoments(dict):
    """Central Gaussian moments of every order >= 3, produced on demand."""

    def __init__(self, sigma):
        super().__init__()
        self._sigma = sigma

    def __contains__(self, order) -> bool:
        return isinstance(order, int) and order >= 3

    def __missing__(self, order):
        return sp.S.Zero if order % 2 else sp.factorial2(order - 1) * self._sigma**order


def random_vector_of(entry: Any) -> RandomVector | None:
    """The :class:`RandomVector` an entry ``q[i]`` belongs to, or ``None`` for anything else."""
    if isinstance(entry, sp.Indexed):
        return _VECTORS.get(entry.base.label)
    return None


def dot(q: RandomVector, k: RandomVector, index: sp.Symbol | None = None) -> sp.Sum:
    """The inner product ``Sum(q[i]*k[i], (i, 1, d))`` of two random vectors of length ``d``.

    >>> import sympy as sp
    >>> d = sp.Symbol("d", integer=True, positive=True)
    >>> from symattn.kernel.objects.random_vectors import iid_vector
    >>> q = iid_vector("q", d, variance=1); k = iid_vector("k", d, variance=1)
    >>> dot(q, k)
    Sum(k[i]*q[i], (i, 1, d))
    """
    for v, what in ((q, "q"), (k, "k")):
        if not isinstance(v, RandomVector):
            raise TypeError(f"dot: {what} must be a RandomVector (from iid_vector/gaussian_vector), "
                            f"got {type(v).__name__}")
    if sp.simplify(q.dim - k.dim) != 0:
        raise ValueError(f"dot: dimensions differ: {q.name} has {q.dim}, {k.name} has {k.dim}")
    i = index if index is not None else sp.Symbol("i", integer=True, positive=True)
    if not isinstance(i, sp.Symbol):
        raise TypeError(f"dot: index must be a SymPy Symbol, got {i!r}")
    return sp.Sum(q[i] * k[i], (i, 1, q.dim))


# ----------------------------------------------------------------------------------- expectation
@dataclass(frozen=True)
class _Term:
    """``coeff * sum over the indices of prod entries**power``: one term of an expanded polynomial."""

    coeff: sp.Expr
    indices: tuple  # ((dummy, lo, hi), ...)
    monomial: tuple  # ((RandomVector, index expr, power), ...)


def _is_random(expr: sp.Basic) -> bool:
    return any(random_vector_of(a) is not None for a in expr.atoms(sp.Indexed))


def _terms(expr: sp.Expr) -> list[_Term]:
    """Expand ``expr`` into terms; summation indices become fresh dummies."""
    if not isinstance(expr, sp.Basic):
        raise TypeError(f"expected a SymPy expression, got {type(expr).__name__}")
    if not _is_random(expr):
        return [_Term(expr, (), ())]
    vec = random_vector_of(expr)
    if vec is not None:
        if len(expr.indices) != 1:
            raise ValueError(f"entries of {vec.name} take one index, got {expr}")
        _require_index(vec, expr.indices[0], expr)
        return [_Term(sp.S.One, (), ((vec, expr.indices[0], 1),))]
    if isinstance(expr, sp.Add):
        return [t for a in expr.args for t in _terms(a)]
    if isinstance(expr, sp.Mul):
        out = [_Term(sp.S.One, (), ())]
        for factor in expr.args:
            out = [_product(a, b) for a in out for b in _terms(factor)]
        return out
    if isinstance(expr, sp.Pow):
        n = expr.exp
        if not (n.is_Integer and n >= 0):
            raise ValueError(f"E needs a polynomial in random entries; {expr} has exponent {n}")
        out = [_Term(sp.S.One, (), ())]
        for _ in range(int(n)):
            out = [_product(a, b) for a in out for b in _terms(expr.base)]  # fresh indices each copy
        return out
    if isinstance(expr, sp.Sum):
        body = expr.function
        limits = []
        for (i, lo, hi) in expr.limits:
            _require_range(body, i, lo, hi, expr)
            fresh = sp.Dummy(str(i), integer=True)
            body = body.xreplace({i: fresh})
            limits.append((fresh, lo, hi))
        out = []
        for t in _terms(body):
            out.append(_Term(t.coeff, tuple(limits) + t.indices, t.monomial))
        return out
    raise ValueError(f"E needs a polynomial in random entries and sums of them; unsupported: "
                     f"{type(expr).__name__} in {expr}")


def _shown_positive(x: Any) -> bool:
    return sp.sympify(x).is_positive is True


def _require_index(vec: RandomVector, index: Any, entry: Any) -> None:
    """Refuse an entry that is not one of the vector's: an index not an integer (``q[1/2]``; a symbol
    not declared integer) or shown outside ``1..dim`` (``q[0]``, ``q[d + 1]`` of a vector of length
    ``d``). An index not shown either way (``q[i]``) is taken as one of the entries."""
    index = sp.sympify(index)
    if index.is_integer is not True:
        why = ("is not an integer" if index.is_integer is False
               else "is not known to be an integer (declare it integer=True)")
        raise ValueError(f"{sp.sstr(entry)}: the index {sp.sstr(index)} {why}; the entries of {vec.name} are "
                         f"{vec.name}[1], ..., {vec.name}[{sp.sstr(vec.dim)}]")
    if _shown_positive(1 - index) or _shown_positive(index - vec.dim):
        raise ValueError(f"{sp.sstr(entry)}: the index {sp.sstr(index)} is outside 1..{sp.sstr(vec.dim)}, the "
                         f"entries of {vec.name}")


def _require_range(body: Any, var: Any, lo: Any, hi: Any, whole: Any) -> None:
    """Refuse a sum whose index runs outside a random vector it indexes: ``sum_{i=0}^{d} q_i`` of a
    vector of length ``d`` (a range shown empty is no entry at all, and is allowed)."""
    if not isinstance(body, sp.Basic) or _shown_positive(lo - hi):
        return
    for a in body.atoms(sp.Indexed):
        vec = random_vector_of(a)
        if vec is None or len(a.indices) != 1 or var not in a.indices[0].free_symbols:
            continue
        ends = [sp.sympify(a.indices[0]).xreplace({var: e}) for e in (lo, hi)]
        if sp.sympify(a.indices[0]).as_poly(var) is None or sp.degree(a.indices[0], var) != 1:
            continue  # an index not affine in the summation variable: its values are not the ends'
        if any(_shown_positive(1 - e) or _shown_positive(e - vec.dim) for e in ends):
            raise ValueError(f"{sp.sstr(whole)}: the index {sp.sstr(a.indices[0])} of {vec.name} runs over "
                             f"{sp.sstr(ends[0])}..{sp.sstr(ends[1])}, outside 1..{sp.sstr(vec.dim)}, the "
                             f"entries of {vec.name}")


def _product(a: _Term, b: _Term) -> _Term:
    # each copy of a sum carries its own dummies; re-freshen b's so a product of a sum with
    # itself gets two independent summation indices
    rename = {i: sp.Dummy(i.name, integer=True) for (i, _, _) in b.indices}
    idx = tuple((rename[i], lo, hi) for (i, lo, hi) in b.indices)
    mono = tuple((v, sp.sympify(x).xreplace(rename), p) for (v, x, p) in b.monomial)
    return _Term(a.coeff * b.coeff.xreplace(rename), a.indices + idx, a.monomial + mono)


def _set_partitions(items: list) -> Iterator[list[list]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        yield [[first]] + part
        for n in range(len(part)):
            yield part[:n] + [[first] + part[n]] + part[n + 1:]


def _falling(d: sp.Expr, k: int) -> sp.Expr:
    return sp.Mul(*[d - r for r in range(k)])


def _term_expectation(t: _Term) -> sp.Expr:
    dummies = {i for (i, _, _) in t.indices}
    if t.coeff.free_symbols & dummies:
        raise ValueError(f"a deterministic factor depends on a summation index: {t.coeff}")
    # every summation index that picks an entry must run over 1..dim of that vector
    ranges: dict = {}
    for (v, x, _) in t.monomial:
        if x in dummies:
            (lo, hi) = next((lo, hi) for (i, lo, hi) in t.indices if i == x)
            if lo != 1 or sp.simplify(hi - v.dim) != 0:
                raise ValueError(f"the index of {v.name} runs over {lo}..{hi}, not 1..{v.dim}")
            ranges.setdefault(x, v.dim)
        elif x.free_symbols & dummies:
            raise ValueError(f"entry index {x} of {v.name} must be a summation index itself, an integer or a symbol")
    count = sp.S.One
    for (i, lo, hi) in t.indices:
        if i not in ranges:  # an index no entry uses just counts
            count *= hi - lo + 1
    # fixed (non-summation) indices, grouped by dimension
    fixed: dict = {}
    for (v, x, _) in t.monomial:
        if x not in dummies:
            fixed.setdefault(v.dim, set()).add(x)
    for dim, values in fixed.items():
        syms = [x for x in values if not x.is_Integer]
        if len(values) > 1 and syms:
            raise ValueError(f"cannot tell whether the fixed indices {sorted(map(str, values))} coincide; "
                             f"use sums or integer indices")
        for x in values:
            if x.is_Integer and (x < 1 or (dim.is_Integer and x > dim)):
                raise ValueError(f"index {x} out of range 1..{dim}")
    by_dim: dict = {}
    for i, dim in ranges.items():
        by_dim.setdefault(dim, []).append(i)
    groups = list(by_dim.items())
    total = sp.S.Zero
    for assignment in itertools.product(*[list(_patterns(idx, sorted(fixed.get(dim, ()), key=str)))
                                          for dim, idx in groups]):
        value_of: dict = {}
        mult = sp.S.One
        for (dim, _), (mapping, new_blocks) in zip(groups, assignment):
            value_of.update(mapping)
            mult *= _falling(dim - len(fixed.get(dim, ())), new_blocks)
        powers: dict = {}
        for (v, x, p) in t.monomial:
            key = (v, value_of.get(x, x))
            powers[key] = powers.get(key, 0) + p
        moment = sp.S.One
        done = set()
        for (v, at), p in powers.items():
            if (v, at) in done:
                continue
            done.add((v, at))
            if v.pair is None:
                moment *= v.raw_moment(p)
                continue
            other = v.pair.other(v)
            p_other = powers.get((other, at), 0)
            done.add((other, at))
            a_, b_ = (p, p_other) if v is v.pair.q else (p_other, p)
            moment *= v.pair.mixed_moment(a_, b_)
        total += mult * moment
    return t.coeff * count * total


def _patterns(indices: list, fixed: list) -> Iterator[tuple[dict, int]]:
    """Coincidence patterns of ``indices``: each block of a set partition is either equal to one
    of the ``fixed`` values (each used once) or a new value; yields (index -> value, #new blocks)."""
    for part in _set_partitions(list(indices)):
        slots = [None] + list(fixed)
        for choice in itertools.product(range(len(slots)), repeat=len(part)):
            used = [c for c in choice if c]
            if len(used) != len(set(used)):
                continue
            mapping, new = {}, 0
            for block, c in zip(part, choice):
                if c:
                    value = slots[c]
                else:
                    value = sp.Dummy("b", integer=True)
                    new += 1
                for i in block:
                    mapping[i] = value
            yield mapping, new


def _tidy(expr: sp.Expr) -> sp.Expr:
    return sp.factor_terms(sp.expand(expr))


def E(expr: Any) -> sp.Expr:
    """The expectation of a polynomial in entries of random vectors (and sums of them).

    >>> import sympy as sp
    >>> d = sp.Symbol("d", integer=True, positive=True)
    >>> m, s = sp.symbols("m s", positive=True)
    >>> from symattn.kernel.objects.random_vectors import iid_vector
    >>> q = iid_vector("q", d, mean=m, variance=s**2); k = iid_vector("k", d, variance=1)
    >>> E(dot(q, k))
    0
    >>> E(dot(q, q))   # d (s^2 + m^2)
    d*(m**2 + s**2)
    >>> E(q[1] * q[2])   # distinct entries are independent
    m**2
    """
    expr = _value(expr, "expr") if not isinstance(expr, sp.Basic) else expr
    return _tidy(sp.Add(*[_term_expectation(t) for t in _terms(expr)]))


def Var(expr: Any) -> sp.Expr:
    """``E[X^2] - E[X]^2`` in closed form.

    >>> import sympy as sp
    >>> d = sp.Symbol("d", integer=True, positive=True); s = sp.Symbol("s", positive=True)
    >>> from symattn.kernel.objects.random_vectors import gaussian_vector
    >>> q = gaussian_vector("q", d, s); k = gaussian_vector("k", d, s)
    >>> Var(dot(q, k) / sp.sqrt(d))   # the scaled logit: variance independent of d
    s**4
    """
    expr = _value(expr, "expr") if not isinstance(expr, sp.Basic) else expr
    _require_real(expr, "Var")
    return _tidy(E(expr**2) - E(expr) ** 2)


def _require_real(expr: Any, what: str) -> None:
    """Refuse a variance or covariance of an argument not known to be real: ``E[X^2] - E[X]^2`` is the
    variance of a real ``X`` only (of a complex ``Z`` the usual one is ``E|Z - EZ|^2``, which this
    calculus does not compute), so ``Var(i q)`` is not ``-Var(q)``."""
    if isinstance(expr, sp.Basic) and expr.is_real is not True:
        raise ValueError(f"{what}({sp.sstr(expr)}): the argument is not known to be real; the variance and "
                         "covariance here are of real random variables (E[X^2] - E[X]^2), and of a complex Z the "
                         "usual variance is E|Z - EZ|^2 -- write that expectation instead")


def Cov(a: Any, b: Any) -> sp.Expr:
    """``E[ab] - E[a]E[b]`` in closed form.

    >>> import sympy as sp
    >>> d = sp.Symbol("d", integer=True, positive=True); m = sp.Symbol("m", positive=True)
    >>> from symattn.kernel.objects.random_vectors import iid_vector
    >>> q = iid_vector("q", d, variance=1)
    >>> k1 = iid_vector("k1", d, mean=m, variance=1); k2 = iid_vector("k2", d, mean=m, variance=1)
    >>> Cov(dot(q, k1), dot(q, k2))   # two logits of the same query share q
    d*m**2
    """
    a = _value(a, "a") if not isinstance(a, sp.Basic) else a
    b = _value(b, "b") if not isinstance(b, sp.Basic) else b
    _require_real(a, "Cov")
    _require_real(b, "Cov")
    return _tidy(E(a * b) - E(a) * E(b))


# ----------------------------------------------------------------------------------- correlated pairs
@dataclass(eq=False)
class CorrelatedPair:
    """The joint law of the pairs ``(q_i, k_i)``: mean zero, variance ``variance`` each,
    covariance ``covariance``, independent across ``i``; mixed moments ``E[q_i^a k_i^b]`` from
    ``mixed`` (given), the bivariate normal law (``gaussian=True``), or fresh symbols."""

    q: RandomVector = None  # type: ignore[assignment]
    k: RandomVector = None  # type: ignore[assignment]
    variance: Any = None
    covariance: Any = None
    gaussian: bool = False
    mixed: dict = field(default_factory=dict)
    _cache: dict = field(default_factory=dict, repr=False)

    def other(self, v: RandomVector) -> RandomVector:
        return self.k if v is self.q else self.q

    def mixed_moment(self, a: int, b: int) -> sp.Expr:
        """``E[q_i^a k_i^b]``.

        >>> import sympy as sp
        >>> s, r = sp.symbols("sigma rho", positive=True)
        >>> from symattn.kernel.objects.random_vectors import correlated_vectors
        >>> q, k = correlated_vectors("q", "k", 3, variance=s**2, covariance=r * s**2, gaussian=True)
        >>> q.pair.mixed_moment(1, 1), sp.factor(q.pair.mixed_moment(2, 2))   # Isserlis
        (rho*sigma**2, sigma**4*(2*rho**2 + 1))
        """
        a, b = _order(a), _order(b)
        if (a, b) in self.mixed:
            return self.mixed[(a, b)]
        if b == 0:
            return self.q.raw_moment(a)
        if a == 0:
            return self.k.raw_moment(b)
        if (a, b) == (1, 1):
            return self.covariance
        if self.gaussian:
            return _bivariate_normal_moment(a, b, self.variance, self.covariance)
        key = (a, b)
        if key not in self._cache:
            self._cache[key] = sp.Symbol(f"mu_{a}{b}^{self.q.name}{self.k.name}", real=True,
                                         **({"nonnegative": True} if a % 2 == 0 and b % 2 == 0 else {}))
        return self._cache[key]


def _bivariate_normal_moment(a: int, b: int, var: sp.Expr, cov: sp.Expr) -> sp.Expr:
    """``E[X^a Y^b]`` for a centred bivariate normal: ``a! b!`` times the coefficient of
    ``t^a u^b`` in the moment generating function ``exp((var t^2 + 2 cov t u + var u^2)/2)``."""
    if (a + b) % 2:
        return sp.S.Zero
    m = (a + b) // 2
    t, u = sp.symbols("t u")
    poly = sp.Poly(sp.expand((var * t**2 + 2 * cov * t * u + var * u**2) ** m), t, u)
    coeff = poly.coeff_monomial(t**a * u**b)
    return sp.expand(coeff * sp.factorial(a) * sp.factorial(b) / (sp.factorial(m) * 2**m))


# ----------------------------------------------------------------------------------- oracle
def explicit_expectation(expr: sp.Expr, moments: dict) -> sp.Expr:
    """Expectation of a polynomial in *independent* scalar symbols, given each one's raw moments
    ``moments[symbol](order)``: expand, and replace every monomial by the product of moments.

    A second, independent route to the same numbers at a concrete size (no index patterns, no
    falling factorials), used by the instance checks and the tests.

    >>> import sympy as sp
    >>> x, y, s = sp.symbols("x y s")
    >>> mom = {x: lambda r: [1, 0, s**2, 0, 3*s**4][r], y: lambda r: [1, 0, 1, 0, 3][r]}
    >>> explicit_expectation((x*y + x)**2, mom)
    2*s**2
    """
    if not isinstance(expr, sp.Expr):
        raise TypeError(f"expr must be a SymPy expression, got {type(expr).__name__}")
    gens = [g for g in moments if g in expr.free_symbols]
    if not gens:
        return sp.expand(expr)
    poly = sp.Poly(sp.expand(expr), *gens)
    total = sp.S.Zero
    for powers, coeff in poly.terms():
        term = coeff
        for g, p in zip(gens, powers):
            if p:
                term *= moments[g](p)
        total += term
    return sp.expand(total)
