"""The second engine's re-check of integrality: a polynomial in integer symbols is integer-valued
when it is on a box (decided exactly with flint, :func:`_integer_valued`); anything else goes to Z3's
integer arithmetic (:func:`symattn.kernel.second.z3_sign.recheck_sign`), with each divisibility
condition written out first.

Above both the rational forms of :mod:`.atoms` and the Z3 translation, which it uses.
"""

from __future__ import annotations

import itertools
from typing import Any

import sympy as sp

from symattn.kernel.second import AGREE, Check, z3_sign
from symattn.kernel.second.atoms import Inexpressible as NoForm
from symattn.kernel.second.atoms import RationalForm
from symattn.kernel.second.z3_sign import _short

__all__ = ["recheck_integer"]


def recheck_integer(expr: Any, *, integers=(), ranges=(), negate: bool = False, conditions=(),
                    kernel: str = "") -> Check:
    """Re-check that ``expr`` is (``negate``: is not) an integer; ``integers`` are symbols known to be
    integers (indices of ``IndexRange`` hypotheses), treated as such."""
    mapping = {s: sp.Dummy(s.name, integer=True) for s in integers
               if isinstance(s, sp.Symbol) and not s.is_integer}
    e = sp.sympify(expr, strict=True).xreplace(mapping) if mapping else sp.sympify(expr, strict=True)
    rng = tuple((mapping.get(v, v), lo, hi) for (v, lo, hi) in ranges)
    conds = tuple(c.xreplace(mapping) if mapping else c for c in conditions)
    # an equation ``T = N/B`` with ``T`` an integer symbol: the quotient is written ``T`` (Z3's nonlinear
    # integer arithmetic would rarely decide it)
    names = {c.rhs: c.lhs for c in conds if isinstance(c, sp.Eq) and isinstance(c.lhs, sp.Symbol) and c.lhs.is_integer
             and not c.rhs.is_number}
    names.update({c.lhs: c.rhs for c in conds if isinstance(c, sp.Eq) and isinstance(c.rhs, sp.Symbol)
                  and c.rhs.is_integer and not c.lhs.is_number})
    if names:
        e = e.xreplace(names)
    e, rng, conds = _divisibility_written_out(e, rng, conds)
    kernel = kernel or f"the kernel shows it {'not ' if negate else ''}an integer"
    if not negate:
        check = _integer_valued(e, kernel)
        if check is not None:
            return check
    return z3_sign.recheck_sign(e, "noninteger" if negate else "integer", ranges=rng, conditions=conds, kernel=kernel)


def _divisibility_written_out(e: Any, ranges: tuple, conds: tuple) -> tuple:
    """Each condition ``Mod(a, b) = 0`` (``a`` an integer symbol, ``b`` a nonzero integer) written out:
    ``a = b q`` with a fresh integer ``q`` (positive when ``a`` and ``b`` are), substituted in ``e``, the
    ranges and the remaining conditions. For integers, ``b | a`` iff ``a = b q`` for an integer ``q``,
    so the points satisfying the conditions are exactly the images of the new variables: a fact shown
    for every ``q`` holds wherever the conditions do (Z3's nonlinear integer arithmetic rarely decides
    a ``Mod``; the written-out form is often a polynomial in integer symbols)."""
    conds = list(conds)
    for _ in range(8):
        for n_, c in enumerate(conds):
            if not (isinstance(c, sp.Eq) and c.rhs == 0 and isinstance(c.lhs, sp.Mod)):
                continue
            a, b = c.lhs.args
            if not (isinstance(a, sp.Symbol) and a.is_integer and isinstance(b, sp.Expr) and b.is_integer
                    and b.is_nonzero and a not in b.free_symbols):
                continue
            q = sp.Dummy(f"{a.name}_over", integer=True, positive=True if (a.is_positive and b.is_positive) else None)
            sub = {a: b * q}
            e = e.xreplace(sub)
            ranges = tuple((v, lo.xreplace(sub), hi.xreplace(sub)) for (v, lo, hi) in ranges if v != a)
            rest = [x.xreplace(sub) for m, x in enumerate(conds) if m != n_]
            conds = [x for x in rest if x is not sp.true]
            break
        else:
            break
    return e, ranges, tuple(conds)


_MAX_GRID = 4096


def _integer_valued(e: Any, kernel: str) -> Check | None:
    """A polynomial over Q in integer symbols of total degree ``d`` is integer-valued on all of Z^n
    iff it is on the box ``{0..d}^n`` (its coefficients in the binomial basis are integer combinations
    of those values): decided exactly with flint, or ``None`` (not a polynomial in integer symbols,
    or too many points)."""
    try:
        form = RationalForm(e)
        num, den = form.of(e)
    except (NoForm, RecursionError, TypeError):
        return None
    if not den.is_constant():
        return None
    atoms = form.atoms_of(num)
    if any(a.kind != "symbol" or not a.expr.is_integer for a in atoms):
        return None
    poly = num / den.leading_coefficient()
    d = poly.total_degree() if not poly.is_zero() else 0
    if (d + 1) ** max(len(atoms), 1) > _MAX_GRID:
        return None
    fact = f"{_short(e)} is an integer"
    idx = [a.index for a in atoms]
    for point in itertools.product(range(d + 1), repeat=len(idx)):
        values = [0] * form.nvars
        for i, v in zip(idx, point):
            values[i] = v
        if poly(*values).q != 1:
            return None  # not integer-valued everywhere; the domain may still avoid the point: ask Z3
    return Check("flint", AGREE, f"a polynomial of degree {d} in integer symbols, integer on the box "
                 f"{{0..{d}}}^{len(idx)}: integer-valued", fact, kernel)
