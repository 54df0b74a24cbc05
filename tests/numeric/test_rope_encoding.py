"""Rotary and sinusoidal position encodings: conventions, relative positions, norms, shifts."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from numeric import rope, rope_frequencies, rope_permutation, sinusoidal_encoding

SEEDS = st.integers(0, 2**32 - 1)
DIMS = st.sampled_from([2, 4, 8, 16])
CONVENTIONS = st.sampled_from(["interleaved", "half"])


@given(SEEDS, DIMS)
def test_rope_conventions_agree_after_the_permutation(seed, d):
    rng = np.random.default_rng(seed)
    x, pos = rng.normal(size=(3, 5, d)), rng.integers(0, 1000, size=5)
    perm = rope_permutation(d)
    np.testing.assert_allclose(
        rope(x[..., perm], pos, convention="half"), rope(x, pos, convention="interleaved")[..., perm], rtol=1e-13
    )


def test_rope_conventions_differ_without_the_permutation():
    x, pos = np.random.default_rng(0).normal(size=(5, 8)), np.arange(5)
    assert not np.allclose(rope(x, pos, convention="half"), rope(x, pos, convention="interleaved"))


@given(SEEDS, DIMS, CONVENTIONS, st.integers(-500, 500))
def test_rope_scores_depend_only_on_the_position_offset(seed, d, convention, shift):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=d), rng.normal(size=d)
    p, p2 = rng.integers(0, 1000, size=2)

    def score(a, b):
        return rope(q[None], [a], convention=convention)[0] @ rope(k[None], [b], convention=convention)[0]

    np.testing.assert_allclose(score(p, p2), score(p + shift, p2 + shift), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(score(p, p2), score(0, p2 - p), rtol=1e-9, atol=1e-9)


@given(SEEDS, DIMS, CONVENTIONS)
def test_rope_preserves_norms(seed, d, convention):
    rng = np.random.default_rng(seed)
    x, pos = rng.normal(size=(7, d)), rng.normal(scale=1e3, size=7)
    np.testing.assert_allclose(
        np.linalg.norm(rope(x, pos, convention=convention), axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-13
    )


def test_rope_at_position_zero_is_the_identity_and_positions_broadcast_over_batch():
    x = np.random.default_rng(1).normal(size=(2, 4, 6))
    np.testing.assert_array_equal(rope(x, np.zeros(4)), x)
    pos = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])  # per-batch positions (2, 4)
    np.testing.assert_allclose(rope(x, pos)[1], rope(x[1], pos[1]))


def test_rope_pair_m_rotates_at_frequency_base_to_the_minus_2m_over_d():
    d, m, p = 8, 2, 3.0
    x = np.zeros(d)
    x[2 * m] = 1.0  # unit vector in pair m's first coordinate
    y = rope(x[None], [p])[0]
    theta = 10000.0 ** (-2 * m / d)
    np.testing.assert_allclose(y[2 * m : 2 * m + 2], [np.cos(p * theta), np.sin(p * theta)], rtol=1e-14)
    np.testing.assert_allclose(rope_frequencies(d)[m], theta)


def test_sinusoidal_encoding_at_position_zero_alternates_zero_and_one():
    np.testing.assert_array_equal(sinusoidal_encoding(1, 8)[0], [0, 1] * 4)


@given(st.integers(0, 200), st.integers(-50, 50), DIMS)
def test_sinusoidal_shift_by_delta_is_a_rotation_of_each_pair(p, delta, d):
    pe = sinusoidal_encoding(p + abs(delta) + 1 + 50, d)
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    for m in range(d // 2):
        c, s = np.cos(omega[m] * delta), np.sin(omega[m] * delta)
        rotation = np.array([[c, s], [-s, c]])
        p0 = p + 50  # keep p0 + delta >= 0
        np.testing.assert_allclose(pe[p0 + delta, 2 * m : 2 * m + 2], rotation @ pe[p0, 2 * m : 2 * m + 2], atol=1e-12)
