"""Kernel smoother and linear attention: false variants with plausible proofs are not proved;
the heuristic can never be graded 'proved'."""

import dataclasses

import pytest
import sympy as sp

import derivations.kernel_smoother as ks
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, Theorem, load_all
from symattn.engine.verdict import Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from tests.derivations.refutation import refuted

REGISTRY = load_all()
i, j, c, e, n, d, d_v = ks.i, ks.j, ks.c, ks.e, ks.n, ks.d, ks.d_v
P, F, V = ks.P, ks.F, ks.V


def test_linear_order_with_a_wrong_normaliser_is_not_proved():
    # forgetting phi(q_i) in the normaliser: sum_c sum_j phi(k_j)_c instead of phi(q_i)^T z
    S, z = ks._prefix_state(n)
    wrong = sp.Sum(P[i, c] * S, (c, 1, d)) / sp.Sum(z, (c, 1, d))
    proof = (
        Derivation(ks._quadratic(n))
        .eq(sp.Sum(P[i, c] * S, (c, 1, d)) / sp.Sum(ks._phi_dot(i, j), (j, 1, n)), "sum_interchange")
        .eq(wrong, "sum_interchange")
    )
    thm = dataclasses.replace(REGISTRY.get("linear_attention_associativity"), id="false_linear_normaliser",
                              statement=Statement(ks._quadratic(n), wrong), derivation=proof,
                              instances=None)
    outcome = Checker().check(thm)
    assert outcome.verdict < Verdict.PROVED
    assert outcome.levels["symbolic"].status.value == "fail"


def test_cost_that_forgets_the_value_product_is_refuted():
    wrong = sp.ImmutableMatrix([n**2 * (d + 1), 2 * n * d * (d_v + 1)])
    proof = Derivation(ks._costs()).eq(wrong, "sum_evaluate")
    thm = dataclasses.replace(REGISTRY.get("linear_attention_costs"), id="false_cost_count",
                              statement=Statement(ks._costs(), wrong), derivation=proof,
                              instances=Instances(lambda size: Statement(
                                  sp.ImmutableMatrix(ks._count_loops(size, 3, 2)), wrong.subs({n: size, d: 3, d_v: 2})),
                                  tuple(range(1, 9)), label="n (d = 3, d_v = 2)"))
    assert refuted(Checker().check(thm))


def test_causal_recurrence_with_the_wrong_new_key_is_refuted():
    S_i, z_i = ks._prefix_state(i)
    S_prev, z_prev = ks._prefix_state(i - 1)
    wrong = Statement(sp.ImmutableMatrix([S_i, z_i]),
                      sp.ImmutableMatrix([S_prev + F[i - 1, c] * V[i - 1, e], z_prev + F[i, c]]))
    thm = dataclasses.replace(
        REGISTRY.get("causal_linear_attention_state_recurrence"), id="false_recurrence",
        statement=wrong, derivation=None, numeric=None,
        instances=dataclasses.replace(REGISTRY.get("causal_linear_attention_state_recurrence").instances,
                                      build=lambda size: Statement(wrong.lhs.subs({i: size}).doit(),
                                                                   wrong.rhs.subs({i: size}).doit())),
    )
    assert refuted(Checker().check(thm))


def test_the_heuristic_cannot_target_proved():
    with pytest.raises(ValueError):
        Theorem("kernel_smoother_proved", "no", REGISTRY.get("kernel_smoother_analogy").statement,
                source="extension", kind="heuristic", target="proved")
    assert Checker().check(REGISTRY.get("kernel_smoother_analogy")).verdict == Verdict.NUMERICALLY_CONSISTENT


def test_loop_counts_are_independent_of_the_closed_form():
    assert ks._count_loops(1, 1, 1) == (3, 4)  # 1*(1+1+1) and 2*1*1*(1+1)
    assert ks._count_loops(4, 2, 3) == (16 * 6, 2 * 4 * 2 * 4)
