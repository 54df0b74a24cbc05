"""The second engine's zero test: ``p/q == 0`` over Q with python-flint, no SymPy simplifier.

:func:`recheck_zero` puts ``expr`` in canonical form (the term layer: bound variables renamed),
translates it by :mod:`.atoms` into ``num/den`` over Q in the atoms, and reduces ``num`` by the
relations of root atoms (``R**q = base``). Then

* ``num == 0``: the engines ``agree`` (``expr`` is 0 wherever it is defined);
* ``num != 0`` and every atom in it is independent (symbols, indexed and matrix entries, ``pi``,
  undefined functions of those): ``expr`` is a nonzero rational function of free variables, so it
  is not identically 0 -- ``disagree``;
* otherwise (an ``exp``, ``log``, a sum, ... among the atoms, which may satisfy relations flint
  does not know), or when ``expr`` has no rational form (a float, a matrix expression): the fact
  is ``inexpressible`` -- checked by one engine.
"""

from __future__ import annotations

import functools
from typing import Any

import sympy as sp

from symattn.kernel.second import AGREE, DISAGREE, INEXPRESSIBLE, Check
from symattn.kernel.second.atoms import Inexpressible, RationalForm

__all__ = ["recheck_zero", "zero_form"]

_ENGINE = "flint"
_KERNEL = "SymPy reduces it to 0"


def _short(x: Any, limit: int = 120) -> str:
    s = " ".join(sp.sstr(x).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def zero_form(expr: Any, permutations: tuple = ()) -> tuple[RationalForm, tuple]:
    """The translator and ``(num, den)`` of ``expr`` (canonical form first)."""
    from symattn.kernel.terms import canonical

    e = canonical(expr)
    form = RationalForm(e, permutations=permutations)
    num, den = form.of(e)
    return form, (form.reduce(num), den)


def permutations_of(hypotheses) -> tuple:
    """``(name, n)`` for each hypothesis that the function ``name`` is a permutation of ``1..n``."""
    out = []
    for h in hypotheses or ():
        if type(h).__name__ == "Permutation" and isinstance(getattr(h, "sigma", None), str) \
                and isinstance(getattr(h, "n", None), sp.Basic):
            out.append((h.sigma, h.n))
    return tuple(out)


def recheck_zero(expr: Any, *, hypotheses=None, kernel: str = _KERNEL, permutations: tuple | None = None) -> Check:
    """Re-check the kernel's claim ``expr == 0``. Of the hypotheses (``hypotheses``, else the step's,
    :data:`symattn.kernel.context.HYPOTHESES`) only the permutations are read (a sum over ``1..n`` of
    ``f(sigma(k))`` is the sum of ``f(k)``): the zero test is an identity of rational functions; the
    definedness conditions go to the sign test."""
    if permutations is None:
        if hypotheses is None:
            from symattn.kernel.context import HYPOTHESES

            hypotheses = HYPOTHESES.get()
        permutations = permutations_of(hypotheses)
    if isinstance(expr, sp.ZeroMatrix) or (isinstance(expr, sp.MatrixExpr) and expr.is_ZeroMatrix):
        return Check(_ENGINE, AGREE, "the zero matrix", f"{_short(expr)} == 0", kernel)
    if isinstance(expr, sp.MatrixExpr) and not isinstance(expr, sp.MatrixBase):
        try:
            rows, cols = (int(d) for d in expr.shape)
        except TypeError:
            return _noncommutative(expr, kernel)
        if rows * cols > 400:
            return Check(_ENGINE, INEXPRESSIBLE, "a matrix expression too large to expand", f"{_short(expr)} == 0",
                         kernel)
        expr = sp.ImmutableMatrix(rows, cols, lambda i, j: expr[i, j])
    if isinstance(expr, sp.MatrixBase):
        checks = [recheck_zero(x, kernel=kernel, permutations=permutations) for x in expr]
        for verdict in (DISAGREE, INEXPRESSIBLE):
            bad = [c for c in checks if c.verdict == verdict]
            if bad:
                return Check(_ENGINE, verdict, f"entry: {bad[0].reason}", f"{_short(expr)} == 0", kernel)
        return Check(_ENGINE, AGREE, f"each of the {len(checks)} entries reduces to 0 over Q",
                     f"{_short(expr)} == 0", kernel)
    try:
        return _recheck_scalar(expr, kernel, permutations)
    except TypeError:  # unhashable
        return _uncached(expr, kernel, permutations)


@functools.lru_cache(maxsize=8192)
def _recheck_scalar(expr: Any, kernel: str, permutations: tuple = ()) -> Check:
    return _uncached(expr, kernel, permutations)


def _uncached(expr: Any, kernel: str, permutations: tuple = ()) -> Check:
    fact = f"{_short(expr)} == 0"
    if not isinstance(expr, (sp.Expr, int)) or getattr(expr, "is_Matrix", False):
        return Check(_ENGINE, INEXPRESSIBLE, f"not a scalar expression ({type(expr).__name__})", fact, kernel)
    try:
        form, (num, den) = zero_form(sp.sympify(expr), permutations)
    except Inexpressible as exc:
        return Check(_ENGINE, INEXPRESSIBLE, f"no rational form over Q: {exc}", fact, kernel)
    except RecursionError:
        return Check(_ENGINE, INEXPRESSIBLE, "expression too deep", fact, kernel)
    except (IndexError, ValueError) as exc:  # e.g. a matrix entry q[2k, 0] at k = -1 while anchoring a sum
        return Check(_ENGINE, INEXPRESSIBLE, f"no rational form over Q: {type(exc).__name__}: {exc}", fact, kernel)
    n_atoms = len(form.by_index)
    if num.is_zero():
        return Check(_ENGINE, AGREE, f"the numerator over Q in {n_atoms} atoms is 0", fact, kernel)
    shown = _short(form.to_sympy((num, form.one)), 100)
    if form.all_independent(num):
        return Check(_ENGINE, DISAGREE, f"the numerator over Q is the nonzero polynomial {shown} "
                     "in free variables", fact, kernel)
    kinds = sorted({a.kind for a in form.atoms_of(num) if not a.independent})
    return Check(_ENGINE, INEXPRESSIBLE, f"the numerator over Q is {shown}, not 0, but its atoms "
                 f"({', '.join(kinds)}) may be related: not decided", fact, kernel)


def _noncommutative(expr: Any, kernel: str) -> Check:
    """A matrix expression of symbolic shape, as a noncommutative polynomial (:mod:`.matrices`)."""
    from symattn.kernel.second.matrices import NCForm

    fact = f"{_short(expr)} == 0"
    try:
        nc = NCForm(expr)
        if nc.is_zero(expr):
            return Check(_ENGINE, AGREE, f"the noncommutative normal form in {len(nc.reps)} matrix letters is 0",
                         fact, kernel)
    except Inexpressible as exc:
        return Check(_ENGINE, INEXPRESSIBLE, f"a matrix expression of symbolic shape: {exc}", fact, kernel)
    except RecursionError:
        return Check(_ENGINE, INEXPRESSIBLE, "expression too deep", fact, kernel)
    return Check(_ENGINE, INEXPRESSIBLE, "a matrix expression of symbolic shape whose noncommutative normal form is "
                 "not 0 (its letters may be related): not decided", fact, kernel)
