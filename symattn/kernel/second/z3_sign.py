"""The second engine's sign test: sign, nonzero and integrality obligations decided by Z3.

An expression is translated into Z3's nonlinear real and integer arithmetic. Symbols (and indexed
entries, through their base) carry exactly their *declared* assumptions (``positive``,
``nonnegative``, ``integer``, ``nonzero``, ``even``, ...); each ``(v, lo, hi)`` range adds
``lo <= v <= hi``. Every other subterm is either exact (``Abs``, ``Max``, ``Min``, ``sign``,
``Piecewise``, ``KroneckerDelta``, ``floor``, ``ceiling``, ``(-1)**k``, roots ``R >= 0, R**q = b``,
division ``r * d = 1``, a sum of a term free of its index ``(hi - lo + 1) c``, a head registered with
:func:`symattn.kernel.zero.register_unfolding` through its unfolding) or an *atom* carrying only
facts derived from its structure, never from SymPy's ``is_positive`` of the compound term:

* ``exp(u)``: ``> 0``, ``>= 1 + u``, ``> 1`` iff ``u > 0``; two ``exp`` atoms are ordered as their
  arguments (the same for ``log``, whose argument must be shown positive: ``log(u) <= u - 1``,
  ``u log(u) >= u - 1``);
* ``b**e`` (symbolic ``e``): positive when ``b > 0`` (which must be shown);
* ``tanh`` in ``(-1, 1)`` with the sign of its argument; ``sin``, ``cos`` in ``[-1, 1]``; ``cosh >= 1``;
  ``factorial(n) >= 1`` for an integer ``n >= 0``; ``pi`` and ``E`` between rational bounds;
* ``Sum(f, (k, lo, hi))`` with integer bounds, by Karr's convention (SymPy's): an empty sum
  (``hi = lo - 1``) is 0; with ``hi >= lo - 1``, ``f >= 0`` on ``lo..hi`` gives ``>= 0`` (``> 0`` with
  ``f > 0`` and ``hi >= lo``); with ``hi < lo - 1`` the sum is ``-sum_{k=hi+1}^{lo-1} f``, so
  ``f >= 0`` on ``hi+1..lo-1`` gives ``<= 0``. The summand's sign is itself a Z3 question with ``k``
  an integer in the range. ``Product`` likewise: positive factors give a positive product either
  way (a reversed product is ``1/prod_{hi+1}^{lo-1}``), nonnegative ones ``>= 0`` when not reversed.

The obligation is proved when ``facts and not (guards and claim)`` is unsatisfiable, the guards
being what makes each atom real (``log``'s argument positive, a root's base nonnegative); atom facts
are asserted under their guards. ``sat`` with no atom in the translation is a genuine
counterexample (``disagree``, the model shown); ``sat`` with atoms, ``unknown`` (every call runs with
a timeout) or an untranslatable term is ``inexpressible``, never agreement.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import sympy as sp
import z3

from symattn.kernel.environment import environment_value
from symattn.kernel.second import AGREE, DISAGREE, INEXPRESSIBLE, Check

__all__ = ["RELATIONS", "TIMEOUT_MS", "recheck_sign"]

_ENGINE = "z3"

#: every Z3 call's timeout (milliseconds); ``unknown`` is never agreement
TIMEOUT_MS = environment_value("SYMATTN_Z3_TIMEOUT_MS", 2000)

RELATIONS = ("positive", "nonnegative", "negative", "nonpositive", "nonzero", "integer", "noninteger")

_MAX_DEPTH = 4  # nested sums whose summand signs are asked in turn


class Inexpressible(Exception):
    pass


def _short(x: Any, limit: int = 120) -> str:
    s = " ".join(sp.sstr(x).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _real(t: Any) -> Any:
    return z3.ToReal(t) if z3.is_int(t) else t


def _num(c: Any) -> Any:
    if isinstance(c, sp.Integer):
        return z3.IntVal(int(c))
    return z3.RealVal(Fraction(int(c.p), int(c.q)))


class _Translation:
    """One translation: the Z3 term of an expression and what is known about its pieces."""

    def __init__(self, ranges: tuple, depth: int = 0, bound: frozenset = frozenset()):
        self.facts: list = []
        self.guards: list = []
        self.atoms: list[str] = []  # the atoms introduced (an atom makes a model no counterexample)
        self._vars: dict = {}
        self._atom_memo: dict = {}
        self._exp_atoms: list = []  # (argument, atom) for ordering facts
        self._log_atoms: list = []
        self._fresh = 0
        self.depth = depth
        self.ranges = tuple(ranges)
        self._ranged = {r[0] for r in self.ranges}
        self.bound = bound  # variables of sums being read: their range is all that is known of them
        for (v, lo, hi) in self.ranges:
            t = self.term(v)
            self.facts.append(_real(self.term(lo)) <= _real(t))
            self.facts.append(_real(t) <= _real(self.term(hi)))

    # ---------------------------------------------------------------------------- variables
    def fresh(self, name: str, integer: bool = False):
        self._fresh += 1
        return (z3.Int if integer else z3.Real)(f"{name}!{self._fresh}")

    def atom(self, kind: str, e: Any):
        """The Z3 variable of the atom ``e``: one per term (the same term twice is the same number --
        its free symbols are the same Z3 terms -- so ``|u| b - |u| b`` is 0, not a difference of two
        unrelated atoms); the caller adds its facts each time (duplicates are harmless)."""
        try:
            hit = self._atom_memo.get((kind, e))
        except TypeError:  # unhashable
            hit = None
        if hit is not None:
            return hit
        self.atoms.append(f"{kind} {_short(e, 60)}")
        t = self.fresh(kind)
        try:
            self._atom_memo[(kind, e)] = t
        except TypeError:
            pass
        return t

    def _declared(self, key: Any, name: str, assumptions: dict):
        if key in self._vars:
            return self._vars[key]
        if assumptions.get("integer"):
            t = z3.Int(name)
        elif assumptions.get("real"):
            t = z3.Real(name)
        else:
            raise Inexpressible(f"{name} is not declared real")
        self._vars[key] = t
        r = _real(t)
        for flag, fact in (("positive", r > 0), ("negative", r < 0), ("nonnegative", r >= 0),
                           ("nonpositive", r <= 0), ("nonzero", r != 0), ("zero", r == 0)):
            if assumptions.get(flag):
                self.facts.append(fact)
        if assumptions.get("integer"):
            if assumptions.get("even"):
                self.facts.append(t % 2 == 0)
            if assumptions.get("odd"):
                self.facts.append(t % 2 == 1)
            if assumptions.get("prime"):
                self.facts.append(t >= 2)
        return t

    # --------------------------------------------------------------------------- translation
    def term(self, e: Any):
        if isinstance(e, bool):
            raise Inexpressible("a truth value")
        if isinstance(e, int):
            return z3.IntVal(e)
        if not isinstance(e, sp.Expr):
            raise Inexpressible(f"not a scalar expression: {type(e).__name__}")
        if isinstance(e, sp.Rational):
            return _num(e)
        if isinstance(e, (sp.Float, sp.core.numbers.ImaginaryUnit)) or e in (sp.oo, -sp.oo, sp.zoo, sp.nan):
            raise Inexpressible(f"{e} is not an exact real number")
        if isinstance(e, sp.Symbol):
            assumptions = dict(e.assumptions0)
            if e in self.bound:  # the term layer lends a bound variable its lower bound's sign: not here
                assumptions = {"integer": True} if assumptions.get("integer") else {"real": True}
            if e in self._ranged:  # a ranged symbol lies between its bounds: it is real
                assumptions.setdefault("real", True)
            name = f"{e.name}#{e.dummy_index}" if isinstance(e, sp.Dummy) else e.name
            return self._declared(("sym", e), name, assumptions)
        if isinstance(e, sp.Indexed):
            idx = tuple(self.term(i) for i in e.indices)
            name = f"{e.base}[{','.join(map(str, idx))}]"
            return self._declared(("idx", e.base, tuple(z3.simplify(i).sexpr() for i in idx)), name,
                                  e.base.assumptions0)
        if isinstance(e, sp.Add):
            ts = [self.term(a) for a in e.args]
            if all(z3.is_int(t) for t in ts):
                return sum(ts[1:], ts[0])
            return sum((_real(t) for t in ts[1:]), _real(ts[0]))
        if isinstance(e, sp.Mul):
            out = None
            for a in e.args:
                t = self.term(a)
                out = t if out is None else (out * t if z3.is_int(out) and z3.is_int(t) else _real(out) * _real(t))
            return out
        if isinstance(e, sp.Pow):
            return self._pow(e)
        if e is sp.pi:
            t = self.atom("pi", e)
            self.facts += [t > z3.RealVal(Fraction(314159, 100000)), t < z3.RealVal(Fraction(314160, 100000))]
            return t
        if e is sp.E:
            return self._exp(sp.S.One, e)
        if isinstance(e, sp.exp):
            return self._exp(e.args[0], e)
        if isinstance(e, sp.log):
            return self._logarithm(e)
        if isinstance(e, sp.Abs):
            try:
                u = _real(self.term(e.args[0]))
            except Inexpressible:  # |u| of a complex u is still a nonnegative real
                t = self.atom("abs", e)
                self.facts.append(t >= 0)
                return t
            return z3.If(u >= 0, u, -u)
        if isinstance(e, (sp.Max, sp.Min)):
            ts = [self.term(a) for a in e.args]
            if not all(z3.is_int(t) for t in ts):  # an integer max stays an integer (a sum's bound)
                ts = [_real(t) for t in ts]
            out = ts[0]
            for t in ts[1:]:
                out = z3.If(t > out, t, out) if isinstance(e, sp.Max) else z3.If(t < out, t, out)
            return out
        if isinstance(e, sp.sign):
            u = _real(self.term(e.args[0]))
            return z3.If(u > 0, z3.IntVal(1), z3.If(u < 0, z3.IntVal(-1), z3.IntVal(0)))
        if isinstance(e, sp.KroneckerDelta):
            a, b = (_real(self.term(a)) for a in e.args[:2])
            return z3.If(a == b, z3.IntVal(1), z3.IntVal(0))
        if isinstance(e, sp.Mod) and len(e.args) == 2:  # a - b floor(a/b), read where b != 0
            a, b = (self.term(x) for x in e.args)
            return _real(a) - _real(b) * z3.ToInt(self._quotient(a, b))
        if isinstance(e, sp.floor):
            u = self.term(e.args[0])
            return u if z3.is_int(u) else z3.ToInt(u)
        if isinstance(e, sp.ceiling):
            u = self.term(e.args[0])
            return u if z3.is_int(u) else -z3.ToInt(-u)
        if isinstance(e, sp.Piecewise):
            return self._piecewise(e)
        if isinstance(e, sp.Sum):
            return self._sum(e)
        if isinstance(e, sp.Product):
            return self._product(e)
        return self._function(e)

    def cond(self, c: Any):
        if c is sp.true or c is True:
            return z3.BoolVal(True)
        if c is sp.false or c is False:
            return z3.BoolVal(False)
        if isinstance(c, sp.And):
            return z3.And(*[self.cond(a) for a in c.args])
        if isinstance(c, sp.Or):
            return z3.Or(*[self.cond(a) for a in c.args])
        if isinstance(c, sp.Not):
            return z3.Not(self.cond(c.args[0]))
        ops = {sp.StrictLessThan: lambda a, b: a < b, sp.LessThan: lambda a, b: a <= b,
               sp.StrictGreaterThan: lambda a, b: a > b, sp.GreaterThan: lambda a, b: a >= b,
               sp.Eq: lambda a, b: a == b, sp.Ne: lambda a, b: a != b}
        for cls, op in ops.items():
            if isinstance(c, cls):
                return op(_real(self.term(c.lhs)), _real(self.term(c.rhs)))
        raise Inexpressible(f"condition {_short(c, 60)}")

    def _piecewise(self, e: Any):
        pieces = list(e.args)
        if pieces[-1].cond is not sp.true:
            raise Inexpressible("a Piecewise with no default branch")
        out = _real(self.term(pieces[-1].expr))
        for pc in reversed(pieces[:-1]):
            out = z3.If(self.cond(pc.cond), _real(self.term(pc.expr)), out)
        return out

    def _quotient(self, a: Any, b: Any):
        return _real(a) * self._inverse(b)

    def _inverse(self, d: Any):
        r = self.fresh("inv")
        self.facts.append(r * _real(d) == 1)  # read where the expression is defined
        return r

    def _pow(self, e: sp.Pow):
        base, ex = e.args
        if isinstance(ex, sp.Integer):
            n = int(ex)
            if base == -1:
                return z3.IntVal(1 if n % 2 == 0 else -1)
            b = self.term(base)
            if n == 0:
                return z3.IntVal(1)
            p = b
            for _ in range(abs(n) - 1):
                p = p * b if z3.is_int(p) and z3.is_int(b) else _real(p) * _real(b)
            return p if n > 0 else self._inverse(p)
        if base == -1:
            t = self.term(ex)
            if z3.is_int(t):  # (-1)**k for an integer k
                return z3.If(t % 2 == 0, z3.IntVal(1), z3.IntVal(-1))
            raise Inexpressible(f"(-1)**{ex} with a non-integer exponent")
        if isinstance(ex, sp.Rational):
            q, p = int(ex.q), int(ex.p)
            b = _real(self.term(base))
            r = self.fresh("root")
            self.guards.append(b >= 0 if p > 0 else b > 0)
            power = r
            for _ in range(q - 1):
                power = power * r
            self.facts.append(z3.Implies(b >= 0, z3.And(r >= 0, power == b)))  # exact: the root is unique
            out = r
            for _ in range(abs(p) - 1):
                out = out * r
            return out if p > 0 else self._inverse(out)
        b = _real(self.term(base))
        x = _real(self.term(ex))
        t = self.atom("pow", e)
        self.guards.append(b > 0)
        self.facts.append(z3.Implies(b > 0, t > 0))
        self.facts.append(z3.Implies(z3.And(b > 0, x == 0), t == 1))
        self.facts.append(z3.Implies(z3.And(b > 1, x > 0), t > 1))
        return t

    def _exp(self, arg: Any, e: Any):
        u = _real(self.term(arg))
        t = self.atom("exp", e)
        self.facts += [t > 0, t >= 1 + u, z3.Implies(u > 0, t > 1), z3.Implies(u < 0, t < 1),
                       z3.Implies(u == 0, t == 1)]
        if isinstance(arg, sp.Rational) and abs(arg) <= 64:  # exp of a rational: exact rational bounds
            lo, hi = _exp_bounds(Fraction(int(arg.p), int(arg.q)))
            self.facts += [t > z3.RealVal(lo), t < z3.RealVal(hi)]
        for (v, s) in self._exp_atoms:
            self.facts += [z3.Implies(u < v, t < s), z3.Implies(u > v, t > s), z3.Implies(u == v, t == s)]
        self._exp_atoms.append((u, t))
        return t

    def _logarithm(self, e: Any):
        u = _real(self.term(e.args[0]))
        t = self.atom("log", e)
        self.guards.append(u > 0)
        self.facts.append(z3.Implies(u > 0, z3.And(t <= u - 1, t * u >= u - 1, z3.Implies(u == 1, t == 0))))
        for (v, s) in self._log_atoms:
            self.facts.append(z3.Implies(z3.And(u > 0, v > 0), z3.And(z3.Implies(u < v, t < s),
                                                                       z3.Implies(u == v, t == s))))
        self._log_atoms.append((u, t))
        return t

    def _function(self, e: Any):
        from symattn.kernel import context

        if context.UNFOLDINGS and isinstance(e, tuple(context.UNFOLDINGS)):
            from symattn.kernel.context import unchecked

            with unchecked():  # a re-check of a fact the kernel accepted: it can only refuse it
                body = context._unfold_one(e)
            if body is not e and not body.has(type(e)):
                return self.term(body)
        args = e.args
        if type(e).__name__ == "TileEnd" and type(e).__module__ == "symattn.maths.online_softmax":
            w, t = args  # w_1 + ... + w_t (its docstring's definition; ``doit`` at a concrete t)
            k = sp.Dummy("k", integer=True)
            return self.term(sp.Sum(w[k], (k, 1, t)))
        if isinstance(e, sp.tanh):
            u = _real(self.term(args[0]))
            t = self.atom("tanh", e)
            self.facts += [t > -1, t < 1, z3.Implies(u > 0, t > 0), z3.Implies(u < 0, t < 0),
                           z3.Implies(u == 0, t == 0)]
            return t
        if isinstance(e, (sp.sin, sp.cos)):
            self.term(args[0])  # the argument must be real
            t = self.atom(type(e).__name__, e)
            self.facts += [t >= -1, t <= 1]
            return t
        if isinstance(e, sp.cosh):
            self.term(args[0])
            t = self.atom("cosh", e)
            self.facts.append(t >= 1)
            return t
        if isinstance(e, sp.sinh):
            u = _real(self.term(args[0]))
            t = self.atom("sinh", e)
            self.facts += [z3.Implies(u > 0, t > 0), z3.Implies(u < 0, t < 0), z3.Implies(u == 0, t == 0)]
            return t
        if isinstance(e, sp.factorial):
            n = self.term(args[0])
            if not z3.is_int(n):
                raise Inexpressible("factorial of a term not known to be an integer")
            t = self.atom("factorial", e)
            self.guards.append(n >= 0)
            self.facts.append(z3.Implies(n >= 0, t >= 1))
            return t
        if isinstance(e, sp.core.function.AppliedUndef):
            declared = getattr(type(e), "default_assumptions", {}) or {}
            for a in args:
                self.term(a)
            if not declared.get("real"):
                raise Inexpressible(f"{type(e).__name__} is not declared real")
            return self._declared(("fn", e), _short(e, 60), dict(declared))
        raise Inexpressible(f"no translation of {type(e).__name__}")

    # --------------------------------------------------------------------------- sums, products
    def _bounds(self, lo: Any, hi: Any):
        try:
            a, b = self.term(lo), self.term(hi)
        except Inexpressible:
            return None
        if not (z3.is_int(a) and z3.is_int(b)):
            return None
        return a, b

    def _nested(self, e: Any) -> tuple:
        """``(body, (k, lo, hi))`` of the outermost limit of a Sum/Product."""
        limits = list(e.limits)
        if any(len(lim) != 3 for lim in limits):
            raise Inexpressible("a limit without bounds")
        outer = limits[-1]
        body = e.func(e.function, *limits[:-1]) if len(limits) > 1 else e.function
        return body, tuple(outer)

    def _sum(self, e: sp.Sum):
        body, (k, lo, hi) = self._nested(e)
        if k not in body.free_symbols:
            c = _real(self.term(body))
            bounds = self._bounds(lo, hi)
            if bounds is not None:
                return (_real(bounds[1]) - _real(bounds[0]) + 1) * c
        t = self.atom("sum", e)
        if self._integer_summand(body, k):  # a sum of integers is an integer
            t = self.fresh("isum", integer=True)
        bounds = self._bounds(lo, hi)
        if bounds is None or self.depth >= _MAX_DEPTH:
            return t
        a, b = bounds
        self.facts.append(z3.Implies(b == a - 1, t == 0))
        fwd = self._summand(body, k, lo, hi)
        rev = self._summand(body, k, hi + 1, lo - 1)
        if "nonnegative" in fwd:
            self.facts.append(z3.Implies(b >= a - 1, t >= 0))
        if "positive" in fwd:
            self.facts.append(z3.Implies(b >= a, t > 0))
        if "nonpositive" in fwd:
            self.facts.append(z3.Implies(b >= a - 1, t <= 0))
        if "negative" in fwd:
            self.facts.append(z3.Implies(b >= a, t < 0))
        if "nonnegative" in rev:
            self.facts.append(z3.Implies(b < a - 1, t <= 0))
        if "positive" in rev:
            self.facts.append(z3.Implies(b < a - 1, t < 0))
        if "nonpositive" in rev:
            self.facts.append(z3.Implies(b < a - 1, t >= 0))
        if "negative" in rev:
            self.facts.append(z3.Implies(b < a - 1, t > 0))
        return t

    def _integer_summand(self, body: Any, k: Any) -> bool:
        """Whether the summand is an integer for integer ``k`` (its Z3 term has integer sort); the
        translation's facts and guards are left as they were."""
        facts, guards, atoms, vars_ = len(self.facts), len(self.guards), len(self.atoms), dict(self._vars)
        memo = dict(self._atom_memo)
        self.bound = self.bound | {k}
        try:
            return z3.is_int(self.term(body))
        except (Inexpressible, z3.Z3Exception):
            return False
        finally:
            self.bound = self.bound - {k}
            del self.facts[facts:], self.guards[guards:], self.atoms[atoms:]
            self._vars = vars_
            self._atom_memo = memo

    def _product(self, e: sp.Product):
        body, (k, lo, hi) = self._nested(e)
        t = self.atom("product", e)
        bounds = self._bounds(lo, hi)
        if bounds is None or self.depth >= _MAX_DEPTH:
            return t
        a, b = bounds
        self.facts.append(z3.Implies(b == a - 1, t == 1))
        fwd = self._summand(body, k, lo, hi)
        rev = self._summand(body, k, hi + 1, lo - 1)
        if "positive" in fwd:
            self.facts.append(z3.Implies(b >= a - 1, t > 0))
        elif "nonnegative" in fwd:
            self.facts.append(z3.Implies(b >= a - 1, t >= 0))
        if "positive" in rev:
            self.facts.append(z3.Implies(b < a - 1, t > 0))
        return t

    def _summand(self, body: Any, k: Any, lo: Any, hi: Any) -> tuple:
        """The signs shown for ``body`` at every integer ``k`` in ``lo..hi`` (under the ranges)."""
        ranges = self.ranges + ((k, sp.expand(lo), sp.expand(hi)),)
        bound = self.bound | {k}
        for rel, implied in (("positive", ("positive", "nonnegative")), ("nonnegative", ("nonnegative",)),
                             ("negative", ("negative", "nonpositive")), ("nonpositive", ("nonpositive",))):
            verdict, reason = _decide(body, rel, ranges, self.depth + 1, bound)
            if verdict == AGREE:
                return implied
            if reason.startswith("not expressible"):
                raise Inexpressible(f"the summand of a sum: {reason}")
        return ()


def _exp_bounds(c: Fraction) -> tuple[Fraction, Fraction]:
    """``lo < exp(c) < hi`` with rationals: the Taylor sum to ``N`` terms, and that sum plus twice the
    first omitted term (the tail is at most that once ``N + 2 > 2c``); ``exp(-c) = 1/exp(c)``."""
    if c < 0:
        lo, hi = _exp_bounds(-c)
        return 1 / hi, 1 / lo
    total, term, k = Fraction(1), Fraction(1), 0
    while True:
        k += 1
        term = term * c / k
        if k + 1 > 2 * c + 1 and term < Fraction(1, 10**12):
            break
        total += term
    nxt = term  # the first omitted term (term of index k)
    if c == 0:
        return Fraction(1) - Fraction(1, 10**12), Fraction(1) + Fraction(1, 10**12)
    return total, total + 2 * nxt


def _claim(t: Any, relation: str):
    r = _real(t)
    return {"positive": r > 0, "nonnegative": r >= 0, "negative": r < 0, "nonpositive": r <= 0,
            "nonzero": r != 0, "integer": z3.IsInt(r), "noninteger": z3.Not(z3.IsInt(r))}[relation]


_SYMBOL = {"positive": "> 0", "nonnegative": ">= 0", "negative": "< 0", "nonpositive": "<= 0", "nonzero": "!= 0",
           "integer": "is an integer", "noninteger": "is not an integer"}


def _canon_ranges(ranges) -> tuple:
    out = []
    for r in ranges or ():
        v, lo, hi = r
        if isinstance(v, sp.Symbol):
            out.append((v, sp.sympify(lo, strict=True), sp.sympify(hi, strict=True)))
    return tuple(out)


@functools.lru_cache(maxsize=8192)
def _decide(expr: Any, relation: str, ranges: tuple, depth: int = 0, bound: frozenset = frozenset(),
            conditions: tuple = ()) -> tuple[str, str]:
    """``(verdict, reason)`` for ``expr <relation>`` under the ranges (``bound``: summation variables,
    known only by their ranges; ``conditions``: relations assumed, such as a theorem's hypotheses)."""
    try:
        tr = _Translation(ranges, depth, bound)
        for c in conditions:  # a hypothesis Z3 cannot read is left out (fewer facts: never unsound)
            guards = len(tr.guards)
            try:
                tr.facts.append(tr.cond(c))
            except Inexpressible:
                pass
            del tr.guards[guards:]  # a hypothesis's terms are defined where it holds
        t = tr.term(expr)
    except Inexpressible as exc:
        return INEXPRESSIBLE, f"not expressible in Z3: {exc}"
    except (RecursionError, z3.Z3Exception) as exc:
        return INEXPRESSIBLE, f"not expressible in Z3: {type(exc).__name__}"
    solver = z3.Solver()
    solver.set("timeout", TIMEOUT_MS)
    solver.add(*tr.facts)
    solver.add(z3.Not(z3.And(*tr.guards, _claim(t, relation))))
    try:
        got = solver.check()
    except z3.Z3Exception as exc:
        return INEXPRESSIBLE, f"Z3 failed: {exc}"
    if got == z3.unsat:
        return AGREE, "shown from the declared assumptions and ranges" + (
            f" and the structural facts of {len(tr.atoms)} atoms" if tr.atoms else "")
    if got == z3.unknown:
        return INEXPRESSIBLE, f"Z3 could not decide it (unknown: {solver.reason_unknown()}, timeout {TIMEOUT_MS} ms)"
    model = solver.model()
    shown = ", ".join(f"{d.name()} = {model[d]}" for d in sorted(model.decls(), key=str)[:6]
                      if "!" not in d.name())
    if tr.atoms:
        return INEXPRESSIBLE, (f"not shown: what is known of the atoms ({'; '.join(tr.atoms[:3])}) allows a "
                               f"point where it fails ({shown})")
    return DISAGREE, f"false at {shown or 'a point'} (a model of the declared assumptions and ranges)"


def recheck_sign(expr: Any, relation: str, *, hypotheses=None, ranges=(), conditions=(), kernel: str = "") -> Check:
    """Re-check the kernel's claim that ``expr`` is ``relation`` (one of :data:`RELATIONS`), given the
    ``(v, lo, hi)`` ranges and the relations ``conditions``. ``hypotheses`` are not used: the
    kernel's sign test reads none either."""
    if relation not in RELATIONS:
        raise ValueError(f"unknown relation {relation!r}; one of {RELATIONS}")
    fact = f"{_short(expr)} {_SYMBOL[relation]}"
    kernel = kernel or f"SymPy's assumptions say {relation}"
    try:
        e = sp.sympify(expr, strict=True)
        verdict, reason = _decide(e, relation, _canon_ranges(ranges), conditions=tuple(conditions))
    except (TypeError, sp.SympifyError) as exc:
        verdict, reason = INEXPRESSIBLE, f"not expressible in Z3: {exc}"
    return Check(_ENGINE, verdict, reason, fact, kernel)
