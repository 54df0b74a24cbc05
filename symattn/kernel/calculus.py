"""The core's analysis tests: where a term is smooth or continuous, its derivative, its realness on an
interval, and an extended sign test (Kronecker deltas, maxima and minima over ranges, definitions).

Trusted here, and nothing else: SymPy's ``diff`` on the heads listed in :data:`SMOOTH` (sums,
products, powers, ``exp``, ``log``, trigonometric and hyperbolic functions, finite sums, applied
undefined functions), the core's sign test (:mod:`.sign`), zero test (:mod:`.zero`) and term layer.
SymPy's calculus is asked for a derivative only once the expression has been checked, head by head
on every path to the variable, to be differentiable there (the second engine cannot express a
continuity fact is re-checked by the second engine's own table of continuous heads, with its
conditions decided by Z3, :func:`recheck_continuous`; a derivative SymPy took is re-checked by the
second engine's own differentiation, :func:`recheck_derivative`):

* a head that is not differentiable everywhere (``Piecewise``, ``floor``, ``ceiling``, ``frac``,
  ``Heaviside``, ``DiracDelta``, ``sign``, ``Max``, ``Min``, ``Mod``, ``re``/``im``/``arg``/``conjugate``,
  a ``KroneckerDelta`` of the variable) is refused: SymPy differentiates a ``Piecewise`` step to 0 and
  ``|x|`` to ``sign(x)``, which are not derivatives at the breaks;
* an abstract map (an undefined function, or a class whose derivative SymPy leaves as the unevaluated
  ``Derivative`` it denotes) is taken as differentiable by ``derivatives`` only: the step is read where
  that derivative exists; continuity, monotonicity and limits never take an abstract map;
* ``|g|`` is differentiable where ``g`` is real and nonzero: the core must show ``g != 0`` there;
* on a segment or at a point (monotonicity, limits): ``b**e`` with a non-integer (or variable) exponent
  needs ``b > 0``, ``log g`` needs ``g > 0``,
  ``b**(-k)`` needs ``b != 0``, ``tan``/``sec`` need ``cos != 0`` (``cot``/``csc``: ``sin``), ``coth``
  and ``csch`` need their argument nonzero -- each shown by the core's sign test on the interval or at
  the point in question. The schema ``derivatives`` states a pointwise identity, read where both sides
  are defined: there the step's definedness check matches the two sides' poles, logarithms and roots
  (``d/dx sqrt(x^2) = x/sqrt(x^2)`` leaves ``x != 0`` to show); ``|g|`` is still refused unless ``g != 0``.

Continuity (for limits) admits in addition ``Abs``, ``Max`` and ``Min`` (continuous everywhere).

Where: *on an interval* ``x in [A, B]`` the sign test is given the range ``(x, A, B)`` (it writes
``x = A + t`` or ``x = B - u`` with ``t, u >= 0``: a sign shown from one end holds on the interval); *at
a point* the condition is read with the variable replaced by the point.

The extended sign test :func:`sign` adds to :func:`symattn.kernel.sign.sign_of`: registered
definitions unfolded; a finite sum signed from its summand read on the sum's range (range not
reversed: nonnegative; nonempty and summand positive: positive), where a Kronecker delta of the
summand is split into its two values 0 and 1 (every case must have the sign); ``max_{l=a}^{b} F(l)``
written as ``F(j) + d`` and ``min`` as ``F(j) - d`` with ``d >= 0`` for an index ``j`` shown to lie in
``a..b`` (the defining property of the maximum and minimum), and otherwise signed by ``F`` on the
range when the range is nonempty; ``sin``, ``cos`` (in ``[-1, 1]``) and ``tanh`` (in ``(-1, 1)``) of a
real argument written ``-1 + p`` or ``1 - q`` with ``p, q >= 0`` (``> 0`` for ``tanh``).
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.core.function import AppliedUndef

from symattn.kernel.second import recorded_cache
from symattn.kernel.sign import nonzero, provably_le, sign_of
from symattn.kernel.terms import KernelError, canonical, free_symbols, is_bound_variable

__all__ = ["fresh", "fresh_index", "within_range", "depends_on", "check_smooth", "check_continuous",
           "derivative", "value_of_derivative", "real_on", "sign", "negative_by_order", "Extremum"]

_POSITIVE, _NONNEG = "positive", "nonnegative"


# ------------------------------------------------------------------------------ fresh names
def fresh(name: str = "x", **assumptions) -> sp.Dummy:
    """A symbol no term holds yet (rules may not make symbols; they ask the core)."""
    return sp.Dummy(name, **assumptions)


def fresh_index(lo: Any, hi: Any, name: str = "j") -> sp.Dummy:
    """A fresh integer index carrying exactly what the range ``lo..hi`` implies (as a bound variable)."""
    from symattn.kernel.terms import _range_assumptions

    return sp.Dummy(name, **_range_assumptions(sp.sympify(lo), sp.sympify(hi), True))


@contextlib.contextmanager
def within_range(var: Any, lo: Any, hi: Any):
    """The step's hypotheses, with ``var`` in ``lo..hi`` added, while the block runs (for theorems about
    a generic summand; :func:`symattn.kernel.schemas.analysis` ``sum_termwise`` discharges it). ``var``
    must be fresh: free in no hypothesis of the step."""
    from symattn.kernel.zero import HYPOTHESES
    from symattn.language.statement import IndexRange

    hyps = tuple(HYPOTHESES.get() or ())
    _require_fresh(var, hyps)
    token = HYPOTHESES.set(hyps + (IndexRange(f"_{var}_range", index=var, lower=lo, upper=hi),))
    try:
        yield
    finally:
        HYPOTHESES.reset(token)


def _require_fresh(var: Any, hyps) -> None:
    import dataclasses

    if not isinstance(var, sp.Symbol) or is_bound_variable(var):
        raise KernelError(f"{sp.sstr(var)} is not a symbol of its own")
    for h in hyps:
        for f in dataclasses.fields(h):
            val = getattr(h, f.name)
            for x in (val if isinstance(val, (tuple, list)) else (val,)):
                if isinstance(x, (sp.Basic, sp.MatrixBase)) and var in free_symbols(x):
                    raise KernelError(f"{sp.sstr(var)} is not fresh: hypothesis {h.name!r} mentions it")


# ------------------------------------------------------------------------------ smoothness
#: heads through which the variable may pass, differentiable wherever defined (conditions below)
SMOOTH = (sp.Add, sp.Mul, sp.Pow, sp.exp, sp.log, sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc, sp.sinh,
          sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch, sp.atan, sp.asinh, sp.erf, sp.Sum)
#: continuous everywhere, but not differentiable at their breaks
CONTINUOUS_ONLY = (sp.Abs, sp.Max, sp.Min)
#: SymPy's own heads that are not everywhere differentiable (never taken as abstract maps)
_KNOWN = SMOOTH + CONTINUOUS_ONLY + (sp.Piecewise, sp.floor, sp.ceiling, sp.frac, sp.Heaviside, sp.DiracDelta,
                                     sp.sign, sp.Mod, sp.re, sp.im, sp.arg, sp.conjugate, sp.KroneckerDelta)


def depends_on(e: Any, v: Any) -> bool:
    """Whether ``e`` depends on the variable ``v`` (a symbol, or an ``Indexed`` entry: every entry of
    the same base may be it)."""
    if not isinstance(e, sp.Basic):
        return False
    if isinstance(v, sp.Indexed):
        return e.has(v.base) or bool(free_symbols(e) & {v.base.label})
    return v in free_symbols(e)


def _where(cond: Any, v: Any, at: Any, ranges: tuple) -> Any:
    """The condition read where it must hold: at the point ``at`` (substituted) or on ``ranges``."""
    if at is not None:
        from symattn.kernel.terms import substitute

        return canonical(substitute(cond, {v: at}))
    return cond


def _require(ok: bool, what: str) -> None:
    if not ok:
        raise KernelError(what)


def _check(e: Any, v: Any, at: Any, ranges: tuple, continuous: bool, undefined_ok: bool) -> None:
    if not depends_on(e, v) or e == v:
        return
    if isinstance(e, (sp.Symbol, sp.Indexed)):
        return  # another entry of v's base: its derivative is a Kronecker delta (integer indices)
    if isinstance(e, sp.IndexedBase):
        return
    where = "at the point" if at is not None else "there"
    if isinstance(e, sp.Sum):
        for lim in e.limits:
            if len(lim) != 3 or any(b.has(sp.oo, -sp.oo, sp.zoo) or depends_on(b, v) for b in lim[1:]):
                raise KernelError(f"{sp.sstr(e)}: only finite sums with bounds free of {sp.sstr(v)} are "
                                  "differentiated (or passed to the limit) term by term")
        inner = tuple(ranges) + tuple((k, lo, hi) for (k, lo, hi) in e.limits)
        _check(e.function, v, at, inner, continuous, undefined_ok)
        return
    if isinstance(e, AppliedUndef):
        if not undefined_ok:
            raise KernelError(f"{sp.sstr(e)} is an unknown function of {sp.sstr(v)}: nothing is known of its "
                              "continuity or monotonicity")
        for a in e.args:
            _check(a, v, at, ranges, continuous, undefined_ok)
        return
    if continuous and isinstance(e, CONTINUOUS_ONLY):
        for a in e.args:
            _check(a, v, at, ranges, continuous, undefined_ok)
        return
    if isinstance(e, sp.Abs):
        g = e.args[0]
        _require(bool(canonical(g).is_extended_real) and nonzero(_where(g, v, at, ranges), ranges),
                 f"|{sp.sstr(g)}| is differentiable only where {sp.sstr(g)} is real and nonzero, which is not "
                 f"shown {where}")
        _check(g, v, at, ranges, continuous, undefined_ok)
        return
    if undefined_ok and isinstance(e, sp.Function) and not isinstance(e, _KNOWN) and \
            sp.diff(e, v) == sp.Derivative(e, v):
        return  # an abstract map: its derivative stays the unevaluated Derivative it denotes
    if not isinstance(e, SMOOTH):
        kind = "continuous" if continuous else "differentiable"
        raise KernelError(f"{type(e).__name__} is not {kind} everywhere ({sp.sstr(e)}): the core does not "
                          f"take it as a {kind} function of {sp.sstr(v)}")
    if undefined_ok:
        pass  # a pointwise identity where defined: the definedness check of the step matches the domains
    elif isinstance(e, sp.Pow):
        b, x = e.args
        if depends_on(x, v) or not x.is_integer:
            _require(sign_of(_where(b, v, at, ranges), ranges) == _POSITIVE,
                     f"{sp.sstr(e)}: a power with a non-integer exponent needs the base {sp.sstr(b)} > 0, which "
                     f"is not shown {where}")
        elif x.is_negative:
            _require(nonzero(_where(b, v, at, ranges), ranges),
                     f"{sp.sstr(e)}: the base {sp.sstr(b)} is not shown nonzero {where}")
    elif isinstance(e, sp.log):
        _require(sign_of(_where(e.args[0], v, at, ranges), ranges) == _POSITIVE,
                 f"log({sp.sstr(e.args[0])}): the argument is not shown positive {where}")
    elif isinstance(e, (sp.tan, sp.sec)):
        _require(nonzero(_where(sp.cos(e.args[0]), v, at, ranges), ranges),
                 f"{sp.sstr(e)}: cos({sp.sstr(e.args[0])}) is not shown nonzero {where}")
    elif isinstance(e, (sp.cot, sp.csc)):
        _require(nonzero(_where(sp.sin(e.args[0]), v, at, ranges), ranges),
                 f"{sp.sstr(e)}: sin({sp.sstr(e.args[0])}) is not shown nonzero {where}")
    elif isinstance(e, (sp.coth, sp.csch)):
        _require(nonzero(_where(e.args[0], v, at, ranges), ranges),
                 f"{sp.sstr(e)}: the argument is not shown nonzero {where}")
    for a in e.args:
        _check(a, v, at, ranges, continuous, undefined_ok)


def check_smooth(e: Any, v: Any, at: Any = None, ranges: tuple = (), undefined_ok: bool = False) -> None:
    """Raise :class:`KernelError` unless ``e`` is differentiable in ``v`` (at the point ``at``, or
    wherever ``ranges`` put the symbols; see the module docstring)."""
    _check(canonical(e), v, at, tuple(ranges), False, undefined_ok)


def check_continuous(e: Any, v: Any, at: Any, ranges: tuple = ()) -> None:
    """Raise :class:`KernelError` unless ``e`` is continuous in ``v`` at the point ``at``."""
    e = canonical(e)
    _check(e, v, at, tuple(ranges), True, False)
    recheck_continuous(e, v, at, tuple(ranges))


def recheck_continuous(e: Any, v: Any, at: Any, ranges: tuple = ()) -> None:
    """The second engine's re-check of a continuity fact (its own table of heads, conditions at the
    point decided by Z3: :mod:`symattn.kernel.second.continuity`), recorded for the step."""
    from symattn.kernel import second

    if not second.enabled():
        return
    from symattn.kernel.second.continuity import recheck_continuous as second_continuity

    second.record(second.bounded("z3", "continuity", lambda: second_continuity(e, v, at, ranges)), "calculus")


def recheck_derivative(f: Any, v: Any, out: Any, count: int = 1, where: str = "") -> None:
    """The second engine's re-check of SymPy's ``d^count f / d v^count = out`` (its own derivative,
    :mod:`symattn.kernel.second.derivatives`), recorded for the step; raises :class:`KernelError` with
    both answers when it shows SymPy's derivative wrong."""
    from symattn.kernel import second

    if not second.enabled():
        return
    from symattn.kernel.second.derivatives import recheck_derivative as second_derivative

    check = second.record(second.bounded("flint", "a derivative", lambda: second_derivative(
        f, v, out, count, where)), "calculus")
    if check.verdict == second.DISAGREE:
        raise KernelError(check.both_answers())


def _definition_classes() -> tuple:
    from symattn.kernel.zero import UNFOLDINGS

    return tuple(UNFOLDINGS)


def derivative(f: Any, v: Any, count: int = 1, undefined_ok: bool = True, ranges: tuple = ()) -> Any:
    """``d^count f / d v^count`` by SymPy's rules, once ``f`` is shown differentiable (:func:`check_smooth`
    with the ranges); refuses an unfolded definition and a dependency SymPy cannot see into."""
    if isinstance(count, bool) or not isinstance(count, (int, sp.Integer)) or int(count) < 0:
        raise KernelError(f"the order {sp.sstr(count)} of the derivative is not a literal nonnegative integer: the "
                          "core takes derivatives of a given order only (an n-th derivative is a claim by induction)")
    count = int(count)
    opaque = _definition_classes()
    if opaque:
        hidden = sorted({type(e).__name__ for e in sp.preorder_traversal(f) if isinstance(e, opaque)
                         and depends_on(e, v)})
        if hidden:
            raise KernelError(f"unfold the definition of {hidden} (a 'definition' step) before differentiating")
    out = f
    for _ in range(count):
        check_smooth(out, v, ranges=ranges, undefined_ok=undefined_ok)
        out = sp.diff(out, v)
    recheck_derivative(f, v, out, count)
    for e in sp.preorder_traversal(out):
        if isinstance(e, sp.Derivative) and isinstance(e.expr, (sp.Symbol, sp.IndexedBase)) and e.expr not in (
                w for w, _ in e.variable_count):
            raise KernelError(f"the expression depends on {e.expr} through an opaque function (SymPy gives "
                              f"{sp.sstr(e)}); write its entries explicitly")
    return out


# ------------------------------------------------------------------------------ realness
_REAL_HEADS = (sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.tanh, sp.sech, sp.atan, sp.asinh, sp.erf,
               sp.Abs, sp.Max, sp.Min)



def value_of_derivative(d: sp.Derivative, ranges: tuple = ()) -> Any:
    """The value of ``d`` (each of its variables in turn, by :func:`derivative`); raises the kernel's
    error where the body is not shown differentiable."""
    out = d.expr
    for v, count in d.variable_count:
        out = derivative(out, v, count, ranges=ranges)
    return out

def real_on(e: Any, v: Any, ranges: tuple) -> bool:
    """Whether ``e`` is real for every real ``v`` the ranges allow, read structurally (the symbols'
    assumptions for the leaves; ``log`` and non-integer powers of a base shown positive)."""
    e = canonical(e)
    if not depends_on(e, v):
        return bool(e.is_extended_real) and e.is_finite is not False
    if e == v:
        return True
    if isinstance(e, (sp.Add, sp.Mul)):
        return all(real_on(a, v, ranges) for a in e.args)
    if isinstance(e, sp.Pow):
        b, x = e.args
        if not real_on(b, v, ranges):
            return False
        if not depends_on(x, v) and x.is_integer:
            return True
        return real_on(x, v, ranges) and sign_of(b, ranges) == _POSITIVE
    if isinstance(e, sp.log):
        return real_on(e.args[0], v, ranges) and sign_of(e.args[0], ranges) == _POSITIVE
    if isinstance(e, _REAL_HEADS + (sp.tan, sp.cot, sp.sec, sp.csc, sp.coth, sp.csch)):
        return all(real_on(a, v, ranges) for a in e.args)
    if isinstance(e, sp.Sum):
        inner = tuple(ranges) + tuple((k, lo, hi) for (k, lo, hi) in e.limits)
        return all(len(lim) == 3 for lim in e.limits) and real_on(e.function, v, inner)
    return False


def real_where_defined(e: Any) -> bool:
    """Whether ``e`` is real at every point where it is defined (``1/x`` for real ``x``: real, or
    undefined at 0), read structurally from the leaves' assumptions."""
    if not isinstance(e, sp.Basic):
        return False
    if e.is_extended_real or (e.is_number and e.is_real):
        return True
    if isinstance(e, (sp.Symbol, sp.Indexed)) or not e.args:
        return bool(e.is_extended_real)
    if isinstance(e, (sp.Add, sp.Mul)):
        return all(real_where_defined(a) for a in e.args)
    if isinstance(e, sp.Pow):
        b, x = e.args
        return real_where_defined(b) and (bool(x.is_integer) or (real_where_defined(x) and sign_of(b) == _POSITIVE))
    if isinstance(e, _REAL_HEADS + (sp.tan, sp.cot, sp.sec, sp.csc, sp.coth, sp.csch)):
        return all(real_where_defined(a) for a in e.args)
    return False


# ------------------------------------------------------------------------------ order hypotheses
def _order_facts() -> list:
    """``p - q`` for each strict order hypothesis ``p > q`` (an Assumption ``Gt``/``Lt``) of the step."""
    from symattn.kernel.zero import HYPOTHESES
    from symattn.language.statement import Assumption

    out = []
    for h in HYPOTHESES.get() or ():
        if not isinstance(h, Assumption) or not isinstance(h.condition, sp.Basic):
            continue
        conds = h.condition.args if isinstance(h.condition, sp.And) else (h.condition,)
        for c in conds:
            if isinstance(c, sp.StrictGreaterThan):
                out.append(canonical(c.lhs - c.rhs))
            elif isinstance(c, sp.StrictLessThan):
                out.append(canonical(c.rhs - c.lhs))
    return out


def negative_by_order(c: Any, ranges: tuple = ()) -> bool:
    """Whether ``c < 0``: by the sign test, or as a positive multiple of ``q - p`` for an order
    hypothesis ``p > q`` the theorem states."""
    c = canonical(c)
    if sign_of(-c, ranges) == _POSITIVE:
        return True
    for d in _order_facts():  # d > 0
        ratio = sp.cancel(sp.together(-c / d))
        if ratio.is_number and ratio.is_positive:
            return True
    return False


# ------------------------------------------------------------------------------ extended sign
class Extremum:
    """Recognises the maximum/minimum heads over an integer range (``MaxOver``/``MinOver`` of
    :mod:`symattn.rules.inequalities`, registered there as data): ``kind(e)`` is 'max', 'min' or None."""

    heads: dict = {}

    @classmethod
    def register(cls, head: type, kind: str) -> None:
        cls.heads[head] = kind

    @classmethod
    def kind(cls, e: Any):
        for head, kind in cls.heads.items():
            if isinstance(e, head):
                return kind
        return None


def _stronger(a, b):
    return _POSITIVE if _POSITIVE in (a, b) else (_NONNEG if _NONNEG in (a, b) else None)


def _weaker(a, b):
    if a is None or b is None:
        return None
    return _POSITIVE if a == b == _POSITIVE else _NONNEG


def _range_signs(lo, hi, ranges):
    try:
        return _range_signs_cached(lo, hi, tuple(ranges))
    except TypeError:
        return provably_le(lo, hi, ranges), provably_le(lo - 1, hi, ranges)


@recorded_cache(maxsize=4096)
def _range_signs_cached(lo, hi, ranges):
    return provably_le(lo, hi, ranges), provably_le(lo - 1, hi, ranges)


def _atomize(e: Any, ranges: tuple, depth: int) -> Any:
    """Each outermost finite sum and extremum replaced by a fresh symbol carrying its sign."""

    def signed(s, x):
        if s == _POSITIVE:
            return fresh("S", positive=True)
        if s == _NONNEG:
            return fresh("S", nonnegative=True)
        # a finite sum (or extremum) of real terms is a real number; of any terms, a finite one
        return fresh("S", real=True) if x.is_extended_real else fresh("S", finite=True)

    def walk(x):
        if not isinstance(x, sp.Basic) or not x.args:
            return x
        if isinstance(x, sp.Sum):
            if any(b.has(sp.oo, -sp.oo, sp.zoo) for lim in x.limits for b in lim[1:]):
                return fresh("S")  # a series: nothing is known of it
            return signed(_sum_sign(x, ranges, depth), x)
        if Extremum.kind(x) is not None:
            (k, lo, hi) = x.limits[0]
            nonempty, _ = _range_signs(lo, hi, ranges)
            return signed(sign(x.function, tuple(ranges) + ((k, lo, hi),), depth + 1) if nonempty else None, x)
        if not x.has(sp.Sum, ExprWithLimits):
            return x
        return x.func(*[walk(a) for a in x.args])

    return walk(e)


def _sum_sign(s: sp.Sum, ranges: tuple, depth: int):
    limits = list(s.limits)
    if any(len(lim) != 3 or any(b.has(sp.oo, -sp.oo, sp.zoo) for b in lim[1:]) for lim in limits):
        return None
    inner = tuple(ranges) + tuple((v, lo, hi) for (v, lo, hi) in reversed(limits))
    body = sign(s.function, inner, depth + 1)
    if body is None:
        return None
    ok_pos, ok_nonneg = True, True
    for idx, (_v, lo, hi) in enumerate(limits):
        scope = tuple(ranges) + tuple((v, a, b) for (v, a, b) in reversed(limits[idx + 1:]))
        ne, nr = _range_signs(lo, hi, scope)
        ok_pos, ok_nonneg = ok_pos and ne, ok_nonneg and nr
    if body == _POSITIVE and ok_pos:
        return _POSITIVE
    return _NONNEG if ok_nonneg else None


def _extremum_variants(e: Any, ranges: tuple) -> list:
    """``e`` with each extremum ``max_l F(l)`` written ``F(j) + d`` (``min``: ``F(j) - d``), ``d >= 0``,
    for the indices ``j`` in its range at which ``F(j)`` occurs in ``e``; at most 8 variants."""
    from symattn.kernel.terms import open_binder

    exts = sorted((x for x in sp.preorder_traversal(e) if Extremum.kind(x) is not None), key=sp.default_sort_key)
    choices = []
    for m in exts[:3]:
        (k, lo, hi) = m.limits[0]
        opts = []
        bases = {x.base for x in sp.preorder_traversal(m.function) if isinstance(x, sp.Indexed)}
        rest = e.xreplace({m: fresh("M")})
        for ind in sorted((x for x in rest.atoms(sp.Indexed) if x.base in bases), key=sp.default_sort_key):
            for j in ind.indices:
                if not (provably_le(lo, j, ranges) and provably_le(j, hi, ranges)) or not j.is_integer:
                    continue
                body = open_binder(m, j)[3]
                d = fresh("d", nonnegative=True)
                opts.append((m, body + d if Extremum.kind(m) == "max" else body - d))
        choices.append(opts[:4])
    out = []
    for combo in itertools.product(*[c for c in choices if c]):
        out.append(e.xreplace(dict(combo)))
        if len(out) >= 8:
            break
    return out


#: heads bounded on the reals: sin, cos in [-1, 1]; tanh in (-1, 1) (strictly)
_BOUNDED = {sp.sin: False, sp.cos: False, sp.tanh: True}


def bounded_variants(e: Any, limit: int = 2) -> list:
    """``e`` with each bounded atom ``b`` (``sin``, ``cos``, ``tanh`` of a real argument; at most
    ``limit`` of them) written ``-1 + p`` or ``1 - q`` with ``p, q >= 0`` (``> 0`` for ``tanh``): a sign
    shown for every such ``p`` (or ``q``) holds at ``b``, which is one of them."""
    if not isinstance(e, sp.Basic):
        return []
    atoms = sorted((a for a in e.atoms(*_BOUNDED) if real_where_defined(a.args[0])), key=sp.default_sort_key)
    choices = []
    for a in atoms[:limit]:
        strict = _BOUNDED[type(a)]
        kw = {"positive": True} if strict else {"nonnegative": True}
        choices.append([(a, -1 + fresh("p", **kw)), (a, 1 - fresh("q", **kw))])
    return [e.xreplace(dict(combo)) for combo in itertools.product(*choices)] if choices else []


def _delta_cases(e: Any) -> list:
    deltas = sorted(e.atoms(sp.KroneckerDelta), key=sp.default_sort_key)
    if len(deltas) > 4:
        return []
    return [e.xreplace(dict(zip(deltas, vals))) for vals in itertools.product((0, 1), repeat=len(deltas))]


def _structural(e: Any, ranges: tuple, depth: int):
    """The sign read off the structure: products, sums of terms, powers, finite sums, extrema."""
    if isinstance(e, sp.Sum):
        return _sum_sign(e, ranges, depth)
    if Extremum.kind(e) is not None:
        (k, lo, hi) = e.limits[0]
        return sign(e.function, ranges + ((k, lo, hi),), depth + 1) if provably_le(lo, hi, ranges) else None
    if isinstance(e, sp.Mul):
        signs = [sign(f, ranges, depth + 1) for f in e.args]
        if None in signs:
            return None
        return _POSITIVE if all(x == _POSITIVE for x in signs) else _NONNEG
    if isinstance(e, sp.Add):
        signs = [sign(t, ranges, depth + 1) for t in e.args]
        if None in signs:
            return None
        return _POSITIVE if _POSITIVE in signs else _NONNEG
    if isinstance(e, sp.Pow):
        b, x = e.args
        if x.is_integer and x.is_even and b.is_extended_real:
            return _POSITIVE if sign(b, ranges, depth + 1) == _POSITIVE else _NONNEG
        bs = sign(b, ranges, depth + 1)
        if bs == _POSITIVE and x.is_extended_real:
            return _POSITIVE
        if bs == _NONNEG and x.is_extended_real and x.is_nonnegative:
            return _NONNEG
    return None


def sign(e: Any, ranges: tuple = (), depth: int = 0):
    """'positive', 'nonnegative' or None: the core's sign test extended as the module docstring says."""
    e = canonical(sp.sympify(e, strict=True))
    ranges = tuple(ranges)
    try:
        return _sign_cached(e, ranges, depth)
    except TypeError:  # unhashable
        return _sign(e, ranges, depth)


@recorded_cache(maxsize=4096)
def _sign_cached(e, ranges, depth):
    return _sign(e, ranges, depth)


def _sign(e: Any, ranges: tuple, depth: int):
    if not isinstance(e, sp.Basic) or depth > 12:
        return sign_of(e, ranges) if depth <= 12 else None
    if e.is_number:
        return sign_of(e, ranges)
    if not e.has(sp.KroneckerDelta, ExprWithLimits, *_BOUNDED) and not (set(map(type, sp.preorder_traversal(e)))
                                                                        & set(_definition_classes())):
        return sign_of(e, ranges)  # nothing the extension adds: the core's test as it is
    if isinstance(e, sp.KroneckerDelta):
        return _NONNEG  # 0 or 1
    got = _structural(e, ranges, depth)
    if got is not None:
        return got
    if e.has(sp.KroneckerDelta) and not e.has(ExprWithLimits):
        cases = _delta_cases(e)
        if cases:
            here = _POSITIVE
            for case in cases:
                here = _weaker(here, sign(case, ranges, depth + 1))
            return _stronger(got, here)
    if depth > 3:
        return None
    from symattn.kernel.zero import unfold_all

    u = unfold_all(e)
    forms = [u]
    if depth == 0:
        forms += [f for f in (sp.factor_terms(u),) if f != u]
        if sp.count_ops(u) < 80:
            forms.append(sp.expand(u))
    for form in forms:
        for var in [form] + _extremum_variants(form, ranges) + bounded_variants(form):
            if var is not e and var != e:
                s_ = _structural(var, ranges, depth) if var.has(ExprWithLimits) else sign(var, ranges, depth + 1)
                got = _stronger(got, s_)
                if got == _POSITIVE:
                    return got
            atomized = _atomize(var, ranges, depth)
            cases = _delta_cases(atomized) if atomized.has(sp.KroneckerDelta) else [atomized]
            if not cases:
                continue
            here = _POSITIVE
            for case in cases:
                here = _weaker(here, sign_of(case, ranges))
            got = _stronger(got, here)
            if got == _POSITIVE:
                return got
    return got
