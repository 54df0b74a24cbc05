"""The concrete levels never lie (issue 19), classes 4 and 6: instances are derived by the kernel at
sizes inside the symbols' domains and the hypotheses, and a model is a point where every hypothesis
is shown to hold. Tables of true and false cases, through the public API."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, Equation, Independent, IndexRange, Instances, RandomFamily, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level
from symattn.kernel.search import find_model
from symattn.rules.correlation import CorrelatedPairs
from symattn.rules.expectation import Expectation, Variance

n = sp.Symbol("n", integer=True, positive=True)
d, h = sp.symbols("d h", integer=True, positive=True)
d_k = sp.Symbol("d_k", integer=True, positive=True)
t = sp.Symbol("t", integer=True, positive=True)
jj = sp.Symbol("j", integer=True)
k, i = sp.symbols("k i", integer=True)
x = sp.Symbol("x", real=True)
c = sp.Symbol("c", real=True)
sigma = sp.Symbol("sigma", positive=True)
w = sp.IndexedBase("w", real=True)
q = sp.IndexedBase("q", real=True)
kk = sp.IndexedBase("k", real=True)
L = sp.IndexedBase("L", real=True)
S = sp.IndexedBase("S", real=True)
E = sp.IndexedBase("E", real=True)


def theorem(statement, **kw):
    return Theorem(id="claim", title="claim", source="extension", statement=statement, **kw)


def check(thm):
    return check_theorem(thm, numeric=False)


QK = (RandomFamily("q_iid", base=q, dim=d_k, mean=0, variance=sigma**2),
      RandomFamily("k_iid", base=kk, dim=d_k, mean=0, variance=sigma**2),
      Independent("q_k_independent", families=(q, kk)))
logit = sp.Sum(q[i] * kk[i], (i, 1, d_k))

# ------------------------------------------------------------------------------ class 4: derived instances
# false theorems with symbolic dimensions and no derivation: refuted by the kernel's own instance
# (name, statement, hypotheses, dimensions, the size of the smallest counterexample)
FALSE_BY_INSTANCE = [
    ("gauss_sum_wrong", Statement(sp.Sum(k, (k, 1, n)), n**2), (), (n,), "n = 2"),
    ("tutorial_logit_over_d_k", Statement(Variance(logit / d_k), sigma**4), QK, (d_k,), "d_k = 2"),
    ("sum_of_constant", Statement(sp.Sum(x, (k, 1, n)), x), (), (n,), "n = 2"),
    ("trace_of_identity", Statement(sp.Trace(sp.Identity(n)), 1), (), (n,), "n = 2"),
    ("power_of_two_linear", Statement(sp.Product(2, (k, 1, n)), 2 * n), (), (n,), "n = 3"),
    ("weights_sum_to_two", Statement(sp.Sum(c * w[k], (k, 1, n)), 2 * c),
     (Equation("w_sums_to_one", lhs=sp.Sum(w[k], (k, 1, n)), rhs=1),), (n,), "n = 1"),
    ("half_dimension", Statement(d / 2, h + 1), (Equation("d_is_2h", lhs=d, rhs=2 * h),), (d, h), "(d, h) = (2, 1)"),
    ("square_sum_vs_sum_squares", Statement(sp.Sum(k, (k, 1, n)) ** 2, sp.Sum(k**2, (k, 1, n))), (), (n,), "n = 2"),
]


@pytest.mark.parametrize("name,st,hyps,dims,where", FALSE_BY_INSTANCE, ids=[c[0] for c in FALSE_BY_INSTANCE])
def test_a_false_theorem_with_symbolic_dimensions_is_refuted_by_a_derived_instance(name, st, hyps, dims, where):
    o = check(theorem(st, hypotheses=hyps, dimensions=dims))
    assert o.verdict is Verdict.REFUTED, o.how
    lv = o.levels["instances"]
    assert lv.status is Level.FAIL and lv.data["derived"]
    assert o.counterexample.startswith(where), o.counterexample
    assert "." not in o.counterexample.split(":", 1)[1].replace("...", ""), "exact numbers only: " + o.counterexample


def test_the_tutorial_counterexample_is_exact():
    o = check(theorem(Statement(Variance(logit / d_k), sigma**4), hypotheses=QK, dimensions=(d_k,)))
    assert "sigma = 1" in o.counterexample and "left = 1/2, right = 1" in o.counterexample, o.counterexample


# true theorems whose instances must pass at sizes inside the symbols' domains and the hypotheses
# (name, statement, hypotheses, dimensions, the sizes the kernel must choose)
TRUE_BY_INSTANCE = [
    ("one_le_n", Statement(1, n, "<="), (), (n,), "n in {1, 2, 3}"),
    ("gauss_sum", Statement(sp.Sum(k, (k, 1, n)), n * (n + 1) / 2), (), (n,), "n in {1, 2, 3}"),
    ("weights_sum_to_one", Statement(sp.Sum(c * w[k], (k, 1, n)), c),
     (Equation("w_sums_to_one", lhs=sp.Sum(w[k], (k, 1, n)), rhs=1),), (n,), "n in {1, 2, 3}"),
    ("even_sizes_only", Statement(sp.Sum((-1) ** k, (k, 1, n)), 0),
     (Assumption("n_even", condition=sp.Contains(n, sp.FiniteSet(2, 4, 6, 8))),), (n,), "n in {2, 4, 6, 8}"),
    ("half_dimension", Statement(d / 2, h), (Equation("d_is_2h", lhs=d, rhs=2 * h),), (d, h),
     "(d, h) in {(2, 1), (4, 2), (6, 3)}"),
    ("max_with_one", Statement(sp.Max(n, 1), n), (), (n,), "n in {1, 2, 3}"),
    ("at_least_three", Statement(sp.Sum(1, (k, 3, n)), n - 2),
     (Assumption("n_ge_3", condition=sp.Ge(n, 3)),), (n,), "n in {3, 4, 5}"),
    ("query_norm", Statement(Expectation(sp.Sum(q[i] ** 2, (i, 1, d_k))), d_k * sigma**2), QK[:1], (d_k,),
     "d_k in {1, 2, 3}"),
    # a free index whose range the size makes concrete is split into its cases
    ("delta_sum_over_range", Statement(sp.Sum(sp.KroneckerDelta(i, k), (k, 1, n)), 1),
     (IndexRange("i_range", index=i, lower=1, upper=n),), (n,), "n in {1, 2, 3}"),
    ("weighted_delta_rows", Statement(sp.Sum((sp.KroneckerDelta(i, k) - w[k]) * w[i], (k, 1, n)), 0),
     (IndexRange("i_range", index=i, lower=1, upper=n), Equation("w_one", lhs=sp.Sum(w[k], (k, 1, n)), rhs=1)), (n,),
     "n in {1, 2, 3}"),
]


@pytest.mark.parametrize("name,st,hyps,dims,sizes", TRUE_BY_INSTANCE, ids=[c[0] for c in TRUE_BY_INSTANCE])
def test_a_true_theorem_passes_its_derived_instances_inside_its_domain(name, st, hyps, dims, sizes):
    o = check(theorem(st, hypotheses=hyps, dimensions=dims))
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES, o.how
    lv = o.levels["instances"]
    assert lv.status is Level.PASS and lv.data["derived"], lv.detail
    assert f"exact for {sizes}" in lv.detail, lv.detail


# builders: a size outside the symbol's domain is not used; a builder that pins a free variable
# instead of a size is not counted
def test_a_builder_size_outside_the_domain_does_not_refute():
    st = Statement(sp.Max(n, 1), n)  # true for positive n; false at n = 0, which is outside
    o = check(theorem(st, dimensions=(n,), instances=Instances(lambda s: st.subs({n: s}), (0, 1, 2), at=n)))
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES, o.how
    assert "n = 0" in o.levels["instances"].detail and "outside" in o.levels["instances"].detail


def test_a_builder_that_pins_a_free_variable_is_not_counted():
    st = Statement(x * (x - 1) * (x - 2), 0)  # false, but true at x in {0, 1, 2}
    o = check(theorem(st, instances=Instances(lambda s: st.subs({x: s}), (0, 1, 2), at=x)))
    assert o.verdict is not Verdict.PROVED_FOR_INSTANCES, o.how
    lv = o.levels["instances"]
    assert lv.status is not Level.PASS or not lv.data.get("derived"), lv.detail
    assert "not an integer symbol" in lv.detail, lv.detail


def test_json_says_not_counted_and_why():
    from symattn.engine.checker import outcome_to_json

    st = Statement(x * (x - 1) * (x - 2), x**3 - 3 * x**2 + 2 * x)
    thm = theorem(st, instances=Instances(lambda s: st.subs({x: s}), (0, 1, 2), at=x))
    rec = outcome_to_json(thm, check(thm))
    assert rec["levels"]["instances"] == "not-counted", rec
    assert "not an integer symbol" in rec["not_counted"]["instances"]


# ------------------------------------------------------------------------------ class 6: models
def _fam(mean=0, var=1, moments=(), base=q, dim=d_k, name="q_iid"):
    return RandomFamily(name, base=base, dim=dim, mean=mean, variance=var, moments=moments)


# hypotheses that no point satisfies (each must give no model, naming a hypothesis at fault)
NO_MODEL = [
    ("two_definitions", (Equation("a", lhs=L[t], rhs=t, forall=(t,)), Equation("b", lhs=L[t], rhs=t + 1, forall=(t,))),
     "defines"),
    ("index_above_upper_bound", (IndexRange("r", index=i, lower=1, upper=n), Equation("e", lhs=i, rhs=n + 1)), "r"),
    ("correlation_two", (_fam(), _fam(base=kk, name="k_iid"),
                         CorrelatedPairs("pairs", q=q, k=kk, dim=d_k, covariance=2)), "pairs"),
    ("fourth_moment_zero", (_fam(moments=((4, 0),)),), "distribution"),
    ("independent_and_correlated", (_fam(), _fam(base=kk, name="k_iid"), Independent("ind", families=(q, kk)),
                                    CorrelatedPairs("pairs", q=q, k=kk, dim=d_k, covariance=sp.Rational(1, 2))),
     "independent and correlated"),
    ("mean_against_moment", (_fam(), Equation("m", lhs=Expectation(q[1]), rhs=1)), "m"),
    ("self_reference", (Equation("loop", lhs=L[t], rhs=L[t] + 1, forall=(t,)),), "loop"),
    ("definition_and_fixed_entry", (Equation("def", lhs=L[t], rhs=t, forall=(t,)), Equation("fix", lhs=L[1], rhs=5)),
     "fixes"),
    ("second_moment_against_variance", (_fam(moments=((2, 3),)),), "order 2"),
    ("strict_above_upper_bound", (IndexRange("r", index=i, lower=1, upper=n), Assumption("gt", condition=sp.Gt(i, n))),
     "gt"),
]


@pytest.mark.parametrize("name,hyps,word", NO_MODEL, ids=[c[0] for c in NO_MODEL])
def test_hypotheses_that_cannot_hold_together_have_no_model(name, hyps, word):
    model, reasons = find_model([], hyps, tries=8)
    assert model is None, model.describe()
    assert any(word in r for r in reasons), reasons


HAS_MODEL = [
    ("recurrence", (Equation("base", lhs=L[0], rhs=0), Equation("step", lhs=L[t], rhs=L[t - 1] + 1, forall=(t,)))),
    ("explicit_definition", (Equation("partial", lhs=E[jj], rhs=S[jj + 1] - S[jj], forall=(jj,)),)),
    ("moment_that_holds", (_fam(), Equation("m", lhs=Expectation(q[1]), rhs=0))),
    ("correlation_half", (_fam(), _fam(base=kk, name="k_iid"),
                          CorrelatedPairs("pairs", q=q, k=kk, dim=d_k, covariance=sp.Rational(1, 2)))),
    ("gaussian_fourth_moment", (_fam(moments=((4, 3),)),)),
    ("positive_definite_moments", (_fam(moments=((4, 2),)),)),
    ("index_at_upper_bound", (IndexRange("r", index=i, lower=1, upper=n), Equation("e", lhs=i, rhs=n))),
    ("stated_in_words", (Assumption("words", text="the positions are reals"),)),
]


@pytest.mark.parametrize("name,hyps", HAS_MODEL, ids=[c[0] for c in HAS_MODEL])
def test_satisfiable_hypotheses_have_a_model_where_each_is_shown(name, hyps):
    model, reasons = find_model([], hyps, tries=8)
    assert model is not None, reasons
    shown = {n for n, _ in model.holds} | {n for n, _ in model.unchecked}
    assert shown == {h.name for h in hyps}
    assert all(why == "stated in words" for _, why in model.unchecked)


def test_a_theorem_without_a_model_is_undecided_and_says_which():
    hyps = (Equation("a", lhs=L[t], rhs=t, forall=(t,)), Equation("b", lhs=L[t], rhs=t + 1, forall=(t,)))
    o = check(theorem(Statement(1, 2), hypotheses=hyps))
    assert o.verdict is Verdict.UNDECIDED and "no model" in o.how, o.how
    assert "defines" in o.how or "two values" in o.how, o.how  # the search's words, or the kernel's consistency check
