"""The second engine's re-check of a derivative the kernel took with SymPy's ``diff``.

The kernel differentiates ``f`` in ``v`` with SymPy's calculus once it has read, head by head, that
``f`` is differentiable (:mod:`symattn.kernel.calculus`). The fact re-checked here is the identity
``d^count f / d v^count = out`` (``out`` SymPy's answer): the second engine differentiates ``f`` by
its own rules, over the rational form of :mod:`.atoms` (linearity, the product and quotient rules on
``num/den``; the variable gives 1, another entry of an indexed variable's base the Kronecker deltas of
the indices, ``exp(u)`` gives ``exp(u) u'``, roots, powers, ``log``, ``atan``, ``asinh``, ``erf`` and
finite sums by :meth:`~.atoms.RationalForm._d_rule`; ``sin``, ``tanh``, ... are rational in
``exp``), and flint decides whether its derivative minus ``out`` is 0:

* 0: ``agree``;
* a nonzero rational function of independent atoms (symbols, entries): ``disagree`` -- SymPy's
  derivative is wrong, and the kernel refuses it;
* otherwise (an atom with no rule, e.g. an abstract map applied to a compound argument, whose chain
  rule SymPy writes with ``Subs``; atoms that may be related): ``inexpressible``.

The differentiability reading itself (which heads the variable passes through) is the kernel's term
layer; the sign conditions it asks (a base positive, an argument nonzero) go through the kernel's sign
test, each re-checked by Z3 as usual.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.second import AGREE, DISAGREE, INEXPRESSIBLE, Check
from symattn.kernel.second.atoms import Inexpressible, RationalForm, _count

__all__ = ["recheck_derivative"]

_ENGINE = "flint"
_KERNEL = "SymPy's diff of an expression the core reads as differentiable"


def _short(x: Any, limit: int = 160) -> str:
    s = " ".join(sp.sstr(x).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def recheck_derivative(f: Any, v: Any, out: Any, count: int = 1, where: str = "") -> Check:
    """Re-check the kernel's ``d^count f / d v^count = out`` (``where``: words for the fact)."""
    from symattn.kernel.terms import canonical

    if isinstance(out, int) and not isinstance(out, bool):
        out = sp.Integer(out)
    order = "" if count == 1 else f"^{count}"
    fact = f"d{order}/d{_short(v, 40)}{order} {_short(f)} = {_short(out)}{where}"
    if not isinstance(v, (sp.Symbol, sp.Indexed)):
        return Check(_ENGINE, INEXPRESSIBLE, f"a derivative in {type(v).__name__}, not a symbol or an entry", fact,
                     _KERNEL)
    if not isinstance(f, sp.Expr) or not isinstance(out, sp.Expr) or getattr(f, "is_Matrix", False) \
            or getattr(out, "is_Matrix", False):
        return Check(_ENGINE, INEXPRESSIBLE, "not a scalar expression", fact, _KERNEL)
    try:
        f_c, out_c, v_c = canonical(f), canonical(out), canonical(v)
        nodes = _count(f_c) + _count(out_c)
        form = RationalForm(f_c, out_c, spare=4 * nodes * max(count, 1) + 32)
        mine = form.derivative(f_c, v_c, count)
        theirs = form.of(out_c)
        diff = form.add(mine, form.mul(form.const(sp.Integer(-1)), theirs))
        num = form.reduce(diff[0])
    except Inexpressible as exc:
        return Check(_ENGINE, INEXPRESSIBLE, f"no rational form over Q: {exc}", fact, _KERNEL)
    except RecursionError:
        return Check(_ENGINE, INEXPRESSIBLE, "expression too deep", fact, _KERNEL)
    if num.is_zero():
        return Check(_ENGINE, AGREE, f"the second engine's own derivative equals SymPy's (difference 0 over Q "
                     f"in {len(form.by_index)} atoms)", fact, _KERNEL)
    shown = _short(form.to_sympy((num, form.one)), 100)
    if form.all_independent(num):
        return Check(_ENGINE, DISAGREE, f"the second engine's derivative differs from SymPy's by a nonzero "
                     f"rational function of free variables (numerator {shown})", fact, _KERNEL)
    kinds = sorted({a.kind for a in form.atoms_of(num) if not a.independent})
    return Check(_ENGINE, INEXPRESSIBLE, f"the second engine's derivative minus SymPy's is {shown}, not 0, but "
                 f"its atoms ({', '.join(kinds)}) may be related: not decided", fact, _KERNEL)
