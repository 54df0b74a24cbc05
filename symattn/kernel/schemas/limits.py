"""Axiom schemas of limits: the core closes a limit by lemmas whose side conditions it shows, never by
``sympy.limit`` (the Gruntz algorithm returns, with parameters, a value right for one ordering of them
only: ``lim e^{ax}/(e^{ax} + e^{bx})`` is 1 or 0 as ``a > b`` or ``a < b``).

* ``limit_substitute``: ``lim_{z -> z0} f(z) = f(z0)`` for a finite ``z0`` and ``f`` continuous at
  ``z0`` (every head continuous, defined at ``z0``: :func:`symattn.kernel.calculus.check_continuous`);
* ``limit_at_infinity``: ``lim_{z -> oo} f(z) = lim_{u -> 0+} f(1/u)`` (``-oo``: ``f(-1/u)``);
* ``limit_quotient``: ``lim_{z -> z0} N(z)/D(z) = N'(z0)/D'(z0)`` when ``N(z0) = D(z0) = 0`` (zero
  test), ``N`` and ``D`` are differentiable at ``z0`` and ``D'(z0) != 0`` (the quotient of the two
  difference quotients; no mean value theorem needed);
* ``limit_decaying``: ``lim_{z -> oo} F(e^{c_1 z}, ..., e^{c_m z}) = F(0, ..., 0)`` when every ``c_i < 0``
  -- shown by the sign test, or as a positive multiple of ``q - p`` for an order hypothesis ``p > q`` the
  theorem states (so the ordering a limit depends on is a hypothesis the user must write) -- and ``F``
  is continuous at ``0`` in each slot; the body must be shown equal to the form by the zero test;
* ``limit_squeeze``: ``lim f = L`` from theorems ``g(z) <= f(z) <= h(z)`` for every ``z`` the limit
  variable ranges over (it carries only what the approach implies) and ``lim g = L = lim h``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel import calculus
from symattn.kernel.axioms import schema
from symattn.kernel.sign import nonzero
from symattn.kernel.terms import KernelError, canonical, free_symbols, substitute

_INFINITE = (sp.oo, -sp.oo, sp.zoo)


def _show(e: Any) -> str:
    s = sp.sstr(e)
    return s if len(s) <= 200 else s[:200] + " ..."


def _ranges() -> tuple:
    from symattn.kernel.thm import _hypotheses
    from symattn.kernel.zero import index_ranges

    return tuple(index_ranges(_hypotheses()))


def _open(limit: Any) -> tuple:
    lim = canonical(limit)
    if not isinstance(lim, sp.Limit):
        raise KernelError(f"{_show(limit)} is not a limit")
    body, z, z0, direction = lim.args
    for bad in (sp.Limit, sp.Integral, sp.Derivative, sp.Subs, sp.Product):
        if body.has(bad):
            raise KernelError(f"the limit's body holds a {bad.__name__.lower()}: evaluate or remove it first")
    return lim, body, z, z0, str(direction)


def _finite_point(z0: Any) -> None:
    if z0.has(*_INFINITE) or z0.is_finite is not True:
        raise KernelError(f"the point {_show(z0)} is not known to be finite")


def _equal(a: Any, b: Any) -> bool:
    from symattn.kernel.zero import equal

    return equal(a, b)


@schema("limit_substitute", "lim_{z -> z0} f(z) = f(z0) for finite z0 and f continuous at z0 (every head "
        "continuous, f defined at z0)")
def _limit_substitute(limit):
    lim, body, z, z0, _ = _open(limit)
    _finite_point(z0)
    calculus.check_continuous(body, z, z0, _ranges())
    return lim, canonical(substitute(body, {z: z0})), "="


@schema("limit_at_infinity", "lim_{z -> oo} f(z) = lim_{u -> 0+} f(1/u), lim_{z -> -oo} f(z) = lim_{u -> 0+} f(-1/u)")
def _limit_at_infinity(limit):
    lim, body, z, z0, _ = _open(limit)
    if z0 not in (sp.oo, -sp.oo):
        raise KernelError(f"the point {_show(z0)} is not oo or -oo")
    u = calculus.fresh("u", positive=True)
    inv = 1 / u if z0 == sp.oo else -1 / u
    return lim, sp.Limit(substitute(body, {z: inv}), u, 0, "+"), "="


@schema("limit_quotient", "lim_{z -> z0} N(z)/D(z) = N'(z0)/D'(z0) for finite z0, N(z0) = D(z0) = 0, N and D "
        "differentiable at z0, D'(z0) != 0")
def _limit_quotient(limit, numerator, denominator):
    lim, body, z, z0, _ = _open(limit)
    _finite_point(z0)
    N, D = canonical(numerator), canonical(denominator)
    if not _equal(body, N / D):
        raise KernelError(f"the body {_show(body)} is not shown equal to ({_show(N)})/({_show(D)})")
    ranges = _ranges()
    for part, name in ((N, "numerator"), (D, "denominator")):
        calculus.check_smooth(part, z, at=z0, ranges=ranges)
        if not _equal(substitute(part, {z: z0}), 0):
            raise KernelError(f"the {name} {_show(part)} is not shown to vanish at {_show(z0)}")
    # differentiable at z0 was shown above (heads and conditions at the point); the derivatives are
    # read there only (undefined_ok: no condition away from z0 is asked; abstract maps were refused)
    dN = canonical(substitute(calculus.derivative(N, z, undefined_ok=True, ranges=ranges), {z: z0}))
    dD = canonical(substitute(calculus.derivative(D, z, undefined_ok=True, ranges=ranges), {z: z0}))
    if not nonzero(dD, ranges):
        raise KernelError(f"the denominator's derivative {_show(dD)} at {_show(z0)} is not shown nonzero")
    return lim, dN / dD, "="


def _linear_coefficient(arg: Any, z: Any):
    a = sp.expand(arg)
    c = sp.diff(a, z)
    if c.has(z) or calculus.depends_on(sp.expand(a - c * z), z):
        return None
    return c, sp.expand(a - c * z)


@schema("limit_decaying", "lim_{z -> oo} F(e^{c_1 z}, ..., e^{c_m z}) = F(0, ..., 0) when every c_i < 0 (sign test "
        "or a stated order hypothesis p > q) and F is continuous at 0; the body shown equal to the form")
def _limit_decaying(limit, form):
    lim, body, z, z0, _ = _open(limit)
    if z0 != sp.oo:
        raise KernelError(f"limit_decaying is at oo, not at {_show(z0)}")
    form = canonical(form)
    if not _equal(body, form):
        raise KernelError(f"the body {_show(body)} is not shown equal to the form {_show(form)}")
    ranges = _ranges()
    slots = {}
    for e in sorted(form.atoms(sp.exp), key=sp.default_sort_key):
        if not calculus.depends_on(e, z):
            continue
        got = _linear_coefficient(e.args[0], z)
        if got is None:
            raise KernelError(f"{_show(e)}: the exponent is not linear in the limit variable")
        c, rest = got
        if not calculus.negative_by_order(c, ranges):
            raise KernelError(f"{_show(e)}: the rate {_show(c)} is not shown negative (state the order of the "
                              "parameters as a hypothesis, e.g. Assumption(condition=a > b))")
        if free_symbols(rest) and not bool(canonical(rest).is_extended_real):
            raise KernelError(f"{_show(e)}: the constant part of the exponent is not known to be real")
        y = calculus.fresh("y")
        slots[e] = (y, sp.exp(rest))
    F = form.xreplace({e: y * scale for e, (y, scale) in slots.items()})
    if calculus.depends_on(F, z):
        raise KernelError(f"the form {_show(form)} depends on the limit variable outside decaying exponentials")
    if not slots:
        raise KernelError("no decaying exponential in the form")
    ys = [y for y, _ in slots.values()]
    for y in ys:
        # every head on a path to y continuous, and defined with all slots at 0: a composition of
        # functions continuous at the point is jointly continuous there
        calculus.check_continuous(F.xreplace({w: 0 for w in ys if w is not y}), y, sp.S.Zero, ranges)
    return lim, canonical(F.xreplace({y: 0 for y in ys})), "="


@schema("limit_squeeze", "lim_{z -> z0} f(z) = L from g(z) <= f(z) <= h(z) for every z of the approach and "
        "lim_{z -> z0} g(z) = L = lim_{z -> z0} h(z) (all theorems of the kernel)")
def _limit_squeeze(limit, below, above, below_limit, above_limit):
    from symattn.kernel.schemas.analysis import _thm
    from symattn.kernel.terms import alpha_equal

    lim, body, z, z0, direction = _open(limit)
    lo, hi = _thm(below, "the lower bound"), _thm(above, "the upper bound")
    ll, hl = _thm(below_limit, "the lower bound's limit"), _thm(above_limit, "the upper bound's limit")
    for t, what in ((lo, "lower bound"), (hi, "upper bound")):
        if t.relation not in ("<", "<="):
            raise KernelError(f"the {what} {t!r} is not a <= bound")
    if not alpha_equal(lo.rhs, body) or not alpha_equal(hi.lhs, body):
        raise KernelError(f"the bounds {lo!r} and {hi!r} do not enclose the body {_show(body)}")
    for t, inner, what in ((ll, lo.lhs, "lower"), (hl, hi.rhs, "upper")):
        want = canonical(sp.Limit(inner, z, z0, direction))
        if t.relation != "=" or not alpha_equal(t.lhs, want):
            raise KernelError(f"{t!r} is not the limit of the {what} bound {_show(want)}")
    if not alpha_equal(ll.rhs, hl.rhs):
        raise KernelError(f"the bounds tend to different values {_show(ll.rhs)} and {_show(hl.rhs)}")
    return lim, ll.rhs, "="
