"""The zero test, with definedness side conditions: ``equal``, ``is_zero``, ``residual``, ``zero_test``.

``lhs = rhs`` is accepted when

1. a fixed sequence of exact SymPy transformations (``expand``, ``cancel(together(.))``,
   ``powsimp``, ``factor_terms``, ``trigsimp(expand_trig(.))``, ``simplify``) sends the canonical
   form of ``lhs - rhs`` (bound variables renamed by :func:`~symattn.kernel.terms.canonical`) to
   exactly ``0``. Sums that hold a Kronecker delta, and sums with an infinite limit, are first
   replaced by opaque symbols (one per canonical sum), so SymPy never evaluates them (it sums
   ``KroneckerDelta(k, m/2)`` over ``k = 0..m`` to 1); the kernel's own evaluator
   (:mod:`symattn.kernel.sums`) is the only way such sums change. No numeric evaluation, ever;
2. and both sides are defined at the same points. ``cancel``/``together``/``simplify`` divide by
   factors that may vanish (``(x**2 - x)/x -> x - 1``). So the *definedness conditions* of each
   side are collected (every factor of a denominator, i.e. of the base of a negative power; the
   argument of ``log``; ``cos`` for ``tan``/``sec``, ``sin`` for ``cot``/``csc``) and every
   condition of one side that is not also a condition of the other must be shown ``!= 0``: by the
   symbols' assumptions and the kernel's sign test, or by a hypothesis (an
   :class:`~symattn.language.statement.Assumption` ``Ne(f, 0)``, ``f > 0``, ``f < 0``, ...). Otherwise the
   test fails and names the condition ("holds where x != 0").

The hypotheses used for (2) are those passed in, else those of the step being checked (set by
:func:`symattn.rules.check_step` through :data:`HYPOTHESES`).

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> zero_test((x**2 - x) / x, x - 1).missing
['x']
>>> equal((x**2 - x) / x, x - 1), equal(1 / x + 1 / x, 2 / x)   # both sides undefined at 0
(False, True)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel import context
from symattn.kernel.context import HYPOTHESES, UNFOLDINGS, _unfold_one, index_ranges, register_unfolding
from symattn.kernel.second import recorded_cache
from symattn.kernel.sign import nonzero, provably_le
from symattn.kernel.terms import KernelError, canonical, is_matrix

__all__ = [
    "HYPOTHESES",
    "KernelError",
    "ZeroTest",
    "definedness_conditions",
    "equal",
    "is_zero",
    "OPAQUE_BINDERS",
    "opaque_sums",
    "opaque_note",
    "opaque_terms",
    "register_unfolding",
    "residual",
    "safe_doit",
    "undischarged",
    "zero_test",
]

@dataclass
class ZeroTest:
    reduced: bool  # lhs - rhs reduced to 0
    missing: list = field(default_factory=list)  # definedness conditions not shown (as strings)
    disagreement: str = ""  # the second engine showed lhs - rhs != 0: both answers

    @property
    def ok(self) -> bool:
        return self.reduced and not self.missing

    def explain(self) -> str:
        if self.disagreement:
            return self.disagreement
        if not self.reduced:
            return "lhs - rhs does not reduce to 0"
        unknown = [m for m in self.missing if m.startswith("(the kernel does not know")]
        if unknown:
            return (f"lhs - rhs reduces to 0, but one side applies a function the other lacks and {unknown[0][1:-1]}; "
                    "no hypothesis supplies that (rewrite the step so both sides keep the application)")
        conds = " and ".join(f"{m} != 0" for m in self.missing)
        return (f"lhs - rhs reduces to 0 only where {conds}: add the hypothesis "
                f"(Assumption with condition Ne(..., 0)) or declare the symbols nonzero/positive")


# ----------------------------------------------------------------------------------- reduction
#: the terms SymPy's rewriting would evaluate by algorithms the kernel never trusts: its summation
#: (``Sum``, ``Product``), its integration (``Integral``) and Gruntz's algorithm (``Limit``)
OPAQUE_BINDERS = (sp.Sum, sp.Product, sp.Integral, sp.Limit)

#: the heads that bind a variable without being an opaque term: a term of :data:`OPAQUE_BINDERS` under
#: one of them that depends on its variable makes the whole application the atom (``d/da`` of the atom
#: of ``sum_k a k`` is not 0, nor is ``Subs(.., a, 0)`` of it the atom itself)
_VARIABLE_HEADS = (sp.Derivative, sp.Subs, sp.Lambda)


def _needs_opaque(s: sp.Basic) -> bool:
    """Every sum, product, integral and limit is opaque to SymPy's rewriting: ``simplify`` and ``doit``
    would evaluate it by SymPy's summation (over bounds such as ``N/B`` that need not be integers,
    binomial sums, ...), its integration (``|sin 3t|`` over ``0..pi`` to ``2/3``, not 2) or Gruntz's
    algorithm, none of which the kernel trusts; only :mod:`.sums` evaluates sums, through the axiom
    schemas, and only the lemmas of :mod:`.schemas.limits` close limits. The kernel has no lemma that
    evaluates an integral: an integral is the same atom as itself and nothing else."""
    return isinstance(s, OPAQUE_BINDERS)


def _bound_by(e: sp.Basic) -> set:
    """The symbols ``e`` (a head of :data:`_VARIABLE_HEADS`) binds or differentiates by, with those they
    are made of (an ``Indexed`` variable ``s[i]`` brings ``s`` and ``i``)."""
    out: set = set()
    for v in getattr(e, "variables", ()):
        out |= {v} | set(getattr(v, "free_symbols", ()))
    return out


def _depends_inside(e: sp.Basic) -> bool:
    """Whether an opaque term inside ``e`` (a head of :data:`_VARIABLE_HEADS`) depends on a variable
    ``e`` binds (an over-approximation: any shared symbol counts)."""
    from symattn.kernel.terms import free_symbols

    bound = _bound_by(e)
    found = [b for b in sp.preorder_traversal(e) if isinstance(b, OPAQUE_BINDERS)]
    return any(bound & (free_symbols(b) | set(b.free_symbols)) for b in found)


#: heads not differentiable everywhere their argument is: SymPy's diff of them (Heaviside for Max,
#: sign for Abs, a Piecewise of the pieces' derivatives) is a value also at the breaks, where no
#: derivative exists (adversarial review 13: d/dx Max(x, 0) at 0 was shown to be 1/2)
NONSMOOTH = (sp.Abs, sp.Max, sp.Min, sp.Piecewise, sp.floor, sp.ceiling, sp.frac, sp.Heaviside, sp.DiracDelta,
             sp.sign, sp.Mod, sp.re, sp.im, sp.arg, sp.conjugate, sp.KroneckerDelta)


def _nonsmooth_derivative(d: sp.Derivative) -> bool:
    """Whether the derivative's body holds a non-smooth head depending on a differentiation variable:
    such a derivative is never evaluated by SymPy's diff inside a zero test (held opaque)."""
    from symattn.kernel.terms import free_symbols

    variables = set(d.variables)
    return any(isinstance(b, NONSMOOTH) and variables & (free_symbols(b) | set(b.free_symbols))
               for b in sp.preorder_traversal(d.expr))


def _has_nonsmooth_derivative(e: Any) -> bool:
    return isinstance(e, sp.Basic) and e.has(sp.Derivative) and any(
        isinstance(b, sp.Derivative) and _nonsmooth_derivative(b) for b in sp.preorder_traversal(e))


def safe_doit(expr: Any) -> Any:
    """``expr.doit()`` with every sum, product, integral and limit held opaque."""
    if not isinstance(expr, sp.Basic):
        return expr
    table: dict = {}
    held = opaque_sums(canonical(expr), table)
    done = held.doit()
    return done.xreplace({v: k for k, v in table.items()}) if table else done


def opaque_sums(expr: Any, table: dict | None = None) -> Any:
    """``expr`` with every Sum, Product, Integral and Limit replaced by an opaque symbol (the same
    symbol for the same canonical term), and every derivative, substitution or ``Lambda`` of such a
    term depending on its variable replaced by one as a whole. ``table`` maps the terms to their
    symbols."""
    if not isinstance(expr, sp.Basic) or not (expr.has(*OPAQUE_BINDERS) or _has_nonsmooth_derivative(expr)):
        return expr
    table = {} if table is None else table

    def atom(e):
        if e not in table:
            table[e] = sp.Dummy(f"Sigma{len(table)}", commutative=e.is_commutative is not False)
        return table[e]

    def walk(e):
        if isinstance(e, OPAQUE_BINDERS) and _needs_opaque(e):
            return atom(e)
        if isinstance(e, sp.Derivative) and _nonsmooth_derivative(e):
            return atom(e)
        if not e.args or not e.has(*OPAQUE_BINDERS, sp.Derivative):  # a smooth derivative is rebuilt as it was
            return e
        if isinstance(e, _VARIABLE_HEADS) and _depends_inside(e):
            return atom(e)
        args = [walk(a) for a in e.args]
        return e if all(a is b for a, b in zip(args, e.args)) else e.func(*args)

    return walk(expr)


def opaque_terms(expr: Any) -> list:
    """The integrals and limits :func:`opaque_sums` holds in ``expr`` (outermost first): the terms a
    failed zero test may owe to the kernel's having no lemma for them."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Integral, sp.Limit):
        return []
    table: dict = {}
    opaque_sums(expr, table)
    return [t for t in table if t.has(sp.Integral, sp.Limit)]


def _display(x: Any, limit: int = 200) -> str:
    """``x`` printed without ordering its terms (ordering evaluates a closed integral numerically)."""
    try:
        s = sp.sstr(x, order="none")
    except Exception:  # noqa: BLE001 - a display helper must not fail
        s = sp.srepr(x)
    return s if len(s) <= limit else s[:limit] + " ..."


def opaque_note(expr: Any) -> str:
    """Why a zero test of ``expr`` that holds integrals or limits did not use their values ('' when it
    holds none): the kernel evaluates no integral, and closes a limit only by its lemmas."""
    found = opaque_terms(expr)
    if not found:
        return ""
    notes = []
    integrals = [t for t in found if t.has(sp.Integral)]
    limits = [t for t in found if not t.has(sp.Integral)]
    if integrals:
        what = "the integral" if isinstance(integrals[0], sp.Integral) else "the term (of an integral)"
        notes.append(f"{what} {_display(integrals[0])} is an opaque atom: the kernel has no lemma that "
                     "evaluates an integral and never trusts SymPy's integration, so an integral equals only "
                     "itself")
    if limits:
        what = "the limit" if isinstance(limits[0], sp.Limit) else "the term (of a limit)"
        notes.append(f"{what} {_display(limits[0])} is an opaque atom: a limit is closed only by the kernel's "
                     "lemmas (rule limit_evaluate), never by SymPy's limit")
    return "; ".join(notes)


_TRANSFORMS = (
    sp.expand,
    lambda e: sp.cancel(sp.together(e)),
    lambda e: sp.expand(sp.powsimp(sp.expand(e, power_exp=True, power_base=True, log=False), combine="exp")),
    lambda e: sp.cancel(sp.together(sp.expand(sp.powsimp(e, combine="exp"), power_exp=True))),
    lambda e: sp.factor_terms(sp.expand(e)),
    lambda e: sp.expand(sp.trigsimp(sp.expand_trig(e))),
    lambda e: sp.simplify(e),
    lambda e: sp.expand(sp.simplify(sp.expand(e))),
)


def _contracted(expr: Any) -> Any:
    """Deltas inside sums contracted by the kernel's delta rule (range-checked), where it applies."""
    if not expr.has(sp.KroneckerDelta) or not expr.has(sp.Sum):
        return expr
    from symattn.kernel.sums import contract

    try:
        return contract(expr, HYPOTHESES.get())
    except KernelError:
        return expr


def _second_opinion(expr: Any):
    """The second engine's re-check of ``expr == 0`` once SymPy reduced it to 0 (recorded for the step):
    the :class:`~symattn.kernel.second.Check`, or ``None`` when the second engine is off."""
    from symattn.kernel import second

    if not second.enabled():
        return None
    from symattn.kernel.second.flint_zero import recheck_zero

    if not isinstance(expr, sp.MatrixBase) and not is_matrix(expr):
        expr = _contracted(canonical(sp.sympify(expr, strict=True)))
    return second.record(second.bounded("flint", "a zero test", lambda: recheck_zero(expr)), "zero")


def _refused(expr: Any) -> str:
    """Both answers when the second engine disagrees that ``expr`` (reduced to 0 by SymPy) is 0."""
    check = _second_opinion(expr)
    if check is not None and check.verdict == "disagree":
        return check.both_answers()
    return ""


def _linearised(expr: Any) -> Any:
    """Finite sums distributed over their terms with constant factors out (the kernel's own
    ``sum_linearity``, counts only over integer bounds), so that sums the same up to linearity are the
    same opaque atom."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr
    from symattn.kernel.sums import linear_normal_form

    try:
        return canonical(linear_normal_form(sp.expand(expr), HYPOTHESES.get()))
    except (KernelError, TypeError, ValueError):
        return expr


def _foreign(e: Any) -> bool:
    """An application of a head class of a user's (neither SymPy's nor symattn's): its SymPy hooks
    (``_eval_expand_mul``, ``_eval_simplify``, ...) are the user's code, so the zero test never lets
    SymPy's rewriting call them."""
    mod = type(e).__module__ or ""
    return (isinstance(e, sp.Expr) and not isinstance(e, (sp.Symbol, sp.Indexed, sp.Number)) and bool(e.args)
            and not mod.startswith(("sympy.", "symattn.", "derivations.")))


def opaque_foreign(expr: Any) -> Any:
    """``expr`` with every application of a user's head class replaced by an opaque symbol (the same
    symbol for the same application)."""
    if not isinstance(expr, sp.Basic):
        return expr
    table: dict = {}

    def walk(e):
        if _foreign(e):
            if e not in table:
                table[e] = sp.Dummy(f"F{len(table)}", commutative=e.is_commutative is not False)
            return table[e]
        if not e.args:
            return e
        args = [walk(a) for a in e.args]
        return e if all(a is b for a, b in zip(args, e.args)) else e.func(*args)

    return walk(expr)


def _reduces_to_zero(expr: Any) -> bool:
    """Whether the fixed sequence of exact transformations sends ``expr`` to 0 (the module docstring),
    memoised on ``(expr, the step's hypotheses)``: the same residual is often tested again (an instance
    shown by the kernel and by the author's builder, a fact the rule and the end-of-chain check share)."""
    hyps = HYPOTHESES.get()
    try:
        hash((expr, hyps))
    except TypeError:  # unhashable: no memo
        return _reduces_uncached(expr)
    return _reduces_cached(expr, hyps)


@recorded_cache(maxsize=4096)
def _reduces_cached(expr: Any, hyps: tuple) -> bool:
    return _reduces_uncached(expr)  # hyps is HYPOTHESES.get() here: the key, read again inside


def _opaque_binomials(expr: Any) -> Any:
    """``binomial(n, k)`` with ``n`` not shown a nonnegative integer as an opaque atom (one per term):
    SymPy's combinatorial simplification uses ``binomial(n, k) = binomial(n, n - k)``, false for a
    negative ``n`` (``binomial(-6, 0) = 1``, ``binomial(-6, -6) = 0``)."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.binomial):
        return expr
    table: dict = {}
    for b in expr.atoms(sp.binomial):
        top = b.args[0]
        if not (top.is_integer and top.is_nonnegative):
            table[b] = sp.Dummy("binomial", **({"integer": True} if all(a.is_integer for a in b.args) else {}))
    return expr.xreplace(table) if table else expr


def _reduces_uncached(expr: Any) -> bool:
    base = _opaque_binomials(opaque_foreign(_contracted(canonical(sp.sympify(expr, strict=True)))))
    forms = [opaque_sums(base)]
    if isinstance(base, sp.Basic) and base.has(sp.Sum):
        linear = opaque_sums(_linearised(base))
        if linear != forms[0]:
            forms.append(linear)
    for e in forms:
        if e == 0:
            return True
        if e.is_number and e.is_zero is False:
            return False
    # the cheap transforms on every form before the expensive ones on any (a failing simplify or
    # trigsimp is slow; the linear normal form usually needs only expand)
    for transform in _TRANSFORMS:
        for e in forms:
            try:
                if transform(e) == 0:
                    return True
            except (StopIteration, sp.PolynomialError, TypeError, ValueError, NotImplementedError,
                    AttributeError):
                # SymPy's rewriting fails on the term (factor_terms rebuilds Determinant(2*A) from a
                # scalar): this transform finds no 0, the next may
                continue
    return False


def plausibly_equal(lhs: Any, rhs: Any) -> bool:
    """A cheap hint for the rules that search (never a decision): ``lhs - rhs`` vanishes by ``expand`` on
    the opaque or linearised forms. A rule tries such candidates first and asks :func:`equal` (through
    the kernel's ``by_zero``) only then."""
    try:
        base = _contracted(canonical(sp.sympify(residual(lhs, rhs), strict=True)))
        if is_matrix(base):
            return False
        forms = [opaque_sums(base)]
        if base.has(sp.Sum):
            forms.append(opaque_sums(_linearised(base)))
        return any(e == 0 or sp.expand(e) == 0 for e in forms)
    except (KernelError, TypeError, ValueError, sp.PolynomialError):
        return False


def _matrix_reduces(expr: Any) -> bool:
    if isinstance(expr, sp.MatrixBase):
        return all(_reduces_to_zero(e) for e in expr)
    if isinstance(expr, sp.ZeroMatrix):
        return True
    done = opaque_sums(canonical(expr)).doit()
    if isinstance(done, sp.ZeroMatrix) or done == 0:
        return True
    if isinstance(done, sp.MatrixBase):
        return _matrix_reduces(done)
    try:
        explicit = done.as_explicit()
    except (ValueError, TypeError, AttributeError):  # symbolic shape: no explicit form
        return False
    return _matrix_reduces(explicit)


# --------------------------------------------------------------------------------- definedness
def _factors(b: Any) -> list:
    """Irreducible factors of ``b`` (up to sign and constants), numbers dropped unless zero."""
    b = sp.sympify(b)
    out = []
    try:
        if b.is_polynomial() and sp.count_ops(b) < 60:
            _c, fl = sp.factor_list(b)
            items = [f for f, _m in fl]
            if _c == 0:
                items.append(sp.S.Zero)
        else:
            raise sp.PolynomialError
    except (sp.PolynomialError, NotImplementedError, ValueError, TypeError):
        items = [f.base if isinstance(f, sp.Pow) and f.exp.is_positive else f for f in sp.Mul.make_args(b)]
    for f in items:
        if f.is_number and f != 0:
            continue
        if f.could_extract_minus_sign():
            f = -f
        out.append(f)
    return out


def unfold_all(expr: Any) -> Any:
    """Every registered definition unfolded (repeatedly), for comparing conditions (the binders' ranges
    decided by the sign test: :func:`symattn.kernel.context.unfold_all`)."""
    return context.unfold_all(expr, provably_le)


@functools.lru_cache(maxsize=4096)
def _conditions_cached(expr: Any) -> tuple:
    """``(conditions, the over-approximate ones)`` of ``expr``, from one walk."""
    approx: set = set()
    found = _definedness_conditions(expr, approx)
    return tuple(found), frozenset(approx)


def approximate_conditions(expr: Any) -> frozenset:
    """The conditions of :func:`definedness_conditions` that are over-approximations only: ``b != 0``
    for a power ``b**y`` whose exponent is not shown positive nor a nonnegative integer (``0**y`` is
    defined for ``y > 0``, so ``b != 0`` is more than the term needs), and that no other subterm
    requires exactly. Such a condition must be shown (sign test, hypotheses); it never matches a
    condition of the other side of an equation (the two domains could differ where it fails:
    ``d/dx a**x = a**x log(a)`` at ``a = 0``)."""
    if isinstance(expr, sp.MatrixBase):
        expr = sp.ImmutableMatrix(expr)
    try:
        return _conditions_cached(expr)[1]
    except TypeError:  # unhashable
        approx: set = set()
        _definedness_conditions(expr, approx)
        return frozenset(approx)


def _number_negative(x: Any) -> bool | None:
    """Whether a number is negative, as SymPy orders it; None where it cannot (no exception)."""
    try:
        return bool(x < 0)
    except TypeError:
        return None


def definedness_conditions(expr: Any) -> list:
    """Factors ``f`` such that ``expr`` is undefined where ``f = 0``."""
    if isinstance(expr, sp.MatrixBase):
        expr = sp.ImmutableMatrix(expr)
    try:
        return list(_conditions_cached(expr)[0])
    except TypeError:  # unhashable
        return _definedness_conditions(expr)


def _definedness_conditions(expr: Any, approx: set | None = None) -> list:
    """Factors ``f`` such that ``expr`` is undefined where ``f = 0`` (see the module docstring).
    Bound variables are canonical, so conditions under a sum mention the canonical index.
    ``approx``, when given, receives the factors that are over-approximations only
    (:func:`approximate_conditions`): added by a power with a symbolic exponent and by nothing else."""
    expr = canonical(expr)
    found: list = []
    exact: set = set()
    loose: set = set()

    def add(b, over: bool = False):
        for f in _factors(b):
            (loose if over else exact).add(f)
            if f not in found:
                found.append(f)

    def walk(e):
        if isinstance(e, sp.MatrixBase):
            for x in e:
                walk(x)
            return
        if not isinstance(e, sp.Basic):
            return
        if isinstance(e, sp.Limit):
            # a limit never evaluates its body at the point, only near it: a condition on the limit
            # variable is not one of the limit's (the lemmas that close a limit show what they need)
            from symattn.kernel.terms import free_symbols

            for f in definedness_conditions(e.args[0]):
                if e.args[1] not in free_symbols(f) and f not in found:
                    found.append(f)
            walk(e.args[2])
            return
        if isinstance(e, sp.Pow) and e.exp.is_number and _number_negative(e.exp) is None:
            # a number exponent SymPy cannot order (3 - log(8)/log(2), exactly 0): it may be negative,
            # so the base must be nonzero -- more than the term may need (over-approximate)
            add(e.base, over=True)
        elif isinstance(e, sp.Pow) and (e.exp.is_negative or (e.exp.is_number and _number_negative(e.exp))):
            add(e.base)
        elif isinstance(e, sp.Pow) and not e.exp.is_number and e.exp.is_positive is not True and not (
                e.exp.is_integer and e.exp.is_nonnegative):
            # a symbolic exponent may be negative (x**y at x = 0, y = -1 is zoo; x**m * x**-m at x = 0 is
            # 0 * zoo): defined where the base is nonzero unless the exponent is shown positive or a
            # nonnegative integer (0**0 = 1, as SymPy and the empty product have it); more than the
            # term needs (0**y is defined for y > 0): an over-approximation, see approximate_conditions
            add(e.base, over=True)
        elif isinstance(e, sp.Inverse) or (isinstance(e, sp.MatPow) and not (
                e.exp.is_integer and e.exp.is_nonnegative)):
            # a matrix inverse (or a negative power) exists only where the determinant is nonzero: A^-1 A = I
            # is no identity of every A
            base = e.arg if isinstance(e, sp.Inverse) else e.base
            det = sp.Determinant(base)
            if det not in found:
                found.append(det)
        elif isinstance(e, sp.tanh) and e.args[0].is_extended_real is not True:
            # total on the reals only: tanh(i pi/2) = zoo
            add(sp.cosh(e.args[0]))
        elif isinstance(e, sp.log):
            add(e.args[0])
        elif isinstance(e, (sp.tan, sp.sec)):
            add(sp.cos(e.args[0]))
        elif isinstance(e, (sp.cot, sp.csc)):
            add(sp.sin(e.args[0]))
        elif isinstance(e, (sp.coth, sp.csch)):
            add(sp.sinh(e.args[0]))
        elif isinstance(e, (sp.atanh, sp.acoth)):
            add(1 - e.args[0])
            add(1 + e.args[0])
        elif isinstance(e, (sp.gamma, sp.loggamma, sp.polygamma, sp.digamma)):
            # the poles of Gamma: 1/Gamma(x) vanishes exactly there (Gamma itself has no zeros, so
            # "Gamma(x) != 0" would be no condition at all)
            pole = 1 / sp.gamma(e.args[-1])
            if pole not in found:
                found.append(pole)
        elif isinstance(e, sp.binomial):
            # SymPy's binomial of integers is defined everywhere (0 outside 0..n); otherwise
            # Gamma(n + 1) / (Gamma(k + 1) Gamma(n - k + 1)), with the poles of Gamma(n + 1)
            if not all(a.is_integer for a in e.args):
                pole = 1 / sp.gamma(e.args[0] + 1)
                if pole not in found:
                    found.append(pole)
        elif isinstance(e, sp.factorial):
            pole = 1 / sp.gamma(e.args[0] + 1)
            if pole not in found:
                found.append(pole)
        elif isinstance(e, sp.Piecewise) and e.args[-1].cond is not sp.true:
            # no default branch: undefined where no condition holds
            cover = sp.Piecewise((1, sp.Or(*[a.cond for a in e.args])), (0, True))
            if cover != 1 and cover not in found:
                found.append(cover)
        elif isinstance(e, (sp.sech,)):
            add(sp.cosh(e.args[0]))
        elif isinstance(e, (sp.asec, sp.acsc, sp.arg, sp.Mod)):
            add(e.args[-1] if isinstance(e, sp.Mod) else e.args[0])
        elif isinstance(e, (sp.atan, sp.acot)):
            add(1 + e.args[0] ** 2)  # the branch points +-i: atan(i) is infinite
        elif UNFOLDINGS and isinstance(e, tuple(UNFOLDINGS)) and not isinstance(e, MatrixExpr):
            # an opaque scalar head is defined where its unfolding is (recursive heads: not unfolded)
            body = _unfold_one(e)
            if body is not e and not body.has(type(e)):
                for f in definedness_conditions(body):
                    if f not in found:
                        found.append(f)
        elif isinstance(e, (sp.Sum, sp.Product)):
            # the kernel's sums and products run over integer ranges: a finite bound not shown an
            # integer by its assumptions (a real x, n/2) makes the term defined only where it is one
            for lim in e.limits:
                for b in lim[1:] if len(lim) == 3 else ():
                    if isinstance(b, sp.Basic) and b.is_integer is not True and not b.has(sp.oo, -sp.oo, sp.zoo):
                        mark = integer_bound(b)
                        if mark not in found:
                            found.append(mark)
        elif unknown_domain(e):
            # a function the kernel has no table for (zeta, Ei, li, besselk, harmonic, erfinv, beta,
            # ...): where it is defined is unknown, a condition only the same application on the other
            # side can match (0 * zeta(x) = 0 is refused, zeta(x) + 1 - 1 = zeta(x) is not)
            mark = UnknownDomain(e)
            if mark not in found:
                found.append(mark)
        for a in e.args:
            walk(a)

    walk(expr)
    if approx is not None:
        approx.update(loose - exact)
    return found


#: SymPy's functions defined at every argument (complex ones included), for the definedness test
#: (tanh, total on the reals only, is CONDITIONED: cosh(z) != 0 for an argument not shown real)
TOTAL = (sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.asin, sp.acos, sp.asinh, sp.acosh, sp.Abs,
         sp.sign, sp.re, sp.im, sp.conjugate, sp.floor, sp.ceiling, sp.frac, sp.Max, sp.Min, sp.Heaviside,
         sp.KroneckerDelta, sp.erf, sp.erfc, sp.erfi, sp.sinc, sp.LeviCivita)
#: the functions whose conditions :func:`_definedness_conditions` names (log, tan, gamma, ...)
CONDITIONED = (sp.log, sp.tanh, sp.tan, sp.sec, sp.cot, sp.csc, sp.coth, sp.csch, sp.sech, sp.atanh, sp.acoth, sp.gamma,
               sp.loggamma, sp.polygamma, sp.digamma, sp.factorial, sp.binomial, sp.asec, sp.acsc, sp.arg, sp.Mod,
               sp.atan, sp.acot, sp.Piecewise)


class UnknownDomain(sp.Function):
    """The definedness condition of an application of a function the kernel has no table for."""

    nargs = 1

    def _sympystr(self, printer):
        f = self.args[0]
        return f"(the kernel does not know where {type(f).__name__} is defined: {printer._print(f)})"


class IntegerBound(sp.Function):
    """The definedness condition of a sum or product with the bound ``b``: ``b`` is an integer. As a
    factor ``f`` of :func:`definedness_conditions` ("defined where ``f != 0``") it is 1 at an integer,
    0 at a number (or a term) shown not an integer, and stays unevaluated otherwise; it is matched only
    by the same condition of the other side, or shown by the kernel's integrality test
    (:func:`symattn.kernel.sums._is_integer`: assumptions, index ranges, ``T = N/B`` with ``T`` an
    integer, ``Eq(Mod(n, b), 0)``; re-checked by the second engine)."""

    nargs = 1

    @classmethod
    def eval(cls, b):
        if b.is_integer is True:
            return sp.S.One
        if b.is_integer is False:
            return sp.S.Zero
        return None

    def _sympystr(self, printer):
        return f"(the bound {printer._print(self.args[0])} is an integer)"


def integer_bound(b: Any) -> Any:
    """:class:`IntegerBound` of ``b`` up to an integer shift and sign (``x + 1`` and ``1 - x`` are
    integers exactly where ``x`` is), so the two ends of a split match."""
    b = sp.expand(b)
    if isinstance(b, sp.Add):
        b = sp.Add(*[t for t in b.args if t.is_integer is not True])
    if b.could_extract_minus_sign():
        b = -b
    return IntegerBound(b)


def _shown_integer_bound(f: Any, hypotheses) -> bool:
    from symattn.kernel.sums import _is_integer

    try:
        return _is_integer(f.args[0], tuple(hypotheses or ()), {})
    except (TypeError, ValueError, AttributeError, NotImplementedError):
        return False


def unknown_domain(e: Any) -> bool:
    """``e`` applies one of SymPy's named functions that is neither total nor conditioned in the
    kernel's tables (an undefined function ``f(x)`` and a user's or symattn's head are not: the first is
    total by convention, the others are unfolded or reviewed)."""
    if not isinstance(e, sp.Function) or isinstance(e, (sp.core.function.AppliedUndef, UnknownDomain)):
        return False
    if not (type(e).__module__ or "").startswith("sympy."):
        return False
    return not isinstance(e, TOTAL + CONDITIONED)


def unknown_message(missing) -> list:
    """The conditions among ``missing`` that are applications of functions the kernel has no table for."""
    return [m for m in missing if isinstance(m, UnknownDomain)]


def _same_condition(f: Any, g: Any) -> bool:
    """Whether ``f = 0`` and ``g = 0`` hold at the same points (``f = +-g`` exactly)."""
    if f == g:
        return True
    from symattn.kernel.sums import sum_normal_form

    try:
        for sign in (1, -1):
            if sp.expand(f - sign * g) == 0:
                return not _refused(f - sign * g)
        nf, ng = sum_normal_form(unfold_all(f)), sum_normal_form(unfold_all(g))
        for sign in (1, -1):
            d = opaque_sums(nf - sign * ng)
            if d == 0 or sp.expand(d) == 0 or sp.cancel(sp.together(d)) == 0:
                return not _refused(nf - sign * ng)
    except (TypeError, ValueError, KernelError):
        return False
    return False


def _shown_nonzero(f: Any, hypotheses) -> bool:
    if isinstance(f, UnknownDomain):  # nothing shows where an unknown function is defined
        return False
    if isinstance(f, IntegerBound):
        return _shown_integer_bound(f, hypotheses)
    ranges = index_ranges(hypotheses)
    if nonzero(f, ranges) or (UNFOLDINGS and f.has(*UNFOLDINGS) and nonzero(unfold_all(f), ranges)):
        return True
    from symattn.language.statement import Assumption  # the hypothesis classes (data only)

    for h in hypotheses:
        if not isinstance(h, Assumption) or not isinstance(h.condition, sp.Basic):
            continue
        conds = h.condition.args if isinstance(h.condition, sp.And) else (h.condition,)
        for c in conds:
            if isinstance(c, (sp.Ne, sp.StrictGreaterThan, sp.StrictLessThan)):
                diff = canonical(c.lhs - c.rhs)
                if _same_condition(diff, f):
                    return True
                if isinstance(c, sp.Ne) and any(_same_condition(g, f) for g in _product_factors(diff)):
                    return True  # a b != 0: each factor is nonzero
    return False


def _product_factors(e: Any) -> list:
    """The nonconstant factors of ``e`` over Q (``factor_list``, under a time limit; sums kept as
    opaque atoms); ``[]`` when it has one factor or cannot be factored in time."""
    from symattn.kernel.timelimit import TimeLimitExceeded, time_limit

    table: dict = {}
    try:
        with time_limit(2.0):
            _, factors = sp.factor_list(opaque_sums(e, table))
    except (TimeLimitExceeded, sp.PolynomialError, TypeError, ValueError, NotImplementedError):
        return []
    back = {v: k for k, v in table.items()}
    out = [b.xreplace(back) for b, _ in factors if b.free_symbols]
    return out if len(out) > 1 else []


def singular_summands(expr: Any, hypotheses=(), others=()) -> list:
    """The definedness conditions of the summands of the sums and products in ``expr`` *as written*
    (before :func:`canonical` rebuilds the term, which evaluates ``k * k**-1`` to 1 and would drop the
    pole at ``k = 0``) that are not shown nonzero: a condition on the bound variable for every value in
    its range (the variable carries what its range implies, and the range itself is given to the sign
    test), any other condition unless it is one of ``others`` (the conditions the step's sides keep).
    Each is returned as ``(condition, the sum, the condition as written)``."""
    out: list = []
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum, sp.Product):
        return out
    ranges = index_ranges(hypotheses)

    def walk(e, env):
        if isinstance(e, (sp.Sum, sp.Product)) and all(len(lim) == 3 for lim in e.limits):
            env = dict(env)
            ranged = []
            for v, lo, hi in reversed(e.limits):  # outermost first
                lo, hi = lo.xreplace(env), hi.xreplace(env)
                walk(lo, env)
                walk(hi, env)
                from symattn.kernel.terms import _range_assumptions

                new = sp.Dummy(str(v), **_range_assumptions(lo, hi, True))
                env[v] = new
                ranged.append((new, lo, hi))
            body = e.function
            try:  # read as written (no evaluation: k/k keeps its pole) with the bound variables carrying
                # their ranges (x**k for k in 0..3 is total)
                with sp.evaluate(False):
                    ranged_body = body.xreplace(env)
                conds = definedness_conditions(ranged_body)
            except (TypeError, ValueError, KernelError):
                conds = []
            for f in conds:
                g = f.xreplace(env) if isinstance(f, sp.Basic) else f
                bound = isinstance(g, sp.Basic) and any(new in g.free_symbols for new, _lo, _hi in ranged)
                if not bound and (g in others or any(_same_condition(g, o) for o in others)):
                    continue
                if not isinstance(g, UnknownDomain) and _shown_nonzero_ranged(g, hypotheses, ranges + tuple(ranged)):
                    continue
                if all(g != h for h, _s, _f in out):
                    out.append((g, e, f))
            walk(body, env)
            return
        for a in e.args:
            walk(a, env)

    walk(expr, {})
    return out


def singular_message(found: list) -> str:
    """The conditions :func:`singular_summands` found, for a message."""
    parts = []
    for _g, e, f in found[:3]:
        what = sp.sstr(f) if isinstance(f, (UnknownDomain, IntegerBound)) else f"{sp.sstr(f)} != 0"
        parts.append(f"the summand of {sp.sstr(e)} is defined only where {what}, which is not shown for "
                     "every value of its bound variable in its range")
    return "; ".join(parts)


def side_singularities(lhs: Any, rhs: Any, hypotheses=()) -> list:
    """:func:`singular_summands` of both sides, the conditions either side keeps counting as kept."""
    if not any(isinstance(x, sp.Basic) and x.has(sp.Sum, sp.Product) for x in (lhs, rhs)):
        return []
    others = list(definedness_conditions(lhs)) + list(definedness_conditions(rhs))
    return singular_summands(lhs, hypotheses, others) + singular_summands(rhs, hypotheses, others)


def _shown_nonzero_ranged(f: Any, hypotheses, ranges) -> bool:
    if isinstance(f, IntegerBound):
        return _shown_nonzero(f, hypotheses)
    return nonzero(f, ranges) or (bool(UNFOLDINGS) and f.has(*UNFOLDINGS) and nonzero(unfold_all(f), ranges)) \
        or _shown_nonzero(f, hypotheses)


def undischarged(lhs: Any, rhs: Any, hypotheses=None, same=None) -> list:
    """Definedness conditions of one side that are not conditions of the other and are not shown
    nonzero (each a factor ``f``, meaning ``f != 0`` is needed). ``same(f, g)``, when given, may
    show two conditions equal in a further way (the step's own rule applied to them)."""
    hyps = HYPOTHESES.get() if hypotheses is None else hypotheses
    left, right = definedness_conditions(lhs), definedness_conditions(rhs)
    loose = {id(left): approximate_conditions(lhs), id(right): approximate_conditions(rhs)}
    missing = []
    for mine, other in ((left, right), (right, left)):
        # an over-approximate condition (a power with a symbolic exponent) matches nothing: it is shown
        # or it is missing
        exact_other = [g for g in other if g not in loose[id(other)]]
        for f in mine:
            if _shown_nonzero(f, hyps):
                continue
            if f not in loose[id(mine)]:
                if f in exact_other or any(_same_condition(f, g) for g in exact_other):
                    continue
                if same is not None and any(_try(same, f, g) for g in exact_other):
                    continue
            if not any(_same_condition(f, m) for m in missing):
                missing.append(f)
    return missing


def _try(same, f, g) -> bool:
    try:
        return bool(same(f, g))
    except (KernelError, TypeError, ValueError, AttributeError, NotImplementedError):
        return False


# ----------------------------------------------------------------------------------------- API
def residual(lhs: Any, rhs: Any) -> Any:
    """``lhs - rhs`` with shape checks for matrices."""
    if is_matrix(lhs) or is_matrix(rhs):
        if not (is_matrix(lhs) and is_matrix(rhs)):
            raise KernelError(f"cannot compare a matrix with a scalar: {sp.sstr(lhs)} vs {sp.sstr(rhs)}")
        if lhs.shape != rhs.shape:
            raise KernelError(f"shape mismatch: {lhs.shape} vs {rhs.shape}")
        return lhs - rhs
    return sp.sympify(lhs, strict=True) - sp.sympify(rhs, strict=True)


def is_zero(expr: Any, hypotheses=None) -> bool:
    """Exact zero test for scalars, explicit matrices (entrywise) and matrix expressions, with the
    definedness conditions of ``expr`` (every one must be shown nonzero)."""
    reduced = _matrix_reduces(expr) if is_matrix(expr) else _reduces_to_zero(expr)
    return reduced and not _refused(expr) and not undischarged(expr, sp.S.Zero, hypotheses)


def zero_test(lhs: Any, rhs: Any, hypotheses=None) -> ZeroTest:
    """Whether ``lhs = rhs``, with the definedness conditions that are missing."""
    if canonical(lhs) == canonical(rhs):
        _second_opinion(residual(canonical(lhs), canonical(rhs)))  # alpha-equivalent: 0 for flint too
        return ZeroTest(True, [])
    diff = residual(lhs, rhs)
    reduced = _matrix_reduces(diff) if is_matrix(diff) else _reduces_to_zero(diff)
    if not reduced:
        return ZeroTest(False, [])
    refused = _refused(diff)
    if refused:
        return ZeroTest(False, [], refused)
    return ZeroTest(True, [sp.sstr(m) for m in undischarged(lhs, rhs, hypotheses)])


def equal(lhs: Any, rhs: Any, hypotheses=None) -> bool:
    """Exact equality: alpha-equivalent, or ``lhs - rhs`` reduces to 0 and both sides are defined at
    the same points (see the module docstring)."""
    return zero_test(lhs, rhs, hypotheses).ok
