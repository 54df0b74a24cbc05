"""The statements restated by issue 20 (fidelity): each reaches its target, and a false variant of
each, checked with the real derivation, never comes out proved."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

from symattn.engine.checker import Checker
from symattn.engine.theorem import load_all
from symattn.engine.verdict import Verdict
from symattn.language.statement import Statement

REGISTRY = load_all()

RESTATED = (
    "attention_output_convex_combination", "gqa_param_count", "kv_cache_size", "standard_attention_hbm_accesses",
    "mha_param_count_with_bias", "alibi_slopes_geometric", "alibi_slopes_between_powers_of_two",
    "flash_attention_flops", "flash_attention_hbm_accesses_tiles", "flash_attention_hbm_accesses",
    "flash_attention_hbm_upper", "flash_attention_hbm_lower", "softmax_jacobian_row_abs_sum",
    "softmax_jacobian_column_abs_sum", "softmax_jacobian_inf_norm_le_half", "alibi_causal_eq_key_position_bias",
    "dot_product_self_attention_jacobian_unbounded", "dot_product_self_attention_not_lipschitz",
    "dot_product_self_attention_witness_normaliser", "dot_product_self_attention_witness_entry",
)


@pytest.mark.parametrize("theorem_id", RESTATED)
def test_a_restated_theorem_reaches_its_target(theorem_id):
    thm = REGISTRY.get(theorem_id)
    outcome = Checker().check(thm)
    assert outcome.verdict == thm.target, outcome.how


def _n(name):
    return sp.Symbol(name, integer=True, positive=True)


def _shift_entry(st: Statement, index: int, delta) -> Statement:
    rhs = sp.Matrix(st.rhs)
    rhs[index] = rhs[index] + delta
    return Statement(st.lhs, sp.ImmutableMatrix(rhs), st.relation)


def _plus(st: Statement, delta) -> Statement:
    return Statement(st.lhs, st.rhs + delta, st.relation)


@pytest.mark.parametrize("theorem_id, false_statement", [
    # a count off by a term
    ("flash_attention_hbm_accesses_tiles", lambda st: _plus(st, _n("N"))),
    ("flash_attention_hbm_accesses", lambda st: _plus(st, _n("N"))),
    ("standard_attention_hbm_accesses", lambda st: _plus(st, _n("N"))),
    ("mha_param_count_with_bias", lambda st: _plus(st, _n("d"))),
    ("gqa_param_count", lambda st: _shift_entry(st, 0, _n("d"))),
    ("kv_cache_size", lambda st: _shift_entry(st, 0, _n("L"))),
    # the slopes with the wrong ratio; the extra heads at the wrong positions
    ("alibi_slopes_geometric", lambda st: _shift_entry(st, 1, sp.Pow(2, -8 / 2 ** sp.Symbol("p", integer=True,
                                                                                              nonnegative=True)))),
    ("alibi_slopes_between_powers_of_two", lambda st: _shift_entry(st, 1, 1)),
    # the witness's normaliser with one key too many
    ("dot_product_self_attention_witness_normaliser", lambda st: _plus(st, 1)),
    # the row sum of |J| without the factor 2; the convex combination with the values doubled
    ("softmax_jacobian_row_abs_sum", lambda st: Statement(st.lhs, st.rhs / 2)),
    ("attention_output_convex_combination", lambda st: Statement(st.lhs, sp.ImmutableMatrix(
        [2 * st.rhs[0], st.rhs[1], st.rhs[2]]))),
])
def test_a_false_variant_with_the_real_derivation_is_not_proved(theorem_id, false_statement):
    thm = REGISTRY.get(theorem_id)
    variant = dataclasses.replace(thm, id=f"false_{theorem_id}", statement=false_statement(thm.statement),
                                  instances=None)
    outcome = Checker().check(variant)
    assert outcome.verdict < Verdict.PROVED, outcome.how


def test_the_flash_bounds_use_the_exact_count():
    # the bounds are about Algorithm 1's count (FlashHBM), linked by apply_theorem, not about a bare polynomial
    for theorem_id in ("flash_attention_hbm_upper", "flash_attention_hbm_lower"):
        thm = REGISTRY.get(theorem_id)
        assert type(thm.statement.lhs).__name__ == "FlashHBM"
        steps = thm.get_derivation().steps
        assert steps[0].rule == "apply_theorem" and steps[0].args["theorem"] == "flash_attention_hbm_accesses"


@pytest.mark.parametrize("theorem_id", ["flash_attention_flops", "flash_attention_hbm_accesses_tiles"])
def test_the_flash_counts_need_their_tile_hypotheses(theorem_id):
    # the loop bounds N/B_c, N/B_r are whole numbers only by the hypotheses T_c = N/B_c, T_r = N/B_r
    thm = REGISTRY.get(theorem_id)
    without = dataclasses.replace(thm, id=f"untiled_{theorem_id}", hypotheses=(), instances=None, numeric=None)
    assert Checker().check(without).verdict < Verdict.PROVED
