r"""The hyperbolic tangent and limits: ``tanh_bound``, ``hyperbolic_as_exp``, ``limit_evaluate``.

* ``tanh_bound``  -- :math:`-1 < \tanh x < 1` and :math:`0 \le |\tanh x| < 1` for real ``x``
  (:math:`|\tanh x| = |e^{2x} - 1| / (e^{2x} + 1)` and :math:`|a - 1| < a + 1` for :math:`a > 0`).
  The step ``F(tanh x) REL F(b)`` replaces every occurrence of ``tanh x`` (or of ``|tanh x|``) for one
  ``x`` by the end ``b`` of its range, where ``F`` is *affine* in that occurrence with a slope whose
  sign SymPy knows. Then ``F`` moves monotonically towards ``F(b)``, and strictly, since
  the end is never attained: ``c |tanh(s/c)| < c`` for ``c > 0``.
* ``hyperbolic_as_exp``  -- both sides agree once ``sinh, cosh, tanh, sech`` ... are written with
  exponentials (``tanh x = (e^x - e^{-x}) / (e^x + e^{-x})``).
* ``hyperbolic_witness``  -- ``lhs <= rhs`` through a witness equal to ``rhs - lhs`` once both are
  written with exponentials, whose sign the kernel's sign test reads off, with the theorem's index
  ranges (``sinh c > 0`` for ``c > 0``, where ``e^c - e^{-c}`` has no sign SymPy knows).
* ``limit_evaluate``  -- replace each unevaluated ``Limit`` by SymPy's limit (the Gruntz
  algorithm, exact and symbolic), under the time limit; the step passes when the results agree.
  A limit SymPy cannot evaluate, or evaluates only to an unevaluated ``Limit``, an
  ``AccumBounds``, an ``Order``, ``nan`` or ``zoo``, fails the step; so does a limit of an
  expression holding a sum, integral or derivative (SymPy would evaluate those itself, untrusted).
  The limit variable reaches the rule as the kernel's canonical variable (``Limit`` binds it),
  knowing only the approach: positive towards ``oo``. This rule *trusts* ``sympy.limit``: the
  kernel's docstring lists that trust.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> sp.simplify((1 - sp.tanh(x)**2).rewrite(sp.exp) - 4 / (sp.exp(x) + sp.exp(-x))**2)
0
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal, sign_of

__all__ = ["tanh_occurrences"]


def tanh_occurrences(expr: Any) -> list:
    """The ``tanh(x)`` and ``|tanh(x)|`` subexpressions of ``expr``, outermost form first."""
    if not isinstance(expr, sp.Basic):
        return []
    absolute = [a for a in expr.atoms(sp.Abs) if isinstance(a.args[0], sp.tanh)]
    plain = [t for t in expr.atoms(sp.tanh)]
    return sorted(absolute, key=sp.default_sort_key) + sorted(plain, key=sp.default_sort_key)


@rule(
    "tanh_bound",
    "F(tanh x) < F(b) for b the end (1 or -1; 1 for |tanh x|) that F, affine in tanh x with a slope of known "
    "sign, moves towards; -1 < tanh x < 1 for real x",
)
def check_tanh_bound(lhs, rhs, relation, ctx):
    if relation not in ("<", "<=", ">", ">="):
        raise RuleError(f"tanh_bound justifies inequalities, not {relation!r}")
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        raise RuleError("tanh_bound compares scalars")
    lhs = sp.sympify(lhs, strict=True) if isinstance(lhs, (int, float)) else lhs
    rhs = sp.sympify(rhs, strict=True) if isinstance(rhs, (int, float)) else rhs
    upward = relation in ("<", "<=")
    tried = []
    for occ in tanh_occurrences(lhs):
        arg = occ.args[0].args[0] if isinstance(occ, sp.Abs) else occ.args[0]
        if arg.is_real is not True:
            tried.append(f"{occ}: the argument is not known to be real")
            continue
        tau = sp.Dummy("tau", real=True)
        # every other occurrence of tanh(arg) is part of this one (|tanh| contains tanh)
        F = lhs.xreplace({occ: tau})
        if F.has(sp.tanh(arg)):
            tried.append(f"{occ}: tanh({arg}) also occurs outside it")
            continue
        slope = sp.diff(F, tau)
        if slope.has(tau):
            tried.append(f"{occ}: the left side is not affine in it")
            continue
        s_up, s_down = sign_of(slope), sign_of(-slope)
        ends = [sp.S.One] if isinstance(occ, sp.Abs) else [sp.S.One, sp.S.NegativeOne]
        for b in ends:
            if not equal(F.xreplace({tau: b}), rhs):
                continue
            # moving tau towards b changes F in the direction (b - tau) * slope
            towards_up = (b == 1 and s_up == "positive") or (b == -1 and s_down == "positive")
            towards_down = (b == 1 and s_down == "positive") or (b == -1 and s_up == "positive")
            if (upward and towards_up) or (not upward and towards_down):
                return passed(f"{occ} lies strictly inside its range and F is strictly monotone in it; the end is {b}")
            tried.append(f"{occ} -> {b}: the slope {sp.sstr(slope)} does not have the sign this direction needs")
    if not tried:
        return failed("no tanh(x) on the left side whose replacement by an end of its range gives the right side")
    return failed("; ".join(tried))


_HYPERBOLIC = (sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch)


@rule("hyperbolic_as_exp", "the sides agree once sinh, cosh, tanh, ... are written with exponentials")
def check_hyperbolic_as_exp(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("hyperbolic_as_exp justifies equalities only")
    sides = [sp.sympify(x, strict=True) if isinstance(x, (int, float)) else x for x in (lhs, rhs)]
    if not any(isinstance(x, sp.Basic) and x.has(*_HYPERBOLIC) for x in sides):
        return failed("no hyperbolic function on either side")
    a, b = (x.rewrite(sp.exp) if isinstance(x, sp.Basic) else x for x in sides)
    if equal(a, b):
        return passed("equal once written with exponentials")
    return failed("the sides differ when written with exponentials")


#: what a limit may not contain: SymPy's own summation/integration would run inside ``limit``
#: (not trusted, see :mod:`symattn.kernel`), and a nested unevaluated limit
_NOT_INSIDE_A_LIMIT = (sp.Sum, sp.Product, sp.Integral, sp.Limit, sp.Derivative, sp.Subs)
#: results that are not the value of a limit
_NOT_A_VALUE = (sp.Limit, sp.AccumBounds, sp.Order, sp.Subs)


def _one_limit(e: sp.Limit) -> Any:
    """``sp.limit`` on one ``Limit`` (its arguments as they are: no ``doit`` of what is inside),
    under its own time limit, refusing anything that is not a value."""
    from symattn.timelimit import DEFAULT_SECONDS, time_limit

    body, z, z0, direction = e.args
    if body.has(*_NOT_INSIDE_A_LIMIT) or z0.has(*_NOT_INSIDE_A_LIMIT):
        raise RuleError(f"limit_evaluate takes limits of closed-form expressions; {sp.sstr(e)} holds a sum, "
                        "integral, derivative or limit (evaluate or remove it first)")
    try:
        with time_limit(DEFAULT_SECONDS):  # nested in the step's limit: never extends it
            out = sp.limit(body, z, z0, str(direction))
    except (NotImplementedError, ValueError, TypeError, ZeroDivisionError, RecursionError) as exc:
        raise RuleError(f"SymPy could not evaluate {sp.sstr(e)}: {type(exc).__name__}: {exc}") from None
    if not isinstance(out, sp.Basic) or out.has(*_NOT_A_VALUE) or out.has(sp.nan, sp.zoo):
        raise RuleError(f"SymPy evaluates {sp.sstr(e)} only to {sp.sstr(out)}, not to a value")
    if z in _free_symbols_of(out):
        raise RuleError(f"SymPy's value {sp.sstr(out)} for {sp.sstr(e)} still holds the limit variable")
    return out


def _free_symbols_of(x):
    from symattn.kernel.terms import free_symbols

    return free_symbols(x)


@rule("limit_evaluate", "evaluate each Limit with SymPy's exact limit algorithm (Gruntz); the results agree")
def check_limit_evaluate(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("limit_evaluate justifies equalities only")
    sides = [sp.sympify(x, strict=True) if isinstance(x, (int, float)) else x for x in (lhs, rhs)]
    if not any(isinstance(x, sp.Basic) and x.has(sp.Limit) for x in sides):
        return failed("no limit on either side")

    def evaluate(x):
        if not isinstance(x, sp.Basic):
            return x
        return x.replace(lambda e: isinstance(e, sp.Limit), _one_limit)

    a, b = (evaluate(x) for x in sides)
    if equal(a, b):
        return passed("the limits evaluate to the same value")
    return failed(f"the limits evaluate to {sp.sstr(a)} and {sp.sstr(b)}")


@rule("hyperbolic_witness", "rhs - lhs equals a witness (compared with exponentials) whose sign the kernel's "
      "sign test shows (the symbols' assumptions and the IndexRange hypotheses)",
      params=("witness",))
def check_hyperbolic_witness(lhs, rhs, relation, ctx, witness=None):
    if relation not in ("<=", "<", ">=", ">"):
        raise RuleError(f"hyperbolic_witness justifies inequalities, not {relation!r}")
    if witness is None:
        raise RuleError("hyperbolic_witness needs witness=<an expression equal to the gap>")
    gap = rhs - lhs if relation in ("<=", "<") else lhs - rhs
    if not equal(sp.sympify(witness).rewrite(sp.exp), gap.rewrite(sp.exp)):
        return failed("the witness is not equal to the gap, even written with exponentials")
    from symattn.kernel.zero import index_ranges

    sign = sign_of(witness, index_ranges(ctx.hypotheses))
    strict = relation in ("<", ">")
    if sign == "positive" or (sign == "nonnegative" and not strict):
        return passed(f"the gap equals {sp.sstr(witness)[:120]}, which is {sign}")
    return failed(f"SymPy cannot sign the witness {sp.sstr(witness)[:120]}")
