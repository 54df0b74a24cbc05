"""The term layer: binders, free symbols, capture-avoiding substitution, alpha-equivalence.

SymPy keeps the bound variable of a ``Sum``, ``Product``, ``Integral``, ``Lambda`` or ``Limit`` as an ordinary
symbol, so ``xreplace`` and ``subs`` rewrite bound occurrences as if they were free, and a bound
``j`` keeps whatever assumptions the user gave a free ``j``. This module makes the terms the rules
see *locally nameless*: :func:`canonical` replaces every bound variable by a :class:`~sympy.Dummy`
chosen by its binding depth (a de Bruijn level) and carrying only what its range implies
(``integer`` when the lower bound is an integer; ``positive`` when the lower bound is provably at
least 1; ``nonnegative`` when it is at least 0; ``negative``/``nonpositive`` from the upper bound).
Two alpha-equivalent terms have the same canonical form, a hypothesis about a free ``j`` can never
match a bound occurrence (the bound one is a dummy), and a user symbol named like a canonical
variable is still a :class:`~sympy.Symbol`, which never equals a dummy.

Scopes, for ``Sum(f, (a, la, ha), (b, lb, hb))`` (``b`` outermost, as SymPy nests them): ``lb, hb``
are in the enclosing scope, ``la, ha`` in the scope of ``b``, ``f`` in the scope of ``a`` and ``b``.

>>> import sympy as sp
>>> j, n = sp.symbols("j n", integer=True, positive=True)
>>> k = sp.Symbol("k")
>>> canonical(sp.Sum(j**2, (j, 1, n))) == canonical(sp.Sum(k**2, (k, 1, n)))
True
>>> canonical(sp.Sum(j, (j, 0, n))).limits[0][0].is_positive   # summed from 0: not positive
>>> free_symbols(sp.Sum(j * k, (j, 1, n))) == {k, n}
True
"""

from __future__ import annotations

import functools
from typing import Any

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel import sympy_fixes  # noqa: F401 -- SymPy's wrong assumption handlers, corrected first

__all__ = [
    "BINDERS",
    "KernelError",
    "alpha_equal",
    "binder_limits",
    "bound_range",
    "canonical",
    "declare_binder",
    "free_symbols",
    "is_bound_variable",
    "open_binder",
    "substitute",
]

#: SymPy classes whose arguments bind variables: Sum, Product, Integral and our own classes built on
#: ExprWithLimits (Lambda is handled separately: it has no range)
BINDERS = (ExprWithLimits,)

class KernelError(ValueError):
    """A request the kernel refuses (shape mismatch, a matrix against a scalar, a sum it cannot
    evaluate, ...). ``symattn.rules.RuleError`` is this class: inside a rule it becomes ``fail``."""


_BASE = 7_340_000  # dummy_index of canonical variables: level * 8 + assumption pattern
_WINDOW_END = _BASE + 8 * 10_000  # canonical variables' indices are _BASE .. _WINDOW_END - 1

# SymPy numbers every other Dummy from a random base in 10**6 .. 9 * 10**6 (so that Dummies of two
# processes rarely meet), counting up: in about one process in a hundred, and in any long one whose
# base lies below the window, an ordinary Dummy -- a rule's fresh index -- got an index inside the
# canonical window and was read as a bound variable ("_i is not a symbol of its own", seen in CI).
# The base is moved above the window, once, keeping its randomness and the order of the indices
# already given (every later index is larger than every earlier one).
if sp.Dummy._base_dummy_index + sp.Dummy._count < _WINDOW_END:
    sp.Dummy._base_dummy_index += _WINDOW_END


def _range_assumptions(lo: Any, hi: Any, integral: bool) -> dict:
    """What a variable ranging over ``lo..hi`` is known to be, from the bounds alone."""
    if integral:
        a: dict = {}
        if getattr(lo, "is_integer", False) or getattr(hi, "is_integer", False):
            a["integer"] = True
        else:
            return a
        # Karr's convention: over a reversed range (hi < lo - 1) the summand is read at hi+1..lo-1, so
        # the variable lies between min(lo, hi + 1) and max(hi, lo - 1); a bound lends its sign only
        # when that holds whichever way the range runs
        low = lo if (hi - lo + 1).is_nonnegative else (sp.Min(lo, hi + 1) if isinstance(hi, sp.Basic) else lo)
        high = hi if (hi - lo + 1).is_nonnegative else (sp.Max(hi, lo - 1) if isinstance(lo, sp.Basic) else hi)
        if low.is_positive or (low - 1).is_nonnegative:
            a["positive"] = True
        elif low.is_nonnegative:
            a["nonnegative"] = True
        elif high.is_negative or (high + 1).is_nonpositive:
            a["negative"] = True
        elif high.is_nonpositive:
            a["nonpositive"] = True
        return a
    # an integration variable is real between real bounds
    if getattr(lo, "is_extended_real", False) and getattr(hi, "is_extended_real", False):
        return {"real": True}
    return {}


_PATTERNS = ("", "integer", "positive", "nonnegative", "negative", "nonpositive", "real")


def _variable(level: int, assumptions: dict) -> sp.Dummy:
    key = max((i for i, p in enumerate(_PATTERNS) if p in assumptions), default=0)
    return sp.Dummy(f"k{level}", dummy_index=_BASE + 8 * level + key, **assumptions)


#: our own heads whose first argument is a Lambda over an integer range: class -> args -> (lo, hi)
LAMBDA_RANGES: dict = {}


def declare_binder(cls: type, bounds) -> None:
    """Declare that ``cls(Lambda(v, body), ...)`` lets ``v`` range over ``bounds(args)`` = (lo, hi)
    (``Softmax(Lambda(j, ...), i, n)``: ``j`` in ``1..n``), so the opened variable knows that range."""
    LAMBDA_RANGES[cls] = bounds


def is_bound_variable(x: Any) -> bool:
    """Whether ``x`` is a canonical bound variable made by :func:`canonical`."""
    return isinstance(x, sp.Dummy) and x.dummy_index is not None and _BASE <= x.dummy_index < _WINDOW_END


def bound_range(x: Any) -> str:
    """The assumptions a canonical bound variable carries, for messages."""
    return ", ".join(k for k in _PATTERNS[1:] if x.assumptions0.get(k)) or "nothing"


def binder_limits(expr: Any) -> list:
    """The limits of a Sum/Product/Integral, innermost first (SymPy's order)."""
    return [tuple(lim) for lim in expr.limits]


# ---------------------------------------------------------------------------------------------
def substitute(expr: Any, mapping: dict) -> Any:
    """Replace the *free* occurrences of the keys of ``mapping`` (symbols, or any subterm) by their
    values. Under a binder, a key bound there is left alone, and a bound variable that occurs free
    in a value is renamed first (so nothing is captured)."""
    mapping = {k: v for k, v in mapping.items() if k is not v}
    if not mapping:
        return expr
    return _subst(expr, mapping)


def _subst(e: Any, m: dict) -> Any:
    if isinstance(e, sp.MatrixBase):
        return e.applyfunc(lambda x: _subst(x, m))
    if not isinstance(e, sp.Basic):
        return e
    if e in m:
        return m[e]
    if not e.args:
        return e
    if isinstance(e, BINDERS):
        return _subst_binder(e, m)
    if isinstance(e, sp.Limit):
        body, z, z0, direction = e.args
        z0 = _subst(z0, m)
        m2 = {k: v for k, v in m.items() if z not in free_symbols(k) and k != z}
        vals = set().union(*(free_symbols(v) for v in m2.values())) if m2 else set()
        if z in vals:  # rename the limit variable rather than capture
            new = sp.Dummy(str(z), **z.assumptions0)
            body, z = _subst(body, {z: new}), new
        return sp.Limit(_subst(body, m2), z, z0, str(direction))
    if isinstance(e, sp.Lambda):
        vs = list(e.variables)
        body = e.expr
        m2 = {k: v for k, v in m.items() if not (free_symbols(k) & set(vs))}
        vals = set().union(*(free_symbols(v) for v in m2.values())) if m2 else set()
        for idx, v in enumerate(vs):
            if v in vals:
                new = sp.Dummy(str(v), **v.assumptions0)
                body = _subst(body, {v: new})
                vs[idx] = new
        return sp.Lambda(tuple(vs), _subst(body, m2))
    args = [_subst(a, m) for a in e.args]
    if all(a is b for a, b in zip(args, e.args)):
        return e
    return e.func(*args)


def _subst_binder(e: Any, m: dict) -> Any:
    limits = [list(lim) for lim in e.limits]
    body = e.function
    # outermost first: its bounds are in the enclosing scope
    active = dict(m)
    for idx in range(len(limits) - 1, -1, -1):
        lim = limits[idx]
        v = lim[0]
        lim[1:] = [_subst(b, active) for b in lim[1:]]
        active = {k: val for k, val in active.items() if v not in free_symbols(k) and k != v}
        vals = set().union(*(free_symbols(val) for val in active.values())) if active else set()
        if v in vals:  # rename the binder rather than capture
            new = sp.Dummy(str(v), **v.assumptions0)
            ren = {v: new}
            body = _subst(body, ren)
            for inner in limits[:idx]:
                inner[1:] = [_subst(b, ren) for b in inner[1:]]
            lim[0] = new
    body = _subst(body, active)
    return e.func(body, *[tuple(lim) for lim in limits])


# ---------------------------------------------------------------------------------------------
def free_symbols(expr: Any) -> set:
    """Free symbols through binders, with Indexed bases and indices, and the symbols in the shape of
    a matrix symbol (which SymPy leaves out)."""
    if isinstance(expr, sp.MatrixBase):
        return set().union(*(free_symbols(x) for x in expr)) if len(expr) else set()
    if not isinstance(expr, sp.Basic):
        return set()
    if isinstance(expr, (sp.Symbol, sp.IndexedBase)) and not isinstance(expr, sp.MatrixSymbol):
        return {expr} if isinstance(expr, sp.Symbol) else {expr.label}
    if isinstance(expr, sp.MatrixSymbol):
        out = {expr}
        for dim in expr.shape:
            out |= free_symbols(dim)
        return out
    if isinstance(expr, BINDERS):
        inner = free_symbols(expr.function)
        for (v, *bounds) in expr.limits:  # innermost first
            inner.discard(v)
            for b in bounds:
                inner |= free_symbols(b)
        return inner
    if isinstance(expr, sp.Lambda):
        return free_symbols(expr.expr) - set(expr.variables)
    if isinstance(expr, sp.Limit):
        return (free_symbols(expr.args[0]) - {expr.args[1]}) | free_symbols(expr.args[2])
    out: set = set()
    for a in expr.args:
        out |= free_symbols(a)
    return out


# ---------------------------------------------------------------------------------------------
def canonical(expr: Any, level: int = 0) -> Any:
    """The locally nameless form of ``expr``: every bound variable replaced by the canonical dummy
    of its binding depth, carrying only what its range implies. Idempotent; alpha-equivalent terms
    have equal canonical forms.

    A term may hold canonical variables *free* (the body of a binder opened by :func:`open_binder`,
    or a summand a rule took out of a canonical sum): its own binders then start one level above the
    highest free one, so a binder can never capture them."""
    if isinstance(expr, sp.MatrixBase):
        level = max(level, _free_level(expr))
        return expr.applyfunc(lambda x: _canon(x, level))
    return _canon(expr, max(level, _free_level(expr)))


def _free_level(expr: Any) -> int:
    """One above the binding level of the highest canonical variable free in ``expr`` (0 if none)."""
    if isinstance(expr, sp.MatrixBase):
        return max((_free_level(x) for x in expr), default=0)
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Dummy):
        return 0
    levels = [(x.dummy_index - _BASE) // 8 for x in free_symbols(expr) if is_bound_variable(x)]
    return max(levels) + 1 if levels else 0


def _canon(expr: Any, level: int) -> Any:
    """:func:`canonical` below ``level``: every canonical variable free in ``expr`` is below it."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda x: _canon(x, level))
    if not isinstance(expr, sp.Basic) or not expr.args:
        return expr
    try:
        return _canonical_cached(expr, level)
    except TypeError:  # an unhashable argument somewhere: no cache
        return _canonical(expr, level)


@functools.lru_cache(maxsize=8192)
def _canonical_cached(expr: Any, level: int) -> Any:
    return _canonical(expr, level)


def _canonical(expr: Any, level: int) -> Any:
    if not _has_binder(expr):
        return expr
    if isinstance(expr, BINDERS):
        return _open(expr, level)
    if isinstance(expr, sp.Limit):
        return _open_limit(expr, level)
    if LAMBDA_RANGES and type(expr) in LAMBDA_RANGES and isinstance(expr.args[0], sp.Lambda) \
            and len(expr.args[0].variables) == 1:
        lo, hi = LAMBDA_RANGES[type(expr)](expr.args)
        lam = expr.args[0]
        v = lam.variables[0]
        new = _variable(level, _range_assumptions(lo, hi, True))
        body = _canon(_subst(_subst(lam.expr, {v: (tmp := sp.Dummy(str(v)))}), {tmp: new}), level + 1)
        rest = [_canon(a, level) for a in expr.args[1:]]
        try:
            return expr.func(sp.Lambda(new, body), *rest)
        except (TypeError, ValueError):
            return expr
    if isinstance(expr, sp.Lambda):
        tmp = {v: sp.Dummy(str(v)) for v in expr.variables}
        vs = [tmp[v] for v in expr.variables]
        ren = {}
        new_vs = []
        expr = sp.Lambda(tuple(vs), _subst(expr.expr, tmp))
        for off, v in enumerate(vs):
            new = _variable(level + off, {})
            ren[v] = new
            new_vs.append(new)
        body = _subst(expr.expr, ren)
        return sp.Lambda(tuple(new_vs), _canon(body, level + len(vs)))
    args = [_canon(a, level) for a in expr.args]
    if all(a is b for a, b in zip(args, expr.args)):
        return expr
    try:
        return expr.func(*args)
    except (TypeError, ValueError):  # a class that cannot be rebuilt from its args: leave it
        return expr


def _has_binder(expr: sp.Basic) -> bool:
    return expr.has(ExprWithLimits, sp.Lambda, sp.Limit)


def _open_limit(e: Any, level: int) -> Any:
    """``Limit(f, z, z0, dir)`` binds ``z``: it becomes the canonical variable of its level, knowing
    only what the approach implies (positive towards ``oo``, negative towards ``-oo``, real for a
    one-sided approach to a real point), never the user's assumptions on a free ``z``."""
    body, z, z0, direction = e.args
    z0 = _canon(z0, level)
    if z0 == sp.oo:
        assume = {"positive": True}
    elif z0 == -sp.oo:
        assume = {"negative": True}
    elif str(direction) in ("+", "-") and getattr(z0, "is_extended_real", False):
        assume = {"real": True}
    else:
        assume = {}
    new = _variable(level, assume)
    tmp = sp.Dummy(str(z))
    body = _subst(_subst(body, {z: tmp}), {tmp: new})
    return sp.Limit(_canon(body, level + 1), new, z0, str(direction))


def _open(e: Any, level: int) -> Any:
    integral = not isinstance(e, sp.Integral)
    limits = [list(lim) for lim in e.limits]
    body = e.function
    # first every own variable to a fresh dummy, so that renaming to canonical names cannot collide
    # with a canonical name already in use (an input that is itself canonical, or permuted limits).
    # Innermost first: a name bound twice (SymPy flattens Sum(Sum(s_k, (k, 1, k)), (k, 1, a)) into
    # Sum(s_k, (k, 1, k), (k, 1, a))) is, in the body, the innermost binding's, and in the bounds of an
    # inner limit the nearest enclosing one's -- which took its occurrences before an outer one could
    for idx in range(len(limits)):
        v = limits[idx][0]
        tmp = sp.Dummy(str(v))
        body = _subst(body, {v: tmp})
        for inner in limits[:idx]:
            inner[1:] = [_subst(b, {v: tmp}) for b in inner[1:]]
        limits[idx][0] = tmp
    lv = level
    for idx in range(len(limits) - 1, -1, -1):  # outermost first
        lim = limits[idx]
        v = lim[0]
        if len(lim) == 3:
            lim[1] = _canon(lim[1], lv)
            lim[2] = _canon(lim[2], lv)
            assume = _range_assumptions(lim[1], lim[2], integral)
        else:
            assume = {}
        new = _variable(lv, assume)
        ren = {v: new}
        body = _subst(body, ren)
        for inner in limits[:idx]:
            inner[1:] = [_subst(b, ren) for b in inner[1:]]
        lim[0] = new
        lv += 1
    body = _canon(body, lv)
    return e.func(body, *[tuple(lim) for lim in limits])


def open_binder(expr: Any, value: Any = None) -> tuple:
    """Open a single-limit ``Sum``/``Product`` (or ``Integral`` with bounds): ``(variable, lo, hi,
    body)`` where ``variable`` is the canonical variable of the binder (carrying only what its range
    implies) and ``body`` the summand with that variable free -- or, when ``value`` is given, with
    ``value`` substituted for it (capture-avoiding). The body is in canonical form: its own binders
    sit above the opened variable, so they never capture it.

    >>> import sympy as sp
    >>> j, n = sp.symbols("j n", integer=True, positive=True)
    >>> x = sp.IndexedBase("x")
    >>> v, lo, hi, body = open_binder(sp.Sum(x[j] * sp.Sum(x[j], (j, 1, n)), (j, 1, n)))
    >>> inner = body.atoms(sp.Sum).pop()
    >>> v in body.free_symbols and inner.limits[0][0] != v and v not in inner.free_symbols
    True
    """
    e = canonical(expr)
    if not isinstance(e, BINDERS) or len(e.limits) != 1 or len(e.limits[0]) != 3:
        raise KernelError(f"open_binder opens a single-limit binder with both bounds, not {sp.sstr(expr)}")
    (v, lo, hi) = e.limits[0]
    body = e.function
    if value is not None:
        body = canonical(substitute(body, {v: value}))
    return v, lo, hi, body


def alpha_equal(a: Any, b: Any) -> bool:
    """Structural equality up to the names of bound variables."""
    return canonical(a) == canonical(b)


def is_matrix(x: Any) -> bool:
    return isinstance(x, (sp.MatrixBase, MatrixExpr))
