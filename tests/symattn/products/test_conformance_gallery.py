"""The gallery of tiled kernels (tiles of 64 keys): each bug a kernel engineer makes is caught by
the property it violates, with a minimal counterexample, and by no unrelated property; the error
protocol fails a kernel with 3x the reference's error and passes one with 1.2x."""

import re

import numpy as np
import pytest

import numeric
from symattn.products import conformance

from . import broken_attention as broken

MAX_N = 160  # two tiles of 64 and a partial one: every tile bug shows, at a fraction of 512's cost
EXAMPLES = 15


def shapes(counterexample: str) -> dict:
    """``{"q": (b, h, n_q, d), "k": (b, h_kv, n_k, d), "v": ...}`` from a counterexample."""
    found = re.findall(r"\b([qkv]) \((\d+), (\d+), (\d+), (\d+)\)", counterexample)
    return {name: tuple(int(x) for x in dims) for name, *dims in found}


def outcome(result) -> tuple[set, set]:
    graded = [p for p in result.properties if p.status in ("pass", "fail")]
    return {p.name for p in graded if p.status == "fail"}, {p.name for p in graded}


def lse_kw(bwd):
    return {"returns_lse": True, "backward": bwd}


# (kernel, options, the property it must fail, properties that may fail with it (consequences of
#  the same bug), a check on the shrunk counterexample's shapes)
GALLERY = [
    pytest.param(broken.tiled_no_rescale, {}, "agrees_with_reference",
                 {"convex_hull", "key_value_permutation"},  # the weights are no longer a softmax
                 lambda s: 64 < s["k"][2] <= 128 and s["q"][2] == 1, id="no_rescale"),
    pytest.param(broken.tiled_last_partial_tile_dropped, {}, "agrees_with_reference",
                 {"key_value_permutation"},  # which keys are dropped depends on their order
                 lambda s: s["k"][2] == 65 and s["q"][:3] == (1, 1, 1), id="last_partial_tile_dropped"),
    pytest.param(broken.tiled_causal_local_index, {"causal": True}, "causal_no_future",
                 {"agrees_with_reference", "masked_values_do_not_leak"},  # future keys are seen
                 lambda s: s["k"][2] == 65 and s["q"][2] == 1, id="causal_mask_wrong_after_first_tile"),
    pytest.param(broken.tiled_lse_of_wrong_tile, {"returns_lse": True}, "lse_agrees_with_reference", set(),
                 lambda s: s["k"][2] == 65 and s["q"][:3] == (1, 1, 1), id="lse_of_wrong_tile"),
    pytest.param(broken.tiled_gqa_head_mapping, {"kv_heads": True}, "gqa_agrees_with_reference", set(),
                 lambda s: s["q"][1] == 4 and s["k"][1] == 2, id="gqa_head_mapping"),
    pytest.param(broken.tiled_window_off_by_one, {"window": (5, 0)}, "window_top_left_agrees_with_reference",
                 {"window_bottom_right_agrees_with_reference"},
                 lambda s: s["q"][2] == 7 or s["k"][2] <= 8, id="window_off_by_one"),
    pytest.param(broken.tiled_softcap_after_masking, {"causal": True, "softcap": 4.0},
                 "softcap_agrees_with_reference", set(),
                 lambda s: s["k"][2] == 2 and s["q"][2] == 1, id="softcap_after_masking"),
    pytest.param(broken.tiled_float16_accumulation, {"dtype": "float16", "max_n": 512, "head_dims": [16, 64],
                                                     "value_dim": "same"}, "agrees_with_reference",
                 set(), lambda s: s["k"][2] > 2 * 64, id="float16_accumulation_across_tiles"),
    pytest.param(broken.tiled_correct_with_lse, lse_kw(broken.tiled_backward_no_D_term),
                 "backward_agrees_with_reference", set(), lambda s: s["k"][2] == 1, id="backward_without_D"),
    pytest.param(broken.tiled_correct_with_lse, lse_kw(broken.tiled_backward_unscaled_dk),
                 "backward_agrees_with_reference", set(),
                 lambda s: s["q"][3] == 2 and s["k"][2] == 2, id="backward_unscaled_dk"),
]


@pytest.mark.parametrize("fn, options, violated, related, minimal", GALLERY)
def test_each_tile_bug_is_caught_by_its_property_only_with_a_minimal_counterexample(fn, options, violated, related,
                                                                                     minimal):
    options = {"max_n": MAX_N, "examples": EXAMPLES, **options}
    r = conformance.check(fn, **options)
    failed, graded = outcome(r)
    assert violated in failed, r.table()
    assert failed - {violated} <= related, f"unrelated failures {failed - {violated} - related}:\n{r.table()}"
    assert len(graded) >= 7  # the unrelated properties did run (and pass)
    cex = r.by_name(violated).counterexample
    assert minimal(shapes(cex)), cex
    if violated == "backward_agrees_with_reference":
        assert ("dk:" in r.by_name(violated).detail) and (("dq:" in r.by_name(violated).detail)
                                                           == (fn is broken.tiled_correct_with_lse and
                                                               options["backward"] is broken.tiled_backward_no_D_term))


@pytest.mark.parametrize("options", [
    {"causal": "bottom_right", "mask": True, "dtype": "float64"},
    {"causal": "top_left", "mask": "float", "dtype": "float32"},
    {"kv_heads": True, "window": (5, 0), "softcap": 4.0, "dtype": "float32", "backward": None},  # forward only
], ids=["causal_bottom_right_bool_mask", "causal_top_left_float_mask", "variants"])
def test_correct_tiled_gallery_kernel_passes_every_property(options):
    r = conformance.check(broken.tiled_correct_with_lse, max_n=MAX_N, examples=12,
                          **{**lse_kw(broken.tiled_backward_correct), **options})
    assert r.passed, r.table()


# ------------------------------------------------------------------------------------------ the protocol
def kernel_with_error_factor(f, dtype=None):
    """A kernel whose error is exactly ``f`` times the protocol's reference error on its input: exact + f x
    (the worst algorithm of the reference ensemble - exact), per result. ``dtype`` (default: the
    inputs') names the precision, for bfloat16 values held as float32."""
    from symattn.products.conformance.protocol import precision
    from symattn.products.conformance.references import ensemble, ensemble_backward

    def worst(candidates, exact):
        return max(candidates, key=lambda x: float(np.max(np.abs(x - exact), initial=0.0)))

    def fn(q, k, v, **o):
        exact = numeric.attention(*(a.astype(np.float64) for a in (q, k, v)), **o)
        lo = worst(list(ensemble(q, k, v, o, precision(dtype or q.dtype.name)).values()), exact)
        return (exact + f * (lo.astype(np.float64) - exact)).astype(q.dtype)

    def bwd(q, k, v, out, d_out, **o):
        exact = numeric.attention_backward(*(a.astype(np.float64) for a in (q, k, v, d_out)), **o)
        members = list(ensemble_backward(q, k, v, d_out, o, precision(dtype or q.dtype.name)).values())
        lo = [worst([m[i] for m in members], exact[i]) for i in range(3)]
        return tuple((e + f * (x.astype(np.float64) - e)).astype(q.dtype) for e, x in zip(exact, lo))

    return fn, bwd


@pytest.mark.parametrize("factor, passes", [(3.0, False), (1.2, True)])
def test_protocol_fails_three_times_the_reference_error_and_passes_one_point_two(factor, passes):
    fn, bwd = kernel_with_error_factor(factor)
    r = conformance.check(fn, dtype="float32", backward=bwd, max_n=MAX_N, examples=EXAMPLES)
    for name in ("agrees_with_reference", "backward_agrees_with_reference"):
        assert (r.by_name(name).status == "pass") is passes, r.table()


def test_numeric_tiled_kernel_with_tiles_of_64_passes_every_property():
    def tiled(q, k, v, **o):
        return numeric.tiled_attention(q, k, v, block_q=64, block_k=64, **o)

    def tiled_backward(q, k, v, out, lse, d_out, **o):
        return numeric.tiled_attention_backward(q, k, v, out, lse, d_out, block_q=64, block_k=64, **o)

    r = conformance.check(tiled, causal="bottom_right", mask=True, dtype="float32", returns_lse=True,
                          backward=tiled_backward, kv_heads=True, window=(9, 3), align="bottom_right",
                          softcap=6.0, alibi=True, key_lengths=True, max_n=MAX_N, examples=6)
    assert r.passed, r.table()
    assert r.by_name("fully_masked_rows").detail.startswith(
        "a query with every key masked out returns zeros (symattn's convention); lse -inf; its dq zeros")


def test_numeric_tiled_kernel_with_tiles_of_64_passes_top_left_causal_float32_with_gradients():
    def tiled(q, k, v, **o):
        return numeric.tiled_attention(q, k, v, block_q=64, block_k=64, **o)

    def tiled_backward(q, k, v, out, lse, d_out, **o):
        return numeric.tiled_attention_backward(q, k, v, out, lse, d_out, block_q=64, block_k=64, **o)

    r = conformance.check(tiled, causal="top_left", mask=True, dtype="float32", returns_lse=True,
                          backward=tiled_backward, max_n=MAX_N, examples=10)
    assert r.passed, r.table()
