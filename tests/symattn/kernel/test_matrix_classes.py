"""Class 3 of issue 18, ``evaluate_explicit`` reaching SymPy's summation: the kernel evaluates explicit
matrices entrywise (schema ``explicit_evaluation``) and a sum inside only by writing out a range of
literal bounds or by its own finite-sum evaluator; any other sum stays opaque. SymPy's closed forms
(``sum_k (-1)^k k C(n, k) = 0``, false at ``n = 1``) never reach a step."""

import pytest
import sympy as sp

from symattn.kernel.schemas.matrices import explicit_value, unroll_literal_sums
from symattn.kernel.terms import KernelError
from symattn.maths.permutation import SoftmaxRows
from tests.symattn.kernel.claims import Claim, assert_proved, assert_rejected, delta, k, m, n, step, x

C = sp.binomial
M1 = sp.ImmutableMatrix([[1, 2], [3, 4]])
SWAP = sp.ImmutableMatrix([[0, 1], [1, 0]])
i_ = sp.Symbol("i", integer=True)


def ev(name, lhs, rhs, **kw):
    return Claim(name, lhs, rhs, (step(rhs, "evaluate_explicit"),), bad_step=1, why=kw.pop("why", "evaluates to"),
                 **kw)


FALSE_CLAIMS = [
    # SymPy's summation closes these to a value that is wrong at some n
    ev("alternating_k_binomial_is_0", sp.Sum((-1) ** k * k * C(n, k), (k, 0, n)), 0),  # -1 at n = 1
    ev("alternating_k_binomial_is_0_in_a_matrix", sp.ImmutableMatrix([[sp.Sum((-1) ** k * k * C(n, k), (k, 0, n))]]),
       sp.ImmutableMatrix([[0]])),
    ev("alternating_binomial_is_0_from_m_0", sp.Sum((-1) ** k * C(m, k), (k, 0, m)), 0),  # 1 at m = 0
    ev("alternating_k2_binomial_is_0", sp.Sum((-1) ** k * k**2 * C(n, k), (k, 0, n)), 0),  # -1 at n = 1
    ev("geometric_closed_form_at_any_x", sp.Sum(x**k, (k, 0, n)), (x ** (n + 1) - 1) / (x - 1)),  # x = 1
    ev("delta_at_half_m_in_a_matrix", sp.ImmutableMatrix([[sp.Sum(delta(k, m / 2), (k, 0, m))]]),
       sp.ImmutableMatrix([[1]])),
    ev("count_over_a_half_bound", sp.ImmutableMatrix([[sp.Sum(1, (k, 1, n / 2))]]), sp.ImmutableMatrix([[n / 2]])),
    ev("reversed_literal_range_is_empty", sp.Sum(k, (k, 3, 1)), 0),  # Karr: -2
    ev("arithmetic_series_off_by_one", sp.Sum(k, (k, 1, n)), n * (n + 1) / 2 + 1),
    ev("literal_alternating_sum_at_n_1_is_0", sp.Sum((-1) ** k * k * C(1, k), (k, 0, 1)), 0),
    ev("product_with_the_swap_is_the_matrix", sp.MatMul(M1, SWAP), M1),
    ev("trace_of_a_product_off", sp.Trace(sp.MatMul(M1, M1)), 30),
    ev("softmax_off_by_a_tiny_rational", SoftmaxRows(sp.ImmutableMatrix([[0, sp.log(3)]])),
       sp.ImmutableMatrix([[sp.Rational(1, 4), sp.Rational(3, 4) + sp.Rational(1, 10**30)]])),
    ev("matrix_symbol_evaluated", sp.MatMul(sp.MatrixSymbol("X", 2, 2), SWAP), sp.MatrixSymbol("X", 2, 2),
       why="no explicit entries"),
    ev("nested_literal_sums_off", sp.Sum(sp.Sum(i_, (i_, 1, k)), (k, 1, 2)), 3),
]

TRUE_CLAIMS = [
    ev("alternating_k_binomial_at_n_1", sp.Sum((-1) ** k * k * C(1, k), (k, 0, 1)), -1),
    ev("alternating_k_binomial_at_n_2_in_a_matrix", sp.ImmutableMatrix([[sp.Sum((-1) ** k * k * C(2, k), (k, 0, 2))]]),
       sp.ImmutableMatrix([[0]])),
    ev("alternating_binomial_at_m_3", sp.Sum((-1) ** k * C(3, k), (k, 0, 3)), 0),
    ev("alternating_k2_binomial_at_n_2", sp.Sum((-1) ** k * k**2 * C(2, k), (k, 0, 2)), 2),
    ev("geometric_written_out", sp.Sum(x**k, (k, 0, 3)), 1 + x + x**2 + x**3),
    ev("delta_at_2m_in_a_matrix", sp.ImmutableMatrix([[sp.Sum(delta(k, 2 * m), (k, 0, 2 * m))]]),
       sp.ImmutableMatrix([[1]])),
    ev("count_over_an_integer_bound", sp.ImmutableMatrix([[sp.Sum(1, (k, 1, 2 * n))]]), sp.ImmutableMatrix([[2 * n]])),
    ev("reversed_literal_range_by_karr", sp.Sum(k, (k, 3, 1)), -2),
    ev("arithmetic_series", sp.Sum(k, (k, 1, n)), n * (n + 1) / 2),
    ev("product_with_the_swap", sp.MatMul(M1, SWAP), sp.ImmutableMatrix([[2, 1], [4, 3]])),
    ev("trace_of_a_product", sp.Trace(sp.MatMul(M1, M1)), 29),
    ev("softmax_exact", SoftmaxRows(sp.ImmutableMatrix([[0, sp.log(3)]])),
       sp.ImmutableMatrix([[sp.Rational(1, 4), sp.Rational(3, 4)]])),
    ev("transpose_and_identity", sp.MatAdd(sp.Transpose(M1), sp.Identity(2)), sp.ImmutableMatrix([[2, 3], [2, 5]])),
    ev("nested_literal_sums", sp.Sum(sp.Sum(i_, (i_, 1, k)), (k, 1, 2)), 4),
]


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda c: c.id)
def test_explicit_evaluation_never_uses_sympys_summation(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda c: c.id)
def test_explicit_evaluation_by_the_kernel_is_proved(claim):
    assert_proved(claim)


def test_a_sum_the_kernel_cannot_close_stays_a_sum():
    s = sp.Sum((-1) ** k * k * C(n, k), (k, 0, n))
    assert explicit_value(s).has(sp.Sum)
    assert explicit_value(sp.ImmutableMatrix([[s]]))[0, 0].has(sp.Sum)


def test_literal_ranges_are_written_out_and_reversed_ones_left_alone():
    assert unroll_literal_sums(sp.Sum(k**2, (k, 1, 3))) == 14
    assert unroll_literal_sums(sp.Sum(k, (k, 1, 0))) == 0  # empty
    assert unroll_literal_sums(sp.Sum(k, (k, 3, 1))).has(sp.Sum)


def test_symbolic_shapes_are_refused():
    with pytest.raises(KernelError, match="not an explicit one"):
        explicit_value(sp.Identity(n))


# ============================================================================= the other matrix rules
# (rules propose, the kernel's schemas matrix_normal_form, permutation_orthogonal, sum_reindex and
# rank_product_bound decide: shapes, the permutation hypothesis, the re-indexing, the bounds)
from symattn.maths.multihead import Rank  # noqa: E402
from symattn.maths.permutation import Permutation, PermutationMatrix  # noqa: E402

nn, dd, pp = sp.symbols("n d p", integer=True, positive=True)
A_, B_, C_ = sp.MatrixSymbol("A", nn, dd), sp.MatrixSymbol("B", dd, nn), sp.MatrixSymbol("C", nn, dd)
Q_ = sp.MatrixSymbol("Q", nn, nn)
X_ = sp.MatrixSymbol("X", nn, dd)
P_ = PermutationMatrix("sigma", nn)
sig = sp.Function("sigma")
f_ = sp.IndexedBase("f")
kk = sp.Symbol("k", integer=True)
PERM_N = Permutation("sigma_perm", sigma="sigma", n=nn)
PERM_N1 = Permutation("sigma_perm", sigma="sigma", n=nn + 1)


def by(name, rule, lhs, rhs, why, relation="=", hypotheses=()):
    return Claim(name, lhs, rhs, (step(rhs, rule, relation),), relation=relation, hypotheses=hypotheses, bad_step=1,
                 why=why)


def ok(name, rule, lhs, rhs, relation="=", hypotheses=()):
    return Claim(name, lhs, rhs, (step(rhs, rule, relation),), relation=relation, hypotheses=hypotheses)


RULE_FALSE = [
    by("products_commute", "matrix_associativity", sp.MatMul(A_, B_), sp.MatMul(B_, A_), "differ"),
    by("scalar_lost", "matrix_associativity", sp.MatMul(A_, 2 * B_), sp.MatMul(A_, B_), "differ"),
    by("transpose_keeps_the_order", "transpose_product", sp.Transpose(sp.MatMul(A_, B_)),
       sp.MatMul(sp.Transpose(A_), sp.Transpose(B_)), "differ"),
    by("distributed_on_the_wrong_side", "matrix_distributivity", sp.MatMul(Q_, sp.MatAdd(Q_, sp.Identity(nn))),
       sp.MatAdd(sp.MatMul(Q_, Q_), sp.MatMul(sp.Identity(nn), sp.Identity(nn))), "differ"),
    by("orthogonal_without_the_hypothesis", "permutation_matrix_orthogonal",
       sp.MatMul(sp.Transpose(P_), P_, X_), X_, "no hypothesis"),
    by("orthogonal_for_a_permutation_of_another_size", "permutation_matrix_orthogonal",
       sp.MatMul(sp.Transpose(P_), P_, X_), X_, "no hypothesis", hypotheses=(PERM_N1,)),
    by("p_times_p_is_the_identity", "permutation_matrix_orthogonal", sp.MatMul(P_, P_, X_), X_, "no product",
       hypotheses=(PERM_N,)),
    by("reindex_over_a_shorter_range", "sum_reindex_bijection", sp.Sum(f_[sig(kk)], (kk, 1, nn - 1)),
       sp.Sum(f_[kk], (kk, 1, nn - 1)), "re-indexes", hypotheses=(PERM_N,)),
    by("reindex_from_0", "sum_reindex_bijection", sp.Sum(f_[sig(kk)], (kk, 0, nn - 1)),
       sp.Sum(f_[kk], (kk, 0, nn - 1)), "re-indexes", hypotheses=(PERM_N,)),
    by("reindex_with_the_index_outside_sigma", "sum_reindex_bijection", sp.Sum(kk * f_[sig(kk)], (kk, 1, nn)),
       sp.Sum(kk * f_[kk], (kk, 1, nn)), "re-indexes", hypotheses=(PERM_N,)),
    # class 7: sigma(2k) is not sigma(k) at k = j/2
    by("reindex_at_twice_the_index", "sum_reindex_bijection", sp.Sum(f_[sig(2 * kk)], (kk, 1, nn)),
       sp.Sum(f_[2 * kk], (kk, 1, nn)), "re-indexes", hypotheses=(PERM_N,)),
    by("rank_below_the_inner_dimension", "rank_of_product_le", Rank(sp.MatMul(A_, B_)), dd - 1, "none of the bounds",
       relation="<="),
    by("rank_below_a_factors_rank", "rank_of_product_le", Rank(sp.MatMul(A_, B_)), Rank(A_) - 1, "none of the bounds",
       relation="<="),
    by("rank_below_a_min_with_a_wrong_bound", "rank_of_product_le", Rank(sp.MatMul(A_, B_)),
       sp.Min(dd, Rank(C_)), "none of the bounds", relation="<="),
]

RULE_TRUE = [
    ok("products_regrouped", "matrix_associativity", sp.MatMul(sp.MatMul(A_, B_), A_),
       sp.MatMul(A_, sp.MatMul(B_, A_))),
    ok("scalar_to_the_front", "matrix_associativity", sp.MatMul(A_, 2 * B_), 2 * sp.MatMul(A_, B_)),
    ok("transpose_reverses", "transpose_product", sp.Transpose(sp.MatMul(A_, B_)),
       sp.MatMul(sp.Transpose(B_), sp.Transpose(A_))),
    ok("distributed", "matrix_distributivity", sp.MatMul(Q_, sp.MatAdd(Q_, sp.Identity(nn))),
       sp.MatAdd(sp.MatMul(Q_, Q_), Q_)),
    ok("orthogonal_with_the_hypothesis", "permutation_matrix_orthogonal", sp.MatMul(sp.Transpose(P_), P_, X_), X_,
       hypotheses=(PERM_N,)),
    ok("orthogonal_the_other_way", "permutation_matrix_orthogonal", sp.MatMul(P_, sp.Transpose(P_)), sp.Identity(nn),
       hypotheses=(PERM_N,)),
    ok("reindex_over_the_permuted_range", "sum_reindex_bijection", sp.Sum(sp.exp(f_[sig(kk)]), (kk, 1, nn)),
       sp.Sum(sp.exp(f_[kk]), (kk, 1, nn)), hypotheses=(PERM_N,)),
    ok("reindex_backwards", "sum_reindex_bijection", sp.Sum(f_[kk] ** 2, (kk, 1, nn)),
       sp.Sum(f_[sig(kk)] ** 2, (kk, 1, nn)), hypotheses=(PERM_N,)),
    ok("rank_at_most_the_inner_dimension", "rank_of_product_le", Rank(sp.MatMul(A_, B_)), dd, relation="<="),
    ok("rank_at_most_a_factors_rank", "rank_of_product_le", Rank(sp.MatMul(A_, B_)), Rank(A_), relation="<="),
    ok("rank_at_most_a_min_of_bounds", "rank_of_product_le", Rank(sp.MatMul(A_, B_)), sp.Min(dd, Rank(B_)),
       relation="<="),
]


@pytest.mark.parametrize("claim", RULE_FALSE, ids=lambda c: c.id)
def test_matrix_rules_propose_and_the_kernel_refuses(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", RULE_TRUE, ids=lambda c: c.id)
def test_matrix_rules_propose_and_the_kernel_proves(claim):
    assert_proved(claim)


from symattn.maths.multihead import Concat, FamilyMatrix, HConcat, MatSum, Stack, VStack  # noqa: E402

hh = sp.Symbol("h", integer=True, positive=True)
mm = sp.Symbol("m", integer=True, positive=True)
A1, A2 = sp.MatrixSymbol("A_1", nn, dd), sp.MatrixSymbol("A_2", nn, dd)
B1, B2 = sp.MatrixSymbol("B_1", dd, nn), sp.MatrixSymbol("B_2", dd, nn)
A3 = sp.MatrixSymbol("A_3", nn, pp)
W_ = sp.MatrixSymbol("W", nn, nn)
F_ = sp.Lambda(mm, FamilyMatrix("F", mm, nn, nn))
Fm = FamilyMatrix("F", mm, nn, nn)

BLOCK_FALSE = [
    by("block_pairs_that_do_not_fit", "block_matrix_product", sp.MatMul(HConcat(A1, A3), VStack(B1, B2)),
       sp.MatAdd(sp.MatMul(A1, B1), sp.MatMul(A3, B2)), "inner dimensions"),
    by("block_pairs_swapped", "block_matrix_product", sp.MatMul(HConcat(A1, A2), VStack(B1, B2)),
       sp.MatAdd(sp.MatMul(A1, B2), sp.MatMul(A2, B1)), "no product"),
    by("factor_depending_on_the_block_index", "factor_out_of_blocks",
       Concat(sp.Lambda(mm, sp.MatMul(Fm, W_)), hh), sp.MatMul(Fm, Concat(sp.Lambda(mm, W_), hh)), "no factor"),
    by("factor_out_of_a_sum_on_the_wrong_side", "factor_out_of_blocks",
       MatSum(sp.MatMul(W_, Fm), (mm, 1, hh)), sp.MatMul(MatSum(Fm, (mm, 1, hh)), W_), "no factor"),
]

BLOCK_TRUE = [
    ok("block_pairs", "block_matrix_product", sp.MatMul(HConcat(A1, A2), VStack(B1, B2)),
       sp.MatAdd(sp.MatMul(A1, B1), sp.MatMul(A2, B2))),
    ok("factor_out_of_a_concat", "factor_out_of_blocks", Concat(sp.Lambda(mm, sp.MatMul(W_, Fm)), hh),
       sp.MatMul(W_, Concat(F_, hh))),
    ok("factor_out_of_a_stack", "factor_out_of_blocks", Stack(sp.Lambda(mm, sp.MatMul(Fm, W_)), hh),
       sp.MatMul(Stack(F_, hh), W_)),
    ok("factor_out_of_a_sum", "factor_out_of_blocks", MatSum(sp.MatMul(W_, Fm), (mm, 1, hh)),
       sp.MatMul(W_, MatSum(Fm, (mm, 1, hh)))),
]


@pytest.mark.parametrize("claim", BLOCK_FALSE, ids=lambda c: c.id)
def test_block_rules_propose_and_the_kernel_refuses(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", BLOCK_TRUE, ids=lambda c: c.id)
def test_block_rules_propose_and_the_kernel_proves(claim):
    assert_proved(claim)


def Fat(v):
    return FamilyMatrix("F", v, nn, nn)


PEEL_FALSE = [
    by("peel_a_family_that_may_have_one_block", "peel_last_block", Concat(F_, hh),
       HConcat(Concat(F_, hh - 1), Fat(hh)), "does not give"),
    by("peel_a_sum_that_may_have_one_term", "peel_last_block", MatSum(Fm, (mm, 1, hh)),
       sp.MatAdd(MatSum(Fm, (mm, 1, hh - 1)), Fat(hh)), "does not give"),
    by("peel_a_sum_over_a_half_bound", "peel_last_block", MatSum(Fm, (mm, 1, hh / 2 + 1)),
       sp.MatAdd(MatSum(Fm, (mm, 1, hh / 2)), Fat(hh / 2 + 1)), "does not give"),
    by("peel_the_first_block_instead", "peel_last_block", Stack(F_, hh + 1),
       VStack(Fat(1), Stack(F_, hh)), "does not give"),
]

PEEL_TRUE = [
    ok("peel_a_family_of_h_plus_1_blocks", "peel_last_block", Concat(F_, hh + 1),
       HConcat(Concat(F_, hh), Fat(hh + 1))),
    ok("peel_a_stack_of_h_plus_1_blocks", "peel_last_block", Stack(F_, hh + 1), VStack(Stack(F_, hh), Fat(hh + 1))),
    ok("peel_a_sum_of_h_plus_1_terms", "peel_last_block", MatSum(Fm, (mm, 1, hh + 1)),
       sp.MatAdd(MatSum(Fm, (mm, 1, hh)), Fat(hh + 1))),
    ok("a_sum_of_one_term", "peel_last_block", MatSum(Fm, (mm, 1, 1)), Fat(1)),
]


@pytest.mark.parametrize("claim", PEEL_FALSE, ids=lambda c: c.id)
def test_peeling_needs_a_count_shown_an_integer_at_least_2(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", PEEL_TRUE, ids=lambda c: c.id)
def test_peeling_with_the_count_shown_is_proved(claim):
    assert_proved(claim)
