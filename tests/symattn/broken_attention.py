"""A gallery of deliberately broken attention implementations, each with one classic bug.

Each takes ``(q, k, v, *, causal=False, mask=None)`` like a real kernel. The conformance tests
assert that each bug is caught by the property it violates -- and by no unrelated property.
"""

import numpy as np


def _softmax(x, axis=-1):
    with np.errstate(invalid="ignore"):  # a fully masked row gives NaN here, like many real kernels
        x = x - x.max(axis=axis, keepdims=True)
        e = np.exp(x)
        return e / e.sum(axis=axis, keepdims=True)


def _scores(q, k, scale, causal, mask):
    s = (q @ np.swapaxes(k, -1, -2)) * scale  # (..., n_q, n_k)
    n_q, n_k = s.shape[-2:]
    allowed = np.ones((n_q, n_k), dtype=bool)
    if causal:
        allowed &= np.arange(n_k)[None, :] <= np.arange(n_q)[:, None]
    if mask is not None:
        allowed = allowed & mask
    return np.where(allowed, s, -np.inf)


def correct(q, k, v, *, causal=False, mask=None):
    return _softmax(_scores(q, k, 1 / np.sqrt(q.shape[-1]), causal, mask)) @ v


def no_scaling(q, k, v, *, causal=False, mask=None):
    return _softmax(_scores(q, k, 1.0, causal, mask)) @ v


def scale_one_over_d(q, k, v, *, causal=False, mask=None):
    return _softmax(_scores(q, k, 1 / q.shape[-1], causal, mask)) @ v


def softmax_wrong_axis(q, k, v, *, causal=False, mask=None):
    s = _scores(q, k, 1 / np.sqrt(q.shape[-1]), causal, mask)
    return np.nan_to_num(_softmax(s, axis=-2)) @ v  # normalises over queries, not keys


def causal_off_by_one(q, k, v, *, causal=False, mask=None):
    s = (q @ np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    n_q, n_k = s.shape[-2:]
    if causal:
        s = np.where(np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + 1, s, -np.inf)  # sees one key too many
    return _softmax(s) @ v


def no_max_subtraction(q, k, v, *, causal=False, mask=None):
    s = _scores(q, k, 1 / np.sqrt(q.shape[-1]), causal, mask)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s)  # overflows for scores above ~709 (float64)
        return (e / e.sum(axis=-1, keepdims=True)) @ v


def keys_permuted_without_values(q, k, v, *, causal=False, mask=None):
    k = np.roll(k, 1, axis=-2)  # keys shifted by one position, values not: pairs broken
    return _softmax(_scores(q, k, 1 / np.sqrt(q.shape[-1]), causal, mask)) @ v
