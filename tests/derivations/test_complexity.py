"""derivations.complexity: the theorems reach their targets, and plausible-looking false claims do not."""

import pytest
import sympy as sp

from derivations import complexity as cx
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, Theorem
from symattn.engine.verdict import Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from symattn.maths.complexity import (
    AttentionValuesMACs,
    LayerMACs,
    LogitsMACs,
    MatMulMACs,
    MLPMACs,
    OutputProjectionMACs,
    QKVProjectionMACs,
)
from tests.derivations.refutation import refuted

n, d, h, r = cx.n, cx.d, cx.h, cx.r

IDS = ["layer_cost_total", "attention_mlp_crossover", "attention_block_mlp_crossover", "mha_param_count_with_bias",
       "mlp_dominates_attention_at_n2048_d4096", "attention_mlp_ratio_at_n128000_d4096"]


@pytest.mark.parametrize("theorem_id", IDS)
def test_complexity_theorems_are_proved_at_every_level(theorem_id):
    thm = getattr(cx, theorem_id)
    outcome = Checker().check(thm)
    assert outcome.verdict is Verdict.PROVED, outcome.how
    assert {k: v.status.value for k, v in outcome.levels.items()} == {
        "symbolic": "pass", "instances": "pass", "probabilistic": "n/a", "numeric": "pass"}


def test_counted_macs_counts_multiplications_not_the_formula():
    assert cx.counted_macs(2, 3, 4) == 24
    assert cx.counted_macs(1, 1, 1) == 1
    assert sum(cx._counted_layer(3, 4, 2).values()) == 12 * 3 * 16 + 2 * 9 * 4


def _check(thm):
    return Checker().check(thm)


def test_total_with_a_dropped_factor_two_is_not_proved():
    """'Logits and AV together cost n^2 d': the table with one n^2 d row forgotten."""
    wrong = 12 * n * d**2 + n**2 * d
    thm = Theorem(
        id="layer_cost_total_wrong", title="wrong", source="extension",
        statement=Statement(LayerMACs(n, d, h, 4), wrong),
        derivation=lambda: (
            Derivation(LayerMACs(n, d, h, 4))
            .eq(QKVProjectionMACs(n, d, h) + LogitsMACs(n, d, h) + AttentionValuesMACs(n, d, h)
                + OutputProjectionMACs(n, d) + MLPMACs(n, d, 4), "definition", name="layer_cost")
            .eq(3 * n * d**2 + n**2 * d + n * d**2 + 8 * n * d**2, "algebra", note="plausible: 'collect'")
            .eq(wrong, "algebra")
        ),
        dimensions=(n, d, h),
        instances=Instances(
            lambda s: Statement(sp.Integer(sum(cx._counted_layer(s, 2 * s, 2).values())), wrong.subs({n: s, d: 2 * s})),
            (1, 2), label="n"),
    )
    outcome = _check(thm)
    assert refuted(outcome)
    assert outcome.levels["symbolic"].status.value == "fail"


def test_per_head_cost_without_the_head_width_is_rejected():
    """Unfolding h MatMul(n, d/h, n) as h n d n (forgetting the heads have width d/h) fails its step."""
    thm = Theorem(
        id="logits_cost_wrong", title="wrong", source="extension",
        statement=Statement(LogitsMACs(n, d, h), h * n**2 * d),
        derivation=lambda: (
            Derivation(LogitsMACs(n, d, h))
            .eq(h * MatMulMACs(n, d / h, n), "definition", name="layer_cost")
            .eq(h * n**2 * d, "definition", name="matmul_macs", note="plausible but drops 1/h")
        ),
        dimensions=(n, d, h),
    )
    outcome = _check(thm)
    assert outcome.verdict is not Verdict.PROVED
    assert "step 2" in outcome.levels["symbolic"].detail


def test_the_texts_factor_30_is_refuted():
    """Seed 000: 'At n = 128,000 attention dominates by a factor of 30' -- with the table's counts."""
    thm = Theorem(
        id="attention_factor_30", title="wrong", source="extension",
        statement=Statement(cx._ATTN_128K, 30),
        derivation=lambda: Derivation(cx._ATTN_128K).eq(sp.Integer(30), "definition", name="layer_cost"),
        instances=Instances(lambda s: Statement(cx._ATTN_128K.doit(), 30), (1,)),
    )
    outcome = _check(thm)
    assert refuted(outcome)
    assert "125/16" in outcome.levels["instances"].detail or "7.81" in outcome.levels["instances"].detail


def test_crossover_at_n_equals_d_is_not_proved():
    """The leading-order reading 'ratio = n/d' stated as exact."""
    thm = Theorem(
        id="crossover_n_eq_d", title="wrong", source="extension",
        statement=Statement(cx._ATTN / MLPMACs(n, d, 4), n / d),
        derivation=lambda: Derivation(cx._ATTN / MLPMACs(n, d, 4)).eq(n / d, "algebra", note="drop constants"),
        dimensions=(n, d, h),
        instances=Instances(lambda s: Statement(sp.Rational(2 * s * s * 2, 8 * s * 4), sp.Rational(s, 2)), (1, 2, 3)),
    )
    outcome = _check(thm)
    assert refuted(outcome)
