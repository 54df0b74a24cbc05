"""Axiom schemas from index ranges: masks, absolute values, Kronecker deltas, floors, max/min, splits.

Inside ``sum_{j=a}^{b}`` the index satisfies ``a <= j <= b`` when the range is known not to be
reversed (``b >= a - 1``; SymPy's sum over a reversed range runs over ``b+1..a-1`` with a minus sign); an
:class:`~symattn.language.statement.IndexRange` hypothesis places a free index the same way, and an
:class:`~symattn.language.statement.Assumption` ``x <= y`` (or ``x >= y``) with one side a symbol bounds that
symbol. From these, :func:`range_sign` signs an expression that is a *polynomial of degree at most one*
in each ranged index (checked with ``Poly``: an index inside ``floor``, ``Piecewise``, ``Abs`` or any
other function is not linear, and is never differentiated): the expression is smallest at one end of
the range. ``Max``/``Min`` of linear pieces are handled the same way. Nothing is evaluated numerically;
an expression the procedure cannot sign is "unknown", never "true".

Schemas (each rewrites a whole term, with the enclosing summation ranges in view):

* ``mask_restrict``: ``sum_{j=a}^{b} 1[lo <= j <= hi] f(j) = sum_{j=max(a,lo)}^{min(b,hi)} f(j)``, and
  masks decided by the ranges evaluated to 1 or 0;
* ``abs_by_sign``: ``|x| = x`` where ``x >= 0``, ``|x| = -x`` where ``x <= 0`` (``x`` real);
* ``delta_by_range``: ``delta_{ij} = 0`` for integers ``i != j`` shown by the ranges;
* ``floor_by_range``: ``floor(x) = k`` for a given integer ``k`` with ``k <= x < k + 1``;
* ``minmax_by_range``: ``max(x, y) = x`` where ``y <= x``, ``min(x, y) = x`` where ``x <= y``;
* ``range_split``: ``sum_{k=a}^{b} f = sum_{k=a}^{m} f + sum_{k=m+1}^{b} f`` for ``a - 1 <= m <= b``
  shown from the ranges;
* ``range_inequality``: ``lhs <= rhs`` when ``scale (rhs - lhs)`` (``scale`` shown positive) is signed by
  :func:`range_sign`.

References
----------
Summation with Iverson brackets: Graham, Knuth and Patashnik, *Concrete Mathematics*, 2nd ed., section 2.1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from symattn.kernel.axioms import schema
from symattn.kernel.sign import sign_of
from symattn.kernel.terms import KernelError, canonical
from symattn.language.statement import Assumption, IndexRange

__all__ = ["provably_le", "provably_lt", "range_sign", "ranges_of"]


def _hyps() -> tuple:
    from symattn.kernel.zero import HYPOTHESES

    return tuple(HYPOTHESES.get() or ())


def _rewrite_to_fixpoint(expr: Any, step: Callable[[Any], Any], rounds: int) -> Any:
    for _ in range(rounds):
        new = step(expr)
        if new == expr:
            return expr
        expr = new
    return expr


POSITIVE, NONNEGATIVE = "positive", "nonnegative"


# ------------------------------------------------------------------------------------ ranges
def ranges_of(hypotheses) -> list:
    """``[(symbol, lo, hi)]`` from IndexRange hypotheses and ``Assumption``s ``x <= y``."""
    out = []
    for h in hypotheses:
        if isinstance(h, IndexRange) and isinstance(h.index, sp.Symbol):
            out.append((h.index, sp.sympify(h.lower), sp.sympify(h.upper)))
        elif isinstance(h, Assumption) and isinstance(h.condition, (sp.Le, sp.Ge, sp.Lt, sp.Gt)):
            c = h.condition
            small, big = (c.lhs, c.rhs) if isinstance(c, (sp.Le, sp.Lt)) else (c.rhs, c.lhs)
            shift = 1 if isinstance(c, (sp.Lt, sp.Gt)) and small.is_integer and big.is_integer else 0
            if isinstance(big, sp.Symbol):
                out.append((big, small + shift, sp.oo))
            if isinstance(small, sp.Symbol):
                out.append((small, -sp.oo, big - shift))
    return out


def _stronger(a: str | None, b: str | None) -> str | None:
    if POSITIVE in (a, b):
        return POSITIVE
    if NONNEGATIVE in (a, b):
        return NONNEGATIVE
    return None


def _weaker(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return None
    return POSITIVE if a == b == POSITIVE else NONNEGATIVE


def _direct_sign(e: sp.Expr) -> str | None:
    if e == 0:
        return NONNEGATIVE
    if e.is_number:
        return POSITIVE if e.is_positive else (NONNEGATIVE if e.is_nonnegative else None)
    return sign_of(e)


def _linear_coefficient(e: Any, v: Any) -> Any:
    """``c`` when ``e = c v + r`` with ``c``, ``r`` free of ``v`` (by ``Poly``; never by differentiating)."""
    try:
        p = sp.Poly(e, v)
    except (sp.PolynomialError, sp.GeneratorsNeeded, TypeError, ValueError):
        return None
    if p.degree() > 1 or any(v in getattr(c, "free_symbols", ()) for c in p.coeffs()):
        return None
    return p.coeff_monomial(v)


def range_sign(expr: Any, ranges=(), depth: int = 0) -> str | None:
    """``'positive'``, ``'nonnegative'`` or ``None`` for ``expr`` whose ranged symbols lie in their
    ranges (``ranges``: ``[(symbol, lo, hi)]``, outermost first; ``lo``/``hi`` may be infinite).

    >>> i, n, w = sp.symbols("i n w", integer=True, positive=True)
    >>> range_sign(n - i, [(i, 1, n)]), range_sign(i - 2, [(i, 1, n)])
    ('nonnegative', None)
    >>> range_sign(sp.Max(1, i - w + 1) - 1, [(i, 1, n)])     # the Max is at least its first piece
    'nonnegative'
    """
    if depth > 40:
        return None
    e = sp.expand(sp.sympify(expr, strict=True))
    s = _direct_sign(e)
    if s == POSITIVE:
        return s
    best = s
    # Max/Min pieces
    extrema = sorted(e.atoms(sp.Max, sp.Min), key=sp.default_sort_key)
    if extrema:
        m = extrema[0]
        x = sp.Dummy("x")
        lin = e.xreplace({m: x})
        c = _linear_coefficient(lin, x)
        if c is not None:
            rest = lin.xreplace({x: 0})
            up = range_sign(c, ranges, depth + 1) is not None
            down = (not up) and range_sign(-c, ranges, depth + 1) is not None
            if up or down:
                pieces = [range_sign(rest + c * a, ranges, depth + 1) for a in m.args]
                any_ok = (isinstance(m, sp.Max) and up) or (isinstance(m, sp.Min) and down)
                if any_ok:
                    got = None
                    for p in pieces:
                        got = _stronger(got, p)
                else:
                    got = pieces[0]
                    for p in pieces[1:]:
                        got = _weaker(got, p)
                return _stronger(best, got)
        return best
    # ranged symbols, innermost first
    ranges = [(v, sp.sympify(lo), sp.sympify(hi)) for (v, lo, hi) in ranges]
    for (v, lo, hi) in reversed(ranges):
        if not e.has(v):
            continue
        c = _linear_coefficient(e, v)
        if c is None:
            return best  # not a polynomial of degree <= 1 in v (v inside a function, or a power)
        if range_sign(c, ranges, depth + 1) is not None:
            end = lo
        elif range_sign(-c, ranges, depth + 1) is not None:
            end = hi
        else:
            continue
        if end.is_infinite:
            continue
        return _stronger(best, range_sign(e.subs(v, end), ranges, depth + 1))
    return best


def provably_le(a: Any, b: Any, ranges=()) -> bool:
    """``a <= b`` follows from the ranges."""
    return range_sign(b - a, ranges) is not None


def provably_lt(a: Any, b: Any, ranges=()) -> bool:
    """``a < b`` follows from the ranges (for integers, ``a + 1 <= b`` is also tried)."""
    if range_sign(b - a, ranges) == POSITIVE:
        return True
    return bool(sp.sympify(a).is_integer and sp.sympify(b).is_integer and provably_le(a + 1, b, ranges))


# ------------------------------------------------------------------------------------ traversal
def _walk(expr: Any, fn: Callable[[Any, list], Any], ranges: list) -> Any:
    """Rebuild ``expr`` bottom-up, calling ``fn(node, ranges)`` on every node; inside a sum the
    summation index is added to the ranges (and a rebound name is refused)."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: _walk(e, fn, ranges))
    if isinstance(expr, sp.Indexed):  # an Atom to SymPy, but its indices are expressions
        idx = [_walk(a, fn, ranges) for a in expr.indices]
        return expr if list(expr.indices) == idx else expr.base[tuple(idx)]
    if not isinstance(expr, sp.Basic) or expr.is_Atom:
        return expr
    if isinstance(expr, sp.Sum):
        inner = list(ranges)
        for (k, lo, hi) in reversed(expr.limits):  # outermost first: inner bounds may use outer indices
            if any(k == v for (v, _, _) in inner) or k.free_symbols & (lo.free_symbols | hi.free_symbols):
                raise KernelError(f"the summation index {k} is also used outside its sum; rename it")
            # SymPy's sum over a reversed range (hi < lo - 1) is minus the sum over hi+1..lo-1, whose
            # indices lie outside lo..hi: the index is known to lie in lo..hi only if the range is not reversed
            if provably_le(lo - 1, hi, inner):
                inner.append((k, lo, hi))
        body = _walk(expr.function, fn, inner)
        node = expr if body == expr.function else sp.Sum(body, *expr.limits)
        return fn(node, ranges)
    if isinstance(expr, (sp.Lambda, sp.Integral, sp.Product)) or hasattr(expr, "limits"):
        return expr  # other binders: left alone
    args = [_walk(a, fn, ranges) for a in expr.args]
    node = expr if all(a is b for a, b in zip(args, expr.args)) else expr.func(*args)
    return fn(node, ranges)


def _normal(expr, fn, ranges, rounds: int = 8):
    return _rewrite_to_fixpoint(expr, lambda e: _walk(e, fn, ranges), rounds)


# ------------------------------------------------------------------------------------ masks
def _band_class():
    from symattn.kernel.objects.bands import Band

    return Band


def _evaluate_band(b, ranges):
    j, lo, hi = b.args
    inside = (lo == -sp.oo or provably_le(lo, j, ranges)) and (hi == sp.oo or provably_le(j, hi, ranges))
    if inside:
        return sp.S.One
    if (lo != -sp.oo and provably_lt(j, lo, ranges)) or (hi != sp.oo and provably_lt(hi, j, ranges)):
        return sp.S.Zero
    return b


def _restrict(node, ranges):
    Band = _band_class()
    if isinstance(node, Band):
        return _evaluate_band(node, ranges)
    if not isinstance(node, sp.Sum):
        return node
    if len(node.limits) > 1:  # SymPy merges nested sums; the first limit is the innermost
        outer = list(ranges)
        for (v, lo_, hi_) in reversed(node.limits[1:]):  # outermost first; only ranges not reversed
            if provably_le(lo_ - 1, hi_, outer):
                outer.append((v, lo_, hi_))
        inner = _restrict(sp.Sum(node.function, node.limits[0]), outer)
        if inner == sp.Sum(node.function, node.limits[0]):
            return node
        return sp.Sum(inner, *node.limits[1:])
    (k, a, b) = node.limits[0]
    bands = [f for f in sp.Mul.make_args(node.function) if isinstance(f, Band) and f.args[0] == k]
    if len(bands) != 1:
        return node
    band = bands[0]
    _, lo, hi = band.args
    if lo.has(k) or hi.has(k):
        return node
    if not provably_le(a - 1, b, ranges):
        return node  # a reversed range is minus the sum over b+1..a-1: restricting a..b would be wrong
    rest = node.function / band
    # the index is an integer: lo <= k is ceiling(lo) <= k, and k <= hi is k <= floor(hi)
    if lo != -sp.oo and lo.is_integer is not True:
        lo = sp.ceiling(lo)
    if hi != sp.oo and hi.is_integer is not True:
        hi = sp.floor(hi)
    if lo == -sp.oo or provably_le(lo, a, ranges):
        new_lo = a
    elif provably_le(a, lo, ranges):
        new_lo = lo
    else:
        new_lo = sp.Max(a, lo)
    if hi == sp.oo or provably_le(b, hi, ranges):
        new_hi = b
    elif provably_le(hi, b, ranges):
        new_hi = hi
    else:
        new_hi = sp.Min(b, hi)
    if provably_le(new_lo - 1, new_hi, ranges):
        return sp.Sum(rest, (k, new_lo, new_hi))
    if provably_lt(new_hi, new_lo, ranges):
        return sp.S.Zero  # no key of the sum's range is inside the band
    return node



# ------------------------------------------------------------------------------------ abs, delta, floor
def _abs(node, ranges):
    if isinstance(node, sp.Abs):
        (x,) = node.args
        if x.is_real is not True and not _range_real(x):
            return node
        if range_sign(x, ranges) is not None or _structural_sign(x, ranges) is not None:
            return x
        if range_sign(-x, ranges) is not None or _structural_sign(-x, ranges) is not None:
            return -x
    return node


def _range_real(x) -> bool:
    return all(getattr(a, "is_real", None) for a in x.atoms(sp.Symbol, sp.Indexed)) and not x.has(sp.I)


def _structural_sign(x, ranges):
    """Nonnegative sums of nonnegative terms: finite sums whose ranges the ranges show are not
    reversed (``lo - 1 <= hi``) and whose summand is nonnegative, products of such, and anything
    :func:`symattn.rules.inequalities.sign` signs."""
    from symattn.kernel.zero import index_ranges

    hyps = tuple(IndexRange(f"_r_{v}", index=v, lower=lo, upper=hi) for (v, lo, hi) in ranges
                 if not (sp.sympify(lo).is_infinite or sp.sympify(hi).is_infinite))
    got = sign_of(x, index_ranges(hyps))
    if got is not None:
        return got
    if isinstance(x, sp.Add):
        signs = [_structural_sign(t, ranges) for t in x.args]
        return None if None in signs else (POSITIVE if POSITIVE in signs else NONNEGATIVE)
    if isinstance(x, sp.Mul):
        signs = [_structural_sign(t, ranges) for t in x.args]
        return None if None in signs else (POSITIVE if all(t == POSITIVE for t in signs) else NONNEGATIVE)
    if isinstance(x, sp.Sum) and len(x.limits) == 1:
        (k, lo, hi) = x.limits[0]
        body = _structural_sign(x.function, list(ranges) + [(k, lo, hi)])
        if body is not None and provably_le(lo - 1, hi, ranges):
            return NONNEGATIVE
    return range_sign(x, ranges)




def _delta(node, ranges):
    if isinstance(node, sp.KroneckerDelta):
        x, y = node.args[:2]
        if provably_le(x + 1, y, ranges) or provably_le(y + 1, x, ranges):
            if x.is_integer and y.is_integer:
                return sp.S.Zero
    return node




def _floor_with(values):
    def fn(node, ranges):
        if isinstance(node, sp.floor):
            (x,) = node.args
            for k in values:
                if k.is_integer and provably_le(k, x, ranges) and provably_lt(x, k + 1, ranges):
                    return k
        return node

    return fn




def _minmax(node, ranges):
    if isinstance(node, (sp.Max, sp.Min)):
        args = list(node.args)
        for a in args:
            if all(b is a or (provably_le(b, a, ranges) if isinstance(node, sp.Max) else provably_le(a, b, ranges))
                   for b in args):
                return a
    return node




def _normal_schema(fn, what):
    def build(expr: Any):
        e = canonical(expr)
        return e, _normal(e, fn, ranges_of(_hyps())), "="

    build.__doc__ = what
    return build


for _name, _fn, _what in (
    ("mask_restrict", _restrict, "sum_{j=a}^{b} 1[lo <= j <= hi] f(j) = sum_{j=max(a,lo)}^{min(b,hi)} f(j) (range "
                                 "not reversed, else 0 if empty); masks decided by the ranges are 1 or 0"),
    ("abs_by_sign", _abs, "|x| = x where x >= 0, |x| = -x where x <= 0, x real, from the ranges"),
    ("delta_by_range", _delta, "delta_{ij} = 0 for integers i != j shown from the ranges"),
    ("minmax_by_range", _minmax, "max(x, y) = x where y <= x, min(x, y) = x where x <= y, from the ranges"),
):
    _build = _normal_schema(_fn, _what)
    _build.__module__ = __name__
    schema(_name, _what)(_build)


@schema("floor_by_range", "floor(x) = k for an integer k with k <= x < k + 1 known from the ranges")
def _floor_by_range(expr: Any, values: tuple):
    for v in values:
        if not isinstance(v, sp.Expr) or v.is_integer is not True:
            raise KernelError(f"floor_by_range: the value {v!r} is not known to be an integer")
    e = canonical(expr)
    return e, _normal(e, _floor_with(list(values)), ranges_of(_hyps())), "="


@schema("range_split", "sum_{k=a}^{b} f = sum_{k=a}^{m} f + sum_{k=m+1}^{b} f for a-1 <= m <= b known from the "
                       "ranges")
def _range_split(s: Any, at: Any):
    s = canonical(s)
    if not isinstance(s, sp.Sum) or len(s.limits) != 1:
        raise KernelError("range_split splits a sum over one index")
    (k, lo, hi) = s.limits[0]
    point = sp.sympify(at, strict=True)
    ranges = ranges_of(_hyps())
    if point.has(k) or not (provably_le(lo - 1, point, ranges) and provably_le(point, hi, ranges)):
        raise KernelError(f"{sp.sstr(point)} is not known to lie in {sp.sstr(lo - 1)}..{sp.sstr(hi)}")
    from symattn.kernel.sums import _is_integer

    hyps = _hyps()
    if not (_is_integer(point, hyps, {}) or _is_integer(sp.expand(point - lo), hyps, {})):
        # the pieces run over integer ranges: a..m and m+1..b with m a real x are no split of a..b
        raise KernelError(f"the split point {sp.sstr(point)} is not known to be an integer (the bound of both "
                          "pieces)")
    return s, sp.Sum(s.function, (k, lo, point)) + sp.Sum(s.function, (k, point + 1, hi)), "="


@schema("range_inequality", "lhs <= rhs when scale * (rhs - lhs) >= 0 (scale > 0) follows from the ranges")
def _range_inequality(lhs: Any, rhs: Any, relation: str, scale: Any = None):
    if relation not in ("<", "<=", ">", ">="):
        raise KernelError(f"range_inequality justifies inequalities, not {relation!r}")
    factor = sp.S.One if scale is None else sp.sympify(scale, strict=True)
    if not isinstance(factor, sp.Expr) or sign_of(factor) != POSITIVE:
        raise KernelError(f"the scale {factor} is not known to be positive")
    gap = (rhs - lhs) if relation in ("<", "<=") else (lhs - rhs)
    scaled = sp.cancel(sp.together(factor * gap))
    got = range_sign(scaled, ranges_of(_hyps()))
    strict = relation in ("<", ">")
    if got == POSITIVE or (got == NONNEGATIVE and not strict):
        return lhs, rhs, relation
    raise KernelError(f"cannot sign the scaled gap {sp.sstr(scaled)[:200]} from the ranges")
