"""The concrete levels never lie (issue 19): one table per class of problem, true and false cases.

1. exact evidence only (no floating point, no numeric quadrature, no structural comparison);
2. Schwartz--Zippel samples inside the hypotheses, or does not run and says why;
3. Schwartz--Zippel compares values exactly, and its degree bound is right;
5. one convention (Karr's, SymPy's and the sign test's) for reversed ranges.

The expected values come from arithmetic done by hand (or from SymPy's own ``doit`` on sums whose
summands are plain polynomials, where SymPy is the reference the convention is defined by), never
from the code under test.
"""

from __future__ import annotations

import random

import pytest
import sympy as sp

from symattn import Assumption, Equation, IndexRange, Probabilistic, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level
from symattn.kernel import exact
from symattn.kernel.search import expand_finite, find_counterexample
from symattn.kernel.zippel import NotRational, Refused, degree_bound, schwartz_zippel

x, y, z = sp.symbols("x y z", real=True)
X = sp.Symbol("X", real=True)
p = sp.Symbol("p", positive=True)
k = sp.Symbol("k", integer=True)
t = sp.Symbol("t")
w1, w2, v = sp.symbols("w_1 w_2 v", real=True)
phi = sp.GoldenRatio
r2, r3 = sp.sqrt(2), sp.sqrt(3)


def theorem(statement, **kw):
    return Theorem(id="claim", title="claim", source="extension", statement=statement, **kw)


# ------------------------------------------------------------------------------ class 1: exact evidence
# (number, is it zero?) -- None: it must not be decided (a float, an integral)
ZERO_CASES = [
    ((1 + r2) ** 2 - (3 + 2 * r2), True),
    (sp.cos(sp.pi / 12) ** 2 - (2 + r3) / 4, True),
    (phi**2 - (phi + 1), True),
    (sp.sqrt(5 + 2 * sp.sqrt(6)) - r2 - r3, True),
    (sp.root(8, 3) - 2, True),
    (sp.log(6) - sp.log(2) - sp.log(3), True),
    (sp.exp(1) - sp.Rational(2718281828, 10**9), False),
    (sp.pi - sp.Rational(355, 113), False),
    ((1 + r2) ** 2 - (3 + 2 * r2) - sp.Rational(1, 10**40), False),
    (sp.exp(-sp.Integer(400)), False),
    (r2 - sp.Float("1.41421356237309504880168872421", 30), None),
    (sp.Integral(t, (t, 0, 1)) - sp.Rational(1, 2), None),
    (sp.Integral(sp.exp(-t**2), (t, 0, 1)) - sp.Rational(3, 4), None),
]


@pytest.mark.parametrize("number,zero", ZERO_CASES, ids=[str(i) for i in range(len(ZERO_CASES))])
def test_closed_numbers_are_decided_exactly_or_not_at_all(number, zero):
    assert exact.is_zero(number) is zero


SIGN_CASES = [
    (sp.log(3) - 1, 1),
    (sp.pi - sp.Rational(22, 7), -1),
    (r2 + r3 - sp.sqrt(5 + 2 * sp.sqrt(6)), 0),
    (sp.sqrt(-2), "nonreal"),
    (sp.cbrt(-8), "nonreal"),  # SymPy's principal root, 1 + sqrt(3) i
    (sp.Rational(-3, 7), -1),
    (sp.exp(-sp.Integer(1000)), 1),
    (sp.tanh(1) - sp.Rational(76159, 100000), 1),
]


@pytest.mark.parametrize("number,expected", SIGN_CASES, ids=[str(i) for i in range(len(SIGN_CASES))])
def test_signs_are_proved_by_balls_that_exclude_zero(number, expected):
    assert exact.sign(number) == expected


# (statement, hypotheses, false?) for the counterexample search: a true claim is never refuted; a
# false one is, at an exact point, with exact values (no float anywhere in the counterexample)
SEARCH_CASES = [
    ("golden_ratio_scaled", Statement(X * phi**2, X * (phi + 1)), (), False),
    ("square_of_one_plus_root_two", Statement((1 + r2) ** 2 * x, (3 + 2 * r2) * x), (), False),
    ("cos_squared_pi_over_12", Statement(sp.cos(sp.pi / 12) ** 2 + x, (2 + r3) / 4 + x), (), False),
    ("integral_of_t", Statement(sp.Integral(t, (t, 0, 1)) * x, x / 2), (), False),
    ("gaussian_integral_claimed_wrongly", Statement(sp.Integral(sp.exp(-t**2), (t, 0, x)), x), (), False),
    ("strict_with_equality", Statement(x**2 + sp.sin(x) ** 2, 0, ">"), (), True),  # false at x = 0 exactly
    ("golden_ratio_off_by_tiny", Statement(X * phi**2, X * (phi + 1) + sp.Rational(1, 10**30)), (), True),
    ("root_two_squared_wrong", Statement((1 + r2) ** 2 * x, (3 + r2) * x), (), True),
    ("log_of_positive_product_wrong", Statement(sp.log(p * 2), sp.log(p) + 1), (), True),
    ("weights_combination", Statement(w1 * v + w2 * v, v), (Equation("sum1", lhs=w1 + w2, rhs=1),), False),
]


@pytest.mark.parametrize("name,st,hyps,false", SEARCH_CASES, ids=[c[0] for c in SEARCH_CASES])
def test_counterexamples_are_exact_and_only_for_false_claims(name, st, hyps, false):
    cex = find_counterexample(st, hyps, tries=12)
    if not false:
        assert cex is None, str(cex)
        return
    assert cex is not None
    assert not cex.left.atoms(sp.Float) and not cex.right.atoms(sp.Float), str(cex)
    assert all(isinstance(v, sp.Rational) for v in cex.model.values.values()), str(cex)
    if st.relation == "=":
        assert exact.equal(cex.left, cex.right) is False
    else:  # x**2 + sin(x)**2 > 0 fails at x = 0, where the sides are equal: exactly, not to 50 digits
        assert exact.sign(cex.left - cex.right) == 0


# ------------------------------------------------------------------------------ class 2: SZ inside the hypotheses
# (name, statement, hypotheses, outcome): "pass", "fail" or "refused"
SZ_HYPOTHESES = [
    ("weights_sum_to_one", Statement(w1 * v + w2 * v, v), (Equation("sum1", lhs=w1 + w2, rhs=1),), "pass"),
    ("weights_written_as_assumption", Statement(w1 * v + w2 * v, v),
     (Assumption("sum1", condition=sp.Eq(w1 + w2, 1)),), "pass"),
    ("three_weights", Statement(x * v + y * v + z * v, v), (Equation("s", lhs=x + y + z, rhs=1),), "pass"),
    ("solved_into_a_square", Statement((x + y) ** 2, 1), (Equation("s", lhs=x, rhs=1 - y),), "pass"),
    ("weights_wrong_total", Statement(w1 * v + w2 * v, 2 * v), (Equation("sum1", lhs=w1 + w2, rhs=1),), "fail"),
    ("no_hypothesis_false", Statement(w1 * v + w2 * v, v), (), "fail"),
    ("positive_weights_wrong", Statement(w1 + w2, 1), (Assumption("pos", condition=sp.Gt(w1, 0)),), "fail"),
    ("nonlinear_equation", Statement(x**2 * y, 2 * y), (Equation("sq", lhs=x**2, rhs=2),), "refused"),
    ("quantified_equation", Statement(x, x), (Equation("all", lhs=x, rhs=k, forall=(k,)),), "refused"),
    ("stated_in_words", Statement(x, x), (Assumption("words", text="x is nice"),), "refused"),
    ("finite_range_index", Statement((k - 1) * (k - 2) * x, 0), (IndexRange("r", index=k, lower=1, upper=2),),
     "refused"),
]


@pytest.mark.parametrize("name,st,hyps,outcome", SZ_HYPOTHESES, ids=[c[0] for c in SZ_HYPOTHESES])
def test_schwartz_zippel_samples_inside_the_hypotheses(name, st, hyps, outcome):
    if outcome == "refused":
        with pytest.raises(Refused):
            schwartz_zippel(st, hyps, random.Random(0), 3, 2**31 - 1)
        return
    res = schwartz_zippel(st, hyps, random.Random(0), 3, 2**31 - 1)
    assert res[0] == outcome, res
    if outcome == "fail":
        assert "every hypothesis holds there" in res[1]


def test_the_weights_theorem_is_checked_probabilistically_not_refuted():
    st = Statement(w1 * v + w2 * v, v)
    o = check_theorem(theorem(st, hypotheses=(Equation("sum1", lhs=w1 + w2, rhs=1),),
                              probabilistic=Probabilistic(lambda size: st, (1,), trials=3)), numeric=False)
    assert o.verdict is Verdict.CHECKED_PROBABILISTICALLY, o.how
    assert o.levels["probabilistic"].status is Level.PASS


def test_a_refused_schwartz_zippel_test_says_why_and_counts_nothing():
    st = Statement(x**2 * y, 2 * y)
    o = check_theorem(theorem(st, hypotheses=(Equation("sq", lhs=x**2, rhs=2),),
                              probabilistic=Probabilistic(lambda size: st, (1,), trials=3)), numeric=False)
    lv = o.levels["probabilistic"]
    assert lv.status is Level.NA and "does not run" in lv.detail and "sq" in lv.detail
    assert o.verdict is not Verdict.CHECKED_PROBABILISTICALLY


# ------------------------------------------------------------------------------ class 3: exact comparison, degree
SZ_EXACT = [
    ("golden_ratio", Statement(X * phi**2, X * (phi + 1)), "pass"),
    ("one_plus_root_two", Statement((1 + r2) ** 2 * x, (3 + 2 * r2) * x), "pass"),
    ("cos_pi_12", Statement(sp.cos(sp.pi / 12) ** 2 * x * y, (2 + r3) / 4 * x * y), "pass"),
    ("nested_radical", Statement(sp.sqrt(5 + 2 * sp.sqrt(6)) * x, (r2 + r3) * x), "pass"),
    ("square_expansion", Statement((x + y) ** 2, x**2 + 2 * x * y + y**2), "pass"),
    ("golden_ratio_wrong", Statement(X * phi**2, X * phi), "fail"),
    ("root_two_wrong", Statement((1 + r2) ** 2 * x, (3 + r2) * x), "fail"),
    ("cos_pi_12_wrong", Statement(sp.cos(sp.pi / 12) ** 2 * x, (2 + r2) / 4 * x), "fail"),
    ("square_wrong", Statement((x + y) ** 2, x**2 + y**2), "fail"),
]


@pytest.mark.parametrize("name,st,outcome", SZ_EXACT, ids=[c[0] for c in SZ_EXACT])
def test_schwartz_zippel_compares_algebraic_values_exactly(name, st, outcome):
    res = schwartz_zippel(st, (), random.Random(1), 3, 2**31 - 1)
    assert res[0] == outcome, res


DEGREES = [
    (x * y, 2),
    (x**2 * y, 3),
    ((x * y) ** 3, 6),
    (x + y, 1),
    (x**2 + y, 2),
    ((x + y) ** 2 * z, 3),
    (sp.Integer(7), 0),
    (phi * x, 1),
    ((x**2 + 1) ** 3 * (y + 1) ** 2, 8),
]


@pytest.mark.parametrize("expr,degree", DEGREES, ids=[str(e) for e, _ in DEGREES])
def test_the_degree_bound(expr, degree):
    # the bound is exact on these (a product adds degrees, a power multiplies, a sum takes the max)
    assert degree_bound(expr) == degree
    assert degree_bound(expr) >= sp.Poly(expr, x, y, z).total_degree()


def test_a_non_rational_side_is_not_tested():
    with pytest.raises(NotRational):
        degree_bound(sp.exp(x))


def _falling(n):
    return sp.Mul(*[(x - c) for c in range(n)], evaluate=False)


@pytest.mark.parametrize("field_size", [2, 5, 10, 11, 20])
def test_a_small_field_false_identity_is_not_counted(field_size):
    # x (x - 1) ... (x - 9) = 0 vanishes at every point of a field of 10 elements, yet is false
    st = Statement(_falling(10), 0)
    o = check_theorem(theorem(st, probabilistic=Probabilistic(lambda size: st, (1,), trials=3,
                                                              field_size=field_size)), numeric=False)
    assert o.verdict is not Verdict.CHECKED_PROBABILISTICALLY, o.how
    assert o.levels["probabilistic"].status is not Level.PASS


# ------------------------------------------------------------------------------ class 5: reversed ranges
REVERSED = [
    sp.Sum(k, (k, 4, 1)),
    sp.Sum(k**2, (k, 5, 1)),
    sp.Sum(sp.Abs(k) - k, (k, 1, -5)),  # issue 18's example: -20
    sp.Sum(k, (k, 1, 0)),  # empty
    sp.Sum(k, (k, 3, 1)),  # one term, negated: -2
    sp.Sum(sp.Sum(k * t, (t, 1, k)), (k, 3, 0)),
    sp.Product(k, (k, 4, 1)),  # 1/(2*3)
    sp.Product(k + 1, (k, 2, 1)),  # empty: 1
    sp.Product(k, (k, 1, -2)),  # 1/(-1*0)... reversed over -1..0 holds a zero factor: zoo
    sp.Sum(k**3 - 2 * k, (k, -1, -6)),
]


@pytest.mark.parametrize("s", REVERSED, ids=[str(s) for s in REVERSED])
def test_the_expander_uses_karrs_convention_as_sympy_does(s):
    assert sp.simplify(expand_finite(s) - s.doit()) == 0 or expand_finite(s) == s.doit()


def test_karr_values_by_hand():
    assert expand_finite(sp.Sum(k, (k, 4, 1))) == -5
    assert expand_finite(sp.Sum(sp.Abs(k) - k, (k, 1, -5))) == -20
    assert expand_finite(sp.Product(k, (k, 4, 1))) == sp.Rational(1, 6)
    assert expand_finite(sp.Sum(k, (k, 1, 0))) == 0
