"""derivations.problems and symattn.products.problems: every problem is registered, sourced and solved."""

import dataclasses

import pytest
import sympy as sp

from derivations import problems as pr
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, Theorem, load_all
from symattn.engine.verdict import Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from symattn.products.problems import (
    PROBLEM_KINDS,
    Problem,
    all_problems,
    get_problem,
    missing_theorems,
    register_problem,
)
from tests.derivations.refutation import builder_fails, refuted

SEED000 = "000_ccf06b253f58a07c.txt"
SEED002 = "002_e97041f43d35f9ac.txt"


def test_seven_problems_of_seed_000_and_three_exercises_of_seed_002():
    problems = all_problems()
    assert sum(SEED000 in p.source for p in problems) == 7
    assert sum(SEED002 in p.source for p in problems) == 3
    assert {p.kind for p in problems} <= set(PROBLEM_KINDS)
    assert [p.kind for p in problems if SEED000 in p.source].count("proof") == 5
    assert len({p.id for p in problems}) == len(problems)


def test_every_referenced_theorem_is_registered():
    """Fails until the other topics (dot_product_variance, mha_head_scale, ...) have landed."""
    load_all()
    assert missing_theorems() == {}


def test_coding_problem_points_to_an_implementation_that_exists():
    import importlib

    p = get_problem("mha_from_scratch")
    module, name = p.implementation.rsplit(".", 1)
    assert callable(getattr(importlib.import_module(module), name))
    assert p.tests and all(t.startswith("tests/numeric/") for t in p.tests)


def test_crossover_problem_values_are_computed():
    c = get_problem("attention_dominates_mlp_when").computed
    d = sp.Symbol("d", positive=True)
    assert c["crossover_logits_and_av"] == 4 * d
    assert c["crossover_attention_block"] == 2 * d
    assert c["ratio_n128000_d4096_logits_and_av"] == sp.Rational(125, 16)
    assert c["ratio_n128000_d4096_leading_order"] == sp.Rational(125, 4)


def test_exercise_1_weights_output_and_no_majority():
    ex = pr.three_key_example()
    e = sp.E
    want = [sp.exp(sp.Rational(1, 2)), sp.exp(sp.Rational(1, 2)), e]
    total = sum(want)
    for got, w in zip(ex["weights"], want):
        assert sp.simplify(got - w / total) == 0
    assert [round(float(w), 3) for w in ex["weights"]] == [0.274, 0.274, 0.452]
    assert [round(float(o), 4) for o in ex["output"]] == [0.7259, 0.7259]
    assert get_problem("exercise_third_identical_key").computed["identical_key_weight_above_half"] is False


@pytest.mark.parametrize("theorem_id, target", [
    ("three_key_attention_output", Verdict.PROVED),
    ("identical_key_weight_lt_half", Verdict.PROVED),
    ("attention_grad_q_chain", Verdict.PROVED),
])
def test_problem_theorems_reach_their_targets(theorem_id, target):
    outcome = Checker().check(getattr(pr, theorem_id))
    assert outcome.verdict is target, outcome.how
    assert all(v.status.value != "fail" for v in outcome.levels.values())


def test_identical_key_majority_claim_is_refuted():
    """'The identical key dominates' read as 'gets more than half': false, and the checker says so."""
    w3 = pr.three_key_example()["weights"][2]
    thm = Theorem(
        id="identical_key_weight_gt_half", title="wrong", source="extension",
        statement=Statement(w3, sp.Rational(1, 2), ">"),
        derivation=lambda: Derivation(w3).step(sp.Rational(1, 2), "inequality", ">", note="it is the largest"),
        instances=Instances(lambda s: Statement(w3, sp.Rational(1, 2), ">"), (1,)),
    )
    outcome = Checker().check(thm)
    assert refuted(outcome)


def test_gradient_chain_without_the_rowsum_term_is_refuted():
    """A plausible wrong chain: dS = A o dA, forgetting the -a a^T part of the softmax Jacobian."""
    thm = Theorem(
        id="grad_q_chain_without_rowsum", title="wrong", source="extension",
        statement=pr.attention_grad_q_chain.statement, target="proved-for-instances",
        instances=Instances(lambda case: pr._grad_instance(case, rowsum=False), (2, 4)),
    )
    outcome = Checker().check(thm)
    assert refuted(outcome)
    assert builder_fails(outcome)


def _grad_with_last_steps(rhs):
    """The registered derivation with its last step ending at ``rhs`` instead."""
    good = pr.attention_grad_q_chain
    chain = good.get_derivation()
    bad = Derivation(chain.start)
    bad.steps = list(chain.steps[:-1])
    bad.eq(rhs, "sum_linearity", note="(wrong)")
    return dataclasses.replace(good, statement=Statement(good.statement.lhs, rhs), derivation=lambda: bad,
                               instances=None, numeric=None)


def test_general_gradient_is_proved_with_every_dimension_symbolic():
    outcome = Checker().check(pr.attention_grad_q_chain)
    assert outcome.verdict is Verdict.PROVED
    assert "n, d_k, d_v" in outcome.how
    lv = outcome.levels["instances"]
    assert lv.status.value == "pass" or lv.data.get("kernel_inconclusive"), lv.detail
    assert outcome.levels["numeric"].status.value == "pass"


@pytest.mark.parametrize("wrong", ["without_rowsum", "transposed_key", "no_scale"])
def test_general_gradient_with_a_plausible_mistake_is_not_proved(wrong):
    p_, q_, l_, n_, rt = pr._p, pr._q, pr._l, pr._n, pr._rt
    w, up, K = pr._weight, pr._upstream, pr._Ki
    rhs = {
        "without_rowsum": sp.Sum(w(p_, l_) * up(p_, l_) * K[l_, q_], (l_, 1, n_)) / rt,
        "transposed_key": sp.Sum(w(p_, l_) * (up(p_, l_) - pr._mean_up) * K[q_, l_], (l_, 1, n_)) / rt,
        "no_scale": sp.Sum(w(p_, l_) * (up(p_, l_) - pr._mean_up) * K[l_, q_], (l_, 1, n_)),
    }[wrong]
    outcome = Checker(time_limit=2).check(_grad_with_last_steps(rhs))  # the true chain takes 0.3 s
    assert outcome.verdict is not Verdict.PROVED
    assert f"step {len(pr.attention_grad_q_chain.get_derivation().steps)}" in outcome.how  # the last


def test_general_gradient_needs_the_index_ranges():
    thm = dataclasses.replace(pr.attention_grad_q_chain, instances=None, numeric=None,
                              hypotheses=tuple(h for h in pr.attention_grad_q_chain.hypotheses if h.name != "q_range"))
    outcome = Checker().check(thm)
    assert outcome.verdict is not Verdict.PROVED
    assert "kronecker_delta_contraction" in outcome.how


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(kind="essay"), ValueError, "kind must be one of"),
        (dict(id="Bad Id"), ValueError, "snake_case"),
        (dict(theorem_ids="dot_product_variance"), TypeError, "tuple of theorem id strings"),
        (dict(solution=""), ValueError, "solution must be a non-empty string"),
        (dict(kind="coding"), ValueError, "names its implementation"),
        (dict(computed=[1]), TypeError, "computed must be a dict"),
    ],
)
def test_invalid_problems_are_rejected(kwargs, exc, match):
    base = dict(id="p", title="t", source="extension", kind="exercise", statement="s", theorem_ids=(), solution="x")
    base.update(kwargs)
    with pytest.raises(exc, match=match):
        Problem(**base)


def test_register_problem_rejects_duplicates_and_non_problems():
    p = get_problem("mha_from_scratch")
    assert register_problem(p) is p  # idempotent for the same object
    with pytest.raises(ValueError, match="registered twice"):
        register_problem(Problem(**{**p.to_json(), "computed": {}, "theorem_ids": ()}))
    with pytest.raises(TypeError, match="needs a Problem"):
        register_problem("mha_from_scratch")


def test_problem_to_json_is_plain_data():
    import json

    for p in all_problems():
        json.dumps(p.to_json())
