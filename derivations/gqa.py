r"""Grouped-query attention and the KV cache
=========================================

Current decoders (Llama 2/3, Mistral, Gemma) share each key/value head between a group of
``g = h / h_kv`` query heads, and keep the keys and values of past tokens in a cache while
decoding. This module proves, for symbolic sizes, what GQA computes, what it costs in
parameters and cache, and what the cache saves in compute.

Main results
------------
* ``gqa_eq_attention_with_repeated_kv``: GQA equals multi-head attention with each key/value head
  repeated ``g`` times (``repeat_interleave`` along the head axis): query head ``(c-1)g + r``
  reads key/value head ``floor(((c-1)g + r - 1)/g) + 1 = c``.
* ``gqa_param_count``: counted from their shapes, the projections have ``2d^2 + 2d^2 h_kv/h`` weights
  (``2d^2 + 2d^2 h_kv/h + 2d + 2d h_kv/h`` with biases).
* ``kv_cache_size``: counted from its arrays, a cache of ``T`` tokens for ``B`` sequences holds
  ``2 L h_kv d_head T B`` values; GQA divides MHA's cache by ``h/h_kv``.
* ``kv_cache_decode_cost``: ``n`` decoding steps cost ``sum_t t d = n(n+1)d/2`` score MACs with a
  cache and ``sum_t t^2 d = n(n+1)(2n+1)d/6`` without.

References
----------
* Ainslie et al., "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head
  Checkpoints", EMNLP 2023, section 2.2 (grouping; ``h_kv = 1`` is multi-query attention).
* Shazeer, "Fast Transformer Decoding: One Write-Head is All You Need", 2019, section 2.4
  (incremental decoding, the cache, its memory traffic).
* Hugging Face ``transformers`` ``repeat_kv`` (Llama): ``repeat_interleave`` of the key/value heads.

Tags: grouped-query attention, multi-query attention, KV cache, decoding, parameter count
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations._beyond import TOPIC, exact_count
from symattn.engine.theorem import NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, Equation, IndexRange, Statement
from symattn.maths.complexity import (
    ArrayEntries,
    DecodeScoreMACs,
    MatMulMACs,
    RecomputeScoreMACs,
    gqa_param_count,
    kv_cache_bytes,
)
from symattn.maths.masks import causal_mask
from symattn.rules.definitions import define
from symattn.rules.induction import labelled

GQA_SOURCE = "extension; Ainslie et al. (2023), 'GQA', section 2.2"

# ------------------------------------------------------------------------ symbols
h_kv, g = sp.symbols("h_kv g", integer=True, positive=True)  # key/value heads, group size
n, D = sp.symbols("n d_head", integer=True, positive=True)  # tokens, head width
c, r, i, e = sp.symbols("c r i e", integer=True, positive=True)  # kv head, member, query, value column
j, l = sp.symbols("j l", integer=True)  # key, coordinate (bound)
Q = sp.IndexedBase("Q", real=True)  # Q[head, token, coordinate]
K = sp.IndexedBase("K", real=True)  # K[kv head, token, coordinate]
V = sp.IndexedBase("V", real=True)


class RepeatKV(sp.Function):
    r"""Entry ``(m, j, l)`` of the key (or value) tensor with each of the ``h_kv`` heads repeated
    ``g`` times along the head axis (``repeat_interleave(K, g, dim=heads)``): head ``m`` of the
    repeated tensor is head :math:`\lfloor (m-1)/g \rfloor + 1` of ``K`` (heads counted from 1).

    >>> g = sp.Symbol("g", integer=True, positive=True); K = sp.IndexedBase("K")
    >>> [RepeatKV(K, 2, m, 1, 1).expanded() for m in (1, 2, 3, 4)]
    [K[1, 1, 1], K[1, 1, 1], K[2, 1, 1], K[2, 1, 1]]
    """

    nargs = 5

    @classmethod
    def eval(cls, *args):
        return None

    def expanded(self):
        base, group, m, jj, ll = self.args
        return base[sp.floor((m - 1) / group) + 1, jj, ll]

    def doit(self, **hints):
        return self.expanded()

    def _latex(self, printer):
        base, group, m, jj, ll = (printer._print(a) for a in self.args)
        return r"\operatorname{rep}_{%s}(%s)_{%s, %s, %s}" % (group, base, m, jj, ll)


define("repeat_kv", RepeatKV, lambda x: x.expanded(),
       text=r"\operatorname{rep}_g(K)_{m,j,l} = K_{\lfloor (m-1)/g \rfloor + 1,\, j,\, l}")


def _head_output(keys, values, m):
    """Output entry (query i, value column e) of one head whose keys/values are ``keys(j, l)``,
    ``values(j)``, scores ``<Q_{m,i}, K_j> / sqrt(d_head)``, over the keys 1..n."""
    score = sp.Sum(Q[m, i, l] * keys(j, l), (l, 1, D)) / sp.sqrt(D)
    return sp.Sum(sp.exp(score) * values(j), (j, 1, n)) / sp.Sum(sp.exp(score), (j, 1, n))


_m = (c - 1) * g + r  # the query head: member r of group c
_GQA = _head_output(lambda jj, ll: K[c, jj, ll], lambda jj: V[c, jj, e], _m)
_REPEATED = _head_output(lambda jj, ll: RepeatKV(K, g, _m, jj, ll), lambda jj: RepeatKV(V, g, _m, jj, e), _m)
_FLOORED = _head_output(lambda jj, ll: K[sp.floor((_m - 1) / g) + 1, jj, ll],
                        lambda jj: V[sp.floor((_m - 1) / g) + 1, jj, e], _m)

_GQA_HYPS = (
    IndexRange("kv_head", index=c, lower=1, upper=h_kv),
    IndexRange("member", index=r, lower=1, upper=g),
    IndexRange("query", index=i, lower=1, upper=n),
    IndexRange("value_column", index=e, lower=1, upper=D),
    Assumption("heads", text="$h = g h_{kv}$ query heads of width $d_{head}$; query head $(c-1)g + r$ is member $r$ of "
                             "group $c$"),
)


def _gqa_derivation() -> Derivation:
    return (
        Derivation(_GQA)
        .eq(_FLOORED, "floor_by_range", value=[c - 1, sp.S.Zero],
            note=r"$\lfloor ((c-1)g + r - 1)/g \rfloor = c - 1$ because $0 \le r - 1 < g$: the repeated head is $c$")
        .eq(_REPEATED, "definition", name="repeat_kv", note=r"fold: head $m$ of $\operatorname{rep}_g(K)$ is head "
                                                            r"$\lfloor (m-1)/g \rfloor + 1$ of $K$")
    )


def _gqa_numpy(x_q, x_k, x_v, groups):
    """GQA the grouped way: query heads reshaped to (h_kv, g, n, d), each group against its kv head."""
    h, nq, dh = x_q.shape
    hk = x_k.shape[0]
    qg = x_q.reshape(hk, groups, nq, dh)  # (h_kv, g, n, d)
    s = np.einsum("cgid,cjd->cgij", qg, x_k) / np.sqrt(dh)  # (h_kv, g, n, n)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("cgij,cjd->cgid", p, x_v).reshape(h, nq, dh)  # (h, n, d)


def _mha_numpy(x_q, x_k, x_v):
    s = np.einsum("hid,hjd->hij", x_q, x_k) / np.sqrt(x_q.shape[-1])  # (h, n, n)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("hij,hjd->hid", p, x_v)  # (h, n, d)


def _gqa_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 40
    for _ in range(trials):
        hk, gg, nq, dh = (int(x) for x in rng.integers(1, 5, size=4))
        x_q = rng.normal(size=(hk * gg, nq, dh))
        x_k, x_v = rng.normal(size=(hk, nq, dh)), rng.normal(size=(hk, nq, dh))
        repeated = _mha_numpy(x_q, np.repeat(x_k, gg, axis=0), np.repeat(x_v, gg, axis=0))
        worst = max(worst, float(np.abs(_gqa_numpy(x_q, x_k, x_v, gg) - repeated).max()))
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "grouped einsum (query heads reshaped to (h_kv, g, n, d)) against multi-head "
                         "attention on np.repeat(K, g, axis=heads)")


_gqa_statement = Statement(_GQA, _REPEATED)

register(Theorem(
    id="gqa_eq_attention_with_repeated_kv",
    claim=r"For every group $c$ and member $r$, query head $(c-1)g + r$ of grouped-query attention gives the same "
          r"output as multi-head attention with each key/value head repeated $g$ times.",
    title="Grouped-query attention is multi-head attention with each key/value head repeated $g$ times",
    statement=_gqa_statement,
    source=GQA_SOURCE,
    hypotheses=_GQA_HYPS,
    derivation=_gqa_derivation,
    dimensions=(g, n, D),
    numeric=_gqa_numeric,
    plain=(
        "With $h = g h_{kv}$ query heads, GQA lets the $g$ query heads $(c-1)g + 1, \\dots, cg$ share the "
        "key/value head $c$. Repeating every key/value head $g$ times along the head axis "
        "($\\operatorname{rep}_g$, PyTorch's `repeat_interleave`) and running ordinary multi-head "
        "attention gives the same output for every head, query and column: head $m = (c-1)g + r$ of the "
        "repeated tensor is head $\\lfloor (m-1)/g \\rfloor + 1 = c$ because $0 \\le r - 1 < g$."
    ),
    notes=(
        "The identity is about the layout: it holds for the interleaved repetition (head $m$ reads "
        r"key/value head $\lfloor (m-1)/g \rfloor + 1$). Tiling the key/value heads instead (`np.tile`, head $m$ reads "
        r"key/value head $((m-1) \bmod h_{kv}) + 1$) pairs the query heads with other key/value heads and is a "
        "different model unless the checkpoint was trained that way."
    ),
    topic=TOPIC,
))


# ------------------------------------------------------------------------ parameter count
d, h = sp.symbols("d h", integer=True, positive=True)
_WIDTH = h_kv * d / h  # the key/value projections map d to h_kv heads of width d/h
#: the shapes of the four projections (W_Q, W_K, W_V, W_O) and of their biases
_WEIGHT_SHAPES = ((d, d), (d, _WIDTH), (d, _WIDTH), (d, d))
_BIAS_SHAPES = ((d,), (_WIDTH,), (_WIDTH,), (d,))


def _count(shapes):
    return sp.Add(*[ArrayEntries(*shape) for shape in shapes], evaluate=False)


_params_statement = Statement(
    sp.ImmutableMatrix([_count(_WEIGHT_SHAPES), _count(_WEIGHT_SHAPES + _BIAS_SHAPES)]),
    sp.ImmutableMatrix([2 * d**2 + 2 * d**2 * h_kv / h, 2 * d**2 + 2 * d**2 * h_kv / h + 2 * d + 2 * d * h_kv / h]),
)
_DIVIDES = (
    Assumption("h_divides_d", condition=sp.Eq(sp.Mod(d, h), 0), text="$h$ divides $d$ (heads of width $d/h$)"),
    Assumption("h_kv_divides_h", condition=sp.Eq(sp.Mod(h, h_kv), 0), text="$h_{kv}$ divides $h$ (whole groups)"),
)


def _params_derivation() -> Derivation:
    def sums(shapes):
        return sp.Add(*[ArrayEntries(*shape).expanded() for shape in shapes], evaluate=False)

    return (
        Derivation(_params_statement.lhs)
        .eq(sp.ImmutableMatrix([sums(_WEIGHT_SHAPES), sums(_WEIGHT_SHAPES + _BIAS_SHAPES)]), "definition",
            name="array_entries",
            note=r"one entry per index pair: $W_Q, W_O$ are $d \times d$, $W_K, W_V$ are $d \times h_{kv} d/h$; the "
                 r"biases have widths $d$, $h_{kv} d/h$, $h_{kv} d/h$, $d$")
        .eq(_params_statement.rhs, "sum_evaluate", note="count the index tuples")
    )


def _params_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    bad, samples = None, 0
    for _ in range(30):
        hk = int(rng.integers(1, 5))
        hh = hk * int(rng.integers(1, 5))
        dd = hh * int(rng.integers(1, 9))
        dh = dd // hh
        for bias in (False, True):
            arrays = [np.empty((dd, dd)), np.empty((dd, hk * dh)), np.empty((dd, hk * dh)), np.empty((dd, dd))]
            if bias:
                arrays += [np.empty(dd), np.empty(hk * dh), np.empty(hk * dh), np.empty(dd)]
            total = sum(a.size for a in arrays)
            if total != gqa_param_count(dd, hh, hk, bias=bias):
                bad = f"d = {dd}, h = {hh}, h_kv = {hk}, bias = {bias}: counted {total}"
            samples += 1
    return exact_count(bad, samples, seed,
                       "sizes of numpy weight (and bias) arrays of the four projections against "
                       "symattn.gqa_param_count")


register(Theorem(
    id="gqa_param_count",
    title="Counted from their shapes, the GQA projections have $2d^2 + 2d^2 h_{kv}/h$ weights (plus $2d + 2d h_{kv}/h$ "
          "biases)",
    claim=r"Projections $W_Q, W_O$ of shape $d \times d$ and $W_K, W_V$ of shape $d \times h_{kv} d/h$ have "
          r"$2d^2 + 2d^2 h_{kv}/h$ entries in all, and their biases $2d + 2d h_{kv}/h$ more.",
    statement=_params_statement,
    source=GQA_SOURCE,
    hypotheses=_DIVIDES,
    derivation=_params_derivation,
    dimensions=(d, h, h_kv),
    numeric=_params_numeric,
    plain=(
        "Queries and outputs keep their $d \\times d$ matrices; keys and values project only to the "
        "$h_{kv}$ shared heads of width $d/h$, a $d \\times h_{kv} d/h$ matrix each. In total "
        "$2d^2 + 2d^2 h_{kv}/h$ weights: $4d^2$ for multi-head attention ($h_{kv} = h$), "
        "$2d^2 + 2d^2/h$ for multi-query attention ($h_{kv} = 1$). With biases add $2d + 2d h_{kv}/h$."
    ),
    topic=TOPIC,
))


# ------------------------------------------------------------------------ KV cache size
L, T, B = sp.symbols("L T B", integer=True, positive=True)
_layer = sp.Symbol("ell", integer=True, positive=True)


def _cache(heads):
    """Entries of the cache, array by array: for each layer a key and a value array of shape
    (B, heads, T, d_head), as ``transformers`` stores them."""
    per_layer = sp.Add(ArrayEntries(B, heads, T, D), ArrayEntries(B, heads, T, D), evaluate=False)
    return sp.Sum(per_layer, (_layer, 1, L))


_cache_statement = Statement(
    sp.ImmutableMatrix([_cache(h_kv), _cache(h) / _cache(h_kv)]),
    sp.ImmutableMatrix([2 * L * h_kv * D * T * B, h / h_kv]),
)


def _cache_derivation() -> Derivation:
    def unfolded(heads):
        one = ArrayEntries(B, heads, T, D).expanded()
        return sp.Sum(sp.Add(one, one, evaluate=False), (_layer, 1, L))

    return (
        Derivation(_cache_statement.lhs)
        .eq(sp.ImmutableMatrix([unfolded(h_kv), unfolded(h) / unfolded(h_kv)]), "definition", name="array_entries",
            note=r"one entry per index tuple (sequence, head, token, coordinate) of each key and value array")
        .eq(sp.ImmutableMatrix([2 * L * B * h_kv * T * D, (2 * L * B * h * T * D) / (2 * L * B * h_kv * T * D)]),
            "sum_evaluate", note="count the tuples, over the $L$ layers")
        .eq(_cache_statement.rhs, "algebra", note="the common factors cancel in the ratio")
    )


def _cache_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    bad, samples = None, 0
    for _ in range(20):
        layers, hk, dh, toks, batch = (int(x) for x in rng.integers(1, 6, size=5))
        # one (keys, values) pair of float16 arrays of shape (B, h_kv, T, d_head) per layer
        cache = [(np.zeros((batch, hk, toks, dh), np.float16), np.zeros((batch, hk, toks, dh), np.float16))
                 for _ in range(layers)]
        nbytes = sum(k_.nbytes + v_.nbytes for k_, v_ in cache)
        if nbytes != kv_cache_bytes(layers, hk, dh, toks, batch=batch):
            bad = f"(L, h_kv, d, T, B) = {(layers, hk, dh, toks, batch)}: {nbytes} bytes allocated"
        samples += 1
    return exact_count(bad, samples, seed,
                       "nbytes of float16 cache arrays (B, h_kv, T, d_head) per layer against "
                       "symattn.kv_cache_bytes")


register(Theorem(
    id="kv_cache_size",
    title="Counted from its arrays, a KV cache holds $2 L h_{kv} d_{head} T B$ values; GQA divides MHA's cache by "
          "$h/h_{kv}$",
    claim=r"A key and a value array of shape $(B, h_{kv}, T, d_{head})$ per layer hold $2 L h_{kv} d_{head} T B$ "
          r"numbers in all, $h/h_{kv}$ times fewer than with $h$ key/value heads.",
    statement=_cache_statement,
    source="extension; Shazeer (2019), 'Fast Transformer Decoding', section 2.4; Ainslie et al. (2023), section 2.2",
    derivation=_cache_derivation,
    dimensions=(L, h, h_kv, D, T, B),
    numeric=_cache_numeric,
    plain=(
        "Every layer keeps, for every sequence in the batch and every past token, one key and one value "
        "vector per key/value head: $2 L h_{kv} d_{head} T B$ numbers. Multi-head attention has "
        "$h_{kv} = h$, so grouping the heads divides the cache by $h/h_{kv}$. In 16-bit, a 32-layer model "
        "with 32 heads of width 128 stores 0.5 MiB per token; with 8 key/value heads, 128 KiB."
    ),
    topic=TOPIC,
))


# ------------------------------------------------------------------------ decoding cost
_t = sp.Symbol("t", integer=True, positive=True)
_cost_statement = Statement(
    sp.ImmutableMatrix([DecodeScoreMACs(n, D), RecomputeScoreMACs(n, D)]),
    sp.ImmutableMatrix([n * (n + 1) * D / 2, n * (n + 1) * (2 * n + 1) * D / 6]),
)


def _cost_derivation() -> Derivation:
    return (
        Derivation(_cost_statement.lhs)
        .eq(sp.ImmutableMatrix([sp.Sum(MatMulMACs(1, D, _t), (_t, 1, n)), RecomputeScoreMACs(n, D)]),
            "definition", name="decode_macs", note=r"step $t$: the new query ($1 \times d$) against the $t$ cached "
                                                   r"keys ($d \times t$)")
        .eq(sp.ImmutableMatrix([sp.Sum(MatMulMACs(1, D, _t), (_t, 1, n)), sp.Sum(MatMulMACs(_t, D, _t), (_t, 1, n))]),
            "definition", name="recompute_macs", note="without a cache, step $t$ recomputes $t$ queries against $t$ "
                                                      "keys")
        .eq(sp.ImmutableMatrix([sp.Sum(_t * D, (_t, 1, n)), sp.Sum(_t**2 * D, (_t, 1, n))]),
            "definition", name="matmul_macs", note=r"$(a \times b)(b \times c)$ costs $abc$")
        .eq(_cost_statement.rhs, "sum_evaluate", note=r"$\sum_t t = n(n+1)/2$, $\sum_t t^2 = n(n+1)(2n+1)/6$")
    )


def _cost_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    bad, samples = None, 0
    for _ in range(10):
        steps, dd = int(rng.integers(1, 12)), int(rng.integers(1, 6))
        x = rng.normal(size=(steps, dd))  # queries = keys = tokens, for the count
        cached = recomputed = 0
        for t_ in range(1, steps + 1):
            q_new, keys = x[t_ - 1:t_], x[:t_]  # (1, d), (t, d)
            s_new = q_new @ keys.T  # (1, t): what a cached decoder computes
            cached += q_new.shape[0] * q_new.shape[1] * keys.shape[0]
            s_all = keys @ keys.T  # (t, t): what a decoder without a cache recomputes
            recomputed += keys.shape[0] * keys.shape[1] * keys.shape[0]
            if not np.allclose(s_all[-1], s_new[0]):
                bad = "the cached scores differ from the last row of the recomputed ones"
        want = (steps * (steps + 1) * dd // 2, steps * (steps + 1) * (2 * steps + 1) * dd // 6)
        if (cached, recomputed) != want:
            bad = f"n = {steps}, d = {dd}: counted {(cached, recomputed)}, formulas {want}"
        samples += 1
    return exact_count(bad, samples, seed,
                       "MACs counted from operand shapes in a numpy decoding loop with and without a cache "
                       "(the cached scores equal the last row of the recomputed ones)")


register(Theorem(
    id="kv_cache_decode_cost",
    claim=r"Decoding $n$ tokens costs $n(n+1)d/2$ score multiply-accumulates with a KV cache and $n(n+1)(2n+1)d/6$ "
          r"when every step recomputes all scores.",
    title="$n$ decoding steps cost $n(n+1)d/2$ score MACs with a KV cache, $n(n+1)(2n+1)d/6$ without",
    statement=_cost_statement,
    source="extension; Shazeer (2019), 'Fast Transformer Decoding', section 2.4",
    derivation=_cost_derivation,
    dimensions=(n, D),
    numeric=_cost_numeric,
    plain=(
        "With a cache, step $t$ scores one new query against the $t$ stored keys: $t d$ "
        "multiply-accumulates, $\\sum_{t=1}^{n} t d = n(n+1)d/2$ in all. Without a cache every step "
        "recomputes all $t$ queries against all $t$ keys, $t^2 d$, in all $n(n+1)(2n+1)d/6$: a factor "
        "$(2n+1)/3$ more. (The weighted sums of values cost the same again in both cases.)"
    ),
    topic=TOPIC,
))


# ------------------------------------------------------------------------ decoding = causal row
Tq = sp.Symbol("T", integer=True, positive=True)  # the decoding step (query position)
tt = sp.Symbol("t", integer=True, positive=True)  # keys absorbed so far (induction variable)
jk = sp.Symbol("j", integer=True)
sc = sp.IndexedBase("s", real=True)  # s[j]: the step-T query's score against cached key j
vc = sp.IndexedBase("v", real=True)  # one coordinate of the cached values
Mr = sp.IndexedBase("M", real=True)  # running reference after t keys
Lr = sp.IndexedBase("L")  # running normaliser
Or = sp.IndexedBase("O")  # running output

_DECODE_HYPS = (
    IndexRange("decoding_step", index=Tq, lower=1, upper=n),
    Equation("empty_normaliser", lhs=Lr[0], rhs=sp.S.Zero),
    Equation("empty_output", lhs=Or[0], rhs=sp.S.Zero),
    Equation("absorb_normaliser", lhs=Lr[tt], rhs=sp.exp(Mr[tt - 1] - Mr[tt]) * Lr[tt - 1] + sp.exp(sc[tt] - Mr[tt]),
             forall=(tt,)),
    Equation("absorb_output", lhs=Or[tt],
             rhs=sp.exp(Mr[tt - 1] - Mr[tt]) * Or[tt - 1] + sp.exp(sc[tt] - Mr[tt]) * vc[tt],
             forall=(tt,)),
    Assumption("references_real", text="the running references $M_t$ are arbitrary reals (the kernel uses running "
                                       "maxima)"),
)


def _cached_state(upto, ref):
    return sp.ImmutableMatrix([sp.Sum(sp.exp(sc[jk] - ref), (jk, 1, upto)),
                               sp.Sum(sp.exp(sc[jk] - ref) * vc[jk], (jk, 1, upto))])


def _decode_proof() -> dict:
    claim_t = sp.ImmutableMatrix([Lr[tt], Or[tt]])
    prev = _cached_state(tt - 1, Mr[tt - 1])
    base = (
        Derivation(sp.ImmutableMatrix([Lr[0], Or[0]]))
        .eq(sp.ImmutableMatrix([0, 0]), "substitute", using=["empty_normaliser", "empty_output"], note="an empty cache")
        .eq(_cached_state(0, Mr[0]), "algebra", note=r"sums over $1, \dots, 0$ are $0$")
    )
    step = (
        Derivation(claim_t)
        .eq(sp.ImmutableMatrix([sp.exp(Mr[tt - 1] - Mr[tt]) * Lr[tt - 1] + sp.exp(sc[tt] - Mr[tt]),
                                sp.exp(Mr[tt - 1] - Mr[tt]) * Or[tt - 1] + sp.exp(sc[tt] - Mr[tt]) * vc[tt]]),
            "substitute", using=["absorb_normaliser", "absorb_output"],
            note="absorb cached key $t$: rescale the running state (the online-softmax merge with a one-key block)")
        .eq(sp.ImmutableMatrix([sp.exp(Mr[tt - 1] - Mr[tt]) * prev[0] + sp.exp(sc[tt] - Mr[tt]),
                                sp.exp(Mr[tt - 1] - Mr[tt]) * prev[1] + sp.exp(sc[tt] - Mr[tt]) * vc[tt]]),
            "substitute", using=["induction_hypothesis_0", "induction_hypothesis_1"],
            note=r"the state after $t - 1$ keys is that of the keys $1, \dots, t-1$")
        .eq(sp.ImmutableMatrix([sp.Sum(sp.exp(sc[jk] - Mr[tt]), (jk, 1, tt - 1)) + sp.exp(sc[tt] - Mr[tt]),
                                sp.Sum(sp.exp(sc[jk] - Mr[tt]) * vc[jk],
                                       (jk, 1, tt - 1)) + sp.exp(sc[tt] - Mr[tt]) * vc[tt]]),
            "sum_linearity", note="$e^{M_{t-1} - M_t} e^{s_j - M_{t-1}} = e^{s_j - M_t}$")
        .eq(sp.ImmutableMatrix([sp.Sum(sp.exp(sc[jk] - Mr[tt]), (jk, 1, tt)),
                                sp.Sum(sp.exp(sc[jk] - Mr[tt]) * vc[jk],
                                       (jk, 1, tt - 1)) + sp.exp(sc[tt] - Mr[tt]) * vc[tt]]),
            "range_join", at=tt - 1, note=r"key $t$ joins the keys $1, \dots, t-1$")
        .eq(_cached_state(tt, Mr[tt]), "range_join", at=tt - 1, note="the same for the output")
    )
    return {"var": tt, "start": 0, "base": labelled(base, "base case: empty cache"),
            "step": labelled(step, r"step $t-1 \to t$: absorb cached key $t$")}


def _causal_row(query):
    num = sp.Sum(causal_mask(query, jk) * sp.exp(sc[jk]) * vc[jk], (jk, 1, n))
    den = sp.Sum(causal_mask(query, jk) * sp.exp(sc[jk]), (jk, 1, n))
    return num / den


_decode_statement = Statement(Or[Tq] / Lr[Tq], _causal_row(Tq))


def _decode_derivation() -> Derivation:
    final = _cached_state(Tq, Mr[Tq])
    return (
        Derivation(_decode_statement.lhs)
        .eq(final[1] / final[0], "bounded_induction", on=Tq, **_decode_proof(),
            note="induction on the number $t$ of cached keys absorbed")
        .eq(sp.Sum(sp.exp(sc[jk]) * vc[jk], (jk, 1, Tq)) / sp.Sum(sp.exp(sc[jk]), (jk, 1, Tq)), "sum_linearity",
            note="the factor $e^{-M_T}$ cancels")
        .eq(_decode_statement.rhs, "mask_restrict", note=r"row $T$ of causal attention keeps exactly the keys $1, "
                                                         r"\dots, T$")
    )


def _decode_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 40
    for _ in range(trials):
        nn, dd = int(rng.integers(1, 24)), int(rng.integers(1, 6))
        x_q, x_k, x_v = rng.normal(size=(3, nn, dd))
        s_full = x_q @ x_k.T / np.sqrt(dd)  # (n, n)
        masked = np.where(np.tril(np.ones((nn, nn), bool)), s_full, -np.inf)
        p = np.exp(masked - masked.max(1, keepdims=True))
        causal = (p / p.sum(1, keepdims=True)) @ x_v  # (n, d): full causal attention
        cache_k, cache_v = np.empty((0, dd)), np.empty((0, dd))
        for step in range(nn):  # decode: append the new key/value, attend with the new query
            cache_k, cache_v = np.vstack([cache_k, x_k[step:step + 1]]), np.vstack([cache_v, x_v[step:step + 1]])
            m_run, l_run, o_run = -np.inf, 0.0, np.zeros(dd)
            for key, val in zip(cache_k, cache_v):  # online softmax over the cache, one key at a time
                s_ = float(x_q[step] @ key) / np.sqrt(dd)
                m_new = max(m_run, s_)
                l_run = np.exp(m_run - m_new) * l_run + np.exp(s_ - m_new)
                o_run = np.exp(m_run - m_new) * o_run + np.exp(s_ - m_new) * val
                m_run = m_new
            worst = max(worst, float(np.abs(o_run / l_run - causal[step]).max()))
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "numpy decoding loop (append to the cache, online softmax over the cached keys) against "
                         "row by row of full causal attention")


register(Theorem(
    id="kv_cache_decode_eq_causal_row",
    claim=r"For every step $T \le n$ and any running references, the cached decoder's normalised output $O_T / L_T$ "
          r"is row $T$ of causal attention.",
    title="Decoding with a KV cache gives row $t$ of causal attention, for every $t$",
    statement=_decode_statement,
    source="extension; Shazeer (2019), section 2.4 (incremental decoding); the online-softmax recurrence of Dao et al. "
           "(2022)",
    hypotheses=_DECODE_HYPS,
    derivation=_decode_derivation,
    dimensions=(n, Tq),
    numeric=_decode_numeric,
    plain=(
        "At decoding step $T$ the new query attends to the cached keys and values $1, \\dots, T$, absorbed one at a "
        "time with the online-softmax update ($\\ell_t = e^{M_{t-1} - M_t}\\ell_{t-1} + e^{s_t - M_t}$, likewise for "
        "the output). By induction on $t$, after $t$ keys the state is exactly that of the keys $1..t$; at $t = T$ "
        "the normalised output is softmax attention over the keys $1..T$, which is row $T$ of causal attention "
        "over the whole sequence (the mask removes the keys after $T$). So a cached decoder reproduces the "
        "training-time causal model exactly, step by step."
    ),
    notes="Exact in real arithmetic for any references $M_t$; in floating point the sums are added in another order.",
    topic=TOPIC,
))
