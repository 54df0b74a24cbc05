"""Conformance: the theorems as executable contracts for any attention implementation.

A kernel engineer hands :func:`check` a callable ``fn(q, k, v, **options) -> out`` (numpy in,
numpy out; an :class:`Adapter` wraps torch/JAX functions and other layouts) and gets, for each
property the theory guarantees, a verdict and -- when it fails -- a *shrunk* counterexample found
by Hypothesis (``hypothesis.find`` searches for a failing input, then minimises it).

Properties and the results they come from:

==========================  ======================================================================
``agrees_with_reference``   Definition of scaled dot-product attention (seed 000); error protocol
                            of FlashAttention: error <= 2 x the error of the reference computed in
                            the tested dtype, plus a rounding allowance.
``convex_hull``             ``attention_output_convex_combination`` (rows are convex combinations
                            of value rows; checked along coordinate axes and random directions).
``key_value_permutation``   ``attention_permutation_equivariant`` (keys and values permuted
                            together leave the output unchanged).
``query_permutation``       ``attention_permutation_equivariant`` (permuting queries permutes
                            the output rows).
``default_scale``           ``scaled_logit_std`` (the scale is 1/sqrt(d_k); reports which scale
                            the function actually uses when it is not).
``causal_no_future``        causal masking (seed 004: future scores set to -inf); the alignment
                            tested is stated (top-left or bottom-right).
``fully_masked_rows``       reported, not graded: what the function returns for a query that may
                            attend to nothing (symattn's convention: zeros; torch: NaN).
``large_logits_finite``     ``softmax_add_const`` (max subtraction is exact), scores ~1e4.
``float16_finite``          float16 inputs give finite outputs.
``rope_relative``           ``rope_relative_logit`` (optional, with a RoPE function).
==========================  ======================================================================

Example
-------
>>> import numeric
>>> result = check(numeric.attention, examples=10)
>>> result.passed
True
"""

from __future__ import annotations

import importlib
import json
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = [
    "Adapter",
    "PropertyResult",
    "ConformanceResult",
    "check",
    "load_callable",
    "torch_adapter",
    "PROPERTIES",
]

_EPS = {"float64": np.finfo(np.float64).eps, "float32": np.finfo(np.float32).eps, "float16": np.finfo(np.float16).eps}
# Rounding allowance added to the 2x protocol, in units of the dtype's epsilon times the largest
# |v|: the reference's own error can be exactly 0 on tiny inputs (e.g. one key), where any
# correctly rounded implementation may still differ by a few ulps.
_ALLOWANCE_ULPS = 8


# ---------------------------------------------------------------------------------------- adapters
@dataclass(frozen=True)
class Adapter:
    """How to call an implementation: convert numpy inputs, rename options, convert the output back.

    ``layout`` is the implementation's tensor layout: ``"bhnd"`` (batch, heads, n, d; what symattn
    and ``torch.nn.functional.scaled_dot_product_attention`` use) or ``"bnhd"`` (batch, n, heads, d;
    FlashAttention's Python API). Inputs are generated as (batch, heads, n, d) and transposed.
    """

    name: str = "numpy"
    layout: str = "bhnd"
    to_native: Callable[[np.ndarray], Any] = staticmethod(lambda a: a)
    from_native: Callable[[Any], np.ndarray] = staticmethod(lambda a: np.asarray(a))
    option_names: dict = field(default_factory=dict)  # ours -> theirs, e.g. {"mask": "attn_mask"}
    causal_value: Callable[[str], Any] = staticmethod(lambda alignment: alignment)

    def __post_init__(self) -> None:
        if self.layout not in ("bhnd", "bnhd"):
            raise ValueError(f"layout must be 'bhnd' or 'bnhd', got {self.layout!r}")

    def call(self, fn: Callable, q: np.ndarray, k: np.ndarray, v: np.ndarray, **options) -> np.ndarray:
        def lay(a):  # (B, H, N, D) -> implementation layout
            return a if self.layout == "bhnd" or a.ndim != 4 else np.ascontiguousarray(a.transpose(0, 2, 1, 3))

        native = {}
        for key, value in options.items():
            if value is None:
                continue
            if key == "causal":
                value = self.causal_value(value)
                if value is None:
                    continue
            elif isinstance(value, np.ndarray):
                value = self.to_native(value)
            native[self.option_names.get(key, key)] = value
        out = fn(self.to_native(lay(q)), self.to_native(lay(k)), self.to_native(lay(v)), **native)
        out = self.from_native(out)
        return out if self.layout == "bhnd" or out.ndim != 4 else out.transpose(0, 2, 1, 3)


NUMPY = Adapter()


def torch_adapter(layout: str = "bhnd") -> Adapter:
    """Adapter for torch functions with the signature of ``scaled_dot_product_attention``:
    numpy -> CPU tensors, ``mask`` -> ``attn_mask``, ``causal`` -> ``is_causal`` (top-left only:
    torch aligns its causal mask to the top-left)."""
    import torch

    def causal_value(alignment):
        if alignment == "bottom_right":
            raise ValueError("torch's is_causal is top-left aligned; test it with --causal top_left")
        return bool(alignment)

    return Adapter(
        name="torch",
        layout=layout,
        to_native=lambda a: torch.from_numpy(np.ascontiguousarray(a)),
        from_native=lambda t: t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t),
        option_names={"mask": "attn_mask", "causal": "is_causal"},
        causal_value=causal_value,
    )


def load_callable(spec: str) -> Callable:
    """``"package.module:function"`` -> the function (imported, never evaluated as code)."""
    if ":" not in spec:
        raise ValueError(f"expected MODULE:FUNCTION, got {spec!r}")
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"expected MODULE:FUNCTION, got {spec!r}")
    module = importlib.import_module(module_name)
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{module_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{spec} is not callable")
    return obj


# ---------------------------------------------------------------------------------------- results
@dataclass
class PropertyResult:
    name: str
    basis: str  # theorem id or definition it comes from
    status: str  # "pass", "fail", "error", "reported", "skipped"
    detail: str = ""
    counterexample: str | None = None
    examples: int = 0

    def to_json(self) -> dict:
        return {
            "property": self.name,
            "basis": self.basis,
            "status": self.status,
            "detail": self.detail,
            "counterexample": self.counterexample,
            "examples": self.examples,
        }


@dataclass
class ConformanceResult:
    target: str
    options: dict
    properties: list[PropertyResult]
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return all(p.status in ("pass", "reported", "skipped") for p in self.properties)

    def by_name(self, name: str) -> PropertyResult:
        for p in self.properties:
            if p.name == name:
                return p
        raise KeyError(name)

    def failed(self) -> list[str]:
        return [p.name for p in self.properties if p.status in ("fail", "error")]

    def to_json(self) -> dict:
        return {
            "target": self.target,
            "options": self.options,
            "passed": self.passed,
            "seconds": round(self.seconds, 2),
            "properties": [p.to_json() for p in self.properties],
        }

    def table(self) -> str:
        w = max(len(p.name) for p in self.properties)
        lines = [f"conformance of {self.target} ({', '.join(f'{k}={v}' for k, v in self.options.items())})", ""]
        for p in self.properties:
            lines.append(f"  {p.name:<{w}}  {p.status:<8}  [{p.basis}]  {p.detail}")
            if p.counterexample:
                for line in p.counterexample.splitlines():
                    lines.append(f"  {'':<{w}}    {line}")
        verdict = "PASS" if self.passed else f"FAIL ({', '.join(self.failed())})"
        lines += ["", f"{verdict} in {self.seconds:.1f}s"]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class Case:
    """One generated input: shapes (b, h, n_q, n_k, d, d_v), a seed and a logit scale."""

    b: int
    h: int
    n_q: int
    n_k: int
    d: int
    d_v: int
    seed: int
    scale: float = 1.0

    def arrays(self, dtype=np.float64):
        rng = np.random.default_rng(self.seed)
        q = rng.standard_normal((self.b, self.h, self.n_q, self.d)) * self.scale
        k = rng.standard_normal((self.b, self.h, self.n_k, self.d))
        v = rng.standard_normal((self.b, self.h, self.n_k, self.d_v))
        return q.astype(dtype), k.astype(dtype), v.astype(dtype)

    def describe(self) -> str:
        return (
            f"shapes q {(self.b, self.h, self.n_q, self.d)}, k {(self.b, self.h, self.n_k, self.d)}, "
            f"v {(self.b, self.h, self.n_k, self.d_v)}; entries N(0,1) from "
            f"numpy.random.default_rng({self.seed})" + (f", q scaled by {self.scale:g}" if self.scale != 1 else "")
        )


def _cases(square: bool = False, max_n: int = 8, max_d: int = 8):
    from hypothesis import strategies as st

    n = st.integers(1, max_n)

    @st.composite
    def build(draw):
        n_q = draw(n)
        n_k = n_q if square else draw(n)
        return Case(
            b=draw(st.integers(1, 2)),
            h=draw(st.integers(1, 2)),
            n_q=n_q,
            n_k=n_k,
            d=draw(st.integers(1, max_d)),
            d_v=draw(st.integers(1, max_d)),
            seed=draw(st.integers(0, 2**16)),
            scale=draw(st.sampled_from([1.0, 3.0])),
        )

    return build()


def _find(strategy, fails: Callable[[Any], bool], examples: int):
    """The minimal input for which ``fails`` holds, or None (deterministic search)."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    s = settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
    )
    try:
        return find(strategy, fails, settings=s)
    except NoSuchExample:
        return None


def _fmt(a: np.ndarray) -> str:
    return np.array2string(np.asarray(a, dtype=np.float64), precision=4, suppress_small=True, max_line_width=100)


# ---------------------------------------------------------------------------------------- reference
def _reference(q, k, v, *, mask=None, causal=False, scale=None):
    import numeric

    return numeric.attention(q, k, v, mask=mask, causal=causal, scale=scale)


def _causal_mask(n_q: int, n_k: int, alignment: str) -> np.ndarray:
    offset = n_k - n_q if alignment == "bottom_right" else 0
    return np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + offset  # (n_q, n_k)


# ---------------------------------------------------------------------------------------- the check
PROPERTIES = (
    "agrees_with_reference",
    "convex_hull",
    "key_value_permutation",
    "query_permutation",
    "default_scale",
    "causal_no_future",
    "fully_masked_rows",
    "large_logits_finite",
    "float16_finite",
    "rope_relative",
)


class _Runner:
    def __init__(self, fn, adapter, dtype, causal, mask, examples):
        self.fn = fn
        self.adapter = adapter
        self.dtype = np.dtype(dtype)
        self.causal = causal  # False, "top_left" or "bottom_right"
        self.mask = mask
        self.examples = examples

    def options(self, case: Case, *, full_mask: np.ndarray | None = None):
        opts = {}
        if self.causal:
            opts["causal"] = self.causal
        if full_mask is not None:
            opts["mask"] = full_mask
        elif self.mask:
            opts["mask"] = self.mask_for(case)
        return opts

    def mask_for(self, case: Case) -> np.ndarray:
        rng = np.random.default_rng(case.seed + 1)
        m = rng.random((case.n_q, case.n_k)) < 0.7
        m[:, 0] = True  # every query may attend to something (fully masked rows are reported separately)
        return m

    def reference_mask(self, case: Case):
        m = self.mask_for(case) if self.mask else None
        return m

    def call(self, q, k, v, **opts):
        out = self.adapter.call(self.fn, q, k, v, **opts)
        if not isinstance(out, np.ndarray):
            raise TypeError(f"the function returned {type(out).__name__}, not an array")
        if isinstance(out, np.ndarray) and out.shape != q.shape[:-1] + (v.shape[-1],):
            raise ValueError(f"output shape {out.shape}, expected {q.shape[:-1] + (v.shape[-1],)}")
        return out


def _property(name, basis, runner: _Runner, strategy, fails, describe) -> PropertyResult:
    """Search for a failing case; an exception inside the function counts as a failure."""
    errors: dict = {}

    def wrapped(case):
        try:
            return bool(fails(case))
        except Exception as exc:  # the implementation raised: that is a finding too
            errors[case] = f"{type(exc).__name__}: {exc}"
            return True

    t0 = time.perf_counter()
    found = _find(strategy, wrapped, runner.examples)
    if found is None:
        return PropertyResult(name, basis, "pass", f"no counterexample in {runner.examples} examples",
                              examples=runner.examples)
    if found in errors:
        return PropertyResult(name, basis, "fail", "the function raised", f"{found.describe()}\n{errors[found]}",
                              examples=runner.examples)
    return PropertyResult(name, basis, "fail", describe(found), found.describe(), examples=runner.examples)


def check(
    fn: Callable,
    *,
    causal: bool | str = False,
    mask: bool = False,
    dtype: str = "float64",
    examples: int = 40,
    adapter: Adapter | None = None,
    rope: Callable | None = None,
    target: str | None = None,
) -> ConformanceResult:
    """Check ``fn(q, k, v, **options)`` against every property; see the module docstring.

    Parameters
    ----------
    fn : the implementation. Called with arrays of shape (batch, heads, n, d) (through ``adapter``)
        and, when tested, ``causal=...`` and ``mask=<bool array (n_q, n_k), True = may attend>``.
    causal : False, True/"top_left" (query i sees keys j <= i), or "bottom_right"
        (j <= i + n_k - n_q).
    mask : also pass a random boolean mask.
    dtype : "float64", "float32" or "float16" -- the precision the implementation is tested in.
    examples : Hypothesis examples per property (the search is deterministic).
    adapter : how to call ``fn`` (default: numpy in, numpy out, (batch, heads, n, d) layout).
    rope : optional ``rope(x, positions)`` to test that logits depend only on position offsets.
    """
    if causal is True:
        causal = "top_left"
    if causal not in (False, "top_left", "bottom_right"):
        raise ValueError(f"causal must be False, True, 'top_left' or 'bottom_right', got {causal!r}")
    if dtype not in _EPS:
        raise ValueError(f"dtype must be one of {sorted(_EPS)}, got {dtype!r}")
    if not isinstance(examples, int) or examples < 1:
        raise ValueError(f"examples must be a positive integer, got {examples!r}")
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    adapter = adapter or NUMPY
    runner = _Runner(fn, adapter, dtype, causal, mask, examples)
    t0 = time.perf_counter()
    results = [
        _agrees(runner),
        _convex_hull(runner),
        _key_value_permutation(runner),
        _query_permutation(runner),
        _default_scale(runner),
        _causal_no_future(runner),
        _fully_masked(runner),
        _large_logits(runner),
        _float16(runner),
        _rope(runner, rope),
    ]
    options = {"dtype": dtype, "causal": causal or "off", "mask": mask, "examples": examples,
               "adapter": adapter.name, "layout": adapter.layout}
    name = target or f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"
    return ConformanceResult(name, options, results, time.perf_counter() - t0)


# ---------------------------------------------------------------------------------------- properties
def _ref_args(runner: _Runner, case: Case):
    return dict(mask=runner.reference_mask(case), causal=runner.causal or False)


def _agrees(runner: _Runner) -> PropertyResult:
    eps = _EPS[runner.dtype.name]
    last = {}

    def fails(case: Case):
        q, k, v = case.arrays(np.float64)
        exact = _reference(q, k, v, **_ref_args(runner, case))
        qt, kt, vt = (a.astype(runner.dtype) for a in (q, k, v))
        out = runner.call(qt, kt, vt, **runner.options(case)).astype(np.float64)
        # the reference computed in the tested dtype (float16 accumulates in float32, as numeric does)
        ref_lo = _reference(qt, kt, vt, **_ref_args(runner, case)).astype(np.float64)
        err = np.max(np.abs(out - exact)) if out.size else 0.0
        ref_err = np.max(np.abs(ref_lo - exact)) if out.size else 0.0
        allowance = _ALLOWANCE_ULPS * eps * max(1.0, float(np.max(np.abs(v))) if v.size else 1.0)
        last[case] = (err, ref_err, allowance)
        return not np.all(np.isfinite(out)) or err > 2 * ref_err + allowance

    def describe(case):
        err, ref_err, allowance = last.get(case, (math.nan, math.nan, math.nan))
        return (f"max error {err:.3g} > 2 x reference error {ref_err:.3g} + allowance {allowance:.3g}"
                if np.isfinite(err) else "non-finite output")

    return _property("agrees_with_reference", "definition (000 'Scaled dot-product attention')", runner,
                     _cases(square=bool(runner.causal)), fails, describe)


def _directions(d_v: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed + 7)
    return np.concatenate([np.eye(d_v), rng.standard_normal((4, d_v))], axis=0)  # (d_v + 4, d_v)


def _convex_hull(runner: _Runner) -> PropertyResult:
    eps = _EPS[runner.dtype.name]

    def fails(case: Case):
        q, k, v = (a.astype(runner.dtype) for a in case.arrays())
        out = runner.call(q, k, v, **runner.options(case)).astype(np.float64)
        v64 = v.astype(np.float64)
        # the hull of ALL value rows: whether masked keys were respected is causal_no_future's
        # (and agrees_with_reference's) business, so a masking bug is not reported twice here
        allowed = np.ones((case.n_q, case.n_k), dtype=bool)
        if runner.mask or runner.causal:
            full = np.ones_like(allowed)
            if runner.mask:
                full &= runner.mask_for(case)
            if runner.causal:
                full &= _causal_mask(case.n_q, case.n_k, runner.causal)
            allowed[~full.any(axis=1)] = False  # rows with nothing to attend to: reported separately
        u = _directions(case.d_v, case.seed)  # (m, d_v)
        proj_v = v64 @ u.T  # (b, h, n_k, m)
        proj_o = out @ u.T  # (b, h, n_q, m)
        tol = 16 * eps * (1 + np.abs(proj_v).max())
        for i in range(case.n_q):
            keys = allowed[i]
            if not keys.any():
                continue  # fully masked row: reported separately
            lo = proj_v[..., keys, :].min(axis=-2)  # (b, h, m)
            hi = proj_v[..., keys, :].max(axis=-2)
            o = proj_o[..., i, :]
            if not np.all(np.isfinite(o)) or np.any(o < lo - tol) or np.any(o > hi + tol):
                return True
        return False

    return _property("convex_hull", "attention_output_convex_combination", runner, _cases(square=bool(runner.causal)),
                     fails, lambda c: "an output row leaves the convex hull of the value rows it may attend to")


def _key_value_permutation(runner: _Runner) -> PropertyResult:
    if runner.causal:
        return PropertyResult("key_value_permutation", "attention_permutation_equivariant", "skipped",
                              "not a property of causal attention (key order is the mask's order)")
    eps = _EPS[runner.dtype.name]

    def fails(case: Case):
        q, k, v = (a.astype(runner.dtype) for a in case.arrays())
        perm = np.random.default_rng(case.seed + 3).permutation(case.n_k)
        opts = runner.options(case)
        out = runner.call(q, k, v, **opts).astype(np.float64)
        if "mask" in opts:
            opts = dict(opts, mask=opts["mask"][:, perm])
        out_p = runner.call(q, k[..., perm, :], v[..., perm, :], **opts).astype(np.float64)
        return not np.allclose(out, out_p, rtol=64 * eps, atol=64 * eps)

    return _property("key_value_permutation", "attention_permutation_equivariant", runner, _cases(), fails,
                     lambda c: "permuting keys and values together changed the output")


def _query_permutation(runner: _Runner) -> PropertyResult:
    if runner.causal:
        return PropertyResult("query_permutation", "attention_permutation_equivariant", "skipped",
                              "not a property of causal attention")
    eps = _EPS[runner.dtype.name]

    def fails(case: Case):
        q, k, v = (a.astype(runner.dtype) for a in case.arrays())
        perm = np.random.default_rng(case.seed + 5).permutation(case.n_q)
        opts = runner.options(case)
        out = runner.call(q, k, v, **opts).astype(np.float64)
        if "mask" in opts:
            opts = dict(opts, mask=opts["mask"][perm, :])
        out_p = runner.call(q[..., perm, :], k, v, **opts).astype(np.float64)
        return not np.allclose(out[..., perm, :], out_p, rtol=64 * eps, atol=64 * eps)

    return _property("query_permutation", "attention_permutation_equivariant", runner, _cases(), fails,
                     lambda c: "permuting the queries did not permute the output rows the same way")


def _default_scale(runner: _Runner) -> PropertyResult:
    eps = _EPS[runner.dtype.name]
    seen = {}

    def fails(case: Case):
        q, k, v = case.arrays()
        qt, kt, vt = (a.astype(runner.dtype) for a in (q, k, v))
        out = runner.call(qt, kt, vt, **runner.options(case)).astype(np.float64)
        candidates = {"1/sqrt(d_k)": 1 / math.sqrt(case.d), "1/d_k": 1 / case.d, "1 (no scaling)": 1.0}
        errs = {}
        for label, s in candidates.items():
            ref = _reference(q, k, v, scale=s, **_ref_args(runner, case))
            errs[label] = float(np.max(np.abs(out - ref))) if out.size else 0.0
        best = min(errs, key=errs.get)
        seen[case] = (best, errs)
        tol = 1e3 * eps * max(1.0, float(np.abs(v).max()))
        # fail only when the function is consistent with another scale; a function that matches
        # no scale at all is wrong in some other way (agrees_with_reference reports that)
        return errs["1/sqrt(d_k)"] > tol and errs[best] <= tol

    def describe(case):
        best, errs = seen[case]
        return f"the output matches scale {best} (errors: " + ", ".join(f"{k} {e:.2g}" for k, e in errs.items()) + ")"

    from hypothesis import strategies as st

    # the scale is only visible when d_k > 1 and the scores are not all equal
    strategy = _cases(square=bool(runner.causal)).filter(lambda c: c.d >= 2 and c.n_k >= 2)
    return _property("default_scale", "scaled_logit_std", runner, strategy, fails, describe)


def _causal_no_future(runner: _Runner) -> PropertyResult:
    if not runner.causal:
        return PropertyResult("causal_no_future", "causal mask (004 'The Complete Transformer Block')", "skipped",
                              "run with --causal to test")

    eps = _EPS[runner.dtype.name]

    def fails(case: Case):
        q, k, v = (a.astype(runner.dtype) for a in case.arrays())
        out = runner.call(q, k, v, **runner.options(case)).astype(np.float64)
        allowed = _causal_mask(case.n_q, case.n_k, runner.causal)
        rng = np.random.default_rng(case.seed + 11)
        k2, v2 = k.copy(), v.copy()
        future = ~allowed.any(axis=0)  # keys no query may see
        for i in range(case.n_q):
            hidden = ~allowed[i]
            if not hidden.any():
                continue
            k2 = k.copy()
            v2 = v.copy()
            k2[..., hidden, :] = rng.standard_normal(k2[..., hidden, :].shape).astype(runner.dtype) * 5
            v2[..., hidden, :] = rng.standard_normal(v2[..., hidden, :].shape).astype(runner.dtype) * 5
            out2 = runner.call(q, k2, v2, **runner.options(case)).astype(np.float64)
            # a correct kernel may round differently when hidden keys change (e.g. a tile-level
            # choice of shift depends on them), so allow rounding; a leak moves the row by O(1)
            tol = 64 * eps * (1.0 + float(np.abs(v).max()))
            if not np.allclose(out[..., i, :], out2[..., i, :], rtol=tol, atol=tol):
                return True
        del future
        return False

    alignment = runner.causal.replace("_", "-")
    return _property("causal_no_future", "causal mask (004 'The Complete Transformer Block')", runner,
                     _cases(), fails,
                     lambda c: f"an output row changed when keys/values it must not see ({alignment} alignment) changed")


def _fully_masked(runner: _Runner) -> PropertyResult:
    q, k, v = (a.astype(runner.dtype) for a in Case(1, 1, 3, 4, 4, 2, 0).arrays())
    mask = np.ones((3, 4), dtype=bool)
    mask[1] = False
    try:
        out = runner.call(q, k, v, mask=mask, **({"causal": runner.causal} if runner.causal else {}))
        row = np.asarray(out, dtype=np.float64)[..., 1, :]
        if np.all(row == 0):
            what = "zeros (symattn's convention)"
        elif np.all(np.isnan(row)):
            what = "NaN (torch's convention for an empty softmax)"
        else:
            what = f"values {_fmt(row.ravel())}"
        return PropertyResult("fully_masked_rows", "convention (not a theorem)", "reported",
                              f"a query with every key masked out returns {what}")
    except Exception as exc:
        return PropertyResult("fully_masked_rows", "convention (not a theorem)", "reported",
                              f"a query with every key masked out raises {type(exc).__name__}: {exc}")


def _large_logits(runner: _Runner) -> PropertyResult:
    def fails(case: Case):
        q, k, v = case.arrays()
        q = q * 1e4 / max(1.0, math.sqrt(case.d))  # scores of magnitude ~1e4
        if runner.dtype == np.float16:
            q = np.clip(q, -6e4, 6e4)
        qt, kt, vt = (a.astype(runner.dtype) for a in (q, k, v))
        out = runner.call(qt, kt, vt, **runner.options(case))
        return not np.all(np.isfinite(np.asarray(out, dtype=np.float64)))

    return _property("large_logits_finite", "softmax_add_const", runner, _cases(square=bool(runner.causal)), fails,
                     lambda c: "scores of magnitude ~1e4 gave a non-finite output (overflow: no max subtraction?)")


def _float16(runner: _Runner) -> PropertyResult:
    def fails(case: Case):
        q, k, v = (a.astype(np.float16) for a in case.arrays())
        out = runner.call(q, k, v, **runner.options(case))
        return not np.all(np.isfinite(np.asarray(out, dtype=np.float64)))

    return _property("float16_finite", "numerical robustness", runner, _cases(square=bool(runner.causal)), fails,
                     lambda c: "float16 inputs gave a non-finite output")


def _rope(runner: _Runner, rope: Callable | None) -> PropertyResult:
    if rope is None:
        return PropertyResult("rope_relative", "rope_relative_logit", "skipped", "run with --rope MODULE:FUNCTION")
    from hypothesis import strategies as st

    @st.composite
    def cases(draw):
        d = 2 * draw(st.integers(1, 4))
        return (d, draw(st.integers(0, 50)), draw(st.integers(0, 50)), draw(st.integers(1, 40)),
                draw(st.integers(0, 2**16)))

    def fails(c):
        d, p, p2, shift, seed = c
        rng = np.random.default_rng(seed)
        q = rng.standard_normal(d)
        k = rng.standard_normal(d)

        def logit(a, b):
            rq = np.asarray(rope(q[None, :], np.array([a])), dtype=np.float64)[0]
            rk = np.asarray(rope(k[None, :], np.array([b])), dtype=np.float64)[0]
            return float(rq @ rk)

        return not math.isclose(logit(p, p2), logit(p + shift, p2 + shift), rel_tol=1e-9, abs_tol=1e-9)

    found = _find(cases(), fails, runner.examples)
    if found is None:
        return PropertyResult("rope_relative", "rope_relative_logit", "pass",
                              f"no counterexample in {runner.examples} examples", examples=runner.examples)
    d, p, p2, shift, seed = found
    return PropertyResult("rope_relative", "rope_relative_logit", "fail",
                          "the logit changed when both positions were shifted by the same amount",
                          f"d = {d}, positions ({p}, {p2}) vs ({p + shift}, {p2 + shift}), seed {seed}")


def dumps(result: ConformanceResult) -> str:
    return json.dumps(result.to_json(), indent=2)
