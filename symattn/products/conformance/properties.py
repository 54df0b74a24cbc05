"""The properties of plain attention (and of its gradients), each searched with Hypothesis.

Each function takes the :class:`~symattn.products.conformance.runner.Runner` and returns a
:class:`~symattn.products.conformance.result.PropertyResult`; the basis names the theorem or definition.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from .cases import Case, cases, find
from .protocol import compare, max_error, precision
from .references import (
    ensemble,
    ensemble_backward,
    magnitudes,
    reference,
    reference_backward,
    reference_lse,
)
from .result import CallTimeout, PropertyResult

DEFINITION = "definition (000 'Scaled dot-product attention')"
CAUSAL = "causal mask (004 'The Complete Transformer Block')"
CONVENTION = "convention (not a theorem)"


def search(name: str, basis: str, runner, strategy, fails: Callable, describe: Callable,
           then: Callable | None = None) -> PropertyResult:
    """Search for a failing case; an exception inside the function counts as a failure.

    ``then(case)``: the statements of the reproduction after ``Case(...).arrays()`` (default: the
    call with the case's options, :meth:`~symattn.products.conformance.runner.Runner.reproduction`)."""
    if then is None:
        def then(case):
            return runner.reproduction(case, runner.options(case))

    def cex(case):
        return case.describe(then(case)) if isinstance(case, Case) else repr(case)

    errors: dict = {}

    def wrapped(case):
        try:
            return bool(fails(case))
        except CallTimeout as exc:  # stop the search: every later call would wait as long again
            raise _Hung(case, str(exc)) from None
        except Exception as exc:  # noqa: BLE001  the implementation raised on a declared input: a finding
            errors[case] = f"{type(exc).__name__}: {exc}"
            return True

    try:
        found = find(strategy, wrapped, runner.examples)
    except _Hung as hung:
        return PropertyResult(name, basis, "fail", hung.why, cex(hung.case), examples=runner.examples)
    if found is None:
        return PropertyResult(name, basis, "pass", f"no counterexample in {runner.examples} examples",
                              examples=runner.examples)
    if found in errors:
        return PropertyResult(name, basis, "fail", "the function raised", f"{cex(found)}\n{errors[found]}",
                              examples=runner.examples)
    return PropertyResult(name, basis, "fail", describe(found), cex(found), examples=runner.examples)


class _Hung(BaseException):
    """Raised through Hypothesis (which passes BaseException on) when a call timed out."""

    def __init__(self, case, why: str):
        super().__init__(why)
        self.case, self.why = case, why


def skipped(name: str, basis: str, why: str) -> PropertyResult:
    return PropertyResult(name, basis, "skipped", why)


def _fmt(a: np.ndarray) -> str:
    return np.array2string(np.asarray(a, dtype=np.float64), precision=4, suppress_small=True, max_line_width=100)


# ------------------------------------------------------------------------------------ agreement
def _ref_inputs(runner, q, k, v):
    """The inputs of the reference "in the tested dtype" (float32 when testing float64)."""
    prec = runner.prec if runner.prec.name != "float64" else precision("float32")
    return prec, tuple(prec.cast(a) for a in (q, k, v))


# The reference's error is a maximum over entries: over a handful of entries it is noisy (one
# output entry may round exactly while a correct kernel is two roundings off), so it is also
# measured on fresh inputs of the same shapes, batched up to this many entries.
_MIN_ENTRIES = 4096
_MAX_BATCH = 512  # a kernel may loop over the batch in Python (key lengths): keep that loop short


def _samples(case: Case, opts: dict):
    """The case and, when it is small, a larger batch of fresh inputs of the same shapes."""
    yield case, opts
    entries = case.h * min(case.n_q, case.n_k) * min(case.d, case.d_v)
    b = min(_MAX_BATCH, -(-_MIN_ENTRIES // max(entries, 1)))
    if b > case.b:
        big = dataclasses.replace(case, b=b, seed=case.seed + 1000)
        big_opts = dict(opts)
        if "key_lengths" in big_opts:
            big_opts["key_lengths"] = np.resize(big_opts["key_lengths"], b)
        yield big, big_opts


def member_errors(runner, case: Case, opts: dict, kind: str) -> dict:
    """``{result: {algorithm: error}}``: the error of each correct algorithm of
    :data:`~symattn.products.conformance.references.ENSEMBLE` (``ENSEMBLE_BACKWARD`` for the gradients)
    computed in the tested dtype, per result (``out``, ``lse``, or ``dq``, ``dk``, ``dv``), the
    maximum over :func:`_samples`."""
    errors: dict = {}

    def note(result, member, err):
        per = errors.setdefault(result, {})
        per[member] = max(per.get(member, 0.0), err)

    for c, o in _samples(case, opts):
        q, k, v = c.arrays()
        prec, lo = _ref_inputs(runner, q, k, v)
        rows = ~runner.empty_rows(c, o)
        if kind == "out":
            exact = reference(q, k, v, o)
            for member, r in ensemble(*lo, o, prec).items():
                note("out", member, max_error(r, exact, rows))
        elif kind == "lse":
            note("lse", "numeric", max_error(reference_lse(*lo, o, prec), reference_lse(q, k, v, o), rows))
        else:
            d_out = np.where(rows[..., None], c.d_out(), 0.0)
            exact = reference_backward(q, k, v, d_out, o)
            for member, grads in ensemble_backward(*lo, prec.cast(d_out), o, prec).items():
                for name, r, e in zip(("dq", "dk", "dv"), grads, exact):
                    note(name, member, max_error(r, e, rows if name == "dq" else None))
    return errors


def _reference_errors(runner, case: Case, opts: dict, kind: str) -> dict:
    """The protocol's reference error per result: the worst algorithm of :func:`member_errors`."""
    return {name: max(per.values()) for name, per in member_errors(runner, case, opts, kind).items()}


def forward_comparison(runner, case: Case, opts: dict):
    """The protocol for the output on ``case`` (rows with no visible key left to their own property)."""
    (q, k, v), (qt, kt, vt) = runner.inputs(case)
    out = runner.out(qt, kt, vt, **opts)
    exact = reference(q, k, v, opts)
    size = magnitudes(q, k, v, None, opts)["out"]
    ref_err = _reference_errors(runner, case, opts, "out")["out"]
    return compare(out, exact, ref_err, runner.prec, size, rows=~runner.empty_rows(case, opts))


def lse_comparison(runner, case: Case, opts: dict):
    (q, k, v), (qt, kt, vt) = runner.inputs(case)
    lse = runner.call(qt, kt, vt, **opts)[1]
    rows = ~runner.empty_rows(case, opts)
    exact = reference_lse(q, k, v, opts)
    size = 1.0 + float(np.max(np.abs(exact[rows]), initial=0.0))  # a log's rounding is absolute
    ref_err = _reference_errors(runner, case, opts, "lse")["lse"]
    return compare(lse, exact, ref_err, runner.prec, size, rows=rows)


def backward_comparisons(runner, case: Case, opts: dict):
    """``{"dq": Comparison, "dk": ..., "dv": ...}``, each against float64 gradients."""
    (q, k, v), (qt, kt, vt) = runner.inputs(case)
    empty = runner.empty_rows(case, opts)
    d_out = np.where(empty[..., None], 0.0, case.d_out())  # empty rows: reported separately
    _, grads = runner.grads(qt, kt, vt, runner.prec.cast(d_out), **opts)
    exact = reference_backward(q, k, v, d_out, opts)
    sizes = magnitudes(q, k, v, d_out, opts, grads=True)
    ref_errs = _reference_errors(runner, case, opts, "grads")
    rows = {"dq": ~empty, "dk": None, "dv": None}
    return {name: compare(g, e, ref_errs[name], runner.prec, sizes[name], rows=rows[name])
            for name, g, e in zip(("dq", "dk", "dv"), grads, exact)}


def agreement(name: str, basis: str, runner, strategy, extra: Callable[[Case], dict], parts=("out",)):
    """The FlashAttention protocol on the output, lse and/or gradients, with ``extra(case)`` options."""
    last: dict = {}

    def fails(case: Case):
        opts = runner.options(case, **extra(case))
        found = []
        if "out" in parts:
            c = forward_comparison(runner, case, opts)
            if not c.ok:
                found.append(c.describe("output"))
        if "lse" in parts and runner.returns_lse:
            c = lse_comparison(runner, case, opts)
            if not c.ok:
                found.append(c.describe("lse"))
        if "grads" in parts and runner.backward is not None:
            for g, c in backward_comparisons(runner, case, opts).items():
                if not c.ok:
                    found.append(c.describe(g))
        last[case] = "; ".join(found)
        return bool(found)

    return search(name, basis, runner, strategy, fails, lambda c: last.get(c, ""),
                  lambda c: runner.reproduction(c, runner.options(c, **extra(c))))


def agrees_with_reference(runner) -> PropertyResult:
    return agreement("agrees_with_reference", DEFINITION + "; FlashAttention's 2x error protocol", runner,
                     cases(runner.space), lambda c: {})


def lse_agrees_with_reference(runner) -> PropertyResult:
    name, basis = "lse_agrees_with_reference", "log-sum-exp of the scaled scores (FlashAttention-2, eq. for L)"
    if not runner.returns_lse:
        return skipped(name, basis, "declare returns_lse=True for a function returning (out, lse)")
    return agreement(name, basis, runner, cases(runner.space), lambda c: {}, parts=("lse",))


def backward_agrees_with_reference(runner) -> PropertyResult:
    name, basis = "backward_agrees_with_reference", "attention_backward (dV = P^T dO, dS = P (dP - D))"
    if runner.backward is None:
        return skipped(name, basis, "declare backward='autograd' or backward=<callable>")
    return agreement(name, basis, runner, cases(runner.space), lambda c: {}, parts=("grads",))


# ------------------------------------------------------------------------------------ structure
def convex_hull(runner) -> PropertyResult:
    eps = runner.prec.eps

    def fails(case: Case):
        _, (q, k, v) = runner.inputs(case)
        opts = runner.options(case)
        out = runner.out(q, k, v, **opts)
        v64 = v.astype(np.float64)
        # the hull of ALL value rows: whether masked keys were respected is causal_no_future's
        # (and agrees_with_reference's) business, so a masking bug is not reported twice here
        rows = ~runner.empty_rows(case, opts)  # (b, h, n_q); empty rows: reported separately
        rng = np.random.default_rng(case.seed + 7)
        u = np.concatenate([np.eye(case.d_v), rng.standard_normal((4, case.d_v))], axis=0)  # (m, d_v)
        proj_v = v64 @ u.T  # (b, h, n_k, m)
        proj_o = out @ u.T  # (b, h, n_q, m)
        tol = 16 * eps * (1 + np.abs(proj_v).max())
        lo = proj_v.min(axis=-2, keepdims=True)  # (b, h, 1, m)
        hi = proj_v.max(axis=-2, keepdims=True)
        o = proj_o[rows]  # (rows, m)
        lo, hi = np.broadcast_to(lo, proj_o.shape)[rows], np.broadcast_to(hi, proj_o.shape)[rows]
        return not np.all(np.isfinite(o)) or bool(np.any(o < lo - tol) or np.any(o > hi + tol))

    return search("convex_hull", "attention_output_convex_combination", runner, cases(runner.space), fails,
                  lambda c: "an output row leaves the convex hull of the value rows")


def key_value_permutation(runner) -> PropertyResult:
    name, basis = "key_value_permutation", "attention_permutation_equivariant"
    if runner.causal:
        return skipped(name, basis, "not a property of causal attention (key order is the mask's order)")
    eps = runner.prec.eps

    def fails(case: Case):
        _, (q, k, v) = runner.inputs(case)
        perm = np.random.default_rng(case.seed + 3).permutation(case.n_k)
        opts = runner.options(case)
        out = runner.out(q, k, v, **opts)
        if "mask" in opts:
            opts = dict(opts, mask=opts["mask"][:, perm])
        out_p = runner.out(q, k[..., perm, :], v[..., perm, :], **opts)
        scale = 1.0 + float(np.abs(v).max(initial=0.0))
        return not np.allclose(out, out_p, rtol=64 * eps, atol=64 * eps * scale)

    def then(c: Case):
        perm = f"perm = np.random.default_rng({c.seed + 3}).permutation({c.n_k})"
        opts = runner.options(c)
        first = runner.reproduction(c, opts)
        if "mask" in opts:
            first += "; mask = mask[:, perm]"
        return (f"{first}; import numpy as np; {perm}; "
                "out_p = fn(" + runner.reproduction(c, opts).split("out = fn(", 1)[1]
                .replace("q, k, v", "q, k[..., perm, :], v[..., perm, :]", 1) + "  # differs from out")

    return search(name, basis, runner, cases(runner.space), fails,
                  lambda c: "permuting keys and values together changed the output", then)


def query_permutation(runner) -> PropertyResult:
    name, basis = "query_permutation", "attention_permutation_equivariant"
    if runner.causal:
        return skipped(name, basis, "not a property of causal attention")
    eps = runner.prec.eps

    def fails(case: Case):
        _, (q, k, v) = runner.inputs(case)
        perm = np.random.default_rng(case.seed + 5).permutation(case.n_q)
        opts = runner.options(case)
        out = runner.out(q, k, v, **opts)
        if "mask" in opts:
            opts = dict(opts, mask=opts["mask"][perm, :])
        out_p = runner.out(q[..., perm, :], k, v, **opts)
        scale = 1.0 + float(np.abs(v).max(initial=0.0))
        return not np.allclose(out[..., perm, :], out_p, rtol=64 * eps, atol=64 * eps * scale)

    return search(name, basis, runner, cases(runner.space), fails,
                  lambda c: "permuting the queries did not permute the output rows the same way")


def default_scale(runner) -> PropertyResult:
    eps = runner.prec.eps
    seen = {}

    def fails(case: Case):
        (q, k, v), (qt, kt, vt) = runner.inputs(case)
        opts = runner.options(case)
        out = runner.out(qt, kt, vt, **opts)
        rows = ~runner.empty_rows(case, opts)
        candidates = {"1/sqrt(d_k)": 1 / math.sqrt(case.d), "1/d_k": 1 / case.d, "1 (no scaling)": 1.0}
        errs = {}
        for label, s in candidates.items():
            ref = reference(q * (s * math.sqrt(case.d)), k, v, opts)  # scale s = (s sqrt d) / sqrt d
            errs[label] = float(np.max(np.abs(out - ref)[rows], initial=0.0))
        best = min(errs, key=errs.get)
        seen[case] = (best, errs)
        tol = 1e3 * eps * max(1.0, float(np.abs(v).max()))
        # fail only when the function is consistent with another scale; a function that matches
        # no scale at all is wrong in some other way (agrees_with_reference reports that)
        return errs["1/sqrt(d_k)"] > tol and errs[best] <= tol

    def describe(case):
        best, errs = seen[case]
        return f"the output matches scale {best} (errors: " + ", ".join(f"{k} {e:.2g}" for k, e in errs.items()) + ")"

    # the scale is only visible when d_k > 1 and the scores are not all equal
    return search("default_scale", "scaled_logit_std", runner, cases(runner.space, min_n_k=2, min_d=2),
                  fails, describe)


def _future_thresholds(case: Case, offset: int) -> list[int]:
    """Rows whose first hidden key starts a perturbation: the first row, the last, a few random."""
    rng = np.random.default_rng(case.seed + 11)
    rows = {0, case.n_q - 1, *rng.integers(0, case.n_q, size=4).tolist()}
    return sorted(i for i in rows if 0 <= i + offset + 1 < case.n_k)


def causal_no_future(runner) -> PropertyResult:
    name = "causal_no_future"
    if not runner.causal:
        return skipped(name, CAUSAL, "run with causal='top_left' or 'bottom_right' to test")
    eps = runner.prec.eps

    def fails(case: Case):
        _, (q, k, v) = runner.inputs(case)
        opts = runner.options(case)
        out = runner.out(q, k, v, **opts)
        offset = case.n_k - case.n_q if runner.causal == "bottom_right" else 0
        rng = np.random.default_rng(case.seed + 13)
        tol = 64 * eps * (1.0 + float(np.abs(v).max()))
        for i in _future_thresholds(case, offset):
            t = i + offset + 1  # the first key row i may not see; rows <= i see none of keys >= t
            k2, v2 = k.copy(), v.copy()
            k2[..., t:, :] = runner.prec.cast(rng.standard_normal(k2[..., t:, :].shape) * 5)
            v2[..., t:, :] = runner.prec.cast(rng.standard_normal(v2[..., t:, :].shape) * 5)
            out2 = runner.out(q, k2, v2, **opts)
            # a correct kernel may round differently when hidden keys change (e.g. a tile-level
            # choice of shift depends on them), so allow rounding; a leak moves the row by O(1)
            rows = slice(0, i + 1)
            if not np.allclose(out[..., rows, :], out2[..., rows, :], rtol=tol, atol=tol, equal_nan=True):
                return True
        return False

    alignment = runner.causal.replace("_", "-")
    return search(name, CAUSAL, runner, cases(runner.space), fails,
                  lambda c: f"an output row changed when keys/values it must not see ({alignment} alignment) changed")


# ------------------------------------------------------------------------------------ reported
def _what(row: np.ndarray, zero_name: str = "zeros (symattn's convention)") -> str:
    row = np.asarray(row, dtype=np.float64)
    if row.size == 0:
        return "an empty array"
    if np.all(row == 0):
        return zero_name
    if np.all(np.isnan(row)):
        return "NaN"
    if np.all(row == -np.inf):
        return "-inf"
    return f"values {_fmt(row.ravel()[:6])}" + (" ..." if row.size > 6 else "")


def _small_case(runner, n_q: int, n_k: int) -> Case:
    """A small case inside the declared space (square, value dim, head dims respected)."""
    space = runner.space
    d = space.dims[0] if space.head_dims else 4
    d_v = d if space.value_dim == "same" else 2
    if space.square:
        n_q = n_k = max(n_q, n_k)
    return Case(1, 1, n_q, n_k, d, d_v, 0)


def _masked_row_setup(runner):
    """Inputs with a query that may attend to nothing, within what the function declared."""
    if runner.mask:
        case = _small_case(runner, 3, 4)
        mask = np.ones((case.n_q, case.n_k), dtype=bool)
        mask[1] = False
        mask = runner.as_mask(mask)
        return case, {"mask": mask, **({"causal": runner.causal} if runner.causal else {})}, 1
    if runner.causal == "bottom_right" and not runner.space.square:  # n_q > n_k: the first queries see nothing
        return _small_case(runner, 4, 2), {"causal": "bottom_right"}, 1
    return None


def fully_masked_rows(runner) -> PropertyResult:
    name = "fully_masked_rows"
    setup = _masked_row_setup(runner)
    if setup is None:
        return skipped(name, CONVENTION, "declare mask=True (or causal='bottom_right') to see")
    case, opts, row = setup
    _, (q, k, v) = runner.inputs(case)
    parts = []
    try:
        out, lse = runner.call(q, k, v, **opts)
        parts.append(f"a query with every key masked out returns {_what(out[..., row, :])}")
        if lse is not None:
            parts.append(f"lse {_what(lse[..., row], 'zeros')}")
    except Exception as exc:  # noqa: BLE001  whatever the implementation raises is reported
        return PropertyResult(name, CONVENTION, "reported",
                              f"a query with every key masked out raises {type(exc).__name__}: {exc}")
    if runner.backward is not None:
        try:
            d_out = runner.prec.cast(case.d_out())
            _, (dq, dk, dv) = runner.grads(q, k, v, d_out, **opts)
            parts.append(f"its dq {_what(dq[..., row, :], 'zeros')}")
            finite = all(np.all(np.isfinite(g)) for g in (dk, dv))
            parts.append("dk, dv finite" if finite else "dk, dv not finite")
        except Exception as exc:  # noqa: BLE001  whatever the implementation raises is reported
            parts.append(f"the backward raises {type(exc).__name__}: {exc}")
    return PropertyResult(name, CONVENTION, "reported", "; ".join(parts))


def empty_sequences(runner) -> PropertyResult:
    name = "empty_sequences"
    parts = []
    sizes = (("n_q = n_k = 0", 0, 0),) if runner.space.square else (("n_q = 0", 0, 4), ("n_k = 0", 3, 0))
    for label, n_q, n_k in sizes:
        case = _small_case(runner, n_q, n_k)
        _, (q, k, v) = runner.inputs(case)
        opts = {"causal": runner.causal} if runner.causal else {}
        try:
            out, lse = runner.call(q, k, v, **opts)
            text = f"{label}: output {_what(out, 'zeros')}"
            if lse is not None:
                text += f", lse {_what(lse, 'zeros')}"
        except Exception as exc:  # noqa: BLE001  whatever the implementation raises is reported
            text = f"{label}: raises {type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
        parts.append(text)
    return PropertyResult(name, CONVENTION, "reported", "; ".join(parts))


# ------------------------------------------------------------------------------------ robustness
def large_logits_finite(runner) -> PropertyResult:
    def factor(case: Case) -> float:
        return 1e4 / max(1.0, math.sqrt(case.d))  # scores of magnitude ~1e4

    clip = runner.prec.name in ("float16", "bfloat16")

    def fails(case: Case):
        q, k, v = case.arrays()
        q = q * factor(case)
        if clip:
            q = np.clip(q, -6e4, 6e4)
        qt, kt, vt = (runner.prec.cast(a) for a in (q, k, v))
        opts = runner.options(case)
        out = runner.out(qt, kt, vt, **opts)
        return not np.all(np.isfinite(out[~runner.empty_rows(case, opts)]))

    return search("large_logits_finite", "softmax_add_const", runner, cases(runner.space), fails,
                  lambda c: "scores of magnitude ~1e4 gave a non-finite output (overflow: no max subtraction?)",
                  lambda c: runner.reproduction(c, runner.options(c), f"q = q * {factor(c)!r}"
                                                + ("; q = q.clip(-6e4, 6e4)" if clip else "")))


def float16_finite(runner) -> PropertyResult:
    name, basis = "float16_finite", "numerical robustness"
    if "float16" not in runner.dtypes:
        why = f"float16 is not among the declared dtypes {list(runner.dtypes)}"
        if runner.adapter.name == "jax" and runner.adapter.dtypes and "float16" not in runner.adapter.dtypes:
            why += " (the jax adapter declares only the dtypes its backend computes: XLA on this backend " \
                   "refuses a jitted float16 attention)"
        return skipped(name, basis, why)
    f16 = precision("float16")

    def fails(case: Case):
        q, k, v = (f16.cast(a) for a in case.arrays())
        opts = runner.options(case)
        out = runner.out(q, k, v, **opts)
        return not np.all(np.isfinite(out[~runner.empty_rows(case, opts)]))

    return search(name, basis, runner, cases(runner.space), fails, lambda c: "float16 inputs gave a non-finite output",
                  lambda c: runner.reproduction(c, runner.options(c), dtype="float16"))


def _padding(runner, case: Case, spec):
    """``(opts, padded)``: options hiding some keys from every query, and those keys (bool (n_k,)),
    or None when the declared options cannot hide a key from every query."""
    rng = np.random.default_rng(case.seed + 17)
    if runner.mask and case.n_k >= 2:
        padded = np.zeros(case.n_k, dtype=bool)
        padded[1:] = rng.random(case.n_k - 1) < 0.3
        padded[-1] = True
        opts = runner.options(case)
        allowed = runner.mask_for(case)
        allowed = (allowed if allowed.dtype == np.bool_ else allowed == 0) & ~padded[None, :]
        opts["mask"] = runner.as_mask(allowed)
        return opts, np.broadcast_to(padded, (case.b, case.n_k))
    if spec.key_lengths and case.n_k >= 2:
        lengths = rng.integers(1, case.n_k, size=case.b)
        return runner.options(case, key_lengths=lengths), np.arange(case.n_k)[None, :] >= lengths[:, None]
    if runner.causal == "top_left" and case.n_k > case.n_q:
        padded = np.arange(case.n_k) >= case.n_q
        return runner.options(case), np.broadcast_to(padded, (case.b, case.n_k))
    return None


def masked_values_do_not_leak(runner, spec) -> PropertyResult:
    """Graded only when the function promises it (``masked_values_safe``); otherwise reported.

    A masked key has weight exactly 0 (``exp(-inf)``), but ``0 x NaN`` and ``0 x inf`` are NaN:
    any kernel that multiplies the weights into ``V`` with a matmul (every BLAS-based one: torch,
    JAX, a textbook tiled kernel) lets NaN padding through. That is a convention, not a bug, unless
    the function declared otherwise."""
    name, basis = "masked_values_do_not_leak", "masking (a masked key has weight exactly 0)"
    if not (runner.mask or spec.key_lengths or runner.causal == "top_left"):
        return skipped(name, basis, "declare mask=True, key_lengths=True or causal='top_left' to hide keys")
    if not runner.masked_values_safe:
        basis = CONVENTION + "; graded with masked_values_safe=True"
    eps = runner.prec.eps
    last = {}

    def fails(case: Case):
        setup = _padding(runner, case, spec)
        if setup is None:
            return False
        opts, padded = setup
        _, (q, k, v) = runner.inputs(case)
        where = padded[:, None, :, None]  # (b, 1, n_k, 1)
        k_bad = np.where(where, np.nan, k).astype(k.dtype)
        v_bad = np.where(where, np.inf, v).astype(v.dtype)
        rows = ~runner.empty_rows(case, opts)
        out = runner.out(q, k_bad, v_bad, **opts)
        clean = runner.out(q, np.where(where, 0, k).astype(k.dtype), np.where(where, 0, v).astype(v.dtype), **opts)
        tol = 64 * eps * (1.0 + float(np.abs(v).max()))
        if not np.all(np.isfinite(out[rows])) or not np.allclose(out[rows], clean[rows], rtol=tol, atol=tol):
            last[case] = "NaN in masked keys / inf in masked values reached the output"
            return True
        if runner.backward is not None:
            d_out = np.where(rows[..., None], runner.prec.cast(case.d_out()), 0).astype(q.dtype)
            _, grads = runner.grads(q, k_bad, v_bad, d_out, **opts)
            for g_name, g in zip(("dq", "dk", "dv"), grads):
                if not np.all(np.isfinite(g)):
                    last[case] = f"NaN/inf in masked keys or values reached {g_name}"
                    return True
        return False

    found = search(name, basis, runner, cases(runner.space, min_n_k=2), fails, lambda c: last.get(c, ""))
    if runner.masked_values_safe:
        return found
    if found.status == "pass":
        return PropertyResult(name, basis, "reported", f"NaN/inf in masked keys and values reached no result in "
                              f"{runner.examples} examples", examples=runner.examples)
    return PropertyResult(name, basis, "reported", f"{found.detail} (NaN x 0 = NaN in a matmul: not graded "
                          "unless the function declares masked_values_safe)", found.counterexample,
                          examples=runner.examples)


def deterministic(runner) -> PropertyResult:
    name, basis = "deterministic", "reproducibility (same input, same bits)"
    last = {}

    def fails(case: Case):
        _, (q, k, v) = runner.inputs(case)
        opts = runner.options(case)
        a = runner.call(q.copy(), k.copy(), v.copy(), **opts)
        b = runner.call(q.copy(), k.copy(), v.copy(), **opts)
        for label, x, y in zip(("output", "lse"), a, b):
            if x is not None and not np.array_equal(x, y, equal_nan=True):
                last[case] = f"two calls on the same input gave different {label} bits"
                return True
        if runner.backward is not None:
            d_out = runner.prec.cast(case.d_out())
            _, g1 = runner.grads(q.copy(), k.copy(), v.copy(), d_out, **opts)
            _, g2 = runner.grads(q.copy(), k.copy(), v.copy(), d_out, **opts)
            for g_name, x, y in zip(("dq", "dk", "dv"), g1, g2):
                if not np.array_equal(x, y, equal_nan=True):
                    last[case] = f"two backward calls on the same input gave different {g_name} bits"
                    return True
        return False

    return search(name, basis, runner, cases(runner.space), fails, lambda c: last.get(c, ""))


# ------------------------------------------------------------------------------------ rope
def rope_relative(runner, rope: Callable | None) -> PropertyResult:
    if rope is None:
        return skipped("rope_relative", "rope_relative_logit", "run with rope=<a rope(x, positions) function>")
    from hypothesis import strategies as st

    @st.composite
    def rope_cases(draw):
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

    found = find(rope_cases(), fails, runner.examples)
    if found is None:
        return PropertyResult("rope_relative", "rope_relative_logit", "pass",
                              f"no counterexample in {runner.examples} examples", examples=runner.examples)
    d, p, p2, shift, seed = found
    return PropertyResult("rope_relative", "rope_relative_logit", "fail",
                          "the logit changed when both positions were shifted by the same amount",
                          f"d = {d}, positions ({p}, {p2}) vs ({p + shift}, {p2 + shift}), seed {seed}")
