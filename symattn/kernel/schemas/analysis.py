"""Axiom schemas of analysis: derivatives, monotonicity, tanh bounds, the hyperbolic functions,
signs of gaps, maxima/minima over a range, termwise sums, the triangle and Cauchy--Schwarz
inequalities. Each builds its instance from its parameters and discharges its side conditions with
the core's tests (:mod:`symattn.kernel.calculus`, :mod:`symattn.kernel.sign`, :mod:`symattn.kernel.zero`).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel import calculus
from symattn.kernel.axioms import schema
from symattn.kernel.sign import provably_le
from symattn.kernel.terms import KernelError, alpha_equal, canonical, free_symbols, is_bound_variable, substitute

_POS, _NONNEG = "positive", "nonnegative"


def _ranges() -> tuple:
    from symattn.kernel.thm import _hypotheses
    from symattn.kernel.zero import index_ranges

    return tuple(index_ranges(_hypotheses()))


def _thm(t: Any, what: str, discharged: Any = None):
    """``t``, a theorem of the kernel made under no hypothesis the step does not have (an axiom's
    instance is made under the step's hypotheses: a premise made under more would be laundered);
    ``discharged``: one more hypothesis the premise may use, which the schema discharges."""
    from symattn.kernel.thm import Thm, _hypotheses

    if not isinstance(t, Thm):
        raise KernelError(f"{what} must be a theorem of the kernel, got {type(t).__name__}")
    have = _hypotheses()
    extra = [h for h in t.context if not any(h is g or h == g for g in have) and not _same_range(h, discharged)]
    if extra:
        raise KernelError(f"{what} was made under hypotheses the step does not have: "
                          f"{', '.join(getattr(h, 'name', '?') for h in extra)}")
    return t


def _same_range(h: Any, want: Any) -> bool:
    """Whether ``h`` is the IndexRange ``want = (var, lo, hi)`` (names aside)."""
    from symattn.language.statement import IndexRange

    if want is None or not isinstance(h, IndexRange):
        return False
    var, lo, hi = want
    return h.index == var and alpha_equal(sp.sympify(h.lower), lo) and alpha_equal(sp.sympify(h.upper), hi)


def _show(e: Any) -> str:
    s = sp.sstr(e)
    return s if len(s) <= 200 else s[:200] + " ..."


# ------------------------------------------------------------------------------ derivatives
def evaluate_derivatives(expr: Any) -> Any:
    """Every ``Derivative`` in ``expr`` (innermost first) replaced by its value, each shown
    differentiable by :func:`symattn.kernel.calculus.derivative`."""
    ranges = _ranges()

    def one(d: sp.Derivative):
        return calculus.value_of_derivative(d, ranges)

    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(evaluate_derivatives)
    if not isinstance(expr, sp.Basic):
        return expr
    return expr.replace(lambda e: isinstance(e, sp.Derivative), one)


@schema("derivatives", "e = e' where every d f/d x in e is replaced by f' (sum, product, quotient, chain rules; "
        "d s_i/d s_j = delta_ij), f shown differentiable in x (no Piecewise/floor/Heaviside/sign/Max/Min; |g| only "
        "where g != 0; powers, logs and poles only where defined)")
def _derivatives(expr):
    if not (isinstance(expr, sp.Basic) and expr.atoms(sp.Derivative)):
        raise KernelError("no derivative to evaluate")
    return expr, evaluate_derivatives(expr), "="


# ------------------------------------------------------------------------------ monotonicity
def monotone_instance(expr: Any, at: Any, bound, fn: Any = None, strict: bool = True) -> tuple:
    """From ``A REL B`` (``bound``) and ``F(x) = expr[at := x]`` (or ``F = fn``, a ``Lambda``)
    differentiable and real on the segment between ``A`` and ``B`` with ``F'`` of a sign the core shows
    there: ``F(A) REL' F(B)``."""
    _thm(bound, "the bound")
    if fn is not None:
        if not (isinstance(fn, sp.Lambda) and len(fn.variables) == 1):
            raise KernelError("fn must be a Lambda of one variable")
        at = bound.lhs
    at = canonical(at)
    if bound.relation == "=":
        raise KernelError("the bound is an equation, not an inequality")
    if alpha_equal(bound.lhs, at):
        a, b, rel = bound.lhs, bound.rhs, bound.relation
    elif alpha_equal(bound.rhs, at):
        a, b = bound.rhs, bound.lhs
        rel = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[bound.relation]
    else:
        raise KernelError(f"the bound {bound!r} is not about {_show(at)}")
    if any(is_bound_variable(v) for v in free_symbols(at)):
        raise KernelError(f"{_show(at)} holds a variable bound in the term: it is replaced only outside every binder")
    lo, hi = (a, b) if rel in ("<", "<=") else (b, a)
    x = calculus.fresh("x", real=True)
    if fn is not None:
        F = canonical(substitute(fn.expr, {fn.variables[0]: x}))
    else:
        expr = canonical(expr)
        F = expr.xreplace({at: x})
        if F == expr:
            raise KernelError(f"{_show(at)} does not occur in {_show(expr)}")
    # the segment's ends read with their sums replaced by symbols carrying the sums' signs (x = lo + t
    # with lo >= 0 covers the actual lo): the sign test does not look into a range's ends
    hyp_ranges = _ranges()
    ranges = ((x, calculus._atomize(lo, hyp_ranges, 0), calculus._atomize(hi, hyp_ranges, 0)),) + hyp_ranges
    for end in (lo, hi):
        if not bool(canonical(end).is_extended_real):
            raise KernelError(f"the end {_show(end)} is not known to be real")
    calculus.check_smooth(F, x, ranges=ranges)
    if not calculus.real_on(F, x, ranges):
        raise KernelError(f"{_show(F)} is not shown real on the segment")
    dF = sp.diff(F, x)
    calculus.recheck_derivative(F, x, dF, where=" on the segment")
    up, down = _derivative_sign(dF, x, lo, hi, ranges, hyp_ranges, want_strict=strict and rel in ("<", ">"))
    strict_bound = rel in ("<", ">")
    if up is not None:
        increasing, strict = True, up == _POS
    elif down is not None:
        increasing, strict = False, down == _POS
    else:
        raise KernelError(f"the sign of the derivative {_show(dF)} in the replaced part is not shown on the segment "
                          f"from {_show(lo)} to {_show(hi)}")
    fa, fb = substitute(F, {x: a}), substitute(F, {x: b})
    a_le_b = rel in ("<", "<=")
    out = "<" if (strict and strict_bound) else "<="
    if a_le_b == increasing:  # F(a) <= F(b)
        return fa, fb, out
    return fb, fa, out


def _derivative_sign(dF, x, lo, hi, ranges, hyp_ranges, want_strict=True):
    """The signs of ``dF`` and ``-dF`` for ``x`` on the segment ``lo..hi``: first with ``x`` a symbol
    of the sign both ends are shown to have (the segment lies in it), then with ``x`` written from an
    end of the segment; ``dF`` also read in its ``together``/``factor`` forms (equal where defined)."""
    forms = [dF]
    for f in (lambda e: sp.factor(sp.together(e)), sp.together):
        try:
            g = f(dF)
        except (sp.PolynomialError, NotImplementedError, ValueError, TypeError):
            continue
        if g not in forms:
            forms.insert(0, g)
    ends = [calculus.sign(e, hyp_ranges) for e in (lo, hi)]
    tries = []
    if ends[0] == ends[1] == _POS:
        tries.append((calculus.fresh("x", positive=True), ()))
    elif None not in ends:
        tries.append((calculus.fresh("x", nonnegative=True), ()))
    tries.append((x, ranges))
    # the ends with their bounded atoms (tanh in (-1, 1), sin and cos in [-1, 1]) written from a bound:
    # each written end is the end itself for some p (q) >= 0, so the segment is still covered
    (_, alo, ahi) = ranges[0]
    for vlo in [alo] + calculus.bounded_variants(alo)[:2]:
        for vhi in [ahi] + calculus.bounded_variants(ahi)[:2]:
            if vlo is not alo or vhi is not ahi:
                tries.append((x, ((x, vlo, vhi),) + tuple(ranges[1:])))
    found = (None, None)
    for var, rng in tries:
        for form in forms:
            g = form.xreplace({x: var})
            r = rng if rng else hyp_ranges
            if found[1] is None:
                up = calculus.sign(g, r)
                if up == _POS:
                    return up, None
                if up is not None:
                    found = (up, None)
                    if not want_strict:
                        return found
                    continue
            if found[0] is None:
                down = calculus.sign(-g, r)
                if down == _POS:
                    return None, down
                if down is not None:
                    found = (None, down)
                    if not want_strict:
                        return found
    return found


@schema("monotone", "from A <= B (A < B) and F differentiable and real on [A, B] with F' >= 0 there (> 0): "
        "F(A) <= F(B) (F(A) < F(B)); F' <= 0 reverses; the sign of F' is shown by the core's sign test on the segment")
def _monotone(bound, expr=None, at=None, fn=None, strict=True):
    """``strict=False``: the caller needs only the non-strict conclusion (the search for a strictly
    signed derivative stops at the first sign)."""
    return monotone_instance(expr, at, bound, fn, strict)


# ------------------------------------------------------------------------------ tanh
def _real_arg(arg: Any) -> Any:
    arg = canonical(sp.sympify(arg, strict=True))
    if arg.is_real is not True:  # real: finite too (tanh(oo) = 1 is no counterexample to look for)
        raise KernelError(f"the argument {_show(arg)} of tanh is not known to be real (tanh of a complex number "
                          "is unbounded)")
    return arg


@schema("tanh_lt_one", "tanh x < 1 for real x")
def _tanh_lt_one(arg):
    x = _real_arg(arg)
    return sp.tanh(x), sp.S.One, "<"


@schema("tanh_gt_minus_one", "-1 < tanh x for real x")
def _tanh_gt_minus_one(arg):
    x = _real_arg(arg)
    return sp.S.NegativeOne, sp.tanh(x), "<"


@schema("abs_tanh_lt_one", "|tanh x| < 1 for real x")
def _abs_tanh_lt_one(arg):
    x = _real_arg(arg)
    return sp.Abs(sp.tanh(x)), sp.S.One, "<"


# ------------------------------------------------------------------------------ hyperbolic
_AS_EXP = {
    sp.sinh: lambda x: (sp.exp(x) - sp.exp(-x)) / 2,
    sp.cosh: lambda x: (sp.exp(x) + sp.exp(-x)) / 2,
    sp.tanh: lambda x: (sp.exp(x) - sp.exp(-x)) / (sp.exp(x) + sp.exp(-x)),
    sp.coth: lambda x: (sp.exp(x) + sp.exp(-x)) / (sp.exp(x) - sp.exp(-x)),
    sp.sech: lambda x: 2 / (sp.exp(x) + sp.exp(-x)),
    sp.csch: lambda x: 2 / (sp.exp(x) - sp.exp(-x)),
}


def as_exp(expr: Any) -> Any:
    """Every hyperbolic function written with exponentials, by the table above (innermost first)."""
    if not isinstance(expr, sp.Basic):
        return expr
    return expr.replace(lambda e: type(e) in _AS_EXP, lambda e: _AS_EXP[type(e)](e.args[0]))


@schema("hyperbolic_as_exp", "sinh x = (e^x - e^-x)/2, cosh x = (e^x + e^-x)/2, tanh = sinh/cosh, coth = cosh/sinh, "
        "sech = 1/cosh, csch = 1/sinh, applied to every occurrence in e")
def _hyperbolic_as_exp(expr):
    expr = canonical(expr)
    if not (isinstance(expr, sp.Basic) and expr.has(*_AS_EXP)):
        raise KernelError(f"no hyperbolic function in {_show(expr)}")
    return expr, as_exp(expr), "="


# ------------------------------------------------------------------------------ signs of gaps
@schema("gap_sign", "lhs REL rhs when the gap (rhs - lhs for <, <=; lhs - rhs for >, >=), or a witness shown equal "
        "to it (an equation of the kernel, or the zero test), has the sign by the core's extended sign test "
        "(Kronecker deltas at 0 and 1, max/min over a range at an index inside it, definitions unfolded)")
def _gap_sign(lhs, rhs, relation, witness=None, equation=None):
    from symattn.kernel.zero import equal

    if relation not in ("<", "<=", ">", ">="):
        raise KernelError(f"gap_sign proves inequalities, not {relation!r}")
    gap = canonical((rhs - lhs) if relation in ("<", "<=") else (lhs - rhs))
    w = gap
    if equation is not None:
        t = _thm(equation, "the equation")
        if t.relation != "=":
            raise KernelError("the witness's equation is not an equation")
        if alpha_equal(t.lhs, gap):
            w = t.rhs
        elif alpha_equal(t.rhs, gap):
            w = t.lhs
        else:
            raise KernelError(f"the equation {t!r} is not about the gap {_show(gap)}")
    elif witness is not None:
        if not equal(witness, gap):
            raise KernelError(f"the witness {_show(witness)} is not shown equal to the gap {_show(gap)}")
        w = canonical(witness)
    s = calculus.sign(w, _ranges())
    strict = relation in ("<", ">")
    if s == _POS or (s == _NONNEG and not strict):
        return lhs, rhs, relation
    want = "positive" if strict else "nonnegative"
    raise KernelError(f"the gap {_show(w)} is not shown {want} (the extended sign test, with the ranges)")


# ------------------------------------------------------------------------------ max / min
@schema("extremum_bound", "F(j) <= max_{l=a}^{b} F(l) and min_{l=a}^{b} F(l) <= F(j) for an integer j shown in a..b")
def _extremum_bound(extremum, index):
    from symattn.kernel.sums import index_in_range
    from symattn.kernel.terms import open_binder
    from symattn.kernel.thm import _hypotheses

    kind = calculus.Extremum.kind(extremum)
    if kind is None:
        raise KernelError(f"{_show(extremum)} is not a maximum or minimum over a range")
    m = canonical(extremum)
    (_k, lo, hi) = m.limits[0]
    j = canonical(index)
    if getattr(j, "is_integer", None) is not True:
        raise KernelError(f"the index {_show(j)} is not known to be an integer")
    if not index_in_range(j, lo, hi, _hypotheses()):
        raise KernelError(f"the index {_show(j)} is not shown to lie in {_show(lo)}..{_show(hi)}")
    at = open_binder(m, j)[3]
    return (at, m, "<=") if kind == "max" else (m, at, "<=")


# ------------------------------------------------------------------------------ termwise sums
def _range_assumptions_hold(var, lo, hi) -> None:
    v = calculus.fresh_index(lo, hi)
    have = v.assumptions0
    bad = [key for key, val in var.assumptions0.items() if val is not None and have.get(key) != val
           and key not in ("commutative",)]
    if bad:
        raise KernelError(f"the summand's index {var} carries assumptions ({', '.join(sorted(bad))}) its range "
                          f"{_show(lo)}..{_show(hi)} does not give")


@schema("sum_termwise", "from f(x) REL g(x) for a generic integer x in a..b (the bound made with x fresh and the "
        "hypothesis x in a..b, which the schema discharges): sum_{k=a}^{b} f(k) REL sum_{k=a}^{b} g(k), for a range "
        "not reversed (b >= a - 1); strict only for a nonempty range")
def _sum_termwise(lower, upper, var, bound):
    from symattn.kernel.thm import _hypotheses

    lo, hi = canonical(sp.sympify(lower)), canonical(sp.sympify(upper))
    t = _thm(bound, "the termwise bound", discharged=(var, lo, hi))
    if t.relation == "=":
        raise KernelError("the termwise bound is an equation")
    calculus._require_fresh(var, _hypotheses())
    if var in free_symbols(lo) | free_symbols(hi):
        raise KernelError(f"the index {var} occurs in the range {_show(lo)}..{_show(hi)}")
    _range_assumptions_hold(var, lo, hi)
    ranges = _ranges()
    if not provably_le(lo - 1, hi, ranges):
        raise KernelError(f"the range {_show(lo)}..{_show(hi)} may be reversed (then the sums are negative sums)")
    rel = t.relation
    if rel in ("<", ">") and not provably_le(lo, hi, ranges):
        rel = {"<": "<=", ">": ">="}[rel]  # an empty sum is not strictly smaller
    k = calculus.fresh("k", integer=True)
    f, g = substitute(t.lhs, {var: k}), substitute(t.rhs, {var: k})
    return sp.Sum(f, (k, lo, hi)), sp.Sum(g, (k, lo, hi)), rel


# ------------------------------------------------------------------------------ classical inequalities
def _single(s: Any, what: str) -> tuple:
    if not isinstance(s, sp.Sum) or len(s.limits) != 1 or len(s.limits[0]) != 3:
        raise KernelError(f"{what} must be a single-index sum with both bounds, got {_show(s)}")
    return tuple(s.limits[0])


@schema("triangle_inequality", "|sum_{k=a}^{b} f(k)| <= sum_{k=a}^{b} |f(k)| for a range not reversed (b >= a - 1); "
        "|f| of a product written as the product of the factors' absolute values")
def _triangle(total):
    total = canonical(total)
    (k, lo, hi) = _single(total, "the sum")
    if not provably_le(lo - 1, hi, _ranges()):
        raise KernelError(f"the range {_show(lo)}..{_show(hi)} is not known to be not reversed (hi >= lo - 1)")
    # |f_1 f_2 ...| written |f_1| |f_2| ... (|ab| = |a||b| for complex a, b; SymPy splits only some factors)
    absolute = sp.Mul(*[sp.Abs(f) for f in sp.Mul.make_args(total.function)])
    return sp.Abs(total), sp.Sum(absolute, (k, lo, hi)), "<="


def _real(e: Any) -> bool:
    from symattn.kernel.zero import unfold_all

    return canonical(e).is_extended_real is True or canonical(unfold_all(e)).is_extended_real is True


@schema("cauchy_schwarz", "(sum_{k=a}^{b} x_k y_k)^2 <= (sum_{k=a}^{b} x_k^2)(sum_{k=a}^{b} y_k^2) for real x_k, y_k "
        "and a range not reversed")
def _cauchy_schwarz(lower, upper, var, x, y):
    lo, hi = canonical(sp.sympify(lower)), canonical(sp.sympify(upper))
    if not isinstance(var, sp.Symbol) or var in free_symbols(lo) | free_symbols(hi):
        raise KernelError("the index must be a symbol not in the bounds")
    if not provably_le(lo - 1, hi, _ranges()):
        raise KernelError(f"the range {_show(lo)}..{_show(hi)} is not known to be well formed ({_show(hi)} >= "
                          f"{_show(lo)} - 1)")
    if isinstance(var, sp.Symbol) and not is_bound_variable(var):
        _range_assumptions_hold(var, lo, hi)
    for b in (x, y):
        if not _real(b):
            raise KernelError(f"{_show(b)} is not known to be real (Cauchy-Schwarz needs real terms)")
    k = calculus.fresh("k", integer=True)
    xs, ys = substitute(x, {var: k}), substitute(y, {var: k})
    return (sp.Sum(xs * ys, (k, lo, hi)) ** 2,
            sp.Sum(xs**2, (k, lo, hi)) * sp.Sum(ys**2, (k, lo, hi)), "<=")


@schema("weighted_cauchy_schwarz", "(sum_k w_k u_k)^2 <= (sum_k w_k)(sum_k w_k u_k^2) for w_k >= 0 (shown on the "
        "range), real u_k, a range not reversed")
def _weighted_cauchy_schwarz(lower, upper, var, weight, values):
    lo, hi = canonical(sp.sympify(lower)), canonical(sp.sympify(upper))
    if not isinstance(var, sp.Symbol) or var in free_symbols(lo) | free_symbols(hi):
        raise KernelError("the index must be a symbol not in the bounds")
    ranges = _ranges()
    if not provably_le(lo - 1, hi, ranges):
        raise KernelError(f"the range {_show(lo)}..{_show(hi)} is not known to be not reversed")
    _range_assumptions_hold(var, lo, hi)
    if calculus.sign(weight, ((var, lo, hi),) + ranges) is None:
        raise KernelError(f"the weight {_show(weight)} is not known to be nonnegative")
    if not _real(values):
        raise KernelError(f"the values {_show(values)} are not known to be real")
    k = calculus.fresh("k", integer=True)
    w, u = substitute(weight, {var: k}), substitute(values, {var: k})
    return sp.Sum(w * u, (k, lo, hi)) ** 2, sp.Sum(w, (k, lo, hi)) * sp.Sum(w * u**2, (k, lo, hi)), "<="


@schema("sum_shift", "sum_{k=a}^{b} f(k) = sum_{k=0}^{b-a} f(k + a) (any integer a: a bijection of the range; "
        "SymPy's convention for reversed ranges depends only on b - a)")
def _sum_shift(total):
    total = canonical(total)
    (k, lo, hi) = _single(total, "the sum")
    if getattr(lo, "is_integer", None) is not True:
        raise KernelError(f"the lower bound {_show(lo)} is not known to be an integer")
    j = calculus.fresh("k", integer=True)
    return total, sp.Sum(substitute(total.function, {k: j + lo}), (j, 0, hi - lo)), "="
