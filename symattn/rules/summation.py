r"""Shifting a summation index, and the triangle inequality: ``sum_shift``, ``triangle_inequality``.

* ``sum_shift``  -- :math:`\sum_{k=a}^{b} f(k) = \sum_{k=a+c}^{b+c} f(k - c)` for any integer ``c``:
  every single-index sum on both sides is rewritten to start at 0,
  :math:`\sum_{k=0}^{b-a} f(k + a)`, and the two sides must then agree by exact algebra (the
  shift is a bijection of the index range, so the value never changes; it holds for SymPy's
  convention for reversed ranges too, which depends only on the length ``b - a``).
* ``triangle_inequality``  -- :math:`|\sum_{k=a}^{b} f(k)| \le \sum_{k=a}^{b} |f(k)|` for
  complex (or real) ``f`` and a range that is not reversed (``b >= a - 1``; with SymPy's
  convention a reversed range gives the *negative* of a sum, for which the bound is false).
  The bound may sit inside a larger expression that is increasing in it: ``c |S| + e <= c T + e``
  for ``c >= 0``; for a real sum, ``S^2 = |S|^2 <= T^2`` as well.
* ``weighted_cauchy_schwarz``  -- :math:`(\sum_k w_k u_k)^2 \le (\sum_k w_k)(\sum_k w_k u_k^2)` for
  weights ``w_k >= 0`` and real ``u_k`` (given as ``weight=``, ``values=``) over a range that is not
  reversed (Cauchy--Schwarz with :math:`\sqrt{w_k}` and :math:`\sqrt{w_k} u_k`).
* ``termwise_bound``  -- two sums over the same range, compared term by term with the sign rules.

Proposers only: the kernel's schemas ``sum_shift``, ``triangle_inequality``, ``monotone``,
``weighted_cauchy_schwarz`` and ``gap_sign`` (:mod:`symattn.kernel.schemas.analysis`) state each
fact and discharge its side conditions; the zero test joins them to the step.

>>> import sympy as sp
>>> k = sp.Symbol("k", integer=True); f = sp.IndexedBase("f")
>>> n = sp.Symbol("n", integer=True, positive=True)
>>> shifted_to_zero(sp.Sum(f[k], (k, 1, n))).rhs
Sum(f[_k0 + 1], (_k0, 0, n - 1))
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.calculus import fresh
from symattn.kernel.terms import KernelError, alpha_equal, open_binder
from symattn.kernel.thm import accept, by_zero, refl, rewrite, sym, trans
from symattn.rules import RuleError, failed, proved, rule

__all__ = ["index_argument", "shifted_to_zero"]


def _show(x: Any) -> str:
    s = sp.sstr(x)
    return s if len(s) <= 200 else s[:200] + " ..."


def _shiftable(e: Any) -> list:
    return sorted((x for x in sp.preorder_traversal(e) if isinstance(x, sp.Sum) and len(x.limits) == 1
                   and len(x.limits[0]) == 3 and x.limits[0][1] != 0), key=sp.default_sort_key)


def shifted_to_zero(expr: Any):
    """The kernel's theorem ``expr = expr with every single-index sum (outside other binders) shifted to
    start at 0``."""
    out = refl(expr)
    if not isinstance(expr, sp.Basic):
        return out
    for _ in range(12):
        todo = []
        for cand in _shiftable(out.rhs):
            try:
                todo.append(axiom("sum_shift", total=cand))
            except KernelError:
                continue
        done = False
        for t in todo:
            try:
                out = trans(out, t if alpha_equal(out.rhs, t.lhs) else rewrite(out.rhs, t))
                done = True
                break
            except KernelError:
                continue
        if not done:
            return out
    return out


@rule("sum_shift", "sum_{k=a}^{b} f(k) = sum_{k=a+c}^{b+c} f(k-c): both sides agree once every sum starts at 0")
def check_sum_shift(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("sum_shift justifies equalities only")
    if not any(isinstance(x, sp.Basic) and x.has(sp.Sum) for x in (lhs, rhs)):
        return failed("no sum on either side")
    a, b = shifted_to_zero(lhs), shifted_to_zero(rhs)
    try:
        return proved(trans(a, by_zero(a.rhs, b.rhs), sym(b)), "equal once every sum is shifted to start at 0")
    except KernelError:
        return failed("the sides differ after shifting every sum to start at 0")


def index_argument(exprs, var, *step) -> tuple:
    """Rule arguments that speak about a summand (``weight=``, ``values=``) name the sum's bound
    index by the user's symbol; the step's sides reach the rule in canonical form, where that index
    is the canonical variable ``var``. Returns ``exprs`` with the user's symbol replaced by ``var``:
    the one symbol free in the arguments and nowhere free in the step (``step``: its sides). An
    argument free of such a symbol does not depend on the index; two candidates are refused."""
    from symattn.kernel.terms import free_symbols, substitute

    in_step = set().union(*(free_symbols(x) for x in step)) if step else set()
    mentioned = set().union(*(free_symbols(x) for x in exprs)) if exprs else set()
    candidates = sorted((x for x in mentioned - in_step if isinstance(x, sp.Symbol)), key=sp.default_sort_key)
    if not candidates:
        return tuple(exprs)
    if len(candidates) > 1:
        raise RuleError(f"the arguments name the summation index ambiguously: {candidates} are all free in the "
                        "arguments and nowhere in the step")
    x = candidates[0]
    if not all(var.assumptions0.get(key) == val for key, val in x.assumptions0.items() if val is not None):
        raise RuleError(f"the arguments' summation index {x} carries assumptions its range does not give")
    return tuple(substitute(e, {x: var}) for e in exprs)


def _joined(small, thm, big, relation):
    """``small REL big`` from the kernel's ``thm`` (``thm.lhs`` ~ small) and the zero test at the ends."""
    parts = [] if alpha_equal(small, thm.lhs) else [by_zero(small, thm.lhs)]
    parts.append(thm)
    if not alpha_equal(thm.rhs, big):
        parts.append(by_zero(thm.rhs, big))
    return trans(*parts)


@rule(
    "triangle_inequality",
    "|sum_k f(k)| <= sum_k |f(k)| over a range that is not reversed, also inside an expression increasing in it",
)
def check_triangle_inequality(lhs, rhs, relation, ctx):
    if relation not in ("<=", ">="):
        raise RuleError(f"triangle_inequality justifies <= (or >=) steps, not {relation!r}")
    small, big = (lhs, rhs) if relation == "<=" else (rhs, lhs)
    if not isinstance(small, sp.Basic):
        return failed("no |sum| on the smaller side")
    reasons = []
    # |S| inside an expression increasing in it
    for a in sorted((a for a in small.atoms(sp.Abs) if isinstance(a.args[0], sp.Sum)), key=sp.default_sort_key):
        try:
            t0 = axiom("triangle_inequality", total=a.args[0])
            t = t0 if alpha_equal(small, a) else axiom("monotone", expr=small, at=a, bound=t0)
            thm = _joined(small, t, big, relation)
        except KernelError as exc:
            reasons.append(str(exc))
            continue
        if accept(thm, small, big, "<="):
            return proved(thm, "|sum| <= sum of absolute values (range not reversed)")
        reasons.append(f"the kernel shows {thm!r}, not the step")
    # a real sum squared is |S|^2, and y -> y^2 increases for y >= 0
    for p in sorted((p for p in small.atoms(sp.Pow) if isinstance(p.base, sp.Sum) and p.exp == 2),
                    key=sp.default_sort_key):
        y = fresh("y")
        try:
            t0 = axiom("triangle_inequality", total=p.base)
            fn = sp.Lambda(y, small.xreplace({p: y**2}))
            thm = _joined(small, axiom("monotone", bound=t0, fn=fn), big, relation)
        except KernelError as exc:
            reasons.append(str(exc))
            continue
        if accept(thm, small, big, "<="):
            return proved(thm, "(sum)^2 = |sum|^2 <= (sum of absolute values)^2")
        reasons.append(f"the kernel shows {thm!r}, not the step")
    if reasons:
        return failed("; ".join(reasons))
    return failed("no |sum_k f| on the smaller side whose replacement by sum_k |f| gives the other side")


@rule(
    "termwise_bound",
    "sum_{k=a}^{b} f(k) <= sum_{k=a}^{b} g(k) when g(k) - f(k) >= 0 for every k in a..b (b >= a - 1), "
    "sign rules of positivity (max/min over a range included)",
)
def check_termwise_bound(lhs, rhs, relation, ctx):
    from symattn.rules.inequalities import termwise_witness

    if relation not in ("<=", ">="):
        raise RuleError(f"termwise_bound justifies <= (or >=) steps, not {relation!r}")
    small, big = (lhs, rhs) if relation == "<=" else (rhs, lhs)
    witness = termwise_witness(small, big)
    try:
        return proved(axiom("gap_sign", lhs=lhs, rhs=rhs, relation=relation, witness=witness),
                      "every term gap is nonnegative on the range")
    except KernelError as exc:
        return failed(f"cannot show the termwise gap {_show(witness)} is nonnegative: {exc}")


@rule(
    "weighted_cauchy_schwarz",
    "(sum_k w_k u_k)^2 <= (sum_k w_k)(sum_k w_k u_k^2) for w_k >= 0, u_k real, over a range not reversed",
    params=("weight", "values"),
)
def check_weighted_cauchy_schwarz(lhs, rhs, relation, ctx, weight=None, values=None):
    if relation != "<=":
        raise RuleError(f"weighted_cauchy_schwarz justifies <= steps, not {relation!r}")
    if weight is None or values is None:
        raise RuleError("weighted_cauchy_schwarz needs weight=<w_k> and values=<u_k>")
    if not (isinstance(lhs, sp.Pow) and lhs.exp == 2 and isinstance(lhs.base, sp.Sum) and len(lhs.base.limits) == 1):
        return failed(f"the left side must be the square of a single-index sum, got {_show(lhs)}")
    k, lo, hi, _body = open_binder(lhs.base)
    weight, values = index_argument((weight, values), k, lhs, rhs)
    thm = axiom("weighted_cauchy_schwarz", lower=lo, upper=hi, var=k, weight=weight, values=values)
    try:
        start = [] if alpha_equal(lhs, thm.lhs) else [by_zero(lhs, thm.lhs)]
    except KernelError:
        return failed("the summand on the left is not weight * values")
    try:
        end = [] if alpha_equal(thm.rhs, rhs) else [by_zero(thm.rhs, rhs)]
    except KernelError:
        return failed("the right side is not (sum w)(sum w u^2)")
    return proved(trans(*start, thm, *end), "weighted Cauchy-Schwarz (Jensen for the square)")
