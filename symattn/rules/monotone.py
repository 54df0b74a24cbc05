r"""Monotone replacement: ``monotone_step``.

The step ``F(A) REL F(B)`` is valid when a nested derivation proves ``A <= B`` (or ``A >= B``) and
``F`` is monotone on the segment between them: ``F`` is read off the left side by replacing the
subexpression ``A`` (the argument ``at``) with a variable ``x``, and the sign of ``dF/dx`` must be
known for every ``x`` of the segment (``x`` is taken positive when ``A`` and ``B`` are known
positive, nonnegative when both are known nonnegative, real otherwise; finite sums elsewhere in
``F`` that are known nonnegative count as nonnegative numbers). Then ``F(A) <= F(B)`` if ``F`` is
nondecreasing and ``A <= B``, and the reverse if it is nonincreasing.

When ``A`` is a finite sum ``sum_{k=a}^{b} f(k)`` over a range known not to be reversed, the nested
derivation may instead prove the *summand* bound ``f(k) <= g(k)`` at the sum's own index ``k`` (when it
starts at the summand rather than at the sum), for a generic
``k`` in ``a..b`` (an :class:`~symattn.statement.IndexRange` is added for it; ``k`` may not be used
outside the sum), and ``B = sum_{k=a}^{b} g(k)``.

Strict steps need a strict nested chain and a strictly monotone ``F`` (a derivative of known
*strict* sign), and, for sums, a nonempty range.

>>> import sympy as sp
>>> from symattn.derivation import Derivation
>>> from symattn.rules import ProofContext, check_step
>>> s, c = sp.Symbol("s", real=True), sp.Symbol("c", positive=True)
>>> inner = Derivation(sp.tanh(s)).lt(sp.S.One, "tanh_bound")
>>> check_step(sp.exp(c * sp.tanh(s)), sp.exp(c), "<", "monotone_step",
...            {"at": sp.tanh(s), "proof": inner}, ProofContext()).status.value
'pass'
"""

from __future__ import annotations

import dataclasses

import sympy as sp

from symattn.rules import RuleError, check_step, failed, passed, rule
from symattn.rules.algebra import equal, sign_of
from symattn.statement import IndexRange
from symattn.verdict import Level

__all__ = []


def _nested(d, start, ctx, extra=()):
    """Check the nested chain; returns (end, relation)."""
    from symattn.derivation import Derivation

    if not isinstance(d, Derivation):
        raise RuleError(f"proof must be a Derivation, got {type(d).__name__}")
    if not equal(d.start, start):
        raise RuleError(f"the nested proof starts at {sp.sstr(d.start)}, not at {sp.sstr(start)}")
    sub = dataclasses.replace(ctx, hypotheses=tuple(ctx.hypotheses) + tuple(extra))
    for n, (prev, step) in enumerate(d.pairs(), start=1):
        res = check_step(prev, step.expr, step.relation, step.rule, step.args, sub)
        if res.status is not Level.PASS:
            raise RuleError(f"nested proof, step {n} ({step.justification()}): {res.reason}")
    return d.end, d.relation


def _sign_of_derivative(D, x, ctx) -> str | None:
    """'up', 'down', 'up_strict', 'down_strict' or None."""
    from symattn.rules.ranges import _structural_sign, ranges_of

    ranges = ranges_of(ctx.hypotheses)
    subs = {}
    for s_ in D.atoms(sp.Sum):
        if _structural_sign(s_, ranges) is not None:
            subs[s_] = sp.Dummy("S", nonnegative=True)
    E = D.xreplace(subs)
    up, down = sign_of(E), sign_of(-E)
    if up == "positive":
        return "up_strict"
    if down == "positive":
        return "down_strict"
    if up == "nonnegative":
        return "up"
    if down == "nonnegative":
        return "down"
    return None


def _domain_symbol(a, b, ctx):
    from symattn.rules.ranges import _structural_sign, ranges_of

    ranges = ranges_of(ctx.hypotheses)
    sa, sb = (_structural_sign(v, ranges) for v in (a, b))
    if sa == sb == "positive":
        return sp.Dummy("x", positive=True)
    if sa is not None and sb is not None:
        return sp.Dummy("x", nonnegative=True)
    return sp.Dummy("x", real=True)


@rule(
    "monotone_step",
    "F(A) <= F(B) from a nested proof of A <= B (or of the summand bound, for a sum A) and a derivative "
    "dF/dA of known sign on the segment",
    params=("at", "proof"),
)
def check_monotone_step(lhs, rhs, relation, ctx, at=None, proof=None):
    if relation not in ("<=", "<", ">=", ">"):
        raise RuleError(f"monotone_step justifies inequalities, not {relation!r}")
    if at is None or proof is None:
        raise RuleError("monotone_step needs at=<the subexpression A> and proof=<a Derivation from A>")
    if not (isinstance(lhs, sp.Basic) and lhs.has(at)):
        return failed(f"{sp.sstr(at)} does not occur in the left side")
    extra = ()
    from symattn.derivation import Derivation
    from symattn.kernel.terms import canonical as canonical_bounds

    # a bound on the sum's value itself (structural test: a failing exact comparison is slow)
    whole = isinstance(proof, Derivation) and canonical_bounds(proof.start) == canonical_bounds(at)
    if isinstance(at, sp.Sum) and not whole:
        if len(at.limits) != 1:
            raise RuleError("monotone_step replaces single-index sums")
        (k, lo, hi) = at.limits[0]
        from symattn.rules.ranges import provably_le, provably_lt, ranges_of

        ranges = ranges_of(ctx.hypotheses)
        if not provably_le(lo - 1, hi, ranges):
            return failed(f"the range {lo}..{hi} may be reversed (then the sum is a negative sum)")
        # the nested proof is about the summand at the sum's own index k, for a generic k in lo..hi:
        # k must mean nothing else here (free in the left side outside this sum, or in a hypothesis)
        outside = lhs.xreplace({at: sp.S.Zero})
        if k in outside.free_symbols or any(k in getattr(h, "index", sp.S.Zero).free_symbols
                                           if isinstance(getattr(h, "index", None), sp.Basic) else False
                                           for h in ctx.hypotheses):
            raise RuleError(f"the summation index {k} is also used outside the sum; rename it")
        body = at.function
        extra = (IndexRange("_summand_index", index=k, lower=lo, upper=hi),)
        end, inner_rel = _nested(proof, body, ctx, extra)
        B = sp.Sum(end, (k, lo, hi))
        if inner_rel in ("<", ">") and not provably_lt(lo - 1, hi, ranges):
            inner_rel = {"<": "<=", ">": ">="}[inner_rel]  # an empty sum is not strictly smaller
    else:
        B, inner_rel = _nested(proof, at, ctx)
    if inner_rel == "=":
        return failed("the nested proof is an equality: use it as an equality step instead")
    x = _domain_symbol(at, B, ctx)
    F = lhs.xreplace({at: x})  # every occurrence of A: F is the left side as a function of A
    if not equal(F.xreplace({x: B}), rhs):
        return failed("replacing the subexpression by the nested proof's end does not give the right side")
    direction = _sign_of_derivative(sp.diff(F, x), x, ctx)
    if direction is None:
        return failed("the sign of the derivative in the replaced subexpression is not known")
    a_le_b = inner_rel in ("<=", "<")
    strict_inner = inner_rel in ("<", ">")
    increasing = direction.startswith("up")
    lhs_le_rhs = a_le_b == increasing
    want_le = relation in ("<=", "<")
    if lhs_le_rhs != want_le:
        return failed(f"F is {'non-decreasing' if increasing else 'non-increasing'} and the nested proof gives "
                      f"A {inner_rel} B: the step goes the other way")
    if relation in ("<", ">") and not (strict_inner and direction.endswith("strict")):
        return failed("a strict step needs a strict nested bound and a strictly monotone F")
    return passed(f"F is {direction.replace('_', ' ')} in the replaced part, which the nested proof bounds")
