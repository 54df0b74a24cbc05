"""Exact evaluation of closed numbers: is a number zero, what is its sign, never by floating point.

A *closed number* is a SymPy expression without free symbols (``sqrt(2)``, ``cos(pi/12)``,
``log(3) - 1``). The concrete levels decide facts about such numbers (a counterexample: the two
sides differ at a point; a model: a hypothesis holds there), and a decision here is exact:

* **nonzero, and the sign** -- by ball arithmetic (python-flint's ``acb``: every operation returns a
  ball that is guaranteed to contain the exact value; the precision is raised until the ball
  excludes 0, up to :data:`MAX_PRECISION` bits). A ball that excludes 0 is a proof that the number
  is not 0; a ball whose imaginary part is exactly 0 (radius 0) proves the number is real.
* **zero** -- a rational number by its value; an algebraic number by its minimal polynomial over Q
  (SymPy's ``minimal_polynomial``, under a time limit: the number is 0 exactly when that polynomial is
  the variable itself); otherwise only when exact rewriting (``simplify``) reduces it to the integer 0.
  Two numbers are never compared by their structure: ``(1 + sqrt(2))**2`` and ``3 + 2 sqrt(2)`` are
  different trees and the same number.
* anything else -- a float in the expression (it is not exact), an unevaluated integral, sum, limit or
  derivative (no ball is formed for it and no rewriting evaluates it: an integral is never evaluated
  numerically, and SymPy's integration and summation are not trusted),
  a function the balls do not know, ``nan``/``zoo``/``oo`` -- is *undecided* (``None``), never a guess.

>>> is_zero((1 + sp.sqrt(2))**2 - 3 - 2*sp.sqrt(2))
True
>>> is_zero(sp.cos(sp.pi/12)**2 - (2 + sp.sqrt(3))/4)
True
>>> is_zero(sp.exp(1) - sp.Rational(2718, 1000))
False
>>> sign(sp.log(3) - 1)
1
>>> is_zero(sp.sqrt(2) - sp.Float("1.4142")) is None
True
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.timelimit import TimeLimitExceeded, time_limit

__all__ = ["is_zero", "sign", "equal", "Undecidable", "ball", "MAX_PRECISION"]

#: the largest working precision (bits) of the ball evaluation
MAX_PRECISION = 1024
_PRECISIONS = (64, 256, MAX_PRECISION)


class Undecidable(Exception):
    """The number cannot be evaluated exactly here (named in the message)."""


# ---------------------------------------------------------------------------------------------- balls
def _flint():
    import flint

    return flint


_FUNCTIONS = {
    sp.exp: "exp", sp.log: "log", sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.cot: "cot",
    sp.sec: "sec", sp.csc: "csc", sp.sinh: "sinh", sp.cosh: "cosh", sp.tanh: "tanh", sp.coth: "coth",
    sp.sech: "sech", sp.csch: "csch", sp.asin: "asin", sp.acos: "acos", sp.atan: "atan",
    sp.asinh: "asinh", sp.acosh: "acosh", sp.atanh: "atanh", sp.erf: "erf", sp.erfc: "erfc",
    sp.gamma: "gamma",
}


def ball(x: Any, prec: int = 64):
    """An ``acb`` ball containing the exact value of the closed number ``x``, at ``prec`` bits;
    :class:`Undecidable` for what is not exact (a float) or not known to the balls."""
    flint = _flint()
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        return _ball(sp.sympify(x), flint)
    finally:
        flint.ctx.prec = old


def _real_ball(b, what: str):
    im = b.imag
    if not (im.is_exact() and im.is_zero()):
        raise Undecidable(f"{what} of a number not shown to be real")
    return b.real


def _ball(x: Any, flint):
    acb, arb, fmpq = flint.acb, flint.arb, flint.fmpq
    if isinstance(x, sp.Float):
        raise Undecidable(f"the float {x} is not an exact number")
    if x.free_symbols:
        raise Undecidable(f"{sp.sstr(x)} is not closed")
    if x.is_Rational:
        return acb(fmpq(int(x.p), int(x.q)))
    if x is sp.pi:
        return acb(arb.pi())
    if x is sp.E:
        return acb(arb.const_e())
    if x is sp.I:
        return acb(0, 1)
    if x is sp.EulerGamma:
        return acb(arb.const_euler())
    if x is sp.Catalan:
        return acb(arb.const_catalan())
    if x is sp.GoldenRatio:
        return (1 + acb(5).sqrt()) / 2
    if x.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or x in (sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise Undecidable(f"{sp.sstr(x)} is undefined or infinite")
    if isinstance(x, sp.Add):
        out = acb(0)
        for a in x.args:
            out += _ball(a, flint)
        return out
    if isinstance(x, sp.Mul):
        out = acb(1)
        for a in x.args:
            out *= _ball(a, flint)
        return out
    if isinstance(x, sp.Pow):
        base = _ball(x.base, flint)
        e = x.exp
        if e.is_Integer:
            if int(e) < 0 and base.contains(0):
                raise Undecidable("a power with negative exponent of a number not shown nonzero")
            return base ** int(e)
        if e == sp.S.Half:
            return base.sqrt()  # principal branch, as SymPy's
        return base ** _ball(e, flint)  # principal branch exp(e log base), as SymPy's
    if isinstance(x, sp.Abs):
        return acb(abs(_ball(x.args[0], flint)))
    if isinstance(x, sp.re):
        return acb(_ball(x.args[0], flint).real)
    if isinstance(x, sp.im):
        return acb(_ball(x.args[0], flint).imag)
    if isinstance(x, sp.sign):
        b = _ball(x.args[0], flint)
        return acb(_real_ball(b, "sign").sgn())
    if isinstance(x, (sp.Max, sp.Min)):
        parts = [_real_ball(_ball(a, flint), type(x).__name__) for a in x.args]
        out = parts[0]
        for p in parts[1:]:
            out = out.max(p) if isinstance(x, sp.Max) else out.min(p)
        return acb(out)
    if isinstance(x, (sp.floor, sp.ceiling)):
        r = _real_ball(_ball(x.args[0], flint), "floor")
        r = r.floor() if isinstance(x, sp.floor) else r.ceil()
        return acb(r)
    if isinstance(x, sp.Heaviside) and len(x.args) == 1:
        r = _real_ball(_ball(x.args[0], flint), "Heaviside")
        if r > 0:
            return acb(1)
        if r < 0:
            return acb(0)
        raise Undecidable("Heaviside at a number not shown nonzero")
    if isinstance(x, sp.atan2):
        y, z = (_real_ball(_ball(a, flint), "atan2") for a in x.args)
        return acb(arb.atan2(y, z))
    if isinstance(x, sp.factorial):
        return (_ball(x.args[0], flint) + 1).gamma()
    for f, name in _FUNCTIONS.items():
        if isinstance(x, f) and len(x.args) == 1:
            return getattr(_ball(x.args[0], flint), name)()
    raise Undecidable(f"no exact evaluation of {type(x).__name__}")


# ---------------------------------------------------------------------------------------------- decisions
def _nonzero_by_balls(x: Any) -> tuple[bool, Any]:
    """``(True, ball)`` when a ball proves ``x != 0``; ``(False, last ball)`` otherwise."""
    b = None
    for prec in _PRECISIONS:
        b = ball(x, prec)
        if not b.contains(0):
            return True, b
        if b.is_exact():  # an exact ball that contains 0 is 0
            return False, b
    return False, b


def _zero_exactly(x: Any, seconds: float) -> bool | None:
    """Whether ``x`` is 0, shown exactly (minimal polynomial, rational value, or exact rewriting to
    the integer 0); None when it could not be shown either way here."""
    x = sp.sympify(x)
    if x.is_Rational:
        return x == 0
    t = sp.Dummy("t")
    try:
        with time_limit(seconds):
            poly = sp.minimal_polynomial(x, t, polys=True)
        return poly.as_expr() == t
    except TimeLimitExceeded:
        pass
    except (NotImplementedError, ValueError, TypeError, sp.polys.polyerrors.PolynomialError,
            sp.polys.polyerrors.NotAlgebraic, sp.polys.polyerrors.GeneratorsNeeded, AttributeError):
        pass
    try:
        with time_limit(seconds):
            if sp.simplify(x) == 0:
                return True
    except TimeLimitExceeded:
        pass
    except Exception:  # noqa: BLE001 -- a failed rewrite decides nothing
        pass
    return None


_BINDERS = (sp.Integral, sp.Sum, sp.Product, sp.Limit, sp.Derivative)


def _inexact(x: Any) -> bool:
    return isinstance(x, sp.Basic) and bool(x.atoms(sp.Float) or x.has(*_BINDERS))


def is_zero(x: Any, seconds: float = 4.0) -> bool | None:
    """Whether the closed number ``x`` is 0: True or False when shown exactly, None otherwise."""
    x = sp.sympify(x)
    if _inexact(x):
        return None
    if x.free_symbols or not x.is_number:
        return None
    if x.is_Rational:
        return x == 0
    try:
        nonzero, _ = _nonzero_by_balls(x)
    except Undecidable:
        nonzero = False
        if x.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            return None
    if nonzero:
        return False
    try:
        return _zero_exactly(x, seconds)
    except Undecidable:
        return None


def equal(a: Any, b: Any, seconds: float = 4.0) -> bool | None:
    """Whether the closed numbers ``a`` and ``b`` are equal (None: not shown either way)."""
    try:
        d = sp.sympify(a) - sp.sympify(b)
    except (TypeError, sp.SympifyError):
        return None
    return is_zero(d, seconds)


def sign(x: Any, seconds: float = 4.0) -> int | str | None:
    """The sign of a closed number: ``-1``, ``0`` or ``1`` for a number shown real, ``"nonreal"``
    for one shown not real, None when not shown."""
    x = sp.sympify(x)
    if _inexact(x):
        return None
    if x.free_symbols or not x.is_number:
        return None
    if x.is_Rational:
        return 1 if x.p > 0 else (-1 if x.p < 0 else 0)
    try:
        nonzero, b = _nonzero_by_balls(x)
    except Undecidable:
        nonzero, b = False, None
    if b is not None and not b.imag.contains(0):
        return "nonreal"
    if nonzero and b is not None and b.imag.is_exact() and b.imag.is_zero():
        return 1 if b.real > 0 else -1
    z = None
    try:
        z = _zero_exactly(x, seconds)
    except Undecidable:
        pass
    if z:
        return 0
    if nonzero and b is not None:
        # nonzero, real part of known sign, imaginary part not shown to be 0: real or not, it is not
        # known; try the imaginary part on its own
        im = sp.im(x)
        if _zero_exactly(im, seconds) and not b.real.contains(0):
            return 1 if b.real > 0 else -1
    return None
