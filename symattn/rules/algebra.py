"""Exact algebra: ``algebra`` (lhs - rhs reduces to 0) and ``inequality`` (rhs - lhs has a sign).

``algebra`` asks the kernel's zero test (:mod:`symattn.kernel.zero`; ``equal``, ``is_zero`` and
``residual`` are re-exported here, with the sign test ``sign_of`` from :mod:`symattn.kernel.sign`):
exact SymPy transformations must send ``lhs - rhs`` to ``0`` (never numeric evaluation), and every
definedness condition (a denominator, a log argument) of one side that the other side does not
share must be shown nonzero, or the step fails naming the condition.

``inequality`` checks ``lhs <= rhs`` (or ``<``) by SymPy's assumption system on ``rhs - lhs``,
optionally through a ``witness``: an expression the author claims equals ``rhs - lhs`` and whose
sign SymPy can read off (a sum of squares times positive factors, say). The witness is itself
checked with ``algebra``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.sign import sign_of
from symattn.kernel.thm import by_sign, by_zero
from symattn.kernel.zero import equal, is_zero, opaque_note, opaque_sums, residual, zero_test
from symattn.rules import RuleError, failed, proved, rule

__all__ = ["is_zero", "equal", "residual", "sign_of"]


def _is_matrix(x: Any) -> bool:
    return isinstance(x, (sp.MatrixBase, MatrixExpr))


def _show(x: Any, limit: int = 300) -> str:
    try:  # terms unordered: ordering a sum evaluates a closed integral numerically (and may raise)
        s = sp.sstr(x, order="none")
    except Exception:  # noqa: BLE001 - a display helper must not fail
        s = sp.srepr(x)
    return s if len(s) <= limit else s[:limit] + " ..."


@rule("algebra", "exact SymPy simplification reduces lhs - rhs to 0 (no numeric fallback)")
def check_algebra(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError(f"algebra justifies equalities only; this step is {relation!r} (use 'inequality')")
    test = zero_test(lhs, rhs, ctx.hypotheses)
    if test.ok:
        return proved(by_zero(lhs, rhs), "lhs - rhs simplifies to 0")
    if test.reduced:
        return failed(test.explain())
    rest = residual(lhs, rhs)
    note = opaque_note(rest)
    if note:
        return failed(f"lhs - rhs does not reduce to 0: {note}; residual: {_show(rest)}")
    return failed(f"lhs - rhs does not reduce to 0; residual: {_show(opaque_sums(rest))}")


@rule(
    "inequality",
    "rhs - lhs is nonnegative (positive for strict steps) by SymPy's assumptions, optionally via a checked witness",
    params=("witness",),
)
def check_inequality(lhs, rhs, relation, ctx, witness=None):
    if relation not in ("<=", "<", ">=", ">"):
        raise RuleError(f"inequality justifies <=, <, >=, > steps, not {relation!r}")
    if _is_matrix(lhs) or _is_matrix(rhs):
        raise RuleError("inequality compares scalars, not matrices")
    gap = rhs - lhs if relation in ("<=", "<") else lhs - rhs
    if witness is not None and not equal(witness, gap):
        return failed(f"witness {_show(witness)} is not equal to the gap {_show(gap)}")
    try:
        return proved(by_sign(lhs, rhs, relation, witness=witness), f"the gap {_show(witness or gap)} has the sign")
    except RuleError:
        want = "positive" if relation in ("<", ">") else "nonnegative"
        return failed(f"the kernel cannot show the gap {_show(witness if witness is not None else gap)} is {want} "
                      "from the symbols' assumptions and the ranges")
