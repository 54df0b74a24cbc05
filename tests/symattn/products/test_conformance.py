"""Conformance: the declared input space, the reported conventions, the CLI, the small gallery of
classic (untiled) bugs; tiled bugs are in test_conformance_gallery.py, peers in _peers.py."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import numeric
from symattn.products import conformance
from symattn.products.cli import main
from symattn.products.conformance.cases import cases

from . import broken_attention as broken

EXAMPLES = 15
# the NaN-padding case: the naive kernel multiplies 0 by inf (that is the finding it must produce)
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in matmul:RuntimeWarning")
MAX_N = 96


# ------------------------------------------------------------------------------------ inputs
def test_interesting_lengths_hold_tile_boundaries_and_primes_small_first():
    lengths = conformance.interesting_lengths(512)
    assert list(lengths) == sorted(set(lengths)) and lengths[:2] == (1, 2) and lengths[-1] == 512
    for tile in (16, 32, 64, 128):
        for m in range(tile, 513, tile):
            assert {m - 1, m} <= set(lengths) and (m + 1 > 512 or m + 1 in lengths)
    assert {113, 127, 131, 251, 257, 509} <= set(lengths)
    assert max(conformance.interesting_lengths(40)) <= 40


@settings(max_examples=60)
@given(st.data(), st.sampled_from(["any", "same"]), st.booleans(), st.sampled_from([1, 7, 65, 200]),
       st.sampled_from([None, (64, 128), (40, 59, 111)]), st.sampled_from([None, True, 2]))
def test_cases_never_leave_the_declared_space(data, value_dim, square, max_n, head_dims, kv_heads):
    space = conformance.Space(value_dim=value_dim, square=square, max_n=max_n, head_dims=head_dims, kv_heads=kv_heads)
    c = data.draw(cases(space))
    assert 1 <= c.n_q <= max_n and 1 <= c.n_k <= max_n and c.b <= 3
    assert c.d in space.dims and (value_dim == "any" or c.d_v == c.d)
    assert not square or c.n_q == c.n_k
    assert c.h % c.kv == 0 and (kv_heads != 2 or c.h == 2 * c.kv) and (kv_heads is not None or c.kv == c.h)


def test_an_implementation_is_never_called_outside_its_declared_space():
    calls = []

    def picky(q, k, v, **opts):  # supports d = d_v in {64, 128} and n_q = n_k <= 100 only
        calls.append((q.shape, k.shape, v.shape))
        assert q.shape[-1] in (64, 128) and v.shape[-1] == q.shape[-1] and q.shape[-2] == k.shape[-2] <= 100
        return numeric.attention(q, k, v, **opts)

    r = conformance.check(picky, value_dim="same", square=True, max_n=100, head_dims=[64, 128], examples=8,
                          dtypes=["float64", "float32"])
    assert r.passed, r.table()
    assert calls and r.by_name("float16_finite").status == "skipped"


def test_an_exception_on_a_declared_input_is_a_failure_with_its_counterexample():
    def breaks_past_64_keys(q, k, v, **opts):
        if k.shape[-2] > 64:
            raise RuntimeError("kernel supports at most 64 keys")
        return numeric.attention(q, k, v, **opts)

    r = conformance.check(breaks_past_64_keys, max_n=MAX_N, examples=EXAMPLES)
    bad = r.by_name("agrees_with_reference")
    assert bad.status == "fail" and bad.detail == "the function raised"
    assert "k (1, 1, 65, 1)" in bad.counterexample and "at most 64 keys" in bad.counterexample


# ------------------------------------------------------------------------------------ the references pass
def test_reference_attention_passes_every_property_and_reports_its_conventions():
    r = conformance.check(numeric.attention, mask=True, max_n=MAX_N, examples=EXAMPLES, kv_heads=True,
                          window=(4, 2), softcap=5.0, alibi=True, key_lengths=True, masked_values_safe=True)
    assert r.passed, r.table()
    assert r.by_name("fully_masked_rows").detail == ("a query with every key masked out returns zeros "
                                                     "(symattn's convention)")
    assert r.by_name("empty_sequences").detail == "n_q = 0: output an empty array; n_k = 0: output zeros"
    assert r.by_name("masked_values_do_not_leak").status == "pass"


@pytest.mark.parametrize("causal", ["top_left", "bottom_right"])
def test_reference_backward_passes_with_causal_masks_both_alignments(causal):
    def bwd(q, k, v, out, d_out, **opts):
        return numeric.attention_backward(q, k, v, d_out, **opts)

    r = conformance.check(numeric.attention, causal=causal, mask=True, dtype="float32", backward=bwd,
                          max_n=MAX_N, examples=EXAMPLES)
    assert r.passed, r.table()
    assert "its dq zeros" in r.by_name("fully_masked_rows").detail


# ------------------------------------------------------------------------------------ classic bugs
# (implementation, options, the property it must fail, properties that must still pass)
GALLERY = [
    (broken.no_scaling, {}, "default_scale", ["convex_hull", "key_value_permutation", "query_permutation",
                                              "large_logits_finite"]),
    (broken.scale_one_over_d, {}, "default_scale", ["convex_hull", "key_value_permutation", "query_permutation",
                                                    "large_logits_finite"]),
    (broken.softmax_wrong_axis, {}, "convex_hull", ["key_value_permutation", "query_permutation",
                                                    "large_logits_finite"]),
    (broken.causal_off_by_one, {"causal": True}, "causal_no_future", ["convex_hull", "large_logits_finite",
                                                                      "float16_finite"]),
    (broken.no_max_subtraction, {}, "large_logits_finite", ["agrees_with_reference", "convex_hull",
                                                            "key_value_permutation", "query_permutation",
                                                            "default_scale"]),
    (broken.keys_permuted_without_values, {}, "key_value_permutation", ["convex_hull", "query_permutation",
                                                                        "large_logits_finite"]),
    (broken.correct, {"mask": True, "masked_values_safe": True}, "masked_values_do_not_leak",
     ["agrees_with_reference", "convex_hull", "key_value_permutation", "deterministic"]),
]


@pytest.mark.parametrize("fn, options, violated, unrelated", GALLERY,
                         ids=[g[0].__name__ + ("_masked" if g[1].get("mask") else "") for g in GALLERY])
def test_broken_implementation_is_caught_by_its_property_only(fn, options, violated, unrelated):
    r = conformance.check(fn, examples=EXAMPLES, max_n=MAX_N, **options)
    bad = r.by_name(violated)
    assert bad.status == "fail", r.table()
    assert bad.counterexample and "shapes" in bad.counterexample
    for name in unrelated:
        assert r.by_name(name).status == "pass", f"{name} should not fail for {fn.__name__}:\n{r.table()}"


@pytest.mark.parametrize("options", [{"mask": True}, {"causal": True}], ids=["padding_mask", "causal"])
def test_nan_behind_a_mask_is_reported_not_failed_unless_the_function_promises_it(options):
    # broken.correct multiplies the weights into V with a matmul, as torch, JAX and textbook kernels
    # do: NaN x 0 = NaN. A convention, reported with its counterexample; graded when promised.
    r = conformance.check(broken.correct, examples=EXAMPLES, max_n=MAX_N, **options)
    leak = r.by_name("masked_values_do_not_leak")
    assert leak.status == "reported" and r.passed, r.table()
    assert "reached the output" in leak.detail and "masked_values_safe" in leak.detail
    assert leak.counterexample and "shapes" in leak.counterexample
    promised = conformance.check(broken.correct, examples=EXAMPLES, max_n=MAX_N, masked_values_safe=True, **options)
    assert promised.by_name("masked_values_do_not_leak").status == "fail"
    assert "masked_values_safe" in promised.options


def test_counterexamples_are_shrunk():
    r = conformance.check(broken.keys_permuted_without_values, examples=EXAMPLES, max_n=MAX_N)
    cex = r.by_name("key_value_permutation").counterexample
    # minimal: one batch, one head, one query of width 1, a handful of keys (a roll of one key is the
    # identity, and the key permutation drawn for two keys may be the identity too)
    assert "q (1, 1, 1, 1)" in cex, cex
    n_k = int(cex.split("k (1, 1, ")[1].split(",")[0])
    assert 2 <= n_k <= 3, cex


def test_nondeterministic_kernel_fails_deterministic():
    state = {"calls": 0}

    def noisy(q, k, v, **opts):
        state["calls"] += 1
        out = numeric.attention(q, k, v, **opts)
        return out + (state["calls"] % 2) * np.finfo(out.dtype).eps * out

    r = conformance.check(noisy, examples=5, max_n=MAX_N)
    assert r.by_name("deterministic").status == "fail"


def test_dropout_rate_and_rescaling_are_checked():
    def dropout_attention(q, k, v, *, dropout=0.0, seed=0, rescale=True, **opts):
        # dropout on the attention weights: P = softmax(S), drop with probability p, keep / (1 - p)
        p = numeric.softmax(numeric.attention_scores(q, k, **opts), axis=-1)
        if dropout:
            keep = np.random.default_rng(seed).random(p.shape) >= dropout
            p = p * keep / ((1 - dropout) if rescale else 1.0)
        return (p @ v).astype(q.dtype)

    ok = conformance.check(dropout_attention, dropout=0.25, examples=5, max_n=MAX_N)
    assert ok.by_name("dropout_rate").status == "pass", ok.table()
    assert ok.by_name("dropout_zero_is_identity").status == "pass"

    def no_rescale(q, k, v, **opts):
        return dropout_attention(q, k, v, rescale=False, **opts)

    bad = conformance.check(no_rescale, dropout=0.25, examples=5, max_n=MAX_N)
    assert bad.by_name("dropout_rate").status == "fail" and "1/(n_k (1 - p))" in bad.by_name("dropout_rate").detail


def test_rope_property_uses_the_given_function():
    ok = conformance.check(numeric.attention, examples=10, max_n=16, rope=numeric.rope)
    assert ok.by_name("rope_relative").status == "pass"

    def absolute_positions(x, positions):  # adds the position: logits depend on absolute position
        return x + positions[:, None]

    bad = conformance.check(numeric.attention, examples=10, max_n=16, rope=absolute_positions)
    assert bad.by_name("rope_relative").status == "fail"


# ------------------------------------------------------------------------------------ arguments
@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"causal": "sideways"}, ValueError, "causal must be"),
        ({"dtype": "int8"}, ValueError, "dtype must be one of"),
        ({"dtype": "bfloat16"}, ValueError, "casts to bfloat16"),
        ({"examples": 0}, ValueError, "examples must be a positive integer"),
        ({"value_dim": "half"}, ValueError, "value_dim must be"),
        ({"max_n": 0}, ValueError, "max_n must be a positive integer"),
        ({"head_dims": [64, 0]}, ValueError, "head_dims must be"),
        ({"dtypes": ["float32"]}, ValueError, "not among the declared dtypes"),
        ({"backward": "numerically"}, ValueError, "backward must be"),
        ({"backward": "autograd"}, ValueError, "can differentiate"),
        ({"mask": "sometimes"}, ValueError, "mask must be"),
        ({"window": (3,)}, ValueError, "window must be"),
        ({"softcap": -1.0}, ValueError, "softcap must be"),
        ({"dropout": 1.0}, ValueError, "dropout must be"),
        ({"kv_heads": 0}, ValueError, "kv_heads must be"),
    ],
)
def test_invalid_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        conformance.check(numeric.attention, **kwargs)


def test_a_variant_the_adapter_has_no_argument_for_is_a_clear_error():
    adapter = conformance.Adapter(option_names={"mask": "mask", "causal": "causal"})
    with pytest.raises(ValueError, match="no argument for 'softcap'"):
        conformance.check(numeric.attention, adapter=adapter, softcap=3.0)


@pytest.mark.parametrize("spec", ["numeric", "numeric:", ":attention", "numeric:no_such_function"])
def test_bad_target_specs_are_rejected(spec):
    with pytest.raises(ValueError):
        conformance.load_callable(spec)


# ------------------------------------------------------------------------------------ CLI
def test_cli_conform_passes_for_numeric_attention_and_emits_json(capsys):
    assert main(["conform", "numeric:attention", "--examples", "5", "--max-n", "32", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is True
    assert {p["property"] for p in data["properties"]} == set(conformance.PROPERTIES)


def test_cli_declares_capabilities_backward_and_lse(capsys):
    code = main(["conform", "numeric:tiled_attention", "--returns-lse", "--backward",
                 "numeric:tiled_attention_backward", "--examples", "5", "--max-n", "70", "--value-dim", "same",
                 "--square", "--head-dims", "16,40", "--causal", "--mask", "--dtypes", "float64,float32",
                 "--window", "8,none", "--align", "top_left", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    status = {p["property"]: p["status"] for p in data["properties"]}
    assert status["backward_agrees_with_reference"] == status["lse_agrees_with_reference"] == "pass"
    assert status["window_top_left_agrees_with_reference"] == "pass"
    assert status["float16_finite"] == "skipped"
    assert data["options"]["head_dims"] == "16,40" and data["options"]["square"] is True


def test_cli_conform_fails_for_a_broken_implementation(capsys):
    code = main(["conform", "tests.symattn.products.broken_attention:no_scaling", "--examples", "10", "--max-n", "32"])
    assert code == 1
    out = capsys.readouterr().out
    assert "default_scale" in out and "FAIL" in out


@pytest.mark.parametrize("argv, message", [
    (["numeric:nope"], "no attribute"),
    (["numeric:attention", "--head-dims", "64,x"], "--head-dims must be a comma-separated list"),
    (["numeric:attention", "--window", "3"], "--window must be LEFT,RIGHT"),
    (["numeric:attention", "--backward", "numeric:nope"], "no attribute"),
    (["numeric:attention", "--device", "cuda"], "--device applies to --adapter torch"),
])
def test_cli_usage_errors_name_the_problem(argv, message, capsys):
    assert main(["conform", *argv]) == 2
    assert message in capsys.readouterr().err


def test_bnhd_layout_adapter_transposes():
    def bnhd_attention(q, k, v, **opts):  # an implementation in (batch, n, heads, d) layout
        t = lambda a: np.swapaxes(a, 1, 2)
        return t(numeric.attention(t(q), t(k), t(v), **opts))

    r = conformance.check(bnhd_attention, examples=10, max_n=32, adapter=conformance.Adapter(layout="bnhd"))
    assert r.passed, r.table()
    wrong = conformance.check(bnhd_attention, examples=10, max_n=32)  # called with the wrong layout
    assert not wrong.passed
