"""``apply_theorem``: use a registered theorem, instantiating its symbols.

The kernel instantiates the used theorem's statement with the given mapping, checks that the
mapping respects the assumptions of the symbols it replaces (an integer stays an integer, a
positive symbol stays positive), that the used theorem's hypotheses hold in the current one,
and that the step is an instance of the statement (or a rewrite with it). Cycles are rejected,
and the checker caps the verdict of the user by the verdict of what it used.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.derivation import relation_implies
from symattn.kernel.terms import canonical, free_symbols, substitute
from symattn.rules import RuleError, failed, passed, rule
from symattn.rules.algebra import equal
from symattn.rules.substitution import rewrite
from symattn.statement import Assumption, Equation, Independent, IndexRange, RandomFamily

__all__ = ["instantiate"]



def instantiate(thm, mapping: dict) -> tuple[Any, Any, list]:
    """The statement's sides and hypotheses of ``thm`` under ``mapping``, with checks."""
    free = thm.statement.free_symbols
    for h in thm.hypotheses:
        for attr in ("lhs", "rhs", "index", "lower", "upper", "dim", "base", "mean", "variance"):
            v = getattr(h, attr, None)
            free |= set(getattr(v, "free_symbols", set()))
    for key in mapping:
        if not isinstance(key, sp.Basic):
            raise RuleError(f"mapping keys must be SymPy symbols, got {key!r}")
    def sub(x):
        return canonical(substitute(x, mapping)) if isinstance(x, (sp.Basic, sp.MatrixBase)) else x

    hyps = []
    for h in thm.hypotheses:
        fields = {k: sub(v) for k, v in vars(h).items() if k != "name"}
        hyps.append(type(h)(name=h.name, **fields))
    return sub(thm.statement.lhs), sub(thm.statement.rhs), hyps


def image_conditions(mapping: dict, hypotheses=()) -> list:
    """Every assumption of a lemma symbol is a side condition of the instance: the image must have
    it (from its own assumptions, the kernel's sign test, or the hypotheses). Returns the failures."""
    from symattn.kernel.sign import sign_of
    from symattn.kernel.zero import _shown_nonzero

    bad = []
    for key, value in mapping.items():
        facts = getattr(key, "assumptions0", {}) if isinstance(key, sp.Symbol) else {}
        for fact, truth in sorted(facts.items()):
            if truth is not True or fact not in _CHECKED:
                continue
            have = getattr(value, f"is_{fact}", None)
            if have is True:
                continue
            if fact in ("positive", "nonnegative") and sign_of(value) in (
                ("positive",) if fact == "positive" else ("positive", "nonnegative")
            ):
                continue
            if fact == "nonzero" and _shown_nonzero(value, hypotheses):
                continue
            if fact == "integer" and any(
                isinstance(h, IndexRange) and h.index == value for h in hypotheses
            ):
                continue
            bad.append(f"{key} is {fact} in the lemma, but {sp.sstr(value)} is not known to be {fact}")
    return bad


#: the assumptions checked on an image (the others SymPy derives from these)
_CHECKED = ("integer", "rational", "irrational", "real", "complex", "imaginary", "finite", "positive",
            "nonnegative", "negative", "nonpositive", "nonzero", "zero", "prime", "composite", "even", "odd",
            "noninteger")


def _family_key(f, hypotheses) -> Any:
    """A random family named by its IndexedBase, its RandomFamily object, or its hypothesis name."""
    if isinstance(f, RandomFamily):
        return f.base
    if isinstance(f, str):
        for h in hypotheses:
            if isinstance(h, RandomFamily) and h.name == f:
                return h.base
    return f


def _moments_agree(g: RandomFamily, h: RandomFamily) -> bool:
    needed = dict(h.moments or ())
    have = dict(g.moments or ())
    return all(order in have and equal(have[order], value) for order, value in needed.items())


def _hypothesis_holds(h, ctx, used_hyps=()) -> bool:
    from symattn.rules.sums import index_in_range

    if isinstance(h, Equation):
        return any(
            isinstance(g, Equation) and equal(g.lhs, h.lhs) and equal(g.rhs, h.rhs) for g in ctx.hypotheses
        )
    if isinstance(h, IndexRange):
        return index_in_range(h.index, h.lower, h.upper, ctx.hypotheses)
    if isinstance(h, RandomFamily):
        return any(
            isinstance(g, RandomFamily)
            and g.base == h.base
            and equal(g.dim, h.dim)
            and equal(g.mean, h.mean)
            and equal(g.variance, h.variance)
            and _moments_agree(g, h)
            for g in ctx.hypotheses
        )
    if isinstance(h, Independent):
        want = {_family_key(f, used_hyps) for f in h.families}
        return any(
            isinstance(g, Independent) and want <= {_family_key(f, ctx.hypotheses) for f in g.families}
            for g in ctx.hypotheses
        )
    if isinstance(h, Assumption):
        cond = h.condition
        if cond is None or isinstance(cond, str):
            return any(isinstance(g, Assumption) and g.text == h.text for g in ctx.hypotheses)
        if cond is sp.true or cond is True:
            return True
        try:
            if sp.ask(cond) is True:  # implied by the symbols' own assumptions (e.g. Q.real(c) for real c)
                return True
        except (TypeError, ValueError, AttributeError, NotImplementedError):
            pass
        return any(isinstance(g, Assumption) and g.condition == cond for g in ctx.hypotheses)
    # any other kind of hypothesis: the user must state the same one (same fields, any name)
    fields = {k: v for k, v in vars(h).items() if k != "name"}
    return any(
        type(g) is type(h) and {k: v for k, v in vars(g).items() if k != "name"} == fields for g in ctx.hypotheses
    )


def _apply_under_binder(thm, mapping, loose, lhs, rhs, ctx):
    wilds = {x: sp.Wild(f"w_{x}") for x in loose}
    pmap = {k: substitute(v, wilds) for k, v in mapping.items()}
    L = substitute(thm.statement.lhs, pmap)
    R = substitute(thm.statement.rhs, pmap)
    problems: list = []

    def rewriter(a, b):
        def repl(**match):
            m = {w: match[w.name] for w in wilds.values() if w.name in match}
            image = {k: v.xreplace(m) for k, v in pmap.items()}
            bad = image_conditions(image, ctx.hypotheses)
            if bad:
                problems.extend(bad)
                return a.xreplace(m)
            return b.xreplace(m)

        return repl

    for a, b in ((L, R), (R, L)):
        try:
            out = lhs.replace(a, rewriter(a, b), exact=False) if isinstance(lhs, sp.Basic) else lhs
        except (TypeError, ValueError, AttributeError):
            continue
        if out != lhs and _same(out, rhs):
            ctx.used.add(thm.id)
            return passed(f"instance of {thm.id} under a binder (its symbols' assumptions checked on the image)")
    if problems:
        return failed("; ".join(sorted(set(problems))))
    return None


def _same(a: Any, b: Any) -> bool:
    """``equal``, but False (not an error) when the sides are of different kinds or shapes: a
    matrix identity used to rewrite inside a scalar is not a whole-step instance."""
    try:
        return equal(a, b)
    except RuleError:
        return False


@rule(
    "apply_theorem",
    "use a registered theorem with its symbols instantiated (its hypotheses must hold here)",
    params=("theorem", "mapping"),
)
def check_apply_theorem(lhs, rhs, relation, ctx, theorem=None, mapping=None):
    if theorem is None:
        raise RuleError("apply_theorem needs theorem=<theorem id>")
    if ctx.registry is None:
        raise RuleError("no registry available to look theorems up")
    if theorem == ctx.theorem_id or theorem in ctx.stack:
        raise RuleError(f"circular use of {theorem!r} (chain: {' -> '.join(ctx.stack + (ctx.theorem_id,))})")
    try:
        thm = ctx.registry.get(theorem)
    except KeyError as exc:
        raise RuleError(str(exc)) from None
    mapping = dict(mapping or {})
    L, R, hyps = instantiate(thm, mapping)
    missing = [h.name for h in hyps if not _hypothesis_holds(h, ctx, hyps)]
    if missing:
        return failed(f"hypotheses of {theorem} not available here: {missing}")
    if ctx.verdict_of is not None:
        from symattn.verdict import Verdict

        v = ctx.verdict_of(theorem)
        if v == Verdict.REFUTED:
            return failed(f"{theorem} is refuted")
    direct = _apply_direct(thm, L, R, mapping, lhs, rhs, relation, ctx)
    if direct.ok:
        return direct
    # a mapping value may name the variable of a binder in the step (the lemma used under a sum):
    # such names are not free in the step, so they become pattern variables matched against the
    # bound variable, and the conditions are checked again on the matched image
    free_here = free_symbols(lhs) | free_symbols(rhs)
    loose = sorted({x for v in mapping.values() for x in free_symbols(v)} - free_here
                   - free_symbols(thm.statement.lhs) - free_symbols(thm.statement.rhs), key=str)
    if loose and thm.statement.relation == "=" and relation == "=":
        result = _apply_under_binder(thm, mapping, loose, lhs, rhs, ctx)
        if result is not None:
            return result
    return direct


def _apply_direct(thm, L, R, mapping, lhs, rhs, relation, ctx):
    theorem = thm.id
    bad = image_conditions(mapping, ctx.hypotheses)
    if bad:
        return failed("; ".join(bad))
    rel = thm.statement.relation
    ok = False
    if rel == "=":
        if relation == "=":
            # cheap rewrites first: the same acceptance set, in an order that avoids slow failing
            # comparisons of whole steps when the theorem is used inside a larger expression
            forward, backward = rewrite(lhs, L, R), rewrite(lhs, R, L)
            ok = (
                (forward != lhs and _same(forward, rhs))
                or (backward != lhs and _same(backward, rhs))
                or (_same(lhs, L) and _same(rhs, R))
                or (_same(lhs, R) and _same(rhs, L))
                or equal(forward, rhs)
                or equal(backward, rhs)
            )
    else:
        flipped = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}[rel]
        ok = (relation_implies(rel, relation) and equal(lhs, L) and equal(rhs, R)) or (
            relation_implies(flipped, relation) and equal(lhs, R) and equal(rhs, L)
        )
    if not ok:
        return failed(f"the step is not an instance of {theorem}: {sp.sstr(L)} {rel} {sp.sstr(R)}")
    ctx.used.add(theorem)
    return passed(f"instance of {theorem}")
