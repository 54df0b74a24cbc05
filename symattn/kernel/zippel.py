"""The Schwartz--Zippel identity test, at random points *inside* the hypotheses.

An identity ``lhs = rhs`` between rational functions of finitely many variables, under hypotheses:

1. **Equations are solved, not ignored.** Each equation hypothesis (``w_1 + w_2 = 1``; an
   ``Assumption`` that is an ``Eq``) is solved for one variable that occurs in it linearly with a
   nonzero numeric coefficient, and the solution is substituted into the sides and the remaining
   equations. Every point of the hypotheses satisfies the solved equations, so the identity holds on
   the hypotheses exactly when the substituted difference ``P`` (a rational function of the remaining
   variables) vanishes there; a false identity has ``P != 0`` as a rational function. An equation
   that cannot be solved so (``x**2 = 2``), a universally quantified equation, a hypothesis stated in
   words or about random families: the test does not run, and says which hypothesis stopped it.
2. **Points are drawn from product sets inside the hypotheses.** Each remaining variable gets ``F``
   (the field size) values shaped by its assumptions (``1..F`` for a positive one, ``-F..-1`` for a
   negative one, ...); a variable of a solved equation gets ``F`` small positive fractions, so that
   a probability vector's solved last entry stays in ``[0, 1]``. *Every* point is checked against every
   hypothesis exactly (:func:`symattn.kernel.search.check_hypotheses`); if one leaves them, the test
   stops without counting anything (the bound needs every accepted point from the product set).
3. **Exact comparison.** The sides are evaluated exactly at the point and compared by
   :mod:`symattn.kernel.exact` (minimal polynomial, never structure): ``X phi^2`` and ``X (phi + 1)``
   are the same number. A side undefined at the point, or a comparison not decided, redraws the
   point and never counts as a pass.
4. **The bound.** ``D`` bounds the total degree of ``(nl dr - nr dl) dl dr`` (sides ``nl/dl``,
   ``nr/dr``; :func:`degree_bound`: a sum takes the max, a product the sum, a power multiplies). A
   false identity passes one accepted point with probability at most ``D / (F - D)``; independent
   trials multiply. ``F <= D`` gives no bound (1.0), so such a test never counts.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement

from symattn.kernel import exact
from symattn.kernel.search import _atoms, _Reject, check_hypotheses, expand_finite, substitute_free

__all__ = ["degree_bound", "schwartz_zippel", "solve_equations", "NotRational", "Refused"]


class NotRational(Exception):
    """The identity is not between rational functions of its variables (or not an identity)."""


class Refused(Exception):
    """The hypotheses keep the test from running (the message says which and why)."""


def degree_bound(e: Any) -> int:
    """An upper bound on the total degree of a polynomial expression tree, without expanding it.

    >>> x, y = sp.symbols("x y")
    >>> degree_bound(x * y), degree_bound(x**2 * y), degree_bound((x * y) ** 3), degree_bound(x + y**2)
    (2, 3, 6, 2)
    """
    e = sp.sympify(e)
    if e.is_number:
        return 0
    if isinstance(e, (sp.Symbol, sp.Indexed, MatrixElement)):
        return 1
    if isinstance(e, sp.Add):
        return max(degree_bound(a) for a in e.args)
    if isinstance(e, sp.Mul):
        return sum(degree_bound(a) for a in e.args)
    if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp >= 0:
        return int(e.exp) * degree_bound(e.base)
    raise NotRational(f"not a rational function of its symbols ({type(e).__name__} in the identity)")


def _entries(x: Any) -> list:
    return list(x) if isinstance(x, sp.MatrixBase) else [x]


def _variables(x: Any) -> set:
    """The variables of an expanded expression: free symbols, and entries with concrete indices."""
    if isinstance(x, sp.MatrixBase):
        return set().union(*(_variables(e) for e in x)) if len(x) else set()
    if not isinstance(x, sp.Basic):
        return set()
    out = set(_atoms(x))
    labels = {b.label for b in x.atoms(sp.IndexedBase)} | set(x.atoms(sp.MatrixSymbol))
    return out | {s for s in x.free_symbols if isinstance(s, sp.Symbol) and s not in labels}


_ALLOWED_KINDS = ("Equation", "Assumption", "IndexRange")
_RARE_FACTS = ("prime", "composite", "even", "odd", "zero", "noninteger", "irrational", "imaginary",
               "transcendental", "rational", "algebraic")


def _solve(hypotheses, sides: list, strict: bool = True) -> tuple[dict, list]:
    """Solve the equation hypotheses for variables (linear, constant coefficient); returns the
    solution (variable -> rational expression of the others) and the sides substituted. With
    ``strict`` an equation that cannot be solved so raises :class:`Refused`; otherwise it is left
    out (solving fewer hypotheses is still sound: each substitution is one of them)."""
    solution: dict = {}
    eqs = []
    for h in hypotheses:
        kind = type(h).__name__
        if kind == "Equation":
            if h.forall and not strict:
                continue
            if h.forall:
                raise Refused(f"{h.name} is universally quantified: no point of it is drawn")
            eqs.append((h.name, h.lhs, h.rhs))
        elif kind == "Assumption" and isinstance(h.condition, sp.Eq):
            eqs.append((h.name, h.condition.lhs, h.condition.rhs))
    for name, lhs, rhs in eqs:
        r = expand_finite(sp.sympify(lhs) - sp.sympify(rhs))
        r = sp.expand(substitute_free(r, solution))
        if r == 0:
            continue
        candidates = sorted(_variables(r), key=sp.default_sort_key, reverse=True)
        for var in candidates:
            c = r.coeff(var, 1)
            rest = sp.expand(r - c * var)
            if c.is_number and c != 0 and not rest.has(var):
                value = -rest / c
                solution = {k: sp.expand(substitute_free(v, {var: value})) for k, v in solution.items()}
                solution[var] = value
                break
        else:
            if not strict:
                continue
            raise Refused(f"{name} cannot be solved for one of its variables (no variable occurs in it "
                          "linearly with a numeric coefficient)")
    return solution, [substitute_free(s, solution) for s in sides]


#: the public name (the checker solves an instance's equations the same way before its zero test)
solve_equations = _solve


def _value_set(var: Any, field_size: int, scaled: bool, rng: random.Random) -> Any:
    """A uniformly drawn member of a set of ``field_size`` values fitting ``var``'s assumptions."""
    facts = getattr(var, "assumptions0", {}) or {}
    for f in _RARE_FACTS:
        if facts.get(f):
            raise Refused(f"{var} is declared {f}: no product set of its values is drawn")
    t = rng.randrange(field_size)
    negative = facts.get("negative") or facts.get("nonpositive")
    if scaled and not facts.get("integer"):
        v = sp.Rational(t + 1, field_size * 64)  # small positive fractions
        return -v if negative else v
    if facts.get("positive"):
        return sp.Integer(t + 1)
    if facts.get("negative"):
        return -sp.Integer(t + 1)
    if facts.get("nonpositive"):
        return -sp.Integer(t)
    return sp.Integer(t)


def _at_point(hypotheses, point: dict) -> list:
    """The hypotheses to check at a point: an index range whose index takes no value there (it is
    bound in the sides, or absent) is checked to be nonempty and then left out."""
    out = []
    for h in hypotheses:
        if type(h).__name__ == "IndexRange" and h.index not in point:
            lo, hi = (expand_finite(substitute_free(sp.sympify(e), point)) for e in (h.lower, h.upper))
            if not (lo.is_Integer and hi.is_Integer and lo <= hi):
                raise Refused(f"{h.name}: the range of {h.index} is not a nonempty concrete range at the point")
            continue
        out.append(h)
    return out


def schwartz_zippel(st, hypotheses, rng: random.Random, trials: int, field_size: int):
    """``("pass", bound, detail)``, ``("fail", counterexample)`` or ``("undefined", why)``; raises
    :class:`NotRational` or :class:`Refused` when the test does not apply (see the module)."""
    if st.relation != "=":
        raise NotRational("only identities can be tested probabilistically")
    for h in hypotheses:
        kind = type(h).__name__
        if kind not in _ALLOWED_KINDS:
            raise Refused(f"{h.name} ({kind}) has no product set of points inside it")
        if kind == "Assumption" and not isinstance(h.condition, sp.Basic):
            raise Refused(f"{h.name} is stated in words: no point can be checked against it")
    lhs, rhs = expand_finite(st.lhs), expand_finite(st.rhs)
    noncommutative = sorted({str(a) for x in (lhs, rhs) if isinstance(x, (sp.Basic, sp.MatrixBase))
                             for a in getattr(x, "free_symbols", set()) if a.is_commutative is False})
    if noncommutative:
        # values drawn from a field commute: a test at them says nothing about A*B = B*A
        raise Refused(f"the non-commutative symbols {', '.join(noncommutative)} cannot take values in a field "
                      "(its values commute)")
    ls, rs = _entries(lhs), _entries(rhs)
    if len(ls) != len(rs) or (isinstance(lhs, sp.MatrixBase) != isinstance(rhs, sp.MatrixBase)):
        raise NotRational("the sides have different shapes")
    solution, sides = _solve(hypotheses, [lhs, rhs])
    pairs = [(sp.sympify(a, strict=True), sp.sympify(b, strict=True))
             for a, b in zip(_entries(sides[0]), _entries(sides[1]))]
    degree = 0
    free: set = set()
    for a, b in pairs:
        na, da = sp.together(a).as_numer_denom()
        nb, db = sp.together(b).as_numer_denom()
        dda, ddb = degree_bound(da), degree_bound(db)
        degree = max(degree, max(degree_bound(na) + ddb, degree_bound(nb) + dda) + dda + ddb)
        free |= _variables(a) | _variables(b)
    in_solution = set().union(*(_variables(v) for v in solution.values())) if solution else set()
    ranges = {h.index: h for h in hypotheses if type(h).__name__ == "IndexRange"}
    free |= in_solution
    free -= set(solution)
    free = sorted(free, key=sp.default_sort_key)
    if field_size <= degree:
        return ("pass", 1.0, f"degree bound {degree} >= field size {field_size}: no bound")
    done = attempts = 0
    while done < trials:
        attempts += 1
        if attempts > 10 * trials + 10:
            return ("undefined", "a side is undefined, or the comparison undecided, at most random points; "
                                 "no point counted")
        point = {}
        for var in free:
            if var in ranges:
                raise Refused(f"{var} ranges over {ranges[var].name}: a free index is not drawn from a field")
            point[var] = _value_set(var, field_size, var in in_solution, rng)
        full = dict(point)
        for var, value in solution.items():
            full[var] = sp.sympify(value).xreplace(point)
        try:
            holds, unchecked = check_hypotheses(_at_point(hypotheses, full), full)
        except _Reject as exc:
            raise Refused(f"a random point left the hypotheses ({exc}); no bound without every point inside "
                          "them") from None
        if unchecked:
            raise Refused(f"{', '.join(n for n, _ in unchecked)} cannot be checked at a random point")
        values = [(a.xreplace(point), b.xreplace(point)) for a, b in pairs]
        if any(not va.is_number or not vb.is_number for va, vb in values):
            raise NotRational("a side keeps a symbol at a point (an entry without a value)")
        decided = [exact.equal(va, vb) for va, vb in values]
        if None in decided and False not in decided:
            continue  # undefined or undecided there: never a pass
        if False in decided:
            va, vb = values[decided.index(False)]
            shown = {k: v for k, v in full.items()}
            where = ", ".join(f"{sp.sstr(x)} = {sp.sstr(v)}" for x, v in
                              sorted(shown.items(), key=lambda kv: sp.default_sort_key(kv[0])))
            return ("fail", f"at {where}: left = {sp.sstr(va)}, right = {sp.sstr(vb)} (exact; every hypothesis "
                            f"holds there)")
        done += 1
    solved = (f"; solved {', '.join(sorted(sp.sstr(v) for v in solution))} from the equations" if solution else "")
    return ("pass", float(Fraction(degree, field_size - degree)) ** trials, f"degree bound {degree}{solved}")
