"""The tiled kernel's extra memory is O(T B (block_q + d) block_k + T B n d), never O(n^2).

T is the number of worker threads: each holds its own tiles (and, in the backward, its own dQ
accumulator).

Measured with tracemalloc, which sees numpy's data allocations. At n = 2048 a single n x n
float64 matrix is 32 MiB and even a causal boolean n x n mask is 4 MiB, while the bounds below
are about 2-3 MiB: a kernel that materialised either would fail them.
"""

from __future__ import annotations

import numpy as np
import pytest

from numeric import tiled_attention, tiled_attention_backward
from numeric.bench import peak_memory

N, D, BQ, BK = 2048, 16, 128, 256
ITEM = 8  # float64


def _bound(tiles: int, rows: int) -> int:
    # `tiles` block_q x block_k score-sized arrays plus `rows` arrays of n x (d + 1) numbers.
    return ITEM * (tiles * BQ * BK + rows * N * (D + 1))


@pytest.fixture(scope="module")
def qkv():
    rng = np.random.default_rng(0)
    return tuple(rng.normal(size=(N, D)) for _ in range(3))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("causal", [False, True, "bottom_right"])
def test_tiled_forward_extra_memory_is_linear_in_n(qkv, causal, threads):
    peak, (out, _) = peak_memory(
        lambda: tiled_attention(*qkv, causal=causal, block_q=BQ, block_k=BK, threads=threads)
    )
    assert out.shape == (N, D)
    assert peak <= _bound(tiles=4 * threads, rows=4), f"peak {peak / 2**20:.1f} MiB"
    assert peak < threads * ITEM * N * N / 20


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("causal", [False, True])
def test_tiled_backward_extra_memory_is_linear_in_n(qkv, causal, threads):
    out, lse = tiled_attention(*qkv, causal=causal, block_q=BQ, block_k=BK)
    d_out = np.ones_like(out)
    peak, _ = peak_memory(
        lambda: tiled_attention_backward(*qkv, out, lse, d_out, causal=causal, block_q=BQ, block_k=BK,
                                         threads=threads)  # fmt: skip
    )
    assert peak <= _bound(tiles=6 * threads, rows=7 + threads), f"peak {peak / 2**20:.1f} MiB"


def test_a_user_mask_is_read_through_views_not_copied(qkv):
    mask = np.ones((1, N), bool)  # key padding, broadcast to (N, N) only tile by tile
    mask[0, -7:] = False
    peak, _ = peak_memory(lambda: tiled_attention(*qkv, mask=mask, block_q=BQ, block_k=BK))
    assert peak <= _bound(tiles=6, rows=4), f"peak {peak / 2**20:.1f} MiB"
