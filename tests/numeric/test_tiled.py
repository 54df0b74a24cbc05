"""Oracle tests: the tiled kernel against the reference formulas (and finite differences).

Tolerances. float64: 1e-12 relative to the size of the compared quantity (outputs and gradients
are O(1) here), i.e. a few thousand ulps for sums over up to ~130 keys. float32/float16: the
FlashAttention protocol -- the kernel's error against a float64 reference may be at most twice
the error of the reference itself run in the same low precision, plus a rounding allowance for
shapes where the reference happens to be (nearly) exact (see `_assert_low_precision_ok`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from numeric import (
    attention,
    attention_backward,
    attention_scores,
    logsumexp,
    tiled_attention,
    tiled_attention_backward,
)

BLOCKS = st.sampled_from([1, 2, 3, 7, 16, 33, 64, 500])
CAUSAL = st.sampled_from([False, True, "bottom_right"])
# (batch of q, batch of k and v): equal, broadcast across heads (MQA-like), or none
BATCHES = st.sampled_from([((), ()), ((2,), (2,)), ((2, 3), (2, 3)), ((2, 3), (1, 3)), ((3,), ())])


def _rel_err(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def _assert_close(actual, expected, rtol=1e-12):
    assert actual.shape == expected.shape
    assert np.array_equal(np.isnan(actual), np.isnan(expected))
    err = _rel_err(np.nan_to_num(actual), np.nan_to_num(expected))
    assert err <= rtol, f"relative error {err:.3g} > {rtol:.3g}"


def _lse_close(actual, expected, rtol=1e-12):
    # -inf (fully masked rows) must match exactly; the finite entries to rtol.
    inf = np.isneginf(expected)
    assert np.array_equal(np.isneginf(actual), inf)
    _assert_close(actual[~inf], expected[~inf], rtol)


@st.composite
def problems(draw, dtype=np.float64, max_n=70):
    """A random attention problem: shapes, batch broadcasting, mask kind, causal alignment."""
    bq_shape, bk_shape = draw(BATCHES)
    n_q = draw(st.integers(1, max_n))
    n_k = draw(st.integers(1, max_n))
    d = draw(st.sampled_from([1, 4, 8]))
    d_v = draw(st.sampled_from([1, 3, 8]))
    seed = draw(st.integers(0, 2**32 - 1))
    mask_kind = draw(st.sampled_from([None, "bool", "additive", "key_padding"]))
    causal = draw(CAUSAL)
    return _make(seed, bq_shape, bk_shape, n_q, n_k, d, d_v, mask_kind, causal, dtype)


def _make(seed, bq_shape, bk_shape, n_q, n_k, d, d_v, mask_kind, causal, dtype=np.float64):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(*bq_shape, n_q, d)).astype(dtype)
    k = rng.normal(size=(*bk_shape, n_k, d)).astype(dtype)
    v = rng.normal(size=(*bk_shape, n_k, d_v)).astype(dtype)
    mask = None
    if mask_kind == "bool":
        mask = rng.random((n_q, n_k)) < 0.7
        mask[rng.integers(n_q)] = False  # an all-False row
        mask[:, rng.integers(n_k)] = False  # an all-False column
    elif mask_kind == "additive":
        mask = rng.normal(size=(n_q, n_k))
        mask[rng.random((n_q, n_k)) < 0.3] = -np.inf
        mask[rng.integers(n_q)] = -np.inf
    elif mask_kind == "key_padding":
        mask = rng.random((*bq_shape, 1, n_k)) < 0.8  # (..., 1, n_k) broadcast over queries
    return dict(q=q, k=k, v=v, mask=mask, causal=causal)


def _reference_lse(p):
    return logsumexp(attention_scores(p["q"], p["k"], mask=p["mask"], causal=p["causal"]))


# ---------------------------------------------------------------------------------------------
# float64: equal to the reference


@given(problems(), BLOCKS, BLOCKS)
@example(_make(0, (), (), 1, 1, 4, 4, None, False), 1, 1)
@example(_make(1, (), (), 37, 129, 8, 8, "bool", True), 16, 33)
@example(_make(2, (), (), 129, 37, 8, 8, "additive", "bottom_right"), 7, 500)
@example(_make(3, (2,), (2,), 129, 37, 8, 3, None, True), 1, 64)
def test_tiled_equals_reference_for_any_shape_mask_and_block_size(p, block_q, block_k):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from masked rows or -inf arithmetic
        out, lse = tiled_attention(**p, block_q=block_q, block_k=block_k)
    _assert_close(out, attention(**p))
    _lse_close(lse, _reference_lse(p))


@given(problems(max_n=40), BLOCKS, BLOCKS)
@example(_make(4, (), (), 37, 129, 4, 4, "bool", "bottom_right"), 16, 7)
@example(_make(5, (2, 3), (1, 3), 129, 37, 4, 3, "key_padding", True), 64, 1)
def test_tiled_gradients_equal_the_explicit_backward_formula(p, block_q, block_k):
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, lse = tiled_attention(**p, block_q=block_q, block_k=block_k)
        d_out = rng.normal(size=out.shape)
        grads = tiled_attention_backward(
            p["q"], p["k"], p["v"], out, lse, d_out,
            mask=p["mask"], causal=p["causal"], block_q=block_q, block_k=block_k,
        )  # fmt: skip
    expected = attention_backward(p["q"], p["k"], p["v"], d_out, mask=p["mask"], causal=p["causal"])
    for name, g, r, x in zip("qkv", grads, expected, (p["q"], p["k"], p["v"])):
        assert g.shape == x.shape, name
        _assert_close(g, r)


@pytest.mark.parametrize("causal", [False, True, "bottom_right"])
@pytest.mark.parametrize("mask_kind", [None, "bool", "additive"])
def test_tiled_gradients_equal_central_finite_differences(causal, mask_kind):
    p = _make(7, (2,), (2,), 4, 6, 3, 2, mask_kind, causal)
    w = np.random.default_rng(8).normal(size=(2, 4, 2))  # loss = sum(w * out)
    scale = 0.7  # a non-default scale exercises dQ = scale dS K

    def loss(q, k, v):
        return float(np.sum(w * tiled_attention(q, k, v, mask=p["mask"], causal=causal,
                                                 scale=scale, block_q=3, block_k=4)[0]))  # fmt: skip

    out, lse = tiled_attention(**p, scale=scale, block_q=3, block_k=4)
    grads = tiled_attention_backward(p["q"], p["k"], p["v"], out, lse, w, mask=p["mask"],
                                     causal=causal, scale=scale, block_q=3, block_k=4)  # fmt: skip
    h = 1e-6  # central differences: O(h^2) truncation + O(eps/h) rounding, ~1e-10 here
    for which, grad in enumerate(grads):
        args = [p["q"].copy(), p["k"].copy(), p["v"].copy()]
        numeric = np.zeros_like(args[which])
        for idx in np.ndindex(args[which].shape):
            x0 = args[which][idx]
            args[which][idx] = x0 + h
            up = loss(*args)
            args[which][idx] = x0 - h
            down = loss(*args)
            args[which][idx] = x0
            numeric[idx] = (up - down) / (2 * h)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_reference_backward_equals_central_finite_differences():
    p = _make(9, (), (), 3, 5, 2, 2, "bool", True)
    w = np.random.default_rng(10).normal(size=(3, 2))
    grads = attention_backward(p["q"], p["k"], p["v"], w, mask=p["mask"], causal=True)
    h = 1e-6
    for which, grad in enumerate(grads):
        args = [p["q"].copy(), p["k"].copy(), p["v"].copy()]
        numeric = np.zeros_like(args[which])
        for idx in np.ndindex(args[which].shape):
            x0 = args[which][idx]
            vals = []
            for step in (h, -h):
                args[which][idx] = x0 + step
                vals.append(np.sum(w * attention(*args, mask=p["mask"], causal=True)))
            args[which][idx] = x0
            numeric[idx] = (vals[0] - vals[1]) / (2 * h)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------------------------------------
# low precision: the FlashAttention error protocol


def _assert_low_precision_ok(low, ref_low, ref64, allowance):
    # Error of the kernel in low precision <= 2 x the reference's own low-precision error,
    # plus `allowance` (absolute, outputs are O(1)): for some shapes (one key, say) the
    # reference is exact while the kernel's different summation order (row sums from the P V
    # matmul, rescaling by exp(m - m')) costs a few ulps, so 2 x 0 would demand bit equality.
    err = float(np.max(np.abs(low.astype(np.float64) - ref64), initial=0.0))
    ref_err = float(np.max(np.abs(ref_low.astype(np.float64) - ref64), initial=0.0))
    assert err <= 2 * ref_err + allowance, f"kernel error {err:.3g}, reference error {ref_err:.3g}"


@given(problems(dtype=np.float32), BLOCKS, BLOCKS)
@example(_make(11, (), (), 129, 37, 8, 8, "bool", True, dtype=np.float32), 16, 7)
def test_tiled_float32_error_is_at_most_twice_the_reference_float32_error(p, block_q, block_k):
    p64 = {k: (v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype != bool else v)
           for k, v in p.items()}  # fmt: skip
    out, lse = tiled_attention(**p, block_q=block_q, block_k=block_k)
    assert out.dtype == np.float32 and lse.dtype == np.float32
    ref64 = attention(**p64)
    # 1e-6 absolute ~ 8 float32 ulps at magnitude 1.
    _assert_low_precision_ok(out, attention(**p), ref64, allowance=1e-6)

    rng = np.random.default_rng(0)
    d_out = rng.normal(size=out.shape).astype(np.float32)
    grads = tiled_attention_backward(p["q"], p["k"], p["v"], out, lse, d_out, mask=p["mask"],
                                     causal=p["causal"], block_q=block_q, block_k=block_k)  # fmt: skip
    ref32 = attention_backward(p["q"], p["k"], p["v"], d_out, mask=p["mask"], causal=p["causal"])
    refs64 = attention_backward(p64["q"], p64["k"], p64["v"], d_out.astype(np.float64),
                                mask=p["mask"], causal=p["causal"])  # fmt: skip
    for g, r32, r64 in zip(grads, ref32, refs64):
        assert g.dtype == np.float32
        # Gradients sum over up to 70 rows/keys of O(1) terms: allowance scaled accordingly.
        _assert_low_precision_ok(g, r32, r64, allowance=1e-6 * max(1.0, float(np.abs(r64).max())))


def test_float16_inputs_accumulate_in_float32_and_return_float16():
    p = _make(12, (2,), (2,), 100, 300, 16, 16, "bool", True, dtype=np.float16)
    p64 = {k: (v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype != bool else v)
           for k, v in p.items()}  # fmt: skip
    out, lse = tiled_attention(**p, block_q=32, block_k=64)
    assert out.dtype == np.float16 and lse.dtype == np.float32
    ref16 = attention(**p)
    assert ref16.dtype == np.float16
    # 1e-3 ~ one float16 ulp at magnitude 1 (eps16 = 9.8e-4): the final cast rounds both.
    _assert_low_precision_ok(out, ref16, attention(**p64), allowance=1e-3)
    grads = tiled_attention_backward(p["q"], p["k"], p["v"], out, lse, np.ones_like(out),
                                     mask=p["mask"], causal=True, block_q=32, block_k=64)  # fmt: skip
    assert all(g.dtype == np.float16 and np.isfinite(g).all() for g in grads)


# ---------------------------------------------------------------------------------------------
# robustness


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scores_of_magnitude_1e4_neither_overflow_nor_produce_nan(dtype):
    rng = np.random.default_rng(13)
    q = (100 * rng.normal(size=(2, 50, 8))).astype(dtype)  # scores ~ 1e4 with scale 1
    k = (100 * rng.normal(size=(2, 70, 8))).astype(dtype)
    v = rng.normal(size=(2, 70, 4)).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, lse = tiled_attention(q, k, v, scale=1.0, block_q=16, block_k=16)
        grads = tiled_attention_backward(q, k, v, out, lse, np.ones_like(out), scale=1.0,
                                         block_q=16, block_k=16)  # fmt: skip
    assert np.isfinite(out).all() and np.isfinite(lse).all()
    assert np.abs(lse).max() > 1e3  # the scores really were large
    assert all(np.isfinite(g).all() for g in grads)
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    expected = attention(q64, k64, v64, scale=1.0)
    # Softmax at this temperature is nearly one-hot; float32 rounding of the scores (~1e-3
    # absolute at 1e4) may change the weights, float64 must agree tightly.
    np.testing.assert_allclose(out, expected, atol=1e-9 if dtype == np.float64 else 0.1)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("masking", ["bool", "additive", "key_padding", "causal"])
def test_nan_or_inf_in_masked_out_keys_and_values_never_reaches_the_output(bad, masking):
    rng = np.random.default_rng(14)
    n_q, n_k = 9, 13
    q, k, v = rng.normal(size=(n_q, 4)), rng.normal(size=(n_k, 4)), rng.normal(size=(n_k, 3))
    hidden = np.array([2, 7, 12])  # keys no query may see (for "causal": keys >= n_q)
    if masking == "causal":
        hidden = np.arange(n_q, n_k)
    visible = np.setdiff1d(np.arange(n_k), hidden)
    mask, causal = None, False
    allowed = np.ones((n_q, n_k), bool)
    allowed[:, hidden] = False
    if masking == "bool":
        mask = allowed
    elif masking == "additive":
        mask = np.where(allowed, 0.0, -np.inf)
    elif masking == "key_padding":
        mask = allowed[:1]  # (1, n_k)
    else:
        causal = True
    k_bad, v_bad = k.copy(), v.copy()
    k_bad[hidden, 1] = bad
    v_bad[hidden] = bad
    expected = attention(q, k, v, mask=mask, causal=causal)
    out, lse = tiled_attention(q, k_bad, v_bad, mask=mask, causal=causal, block_q=4, block_k=5)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(attention(q, k_bad, v_bad, mask=mask, causal=causal), expected,
                               rtol=1e-12, atol=1e-14)  # fmt: skip
    if masking != "causal":
        np.testing.assert_allclose(out, attention(q, k[visible], v[visible]), rtol=1e-12)
    dq, dk, dv = tiled_attention_backward(q, k_bad, v_bad, out, lse, np.ones_like(out), mask=mask,
                                          causal=causal, block_q=4, block_k=5)  # fmt: skip
    assert np.isfinite(dq).all() and np.isfinite(dk).all() and np.isfinite(dv).all()
    assert not dk[hidden].any() and not dv[hidden].any()


def test_fully_masked_rows_give_zero_output_minus_inf_lse_zero_gradient_and_no_warning():
    rng = np.random.default_rng(15)
    q, k, v = rng.normal(size=(2, 6, 4)), rng.normal(size=(2, 8, 4)), rng.normal(size=(2, 8, 3))
    mask = rng.random((2, 6, 8)) < 0.5
    mask[:, [1, 4]] = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, lse = tiled_attention(q, k, v, mask=mask, block_q=4, block_k=3)
        dq, dk, dv = tiled_attention_backward(q, k, v, out, lse, np.ones_like(out), mask=mask,
                                              block_q=4, block_k=3)  # fmt: skip
        ref = attention(q, k, v, mask=mask)
    assert not out[:, [1, 4]].any() and not ref[:, [1, 4]].any()
    assert np.isneginf(lse[:, [1, 4]]).all() and np.isfinite(np.delete(lse, [1, 4], axis=1)).all()
    assert not dq[:, [1, 4]].any()
    assert np.isfinite(dk).all() and np.isfinite(dv).all()


def test_bottom_right_causal_with_more_queries_than_keys_masks_the_leading_rows():
    rng = np.random.default_rng(16)
    q, k, v = rng.normal(size=(7, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 2))
    out, lse = tiled_attention(q, k, v, causal="bottom_right", block_q=2, block_k=2)
    # query i sees keys j <= i + 3 - 7: rows 0..3 see nothing, row 4 sees key 0 only.
    assert not out[:4].any() and np.isneginf(lse[:4]).all()
    np.testing.assert_allclose(out[4], v[0], rtol=1e-15)
    np.testing.assert_allclose(out[6], attention(q[6:], k, v)[0], rtol=1e-12)


def test_top_left_and_bottom_right_causal_coincide_for_square_problems():
    p = _make(17, (2,), (2,), 20, 20, 4, 4, None, True)
    a = tiled_attention(**p, block_q=6, block_k=7)[0]
    p["causal"] = "bottom_right"
    np.testing.assert_array_equal(a, tiled_attention(**p, block_q=6, block_k=7)[0])


def test_nan_in_an_attended_query_or_value_propagates_to_the_rows_that_use_it():
    rng = np.random.default_rng(18)
    q, k, v = rng.normal(size=(5, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    q[2, 0] = np.nan
    out, lse = tiled_attention(q, k, v, block_q=2, block_k=4)
    assert np.isnan(out[2]).all() and np.isnan(lse[2])
    assert np.isfinite(np.delete(out, 2, axis=0)).all()
    q[2, 0] = 0.0
    v[3, 1] = np.nan  # key 3 is visible to every query
    out, _ = tiled_attention(q, k, v, block_q=2, block_k=4)
    assert np.isnan(out[:, 1]).all()
    np.testing.assert_array_equal(np.isnan(out), np.isnan(attention(q, k, v)))


def test_tiled_accepts_inputs_it_does_not_modify():
    p = _make(19, (2,), (2,), 10, 12, 4, 4, "additive", True)
    before = {k: v.copy() for k, v in p.items() if isinstance(v, np.ndarray)}
    out, lse = tiled_attention(**p, block_q=3, block_k=5)
    tiled_attention_backward(p["q"], p["k"], p["v"], out, lse, np.ones_like(out), mask=p["mask"],
                             causal=True, block_q=3, block_k=5)  # fmt: skip
    for name, x in before.items():
        np.testing.assert_array_equal(p[name], x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mask_kind", [None, "bool", "causal"])
def test_rows_mixing_bounded_and_unbounded_tiles_equal_the_reference(dtype, mask_kind):
    # Key blocks alternate between small norms (|S| <= SAFE_LOGIT: exponentiated without the
    # max shift) and large ones (the exact max-shift path), so every row's running statistics
    # switch between the two shifts several times, in both directions.
    rng = np.random.default_rng(20)
    n_q, n_k, bk = 40, 96, 16
    q = rng.normal(size=(2, n_q, 8))
    k = rng.normal(size=(2, n_k, 8))
    v = rng.normal(size=(2, n_k, 3))
    big = (np.arange(n_k) // bk) % 2 == 1  # blocks 1, 3, 5
    k[:, big] *= 30.0  # scores up to ~ +-300: exp would overflow without the shift
    k[:, :bk] *= 0.05  # the first block: scores ~ 0, far below the later maxima
    mask = rng.random((n_q, n_k)) < 0.8 if mask_kind == "bool" else None
    causal = mask_kind == "causal"
    args = dict(mask=mask, causal=causal)
    out, lse = tiled_attention(q.astype(dtype), k.astype(dtype), v.astype(dtype), block_q=8, block_k=bk, **args)
    ref64 = attention(q, k, v, **args)
    if dtype == np.float64:
        _assert_close(out, ref64)
        _lse_close(lse, logsumexp(attention_scores(q, k, **args)))
    else:
        ref32 = attention(q.astype(dtype), k.astype(dtype), v.astype(dtype), **args)
        _assert_low_precision_ok(out, ref32, ref64, allowance=1e-6)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_scores_at_the_edge_of_the_shortcut_bound_keep_full_relative_precision(sign):
    # Every score within 10% of +-SAFE_LOGIT (exp(S) ~ 5e8 or ~ 2e-9): the shortcut applies
    # and must still match the reference to float64 precision.
    from numeric.tiled import SAFE_LOGIT

    rng = np.random.default_rng(21)
    u = rng.normal(size=4)
    u /= np.linalg.norm(u)
    q = np.tile(u, (30, 1))  # (30, 4)  unit queries, all along u
    k = sign * rng.uniform(0.9, 0.999, size=(50, 1)) * SAFE_LOGIT * u  # (50, 4)  S = +-(0.9..0.999) T
    v = rng.normal(size=(50, 2))
    out, lse = tiled_attention(q, k, v, scale=1.0, block_q=7, block_k=9)
    _assert_close(out, attention(q, k, v, scale=1.0))
    _lse_close(lse, logsumexp(attention_scores(q, k, scale=1.0)))
    assert np.all(np.abs(lse - sign * SAFE_LOGIT) < 0.1 * SAFE_LOGIT + np.log(50))
