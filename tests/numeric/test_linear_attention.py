"""Linear attention: both evaluation orders, and the causal prefix-sum form, agree."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from numeric import elu_plus_one, linear_attention

SEEDS = st.integers(0, 2**32 - 1)


@given(SEEDS, st.integers(1, 20), st.integers(1, 20), st.sampled_from([(), (2,), (2, 3)]))
def test_linear_and_quadratic_orders_agree(seed, n_q, n_k, batch):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(*batch, n_q, 4)), rng.normal(size=(*batch, n_k, 4)), rng.normal(size=(*batch, n_k, 3))
    np.testing.assert_allclose(
        linear_attention(q, k, v, order="linear"), linear_attention(q, k, v, order="quadratic"), rtol=1e-12
    )


@given(SEEDS, st.integers(1, 20), st.sampled_from([(), (2,)]))
def test_causal_prefix_sums_agree_with_the_masked_quadratic_form(seed, n, batch):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(*batch, n, 4)), rng.normal(size=(*batch, n, 4)), rng.normal(size=(*batch, n, 3))
    causal = linear_attention(q, k, v, causal=True, order="linear")
    np.testing.assert_allclose(causal, linear_attention(q, k, v, causal=True, order="quadratic"), rtol=1e-12)
    # and with an explicit loop: row i uses the keys 0..i only
    for i in range(n):
        row = linear_attention(q[..., i : i + 1, :], k[..., : i + 1, :], v[..., : i + 1, :])
        np.testing.assert_allclose(causal[..., i : i + 1, :], row, rtol=1e-12)


def test_causal_differs_from_non_causal_except_at_the_last_row():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    a, b = linear_attention(q, k, v, causal=True), linear_attention(q, k, v)
    assert not np.allclose(a[:-1], b[:-1])
    np.testing.assert_allclose(a[-1], b[-1], rtol=1e-12)


def test_elu_plus_one_is_positive_and_continuous_at_zero():
    x = np.linspace(-30, 30, 1001)
    assert (elu_plus_one(x) > 0).all()
    np.testing.assert_allclose(elu_plus_one(np.array([-1e-9, 1e-9])), [1.0, 1.0], atol=1e-8)
