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

from symattn.derivation import Derivation
from symattn.kernel.terms import substitute
from symattn.rules import RuleError, RuleResult, check_step, failed, passed, rule
from symattn.rules.algebra import equal, sign_of
from symattn.rules.substitution import rewrite
from symattn.statement import Equation, IndexRange
from symattn.verdict import Level

__all__ = ["induction_hypotheses", "labelled"]

# assumptions on the induction variable that would restrict the "generic" t of the step case
# (positive/nonnegative are allowed when implied by t >= start + 1, checked below)
_RESTRICTING = ("even", "odd", "prime", "composite", "zero", "negative", "nonpositive")


def _entries(x: Any) -> list:
    return list(x) if isinstance(x, sp.MatrixBase) else [x]


def induction_hypotheses(lhs: Any, rhs: Any) -> tuple:
    """The equations ``lhs = rhs`` a step may use, entrywise for a column claim."""
    left, right = _entries(lhs), _entries(rhs)
    if len(left) == 1:
        return (Equation("induction_hypothesis", lhs=left[0], rhs=right[0]),)
    return tuple(Equation(f"induction_hypothesis_{r}", lhs=a, rhs=b) for r, (a, b) in enumerate(zip(left, right)))


def _nonneg(x: Any) -> bool:
    x = sp.simplify(x)
    return x == 0 or sign_of(x) in ("positive", "nonnegative")


def _check_chain(d: Derivation, ctx, label: str) -> RuleResult | None:
    """None when every step of ``d`` passes; otherwise the first failure (or undecided)."""
    prev = d.start
    for n, step in enumerate(d.steps, start=1):
        if step.relation != "=":
            return failed(f"{label} step {n} is {step.relation!r}: induction proves equalities only")
        res = check_step(prev, step.expr, step.relation, step.rule, step.args, ctx)
        if res.status is not Level.PASS:
            return RuleResult(res.status, f"{label} step {n} ({step.justification()}): {res.reason}")
        prev = step.expr
    return None


def _mentions(h, t) -> bool:
    """Whether hypothesis ``h`` says something about the particular ``t``."""
    forall = set(getattr(h, "forall", ()) or ())
    if t in forall:
        return False
    for value in vars(h).values():
        if isinstance(value, sp.Basic) and value.has(t):
            return True
    return False


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
    start = sp.sympify(start, strict=True) if isinstance(start, int) else start
    if not isinstance(t, sp.Symbol) or t.is_integer is not True:
        raise RuleError(f"the induction variable must be an integer Symbol, got {t!r}")
    extra = [a for a in _RESTRICTING if t.assumptions0.get(a) is True]
    if extra:
        raise RuleError(f"the induction variable {t} carries assumptions {extra} that a generic step may not use")
    if t.is_positive and not _nonneg(start):
        raise RuleError(f"{t} is declared positive but the step must hold for every t >= {start + 1}")
    if t.is_nonnegative and not _nonneg(start + 1):
        raise RuleError(f"{t} is declared nonnegative but the step must hold for every t >= {start + 1}")
    if not isinstance(T, sp.Expr) or T.is_integer is not True:
        raise RuleError(f"induction runs up to an integer, got {T!r}")
    if T.has(t) or t == T:
        raise RuleError(f"the induction variable {t} must differ from the bound {T}")
    if not _nonneg(T - start):
        raise RuleError(f"{T} is not known to be >= {start}")
    for side in (lhs, rhs):
        if isinstance(side, sp.Basic) and side.has(t):
            raise RuleError(f"the induction variable {t} occurs in the step being justified")
    used = [h.name for h in ctx.hypotheses if _mentions(h, t)]
    if used:
        raise RuleError(f"hypotheses {used} mention {t}: the step case must hold for a generic {t}")

    claim_l, claim_r = step.start, step.end
    if len(_entries(claim_l)) != len(_entries(claim_r)):
        raise RuleError("the claim's sides have different shapes")
    # base case: the chain proves lhs(start) = rhs(start)
    if not (equal(base.start, _subs(claim_l, t, start)) and equal(base.end, _subs(claim_r, t, start))):
        return failed(f"the base case does not prove the claim at {t} = {start}")
    bad = _check_chain(base, ctx, "base case")
    if bad is not None:
        return bad
    # step case: a generic t in start+1..T, with the hypothesis for t - 1
    ih = induction_hypotheses(_subs(claim_l, t, t - 1), _subs(claim_r, t, t - 1))
    names = {h.name for h in ctx.hypotheses}
    if names & {h.name for h in ih}:
        raise RuleError("the theorem already has a hypothesis named induction_hypothesis")
    step_ctx = dataclasses.replace(
        ctx,
        hypotheses=tuple(ctx.hypotheses) + ih + (IndexRange("induction_range", index=t, lower=start + 1, upper=T),),
    )
    bad = _check_chain(step, step_ctx, "induction step")
    if bad is not None:
        return bad
    # conclusion: the claim at T, used to rewrite the outer step
    at_l, at_r = _entries(_subs(claim_l, t, T)), _entries(_subs(claim_r, t, T))
    same_kind = isinstance(lhs, sp.MatrixBase) == isinstance(claim_l, sp.MatrixBase)
    if same_kind and equal(lhs, _subs(claim_l, t, T)) and equal(rhs, _subs(claim_r, t, T)):
        return passed(f"by induction on {t} from {start} to {T}")
    out = lhs
    for a, b in zip(at_l, at_r):
        out = rewrite(out, a, b)
    if equal(out, rhs):
        return passed(f"by induction on {t} from {start} to {T}, then rewriting with the claim at {T}")
    return failed(f"the claim at {t} = {T} does not turn the left side into the right side")


def labelled(d: Derivation, label: str) -> Derivation:
    """Give a nested derivation a short name, shown instead of the whole chain when the outer
    step's justification is printed."""
    d.name = label
    return d


def _subs(expr: Any, t, value) -> Any:
    return substitute(expr, {t: value})
