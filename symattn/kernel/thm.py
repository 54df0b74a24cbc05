"""Theorems as values: the LCF discipline of the core.

A :class:`Thm` is a fact ``lhs REL rhs`` the core has shown. Only the functions of this module (and the
axiom schemas of :mod:`.axioms`, through :func:`_make`) construct one: the constructor checks a private
token, so a rule can *hold* a ``Thm`` but never *forge* one. A rule is an untrusted proposer: it picks
which primitive to apply where (which schema, which witness, which intermediate expression) and hands
back the ``Thm``; :func:`accept` (called by :func:`symattn.rules.check_step`) takes a step only when the
rule's ``Thm`` states exactly that step.

The primitives, each deciding by the core's own tests and nothing else:

* :func:`refl` ``e = e``; :func:`sym`; :func:`trans` (relations compose: ``=`` with anything, ``<`` with
  ``<=`` gives ``<``, directions must agree);
* :func:`by_zero` ``lhs = rhs`` by the zero test with its definedness conditions (:mod:`.zero`);
* :func:`by_sign` ``lhs REL rhs`` by the sign test of ``rhs - lhs`` with the ranges (:mod:`.sign`),
  optionally through a ``witness`` first shown equal to the gap by the zero test, and a positive
  ``scale`` shown positive;
* :func:`rewrite` replaces occurrences of an equation's left side by its right side inside a term
  (congruence; refused under a binder whose variable the equation mentions);
* :func:`hypothesis` an ``Equation`` or ``Assumption`` of the theorem, as stated;
* an instance of a registered theorem comes from :func:`symattn.kernel.lemmas.instance` (looked up in the
  step's registry, its hypotheses discharged; the checker caps the verdict by the lemma's own);
* :func:`axiom` an instance of a schema from the one table :data:`symattn.kernel.axioms.SCHEMAS`, with
  its side conditions discharged by the core.

Every decision the core makes is recorded on the ``Thm`` (``checks``: which engine decided which
obligation), so the checker can say per step what was re-checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from symattn.kernel.terms import KernelError, alpha_equal, canonical, free_symbols, is_matrix

__all__ = ["Thm", "refl", "sym", "trans", "by_zero", "by_sign", "rewrite", "hypothesis", "accept",
           "RELATIONS", "within"]

_TOKEN = object()
RELATIONS = ("=", "<=", "<", ">=", ">")
_FLIP = {"=": "=", "<=": ">=", "<": ">", ">=": "<=", ">": "<"}


@dataclass(frozen=True, eq=False)
class _Body:
    lhs: Any
    rhs: Any
    relation: str
    why: str
    checks: tuple
    #: the hypotheses in force where the kernel made it (it holds under them, not beyond)
    context: tuple


class Thm:
    """``lhs relation rhs``, shown by the core. Not constructible outside :mod:`symattn.kernel`."""

    __slots__ = ("_body",)

    def __init__(self, body: _Body, token: object = None):
        if token is not _TOKEN:
            raise KernelError("a Thm is made only by the kernel's primitives (symattn.kernel.thm)")
        object.__setattr__(self, "_body", body)

    def __setattr__(self, name, value):
        raise AttributeError("a Thm is immutable")

    def __reduce__(self):  # a Thm never crosses a process boundary (it would be forged on the way back)
        raise TypeError("a Thm cannot be pickled; send the step's outcome, not the theorem")

    lhs = property(lambda self: self._body.lhs)
    rhs = property(lambda self: self._body.rhs)
    relation = property(lambda self: self._body.relation)
    why = property(lambda self: self._body.why)
    checks = property(lambda self: self._body.checks)
    context = property(lambda self: self._body.context)

    def __repr__(self) -> str:
        return f"Thm({sp.sstr(self.lhs)} {self.relation} {sp.sstr(self.rhs)})"


def _make(lhs: Any, rhs: Any, relation: str, why: str, checks=(), context=None) -> Thm:
    if relation not in RELATIONS:
        raise KernelError(f"unknown relation {relation!r}")
    ctx = _hypotheses() if context is None else tuple(context)
    return Thm(_Body(canonical(lhs), canonical(rhs), relation, why, tuple(checks), ctx), _TOKEN)


def _union(*contexts) -> tuple:
    out: list = []
    for c in contexts:
        for h in c:
            if not any(h is g or h == g for g in out):
                out.append(h)
    return tuple(out)


def within(t: Thm, hypotheses) -> bool:
    """Whether every hypothesis ``t`` was made under is among ``hypotheses``."""
    return all(any(h is g or h == g for g in hypotheses) for h in t.context)


def _take_checks() -> tuple:
    from symattn.kernel import ledger

    return ledger.take()


# ------------------------------------------------------------------------------------ primitives
def refl(e: Any) -> Thm:
    return _make(e, e, "=", "reflexivity")


def sym(t: Thm) -> Thm:
    return _make(t.rhs, t.lhs, _FLIP[t.relation], t.why, t.checks, t.context)


def _compose(r1: str, r2: str) -> str:
    if r1 == "=":
        return r2
    if r2 == "=":
        return r1
    up = {"<=", "<"}
    if (r1 in up) != (r2 in up):
        raise KernelError(f"cannot chain {r1!r} with {r2!r}: the directions differ")
    return r1 if r1 in ("<", ">") else r2


def trans(*ts: Thm) -> Thm:
    """``a R1 b``, ``b R2 c``, ... gives ``a R c``; the middle terms must be alpha-equal."""
    if not ts:
        raise KernelError("trans needs at least one theorem")
    for t in ts:
        _require_thm(t)
    out = ts[0]
    for t in ts[1:]:
        if not alpha_equal(out.rhs, t.lhs):
            raise KernelError(f"trans: {sp.sstr(out.rhs)} is not {sp.sstr(t.lhs)}")
        out = _make(out.lhs, t.rhs, _compose(out.relation, t.relation), f"{out.why}; {t.why}",
                    out.checks + t.checks, _union(out.context, t.context))
    return out


def _hypotheses() -> tuple:
    """The theorem's hypotheses, as :func:`symattn.rules.check_step` set them for this step (never an
    argument: a rule cannot hand the core hypotheses the theorem does not have)."""
    from symattn.kernel.context import HYPOTHESES

    return tuple(HYPOTHESES.get() or ())


def by_zero(lhs: Any, rhs: Any) -> Thm:
    """``lhs = rhs`` by the zero test (definedness conditions included), under the step's hypotheses."""
    from symattn.kernel.zero import zero_test

    test = zero_test(lhs, rhs, _hypotheses())
    checks = _take_checks()
    if not test.ok:
        raise KernelError(test.explain() if test.reduced else "lhs - rhs does not reduce to 0")
    return _make(lhs, rhs, "=", "zero test", checks)


def by_sign(lhs: Any, rhs: Any, relation: str, witness: Any = None, scale: Any = None) -> Thm:
    """``lhs relation rhs`` (an inequality) from the sign of the gap (``rhs - lhs`` for ``<=``/``<``).

    ``witness``: an expression first shown equal to the gap (times ``scale``, itself shown positive) by
    the zero test, whose sign the sign test then reads."""
    from symattn.kernel.context import index_ranges
    from symattn.kernel.sign import sign_of

    if relation not in ("<=", "<", ">=", ">"):
        raise KernelError(f"by_sign proves inequalities, not {relation!r}")
    if is_matrix(lhs) or is_matrix(rhs):
        raise KernelError("inequalities compare scalars, not matrices")
    ranges = index_ranges(_hypotheses())
    gap = (rhs - lhs) if relation in ("<=", "<") else (lhs - rhs)
    checks: tuple = ()
    if scale is not None:
        if sign_of(scale, ranges) != "positive":
            raise KernelError(f"the scale {sp.sstr(scale)} is not shown positive")
        checks += _take_checks()
        gap = scale * gap
    if witness is not None:  # by_zero takes the records of its zero test: they go on this theorem
        checks += by_zero(witness, gap).checks
        gap = witness
    s = sign_of(gap, ranges)
    checks += _take_checks()
    strict = relation in ("<", ">")
    if s == "positive" or (s == "nonnegative" and not strict):
        return _make(lhs, rhs, relation, f"the gap is {s}", checks)
    want = "positive" if strict else "nonnegative"
    raise KernelError(f"the gap {sp.sstr(gap)} is not shown {want} from the assumptions and ranges")


def rewrite(expr: Any, t: Thm) -> Thm:
    """``expr = expr[t.lhs := t.rhs]`` for an equation ``t`` (every occurrence not under a binder that
    binds a variable of ``t``; :func:`canonical` makes bound variables dummies no user term holds)."""
    _require_thm(t)
    if t.relation != "=":
        raise KernelError("only an equation rewrites inside a term")
    e = canonical(expr)
    bound = _binder_vars(e)
    if bound & (free_symbols(t.lhs) | free_symbols(t.rhs)):
        raise KernelError("rewrite would capture a bound variable")
    new = e.xreplace({t.lhs: t.rhs}) if isinstance(e, sp.Basic) else e
    if new == e and isinstance(e, sp.Basic):
        # an occurrence under binders has its bound variables numbered from its depth: match canonically
        # (the right side mentions no variable bound above it, so inserting it captures nothing)
        new = e.replace(lambda x: isinstance(x, sp.Basic) and not x.is_Atom and canonical(x) == t.lhs,
                        lambda x: t.rhs)
    if new == e:
        raise KernelError(f"rewrite: {sp.sstr(t.lhs)} does not occur in {sp.sstr(e)}")
    return _make(e, new, "=", t.why, t.checks, t.context)


def _binder_vars(e: Any) -> set:
    if not isinstance(e, sp.Basic):
        return set()
    out: set = set()
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.concrete.expr_with_limits.ExprWithLimits):
            out |= {lim[0] for lim in node.limits}
        elif isinstance(node, sp.Lambda):
            out |= set(node.variables)
    return out


def _step_hypotheses() -> tuple:
    from symattn.kernel.context import HYPOTHESES

    return tuple(HYPOTHESES.get() or ())


def _member(h: Any) -> None:
    if not any(h is g or h == g for g in _step_hypotheses()):
        raise KernelError(f"{getattr(h, 'name', h)!r} is not a hypothesis of this theorem")


def hypothesis(h: Any) -> Thm:
    """An ``Equation`` hypothesis (without a ``forall``) or an ``Assumption`` relation, as stated."""
    from symattn.language.statement import Assumption, Equation

    _member(h)
    if isinstance(h, Equation):
        if h.forall:
            raise KernelError(f"hypothesis {h.name!r} holds for all {h.forall}: use it through "
                              "symattn.kernel.hypotheses.rewrite_with")
        return _make(h.lhs, h.rhs, "=", f"hypothesis {h.name}")
    if isinstance(h, Assumption) and isinstance(h.condition, sp.core.relational.Relational):
        c = h.condition
        rel = {sp.Eq: "=", sp.Le: "<=", sp.Lt: "<", sp.Ge: ">=", sp.Gt: ">"}.get(type(c))
        if rel is None:
            raise KernelError(f"hypothesis {h.name!r} is not an equation or an inequality")
        return _make(c.lhs, c.rhs, rel, f"hypothesis {h.name}")
    raise KernelError(f"hypothesis {getattr(h, 'name', h)!r} states no relation")


# ------------------------------------------------------------------------------------ acceptance
def _require_thm(t: Any) -> None:
    if not isinstance(t, Thm):
        raise KernelError(f"expected a Thm from the kernel, got {type(t).__name__}")


def _weaker_or_equal(have: str, want: str) -> bool:
    return have == want or (have, want) in {("<", "<="), (">", ">="), ("=", "<="), ("=", ">=")}


def accept(t: Any, lhs: Any, rhs: Any, relation: str) -> bool:
    """Whether the kernel's ``t`` states the step ``lhs relation rhs`` (sides alpha-equal; a stronger
    relation accepted for a weaker one; a flipped theorem accepted) under the step's hypotheses (``t``
    made under no hypothesis the step does not have)."""
    if not isinstance(t, Thm) or not within(t, _hypotheses()):
        return False
    lhs, rhs = canonical(lhs), canonical(rhs)
    for a, b, r in ((t.lhs, t.rhs, t.relation), (t.rhs, t.lhs, _FLIP[t.relation])):
        if _weaker_or_equal(r, relation) and alpha_equal(a, lhs) and alpha_equal(b, rhs):
            return True
    return False
