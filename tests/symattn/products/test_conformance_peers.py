"""Peers through the adapters, when installed: torch SDPA and JAX's dot_product_attention.

What they do on fully masked rows, empty sequences and NaN padding is measured by the reported
properties (see the README); these tests assert the properties they pass."""

import re

import pytest

from symattn.products import conformance

MAX_N = 96
EXAMPLES = 10
STRUCTURE = ("convex_hull", "key_value_permutation", "query_permutation", "default_scale", "deterministic")


def statuses(r):
    return {p.name: p.status for p in r.properties}


def test_torch_sdpa_forward_and_autograd_with_bool_and_float_masks():
    torch = pytest.importorskip("torch")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for mask in ("bool", "float"):
        r = conformance.check(sdpa, dtype="float64", mask=mask, backward="autograd", max_n=MAX_N, examples=EXAMPLES,
                              adapter=conformance.torch_adapter())
        s = statuses(r)
        assert all(s[name] == "pass" for name in STRUCTURE + ("agrees_with_reference",
                                                              "backward_agrees_with_reference")), r.table()
        assert r.by_name("fully_masked_rows").status == "reported"


def test_torch_sdpa_causal_top_left_with_enable_gqa_and_dropout():
    torch = pytest.importorskip("torch")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    r = conformance.check(sdpa, dtype="float32", causal=True, kv_heads=True, dropout=0.2, backward="autograd",
                          max_n=MAX_N, examples=EXAMPLES, adapter=conformance.torch_adapter())
    s = statuses(r)
    assert s["causal_no_future"] == s["gqa_agrees_with_reference"] == "pass", r.table()
    assert s["dropout_rate"] == s["dropout_zero_is_identity"] == "pass", r.table()
    with pytest.raises(ValueError, match="top-left"):
        conformance.check(sdpa, causal="bottom_right", adapter=conformance.torch_adapter())


def test_torch_bfloat16_is_compared_with_the_same_protocol():
    torch = pytest.importorskip("torch")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    r = conformance.check(sdpa, dtype="bfloat16", max_n=MAX_N, examples=EXAMPLES,
                          adapter=conformance.torch_adapter(dtype="bfloat16"))
    assert r.by_name("agrees_with_reference").status == "pass", r.table()
    assert r.by_name("float16_finite").status == "skipped"


def test_torch_adapter_refuses_a_device_that_is_absent():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(ValueError, match="cuda"):
        conformance.torch_adapter(device="cuda")


def test_jax_dot_product_attention_forward_and_vjp_with_value_dim_same():
    jax = pytest.importorskip("jax")
    r = conformance.check(jax.nn.dot_product_attention, dtype="float32", dtypes=["float32"], value_dim="same",
                          mask=True, backward="autograd", max_n=64, examples=8, adapter=conformance.jax_adapter())
    s = statuses(r)
    assert all(s[name] == "pass" for name in STRUCTURE + ("agrees_with_reference",
                                                          "backward_agrees_with_reference")), r.table()
    with pytest.raises(ValueError, match="jax_enable_x64"):
        conformance.check(jax.nn.dot_product_attention, dtype="float64", adapter=conformance.jax_adapter())


# ------------------------------------------------------------------ torch flash CPU, bfloat16 backward
def _flash_bf16(torch):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def sdpa(q, k, v, **o):
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, **o)
    return sdpa


def _flash_bf16_runner(torch, causal):
    from symattn.products.conformance.runner import prepare

    runner, _ = prepare(_flash_bf16(torch), dtype="bfloat16", max_n=256, backward="autograd", causal=causal,
                        value_dim="same", adapter=conformance.torch_adapter(dtype="bfloat16"))
    return runner


@pytest.mark.parametrize("causal", [False, True])
def test_accumulate_rounded_is_what_torch_flash_cpu_bfloat16_backward_computes(causal):
    """torch's flash CPU backward adds each tile's product into the bfloat16 gradients (dK, dV over
    tiles of 32 queries below 192 queries): the ensemble's "accumulate_rounded" reproduces its dV
    (almost) bit for bit and its dK mostly, far more often than a single final rounding does. (From
    192 queries torch's tiles are 64 queries: fewer roundings than the member's, so no bit match.)"""
    torch = pytest.importorskip("torch")
    import numpy as np

    from symattn.products.conformance.cases import Case
    from symattn.products.conformance.protocol import precision
    from symattn.products.conformance.references import ensemble_backward

    runner = _flash_bf16_runner(torch, causal)
    prec = precision("bfloat16")
    for n_q, n_k, d, seed in ((150, 100, 64, 3), (40, 200, 32, 4), (190, 190, 59, 5), (65, 17, 32, 6)):
        case = Case(1, 2, n_q, n_k, d, d, seed, 1.0, None)
        opts = runner.options(case)
        (q, k, v), (qt, kt, vt) = runner.inputs(case)
        d_out = prec.cast(case.d_out())
        _, grads = runner.grads(qt, kt, vt, d_out, **opts)
        members = ensemble_backward(*(prec.cast(a) for a in (q, k, v)), d_out, opts, prec)
        for i, name in ((1, "dk"), (2, "dv")):
            same = {m: float(np.mean(members[m][i] == grads[i])) for m in ("accumulate_rounded", "recompute_rounded")}
            assert same["accumulate_rounded"] >= (0.95 if name == "dv" else 0.8), (case.describe(), name, same)
            margin = 0.1 if n_q > 64 else 0.0  # two tiles of 32 queries: one rounding more than a single one
            assert same["accumulate_rounded"] >= same["recompute_rounded"] + margin, (case.describe(), name, same)


def test_torch_flash_bfloat16_backward_passes_where_single_rounding_references_raised_false_alarms():
    """Causal cases where torch's flash CPU bf16 dV / dK exceeded the bound of the ensemble without
    "accumulate_rounded" (1.14, 1.27 measured here): inside it with it, which sets the bound there."""
    torch = pytest.importorskip("torch")

    from symattn.products.conformance import properties
    from symattn.products.conformance.cases import Case
    from symattn.products.conformance.protocol import compare
    from symattn.products.conformance.references import magnitudes, reference_backward

    runner = _flash_bf16_runner(torch, True)
    worst_without = 0.0
    for n_q, n_k, d, seed, result in ((65, 17, 32, 509, "dv"), (160, 160, 32, 802, "dk")):
        case = Case(1, 1, n_q, n_k, d, d, seed, 1.0, None)
        opts = runner.options(case)
        assert all(c.ok for c in properties.backward_comparisons(runner, case, opts).values()), case.describe()
        (q, k, v), (qt, kt, vt) = runner.inputs(case)
        d_out = case.d_out()
        _, grads = runner.grads(qt, kt, vt, runner.prec.cast(d_out), **opts)
        i = ("dq", "dk", "dv").index(result)
        exact = reference_backward(q, k, v, d_out, opts)[i]
        refs = properties.member_errors(runner, case, opts, "grads")[result]
        assert max(refs, key=refs.get) == "accumulate_rounded", refs
        without = max(e for m, e in refs.items() if m != "accumulate_rounded")
        c = compare(grads[i], exact, without, runner.prec, magnitudes(q, k, v, d_out, opts, grads=True)[result])
        worst_without = max(worst_without, c.err / (c.factor * c.ref_err + c.allowance))
    assert worst_without > 1.0  # the false alarm the member removes (torch 2.13 CPU, AVX512 here)


def test_bfloat16_gradients_with_three_times_the_reference_error_fail():
    """The 3x-error kernel of the gallery, in bfloat16 through the torch adapter: the ensemble with
    "accumulate_rounded" still fails its gradients. (Its output is no test in bfloat16: there the
    reference's error is the final rounding, half an ulp, and 3x that rounds back to within 1 ulp;
    nor is 1.2x, whose rounding to bfloat16 adds up to half an ulp. float32 tests both.)"""
    torch = pytest.importorskip("torch")

    from .test_conformance_gallery import kernel_with_error_factor

    fn, bwd = kernel_with_error_factor(3.0, dtype="bfloat16")

    def to_np(t):
        return t.detach().float().numpy()

    def to_torch(a):
        return torch.tensor(a, dtype=torch.bfloat16)

    def ours(o):  # torch's option names back to numeric's
        assert set(o) <= {"is_causal"}, o
        return {"causal": True} if o.get("is_causal") else {}

    def fn_torch(q, k, v, **o):
        return to_torch(fn(*(to_np(a) for a in (q, k, v)), **ours(o)))

    def bwd_torch(q, k, v, out, d_out, **o):
        return tuple(to_torch(g) for g in bwd(*(to_np(a) for a in (q, k, v, out, d_out)), **ours(o)))

    for options in ({}, {"causal": True}):
        r = conformance.check(fn_torch, dtype="bfloat16", backward=bwd_torch, max_n=MAX_N, examples=EXAMPLES,
                              adapter=conformance.torch_adapter(dtype="bfloat16"), **options)
        found = r.by_name("backward_agrees_with_reference")
        assert found.status == "fail" and re.match(r"d[qkv]: max error", found.detail), r.table()
        assert r.by_name("convex_hull").status == "pass", r.table()  # the kernel runs (and is close)


def test_torch_flash_bfloat16_grouped_kv_heads_backward_passes():
    """With grouped kv heads torch's flash CPU sums a kv head's bf16 dK, dV through the group's query
    heads tile after tile (24 roundings for 4 heads of 191 queries): found by the calibration at
    1.36 (dv) and 1.12 (dk) against a member that summed the group once; inside the bound now."""
    torch = pytest.importorskip("torch")

    from symattn.products.conformance import properties
    from symattn.products.conformance.cases import Case
    from symattn.products.conformance.runner import prepare

    runner, _ = prepare(_flash_bf16(torch), dtype="bfloat16", max_n=256, backward="autograd", causal=True,
                        kv_heads=True, value_dim="same", adapter=conformance.torch_adapter(dtype="bfloat16"))
    for case in (Case(2, 4, 191, 17, 80, 80, 59888, 1.0, 1), Case(2, 3, 2, 33, 40, 40, 4287, 1.0, 1)):
        opts = runner.options(case, kv_heads=True)
        found = properties.backward_comparisons(runner, case, opts)
        assert all(c.ok for c in found.values()), (case.describe(), {k: c.describe(k) for k, c in found.items()})


def test_torch_flash_float32_backward_passes_at_default_options():
    """torch's flash CPU float32 backward recomputes the scores as gemm(alpha = scale, K, Q^T), which
    folds the scale into K ((scale K) Q^T): its P is then off by up to ~30 ulp where a scale applied
    after the product is off by 2, and its dq was 2.8x the ensemble's worst (ratio 1.42, found by the
    calibration) before the member "recompute_kscaled" modelled that order; inside the bound now."""
    torch = pytest.importorskip("torch")

    from symattn.products.conformance import properties
    from symattn.products.conformance.cases import Case
    from symattn.products.conformance.runner import prepare

    torch.set_num_threads(1)
    runner, _ = prepare(_flash_bf16(torch), dtype="float32", max_n=256, backward="autograd",
                        adapter=conformance.torch_adapter(dtype="float32"))
    case = Case(b=3, h=2, n_q=37, n_k=63, d=40, d_v=40, seed=50542)
    opts = runner.options(case)
    found = properties.backward_comparisons(runner, case, opts)
    assert all(c.ok for c in found.values()), (case.describe(), {k: c.describe(k) for k, c in found.items()})
