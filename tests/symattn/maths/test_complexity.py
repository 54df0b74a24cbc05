"""symattn.maths.complexity: the cost table, units, memory, parameters, crossover; argument validation."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from symattn.language.printing import latex
from symattn.maths.complexity import (
    COMPONENTS,
    LayerMACs,
    MatMulMACs,
    MHAParamCount,
    activation_memory,
    attention_mlp_ratio,
    crossover,
    layer_costs,
    mha_param_count,
    model_costs,
)

n, d, h = sp.symbols("n d h", positive=True, integer=True)


def _macs_by_matmul(nv, dv, hv, ratio=4):
    """Count MACs from the shapes of an explicit numpy forward pass (an independent oracle)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(nv, dv))
    w = dv // hv
    count = {}

    def mm(key, a, b):
        count[key] = count.get(key, 0) + a.shape[0] * a.shape[1] * b.shape[1]
        return a @ b

    heads = []
    for _ in range(hv):
        q = mm("qkv_projections", x, rng.normal(size=(dv, w)))
        k = mm("qkv_projections", x, rng.normal(size=(dv, w)))
        v = mm("qkv_projections", x, rng.normal(size=(dv, w)))
        a = mm("logits", q, k.T)
        heads.append(mm("attention_values", a, v))
    y = mm("output_projection", np.concatenate(heads, axis=1), rng.normal(size=(dv, dv)))
    mm("mlp", mm("mlp", y, rng.normal(size=(dv, ratio * dv))), rng.normal(size=(ratio * dv, dv)))
    return count


def test_layer_costs_symbolic_total_is_12nd2_plus_2n2d_macs():
    t = layer_costs(n, d, h)
    assert set(t) == set(COMPONENTS) | {"total"}
    assert t.unit == "mac"
    assert sp.expand(t["total"] - (12 * n * d**2 + 2 * n**2 * d)) == 0
    assert t["logits"] == n**2 * d and t["mlp"] == 8 * n * d**2


@pytest.mark.parametrize("nv, dv, hv, ratio", [(1, 1, 1, 4), (3, 4, 2, 4), (5, 6, 3, 2), (2, 8, 8, 3)])
def test_layer_costs_match_macs_counted_in_a_forward_pass(nv, dv, hv, ratio):
    counted = _macs_by_matmul(nv, dv, hv, ratio)
    t = layer_costs(nv, dv, hv, mlp_ratio=ratio)
    for key in COMPONENTS:
        assert t[key] == counted[key], key
    assert t["total"] == sum(counted.values())


def test_flops_are_twice_macs_for_every_component():
    macs, flops = layer_costs(n, d, h), layer_costs(n, d, h, unit="flop")
    assert flops.unit == "flop"
    for key in macs:
        assert sp.expand(flops[key] - 2 * macs[key]) == 0


def test_mlp_ratio_may_be_symbolic_or_rational():
    r = sp.Symbol("r", positive=True)
    assert sp.expand(layer_costs(n, d, h, mlp_ratio=r)["mlp"] - 2 * r * n * d**2) == 0
    assert layer_costs(1, 2, 1, mlp_ratio=Fraction(3, 2))["mlp"] == 12


def test_activation_memory_is_9nd_plus_hn2_elements():
    m = activation_memory(n, d, h)
    assert m.unit == "elements"
    assert sp.expand(m["total"] - (9 * n * d + h * n**2)) == 0
    assert activation_memory(1000, 512, 8)["logits"] == 8_000_000


def test_mha_param_count_is_4d2_plus_4d_for_seed_004():
    assert mha_param_count(512) == 1_050_624
    assert mha_param_count(512, bias=False) == 1_048_576
    assert sp.expand(mha_param_count(d) - (4 * d**2 + 4 * d)) == 0
    # the per-head count does not depend on h
    assert {sp.expand(MHAParamCount(512, hv).doit()) for hv in (1, 2, 8, 512)} == {1_050_624}


def test_model_costs_backward_is_the_two_times_forward_approximation():
    c = model_costs(n, d, h, 12, vocab=50000)
    assert sp.expand(c["forward"] - (12 * (12 * n * d**2 + 2 * n**2 * d) + 50000 * n * d)) == 0
    assert sp.expand(c["backward"] - 2 * c["forward"]) == 0
    assert sp.expand(c["train_step"] - 3 * c["forward"]) == 0
    assert model_costs(2, 4, 2, 1)["unembedding"] == 0


def test_crossover_is_4d_for_logits_and_av_and_2d_for_the_block():
    assert crossover(d) == {"logits_and_av": 4 * d, "attention_block": 2 * d}
    r = sp.Symbol("r", positive=True)
    got = crossover(d, mlp_ratio=r)
    assert sp.simplify(got["logits_and_av"] - r * d) == 0
    assert sp.simplify(got["attention_block"] - (r - 2) * d) == 0
    assert crossover(10, mlp_ratio=2)["attention_block"] is None  # block always >= MLP


@pytest.mark.parametrize("dv", [1, 7, 64, 4096])
def test_attention_equals_mlp_exactly_at_the_crossover(dv):
    cross = crossover(dv)
    for reading in ("logits_and_av", "attention_block"):
        nv = cross[reading]
        assert attention_mlp_ratio(nv, dv, reading=reading) == 1
        assert attention_mlp_ratio(nv + 1, dv, reading=reading) > 1
        if nv > 1:
            assert attention_mlp_ratio(nv - 1, dv, reading=reading) < 1


def test_key_idea_ratios_at_d4096():
    assert attention_mlp_ratio(2048, 4096) == sp.Rational(1, 8)
    assert attention_mlp_ratio(2048, 4096, reading="attention_block") == sp.Rational(5, 8)
    assert attention_mlp_ratio(128000, 4096) == sp.Rational(125, 16)
    assert attention_mlp_ratio(128000, 4096, reading="leading_order") == sp.Rational(125, 4)


def test_unevaluated_costs_stay_unevaluated_and_print():
    e = LayerMACs(n, d, h, 4)
    assert isinstance(e, LayerMACs)
    assert sp.expand(e.doit() - (12 * n * d**2 + 2 * n**2 * d)) == 0
    assert latex(MatMulMACs(n, d, d)) == r"\operatorname{MAC}\left(n \times d \cdot d \times d\right)"
    assert "layer" in latex(e)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: layer_costs(4, 6, 4), ValueError, "not divisible by h = 4"),
        (lambda: layer_costs(4, 8, 2, unit="flops"), ValueError, "unit must be 'mac'"),
        (lambda: layer_costs(0, 8, 2), ValueError, "n must be a positive integer"),
        (lambda: layer_costs(-3, 8, 2), ValueError, "n must be a positive integer"),
        (lambda: layer_costs("n", 8, 2), TypeError, "n must be a positive integer or a SymPy"),
        (lambda: layer_costs(4.0, 8, 2), TypeError, "n must be a positive integer or a SymPy"),
        (lambda: layer_costs(True, 8, 2), TypeError, "n must be"),
        (lambda: layer_costs(4, 8, 2, mlp_ratio=4.0), TypeError, "mlp_ratio"),
        (lambda: layer_costs(4, 8, 2, mlp_ratio=-1), ValueError, "mlp_ratio must be positive"),
        (lambda: layer_costs(4, sp.Integer(-8), 2), ValueError, "d must be a positive integer"),
        (lambda: activation_memory(4, 6, 4), ValueError, "not divisible"),
        (lambda: mha_param_count(512, bias="yes"), TypeError, "bias must be True or False"),
        (lambda: mha_param_count(512, h=3), ValueError, "not divisible by h = 3"),
        (lambda: model_costs(4, 8, 2, 0), ValueError, "layers must be a positive integer"),
        (lambda: model_costs(4, 8, 2, 2, vocab=2.5), TypeError, "vocab"),
        (lambda: attention_mlp_ratio(4, 8, reading="all"), ValueError, "reading must be one of"),
        (lambda: crossover("d"), TypeError, "d must be"),
    ],
)
def test_invalid_arguments_raise_clear_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
