"""The attention variants (GQA, windows, soft-capping, ALiBi, key lengths, decoding, empty inputs).

Oracle: :func:`formula`, written here from the definitions alone -- heads repeated explicitly,
the band, the bias and the padding built entry by entry from their inequalities -- in float64.
Both :func:`numeric.attention` and :func:`numeric.tiled_attention` must equal it to ~1e-12 for
random shapes, block sizes, thread counts and every combination of variants; gradients are
checked against the explicit backward (tiled) and central finite differences (reference), and
GQA against torch's ``scaled_dot_product_attention(enable_gqa=True)``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import numeric.tiled
from numeric import (
    alibi_slopes,
    attention,
    attention_backward,
    decode_step,
    logsumexp,
    attention_scores,
    tiled_attention,
    tiled_attention_backward,
)


@pytest.fixture(autouse=True)
def _threads_even_for_tiny_problems(monkeypatch):
    # The pool normally starts only above MIN_PARALLEL_FLOPS; here every size exercises it.
    monkeypatch.setattr(numeric.tiled, "MIN_PARALLEL_FLOPS", 0)


# ---------------------------------------------------------------------------------------------
# the oracle


def formula(q, k, v, *, mask=None, causal=False, scale=None, window=None, softcap=None,
            alibi_slopes=None, key_lengths=None, align=None):  # fmt: skip
    """Attention of 4-D ``(B, h, n, d)`` inputs, from the definitions, one entry at a time where it matters."""
    b, h, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    g = h // h_kv
    k = np.repeat(k, g, axis=1)  # query head m uses key/value head m // g
    v = np.repeat(v, g, axis=1)
    scale = 1 / math.sqrt(d) if scale is None else scale
    bottom_right = causal == "bottom_right" or align == "bottom_right"
    offset = n_k - n_q if bottom_right else 0
    s = np.einsum("bhid,bhjd->bhij", q, k) * scale
    if softcap is not None:
        s = softcap * np.tanh(s / softcap)
    allowed = np.ones((b, h, n_q, n_k), bool)
    bias = np.zeros((b, h, n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            pos = i + offset  # query i's aligned position
            if causal and j > pos:
                allowed[..., i, j] = False
            if window is not None:
                left, right = window
                if left is not None and j < pos - left:
                    allowed[..., i, j] = False
                if right is not None and j > pos + right:
                    allowed[..., i, j] = False
            if alibi_slopes is not None:
                for m in range(h):
                    bias[:, m, i, j] = -alibi_slopes[m] * abs(pos - j)
    if key_lengths is not None:
        for batch, length in enumerate(key_lengths):
            allowed[batch, :, :, length:] = False
    if mask is not None:
        mask = np.broadcast_to(mask, allowed.shape)
        if mask.dtype == bool:
            allowed &= mask
        else:
            allowed &= mask != -np.inf
            bias = bias + np.where(mask == -np.inf, 0, mask)
    s = np.where(allowed, s + bias, -np.inf)
    out = np.zeros((b, h, n_q, v.shape[-1]))
    lse = np.full((b, h, n_q), -np.inf)
    for idx in np.ndindex(b, h, n_q):
        row = s[idx]
        if np.isfinite(row).any():
            w = np.exp(row - row[np.isfinite(row)].max())
            out[idx] = w @ np.where(allowed[idx][:, None], v[idx[:2]], 0) / w.sum()
            lse[idx] = np.log(w.sum()) + row[np.isfinite(row)].max()
    return out, lse


def _rel_err(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def _close(actual, expected, rtol=1e-12):
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert not np.isnan(actual).any()
    err = _rel_err(actual, expected)
    assert err <= rtol, f"relative error {err:.3g} > {rtol:.3g}"


def _lse_close(actual, expected, rtol=1e-12):
    inf = np.isneginf(expected)
    assert np.array_equal(np.isneginf(actual), inf)
    _close(actual[~inf], expected[~inf], rtol)


# ---------------------------------------------------------------------------------------------
# random problems with every variant


@st.composite
def problems(draw, max_n=20):
    """A 4-D problem with a random subset of the variants (all combinable)."""
    b = draw(st.sampled_from([1, 2]))
    h_kv = draw(st.sampled_from([1, 2]))
    g = draw(st.sampled_from([1, 3]))
    h = h_kv * g
    n_q = draw(st.integers(0, max_n))
    n_k = draw(st.integers(0, max_n))
    d = draw(st.sampled_from([1, 3, 8]))
    d_v = draw(st.sampled_from([1, 4]))
    temperature = draw(st.sampled_from([1.0, 12.0]))  # 12: scores beyond SAFE_LOGIT, the exact path
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    q = temperature * rng.normal(size=(b, h, n_q, d))
    k = rng.normal(size=(b, h_kv, n_k, d))
    v = rng.normal(size=(b, h_kv, n_k, d_v))
    kw = {}
    kw["causal"] = draw(st.sampled_from([False, True, "bottom_right"]))
    align = draw(st.sampled_from([None, "top_left", "bottom_right"]))
    if not (kw["causal"] == "bottom_right" and align == "top_left"):
        kw["align"] = align
    if draw(st.booleans()):
        side = st.one_of(st.none(), st.integers(0, 6))
        kw["window"] = (draw(side), draw(side))
    kw["softcap"] = draw(st.sampled_from([None, None, 0.7, 5.0, 50.0]))
    if draw(st.booleans()):
        kw["alibi_slopes"] = alibi_slopes(h) * draw(st.sampled_from([1.0, 8.0]))
    if draw(st.booleans()):
        kw["key_lengths"] = rng.integers(0, n_k + 1, size=b)
    mask_kind = draw(st.sampled_from([None, None, "bool", "float"]))
    if mask_kind == "bool":
        kw["mask"] = rng.random((n_q, n_k)) < 0.8
    elif mask_kind == "float":
        m = rng.normal(size=(h, n_q, n_k))
        m[rng.random(m.shape) < 0.2] = -np.inf
        kw["mask"] = m
    return q, k, v, kw


BLOCKS = st.sampled_from([1, 2, 3, 7, 16, 64])
THREADS = st.sampled_from([1, 2, 3])


@given(problems(), BLOCKS, BLOCKS, THREADS)
def test_reference_and_tiled_equal_the_formula_for_every_combination_of_variants(p, block_q, block_k, threads):
    q, k, v, kw = p
    expected, expected_lse = formula(q, k, v, **kw)
    _close(attention(q, k, v, **kw), expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from masked rows or -inf arithmetic
        out, lse = tiled_attention(q, k, v, **kw, block_q=block_q, block_k=block_k, threads=threads)
    _close(out, expected)
    _lse_close(lse, expected_lse)


@given(problems(max_n=14), BLOCKS, BLOCKS, THREADS)
def test_tiled_gradients_equal_the_explicit_backward_for_every_combination(p, block_q, block_k, threads):
    q, k, v, kw = p
    d_out = np.random.default_rng(1).normal(size=(*q.shape[:-1], v.shape[-1]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, lse = tiled_attention(q, k, v, **kw, block_q=block_q, block_k=block_k, threads=threads)
        grads = tiled_attention_backward(q, k, v, out, lse, d_out, **kw, block_q=block_q,
                                         block_k=block_k, threads=threads)  # fmt: skip
    expected = attention_backward(q, k, v, d_out, **kw)
    for g, r, x in zip(grads, expected, (q, k, v)):
        assert g.shape == x.shape
        _close(g, r)


VARIANTS = {
    "gqa": {},
    "window": dict(window=(2, 1)),
    "window bottom-right": dict(window=(1, None), align="bottom_right"),
    "softcap": dict(softcap=0.8),
    "alibi": dict(alibi_slopes=np.array([0.5, 0.25, 0.3, 0.1])),
    "key lengths": dict(key_lengths=np.array([4, 2])),
    "everything": dict(causal="bottom_right", window=(3, None), softcap=1.5,
                       alibi_slopes=np.array([0.5, 0.25, 0.3, 0.1]), key_lengths=np.array([5, 3]),
                       mask=np.random.default_rng(3).normal(size=(4, 1, 5))),  # fmt: skip
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_gradients_of_each_variant_equal_central_finite_differences(name):
    kw = VARIANTS[name]
    rng = np.random.default_rng(4)
    q = rng.normal(size=(2, 4, 3, 3))  # 4 query heads on 2 key/value heads
    k, v = rng.normal(size=(2, 2, 5, 3)), rng.normal(size=(2, 2, 5, 2))
    w = rng.normal(size=(2, 4, 3, 2))  # loss = sum(w * out)
    scale = 1.3
    grads = attention_backward(q, k, v, w, scale=scale, **kw)
    out, lse = tiled_attention(q, k, v, scale=scale, **kw, block_q=2, block_k=2, threads=2)
    tiled = tiled_attention_backward(q, k, v, out, lse, w, scale=scale, **kw, block_q=2, block_k=2, threads=2)
    h = 1e-6  # central differences: O(h^2) truncation + O(eps/h) rounding, ~1e-10 here
    for which, (grad, grad_tiled) in enumerate(zip(grads, tiled)):
        args = [q.copy(), k.copy(), v.copy()]
        numeric_grad = np.zeros_like(args[which])
        for idx in np.ndindex(args[which].shape):
            x0 = args[which][idx]
            vals = []
            for step in (h, -h):
                args[which][idx] = x0 + step
                vals.append(np.sum(w * attention(*args, scale=scale, **kw)))
            args[which][idx] = x0
            numeric_grad[idx] = (vals[0] - vals[1]) / (2 * h)
        np.testing.assert_allclose(grad, numeric_grad, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(grad_tiled, numeric_grad, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------------------------------------
# each variant against its definition


def _qkv(seed, b=2, h=6, h_kv=3, n_q=9, n_k=11, d=4, d_v=3):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(b, h, n_q, d)), rng.normal(size=(b, h_kv, n_k, d)),
            rng.normal(size=(b, h_kv, n_k, d_v)))  # fmt: skip


@pytest.mark.parametrize("h_kv", [1, 2, 3, 6])
def test_grouped_query_attention_equals_attention_with_explicitly_repeated_heads(h_kv):
    q, k, v = _qkv(5, h=6, h_kv=h_kv)
    g = 6 // h_kv
    k_rep, v_rep = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)  # head m -> kv head m // g
    d_out = np.random.default_rng(6).normal(size=(2, 6, 9, 3))
    expected = attention(q, k_rep, v_rep, causal=True)
    dq_rep, dk_rep, dv_rep = attention_backward(q, k_rep, v_rep, d_out, causal=True)
    # the gradient of a shared head is the sum over the query heads of its group
    dk_sum = dk_rep.reshape(2, h_kv, g, 11, 4).sum(axis=2)
    dv_sum = dv_rep.reshape(2, h_kv, g, 11, 3).sum(axis=2)
    _close(attention(q, k, v, causal=True), expected)
    out, lse = tiled_attention(q, k, v, causal=True, block_q=4, block_k=3, threads=2)
    _close(out, expected)
    for grads in (
        attention_backward(q, k, v, d_out, causal=True),
        tiled_attention_backward(q, k, v, out, lse, d_out, causal=True, block_q=4, block_k=3, threads=2),
    ):
        _close(grads[0], dq_rep)
        _close(grads[1], dk_sum)
        _close(grads[2], dv_sum)


@pytest.mark.parametrize("causal", [False, True])
def test_grouped_query_attention_matches_torch_enable_gqa(causal):
    torch = pytest.importorskip("torch", reason="torch is an optional peer")
    q, k, v = _qkv(7, h=8, h_kv=2, n_q=10, n_k=10)
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(x) for x in (q, k, v)), is_causal=causal, enable_gqa=True
    ).numpy()
    _close(attention(q, k, v, causal=causal), expected)
    _close(tiled_attention(q, k, v, causal=causal, block_q=3, block_k=4, threads=2)[0], expected)

    tq, tk, tv = (torch.from_numpy(x).requires_grad_() for x in (q, k, v))
    d_out = np.random.default_rng(8).normal(size=(2, 8, 10, 3))
    o = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal, enable_gqa=True)
    o.backward(torch.from_numpy(d_out))
    out, lse = tiled_attention(q, k, v, causal=causal, block_q=3, block_k=4)
    grads = tiled_attention_backward(q, k, v, out, lse, d_out, causal=causal, block_q=3, block_k=4)
    for g, t in zip(grads, (tq, tk, tv)):
        _close(g, t.grad.numpy())


@pytest.mark.parametrize("align", ["top_left", "bottom_right"])
@pytest.mark.parametrize("window", [(0, 0), (2, 3), (None, 1), (4, None), (20, 20), (None, None)])
def test_window_equals_an_explicit_band_mask(window, align):
    q, k, v = _qkv(9, n_q=7, n_k=13)
    offset = 13 - 7 if align == "bottom_right" else 0
    i, j = np.arange(7)[:, None] + offset, np.arange(13)[None, :]
    left, right = (np.inf if w is None else w for w in window)
    band = (i - left <= j) & (j <= i + right)  # (7, 13)
    expected = attention(q, k, v, mask=band)
    _close(attention(q, k, v, window=window, align=align), expected)
    for bq, bk in ((2, 3), (7, 13), (1, 5)):
        _close(tiled_attention(q, k, v, window=window, align=align, block_q=bq, block_k=bk)[0], expected)


@pytest.mark.parametrize("causal", [True, "bottom_right"])
@pytest.mark.parametrize(("n_q", "n_k"), [(9, 9), (5, 12), (12, 5)])
def test_causal_equals_the_window_none_zero_in_both_alignments(causal, n_q, n_k):
    q, k, v = _qkv(10, n_q=n_q, n_k=n_k)
    align = "bottom_right" if causal == "bottom_right" else "top_left"
    d_out = np.random.default_rng(11).normal(size=(2, 6, n_q, 3))
    for fn in (attention, lambda *a, **kw: tiled_attention(*a, **kw, block_q=4, block_k=3)[0]):
        np.testing.assert_array_equal(fn(q, k, v, causal=causal), fn(q, k, v, window=(None, 0), align=align))
    np.testing.assert_array_equal(
        np.stack(attention_backward(q, k, v, d_out, causal=causal)[:1]),
        np.stack(attention_backward(q, k, v, d_out, window=(None, 0), align=align)[:1]),
    )


def test_causal_true_follows_align_and_contradictions_name_both():
    q, k, v = _qkv(12, n_q=4, n_k=9)
    np.testing.assert_array_equal(attention(q, k, v, causal=True, align="bottom_right"),
                                  attention(q, k, v, causal="bottom_right"))  # fmt: skip
    np.testing.assert_array_equal(attention(q, k, v, causal="top_left"), attention(q, k, v, causal=True))
    with pytest.raises(ValueError, match=r"causal='top_left' contradicts align='bottom_right'"):
        attention(q, k, v, causal="top_left", align="bottom_right")
    with pytest.raises(ValueError, match=r"causal='bottom_right' contradicts align='top_left'"):
        tiled_attention(q, k, v, causal="bottom_right", align="top_left")


@pytest.mark.parametrize("c", [0.3, 2.0, 25.0])
def test_softcap_applies_c_tanh_s_over_c_to_the_scaled_scores_before_masks_and_biases(c):
    q, k, v = _qkv(13, h=2, h_kv=2, n_q=5, n_k=6)
    q *= 6.0  # scores of several units: the cap matters
    mask = np.random.default_rng(14).normal(size=(5, 6))
    mask[1, 2] = -np.inf
    slopes = np.array([0.5, 0.2])
    raw = np.einsum("bhid,bhjd->bhij", q, k) / 2.0  # scale 1/sqrt(4)
    dist = np.abs(np.arange(5)[:, None] - np.arange(6)[None, :])
    expected_scores = c * np.tanh(raw / c) + mask - slopes[:, None, None] * dist  # cap, then add
    scores = attention_scores(q, k, softcap=c, mask=mask, alibi_slopes=slopes)
    assert np.isneginf(scores[..., 1, 2]).all()  # masked entries stay -inf
    expected_scores[..., 1, 2] = -np.inf
    np.testing.assert_allclose(scores, expected_scores, rtol=1e-13)
    expected = np.einsum("bhij,bhjd->bhid", np.exp(expected_scores - logsumexp(expected_scores)[..., None]), v)
    _close(attention(q, k, v, softcap=c, mask=mask, alibi_slopes=slopes), expected)
    out, lse = tiled_attention(q, k, v, softcap=c, mask=mask, alibi_slopes=slopes, block_q=2, block_k=4)
    _close(out, expected)
    _lse_close(lse, logsumexp(expected_scores))


@pytest.mark.parametrize(
    ("h", "expected"),
    [
        (1, [2.0**-8]),
        (2, [2.0**-4, 2.0**-8]),
        (4, [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8]),
        # not a power of two: the 4-head slopes, then every other slope of the 8-head set
        # (2^-1, 2^-2, ..., 2^-8 -> 2^-1, 2^-3, ...) until there are 6
        (6, [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8, 2.0**-1, 2.0**-3]),
        # the 8-head slopes, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 of the 16-head set
        (12, [2.0**-k for k in range(1, 9)] + [2.0 ** -(k / 2) for k in (1, 3, 5, 7)]),
    ],
)
def test_alibi_slopes_follow_press_et_al(h, expected):
    np.testing.assert_allclose(alibi_slopes(h), expected, rtol=1e-15)


def test_alibi_slopes_of_a_power_of_two_are_geometric_from_two_to_the_minus_8_over_h():
    for h in (8, 16, 32):
        s = alibi_slopes(h)
        np.testing.assert_allclose(s[1:] / s[:-1], 2.0 ** (-8 / h), rtol=1e-13)
        np.testing.assert_allclose(s[-1], 2.0**-8, rtol=1e-13)
    assert all(len(alibi_slopes(h)) == h and len(set(alibi_slopes(h))) == h for h in range(1, 40))


@pytest.mark.parametrize("align", ["top_left", "bottom_right"])
def test_alibi_adds_minus_slope_times_the_aligned_distance(align):
    q, k, v = _qkv(15, h=3, h_kv=3, n_q=4, n_k=7)
    slopes = np.array([0.0, 0.5, 2.0])
    offset = 3 if align == "bottom_right" else 0
    dist = np.abs(np.arange(4)[:, None] + offset - np.arange(7)[None, :])  # (4, 7)
    expected = attention(q, k, v, mask=-slopes[:, None, None] * dist)  # an additive float mask
    _close(attention(q, k, v, alibi_slopes=slopes, align=align), expected)
    _close(tiled_attention(q, k, v, alibi_slopes=slopes, align=align, block_q=3, block_k=2)[0], expected)
    np.testing.assert_array_equal(attention(q, k, v, alibi_slopes=np.zeros(3)), attention(q, k, v))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_or_inf_in_padded_keys_and_values_never_reaches_outputs_or_gradients(bad):
    q, k, v = _qkv(16, n_q=6, n_k=10)
    lengths = np.array([7, 3])
    k_bad, v_bad = k.copy(), v.copy()
    for b, n in enumerate(lengths):
        k_bad[b, :, n:] = bad
        v_bad[b, :, n:] = bad
    d_out = np.random.default_rng(17).normal(size=(2, 6, 6, 3))
    expected = np.stack([attention(q[b], k[b, :, :n], v[b, :, :n]) for b, n in enumerate(lengths)])
    _close(attention(q, k_bad, v_bad, key_lengths=lengths), expected)
    out, lse = tiled_attention(q, k_bad, v_bad, key_lengths=lengths, block_q=4, block_k=3, threads=2)
    _close(out, expected)
    for grads in (attention_backward(q, k_bad, v_bad, d_out, key_lengths=lengths),
                  tiled_attention_backward(q, k_bad, v_bad, out, lse, d_out, key_lengths=lengths,
                                           block_q=4, block_k=3, threads=2)):  # fmt: skip
        assert all(np.isfinite(g).all() for g in grads)
        for b, n in enumerate(lengths):
            ref = attention_backward(q[b], k[b, :, :n], v[b, :, :n], d_out[b])
            _close(grads[0][b], ref[0])
            _close(grads[1][b, :, :n], ref[1])
            assert not grads[1][b, :, n:].any() and not grads[2][b, :, n:].any()


def test_nan_in_keys_outside_every_window_never_reaches_the_output():
    q, k, v = _qkv(18, n_q=5, n_k=12)
    k_bad, v_bad = k.copy(), v.copy()
    # causal bottom-right and window (2, .): query i (position i + 7) sees keys i + 5 ... i + 7,
    # so keys 0 ... 4 are seen by no query
    k_bad[..., :2, :] = np.nan
    v_bad[..., 2:5, :] = np.inf
    expected = attention(q, k, v, window=(2, None), causal="bottom_right")
    assert np.isfinite(expected).all()
    _close(attention(q, k_bad, v_bad, window=(2, None), causal="bottom_right"), expected)
    _close(tiled_attention(q, k_bad, v_bad, window=(2, None), causal="bottom_right", block_k=3)[0], expected)


# ---------------------------------------------------------------------------------------------
# decoding, empty inputs


@pytest.mark.parametrize(
    "kw",
    [{}, dict(window=(3, None)), dict(softcap=1.5), dict(alibi_slopes=alibi_slopes(6)),
     dict(window=(4, 0), softcap=3.0, alibi_slopes=alibi_slopes(6), scale=0.7)],  # fmt: skip
)
@pytest.mark.parametrize("n", [1, 2, 17])
def test_decode_step_equals_the_last_row_of_full_causal_attention(kw, n):
    rng = np.random.default_rng(19)
    q = rng.normal(size=(2, 6, n, 4))  # every token's query; decoding sees only the last
    k, v = rng.normal(size=(2, 3, n, 4)), rng.normal(size=(2, 3, n, 5))
    full = attention(q, k, v, causal=True, **kw)  # (2, 6, n, 5)
    out = decode_step(q[..., -1:, :], k, v, **kw, block_k=4)
    assert out.shape == (2, 6, 1, 5)
    _close(out, full[..., -1:, :])
    out, lse = decode_step(q[..., -1:, :], k, v, **kw, return_lse=True)
    _close(out, full[..., -1:, :])
    _lse_close(lse, logsumexp(attention_scores(q, k, causal=True, **kw))[..., -1:])


def test_decode_step_rejects_more_than_one_query():
    q, k, v = _qkv(20)
    with pytest.raises(ValueError, match=r"decode_step takes one query .* got shape \(2, 6, 9, 4\)"):
        decode_step(q, k, v)


@pytest.mark.parametrize(("n_q", "n_k"), [(0, 5), (4, 0), (0, 0)])
def test_empty_sequences_give_empty_or_zero_outputs_and_minus_inf_lse(n_q, n_k):
    q, k, v = _qkv(21, n_q=n_q, n_k=n_k)
    d_out = np.ones((2, 6, n_q, 3))
    for kw in ({}, dict(causal=True, window=(1, 2), softcap=2.0, alibi_slopes=alibi_slopes(6))):
        out = attention(q, k, v, **kw)
        assert out.shape == (2, 6, n_q, 3) and not out.any()
        out, lse = tiled_attention(q, k, v, **kw)
        assert out.shape == (2, 6, n_q, 3) and not out.any()
        assert lse.shape == (2, 6, n_q) and np.isneginf(lse).all()
        for grads in (attention_backward(q, k, v, d_out, **kw),
                      tiled_attention_backward(q, k, v, out, lse, d_out, **kw)):  # fmt: skip
            assert [g.shape for g in grads] == [q.shape, k.shape, v.shape]
            assert not any(g.any() for g in grads)


# ---------------------------------------------------------------------------------------------
# threads


def test_one_and_two_threads_agree_to_rounding_and_each_is_reproducible():
    q, k, v = _qkv(22, b=3, n_q=70, n_k=90, d=8, d_v=8)
    d_out = np.random.default_rng(23).normal(size=(3, 6, 70, 8))
    kw = dict(causal="bottom_right", window=(40, None), softcap=4.0, block_q=16, block_k=8)
    results = {}
    for threads in (1, 2, 3):
        out, lse = tiled_attention(q, k, v, **kw, threads=threads)
        grads = tiled_attention_backward(q, k, v, out, lse, d_out, **kw, threads=threads)
        again = tiled_attention_backward(q, k, v, out, lse, d_out, **kw, threads=threads)
        for g, h in zip(grads, again):  # deterministic for a given thread count
            np.testing.assert_array_equal(g, h)
        results[threads] = (out, lse, *grads)
    for threads in (2, 3):
        for a, b in zip(results[1], results[threads]):
            _close(a, b, rtol=1e-13)
    expected = attention_backward(q, k, v, d_out, causal="bottom_right", window=(40, None), softcap=4.0)
    for g, r in zip(results[2][2:], expected):
        _close(g, r)


def test_threads_split_the_batch_when_there_are_few_query_blocks():
    # one query block, a batch of 5: the units are batch slices (decode-like shapes)
    q, k, v = _qkv(24, b=5, n_q=3, n_k=40)
    out, lse = tiled_attention(q, k, v, block_q=64, block_k=16, threads=2)
    _close(out, attention(q, k, v))
    d_out = np.ones_like(out)
    grads = tiled_attention_backward(q, k, v, out, lse, d_out, block_q=64, block_k=64, threads=2)
    for g, r in zip(grads, attention_backward(q, k, v, d_out)):
        _close(g, r)


# ---------------------------------------------------------------------------------------------
# skipped tiles


@pytest.mark.parametrize(
    ("kw", "n_q", "n_k"),
    [(dict(window=(5, 3)), 64, 64), (dict(window=(0, 0), align="bottom_right"), 40, 70),
     (dict(causal=True), 64, 64), (dict(causal="bottom_right", window=(9, None)), 30, 64),
     (dict(key_lengths=np.array([10, 33])), 16, 64)],  # fmt: skip
)
def test_tiles_entirely_outside_the_band_or_the_key_lengths_are_never_computed(kw, n_q, n_k, monkeypatch):
    visited = []
    original = numeric.tiled._Problem.bias_and_mask

    def spy(self, s, sl, i0, i1, j0, j1):  # called once for every tile the kernel computes
        visited.append((i0, i1, j0, j1))
        return original(self, s, sl, i0, i1, j0, j1)

    monkeypatch.setattr(numeric.tiled._Problem, "bias_and_mask", spy)
    rng = np.random.default_rng(25)
    q = rng.normal(size=(2, 1, n_q, 4))
    k, v = rng.normal(size=(2, 1, n_k, 4)), rng.normal(size=(2, 1, n_k, 4))
    allowed = np.isfinite(attention_scores(q, k, **kw)).any(axis=(0, 1))  # (n_q, n_k) seen by some batch
    for phase in ("forward", "backward"):
        visited.clear()
        out, lse = tiled_attention(q, k, v, **kw, block_q=8, block_k=8, threads=1)
        if phase == "backward":
            visited.clear()
            tiled_attention_backward(q, k, v, out, lse, np.ones_like(out), **kw, block_q=8, block_k=8, threads=1)
        assert visited
        useless = [t for t in visited if not allowed[t[0] : t[1], t[2] : t[3]].any()]
        assert not useless, f"{phase}: tiles with no visible entry were computed: {useless}"
    _close(out, attention(q, k, v, **kw))
