"""Peers through the adapters, when installed: torch SDPA and JAX's dot_product_attention.

What they do on fully masked rows, empty sequences and NaN padding is measured by the reported
properties (see the README); these tests assert the properties they pass."""

import pytest

from symattn import conformance

MAX_N = 96
EXAMPLES = 10
STRUCTURE = ("convex_hull", "key_value_permutation", "query_permutation", "default_scale", "deterministic")


def statuses(r):
    return {p.name: p.status for p in r.properties}


def test_torch_sdpa_forward_and_autograd_with_bool_and_float_masks():
    torch = pytest.importorskip("torch")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for mask in ("bool", "float"):
        r = conformance.check(sdpa, dtype="float64", mask=mask, backward="autograd", max_n=MAX_N, examples=EXAMPLES,
                              adapter=conformance.torch_adapter())
        s = statuses(r)
        assert all(s[name] == "pass" for name in STRUCTURE + ("agrees_with_reference",
                                                              "backward_agrees_with_reference")), r.table()
        assert r.by_name("fully_masked_rows").status == "reported"


def test_torch_sdpa_causal_top_left_with_enable_gqa_and_dropout():
    torch = pytest.importorskip("torch")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    r = conformance.check(sdpa, dtype="float32", causal=True, kv_heads=True, dropout=0.2, backward="autograd",
                          max_n=MAX_N, examples=EXAMPLES, adapter=conformance.torch_adapter())
    s = statuses(r)
    assert s["causal_no_future"] == s["gqa_agrees_with_reference"] == "pass", r.table()
    assert s["dropout_rate"] == s["dropout_zero_is_identity"] == "pass", r.table()
    with pytest.raises(ValueError, match="top-left"):
        conformance.check(sdpa, causal="bottom_right", adapter=conformance.torch_adapter())


def test_torch_bfloat16_is_compared_with_the_same_protocol():
    torch = pytest.importorskip("torch")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    r = conformance.check(sdpa, dtype="bfloat16", max_n=MAX_N, examples=EXAMPLES,
                          adapter=conformance.torch_adapter(dtype="bfloat16"))
    assert r.by_name("agrees_with_reference").status == "pass", r.table()
    assert r.by_name("float16_finite").status == "skipped"


def test_torch_adapter_refuses_a_device_that_is_absent():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(ValueError, match="cuda"):
        conformance.torch_adapter(device="cuda")


def test_jax_dot_product_attention_forward_and_vjp_with_value_dim_same():
    jax = pytest.importorskip("jax")
    r = conformance.check(jax.nn.dot_product_attention, dtype="float32", dtypes=["float32"], value_dim="same",
                          mask=True, backward="autograd", max_n=64, examples=8, adapter=conformance.jax_adapter())
    s = statuses(r)
    assert all(s[name] == "pass" for name in STRUCTURE + ("agrees_with_reference",
                                                          "backward_agrees_with_reference")), r.table()
    with pytest.raises(ValueError, match="jax_enable_x64"):
        conformance.check(jax.nn.dot_product_attention, dtype="float64", adapter=conformance.jax_adapter())
