"""The reference formulas: softmax and its Jacobian, attention against torch, MHA, norms, layers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from numeric import (
    TransformerLayerParams,
    attention,
    attention_backward,
    layer_norm,
    logsumexp,
    mha_sum_of_heads,
    multi_head_attention,
    post_norm_layer,
    pre_norm_layer,
    softmax,
    softmax_jacobian,
)

SEEDS = st.integers(0, 2**32 - 1)


@given(SEEDS, st.integers(1, 12), st.floats(-50, 50))
def test_softmax_is_a_probability_vector_invariant_to_adding_a_constant(seed, n, c):
    x = np.random.default_rng(seed).normal(scale=5, size=(3, n))
    p = softmax(x)
    assert (p >= 0).all()
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(softmax(x + c), p, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(logsumexp(x + c), logsumexp(x) + c, rtol=1e-12, atol=1e-12)


@given(SEEDS, st.integers(1, 8))
def test_softmax_jacobian_equals_finite_differences_of_softmax(seed, n):
    x = np.random.default_rng(seed).normal(size=n)
    h = 1e-6
    numeric = np.stack([(softmax(x + h * e) - softmax(x - h * e)) / (2 * h) for e in np.eye(n)], axis=1)
    np.testing.assert_allclose(softmax_jacobian(softmax(x)), numeric, atol=1e-9)


def test_softmax_jacobian_is_batched_symmetric_and_annihilates_constants():
    a = softmax(np.random.default_rng(0).normal(size=(4, 5)))
    j = softmax_jacobian(a)  # (4, 5, 5)
    assert j.shape == (4, 5, 5)
    np.testing.assert_allclose(j, j.swapaxes(-1, -2))
    np.testing.assert_allclose(j @ np.ones(5), 0, atol=1e-15)


def test_attention_equals_a_loop_over_queries_written_with_python_sums():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    expected = []
    for qi in q:
        w = [np.exp(qi @ kj / 2.0) for kj in k]  # scale 1/sqrt(4)
        expected.append(sum(wj * vj for wj, vj in zip(w, v)) / sum(w))
    np.testing.assert_allclose(attention(q, k, v), np.array(expected), rtol=1e-13)


def test_boolean_mask_and_additive_minus_inf_mask_agree():
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(2, 6, 4)), rng.normal(size=(2, 7, 4)), rng.normal(size=(2, 7, 3))
    mask = rng.random((6, 7)) < 0.6
    np.testing.assert_array_equal(
        attention(q, k, v, mask=mask), attention(q, k, v, mask=np.where(mask, 0.0, -np.inf))
    )


def _torch():
    return pytest.importorskip("torch", reason="torch is an optional peer")


@pytest.mark.parametrize(
    ("n_q", "n_k", "causal", "mask_kind"),
    [(5, 5, False, None), (4, 9, True, None), (9, 4, True, None), (6, 8, False, "bool"), (6, 8, False, "additive")],
)
def test_reference_matches_torch_scaled_dot_product_attention(n_q, n_k, causal, mask_kind):
    torch = _torch()
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(2, n_q, 4)), rng.normal(size=(2, n_k, 4)), rng.normal(size=(2, n_k, 3))
    mask = None
    if mask_kind == "bool":
        mask = rng.random((n_q, n_k)) < 0.7
        mask[:, 0] = True  # torch gives nan for fully masked rows; keep every row non-empty
    elif mask_kind == "additive":
        mask = rng.normal(size=(n_q, n_k))
    t = [torch.from_numpy(x).requires_grad_() for x in (q, k, v)]
    out = torch.nn.functional.scaled_dot_product_attention(
        *t, attn_mask=None if mask is None else torch.from_numpy(mask), is_causal=causal
    )
    np.testing.assert_allclose(attention(q, k, v, mask=mask, causal=causal), out.detach().numpy(), rtol=1e-12,
                               atol=1e-13)
    d_out = rng.normal(size=out.shape)
    out.backward(torch.from_numpy(d_out))
    for ours, theirs in zip(attention_backward(q, k, v, d_out, mask=mask, causal=causal), t):
        np.testing.assert_allclose(ours, theirs.grad.numpy(), rtol=1e-11, atol=1e-12)


@given(SEEDS, st.sampled_from([1, 2, 4]), st.booleans(), st.booleans())
def test_multi_head_attention_equals_the_sum_of_low_rank_heads(seed, heads, biases, causal):
    rng = np.random.default_rng(seed)
    d_model, n = 8, 5
    x = rng.normal(size=(2, n, d_model))
    w = [rng.normal(size=(d_model, d_model)) for _ in range(4)]
    b = {f"b_{c}": rng.normal(size=d_model) for c in "qkvo"} if biases else {}
    mask = rng.random((n, n)) < 0.8
    a = multi_head_attention(x, *w, heads=heads, mask=mask, causal=causal, **b)
    s = mha_sum_of_heads(x, *w, heads=heads, mask=mask, causal=causal, **b)
    np.testing.assert_allclose(a, s, rtol=1e-12, atol=1e-12)


def test_multi_head_attention_splits_features_in_order():
    # Head m must use features [m*d_h, (m+1)*d_h): run each head alone and concatenate.
    rng = np.random.default_rng(4)
    x, (w_q, w_k, w_v) = rng.normal(size=(5, 6)), rng.normal(size=(3, 6, 6))
    heads = [attention(x @ w_q[:, s], x @ w_k[:, s], x @ w_v[:, s]) for s in (slice(0, 3), slice(3, 6))]
    np.testing.assert_allclose(multi_head_attention(x, w_q, w_k, w_v, np.eye(6), heads=2), np.concatenate(heads, -1))


@given(SEEDS, st.floats(-3, 3), st.floats(0.1, 10))
def test_layer_norm_output_has_zero_mean_unit_variance_and_ignores_affine_input_changes(seed, shift, factor):
    x = np.random.default_rng(seed).normal(size=(4, 16))
    y = layer_norm(x, eps=0.0)
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(-1), 1, rtol=1e-12)
    np.testing.assert_allclose(layer_norm(factor * x + shift, eps=0.0), y, atol=1e-9)


def test_pre_norm_layer_is_the_identity_when_both_residual_branches_output_zero():
    p = TransformerLayerParams.random(8, 16, np.random.default_rng(5))
    zero = dict(vars(p), w_o=np.zeros((8, 8)), b_o=None, w_2=np.zeros((16, 8)), b_2=None)
    x = np.random.default_rng(6).normal(size=(2, 5, 8))
    np.testing.assert_array_equal(pre_norm_layer(x, TransformerLayerParams(**zero), heads=2), x)
    assert not np.allclose(pre_norm_layer(x, p, heads=2), x)


def test_post_norm_layer_ends_in_a_layer_norm_and_pre_norm_keeps_the_residual_stream():
    p = TransformerLayerParams.random(8, 16, np.random.default_rng(7))
    p = TransformerLayerParams(**dict(vars(p), ln_2_gamma=None, ln_2_beta=None))
    x = 10 + 3 * np.random.default_rng(8).normal(size=(5, 8))
    y = post_norm_layer(x, p, heads=4, causal=True)
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.std(-1), 1, rtol=1e-4)  # eps = 1e-5 shrinks the std slightly
    assert abs(pre_norm_layer(x, p, heads=4, causal=True).mean() - 10) < 3  # not renormalised


def test_causal_layer_output_at_position_i_ignores_later_positions():
    p = TransformerLayerParams.random(8, 16, np.random.default_rng(9))
    x = np.random.default_rng(10).normal(size=(6, 8))
    x2 = x.copy()
    x2[4:] += 1.0
    for layer in (pre_norm_layer, post_norm_layer):
        a, b = layer(x, p, heads=2, causal=True), layer(x2, p, heads=2, causal=True)
        np.testing.assert_allclose(a[:4], b[:4], rtol=1e-13)
        assert not np.allclose(a[4:], b[4:])
