"""Derivatives, and bounds by nonnegative terms: ``differentiate`` and ``nonnegative_terms``.

* ``differentiate``: ``d/dx f = f'`` where ``f'`` is SymPy's exact derivative (sum, product,
  quotient and chain rules; ``d s_i / d s_j = delta_ij`` for indexed symbols; differentiation
  under a finite sum). Every unevaluated ``Derivative`` on the left side is evaluated and the
  result must equal the right side (or the right side's own derivatives, evaluated). The rule is a
  proposer: the kernel's schema ``derivatives`` (:mod:`symattn.kernel.schemas.analysis`) evaluates
  the derivatives, after showing each differentiated expression differentiable (no ``Piecewise``,
  ``floor``, ``Heaviside``, ``sign``, ``Max``/``Min``; ``|g|`` only where ``g != 0``), and the zero test
  compares. The kernel's guards:

  - an unevaluated definition (``Softmax``, ``SoftmaxJacobian``, any class registered with
    :func:`symattn.rules.definitions.define`) must be unfolded by a ``definition`` step first, so
    that the derivative is taken of the formula, not of an opaque name;
  - a result that still contains ``d X / d X[r, c]`` (an :class:`~sympy.IndexedBase` hidden
    inside an opaque function, which SymPy cannot look into) is rejected. Abstract maps whose
    derivative is meant to stay symbolic (an unknown sublayer ``F``) keep an unevaluated
    ``Derivative(F(...), x)``, which is exactly the partial derivative they denote.

* ``nonnegative_terms``: ``lhs <= rhs`` because ``rhs - lhs`` (or a ``witness`` shown equal to it)
  is nonnegative by the kernel's extended sign test (schema ``gap_sign``;
  :func:`symattn.kernel.calculus.sign`): a finite sum ``sum_{k=lo}^{hi} f(k)`` counts when its range
  is not reversed (``hi >= lo - 1``, also via :class:`~symattn.language.statement.IndexRange` hypotheses on the
  bounds' symbols) and its summand is nonnegative on the range, a Kronecker delta in the summand
  checked at 0 and at 1.

>>> import sympy as sp
>>> from symattn.rules import ProofContext, check_step
>>> x = sp.Symbol("x", real=True)
>>> check_step(sp.Derivative(sp.exp(2 * x), x), 2 * sp.exp(2 * x), "=", "differentiate", {}, ProofContext()).ok
True
>>> check_step(sp.Derivative(sp.Abs(x), x), sp.sign(x), "=", "differentiate", {}, ProofContext()).ok
False
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.terms import KernelError
from symattn.kernel.thm import by_zero, sym, trans
from symattn.rules import RuleError, failed, proved, rule

__all__ = []


def _show(x: Any) -> str:
    s = sp.sstr(x)
    return s if len(s) <= 300 else s[:300] + " ..."


def _has_derivative(expr: Any) -> bool:
    if isinstance(expr, sp.MatrixBase):
        return any(_has_derivative(e) for e in expr)
    return isinstance(expr, sp.Basic) and bool(expr.atoms(sp.Derivative))


@rule(
    "differentiate",
    "evaluate the derivatives on the left with SymPy's exact rules (product, quotient, chain, d s_i/d s_j = delta_ij)",
)
def check_differentiate(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("differentiate justifies equalities only")
    if not _has_derivative(lhs):
        return failed("no derivative on the left side to evaluate")
    left = axiom("derivatives", expr=lhs)
    try:
        return proved(trans(left, by_zero(left.rhs, rhs)), "derivatives evaluated exactly")
    except KernelError as exc:
        first = exc
    if _has_derivative(rhs):
        right = axiom("derivatives", expr=rhs)
        try:
            return proved(trans(left, by_zero(left.rhs, right.rhs), sym(right)),
                          "both sides have the same derivatives, evaluated exactly")
        except KernelError:
            pass
    return failed(f"the derivative is {_show(left.rhs)}, not the right side ({first})")


@rule(
    "nonnegative_terms",
    "rhs - lhs (or a witness equal to it) is a sum of nonnegative terms; finite sums count when their range "
    "is not reversed and every summand is nonnegative (Kronecker deltas checked at 0 and 1)",
    params=("witness",),
)
def check_nonnegative_terms(lhs, rhs, relation, ctx, witness=None):
    if relation not in ("<=", ">="):
        raise RuleError(f"nonnegative_terms justifies <= and >= steps, not {relation!r}")
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        raise RuleError("nonnegative_terms compares scalars, not matrices")
    try:
        return proved(axiom("gap_sign", lhs=lhs, rhs=rhs, relation=relation, witness=witness),
                      "the gap is a sum of nonnegative terms")
    except KernelError as exc:
        return failed(f"cannot show the gap is nonnegative: {exc}")
