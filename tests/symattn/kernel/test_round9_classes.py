"""Adversarial review 9, class B: undefined values.

SymPy's constructors fold undefined terms to ``nan`` and ``zoo`` (``1/(x - x)``, ``tan(pi/2)``,
``log(0)``, ``gamma(0)``, ``factorial(-1)`` are ``zoo``; ``oo - oo``, ``0*oo``, ``exp(zoo)`` are ``nan``),
and a derivation with no steps equated such a side with itself: ``nan = nan``, ``tan(pi/2) = gamma(0)``,
``cot 0 <= gamma(-1)`` were proved. Three closures, each tested here with false claims (not proved)
and true ones (still proved):

* ``nan`` and ``zoo`` are not terms of the kernel (``kernel.wellformed``);
* a side holding an infinite sum or product is not equated with itself by an empty chain (the kernel
  shows no series convergent);
* a point where a side of the statement is shown undefined (a definedness condition vanishes there,
  exactly) is no model of the theorem: ``log x = log x`` under ``x = 0`` has none, so it is undecided.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, Equation, IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem

from .claims import Claim, assert_proved, assert_rejected, check, k, n, p, step, x

oo = sp.oo


def _empty(tid, lhs, rhs, relation="=", hyps=(), dims=()):
    return Claim(tid, lhs, rhs, (), relation, tuple(hyps), dimensions=tuple(dims))


UNDEFINED_VALUES = [
    (_empty("nan_eq", sp.nan, sp.nan), "nan"),
    (_empty("nan_le", sp.nan, sp.nan, "<="), "nan"),
    (_empty("oo_minus_oo", oo - oo, sp.nan), "nan"),
    (_empty("zero_times_oo", 0 * oo, oo - oo), "nan"),
    (_empty("division_by_zero", x / 0, x / 0), "zoo"),
    (_empty("pole_of_a_difference", 1 / (x - x), sp.zoo), "zoo"),
    (_empty("tan_at_pole", sp.tan(sp.pi / 2), sp.gamma(0)), "zoo"),
    (_empty("log_zero", sp.log(0), sp.Integer(1) / 0), "zoo"),
    (_empty("cot_le_gamma", sp.cot(0), sp.gamma(-1), "<="), "zoo"),
    (_empty("factorial_minus_one", sp.factorial(-1), sp.tan(sp.pi / 2)), "zoo"),
    (_empty("exp_of_log_zero", sp.exp(sp.log(0)), sp.nan), "nan"),
    (_empty("sum_of_poles", sp.Sum(sp.gamma(0) * k, (k, 1, n)), sp.Sum(sp.tan(sp.pi / 2) * k, (k, 1, n)),
            dims=(n,)), "zoo"),
    (Claim("pole_by_algebra", x / 0, sp.zoo * x, (step(sp.zoo * x, "algebra"),)), "zoo"),
    (Claim("nan_sum_evaluated", sp.Sum(sp.nan, (k, 1, n)), n * sp.nan, (step(n * sp.nan, "sum_evaluate"),),
           dimensions=(n,)), "nan"),
]


@pytest.mark.parametrize("claim,word", UNDEFINED_VALUES, ids=[c.id for c, _ in UNDEFINED_VALUES])
def test_nan_and_zoo_are_not_terms(claim, word):
    out = check(claim)
    assert out.verdict is not Verdict.PROVED, out.how
    assert word in out.how and "does not accept" in out.how, out.how


INFINITE_SELF = [
    _empty("grandi_equals_itself", sp.Sum((-1) ** k, (k, 1, oo)), sp.Sum((-1) ** k, (k, 1, oo))),
    _empty("harmonic_equals_itself_renamed", sp.Sum(1 / k, (k, 1, oo)), sp.Sum(1 / x, (x, 1, oo)).subs(x, k)),
    _empty("divergent_le_itself", sp.Sum(k, (k, 1, oo)), sp.Sum(k, (k, 1, oo)), "<="),
    _empty("infinite_product_equals_itself", sp.Product(1 + 1 / k, (k, 1, oo)), sp.Product(1 + 1 / k, (k, 1, oo))),
    _empty("inside_a_sum", 1 + sp.Sum((-1) ** k, (k, 0, oo)), 1 + sp.Sum((-1) ** k, (k, 0, oo))),
    _empty("negative_infinite_range", sp.Sum(sp.exp(k), (k, -oo, 0)), sp.Sum(sp.exp(k), (k, -oo, 0))),
    _empty("nested_infinite", sp.Sum(sp.Sum(k, (k, 1, n)), (n, 1, oo)), sp.Sum(sp.Sum(k, (k, 1, n)), (n, 1, oo))),
    _empty("under_a_function", sp.exp(sp.Sum(1 / k, (k, 1, oo))), sp.exp(sp.Sum(1 / k, (k, 1, oo)))),
]


@pytest.mark.parametrize("claim", INFINITE_SELF, ids=[c.id for c in INFINITE_SELF])
def test_an_empty_chain_does_not_equate_an_infinite_sum_with_itself(claim):
    out = check(claim)
    assert out.verdict is not Verdict.PROVED, out.how
    assert "convergence" in out.how, out.how


def _thm(tid, st, hyps=(), dims=()):
    return Theorem(id=tid, title=tid, source="extension", statement=st, hypotheses=tuple(hyps),
                   derivation=lambda: None, dimensions=tuple(dims))


UNDEFINED_AT_EVERY_MODEL = [
    ("log_at_zero", Statement(sp.log(x), sp.log(x)), (Equation("e", lhs=x, rhs=0),)),
    ("log_le_at_zero", Statement(sp.log(x), sp.log(x), "<="), (Equation("e", lhs=x, rhs=0),)),
    ("reciprocal_at_zero", Statement(1 / x, 1 / x), (Equation("e", lhs=x, rhs=0),)),
    ("tan_at_its_pole", Statement(sp.tan(x), sp.tan(x)), (Equation("e", lhs=x, rhs=sp.pi / 2),)),
    ("gamma_at_a_pole", Statement(sp.gamma(x), sp.gamma(x)), (Equation("e", lhs=x, rhs=-2),)),
    ("log_of_n_minus_one", Statement(sp.log(n - 1), sp.log(n - 1)), (Assumption("a", condition=sp.Le(n, 1)),)),
    ("pole_in_a_size", Statement(1 / (n - 2), 1 / (n - 2)), (Equation("e", lhs=n, rhs=2),)),
    ("reciprocal_of_a_product", Statement(1 / (x * (x - 1)), 1 / (x * (x - 1))), (Equation("e", lhs=x**2, rhs=x),)),
]


@pytest.mark.parametrize("name,st,hyps", UNDEFINED_AT_EVERY_MODEL, ids=[c[0] for c in UNDEFINED_AT_EVERY_MODEL])
def test_a_statement_undefined_at_every_point_of_its_hypotheses_has_no_model(name, st, hyps):
    from symattn import Derivation

    thm = Theorem(id=name, title=name, source="extension", statement=st, hypotheses=hyps,
                  derivation=lambda: Derivation(st.lhs))
    out = check_theorem(thm, numeric=False)
    assert out.verdict is not Verdict.PROVED, out.how
    assert out.model is None and "undefined at the point" in out.how, out.how


DEFINED_SOMEWHERE = [
    Claim("log_positive", sp.log(p), sp.log(p), ()),
    Claim("log_real_where_defined", sp.log(x), sp.log(x), ()),
    Claim("reciprocal_away_from_zero", 1 / x, 1 / x, (), hypotheses=(Assumption("a", condition=sp.Ne(x, 0)),)),
    Claim("pole_at_the_smallest_size_only", 1 / (n - 1), 1 / (n - 1), (), dimensions=(n,)),
    Claim("tan_inside_its_interval", sp.tan(x), sp.tan(x), (), hypotheses=(Equation("e", lhs=x, rhs=sp.pi / 4),)),
    Claim("finite_sum_equals_itself", sp.Sum((-1) ** k, (k, 1, n)), sp.Sum((-1) ** k, (k, 1, n)), (), dimensions=(n,)),
    Claim("finite_sum_of_reciprocals", sp.Sum(1 / k, (k, 1, n)), sp.Sum(1 / k, (k, 1, n)), (), dimensions=(n,)),
    Claim("log_by_algebra", sp.log(x) + 1 - 1, sp.log(x), (step(sp.log(x), "algebra"),)),
    Claim("band_with_infinite_limit", sp.Sum(k, (k, 1, n)), sp.Sum(k, (k, 1, n)), (), dimensions=(n,),
          hypotheses=(IndexRange("r", index=sp.Symbol("i", integer=True), lower=1, upper=n),)),
]


@pytest.mark.parametrize("claim", DEFINED_SOMEWHERE, ids=[c.id for c in DEFINED_SOMEWHERE])
def test_true_statements_defined_somewhere_stay_proved(claim):
    assert_proved(claim)


def test_a_refusal_is_named_before_any_step():
    assert_rejected(Claim("named", sp.nan, sp.nan, (), why="nan"))


# ------------------------------------------------------------- distinct indices through their ranges
d_, i_, j_ = sp.Symbol("d", integer=True, positive=True), *sp.symbols("i j", integer=True, positive=True)


def _moment_claim(tid, jlo, jhi, why="different entries"):
    from symattn import RandomFamily
    from symattn.rules.expectation import Expectation

    q = sp.IndexedBase("q", real=True)
    mu, sg = sp.Symbol("mu", real=True), sp.Symbol("sigma", positive=True)
    hyps = (RandomFamily("q_iid", base=q, dim=d_, mean=mu, variance=sg**2),
            IndexRange("ir", index=i_, lower=1, upper=d_), IndexRange("jr", index=j_, lower=jlo, upper=jhi))
    e = Expectation(q[i_] * q[j_])
    return Claim(tid, e, mu**2, (step(Expectation(q[i_]) * Expectation(q[j_]), "independence"), step(mu**2, "moment")),
                 hypotheses=hyps, bad_step=1, why=why)


DISTINCT_BY_RANGE = [
    _moment_claim("after", i_ + 1, d_),
    # j <= d shown through i <= d: the sign test writes j from its range before i from its own
    _moment_claim("before", 1, i_ - 1),
    _moment_claim("well_before", 1, i_ - 2),
    _moment_claim("two_after", i_ + 2, d_),
    _moment_claim("three_after", i_ + 3, d_),
]
NOT_DISTINCT_BY_RANGE = [
    _moment_claim("from_i", i_, d_),
    _moment_claim("anywhere", 1, d_),
    _moment_claim("from_i_minus_one", i_ - 1, d_, why=""),
    _moment_claim("up_to_i", 1, i_, why=""),
]


@pytest.mark.parametrize("claim", DISTINCT_BY_RANGE, ids=[c.id for c in DISTINCT_BY_RANGE])
def test_indices_kept_apart_by_their_ranges_are_distinct_entries(claim):
    assert_proved(claim)


@pytest.mark.parametrize("claim", NOT_DISTINCT_BY_RANGE, ids=[c.id for c in NOT_DISTINCT_BY_RANGE])
def test_ranges_that_let_the_indices_meet_do_not_make_them_distinct(claim):
    assert_rejected(claim)
