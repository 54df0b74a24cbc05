"""Conformance: correct implementations pass; each broken one is caught by the property it
violates, with a shrunk counterexample, and by no unrelated property."""

import json

import numpy as np
import pytest

import numeric
from symattn import conformance
from symattn.cli import main

from . import broken_attention as broken

EXAMPLES = 25


def test_reference_attention_passes_every_property():
    r = conformance.check(numeric.attention, examples=EXAMPLES)
    assert r.passed, r.table()
    assert r.by_name("fully_masked_rows").detail.endswith("zeros (symattn's convention)")


@pytest.mark.parametrize("causal", ["top_left", "bottom_right"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_tiled_kernel_passes_every_property(causal, dtype):
    def tiled(q, k, v, **opts):
        return numeric.tiled_attention(q, k, v, block_q=3, block_k=2, **opts)[0]

    r = conformance.check(tiled, causal=causal, mask=True, dtype=dtype, examples=EXAMPLES)
    assert r.passed, r.table()
    assert r.by_name("causal_no_future").status == "pass"


# (implementation, options, the property it must fail, properties that must still pass)
GALLERY = [
    (broken.no_scaling, {}, "default_scale", ["convex_hull", "key_value_permutation", "query_permutation",
                                              "large_logits_finite"]),
    (broken.scale_one_over_d, {}, "default_scale", ["convex_hull", "key_value_permutation", "query_permutation",
                                                    "large_logits_finite"]),
    (broken.softmax_wrong_axis, {}, "convex_hull", ["key_value_permutation", "query_permutation",
                                                    "large_logits_finite"]),
    (broken.causal_off_by_one, {"causal": True}, "causal_no_future", ["convex_hull", "large_logits_finite",
                                                                      "float16_finite"]),
    (broken.no_max_subtraction, {}, "large_logits_finite", ["agrees_with_reference", "convex_hull",
                                                            "key_value_permutation", "query_permutation",
                                                            "default_scale"]),
    (broken.keys_permuted_without_values, {}, "key_value_permutation", ["convex_hull", "query_permutation",
                                                                        "large_logits_finite"]),
]


@pytest.mark.parametrize("fn, options, violated, unrelated", GALLERY, ids=[g[0].__name__ for g in GALLERY])
def test_broken_implementation_is_caught_by_its_property_only(fn, options, violated, unrelated):
    r = conformance.check(fn, examples=EXAMPLES, **options)
    assert not r.passed
    bad = r.by_name(violated)
    assert bad.status == "fail", r.table()
    assert bad.counterexample and "shapes" in bad.counterexample
    for name in unrelated:
        assert r.by_name(name).status == "pass", f"{name} should not fail for {fn.__name__}:\n{r.table()}"


def test_counterexamples_are_shrunk():
    r = conformance.check(broken.keys_permuted_without_values, examples=EXAMPLES)
    cex = r.by_name("key_value_permutation").counterexample
    # minimal: one batch, one head, one query of width 1, a handful of keys (a roll of one key is the
    # identity, and the key permutation drawn for two keys may be the identity too), seed 0
    assert "q (1, 1, 1, 1)" in cex and "default_rng(0)" in cex, cex
    n_k = int(cex.split("k (1, 1, ")[1].split(",")[0])
    assert 2 <= n_k <= 3, cex


def test_correct_gallery_baseline_passes():
    assert conformance.check(broken.correct, examples=EXAMPLES).passed
    assert conformance.check(broken.correct, causal=True, examples=EXAMPLES).passed


def test_rope_property_uses_the_given_function():
    ok = conformance.check(numeric.attention, examples=10, rope=numeric.rope)
    assert ok.by_name("rope_relative").status == "pass"

    def absolute_positions(x, positions):  # adds the position: logits depend on absolute position
        return x + positions[:, None]

    bad = conformance.check(numeric.attention, examples=10, rope=absolute_positions)
    assert bad.by_name("rope_relative").status == "fail"


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"causal": "sideways"}, ValueError, "causal must be"),
        ({"dtype": "int8"}, ValueError, "dtype must be one of"),
        ({"examples": 0}, ValueError, "examples must be a positive integer"),
    ],
)
def test_invalid_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        conformance.check(numeric.attention, **kwargs)


@pytest.mark.parametrize("spec", ["numeric", "numeric:", ":attention", "numeric:no_such_function"])
def test_bad_target_specs_are_rejected(spec):
    with pytest.raises(ValueError):
        conformance.load_callable(spec)


def test_cli_conform_passes_for_numeric_attention_and_emits_json(capsys):
    assert main(["conform", "numeric:attention", "--examples", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is True
    assert {p["property"] for p in data["properties"]} == set(conformance.PROPERTIES)


def test_cli_conform_fails_for_a_broken_implementation(capsys):
    code = main(["conform", "tests.symattn.broken_attention:no_scaling", "--examples", "10"])
    assert code == 1
    out = capsys.readouterr().out
    assert "default_scale" in out and "FAIL" in out


def test_cli_conform_bad_target_is_a_usage_error(capsys):
    assert main(["conform", "numeric:nope"]) == 2
    assert "no attribute" in capsys.readouterr().err


def test_torch_sdpa_through_the_adapter_is_reported_honestly():
    torch = pytest.importorskip("torch")  # optional peer: torch is never required
    fn = torch.nn.functional.scaled_dot_product_attention
    r = conformance.check(fn, dtype="float32", examples=EXAMPLES, adapter=conformance.torch_adapter())
    assert r.by_name("convex_hull").status == "pass"
    assert r.by_name("default_scale").status == "pass"
    assert r.by_name("key_value_permutation").status == "pass"
    masked = r.by_name("fully_masked_rows").detail
    assert "masked out returns" in masked or "raises" in masked
    causal = conformance.check(fn, causal=True, dtype="float32", examples=EXAMPLES, adapter=conformance.torch_adapter())
    assert causal.by_name("causal_no_future").status == "pass"


def test_bnhd_layout_adapter_transposes():
    def bnhd_attention(q, k, v, **opts):  # an implementation in (batch, n, heads, d) layout
        t = lambda a: np.swapaxes(a, 1, 2)  # noqa: E731
        return t(numeric.attention(t(q), t(k), t(v), **opts))

    r = conformance.check(bnhd_attention, examples=10, adapter=conformance.Adapter(layout="bnhd"))
    assert r.passed, r.table()
    wrong = conformance.check(bnhd_attention, examples=10)  # called with the wrong layout
    assert not wrong.passed
