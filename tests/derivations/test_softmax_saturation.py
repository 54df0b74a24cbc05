"""derivations.softmax, saturation: ||J||_F <= 2(1 - a_m) and ||J v|| <= 2(1 - a_m)||v|| are proved for
symbolic n, without the cited eigenvalue fact; wrong constants and missing hypotheses do not prove."""

import dataclasses

import numpy as np
import pytest
import sympy as sp

import derivations.softmax as sm
from symattn.checker import Checker
from symattn.derivation import Derivation
from symattn.statement import Statement
from symattn.theorem import Theorem, registry
from symattn.verdict import Level, Verdict

a, m, n = sm.a, sm.m, sm.n

SATURATION = ["softmax_jacobian_frobenius_sq", "softmax_jacobian_frobenius_le", "softmax_saturation_bound"]


@pytest.fixture(scope="module")
def checker():
    return Checker()


@pytest.mark.parametrize("theorem_id", SATURATION)
def test_saturation_results_are_proved_with_numeric_evidence(checker, theorem_id):
    out = checker.check(registry.get(theorem_id))
    assert out.verdict is Verdict.PROVED, out.how
    assert out.levels["symbolic"].status is Level.PASS
    assert out.levels["numeric"].status is Level.PASS, out.levels["numeric"].detail
    assert out.levels["instances"].status in (Level.PASS, Level.NA)


def test_saturation_bound_does_not_rest_on_the_cited_spectral_step(checker):
    out = checker.check(registry.get("softmax_saturation_bound"))
    used = out.levels["symbolic"].data["used"]
    assert "softmax_jacobian_frobenius_sq" in used
    assert "softmax_jacobian_spectral_norm_le_trace" not in used
    assert "cauchy_schwarz" in [s.rule for s in registry.get("softmax_saturation_bound").get_derivation().steps]
    assert registry.get("softmax_saturation_bound").figures == ("softmax_saturation",)
    # the eigenvalue route stays honest: numeric evidence only
    assert checker.check(registry.get("softmax_jacobian_spectral_norm_le_trace")).verdict is (
        Verdict.NUMERICALLY_CONSISTENT
    )


def test_frobenius_bound_instances_are_exact_for_small_n(checker):
    out = checker.check(registry.get("softmax_jacobian_frobenius_le"))
    assert out.levels["instances"].status is Level.PASS
    assert out.levels["instances"].data["sizes"] == [1, 2, 3, 4]


def test_frobenius_bound_constant_four_is_sharp_as_the_weight_concentrates():
    # n = 2, a = (1 - e, e), m = 1: ||J||_F^2 = 4 a_m^2 (1 - a_m)^2, so the ratio to 4 e^2 tends to 1
    for e in (1e-2, 1e-4):
        p = np.array([1 - e, e])
        ratio = (sm._jacobian_np(p) ** 2).sum() / (4 * e ** 2)
        assert 1 - 3 * e < ratio <= 1


def test_operator_norm_bound_holds_at_every_position_not_only_the_largest():
    rng = np.random.default_rng(7)
    for p in rng.dirichlet(np.full(6, 0.2), 200):
        op = np.linalg.norm(sm._jacobian_np(p), 2)
        assert np.all(op <= 2 * (1 - p) + 1e-12)


def _without(thm, name):
    return dataclasses.replace(thm, hypotheses=tuple(h for h in thm.hypotheses if h.name != name),
                               instances=None, numeric=None)


@pytest.mark.parametrize("hypothesis", ["m_range", "a_sums_to_one", "i_range"])
@pytest.mark.parametrize("theorem_id", ["softmax_jacobian_frobenius_le", "softmax_saturation_bound"])
def test_bound_is_not_proved_without_its_hypotheses(theorem_id, hypothesis):
    thm = _without(registry.get(theorem_id), hypothesis)
    assert Checker().check(thm).verdict is not Verdict.PROVED


def test_false_constant_one_with_a_plausible_proof_is_refuted():
    """||J||_F^2 <= (1 - a_m)^2 is false (n = 2: 4 a_m^2 (1 - a_m)^2 > (1 - a_m)^2 once a_m > 1/2).
    The 'proof' reuses the real chain and ends with a wrong algebra step."""
    good = registry.get("softmax_jacobian_frobenius_le")
    chain = good.get_derivation()
    bad = Derivation(chain.start)
    bad.steps = list(chain.steps[:-1])
    bad.eq((1 - a[m]) ** 2, "algebra", note="(wrong) the constant is 1")

    def numeric(seed):
        rng = np.random.default_rng(seed)
        worst = max(((sm._jacobian_np(p) ** 2).sum() - (1 - p) ** 2).max()
                    for p in rng.dirichlet(np.full(3, 0.3), 200))
        return sm.NumericResult(worst <= 1e-12, 200, seed, max(worst, 0.0), 1e-12, "F - (1 - a_m)^2")

    false = dataclasses.replace(good, id="softmax_jacobian_frobenius_le_one",
                                statement=Statement(good.statement.lhs, (1 - a[m]) ** 2, "<="),
                                derivation=lambda: bad, numeric=numeric, instances=None)
    out = Checker().check(false)
    assert out.levels["symbolic"].status is not Level.PASS
    assert out.verdict is Verdict.REFUTED


def test_cauchy_schwarz_on_the_wrong_side_does_not_prove_a_lower_bound():
    """'||J v||^2 >= |v|^2 ||J||_F^2' (false: J 1 = 0) via Cauchy-Schwarz written as >= the wrong way."""
    good = registry.get("softmax_saturation_bound")
    first = good.get_derivation().steps[0]
    bad = Derivation(good.statement.lhs).ge(first.expr, "cauchy_schwarz", note="(wrong direction)")
    false = Theorem(
        id="softmax_jacobian_norm_ge_frobenius", title="false", statement=Statement(good.statement.lhs, first.expr, ">="),
        source="test", hypotheses=good.hypotheses, derivation=lambda: bad, dimensions=(n,),
    )
    assert Checker().check(false).verdict is not Verdict.PROVED
