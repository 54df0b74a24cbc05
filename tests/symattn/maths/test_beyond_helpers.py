"""Helpers of the Beyond-the-texts topic: masks and score pairs, the KV-cache worked figures of the
audit, FlashAttention's IO helper: values against independent counts, bad input named."""

import numpy as np
import pytest
import sympy as sp

from symattn.maths.flash_io import flash_hbm_accesses
from symattn.maths.masks import Band, causal_mask, score_pairs, window_mask
from symattn.products import audit


def test_kv_cache_worked_figures_hold_and_come_from_allocated_arrays():
    entries = {e.id: e for e in audit.run_audit("x_kv_cache")}
    assert set(entries) == {"x_kv_cache_per_token_mha", "x_kv_cache_per_token_gqa8"}
    assert all(e.verdict == "holds" and e.source == audit.EXTENSION for e in entries.values())
    # 32 layers x (K, V) x heads x 128 float16 values, counted from numpy arrays
    mha = sum(np.zeros((2, 32, 128), np.float16).nbytes for _ in range(32))
    assert mha == 2**19 and audit._kv_cache_per_token(32, 8, 128) * 4 == mha


def test_a_wrong_worked_figure_would_not_hold():
    assert audit.grade_number("2", sp.Rational(audit._kv_cache_per_token(32, 32, 128), 2**20)) == "does-not-hold"


@pytest.mark.parametrize("call, error, message", [
    (lambda: score_pairs(3, 5, window=2), ValueError, "n_q = n_k"),
    (lambda: score_pairs(4, window=5), ValueError, "longer than the sequence"),
    (lambda: score_pairs(5, 3, causal="bottom_right"), ValueError, "would see no key"),
    (lambda: score_pairs(4, causal="yes"), TypeError, "causal"),
    (lambda: score_pairs(4, causal=1), TypeError, "causal"),
    (lambda: score_pairs(2, 5, causal=True), ValueError, "top_left"),
    (lambda: score_pairs(0), ValueError, "n_q"),
    (lambda: window_mask(3, 2, 0), ValueError, "window"),
    (lambda: causal_mask("i", 1), TypeError, "i must be"),
    (lambda: Band(sp.oo, 1, 2), ValueError, "finite"),
])
def test_mask_helpers_name_the_bad_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_masks_evaluate_to_the_boolean_masks_of_numpy():
    n, w = 7, 3
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            assert causal_mask(i, j) == int(j <= i)
            assert window_mask(i, j, w) == int(i - w < j <= i)
            assert causal_mask(i, j, offset=2) == int(j <= i + 2)


def test_flash_hbm_accesses_is_below_standard_attention_when_d_squared_is_small_against_m():
    for n in (1024, 4096):
        got = flash_hbm_accesses(n, 64, 64 * 1024)  # d^2 / M = 1/16
        assert got["flash"] < got["standard"]
    with pytest.raises(ValueError, match="sram"):
        flash_hbm_accesses(16, 4, 0)


def test_flash_hbm_accesses_with_symbolic_sizes_is_the_loop_count_at_every_size():
    import sympy as sp

    N, d, M = sp.symbols("N d M", positive=True, integer=True)
    symbolic = flash_hbm_accesses(N, d, M)
    for n, dd, m in [(1024, 64, 100 * 1024), (1000, 7, 300), (5, 3, 1), (64, 64, 4096), (33, 2, 17)]:
        # the count written out as Algorithm 1's loops, block by block (edge blocks: their real rows)
        bc = -(-m // (4 * dd))
        br = min(bc, dd)
        total = n * dd + 2 * n
        for j0 in range(0, n, bc):
            total += 2 * min(bc, n - j0) * dd
            for i0 in range(0, n, br):
                total += 3 * min(br, n - i0) * dd + 4 * min(br, n - i0)
        concrete = flash_hbm_accesses(n, dd, m)
        assert (concrete["block_c"], concrete["block_r"], concrete["flash"]) == (bc, br, total)
        at = {N: n, d: dd, M: m}
        assert symbolic["flash"].subs(at) == total and symbolic["block_r"].subs(at) == br
    with pytest.raises(TypeError, match="sram"):
        flash_hbm_accesses(N, d, "M")


def test_score_pairs_with_symbols_of_unknown_order_holds_at_every_size():
    import sympy as sp

    from symattn import score_pairs

    n, w, m = sp.symbols("n w m", integer=True, positive=True)
    window, causal = score_pairs(n, window=w), score_pairs(n, m, causal="bottom_right")
    for nn in range(1, 7):
        for ww in range(1, 10):  # a window longer than the sequence too
            count = sum(1 for i in range(1, nn + 1) for j in range(1, nn + 1) if i - ww < j <= i)
            assert window.subs({n: nn, w: ww}) == count, (nn, ww)
        for mm in range(1, 9):  # bottom-right alignment: query i sits at position mm - nn + i
            count = sum(1 for i in range(1, nn + 1) for j in range(1, mm + 1) if j <= mm - nn + i)
            assert causal.subs({n: nn, m: mm}) == count, (nn, mm)


def test_score_pairs_top_left_counts_numeric_attentions_causal_mask_at_every_size():
    """``causal="top_left"`` is the mask ``numeric.attention(causal=True)`` applies (query i sees keys
    j <= i), counted from that mask's weights, for n_q above and below n_k, concrete and symbolic."""
    import numpy as np
    import sympy as sp

    from numeric import attention
    from symattn import score_pairs

    n, m = sp.symbols("n m", integer=True, positive=True)
    symbolic = score_pairs(n, m, causal="top_left")
    rng = np.random.default_rng(0)
    for nq in range(1, 7):
        for nk in range(1, 7):
            q, k = rng.normal(size=(nq, 2)), rng.normal(size=(nk, 2))
            v = np.eye(nk)  # the output rows are the attention weights
            weights = attention(q, k, v, causal=True)
            kept = int((weights > 0).sum())
            assert score_pairs(nq, nk, causal="top_left") == kept, (nq, nk)
            assert symbolic.subs({n: nq, m: nk}) == kept, (nq, nk)


def test_gqa_param_count_refuses_kv_heads_that_cannot_divide_heads():
    import sympy as sp

    from symattn import gqa_param_count

    d, h = sp.symbols("d h", integer=True, positive=True)
    for kv in (h + 1, 2 * h + 1, h + 3):
        with pytest.raises(ValueError, match="cannot divide"):
            gqa_param_count(d, h, kv)
    with pytest.raises(ValueError, match="cannot divide"):
        gqa_param_count(d, 2 * h, 2 * h + 1)
    assert gqa_param_count(d, 2 * h, h) == 3 * d**2 and gqa_param_count(d, h, h) == 4 * d**2
