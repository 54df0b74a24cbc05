"""A hypothesis ``a b != 0`` shows each factor nonzero, and nothing else (issue 19: the linear
attention instances, whose right side SymPy cancels to a smaller denominator than the normaliser the
hypothesis names). Through the kernel's zero test, with the hypotheses given; a table of conditions
a hypothesis discharges and of look-alikes it must not."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption
from symattn.kernel.zero import zero_test

a, b, c, x, y = sp.symbols("a b c x y", real=True)
s = sp.IndexedBase("s", real=True)


def _hyp(cond):
    return (Assumption("h", condition=cond),)


Q = (x**2 - x) / x  # defined where x != 0; x - 1 everywhere (the README's example)
S = (s[1] ** 2 + s[1] * s[2]) / (s[1] + s[2])  # s_1, where s_1 + s_2 != 0

DISCHARGED = [
    # (lhs, rhs, hypothesis): the lhs needs a denominator the hypothesis' product has as a factor
    ("factor_x", Q, x - 1, sp.Ne(x * y, 0)),
    ("power_factor", Q, x - 1, sp.Ne(x**3 * y, 0)),
    ("negated_product", Q, x - 1, sp.Ne(-x * y, 0)),
    ("under_and", Q, x - 1, sp.And(sp.Ne(x * y, 0), y > 0)),
    ("second_factor", (b**2 - b) / b, b - 1, sp.Ne(a * b, 0)),
    ("expanded_normaliser", S, s[1], sp.Ne(a * s[1] + a * s[2], 0)),
    ("shifted", ((x + 1) ** 2 - (x + 1)) / (x + 1), x, sp.Ne(x * (x + 1), 0)),
    ("three_factors", (y**2 - y) / y, y - 1, sp.Ne(x * y * (x + y), 0)),
]

NOT_DISCHARGED = [
    ("sum_not_a_product", Q, x - 1, sp.Ne(x + y, 0)),
    ("irreducible", Q, x - 1, sp.Ne(x**2 - y**2 + 1, 0)),
    ("other_symbols", Q, x - 1, sp.Ne(a * b, 0)),
    ("sum_of_squares", Q, x - 1, sp.Ne(x**2 + y**2, 0)),
    ("shifted_factor", ((x + 1) ** 2 - (x + 1)) / (x + 1), x, sp.Ne(x * (x + 2), 0)),
    ("entry_mismatch", (s[1] ** 2 - s[1]) / s[1], s[1] - 1, sp.Ne(s[2] * s[3], 0)),
    ("factor_x_minus_one", Q, x - 1, sp.Ne(x * y - y, 0)),
    ("normaliser_of_another_pair", S, s[1], sp.Ne(a * s[1] + a * s[3], 0)),
]


@pytest.mark.parametrize("name,lhs,rhs,cond", DISCHARGED, ids=[c[0] for c in DISCHARGED])
def test_a_factor_of_a_nonzero_product_is_nonzero(name, lhs, rhs, cond):
    out = zero_test(lhs, rhs, _hyp(cond))
    assert out.ok, out


@pytest.mark.parametrize("name,lhs,rhs,cond", NOT_DISCHARGED, ids=[c[0] for c in NOT_DISCHARGED])
def test_what_is_not_a_factor_is_not_discharged(name, lhs, rhs, cond):
    out = zero_test(lhs, rhs, _hyp(cond))
    assert not out.ok, out
    assert out.missing, out
