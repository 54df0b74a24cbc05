"""Class 3 of issue 10, index assumptions against ranges: an index declared positive but summed
from 0 lends nothing; a bound variable knows only its range, in signs, deltas and evaluation."""

import pytest
import sympy as sp

from symattn.kernel.sign import sign_of
from symattn.kernel.terms import canonical
from tests.symattn.kernel.claims import (
    Claim,
    assert_proved,
    assert_rejected,
    delta,
    j,
    m,
    n,
    s,
    step,
    x,
)

FALSE_CLAIMS = [
    Claim("positive_index_summed_from_0_by_inequality", sp.Sum(j - 1, (j, 0, n)), 0,
          (step(0, "inequality", ">="),), relation=">=", bad_step=1, why="cannot show"),
    Claim("positive_index_summed_from_0_by_nonnegative_terms", sp.Sum(j - 1, (j, 0, n)), 0,
          (step(0, "nonnegative_terms", ">="),), relation=">=", bad_step=1, why="cannot show"),
    Claim("positive_index_summed_from_0_by_positivity", sp.Sum(j - 1, (j, 0, n)), 0,
          (step(0, "positivity", ">="),), relation=">=", bad_step=1, why=""),
    Claim("positive_index_times_a_square_from_0", sp.Sum((j - 1) * x**2, (j, 0, n)), 0,
          (step(0, "nonnegative_terms", ">="),), relation=">=", bad_step=1, why="cannot show"),
    Claim("strict_bound_from_a_positive_index_summed_from_0", sp.Sum(2 * j - 1, (j, 0, m)), 0,
          (step(0, "inequality", ">"),), relation=">", bad_step=1, why="cannot show"),
    Claim("positive_index_summed_from_minus_1", sp.Sum(j, (j, -1, n)), 0,
          (step(0, "inequality", ">="),), relation=">=", bad_step=1, why="cannot show"),
    Claim("delta_at_0_dropped_for_a_positive_index_from_0", sp.Sum(s[j] * delta(j, 1), (j, 0, n)), s[1],
          (step(s[1], "kronecker_delta_contraction"),), bad_step=0, why=""),
    Claim("cube_of_a_positive_index_less_one_from_0", sp.Sum((j - 1) ** 3, (j, 0, n)), 0,
          (step(0, "nonnegative_terms", ">="),), relation=">=", bad_step=1, why="cannot show"),
    Claim("positive_index_from_0_times_a_positive_factor", sp.Sum((j - 1) * sp.exp(x), (j, 0, n)), 0,
          (step(0, "inequality", ">="),), relation=">=", bad_step=1, why="cannot show"),
    Claim("nested_positive_index_from_0", sp.Sum(sp.Sum(j - 1, (j, 0, n)), (m, 1, n)), 0,
          (step(0, "nonnegative_terms", ">="),), relation=">=", bad_step=1, why="cannot show"),
]
# the contraction above is true (delta(j, 1) picks j = 1 in 0..n): it is there to show the range
# 0..n is used, and is checked as a true claim below instead
FALSE_CLAIMS = [c for c in FALSE_CLAIMS if c.bad_step]

TRUE_CLAIMS = [
    Claim("positive_index_summed_from_1", sp.Sum(j - 1, (j, 1, n)), 0, (step(0, "inequality", ">="),), relation=">="),
    Claim("nonnegative_terms_from_1", sp.Sum((j - 1) * x**2, (j, 1, n)), 0,
          (step(0, "nonnegative_terms", ">="),), relation=">="),
    Claim("index_from_0_is_nonnegative", sp.Sum(j, (j, 0, n)), 0, (step(0, "inequality", ">="),), relation=">="),
    Claim("delta_at_1_in_a_sum_from_0", sp.Sum(s[j] * delta(j, 1), (j, 0, n)), s[1],
          (step(s[1], "kronecker_delta_contraction"),)),
    Claim("strict_from_1", sp.Sum(2 * j - 1, (j, 1, n)), 0, (step(0, "inequality", ">"),), relation=">"),
    Claim("count_of_a_range_known_nonempty", sp.Sum(1, (j, 1, n)), n, (step(n, "sum_evaluate"),)),
    Claim("nested_from_1", sp.Sum(sp.Sum(j - 1, (j, 1, n)), (m, 1, n)), 0,
          (step(0, "nonnegative_terms", ">="),), relation=">="),
    Claim("square_of_an_index_from_0", sp.Sum((j - 1) ** 2, (j, 0, n)), 0,
          (step(0, "nonnegative_terms", ">="),), relation=">="),
]


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda c: c.id)
def test_index_assumption_contradicted_by_the_range_lends_nothing(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda c: c.id)
def test_range_implied_facts_still_prove(claim):
    assert_proved(claim)


def test_bound_variable_carries_only_what_its_range_implies():
    v = canonical(sp.Sum(s[j], (j, 0, n))).limits[0][0]
    assert v.is_integer and v.is_nonnegative and v.is_positive is None
    assert sign_of(sp.Sum(j - 1, (j, 0, n))) is None
