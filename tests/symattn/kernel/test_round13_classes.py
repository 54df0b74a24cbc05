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


# --------------------------------------------------------------------------- inverse trig, genocchi
m = sp.Symbol("m", integer=True)
mp = sp.Symbol("mp", integer=True, positive=True)
p = sp.Symbol("p", prime=True)
r = sp.Symbol("r", rational=True)


@pytest.mark.parametrize("e", [sp.atan(m), sp.asin(r), sp.acos(r), sp.atan(r), sp.asin(m), sp.acos(m - 1),
                               sp.atan(mp - 1), sp.acos(2 - mp)], ids=str)
def test_an_inverse_trig_value_at_a_rational_that_may_be_its_zero_is_not_called_irrational(e):
    assert e.is_rational is None and e.is_irrational is None
    assert e.is_zero is None and e.is_nonzero is None
    assert sp.sign(e) != 1 and sp.Heaviside(e) not in (0, 1) and sp.KroneckerDelta(e, 0) != 0


@pytest.mark.parametrize("e", [sp.atan(m + sp.S.Half), sp.asin(sp.Rational(1, 3)), sp.acos(sp.Rational(1, 3)),
                               sp.atan(mp), sp.atan(sp.Rational(2, 7))], ids=str)
def test_away_from_its_zero_an_inverse_trig_value_at_a_rational_is_still_irrational(e):
    assert e.is_irrational is True


def test_genocchi_states_no_parity():
    # since review 15 genocchi is one of the SymPy functions the kernel silences (no evaluation, no
    # assumptions) and refuses as a term (test_round15_classes.py): it decides no parity at all
    k0 = sp.Symbol("k0", integer=True, nonnegative=True)
    assert sp.genocchi(p).is_even is None and sp.genocchi(p).is_odd is None
    assert sp.genocchi(2 * k0 + 3).is_even is None and sp.genocchi(2 * k0 + 2).is_odd is None


FOLDED_FALSE = [
    _eq("sign_atan", sp.sign(sp.atan(m)), ONE),                     # 0 at m = 0
    _eq("heaviside_atan", sp.Heaviside(sp.atan(m)), ONE),           # 1/2 at m = 0
    _eq("kronecker_atan", sp.KroneckerDelta(sp.atan(m), 0), sp.Integer(0)),  # 1 at m = 0
    _eq("zero_power_atan", sp.Integer(0) ** sp.atan(m), sp.Integer(0)),      # 0**0 = 1 at m = 0
    _eq("sign_square_asin", sp.sign(sp.asin(r)) ** 2, ONE),          # 0 at r = 0
    _eq("sign_acos", sp.sign(sp.acos(m)) ** 2, ONE),                 # 0 at m = 1
    _eq("genocchi_mod", sp.Mod(sp.genocchi(p), 2), sp.Integer(0)),   # G_2 = -1
    _eq("genocchi_power", (-1) ** sp.genocchi(p), ONE),              # (-1)^(-1) at p = 2
    _lt("atan_positive", sp.Integer(0), sp.atan(mp - 1), "positivity"),  # 0 at mp = 1
]


@pytest.mark.parametrize("claim", FOLDED_FALSE, ids=[c.id for c in FOLDED_FALSE])
def test_claims_folded_by_the_wrong_handlers_are_not_proved(claim):
    assert check(claim).verdict is not Verdict.PROVED


# --------------------------------------------------------------------------- counterexample values
def _by_instances(tid, lhs, rhs, relation="="):
    from symattn import Statement, Theorem

    return Theorem(id=tid, title=tid, source="extension", statement=Statement(lhs, rhs, relation),
                   target="proved-for-instances")


def _base(**assumptions):
    return sp.IndexedBase("b", **assumptions)[1]


ah = sp.Symbol("ah", antihermitian=True)
TRUE_OF_DECLARED_VALUES = [
    _by_instances("antihermitian_square", ah**2, sp.Integer(0), "<="),
    _by_instances("antihermitian_conjugate", sp.conjugate(ah), -ah),
    _by_instances("antihermitian_real_part", sp.re(ah), sp.Integer(0)),
    _by_instances("prime_entry", sp.Integer(2), _base(prime=True), "<="),
    _by_instances("composite_entry", sp.Integer(4), _base(composite=True), "<="),
    _by_instances("irrational_entry", sp.Integer(0), sp.frac(_base(irrational=True)), "<"),
    _by_instances("noninteger_entry", sp.Integer(0), sp.frac(_base(real=True, integer=False)), "<"),
    _by_instances("odd_entry", sp.Mod(_base(odd=True), 2), ONE),
    _by_instances("even_entry", sp.Mod(_base(even=True), 2), sp.Integer(0)),
    _by_instances("antihermitian_entry", _base(antihermitian=True) ** 2, sp.Integer(0), "<="),
]


@pytest.mark.parametrize("thm", TRUE_OF_DECLARED_VALUES, ids=[t.id for t in TRUE_OF_DECLARED_VALUES])
def test_no_counterexample_breaks_a_declared_assumption(thm):
    from symattn.engine.checker import check_theorem

    out = check_theorem(thm, numeric=False)
    assert out.verdict is not Verdict.REFUTED, out.how


FALSE_OF_DECLARED_VALUES = [
    _by_instances("prime_entry_3", sp.Integer(3), _base(prime=True), "<="),        # 2
    _by_instances("composite_entry_5", sp.Integer(5), _base(composite=True), "<="),  # 4
    _by_instances("odd_entry_even", sp.Mod(_base(odd=True), 2), sp.Integer(0)),
    _by_instances("even_entry_odd", sp.Mod(_base(even=True), 2), ONE),
    _by_instances("antihermitian_nonzero_square", ah**2, sp.Integer(0), "<"),        # 0 at ah = 0
    _by_instances("positive_entry_above_1", ONE, _base(positive=True), "<"),
    _by_instances("integer_entry_nonzero", sp.Integer(0), _base(integer=True) ** 2, "<"),
    _by_instances("negative_entry_below_minus_1", _base(negative=True), -ONE, "<"),
]


@pytest.mark.parametrize("thm", FALSE_OF_DECLARED_VALUES, ids=[t.id for t in FALSE_OF_DECLARED_VALUES])
def test_false_claims_are_refused_at_values_inside_the_declared_assumptions(thm):
    from symattn.engine.checker import check_theorem

    out = check_theorem(thm, numeric=False)
    assert out.verdict not in (Verdict.PROVED, Verdict.PROVED_FOR_INSTANCES), out.how


# --------------------------------------------------------------------------- derivatives of non-smooth heads
NONSMOOTH_FALSE = [
    _eq("d_max_0", sp.Derivative(sp.Max(x, 0), x), sp.Heaviside(x)),
    _eq("d_max_1", sp.Derivative(sp.Max(x, 1), x), sp.Heaviside(x - 1)),
    _eq("d_min_0", sp.Derivative(sp.Min(x, 0), x), 1 - sp.Heaviside(x)),
    _eq("d_abs", sp.Derivative(sp.Abs(x), x), sp.sign(x)),
    _eq("d_max_abs", sp.Derivative(sp.Max(sp.Abs(x), 1), x), sp.sign(x) * sp.Heaviside(sp.Abs(x) - 1)),
    _eq("d_piecewise", sp.Derivative(sp.Piecewise((x, x > 0), (1, True)), x), sp.Piecewise((1, x > 0), (0, True))),
    _eq("d_subs_max", sp.Subs(sp.Derivative(sp.Max(x, 0), x), x, 0), sp.S.Half),
    _eq("d_floor", sp.Derivative(sp.floor(x), x), sp.Integer(0)),
    _eq("d_heaviside_sq", sp.Derivative(sp.Heaviside(x) * x**2, x), 2 * x * sp.Heaviside(x)),
]


@pytest.mark.parametrize("engines", ["both", "first"])
@pytest.mark.parametrize("claim", NONSMOOTH_FALSE, ids=[c.id for c in NONSMOOTH_FALSE])
def test_a_derivative_of_a_non_smooth_head_is_not_evaluated_by_the_zero_test(claim, engines, monkeypatch):
    from symattn.kernel import grading

    if engines == "first":
        monkeypatch.setattr(grading, "REQUIRE_RECHECK", False)
    out = check(claim)
    assert out.verdict is not Verdict.PROVED, out.how


C = sp.Symbol("c", real=True)
SMOOTH_TRUE = [
    _eq("d_square", sp.Derivative(x**2, x), 2 * x),
    _eq("d_exp_sin", sp.Derivative(sp.exp(sp.sin(x)), x), sp.cos(x) * sp.exp(sp.sin(x))),
    _eq("d_log", sp.Derivative(sp.log(1 + x**2), x), 2 * x / (1 + x**2)),
    _eq("d_max_const", sp.Derivative(x * sp.Max(C, 1), x), sp.Max(C, 1)),  # the Max does not depend on x
]


@pytest.mark.parametrize("claim", SMOOTH_TRUE, ids=[c.id for c in SMOOTH_TRUE])
def test_derivatives_of_smooth_terms_are_still_evaluated(claim):
    out = check(claim)
    assert out.verdict is Verdict.PROVED, out.how
