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

from symattn.kernel.lemmas import image_conditions, instance, instantiate, loose_symbols, rewrite_under
from symattn.kernel.terms import KernelError
from symattn.kernel.thm import by_zero, rewrite, sym, trans
from symattn.rules import RuleError, failed, proved, rule
from symattn.rules.algebra import equal

__all__ = ["instantiate", "image_conditions"]


def _same(a: Any, b: Any) -> bool:
    """``equal``, but False (not an error) when the sides are of different kinds or shapes."""
    try:
        return equal(a, b)
    except RuleError:
        return False


def _close(t, target):
    """``t`` continued to ``target`` by the zero test, or None."""
    if _same(t.rhs, target):
        return trans(t, by_zero(t.rhs, target))
    return None


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
    if ctx.verdict_of is not None:
        from symattn.kernel.verdict import Verdict

        if ctx.verdict_of(theorem) == Verdict.REFUTED:
            return failed(f"{theorem} is refuted")
    try:
        inst = instance(thm, mapping)
    except KernelError as exc:
        inst, why = None, str(exc)
    if inst is not None:
        found = _direct(inst, lhs, rhs, relation)
        if found is not None:
            ctx.used.add(theorem)
            return proved(found, f"instance of {theorem}")
        why = f"the step is not an instance of {theorem}: {sp.sstr(inst.lhs)} {inst.relation} {sp.sstr(inst.rhs)}"
    loose = loose_symbols(thm, mapping, lhs, rhs)
    if loose and thm.statement.relation == "=" and relation == "=":
        for reverse in (False, True):
            try:
                t = rewrite_under(lhs, thm, mapping, loose, reverse=reverse)
            except KernelError as exc:
                if "does not occur" not in str(exc):
                    why = str(exc)
                continue
            done = _close(t, rhs)
            if done is not None:
                ctx.used.add(theorem)
                return proved(done, f"instance of {theorem} under a binder (its symbols' assumptions checked "
                                    "on the image)")
    return failed(why)


def _direct(inst, lhs, rhs, relation):
    """The step from the kernel's instance ``inst``: as a whole, or rewriting inside the left side."""
    if inst.relation == "=":
        if relation != "=":
            return None
        for t in (inst, sym(inst)):
            try:
                r = rewrite(lhs, t)
            except KernelError:
                continue
            done = _close(r, rhs)
            if done is not None:
                return done
        for t in (inst, sym(inst)):
            if _same(lhs, t.lhs) and _same(rhs, t.rhs):
                return trans(by_zero(lhs, t.lhs), t, by_zero(t.rhs, rhs))
        return None
    for t in (inst, sym(inst)):
        if _same(lhs, t.lhs) and _same(rhs, t.rhs):
            return trans(by_zero(lhs, t.lhs), t, by_zero(t.rhs, rhs))
    return None
