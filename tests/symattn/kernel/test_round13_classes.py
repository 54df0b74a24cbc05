"""Adversarial review 13: values that may be infinite reached the kernel through undefined functions
and indexed bases.

A symbol declared ``extended_real`` (or ``infinite``, ``noninteger``, ``extended_positive``, ...) was
already refused: it may be +-oo, where ``x - x`` and ``0 x`` are undefined and ``x < x + 1`` is false.
The same declarations on an undefined function (``Function("fe", extended_real=True)``) or on an
indexed base or its label (``IndexedBase(Symbol("s", extended_real=True))``) were accepted, and
``fe(x) < fe(x) + 1``, ``fe(x) (1 + x) - fe(x) x = fe(x)``, ``|fi(x)| < |fi(x)| + 1`` were proved.
They are now refused as terms, naming the application and its assumptions.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Verdict

from .claims import Claim, check, step

x = sp.Symbol("x", real=True)
fe = sp.Function("fe", extended_real=True)
fi = sp.Function("fi", infinite=True)
fni = sp.Function("fni", noninteger=True)
fnz = sp.Function("fnz", extended_nonzero=True)
fep = sp.Function("fep", extended_positive=True)
sb = sp.IndexedBase(sp.Symbol("sb", extended_real=True))
sc = sp.IndexedBase("sc", extended_nonnegative=True)
ONE = sp.Integer(1)


def _lt(tid, a, b, rule):
    return Claim(tid, a, b, (step(b, rule, "<"),), relation="<")


def _eq(tid, a, b):
    return Claim(tid, a, b, (step(b, "algebra"),))


FALSE = [
    _lt("fe_below_fe_plus_1", fe(x), fe(x) + 1, "inequality"),
    _lt("fe_minus_1_below_fe", fe(x) - 1, fe(x), "positivity"),
    _lt("fe_square_gap", fe(x) ** 2 + 1, fe(x) ** 2 + 2, "inequality"),
    _lt("exp_fe_gap", sp.exp(fe(x)), sp.exp(fe(x)) + 1, "positivity"),
    _lt("abs_fi_gap", sp.Abs(fi(x)), sp.Abs(fi(x)) + 1, "inequality"),
    _lt("fni_gap", fni(x), fni(x) + 1, "inequality"),
    _lt("fep_gap", fep(x), fep(x) + 1, "positivity"),
    _lt("sb_gap", sb[1], sb[1] + 1, "inequality"),
    _lt("sc_gap", sc[2], sc[2] + 1, "positivity"),
    _eq("fe_distributes", fe(x) * (1 + x) - fe(x) * x, fe(x)),
    _eq("log_exp_fe", sp.log(sp.exp(fe(x))), fe(x)),
    _eq("fnz_square", (fnz(x) + 1) ** 2 - fnz(x) ** 2, 2 * fnz(x) + 1),
    _eq("sb_square", (sb[1] + 1) ** 2 - sb[1] ** 2, 2 * sb[1] + 1),
]


@pytest.mark.parametrize("claim", FALSE, ids=[c.id for c in FALSE])
def test_claims_about_values_that_may_be_infinite_are_refused_as_terms(claim):
    out = check(claim)
    assert out.verdict is not Verdict.PROVED, out.how
    assert "may be infinite" in out.how, out.how


g = sp.Function("g", real=True)
gp = sp.Function("gp", positive=True)
h = sp.Function("h")  # complex, finite
s = sp.IndexedBase("s", real=True)
sl = sp.IndexedBase(sp.Symbol("sl", real=True))
TRUE = [
    _lt("g_below_g_plus_1", g(x), g(x) + 1, "inequality"),
    _lt("g_minus_1_below_g", g(x) - 1, g(x), "positivity"),
    _lt("exp_g_gap", sp.exp(g(x)), sp.exp(g(x)) + 1, "positivity"),
    _lt("gp_gap", gp(x), gp(x) + 1, "positivity"),
    _lt("s_gap", s[1], s[1] + 1, "inequality"),
    _lt("sl_gap", sl[1], sl[1] + 1, "inequality"),
    _eq("g_distributes", g(x) * (1 + x) - g(x) * x, g(x)),
    _eq("h_distributes", h(x) * (1 + x) - h(x) * x, h(x)),
    _eq("s_square", (s[1] + 1) ** 2 - s[1] ** 2, 2 * s[1] + 1),
]


@pytest.mark.parametrize("claim", TRUE, ids=[c.id for c in TRUE])
def test_the_same_claims_about_finite_values_are_proved(claim):
    out = check(claim)
    assert out.verdict is Verdict.PROVED, out.how
