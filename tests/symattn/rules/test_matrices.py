"""Matrix rules: associativity, transposes, block products (shapes checked), peeling blocks,
factoring out of blocks, induction on the number of blocks, rank of a product, permutation
matrices, re-indexing sums along a permutation, entrywise equality, exact evaluation."""

import pytest
import sympy as sp

from symattn.engine.checker import Checker
from symattn.engine.theorem import Theorem
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import IndexRange, Statement
from symattn.maths.multihead import Concat, FamilyMatrix, HConcat, MatSum, Rank, Stack, VStack
from symattn.maths.permutation import Permutation, PermutationMatrix, SoftmaxRows
from symattn.maths.softmax import Softmax
from symattn.rules import ProofContext, check_step
from symattn.rules.matrices import entry, matrices_equal, normal_form, peel

n, d, p, q, h = sp.symbols("n d p q h", integer=True, positive=True)
i, j, k, m = sp.symbols("i j k m", integer=True, positive=True)
A, B, C = sp.MatrixSymbol("A", n, d), sp.MatrixSymbol("B", d, p), sp.MatrixSymbol("C", p, q)
S = sp.MatrixSymbol("S", n, n)
P = PermutationMatrix("sigma", n)
sigma, tau = sp.Function("sigma"), sp.Function("tau")
f = sp.IndexedBase("f")
PERM = ProofContext(hypotheses=(Permutation("sigma_perm", sigma="sigma", n=n),))
NONE = ProofContext()


def st(lhs, rhs, rule, ctx=NONE, relation="=", **args):
    return check_step(lhs, rhs, relation, rule, args, ctx).status


# ----------------------------------------------------------------------------- associativity, transposes
def test_matrix_associativity_regroups_products_and_moves_scalars():
    assert st(sp.MatMul(sp.MatMul(A, B), C), sp.MatMul(A, sp.MatMul(B, C)), "matrix_associativity") is Level.PASS
    assert st(sp.MatMul(A, 2 * B), 2 * A * B, "matrix_associativity") is Level.PASS


def test_transpose_product_reverses_the_order():
    assert st(sp.Transpose(A * B), B.T * A.T, "transpose_product") is Level.PASS
    assert st(sp.Transpose(sp.Transpose(A)) * B, A * B, "transpose_product") is Level.PASS


def test_matrix_distributivity_expands_products_over_sums():
    B2 = sp.MatrixSymbol("B2", d, p)
    assert st(sp.MatMul(A, sp.MatAdd(B, B2)), A * B + A * B2, "matrix_distributivity") is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, rule, why",
    [
        (sp.MatMul(sp.MatrixSymbol("D", d, d), sp.MatrixSymbol("E", d, d)),
         sp.MatMul(sp.MatrixSymbol("E", d, d), sp.MatrixSymbol("D", d, d)), "matrix_associativity",
         "matrix products do not commute"),
        (sp.MatMul(A, 2 * B), A * B, "matrix_associativity", "dropped factor"),
        (sp.MatMul(A, B), -A * B, "matrix_associativity", "sign error"),
        (sp.Transpose(sp.MatrixSymbol("D", d, d) * sp.MatrixSymbol("E", d, d)),
         sp.MatrixSymbol("D", d, d).T * sp.MatrixSymbol("E", d, d).T, "transpose_product", "order not reversed"),
        (sp.MatMul(A, sp.MatAdd(B, sp.MatrixSymbol("B2", d, p))), A * B, "matrix_distributivity", "dropped term"),
        (A * B, A * B + A * B, "matrix_associativity", "doubled"),
    ],
)
def test_matrix_algebra_rules_reject_invalid_steps(lhs, rhs, rule, why):
    assert st(lhs, rhs, rule) is Level.FAIL, why


# ----------------------------------------------------------------------------- block products
A1, A2 = sp.MatrixSymbol("A1", n, d), sp.MatrixSymbol("A2", n, p)
B1, B2 = sp.MatrixSymbol("B1", d, q), sp.MatrixSymbol("B2", p, q)


def test_block_matrix_product_with_symbolic_shapes():
    assert st(HConcat(A1, A2) * VStack(B1, B2), A1 * B1 + A2 * B2, "block_matrix_product") is Level.PASS
    # folding direction, and inside a longer product
    D = sp.MatrixSymbol("D", q, q)
    assert st(sp.MatMul(HConcat(A1, A2), VStack(B1, B2), D), sp.MatMul(A1 * B1 + A2 * B2, D),
              "block_matrix_product") is Level.PASS
    assert st(A1 * B1 + A2 * B2, HConcat(A1, A2) * VStack(B1, B2), "block_matrix_product") is Level.PASS


def test_block_matrix_product_rejects_blocks_that_do_not_fit():
    # [A1 (n x d), A2 (n x p)] [B2' (p x q); B1' (d x q)]: the total product has a valid shape
    # (d + p = p + d) but block 1 is n x d times p x q -- the rule checks each pair, not the total.
    Bp, Bd = sp.MatrixSymbol("Bp", p, q), sp.MatrixSymbol("Bd", d, q)
    res = check_step(HConcat(A1, A2) * VStack(Bp, Bd), A1 * Bp + A2 * Bd, "=", "block_matrix_product", {}, NONE)
    assert res.status is Level.FAIL and "inner dimensions" in res.reason


@pytest.mark.parametrize(
    "rhs, why",
    [
        (A1 * B1 - A2 * B2, "sign error"),
        (A1 * B1, "dropped block"),
        (2 * A1 * B1 + A2 * B2, "extra factor"),
    ],
)
def test_block_matrix_product_rejects_wrong_sums(rhs, why):
    assert st(HConcat(A1, A2) * VStack(B1, B2), rhs, "block_matrix_product") is Level.FAIL, why


def test_block_matrix_product_rejects_different_numbers_of_blocks():
    res = check_step(HConcat(A1, A2) * VStack(sp.MatrixSymbol("E", d + p, q)), A1, "=", "block_matrix_product",
                     {}, NONE)
    assert res.status is Level.FAIL and "blocks" in res.reason


# ----------------------------------------------------------------------------- peeling, factoring, induction
F = sp.Lambda(m, FamilyMatrix("F", m, n, d))
G = sp.Lambda(m, FamilyMatrix("G", m, d, q))


def test_peel_last_block_needs_at_least_two_blocks():
    assert st(Concat(F, h + 1), HConcat(Concat(F, h), F(h + 1)), "peel_last_block") is Level.PASS
    assert st(Concat(F, 1), F(1), "peel_last_block") is Level.PASS
    assert st(MatSum(F(m), (m, 1, h + 1)), MatSum(F(m), (m, 1, h)) + F(h + 1), "peel_last_block") is Level.PASS
    # h may be 1: Concat(F, h) cannot be split as Concat(F, h - 1) followed by F(h)
    assert st(Concat(F, h), HConcat(Concat(F, h - 1), F(h)), "peel_last_block") is Level.FAIL
    # ... unless a hypothesis says h >= 2
    ge2 = ProofContext(hypotheses=(IndexRange("h_range", index=h, lower=2, upper=n),))
    assert st(Concat(F, h), HConcat(Concat(F, h - 1), F(h)), "peel_last_block", ge2) is Level.PASS
    assert peel(Concat(F, h)) is None


@pytest.mark.parametrize(
    "lhs, rhs, why",
    [
        (Concat(F, h + 1), HConcat(Concat(F, h), F(h)), "off by one: the last block is F(h + 1)"),
        (MatSum(F(m), (m, 1, h + 1)), MatSum(F(m), (m, 1, h + 1)) + F(h + 1), "last term counted twice"),
        (Stack(G, h + 1), VStack(G(h + 1), Stack(G, h)), "blocks in the wrong order"),
    ],
)
def test_peel_last_block_rejects_invalid_splits(lhs, rhs, why):
    assert st(lhs, rhs, "peel_last_block") is Level.FAIL, why


def test_factor_out_of_blocks_only_for_factors_free_of_the_index():
    M = sp.MatrixSymbol("M", n, n)
    FM = sp.Lambda(m, sp.MatMul(M, FamilyMatrix("F", m, n, d)))
    assert st(Concat(FM, h), sp.MatMul(M, Concat(F, h)), "factor_out_of_blocks") is Level.PASS
    assert st(MatSum(M * F(m), (m, 1, h)), M * MatSum(F(m), (m, 1, h)), "factor_out_of_blocks") is Level.PASS
    Mm = FamilyMatrix("M", m, n, n)  # depends on the block index
    FMm = sp.Lambda(m, sp.MatMul(Mm, FamilyMatrix("F", m, n, d)))
    assert st(Concat(FMm, h), sp.MatMul(Mm, Concat(F, h)), "factor_out_of_blocks") is Level.FAIL
    # a left factor does not leave a vertical stack
    D = sp.MatrixSymbol("D", d, d)
    GD = sp.Lambda(m, sp.MatMul(D, FamilyMatrix("G", m, d, q)))
    assert st(Stack(GD, h), sp.MatMul(D, Stack(G, h)), "factor_out_of_blocks") is Level.FAIL


t = sp.Symbol("t", integer=True, positive=True)  # the induction variable, 1 <= t <= h


def _at(x, value):
    return x.xreplace({t: value})


def _step(claim_lhs, claim_rhs):
    k1 = t - 1
    return (
        Derivation(claim_lhs)
        .eq(sp.MatMul(HConcat(Concat(F, k1), F(t)), VStack(Stack(G, k1), G(t))), "peel_last_block")
        .eq(sp.MatAdd(sp.MatMul(Concat(F, k1), Stack(G, k1)), sp.MatMul(F(t), G(t))), "block_matrix_product")
        .eq(sp.MatAdd(MatSum(F(m) * G(m), (m, 1, k1)), sp.MatMul(F(t), G(t))), "substitute",
            using="induction_hypothesis")
        .eq(claim_rhs, "peel_last_block")
    )


def _base(claim_rhs):
    return (
        Derivation(Concat(F, 1) * Stack(G, 1))
        .eq(F(1) * G(1), "peel_last_block")
        .eq(_at(claim_rhs, 1), "peel_last_block")
    )


CLAIM_L, CLAIM_R = Concat(F, t) * Stack(G, t), MatSum(F(m) * G(m), (m, 1, t))
LHS, RHS = Concat(F, h) * Stack(G, h), MatSum(F(m) * G(m), (m, 1, h))


def _ind(lhs=LHS, rhs=RHS, base=None, step=None, var=t, start=1, ctx=NONE):
    base = _base(CLAIM_R) if base is None else base
    step = _step(CLAIM_L, CLAIM_R) if step is None else step
    return st(lhs, rhs, "bounded_induction", ctx, on=h, var=var, start=start, base=base, step=step)


def test_induction_proves_concat_times_stack_is_the_sum_of_block_products():
    assert _ind() is Level.PASS


def test_induction_on_blocks_rejects_bad_steps_bases_and_variables():
    # a step that ends at the claim for t - 1, not t
    bad_step = _step(CLAIM_L, CLAIM_R)
    bad_step.steps[-1] = type(bad_step.steps[-1])(_at(CLAIM_R, t - 1), "peel_last_block")
    assert _ind(step=bad_step) is Level.FAIL
    # the outer step is not the claim at h (2 * sum)
    assert _ind(rhs=2 * RHS) is Level.FAIL
    # a base case proving the claim at 1 for a different right side
    assert _ind(base=_base(2 * CLAIM_R)) is Level.FAIL
    # induction on a symbol that is not an integer
    x = sp.Symbol("x")
    assert _ind(var=x, step=_step(CLAIM_L.xreplace({t: x}), CLAIM_R.xreplace({t: x}))) is Level.FAIL
    # the base case at t = 1 does not start an induction from 2 (and h >= 2 is not known)
    assert _ind(start=2) is Level.FAIL
    # a hypothesis about the induction variable: the step must hold for a generic t
    pinned = ProofContext(hypotheses=(IndexRange("t_range", index=t, lower=2, upper=h),))
    assert _ind(ctx=pinned) is Level.FAIL
    # the induction variable in the outer step
    assert _ind(lhs=CLAIM_L, rhs=CLAIM_R) is Level.FAIL
    # the bound is the variable itself
    assert st(LHS, RHS, "bounded_induction", NONE, on=t, var=t, start=1, base=_base(CLAIM_R),
              step=_step(CLAIM_L, CLAIM_R)) is Level.FAIL


# ----------------------------------------------------------------------------- rank
def test_rank_of_product_le_reads_the_inner_dimension_from_the_shapes():
    assert st(Rank(A * B), d, "rank_of_product_le", relation="<=") is Level.PASS
    assert st(Rank(A * B), Rank(A), "rank_of_product_le", relation="<=") is Level.PASS
    assert st(Rank(A * B * C), p, "rank_of_product_le", relation="<=") is Level.PASS
    assert st(Rank(A * B), sp.Min(d, Rank(B)), "rank_of_product_le", relation="<=") is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, relation, why",
    [
        (Rank(A * B), n, "<=", "n is an outer dimension, not the inner one"),
        (Rank(A * B), d - 1, "<=", "off by one"),
        (Rank(A * B), d, ">=", "the rank of a product is bounded above, not below"),
        (Rank(A * B), d, "=", "only an inequality"),
        (Rank(A), n, "<=", "not a product"),
    ],
)
def test_rank_of_product_le_rejects_invalid_bounds(lhs, rhs, relation, why):
    assert st(lhs, rhs, "rank_of_product_le", relation=relation) is Level.FAIL, why


# ----------------------------------------------------------------------------- permutations
def test_permutation_matrix_orthogonal_needs_a_declared_permutation():
    assert st(sp.MatMul(P.T, P, S), S, "permutation_matrix_orthogonal", PERM) is Level.PASS
    assert st(sp.MatMul(S, P, P.T), S, "permutation_matrix_orthogonal", PERM) is Level.PASS
    assert st(sp.MatMul(P.T, P, S), S, "permutation_matrix_orthogonal", NONE) is Level.FAIL
    assert st(sp.MatMul(P, P, S), S, "permutation_matrix_orthogonal", PERM) is Level.FAIL  # P P != I


def test_sum_reindex_bijection_valid():
    lhs = sp.Sum(sp.exp(f[sigma(k)]), (k, 1, n))
    assert st(lhs, sp.Sum(sp.exp(f[k]), (k, 1, n)), "sum_reindex_bijection", PERM) is Level.PASS
    assert st(sp.Sum(f[k], (k, 1, n)), sp.Sum(f[sigma(k)], (k, 1, n)), "sum_reindex_bijection", PERM) is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, ctx, why",
    [
        (sp.Sum(f[tau(k)], (k, 1, n)), sp.Sum(f[k], (k, 1, n)), PERM, "tau is not declared a permutation"),
        (sp.Sum(f[sigma(k)], (k, 1, n)), sp.Sum(f[k], (k, 1, n)), NONE, "no permutation declared"),
        (sp.Sum(f[sigma(k)], (k, 1, n - 1)), sp.Sum(f[k], (k, 1, n - 1)), PERM, "sigma permutes 1..n, not 1..n-1"),
        (sp.Sum(k * f[sigma(k)], (k, 1, n)), sp.Sum(k * f[k], (k, 1, n)), PERM, "k occurs outside sigma(k)"),
        (sp.Sum(f[sigma(k)], (k, 1, n)), 2 * sp.Sum(f[k], (k, 1, n)), PERM, "extra factor"),
    ],
)
def test_sum_reindex_bijection_invalid(lhs, rhs, ctx, why):
    assert st(lhs, rhs, "sum_reindex_bijection", ctx) is Level.FAIL, why


def test_entry_of_permuted_products_acts_on_indices():
    s = sp.IndexedBase("S")
    assert entry(P * S * P.T, i, j) == s[sigma(i), sigma(j)]
    assert entry(S.T, i, j) == s[j, i]
    k1 = sp.Symbol("k_1", integer=True, positive=True)
    assert entry(SoftmaxRows(P * S), i, j) == Softmax(sp.Lambda(k1, s[sigma(i), k1]), j, n)
    with pytest.raises(ValueError, match="reserved"):
        entry(sp.MatrixSymbol("X", n, n) * sp.Symbol("k_1"), i, j)


def test_matrix_entrywise_checks_the_nested_proof_and_fresh_indices():
    lhs, rhs = SoftmaxRows(P * S), P * SoftmaxRows(S)
    proof = Derivation(entry(lhs, i, j))
    assert st(lhs, rhs, "matrix_entrywise", PERM, i=i, j=j, proof=proof) is Level.PASS
    # the proof must be about the entries of these matrices
    wrong = Derivation(entry(SoftmaxRows(S), i, j))
    assert st(lhs, rhs, "matrix_entrywise", PERM, i=i, j=j, proof=wrong) is Level.FAIL
    # softmax_rows(P S) != softmax_rows(S) P: the entries differ, no proof closes the gap
    assert st(lhs, SoftmaxRows(S) * P, "matrix_entrywise", PERM, i=i, j=j, proof=proof) is Level.FAIL
    # the index must be fresh
    X = sp.MatrixSymbol("X", n, i)
    assert st(X, X, "matrix_entrywise", PERM, i=i, j=j, proof=Derivation(entry(X, i, j))) is Level.FAIL


def test_evaluate_explicit_is_exact():
    M = sp.ImmutableMatrix([[0, sp.log(3)]])
    assert st(SoftmaxRows(M), sp.ImmutableMatrix([[sp.Rational(1, 4), sp.Rational(3, 4)]]),
              "evaluate_explicit") is Level.PASS
    assert st(SoftmaxRows(M), sp.ImmutableMatrix([[sp.Rational(1, 4), sp.Rational(3, 4) + sp.Rational(1, 10**30)]]),
              "evaluate_explicit") is Level.FAIL


def test_normal_form_and_matrices_equal():
    assert normal_form(sp.MatMul(A, sp.MatMul(B, C))) == A * B * C
    assert matrices_equal(sp.Transpose(A * B), B.T * A.T, transposes=True)
    assert not matrices_equal(sp.Transpose(A * B), B.T * A.T)


# ----------------------------------------------------------------------------- false statements
def test_false_block_identity_with_a_plausible_induction_is_not_proved():
    # claim: Concat(F, h) Stack(G, h) = sum of F_m G_{m+1} (heads paired with the wrong output block)
    shifted = MatSum(F(m) * G(m + 1), (m, 1, h))
    thm = Theorem(
        id="false_concat_pairs_shifted_blocks",
        title="(false) heads meet the next output block",
        statement=Statement(LHS, shifted),
        source="extension",
        derivation=lambda: Derivation(LHS).eq(shifted, "bounded_induction", on=h, var=t, start=1,
                                              base=_base(shifted.xreplace({h: t})),
                                              step=_step(CLAIM_L, shifted.xreplace({h: t}))),
        dimensions=(n, d, q, h),
    )
    outcome = Checker(numeric=False).check(thm)
    assert outcome.verdict is not Verdict.PROVED
    assert outcome.levels["symbolic"].status is Level.FAIL


def test_false_rank_bound_is_not_proved():
    thm = Theorem(
        id="false_rank_le_outer_dimension_minus_one",
        title="(false) rank(AB) <= d - 1",
        statement=Statement(Rank(A * B), d - 1, "<="),
        source="extension",
        derivation=lambda: Derivation(Rank(A * B)).le(d - 1, "rank_of_product_le"),
        dimensions=(d,),
    )
    assert Checker(numeric=False).check(thm).verdict is not Verdict.PROVED
