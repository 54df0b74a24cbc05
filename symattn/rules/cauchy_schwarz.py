"""The Cauchy--Schwarz inequality for finite sums: ``cauchy_schwarz``.

.. math:: \\Big(\\sum_{k=a}^{b} x_k y_k\\Big)^2 \\le \\Big(\\sum_{k=a}^{b} x_k^2\\Big)\\Big(\\sum_{k=a}^{b} y_k^2\\Big)
   \\qquad (x_k, y_k \\text{ real}).

The step ``lhs <= rhs`` is accepted when

* ``lhs`` is ``(sum_{k=a}^{b} f(k))**2`` and ``rhs`` is the product of exactly two sums
  ``sum_{p=a}^{b} x(p)**2`` and ``sum_{q=a}^{b} y(q)**2`` over the *same* range (the names of the
  indices may differ), with ``f(k) = x(k) y(k)`` exactly (``algebra``) and ``x``, ``y`` real
  (SymPy's assumptions, after unfolding registered definitions such as ``SoftmaxJacobian``);
* the range is provably well formed, ``b >= a - 1`` (from the symbols' assumptions or an
  :class:`~symattn.language.statement.IndexRange` hypothesis), so the sums are ordinary finite sums;
* or both sides are sums over the same well-formed range ``sum_i L(i) <= sum_i R(i)`` whose
  summands are such an instance for every ``i`` (a termwise inequality summed up).

The rule is a proposer: it reads ``x`` and ``y`` off the right side and asks the kernel for the
instance of its schema ``cauchy_schwarz`` (:mod:`symattn.kernel.schemas.analysis`; realness and the
range shown there), joined to the step by the zero test; the termwise form goes through the schema
``sum_termwise`` with a fresh index in the range.

Nothing else: no strict inequality (equality holds when ``x`` and ``y`` are proportional), no
``>=`` written the wrong way round, no dropped square, no mismatched ranges.

References: Hardy, Littlewood, Polya, *Inequalities* (2nd ed., 1952), Theorem 7.

>>> import sympy as sp
>>> from symattn.rules import ProofContext, check_step
>>> k = sp.Symbol("k", integer=True); n = sp.Symbol("n", integer=True, positive=True)
>>> x, y = sp.IndexedBase("x", real=True), sp.IndexedBase("y", real=True)
>>> lhs = sp.Sum(x[k] * y[k], (k, 1, n)) ** 2
>>> rhs = sp.Sum(x[k] ** 2, (k, 1, n)) * sp.Sum(y[k] ** 2, (k, 1, n))
>>> check_step(lhs, rhs, "<=", "cauchy_schwarz", {}, ProofContext()).ok
True
>>> check_step(rhs, lhs, "<=", "cauchy_schwarz", {}, ProofContext()).ok   # the wrong way round
False
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.calculus import fresh_index, within_range
from symattn.kernel.terms import KernelError, alpha_equal, open_binder
from symattn.kernel.thm import by_zero, trans
from symattn.rules import RuleError, proved, rule

__all__ = ["cauchy_schwarz_instance"]


def _single_range(s: sp.Sum, what: str) -> tuple:
    if not isinstance(s, sp.Sum) or len(s.limits) != 1 or len(s.limits[0]) != 3:
        raise RuleError(f"{what} must be a single-index sum with both bounds, got {sp.sstr(s)}")
    return tuple(s.limits[0])


def _square_base(term: Any) -> Any:
    """``x`` when ``term`` is ``x**2``; otherwise an error (a dropped square is not Cauchy-Schwarz)."""
    if isinstance(term, sp.Pow) and term.exp == 2:
        return term.base
    raise RuleError(f"each factor on the right must be a sum of squares x_k**2; got summand {sp.sstr(term)}")


def _joined(lhs, thm, rhs):
    """``lhs <= rhs`` from the kernel's ``thm`` and the zero test at both ends."""
    parts = [] if alpha_equal(lhs, thm.lhs) else [by_zero(lhs, thm.lhs)]
    parts.append(thm)
    if not alpha_equal(thm.rhs, rhs):
        parts.append(by_zero(thm.rhs, rhs))
    return trans(*parts)


def cauchy_schwarz_instance(lhs: Any, rhs: Any):
    """The kernel's theorem of ``lhs <= rhs`` as ``(sum_k x_k y_k)^2 <= (sum_k x_k^2)(sum_k y_k^2)``, or
    :class:`RuleError` saying what is not of that form."""
    if not (isinstance(lhs, sp.Pow) and lhs.exp == 2 and isinstance(lhs.base, sp.Sum)):
        raise RuleError(f"the left side must be the square of a sum, got {sp.sstr(lhs)}")
    (_k, lo, hi) = _single_range(lhs.base, "the summed product")
    var = open_binder(lhs.base)[0]
    factors = sp.Mul.make_args(rhs)
    sums = [f for f in factors if isinstance(f, sp.Sum)]
    if len(sums) != 2 or len(factors) != 2:
        raise RuleError(f"the right side must be a product of exactly two sums, got {sp.sstr(rhs)}")
    bases = []
    for s in sums:
        _single_range(s, "each factor on the right")
        bases.append(_square_base(open_binder(s, var)[3]))
    x, y = bases
    thm = axiom("cauchy_schwarz", lower=lo, upper=hi, var=var, x=x, y=y)
    try:
        return _joined(lhs, thm, rhs)
    except KernelError as exc:
        raise RuleError(f"the step is not the instance {thm!r} ({exc})") from None


@rule(
    "cauchy_schwarz",
    "(sum_k x_k y_k)^2 <= (sum_k x_k^2)(sum_k y_k^2) for real x, y over one well-formed range; also summed "
    "termwise under a common outer sum",
)
def check_cauchy_schwarz(lhs, rhs, relation, ctx):
    if relation == ">=":
        lhs, rhs = rhs, lhs
    elif relation != "<=":
        raise RuleError(f"cauchy_schwarz justifies <= (or >=) steps, not {relation!r}")
    return proved(_termwise(lhs, rhs), "(sum x y)^2 <= (sum x^2)(sum y^2)")


def _termwise(lhs, rhs):
    """sum_i L(i) <= sum_i R(i) from L(i) <= R(i) for a generic i of a well-formed range."""
    if isinstance(lhs, sp.Sum) and isinstance(rhs, sp.Sum):
        (_i, lo, hi) = _single_range(lhs, "the outer sum")
        _single_range(rhs, "the outer sum")
        i = fresh_index(lo, hi, "i")
        left, right = open_binder(lhs, i)[3], open_binder(rhs, i)[3]
        with within_range(i, lo, hi):
            inner = _termwise(left, right)
        thm = axiom("sum_termwise", lower=lo, upper=hi, var=i, bound=inner)
        try:
            return _joined(lhs, thm, rhs)
        except KernelError as exc:
            raise RuleError(f"the outer sums are not the kernel's {thm!r} ({exc})") from None
    return cauchy_schwarz_instance(lhs, rhs)
