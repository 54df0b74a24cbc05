"""Concrete points: the finite expander, models of hypotheses, and the counterexample search.

Everything here works at *concrete points*: values for the free symbols of a statement and its
hypotheses. Three services, all used by the checker:

* :func:`expand_finite` -- the kernel's own expander for finite sums and products whose limits are
  concrete integers: unrolled term by term (capture-free: a bound variable is replaced only where
  it is bound by the sum being unrolled), never through SymPy's ``doit`` on a ``Sum`` (which
  evaluates ``Sum(KroneckerDelta(k, m/2), (k, 0, m))`` to 1). symattn's own heads (``Softmax``,
  ``Score``, ...) are expanded through their ``doit``, which rewrites them into sums.
* :func:`find_model` -- an assignment that satisfies every hypothesis (symbol assumptions, index
  ranges, equations, checkable assumptions, random families and their independence), tried first
  at the smallest values and then at random ones. A theorem whose hypotheses have no model found is
  not proved (ex falso is not a proof).
* :func:`find_counterexample` -- random points *inside* the hypotheses (only free symbols and the
  entries they make concrete are given values; bound variables never are), at which the statement
  is shown to fail by exact evaluation (:mod:`symattn.kernel.exact`: balls that exclude 0, minimal
  polynomials; floating point never decides); a side shown non-real at real inputs breaks an
  inequality. A point is reported only if every hypothesis holds there, and the report shows that
  it does; the two sides are shown as exact numbers.

Values are exact rationals; SymPy is trusted for exact arithmetic on numbers and for ``ask`` of a
predicate on a number.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement, MatrixExpr

from symattn.kernel import exact
from symattn.kernel.timelimit import TimeLimitExceeded, time_limit

__all__ = ["expand_finite", "Model", "find_model", "find_counterexample", "Counterexample", "hypothesis_symbols",
           "statement_symbols", "substitute_free", "check_hypotheses"]

#: the largest number of terms :func:`expand_finite` writes out for one sum
MAX_TERMS = 4096

class TooLarge(Exception):
    """A finite sum too long to unroll."""


# ---------------------------------------------------------------------------------------------- expander
def _bound_free_subs(expr: Any, var: sp.Symbol, value: Any) -> Any:
    """Replace the free occurrences of ``var`` in ``expr`` (an inner sum that binds ``var`` again
    keeps its own ``var``; its limits, which sit outside its binder, are still replaced)."""
    if not isinstance(expr, sp.Basic) or var not in expr.free_symbols:
        return expr
    if expr == var:
        return value
    if isinstance(expr, (sp.Sum, sp.Product)):
        # limits are innermost first; the bounds of limit m lie in the scope of the variables of the
        # limits after m. With K the outermost limit binding var: the body and the bounds of the
        # limits before K see the bound var; the bounds of K and of the limits after it see the free one.
        binding = [m for m, (v, _, _) in enumerate(expr.limits) if v == var]
        K = binding[-1] if binding else -1
        body = expr.function if binding else _bound_free_subs(expr.function, var, value)
        limits = [
            (v, lo, hi) if m < K else (v, _bound_free_subs(lo, var, value), _bound_free_subs(hi, var, value))
            for m, (v, lo, hi) in enumerate(expr.limits)
        ]
        return type(expr)(body, *limits)
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: _bound_free_subs(e, var, value))
    args = [_bound_free_subs(a, var, value) for a in expr.args]
    return expr.func(*args)


def _is_symattn_head(e: Any) -> bool:
    """symattn's own heads, and the heads of registered definitions (``symattn.rules.definitions.define``,
    e.g. a derivation module's LayerNorm): both unfold through their definitions."""
    if not isinstance(e, sp.Basic) or not hasattr(e, "doit"):
        return False
    if (type(e).__module__ or "").startswith("symattn."):
        return True
    from symattn.kernel.zero import UNFOLDINGS

    return type(e) in UNFOLDINGS


def expand_finite(expr: Any) -> Any:
    """Unroll every finite sum/product with concrete integer limits, write matrix expressions of
    concrete shape as explicit matrices, and expand symattn's own heads through their definitions.

    >>> k, m = sp.symbols("k m", integer=True)
    >>> expand_finite(sp.Sum(k**2, (k, 1, 3)))
    14
    >>> expand_finite(sp.Sum(sp.KroneckerDelta(k, sp.Rational(3, 2)), (k, 0, 3)))
    0
    >>> expand_finite(sp.Sum(k, (k, 1, m)))
    Sum(k, (k, 1, m))
    >>> expand_finite(sp.Sum(k, (k, 4, 1)))  # Karr: -(2 + 3)
    -5
    """
    return _expand(expr, 0)


def _expand(e: Any, depth: int) -> Any:
    if depth > 200:  # counts unrolled sums and expanded definitions, not the depth of the tree
        raise TooLarge("expansion nests too deeply")
    if isinstance(e, sp.MatrixBase):
        return e.applyfunc(lambda x: _expand(x, depth))
    if not isinstance(e, sp.Basic) or e.is_Atom:
        return e
    if isinstance(e, (sp.Sum, sp.Product)):
        # limits are innermost first: unroll the outermost; what is left is the inner sum
        (v, lo, hi) = e.limits[-1]
        body = type(e)(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function
        lo, hi = _expand(lo, depth), _expand(hi, depth)
        if lo.is_Integer and hi.is_Integer:
            # Karr's convention, as SymPy's and the sign test's: hi = lo - 1 is empty; a range with
            # hi < lo - 1 runs over hi+1..lo-1, negated for a sum, inverted for a product
            first, last, reverse = int(lo), int(hi), False
            if last < first - 1:
                first, last, reverse = last + 1, first - 1, True
            count = last - first + 1
            if count > MAX_TERMS:
                raise TooLarge(f"a sum of {count} terms")
            terms = [_bound_free_subs(body, v, sp.Integer(t)) for t in range(first, last + 1)]
            combined = sp.Add(*terms) if isinstance(e, sp.Sum) else sp.Mul(*terms)
            if reverse:
                combined = -combined if isinstance(e, sp.Sum) else 1 / combined
            return _expand(combined, depth + 1)
        if len(e.limits) > 1:
            return e
        return type(e)(e.function, (v, lo, hi))
    if isinstance(e, MatrixExpr) and not isinstance(e, sp.MatrixSymbol) and all(
        getattr(s, "is_Integer", False) for s in e.shape
    ):
        try:
            explicit = e.as_explicit()
        except (ValueError, TypeError, AttributeError, NotImplementedError):
            explicit = None
        if explicit is not None:
            return _expand(sp.ImmutableMatrix(explicit), depth + 1)
    args = [_expand(a, depth) for a in e.args]
    new = e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e
    if _is_symattn_head(new):
        done = new.doit()
        # a definition that does not unfold the head (it comes back, possibly with fresh dummies)
        # is left as it is
        if done != new and not (isinstance(done, sp.Basic) and done.has(type(new))):
            return _expand(done, depth + 1)
    return new


# ---------------------------------------------------------------------------------------------- points
def _hyps(hypotheses, kind: str) -> list:
    return [h for h in hypotheses if type(h).__name__ == kind]


def _basic_symbols(x: Any) -> set:
    """Free scalar symbols of ``x`` (matrix shapes included), without the labels of indexed bases
    (``s`` in ``s[j]`` is a name, not a value)."""
    if not isinstance(x, (sp.Basic, sp.MatrixBase)):
        return set()
    out = {s for s in x.free_symbols if isinstance(s, sp.Symbol)}
    if isinstance(x, sp.Basic):
        out -= {b.label for b in x.atoms(sp.IndexedBase)}
        for m in x.atoms(sp.MatrixSymbol):
            for dim in m.shape:
                out |= {s for s in getattr(dim, "free_symbols", set()) if isinstance(s, sp.Symbol)}
    return out


def substitute_free(x: Any, point: dict) -> Any:
    """Simultaneous, capture-free substitution of ``point`` into ``x``: a variable bound by a sum or
    product inside ``x`` is never replaced there (only its free occurrences are)."""
    if isinstance(x, int) and not isinstance(x, bool):
        return sp.Integer(x)
    if isinstance(x, sp.MatrixBase):
        return x.applyfunc(lambda e: substitute_free(e, point))
    if not isinstance(x, sp.Basic) or not point:
        return x
    if x in point:
        return point[x]
    if isinstance(x, sp.Indexed):  # an Atom to SymPy, but its indices may hold free symbols
        new = x.base[tuple(substitute_free(t, point) for t in x.indices)]
        return point.get(new, new)
    if x.is_Atom:
        return x
    if isinstance(x, (sp.Sum, sp.Product)):
        # bounds of limit m are in the scope of the variables of the limits after m
        limits = []
        for m, (v, lo, hi) in enumerate(x.limits):
            outer = {w for (w, _, _) in x.limits[m + 1:]}
            sub = {k: val for k, val in point.items() if k not in outer}
            limits.append((v, substitute_free(lo, sub), substitute_free(hi, sub)))
        bound = {v for (v, _, _) in x.limits}
        inner = {k: val for k, val in point.items() if k not in bound}
        return type(x)(substitute_free(x.function, inner), *limits)
    args = [substitute_free(a, point) for a in x.args]
    return x.func(*args) if any(a is not b for a, b in zip(args, x.args)) else x


def _hypothesis_exprs(h) -> list:
    kind = type(h).__name__
    if kind == "Equation":
        return [h.lhs, h.rhs]
    if kind == "IndexRange":
        return [h.index, h.lower, h.upper]
    if kind == "Assumption":
        c = h.condition
        return [c] if isinstance(c, sp.Basic) else []
    if kind == "RandomFamily":
        return [h.dim, h.mean, h.variance]
    return []


def statement_symbols(statement) -> set:
    """The free scalar symbols of a statement's sides (matrix shapes included, labels of indexed
    bases excluded)."""
    return _basic_symbols(statement.lhs) | _basic_symbols(statement.rhs)


def hypothesis_symbols(hypotheses) -> set:
    """The free symbols the hypotheses mention (forall variables of equations excluded)."""
    out: set = set()
    for h in hypotheses:
        syms = set().union(*(_basic_symbols(e) for e in _hypothesis_exprs(h)))
        syms -= set(getattr(h, "forall", ()) or ())
        out |= syms
    return out


def _assumption_ok(atom: Any, value: Any) -> bool:
    """Whether ``value`` has every property SymPy's assumptions give ``atom`` (positive, integer,
    nonzero, prime, even, ...)."""
    facts = getattr(atom, "assumptions0", None)
    if facts is None:  # Indexed entries carry their base's assumptions through is_<fact>
        facts = {}
        for fact in ("integer", "real", "positive", "negative", "nonnegative", "nonpositive", "nonzero", "zero"):
            v = getattr(atom, f"is_{fact}", None)
            if v is not None:
                facts[fact] = v
    for fact, wanted in facts.items():
        if fact in ("commutative", "hermitian", "complex", "finite", "infinite", "extended_real",
                    "extended_positive", "extended_negative", "extended_nonnegative", "extended_nonpositive",
                    "extended_nonzero", "imaginary", "antihermitian", "algebraic", "transcendental"):
            if fact in ("infinite", "imaginary", "transcendental") and wanted:
                return False
            continue
        got = getattr(value, f"is_{fact}", None)
        if got is None or bool(got) != bool(wanted):
            return False
    return True


def _draw(atom: Any, rng: random.Random | None) -> Any:
    """A value for ``atom``: the smallest plausible value when ``rng`` is None, otherwise a small
    random one; shaped by the atom's integer/sign assumptions (checked afterwards in full)."""
    integer = bool(getattr(atom, "is_integer", False))
    if rng is None:
        known_nonzero = getattr(atom, "is_positive", False) or getattr(atom, "is_nonzero", False)
        base = sp.Integer(1) if known_nonzero else sp.Integer(0)
        if getattr(atom, "is_negative", False):
            base = sp.Integer(-1)
        if getattr(atom, "is_prime", False):
            base = sp.Integer(2)
        return base
    v = sp.Integer(rng.randint(-6, 6)) if integer else sp.Rational(rng.randint(-9, 9), rng.randint(1, 4))
    if getattr(atom, "is_positive", False):
        v = abs(v) + (1 if integer else sp.Rational(1, 2))
    elif getattr(atom, "is_nonnegative", False):
        v = abs(v)
    elif getattr(atom, "is_negative", False):
        v = -abs(v) - 1
    elif getattr(atom, "is_nonpositive", False):
        v = -abs(v)
    if getattr(atom, "is_nonzero", False) and v == 0:
        v = sp.Integer(1)
    return v


def _is_number(x: Any) -> bool:
    if isinstance(x, sp.MatrixBase):
        return all(_is_number(e) for e in x)
    return isinstance(x, sp.Basic) and x.is_number


def _evaluate(x: Any, point: dict) -> Any:
    if isinstance(x, int) and not isinstance(x, bool):
        return sp.Integer(x)
    if not isinstance(x, (sp.Basic, sp.MatrixBase)):
        return x
    # substitute, unroll, and again: unrolling makes entries (s[1]) that the point values
    for _ in range(4):
        new = expand_finite(substitute_free(x, point))
        if new == x:
            break
        x = new
    return x


def _numbers_equal(a: Any, b: Any) -> bool | None:
    """Exact comparison of two closed numbers (None: undefined or not shown either way); see
    :mod:`symattn.kernel.exact` (balls for "differ", minimal polynomials for "equal")."""
    return exact.equal(a, b)


def _truth(cond: Any) -> bool | None:
    """The truth of a closed condition (a relational, a boolean, a ``Q`` predicate)."""
    if cond is sp.true or cond is True:
        return True
    if cond is sp.false or cond is False:
        return False
    if isinstance(cond, sp.logic.boolalg.BooleanFunction) and not isinstance(cond, sp.core.relational.Relational):
        parts = [_truth(a) for a in cond.args]
        if isinstance(cond, sp.And):
            return False if False in parts else (None if None in parts else True)
        if isinstance(cond, sp.Or):
            return True if True in parts else (None if None in parts else False)
        if isinstance(cond, sp.Not):
            return None if parts[0] is None else not parts[0]
        return None
    if isinstance(cond, sp.core.relational.Relational):
        if isinstance(cond, sp.Eq):
            return _numbers_equal(cond.lhs, cond.rhs)
        if isinstance(cond, sp.Ne):
            eq = _numbers_equal(cond.lhs, cond.rhs)
            return None if eq is None else not eq
        try:
            s = exact.sign(cond.lhs - cond.rhs)
        except (TypeError, ValueError):
            return None
        if s is None:
            return None
        if s == "nonreal":
            return False
        return {sp.Le: s <= 0, sp.Lt: s < 0, sp.Ge: s >= 0, sp.Gt: s > 0}[type(cond)]
    if isinstance(cond, sp.assumptions.AppliedPredicate):
        try:
            return sp.ask(cond)
        except Exception:
            return None
    return None


@dataclass
class Model:
    """A concrete assignment and, per hypothesis, how it was seen to hold."""

    values: dict
    holds: list = field(default_factory=list)  # (hypothesis name, evidence) checked at the values
    unchecked: list = field(default_factory=list)  # (hypothesis name, why it could not be checked)

    def describe(self, limit: int = 12) -> str:
        shown = sorted(self.values.items(), key=lambda kv: sp.default_sort_key(kv[0]))
        where = ", ".join(f"{sp.sstr(s)} = {sp.sstr(v)}" for s, v in shown[:limit])
        if len(shown) > limit:
            where += f", ... ({len(shown)} values)"
        out = f"at {where or 'no free symbols'}"
        if self.holds:
            out += "; hypotheses hold there: " + "; ".join(f"{n}: {e}" for n, e in self.holds)
        if self.unchecked:
            out += "; not checkable at a point: " + ", ".join(n for n, _ in self.unchecked)
        return out


class _Reject(Exception):
    """The point violates a hypothesis or an assumption (message says which)."""


def _random_bases(hypotheses) -> set:
    return {h.base for h in _hyps(hypotheses, "RandomFamily")}


def _mentions_random(e: Any, bases: set) -> bool:
    """Whether ``e`` mentions a random entry outside an expectation-like head of symattn."""
    if not isinstance(e, sp.Basic):
        return False
    if _is_symattn_head(e) and type(e).__module__ in ("symattn.rules.expectation", "symattn.moments"):
        return False
    if isinstance(e, sp.Indexed) and e.base in bases:
        return True
    if e in bases:
        return True
    return any(_mentions_random(a, bases) for a in e.args)


def _order_symbols(symbols: set, hypotheses) -> list:
    """Symbols in an order where each index range's bounds come before its index and each
    equation-determined symbol after what determines it."""
    deps: dict = {s: set() for s in symbols}
    for h in _hyps(hypotheses, "IndexRange"):
        if h.index in deps:
            deps[h.index] |= (_basic_symbols(h.lower) | _basic_symbols(h.upper)) & symbols - {h.index}
    for s, rhs in _determined(hypotheses, symbols).items():
        deps[s] |= _basic_symbols(rhs) & symbols - {s}
    out, seen = [], set()

    def visit(s, trail=()):
        if s in seen or s in trail:
            return
        for d in sorted(deps.get(s, ()), key=sp.default_sort_key):
            visit(d, trail + (s,))
        seen.add(s)
        out.append(s)

    for s in sorted(symbols, key=sp.default_sort_key):
        visit(s)
    return out


def _determined(hypotheses, symbols: set) -> dict:
    """Symbols that an equation hypothesis (no forall) fixes: ``s = rhs`` with ``s`` not in rhs."""
    out = {}
    for h in _hyps(hypotheses, "Equation"):
        if h.forall:
            continue
        for a, b in ((h.lhs, h.rhs), (h.rhs, h.lhs)):
            if isinstance(a, sp.Symbol) and a in symbols and a not in _basic_symbols(b) and a not in out:
                out[a] = b
                break
    return out


def _member_sets(hypotheses, symbols: set) -> dict:
    """Symbols that an assumption confines to a set: ``Contains(s, S)`` (alone or in an ``And``),
    ``s`` a symbol; two such sets for one symbol are intersected."""
    out: dict = {}
    for h in _hyps(hypotheses, "Assumption"):
        cond = getattr(h, "condition", None)
        parts = cond.args if isinstance(cond, sp.And) else (cond,)
        for c in parts:
            if isinstance(c, sp.Contains) and isinstance(c.args[0], sp.Symbol) and c.args[0] in symbols:
                s, where = c.args[0], c.args[1]
                out[s] = where if s not in out else sp.Intersection(out[s], where)
    return out


def _draw_from(s: sp.Symbol, where: Any, rng: random.Random | None) -> Any:
    """A value of ``s`` inside the set ``where`` that agrees with the assumptions of ``s`` (the smallest
    such when ``rng`` is None); :class:`_Reject` when there is none that is easy to see."""
    if where is sp.S.EmptySet:
        raise _Reject(f"{s} must lie in the empty set")
    integer = bool(getattr(s, "is_integer", False))
    if isinstance(where, sp.FiniteSet):
        members = sorted((v for v in where.args if v.is_number and _assumption_ok(s, v)), key=sp.default_sort_key)
        if not members:
            raise _Reject(f"no member of {sp.sstr(where)} fits the assumptions of {s}")
        return members[0] if rng is None else members[rng.randrange(len(members))]
    if isinstance(where, sp.Interval) and where.start.is_number and where.end.is_number:
        lo, hi = where.start, where.end
        if integer:
            first = sp.ceiling(lo) if lo.is_finite else sp.floor(hi) - 6 if hi.is_finite else sp.Integer(0)
            if where.left_open and first == lo:
                first += 1
            last = sp.floor(hi) if hi.is_finite else first + 6
            if where.right_open and last == hi:
                last -= 1
            candidates = [sp.Integer(v) for v in range(int(first), int(min(last, first + 6)) + 1)]
        else:
            if lo.is_finite and hi.is_finite:
                candidates = [lo + (hi - lo) * sp.Rational(k, 4) for k in (2, 1, 3, 0, 4)]
            elif lo.is_finite:
                candidates = [lo + sp.Rational(k, 2) for k in range(0, 8)]
            elif hi.is_finite:
                candidates = [hi - sp.Rational(k, 2) for k in range(0, 8)]
            else:
                candidates = [sp.Integer(k) for k in (0, 1, -1, 2)]
        fits = [v for v in candidates if where.contains(v) is sp.true and _assumption_ok(s, v)]
        if not fits:
            raise _Reject(f"no value of {s} found in {sp.sstr(where)}")
        return fits[0] if rng is None else fits[rng.randrange(len(fits))]
    raise _Reject(f"cannot draw {s} from {sp.sstr(where)}")


def _assign(statement_exprs: list, hypotheses, rng: random.Random | None, extra: Iterable = ()) -> dict:
    """One candidate point: values for every free symbol, then for every entry (``s[1]``, ``X[0, 1]``)
    the substituted expressions make concrete. Raises :class:`_Reject` if a value breaks an
    assumption or an index range is empty there."""
    exprs = list(statement_exprs) + [e for h in hypotheses for e in _hypothesis_exprs(h)]
    symbols = set().union(*(_basic_symbols(e) for e in statement_exprs)) | hypothesis_symbols(hypotheses) | set(extra)
    for h in _hyps(hypotheses, "Equation"):
        symbols -= set(h.forall or ())
    ranges = {h.index: h for h in _hyps(hypotheses, "IndexRange")}
    determined = _determined(hypotheses, symbols)
    members = _member_sets(hypotheses, symbols)
    point: dict = {}
    for s in _order_symbols(symbols, hypotheses):
        if s in determined:
            v = _evaluate(determined[s], point)
            if not _is_number(v):
                raise _Reject(f"{s} = {sp.sstr(determined[s])} is not a number there")
        elif s in members and s not in ranges:
            where = _evaluate(members[s], point)
            if isinstance(where, sp.Intersection):
                where = where.doit() if hasattr(where, "doit") else where
            v = _draw_from(s, where, rng)
        elif s in ranges:
            lo, hi = _evaluate(ranges[s].lower, point), _evaluate(ranges[s].upper, point)
            if not (getattr(lo, "is_Integer", False) and getattr(hi, "is_Integer", False)):
                raise _Reject(f"the range of {s} is not concrete")
            if lo > hi:
                raise _Reject(f"the range {ranges[s].name} of {s} is empty there ({lo}..{hi})")
            v = lo if rng is None else sp.Integer(rng.randint(int(lo), int(hi)))
        else:
            v = _draw(s, rng)
        if not _assumption_ok(s, v):
            raise _Reject(f"{s} = {v} breaks the assumptions of {s}")
        point[s] = v
    # entries made concrete: Indexed with integer indices, matrix entries
    bases = _random_bases(hypotheses)
    for _ in range(8):
        pending = set()
        for e in exprs:
            ev = _evaluate(e, point) if isinstance(e, (sp.Basic, sp.MatrixBase)) else None
            if isinstance(ev, (sp.Basic, sp.MatrixBase)):
                pending |= {a for a in _atoms(ev) if a not in point}
        if not pending:
            break
        _solve_linear_equations(hypotheses, point, pending, rng, bases)
        pending = {a for a in pending if a not in point}
        for a in sorted(pending, key=sp.default_sort_key):
            if isinstance(a, sp.Indexed) and a.base in bases:
                continue  # a random entry: no value (the statement speaks of its distribution)
            v = _entry_from_equations(a, hypotheses, point)
            point[a] = v if v is not None else _draw(a, rng)
    return point


def _solve_linear_equations(hypotheses, point, pending, rng, bases) -> None:
    """For an equation (no forall) over entries not yet valued (``a[1] + a[2] = 1``): value all but
    the last entry, and solve for the last when the equation is linear in it."""
    for h in _hyps(hypotheses, "Equation"):
        if h.forall:
            continue
        try:
            r = _evaluate(sp.sympify(h.lhs) - sp.sympify(h.rhs), point)
        except (TypeError, sp.SympifyError):
            continue
        if not isinstance(r, sp.Expr):
            continue
        unknown = sorted((a for a in _atoms(r) if a not in point and a in pending
                          and not (isinstance(a, sp.Indexed) and a.base in bases)), key=sp.default_sort_key)
        if not unknown:
            continue
        *rest, last = unknown
        for a in rest:
            v = _entry_from_equations(a, hypotheses, point)
            point[a] = v if v is not None else _draw(a, rng)
        r = _evaluate(r, point)
        coeff = sp.expand(r).coeff(last, 1)
        if coeff.is_number and coeff != 0 and not sp.expand(r - coeff * last).has(last):
            point[last] = -(r - coeff * last) / coeff


def _atoms(e: Any) -> set:
    if isinstance(e, sp.MatrixBase):
        return set().union(*(_atoms(x) for x in e)) if len(e) else set()
    out = set()
    for a in e.atoms(sp.Indexed, MatrixElement, sp.Symbol):
        if isinstance(a, sp.Indexed) and all(getattr(i, "is_Integer", False) for i in a.indices):
            out.add(a)
        elif isinstance(a, MatrixElement) and a.i.is_Integer and a.j.is_Integer:
            out.add(a)
    return out


def _entry_from_equations(atom, hypotheses, point) -> Any:
    """The value an equation hypothesis gives an entry (``L[0] = 0``, or ``L[t] = ...`` for all t,
    at a t inside the forall variable's assumptions), or None."""
    for h in _hyps(hypotheses, "Equation"):
        if not isinstance(h.lhs, sp.Indexed) or not isinstance(atom, sp.Indexed) or h.lhs.base != atom.base:
            continue
        if not h.forall and substitute_free(h.lhs, point) == atom:
            v = _evaluate(h.rhs, point)
            return v if _is_number(v) else None
        if h.forall and len(h.lhs.indices) == len(atom.indices):
            sub = {}
            for pat, idx in zip(h.lhs.indices, atom.indices):
                if pat in h.forall and _assumption_ok(pat, idx):
                    sub[pat] = idx
                elif pat != idx:
                    break
            else:
                v = _evaluate(substitute_free(h.rhs, sub), point)
                if _is_number(v):
                    return v
    return None


def _check_hypotheses(hypotheses, point: dict) -> tuple[list, list]:
    """Evidence that each hypothesis holds at ``point``; raises :class:`_Reject` naming the first
    one that does not. Returns (holds, unchecked)."""
    holds, unchecked = [], []
    ranges = {h.index: h for h in _hyps(hypotheses, "IndexRange")}
    quantified = {x for e in _hyps(hypotheses, "Equation") for x in (e.forall or ())}
    for h in hypotheses:
        kind = type(h).__name__
        if kind == "IndexRange" and h.index in quantified and h.index not in point:
            # the range of an equation's ``forall`` variable, which takes no value at a point
            lo, hi = (_evaluate(x, point) for x in (h.lower, h.upper))
            if not all(getattr(x, "is_Integer", False) for x in (lo, hi)):
                raise _Reject(f"{h.name}: the range of the quantified {sp.sstr(h.index)} is not concrete")
            holds.append((h.name, f"{sp.sstr(h.index)} ranges over {lo}..{hi} (quantified)"))
        elif kind == "IndexRange":
            lo, hi, v = (_evaluate(x, point) for x in (h.lower, h.upper, h.index))
            if not all(getattr(x, "is_Integer", False) for x in (lo, hi, v)) or not lo <= v <= hi:
                raise _Reject(f"{h.name}: {sp.sstr(h.index)} = {sp.sstr(v)} is not in {sp.sstr(lo)}..{sp.sstr(hi)}")
            holds.append((h.name, f"{lo} <= {h.index} = {v} <= {hi}"))
        elif kind == "Equation":
            spread = {f.base for f in _hyps(hypotheses, "RandomFamily") if _positive_at(f.variance, point)}
            if _mentions_random(h.lhs, spread) or _mentions_random(h.rhs, spread):
                if _identically_zero(h.lhs, h.rhs):
                    holds.append((h.name, "an identity"))
                    continue
                raise _Reject(
                    f"{h.name}: the equation {sp.sstr(h.lhs)} = {sp.sstr(h.rhs)} ties random entries to a value, "
                    "but they are independent with variance > 0"
                )
            if h.forall:
                unchecked.append((h.name, "universally quantified (a definition by recurrence)"))
                continue
            a, b = _evaluate(h.lhs, point), _evaluate(h.rhs, point)
            if not (_is_number(a) and _is_number(b)):
                unchecked.append((h.name, "not a number at the point"))
                continue
            ok = all(_numbers_equal(x, y) for x, y in zip(_entries(a), _entries(b)))
            if not ok:
                raise _Reject(f"{h.name}: {sp.sstr(a)} != {sp.sstr(b)}")
            holds.append((h.name, f"{sp.sstr(a)} = {sp.sstr(b)}"))
        elif kind == "Assumption":
            c = h.condition
            if not isinstance(c, sp.Basic):
                unchecked.append((h.name, "stated in words"))
                continue
            # a condition on an entry s[j] with j an index is read for every j in its range
            instances = [point]
            idx = [s for s in _basic_symbols(c) if s in ranges]
            if idx:
                instances = [{**point, **combo} for combo in _range_points(idx, ranges, point)]
            for inst in instances:
                val = _truth(_evaluate(c, inst))
                if val is False:
                    raise _Reject(f"{h.name}: {sp.sstr(c)} is false at {_show_point(inst, c)}")
                if val is None:
                    unchecked.append((h.name, "undecidable at the point"))
                    break
            else:
                holds.append((h.name, "true" + (f" for every {', '.join(map(str, idx))} in range" if idx else "")))
        elif kind == "RandomFamily":
            v = _evaluate(h.variance, point)
            sv = exact.sign(v) if _is_number(v) else None
            if sv in (-1, "nonreal"):
                raise _Reject(f"{h.name}: variance {sp.sstr(v)} is not >= 0")
            if sv in (0, 1):
                holds.append((h.name, f"variance {sp.sstr(v)} >= 0"))
            else:
                unchecked.append((h.name, "variance not shown >= 0 at the point"))
        elif kind == "Independent":
            fams = list(h.families)
            if len(set(fams)) != len(fams):
                raise _Reject(f"{h.name}: a family is listed twice (a family is not independent of itself)")
            holds.append((h.name, "distinct families"))
        else:
            unchecked.append((h.name, f"{kind} has no point check"))
    return holds, unchecked


#: the public name of the point check (used by :mod:`symattn.kernel.zippel`)
check_hypotheses = _check_hypotheses


def _positive_at(variance, point) -> bool:
    """Whether a variance is positive at the point (a degenerate family may satisfy an equation)."""
    v = _evaluate(variance, point)
    return not (_is_number(v) and exact.is_zero(v) is True)


def _range_points(idx, ranges, point, cap: int = 64) -> list:
    combos = [{}]
    for s in idx:
        lo, hi = _evaluate(ranges[s].lower, point), _evaluate(ranges[s].upper, point)
        if not (getattr(lo, "is_Integer", False) and getattr(hi, "is_Integer", False)):
            return [{}]
        combos = [{**c, s: sp.Integer(v)} for c in combos for v in range(int(lo), int(hi) + 1)][:cap]
    return combos


def _show_point(point, expr) -> str:
    syms = _basic_symbols(expr)
    return ", ".join(f"{s} = {point[s]}" for s in sorted(syms, key=sp.default_sort_key) if s in point) or "the point"


def _identically_zero(a, b) -> bool:
    try:
        from symattn.kernel.zero import equal

        return bool(equal(a, b))
    except Exception:
        return False


def _entries(x: Any) -> list:
    return list(x) if isinstance(x, sp.MatrixBase) else [x]


def find_model(statement_exprs: list, hypotheses, *, seed: int = 0, tries: int = 24, seconds: float = 8.0,
               extra: Iterable = ()):
    """A :class:`Model` of the hypotheses, or ``(None, reasons)``.

    Tries the smallest values first (positive integers 1, nonnegative 0, an index at its lower
    bound, a symbol an assumption ``Contains(s, S)`` confines at the smallest member of ``S``), then
    random small values. Returns ``(model, [])`` or ``(None, [why each try failed])``.
    """
    rng = random.Random(seed)
    reasons: list[str] = []
    try:
        with time_limit(seconds):
            for attempt in range(tries):
                try:
                    point = _assign(statement_exprs, hypotheses, None if attempt == 0 else rng, extra)
                    holds, unchecked = _check_hypotheses(hypotheses, point)
                except _Reject as exc:
                    if str(exc) not in reasons:
                        reasons.append(str(exc))
                    continue
                except (TooLarge, TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
                    reasons.append(f"{type(exc).__name__}: {exc}")
                    continue
                shown = {s: v for s, v in point.items() if isinstance(s, sp.Symbol)}
                return Model(shown, holds, unchecked), []
    except TimeLimitExceeded:
        reasons.append(f"time limit of {seconds:g} s")
    return None, reasons


# ---------------------------------------------------------------------------------------------- search
@dataclass
class Counterexample:
    """A point inside the hypotheses where the statement fails."""

    model: Model
    left: Any
    right: Any

    def __str__(self) -> str:
        return f"{self.model.describe()}: left = {sp.sstr(self.left)}, right = {sp.sstr(self.right)}"


def _violates(a: Any, b: Any, relation: str) -> bool | None:
    """Whether ``a relation b`` is shown, exactly, to fail (None: undefined there, or not shown either
    way; floating point never decides). An inequality between sides of which one is shown not real
    fails (the claim compares real quantities)."""
    if relation == "=":
        eq = exact.equal(a, b)
        return None if eq is None else not eq
    try:
        s = exact.sign(sp.sympify(a) - sp.sympify(b))
    except (TypeError, ValueError, sp.SympifyError):
        return None
    if s is None:
        return None
    if s == "nonreal":
        return True
    return {"<=": s > 0, "<": s >= 0, ">=": s < 0, ">": s <= 0}[relation]


def find_counterexample(statement, hypotheses=(), *, seed: int = 0, tries: int = 12, seconds: float = 8.0):
    """A :class:`Counterexample` (every hypothesis checked at it), or None.

    Only free symbols are given values (bound variables never are), in an order that samples an
    index range's bounds before the index, from values that keep every assumption; the entries
    the point makes concrete (``s[1]``, ``X[0, 1]``) get values too, except random entries of a
    :class:`~symattn.statement.RandomFamily`. A point where a side is undefined is skipped. A
    point is reported only when every hypothesis is seen to hold there; a hypothesis stated only
    in words cannot be checked, so with one the search reports nothing.
    """
    sides = [statement.lhs, statement.rhs]
    closed = not any(_basic_symbols(x) or (isinstance(x, (sp.Basic, sp.MatrixBase)) and _atoms(expand_finite(x)))
                     for x in sides)
    if closed:  # nothing to assign: no hypothesis can constrain the point, so none is consulted
        hypotheses = ()
    if any(type(h).__name__ == "Assumption" and not isinstance(h.condition, sp.Basic) for h in hypotheses):
        return None
    rng = random.Random(seed)
    for attempt in range(tries):
        try:
            with time_limit(seconds):
                point = _assign(sides, hypotheses, rng if attempt else None)
                holds, unchecked = _check_hypotheses(hypotheses, point)
                if unchecked:
                    continue
                lhs, rhs = (_evaluate(side, point) for side in sides)
                la, ra = _entries(lhs), _entries(rhs)
                if len(la) != len(ra):
                    continue
                for a, b in zip(la, ra):
                    if not (_is_number(a) and _is_number(b)):
                        break
                    if _violates(a, b, statement.relation):
                        return Counterexample(Model(dict(point), holds, unchecked), a, b)
        except (_Reject, TooLarge, TypeError, ValueError, AttributeError, ZeroDivisionError, TimeLimitExceeded):
            continue
    return None

