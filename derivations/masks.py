r"""Causal masks, sliding windows and ALiBi
========================================

A mask multiplies each exponential ``e^{s_ij}`` by an indicator (the ``-inf`` added by
implementations is ``e^{-inf} = 0``); :mod:`symattn.maths.masks` writes it as
:math:`\mathbb 1[lo \le j \le hi]`. The rule ``mask_restrict`` turns a masked sum over all keys
into a plain sum over the keys the mask keeps, checking from the ranges which end wins.

Main results
------------
* ``causal_score_pairs``: a causal mask keeps ``n(n+1)/2`` of the ``n^2`` pairs (top-left),
  ``n_q n_k - n_q(n_q-1)/2`` in the bottom-right convention with ``n_q <= n_k``.
* ``sliding_window_score_pairs``: a window of ``w <= n`` keys (the query and the ``w - 1`` before
  it) keeps ``w(w+1)/2 + (n-w)w`` pairs.
* ``sliding_window_eq_band_attention``: masked attention with the band mask is plain attention
  over the keys ``max(1, i-w+1)..i``.
* ``causal_eq_window_left_unbounded``: a window at least as long as the sequence is the causal mask.
* ``alibi_causal_eq_key_position_bias``: under a causal mask, ALiBi's bias ``-m|i-j|`` gives the
  same attention as the per-key bias ``+m j`` (the ``-m i`` is constant along the row), for any real ``m``.
* ``alibi_slopes_geometric``: for ``h = 2^p`` heads, the reference code's slopes are ``2^{-8k/h}``,
  a geometric sequence of ratio ``2^{-8/h}`` starting at ``2^{-8/h}``.
* ``alibi_slopes_between_powers_of_two``: for ``2^p < h < 2^{p+1}``, the reference code gives head
  ``2^p + q`` the slope ``2^{-4(2q-1)/2^p}``, the geometric mean of two consecutive slopes of ``2^p`` heads.

References
----------
* Vaswani et al. (2017), section 3.2.3 (masking by ``-inf``); PyTorch
  ``scaled_dot_product_attention(is_causal=True)`` (top-left); FlashAttention 2, bottom-right
  causal mask for ``n_q != n_k``.
* Beltagy, Peters and Cohan, "Longformer" (2020), section 3.1; Jiang et al., "Mistral 7B" (2023),
  section 2 (sliding-window attention).
* Press, Smith and Lewis, "Train Short, Test Long: Attention with Linear Biases", ICLR 2022,
  section 3 (the bias ``-m (i - j)`` and the slopes).

Tags: causal mask, sliding window, band attention, ALiBi, score pairs
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations._beyond import TOPIC, exact_count
from symattn.engine.theorem import NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, IndexRange, Statement
from symattn.maths.masks import causal_mask, score_pairs, window_mask
from symattn.rules.definitions import define

n, w, n_q, n_k = sp.symbols("n w n_q n_k", integer=True, positive=True)
i = sp.Symbol("i", integer=True, positive=True)
j, k = sp.symbols("j k", integer=True)
s = sp.IndexedBase("s", real=True)  # scores s[i, j]
v = sp.IndexedBase("v", real=True)  # one coordinate of the values
m = sp.Symbol("m", real=True)  # ALiBi slope (the reduction holds for any real slope)


def _masked_pairs(mask, rows, cols):
    return sp.Sum(sp.Sum(mask, (j, 1, cols)), (i, 1, rows))


# ------------------------------------------------------------------------ causal pairs
_causal_statement = Statement(
    sp.ImmutableMatrix([_masked_pairs(causal_mask(i, j), n, n), _masked_pairs(causal_mask(i, j, n_k - n_q), n_q, n_k)]),
    sp.ImmutableMatrix([n * (n + 1) / 2, n_q * n_k - n_q * (n_q - 1) / 2]),
)
_NQ_LE_NK = Assumption("n_q_le_n_k", condition=sp.Le(n_q, n_k),
                       text=r"$n_q \le n_k$: the queries are the last $n_q$ of the $n_k$ positions")


def _causal_derivation() -> Derivation:
    return (
        Derivation(_causal_statement.lhs)
        .eq(sp.ImmutableMatrix([sp.Sum(sp.Sum(1, (j, 1, i)), (i, 1, n)),
                                sp.Sum(sp.Sum(1, (j, 1, i + n_k - n_q)), (i, 1, n_q))]),
            "mask_restrict", note=r"query $i$ keeps the keys $1, \dots, i$ (top-left), $1, \dots, i + n_k - n_q$ "
                                  r"(bottom-right); "
            r"$i \le n_q$ and $n_q \le n_k$ make these ends the binding ones")
        .eq(_causal_statement.rhs, "sum_evaluate", note=r"$\sum_i i = n(n+1)/2$; $\sum_i (i + n_k - n_q) = n_q n_k - "
                                                        r"n_q(n_q-1)/2$")
    )


def _count_mask(nq, nk, keep) -> int:
    ii, jj = np.meshgrid(np.arange(1, nq + 1), np.arange(1, nk + 1), indexing="ij")  # (n_q, n_k)
    return int(keep(ii, jj).sum())


def _pairs_numeric(seed: int) -> NumericResult:
    bad, samples = None, 0
    for nq in range(1, 9):
        for nk in range(nq, 11):
            top_left = _count_mask(nq, nq, lambda a, b: np.tril(np.ones_like(a, bool)))
            # bottom-right: torch's tril with diagonal n_k - n_q
            bottom_right = _count_mask(nq, nk, lambda a, b, nk=nk, nq=nq: np.tril(np.ones_like(a, bool), k=nk - nq))
            if (top_left, bottom_right) != (score_pairs(nq, causal=True), score_pairs(nq, nk, causal="bottom_right")):
                bad = f"n_q = {nq}, n_k = {nk}: counted {(top_left, bottom_right)}"
            samples += 1
    return exact_count(bad, samples, seed,
                       "np.tril masks (diagonal 0 and n_k - n_q) counted for all 1 <= n_q <= n_k <= 10 against "
                       "symattn.maths.masks.score_pairs")


register(Theorem(
    id="causal_score_pairs",
    claim=r"A causal mask over $n$ positions keeps exactly $n(n+1)/2$ score pairs, and a bottom-right aligned one "
          r"with $n_q \le n_k$ keeps exactly $n_q n_k - n_q(n_q - 1)/2$.",
    title="A causal mask keeps $n(n+1)/2$ of the $n^2$ score pairs ($n_q n_k - n_q(n_q-1)/2$ bottom-right)",
    statement=_causal_statement,
    source="extension; Vaswani et al. (2017), section 3.2.3 (masking); FlashAttention 2 (bottom-right causal mask)",
    hypotheses=(_NQ_LE_NK,),
    derivation=_causal_derivation,
    dimensions=(n, n_q, n_k),
    numeric=_pairs_numeric,
    plain=(
        "Query $i$ of $n$ sees the keys $1, \\dots, i$, so a causal mask keeps $1 + 2 + \\dots + n = n(n+1)/2$ "
        "of the $n^2$ pairs: a little over half. With $n_q \\le n_k$ queries at the end of the sequence "
        "(the bottom-right convention of decoding with a cache), query $i$ sees $i + n_k - n_q$ keys: "
        "$n_q n_k - n_q(n_q-1)/2$ pairs."
    ),
    notes="A kernel saves this work only if it skips fully masked blocks; masking a full score matrix costs $n^2$.",
    topic=TOPIC,
))


# ------------------------------------------------------------------------ window pairs
_W_RANGE = IndexRange("window_length", index=w, lower=1, upper=n)
_window_statement = Statement(_masked_pairs(window_mask(i, j, w), n, n), w * (w + 1) / 2 + (n - w) * w)


def _window_derivation() -> Derivation:
    start = sp.Max(1, i - w + 1)
    per_query = i - start + 1
    return (
        Derivation(_window_statement.lhs)
        .eq(sp.Sum(sp.Sum(1, (j, start, i)), (i, 1, n)), "mask_restrict",
            note=r"query $i$ keeps the keys $\max(1, i-w+1), \dots, i$ ($i \le n$)")
        .eq(sp.Sum(per_query, (i, 1, n)), "sum_evaluate", note="count the keys of each query")
        .eq(sp.Sum(per_query, (i, 1, w)) + sp.Sum(per_query, (i, w + 1, n)), "sum_split", at=w,
            note="the first $w$ queries, whose window is cut by the start of the sequence, and the rest")
        .eq(sp.Sum(i, (i, 1, w)) + sp.Sum(w, (i, w + 1, n)), "minmax_by_range",
            note=r"for $i \le w$ the window starts at key $1$; for $i > w$ at key $i - w + 1$")
        .eq(_window_statement.rhs, "sum_evaluate", note=r"$1 + \dots + w$, then $n - w$ full windows of $w$ keys")
    )


def _window_numeric(seed: int) -> NumericResult:
    bad, samples = None, 0
    for nn in range(1, 13):
        for ww in range(1, nn + 1):
            counted = _count_mask(nn, nn, lambda a, b, ww=ww: (b <= a) & (b >= a - ww + 1))
            if counted != score_pairs(nn, window=ww):
                bad = f"n = {nn}, w = {ww}: counted {counted}"
            samples += 1
    return exact_count(bad, samples, seed,
                       "band masks counted for all 1 <= w <= n <= 12 against symattn.maths.masks.score_pairs")


register(Theorem(
    id="sliding_window_score_pairs",
    claim=r"For every window $w$ with $1 \le w \le n$, the sliding-window mask keeps exactly $w(w+1)/2 + (n - w)w$ "
          r"score pairs.",
    title="A sliding window of $w$ keys keeps $w(w+1)/2 + (n - w) w$ score pairs",
    statement=_window_statement,
    source="extension; Beltagy et al. (2020), 'Longformer', section 3.1; Jiang et al. (2023), 'Mistral 7B', section 2",
    hypotheses=(_W_RANGE,),
    derivation=_window_derivation,
    dimensions=(n, w),
    numeric=_window_numeric,
    plain=(
        "When each query sees itself and the $w - 1$ keys before it ($1 \\le w \\le n$), the first $w$ "
        "queries see $1, 2, \\dots, w$ keys and the remaining $n - w$ see $w$ each: "
        "$w(w+1)/2 + (n-w)w$ pairs, linear in $n$ for fixed $w$. At $w = n$ it is the causal count $n(n+1)/2$."
    ),
    topic=TOPIC,
))


# ------------------------------------------------------------------------ band attention
def _masked_row(mask_of, score_of, lo, hi):
    num = sp.Sum(mask_of(j) * sp.exp(score_of(j)) * v[j], (j, lo, hi))
    den = sp.Sum(mask_of(j) * sp.exp(score_of(j)), (j, lo, hi))
    return num / den


def _row(score_of, lo, hi):
    return _masked_row(lambda jj: 1, score_of, lo, hi)


_I_RANGE = IndexRange("query", index=i, lower=1, upper=n)
_band_statement = Statement(_masked_row(lambda jj: window_mask(i, jj, w), lambda jj: s[i, jj], 1, n),
                            _row(lambda jj: s[i, jj], sp.Max(1, i - w + 1), i))


def _band_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 100
    for _ in range(trials):
        nn = int(rng.integers(1, 16))
        ww = int(rng.integers(1, nn + 1))
        scores, vals = rng.normal(scale=2.0, size=(nn, nn)), rng.normal(size=nn)
        a, b = np.meshgrid(np.arange(nn), np.arange(nn), indexing="ij")
        masked = np.where((b <= a) & (b > a - ww), scores, -np.inf)  # (n, n): -inf outside the band
        p = np.exp(masked - masked.max(1, keepdims=True))
        out = (p @ vals) / p.sum(1)
        for q_ in range(nn):
            keys = slice(max(0, q_ - ww + 1), q_ + 1)
            e_ = np.exp(scores[q_, keys] - scores[q_, keys].max())
            worst = max(worst, abs(float(out[q_] - e_ @ vals[keys] / e_.sum())))
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "softmax with -inf outside the band against softmax over the band's keys only")


register(Theorem(
    id="sliding_window_eq_band_attention",
    claim=r"For every query $i$ and window $w \le n$, attention under the sliding-window mask equals attention over "
          r"the keys $\max(1, i-w+1), \dots, i$.",
    title=r"Attention with the sliding-window mask is attention over the keys $\max(1, i-w+1), \dots, i$",
    statement=_band_statement,
    source="extension; Beltagy et al. (2020), 'Longformer', section 3.1",
    hypotheses=(_I_RANGE, IndexRange("window_length", index=w, lower=1, upper=n)),
    derivation=lambda: Derivation(_band_statement.lhs).eq(
        _band_statement.rhs, "mask_restrict",
        note=r"masked terms contribute nothing to either sum; the band ends at key $i \le n$ and starts at $\max(1, "
             r"i-w+1)$"),
    dimensions=(n, w),
    numeric=_band_numeric,
    plain=(
        "Adding $-\\infty$ to the scores outside the band multiplies their exponentials by 0, so they drop out "
        "of both the numerator and the normaliser: row $i$ of band-masked attention is exactly softmax "
        "attention over the keys $\\max(1, i-w+1), \\dots, i$. A kernel may therefore skip the masked "
        "keys altogether."
    ),
    topic=TOPIC,
))


# ------------------------------------------------------------------------ window >= n is causal
def _window_causal_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 60
    for _ in range(trials):
        nn = int(rng.integers(1, 20))
        ww = nn + int(rng.integers(0, 5))
        scores, vals = rng.normal(size=(nn, nn)), rng.normal(size=nn)
        a, b = np.meshgrid(np.arange(nn), np.arange(nn), indexing="ij")

        def attend(keep, scores=scores, vals=vals):
            x = np.where(keep, scores, -np.inf)
            p = np.exp(x - x.max(1, keepdims=True))
            return (p @ vals) / p.sum(1)

        worst = max(worst, float(np.abs(attend((b <= a) & (b > a - ww)) - attend(b <= a)).max()))
    return NumericResult(worst == 0.0, trials, seed, worst, 0.0,
                         "window masks with w >= n against np.tril: the same boolean mask, identical outputs")


_unbounded_statement = Statement(_masked_row(lambda jj: window_mask(i, jj, w), lambda jj: s[i, jj], 1, n),
                                 _masked_row(lambda jj: causal_mask(i, jj), lambda jj: s[i, jj], 1, n))


register(Theorem(
    id="causal_eq_window_left_unbounded",
    claim=r"For every query $i$ and every window $w \ge n$, sliding-window attention equals causal attention.",
    title="A sliding window at least as long as the sequence is the causal mask",
    statement=_unbounded_statement,
    source="extension; Jiang et al. (2023), 'Mistral 7B', section 2",
    hypotheses=(_I_RANGE, Assumption("window_covers", condition=sp.Le(n, w), text=r"$w \ge n$")),
    derivation=lambda: (
        Derivation(_unbounded_statement.lhs)
        .eq(_row(lambda jj: s[i, jj], 1, i), "mask_restrict",
            note=r"$i - w + 1 \le 1$ when $w \ge n \ge i$: the window starts at key $1$")
        .eq(_unbounded_statement.rhs, "mask_restrict", note=r"the causal mask keeps the same keys $1, \dots, i$")
    ),
    dimensions=(n, w),
    numeric=lambda seed: _window_causal_numeric(seed),
    plain=(
        "If the window length $w$ is at least the sequence length $n$, every query $i \\le n$ sees all keys "
        "$1, \\dots, i$ (the window would reach back to key $i - w + 1 \\le 1$): sliding-window attention "
        "is causal attention. The causal mask is the window that is unbounded on the left."
    ),
    topic=TOPIC,
))


# ------------------------------------------------------------------------ ALiBi
_alibi_statement = Statement(
    _masked_row(lambda jj: causal_mask(i, jj), lambda jj: s[i, jj] - m * sp.Abs(i - jj), 1, n),
    _masked_row(lambda jj: causal_mask(i, jj), lambda jj: s[i, jj] + m * jj, 1, n),
)


def _alibi_derivation() -> Derivation:
    after_mask = _row(lambda jj: s[i, jj] - m * sp.Abs(i - jj), 1, i)
    signed = _row(lambda jj: s[i, jj] - m * (i - jj), 1, i)
    factored_num = sp.Sum(sp.exp(-m * i) * sp.exp(s[i, j] + m * j) * v[j], (j, 1, i))
    factored_den = sp.Sum(sp.exp(-m * i) * sp.exp(s[i, j] + m * j), (j, 1, i))
    pulled = (sp.exp(-m * i) * sp.Sum(sp.exp(s[i, j] + m * j) * v[j], (j, 1, i))) / (
        sp.exp(-m * i) * sp.Sum(sp.exp(s[i, j] + m * j), (j, 1, i)))
    return (
        Derivation(_alibi_statement.lhs)
        .eq(after_mask, "mask_restrict", note=r"the causal mask keeps the keys $1, \dots, i$")
        .eq(signed, "abs_by_sign", note=r"$j \le i$ on the kept keys, so $|i - j| = i - j$")
        .eq(factored_num / factored_den, "algebra", note="$e^{s - m(i - j)} = e^{-m i} e^{s + m j}$")
        .eq(pulled, "sum_linearity", note="$e^{-m i}$ does not depend on $j$")
        .eq(_row(lambda jj: s[i, jj] + m * jj, 1, i), "algebra", note="the common factor $e^{-m i}$ cancels")
        .eq(_alibi_statement.rhs, "mask_restrict", note="fold the causal mask back")
    )


def _alibi_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 100
    for _ in range(trials):
        nn, slope = int(rng.integers(1, 20)), float(2.0 ** -rng.integers(1, 9))
        scores, vals = rng.normal(size=(nn, nn)), rng.normal(size=(nn, 3))
        a, b = np.meshgrid(np.arange(nn), np.arange(nn), indexing="ij")  # (n, n) query, key positions
        causal = b <= a

        def attend(bias, causal=causal, scores=scores, vals=vals):
            x = np.where(causal, scores + bias, -np.inf)
            p = np.exp(x - x.max(1, keepdims=True))
            return (p / p.sum(1, keepdims=True)) @ vals

        worst = max(worst, float(np.abs(attend(-slope * np.abs(a - b)) - attend(slope * b)).max()))
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "causal attention with the ALiBi bias -m|i-j| against the per-key bias +m j")


register(Theorem(
    id="alibi_causal_eq_key_position_bias",
    claim=r"For every query $i$ and every real slope $m$, causal attention with the ALiBi bias $-m|i - j|$ equals "
          r"causal attention with the per-key bias $+mj$.",
    title="Under a causal mask, ALiBi's bias $-m|i - j|$ acts as the per-key bias $+m j$",
    statement=_alibi_statement,
    source="extension; Press, Smith and Lewis (2022), 'ALiBi', section 3",
    hypotheses=(_I_RANGE, Assumption("slope_real", condition=sp.Q.real(m), text="$m$ real (any sign)")),
    derivation=_alibi_derivation,
    dimensions=(n,),
    numeric=_alibi_numeric,
    plain=(
        "ALiBi adds $-m|i - j|$ to the score of query $i$ and key $j$. Under a causal mask only $j \\le i$ "
        "count, where $-m|i-j| = -m i + m j$; the $-m i$ is the same for the whole row and cancels in the "
        "softmax. So ALiBi is a fixed (not learned) bias $+m j$ on the key position: a recency prior that "
        "favours the latest keys, exponentially in their distance."
    ),
    notes="Without a causal mask (bidirectional ALiBi) $|i - j|$ is not affine in $j$ and the reduction fails.",
    topic=TOPIC,
))


# ------------------------------------------------------------------------ ALiBi slopes
class AlibiSlope(sp.Function):
    r"""ALiBi's slope of head ``k`` of ``h``: :math:`2^{-8k/h}`.

    >>> [AlibiSlope(k_, 8).expanded() for k_ in (1, 2, 8)]
    [1/2, 1/4, 1/256]
    """

    nargs = 2

    @classmethod
    def eval(cls, *args):
        return None

    def expanded(self):
        kk, hh = self.args
        return sp.Pow(2, -8 * kk / hh)

    def doit(self, **hints):
        return self.expanded()

    def _latex(self, printer):
        return r"m_{%s}^{(%s)}" % (printer._print(self.args[0]), printer._print(self.args[1]))


define("alibi_slope", AlibiSlope, lambda x: x.expanded(), text=r"m_k = 2^{-8k/h}")

h = sp.Symbol("h", integer=True, positive=True)
kk = sp.Symbol("k", integer=True, positive=True)
p = sp.Symbol("p", integer=True, nonnegative=True)  # h = 2^p heads
q = sp.Symbol("q", integer=True, positive=True)  # the q-th head beyond the largest power of 2


def press_slope(k, heads):
    """Slope of head ``k`` (from 1) as ``get_slopes_power_of_2(heads)`` of Press et al.'s reference code
    computes it: ``start = 2**(-2**-(log2(heads) - 3))``, ``ratio = start``, slope ``start * ratio**(k - 1)``."""
    start = sp.Pow(2, -sp.Pow(2, -(sp.log(heads, 2) - 3)))
    return start * start ** (k - 1)


_slopes_statement = Statement(
    sp.ImmutableMatrix([press_slope(kk, 2**p), press_slope(kk + 1, 2**p) / press_slope(kk, 2**p),
                        press_slope(1, 2**p)]),
    sp.ImmutableMatrix([AlibiSlope(kk, 2**p), sp.Pow(2, -8 / 2**p), sp.Pow(2, -8 / 2**p)]))


def _press_slopes(heads: int) -> list:
    """Press et al.'s ``get_slopes`` (github.com/ofirpress/attention_with_linear_biases), as written."""
    import math

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(heads).is_integer():
        return get_slopes_power_of_2(heads)
    closest_power_of_2 = 2 ** math.floor(math.log2(heads))
    return (get_slopes_power_of_2(closest_power_of_2)
            + _press_slopes(2 * closest_power_of_2)[0::2][:heads - closest_power_of_2])


def _slopes_numeric(seed: int) -> NumericResult:
    worst = 0.0
    for heads in (1, 2, 4, 8, 16, 32, 64):
        want = np.array([2.0 ** (-8 * k_ / heads) for k_ in range(1, heads + 1)])
        worst = max(worst, float(np.abs(np.array(_press_slopes(heads)) / want - 1).max()))
    tol = 1e-12
    return NumericResult(worst <= tol, 7, seed, worst, tol,
                         "the slopes of the ALiBi reference implementation (get_slopes, h a power of 2) "
                         "against 2^(-8k/h); relative error")


register(Theorem(
    id="alibi_slopes_geometric",
    title="For $h = 2^p$ heads, the ALiBi reference code's slopes are $2^{-8k/h}$: a geometric sequence of ratio "
          "$2^{-8/h}$ starting at $2^{-8/h}$",
    claim=r"For $h = 2^p$ heads, Press et al.'s `get_slopes` gives head $k$ the slope $2^{-8k/h}$, so the slopes "
          r"form a geometric sequence that starts at $2^{-8/h}$ with ratio $2^{-8/h}$.",
    statement=_slopes_statement,
    source="extension; Press, Smith and Lewis (2022), 'ALiBi', section 3 ('a geometric sequence that starts at "
           "$2^{-8/n}$') and the reference code's `get_slopes`",
    hypotheses=(IndexRange("head", index=kk, lower=1, upper=2**p - 1),),
    derivation=lambda: (
        Derivation(_slopes_statement.lhs)
        .eq(sp.ImmutableMatrix([sp.Pow(2, -2**(3 - p) * kk), sp.Pow(2, -2**(3 - p)), sp.Pow(2, -2**(3 - p))]),
            "algebra", note=r"$\log_2 2^p = p$, so start $= 2^{-2^{3-p}}$; start $\cdot$ start$^{k-1}$ = "
                            r"start$^k$")
        .eq(_slopes_statement.rhs, "definition", name="alibi_slope",
            note=r"$m_k = 2^{-8k/h}$, and $2^{3-p} = 8/2^p$")
    ),
    dimensions=(p, kk),
    numeric=_slopes_numeric,
    plain=(
        "The reference code computes, for $h = 2^p$ heads, start $= 2^{-2^{-(\\log_2 h - 3)}} = 2^{-8/h}$ and gives "
        "head $k$ the slope start$^k = 2^{-8k/h}$: consecutive slopes have the ratio $2^{-8/h}$ and the first is "
        "$2^{-8/h}$. For 8 heads, $1/2, 1/4, \\dots, 1/256$."
    ),
    notes="The statement keeps $h = 2^p$, the case the paper's sentence describes; for other $h$ see "
          "alibi_slopes_between_powers_of_two.",
    topic=TOPIC,
))

_extra_statement = Statement(
    sp.ImmutableMatrix([press_slope(2 * q - 1, 2**(p + 1)),
                        press_slope(2 * q - 1, 2**(p + 1)) ** 2 / (AlibiSlope(q - 1, 2**p) * AlibiSlope(q, 2**p))]),
    sp.ImmutableMatrix([sp.Pow(2, -4 * (2 * q - 1) / 2**p), sp.S.One]))


def _extra_numeric(seed: int) -> NumericResult:
    worst, samples = 0.0, 0
    for heads in range(1, 130):
        cp = 2 ** int(np.floor(np.log2(heads)))
        want = [2.0 ** (-8 * k_ / cp) for k_ in range(1, cp + 1)]
        want += [2.0 ** (-4 * (2 * q_ - 1) / cp) for q_ in range(1, heads - cp + 1)]
        worst = max(worst, float(np.abs(np.array(_press_slopes(heads)) / np.array(want) - 1).max()))
        samples += 1
    tol = 1e-12
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "get_slopes(h) of the ALiBi reference code, h = 1..129, against 2^(-8k/2^p) for the first 2^p "
                         "heads and 2^(-4(2q-1)/2^p) for the others; relative error")


register(Theorem(
    id="alibi_slopes_between_powers_of_two",
    title="For $2^p < h < 2^{p+1}$ heads, the ALiBi reference code gives head $2^p + q$ the slope "
          "$2^{-4(2q-1)/2^p}$, the geometric mean of the slopes $m_{q-1}, m_q$ of $2^p$ heads",
    claim=r"Press et al.'s rule for $h$ not a power of two: after the $2^p$ slopes $2^{-8k/2^p}$, head $2^p + q$ gets "
          r"slope $q$ of every other of the $2^{p+1}$-head sequence, $2^{-4(2q-1)/2^p} = \sqrt{m_{q-1} m_q}$.",
    statement=_extra_statement,
    source="extension; Press, Smith and Lewis (2022), 'ALiBi', section 3 (footnote on $n$ not a power of 2) and the "
           "reference code's `get_slopes` (`get_slopes(2 * closest_power_of_2)[0::2]`)",
    hypotheses=(IndexRange("extra_head", index=q, lower=1, upper=2**p - 1),),
    derivation=lambda: (
        Derivation(_extra_statement.lhs)
        .eq(sp.ImmutableMatrix([sp.Pow(2, -2**(2 - p) * (2 * q - 1)),
                                sp.Pow(2, -2**(2 - p) * (2 * q - 1)) ** 2 / (AlibiSlope(q - 1, 2**p)
                                                                           * AlibiSlope(q, 2**p))]),
            "algebra", note=r"$\log_2 2^{p+1} = p + 1$: start $= 2^{-2^{2-p}}$, and element $2q - 1$ of the "
                            r"sequence is start$^{2q-1}$")
        .eq(sp.ImmutableMatrix([sp.Pow(2, -2**(2 - p) * (2 * q - 1)),
                                sp.Pow(2, -2**(2 - p) * (2 * q - 1)) ** 2
                                / (sp.Pow(2, -8 * (q - 1) / 2**p) * sp.Pow(2, -8 * q / 2**p))]),
            "definition", name="alibi_slope", note=r"$m_k = 2^{-8k/2^p}$")
        .eq(_extra_statement.rhs, "algebra", note=r"$2^{2-p} = 4/2^p$, and $2 \cdot 4(2q-1) = 8(q-1) + 8q$")
    ),
    dimensions=(p, q),
    numeric=_extra_numeric,
    plain=(
        "When $h$ is not a power of two, with $2^p$ the largest power below it, the reference code takes the $2^p$ "
        "slopes $2^{-8k/2^p}$ and then every other slope of the $2^{p+1}$-head sequence, starting with the first: "
        "$2^{-8(2q-1)/2^{p+1}} = 2^{-4(2q-1)/2^p}$ for the $q$-th extra head. Each lies halfway, on a log scale, "
        "between two consecutive slopes of the $2^p$ heads (between $1$ and $m_1$ for $q = 1$)."
    ),
    notes="The range $q \\le 2^p - 1$ is that of $h < 2^{p+1}$: at most $2^p - 1$ extra heads.",
    topic=TOPIC,
))
