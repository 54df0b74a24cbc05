"""Statements and hypotheses: what a theorem claims, and under which assumptions.

A :class:`Statement` is ``lhs REL rhs`` with ``REL`` one of ``=, <=, <, >=, >``. It is kept
unevaluated on purpose: ``sympy.Eq(A, B)`` of two explicit matrices collapses to ``True`` or
``False`` at construction, which would hide exactly what we want to check.

Hypotheses are small objects that say what may be used in a proof: an equation that the
``substitute`` rule may apply, an index range that the summation rules consult, a family of
independent random entries that the expectation rules consult.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

__all__ = [
    "Statement",
    "RELATIONS",
    "Hypothesis",
    "Assumption",
    "Equation",
    "IndexRange",
    "RandomFamily",
    "Independent",
    "CorrelatedPairs",
    "free_symbols",
]

RELATIONS = ("=", "<=", "<", ">=", ">")
_LATEX_REL = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}


def free_symbols(expr: Any) -> set:
    """Free symbols of a SymPy object (matrices included); empty for plain numbers."""
    fs = getattr(expr, "free_symbols", None)
    return set(fs) if fs is not None else set()


@dataclass(frozen=True)
class Statement:
    """``lhs relation rhs``, unevaluated."""

    lhs: Any
    rhs: Any
    relation: str = "="

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {self.relation!r}")
        for name in ("lhs", "rhs"):  # text is never parsed (no sympify of outside strings)
            value = getattr(self, name)
            if isinstance(value, (str, bytes)):
                raise TypeError(f"Statement: {name} must be a SymPy expression (or a symattn term), got the string "
                                f"{value!r}; build it with SymPy, e.g. x = sympy.Symbol('x'), then Statement(x, x)")
            if isinstance(value, bool) or (isinstance(value, (sp.logic.boolalg.Boolean, sp.Set))
                                           and not isinstance(value, sp.Expr)):
                raise TypeError(f"Statement: {name} must be a quantity (a number, a SymPy expression or a matrix), "
                                f"got the {'truth value' if isinstance(value, bool) else type(value).__name__} "
                                f"{value!r}; a statement relates two quantities by its relation "
                                f"{self.relation!r}: state a condition as Statement(lhs, rhs, '<=') or as a hypothesis")
        object.__setattr__(self, "lhs", sp.sympify(self.lhs, strict=True) if _plain(self.lhs) else self.lhs)
        object.__setattr__(self, "rhs", sp.sympify(self.rhs, strict=True) if _plain(self.rhs) else self.rhs)

    @property
    def free_symbols(self) -> set:
        return free_symbols(self.lhs) | free_symbols(self.rhs)

    def latex(self) -> str:
        from symattn.language.printing import latex

        return f"{latex(self.lhs)} {_LATEX_REL[self.relation]} {latex(self.rhs)}"

    def __str__(self) -> str:
        return f"{sp.sstr(self.lhs)} {self.relation} {sp.sstr(self.rhs)}"

    def subs(self, mapping) -> Statement:
        return Statement(_subs(self.lhs, mapping), _subs(self.rhs, mapping), self.relation)


def _plain(x: Any) -> bool:
    # sympify(strict=True) only converts Python numbers; it never parses strings.
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _subs(expr: Any, mapping) -> Any:
    return expr.subs(mapping) if hasattr(expr, "subs") else expr


# ----------------------------------------------------------------------------- hypotheses


@dataclass(frozen=True)
class Hypothesis:
    """Base class. ``name`` lets a proof step cite the hypothesis."""

    name: str

    def describe(self) -> str:  # pragma: no cover - overridden
        return self.name

    def latex(self) -> str:
        from symattn.language.printing import text_to_tex

        return r"\text{" + text_to_tex(self.describe()) + "}"


@dataclass(frozen=True)
class Assumption(Hypothesis):
    """A condition on symbols, stated as a SymPy boolean/relational or in words.

    Assumptions that SymPy can use (positivity, integrality) should also be put on the
    symbols themselves; this object records them for the reader.
    """

    condition: Any = None
    text: str = ""

    def describe(self) -> str:
        if self.text:
            return self.text
        return sp.sstr(self.condition)

    def latex(self) -> str:
        if self.condition is not None and not isinstance(self.condition, str):
            from symattn.language.printing import latex

            return latex(self.condition)
        return super().latex()


@dataclass(frozen=True)
class Equation(Hypothesis):
    """An equation ``lhs = rhs`` that the ``substitute`` rule may apply in either direction."""

    lhs: Any = None
    rhs: Any = None
    #: symbols that are universally quantified (pattern variables for ``substitute``)
    forall: tuple = ()

    def describe(self) -> str:
        q = f" for all {', '.join(map(str, self.forall))}" if self.forall else ""
        return f"{self.name}: {sp.sstr(self.lhs)} = {sp.sstr(self.rhs)}{q}"

    def latex(self) -> str:
        from symattn.language.printing import latex

        return f"{latex(self.lhs)} = {latex(self.rhs)}"


@dataclass(frozen=True)
class IndexRange(Hypothesis):
    """The integer index ``index`` ranges over ``lower..upper`` (inclusive)."""

    index: Any = None
    lower: Any = None
    upper: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.index, sp.Symbol):
            raise TypeError(f"IndexRange {self.name!r}: index must be a SymPy symbol, got {self.index!r}")
        if self.index.is_integer is False:
            raise ValueError(f"IndexRange {self.name!r}: index {self.index} is declared non-integer")
        lo, hi = _expr(self.lower, self.name, "lower"), _expr(self.upper, self.name, "upper")
        for what, b in (("lower", lo), ("upper", hi)):
            if b.is_infinite or b.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
                raise ValueError(
                    f"IndexRange {self.name!r}: the {what} bound {sp.sstr(b)} of {self.index} is not finite "
                    "(an index range is a finite range of integers; to say an index is any positive integer, "
                    "declare its symbol integer=True, positive=True)"
                )
        if self.index in lo.free_symbols | hi.free_symbols:
            raise ValueError(f"IndexRange {self.name!r}: the bounds of {self.index} mention {self.index} itself")
        if (hi - lo + 1).is_positive is False:  # decidably empty: lower > upper
            raise ValueError(
                f"IndexRange {self.name!r}: the range {sp.sstr(lo)}..{sp.sstr(hi)} of {self.index} is empty "
                "(an empty range makes every claim about its index vacuous)"
            )

    def describe(self) -> str:
        return f"{self.index} in {{{self.lower}, ..., {self.upper}}}"

    def latex(self) -> str:
        from symattn.language.printing import latex

        return rf"{latex(self.index)} \in \{{{latex(self.lower)}, \dots, {latex(self.upper)}\}}"


@dataclass(frozen=True)
class RandomFamily(Hypothesis):
    """Random entries ``base[i]`` for ``i`` in ``1..dim``, mutually independent and identically
    distributed, with the given mean and variance (and optionally further raw moments)."""

    base: Any = None
    dim: Any = None
    mean: Any = 0
    variance: Any = None
    moments: tuple = field(default_factory=tuple)  # ((order, raw_moment), ...)

    def __post_init__(self) -> None:
        if self.variance is None:
            raise ValueError(f"RandomFamily {self.name!r}: a variance is required")
        var = _expr(self.variance, self.name, "variance")
        if not (var.is_nonnegative or sp.expand(var).is_nonnegative or sp.factor(var).is_nonnegative):
            raise ValueError(
                f"RandomFamily {self.name!r}: variance {sp.sstr(var)} is not provably nonnegative from the "
                "symbols' assumptions (declare them positive, or write the variance as a square)"
            )
        dim = _expr(self.dim, self.name, "dim")
        if dim.is_positive is False or dim.is_integer is False:
            raise ValueError(f"RandomFamily {self.name!r}: dim {sp.sstr(dim)} must be a positive integer")
        if not isinstance(self.base, sp.IndexedBase):
            raise TypeError(f"RandomFamily {self.name!r}: base must be a SymPy IndexedBase, got {self.base!r}")
        _expr(self.mean, self.name, "mean")
        _moment_table(self.moments, self.name, "moments", "(order, raw_moment)", 1)

    def describe(self) -> str:
        return (
            f"entries of {self.base} (1..{self.dim}) independent, identically distributed, "
            f"mean {sp.sstr(self.mean)}, variance {sp.sstr(self.variance)}"
        )

    def latex(self) -> str:
        from symattn.language.printing import latex

        b = latex(self.base)
        return (
            rf"{b}_1, \dots, {b}_{{{latex(self.dim)}}} \text{{ i.i.d.}},\ "
            rf"\mathbb{{E}}[{b}_i] = {latex(self.mean)},\ \operatorname{{Var}}({b}_i) = {latex(self.variance)}"
        )


@dataclass(frozen=True)
class Independent(Hypothesis):
    """The random families listed are mutually independent of one another."""

    families: tuple = ()

    def describe(self) -> str:
        return "independent: " + ", ".join(str(f) for f in self.families)

    def latex(self) -> str:
        from symattn.language.printing import latex

        return ", ".join(latex(f) for f in self.families) + r" \text{ mutually independent}"


@dataclass(frozen=True)
class CorrelatedPairs(Hypothesis):
    """Pairs ``(q_i, k_i)``, ``i = 1..dim``: ``Cov(q_i, k_i) = covariance``, the mixed moments
    ``E[q_i^a k_i^b]`` listed in ``mixed`` (``((a, b), value)``), independent across ``i``.

    The families ``q`` and ``k`` must each be declared by a :class:`RandomFamily` (their marginal
    laws: means, variances); they are *not* independent of each other, so no :class:`Independent`
    hypothesis may list both (the kernel refuses such hypotheses as inconsistent).

    >>> q, k = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
    >>> d = sp.Symbol("d", integer=True, positive=True); r = sp.Symbol("rho")
    >>> CorrelatedPairs("pairs", q=q, k=k, dim=d, covariance=r).describe()
    '(q_i, k_i) for i in 1..d: Cov = rho, independent across i'
    """

    q: Any = None
    k: Any = None
    dim: Any = None
    covariance: Any = None
    mixed: tuple = ()

    def __post_init__(self) -> None:
        for what in ("q", "k"):
            if not isinstance(getattr(self, what), sp.IndexedBase):
                raise TypeError(f"CorrelatedPairs {self.name!r}: {what} must be a SymPy IndexedBase, "
                                f"got {getattr(self, what)!r}")
        if self.q == self.k:
            raise ValueError(f"CorrelatedPairs {self.name!r}: q and k are the same family {self.q}")
        dim = _expr(self.dim, self.name, "dim")
        if dim.is_positive is False or dim.is_integer is False:
            raise ValueError(f"CorrelatedPairs {self.name!r}: dim {sp.sstr(dim)} must be a positive integer")
        _expr(self.covariance, self.name, "covariance")
        _moment_table(self.mixed, self.name, "mixed", "((a, b), value)", 2)

    def describe(self) -> str:
        extra = "".join(f", E[{self.q}^{a} {self.k}^{b}] = {sp.sstr(v)}" for (a, b), v in self.mixed)
        return (f"({self.q}_i, {self.k}_i) for i in 1..{self.dim}: Cov = {sp.sstr(self.covariance)}{extra}, "
                "independent across i")

    def latex(self) -> str:
        from symattn.language.printing import latex

        q, k = latex(self.q), latex(self.k)
        extra = "".join(rf",\ \mathbb{{E}}[{q}_i^{{{a}}} {k}_i^{{{b}}}] = {latex(v)}" for (a, b), v in self.mixed)
        return (rf"({q}_i, {k}_i)_{{i=1}}^{{{latex(self.dim)}}} \text{{ independent across }} i,\ "
                rf"\operatorname{{Cov}}({q}_i, {k}_i) = {latex(self.covariance)}{extra}")


def _moment_table(table: Any, name: str, what: str, shape: str, arity: int) -> None:
    """Refuse a malformed table of moments, naming the entry: ``arity`` 1 is ``((order, value), ...)``,
    2 is ``(((a, b), value), ...)``."""
    if not isinstance(table, (tuple, list)):
        raise TypeError(f"hypothesis {name!r}: {what} must be a tuple of {shape}, got {table!r}")
    for entry in table:
        ok = isinstance(entry, (tuple, list)) and len(entry) == 2
        orders = entry[0] if ok else None
        if ok and arity == 2:
            ok = isinstance(orders, (tuple, list)) and len(orders) == 2
        if not ok:  # the orders' values (integers >= 1) are the kernel's to check: it refuses the hypothesis
            raise ValueError(f"hypothesis {name!r}: {what} entry {entry!r} is not of the form {shape}")
        _expr(entry[1], name, f"the value of {what} entry {entry!r}")


def _expr(x: Any, name: str, what: str) -> sp.Expr:
    """A hypothesis field as a SymPy expression (Python numbers converted; strings refused)."""
    if isinstance(x, sp.Basic):
        return x
    if _plain(x):
        return sp.sympify(x, strict=True)
    raise TypeError(f"hypothesis {name!r}: {what} must be a SymPy expression or a number, got {x!r}")


def hypotheses_of(kind: type, hypotheses: Iterable[Hypothesis]) -> list:
    return [h for h in hypotheses if isinstance(h, kind)]
