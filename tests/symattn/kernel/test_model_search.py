"""The model search draws a symbol confined by ``Contains(s, S)`` from ``S`` itself, and the expander
unfolds the heads of registered definitions (not only symattn's own)."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.kernel.search import expand_finite, find_model
from symattn.language.statement import Assumption

n = sp.Symbol("n", integer=True, positive=True)
x = sp.Symbol("x", real=True)


@pytest.mark.parametrize(
    "sym, where",
    [
        (n, sp.FiniteSet(16, 128, 1024)),
        (n, sp.FiniteSet(-3, 1000)),  # only 1000 fits n's positivity
        (n, sp.Interval.open(3, 5)),
        (n, sp.Interval(7, sp.oo)),
        (x, sp.Interval(2, 3)),
        (x, sp.Interval.Lopen(-sp.oo, -2)),
        (x, sp.Interval.open(sp.Rational(1, 3), sp.Rational(1, 2))),
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_symbol_confined_to_a_set_gets_a_member_of_it(sym, where, seed):
    model, reasons = find_model([n + x], [Assumption("in_set", condition=sp.Contains(sym, where))], seed=seed)
    assert model is not None, reasons
    value = model.values[sym]
    assert where.contains(value) is sp.true
    assert all(ok == "true" for _, ok in model.holds)


@pytest.mark.parametrize(
    "where",
    [sp.S.EmptySet, sp.FiniteSet(-1, 0), sp.Interval(sp.Rational(1, 3), sp.Rational(2, 3))],
)
def test_a_set_with_no_admissible_member_has_no_model(where):
    # n is a positive integer: none of these sets holds one
    model, reasons = find_model([n], [Assumption("in_set", condition=sp.Contains(n, where))])
    assert model is None and reasons


def test_two_sets_for_one_symbol_are_intersected():
    hyps = [Assumption("a", condition=sp.Contains(n, sp.FiniteSet(2, 16, 128))),
            Assumption("b", condition=sp.Contains(n, sp.Interval(10, 100)))]
    model, reasons = find_model([n], hyps)
    assert model is not None and model.values[n] == 16, reasons


class _Twice(sp.Function):
    """A head defined outside symattn (as a derivation module defines LayerNorm)."""

    nargs = 1

    def twice(self):  # a helper of its own (a head may not override SymPy's doit)
        return 2 * self.args[0]


def test_the_expander_unfolds_a_registered_definition_but_not_an_unregistered_head():
    assert expand_finite(_Twice(x)) == _Twice(x)  # not a definition: left alone
    from symattn.kernel.zero import UNFOLDINGS
    from symattn.rules.definitions import DEFINITIONS, define

    define("_test_twice", _Twice, lambda e: e.twice())
    try:
        assert expand_finite(_Twice(x)) == 2 * x
    finally:
        DEFINITIONS.pop("_test_twice", None)
        UNFOLDINGS.pop(_Twice, None)
