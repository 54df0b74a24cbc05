"""Derivatives, and bounds by nonnegative terms: ``differentiate`` and ``nonnegative_terms``.

* ``differentiate``: ``d/dx f = f'`` where ``f'`` is SymPy's exact derivative (sum, product,
  quotient and chain rules; ``d s_i / d s_j = delta_ij`` for indexed symbols; differentiation
  under a finite sum). Every unevaluated ``Derivative`` on the left side is evaluated and the
  result must equal the right side (or the right side's own derivatives, evaluated). Two guards
  keep the rule sound:

  - an unevaluated definition (``Softmax``, ``SoftmaxJacobian``, any class registered with
    :func:`symattn.rules.definitions.define`) must be unfolded by a ``definition`` step first, so
    that the derivative is taken of the formula, not of an opaque name;
  - a result that still contains ``d X / d X[r, c]`` (an :class:`~sympy.IndexedBase` hidden
    inside an opaque function, which SymPy cannot look into) is rejected. Abstract maps whose
    derivative is meant to stay symbolic (an unknown sublayer ``F``) keep an unevaluated
    ``Derivative(F(...), x)``, which is exactly the partial derivative they denote.

* ``nonnegative_terms``: ``lhs <= rhs`` because ``rhs - lhs`` (or a ``witness`` shown equal to it)
  is a sum of terms each of which is nonnegative. A term is nonnegative when SymPy's assumptions
  say so, when it is a product of nonnegative factors, or when it is a finite sum
  ``sum_{k=lo}^{hi} f(k)`` whose range is not reversed (``hi >= lo - 1``, also via
  :class:`~symattn.statement.IndexRange` hypotheses on the bounds' symbols) and whose summand is
  nonnegative for every index value. A Kronecker delta takes only the values 0 and 1, so a summand
  containing deltas is checked with every delta set to 0 and to 1. SymPy's own ``Sum.is_nonnegative``
  answers ``None`` as soon as a range might be empty (``sum_{k=1}^{m-1}``), which is why this rule
  exists.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> evaluate_derivatives(sp.Derivative(sp.exp(2 * x), x))
2*exp(2*x)
"""

from __future__ import annotations

import itertools
from typing import Any

import sympy as sp

from symattn.kernel.zero import zero_test
from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal, sign_of
from symattn.statement import IndexRange

__all__ = ["evaluate_derivatives", "is_nonnegative_term", "range_not_reversed"]


# ------------------------------------------------------------------------------ differentiate


def _definition_classes() -> tuple:
    from symattn.rules.definitions import DEFINITIONS

    return tuple(d.cls for d in DEFINITIONS.values())


def _evaluate_one(d: sp.Derivative) -> sp.Expr:
    opaque = _definition_classes()
    if opaque:
        hidden = [type(e).__name__ for e in sp.preorder_traversal(d.expr) if isinstance(e, opaque)]
        if hidden:
            raise RuleError(
                f"unfold the definition of {sorted(set(hidden))} (a 'definition' step) before differentiating"
            )
    out = d.doit(deep=False)
    for e in sp.preorder_traversal(out):
        if isinstance(e, sp.Derivative) and isinstance(e.expr, (sp.Symbol, sp.IndexedBase)) and e.expr not in (
            v for v, _ in e.variable_count
        ):
            raise RuleError(
                f"the expression depends on {e.expr} through an opaque function (SymPy gives {sp.sstr(e)}); "
                "write its entries explicitly"
            )
    return out


def evaluate_derivatives(expr: Any) -> Any:
    """Every unevaluated :class:`~sympy.Derivative` in ``expr`` replaced by SymPy's exact
    derivative (innermost first). Raises :class:`~symattn.rules.RuleError` for an unfolded
    definition or an opaque dependency (see the module docstring)."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(evaluate_derivatives)
    if not isinstance(expr, sp.Basic):
        return expr
    return expr.replace(lambda e: isinstance(e, sp.Derivative), _evaluate_one)


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
    evaluated = evaluate_derivatives(lhs)
    test = zero_test(evaluated, rhs, ctx.hypotheses)
    if test.ok:
        return passed("derivatives evaluated exactly")
    if test.reduced:
        return failed(f"the derivative is {sp.sstr(evaluated)}; {test.explain()}")
    if _has_derivative(rhs):
        other = evaluate_derivatives(rhs)
        if equal(evaluated, other):
            return passed("both sides have the same derivatives, evaluated exactly")
    return failed(f"the derivative is {sp.sstr(evaluated)}, not the right side")


# -------------------------------------------------------------------------- nonnegative_terms


def _linear_lower_bound(expr: sp.Expr, hypotheses) -> list:
    """Lower bounds of ``expr`` obtained by moving one symbol to an end of its IndexRange (valid
    when ``expr`` is linear in that symbol: the minimum over an interval is at an end)."""
    out = []
    for h in hypotheses:
        if not isinstance(h, IndexRange) or not isinstance(h.index, sp.Symbol) or h.index not in expr.free_symbols:
            continue
        poly = sp.Poly(expr, h.index) if expr.is_polynomial(h.index) else None
        if poly is None or poly.degree() != 1:
            continue
        coeff = poly.coeffs()[0]
        sign = sign_of(coeff)
        if sign in ("positive", "nonnegative"):
            out.append(expr.xreplace({h.index: h.lower}))
        elif sign_of(-coeff) in ("positive", "nonnegative"):
            out.append(expr.xreplace({h.index: h.upper}))
    return out


def range_not_reversed(lo: Any, hi: Any, hypotheses=()) -> bool:
    """Whether ``hi >= lo - 1`` is provable (the range ``lo..hi`` is a genuine, possibly empty,
    range), from the symbols' assumptions or from IndexRange hypotheses."""
    length = sp.expand(hi - lo + 1)
    if sign_of(length) in ("positive", "nonnegative") or length == 0:
        return True
    return any(b == 0 or sign_of(b) in ("positive", "nonnegative") for b in _linear_lower_bound(length, hypotheses))


def _delta_cases(expr: sp.Expr):
    deltas = sorted(expr.atoms(sp.KroneckerDelta), key=sp.default_sort_key)
    if len(deltas) > 4:
        raise RuleError("more than 4 Kronecker deltas in one summand; split the step")
    for values in itertools.product((0, 1), repeat=len(deltas)):
        yield expr.xreplace(dict(zip(deltas, values)))


def _fresh_bound_variables(s: sp.Sum) -> sp.Expr:
    """The summand with each index replaced by a fresh integer symbol whose assumptions come from
    the range only (the index's own assumptions may claim more than the range gives)."""
    body = s.function
    for var, lo, _hi in s.limits:
        if sign_of(lo - 1) in ("positive", "nonnegative") or lo - 1 == 0:
            fresh = sp.Dummy(str(var), integer=True, positive=True)
        elif sign_of(lo) in ("positive", "nonnegative") or lo == 0:
            fresh = sp.Dummy(str(var), integer=True, nonnegative=True)
        else:
            fresh = sp.Dummy(str(var), integer=True)
        body = body.xreplace({var: fresh})
    return body


def is_nonnegative_term(term: Any, hypotheses=()) -> bool:
    """Whether ``term`` is provably nonnegative (see the module docstring for what counts)."""
    term = sp.sympify(term, strict=True) if isinstance(term, (int, float)) else term
    if term.is_number:
        return bool(term.is_nonnegative)
    # SymPy reads a Sum's sign from its summand under the index's *own* assumptions, which may
    # claim more than the range gives (a positive j summed from 0); sums are handled below instead.
    if not term.atoms(sp.Sum) and sign_of(term) in ("positive", "nonnegative"):
        return True
    if isinstance(term, sp.Mul):
        return all(is_nonnegative_term(f, hypotheses) for f in term.args)
    if isinstance(term, sp.Pow) and term.exp.is_Integer and term.exp.is_even and term.base.is_extended_real:
        return True
    if isinstance(term, sp.Pow) and term.exp.is_Integer and term.exp > 0:
        return is_nonnegative_term(term.base, hypotheses)
    if isinstance(term, sp.Add):
        return all(is_nonnegative_term(t, hypotheses) for t in term.args)
    if isinstance(term, sp.Sum):
        for lim in term.limits:
            if len(lim) != 3 or not range_not_reversed(lim[1], lim[2], hypotheses):
                return False
        body = _fresh_bound_variables(term)
        if body.atoms(sp.KroneckerDelta):
            return all(is_nonnegative_term(case, hypotheses) for case in _delta_cases(body))
        return is_nonnegative_term(body, hypotheses)
    return False


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
    gap = rhs - lhs if relation == "<=" else lhs - rhs
    if witness is not None:
        from symattn.rules.sums import linear_normal_form

        if not (equal(witness, gap) or equal(linear_normal_form(witness), linear_normal_form(gap))):
            return failed(f"the witness {sp.sstr(witness)} is not equal to the gap {sp.sstr(gap)}")
        gap = witness
    bad = [t for t in sp.Add.make_args(gap) if not is_nonnegative_term(t, ctx.hypotheses)]
    if bad:
        return failed(f"cannot show these terms of the gap are nonnegative: {', '.join(sp.sstr(t) for t in bad)}")
    return passed(f"the gap {sp.sstr(gap)} is a sum of nonnegative terms")
