"""Class 2 of issue 10, generic simplification: a step that cancels a factor holds only where the
factor is nonzero, and the kernel asks for that condition (every rule, not only ``algebra``)."""

import pytest
import sympy as sp

from symattn import Assumption
from symattn.kernel.zero import definedness_conditions, equal, zero_test
from tests.symattn.kernel.claims import (
    Claim,
    assert_proved,
    assert_rejected,
    k,
    n,
    p,
    step,
    x,
    y,
    z,
)

x_ne_0 = Assumption("x_ne_0", condition=sp.Ne(x, 0))
y_ne_z = Assumption("y_ne_z", condition=sp.Ne(y, z))
sin_ne_0 = Assumption("sin_ne_0", condition=sp.Ne(sp.sin(x), 0))
cos_ne_0 = Assumption("cos_ne_0", condition=sp.Ne(sp.cos(x), 0))

FALSE_CLAIMS = [
    Claim("cancel_x_for_all_real_x", (x**2 - x) / x, x - 1, (step(x - 1, "algebra"),), bad_step=1, why="x != 0"),
    Claim("cancel_x_minus_1", (x**2 - 1) / (x - 1), x + 1, (step(x + 1, "algebra"),), bad_step=1, why="x - 1 != 0"),
    Claim("cancel_a_difference", (y**2 - y * z) / (y - z), y, (step(y, "algebra"),), bad_step=1, why="!= 0"),
    Claim("cancel_one_of_two_factors", (x * y + x) / (x * z), (y + 1) / z, (step((y + 1) / z, "algebra"),),
          bad_step=1, why="x != 0"),
    Claim("double_angle_over_sine", sp.sin(2 * x) / sp.sin(x), 2 * sp.cos(x),
          (step(2 * sp.cos(x), "trig_identity"),), bad_step=1, why="sin(x) != 0"),
    Claim("pythagoras_over_its_own_zero_set", sp.sin(x) ** 2 / (1 - sp.cos(x) ** 2), 1,
          (step(1, "trig_identity"),), bad_step=1, why="!= 0"),
    Claim("cancel_inside_a_sum", sp.Sum((x**2 - x) / x, (k, 1, n)), sp.Sum(x, (k, 1, n)) - sp.Sum(1, (k, 1, n)),
          (step(sp.Sum(x, (k, 1, n)) - sp.Sum(1, (k, 1, n)), "sum_linearity"),), bad_step=1, why="x != 0"),
    Claim("derivative_of_a_cancelled_quotient", sp.Derivative((x**3 - x**2) / x, x), 2 * x - 1,
          (step(2 * x - 1, "differentiate"),), bad_step=1, why="x != 0"),
    Claim("log_of_a_cancelled_square", sp.log(x**2) - sp.log(x**2) + (x**2 - x) / x, x - 1,
          (step(x - 1, "algebra"),), bad_step=1, why="x != 0"),
    Claim("inequality_through_a_cancelled_factor", (x**3 + x) / x, 1, (step(1, "inequality", ">="),),
          relation=">=", bad_step=1, why="x != 0"),
]

TRUE_CLAIMS = [
    Claim("cancel_with_the_hypothesis", (x**2 - x) / x, x - 1, (step(x - 1, "algebra"),), hypotheses=(x_ne_0,)),
    Claim("cancel_a_positive_symbol", (p**2 - p) / p, p - 1, (step(p - 1, "algebra"),)),
    Claim("cancel_a_difference_with_the_hypothesis", (y**2 - y * z) / (y - z), y, (step(y, "algebra"),),
          hypotheses=(y_ne_z,)),
    Claim("cancel_a_sum_of_squares_plus_one", (x**3 + x) / (x**2 + 1), x, (step(x, "algebra"),)),
    Claim("double_angle_over_sine_where_defined", sp.sin(2 * x) / sp.sin(x), 2 * sp.cos(x),
          (step(2 * sp.cos(x), "trig_identity"),), hypotheses=(sin_ne_0,)),
    Claim("pythagoras_over_the_sine_where_defined", (1 - sp.cos(x) ** 2) / sp.sin(x), sp.sin(x),
          (step(sp.sin(x), "trig_identity"),), hypotheses=(sin_ne_0,)),
    Claim("both_sides_undefined_at_the_same_points", 1 / x + 1 / x, 2 / x, (step(2 / x, "algebra"),)),
    Claim("derivative_of_a_quotient_of_positives", sp.Derivative((p**3 - p**2) / p, p), 2 * p - 1,
          (step(2 * p - 1, "differentiate"),)),
]


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda c: c.id)
def test_cancelling_a_factor_not_shown_nonzero_fails_naming_the_condition(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda c: c.id)
def test_cancelling_a_factor_shown_nonzero_is_proved(claim):
    assert_proved(claim)


def test_zero_test_names_the_missing_condition_and_passes_with_it():
    assert zero_test((x**2 - x) / x, x - 1, ()).missing == ["x"]
    assert zero_test((x**2 - x) / x, x - 1, (x_ne_0,)).ok


@pytest.mark.parametrize(
    "expr, factor",
    [(1 / (x - 1), x - 1), (sp.log(x), x), (sp.tan(x), sp.cos(x)), (sp.cot(x), sp.sin(x)),
     (x ** sp.Rational(-1, 2), x)],
)
def test_definedness_conditions_cover_denominators_logs_and_tangents(expr, factor):
    assert factor in definedness_conditions(expr)


def test_equal_refuses_a_cancellation_without_hypotheses():
    assert not equal((x**2 - 1) / (x - 1), x + 1)
    assert equal((x**2 - 1) / (x - 1), x + 1, (Assumption("h", condition=sp.Ne(x - 1, 0)),))
