"""Online softmax: false merges and broken recurrences with plausible proofs never reach 'proved';
the numeric witnesses agree with the recurrence."""

import dataclasses

import numpy as np
import pytest
import sympy as sp

import derivations.online_softmax as online
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, load_all
from symattn.engine.verdict import Verdict
from symattn.language.statement import Statement
from symattn.maths.online_softmax import SoftmaxState, state
from tests.derivations.refutation import refuted

REGISTRY = load_all()
IDS = ("online_softmax_merge", "online_softmax_output_eq_attention", "online_softmax_any_tiling",
       "online_softmax_tiled_output", "online_softmax_lse")
j, a, b, m, m_A, m_B, s, v = (online.j, online.a, online.b, online.m, online.m_A, online.m_B, online.s, online.v)


def test_merge_without_rescaling_is_not_proved():
    # "l = l_A + l_B" (forgetting e^{m_A - m}, e^{m_B - m}) with the real proof's steps
    block_a = state(s, v, m_A, index=(j, 1, a))
    block_b = state(s, v, m_B, index=(j, a + 1, a + b))
    wrong = SoftmaxState(m, block_a.l + block_b.l, block_a.o + block_b.o)
    proof = online._merge_derivation()
    proof.start = wrong.as_matrix()

    def instance(size):
        xs = sp.symbols(f"x1:{size + 1}", real=True)
        ys = sp.symbols(f"y1:{size + 1}", real=True)
        cut = size // 2
        part_a = state(list(xs[:cut]), list(ys[:cut]), m_A)
        part_b = state(list(xs[cut:]), list(ys[cut:]), m_B)
        lhs = sp.ImmutableMatrix([part_a.l + part_b.l, part_a.o + part_b.o])
        return Statement(lhs, state(list(xs), list(ys), m).as_matrix())

    thm = dataclasses.replace(
        REGISTRY.get("online_softmax_merge"),
        id="false_merge_without_rescaling",
        statement=Statement(wrong.as_matrix(), online._union_state(m, a + b)),
        derivation=proof,
        instances=Instances(instance, (2, 3), label="a + b"),
    )
    outcome = Checker().check(thm)
    assert outcome.verdict < Verdict.PROVED
    assert outcome.levels["symbolic"].status.value == "fail"
    assert refuted(outcome)  # the exact instances find the missing factors


def test_tiling_with_an_unrescaled_running_state_fails_the_induction_step():
    # the classic bug: absorbing a tile without rescaling the old state by e^{M_{t-1} - M_t}
    hyps = online.tiling_hypotheses(online.w)
    t, M = online.t, online.M
    broken = []
    for h in hyps:
        if getattr(h, "name", "").startswith("recurrence_"):
            h = dataclasses.replace(h, rhs=h.rhs.xreplace({sp.exp(M[t - 1] - M[t]): sp.S.One}))
        broken.append(h)
    thm = dataclasses.replace(REGISTRY.get("online_softmax_any_tiling"), id="false_tiling_without_rescale",
                              hypotheses=tuple(broken), instances=None, numeric=None)
    outcome = Checker().check(thm)
    assert outcome.verdict < Verdict.PROVED
    assert "induction step" in outcome.levels["symbolic"].detail


@pytest.mark.parametrize("theorem_id", IDS[:3])
def test_a_wrong_intermediate_expression_breaks_the_chain(theorem_id):
    thm = REGISTRY.get(theorem_id)
    proof = thm.get_derivation()
    last = len(proof.steps) - 1
    mutated = proof.replaced(max(last - 1, 0), 2 * proof.steps[max(last - 1, 0)].expr)
    if last == 0:  # one-step proofs (the induction): corrupt the start instead
        mutated = proof.replaced(-1, 2 * proof.start)
    outcome = Checker(numeric=False).check(dataclasses.replace(thm, id=f"mutant_{theorem_id}", derivation=mutated))
    assert outcome.levels["symbolic"].status.value == "fail"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_numpy_recurrence_with_running_max_matches_direct_softmax(seed):
    rng = np.random.default_rng(seed)
    scores = rng.normal(scale=50.0, size=37)  # large spreads: exp(s) alone would overflow
    values = rng.normal(size=(37, 2))
    m_run, l_run, o_run = online._run_online(scores, values, [5, 0, 11, 1, 20], "max")
    p = np.exp(scores - scores.max())
    assert m_run == scores.max()
    np.testing.assert_allclose(o_run / l_run, (p / p.sum()) @ values, rtol=1e-12, atol=1e-14)


def test_recurrence_helper_rejects_bad_widths():
    with pytest.raises(ValueError):
        online.online_recurrence([1, -1])
    with pytest.raises(ValueError):
        online.online_recurrence([1.5])
