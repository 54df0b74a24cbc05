"""A score matrix that cannot fit is refused at once, pointing to the tiled kernel (issue 22)."""

import numpy as np
import pytest

import numeric
from numeric import reference


@pytest.mark.parametrize("fn, shape, what", [
    (numeric.attention, (1, 100_000, 4), "attention forms 2 score matrices of 1 x 100000 x 100000"),
    (numeric.attention, (64, 30_000, 2), "attention forms 2 score matrices of 64 x 30000 x 30000"),
    (lambda q, k, v: numeric.attention_backward(q, k, v, v), (1, 100_000, 4), "attention_backward forms 4"),
])
def test_a_score_matrix_beyond_memory_is_refused_with_a_pointer_to_tiled_attention(fn, shape, what, monkeypatch):
    monkeypatch.setattr(reference, "_physical_memory", lambda: 16 * 2**30)  # whatever this machine has
    q = np.zeros(shape, np.float32)  # views only: nothing of the n x n size is allocated
    with pytest.raises(MemoryError) as info:
        fn(q, q, q)
    message = str(info.value)
    assert message.startswith(what) and "more than this machine's 16.0 GiB" in message
    assert "numeric.tiled_attention computes the same" in message


def test_running_out_of_memory_anyway_points_to_tiled_attention(monkeypatch):
    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(reference, "_scores", no_memory)
    q = np.zeros((1, 8, 4))
    with pytest.raises(MemoryError, match="numeric.tiled_attention computes the same result"):
        numeric.attention(q, q, q)


def test_small_inputs_are_unaffected():
    q = np.random.default_rng(0).standard_normal((2, 5, 3))
    assert np.allclose(numeric.attention(q, q, q), numeric.tiled_attention(q, q, q)[0])
