"""Checker-level soundness, through the public API (Theorem, Statement, Derivation, hypotheses,
check_theorem): false claims with plausible setups must not reach ``proved``; true identities must
not be ``refuted``; a counterexample must satisfy the hypotheses.

One table per class of hole (issue 10): 7 (chains), 8 (concrete levels), 9 (false refutations),
10 (vacuous and pinned theorems).
"""

import pytest
import sympy as sp

from symattn import (
    Assumption,
    Derivation,
    Equation,
    Independent,
    IndexRange,
    Instances,
    Probabilistic,
    RandomFamily,
    Statement,
    Theorem,
    Verdict,
)
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level
from symattn.kernel.search import find_counterexample

n = sp.Symbol("n", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
i, j, k = sp.symbols("i j k", integer=True)
x, y, a, b = sp.symbols("x y a b", real=True)
c = sp.Symbol("c", real=True)
s = sp.IndexedBase("s", real=True)
w = sp.IndexedBase("w", real=True)
sigma = sp.Symbol("sigma", positive=True)


def theorem(statement, **kw):
    return Theorem(id="claim", title="claim", source="extension", statement=statement, **kw)


def at_size(statement, symbol=n):
    """An instance builder that is honest: the statement with the size substituted."""
    return lambda size: statement.subs({symbol: size})


# ------------------------------------------------------------------------------ class 9
# True identities (under their hypotheses) that the old search refuted by sampling bound
# variables, indexed entries under a binder, or points outside the hypotheses. The exact check
# cannot close them at a concrete size, so the search runs; it must find nothing.
TRUE_UNDER_HYPOTHESES = [
    ("min_with_index_in_range", Statement(sp.Min(i, n), i), (IndexRange("r", index=i, lower=1, upper=n),)),
    ("max_with_index_in_range", Statement(sp.Max(i, 1), i), (IndexRange("r", index=i, lower=1, upper=n),)),
    ("delta_sum_over_bound_index", Statement(sp.Sum(sp.KroneckerDelta(j, k), (k, 1, n)), 1),
     (IndexRange("r", index=j, lower=1, upper=n),)),
    ("abs_of_nonnegative", Statement(sp.Abs(x), x), (Assumption("x_nonneg", condition=sp.Ge(x, 0)),)),
    ("sqrt_of_square_nonnegative", Statement(sp.sqrt(x**2), x),
     (Assumption("x_nonneg", condition=sp.Q.nonnegative(x)),)),
    ("sign_of_positive", Statement(sp.sign(x), 1), (Assumption("x_pos", condition=sp.Gt(x, 0)),)),
    ("weights_sum_to_one", Statement(sp.Sum(c * w[j], (j, 1, n)), c),
     (Equation("w_sums_to_one", lhs=sp.Sum(w[j], (j, 1, n)), rhs=1),)),
    ("floor_below_range", Statement(sp.floor(sp.Rational(1, 2) * i / n), 0),
     (IndexRange("r", index=i, lower=1, upper=n),)),
    ("mod_in_range", Statement(sp.Mod(i, n), i), (IndexRange("r", index=i, lower=0, upper=n - 1),)),
]


@pytest.mark.parametrize("name,statement,hypotheses", TRUE_UNDER_HYPOTHESES, ids=[t[0] for t in TRUE_UNDER_HYPOTHESES])
def test_true_identity_is_never_refuted(name, statement, hypotheses):
    t = theorem(statement, hypotheses=hypotheses, instances=Instances(at_size(statement), (1, 2, 3), at=n))
    o = check_theorem(t, numeric=False)
    assert o.verdict is not Verdict.REFUTED, o.how
    assert find_counterexample(statement, hypotheses, tries=20) is None


# False claims with a plausible setup: the search must refute them at a point where every
# hypothesis holds.
FALSE_UNDER_HYPOTHESES = [
    ("log_of_product_for_negative_reals", Statement(sp.log(a * b), sp.log(a) + sp.log(b)), ()),
    ("sqrt_of_square_is_identity", Statement(sp.sqrt(x**2), x), ()),
    ("max_with_two_in_range", Statement(sp.Max(i, 2), i), (IndexRange("r", index=i, lower=1, upper=n),)),
    ("delta_sum_index_from_zero", Statement(sp.Sum(sp.KroneckerDelta(j, k), (k, 1, n)), 1),
     (IndexRange("r", index=j, lower=0, upper=n),)),
    ("abs_shift_nonnegative", Statement(sp.Abs(x - 1), x - 1), (Assumption("x_nonneg", condition=sp.Ge(x, 0)),)),
    ("log_is_below_identity_minus_two", Statement(sp.log(x), x - 2, "<="),
     (Assumption("x_pos", condition=sp.Gt(x, 0)),)),
    ("sqrt_is_real_for_reals", Statement(sp.sqrt(x), 0, ">="), ()),
    ("min_is_index_past_range", Statement(sp.Min(i, n - 1), i), (IndexRange("r", index=i, lower=1, upper=n),)),
]


def _holds(hypotheses, values):
    """Check independently of the kernel that every hypothesis holds at ``values``."""
    for h in hypotheses:
        if isinstance(h, IndexRange):
            v = values[h.index]
            assert sp.sympify(h.lower).subs(values) <= v <= sp.sympify(h.upper).subs(values), (h.name, values)
        elif isinstance(h, Assumption):
            cond = h.condition.subs(values)
            assert (sp.ask(cond) if isinstance(cond, sp.assumptions.AppliedPredicate) else bool(cond)), (h.name, values)


@pytest.mark.parametrize("name,statement,hypotheses", FALSE_UNDER_HYPOTHESES,
                         ids=[t[0] for t in FALSE_UNDER_HYPOTHESES])
def test_false_claim_is_refuted_at_a_point_inside_the_hypotheses(name, statement, hypotheses):
    cex = find_counterexample(statement, hypotheses, tries=20)
    assert cex is not None
    _holds(hypotheses, cex.model.values)
    for sym, v in cex.model.values.items():  # every value keeps its symbol's assumptions
        if sym.is_integer:
            assert v.is_integer
        if sym.is_positive:
            assert v > 0
    t = theorem(statement, hypotheses=hypotheses, instances=Instances(at_size(statement), (3,), at=n))
    o = check_theorem(t, numeric=False)
    assert o.verdict is Verdict.REFUTED, o.how
    for h in hypotheses:  # the message shows that each hypothesis holds at the point
        assert h.name in o.counterexample


def test_bound_variables_and_entries_under_a_binder_get_no_values():
    st = Statement(sp.Sum(s[j], (j, 1, n)), sp.Sum(s[n + 1 - j], (j, 1, n)) + 1)
    cex = find_counterexample(st, ())
    assert cex is not None and j not in cex.model.values
    assert {v for v in cex.model.values if isinstance(v, sp.Symbol)} == {n}
    size = cex.model.values[n]
    assert {v for v in cex.model.values if isinstance(v, sp.Indexed)} <= {s[t] for t in range(1, size + 1)}


# ------------------------------------------------------------------------------ class 10
ALGEBRA = (Statement((x + 1) ** 2, x**2 + 2 * x + 1), Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra"))
q_, k_ = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
d_k = sp.Symbol("d_k", integer=True, positive=True)
_q = RandomFamily("q_iid", base=q_, dim=d_k, mean=0, variance=sigma**2)
_k = RandomFamily("k_iid", base=k_, dim=d_k, mean=0, variance=sigma**2)

INCONSISTENT = [
    ("a_is_zero_and_one", (Equation("a0", lhs=a, rhs=0), Equation("a1", lhs=a, rhs=1))),
    ("equation_against_assumption", (Equation("a1", lhs=a, rhs=1), Assumption("a_neg", condition=sp.Lt(a, 0)))),
    ("positive_dimension_set_to_zero", (Equation("n0", lhs=n, rhs=0),)),
    ("range_empty_once_its_bound_is_known", (Equation("m0", lhs=m, rhs=0), IndexRange("r", index=j, lower=1, upper=m))),
    ("positive_and_negative", (Assumption("both", condition=sp.Q.positive(b) & sp.Q.negative(b)),)),
    ("independent_families_set_equal", (_q, _k, Independent("qk", families=(q_, k_)),
                                        Equation("same", lhs=k_[i], rhs=q_[i]))),
    ("family_independent_of_itself", (_q, Independent("qq", families=(q_, q_)))),
    ("two_values_for_one_ratio", (Equation("b2a", lhs=b, rhs=2 * a), Equation("b2a1", lhs=b, rhs=2 * a + 1))),
    ("strict_order_both_ways", (Assumption("ab", condition=sp.Gt(a, b)), Assumption("ba", condition=sp.Gt(b, a)))),
    ("index_past_its_range", (IndexRange("r", index=j, lower=1, upper=n), Assumption("big", condition=sp.Gt(j, n)))),
]


@pytest.mark.parametrize("name,hypotheses", INCONSISTENT, ids=[t[0] for t in INCONSISTENT])
def test_inconsistent_hypotheses_never_give_proved(name, hypotheses):
    st, d = ALGEBRA
    o = check_theorem(theorem(st, hypotheses=hypotheses, derivation=d), numeric=False)
    assert o.verdict is Verdict.UNDECIDED
    assert "no model of the hypotheses" in o.how and o.model is None


def test_consistent_hypotheses_have_a_model_shown_with_the_verdict():
    st, d = ALGEBRA
    hyps = (Equation("a1", lhs=a, rhs=1), IndexRange("r", index=j, lower=1, upper=n),
            Equation("w1", lhs=sp.Sum(w[k], (k, 1, n)), rhs=1),
            Assumption("w_nonneg", condition=sp.Q.nonnegative(w[j])))
    o = check_theorem(theorem(st, hypotheses=hyps, derivation=d), numeric=False)
    assert o.verdict is Verdict.PROVED
    assert o.model and "a = 1" in o.model and "model of the hypotheses" in o.how
    assert o.levels["symbolic"].data["model"] == o.model


@pytest.mark.parametrize("make", [
    lambda: RandomFamily("neg", base=q_, dim=d_k, mean=0, variance=-sigma**2),
    lambda: RandomFamily("unknown_sign", base=q_, dim=d_k, mean=0, variance=x),
    lambda: IndexRange("empty", index=j, lower=2, upper=1),
    lambda: IndexRange("empty_symbolic", index=j, lower=n + 1, upper=n),
    lambda: IndexRange("self", index=j, lower=1, upper=j),
], ids=["negative_variance", "variance_of_unknown_sign", "empty_range", "empty_symbolic_range", "self_bounded_range"])
def test_invalid_hypothesis_is_refused_when_built(make):
    with pytest.raises(ValueError):
        make()


PINNED = [
    ("equation_fixes_n", (Equation("n3", lhs=n, rhs=3),)),
    ("equation_fixes_n_reversed", (Equation("n3", lhs=3, rhs=n),)),
    ("assumption_fixes_n", (Assumption("n3", condition=sp.Eq(n, 3)),)),
    ("fixed_through_another_dimension", (Equation("m2", lhs=m, rhs=2), Equation("n_m", lhs=n, rhs=m + 1))),
]


@pytest.mark.parametrize("name,hypotheses", PINNED, ids=[t[0] for t in PINNED])
def test_a_dimension_fixed_by_the_hypotheses_is_not_symbolic(name, hypotheses):
    lhs = sp.Sum(c, (i, 1, n))
    o = check_theorem(theorem(Statement(lhs, n * c), hypotheses=hypotheses, dimensions=(n,),
                              derivation=Derivation(lhs).eq(n * c, "sum_evaluate")), numeric=False)
    assert o.verdict is not Verdict.PROVED
    assert "symbolic dimensions: n" not in o.how
    assert "fixed by the hypotheses" in o.levels["symbolic"].detail


# ------------------------------------------------------------------------------ class 8
FALSE_SUM = Statement(sp.Sum(i, (i, 1, n)), n**2)  # false for n >= 2


def _true_sums(size):
    return Statement(sp.Integer(sum(range(1, size + 1))), sp.Integer(size * (size + 1) // 2))


FALSE_WITH_LYING_BUILDERS = [
    ("true_statement_in_place_of_false", FALSE_SUM, Instances(_true_sums, (1, 2, 3), at=n)),
    ("true_statement_label_inferred", FALSE_SUM, Instances(_true_sums, (1, 2, 3))),
    ("builder_ignores_size", FALSE_SUM, Instances(lambda size: Statement(1, 1), (1, 2, 3), at=n)),
    ("builder_weakens_relation", Statement(sp.Sum(i, (i, 1, n)), n, "<"),
     Instances(lambda size: Statement(sp.Sum(i, (i, 1, size)), size, "<="), (1, 2), at=n)),
    ("builder_in_fresh_symbols", Statement(sp.Sum(s[i], (i, 1, n)), n * s[1]),
     Instances(lambda size: Statement(sum(sp.symbols(f"t1:{size + 1}")), sum(sp.symbols(f"t1:{size + 1}"))),
               (1, 2, 3))),
    ("builder_at_other_size", FALSE_SUM, Instances(lambda size: FALSE_SUM.subs({n: 1}), (1, 2, 3), at=n)),
    ("builder_with_relabelled_size", Statement(sp.Sum(i, (i, 1, m)), m**2),
     Instances(lambda size: Statement(size, size), (1, 2), label="m")),
    ("builder_applies_a_false_lemma", Statement(sp.Sum(i**2, (i, 1, n)), n**3),
     Instances(lambda size: Statement(size**3, size**3), (1, 2, 3), at=n)),
]


@pytest.mark.parametrize("name,statement,spec", FALSE_WITH_LYING_BUILDERS,
                         ids=[t[0] for t in FALSE_WITH_LYING_BUILDERS])
def test_an_instance_builder_that_builds_another_statement_does_not_count(name, statement, spec):
    o = check_theorem(theorem(statement, instances=spec), numeric=False)
    assert o.verdict < Verdict.PROVED_FOR_INSTANCES, o.how
    lv = o.levels["instances"]
    # the builder's instances never count; the kernel derives its own, and one of them refutes the claim
    assert o.verdict is Verdict.REFUTED and lv.data["derived"] and "derived by the kernel" in lv.detail, lv.detail
    assert "the builder's instances" in lv.detail
    if spec.at is not None:
        assert "rejected" in lv.detail


def test_an_instance_derived_from_the_statement_counts_and_refutes():
    good = Statement(sp.Sum(i, (i, 1, n)), n * (n + 1) / 2)
    o = check_theorem(theorem(good, instances=Instances(at_size(good), (1, 2, 3, 4))), numeric=False)
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES and o.levels["instances"].data["derived"]
    o = check_theorem(theorem(FALSE_SUM, instances=Instances(at_size(FALSE_SUM), (1, 2, 3), at=n)), numeric=False)
    assert o.verdict is Verdict.REFUTED


def _square_identity(size):
    v = sp.symbols(f"v1:{size + 1}")
    return Statement(sum(v) ** 2, sum(p * q for p in v for q in v))


@pytest.mark.parametrize("field_size,trials", [(2, 1), (5, 3), (1000, 2), (2**20, 1)])
def test_a_weak_schwartz_zippel_test_does_not_count(field_size, trials):
    o = check_theorem(theorem(Statement(x, x), probabilistic=Probabilistic(_square_identity, (3,), trials=trials,
                                                                            field_size=field_size)), numeric=False)
    assert o.verdict is not Verdict.CHECKED_PROBABILISTICALLY
    assert o.levels["probabilistic"].status is not Level.PASS


def test_a_strong_schwartz_zippel_test_counts_only_for_the_theorem_statement():
    v1, v2 = sp.symbols("v1 v2")
    st = Statement((v1 + v2) ** 2, v1**2 + 2 * v1 * v2 + v2**2)
    ok = check_theorem(theorem(st, probabilistic=Probabilistic(lambda size: st, (1,), trials=3)), numeric=False)
    assert ok.verdict is Verdict.CHECKED_PROBABILISTICALLY
    assert ok.levels["probabilistic"].data["error_bound"] <= 2.0**-30
    other = check_theorem(theorem(Statement(v1, v2), probabilistic=Probabilistic(lambda size: st, (1,), trials=3)),
                          numeric=False)
    assert other.verdict is not Verdict.CHECKED_PROBABILISTICALLY


def test_an_undefined_point_never_counts_as_a_pass():
    # the left side is undefined at every point of {0, 1}^2: nothing may count
    st = Statement(y / (x * (x - 1)), y / (x * (x - 1)) + 1)
    o = check_theorem(theorem(st, probabilistic=Probabilistic(lambda size: st, (1,), trials=40, field_size=2)),
                      numeric=False)
    assert o.levels["probabilistic"].status not in (Level.PASS, Level.FAIL)
    # the claim is false wherever it is defined: the kernel's exact point search refutes it at a point
    # off the poles (x not in {0, 1}), never at an undefined one
    assert o.verdict is Verdict.REFUTED and o.levels["instances"].status is Level.FAIL, o.how
    assert "x = 0," not in o.counterexample and "x = 1," not in o.counterexample, o.counterexample


# ------------------------------------------------------------------------------ class 7 (chains)
delta_sum = sp.Sum(sp.KroneckerDelta(k, m / 2), (k, 0, m))  # SymPy evaluates it to 1; m/2 need not be an integer

FALSE_CHAINS = [
    ("zero_steps_delta_sum", Statement(delta_sum, 1), Derivation(delta_sum)),
    ("zero_steps_expansion", Statement((x + 1) ** 2, x**2 + 2 * x + 1), Derivation((x + 1) ** 2)),
    ("zero_steps_gauss_sum", Statement(sp.Sum(i, (i, 1, n)), n * (n + 1) / 2), Derivation(sp.Sum(i, (i, 1, n)))),
    ("zero_steps_false_sum", Statement(sp.Sum(i, (i, 1, n)), n**2), Derivation(sp.Sum(i, (i, 1, n)))),
    ("end_left_to_sympy_delta", Statement(delta_sum, 1), Derivation(delta_sum).eq(delta_sum * 1 + 0 * x, "algebra")),
    ("end_left_to_sympy_sum", Statement(x, sp.Sum(x / n, (i, 1, n))), Derivation(x).eq(x * 1, "algebra")),
    ("start_left_to_sympy_product", Statement(sp.Product(2, (i, 1, n)), 2**n),
     Derivation(2**n).eq(2**n, "algebra")),
    ("end_left_to_sympy_false_sum", Statement(x, x + sp.Sum(i, (i, 1, n)) - n**2), Derivation(x).eq(x, "algebra")),
]


@pytest.mark.parametrize("name,statement,derivation", FALSE_CHAINS, ids=[t[0] for t in FALSE_CHAINS])
def test_a_chain_does_not_let_sympy_evaluate_the_claim(name, statement, derivation):
    o = check_theorem(theorem(statement, derivation=derivation), numeric=False)
    assert o.verdict is not Verdict.PROVED
    assert o.levels["symbolic"].status is Level.FAIL


TRUE_CHAINS = [
    ("zero_steps_same_term", Statement(x + y, x + y), Derivation(x + y)),
    ("zero_steps_renamed_bound_variable", Statement(sp.Sum(s[i], (i, 1, n)), sp.Sum(s[j], (j, 1, n))),
     Derivation(sp.Sum(s[i], (i, 1, n)))),
    ("end_equal_by_exact_algebra", Statement((x + 1) ** 2, x**2 + 2 * x + 1),
     Derivation((x + 1) ** 2).eq((x + 1) * (x + 1), "algebra")),
    ("zero_steps_same_matrix", Statement(sp.Matrix([[x, y]]), sp.Matrix([[x, y]])), Derivation(sp.Matrix([[x, y]]))),
]


@pytest.mark.parametrize("name,statement,derivation", TRUE_CHAINS, ids=[t[0] for t in TRUE_CHAINS])
def test_a_chain_of_the_same_shape_still_checks(name, statement, derivation):
    o = check_theorem(theorem(statement, derivation=derivation), numeric=False)
    assert o.verdict is Verdict.PROVED, o.how
