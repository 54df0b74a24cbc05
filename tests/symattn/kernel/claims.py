"""Claim tables for the kernel's soundness tests: a claim, its most plausible derivation, and (for a
false claim) the step that must fail and a word of the reason it must fail for.

Each test module lists ``FALSE_CLAIMS`` and ``TRUE_CLAIMS`` of one class of hole (issue 10); the
claims go through the public API only (Statement, Theorem, Derivation, Checker).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from symattn import Derivation, Statement, Theorem
from symattn.engine.checker import Checker
from symattn.engine.verdict import Level, Verdict
from symattn.kernel.context import HYPOTHESES


def check_chain(lhs, rhs, steps, hyps=(), dims=(), tid="claim"):
    """Check the theorem ``lhs = rhs`` (under ``hyps``, with dimensions ``dims``) whose derivation is the
    chain of ``(expr, rule)`` steps, numeric level off."""
    from symattn.engine.checker import check_theorem

    def derivation():
        d = Derivation(lhs)
        for expr, rule in steps:
            d = d.eq(expr, rule)
        return d

    thm = Theorem(id=tid, title=tid, source="test", statement=Statement(lhs, rhs), hypotheses=tuple(hyps),
                  derivation=derivation, dimensions=tuple(dims))
    return check_theorem(thm, numeric=False)

@dataclass(frozen=True)
class Claim:
    id: str
    lhs: Any
    rhs: Any
    steps: tuple  # ((expr, rule, relation, args), ...)
    relation: str = "="
    hypotheses: tuple = ()
    bad_step: int = 0  # 1-based step that must fail (false claims)
    why: str = ""  # a word of the failing step's reason (lower case)
    dimensions: tuple = field(default_factory=tuple)

    def theorem(self) -> Theorem:
        d = Derivation(self.lhs)
        for expr, rule, rel, args in self.steps:
            d.step(expr, rule, rel, **args)
        return Theorem(
            id=self.id, title=self.id, statement=Statement(self.lhs, self.rhs, self.relation),
            source="extension", hypotheses=self.hypotheses, derivation=d, dimensions=self.dimensions,
        )


def step(expr, rule, relation="=", **args):
    return (expr, rule, relation, args)


def check(claim: Claim):
    return Checker(numeric=False).check(claim.theorem())


def assert_rejected(claim: Claim) -> None:
    """The claim is not proved, its derivation fails (not undecided) at the named step, for the
    named reason."""
    out = check(claim)
    assert out.verdict is not Verdict.PROVED, out.how
    sym = out.levels["symbolic"]
    assert sym.status is Level.FAIL, f"{claim.id}: symbolic level {sym.status.value}: {sym.detail}"
    if not out.steps:  # refused before any step: an ill-formed term (kernel.wellformed), named in the detail
        assert "does not accept" in sym.detail and claim.why in sym.detail.lower(), f"{claim.id}: {sym.detail}"
        return
    res = out.steps[claim.bad_step - 1]
    assert res.status is Level.FAIL, f"{claim.id}: step {claim.bad_step} is {res.status.value}: {res.reason}"
    assert claim.why in res.reason.lower(), f"{claim.id}: step {claim.bad_step} failed for another reason: {res.reason}"


def assert_proved(claim: Claim) -> None:
    out = check(claim)
    sym = out.levels["symbolic"]
    assert sym.status is Level.PASS, f"{claim.id}: {sym.detail}"
    assert out.verdict is Verdict.PROVED, out.how


# common symbols
x, y, z = sp.symbols("x y z", real=True)
p = sp.Symbol("p", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True)
i, j, h = sp.symbols("i j h", integer=True, positive=True)
s = sp.IndexedBase("s", real=True)
xs = sp.IndexedBase("x")
delta = sp.KroneckerDelta


@contextlib.contextmanager
def under(*hypotheses):
    """The step's hypotheses, as :func:`symattn.rules.check_step` sets them."""
    token = HYPOTHESES.set(tuple(hypotheses))
    try:
        yield
    finally:
        HYPOTHESES.reset(token)
