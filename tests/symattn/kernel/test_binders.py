"""Class 1 of issue 10, binder capture: a bound variable is not the free symbol of the same name.

Rules see terms in the kernel's locally nameless form, so a hypothesis, a range, a lemma or a
definition about a free ``j`` never reaches a bound ``j``.
"""

import pytest
import sympy as sp

from symattn import Equation, IndexRange
from symattn.rules.definitions import define
from tests.symattn.kernel.claims import (
    Claim,
    assert_proved,
    assert_rejected,
    delta,
    h,
    j,
    k,
    n,
    s,
    step,
    xs,
)


class TotalWith(sp.Function):
    """``TotalWith(a) = sum_{j=1}^{n} a x_j``: a body that sums over the fixed symbol ``j``."""

    nargs = 1

    def expanded(self):
        return sp.Sum(self.args[0] * xs[j], (j, 1, n))


define("test_total_with", TotalWith, lambda e: e.expanded())

b00 = sp.Symbol("_b0_0", integer=True)  # named like the old canonical_bounds' renamed indices
k0 = sp.Symbol("k0", integer=True)  # named like the kernel's canonical dummies
a, c, q = sp.symbols("a c q", integer=True, positive=True)
ih = Equation("ih", lhs=h**2, rhs=2 * h - 1)
j_range = IndexRange("j_range", index=j, lower=1, upper=n)

FALSE_CLAIMS = [
    Claim("ih_applied_under_a_binder_at_a_shifted_index", sp.Sum(h**2, (h, h + 1, h + 1)), 2 * h + 1,
          (step(sp.Sum(2 * h - 1, (h, h + 1, h + 1)), "substitute", using="ih"),
           step(2 * h + 1, "sum_evaluate")), hypotheses=(ih,), bad_step=1, why="does not occur"),
    Claim("free_j_fact_used_in_a_sum_over_j", sp.Sum(xs[j], (j, 1, n + 1)), 0,
          (step(sp.Sum(0, (j, 1, n + 1)), "substitute", using="xj"), step(0, "sum_evaluate")),
          hypotheses=(j_range, Equation("xj", lhs=xs[j], rhs=0)), bad_step=1, why="does not occur"),
    Claim("forall_j_in_1_to_n_used_in_a_sum_to_n_plus_1", sp.Sum(xs[k], (k, 1, n + 1)), 0,
          (step(sp.Sum(0, (k, 1, n + 1)), "substitute", using="xj"), step(0, "sum_evaluate")),
          hypotheses=(j_range, Equation("xj", lhs=xs[j], rhs=0, forall=(j,))), bad_step=1, why="domain"),
    Claim("range_of_free_j_lent_to_a_bound_j", sp.Sum(sp.Sum(s[k] * delta(j, k), (k, 1, n)), (j, 0, n)),
          sp.Sum(s[j], (j, 0, n)), (step(sp.Sum(s[j], (j, 0, n)), "kronecker_delta_contraction"),),
          hypotheses=(j_range,), bad_step=1, why="range"),
    Claim("definition_body_captures_a_free_j", TotalWith(j), sp.Sum(k * xs[k], (k, 1, n)),
          (step(sp.Sum(k * xs[k], (k, 1, n)), "definition", name="test_total_with"),), bad_step=1, why="does not"),
    Claim("user_symbol_named_like_an_old_canonical_index", sp.Sum(b00 * xs[j], (j, 1, n)),
          sp.Sum(j * xs[j], (j, 1, n)), (step(sp.Sum(j * xs[j], (j, 1, n)), "rename_bound"),), bad_step=1,
          why="differ"),
    Claim("user_symbol_named_like_a_kernel_dummy", sp.Sum(k0 * xs[k], (k, 1, n)),
          sp.Sum(k * xs[k], (k, 1, n)), (step(sp.Sum(k * xs[k], (k, 1, n)), "algebra"),), bad_step=1,
          why="does not reduce"),
    Claim("outer_index_left_free_in_an_inner_limit", sp.Sum(sp.Sum(xs[k], (k, 1, j)), (j, 1, n)),
          sp.Sum(sp.Sum(xs[k], (k, 1, q)), (j, 1, n)),
          (step(sp.Sum(sp.Sum(xs[k], (k, 1, q)), (j, 1, n)), "rename_bound"),), bad_step=1, why="differ"),
    Claim("free_j_equation_used_on_every_bound_j", sp.Sum(xs[j], (j, 1, n)), n,
          (step(sp.Sum(1, (j, 1, n)), "substitute", using="x1"), step(n, "sum_evaluate")),
          hypotheses=(Equation("x1", lhs=xs[j], rhs=1),), bad_step=1, why="does not occur"),
    Claim("lower_bound_of_a_free_range_lent_to_the_bound_index", sp.Sum(j - 2, (j, 1, n)), 0,
          (step(0, "nonnegative_terms", ">="),), relation=">=",
          hypotheses=(IndexRange("j2", index=j, lower=2, upper=n),), bad_step=1, why="cannot show"),
]

TRUE_CLAIMS = [
    Claim("single_point_sum_evaluated_at_its_point", sp.Sum(h**2, (h, h + 1, h + 1)), (h + 1) ** 2,
          (step((h + 1) ** 2, "sum_evaluate"),)),
    Claim("forall_j_used_inside_its_range", sp.Sum(xs[j], (j, 1, n)), 0,
          (step(sp.Sum(0, (j, 1, n)), "substitute", using="xj"), step(0, "sum_evaluate")),
          hypotheses=(j_range, Equation("xj", lhs=xs[j], rhs=0, forall=(j,)))),
    Claim("delta_contracted_over_the_bound_range", sp.Sum(sp.Sum(s[k] * delta(j, k), (k, 1, n)), (j, 1, n)),
          sp.Sum(s[j], (j, 1, n)), (step(sp.Sum(s[j], (j, 1, n)), "kronecker_delta_contraction"),)),
    Claim("definition_with_a_free_j_argument", TotalWith(j), j * sp.Sum(xs[k], (k, 1, n)),
          (step(j * sp.Sum(xs[k], (k, 1, n)), "definition", name="test_total_with"),)),
    Claim("renaming_nested_indices", sp.Sum(sp.Sum(xs[k], (k, 1, j)), (j, 1, n)),
          sp.Sum(sp.Sum(xs[a], (a, 1, c)), (c, 1, n)),
          (step(sp.Sum(sp.Sum(xs[a], (a, 1, c)), (c, 1, n)), "rename_bound"),)),
    Claim("hypothesis_about_a_sum_used_on_an_alpha_variant", sp.Sum(xs[k], (k, 1, n)), 1,
          (step(1, "substitute", using="total"),),
          hypotheses=(Equation("total", lhs=sp.Sum(xs[j], (j, 1, n)), rhs=1),)),
    Claim("user_symbol_named_like_an_index_is_a_constant", sp.Sum(b00 * xs[j], (j, 1, n)),
          b00 * sp.Sum(xs[j], (j, 1, n)), (step(b00 * sp.Sum(xs[j], (j, 1, n)), "sum_linearity"),)),
    Claim("nonnegative_terms_from_the_binder_range", sp.Sum(j - 1, (j, 1, n)), 0,
          (step(0, "nonnegative_terms", ">="),), relation=">="),
]


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda c: c.id)
def test_false_claim_with_a_capturing_derivation_fails_at_the_capturing_step(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda c: c.id)
def test_true_claim_of_the_same_shape_is_proved(claim):
    assert_proved(claim)
