"""A SymPy expression as a rational function over Q of opaque atoms, in flint's ``fmpq_mpoly``.

The tree is read as data (``.args``, the class of a node, the declared assumptions of symbols);
nothing here calls a SymPy simplifier. Rational arithmetic (``Add``, ``Mul``, integer powers,
rational numbers) becomes flint arithmetic; every other subterm becomes one *atom*, keyed by its
canonical structure -- its head and the normal forms of its arguments -- so that ``f(x + x)`` and
``f(2*x)`` are one atom. The normal form of a rational function is ``num/den`` with the gcd
cancelled and ``den`` monic.

A few structural identities, valid for every value of the variables (principal branches), are
built in so that atoms are canonical:

* ``exp(c_1 m_1 + ... )`` is ``prod exp(m_i/q_i)**p_i`` (``c_i = p_i/q_i``, ``m_i`` monomials);
  ``E`` is ``exp(1)``;
* ``b**(p/q)`` is ``b**floor(p/q) * R**r`` with the root atom ``R = b**(1/q)`` and the relation
  ``R**q = b`` (when ``b`` is a polynomial), used to reduce numerators; ``I`` is ``(-1)**(1/2)``;
* ``b**(c + e)`` with an integer ``c`` is ``b**c * b**e``, and ``b**e`` splits over the terms
  of ``e`` like ``exp``;
* a finite ``Sum`` is linear: terms and factors free of the index come out, one atom per
  remaining summand monomial (SymPy's convention for reversed ranges is linear too);
  ``sum_{k=1}^{n} f(sigma(k)) = sum_{k=1}^{n} f(k)`` when the step's hypotheses declare ``sigma`` a
  permutation of ``1..n`` (``permutations``) and ``k`` occurs only inside ``sigma(k)``.

An atom is *independent* (a free variable: a symbol, an indexed entry, a matrix entry, ``pi``, an
undefined function applied to independent arguments) or not (``exp``, ``log``, sums, ...: such
atoms may satisfy relations this module does not know, so a nonzero numerator over them proves
nothing).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.core.function import AppliedUndef

__all__ = ["Atom", "Inexpressible", "RationalForm"]


class Inexpressible(Exception):
    """The expression has no rational form over Q of atoms (a float, ``oo``, a relation, ...)."""


@dataclass
class Atom:
    index: int
    expr: Any  # a SymPy term the atom stands for (messages, and Z3's facts)
    kind: str  # 'symbol' | 'indexed' | 'exp' | 'log' | 'root' | 'pow' | 'sum' | 'product' | 'function' | ...
    independent: bool
    deps: frozenset = field(default_factory=frozenset)  # symbol atoms it depends on
    relation: Any = None  # (q, base polynomial): atom**q == base
    parts: tuple = ()  # for Z3: the SymPy pieces (base, argument, body, limits, ...)


def _power_of(summand: Any, v: Any) -> int | None:
    """``p`` when ``summand`` is ``v**p`` (``p`` a nonnegative integer at most 12)."""
    if summand == v:
        return 1
    if summand == 1:
        return 0
    if isinstance(summand, sp.Pow) and summand.base == v and isinstance(summand.exp, sp.Integer) \
            and 0 <= int(summand.exp) <= 12:
        return int(summand.exp)
    return None


@functools.lru_cache(maxsize=16)
def _power_sum(p: int) -> tuple:
    """Coefficients (constant first) of ``S_p(x) = sum_{k=1}^{x} k**p``, from
    ``(x + 1)**(p + 1) - 1 = sum_{j <= p} C(p + 1, j) S_j(x)``."""
    from math import comb

    def poly_pow1(n):  # (x + 1)**n
        return [Fraction(comb(n, i)) for i in range(n + 1)]

    sums: list = []
    for q in range(p + 1):
        acc = poly_pow1(q + 1)
        acc[0] -= 1
        for j in range(q):
            for i, c in enumerate(sums[j]):
                acc[i] -= comb(q + 1, j) * c
        sums.append([c / (q + 1) for c in acc])
    return tuple(sums[p])


def _shown_positive(e: Any) -> bool:
    """Whether Z3 (the second engine's sign test, :mod:`.z3_sign`) shows ``e > 0``."""
    from symattn.kernel.second import AGREE
    from symattn.kernel.second.z3_sign import recheck_sign

    return recheck_sign(e, "positive").verdict == AGREE


def _count(expr: Any) -> int:
    n = 0
    for _ in sp.preorder_traversal(expr):
        n += 1
    return n


class RationalForm:
    """Translator of SymPy expressions into ``(num, den)`` pairs of one flint polynomial ring."""

    def __init__(self, *exprs: Any, spare: int = 8, permutations: tuple = ()):
        nodes = sum(_count(e) for e in exprs if isinstance(e, sp.Basic))
        self.nvars = 2 * nodes + spare
        self.ctx = flint.fmpq_mpoly_ctx.get(("a", self.nvars))
        self.atoms: dict = {}  # key -> Atom
        self.by_index: list[Atom] = []
        self._memo: dict = {}
        self.zero = self.ctx.from_dict({})
        self.one = self.ctx.from_dict({(0,) * self.nvars: 1})
        #: ``(name, n)``: the function ``name`` is a permutation of ``1..n`` (a hypothesis of the step)
        self.permutations = tuple(permutations)

    # ------------------------------------------------------------------------ rational functions
    def const(self, c: Any) -> tuple:
        return (self.ctx.from_dict({(0,) * self.nvars: flint.fmpq(int(c.p), int(c.q))}) if c != 0 else self.zero,
                self.one)

    def normal(self, num: Any, den: Any) -> tuple:
        if den.is_zero():
            raise Inexpressible("division by zero")
        num, den = self.reduce(num), self.reduce(den)
        if den.is_zero():
            raise Inexpressible("a denominator is 0 once roots are reduced")
        if num.is_zero():
            return self.zero, self.one
        if not den.is_constant():
            g = num.gcd(den)
            if not g.is_one() and not g.is_constant():
                num, den = num / g, den / g
        lc = den.leading_coefficient()
        if lc != 1:
            num, den = num / lc, den / lc
        return num, den

    def add(self, a: tuple, b: tuple) -> tuple:
        if a[1] == b[1]:
            return self.normal(a[0] + b[0], a[1])
        return self.normal(a[0] * b[1] + b[0] * a[1], a[1] * b[1])

    def mul(self, a: tuple, b: tuple) -> tuple:
        return self.normal(a[0] * b[0], a[1] * b[1])

    def power(self, a: tuple, n: int) -> tuple:
        if n >= 0:
            return self.normal(a[0] ** n, a[1] ** n)
        if a[0].is_zero():
            raise Inexpressible("division by zero (a negative power of 0)")
        return self.normal(a[1] ** (-n), a[0] ** (-n))

    def var(self, atom: Atom) -> tuple:
        exps = [0] * self.nvars
        exps[atom.index] = 1
        return self.ctx.from_dict({tuple(exps): 1}), self.one

    def reduce(self, p: Any) -> Any:
        """``p`` with every root atom's power ``R**e`` (``e >= q``) rewritten by ``R**q = base``."""
        rels = [a for a in self.by_index if a.relation is not None]
        if not rels or p.is_constant():
            return p
        for _ in range(64):
            changed = False
            for a in rels:
                q, base = a.relation
                terms = p.to_dict()
                if not any(m[a.index] >= q for m in terms):
                    continue
                changed = True
                out = self.zero
                for m, c in terms.items():
                    e = m[a.index]
                    if e < q:
                        out = out + self.ctx.from_dict({m: c})
                        continue
                    m2 = list(m)
                    m2[a.index] = e % q
                    out = out + self.ctx.from_dict({tuple(m2): c}) * base ** (e // q)
                p = out
            if not changed:
                return p
        raise Inexpressible("root relations did not reduce")

    @staticmethod
    def key(r: tuple) -> tuple:
        return (tuple(sorted(r[0].to_dict().items())), tuple(sorted(r[1].to_dict().items())))

    # ------------------------------------------------------------------------------------ atoms
    def _atom(self, key: Any, expr: Any, kind: str, independent: bool, deps=frozenset(), relation=None,
              parts: tuple = ()) -> Atom:
        if key in self.atoms:
            return self.atoms[key]
        if len(self.by_index) >= self.nvars:
            raise Inexpressible("too many atoms")
        atom = Atom(len(self.by_index), expr, kind, independent, frozenset(deps), relation, parts)
        self.atoms[key] = atom
        self.by_index.append(atom)
        return atom

    def atoms_of(self, p: Any) -> list[Atom]:
        """The atoms occurring in the polynomial ``p``."""
        if p.is_zero():
            return []
        used: set = set()
        for m in p.to_dict():  # the exponent vectors (one to_dict, not one per atom)
            used.update(i for i, e in enumerate(m) if e)
        return [a for i, a in enumerate(self.by_index) if i in used]

    def deps_of(self, r: tuple) -> frozenset:
        out: set = set()
        for p in r:
            for a in self.atoms_of(p):
                out |= a.deps
        return frozenset(out)

    def all_independent(self, p: Any) -> bool:
        return all(a.independent for a in self.atoms_of(p))

    def to_sympy(self, r: tuple) -> Any:
        """The rational function back as a SymPy term of the atoms' representatives (messages)."""

        def poly(p):
            out = []
            for m, c in sorted(p.to_dict().items()):
                term = sp.Rational(int(c.p), int(c.q))
                for i, e in enumerate(m):
                    if e:
                        term = term * self.by_index[i].expr ** e
                out.append(term)
            return sp.Add(*out)

        return poly(r[0]) / poly(r[1])

    def _mono_expr(self, m: tuple) -> Any:
        out = sp.S.One
        for i, e in enumerate(m):
            if e:
                out = out * self.by_index[i].expr ** e
        return out

    def _mono(self, m: tuple) -> tuple:
        return self.ctx.from_dict({m: 1}), self.one

    # -------------------------------------------------------------------------------- translation
    def of(self, expr: Any) -> tuple:
        """``(num, den)`` of ``expr``; raises :class:`Inexpressible`."""
        try:
            hit = self._memo.get(expr)
        except TypeError:
            hit = None
        if hit is not None:
            return hit
        got = self._of(expr)
        try:
            self._memo[expr] = got
        except TypeError:
            pass
        return got

    def _of(self, e: Any) -> tuple:
        if isinstance(e, (int,)) and not isinstance(e, bool):
            return self.const(sp.Integer(e))
        if not isinstance(e, sp.Expr):
            raise Inexpressible(f"not a scalar expression: {type(e).__name__}")
        if isinstance(e, sp.Rational):
            return self.const(e)
        if isinstance(e, sp.Float):
            raise Inexpressible(f"a floating-point number ({e})")
        if e.is_Number or e in (sp.oo, -sp.oo, sp.zoo, sp.nan):
            raise Inexpressible(f"not a finite rational or algebraic quantity: {e}")
        if isinstance(e, sp.Add):
            out = self.zero, self.one
            for a in e.args:
                out = self.add(out, self.of(a))
            return out
        if isinstance(e, sp.Mul):
            out = self.one, self.one
            for a in e.args:
                out = self.mul(out, self.of(a))
            return out
        if isinstance(e, sp.Pow):
            return self._pow(e)
        if isinstance(e, sp.exp) or e is sp.E:
            return self._exp(e.args[0] if isinstance(e, sp.exp) else sp.S.One, e)
        if isinstance(e, sp.Symbol):
            return self.var(self._symbol(e))
        if e is sp.pi:
            return self.var(self._atom(("const", "pi"), e, "constant", True))
        if isinstance(e, sp.NumberSymbol):
            return self.var(self._atom(("const", e), e, "constant", False))
        if isinstance(e, sp.core.numbers.ImaginaryUnit):
            return self._root(sp.Integer(-1), 2, 1, e, independent=True)
        if isinstance(e, sp.Indexed):
            return self._indexed(e)
        if isinstance(e, sp.matrices.expressions.matexpr.MatrixElement):
            return self._matrix_entry(e)
        if isinstance(e, sp.Sum):
            return self._sum(e)
        if isinstance(e, sp.Subs) and not e.expr.has(sp.Derivative, sp.Integral, sp.Subs):
            return self._function(e)
        if isinstance(e, sp.Derivative) and len(e.variable_count) == 1 and e.variable_count[0][1] == 1 \
                and isinstance(e.variable_count[0][0], (sp.Symbol, sp.Indexed)):
            return self._derivative(e.expr, e.variable_count[0][0])
        if isinstance(e, (ExprWithLimits, sp.Limit, sp.Derivative, sp.Subs)):
            return self._opaque(e, "binder")
        if isinstance(e, sp.log) and len(e.args) == 1:
            return self._log(e.args[0])
        if isinstance(e, (sp.Function, sp.Piecewise)) or getattr(e, "args", None):
            return self._function(e)
        raise Inexpressible(f"no rational form for {type(e).__name__}")

    def _symbol(self, s: sp.Symbol) -> Atom:
        key = ("sym", s)
        if key in self.atoms:
            return self.atoms[key]
        atom = self._atom(key, s, "symbol", True)
        atom.deps = frozenset({atom.index})
        return atom

    def _arg_key(self, a: Any) -> tuple:
        """The key of an argument: its normal form when it is a scalar, else its structure."""
        if isinstance(a, sp.Expr) and not isinstance(a, (sp.Lambda,)) and not getattr(a, "is_Matrix", False):
            try:
                r = self.of(a)
                return ("rat", self.key(r)), self.deps_of(r), self._independent_rat(r)
            except Inexpressible:
                pass
        return ("raw", a), self._raw_deps(a), False

    def _independent_rat(self, r: tuple) -> bool:
        return all(a.independent for p in r for a in self.atoms_of(p))

    def _raw_deps(self, a: Any) -> frozenset:
        from symattn.kernel.terms import free_symbols

        out = set()
        for s in free_symbols(a) if isinstance(a, sp.Basic) else ():
            if isinstance(s, sp.Symbol):
                out |= self._symbol(s).deps
        return frozenset(out)

    def _opaque(self, e: Any, kind: str) -> tuple:
        from symattn.kernel.terms import canonical

        c = canonical(e)  # a binder taken out of another is renamed to its own level
        return self.var(self._atom(("raw", c), e, kind, False, self._raw_deps(e)))

    _TRIG = ("sin", "cos", "tan", "cot", "sec", "csc")
    _HYP = ("sinh", "cosh", "tanh", "coth", "sech", "csch")

    def _circular(self, e: Any) -> tuple:
        """``sin``, ``cos``, ... through ``z = exp(i u)``; ``sinh``, ``cosh``, ... through ``w = exp(u)``
        (Euler's formulas: identities of every complex ``u``), so addition theorems are polynomial."""
        name = type(e).__name__
        u = e.args[0]
        i = self.of(sp.I)
        minus_i = self.mul(i, self.const(sp.Integer(-1)))
        z = self._exp(sp.I * u if name in self._TRIG else u, None)
        one, two = self.one_r(), self.const(sp.Integer(2))
        z2 = self.mul(z, z)
        up, down = self.add(z2, self.mul(one, self.const(sp.Integer(-1)))), self.add(z2, one)  # z^2 - 1, z^2 + 1

        def div(a, b):
            return self.mul(a, self.power(b, -1))

        table = {
            "sin": lambda: div(self.mul(minus_i, up), self.mul(two, z)),
            "cos": lambda: div(down, self.mul(two, z)),
            "tan": lambda: div(self.mul(minus_i, up), down),
            "cot": lambda: div(self.mul(i, down), up),
            "sec": lambda: div(self.mul(two, z), down),
            "csc": lambda: div(self.mul(self.mul(two, i), z), up),
            "sinh": lambda: div(up, self.mul(two, z)),
            "cosh": lambda: div(down, self.mul(two, z)),
            "tanh": lambda: div(up, down),
            "coth": lambda: div(down, up),
            "sech": lambda: div(self.mul(two, z), down),
            "csch": lambda: div(self.mul(two, z), up),
        }
        return table[name]()

    def _function(self, e: Any) -> tuple:
        from symattn.kernel import context

        if context.UNFOLDINGS and isinstance(e, tuple(context.UNFOLDINGS)):
            # a head the kernel defines is its unfolding (the definitions are the kernel's axioms)
            from symattn.kernel.context import unchecked

            with unchecked():  # a re-check of a fact the kernel accepted: it can only refuse it
                body = context._unfold_one(e)
            if body is not e and isinstance(body, sp.Expr) and not body.has(type(e)):
                return self.of(body)
        if type(e).__name__ in self._TRIG + self._HYP and type(e).__module__.startswith("sympy.") and len(e.args) == 1:
            return self._circular(e)
        if isinstance(e, sp.Abs):
            return self._abs(e)
        if isinstance(e, sp.KroneckerDelta) and len(e.args) == 2:  # [a = b]: keyed by a - b up to its content
            d = self.of(e.args[0] - e.args[1])
            if d[0].is_zero():
                return self.one, self.one
            lc = d[0].leading_coefficient()
            scaled = self.normal(d[0] / lc, d[1])
            atom = self._atom(("delta", self.key(scaled)), e, "function", False, self.deps_of(d), parts=e.args)
            return self.var(atom)
        if isinstance(e, sp.Subs) and not e.expr.has(sp.Derivative, sp.Integral, sp.Subs):
            from symattn.kernel.terms import canonical, substitute

            return self.of(canonical(substitute(e.expr, dict(zip(e.variables, e.point)))))
        keys, deps, indep = [], set(), isinstance(e, AppliedUndef)
        for a in e.args:
            k, d, i = self._arg_key(a)
            keys.append(k)
            deps |= d
            indep = indep and i
        atom = self._atom(("fn", type(e), tuple(keys)), e, "function", indep, deps, parts=tuple(e.args))
        return self.var(atom)

    def _indexed(self, e: sp.Indexed) -> tuple:
        keys, deps, indep = [], set(), True
        for a in e.indices:
            k, d, i = self._arg_key(a)
            keys.append(k)
            deps |= d
            indep = indep and i
        atom = self._atom(("idx", e.base, tuple(keys)), e, "indexed", indep, deps, parts=(e.base, *e.indices))
        return self.var(atom)

    def _matrix_entry(self, e: Any) -> tuple:
        parent, i, j = e.args
        ki, di, ii = self._arg_key(i)
        kj, dj, ij = self._arg_key(j)
        indep = isinstance(parent, sp.MatrixSymbol) and ii and ij
        atom = self._atom(("melem", parent, ki, kj), e, "matrix-entry", indep, di | dj | self._raw_deps(parent))
        return self.var(atom)

    # -------------------------------------------------------------------------------- derivatives
    def _derivative(self, f: Any, v: Any) -> tuple:
        """``d f / d v`` by linearity and the product rule over the atoms of ``f``: the variable itself
        gives 1, an entry of the same base as an indexed ``v`` the product of the deltas of the indices
        (SymPy's convention), ``exp(u)`` gives ``exp(u) du``, an atom without ``v`` 0; any other atom
        keeps one ``Derivative`` atom."""
        r = self.of(f)
        vkey = self.key(self.of(v))
        base = v.base if isinstance(v, sp.Indexed) else None

        def d_atom(a: Atom) -> tuple:
            if self.key(self.var(a)) == vkey:
                return self.one_r()
            mentions = a.expr.has(base) if base is not None else a.expr.has(v)
            if not mentions:
                return self.zero, self.one
            same_base = base is not None and a.kind == "indexed" and a.expr.base == base
            if same_base and len(a.expr.indices) == len(v.indices):
                out = self.one_r()
                for i, j in zip(a.expr.indices, v.indices):
                    out = self.mul(out, self.of(sp.KroneckerDelta(i, j)))
                return out
            if a.kind == "exp" and a.parts:
                return self.mul(self.var(a), self._derivative(a.parts[0], v))
            got = self._d_rule(a, v)
            if got is not None:
                return got
            return self.var(self._atom(("d", a.index, vkey), sp.Derivative(a.expr, v), "binder", False,
                                       a.deps | self.deps_of(self.of(v))))

        def d_poly(p):
            out = self.zero, self.one
            for m, c in p.to_dict().items():
                for i, e in enumerate(m):
                    if not e:
                        continue
                    da = d_atom(self.by_index[i])
                    if da[0].is_zero():
                        continue
                    rest = list(m)
                    rest[i] -= 1
                    term = self.mul((self.ctx.from_dict({tuple(rest): c * e}), self.one), da)
                    out = self.add(out, term)
            return out

        num, den = r
        dn = d_poly(num)
        if den.is_constant():
            return self.mul(dn, (self.one, den))
        dd = d_poly(den)  # (n/d)' = n'/d - n d'/d**2
        minus = self.mul(self.const(sp.Integer(-1)), self.mul((num, self.one), dd))
        return self.add(self.mul(dn, (self.one, den)), self.mul(minus, (self.one, den * den)))

    def _d_rule(self, a: Atom, v: Any) -> tuple | None:
        """The derivative of one atom by the textbook rules (``None``: no rule, the atom's derivative
        stays one opaque atom). Each rule is an identity wherever the atom is differentiable:

        * a root ``R = b**(1/q)``: ``R' = R b' / (q b)``;
        * a power ``b**w``: ``(b**w)' = b**w (w' log(b) + w b' / b)`` (``log(b)`` only when ``w'`` is not 0);
        * ``log(u)``: ``u' / u``;
        * ``atan(u)``: ``u' / (1 + u**2)``; ``asinh(u)``: ``u' / sqrt(1 + u**2)``;
          ``erf(u)``: ``2 exp(-u**2) u' / sqrt(pi)``;
        * ``|f|`` (one factor of :meth:`_abs`): ``sign(f) f'``, where ``f`` is real and nonzero;
        * a finite sum ``Sum(f, (k, lo, hi))`` whose bounds do not involve ``v`` (and whose index is not
          ``v``): ``Sum(f', (k, lo, hi))``, the summand's derivative by these same rules.
        """
        from symattn.kernel.terms import free_symbols

        if a.kind == "root" and a.parts:
            base, frac = a.parts
            db = self._derivative(base, v)
            return self.mul(self.mul(self.var(a), db),
                            self.power(self.mul(self.const(sp.Integer(frac.q)), self.of(base)), -1))
        if a.kind == "pow" and len(a.parts) == 2:
            base, w = a.parts
            b, wr = self.of(base), self.of(w)
            db, dw = self._derivative(base, v), self._derivative(w, v)
            out = self.mul(self.mul(wr, db), self.power(b, -1))
            if not dw[0].is_zero():
                out = self.add(out, self.mul(dw, self._log(base)))
            return self.mul(self.var(a), out)
        if a.kind == "log" and len(a.parts) == 1:
            u = a.parts[0]
            return self.mul(self._derivative(u, v), self.power(self.of(u), -1))
        if a.kind == "function" and len(a.parts) == 1 and type(a.expr) in (sp.atan, sp.asinh, sp.erf):
            u = a.parts[0]
            du, ur = self._derivative(u, v), self.of(u)
            one_plus = self.add(self.one_r(), self.mul(ur, ur))
            if type(a.expr) is sp.atan:
                return self.mul(du, self.power(one_plus, -1))
            if type(a.expr) is sp.asinh:
                return self.mul(du, self.power(self.of(sp.sqrt(1 + u**2)), -1))
            factor = self.mul(self.const(sp.Integer(2)), self.of(sp.exp(-u**2) / sp.sqrt(sp.pi)))
            return self.mul(factor, du)
        if a.kind == "function" and len(a.parts) == 1 and isinstance(a.expr, sp.Abs):
            # |f|' = sign(f) f' wherever |f| is differentiable (f real and nonzero: the kernel shows it
            # before it differentiates, and that sign fact is re-checked by Z3)
            f = a.parts[0]
            return self.mul(self.of(sp.sign(f)), self._derivative(f, v))
        if a.kind == "sum" and len(a.parts) == 4:
            summand, k, lo, hi = a.parts
            if k == v or k in (free_symbols(v) if isinstance(v, sp.Basic) else ()):
                return None
            mentions = [b for b in (lo, hi) if isinstance(b, sp.Basic) and (
                b.has(v.base) if isinstance(v, sp.Indexed) else b.has(v))]
            if mentions:
                return None
            d = self._derivative(summand, v)
            if d[0].is_zero():
                return self.zero, self.one
            return self.of(sp.Sum(self.to_sympy(d), (k, lo, hi)))
        return None

    def derivative(self, f: Any, v: Any, count: int = 1) -> tuple:
        """``d^count f / d v^count`` by the rules of :meth:`_derivative` (the second engine's own)."""
        out = self._derivative(f, v)
        for _ in range(count - 1):
            out = self._derivative(self.to_sympy(out), v)
        return out

    # ---------------------------------------------------------------------------------------- Abs
    def _abs(self, e: Any) -> tuple:
        """``|u|`` is multiplicative: ``|c prod f_i**e_i / prod g_j**d_j|`` is ``|c|`` times the ``|f_i|**e_i``
        over the ``|g_j|**d_j``, one atom per irreducible factor (flint's factorization) taken with a
        positive leading coefficient (``|f| = |-f|``)."""
        u = self.of(e.args[0])
        if u[0].is_zero():
            return self.zero, self.one
        out = self.one, self.one
        for poly, sign in ((u[0], 1), (u[1], -1)):
            if poly.is_constant():
                c = poly.leading_coefficient()
                out = self.mul(out, self.power(self.const(sp.Rational(abs(int(c.p)), int(c.q))), sign))
                continue
            try:
                c, factors = poly.factor()
            except Exception:  # noqa: BLE001 -- no factorization: the polynomial as one factor
                c, factors = poly.leading_coefficient(), [(poly / poly.leading_coefficient(), 1)]
            out = self.mul(out, self.power(self.const(sp.Rational(abs(int(c.p)), int(c.q))), sign))
            for f, mult in factors:
                lc = f.leading_coefficient()
                f = f / lc
                atom = self._atom(("abs", self.key((f, self.one))), sp.Abs(self.to_sympy((f, self.one))), "function",
                                  False, self.deps_of((f, self.one)), parts=(self.to_sympy((f, self.one)),))
                out = self.mul(out, self.power(self.var(atom), sign * int(mult)))
        return out

    # ---------------------------------------------------------------------------------------- log
    def _log(self, arg: Any) -> tuple:
        """``log`` of a product of positive factors is the sum of their logs (``log(c)`` of a positive
        rational over its primes; ``log(x**k) = k log(x)`` for a symbol declared positive;
        ``log(b**w) = w log(b)`` for ``b > 0`` and ``w`` real; ``log(exp(z)) = z`` for a real ``z``);
        anything else is one ``log`` atom of its argument's normal form."""
        u = self.of(arg)
        try:
            parts = self._log_terms(u)
        except Inexpressible:
            parts = None
        if parts is None:
            atom = self._atom(("log", self.key(u)), sp.log(arg, evaluate=False), "log", False, self.deps_of(u),
                              parts=(arg,))
            return self.var(atom)
        return parts

    def _log_terms(self, u: tuple) -> tuple | None:
        out = self.zero, self.one
        for poly, sgn in ((u[0], 1), (u[1], -1)):
            terms = poly.to_dict()
            if len(terms) != 1:
                return None
            (m, c), = terms.items()
            if c <= 0:
                return None
            for n, k in ((int(c.p), 1), (int(c.q), -1)):
                if n > 1:
                    if n > 10**15:
                        return None
                    for prime, mult in sp.factorint(n).items():
                        lp = self.var(self._atom(("log-prime", prime), sp.log(sp.Integer(prime), evaluate=False),
                                                 "log", False))
                        out = self.add(out, self.mul(self.const(sp.Integer(sgn * k * mult)), lp))
            for i, e in enumerate(m):
                if not e:
                    continue
                piece = self._log_of_atom(self.by_index[i])
                if piece is None:
                    return None
                out = self.add(out, self.mul(self.const(sp.Integer(sgn * e)), piece))
        return out

    def _real_rat(self, r: tuple) -> bool:
        """Whether a rational form is real by its atoms: symbols declared real (or integer), entries of
        an IndexedBase declared real."""
        def real(a):
            if a.kind == "symbol":
                return bool(a.expr.is_real or a.expr.is_integer)
            if a.kind == "indexed":
                return bool(a.expr.base.assumptions0.get("real") or a.expr.base.assumptions0.get("integer"))
            return False

        return all(real(a) for p in r for a in self.atoms_of(p))

    def _log_of_atom(self, a: Atom) -> tuple | None:
        if a.kind in ("sum", "function", "indexed", "constant") and _shown_positive(a.expr):
            key = ("log", self.key(self.var(a)))  # log(S) of a factor Z3 shows positive: one atom
            return self.var(self._atom(key, sp.log(a.expr, evaluate=False), "log", False, a.deps, parts=(a.expr,)))
        if a.kind == "symbol" and a.expr.is_positive:
            key = ("log", self.key(self.var(a)))
            return self.var(self._atom(key, sp.log(a.expr), "log", False, a.deps, parts=(a.expr,)))
        if a.kind == "exp" and a.parts:
            z = self.of(a.parts[0])
            return z if self._real_rat(z) else None
        if a.kind == "pow" and a.parts:
            base, w = a.parts
            wr = self.of(w)
            b = self.of(base)
            if not self._real_rat(wr):
                return None
            lb = self._log_terms(b)  # the base positive: a positive rational or positive symbols
            return None if lb is None else self.mul(wr, lb)
        return None

    # ------------------------------------------------------------------------------ exp and powers
    def _split_exponent(self, ex: tuple, make) -> tuple:
        """``prod make(m, q)**p`` over the terms ``(p/q) m`` of the exponent's numerator (each atom
        stands for ``m / (q den)``: ``b**((x + y)/h) = b**(x/h) b**(y/h)``)."""
        out = self.one, self.one
        for m, c in sorted(ex[0].to_dict().items()):
            p, q = int(c.p), int(c.q)
            atom = make(m, q)
            out = self.mul(out, self.power(self.var(atom), p))
        return out

    def _part(self, m: tuple, q: int, den: Any) -> tuple:
        """``(key, SymPy term, deps)`` of the exponent piece ``m / (q den)``."""
        dkey = self.key((den, self.one))
        inner = self._mono_expr(m) / (q * self.to_sympy((den, self.one)))
        return (q, m, dkey), inner, self.deps_of(self._mono(m)) | self.deps_of((den, self.one))

    def _exp(self, arg: Any, e: Any) -> tuple:
        u = self.of(arg)
        if u[0].is_zero():
            return self.one, self.one

        def make(m, q):
            key, inner, deps = self._part(m, q, u[1])
            relation = None
            if q > 1:  # exp(m/(q d))**q = exp(m/d): the root relation ties exp(1/2) to E
                whole = make(m, 1)
                relation = (q, self.var(whole)[0])
            return self._atom(("exp", *key), sp.exp(inner, evaluate=False), "exp", False, deps, relation,
                              parts=(inner,))

        return self._split_exponent(u, make)

    def _root(self, base: Any, q: int, p: int, e: Any, independent: bool = False) -> tuple:
        b = self.of(base)
        if b[0].is_zero():
            if p <= 0:
                raise Inexpressible("a non-positive power of 0")
            return self.zero, self.one
        whole, r = divmod(p, q)
        out = self.power(b, whole)
        if r == 0:
            return out
        relation = (q, b[0]) if b[1].is_one() else None
        rep = sp.Pow(base, sp.Rational(1, q), evaluate=False) if not isinstance(e, sp.core.numbers.ImaginaryUnit) else e
        atom = self._atom(("root", q, self.key(b)), rep, "root", independent, self.deps_of(b), relation,
                          parts=(base, sp.Rational(1, q)))
        return self.mul(out, self.power(self.var(atom), r))

    def _pow(self, e: sp.Pow) -> tuple:
        base, ex = e.args
        if isinstance(ex, sp.Integer):
            return self.power(self.of(base), int(ex))
        if isinstance(ex, sp.Rational):
            return self._root(base, int(ex.q), int(ex.p), e)
        if base is sp.E:
            return self._exp(ex, sp.exp(ex))
        b = self.of(base)
        x = self.of(ex)
        # b**(c + e) = b**c * b**e for the integer constant c; b**e splits over the terms of e
        out = self.one, self.one
        const = x[0].to_dict().get((0,) * self.nvars) if x[1].is_one() else None
        if const is not None and const.q == 1:
            out = self.power(b, int(const.p))
            rest = x[0] - self.ctx.from_dict({(0,) * self.nvars: const})
        else:
            rest = x[0]
        bkey = self.key(b)

        def make(m, q):
            key, inner, deps = self._part(m, q, x[1])
            relation = None
            if q > 1:  # (b**(m/(q d)))**q = b**(m/d)
                relation = (q, self.var(make(m, 1))[0])
            return self._atom(("pow", bkey, *key), sp.Pow(base, inner, evaluate=False), "pow", False,
                              self.deps_of(b) | deps, relation, parts=(base, inner))

        return self.mul(out, self._split_exponent((rest, x[1]), make))

    # -------------------------------------------------------------------------------------- sums
    def _sum(self, e: sp.Sum) -> tuple:
        from symattn.kernel.terms import canonical

        c = canonical(e)  # alpha-invariant keys: a sum taken out of a binder is renamed to its own level
        if c != e:
            return self.of(c)
        limits = list(e.limits)
        if any(len(lim) != 3 for lim in limits):
            return self._opaque(e, "sum")
        if self.permutations:
            again = self._reindexed(e)
            if again is not None:
                return self.of(again)
        r = self.of(e.function)
        for (v, lo, hi) in limits:  # innermost limit first (SymPy's order)
            r = self._sum_one(r, v, lo, hi)
        return r

    def _reindexed(self, e: sp.Sum) -> Any:
        """``sum_{k=1}^{n} f(sigma(k))`` as ``sum_{k=1}^{n} f(k)`` when ``sigma`` is a permutation of ``1..n``
        (a hypothesis of the step: a bijection of the range, so the two sums have the same terms) and
        ``k`` occurs in the summand only inside ``sigma(k)``; ``None`` otherwise."""
        from symattn.kernel.terms import free_symbols

        if len(e.limits) != 1:
            return None
        k, lo, hi = e.limits[0]
        if lo != 1:
            return None
        try:
            hi_key = self.key(self.of(hi))
        except Inexpressible:
            return None
        body = e.function
        for name, n in self.permutations:
            try:
                if self.key(self.of(n)) != hi_key:
                    continue
            except Inexpressible:
                continue
            apps = [a for a in body.atoms(AppliedUndef) if type(a).__name__ == name and a.args == (k,)]
            if not apps:
                continue
            t = sp.Dummy("t")
            inner = body.xreplace({apps[0]: t})
            if k in free_symbols(inner):
                continue
            return sp.Sum(inner.xreplace({t: k}), (k, lo, hi))
        return None

    def _integral_bound(self, b: Any) -> tuple | None:
        """``b``'s rational form when it is a polynomial with integer coefficients in integer symbols."""
        try:
            r = self.of(b)
        except Inexpressible:
            return None
        if not r[1].is_one():
            return None
        if any(c.q != 1 for c in r[0].to_dict().values()):
            return None
        if any(a.kind != "symbol" or not a.expr.is_integer for a in self.atoms_of(r[0])):
            return None
        return r

    def _sum_one(self, r: tuple, v: Any, lo: Any, hi: Any) -> tuple:
        kv = self._symbol(v).index

        def depends(m):
            return any(e and kv in self.by_index[i].deps for i, e in enumerate(m))

        num, den = r
        lo_r, hi_r = self._integral_bound(lo), self._integral_bound(hi)
        integral = lo_r is not None and hi_r is not None and kv not in self.deps_of(lo_r) | self.deps_of(hi_r)
        if integral:
            low = self.add(lo_r, self.const(sp.Integer(-1)))

            def ranged(summand):  # Karr: sum_{k=lo}^{hi} f = A(hi) - A(lo - 1), A(x) = sum_{k=1}^{x} f
                try:
                    return self.add(self._anchored(summand, v, hi_r),
                                    self.mul(self.const(sp.Integer(-1)), self._anchored(summand, v, low)))
                except (IndexError, ValueError):  # a term outside the range is not a term (q[2k, 0] at k = -1)
                    return self._sum_atom(summand, v, lo, hi)
        else:
            def ranged(summand):
                return self._sum_atom(summand, v, lo, hi)

        if any(depends(m) for m in den.to_dict()):
            return ranged(self.to_sympy(r))
        out = self.zero, self.one
        for m, c in sorted(num.to_dict().items()):
            mk = tuple(e if e and kv in self.by_index[i].deps else 0 for i, e in enumerate(m))
            free = tuple(e - k for e, k in zip(m, mk))
            coeff = (self.ctx.from_dict({free: c}), self.one)
            out = self.add(out, self.mul(coeff, ranged(self._mono_expr(mk))))
        return self.mul(out, (self.one, den))

    _MAX_UNROLL = 16

    def _anchored(self, summand: Any, v: Any, x: tuple) -> tuple:
        """``A(x) = sum_{k=1}^{x} summand`` for an integer ``x`` (Karr's convention: ``A(0) = 0`` and
        ``A(x) - A(x - 1)`` is the summand at ``x`` for every integer ``x``): a power ``k**p`` by its
        Faulhaber polynomial; otherwise ``x = b + c`` (``c`` the constant term, ``|c| <= 16``) gives
        ``A(b)`` (an atom, 0 when ``b = 0``) plus or minus ``|c|`` terms."""
        from symattn.kernel.terms import canonical, substitute

        power = _power_of(summand, v)
        if power is not None:
            return self._faulhaber(power, x)
        zero_m = (0,) * self.nvars
        const = x[0].to_dict().get(zero_m)
        c = int(const.p) if const is not None else 0
        if abs(c) > self._MAX_UNROLL:
            c = 0
        base = (x[0] - self.ctx.from_dict({zero_m: c}) if c else x[0], self.one)
        out = self.zero, self.one
        if not base[0].is_zero():
            b_expr = self.to_sympy(base)
            rep = sp.Sum(summand, (v, 1, b_expr))
            canon = canonical(rep)
            if canon != rep:  # rename the index to the sum's own level
                out = self.of(canon)
            else:
                kv = self._symbol(v).index
                part = self.of(summand)
                deps = (self.deps_of(part) - {kv}) | self.deps_of(base)
                atom = self._atom(("anchored", self.key(part), kv, self.key(base)), rep, "sum", False, deps,
                                  parts=(summand, v, sp.S.One, b_expr))
                out = self.var(atom)
        b_expr = self.to_sympy(base)
        steps = range(1, c + 1) if c > 0 else range(0, -c)
        for t in steps:
            at = canonical(substitute(summand, {v: b_expr + t if c > 0 else b_expr - t}))
            term = self.of(at)
            out = self.add(out, term if c > 0 else self.mul(self.const(sp.Integer(-1)), term))
        return out

    def _faulhaber(self, p: int, x: tuple) -> tuple:
        out = self.zero, self.one
        for coeff in reversed(_power_sum(p)):  # Horner
            out = self.add(self.mul(out, x), self.const(sp.Rational(coeff.numerator, coeff.denominator)))
        return out

    def one_r(self) -> tuple:
        return self.one, self.one

    def _sum_atom(self, summand: Any, v: Any, lo: Any, hi: Any) -> tuple:
        from symattn.kernel.terms import canonical

        rep = sp.Sum(summand, (v, lo, hi))
        c = canonical(rep)
        if c != rep:  # a summand monomial taken out of an enclosing binder: rename to its own level
            return self.of(c)
        kv = self._symbol(v).index
        part = self.of(summand)
        lo_k, lo_d, _ = self._arg_key(lo)
        hi_k, hi_d, _ = self._arg_key(hi)
        deps = (self.deps_of(part) - {kv}) | lo_d | hi_d
        atom = self._atom(("sum", self.key(part), kv, lo_k, hi_k), rep, "sum", False, deps,
                          parts=(summand, v, lo, hi))
        return self.var(atom)
