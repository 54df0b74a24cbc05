"""derivations.softmax: the theorems reach their targets, and wrong claims with plausible proofs do not."""

import dataclasses

import numpy as np
import pytest
import sympy as sp

import derivations.softmax as sm
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, Theorem, registry
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from symattn.maths.softmax import Softmax
from tests.derivations.refutation import refuted

KD = sp.KroneckerDelta
n, i, j, k, m = sm.n, sm.i, sm.j, sm.k, sm.m
a, s, v = sm.a, sm.s, sm.v

PROVED = [
    "softmax_jacobian",
    "softmax_jacobian_quadratic_form",
    "softmax_jacobian_symmetric",
    "softmax_jacobian_mul_ones_eq_zero",
    "softmax_jacobian_psd",
    "softmax_jacobian_trace",
    "softmax_jacobian_trace_le",
    "softmax_jacobian_frobenius_sq",
    "softmax_jacobian_frobenius_le",
    "softmax_saturation_bound",
    "softmax_jacobian_frobenius_le_trace",
    "softmax_jacobian_spectral_norm_le_trace",
]



def _no_failure(lv) -> bool:
    """A level that passed, does not apply, or (the kernel's own derived instances) was inconclusive: an
    inequality the exact evaluation cannot decide at an instance is no evidence either way, never a pass."""
    return lv.status in (Level.PASS, Level.NA) or (lv.status is Level.UNDECIDED and lv.data.get("kernel_inconclusive"))

@pytest.fixture(scope="module")
def checker():
    return Checker()


@pytest.mark.parametrize("theorem_id", PROVED)
def test_general_results_are_proved_with_every_level_passing(checker, theorem_id):
    out = checker.check(registry.get(theorem_id))
    assert out.verdict is Verdict.PROVED, out.how
    assert out.levels["numeric"].status is Level.PASS, out.levels["numeric"].detail
    assert _no_failure(out.levels["instances"]), out.levels["instances"].detail


def test_saturation_bound_is_proved_without_the_cited_spectral_step(checker):
    out = checker.check(registry.get("softmax_saturation_bound"))
    assert out.levels["symbolic"].status is Level.PASS
    assert out.verdict is Verdict.PROVED
    assert "softmax_jacobian_spectral_norm_le_trace" not in out.levels["symbolic"].data["used"]
    assert registry.get("softmax_saturation_bound").figures == ("softmax_saturation",)


def test_sum_of_squares_certificate_is_proved_for_symbolic_n(checker):
    out = checker.check(registry.get("softmax_jacobian_trace_gap_sum_of_squares"))
    assert out.verdict is Verdict.PROVED, out.how
    assert out.levels["instances"].status is Level.PASS
    assert {"softmax_jacobian_trace", "softmax_jacobian_quadratic_form"} <= set(out.levels["symbolic"].data["used"])


def test_sum_of_squares_over_all_pairs_including_the_diagonal_is_not_proved():
    """Dropping the factor 1 - delta_rc (summing the diagonal r = c too) gives a false identity; the
    same chain of steps, so modified, must fail where the diagonal is contracted, and the
    counterexample search must find it false at explicit n."""
    good = registry.get("softmax_jacobian_trace_gap_sum_of_squares")
    chain = good.get_derivation()
    no_delta = {sp.KroneckerDelta(sm._r, sm._c): 0}
    bad = Derivation(chain.start)
    bad.steps = list(chain.steps[:-2]) + [
        dataclasses.replace(st, expr=st.expr.xreplace(no_delta)) for st in chain.steps[-2:]
    ]
    false = dataclasses.replace(
        good, statement=Statement(good.statement.lhs, good.statement.rhs.xreplace(no_delta)),
        derivation=lambda: bad, numeric=None,
        instances=Instances(lambda size: _with_diagonal(size), (2, 3), label="n"),
    )
    out = Checker().check(false)  # a fresh checker: outcomes are memoised by theorem id
    assert refuted(out), out.how
    assert out.levels["symbolic"].status is not Level.PASS


def _with_diagonal(size):
    st = sm._sos_instance(size)
    p = sm._simplex(size)
    w = sp.symbols(f"v1:{size + 1}", real=True)
    # the diagonal terms of the statement without 1 - delta_rc: 1/2 a_r^2 ((2 v_r)^2 + 2 (|v|^2 - 2 v_r^2))
    extra = sp.Rational(1, 2) * sum(p[r] ** 2 * (4 * w[r] ** 2 + 2 * (sum(x ** 2 for x in w) - 2 * w[r] ** 2))
                                    for r in range(size))
    return Statement(st.lhs, st.rhs + extra)


def test_near_one_hot_heuristic_reports_the_measured_weights():
    study = sm.near_one_hot_study(seed=3, trials=1500)
    means = [study[size]["mean_max"] for size in (16, 128, 1024)]
    assert means[0] > means[1] > means[2] > 0.5  # peaked, less so for longer rows
    assert all(study[size]["mean_trace"] < study[size]["mean_trace_sigma1"] for size in study)
    assert registry.get("unscaled_logits_softmax_near_one_hot").kind == "heuristic"


def test_every_theorem_here_cites_seed_000():
    for thm in registry:
        if thm.topic == "softmax":
            assert "000_ccf06b253f58a07c.txt" in thm.source


# ------------------------------------------------------------------ false claims, plausible proofs
def _unregistered(theorem_id, statement, derivation, hypotheses=sm.PROBABILITY, instances=None, numeric=None):
    return Theorem(id=theorem_id, title="false claim", statement=statement, source="extension",
                   hypotheses=hypotheses, derivation=derivation, dimensions=(n,), instances=instances,
                   numeric=numeric)


def test_jacobian_with_a_sign_error_is_not_proved(checker):
    f = sp.Lambda(k, s[k])
    wrong = Softmax(f, i, n) * (Softmax(f, j, n) - KD(i, j))
    Z = sm._Z

    def proof():
        return (
            Derivation(sp.Derivative(Softmax(f, i, n), s[j]))
            .eq(sp.Derivative(sp.exp(s[i]) / Z, s[j]), "definition", name="softmax")
            .eq(sp.exp(s[i]) * sp.exp(s[j]) / Z**2 - sp.exp(s[i]) * KD(i, j) / Z, "differentiate")
            .eq(wrong, "definition", name="softmax")
        )

    thm = _unregistered("false_softmax_jacobian", Statement(sp.Derivative(Softmax(f, i, n), s[j]), wrong), proof,
                        hypotheses=(sm.I_RANGE, sm.J_RANGE),
                        instances=Instances(lambda size: Statement(
                            sm._softmax_jacobian_instance(size).lhs, -sm._softmax_jacobian_instance(size).rhs),
                            (2, 3)))
    out = checker.check(thm)
    assert refuted(out), out.how
    assert "step 2" in out.levels["symbolic"].detail


def test_quadratic_form_without_the_mean_term_is_not_proved(checker):
    # claims v^T J v = sum_j a_j v_j^2, "forgetting" the (sum a v)^2 term in the linearity step
    def proof():
        return (
            Derivation(sm._quadratic_form(v, v))
            .eq(sm._sum(v[i] * sm._sum(a[i] * (KD(i, j) - a[j]) * v[j], j), i), "definition", name="softmax_jacobian")
            .eq(sm._sum(v[i] * (a[i] * v[i] - sm._sum(a[i] * a[j] * v[j], j)), i), "kronecker_delta_contraction")
            .eq(sm._sum(a[i] * v[i] ** 2, i), "sum_linearity")
        )

    thm = _unregistered("false_quadratic_form", Statement(sm._quadratic_form(v, v), sm._sum(a[i] * v[i] ** 2, i)),
                        proof)
    out = checker.check(thm)
    assert out.verdict < Verdict.PROVED_FOR_INSTANCES, out.how


def test_trace_bound_with_a_dropped_factor_two_is_not_proved(checker):
    # 1 - |a|^2 <= 1 - a_m is false (a = (0.6, 0.4), m = 1: 0.48 > 0.4)
    def proof():
        return (
            Derivation(sm._one_minus_sq)
            .eq(1 - a[m] ** 2 - sm._sum(a[j] ** 2 * (1 - KD(j, m)), j), "kronecker_delta_contraction")
            .le(1 - a[m] ** 2, "nonnegative_terms")
            .le(1 - a[m], "nonnegative_terms")
        )

    def numeric(seed):
        from symattn.engine.theorem import NumericResult

        p = np.array([0.6, 0.4])
        gap = (1 - p @ p) - (1 - p.max())
        return NumericResult(gap <= 0, 1, seed, gap, 0.0, "a = (0.6, 0.4)")

    thm = _unregistered("false_trace_bound", Statement(sm._one_minus_sq, 1 - a[m], "<="), proof,
                        hypotheses=(sm.M_RANGE, sm.A_NONNEGATIVE), numeric=numeric)
    out = checker.check(thm)
    assert refuted(out)
    assert out.levels["symbolic"].status is Level.FAIL


def test_variance_identity_without_the_normalisation_hypothesis_is_not_proved(checker):
    thm_true = registry.get("softmax_jacobian_quadratic_form")
    thm = _unregistered("quadratic_form_no_sum_one", thm_true.statement, thm_true.derivation,
                        hypotheses=(sm.A_NONNEGATIVE, sm.I_RANGE))
    out = checker.check(thm)
    assert out.levels["symbolic"].status is Level.FAIL
    assert "a_sums_to_one" in out.levels["symbolic"].detail
