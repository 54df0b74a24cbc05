"""The scaling theorems: proved with d_k symbolic, through the advertised rules; mutated claims are
not proved; the Monte Carlo checks reject wrong values; the closed forms agree with the moment
calculus (a second, independent route)."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

import derivations.scaling as sc
from symattn.engine.checker import Checker
from symattn.engine.verdict import Level, Verdict
from symattn.language.statement import Statement
from symattn.maths.moments import Var, dot, iid_vector
from tests.derivations.refutation import builder_fails, refuted

IDS = [
    "dot_product_mean",
    "dot_product_variance",
    "scaled_logit_std",
    "mha_head_logit_variance",
    "mha_head_scale",
    "mha_full_width_scale_variance",
    "dot_product_variance_nonzero_mean",
]
THEOREMS = {t: getattr(sc, t) for t in IDS}
_checker = Checker()


@pytest.mark.parametrize("tid", IDS)
def test_every_scaling_theorem_is_proved_with_every_level_passing(tid):
    outcome = _checker.check(THEOREMS[tid])
    assert outcome.verdict is Verdict.PROVED, outcome.how
    for level in ("symbolic", "instances", "numeric"):
        assert outcome.levels[level].status is Level.PASS, (level, outcome.levels[level].detail)


@pytest.mark.parametrize("tid", IDS)
def test_dimensions_stay_symbolic(tid):
    thm = THEOREMS[tid]
    assert thm.dimensions and all(isinstance(x, sp.Symbol) for x in thm.dimensions)
    assert set(thm.dimensions) <= thm.statement.free_symbols


def test_variance_derivation_shows_the_four_advertised_steps():
    rules = [s.rule for s in sc.dot_product_variance.get_derivation().steps]
    assert rules == ["variance_of_independent_sum", "variance_of_independent_product", "moment", "sum_evaluate"]


def test_hypotheses_are_moments_only_not_a_distribution():
    fams = [h for h in sc.dot_product_variance.hypotheses if type(h).__name__ == "RandomFamily"]
    assert {(f.mean, f.variance, f.moments) for f in fams} == {(0, sc.sigma**2, ())}


@pytest.mark.parametrize("tid", IDS)
def test_sources_cite_the_seeds_or_say_extension(tid):
    src = THEOREMS[tid].source
    assert "extension" in src or any(s in src for s in ("000_ccf06b253f58a07c.txt", "002_e97041f43d35f9ac.txt",
                                                          "004_b987b516506401e6.txt"))


def test_notes_record_where_the_texts_are_loose():
    notes = sc.scaled_logit_std.notes + sc.dot_product_variance.notes
    for phrase in ("approximately 1", "numerical-stability fix", "variance $d_k$", "initialisation"):
        assert phrase in notes


# ------------------------------------------------------------------ second route: moment calculus
def _vectors(dim, mq=0, mk=0, vq=sc.sigma**2, vk=sc.sigma**2):
    return iid_vector("q", dim, mean=mq, variance=vq), iid_vector("k", dim, mean=mk, variance=vk)


def test_variance_closed_forms_agree_with_the_moment_calculus():
    qv, kv = _vectors(sc.d_k)
    assert sp.expand(Var(dot(qv, kv)) - sc.dot_product_variance.statement.rhs) == 0
    qv, kv = _vectors(sc.d_k, sc.mu_q, sc.mu_k, sc.sigma_q**2, sc.sigma_k**2)
    assert sp.expand(Var(dot(qv, kv)) - sc.dot_product_variance_nonzero_mean.statement.rhs) == 0
    qv, kv = _vectors(sc.d_h)
    head = Var(dot(qv, kv) / sp.sqrt(sc.d / sc.h)).xreplace({sc.d_h: sc.d / sc.h})
    assert sp.simplify(head - sc.mha_head_scale.statement.rhs) == 0


# ------------------------------------------------------------------ mutations are caught
def _mutant(thm, rhs):
    """The theorem claiming ``rhs`` instead, with the same derivation and evidence built for the new claim."""
    st = Statement(thm.statement.lhs, rhs)
    return dataclasses.replace(thm, id=thm.id + "_mutant", statement=st, **sc.evidence(thm.id, st))


MUTANTS = [
    ("variance_sigma_squared", sc.dot_product_variance, sc.d_k * sc.sigma**2),
    ("variance_off_by_one", sc.dot_product_variance, (sc.d_k + 1) * sc.sigma**4),
    ("mean_nonzero", sc.dot_product_mean, sc.sigma**2),
    ("std_grows_with_dim", sc.scaled_logit_std, sc.sigma**2 * sp.sqrt(sc.d_k)),
    ("head_scale_by_full_width", sc.mha_head_scale, sc.sigma**4 / sc.h),
    ("nonzero_mean_drops_a_term", sc.dot_product_variance_nonzero_mean,
     sc.d_k * (sc.sigma_q**2 * sc.sigma_k**2 + sc.sigma_q**2 * sc.mu_k**2)),
]


@pytest.mark.parametrize("name, thm, rhs", MUTANTS, ids=[m[0] for m in MUTANTS])
def test_a_wrong_right_hand_side_is_refuted(name, thm, rhs):
    outcome = Checker().check(_mutant(thm, rhs))
    assert outcome.levels["symbolic"].status is Level.FAIL
    assert builder_fails(outcome)
    assert outcome.levels["numeric"].status is Level.FAIL
    assert refuted(outcome)


def test_a_corrupted_middle_step_fails_the_symbolic_level():
    d = sc.dot_product_variance.get_derivation()
    bad = d.replaced(2, d.steps[2].expr.xreplace({sc.sigma: 2 * sc.sigma}))  # sum of 16 sigma^4
    thm = dataclasses.replace(sc.dot_product_variance, id="dot_product_variance_bad_step", derivation=bad,
                              instances=None, numeric=None)
    outcome = Checker().check(thm)
    assert outcome.levels["symbolic"].status is Level.FAIL
    assert outcome.verdict is not Verdict.PROVED


# ------------------------------------------------------------------ the Monte Carlo itself
CONFIGS = [(n, 1.0, kind, (0.0, 0.0), (0.7, 0.7), {sc.d_k: n, sc.sigma: 0.7})
           for n in (4, 64, 512) for kind in ("gaussian", "rademacher", "uniform")]


def test_monte_carlo_accepts_the_true_variance_for_gaussian_and_non_gaussian_entries():
    res = sc._monte_carlo(7, CONFIGS, "var", lambda p: p[sc.d_k] * p[sc.sigma] ** 4)
    assert res.ok and res.samples == 9 * 8000 and res.seed == 7 and res.max_error <= res.tolerance


@pytest.mark.parametrize("wrong", [
    lambda p: p[sc.d_k] * p[sc.sigma] ** 2,            # sigma^2 instead of sigma^4
    lambda p: 1.1 * p[sc.d_k] * p[sc.sigma] ** 4,      # 10% off
    lambda p: (p[sc.d_k] + 1) * p[sc.sigma] ** 4,      # off by one term
])
def test_monte_carlo_rejects_wrong_variances(wrong):
    res = sc._monte_carlo(7, CONFIGS, "var", wrong)
    assert not res.ok and res.counterexample


def test_monte_carlo_uses_the_law_of_each_distribution_for_its_error_bars():
    # Rademacher products q_i k_i = +-sigma^2 have no spread in their square: smaller error bars
    _, var_r, m4_r = sc._logit_law(4, "rademacher", (0.0, 0.0), (1.0, 1.0))
    _, var_g, m4_g = sc._logit_law(4, "gaussian", (0.0, 0.0), (1.0, 1.0))
    assert var_r == var_g == 4.0
    assert m4_r == pytest.approx(3 * 4 * 3 + 4)      # +-1 products: E[X^4] = 3 d (d-1) + d
    assert m4_g == pytest.approx(3 * 16 + 6 * 4)     # 3 d^2 + 6 d for Gaussian entries


@pytest.mark.parametrize("kind", ["gaussian", "rademacher", "uniform"])
def test_samplers_have_the_stated_mean_and_variance(kind):
    import numpy as np

    rng = np.random.default_rng(0)
    x = sc._sampler(kind)(rng, (200_000,), 0.5, 2.0)
    assert abs(x.mean() - 0.5) < 5 * 2.0 / np.sqrt(200_000)
    assert abs(x.var() - 4.0) < 0.1
