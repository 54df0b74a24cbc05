"""Issue 18, class 1 (signs decided by calculus) for the range schemas.

The range test signs an expression linear in a ranged index by its value at one end of the range. A step
function is not linear: SymPy differentiates ``floor(x)`` to 0, so a test that read linearity off the
derivative would sign ``floor(x) - x`` (negative between integers) by its value at an integer end. The
kernel reads linearity with ``Poly`` only; each false claim below must stay unsigned, each true claim of
the same shape must be signed.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.kernel.schemas.ranges import range_sign

x = sp.Symbol("x", real=True)
i, n = sp.symbols("i n", integer=True, positive=True)
R = [(x, 0, n)]

FALSE = [  # each is negative somewhere in 0 <= x <= n (1 <= i <= n); a derivative-based test signs most
    sp.Piecewise((1, x < 1), (-1, True)),
    sp.Piecewise((1, x < 1), (0, True)) - sp.Rational(1, 2),
    sp.Piecewise((x + 1, x < 1), (x - 5, True)) - x,
    sp.Piecewise((2, x <= 1), (-3, True)),
    sp.Piecewise((1, i < 2), (-1, True)),
    3 - 4 * sp.Piecewise((0, x < 1), (1, True)),
    sp.floor(x) - x,
    1 - 2 * sp.Heaviside(x - 1),
    sp.ceiling(x) - x - sp.Rational(1, 2),
]

TRUE = [
    n - x,
    x,
    2 * x + 1,
    n + 1 - x,
    i - 1 + 0 * x,
    (n - x) + (x - 0),
    3 * (n - x),
    x + n,
]


@pytest.mark.parametrize("expr", FALSE, ids=[sp.sstr(e) for e in FALSE])
def test_a_step_function_is_never_signed_as_if_linear(expr):
    assert range_sign(expr, R + [(i, 1, n)]) is None


@pytest.mark.parametrize("expr", TRUE, ids=[sp.sstr(e) for e in TRUE])
def test_a_linear_expression_is_signed_at_the_end_of_its_range(expr):
    assert range_sign(expr, R + [(i, 1, n)]) in ("positive", "nonnegative")
