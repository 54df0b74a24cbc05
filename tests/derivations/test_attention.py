"""Attention rows: false bounds and sums with plausible proofs never reach 'proved'."""

import dataclasses

import sympy as sp

import derivations.attention as attn
from symattn.engine.checker import Checker
from symattn.engine.theorem import Theorem, load_all
from symattn.engine.verdict import Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from symattn.maths.softmax import Softmax
from symattn.rules.inequalities import MaxOver
from tests.derivations.refutation import refuted

REGISTRY = load_all()
n, j, k, l, s, v = attn.n, attn.j, attn.k, attn.l, attn.s, attn.v


def _weight(index, length=n):
    return Softmax(sp.Lambda(k, s[k]), index, length)


def test_bound_by_the_max_of_fewer_values_is_not_proved():
    # "o_i <= max_{l <= n-1} v_l": the same three steps as the real proof, one index short
    short = MaxOver(v[l], (l, 1, n - 1))
    o = sp.Sum(_weight(j) * v[j], (j, 1, n))
    proof = (
        Derivation(o)
        .le(sp.Sum(_weight(j) * short, (j, 1, n)), "sum_monotone")
        .eq(short * sp.Sum(_weight(j), (j, 1, n)), "sum_linearity")
        .eq(short, "apply_theorem", theorem="attention_row_stochastic")
    )
    thm = Theorem("false_output_le_max_of_first_values", "false", Statement(o, short, "<="),
                  source="extension", derivation=proof, dimensions=(n,))
    outcome = Checker().check(thm)
    assert outcome.verdict < Verdict.PROVED
    assert "step 1" in outcome.levels["symbolic"].detail


def test_weights_summed_over_one_key_too_many_are_not_one():
    # the softmax is normalised over 1..n but summed over 1..n+1
    wrong = sp.Sum(_weight(j), (j, 1, n + 1))
    proof = (
        Derivation(wrong)
        .eq(sp.Sum(sp.exp(s[j]) / sp.Sum(sp.exp(s[k]), (k, 1, n)), (j, 1, n + 1)), "definition", name="softmax")
        .eq(sp.Sum(sp.exp(s[j]), (j, 1, n + 1)) / sp.Sum(sp.exp(s[k]), (k, 1, n)), "sum_linearity")
        .eq(sp.S.One, "rename_bound")
    )
    thm = dataclasses.replace(REGISTRY.get("attention_row_stochastic"), id="false_row_sum_off_by_one",
                              statement=Statement(wrong, 1), derivation=proof, instances=None, numeric=None)
    assert Checker().check(thm).verdict < Verdict.PROVED


def test_positive_weight_claimed_for_negative_scores_direction_is_checked():
    # "softmax weight < 0": the positivity rule must refuse the reversed direction
    proof = (
        Derivation(_weight(attn.i))
        .eq(sp.exp(s[attn.i]) / sp.Sum(sp.exp(s[k]), (k, 1, n)), "definition", name="softmax")
        .lt(sp.S.Zero, "positivity")
    )
    thm = dataclasses.replace(REGISTRY.get("attention_weights_positive"), id="false_negative_weight",
                              statement=Statement(_weight(attn.i), 0, "<"), derivation=proof,
                              instances=dataclasses.replace(
                                  REGISTRY.get("attention_weights_positive").instances,
                                  build=lambda size: Statement(attn._positive_instance(size).lhs, 0, "<")))
    outcome = Checker().check(thm)
    assert refuted(outcome)


def test_numeric_bound_check_sees_every_coordinate():
    result = attn._bound_numeric(3)
    assert result.ok and result.samples == 100 and result.max_error <= result.tolerance
