"""Adversarial review 7: a derivative of symbolic order ``d^n/dx^n`` given to ``differentiate`` ended in
SymPy's "Cannot convert symbols to int" as the step's reason. The core takes derivatives of a literal
order only; a symbolic order is refused with a reason that says so (an n-th derivative is a claim by
induction), and literal orders are evaluated as before."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Derivation, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem

n = sp.Symbol("n", integer=True, positive=True)
a, x = sp.symbols("a x", real=True)
D = sp.Derivative


def _check(lhs, rhs, dims=(n,)):
    thm = Theorem(id="d", title="d", source="extension", statement=Statement(lhs, rhs), dimensions=dims,
                  derivation=lambda: Derivation(lhs).eq(rhs, "differentiate"))
    return check_theorem(thm, numeric=False)


SYMBOLIC_ORDER = [
    ("exp", D(sp.exp(a * x), (x, n)), a**n * sp.exp(a * x)),
    ("cube_vanishes", D(x**3, (x, n)), sp.S(0)),
    ("power", D(x**n, (x, n)), sp.factorial(n)),
    ("sine", D(sp.sin(x), (x, n)), sp.sin(x + n * sp.pi / 2)),
    ("shifted_order", D(sp.exp(x), (x, n + 1)), sp.exp(x)),
    ("double_order", D(sp.exp(2 * x), (x, 2 * n)), 4**n * sp.exp(2 * x)),
    ("polynomial", D(x**2 + x, (x, n)), sp.S(0)),
    ("log", D(sp.log(1 + x**2), (x, n)), sp.S(0)),
]

LITERAL_ORDER = [
    ("exp_3", D(sp.exp(a * x), (x, 3)), a**3 * sp.exp(a * x)),
    ("cube_4", D(x**3, (x, 4)), sp.S(0)),
    ("sine_2", D(sp.sin(x), (x, 2)), -sp.sin(x)),
    ("power_2", D(x**5, (x, 2)), 20 * x**3),
]


@pytest.mark.parametrize("name,lhs,rhs", SYMBOLIC_ORDER, ids=[c[0] for c in SYMBOLIC_ORDER])
def test_a_derivative_of_symbolic_order_is_refused_with_its_reason(name, lhs, rhs):
    o = _check(lhs, rhs)
    assert o.verdict is not Verdict.PROVED, o.how
    assert "not a literal nonnegative integer" in o.how, o.how
    assert "Cannot convert" not in o.how and "TypeError" not in o.how, o.how


@pytest.mark.parametrize("name,lhs,rhs", LITERAL_ORDER, ids=[c[0] for c in LITERAL_ORDER])
def test_a_derivative_of_literal_order_is_still_evaluated(name, lhs, rhs):
    o = _check(lhs, rhs, dims=())
    assert o.verdict is Verdict.PROVED, o.how
