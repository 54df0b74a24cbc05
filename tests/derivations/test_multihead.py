"""Multi-head attention as a sum of low-rank maps: false variants do not check, the numeric
oracle agrees, and the exact ranks attain the bound."""

import numpy as np
import pytest
import sympy as sp

from derivations import multihead as mh
from numeric.reference import mha_sum_of_heads, multi_head_attention
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, Theorem
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from symattn.maths.multihead import FamilyMatrix, MatSum, NumEntries, Rank, head_blocks, row_blocks
from tests.derivations.refutation import refuted

d, h, m = mh.d, mh.h, mh.m


def test_false_sum_of_heads_with_a_dropped_head_is_not_proved():
    # claim: MHA(X) = sum over m = 1..h-1 (the last head forgotten), with the true derivation
    rhs = MatSum(mh.SUM_FORM.term, (m, 1, h - 1))
    thm = Theorem(id="false_mha_drops_last_head", title="(false)", statement=Statement(mh.MHA_X, rhs),
                  source="extension", derivation=mh._mha_sum_of_heads_derivation, dimensions=(mh.n, d, h))
    outcome = Checker(numeric=False).check(thm)
    assert outcome.verdict is not Verdict.PROVED
    assert "end" in outcome.levels["symbolic"].detail


def test_false_rank_bound_d_over_h_minus_one_is_refuted_at_instances():
    def build(size):
        return Statement(mh._rank_instance("vo", "<=")(size).lhs, sp.Integer(1), "<=")  # width 2: rank 2 > 1

    thm = Theorem(id="false_head_rank_le_width_minus_one", title="(false)",
                  statement=Statement(Rank(mh.WV_m * mh.WO_m), mh.w - 1, "<="), source="extension",
                  derivation=lambda: Derivation(Rank(mh.WV_m * mh.WO_m)).le(mh.w - 1, "rank_of_product_le"),
                  dimensions=(d, h), instances=Instances(build, (1, 2)))
    outcome = Checker(numeric=False).check(thm)
    assert refuted(outcome)
    assert outcome.levels["symbolic"].status is Level.FAIL


def test_false_param_count_with_h_times_more_weights_is_not_proved():
    wrong = 4 * h * d**2
    thm = Theorem(id="false_mha_param_count", title="(false)", statement=Statement(mh.MULTI_COUNT, wrong),
                  source="extension", dimensions=(d, h),
                  derivation=lambda: mh._param_count_derivation().eq(wrong, "algebra"))
    assert Checker(numeric=False).check(thm).verdict is not Verdict.PROVED


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_sum_form_agrees_with_both_numeric_implementations(heads):
    rng = np.random.default_rng(heads)
    x, w = rng.normal(size=(5, 8)), rng.normal(size=(4, 8, 8))
    ours = sum(
        np.exp(a := (x @ q) @ (x @ k).T / np.sqrt(8 // heads)) / np.exp(a).sum(axis=1, keepdims=True) @ x @ v @ o
        for q, k, v, o in zip(head_blocks(w[0], heads), head_blocks(w[1], heads), head_blocks(w[2], heads),
                              row_blocks(w[3], heads))
    )
    assert np.allclose(ours, multi_head_attention(x, *w, heads=heads))
    assert np.allclose(ours, mha_sum_of_heads(x, *w, heads=heads))


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6])
def test_exact_rank_of_the_integer_instances_is_the_head_width(size):
    assert mh._rank_instance("vo", "=")(size).lhs == 2
    assert mh._rank_instance("qk", "=")(size).lhs == 2


def test_param_count_matches_seed_004_worked_example():
    # seed 004: d_model = 512, h = 8: four 512 x 512 weight matrices, 1,048,576 weights
    value = mh.MULTI_COUNT.xreplace({d: 512, h: 8}).doit()
    assert value == 1_048_576 == NumEntries(sp.MatrixSymbol("W", 512, 512)) * 4


def test_family_blocks_have_the_head_width():
    assert FamilyMatrix("W_V", m, d, d / h).shape == (d, d / h)
