"""The variants of attention, each an opt-in property naming the definition it comes from.

=====================================  =====================================================
``gqa_agrees_with_reference``          grouped-query attention (Ainslie et al., "GQA", 2023;
                                       MQA: Shazeer, 2019): query head m uses kv head
                                       m // (h / h_kv). ``kv_heads=True`` draws every divisor
                                       h_kv of h (MQA included); an int fixes the group size.
``window_<align>_agrees_with_reference``  sliding window (Beltagy et al., "Longformer", 2020):
                                       query i sees key j iff i + o - left <= j <= i + o + right,
                                       o = 0 (top-left) or n_k - n_q (bottom-right).
``softcap_agrees_with_reference``      logit soft-capping (Gemma 2, 2024): c tanh(s / c) after
                                       scaling, before masking.
``alibi_agrees_with_reference``        ALiBi (Press et al., 2022): bias -slope_h |i + o - j|,
                                       slopes of ``numeric.alibi_slopes(h)``.
``key_lengths_agree_with_reference``   variable lengths per batch element: keys >= length[b]
                                       are masked (FlashAttention's varlen, JAX's
                                       ``key_value_seq_lengths``).
``dropout_rate``                       dropout on the attention weights (Srivastava et al., 2014):
                                       the fraction dropped is p within a binomial tolerance and
                                       kept weights are scaled by 1 / (1 - p).
``dropout_masks_independent``         the masks of different seeds, of different (batch, head) slices
                                       and of consecutive query rows agree on p^2 + (1-p)^2 of the
                                       weights (6 sigma): the seed is used, no mask is reused.
``dropout_zero_is_identity``           p = 0 gives the output without dropout, bit for bit.
=====================================  =====================================================

Each compares the output (and, when declared, the lse and the gradients) with the float64
reference by the FlashAttention protocol, with the mask and causal options declared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .cases import Case, cases
from .properties import agreement, search, skipped
from .result import PropertyResult

__all__ = ["Spec", "properties"]

_ALIGNS = ("top_left", "bottom_right")


@dataclass(frozen=True)
class Spec:
    kv_heads: bool | int | None = None
    window: tuple | None = None
    align: tuple[str, ...] = _ALIGNS
    softcap: float | None = None
    alibi: bool = False
    key_lengths: bool = False
    dropout: float | None = None

    @classmethod
    def build(cls, *, kv_heads, window, align, softcap, alibi, key_lengths, dropout) -> Spec:
        if not (kv_heads is None or kv_heads is True or kv_heads is False
                or (isinstance(kv_heads, int) and kv_heads >= 1)):
            raise ValueError(f"kv_heads must be None, True or a positive group size h / h_kv, got {kv_heads!r}")
        kv_heads = None if kv_heads is False else kv_heads
        if window is not None:
            if not (isinstance(window, (tuple, list)) and len(window) == 2
                    and all(x is None or (isinstance(x, int) and not isinstance(x, bool) and x >= 0) for x in window)):
                raise ValueError(f"window must be (left, right), each a non-negative int or None, got {window!r}")
            window = tuple(window)
        align = (align,) if isinstance(align, str) else tuple(align)
        if not align or any(a not in _ALIGNS for a in align):
            raise ValueError(f"align must be 'top_left', 'bottom_right' or both, got {align!r}")
        if softcap is not None and (isinstance(softcap, bool) or not isinstance(softcap, (int, float))
                                    or not math.isfinite(softcap) or softcap <= 0):
            raise ValueError(f"softcap must be a positive finite number, got {softcap!r}")
        if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float))
                                    or not 0 <= dropout < 1):
            raise ValueError(f"dropout must be a probability in [0, 1), got {dropout!r}")
        return cls(kv_heads, window, align, None if softcap is None else float(softcap), bool(alibi),
                   bool(key_lengths), None if dropout is None else float(dropout))

    def require(self, adapter) -> None:
        """Each declared variant must have an argument in the adapter (else: a clear error now)."""
        if self.kv_heads is not None:
            adapter.require("kv_heads", "kv_heads")
        if self.window is not None:
            adapter.require("window", "window")
            for a in self.align:
                adapter.native_options({"window": self.window, "align": a})  # refuses an alignment it lacks
        if self.softcap is not None:
            adapter.require("softcap", "softcap")
        if self.alibi:
            adapter.require("alibi_slopes", "alibi")
        if self.key_lengths:
            adapter.require("key_lengths", "key_lengths")
        if self.dropout is not None:
            adapter.require("dropout", "dropout")
            if adapter.seed is None:
                adapter.require("seed", "dropout (it needs a seed)")

    def describe(self) -> dict:
        out = {}
        if self.kv_heads is not None:
            out["kv_heads"] = self.kv_heads
        if self.window is not None:
            out["window"] = f"({self.window[0]}, {self.window[1]})"
            out["align"] = ",".join(self.align)
        if self.softcap is not None:
            out["softcap"] = self.softcap
        if self.alibi:
            out["alibi"] = True
        if self.key_lengths:
            out["key_lengths"] = True
        if self.dropout is not None:
            out["dropout"] = self.dropout
        return out


PARTS = ("out", "lse", "grads")


def _gqa(runner, spec: Spec) -> PropertyResult:
    name, basis = ("gqa_agrees_with_reference",
                   "grouped-query attention (Ainslie et al. 2023): head m uses kv head m // (h / h_kv)")
    if spec.kv_heads is None:
        return skipped(name, basis, "declare kv_heads=True (or a group size)")
    space = runner.space.restrict(kv_heads=spec.kv_heads)
    return agreement(name, basis, runner, cases(space), lambda c: {"kv_heads": True}, PARTS)


def _window(runner, spec: Spec) -> list[PropertyResult]:
    results = []
    for align in _ALIGNS:
        name = f"window_{align}_agrees_with_reference"
        basis = f"sliding window (Longformer 2020), {align.replace('_', '-')} aligned"
        if spec.window is None:
            results.append(skipped(name, basis, "declare window=(left, right)"))
        elif align not in spec.align:
            results.append(skipped(name, basis, f"alignment {align} not declared"))
        elif runner.causal and runner.causal != align:
            results.append(skipped(name, basis, f"the causal mask is {runner.causal.replace('_', '-')} aligned"))
        else:
            results.append(agreement(name, basis, runner, cases(runner.space),
                                     lambda c, a=align: {"window": spec.window, "align": a}, PARTS))
    return results


def _softcap(runner, spec: Spec) -> PropertyResult:
    name, basis = "softcap_agrees_with_reference", "logit soft-capping (Gemma 2): c tanh(s / c) before masking"
    if spec.softcap is None:
        return skipped(name, basis, "declare softcap=c")
    return agreement(name, basis, runner, cases(runner.space), lambda c: {"softcap": spec.softcap}, PARTS)


def _alibi(runner, spec: Spec) -> PropertyResult:
    name, basis = "alibi_agrees_with_reference", "ALiBi (Press et al. 2022): bias -slope_h |i + o - j|"
    if not spec.alibi:
        return skipped(name, basis, "declare alibi=True")
    import numeric

    align = "bottom_right" if runner.causal == "bottom_right" else "top_left"
    return agreement(name, basis, runner, cases(runner.space),
                     lambda c: {"alibi_slopes": numeric.alibi_slopes(c.h), "align": align}, PARTS)


def _key_lengths(runner, spec: Spec) -> PropertyResult:
    name, basis = "key_lengths_agree_with_reference", "variable key lengths per batch element (keys >= length masked)"
    if not spec.key_lengths:
        return skipped(name, basis, "declare key_lengths=True")

    def extra(c: Case):
        return {"key_lengths": np.random.default_rng(c.seed + 19).integers(1, c.n_k + 1, size=c.b)}

    return agreement(name, basis, runner, cases(runner.space), extra, PARTS)


def _dropout(runner, spec: Spec) -> list[PropertyResult]:
    rate, identity = "dropout_rate", "dropout_zero_is_identity"
    basis = "dropout on the attention weights (Srivastava et al. 2014), kept weights scaled by 1/(1-p)"
    independent = "dropout_masks_independent"
    if spec.dropout is None:
        return [skipped(rate, basis, "declare dropout=p"), skipped(independent, basis, "declare dropout=p"),
                skipped(identity, basis, "declare dropout=p")]
    p = spec.dropout
    results = []
    # Equal scores (q = 0) and v = I: output entry (i, j) is 0 if weight (i, j) was dropped, else
    # 1 / (n_k (1 - p)). Binomial: the number dropped among N is within 5 sigma of p N.
    n = 64
    b, h = 2, 2
    q = np.zeros((b, h, n, n))
    k = np.random.default_rng(0).standard_normal((b, h, n, n))
    v = np.broadcast_to(np.eye(n), (b, h, n, n)).copy()
    q, k, v = (runner.prec.cast(a) for a in (q, k, v))
    details, ok = [], True
    masks = []
    try:
        fractions = []
        for seed in (0, 1, 2):
            out = runner.out(q, k, v, dropout=p, seed=seed)
            dropped = np.isclose(out, 0, atol=1e-3 / n)
            masks.append(dropped)
            fractions.append(float(dropped.mean()))
            kept = out[~dropped]
            expect = 1 / (n * (1 - p))
            if kept.size and not np.allclose(kept, expect, rtol=8 * runner.prec.eps * n, atol=0):
                ok = False
                details.append(f"kept weights are {_first(kept):.4g}, not 1/(n_k (1 - p)) = {expect:.4g}")
                break
        count = b * h * n * n
        sigma = math.sqrt(count * p * (1 - p)) / count
        off = [f for f in fractions if abs(f - p) > 5 * sigma + 1 / count]
        if off:
            ok = False
            details.append(f"dropped fractions {', '.join(f'{f:.4f}' for f in fractions)}, expected {p} +- "
                           f"{5 * sigma:.4f}")
        if ok:
            details.append(f"dropped fractions {', '.join(f'{f:.4f}' for f in fractions)} (p = {p}, 5 sigma = "
                           f"{5 * sigma:.4f}); kept weights scaled by 1/(1-p)")
        results.append(PropertyResult(rate, basis, "pass" if ok else "fail", "; ".join(details),
                                      None if ok else f"q = 0, v = I, shapes {(b, h, n, n)}, seeds 0, 1, 2"))
    except Exception as exc:  # noqa: BLE001  whatever the implementation raises is reported
        results.append(PropertyResult(rate, basis, "fail", "the function raised", f"{type(exc).__name__}: {exc}"))
        results.append(PropertyResult(independent, basis, "fail", "the function raised",
                                      f"{type(exc).__name__}: {exc}"))
    else:
        results.append(_independence(independent, basis, p, masks, (b, h, n, n)))

    def fails(case: Case):
        _, (qt, kt, vt) = runner.inputs(case)
        opts = runner.options(case)
        plain = runner.call(qt, kt, vt, **opts)[0]
        zero = runner.call(qt, kt, vt, dropout=0.0, seed=1, **opts)[0]
        return not np.array_equal(plain, zero, equal_nan=True)

    results.append(search(identity, basis, runner, cases(runner.space), fails,
                          lambda c: "dropout p = 0 changed the output bits",
                          lambda c: runner.reproduction(c, runner.options(c)) + "; out_0 = fn("
                          + runner.reproduction(c, runner.options(c, dropout=0.0, seed=1)).split("out = fn(", 1)[1]
                          + "  # differs from out"))
    return results


def _independence(name: str, basis: str, p: float, masks: list, shape: tuple) -> PropertyResult:
    """Dropout masks (boolean, True = dropped) of seeds 0, 1, 2 on ``shape``: independent draws
    agree on a fraction ``a = p^2 + (1 - p)^2`` of the weights, within binomial noise. A fraction
    above ``a + 6 sigma`` (one in 10^9 for independent masks) between two seeds (the seed is
    ignored), two (batch, head) slices (one mask shared by every slice) or consecutive query rows
    (one mask shared by every row) is a failure; the same mask gives 1."""
    if p == 0:
        return PropertyResult(name, basis, "pass", "p = 0: no weight is dropped, nothing to compare")
    a = p * p + (1 - p) * (1 - p)

    def too_similar(x, y):
        count = x.size
        agree = float(np.mean(x == y))
        return agree > a + 6 * math.sqrt(a * (1 - a) / count) + 1 / count, agree

    b, h, _, _ = shape
    checks = []
    for i, j in ((x, y) for x in range(len(masks)) for y in range(x + 1, len(masks))):
        checks.append((f"seeds {i} and {j}", masks[i], masks[j]))
    slices = [(x, y) for x in range(b) for y in range(h)]
    for seed, m in enumerate(masks):
        for s1 in range(len(slices)):
            for s2 in range(s1 + 1, len(slices)):
                checks.append((f"(batch, head) slices {slices[s1]} and {slices[s2]} under seed {seed}",
                               m[slices[s1]], m[slices[s2]]))
        checks.append((f"consecutive query rows under seed {seed}", m[..., :-1, :], m[..., 1:, :]))
    for label, x, y in checks:
        bad, agree = too_similar(x, y)
        if bad:
            return PropertyResult(name, basis, "fail",
                                  f"the dropout masks of {label} agree on {agree:.4f} of the weights; independent "
                                  f"masks agree on p^2 + (1-p)^2 = {a:.4f} (seed ignored, or one mask reused)",
                                  f"q = 0, v = I, shapes {shape}, dropout={p}, seeds 0, 1, 2")
    return PropertyResult(name, basis, "pass", f"masks of different seeds, (batch, head) slices and query rows "
                          f"agree on about p^2 + (1-p)^2 = {a:.4f} of the weights (within 6 sigma)")


def _first(a):
    return float(np.asarray(a).ravel()[0])


def properties(runner, spec: Spec) -> list[PropertyResult]:
    return [_gqa(runner, spec), *_window(runner, spec), _softcap(runner, spec), _alibi(runner, spec),
            _key_lengths(runner, spec), *_dropout(runner, spec)]


NAMES = ("gqa_agrees_with_reference", "window_top_left_agrees_with_reference",
         "window_bottom_right_agrees_with_reference", "softcap_agrees_with_reference",
         "alibi_agrees_with_reference", "key_lengths_agree_with_reference", "dropout_rate",
         "dropout_masks_independent", "dropout_zero_is_identity")
