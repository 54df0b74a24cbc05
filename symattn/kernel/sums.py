"""The kernel's finite-sum evaluator: closed forms it knows, and the delta rule with its range check.

SymPy's ``Sum.doit`` is not trusted with Kronecker deltas (it sums ``KroneckerDelta(k, m/2)`` over
``k = 0..m`` to 1, though ``m/2`` need not be an integer) nor with infinite limits. The kernel
evaluates ``sum_{k=lo}^{hi}`` of a term by these rules only, each with its side condition:

* every rule needs both bounds shown integers (assumptions, index ranges, ``T = N/B`` for an integer
  ``T``, ``Eq(Mod(n, b), 0)``); over other bounds the sum stays unevaluated;
* a term free of ``k``: ``(hi - lo + 1) c`` (Karr's convention,
  SymPy's and the sign test's: a reversed range counts negatively, ``sum_{k=a}^{a-2} 1 = -1``; a
  non-integer bound such as ``n/2`` is no count at all);
* linearity: the summand is expanded into terms and factors free of ``k`` come out;
* a Kronecker delta ``delta(a, b)`` with ``a - b`` linear in ``k``: solve ``a - b = 0`` for ``k``;
  the solution ``k0`` must be an integer and provably in ``lo..hi`` (then the sum is the term at
  ``k0``); provably not an integer, or provably outside the range, gives 0; otherwise the kernel
  refuses;
* powers ``k**p`` for ``p = 1, 2, 3`` (Faulhaber), over integer bounds (``F(hi) - F(lo - 1)``
  telescopes for any integers, reversed ranges included);
* anything else stays an unevaluated sum.

Ranges of indices come from :class:`~symattn.language.statement.IndexRange` hypotheses for free symbols and
from the enclosing binders for bound ones (never a hypothesis about a free symbol of the same name:
bound variables are canonical dummies). An infinite limit is refused with a message.

>>> import sympy as sp
>>> k, m = sp.symbols("k m", integer=True, nonnegative=True)
>>> evaluate(sp.Sum(sp.KroneckerDelta(k, 2 * m), (k, 0, 2 * m)))
1
>>> evaluate(sp.Sum(sp.KroneckerDelta(k, m / 2), (k, 0, m)))
Traceback (most recent call last):
...
symattn.kernel.terms.KernelError: cannot contract KroneckerDelta(_k0, m/2) in a sum over _k0 = 0..m: the solution _k0 = m/2 is not known to be an integer
"""  # noqa: E501 -- a doctest traceback line (must match the message exactly)

from __future__ import annotations

import itertools
from typing import Any

import sympy as sp

from symattn.kernel.sign import provably_le, range_not_reversed
from symattn.kernel.terms import (
    KernelError,
    canonical,
    free_symbols,
    substitute,
)

__all__ = ["check_finite", "contract", "evaluate", "index_in_range", "is_infinite_sum", "linear_normal_form",
           "sum_normal_form"]


def is_infinite_sum(s: Any) -> bool:
    return any(b.has(sp.oo, -sp.oo, sp.zoo) for lim in s.limits for b in lim[1:])


def check_finite(expr: Any, what: str = "this rule") -> None:
    """Raise unless every Sum in ``expr`` has finite limits."""
    for s in _sums(expr):
        if is_infinite_sum(s):
            raise KernelError(
                f"{what} applies to finite sums only; {sp.sstr(s)} has an infinite limit "
                "(an infinite sum needs a convergence hypothesis, which no rule accepts yet)"
            )


def _sums(expr: Any) -> list:
    if isinstance(expr, sp.MatrixBase):
        return [s for e in expr for s in _sums(e)]
    if not isinstance(expr, sp.Basic):
        return []
    return [e for e in sp.preorder_traversal(expr) if isinstance(e, (sp.Sum, sp.Product))]


# ------------------------------------------------------------------------------------- ranges
def _ranges(hypotheses, env: dict) -> dict:
    from symattn.language.statement import IndexRange

    out = {}
    for h in hypotheses:
        if isinstance(h, IndexRange) and isinstance(h.index, sp.Symbol) and h.index not in out:
            out[h.index] = (h.lower, h.upper)
    out.update(env)  # bound variables: their binder's range, nothing else
    return out


def _linear_bounds(expr: Any, ranges: dict) -> list:
    """(lower, upper) bounds of ``expr`` obtained by moving one ranged symbol it is linear in to the
    ends of its range."""
    out = [(expr, expr)]
    for v, (lo, hi) in ranges.items():
        if v not in free_symbols(expr):
            continue
        try:
            poly = sp.Poly(expr, v)
        except sp.PolynomialError:
            continue
        if poly.degree() != 1:
            continue
        c = poly.coeffs()[0]
        at_lo, at_hi = substitute(expr, {v: lo}), substitute(expr, {v: hi})
        if provably_le(0, c):
            out.append((at_lo, at_hi))
        elif provably_le(c, 0):
            out.append((at_hi, at_lo))
    return out


def index_in_range(j: Any, lo: Any, hi: Any, hypotheses=(), env: dict | None = None) -> bool:
    """Whether integer ``j`` provably lies in ``lo..hi`` (from the assumptions, IndexRange hypotheses
    on free symbols, and the ranges ``env`` of enclosing bound variables)."""
    ranges = _ranges(hypotheses, env or {})
    bounds = _linear_bounds(j, ranges)
    if any(provably_le(lo, a) for a, _ in bounds) and any(provably_le(b, hi) for _, b in bounds):
        return True
    # the sign test with every range (chained ones too: j in 1..i-1 with i in 1..n gives j <= n - 1)
    listed = [(v, a, b) for v, (a, b) in ranges.items()]
    return bool(listed) and provably_le(lo, j, listed) and provably_le(j, hi, listed)


def _outside(j: Any, lo: Any, hi: Any, hypotheses, env) -> bool:
    ranges = _ranges(hypotheses, env or {})
    bounds = _linear_bounds(j, ranges)
    return any(provably_le(b + 1, lo) for _, b in bounds) or any(provably_le(hi + 1, a) for a, _ in bounds)


def _listed(hypotheses, env) -> list:
    return [(v, a, b) for v, (a, b) in _ranges(hypotheses, env or {}).items()]


def _not_reversed(lo, hi, hypotheses, env) -> bool:
    ranges = _ranges(hypotheses, env or {})
    if range_not_reversed(lo, hi, [(v, a, b) for v, (a, b) in ranges.items()]):
        return True
    return any(provably_le(0, a) for a, _ in _linear_bounds(sp.expand(hi - lo + 1), ranges))


def _integrality_confirmed(x: Any, hypotheses, env, negate: bool = False) -> bool:
    """The second engine's re-check of an integrality fact (recorded for the step); ``False`` only
    when it shows the fact false."""
    from symattn.kernel import second

    if not second.enabled():
        return True
    from symattn.kernel.second.integers import recheck_integer

    ranges = _ranges(hypotheses, env or {})
    rng = tuple((v, a, b) for v, (a, b) in ranges.items())
    conditions = _conditions(hypotheses)
    check = second.record(second.bounded("z3", "integrality", lambda: recheck_integer(
        x, integers=tuple(ranges), ranges=rng, negate=negate, conditions=conditions)), "sign")
    return check.verdict != second.DISAGREE


def _conditions(hypotheses) -> tuple:
    """The theorem's equations and relations, as facts for the second engine (it reads what the kernel
    reads: an equation ``T = N/B`` makes ``N/B`` an integer)."""
    from symattn.language.statement import Assumption, Equation

    out = []
    for h in hypotheses or ():
        if isinstance(h, Equation) and not getattr(h, "forall", ()) and isinstance(h.lhs, sp.Expr) \
                and isinstance(h.rhs, sp.Expr):
            out.append(sp.Eq(h.lhs, h.rhs, evaluate=False))
        elif isinstance(h, Assumption) and isinstance(h.condition, (sp.core.relational.Relational, sp.And)):
            out.append(h.condition)
    return tuple(out)


def _is_integer(x: Any, hypotheses, env) -> bool:
    return _integer_by_kernel(x, hypotheses, env) and _integrality_confirmed(x, hypotheses, env)


def _integer_by_kernel(x: Any, hypotheses, env, _depth: int = 0) -> bool:
    if getattr(x, "is_integer", None) is True:
        return True
    if _depth == 0 and isinstance(x, sp.Basic):
        # whole quotients the hypotheses state: an equation ``T = N/B`` with ``T`` an integer, or a
        # divisibility ``Eq(Mod(a, b), 0)`` of integers (then ``a = b q`` for an integer ``q``)
        for y in _quotients_replaced(x, hypotheses):
            if y != x and _integer_by_kernel(y, hypotheses, env, 1):
                return True
    ranges = _ranges(hypotheses, env or {})
    if x in ranges:
        return True
    syms = free_symbols(x)
    if syms and all(s in ranges or s.is_integer for s in syms):
        try:
            p = sp.Poly(x, *sorted(syms, key=sp.default_sort_key))
        except sp.PolynomialError:
            return False
        return all(c.is_integer for c in p.coeffs())
    return False


def _quotients_replaced(x: Any, hypotheses) -> list:
    from symattn.language.statement import Assumption, Equation

    out = []
    for h in hypotheses or ():
        if isinstance(h, Equation) and not h.forall and getattr(h.lhs, "is_integer", None) is True \
                and isinstance(h.rhs, sp.Expr) and not h.rhs.is_Atom:
            y = x.xreplace({h.rhs: h.lhs})
            if y == x:
                y = x.subs(h.rhs, h.lhs)
            out.append(y)
        if isinstance(h, Assumption) and isinstance(h.condition, sp.Eq):
            c = h.condition
            mod = c.lhs if isinstance(c.lhs, sp.Mod) and c.rhs == 0 else None
            if mod is not None:
                a, b = mod.args
                if isinstance(a, sp.Symbol) and a.is_integer and getattr(b, "is_integer", None) and b != 0:
                    q = sp.Dummy(f"{a}_over_{b}", integer=True)
                    out.append(sp.expand(x.xreplace({a: b * q})))
    return out


# --------------------------------------------------------------------------------- evaluation
_FAULHABER = {
    1: lambda x: x * (x + 1) / 2,
    2: lambda x: x * (x + 1) * (2 * x + 1) / 6,
    3: lambda x: (x * (x + 1) / 2) ** 2,
}


def _delta_solution(delta: sp.KroneckerDelta, k: Any):
    a, b = delta.args[:2]
    eq = sp.expand(a - b)
    c = sp.diff(eq, k)
    if c.has(k) or c == 0 or not c.is_number:
        return None
    return sp.expand(k - eq / c)


def _sum_term(term: Any, k: Any, lo: Any, hi: Any, hyps, env, deltas_only: bool) -> Any:
    """``sum_{k=lo}^{hi} term`` by the kernel's rules, or None when none applies."""
    const, dep = term.as_independent(k, as_Add=False)
    if dep == 1:
        if deltas_only:
            return None
        # a count over integer bounds (sum_{k=1}^{n/2} is no sum of n/2 terms); by Karr's convention
        # (SymPy's, and the sign test's) it is hi - lo + 1 for reversed ranges too
        if not _is_integer(hi - lo, hyps, env):
            return None
        return (hi - lo + 1) * const
    deltas = [f for f in sp.Mul.make_args(dep) if isinstance(f, sp.KroneckerDelta) and k in f.free_symbols]
    if deltas:
        delta = deltas[0]
        sol = _delta_solution(delta, k)
        where = f"{sp.sstr(delta)} in a sum over {k} = {sp.sstr(lo)}..{sp.sstr(hi)}"
        if sol is None:
            raise KernelError(f"cannot contract {where}: its equation is not linear in {k}")
        if getattr(sol, "is_integer", None) is False:
            if not _integrality_confirmed(sol, hyps, env, negate=True):
                raise KernelError(f"cannot contract {where}: the engines disagree whether {sp.sstr(sol)} is an integer")
            return sp.S.Zero
        if not _is_integer(sol, hyps, env):
            raise KernelError(f"cannot contract {where}: the solution {k} = {sp.sstr(sol)} is not known to be an "
                              f"integer")
        if not _is_integer(lo, hyps, env):
            # the terms are k = lo, lo + 1, ...: an integer solution is one of them only for an integer lo
            raise KernelError(f"cannot contract {where}: the lower bound {sp.sstr(lo)} is not known to be an integer")
        if index_in_range(sol, lo, hi, hyps, env):
            return const * substitute(dep / delta, {k: sol})
        if _outside(sol, lo, hi, hyps, env) and _not_reversed(lo, hi, hyps, env):
            return sp.S.Zero
        if _is_integer(hi, hyps, env) and provably_le(hi + 2, lo, _listed(hyps, env)):
            # a reversed range counts negatively (Karr's convention): sum_{lo}^{hi} = -sum_{hi+1}^{lo-1},
            # a range that is not reversed; outside lo..hi is not outside hi+1..lo-1
            if index_in_range(sol, hi + 1, lo - 1, hyps, env):
                return -const * substitute(dep / delta, {k: sol})
            if _outside(sol, hi + 1, lo - 1, hyps, env):
                return sp.S.Zero
        raise KernelError(f"cannot contract {where}: {sp.sstr(sol)} is not known to lie in that range, nor "
                          "outside it with the range shown not reversed")
    if deltas_only:
        return None
    if dep == k or (isinstance(dep, sp.Pow) and dep.base == k and dep.exp in _FAULHABER):
        p = 1 if dep == k else int(dep.exp)
        # F(hi) - F(lo - 1) telescopes for every integer lo, hi (Karr's convention)
        if p in _FAULHABER and _is_integer(lo, hyps, env) and _is_integer(hi, hyps, env):
            F = _FAULHABER[p]
            return const * sp.expand(F(hi) - F(lo - 1))
    return None


def bounds_integer(lo: Any, hi: Any, hyps, env=None) -> bool:
    """Whether both bounds of a range are shown integers (assumptions, or the kernel's integrality
    test): the kernel's sums run over integer ranges, so no closed form is taken over other bounds
    (``sum_{k=x}^{x+1} 1`` is no count of 2 for a real ``x``, though ``(x + 1) - x`` is an integer)."""
    return all(getattr(b, "is_integer", None) is True or _is_integer(b, hyps, env or {}) for b in (lo, hi))


def _sum_limit(body: Any, lim: tuple, hyps, env, deltas_only: bool) -> Any:
    k, lo, hi = lim
    if not bounds_integer(lo, hi, hyps, env):
        return sp.Sum(body, lim)
    out, rest = sp.S.Zero, sp.S.Zero
    for term in sp.Add.make_args(sp.expand(body)):
        v = _sum_term(term, k, lo, hi, hyps, env, deltas_only)
        if v is None:
            rest += term
        else:
            out += v
    if rest != 0:
        out += sp.Sum(rest, lim)
    return out


def _walk(expr: Any, hyps, env: dict, deltas_only: bool) -> Any:
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: _walk(e, hyps, env, deltas_only))
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr
    if isinstance(expr, sp.Sum):
        if is_infinite_sum(expr):
            raise KernelError(f"the kernel evaluates finite sums only; {sp.sstr(expr)} has an infinite limit")
        limits = list(expr.limits)
        # a binder's range is lent to its variable only when it is not reversed: SymPy's sum over a
        # reversed range reads the summand outside lo..hi (with a minus sign)
        envs = [dict(env)]  # envs[m]: the scope inside the m outermost limits
        for (v, lo, hi) in reversed(limits):  # outermost first
            scope = dict(envs[-1])
            if _not_reversed(lo, hi, hyps, scope):
                scope[v] = (lo, hi)
            envs.append(scope)
        body = _walk(expr.function, hyps, envs[-1], deltas_only)
        for idx, lim in enumerate(limits):  # innermost first
            body = _sum_limit(body, lim, hyps, envs[len(limits) - 1 - idx], deltas_only)
        return body
    args = [_walk(a, hyps, env, deltas_only) for a in expr.args]
    return expr if all(a is b for a, b in zip(args, expr.args)) else expr.func(*args)


def evaluate(expr: Any, hypotheses=()) -> Any:
    """Every finite sum in ``expr`` evaluated by the kernel's rules (see the module docstring)."""
    return _walk(canonical(expr), tuple(hypotheses), {}, deltas_only=False)


def contract(expr: Any, hypotheses=()) -> Any:
    """Only the delta rule: every Kronecker delta inside a sum contracted (range checked)."""
    return _walk(canonical(expr), tuple(hypotheses), {}, deltas_only=True)


# ------------------------------------------------------------------------------ normal form
def _flatten(s: sp.Sum) -> Any:
    """``sum_L (c * h * sum_M g)`` -> ``c * sum_{M, L} (h g)`` term by term (finite sums)."""
    limits = list(s.limits)
    vars_ = {lim[0] for lim in limits}
    out = sp.S.Zero
    for term in sp.Add.make_args(sp.expand(_normal(s.function))):
        const, dep = term.as_independent(*vars_, as_Add=False) if vars_ else (term, sp.S.One)
        inner_limits = []
        factors = []
        for f in sp.Mul.make_args(dep):
            if isinstance(f, sp.Sum) and not inner_limits and not is_infinite_sum(f):
                inner_limits = list(f.limits)
                factors.append(f.function)
            else:
                factors.append(f)
        body = sp.Mul(*factors)
        all_limits = inner_limits + limits
        best = None
        if len(all_limits) <= 3 and _rectangular(all_limits):
            for perm in itertools.permutations(all_limits):
                cand = sp.Sum(body, *perm)
                key = sp.sstr(canonical(cand))  # the key only: the sum itself keeps its variables
                if best is None or key < best[0]:
                    best = (key, cand)
        out += const * (best[1] if best else sp.Sum(body, *all_limits))
    return out


def _rectangular(limits: list) -> bool:
    vs = {lim[0] for lim in limits}
    return not any(free_symbols(b) & vs for lim in limits for b in lim[1:])


def _normal(expr: Any) -> Any:
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr
    if isinstance(expr, sp.Sum):
        return _flatten(expr)
    return expr.func(*[_normal(a) for a in expr.args])


def sum_normal_form(expr: Any) -> Any:
    """Sums distributed over their terms, constants out, nested rectangular sums merged and their
    limits put in a canonical order (valid for finite sums); used to compare conditions."""
    return canonical(_normal(canonical(expr)))


# ---------------------------------------------------------------------------------------- linear forms
def _map_sums(expr: Any, fn) -> Any:
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: _map_sums(e, fn))
    if not isinstance(expr, sp.Basic):
        return expr
    return expr.replace(lambda e: isinstance(e, sp.Sum), fn)


def _distribute(body: Any, limit: tuple, hyps) -> Any:
    (k, lo, hi) = limit
    out = sp.S.Zero
    # a count only over integer bounds (sum_{k=1}^{n/2} is no sum of n/2 terms; class 10); by Karr's
    # convention it is hi - lo + 1 for reversed ranges too
    count_ok = bounds_integer(lo, hi, hyps) and _is_integer(hi - lo, hyps, {})
    if count_ok and canonical(hi - lo + 1) == 0:
        return sp.S.Zero  # an empty range

    for term in sp.Add.make_args(sp.expand(body)):
        const, dep = term.as_independent(k, as_Add=False)
        if dep != 1:
            out += const * sp.Sum(dep, limit)
        elif count_ok:
            out += const * (hi - lo + 1)
        else:
            out += sp.Sum(const, limit)
    return out


def linear_normal_form(expr: Any, hyps=()) -> Any:
    """Every finite sum of ``expr`` distributed over its terms, constants pulled out."""

    def one(s: sp.Sum):
        out = s.function
        for limit in s.limits:  # innermost first, as SymPy nests the limits
            out = _distribute(out, limit, hyps)
        return out

    return _map_sums(expr, one)
