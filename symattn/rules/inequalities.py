"""Signs and termwise bounds: ``positivity`` and ``sum_monotone``, with ``MaxOver``/``MinOver``.

``positivity`` (after Mathlib's tactic of the same name) proves ``0 < e`` or ``0 <= e`` (any
step ``a <= b`` whose gap ``b - a`` it can sign). The rule is a proposer: the kernel's schema
``gap_sign`` signs the gap with its extended sign test (:func:`symattn.kernel.calculus.sign`), which
reads, by structural recursion over ``e``:

* the core's sign test first (SymPy's assumptions on the canonical form);
* ``exp(x) > 0`` for real ``x``; products and quotients of positive (nonnegative) factors;
  sums of nonnegative terms, positive if one is positive; ``x**p`` for positive ``x``;
* a finite sum ``sum_{k=a}^{b} f(k)`` is nonnegative when ``f(k) >= 0`` for every ``k`` in
  ``a..b`` and ``b >= a - 1`` (with SymPy's convention an "upside-down" range is a *negative*
  sum, so the range condition is needed), positive when moreover ``f(k) > 0`` and ``b >= a``;
* ``max_{k=a}^{b} f(k) - f(j) >= 0`` and ``f(j) - min_{k=a}^{b} f(k) >= 0`` when ``j`` is known
  to lie in ``a..b`` (an :class:`~symattn.language.statement.IndexRange` hypothesis, or the range of an
  enclosing sum over ``j``) -- the defining property of the maximum and minimum.

``sum_monotone`` proves ``sum_{k=a}^{b} f(k) <= sum_{k=a}^{b} g(k)`` from ``g(k) - f(k) >= 0``
for ``k`` in ``a..b``: the kernel signs the witness ``sum_{k=a}^{b} (g(k) - f(k))`` (shown equal to
the gap by the zero test) with the same procedure, the index placed in its range, for a range with
``b >= a - 1``; strictly when the range is nonempty and every gap is positive.

:class:`MaxOver` and :class:`MinOver` are the maximum and minimum of ``f(k)`` over an integer
range ``a..b`` with symbolic bounds (SymPy's ``Max`` needs its arguments listed). They stay
unevaluated; ``doit()`` lists the arguments when the bounds are numbers.

:class:`MaxOver` and :class:`MinOver` live in :mod:`symattn.maths.extrema` (term constructors, re-exported here).

>>> import sympy as sp
>>> k = sp.Symbol("k", integer=True); v = sp.IndexedBase("v", real=True)
>>> MaxOver(v[k], (k, 1, 3)).doit()
Max(v[1], v[2], v[3])
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.terms import KernelError, open_binder
from symattn.maths.extrema import MaxOver, MinOver  # the heads, re-exported for the library
from symattn.rules import RuleError, failed, proved, rule

__all__ = ["MaxOver", "MinOver", "sign", "POSITIVE", "NONNEGATIVE"]

POSITIVE = "positive"
NONNEGATIVE = "nonnegative"




# ----------------------------------------------------------------------------------------- signs
def sign(expr: Any, hyps=()) -> str | None:
    """``'positive'``, ``'nonnegative'`` or ``None`` (unknown): the kernel's extended sign test
    (:func:`symattn.kernel.calculus.sign`) with the index ranges of ``hyps``."""
    from symattn.kernel import calculus
    from symattn.kernel.zero import index_ranges

    expr = sp.sympify(expr, strict=True) if isinstance(expr, (int, float)) else expr
    if not isinstance(expr, sp.Expr):
        return None
    return calculus.sign(expr, index_ranges(hyps))


def _show(x: Any) -> str:
    s = sp.sstr(x)
    return s if len(s) <= 200 else s[:200] + " ..."


@rule("positivity", "the gap between the sides is positive/nonnegative by structural sign rules (exp, sums, max/min)")
def check_positivity(lhs, rhs, relation, ctx):
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        raise RuleError("positivity compares scalars, not matrices")
    if relation not in ("<=", "<", ">=", ">"):
        raise RuleError(f"this rule justifies <=, <, >=, > steps, not {relation!r}")
    try:
        return proved(axiom("gap_sign", lhs=lhs, rhs=rhs, relation=relation), "the gap has the sign")
    except KernelError as exc:
        return failed(f"cannot show the gap: {exc}")


def termwise_witness(small: Any, big: Any) -> Any:
    """``sum_{k=a}^{b} (g(k) - f(k))`` for ``small = sum f`` and ``big = sum g`` over the same range."""
    if not (isinstance(small, sp.Sum) and isinstance(big, sp.Sum)) or len(small.limits) != 1 or len(big.limits) != 1:
        raise RuleError("this rule compares two single-index sums, one on each side")
    var, lo, hi, f = open_binder(small)
    g = open_binder(big, var)[3]
    return sp.Sum(g - f, (var, lo, hi))


@rule(
    "sum_monotone",
    "sum_{k=a}^{b} f <= sum_{k=a}^{b} g when g(k) - f(k) >= 0 for every k in a..b (b >= a - 1)",
)
def check_sum_monotone(lhs, rhs, relation, ctx):
    if relation not in ("<=", "<", ">=", ">"):
        raise RuleError(f"this rule justifies <=, <, >=, > steps, not {relation!r}")
    small, big = (lhs, rhs) if relation in ("<=", "<") else (rhs, lhs)
    witness = termwise_witness(small, big)
    try:
        return proved(axiom("gap_sign", lhs=lhs, rhs=rhs, relation=relation, witness=witness),
                      "every term of the gap has the sign on the range")
    except KernelError as exc:
        return failed(f"cannot show the termwise gap {_show(witness)}: {exc}")
