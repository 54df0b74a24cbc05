"""derivations.softmax, saturation: ||J||_F <= 2(1 - a_m), ||J v|| <= 2(1 - a_m)||v||, ||J||_F <= tr J and
||J v|| <= tr(J)||v|| are proved for symbolic n without eigenvalues; wrong constants, wrong
certificates and missing hypotheses do not prove."""

import dataclasses

import numpy as np
import pytest
import sympy as sp

import derivations.softmax as sm
from symattn.engine.checker import Checker
from symattn.engine.theorem import Theorem, registry
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from tests.derivations.refutation import refuted

a, m, n = sm.a, sm.m, sm.n

SATURATION = [
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


@pytest.mark.parametrize("theorem_id", SATURATION)
def test_saturation_results_are_proved_with_numeric_evidence(checker, theorem_id):
    out = checker.check(registry.get(theorem_id))
    assert out.verdict is Verdict.PROVED, out.how
    assert out.levels["symbolic"].status is Level.PASS
    assert out.levels["numeric"].status is Level.PASS, out.levels["numeric"].detail
    assert _no_failure(out.levels["instances"]), out.levels["instances"].detail


def test_saturation_bound_does_not_rest_on_the_cited_spectral_step(checker):
    out = checker.check(registry.get("softmax_saturation_bound"))
    used = out.levels["symbolic"].data["used"]
    assert "softmax_jacobian_frobenius_sq" in used
    assert "softmax_jacobian_spectral_norm_le_trace" not in used
    assert "cauchy_schwarz" in [s.rule for s in registry.get("softmax_saturation_bound").get_derivation().steps]
    assert registry.get("softmax_saturation_bound").figures == ("softmax_saturation",)


def test_trace_bound_rests_on_the_frobenius_closed_form_and_the_trace_not_on_eigenvalues(checker):
    out = checker.check(registry.get("softmax_jacobian_spectral_norm_le_trace"))
    used = out.levels["symbolic"].data["used"]
    assert {"softmax_jacobian_frobenius_sq", "softmax_jacobian_trace"} <= set(used)
    rules = [s.rule for s in registry.get("softmax_jacobian_spectral_norm_le_trace").get_derivation().steps]
    assert rules[0] == "cauchy_schwarz" and "nonnegative_terms" in rules


def test_trace_gap_is_six_times_the_third_elementary_symmetric_polynomial():
    # (tr J)^2 - ||J||_F^2 = sum over ordered triples of distinct positions of a_i a_j a_k: computed
    # here from the matrix, not from the closed forms the proof uses
    rng = np.random.default_rng(11)
    for size in (1, 2, 3, 4, 7):
        for p in rng.dirichlet(np.full(size, 0.7), 20):
            jac = np.diag(p) - np.outer(p, p)
            triples = sum(p[r] * p[c] * p[t] for r in range(size) for c in range(size) for t in range(size)
                          if len({r, c, t}) == 3)
            assert np.isclose(np.trace(jac) ** 2 - (jac ** 2).sum(), triples, rtol=1e-12, atol=1e-15)
    # equality exactly when at most two positions carry weight: the bound is sharp
    jac = np.diag([0.3, 0.7]) - np.outer([0.3, 0.7], [0.3, 0.7])
    assert np.isclose(np.trace(jac) ** 2, (jac ** 2).sum())


def _frobenius_trace_with(step_index, expr, rule, **kw):
    """The registered theorem with one step of its derivation replaced."""
    good = registry.get("softmax_jacobian_frobenius_le_trace")
    chain = good.get_derivation()
    bad = Derivation(chain.start)
    bad.steps = list(chain.steps)
    step = chain.steps[step_index]
    bad.steps[step_index] = dataclasses.replace(step, expr=expr, rule=rule, args=kw or step.args)
    return dataclasses.replace(good, derivation=lambda: bad, instances=None, numeric=None)


def test_a_certificate_over_pairs_instead_of_triples_does_not_prove():
    """Dropping the factor 1 - delta_ik keeps the added sum nonnegative but changes its value
    (S1^3 - 2 S1 S2 + S3, not S1^3 - 3 S1 S2 + 2 S3): the contraction step must fail."""
    i, j, k, KD = sm.i, sm.j, sm.k, sp.KroneckerDelta
    pairs = sm._sum(a[i] * sm._sum(a[j] * (1 - KD(i, j)) * sm._sum(a[k] * (1 - KD(j, k)), k), j), i)
    thm = _frobenius_trace_with(1, sm._frobenius_closed_form + pairs, "nonnegative_terms", witness=pairs)
    out = Checker().check(thm)  # a fresh checker: outcomes are memoised by theorem id
    assert out.verdict is not Verdict.PROVED
    assert "step 3" in out.how


def test_a_nonpositive_certificate_is_rejected():
    """Adding -T (a sum of nonpositive terms) is not an upper-bound step."""
    neg = -sm._distinct_triples
    thm = _frobenius_trace_with(1, sm._frobenius_closed_form + neg, "nonnegative_terms", witness=neg)
    out = Checker().check(thm)
    assert out.verdict is not Verdict.PROVED
    # the derivation fails at step 2, and a derived instance now also refutes the claim exactly
    assert "step 2" in out.how or out.verdict is Verdict.REFUTED, out.how


@pytest.mark.parametrize("theorem_id",
                         ["softmax_jacobian_frobenius_le_trace", "softmax_jacobian_spectral_norm_le_trace"])
def test_trace_bound_is_not_proved_without_sum_one(theorem_id):
    assert Checker().check(_without(registry.get(theorem_id), "a_sums_to_one")).verdict is not Verdict.PROVED


def test_trace_bound_is_not_proved_for_real_weights():
    """Nonnegativity is carried by the symbol (a is declared nonnegative, as the Assumption records):
    the same derivation over a real-valued b must fail at the certificate step."""
    b = sp.IndexedBase("b", real=True)
    swap = {a: b}
    good = registry.get("softmax_jacobian_frobenius_le_trace")
    chain = good.get_derivation()
    bad = Derivation(chain.start.xreplace(swap))
    bad.steps = [dataclasses.replace(st, expr=st.expr.xreplace(swap),
                                     args={k_: (x.xreplace(swap) if isinstance(x, sp.Basic) else x)
                                           for k_, x in st.args.items()})
                 for st in chain.steps]
    hyps = tuple(dataclasses.replace(h, lhs=h.lhs.xreplace(swap)) if h.name == "a_sums_to_one" else h
                 for h in good.hypotheses if h.name != "a_nonnegative")
    thm = dataclasses.replace(good, statement=Statement(good.statement.lhs.xreplace(swap),
                                                        good.statement.rhs.xreplace(swap), "<="),
                              hypotheses=hyps, derivation=lambda: bad, instances=None, numeric=None)
    out = Checker().check(thm)
    assert out.verdict is not Verdict.PROVED
    # the derivation fails at step 2, and a derived instance now also refutes the claim exactly
    assert "step 2" in out.how or out.verdict is Verdict.REFUTED, out.how


def test_trace_bound_is_false_for_vectors_off_the_simplex():
    # without the hypotheses the bound is false: a = (1, 1, 1) does not sum to 1; a = (-1, 1, 1)
    # sums to 1 but has a negative entry
    for p in (np.array([1.0, 1.0, 1.0]), np.array([-1.0, 1.0, 1.0])):
        jac = np.diag(p) - np.outer(p, p)
        assert (jac ** 2).sum() > np.trace(jac) ** 2


def test_frobenius_bound_instances_are_exact_for_small_n(checker):
    out = checker.check(registry.get("softmax_jacobian_frobenius_le"))
    lv = out.levels["instances"]
    # derived by the kernel (no builder): the smallest sizes, each shown exactly
    assert lv.status is Level.PASS, lv.detail
    assert lv.data["derived"] and lv.data["sizes"] == ["n = 1", "n = 2", "n = 3"], lv.data


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
    assert refuted(out)


def test_cauchy_schwarz_on_the_wrong_side_does_not_prove_a_lower_bound():
    """'||J v||^2 >= |v|^2 ||J||_F^2' (false: J 1 = 0) via Cauchy-Schwarz written as >= the wrong way."""
    good = registry.get("softmax_saturation_bound")
    first = good.get_derivation().steps[0]
    bad = Derivation(good.statement.lhs).ge(first.expr, "cauchy_schwarz", note="(wrong direction)")
    false = Theorem(
        id="softmax_jacobian_norm_ge_frobenius", title="false",
                    statement=Statement(good.statement.lhs, first.expr, ">="),
        source="test", hypotheses=good.hypotheses, derivation=lambda: bad, dimensions=(n,),
    )
    assert Checker().check(false).verdict is not Verdict.PROVED
