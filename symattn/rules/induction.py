r"""``bounded_induction``: prove a claim ``P(T)`` for a symbolic integer ``T`` from a base case and a step.

The claim is an equation (or a column of equations) ``lhs(t) = rhs(t)`` in an integer variable
``t``. The rule is given two derivations:

* ``base``: a chain from ``lhs(t0)`` to ``rhs(t0)`` (``t0`` = ``start``, default 0);
* ``step``: a chain from ``lhs(t)`` to ``rhs(t)``, checked for a *generic* ``t`` with
  ``start + 1 <= t <= T``, which may use the induction hypothesis ``lhs(t-1) = rhs(t-1)`` as the
  equation named ``induction_hypothesis`` (entry ``r`` of a column claim is named
  ``induction_hypothesis_r``) through the ``substitute`` rule.

Every step of both chains is checked by its own rule, in the same context as the theorem (the
same hypotheses and the same record of theorems used, so ``apply_theorem`` caps the verdict as
usual). The claim is then known for ``t = T`` whenever ``T`` is an integer with ``T >= start``,
and the outer step ``a = b`` is accepted when rewriting ``lhs(T)`` to ``rhs(T)`` (entrywise)
turns ``a`` into ``b``.

Soundness conditions checked: ``t`` is an integer Symbol whose other assumptions
(``positive``/``nonnegative``) follow from ``t >= start + 1``; ``t`` occurs in no hypothesis
except as a ``forall`` pattern variable, and not in the outer step (a proof about a *generic*
``t`` may not use facts about a particular ``t``); ``T`` is an integer known to be ``>= start``;
both chains are equalities that start and end where the claim says.

>>> from symattn.rules import RULES, load_rules
>>> "bounded_induction" in load_rules()
True
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy as sp

from symattn.kernel.induction import conclude, step_hypotheses
from symattn.kernel.terms import KernelError, canonical, substitute
from symattn.kernel.thm import by_zero, refl, rewrite, sym, trans
from symattn.kernel.verdict import Level
from symattn.language.derivation import Derivation
from symattn.language.statement import Equation
from symattn.rules import RuleError, RuleResult, check_step, failed, proved, rule
from symattn.rules.algebra import equal

__all__ = ["induction_hypotheses", "labelled"]


def _entries(x: Any) -> list:
    return list(x) if isinstance(x, sp.MatrixBase) else [x]


def induction_hypotheses(lhs: Any, rhs: Any) -> tuple:
    """The equations ``lhs = rhs`` a step may use, entrywise for a column claim."""
    left, right = _entries(lhs), _entries(rhs)
    if len(left) == 1:
        return (Equation("induction_hypothesis", lhs=left[0], rhs=right[0]),)
    return tuple(Equation(f"induction_hypothesis_{r}", lhs=a, rhs=b) for r, (a, b) in enumerate(zip(left, right)))


def _chain(d: Derivation, ctx, label: str):
    """The kernel's theorem ``d.start = d.end`` from the steps of ``d``, or the first failure."""
    prev = d.start
    t = refl(prev)
    for n, step in enumerate(d.steps, start=1):
        if step.relation != "=":
            return None, failed(f"{label} step {n} is {step.relation!r}: this chain proves equalities only")
        res = check_step(prev, step.expr, step.relation, step.rule, step.args, ctx)
        if res.status is not Level.PASS:
            return None, RuleResult(res.status, f"{label} step {n} ({step.justification()}): {res.reason}")
        if res.thm is None:
            return None, failed(f"{label} step {n} ({step.justification()}): decided by an unconverted rule")
        th = res.thm if res.thm.lhs == canonical(prev) else sym(res.thm)  # a rule may hand the step flipped
        t = trans(t, th) if t.rhs == th.lhs else trans(t, by_zero(t.rhs, th.lhs), th)
        prev = step.expr
    return t, None


@rule(
    "bounded_induction",
    "P(start) and P(t-1) => P(t) for generic start < t <= T give P(T); the step uses P(T) to rewrite",
    params=("on", "var", "start", "base", "step"),
)
def check_induction(lhs, rhs, relation, ctx, on=None, var=None, start=0, base=None, step=None):
    if relation != "=":
        raise RuleError("induction justifies equalities only")
    if not isinstance(base, Derivation) or not isinstance(step, Derivation):
        raise RuleError("induction needs base=<Derivation> and step=<Derivation>")
    T, t = on, var
    start = sp.Integer(start) if isinstance(start, int) else start
    for side in (lhs, rhs):
        if isinstance(side, sp.Basic) and isinstance(t, sp.Symbol) and side.has(t):
            raise RuleError(f"the induction variable {t} occurs in the step being justified")
    claim_l, claim_r = step.start, step.end
    if not (equal(base.start, substitute(claim_l, {t: start})) and equal(base.end, substitute(claim_r, {t: start}))):
        return failed(f"the base case does not prove the claim at {t} = {start}")
    base_thm, bad = _chain(base, ctx, "base case")
    if bad is not None:
        return bad
    step_ctx = dataclasses.replace(ctx, hypotheses=step_hypotheses(claim_l, claim_r, t, start, T))
    step_thm, bad = _chain(step, step_ctx, "induction step")
    if bad is not None:
        return bad
    try:
        at_T = conclude(claim_l, claim_r, t, start, T, base_thm, step_thm)
    except KernelError as exc:
        return failed(str(exc))
    if len(at_T) == 1 and equal(lhs, at_T[0].lhs) and equal(rhs, at_T[0].rhs):
        return proved(trans(by_zero(lhs, at_T[0].lhs), at_T[0], by_zero(at_T[0].rhs, rhs)),
                      f"by induction on {t} from {start} to {T}")
    out = refl(lhs)
    for th in at_T:
        try:
            out = trans(out, rewrite(out.rhs, th))
        except KernelError:
            continue
    if equal(out.rhs, rhs):
        return proved(trans(out, by_zero(out.rhs, rhs)),
                      f"by induction on {t} from {start} to {T}, then rewriting with the claim at {T}")
    return failed(f"the claim at {t} = {T} does not turn the left side into the right side")


def labelled(d: Derivation, label: str) -> Derivation:
    """Give a nested derivation a short name, shown instead of the whole chain when the outer
    step's justification is printed."""
    d.name = label
    return d
