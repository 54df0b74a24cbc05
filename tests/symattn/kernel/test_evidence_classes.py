"""Concrete evidence that must not lift a false claim (adversarial review, classes C11--C13, D14):

* C11 -- an instance where a side is not a finite exact value (a pole: ``zoo``, ``nan``, ``oo``) is
  outside the statement's domain: never a pass, never a counterexample; skipped, saying why;
* C12 -- a finite domain is checked at every value; an infinite one is searched beyond the counted
  sizes, so a false claim is refuted by the smallest exact counterexample there;
* C13 -- a variance or covariance of a non-real argument is refused (E[Z^2] - E[Z]^2 is not the
  variance of a complex Z);
* D14 -- a theorem with no integer dimension is evaluated exactly at points inside its hypotheses: an
  exact point where the sides differ refutes it, whatever a numeric callable says;
* minor -- a literal False hypothesis has no model; Schwartz--Zippel does not run on non-commutative
  symbols; ``apply_theorem`` with a mapping that makes a hypothesis ill-formed is a clear failure.

Every expected verdict below is worked out by hand (the counterexample values are in the comments).
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, IndexRange, NumericResult, Probabilistic, RandomFamily, Statement, Theorem
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level, Verdict
from symattn.kernel.instances import domain_values, undefined_side
from symattn.maths.moments import Cov, Covariance, Var, Variance, iid_vector

n = sp.Symbol("n", integer=True, positive=True)
k0 = sp.Symbol("k0", integer=True, nonnegative=True)
np_ = sp.Symbol("np", integer=True, nonpositive=True)
m = sp.Symbol("m", integer=True)
k = sp.Symbol("k", integer=True, positive=True)
x, y = sp.symbols("x y", real=True)
a, b = sp.symbols("a b", negative=True)
ap, bp = sp.symbols("ap bp", positive=True)
d = sp.Symbol("d", integer=True, positive=True)
i = sp.Symbol("i", integer=True, positive=True)
sigma = sp.Symbol("sigma", positive=True)
q = sp.IndexedBase("q", real=True)
Q_IID = (RandomFamily("q_iid", base=q, dim=d, mean=0, variance=sigma**2),)


def theorem(statement, hypotheses=(), dimensions=(), **kw):
    return Theorem(id="claim", title="claim", source="extension", statement=statement, hypotheses=hypotheses,
                   dimensions=dimensions, **kw)


def check(thm, numeric=False):
    return check_theorem(thm, numeric=numeric)


def lying(seed):
    return NumericResult(ok=True, samples=1, seed=seed, max_error=0.0, tolerance=1e-9, detail="a lying check")


# ------------------------------------------------------------------------------ C11: poles
def test_undefined_side_names_poles_nan_and_infinities_only():
    assert "pole" in undefined_side(sp.zoo)
    assert "nan" in undefined_side(sp.nan)
    assert "infinite" in undefined_side(sp.oo) and "infinite" in undefined_side(-sp.oo)
    assert undefined_side(sp.Matrix([[1, sp.zoo]])) is not None
    assert undefined_side(x + sp.zoo) is not None
    for fine in (sp.Integer(0), sp.sqrt(2), x + 1, sp.Matrix([[1, 2]]), sp.Sum(1 / k**2, (k, 1, sp.oo))):
        assert undefined_side(fine) is None, fine


UNDEFINED_EVERYWHERE = [
    # every size tried is a pole of both sides: nothing is shown, nothing refuted
    ("gamma_twice_at_poles", Statement(sp.gamma(np_), 2 * sp.gamma(np_)), (np_,)),
    # one side a pole, the other finite: not a counterexample (the claim does not assert definedness)
    ("gamma_is_zero_at_poles", Statement(sp.gamma(np_), 0), (np_,)),
    # infinite sides
    ("infinite_sides", Statement(m**2 * sp.oo, sp.oo), (m,)),  # nan at m = 0, oo = oo elsewhere
    ("shifted_pole", Statement(sp.gamma(np_) + 1, sp.gamma(np_)), (np_,)),
]


@pytest.mark.parametrize("name,st,dims", UNDEFINED_EVERYWHERE, ids=[c[0] for c in UNDEFINED_EVERYWHERE])
def test_an_instance_at_a_pole_is_never_a_pass_nor_a_counterexample(name, st, dims):
    o = check(theorem(st, dimensions=dims))
    assert o.verdict is Verdict.UNDECIDED, o.how
    assert o.levels["instances"].status is Level.UNDECIDED
    # said either by the instances (the size is outside the statement) or, when every point tried
    # is a pole, by the model search (no point of the hypotheses where the statement is defined)
    assert "not defined there" in o.how or "the statement is undefined at the point" in o.how, o.how


DEFINED_SOMEWHERE = [
    # true where defined: proved-for-instances at the defined sizes, the poles named as skipped
    ("gamma_factorial", Statement(sp.gamma(m), sp.factorial(m - 1)), (m,), "m in {1, 2, 3}", "m = 0"),
    ("nan_at_one", Statement((k0**2 - k0) / (k0 - 1), k0), (k0,), "k0 in {0, 2, 3}", "k0 = 1"),
    ("reciprocal", Statement(1 / np_, 1 / np_ * 1), (np_,), "np in {-1, -2, -3}", "np = 0"),
    ("factorial_recursion", Statement(sp.factorial(k0 - 1) * k0, sp.factorial(k0)), (k0,), "k0 in {1, 2, 3}",
     "k0 = 0"),  # 0 * zoo = nan at k0 = 0
]


@pytest.mark.parametrize("name,st,dims,shown,skipped", DEFINED_SOMEWHERE, ids=[c[0] for c in DEFINED_SOMEWHERE])
def test_poles_are_skipped_and_said_the_defined_sizes_count(name, st, dims, shown, skipped):
    o = check(theorem(st, dimensions=dims))
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES, o.how
    assert f"exact for {shown}" in o.how, o.how
    assert f"{skipped}: the statement is not defined there" in o.how, o.how


def test_a_pole_does_not_hide_a_counterexample_at_a_defined_size():
    # 1/(n - 1) = 2/(n - 1): n = 1 is a pole (skipped), n = 2 gives 1 != 2
    o = check(theorem(Statement(1 / (n - 1), 2 / (n - 1)), dimensions=(n,)))
    assert o.verdict is Verdict.REFUTED, o.how
    assert o.counterexample.startswith("n = 2"), o.counterexample


# ------------------------------------------------------------------------------ C12: more sizes
def _in(sym, *values):
    return (Assumption("dom", condition=sp.Contains(sym, sp.FiniteSet(*values))),)


FALSE_BEYOND = [
    # (name, statement, hypotheses, dimensions, the smallest counterexample)
    ("finite_set_fourth", Statement((n - 1) * (n - 2) * (n - 3), 0), _in(n, 1, 2, 3, 4), (n,), "n = 4"),
    ("finite_set_odd_member", Statement(sp.Sum((-1) ** k, (k, 1, n)), 0), _in(n, 2, 4, 6, 7), (n,), "n = 7"),
    ("bounded_by_hypothesis", Statement((n - 1) * (n - 2) * (n - 3) * (n - 4), 0),
     (Assumption("small", condition=sp.Le(n, 5)),), (n,), "n = 5"),
    ("cube_is_identity", Statement(m**3, m), (), (m,), "m = 2"),
    ("quartic_roots", Statement((n - 1) * (n - 2) * (n - 3) * (n - 4), 0), (), (n,), "n = 5"),
    ("factorial_below_power", Statement(sp.factorial(n), 2**n + 10, "<"), (), (n,), "n = 5"),  # 120 >= 42
    ("square_below_4k", Statement(k0**2, 4 * k0, "<="), (), (k0,), "k0 = 5"),  # 25 > 20
    ("negative_side", Statement(np_**3, np_, "="), (), (np_,), "np = -2"),  # -8 != -2
]


@pytest.mark.parametrize("name,st,hyps,dims,where", FALSE_BEYOND, ids=[c[0] for c in FALSE_BEYOND])
def test_a_claim_false_beyond_the_smallest_sizes_is_refuted_at_the_smallest_counterexample(name, st, hyps, dims,
                                                                                            where):
    o = check(theorem(st, hyps, dims))
    assert o.verdict is Verdict.REFUTED, o.how
    assert o.levels["instances"].status is Level.FAIL and o.levels["instances"].data["derived"]
    assert o.counterexample.startswith(where + ":"), o.counterexample


TRUE_SIZES = [
    ("gauss_on_a_finite_set", Statement(sp.Sum(k, (k, 1, n)), n * (n + 1) / 2), _in(n, 1, 2, 3, 4, 5), (n,),
     "n in {1, 2, 3, 4, 5} (every value of the finite domain)"),
    ("bounded_both_sides", Statement(n**2, n, ">="), (Assumption("small", condition=sp.Lt(n, 5)),), (n,),
     "n in {1, 2, 3, 4} (every value of the finite domain)"),
    ("interval_domain", Statement(m**2, m * m), (Assumption("dom", condition=sp.Contains(m, sp.Interval(-2, 2))),),
     (m,), "m in {0, -1, 1, -2, 2} (every value of the finite domain)"),
    ("six_divides", Statement(sp.Mod(m**3 - m, 6), 0), (), (m,), "m in {0, 1, -1}"),
]


@pytest.mark.parametrize("name,st,hyps,dims,shown", TRUE_SIZES, ids=[c[0] for c in TRUE_SIZES])
def test_a_true_claim_states_exactly_the_sizes_checked(name, st, hyps, dims, shown):
    o = check(theorem(st, hyps, dims))
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES, o.how
    assert f"exact for {shown}" in o.how, o.how


def test_the_search_beyond_an_infinite_domain_is_said_and_not_counted_as_the_range():
    o = check(theorem(Statement(sp.Mod(m**3 - m, 6), 0), dimensions=(m,)))
    lv = o.levels["instances"]
    assert "the search over further sizes found no counterexample" in o.how, o.how
    assert lv.data["searched"][:2] == ["m = 2", "m = -2"] and "m = 2" not in lv.data["sizes"], lv.data


def test_domain_values():
    assert domain_values(n, {n: sp.FiniteSet(1, 2, 3, 4)}, ()) == [1, 2, 3, 4]
    assert domain_values(n, {}, (Assumption("s", condition=sp.Le(n, 3)),)) == [1, 2, 3]
    assert domain_values(m, {}, (Assumption("s", condition=sp.And(sp.Gt(m, -2), sp.Lt(m, 2))),)) == [0, -1, 1]
    assert domain_values(m, {}, (IndexRange("r", index=m, lower=2, upper=4),)) == [2, 3, 4]
    assert domain_values(n, {}, ()) is None  # unbounded above
    assert domain_values(m, {}, (Assumption("s", condition=sp.Le(m, 3)),)) is None  # unbounded below
    assert domain_values(n, {}, (Assumption("s", condition=sp.Le(n, 10**6)),)) is None  # too many to check all


# ------------------------------------------------------------------------------ C13: complex variance
def test_var_and_cov_of_a_non_real_argument_are_refused():
    v = iid_vector("v", 2, mean=0, variance=4)
    c = sp.Symbol("c")  # not known to be real
    for bad in (sp.I * v[1], c * v[1], v[1] + sp.I):
        with pytest.raises(ValueError, match="not known to be real"):
            Var(bad)
        with pytest.raises(ValueError, match="not known to be real"):
            Cov(bad, v[1])
    assert Var(3 * v[1]) == 36
    assert Var(v[1] + v[2]) == 8
    assert Cov(v[1], v[1] + v[2]) == 4


VAR_REFUSED = [
    ("var_i_q_minus", Statement(Variance(sp.I * q[1]), -sigma**2)),  # the non-conjugated convention
    ("var_i_q_plus", Statement(Variance(sp.I * q[1]), sigma**2)),  # E|Z - EZ|^2: not computed here
    ("cov_i_q", Statement(Covariance(sp.I * q[1], q[1]), sp.I * sigma**2)),
    ("var_shift_i", Statement(Variance(q[1] + sp.I), sigma**2)),
]


@pytest.mark.parametrize("name,st", VAR_REFUSED, ids=[c[0] for c in VAR_REFUSED])
def test_an_instance_with_a_complex_variance_is_refused_with_a_clear_error(name, st):
    o = check(theorem(st, Q_IID, (d,)))
    assert o.verdict is Verdict.UNDECIDED, o.how
    assert "not known to be real" in o.how, o.how


VAR_REAL = [
    ("var_scaled", Statement(Variance(2 * q[1]), 4 * sigma**2), Verdict.PROVED_FOR_INSTANCES),
    ("var_sum", Statement(Variance(sp.Sum(q[i], (i, 1, d))), d * sigma**2), Verdict.PROVED_FOR_INSTANCES),
    ("var_sum_wrong", Statement(Variance(sp.Sum(q[i], (i, 1, d))), sigma**2), Verdict.REFUTED),  # d = 2: 2 s^2
    ("cov_self", Statement(Covariance(q[1], q[1]), sigma**2), Verdict.PROVED_FOR_INSTANCES),
]


@pytest.mark.parametrize("name,st,verdict", VAR_REAL, ids=[c[0] for c in VAR_REAL])
def test_real_variances_still_evaluate(name, st, verdict):
    o = check(theorem(st, Q_IID, (d,)))
    assert o.verdict is verdict, o.how


# ------------------------------------------------------------------------------ D14: exact points
FALSE_POINTS = [
    # (name, statement, hypotheses, what the counterexample shows)
    ("one_is_two", Statement(sp.Integer(1), sp.Integer(2)), (), "left = 1, right = 2"),
    ("log_of_negatives", Statement(sp.log(a * b), sp.log(a) + sp.log(b)), (), "right = 2*I*pi"),  # a = b = -1
    ("cosh_below_one", Statement(sp.cosh(x), 1, "<="), (), "left = cosh("),
    ("x_le_y", Statement(x, y, "<="), (), "at "),
    ("sqrt_of_square", Statement(sp.sqrt(x**2), x), (), "at x = -"),
    ("exp_above_x_plus_2", Statement(sp.exp(x), x + 2, ">="), (), "at x = 0"),  # 1 < 2
    ("inside_the_hypothesis", Statement(x, 2, ">="), (Assumption("x_gt_1", condition=sp.Gt(x, 1)),), "x_gt_1"),
    ("closed_inequality", Statement(sp.pi, 3, "<"), (), "left = pi"),
]


@pytest.mark.parametrize("name,st,hyps,shows", FALSE_POINTS, ids=[c[0] for c in FALSE_POINTS])
def test_an_exact_point_refutes_whatever_a_numeric_check_says(name, st, hyps, shows):
    o = check(theorem(st, hyps, numeric=lying), numeric=True)
    assert o.levels["numeric"].status is Level.PASS  # the lying check passes ...
    assert o.verdict is Verdict.REFUTED, o.how  # ... and does not lift the claim
    assert o.levels["instances"].status is Level.FAIL
    assert shows in o.counterexample, o.counterexample
    assert "." not in o.counterexample.split("right = ")[-1].replace("...", ""), o.counterexample  # no floats


def test_the_counterexample_point_satisfies_the_hypotheses():
    o = check(theorem(Statement(x, 2, ">="), (Assumption("x_gt_1", condition=sp.Gt(x, 1)),)))
    value = sp.Rational(o.counterexample.split("x = ")[1].split(";")[0].split(":")[0])
    assert 1 < value < 2, o.counterexample


TRUE_POINTS = [
    ("log_of_positives", Statement(sp.log(ap * bp), sp.log(ap) + sp.log(bp)), ()),
    ("cosh_above_one", Statement(sp.cosh(x), 1, ">="), ()),
    ("binomial", Statement((x + y) ** 2, x**2 + 2 * x * y + y**2), ()),
    ("sqrt_of_square_abs", Statement(sp.sqrt(x**2), sp.Abs(x)), ()),
    ("under_hypothesis", Statement(x, y + 1, "<"), (Assumption("x_le_y", condition=sp.Le(x, y)),)),
    ("exp_above_x_plus_1", Statement(sp.exp(x), x + 1, ">="), ()),
    ("closed_true", Statement(sp.pi, 3, ">"), ()),
    ("log_of_negatives_with_2_pi_i", Statement(sp.log(a * b), sp.log(a) + sp.log(b) - 2 * sp.pi * sp.I), ()),
]


@pytest.mark.parametrize("name,st,hyps", TRUE_POINTS, ids=[c[0] for c in TRUE_POINTS])
def test_a_true_claim_is_never_refuted_at_points(name, st, hyps):
    o = check(theorem(st, hyps, numeric=lying), numeric=True)
    assert o.verdict is Verdict.NUMERICALLY_CONSISTENT, o.how
    assert o.levels["instances"].status is Level.NA


# ------------------------------------------------------------------------------ minor
@pytest.mark.parametrize("false", [False, sp.false], ids=["python_False", "sympy_false"])
def test_a_literal_false_hypothesis_has_no_model(false):
    o = check(theorem(Statement(sp.Integer(0), sp.Integer(0)), (Assumption("f", condition=false),),
                      numeric=lying), numeric=True)
    assert o.verdict is Verdict.UNDECIDED, o.how
    assert "literal False" in o.how and "no model" in o.how, o.how


def test_schwartz_zippel_does_not_count_on_non_commutative_symbols():
    A, B = sp.symbols("A B", commutative=False)
    st = Statement(A * B, B * A)
    o = check(theorem(st, probabilistic=Probabilistic(lambda N: st, sizes=(1,), trials=40)))
    assert o.levels["probabilistic"].status is Level.NA, o.levels["probabilistic"]
    assert "non-commutative" in o.levels["probabilistic"].detail
    assert o.verdict is not Verdict.CHECKED_PROBABILISTICALLY
    st2 = Statement(x * y, y * x)  # commutative symbols: the test runs and passes
    o2 = check(theorem(st2, probabilistic=Probabilistic(lambda N: st2, sizes=(1,), trials=40)))
    assert o2.levels["probabilistic"].status is Level.PASS, o2.levels["probabilistic"]


def test_apply_theorem_with_an_ill_formed_hypothesis_image_is_a_clear_failure(monkeypatch):
    from symattn import Derivation
    from symattn.engine.theorem import registry

    s = sp.IndexedBase("s", real=True)
    lemma = Theorem(id="zz_lemma_range", title="t", source="extension", dimensions=(n,),
                    hypotheses=(IndexRange("i_range", index=i, lower=1, upper=n),),
                    statement=Statement(s[i] + 0, s[i]))
    monkeypatch.setitem(registry._theorems, "zz_lemma_range", lemma)
    thm = Theorem(id="zz_user", title="t", source="extension", dimensions=(n,), statement=Statement(s[n + 1], s[n + 1]),
                  derivation=lambda: Derivation(s[n + 1]).eq(s[n + 1], "apply_theorem", theorem="zz_lemma_range",
                                                             mapping={i: n + 1}))
    o = check(thm)
    detail = o.levels["symbolic"].detail
    assert "TypeError" not in detail and "TypeError" not in o.how, detail
    assert "zz_lemma_range" in detail and "i_range" in detail and "not well-formed" in detail, detail


def test_a_builders_instance_at_a_pole_is_skipped_not_passed():
    from symattn import Instances

    st = Statement(sp.gamma(np_), 2 * sp.gamma(np_))
    o = check(theorem(st, dimensions=(np_,), instances=Instances(lambda s: st.subs({np_: s}), (0, -1), at=np_)))
    assert o.verdict is Verdict.UNDECIDED, o.how
    assert o.levels["instances"].status is not Level.PASS


@pytest.mark.parametrize("kind", ["empirical", "heuristic"])
def test_an_observation_is_not_searched_for_points(kind):
    # the symbols of an empirical or heuristic claim are measured quantities, not universally quantified
    g1, g2 = sp.symbols("g_post g_pre", positive=True)
    o = check(theorem(Statement(g1 / g2, 1, ">"), kind=kind, target=Verdict.NUMERICALLY_CONSISTENT, numeric=lying),
              numeric=True)
    assert o.verdict is Verdict.NUMERICALLY_CONSISTENT, o.how
    assert o.levels["instances"].status is Level.NA
