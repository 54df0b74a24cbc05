"""The expectation rules: valid steps pass, invalid ones (shared variables, off-by-one ranges,
sign errors, dropped factors, undeclared independence) fail, and a false theorem with a
plausible-looking proof is not proved."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, Theorem
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.printing import latex
from symattn.language.statement import Assumption, Independent, IndexRange, RandomFamily, Statement
from symattn.maths.moments import gaussian_vector
from symattn.rules import ProofContext, check_step
from symattn.rules.expectation import Covariance, Expectation, StandardDeviation, Variance

d = sp.Symbol("d", integer=True, positive=True)
s = sp.Symbol("s", positive=True)
m = sp.Symbol("m", real=True)
mu4 = sp.Symbol("mu4", positive=True)
c = sp.Symbol("c")  # no assumptions: not known to be real
i, j = sp.symbols("i j", integer=True, positive=True)
q, k, v, w = (sp.IndexedBase(n, real=True) for n in "qkvw")

Q = RandomFamily("q_iid", base=q, dim=d, mean=0, variance=s**2, moments=((4, mu4),))
K = RandomFamily("k_iid", base=k, dim=d, mean=0, variance=s**2)
V = RandomFamily("v_iid", base=v, dim=d, mean=0, variance=s**2)
Q3 = RandomFamily("q_iid", base=q, dim=3, mean=0, variance=s**2)  # q_2 exists: 2 <= 3
QM = RandomFamily("q_iid", base=q, dim=d, mean=m, variance=s**2)
QK = Independent("qk", families=(q, k))
QKV = Independent("qkv", families=(q, k, v))
PAIRWISE = (Independent("qk", families=(q, k)), Independent("kv", families=(k, v)),
            Independent("qv", families=(q, v)))
I_NE_J = Assumption("i_ne_j", condition=sp.Ne(i, j))
I_RANGE = IndexRange("i_range", index=i, lower=1, upper=d)
J_RANGE = IndexRange("j_range", index=j, lower=1, upper=d)

BASE = (Q, K, QK, I_RANGE)
S = sp.Sum(q[i] * k[i], (i, 1, d))


def status(lhs, rhs, rule_name, hyps=BASE, relation="="):
    return check_step(lhs, rhs, relation, rule_name, {}, ProofContext(hypotheses=tuple(hyps))).status


def product_formula(x, y):
    """(Var X + E[X]^2)(Var Y + E[Y]^2) - E[X]^2 E[Y]^2."""
    ex, ey = Expectation(x), Expectation(y)
    return (Variance(x) + ex**2) * (Variance(y) + ey**2) - ex**2 * ey**2


VALID = [
    # linearity_of_expectation
    ("lin_affine", "linearity_of_expectation", Expectation(2 * q[i] + 3), 2 * Expectation(q[i]) + 3, BASE),
    ("lin_sum", "linearity_of_expectation", Expectation(S), sp.Sum(Expectation(q[i] * k[i]), (i, 1, d)), BASE),
    ("lin_constant_factor", "linearity_of_expectation", Expectation(s * q[i] * k[i]),
     s * Expectation(q[i] * k[i]), BASE),
    ("lin_expand_square", "linearity_of_expectation", Expectation((q[i] + 1) ** 2),
     Expectation(q[i] ** 2) + 2 * Expectation(q[i]) + 1, BASE),
    # independence
    ("ind_two_families", "independence", Expectation(q[i] * k[i]), Expectation(q[i]) * Expectation(k[i]), BASE),
    ("ind_distinct_integers", "independence", Expectation(q[1] * q[2]), Expectation(q[1]) * Expectation(q[2]), (Q3,)),
    ("ind_last_entry", "independence", Expectation(q[1] * q[3]),
     Expectation(q[1]) * Expectation(q[3]), (Q3,)),
    ("ind_offset", "independence", sp.Sum(Expectation(q[i] * q[i + 1]), (i, 1, d - 1)),
     sp.Sum(Expectation(q[i]) * Expectation(q[i + 1]), (i, 1, d - 1)), BASE),
    ("ind_declared_ne", "independence", Expectation(q[i] * q[j]), Expectation(q[i]) * Expectation(q[j]),
     BASE + (I_NE_J, J_RANGE)),
    ("ind_square_and_other", "independence", Expectation(q[i] ** 2 * k[i]),
     Expectation(q[i] ** 2) * Expectation(k[i]), BASE),
    ("ind_three_mutual", "independence", Expectation(q[i] * k[i] * v[i]),
     Expectation(q[i]) * Expectation(k[i] * v[i]), (Q, K, V, QKV, I_RANGE)),
    ("ind_inside_sum", "independence", sp.Sum(Expectation(q[i] * k[i]), (i, 1, d)),
     sp.Sum(Expectation(q[i]) * Expectation(k[i]), (i, 1, d)), BASE),
    # variance_of_independent_sum
    ("vsum_dot", "variance_of_independent_sum", Variance(S), sp.Sum(Variance(q[i] * k[i]), (i, 1, d)), BASE),
    ("vsum_single_family", "variance_of_independent_sum", Variance(sp.Sum(q[i] ** 2, (i, 1, d))),
     sp.Sum(Variance(q[i] ** 2), (i, 1, d)), (Q,)),
    ("vsum_sub_range", "variance_of_independent_sum", Variance(sp.Sum(q[i], (i, 2, d))),
     sp.Sum(Variance(q[i]), (i, 2, d)), (Q,)),
    # variance_of_independent_product
    ("vprod_two", "variance_of_independent_product", Variance(q[i] * k[i]), product_formula(q[i], k[i]), BASE),
    ("vprod_distinct_entries", "variance_of_independent_product", Variance(q[1] * q[2]),
     product_formula(q[1], q[2]), (Q3,)),
    ("vprod_grouped", "variance_of_independent_product", Variance(q[i] * k[i] * v[i]),
     product_formula(q[i] * k[i], v[i]), (Q, K, V, QKV, I_RANGE)),
    # definitions
    ("var_def", "variance_definition", Variance(S), Expectation(S**2) - Expectation(S) ** 2, BASE),
    ("cov_def", "covariance_definition", Covariance(q[1], k[1]),
     Expectation(q[1] * k[1]) - Expectation(q[1]) * Expectation(k[1]), BASE),
    ("std_def", "std_definition", StandardDeviation(S), sp.sqrt(Variance(S)), BASE),
    # variance_scaling
    ("scale_number", "variance_scaling", Variance(3 * q[i]), 9 * Variance(q[i]), BASE),
    ("scale_sqrt", "variance_scaling", Variance(S / sp.sqrt(d)), Variance(S) / d, BASE),
    # moment
    ("moment_mean", "moment", Expectation(q[i]), sp.S.Zero, BASE),
    ("moment_variance", "moment", Variance(q[i]), s**2, BASE),
    ("moment_second_raw", "moment", Expectation(q[i] ** 2), s**2 + m**2, (QM, I_RANGE)),
    ("moment_declared_fourth", "moment", Expectation(q[i] ** 4), mu4, BASE),
    ("moment_free_index_in_range", "moment", Expectation(q[j]), sp.S.Zero, BASE + (J_RANGE,)),
    ("moment_in_sum", "moment", sp.Sum(Expectation(q[i]) * Expectation(k[i]), (i, 1, d)),
     sp.Sum(sp.S.Zero, (i, 1, d)), BASE),
]


@pytest.mark.parametrize("name, rule_name, lhs, rhs, hyps", VALID, ids=[r[0] for r in VALID])
def test_valid_applications_pass(name, rule_name, lhs, rhs, hyps):
    assert status(lhs, rhs, rule_name, hyps) is Level.PASS


@pytest.mark.parametrize("name, rule_name, lhs, rhs, hyps", VALID, ids=[r[0] for r in VALID])
def test_valid_applications_also_pass_read_backwards(name, rule_name, lhs, rhs, hyps):
    assert status(rhs, lhs, rule_name, hyps) is Level.PASS


INVALID = [
    # linearity_of_expectation
    ("lin_random_treated_as_constant", "linearity_of_expectation", Expectation(q[i] * k[i]),
     Expectation(q[i]) * k[i], BASE),
    ("lin_dropped_factor", "linearity_of_expectation", Expectation(2 * q[i] + 3), Expectation(q[i]) + 3, BASE),
    ("lin_off_by_one", "linearity_of_expectation", Expectation(S),
     sp.Sum(Expectation(q[i] * k[i]), (i, 0, d)), BASE),
    ("lin_square_is_not_linear", "linearity_of_expectation", Expectation(q[i] ** 2), Expectation(q[i]) ** 2, BASE),
    # independence
    ("ind_same_entry", "independence", Expectation(q[i] * q[i]), Expectation(q[i]) ** 2, BASE),
    ("ind_unknown_distinctness", "independence", Expectation(q[i] * q[j]),
     Expectation(q[i]) * Expectation(q[j]), BASE + (J_RANGE,)),
    ("ind_entry_beyond_symbolic_dim", "independence", Expectation(q[1] * q[2]),
     Expectation(q[1]) * Expectation(q[2]), BASE),  # d >= 2 is not known
    ("ind_undeclared_entry", "independence", Expectation(q[0] * k[0]), Expectation(q[0]) * Expectation(k[0]), BASE),
    ("ind_offset_leaves_the_range", "independence", sp.Sum(Expectation(q[i] * q[i + 1]), (i, 1, d)),
     sp.Sum(Expectation(q[i]) * Expectation(q[i + 1]), (i, 1, d)), BASE),
    ("ind_families_not_declared_independent", "independence", Expectation(q[i] * k[i]),
     Expectation(q[i]) * Expectation(k[i]), (Q, K, I_RANGE)),
    ("ind_only_pairwise_independent", "independence", Expectation(q[i] * k[i] * v[i]),
     Expectation(q[i]) * Expectation(k[i]) * Expectation(v[i]), (Q, K, V, I_RANGE) + PAIRWISE),
    ("ind_ne_hypothesis_on_bound_indices", "independence",
     sp.Sum(Expectation(q[i] * q[j]), (i, 1, d), (j, 1, d)),
     sp.Sum(Expectation(q[i]) * Expectation(q[j]), (i, 1, d), (j, 1, d)), BASE + (I_NE_J,)),
    ("ind_shared_through_a_sum", "independence", Expectation(sp.Sum(q[i], (i, 1, d)) * q[1]),
     Expectation(sp.Sum(q[i], (i, 1, d))) * Expectation(q[1]), BASE),
    ("ind_bound_name_clash", "independence", Expectation(sp.Sum(q[i], (i, 1, d)) * q[i + 1]),
     Expectation(sp.Sum(q[i], (i, 1, d))) * Expectation(q[i + 1]), BASE),
    # variance_of_independent_sum
    ("vsum_neighbouring_terms_share_entries", "variance_of_independent_sum",
     Variance(sp.Sum(q[i] * q[i + 1], (i, 1, d - 1))), sp.Sum(Variance(q[i] * q[i + 1]), (i, 1, d - 1)), BASE),
    ("vsum_range_starts_at_zero", "variance_of_independent_sum", Variance(sp.Sum(q[i] * k[i], (i, 0, d))),
     sp.Sum(Variance(q[i] * k[i]), (i, 0, d)), BASE),
    ("vsum_range_past_dim", "variance_of_independent_sum", Variance(sp.Sum(q[i] * k[i], (i, 1, d + 1))),
     sp.Sum(Variance(q[i] * k[i]), (i, 1, d + 1)), BASE),
    ("vsum_without_independence", "variance_of_independent_sum", Variance(S),
     sp.Sum(Variance(q[i] * k[i]), (i, 1, d)), (Q, K)),
    ("vsum_shared_entry", "variance_of_independent_sum", Variance(sp.Sum(q[i] * k[1], (i, 1, d))),
     sp.Sum(Variance(q[i] * k[1]), (i, 1, d)), BASE),
    ("vsum_wrong_result", "variance_of_independent_sum", Variance(S), d * Variance(q[1] * k[1]) ** 2, BASE),
    # variance_of_independent_product
    ("vprod_same_entry", "variance_of_independent_product", Variance(q[i] * q[i]), product_formula(q[i], q[i]), BASE),
    ("vprod_sign_error", "variance_of_independent_product", Variance(q[i] * k[i]),
     product_formula(q[i], k[i]) + 2 * Expectation(q[i]) ** 2 * Expectation(k[i]) ** 2, BASE),
    ("vprod_dropped_term", "variance_of_independent_product", Variance(q[i] * k[i]),
     Variance(q[i]) * Variance(k[i]), BASE),
    ("vprod_unknown_distinctness", "variance_of_independent_product", Variance(q[i] * q[j]),
     product_formula(q[i], q[j]), BASE),
    # definitions
    ("var_def_sign", "variance_definition", Variance(S), Expectation(S**2) + Expectation(S) ** 2, BASE),
    ("var_def_swapped", "variance_definition", Variance(S), Expectation(S) ** 2 - Expectation(S**2), BASE),
    ("cov_def_wrong_factor", "covariance_definition", Covariance(q[1], k[1]),
     Expectation(q[1] * k[1]) - Expectation(q[1]) ** 2, BASE),
    ("std_def_is_not_variance", "std_definition", StandardDeviation(S), Variance(S), BASE),
    # variance_scaling
    ("scale_dropped_square", "variance_scaling", Variance(3 * q[i]), 3 * Variance(q[i]), BASE),
    ("scale_constant_not_real", "variance_scaling", Variance(c * q[i]), c**2 * Variance(q[i]), BASE),
    ("scale_random_factor", "variance_scaling", Variance(q[1] * q[2]), q[1] ** 2 * Variance(q[2]), BASE),
    # moment
    ("moment_forgot_the_mean", "moment", Expectation(q[i] ** 2), s**2, (QM, I_RANGE)),
    ("moment_index_out_of_range", "moment", Expectation(q[0]), sp.S.Zero, BASE),
    ("moment_free_index_without_range", "moment", Expectation(q[j]), sp.S.Zero, BASE),
    ("moment_gaussian_fourth_not_declared", "moment", Expectation(k[i] ** 4), 3 * s**4, BASE),
    ("moment_undeclared_family", "moment", Expectation(w[i]), sp.S.Zero, BASE),
]


@pytest.mark.parametrize("name, rule_name, lhs, rhs, hyps", INVALID, ids=[r[0] for r in INVALID])
def test_invalid_applications_fail(name, rule_name, lhs, rhs, hyps):
    assert status(lhs, rhs, rule_name, hyps) is Level.FAIL


@pytest.mark.parametrize("rule_name", [
    "linearity_of_expectation", "independence", "variance_of_independent_sum", "variance_of_independent_product",
    "variance_definition", "covariance_definition", "std_definition", "variance_scaling", "moment",
])
def test_rules_justify_equalities_only(rule_name):
    assert status(Variance(q[1]), s**2 + 1, rule_name, relation="<=") is Level.FAIL


def test_a_step_that_applies_no_rule_is_rejected_even_if_true():
    assert status(Expectation(q[1]) + 0, Expectation(q[1]), "independence") is Level.FAIL


# ------------------------------------------------------------------ the objects
LATEX = [
    (Expectation(q[i]), r"\mathbb{E}\left[{q}_{i}\right]"),
    (Variance(q[i] * k[i]), r"\operatorname{Var}\left({k}_{i} {q}_{i}\right)"),
    (Covariance(q[1], k[2]), r"\operatorname{Cov}\left({q}_{1}, {k}_{2}\right)"),
    (StandardDeviation(q[1]), r"\operatorname{sd}\left({q}_{1}\right)"),
    (Expectation(q[i]) ** 2, r"\mathbb{E}\left[{q}_{i}\right]^{2}"),
]


@pytest.mark.parametrize("expr, expected", LATEX, ids=[str(x) for x, _ in LATEX])
def test_latex(expr, expected):
    assert latex(expr) == expected


CONSTRUCTOR_ERRORS = [
    ("string_argument", lambda: Expectation("q[1]"), TypeError),
    ("bool_argument", lambda: Variance(True), TypeError),
    ("matrix_argument", lambda: Variance(sp.Matrix([1, 2])), TypeError),
    ("covariance_one_argument", lambda: Covariance(q[1]), TypeError),
    ("expectation_two_arguments", lambda: Expectation(q[1], q[2]), TypeError),
]


@pytest.mark.parametrize("name, call, error", CONSTRUCTOR_ERRORS, ids=[c[0] for c in CONSTRUCTOR_ERRORS])
def test_constructors_reject_bad_arguments(name, call, error):
    with pytest.raises(error):
        call()


def test_closed_form_evaluates_with_the_moment_calculus_and_doit_never_does():
    """The moment objects are data: SymPy's doit (and simplify, which calls it) leaves them alone, so the
    kernel's zero test never evaluates a moment by the calculus; closed_form() does, explicitly."""
    g = gaussian_vector("g", d, s)
    assert Variance(g[1] * g[2]).closed_form() == s**4
    assert StandardDeviation(2 * g[1]).closed_form() == 2 * s
    assert Expectation(q[1]).closed_form() == Expectation(q[1])  # not a moment-calculus vector
    assert Variance(g[1] * g[2]).doit() == Variance(g[1] * g[2])
    assert sp.simplify(Variance(g[1] * g[2]) - s**4) != 0


def test_variances_are_nonnegative_for_real_arguments():
    assert Variance(q[1]).is_nonnegative and StandardDeviation(q[1]).is_nonnegative


# ------------------------------------------------------------------ false statements
def test_false_norm_variance_with_a_plausible_proof_is_not_proved():
    """Var ||q||^2 = d s^4 is false (it is d (mu_4 - s^4)); the 'proof' treats q_i * q_i as a product
    of independent factors, which the rule refuses; the instances find the counterexample."""
    norm = sp.Sum(q[i] ** 2, (i, 1, d))
    bogus = (
        Derivation(Variance(norm))
        .eq(sp.Sum(Variance(q[i] ** 2), (i, 1, d)), "variance_of_independent_sum")
        .eq(sp.Sum(product_formula(q[i], q[i]), (i, 1, d)), "variance_of_independent_product")
        .eq(sp.Sum(s**4, (i, 1, d)), "moment")
        .eq(d * s**4, "sum_evaluate")
    )
    thm = Theorem(
        id="false_norm_variance", title="false", statement=Statement(Variance(norm), d * s**4),
        source="extension", hypotheses=(Q,), derivation=bogus, dimensions=(d,),
        # the statement at d = size, derived by the kernel; its variance is evaluated from Q's law
        instances=Instances(_norm_instance_derived, (1, 2, 3), at=d),
    )
    outcome = Checker(numeric=False).check(thm)
    assert outcome.levels["symbolic"].status is Level.FAIL
    assert "step 2" in outcome.levels["symbolic"].detail
    assert outcome.levels["instances"].data.get("derived") is True
    assert outcome.verdict is Verdict.REFUTED


def _norm_instance_derived(size: int) -> Statement:
    return Statement(Variance(sp.Add(*[q[t] ** 2 for t in range(1, size + 1)])), size * s**4)


def test_the_true_norm_variance_holds_at_derived_instances():
    """Var ||q||^2 = d (mu_4 - s^4): its derived instances, evaluated from Q's law, hold."""
    norm = sp.Sum(q[i] ** 2, (i, 1, d))

    def build(size):
        return Statement(Variance(sp.Add(*[q[t] ** 2 for t in range(1, size + 1)])), size * (mu4 - s**4))

    thm = Theorem(id="true_norm_variance", title="true", statement=Statement(Variance(norm), d * (mu4 - s**4)),
                  source="extension", hypotheses=(Q,), dimensions=(d,), instances=Instances(build, (1, 2, 3), at=d))
    outcome = Checker(numeric=False).check(thm)
    assert outcome.levels["instances"].data.get("derived") is True
    assert outcome.verdict is Verdict.PROVED_FOR_INSTANCES, outcome.how


def test_moments_of_two_families_without_a_joint_law_are_not_evaluated():
    """q and k without an independence hypothesis: Var(q_1 k_1) is left alone (no refutation from a guessed
    joint law)."""
    K1 = RandomFamily("k_iid", base=k, dim=d, mean=0, variance=s**2)

    def build(size):
        return Statement(Variance(sp.Add(*[q[t] * k[t] for t in range(1, size + 1)])), 7 * size * s**4)

    thm = Theorem(id="two_family_variance", title="?", source="extension",
                  statement=Statement(Variance(sp.Sum(q[i] * k[i], (i, 1, d))), 7 * d * s**4),
                  hypotheses=(Q, K1), dimensions=(d,), instances=Instances(build, (1, 2), at=d))
    outcome = Checker(numeric=False).check(thm)
    assert outcome.verdict is not Verdict.REFUTED
    assert outcome.verdict is not Verdict.PROVED_FOR_INSTANCES


def test_dot_product_variance_without_independent_families_is_not_proved():
    """Without declaring q and k independent (q could equal k) the same chain must not go through."""
    chain = (
        Derivation(Variance(S))
        .eq(sp.Sum(Variance(q[i] * k[i]), (i, 1, d)), "variance_of_independent_sum")
        .eq(sp.Sum(product_formula(q[i], k[i]), (i, 1, d)), "variance_of_independent_product")
        .eq(sp.Sum(s**4, (i, 1, d)), "moment")
        .eq(d * s**4, "sum_evaluate")
    )
    thm = Theorem(
        id="dot_product_variance_without_independence", title="unproved", source="extension",
        statement=Statement(Variance(S), d * s**4), hypotheses=(Q, K), derivation=chain, dimensions=(d,),
    )
    outcome = Checker(numeric=False).check(thm)
    assert outcome.verdict is not Verdict.PROVED
    assert outcome.levels["symbolic"].status is Level.FAIL


def test_independence_of_a_square_with_itself_is_not_proved():
    """E[q_i^2] = E[q_i]^2 = 0 for all i would say every entry is 0 almost surely."""
    chain = (
        Derivation(Expectation(q[1] * q[1]))
        .eq(Expectation(q[1]) * Expectation(q[1]), "independence")
        .eq(sp.S.Zero, "moment")
    )
    thm = Theorem(id="false_second_moment", title="false", source="extension",
                  statement=Statement(Expectation(q[1] ** 2), sp.S.Zero), hypotheses=BASE, derivation=chain)
    outcome = Checker(numeric=False).check(thm)
    assert outcome.verdict is not Verdict.PROVED


#: the invalid steps above in the shape the rule-mutant meta-test collects
#: (rule, lhs, rhs, relation, args, hypotheses); see tests/symattn/rules/test_rule_mutants.py
INVALID_STEPS = [(rule_name, lhs, rhs, "=", {}, hyps) for _name, rule_name, lhs, rhs, hyps in INVALID]
