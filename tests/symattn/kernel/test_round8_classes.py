"""Adversarial review 8: a ``define()``d head with a pole, ``Inv(x) := 1/x``, evaluated at a point where
its argument is 0. SymPy folds ``0 * Inv(0)`` to 0 before the head is unfolded, so ``(n - 1) Inv(n - 1)
+ delta(n, 1) = 1`` counted n = 1 (where its left side is undefined) and ``x Inv(x) + 1 = 2 x Inv(x)``
(true wherever defined) was refuted at x = 0 with "left = 1, right = 0". The definedness conditions
are read on the statement as stated, before any value is put in: a size where one vanishes is
outside the statement's domain (skipped, said), a point where one vanishes is no counterexample."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.rules.definitions import define


class Round8Inv(sp.Function):
    """1/x, a user's head with a pole at 0."""


define("round8_inv", Round8Inv, lambda e: 1 / e.args[0], text="1/x")
Inv = Round8Inv
n = sp.Symbol("n", integer=True, positive=True)
x = sp.Symbol("x", real=True)


def _check(st, dims=()):
    thm = Theorem(id="r8", title="r8", source="extension", statement=st, dimensions=dims)
    return check_theorem(thm, numeric=False)


UNDEFINED_AT_ONE = [
    ("delta_patch", Statement((n - 1) * Inv(n - 1) + sp.KroneckerDelta(n, 1), 1)),
    ("square", Statement((n - 1) ** 2 * Inv(n - 1), n - 1)),
    ("same_domain", Statement((n - 1) * Inv(n - 1) + 1, 2 * (n - 1) * Inv(n - 1))),
    ("shifted", Statement((n - 1) * (n + 1) * Inv(n - 1), n + 1)),
]

TRUE_AT_POINTS = [
    ("same_domain_real", Statement(x * Inv(x) + 1, 2 * x * Inv(x))),
    ("cancel_real", Statement(x**2 * Inv(x), x * x**2 * Inv(x) ** 2 * Inv(x) * x)),
    ("inverse_of_inverse", Statement(Inv(Inv(x)) * x * Inv(x), Inv(Inv(x)) * Inv(x) * x)),
    ("scaled", Statement(2 * x * Inv(x), x * Inv(x) + x * Inv(x))),
]

FALSE_WHERE_DEFINED = [
    ("ratio_is_two", Statement((n - 1) * Inv(n - 1), 2), "n = 2"),
    ("square_wrong", Statement((n - 1) ** 2 * Inv(n - 1), n), "n = 2"),
    ("real_ratio_two", Statement(x * Inv(x), 2), None),
    ("real_shift", Statement(x * Inv(x) + 1, 3 * x * Inv(x)), None),
]


@pytest.mark.parametrize("name,st", UNDEFINED_AT_ONE, ids=[c[0] for c in UNDEFINED_AT_ONE])
def test_a_size_where_a_head_pole_vanishes_is_outside_the_statement(name, st):
    o = _check(st, dims=(n,))
    lv = o.levels["instances"]
    assert "n = 1: the statement is not defined there" in lv.detail, lv.detail
    assert o.verdict is not Verdict.REFUTED, o.how


@pytest.mark.parametrize("name,st", TRUE_AT_POINTS, ids=[c[0] for c in TRUE_AT_POINTS])
def test_a_point_where_a_head_is_undefined_is_no_counterexample(name, st):
    o = _check(st)
    assert o.verdict is not Verdict.REFUTED, o.how


@pytest.mark.parametrize("name,st,at", FALSE_WHERE_DEFINED, ids=[c[0] for c in FALSE_WHERE_DEFINED])
def test_a_false_claim_is_still_refuted_where_the_head_is_defined(name, st, at):
    o = _check(st, dims=(n,) if at else ())
    assert o.verdict is Verdict.REFUTED, o.how
    if at:
        assert at in o.how, o.how
    assert "x = 0" not in o.how, o.how
