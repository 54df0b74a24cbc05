r"""Monotone replacement: ``monotone_step``.

The step ``F(A) REL F(B)`` is valid when a nested derivation proves ``A <= B`` (or ``A >= B``) and
``F`` is monotone on the segment between them: ``F`` is read off the left side by replacing the
subexpression ``A`` (the argument ``at``) with a variable ``x``. The rule is a proposer: the nested
steps' theorems are chained, and the kernel's schema ``monotone``
(:mod:`symattn.kernel.schemas.analysis`) shows ``F`` differentiable and real on the segment (no
``Piecewise``/``floor``/``Heaviside``/``sign``/``Max``/``Min`` of ``x``, ``|g|`` only where ``g != 0``)
and reads the sign of ``dF/dx`` with its sign test, ``x`` ranging over the segment. Then
``F(A) <= F(B)`` if ``F`` is nondecreasing and ``A <= B``, and the reverse if it is nonincreasing. A
nested step whose rule is not yet a proposer gives no theorem, and the step fails.

When ``A`` is a finite sum ``sum_{k=a}^{b} f(k)`` over a range known not to be reversed, the nested
derivation may instead prove the *summand* bound ``f(x) <= g(x)`` for a generic ``x`` in ``a..b``
(when it starts at the summand rather than at the sum), and ``B = sum_{k=a}^{b} g(k)``. The sum
reaches the rule in the kernel's canonical form, so the binder is opened with the term layer
(:func:`~symattn.kernel.terms.open_binder`), never by name: the nested proof's start must be the
summand at some symbol ``x`` up to alpha-equivalence. ``x`` must be fresh -- free nowhere else in
the step or in a hypothesis -- and carry no assumption the range does not give (a proof about a
positive ``x`` says nothing about ``k = 0``); an :class:`~symattn.language.statement.IndexRange` places it in
``a..b`` for the nested proof, and the kernel's schema ``sum_termwise`` turns the summand bound into
the bound of the sums (range not reversed; strict only for a nonempty range).

Strict steps need a strict nested chain and a strictly monotone ``F`` (a derivative of known
*strict* sign), and, for sums, a nonempty range.

>>> import sympy as sp
>>> from symattn.language.derivation import Derivation
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

from symattn.kernel.axioms import axiom
from symattn.kernel.terms import KernelError, alpha_equal, free_symbols, is_bound_variable, open_binder
from symattn.kernel.thm import accept, by_zero, trans
from symattn.kernel.verdict import Level
from symattn.language.statement import IndexRange
from symattn.rules import RuleError, check_step, failed, proved, rule

__all__ = []


def _show(x) -> str:
    s = sp.sstr(x)
    return s if len(s) <= 200 else s[:200] + " ..."


def _nested(d, start, ctx, extra=()):
    """The kernel's theorem of the nested chain ``start REL end`` (each step's theorem, chained)."""
    from symattn.language.derivation import Derivation

    if not isinstance(d, Derivation):
        raise RuleError(f"proof must be a Derivation, got {type(d).__name__}")
    if alpha_equal(d.start, start):
        thms = []
    else:
        try:
            thms = [by_zero(start, d.start)]
        except KernelError:
            raise RuleError(f"the nested proof starts at {_show(d.start)}, not at {_show(start)}") from None
    sub = dataclasses.replace(ctx, hypotheses=tuple(ctx.hypotheses) + tuple(extra))
    for n, (prev, st) in enumerate(d.pairs(), start=1):
        res = check_step(prev, st.expr, st.relation, st.rule, st.args, sub)
        if res.status is not Level.PASS:
            raise RuleError(f"nested proof, step {n} ({st.justification()}): {res.reason}")
        if res.thm is None:
            raise RuleError(f"nested proof, step {n}: rule {st.rule!r} is not yet a proposer and gives no theorem "
                            "of the kernel")
        thms.append(res.thm)
    if not thms:
        raise RuleError("the nested proof has no step")
    return trans(*thms)


def _hypothesis_symbols(h) -> set:
    """Every symbol a hypothesis mentions (free in any of its SymPy fields)."""
    out: set = set()
    for f in dataclasses.fields(h):
        val = getattr(h, f.name)
        for x in (val if isinstance(val, (tuple, list)) else (val,)):
            if isinstance(x, (sp.Basic, sp.MatrixBase)):
                out |= free_symbols(x)
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
    from symattn.language.derivation import Derivation

    if not isinstance(proof, Derivation):
        raise RuleError(f"proof must be a Derivation, got {type(proof).__name__}")
    var, _lo, _hi, body = open_binder(at)
    if var not in free_symbols(body):
        if alpha_equal(proof.start, body):
            return None, body
        raise RuleError(f"the nested proof starts at {_show(proof.start)}, neither at the sum "
                        f"{_show(at)} nor at its summand {_show(body)}")
    start = proof.start
    candidates = sorted((x for x in free_symbols(start) - free_symbols(at) if isinstance(x, sp.Symbol)),
                        key=sp.default_sort_key)
    for x in candidates:
        opened = open_binder(at, x)[3]
        if not alpha_equal(start, opened):
            continue
        elsewhere = [w for w, where in (("the left side", free_symbols(lhs)), ("the right side", free_symbols(rhs)))
                     if x in where]
        elsewhere += [f"hypothesis {h.name!r}" for h in ctx.hypotheses if x in _hypothesis_symbols(h)]
        if elsewhere:
            raise RuleError(f"the nested proof's summand index {x} also occurs in {', '.join(elsewhere)}: "
                            "it must be a fresh symbol; rename it")
        if not _implied_by(x, var):
            raise RuleError(f"the nested proof's summand index {x} carries assumptions the range "
                            f"{_show(_lo)}..{_show(_hi)} does not give (the index there is "
                            f"{', '.join(k for k, v in sorted(var.assumptions0.items()) if v) or 'anything'}); "
                            "declare it with fewer assumptions")
        return x, opened
    raise RuleError(f"the nested proof starts at {_show(start)}, neither at the sum {_show(at)} nor at its "
                    "summand at an index of its own")


def _sum_bound(at, proof, lhs, rhs, ctx):
    """The kernel's theorem ``sum_k f(k) REL sum_k g(k)`` from the nested proof about the summand."""
    if len(at.limits) != 1:
        raise RuleError("monotone_step replaces single-index sums")
    (_k, lo, hi) = at.limits[0]
    index, body = _summand_index(at, proof, lhs, rhs, ctx)
    if index is None:
        raise RuleError("the summand does not depend on the index: bound the sum itself")
    extra = (IndexRange("_summand_index", index=index, lower=lo, upper=hi),)
    inner = _nested(proof, body, ctx, extra)
    if inner.relation == "=":
        raise RuleError("the nested proof is an equality: use it as an equality step instead")
    return axiom("sum_termwise", lower=lo, upper=hi, var=index, bound=inner)


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
        return failed(f"{_show(at)} does not occur in the left side")
    from symattn.language.derivation import Derivation

    if any(is_bound_variable(v) for v in free_symbols(at)):
        raise RuleError(f"{_show(at)} lies under a binder of the left side (its bound variable occurs in it): "
                        "monotone_step replaces a subexpression outside every binder")
    whole = isinstance(proof, Derivation) and alpha_equal(proof.start, at)
    if isinstance(at, sp.Sum) and not whole:
        bound = _sum_bound(at, proof, lhs, rhs, ctx)
    else:
        bound = _nested(proof, at, ctx)
    if bound.relation == "=":
        return failed("the nested proof is an equality: use it as an equality step instead")
    thm = axiom("monotone", expr=lhs, at=at, bound=bound, strict=relation in ("<", ">"))
    forward = alpha_equal(thm.lhs, lhs)
    other = thm.rhs if forward else thm.lhs
    if not alpha_equal(other, rhs):
        try:
            thm = trans(thm, by_zero(other, rhs)) if forward else trans(by_zero(rhs, other), thm)
        except KernelError:
            return failed("replacing the subexpression by the nested proof's end does not give the right side")
    if accept(thm, lhs, rhs, relation):
        return proved(thm, "F is monotone in the replaced part, which the nested proof bounds")
    if relation in ("<", ">") and accept(thm, lhs, rhs, {"<": "<=", ">": ">="}[relation]):
        return failed("a strict step needs a strict nested bound and a strictly monotone F")
    return failed(f"the kernel shows {thm!r}: the step goes the other way")
