"""Induction over a bounded integer: the claim at ``T`` from the claim at ``start`` and a generic step.

The claim is ``lhs(t) = rhs(t)`` (or a column of equations, entry by entry) in an integer ``t``.
:func:`step_hypotheses` is the context the step case is proved in: the theorem's hypotheses, the
induction hypotheses ``lhs(t - 1) = rhs(t - 1)`` (named ``induction_hypothesis`` or
``induction_hypothesis_r``) and the range ``start + 1 <= t <= T``, built here, so a step proved under
anything more (``t >= start + 2``, say) is refused. :func:`conclude` checks

* ``t`` is an integer Symbol with no restricting assumption (even, odd, prime, composite, zero,
  negative, nonpositive; positive or nonnegative only when implied by ``t >= start + 1``), not in ``T``,
  not in any of the theorem's hypotheses (but as a ``forall`` variable);
* ``T`` is an integer with ``T >= start`` shown by the sign test;
* the base ``Thm`` states the claim at ``start`` and was made under the theorem's hypotheses only, the
  step ``Thm`` states the claim at ``t`` and was made under :func:`step_hypotheses` only;

and returns the ``Thm`` of each entry of the claim at ``T``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.terms import KernelError, substitute

__all__ = ["step_hypotheses", "conclude", "RESTRICTING"]

RESTRICTING = ("even", "odd", "prime", "composite", "zero", "negative", "nonpositive")


def _entries(x: Any) -> list:
    return list(x) if isinstance(x, sp.MatrixBase) else [x]


def _hyps() -> tuple:
    from symattn.kernel.zero import HYPOTHESES

    return tuple(HYPOTHESES.get() or ())


def _nonneg(x: Any) -> bool:
    from symattn.kernel.sign import sign_of

    x = sp.expand(x)
    return x == 0 or sign_of(x) in ("positive", "nonnegative")


def _mentions(h, t) -> bool:
    if t in set(getattr(h, "forall", ()) or ()):
        return False
    return any(isinstance(v, sp.Basic) and v.has(t) for v in vars(h).values())


def _check_variable(t, start, T) -> None:
    if not isinstance(t, sp.Symbol) or t.is_integer is not True:
        raise KernelError(f"the induction variable must be an integer Symbol, got {t!r}")
    extra = [a for a in RESTRICTING if t.assumptions0.get(a) is True]
    if extra:
        raise KernelError(f"the induction variable {t} carries assumptions {extra} that a generic step may not use")
    if t.is_positive and not _nonneg(start):
        raise KernelError(f"{t} is declared positive but the step must hold for every t >= {start + 1}")
    if t.is_nonnegative and not _nonneg(start + 1):
        raise KernelError(f"{t} is declared nonnegative but the step must hold for every t >= {start + 1}")
    if not isinstance(T, sp.Expr) or T.is_integer is not True:
        raise KernelError(f"induction runs up to an integer, got {T!r}")
    if T.has(t):
        raise KernelError(f"the induction variable {t} must differ from the bound {T}")
    if not _nonneg(T - start):
        raise KernelError(f"{T} is not known to be >= {start}")
    used = [h.name for h in _hyps() if _mentions(h, t)]
    if used:
        raise KernelError(f"hypotheses {used} mention {t}: the step case must hold for a generic {t}")


def step_hypotheses(claim_l: Any, claim_r: Any, t, start, T) -> tuple:
    """The hypotheses of the step case (see the module docstring)."""
    from symattn.language.statement import Equation, IndexRange

    left = _entries(substitute(claim_l, {t: t - 1}))
    right = _entries(substitute(claim_r, {t: t - 1}))
    if len(left) != len(right):
        raise KernelError("the claim's sides have different shapes")
    if len(left) == 1:
        ih = (Equation("induction_hypothesis", lhs=left[0], rhs=right[0]),)
    else:
        ih = tuple(Equation(f"induction_hypothesis_{r}", lhs=a, rhs=b) for r, (a, b) in enumerate(zip(left, right)))
    names = {h.name for h in _hyps()}
    if names & {h.name for h in ih} or "induction_range" in names:
        raise KernelError("the theorem already has a hypothesis named like the induction's")
    return _hyps() + ih + (IndexRange("induction_range", index=t, lower=start + 1, upper=T),)


def conclude(claim_l: Any, claim_r: Any, t, start, T, base: Any, step: Any) -> list:
    """The ``Thm`` of each entry of the claim at ``T`` (see the module docstring)."""
    from symattn.kernel.thm import Thm, _make, accept, within
    from symattn.kernel.zero import HYPOTHESES

    _check_variable(t, start, T)
    context = step_hypotheses(claim_l, claim_r, t, start, T)
    outer = _hyps()
    for label, th, value, hyps in (("base case", base, start, outer), ("induction step", step, t, context)):
        if not isinstance(th, Thm) or th.relation != "=":
            raise KernelError(f"the {label} is not an equation the kernel has shown")
        if not within(th, hyps):
            raise KernelError(f"the {label} was proved under hypotheses the induction does not give it")
        token = HYPOTHESES.set(hyps)
        try:
            ok = accept(th, substitute(claim_l, {t: value}), substitute(claim_r, {t: value}), "=")
        finally:
            HYPOTHESES.reset(token)
        if not ok:
            raise KernelError(f"the {label} does not prove the claim at {t} = {value}")
    ls, rs = _entries(substitute(claim_l, {t: T})), _entries(substitute(claim_r, {t: T}))
    return [_make(a, b, "=", f"induction on {t} from {start} to {T}", context=outer) for a, b in zip(ls, rs)]
