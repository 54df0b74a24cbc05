r"""Monotone replacement: ``monotone_step``.

The step ``F(A) REL F(B)`` is valid when a nested derivation proves ``A <= B`` (or ``A >= B``) and
``F`` is monotone on the segment between them: ``F`` is read off the left side by replacing the
subexpression ``A`` (the argument ``at``) with a variable ``x``, and the sign of ``dF/dx`` must be
known for every ``x`` of the segment (``x`` is taken positive when ``A`` and ``B`` are known
positive, nonnegative when both are known nonnegative, real otherwise; finite sums elsewhere in
``F`` that are known nonnegative count as nonnegative numbers). Then ``F(A) <= F(B)`` if ``F`` is
nondecreasing and ``A <= B``, and the reverse if it is nonincreasing.

When ``A`` is a finite sum ``sum_{k=a}^{b} f(k)`` over a range known not to be reversed, the nested
derivation may instead prove the *summand* bound ``f(x) <= g(x)`` for a generic ``x`` in ``a..b``
(when it starts at the summand rather than at the sum), and ``B = sum_{k=a}^{b} g(k)``. The sum
reaches the rule in the kernel's canonical form, so the binder is opened with the term layer
(:func:`~symattn.kernel.terms.open_binder`), never by name: the nested proof's start must be the
summand at some symbol ``x`` up to alpha-equivalence. ``x`` must be fresh -- free nowhere else in
the step or in a hypothesis -- and carry no assumption the range does not give (a proof about a
positive ``x`` says nothing about ``k = 0``); an :class:`~symattn.statement.IndexRange` places it in
``a..b`` for the nested proof.

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
    from symattn.kernel.terms import alpha_equal

    if not (alpha_equal(d.start, start) or equal(d.start, start)):
        raise RuleError(f"the nested proof starts at {sp.sstr(d.start)}, not at {sp.sstr(start)}")
    sub = dataclasses.replace(ctx, hypotheses=tuple(ctx.hypotheses) + tuple(extra))
    for n, (prev, step) in enumerate(d.pairs(), start=1):
        res = check_step(prev, step.expr, step.relation, step.rule, step.args, sub)
        if res.status is not Level.PASS:
            raise RuleError(f"nested proof, step {n} ({step.justification()}): {res.reason}")
    return d.end, d.relation


def _free(x):
    from symattn.kernel.terms import free_symbols

    return free_symbols(x)


def _subst(x, m):
    from symattn.kernel.terms import substitute

    return substitute(x, m)


def _hypothesis_symbols(h) -> set:
    """Every symbol a hypothesis mentions (free in any of its SymPy fields)."""
    out: set = set()
    for f in dataclasses.fields(h):
        val = getattr(h, f.name)
        for x in (val if isinstance(val, (tuple, list)) else (val,)):
            if isinstance(x, (sp.Basic, sp.MatrixBase)):
                out |= _free(x)
    return out


def _implied_by(x, var) -> bool:
    """Every assumption of the symbol ``x`` holds for the canonical variable ``var``: what a proof
    may use about ``x`` holds at every point of the binder's range."""
    have = var.assumptions0
    return all(have.get(key) == val for key, val in x.assumptions0.items() if val is not None)


def _summand_index(at, proof, lhs, rhs, ctx):
    """The symbol that plays the sum's bound index in the nested proof about the summand, and the
    summand with it: ``(x, f(x))`` where the proof starts at ``f(x)`` and ``at = sum_k f(k)`` (up to
    the names of bound variables), or ``(None, f)`` when the summand does not depend on the index.

    Opened with the term layer (:func:`~symattn.kernel.terms.open_binder`), never by name. ``x`` must
    be generic: free nowhere else in the step or its hypotheses (then a proof about ``f(x)`` for
    ``x`` in ``lo..hi`` is a proof for every ``k``), and its own assumptions must hold on the whole
    range (a proof about a positive ``x`` says nothing about ``k = 0``)."""
    from symattn.derivation import Derivation
    from symattn.kernel.terms import alpha_equal, open_binder

    if not isinstance(proof, Derivation):
        raise RuleError(f"proof must be a Derivation, got {type(proof).__name__}")
    var, _lo, _hi, body = open_binder(at)
    if var not in _free(body):
        if alpha_equal(proof.start, body):
            return None, body
        raise RuleError(f"the nested proof starts at {sp.sstr(proof.start)}, neither at the sum "
                        f"{sp.sstr(at)} nor at its summand {sp.sstr(body)}")
    start = proof.start
    candidates = sorted((x for x in _free(start) - _free(at) if isinstance(x, sp.Symbol)), key=sp.default_sort_key)
    for x in candidates:
        opened = open_binder(at, x)[3]
        if not alpha_equal(start, opened):
            continue
        elsewhere = [w for w, where in (("the left side", _free(lhs)), ("the right side", _free(rhs))) if x in where]
        elsewhere += [f"hypothesis {h.name!r}" for h in ctx.hypotheses if x in _hypothesis_symbols(h)]
        if elsewhere:
            raise RuleError(f"the nested proof's summand index {x} also occurs in {', '.join(elsewhere)}: "
                            "it must be a fresh symbol; rename it")
        if not _implied_by(x, var):
            raise RuleError(f"the nested proof's summand index {x} carries assumptions the range "
                            f"{sp.sstr(_lo)}..{sp.sstr(_hi)} does not give (the index there is "
                            f"{', '.join(k for k, v in sorted(var.assumptions0.items()) if v) or 'anything'}); "
                            "declare it with fewer assumptions")
        return x, opened
    raise RuleError(f"the nested proof starts at {sp.sstr(start)}, neither at the sum {sp.sstr(at)} nor at its "
                    "summand at an index of its own")


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
    from symattn.derivation import Derivation
    from symattn.kernel.terms import alpha_equal, is_bound_variable

    if any(is_bound_variable(v) for v in _free(at)):
        raise RuleError(f"{sp.sstr(at)} lies under a binder of the left side (its bound variable occurs in it): "
                        "monotone_step replaces a subexpression outside every binder")
    # a bound on the sum's value itself (structural test: a failing exact comparison is slow)
    whole = isinstance(proof, Derivation) and alpha_equal(proof.start, at)
    if isinstance(at, sp.Sum) and not whole:
        if len(at.limits) != 1:
            raise RuleError("monotone_step replaces single-index sums")
        from symattn.rules.ranges import provably_le, provably_lt, ranges_of

        (_k, lo, hi) = at.limits[0]
        ranges = ranges_of(ctx.hypotheses)
        if not provably_le(lo - 1, hi, ranges):
            return failed(f"the range {lo}..{hi} may be reversed (then the sum is a negative sum)")
        index, body = _summand_index(at, proof, lhs, rhs, ctx)
        extra = () if index is None else (IndexRange("_summand_index", index=index, lower=lo, upper=hi),)
        end, inner_rel = _nested(proof, body, ctx, extra)
        v = sp.Dummy("k")
        B = sp.Sum(end if index is None else _subst(end, {index: v}), (v, lo, hi))
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
