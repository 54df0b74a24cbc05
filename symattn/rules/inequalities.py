"""Signs and termwise bounds: ``positivity`` and ``sum_monotone``, with ``MaxOver``/``MinOver``.

``positivity`` (after Mathlib's tactic of the same name) proves ``0 < e`` or ``0 <= e`` (any
step ``a <= b`` whose gap ``b - a`` it can sign) by structural recursion over ``e``:

* SymPy's assumptions first (``e.is_positive``);
* ``exp(x) > 0`` for real ``x``; products and quotients of positive (nonnegative) factors;
  sums of nonnegative terms, positive if one is positive; ``x**p`` for positive ``x``;
* a finite sum ``sum_{k=a}^{b} f(k)`` is nonnegative when ``f(k) >= 0`` for every ``k`` in
  ``a..b`` and ``b >= a - 1`` (with SymPy's convention an "upside-down" range is a *negative*
  sum, so the range condition is needed), positive when moreover ``f(k) > 0`` and ``b >= a``;
* ``max_{k=a}^{b} f(k) - f(j) >= 0`` and ``f(j) - min_{k=a}^{b} f(k) >= 0`` when ``j`` is known
  to lie in ``a..b`` (an :class:`~symattn.statement.IndexRange` hypothesis, or the range of an
  enclosing sum over ``j``) -- the defining property of the maximum and minimum.

``sum_monotone`` proves ``sum_{k=a}^{b} f(k) <= sum_{k=a}^{b} g(k)`` from ``g(k) - f(k) >= 0``
for ``k`` in ``a..b`` (checked with the same procedure, the index placed in its range), for a
range with ``b >= a - 1``; strictly when the range is nonempty and every gap is positive.

:class:`MaxOver` and :class:`MinOver` are the maximum and minimum of ``f(k)`` over an integer
range ``a..b`` with symbolic bounds (SymPy's ``Max`` needs its arguments listed). They stay
unevaluated; ``doit()`` lists the arguments when the bounds are numbers.

>>> import sympy as sp
>>> k = sp.Symbol("k", integer=True); v = sp.IndexedBase("v", real=True)
>>> MaxOver(v[k], (k, 1, 3)).doit()
Max(v[1], v[2], v[3])
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits

from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import sign_of
from symattn.statement import IndexRange

__all__ = ["MaxOver", "MinOver", "sign", "POSITIVE", "NONNEGATIVE"]

POSITIVE = "positive"
NONNEGATIVE = "nonnegative"


class _Extremum(ExprWithLimits):
    """Shared machinery of :class:`MaxOver` and :class:`MinOver`: one integer index ``(k, a, b)``."""

    _sympy_fn = None
    _tex = ""

    def __new__(cls, function, *symbols, **assumptions):
        if len(symbols) != 1 or len(sp.Tuple(*symbols[0])) != 3:
            raise ValueError(f"{cls.__name__} takes exactly one range (k, a, b), got {symbols!r}")
        k, a, b = sp.Tuple(*symbols[0])
        if not isinstance(k, sp.Symbol) or k.is_integer is not True:
            raise TypeError(f"{cls.__name__}: the index must be an integer Symbol, got {k!r}")
        return super().__new__(cls, function, *symbols, **assumptions)

    def doit(self, **hints):
        (k, a, b) = self.limits[0]
        if not (a.is_Integer and b.is_Integer):
            return self
        if b < a:
            raise ValueError(f"{type(self).__name__} over the empty range {a}..{b}")
        f = self.function.doit(**hints) if hints.get("deep", True) else self.function
        return self._sympy_fn(*[f.xreplace({k: sp.Integer(x)}) for x in range(int(a), int(b) + 1)])

    def _eval_is_real(self):
        return self.function.is_real

    def _latex(self, printer):
        (k, a, b) = self.limits[0]
        return r"\%s_{%s=%s}^{%s} %s" % (
            self._tex,
            printer._print(k),
            printer._print(a),
            printer._print(b),
            printer.parenthesize(self.function, 50),
        )


class MaxOver(_Extremum):
    """``max_{k=a}^{b} f(k)``, the maximum of ``f`` over the integer range ``a..b`` (nonempty).

    >>> import sympy as sp
    >>> k = sp.Symbol("k", integer=True); n = sp.Symbol("n", integer=True, positive=True)
    >>> from symattn.printing import latex
    >>> latex(MaxOver(sp.IndexedBase("v")[k], (k, 1, n)))
    '\\\\max_{k=1}^{n} {v}_{k}'
    """

    _sympy_fn = sp.Max
    _tex = "max"


class MinOver(_Extremum):
    """``min_{k=a}^{b} f(k)``, the minimum of ``f`` over the integer range ``a..b`` (nonempty)."""

    _sympy_fn = sp.Min
    _tex = "min"


# ----------------------------------------------------------------------------------------- signs
def _le(a: Any, b: Any) -> bool:
    d = sp.simplify(b - a)
    return d == 0 or sign_of(d) in (POSITIVE, NONNEGATIVE)


def _in_range(j: Any, lo: Any, hi: Any, hyps) -> bool:
    from symattn.rules.sums import index_in_range

    return index_in_range(j, lo, hi, hyps)


def _combine_all(signs: list, *, strict_if_any: bool) -> str | None:
    if any(s is None for s in signs):
        return None
    if strict_if_any:
        return POSITIVE if any(s == POSITIVE for s in signs) else NONNEGATIVE
    return POSITIVE if all(s == POSITIVE for s in signs) else NONNEGATIVE


def _extremum_pairs(terms: list, hyps) -> tuple[list, list]:
    """Pair ``c*max f - c*f(j)`` (and ``c*f(j) - c*min f``) terms with ``j`` in range.

    Returns (signs of the pairs, remaining terms)."""
    terms = list(terms)
    signs = []
    changed = True
    while changed:
        changed = False
        for t in terms:
            ext = [f for f in sp.Mul.make_args(t) if isinstance(f, _Extremum)]
            if len(ext) != 1:
                continue
            e = ext[0]
            # c*max f - c*f(j) >= 0 and c*f(j) - c*min f >= 0, for c >= 0 and j in range
            coeff = t / e if isinstance(e, MaxOver) else -t / e
            (k, lo, hi) = e.limits[0]
            w = sp.Wild("w")
            pattern = e.function.xreplace({k: w})
            for u in terms:
                if u is t:
                    continue
                inner = -u / coeff if isinstance(e, MaxOver) else u / coeff
                found = inner.match(pattern)
                if found is None or w not in found:
                    continue
                j = found[w]
                if not _in_range(j, lo, hi, hyps):
                    continue
                c_sign = sign(coeff, hyps)
                if c_sign is None:
                    continue
                signs.append(NONNEGATIVE)
                terms = [x for x in terms if x is not t and x is not u]
                changed = True
                break
            if changed:
                break
    return signs, terms


def sign(expr: Any, hyps=()) -> str | None:
    """``'positive'``, ``'nonnegative'`` or ``None`` (unknown), by the rules of the module
    docstring. ``hyps`` are the theorem's hypotheses (index ranges are used)."""
    expr = sp.sympify(expr, strict=True) if isinstance(expr, (int, float)) else expr
    if not isinstance(expr, sp.Expr):
        return None
    if expr.is_positive:
        return POSITIVE
    if expr.is_nonnegative:
        return NONNEGATIVE
    if expr.is_number:
        return None
    if isinstance(expr, sp.exp):
        if expr.args[0].is_real:
            return POSITIVE
        return NONNEGATIVE if expr.args[0].is_extended_real else None
    if isinstance(expr, sp.Mul):
        return _combine_all([sign(f, hyps) for f in expr.args], strict_if_any=False)
    if isinstance(expr, sp.Add):
        pair_signs, rest = _extremum_pairs(list(expr.args), hyps)
        return _combine_all(pair_signs + [sign(t, hyps) for t in rest], strict_if_any=True)
    if isinstance(expr, sp.Pow):
        base, ex = expr.args
        if ex.is_real is not True:
            return None
        b = sign(base, hyps)
        if b == POSITIVE:
            return POSITIVE
        if b == NONNEGATIVE and ex.is_nonnegative:
            return NONNEGATIVE
        if ex.is_even and base.is_real:
            return NONNEGATIVE
        return None
    if isinstance(expr, sp.Sum):
        return _sum_sign(expr, hyps)
    if isinstance(expr, _Extremum):
        (k, lo, hi) = expr.limits[0]
        if not _le(lo, hi):
            return None
        return sign(expr.function, tuple(hyps) + (IndexRange("_bound", index=k, lower=lo, upper=hi),))
    if hasattr(expr, "expanded") and callable(expr.expanded):  # unevaluated definitions (Softmax)
        return sign(expr.expanded(), hyps)
    return None


def _sum_sign(s: sp.Sum, hyps) -> str | None:
    body = s.function
    ranges = []
    for lim in s.limits:
        if len(lim) != 3:
            return None
        ranges.append(lim)
    local = tuple(hyps) + tuple(IndexRange(f"_bound_{k}", index=k, lower=lo, upper=hi) for (k, lo, hi) in ranges)
    inner = sign(body, local)
    if inner is None:
        return None
    if all(_le(lo, hi) for (_, lo, hi) in ranges):
        return inner
    if all(_le(lo - 1, hi) for (_, lo, hi) in ranges):
        return NONNEGATIVE  # possibly empty, never "upside down"
    return None


def _gap(lhs, rhs, relation):
    if relation in ("<=", "<"):
        return rhs - lhs
    if relation in (">=", ">"):
        return lhs - rhs
    raise RuleError(f"this rule justifies <=, <, >=, > steps, not {relation!r}")


@rule("positivity", "the gap between the sides is positive/nonnegative by structural sign rules (exp, sums, max/min)")
def check_positivity(lhs, rhs, relation, ctx):
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        raise RuleError("positivity compares scalars, not matrices")
    gap = _gap(lhs, rhs, relation)
    strict = relation in ("<", ">")
    for form in (gap, sp.expand(gap), sp.factor_terms(gap)):
        s = sign(form, ctx.hypotheses)
        if s == POSITIVE or (s == NONNEGATIVE and not strict):
            return passed(f"the gap {sp.sstr(form)} is {s}")
    return failed(f"cannot show the gap {sp.sstr(gap)} is {'positive' if strict else 'nonnegative'}")


@rule(
    "sum_monotone",
    "sum_{k=a}^{b} f <= sum_{k=a}^{b} g when g(k) - f(k) >= 0 for every k in a..b (b >= a - 1)",
)
def check_sum_monotone(lhs, rhs, relation, ctx):
    from symattn.rules.reindex import canonical_bound

    gap_rel = relation
    _gap(lhs, rhs, relation)  # validates the relation
    small, big = (lhs, rhs) if relation in ("<=", "<") else (rhs, lhs)
    small, big = canonical_bound(small), canonical_bound(big)
    if not (isinstance(small, sp.Sum) and isinstance(big, sp.Sum)):
        raise RuleError("sum_monotone compares two sums over the same range, one on each side")
    if small.limits != big.limits:
        raise RuleError(f"the sums run over different ranges: {small.limits} vs {big.limits}")
    if len(small.limits) != 1 or len(small.limits[0]) != 3:
        raise RuleError("sum_monotone needs single-index sums with both bounds")
    (k, lo, hi) = small.limits[0]
    local = tuple(ctx.hypotheses) + (IndexRange("_summation_index", index=k, lower=lo, upper=hi),)
    strict = gap_rel in ("<", ">")
    termwise = big.function - small.function
    s = None
    for form in (termwise, sp.factor_terms(termwise), sp.expand(termwise)):
        s = sign(form, local)
        if s is not None:
            break
    if s is None:
        return failed(f"cannot show the termwise gap {sp.sstr(termwise)} is nonnegative for {k} in {lo}..{hi}")
    if strict:
        if s != POSITIVE or not _le(lo, hi):
            return failed("a strict bound needs a nonempty range and a positive gap in every term")
        return passed(f"every term gap {sp.sstr(termwise)} is positive on the nonempty range {lo}..{hi}")
    if not _le(lo - 1, hi):
        return failed(f"the range {lo}..{hi} may be upside down (then the sum is a negative sum)")
    return passed(f"every term gap {sp.sstr(termwise)} is {s} for {k} in {lo}..{hi}")
