"""Bad input: one table of calls, the exception each raises, and what its message names."""

from __future__ import annotations

import numpy as np
import pytest

from numeric import (
    alibi_slopes,
    attention,
    attention_backward,
    decode_step,
    linear_attention,
    mlp,
    multi_head_attention,
    rope,
    rope_permutation,
    sinusoidal_encoding,
    tiled_attention,
    tiled_attention_backward,
)

Q, K, V = np.zeros((2, 3, 4)), np.zeros((2, 5, 4)), np.zeros((2, 5, 6))
OUT, LSE = np.zeros((2, 3, 6)), np.zeros((2, 3))
Q4, K4, V4 = np.zeros((2, 6, 3, 4)), np.zeros((2, 3, 5, 4)), np.zeros((2, 3, 5, 6))  # 6 heads, 3 kv heads
KERNELS = {"reference": attention, "tiled": tiled_attention}

# (id, call, exception, message pattern)
CASES = [
    ("d mismatch", lambda f: f(Q, np.zeros((2, 5, 3)), V), ValueError,
     r"q and k must share the feature dimension d: q has shape \(2, 3, 4\), k has shape \(2, 5, 3\)"),
    ("n_k mismatch", lambda f: f(Q, K, np.zeros((2, 4, 6))), ValueError,
     r"same number of keys: k has shape \(2, 5, 4\), v has shape \(2, 4, 6\)"),
    ("batch mismatch", lambda f: f(np.zeros((2, 2, 3, 4)), np.zeros((3, 2, 5, 4)), np.zeros((3, 2, 5, 6))), ValueError,
     r"leading dimensions of q \(2, 2, 3, 4\), k \(3, 2, 5, 4\), v \(3, 2, 5, 6\) do not broadcast"),
    ("1-d input", lambda f: f(np.zeros(4), K, V), ValueError,
     r"q must have at least 2 dimensions .* got shape \(4,\)"),
    ("integer dtype", lambda f: f(Q.astype(np.int64), K, V), TypeError,
     r"q must have a floating dtype .* got int64"),
    ("bool dtype", lambda f: f(Q, K, V.astype(bool)), TypeError, r"v must have a floating dtype .* got bool"),
    ("complex dtype", lambda f: f(Q, K.astype(complex), V), TypeError,
     r"k must have a floating dtype .* got complex128"),
    ("mixed dtypes", lambda f: f(Q.astype(np.float32), K, V), TypeError,
     r"share one dtype, got float32, float64, float64"),
    ("mask shape", lambda f: f(Q, K, V, mask=np.ones((3, 4), bool)), ValueError,
     r"mask of shape \(3, 4\) does not broadcast to \(\.\.\., n_q, n_k\) = \(2, 3, 5\)"),
    ("mask adds a dim", lambda f: f(Q, K, V, mask=np.ones((7, 2, 3, 5), bool)), ValueError,
     r"mask of shape \(7, 2, 3, 5\) does not broadcast"),
    ("mask dtype", lambda f: f(Q, K, V, mask=np.ones((3, 5), np.int8)), TypeError,
     r"mask must be boolean or floating, got dtype int8"),
    ("causal value", lambda f: f(Q, K, V, causal="top_right"), ValueError,
     r"causal must be False, True, 'top_left' or 'bottom_right', got 'top_right'"),
    ("causal type", lambda f: f(Q, K, V, causal=1.5), ValueError, r"causal must be .* got 1.5"),
    ("scale nan", lambda f: f(Q, K, V, scale=float("nan")), ValueError, r"scale must be a finite real number, got nan"),
    ("scale str", lambda f: f(Q, K, V, scale="0.5"), ValueError, r"scale must be a finite real number, got '0.5'"),
    ("d zero", lambda f: f(Q[..., :0], K[..., :0], V), ValueError,
     r"feature dimension d of q and k must be at least 1, got q of shape \(2, 3, 0\)"),
    ("heads not a multiple", lambda f: f(Q4, np.zeros((2, 4, 5, 4)), np.zeros((2, 4, 5, 6))), ValueError,
     r"multiple of the key/value heads .* q has 6 heads \(shape \(2, 6, 3, 4\)\), k has 4 \(shape \(2, 4, 5, 4\)\)"),
    ("k and v heads differ", lambda f: f(Q4, np.zeros((2, 2, 5, 4)), np.zeros((2, 3, 5, 6))), ValueError,
     r"k and v must have the same number of heads .* k has shape \(2, 2, 5, 4\), v has shape \(2, 3, 5, 6\)"),
    ("align value", lambda f: f(Q, K, V, align="center"), ValueError,
     r"align must be None, 'top_left' or 'bottom_right', got 'center'"),
    ("align contradicts causal", lambda f: f(Q, K, V, causal="bottom_right", align="top_left"), ValueError,
     r"causal='bottom_right' contradicts align='top_left'"),
    ("window not a pair", lambda f: f(Q, K, V, window=3), ValueError,
     r"window must be a pair \(left, right\) of None or non-negative integers, got 3"),
    ("window triple", lambda f: f(Q, K, V, window=(1, 2, 3)), ValueError, r"window must be a pair .* got \(1, 2, 3\)"),
    ("window negative", lambda f: f(Q, K, V, window=(1, -1)), ValueError,
     r"window right must be None or a non-negative integer, got -1"),
    ("window float", lambda f: f(Q, K, V, window=(1.5, None)), ValueError,
     r"window left must be None or a non-negative integer, got 1.5"),
    ("window bool", lambda f: f(Q, K, V, window=(True, None)), ValueError, r"window left .* got True"),
    ("softcap zero", lambda f: f(Q, K, V, softcap=0.0), ValueError,
     r"softcap must be a finite positive real number \(or None\), got 0.0"),
    ("softcap negative", lambda f: f(Q, K, V, softcap=-2), ValueError, r"softcap must be .* got -2"),
    ("softcap inf", lambda f: f(Q, K, V, softcap=float("inf")), ValueError, r"softcap must be .* got inf"),
    ("softcap str", lambda f: f(Q, K, V, softcap="30"), ValueError, r"softcap must be .* got '30'"),
    ("alibi shape", lambda f: f(Q4, K4, V4, alibi_slopes=np.ones(4)), ValueError,
     r"alibi_slopes must have shape \(h,\) = \(6,\) .* got shape \(4,\)"),
    ("alibi scalar", lambda f: f(Q4, K4, V4, alibi_slopes=0.5), ValueError,
     r"alibi_slopes must have shape .* got shape \(\)"),
    ("alibi negative", lambda f: f(Q4, K4, V4, alibi_slopes=-np.ones(6)), ValueError,
     r"alibi_slopes must be finite and non-negative"),
    ("alibi nan", lambda f: f(Q4, K4, V4, alibi_slopes=np.full(6, np.nan)), ValueError,
     r"alibi_slopes must be finite and non-negative"),
    ("alibi dtype", lambda f: f(Q4, K4, V4, alibi_slopes=np.ones(6, bool)), TypeError,
     r"alibi_slopes must be real numbers, got dtype bool"),
    ("key_lengths on 3-d", lambda f: f(Q, K, V, key_lengths=np.array([5, 5])), ValueError,
     r"key_lengths needs 4-D inputs \(batch, heads, n, d\): q has shape \(2, 3, 4\)"),
    ("key_lengths shape", lambda f: f(Q4, K4, V4, key_lengths=np.array([5, 5, 5])), ValueError,
     r"key_lengths must have shape \(batch,\) = \(2,\), got \(3,\)"),
    ("key_lengths too long", lambda f: f(Q4, K4, V4, key_lengths=np.array([5, 6])), ValueError,
     r"key_lengths must lie in \[0, n_k\] = \[0, 5\], got \[5, 6\]"),
    ("key_lengths negative", lambda f: f(Q4, K4, V4, key_lengths=np.array([-1, 2])), ValueError,
     r"key_lengths must lie in \[0, n_k\]"),
    ("key_lengths float", lambda f: f(Q4, K4, V4, key_lengths=np.array([2.0, 3.0])), TypeError,
     r"key_lengths must be integers, got dtype float64"),
]  # fmt: skip

TILED_CASES = [
    ("block_q zero", dict(block_q=0), r"block_q must be a positive integer, got 0"),
    ("block_k negative", dict(block_k=-4), r"block_k must be a positive integer, got -4"),
    ("block_q float", dict(block_q=2.5), r"block_q must be a positive integer, got 2.5"),
    ("block_k bool", dict(block_k=True), r"block_k must be a positive integer, got True"),
    ("threads zero", dict(threads=0), r"threads must be a positive integer, got 0"),
    ("threads float", dict(threads=1.5), r"threads must be a positive integer, got 1.5"),
    ("threads bool", dict(threads=True), r"threads must be a positive integer, got True"),
]

BACKWARD_CASES = [
    ("out shape", dict(out=np.zeros((2, 3, 5))), r"out has shape \(2, 3, 5\), expected \(2, 3, 6\)"),
    ("lse shape", dict(lse=np.zeros((3,))), r"lse has shape \(3,\), expected \(2, 3\)"),
    ("d_out shape", dict(d_out=np.zeros((3, 6))), r"d_out has shape \(3, 6\), expected \(2, 3, 6\)"),
]

OTHER_CASES = [
    ("rope odd d", lambda: rope(np.zeros((3, 5)), np.arange(3)), ValueError,
     r"rope needs an even feature dimension, got d=5"),
    ("rope convention", lambda: rope(np.zeros((3, 4)), np.arange(3), convention="neox"), ValueError,
     r"convention must be one of \('interleaved', 'half'\), got 'neox'"),
    ("rope_permutation odd", lambda: rope_permutation(3), ValueError, r"even feature dimension, got d=3"),
    ("sinusoidal odd", lambda: sinusoidal_encoding(4, 7), ValueError, r"even feature dimension, got d=7"),
    ("linear order", lambda: linear_attention(Q, K, V, order="cubic"), ValueError,
     r"order must be one of \('linear', 'quadratic'\), got 'cubic'"),
    ("linear causal non-square", lambda: linear_attention(Q, K, V, causal=True), ValueError,
     r"causal linear attention needs n_q == n_k, got q \(2, 3, 4\) and k \(2, 5, 4\)"),
    ("mha heads", lambda: multi_head_attention(np.zeros((3, 4)), *np.zeros((4, 4, 4)), heads=3), ValueError,
     r"w_q has 4 output features, not divisible by heads=3"),
    ("mha heads zero", lambda: multi_head_attention(np.zeros((3, 4)), *np.zeros((4, 4, 4)), heads=0), ValueError,
     r"heads must be a positive integer, got 0"),
    ("mlp activation", lambda: mlp(np.zeros((1, 2)), np.eye(2), np.eye(2), activation="swish"), ValueError,
     r"unknown activation 'swish'"),
    ("alibi_slopes h", lambda: alibi_slopes(0), ValueError, r"alibi_slopes needs a positive integer number of heads h, "
                                                            r"got 0"),
    ("alibi_slopes h float", lambda: alibi_slopes(2.0), ValueError, r"number of heads h, got 2.0"),
    ("decode_step two queries", lambda: decode_step(Q, K, V), ValueError,
     r"decode_step takes one query \(q_t of shape \(\.\.\., 1, d\)\), got shape \(2, 3, 4\)"),
    ("decode_step bad window", lambda: decode_step(Q[:, :1], K, V, window=(-1, 0)), ValueError,
     r"window left must be None or a non-negative integer, got -1"),
    ("gqa backward d_out", lambda: attention_backward(Q4, K4, V4, np.zeros((2, 3, 3, 6))), ValueError,
     r"d_out has shape \(2, 3, 3, 6\), expected \(2, 6, 3, 6\)"),
    ("reference backward d_out", lambda: attention_backward(Q, K, V, np.zeros((2, 3, 5))), ValueError,
     r"d_out has shape \(2, 3, 5\), expected \(2, 3, 6\)"),
]  # fmt: skip


def _table():
    """Every case as (id, zero-argument call, exception, message pattern)."""
    for kernel_name, kernel in KERNELS.items():
        for name, call, exc, match in CASES:
            yield f"{kernel_name}: {name}", (lambda call=call, kernel=kernel: call(kernel)), exc, match
    for name, kwargs, match in TILED_CASES:
        yield f"forward: {name}", (lambda kw=kwargs: tiled_attention(Q, K, V, **kw)), ValueError, match
        yield (f"backward: {name}", (lambda kw=kwargs: tiled_attention_backward(Q, K, V, OUT, LSE, OUT, **kw)),
               ValueError, match)  # fmt: skip
    for name, kwargs, match in BACKWARD_CASES:
        saved = dict(out=OUT, lse=LSE, d_out=OUT) | kwargs
        yield (f"backward: {name}", (lambda s=saved: tiled_attention_backward(Q, K, V, s["out"], s["lse"], s["d_out"])),
               ValueError, match)  # fmt: skip
    yield from OTHER_CASES


TABLE = list(_table())


@pytest.mark.parametrize(("call", "exc", "match"), [c[1:] for c in TABLE], ids=[c[0] for c in TABLE])
def test_invalid_arguments_raise_an_error_whose_message_names_them(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
