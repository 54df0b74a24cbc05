"""Issue 18, class 10 (ranges) and issue 19, class 5 (one convention for reversed ranges).

Sums are evaluated by the kernel only, by Karr's convention (SymPy's, the sign test's):
``sum_{k=a}^{b} f = -sum_{k=b+1}^{a-1} f`` for ``b < a - 1``, so a constant sums to ``c (b - a + 1)`` and
Faulhaber's forms telescope for every pair of integer bounds; a bound that is not shown an integer
(``n/2``) gives no count, unless the hypotheses make it whole (an integer ``T = N/B``, or ``Eq(Mod(n, 2),
0)``). The zero test never lets SymPy evaluate a sum (every sum is an opaque atom to it).
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.language.statement import Assumption, Equation
from symattn.rules import ProofContext, check_step

n = sp.Symbol("n", integer=True, positive=True)
m = sp.Symbol("m", integer=True)
B, T = sp.symbols("B T", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
x = sp.IndexedBase("x")

EVEN = Assumption("n_even", condition=sp.Eq(sp.Mod(n, 2), 0), text="n even")
TILES = Equation("tiles", lhs=T, rhs=n / B)

# (lhs, rhs, rule, hypotheses): false, or not shown by the kernel: none may pass
FALSE = [
    (sp.Sum(1, (k, 1, n / 2)), n / 2, "sum_evaluate", ()),
    (sp.Sum(1, (k, 1, n / 2)), n / 2, "algebra", ()),
    (sp.Sum(k, (k, 1, n / 2)), n * (n + 2) / 8, "sum_evaluate", ()),
    (sp.Sum(3, (k, 1, n / B)), 3 * n / B, "sum_evaluate", ()),
    (sp.Sum(sp.Abs(k) - k, (k, 1, -5)), 0, "algebra", ()),  # Karr: the sum is -20
    (sp.Sum(1, (k, 1, m)), sp.Max(m, 0), "sum_evaluate", ()),  # Karr: m, also for m < 0
    (sp.Sum(k, (k, 3, 1)), 0, "sum_evaluate", ()),  # Karr: -2
    (sp.Sum(1, (k, 1, n)), n + 1, "sum_evaluate", ()),
    (sp.Sum(x[k], (k, 1, n / 2)), sp.Sum(x[k], (k, 1, n)) / 2, "algebra", ()),
    (sp.Sum(sp.binomial(n, k) * (-1) ** k * k, (k, 0, n)), 0, "algebra", ()),  # false at n = 1
]

# the true claims of the same shapes: each must pass
TRUE = [
    (sp.Sum(1, (k, 1, n / 2)), n / 2, "sum_evaluate", (EVEN,)),
    (sp.Sum(3, (k, 1, n / B)), 3 * n / B, "sum_evaluate", (TILES,)),
    (sp.Sum(1, (k, 1, m)), m, "sum_evaluate", ()),  # Karr, any integer m
    (sp.Sum(k, (k, 3, 1)), -2, "sum_evaluate", ()),
    (sp.Sum(1, (k, 1, n)), n, "sum_evaluate", ()),
    (sp.Sum(k, (k, 1, n)), n * (n + 1) / 2, "sum_evaluate", ()),
    (sp.Sum(2 * x[k], (k, 1, n)), 2 * sp.Sum(x[k], (k, 1, n)), "sum_linearity", ()),
    (sp.Sum(1, (k, 5, 3)), -1, "sum_evaluate", ()),
]


def _status(lhs, rhs, rule, hyps):
    return check_step(lhs, rhs, "=", rule, {}, ProofContext(hypotheses=hyps)).status


@pytest.mark.parametrize("lhs, rhs, rule, hyps", FALSE, ids=[f"{sp.sstr(a)}={sp.sstr(b)}" for a, b, *_ in FALSE])
def test_a_sum_over_a_bound_not_shown_integer_or_by_another_convention_is_not_proved(lhs, rhs, rule, hyps):
    assert _status(lhs, rhs, rule, hyps) is not Level.PASS


@pytest.mark.parametrize("lhs, rhs, rule, hyps", TRUE, ids=[f"{sp.sstr(a)}={sp.sstr(b)}" for a, b, *_ in TRUE])
def test_the_same_shapes_are_proved_by_karrs_convention_over_whole_bounds(lhs, rhs, rule, hyps):
    assert _status(lhs, rhs, rule, hyps) is Level.PASS
