"""Issue 18, classes 5 and 8, for the probability hypotheses and schemas (symattn.kernel.schemas.probability).

Class 5 (hypotheses without a model): a theorem whose probability hypotheses are contradictory (a
correlation above 1, a fourth moment below the square of the second, ``Independent`` and
``CorrelatedPairs`` on the same families, ``E[q_1] = 1`` against a mean-0 family, two values for one
``forall`` equation) is never proved: the checker finds the hypotheses inconsistent (naming them) and
every probability step under them fails. The same shapes with consistent hypotheses are proved.

Class 8 (preconditions in code): every precondition of a probability schema is checked by the kernel;
``E[q_i k_i]`` is the covariance only when the means are 0 (the schema states ``Cov + E[q_i] E[k_i]``),
indices must be integers in ``1..dim``, ranges inside ``1..dim`` and not reversed, entries at one index.
Each false claim fails at the named step for the named reason; the true claims of the same shape pass.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.engine.verdict import Level, Verdict
from symattn.kernel.schemas.probability import constraints, problems
from symattn.language.statement import Assumption, CorrelatedPairs, Equation, Independent, IndexRange, RandomFamily
from symattn.maths.moments import Expectation, Variance
from symattn.rules import ProofContext, check_step
from tests.symattn.kernel.claims import Claim, assert_proved, assert_rejected, check, step

d = sp.Symbol("d", integer=True, positive=True)
s = sp.Symbol("s", positive=True)
m = sp.Symbol("m", positive=True)  # a mean known to be nonzero
rho = sp.Symbol("rho", real=True)
mu4 = sp.Symbol("mu4", positive=True)
mu = sp.Symbol("mu", real=True)
i = sp.Symbol("i", integer=True, positive=True)
j = sp.Symbol("j", integer=True)
t = sp.Symbol("t", integer=True)
tp = sp.Symbol("tp", integer=True, positive=True)
q, k, v = (sp.IndexedBase(n, real=True) for n in "qkv")
L = sp.IndexedBase("L")
w = sp.IndexedBase("w")  # entries not declared real: a complex family

Q = RandomFamily("q_iid", base=q, dim=d, mean=0, variance=s**2)
K = RandomFamily("k_iid", base=k, dim=d, mean=0, variance=s**2)
V = RandomFamily("v_iid", base=v, dim=d, mean=0, variance=s**2)
Q1 = RandomFamily("q_iid", base=q, dim=d, mean=0, variance=1)
K1 = RandomFamily("k_iid", base=k, dim=d, mean=0, variance=1)
QMU = RandomFamily("q_iid", base=q, dim=d, mean=mu, variance=s**2)
QK = Independent("q_k_independent", families=(q, k))


def pairs(cov, dim=d, mixed=()):
    return CorrelatedPairs("pairs", q=q, k=k, dim=dim, covariance=cov, mixed=mixed)


def fam(var=s**2, mean=0, moments=()):
    return RandomFamily("q_iid", base=q, dim=d, mean=mean, variance=var, moments=moments)


S = sp.Sum(q[i] * k[i], (i, 1, d))


def claim(id, lhs, rhs, steps, hyps, bad_step=0, why=""):
    return Claim(id, lhs, rhs, tuple(steps), hypotheses=tuple(hyps), bad_step=bad_step, why=why)


def mean_of_logit(cov):
    return [step(sp.Sum(Expectation(q[i] * k[i]), (i, 1, d)), "linearity_of_expectation"),
            step(sp.Sum(cov, (i, 1, d)), "pair_moment"),
            step(d * cov, "sum_evaluate")]


# ------------------------------------------------------------------------------------------------ class 5
#: contradictory hypotheses: (claim, a word of the inconsistency the checker must name)
INCONSISTENT_CLAIMS = [
    claim("correlation_two", Expectation(S), 2 * d * s**2, mean_of_logit(2 * s**2), (Q, K, pairs(2 * s**2)),
          1, "|correlation| > 1"),
    claim("correlation_below_minus_one", Expectation(q[1] * k[1]), sp.Rational(-3, 2),
          [step(sp.Rational(-3, 2), "pair_moment")], (Q1, K1, pairs(sp.Rational(-3, 2))), 1, "|correlation| > 1"),
    claim("correlation_above_one_by_an_assumption", Expectation(q[1] * k[1]), rho * s**2,
          [step(rho * s**2, "pair_moment")], (Q, K, pairs(rho * s**2), Assumption("big", condition=sp.Gt(rho, 1))),
          0, "rho**2*s**4 <= s**4 is false"),
    claim("fourth_moment_below_square_by_an_assumption", Expectation(q[1] ** 4), mu4, [step(mu4, "moment")],
          (fam(moments=((4, mu4),)), Assumption("small", condition=sp.Lt(mu4, s**4 / 2))), 0, "is false"),
    claim("fourth_moment_zero", Expectation(q[1] ** 4), 0, [step(0, "moment")], (fam(moments=((4, 0),)),),
          1, "jensen"),
    claim("fourth_moment_below_square", Expectation(q[1] ** 4), s**4 / 2, [step(s**4 / 2, "moment")],
          (fam(moments=((4, s**4 / 2),)),), 1, "jensen"),
    claim("sixth_moment_negative", Expectation(q[1] ** 6), -1, [step(-1, "moment")],
          (fam(var=1, moments=((6, -1),)),), 1, "negative"),
    claim("third_moment_beyond_cauchy_schwarz", Expectation(q[1] ** 3), 10, [step(10, "moment")],
          (fam(var=1, moments=((3, 10), (4, 3))),), 1, "cauchy-schwarz"),
    claim("degenerate_family_with_a_fourth_moment", Expectation(q[1] ** 4), 1, [step(1, "moment")],
          (fam(var=0, moments=((4, 1),)),), 1, "variance 0"),
    claim("independent_and_correlated", Expectation(q[1] * k[1]), 0,
          [step(Expectation(q[1]) * Expectation(k[1]), "independence"), step(0, "moment")],
          (Q, K, QK, pairs(0)), 1, "both independent and correlated"),
    claim("mean_one_against_a_mean_zero_family", sp.S.One, sp.S.Zero,
          [step(Expectation(q[1]), "substitute", using="e"), step(0, "moment")],
          (Q, Equation("e", lhs=Expectation(q[1]), rhs=1)), 2, "by the declared laws"),
    claim("product_mean_against_independence", sp.S.One, sp.S.Zero,
          [step(Expectation(q[1] * k[1]), "substitute", using="e"),
           step(Expectation(q[1]) * Expectation(k[1]), "independence"), step(0, "moment")],
          (Q, K, QK, Equation("e", lhs=Expectation(q[1] * k[1]), rhs=1)), 2, "they differ"),
    claim("forall_mean_equation_against_the_family", Expectation(q[1]), 1, [step(1, "substitute", using="e")],
          (Q, IndexRange("t_range", index=t, lower=1, upper=d),
           Equation("e", lhs=Expectation(q[t]), rhs=1, forall=(t,))), 0, "by the declared laws"),
    claim("mean_pinned_two_ways", sp.S.One, sp.S.Zero,
          [step(mu, "substitute", using="mu1"), step(Expectation(q[1]), "moment"), step(0, "substitute", using="e")],
          (QMU, Equation("mu1", lhs=mu, rhs=1), Equation("e", lhs=Expectation(q[1]), rhs=0)), 0, "eq(mu, 0) is false"),
    claim("one_is_two_by_two_forall_equations", sp.S.One, sp.Integer(2),
          [step(L[1], "substitute", using="a"), step(1 + 1, "substitute", using="b"), step(2, "algebra")],
          (Equation("a", lhs=L[t], rhs=t, forall=(t,)), Equation("b", lhs=L[t], rhs=t + 1, forall=(t,))),
          0, "two values"),
    claim("two_values_for_a_forall_equation", L[1], 2, [step(1 + 1, "substitute", using="b"), step(2, "algebra")],
          (Equation("a", lhs=L[t], rhs=t, forall=(t,)), Equation("b", lhs=L[t], rhs=t + 1, forall=(t,))),
          0, "two values"),
    claim("forall_equation_against_one_of_its_instances", L[1], 2, [step(2, "substitute", using="b")],
          (Equation("a", lhs=L[tp], rhs=tp, forall=(tp,)), Equation("b", lhs=L[1], rhs=2)), 0, "two values"),
    claim("forall_function_against_one_of_its_instances", sp.Function("f")(2), 3,
          [step(3, "substitute", using="b")],
          (Equation("a", lhs=sp.Function("f")(tp), rhs=tp**2, forall=(tp,)),
           Equation("b", lhs=3, rhs=sp.Function("f")(2))),
          0, "two values"),
    claim("forall_equation_with_sides_that_never_meet", L[1], L[1] + 1,
          [step(L[1] + 1, "substitute", using="c")], (Equation("c", lhs=L[t], rhs=L[t] + 1, forall=(t,)),),
          0, "never 0"),
    claim("pairs_of_an_undeclared_family", Expectation(q[1] * k[1]), 0, [step(0, "pair_moment")], (Q, pairs(0)),
          1, "declared by no randomfamily"),
    claim("pairs_longer_than_the_families", Expectation(q[1] * k[1]), 0, [step(0, "pair_moment")],
          (Q, K, pairs(0, dim=d + 1)), 1, "is not the dim"),
    claim("negative_even_mixed_moment", Expectation(q[1] ** 2 * k[1] ** 2), -s**4, [step(-s**4, "pair_moment")],
          (Q, K, pairs(0, mixed=(((2, 2), -s**4),))), 1, "negative"),
    claim("complex_mean_of_real_entries", Expectation(q[1]), sp.I, [step(sp.I, "moment")], (fam(mean=sp.I),), 1,
          "not real"),
    claim("mean_that_is_itself_random", Expectation(k[1]), q[1], [step(q[1], "moment")],
          (Q, RandomFamily("k_iid", base=k, dim=d, mean=q[1], variance=s**2)), 1, "mention random entries"),
    claim("assumption_against_the_variance", Variance(q[1]), s**2, [step(s**2, "moment")],
          (Q, Assumption("big", condition=sp.Gt(Variance(q[1]), 2 * s**2))), 1, "false by the declared laws"),
    claim("mixed_moment_of_a_fractional_order", Expectation(q[1] ** 2 * k[1] ** 2), 3 * s**4,
          [step(3 * s**4, "pair_moment")], (Q, K, pairs(0, mixed=(((2.5, 2), 3 * s**4),))), 1, "integer orders"),
    claim("mixed_moment_against_the_covariance", Expectation(q[1] * k[1]), 5, [step(5, "pair_moment")],
          (Q, K, pairs(0, mixed=(((1, 1), 5),))), 1, "contradicts"),
]

#: the same shapes under consistent hypotheses: proved
CONSISTENT_CLAIMS = [
    claim("correlation_half", Expectation(S), d * s**2 / 2, mean_of_logit(s**2 / 2), (Q, K, pairs(s**2 / 2))),
    claim("correlation_minus_half", Expectation(q[1] * k[1]), sp.Rational(-1, 2),
          [step(sp.Rational(-1, 2), "pair_moment")], (Q1, K1, pairs(sp.Rational(-1, 2)))),
    claim("correlation_symbolic", Expectation(S), d * rho * s**2, mean_of_logit(rho * s**2), (Q, K, pairs(rho * s**2))),
    claim("correlation_bounded_by_an_assumption", Expectation(q[1] * k[1]), rho * s**2,
          [step(rho * s**2, "pair_moment")],
          (Q, K, pairs(rho * s**2), Assumption("small", condition=sp.Lt(sp.Abs(rho), sp.Rational(1, 2))))),
    claim("fourth_moment_symbolic", Expectation(q[1] ** 4), mu4, [step(mu4, "moment")],
          (fam(moments=((4, mu4),)), Assumption("big", condition=sp.Gt(mu4, 2 * s**4)))),
    claim("fourth_moment_gaussian", Expectation(q[1] ** 4), 3 * s**4, [step(3 * s**4, "moment")],
          (fam(moments=((4, 3 * s**4),)),)),
    claim("fourth_moment_at_the_bound", Expectation(q[1] ** 4), s**4, [step(s**4, "moment")],
          (fam(moments=((4, s**4),)),)),
    claim("sixth_moment_positive", Expectation(q[1] ** 6), 15, [step(15, "moment")],
          (fam(var=1, moments=((6, 15),)),)),
    claim("third_moment_within_cauchy_schwarz", Expectation(q[1] ** 3), 1, [step(1, "moment")],
          (fam(var=1, moments=((3, 1), (4, 3))),)),
    claim("degenerate_family_consistent", Expectation(q[1] ** 4), 0, [step(0, "moment")],
          (fam(var=0, moments=((4, 0),)),)),
    claim("independent_without_pairs", Expectation(q[1] * k[1]), 0,
          [step(Expectation(q[1]) * Expectation(k[1]), "independence"), step(0, "moment")], (Q, K, QK)),
    claim("correlated_without_independence", Expectation(q[1] * k[1]), 0, [step(0, "pair_moment")], (Q, K, pairs(0))),
    claim("pairs_and_an_independent_third_family", Expectation(q[1] * v[1]), 0,
          [step(Expectation(q[1]) * Expectation(v[1]), "independence"), step(0, "moment")],
          (Q, K, V, pairs(rho * s**2), Independent("q_v", families=(q, v)))),
    claim("mean_zero_equation_agrees", Expectation(q[1]), 0, [step(0, "moment")],
          (Q, Equation("e", lhs=Expectation(q[1]), rhs=0))),
    claim("forall_mean_equation_agrees", Expectation(q[1]), 0, [step(0, "substitute", using="e")],
          (Q, IndexRange("t_range", index=t, lower=1, upper=d),
           Equation("e", lhs=Expectation(q[t]), rhs=0, forall=(t,)))),
    claim("forall_equation_and_an_instance_outside_its_domain", L[0], 5, [step(5, "substitute", using="b")],
          (Equation("a", lhs=L[tp], rhs=tp, forall=(tp,)), Equation("b", lhs=L[0], rhs=5))),
    claim("forall_equation_and_an_agreeing_instance", L[1], 1, [step(1, "substitute", using="b")],
          (Equation("a", lhs=L[tp], rhs=tp, forall=(tp,)), Equation("b", lhs=L[1], rhs=1))),
    claim("mean_pinned_consistently", Expectation(q[1]), 1, [step(mu, "moment"), step(1, "substitute", using="mu1")],
          (QMU, Equation("mu1", lhs=mu, rhs=1), Equation("e", lhs=Expectation(q[1]), rhs=1))),
    claim("one_forall_equation", L[1], 2, [step(1 + 1, "substitute", using="b"), step(2, "algebra")],
          (Equation("b", lhs=L[t], rhs=t + 1, forall=(t,)),)),
    claim("real_mean_of_real_entries", Expectation(q[1]), m, [step(m, "moment")], (fam(mean=m),)),
    claim("complex_entries_escape_the_real_inequalities", Expectation(w[1] ** 4), 0, [step(0, "moment")],
          (RandomFamily("w_law", base=w, dim=d, mean=0, variance=s**2, moments=((4, 0),)),)),
    claim("assumption_agreeing_with_the_variance", Variance(q[1]), s**2, [step(s**2, "moment")],
          (Q, Assumption("some", condition=sp.Gt(Variance(q[1]), s**2 / 2)))),
    claim("gaussian_mixed_moment", Expectation(q[1] ** 2 * k[1] ** 2), s**4 * (1 + 2 * rho**2),
          [step(s**4 * (1 + 2 * rho**2), "pair_moment")],
          (Q, K, pairs(rho * s**2, mixed=(((2, 2), s**4 * (1 + 2 * rho**2)),)))),
]


@pytest.mark.parametrize("c", INCONSISTENT_CLAIMS, ids=lambda c: c.id)
def test_contradictory_probability_hypotheses_never_give_proved(c):
    out = check(c)
    assert out.verdict is Verdict.UNDECIDED, out.how
    assert "no model of the hypotheses" in out.how and c.why in out.how.lower(), out.how
    assert out.model is None
    if c.bad_step:
        res = out.steps[c.bad_step - 1]
        assert res.status is Level.FAIL and "inconsistent" in res.reason, res.reason


@pytest.mark.parametrize("c", CONSISTENT_CLAIMS, ids=lambda c: c.id)
def test_the_same_shapes_under_consistent_hypotheses_are_proved(c):
    assert problems(c.hypotheses) == []
    assert_proved(c)


def test_each_inconsistency_names_its_hypotheses():
    found = problems((Q, K, QK, pairs(2 * s**2)))
    assert any("'q_k_independent'" in p and "'pairs'" in p for p in found)
    assert any("'pairs'" in p and "'q_iid'" in p and "'k_iid'" in p for p in found)


def test_a_constraint_neither_shown_nor_refuted_is_listed_for_the_model_search():
    """A correlation rho with no bound is a condition on the parameters, not a contradiction."""
    assert problems((Q, K, pairs(rho * s**2))) == []
    conds = [c for names, c in constraints((Q, K, pairs(rho * s**2))) if "pairs" in names]
    assert conds and conds[0].subs({rho: 2, s: 1}) == sp.false and conds[0].subs({rho: 1, s: 1}) == sp.true


# ------------------------------------------------------------------------------------------------ class 8
QM = RandomFamily("q_iid", base=q, dim=d, mean=m, variance=s**2)
KM = RandomFamily("k_iid", base=k, dim=d, mean=m, variance=s**2)
QONE = RandomFamily("q_iid", base=q, dim=d, mean=1, variance=s**2)
COV = rho * s**2
J_EVEN = IndexRange("j_range", index=j, lower=2, upper=2 * d)  # j/2 in 1..d, but not known to be an integer
J_RANGE = IndexRange("j_range", index=j, lower=1, upper=d)


def var_sum(body, lo, hi):
    return Variance(sp.Sum(body, (i, lo, hi))), sp.Sum(Variance(body), (i, lo, hi))


def pairs_above(lo_j):
    """sum_{i=1}^{d} sum_{j=lo_j}^{d} E[q_i q_j] and its factorised form (entries distinct only when j > i)."""
    jj = sp.Symbol("jj", integer=True)
    lhs = sp.Sum(sp.Sum(Expectation(q[i] * q[jj]), (jj, lo_j, d)), (i, 1, d))
    rhs = sp.Sum(sp.Sum(Expectation(q[i]) * Expectation(q[jj]), (jj, lo_j, d)), (i, 1, d))
    return lhs, rhs


FALSE_CLAIMS = [
    claim("independence_never_declared", Expectation(q[1] * k[1]), Expectation(q[1]) * Expectation(k[1]),
          [step(Expectation(q[1]) * Expectation(k[1]), "independence")], (Q, K), 1, "not listed together"),
    claim("independence_only_pairwise", Expectation(q[1] * k[1] * v[1]),
          Expectation(q[1]) * Expectation(k[1]) * Expectation(v[1]),
          [step(Expectation(q[1]) * Expectation(k[1]) * Expectation(v[1]), "independence")],
          (Q, K, V, QK, Independent("k_v", families=(k, v)), Independent("q_v", families=(q, v))), 1,
          "pairwise independence is not enough"),
    claim("independent_sum_of_two_undeclared_families", *var_sum(q[i] * k[i], 1, d),
          [step(var_sum(q[i] * k[i], 1, d)[1], "variance_of_independent_sum")], (Q, K), 1, "not listed together"),
    claim("moment_under_a_reversed_sum", sp.Sum(Expectation(q[i]), (i, 1, -1)), sp.Sum(m, (i, 1, -1)),
          [step(sp.Sum(m, (i, 1, -1)), "moment")], (QM,), 1, "not be reversed"),  # it sums E[q_0], undeclared
    claim("an_entry_that_only_looks_random", Variance(sp.IndexedBase("q")[1]), 0,
          [step(Expectation(sp.IndexedBase("q")[1] ** 2) - Expectation(sp.IndexedBase("q")[1]) ** 2,
                "variance_definition"), step(0, "linearity_of_expectation")], (Q,), 1, "named like an entry"),
    claim("variance_of_an_undeclared_entry", Variance(q[1]), 0,
          [step(Expectation(q[1] ** 2) - Expectation(q[1]) ** 2, "variance_definition"),
           step(0, "linearity_of_expectation")], (), 1, "no randomfamily hypothesis"),
    claim("independence_of_an_entry_and_a_sum_holding_it", Expectation(q[1] * sp.Sum(q[i], (i, 1, d))),
          Expectation(q[1]) * Expectation(sp.Sum(q[i], (i, 1, d))),
          [step(Expectation(q[1]) * Expectation(sp.Sum(q[i], (i, 1, d))), "independence")], (Q,), 1,
          "not shown to be different entries"),
    claim("independence_of_two_sums_binding_alike", Expectation(sp.Sum(q[i], (i, 1, 1)) * sp.Sum(q[i - 1], (i, 2, 2))),
          Expectation(sp.Sum(q[i], (i, 1, 1))) * Expectation(sp.Sum(q[i - 1], (i, 2, 2))),
          [step(Expectation(sp.Sum(q[i], (i, 1, 1))) * Expectation(sp.Sum(q[i - 1], (i, 2, 2))), "independence")],
          (Q,), 1, "cannot be compared"),  # both are q_1
    claim("independence_on_the_diagonal", *pairs_above(i), [step(pairs_above(i)[1], "independence")], (Q,), 1,
          "not shown to be different entries"),
    claim("pair_moment_with_nonzero_means", Expectation(S), d * COV, mean_of_logit(COV), (QM, KM, pairs(COV)),
          2, "sides differ"),
    claim("pair_moment_with_one_mean_one", Expectation(q[1] * k[1]), COV, [step(COV, "pair_moment")],
          (QONE, RandomFamily("k_iid", base=k, dim=d, mean=1, variance=s**2), pairs(COV)), 1, "sides differ"),
    claim("pair_moment_at_index_zero", Expectation(q[0] * k[0]), COV, [step(COV, "pair_moment")],
          (Q, K, pairs(COV)), 1, "not shown to lie in 1..d"),
    claim("pair_moment_at_a_half_index", Expectation(q[j / 2] * k[j / 2]), COV, [step(COV, "pair_moment")],
          (Q, K, pairs(COV), J_EVEN), 1, "integer"),
    claim("pair_moment_across_indices", Expectation(q[1] * k[2]), COV, [step(COV, "pair_moment")],
          (Q, K, pairs(COV)), 1, "same index"),
    claim("pair_moment_not_declared", Expectation(q[1] ** 2 * k[1] ** 2), 3 * s**4, [step(3 * s**4, "pair_moment")],
          (Q, K, pairs(COV)), 1, "declares no mixed moment"),
    claim("pair_sum_from_zero", *var_sum(q[i] * k[i], 0, d),
          [step(var_sum(q[i] * k[i], 0, d)[1], "variance_of_pair_sum")], (Q, K, pairs(COV)), 1, "inside 1..d"),
    claim("pair_sum_past_dim", var_sum(q[i] * k[i], 1, d + 1)[0], var_sum(q[i] * k[i], 1, d + 1)[1],
          [step(var_sum(q[i] * k[i], 1, d + 1)[1], "variance_of_pair_sum")], (Q, K, pairs(COV)), 1, "inside 1..d"),
    claim("pair_sum_of_shifted_pairs", var_sum(q[i] * k[i + 1], 1, d - 1)[0], var_sum(q[i] * k[i + 1], 1, d - 1)[1],
          [step(var_sum(q[i] * k[i + 1], 1, d - 1)[1], "variance_of_pair_sum")], (Q, K, pairs(COV)), 1,
          "summation variable alone"),
    claim("moment_at_a_half_index", Expectation(q[j / 2]), 0, [step(0, "moment")], (Q, J_EVEN), 1, "integer"),
    claim("moment_of_a_square_root", Expectation(sp.sqrt(q[1])), 0, [step(0, "moment")], (Q,), 1,
          "positive integer"),
    claim("independent_sum_reversed", var_sum(q[i], d, 1)[0], var_sum(q[i], d, 1)[1],
          [step(var_sum(q[i], d, 1)[1], "variance_of_independent_sum")], (Q,), 1, "not reversed"),
    claim("independent_sum_from_a_half", var_sum(q[i], sp.S.Half, d)[0], var_sum(q[i], sp.S.Half, d)[1],
          [step(var_sum(q[i], sp.S.Half, d)[1], "variance_of_independent_sum")], (Q,), 1, "integer"),
    claim("linearity_with_a_random_bound", Expectation(sp.Sum(k[i], (i, 1, q[1]))),
          sp.Sum(Expectation(k[i]), (i, 1, q[1])), [step(sp.Sum(Expectation(k[i]), (i, 1, q[1])),
                                                         "linearity_of_expectation")], (Q, K, QK), 1, "random"),
    claim("independence_at_half_indices", Expectation(q[j / 2] * q[j / 2 + 1]),
          Expectation(q[j / 2]) * Expectation(q[j / 2 + 1]),
          [step(Expectation(q[j / 2]) * Expectation(q[j / 2 + 1]), "independence")],
          (Q, IndexRange("j_range", index=j, lower=2, upper=2 * d - 2)), 1, "integer"),
]

TRUE_CLAIMS = [
    claim("independence_of_three_mutually", Expectation(q[1] * k[1] * v[1]),
          Expectation(q[1]) * Expectation(k[1]) * Expectation(v[1]),
          [step(Expectation(q[1]) * Expectation(k[1]) * Expectation(v[1]), "independence")],
          (Q, K, V, Independent("qkv", families=(q, k, v)))),
    claim("independent_sum_of_two_declared_families", *var_sum(q[i] * k[i], 1, d),
          [step(var_sum(q[i] * k[i], 1, d)[1], "variance_of_independent_sum")], (Q, K, QK)),
    claim("moment_under_a_forward_sum", sp.Sum(Expectation(q[i]), (i, 1, d)), sp.Sum(m, (i, 1, d)),
          [step(sp.Sum(m, (i, 1, d)), "moment")], (QM,)),
    claim("independence_of_an_entry_and_a_sum_without_it", Expectation(q[1] * sp.Sum(q[i], (i, 2, d))),
          Expectation(q[1]) * Expectation(sp.Sum(q[i], (i, 2, d))),
          [step(Expectation(q[1]) * Expectation(sp.Sum(q[i], (i, 2, d))), "independence")], (Q,)),
    claim("an_expectation_is_a_constant", Expectation(Expectation(q[1]) * q[1]), Expectation(q[1]) ** 2,
          [step(Expectation(q[1]) ** 2, "linearity_of_expectation")], (fam(mean=m),)),
    claim("independence_above_the_diagonal", *pairs_above(i + 1), [step(pairs_above(i + 1)[1], "independence")], (Q,)),
    claim("pair_moment_with_nonzero_means", Expectation(q[1] * k[1]), COV + m**2, [step(COV + m**2, "pair_moment")],
          (QM, KM, pairs(COV))),
    claim("pair_moment_with_zero_means", Expectation(S), d * COV, mean_of_logit(COV), (Q, K, pairs(COV))),
    claim("pair_moment_at_a_ranged_index", Expectation(q[j] * k[j]), COV, [step(COV, "pair_moment")],
          (Q, K, pairs(COV), J_RANGE)),
    claim("pair_moment_declared", Expectation(q[1] ** 2 * k[1] ** 2), 3 * s**4, [step(3 * s**4, "pair_moment")],
          (Q, K, pairs(COV, mixed=(((2, 2), 3 * s**4),)))),
    claim("pair_sum_over_the_dimension", *var_sum(q[i] * k[i], 1, d),
          [step(var_sum(q[i] * k[i], 1, d)[1], "variance_of_pair_sum")], (Q, K, pairs(COV))),
    claim("pair_sum_from_two", *var_sum(q[i] * k[i], 2, d),
          [step(var_sum(q[i] * k[i], 2, d)[1], "variance_of_pair_sum")], (Q, K, pairs(COV))),
    claim("moment_at_a_ranged_index", Expectation(q[j]), 0, [step(0, "moment")], (Q, J_RANGE)),
    claim("moment_of_a_square", Expectation(q[1] ** 2), s**2, [step(s**2, "moment")], (Q,)),
    claim("independent_sum_forward", *var_sum(q[i], 1, d),
          [step(var_sum(q[i], 1, d)[1], "variance_of_independent_sum")],
          (Q,)),
    claim("independent_sum_from_two", *var_sum(q[i], 2, d),
          [step(var_sum(q[i], 2, d)[1], "variance_of_independent_sum")], (Q,)),
    claim("linearity_with_a_constant_bound", Expectation(sp.Sum(k[i], (i, 1, d))), sp.Sum(Expectation(k[i]), (i, 1, d)),
          [step(sp.Sum(Expectation(k[i]), (i, 1, d)), "linearity_of_expectation")], (Q, K, QK)),
    claim("independence_at_neighbouring_indices", sp.Sum(Expectation(q[i] * q[i + 1]), (i, 1, d - 1)),
          sp.Sum(Expectation(q[i]) * Expectation(q[i + 1]), (i, 1, d - 1)),
          [step(sp.Sum(Expectation(q[i]) * Expectation(q[i + 1]), (i, 1, d - 1)), "independence")], (Q,)),
]


@pytest.mark.parametrize("c", FALSE_CLAIMS, ids=lambda c: c.id)
def test_a_precondition_that_fails_fails_the_step_for_that_reason(c):
    assert_rejected(c)


@pytest.mark.parametrize("c", TRUE_CLAIMS, ids=lambda c: c.id)
def test_the_same_shapes_with_their_preconditions_met_are_proved(c):
    assert_proved(c)


def test_the_pair_moment_schema_states_the_means():
    """The kernel's instance is E[q_i k_i] = Cov + E[q_i] E[k_i]: with nonzero means, the covariance alone is
    not what the kernel shows, whatever the rule proposes."""
    from symattn.kernel.axioms import axiom
    from symattn.kernel.zero import HYPOTHESES

    token = HYPOTHESES.set((QM, KM, pairs(COV)))
    try:
        t = axiom("pair_moment", expr=Expectation(q[1] * k[1]), node=Expectation(q[1] * k[1]))
    finally:
        HYPOTHESES.reset(token)
    assert sp.expand(t.rhs - (COV + m**2)) == 0


def test_rules_refuse_to_work_under_inconsistent_hypotheses():
    ctx = ProofContext(hypotheses=(Q, K, QK, pairs(0)))
    res = check_step(Expectation(q[1] * k[1]), Expectation(q[1]) * Expectation(k[1]), "=", "independence", {}, ctx)
    assert res.status is Level.FAIL and "both independent and correlated" in res.reason


# ------------------------------------------------------------------------------------------------ mutants
def _weakened(name):
    """One check of the probability schemas removed (the module's functions patched)."""
    import symattn.kernel.schemas.probability as prob

    return {
        "entries_not_placed": [(prob.Setting, "undeclared", lambda self, *a, **k: None)],
        "indices_not_integers": [(prob.Setting, "integer", lambda self, x, env: True)],
        "entries_always_distinct": [(prob.Setting, "distinct", lambda self, a, b, env: True)],
        "families_always_independent": [(prob.Setting, "jointly_independent", lambda self, bases: None)],
        "ranges_never_reversed": [(prob, "_not_reversed", lambda *a: True)],
        "ranges_always_inside": [(prob, "_le", lambda *a: True)],
        "pair_moment_without_the_means": [(prob, "_first_mixed", lambda p, fq, fk: sp.sympify(p.covariance))],
        "no_consistency_check": [(prob, "problems", lambda hyps: []), (prob, "constraints", lambda hyps: [])],
        "lookalike_entries_allowed": [(prob, "_no_lookalikes", lambda *a: None)],
        "sum_terms_may_share_entries": [(prob, "_sum_entries",
                                         lambda f, i, st: {e.base for e in st.random_entries(f)})],
    }[name]


def _still_refused(c, inconsistent: bool) -> bool:
    try:
        if inconsistent:
            out = check(c)
            assert out.verdict is not Verdict.PROVED
        else:
            assert_rejected(c)
    except AssertionError:
        return False
    return True


MUTANT_NAMES = ["entries_not_placed", "indices_not_integers", "entries_always_distinct", "families_always_independent",
                "ranges_never_reversed", "ranges_always_inside", "pair_moment_without_the_means",
                "no_consistency_check", "lookalike_entries_allowed", "sum_terms_may_share_entries"]


@pytest.mark.parametrize("name", MUTANT_NAMES)
def test_every_probability_check_is_needed_by_some_false_claim(name, monkeypatch):
    import symattn.kernel.schemas.probability as prob

    for owner, attr, value in _weakened(name):
        monkeypatch.setattr(owner, attr, value)
    prob._problems_cached.cache_clear()
    try:
        noticed = [c.id for c in FALSE_CLAIMS if not _still_refused(c, False)]
        noticed += [c.id for c in INCONSISTENT_CLAIMS if not _still_refused(c, True)]
    finally:
        prob._problems_cached.cache_clear()
    assert noticed, f"probability mutant {name!r} passes every false claim: the check it removes is untested"
