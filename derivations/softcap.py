r"""Logit soft-capping
===================

Gemma 2 replaces each attention logit ``s`` by ``c tanh(s / c)`` (``c = 50`` for attention, ``30``
for the final logits): a smooth clamp to ``(-c, c)``. This module proves what the clamp does.

Main results
------------
* ``softcap_bounded``: ``|c tanh(s/c)| < c``.
* ``softcap_monotone``: ``d/ds c tanh(s/c) = 1 - tanh^2(s/c) > 0``: strictly increasing (mean value
  theorem), so the order of the logits is kept.
* ``softcap_tends_to_identity``: ``c tanh(s/c) -> s`` as ``c -> oo``, pointwise (not uniformly in ``s``).
* ``softcap_weights_ge``: in exact arithmetic every weight after soft-capping is at least
  ``e^{-2c}/n`` (at ``c = 50`` that is below float32's smallest subnormal once ``n >= 27``).

References
----------
Gemma Team, "Gemma 2: Improving Open Language Models at a Practical Size", 2024, section 2
("Logit soft-capping", ``logits <- soft_cap * tanh(logits / soft_cap)``, soft_cap 50.0 for
attention logits).

Tags: soft-capping, tanh, Gemma 2, saturation
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations._beyond import TOPIC
from symattn.engine.theorem import NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, IndexRange, Statement

SOURCE = "extension; Gemma Team (2024), 'Gemma 2', section 2 (logit soft-capping)"

c = sp.Symbol("c", positive=True)
s_ = sp.Symbol("s", real=True)


def softcap(x, cap=c):
    return cap * sp.tanh(x / cap)


_bounded_statement = Statement(sp.Abs(softcap(s_)), c, "<")


def _grid_numeric(check, detail):
    def run(seed: int) -> NumericResult:
        rng = np.random.default_rng(seed)
        worst, samples = 0.0, 0
        for cap in (0.5, 1.0, 30.0, 50.0):
            xs = np.concatenate([rng.normal(scale=3 * cap, size=2000), [0.0, 1e3 * cap, -1e3 * cap]])
            worst = max(worst, check(xs, cap))
            samples += xs.size
        return NumericResult(worst <= 0.0, samples, seed, max(worst, 0.0), 0.0, detail)

    return run


register(Theorem(
    id="softcap_bounded",
    claim=r"For every real $s$ and every cap $c > 0$, $|c \tanh(s/c)| < c$.",
    title=r"A soft-capped logit lies strictly inside $(-c, c)$: $|c \tanh(s/c)| < c$",
    statement=_bounded_statement,
    source=SOURCE,
    hypotheses=(Assumption("cap_positive", condition=sp.Q.positive(c), text="$c > 0$, $s$ real"),),
    derivation=lambda: Derivation(_bounded_statement.lhs).lt(
        c, "tanh_bound", note=r"$|\tanh x| < 1$ for real $x$, and $c |\tanh(s/c)|$ increases with $|\tanh(s/c)|$"),
    dimensions=(c, s_),
    numeric=_grid_numeric(lambda xs, cap: float(np.max(np.abs(cap * np.tanh(xs / cap)) - cap)),
                          "max |c tanh(s/c)| - c over normal samples and s = 0, +-1000c, c in {0.5, 1, 30, 50} "
                          "(float64 tanh rounds to exactly +-1 for large s, so the check is <= 0, not < 0)"),
    plain="For every real logit $s$ and cap $c > 0$, $|c\\tanh(s/c)| < c$: the capped logit never reaches $\\pm c$.",
    notes=r"In floating point $\tanh(x)$ rounds to $1$ for $x$ above about $19$, so the capped logit can equal $c$; "
          r"the strict bound is exact-arithmetic.",
    topic=TOPIC,
))

_monotone_statement = Statement(sp.Derivative(softcap(s_), s_), 0, ">")

register(Theorem(
    id="softcap_monotone",
    claim=r"For every real $s$ and every cap $c > 0$, $\frac{d}{ds} c\tanh(s/c) > 0$.",
    title=r"Soft-capping has a positive derivative, $\frac{d}{ds}\, c \tanh(s/c) = 1 - \tanh^2(s/c) > 0$, "
          r"so it is strictly increasing",
    statement=_monotone_statement,
    source=SOURCE,
    hypotheses=(Assumption("cap_positive", condition=sp.Q.positive(c), text="$c > 0$, $s$ real"),),
    derivation=lambda: (
        Derivation(_monotone_statement.lhs)
        .eq(1 - sp.tanh(s_ / c) ** 2, "differentiate", note=r"chain rule, $\tanh' = 1 - \tanh^2$")
        .eq(4 / (sp.exp(s_ / c) + sp.exp(-s_ / c)) ** 2, "hyperbolic_as_exp", note=r"$1 - \tanh^2 x = 1 / \cosh^2 x$")
        .step(sp.S.Zero, "positivity", ">", note="a positive number over a square of a sum of exponentials")
    ),
    dimensions=(c, s_),
    numeric=_grid_numeric(lambda xs,
                          cap: float(-np.min(np.diff(cap * np.tanh(np.sort(xs[np.abs(xs) < 15 * cap]) / cap)))),
                          "c tanh(s/c) on sorted samples with |s| < 15c never decreases"),
    plain=(
        "The derivative of $c\\tanh(s/c)$ in $s$ is $1 - \\tanh^2(s/c) = 1/\\cosh^2(s/c) > 0$, so soft-capping "
        "is strictly increasing: it never reorders the logits, and the largest logit stays the largest."
    ),
    notes="A positive derivative everywhere gives strict monotonicity by the mean value theorem.",
    topic=TOPIC,
))

def _limit_gap(xs, cap):
    worst = -np.inf
    for big in (10 * cap, 100 * cap, 1000 * cap):
        ys = xs[np.abs(xs) < big]
        gap = np.abs(big * np.tanh(ys / big) - ys) - (np.abs(ys) ** 3 / (3 * big**2) + 1e-15 * np.abs(ys))
        worst = max(worst, float(gap.max()))
    return worst


_limit_statement = Statement(sp.Limit(softcap(s_), c, sp.oo), s_)

register(Theorem(
    id="softcap_tends_to_identity",
    claim=r"For each fixed real $s$, $c \tanh(s/c) \to s$ as $c \to \infty$ (pointwise, not uniformly in $s$).",
    title=r"Soft-capping tends to the identity pointwise: $c \tanh(s/c) \to s$ as $c \to \infty$, for each fixed $s$",
    statement=_limit_statement,
    source=SOURCE,
    derivation=lambda: Derivation(_limit_statement.lhs).eq(
        s_, "limit_evaluate", note=r"$c \tanh(s/c) = s - s^3/(3c^2) + O(c^{-4})$"),
    dimensions=(s_,),
    numeric=_grid_numeric(_limit_gap, "|C tanh(s/C) - s| <= |s|^3/(3C^2) + 1e-15 |s| (the series' first "
                          "term, plus rounding) for C = 10c, 100c, 1000c: the gap shrinks like 1/C^2"),
    plain=(
        "For a fixed logit $s$, $c\\tanh(s/c) = s - s^3/(3c^2) + O(c^{-4})$, which tends to $s$ as the cap grows: "
        "logits much smaller than the cap pass almost unchanged."
    ),
    notes=(
        "The convergence is pointwise only, not uniform in $s$: for every cap, $|c \\tanh(s/c) - s| \\to \\infty$ "
        "as $|s| \\to \\infty$ (the capped logit stays below $c$). The limit is closed by the kernel's lemmas (no "
        "Gruntz): $u = 1/c$, then $\\tanh(s u)/u$ is $0/0$ at $u = 0$ with the derivatives $s$ and $1$."
    ),
    topic=TOPIC,
))


# ------------------------------------------------------------------------ weights
n = sp.Symbol("n", integer=True, positive=True)
jj = sp.Symbol("j", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
x = sp.IndexedBase("s", real=True)
_weight = sp.exp(softcap(x[jj])) / sp.Sum(sp.exp(softcap(x[k])), (k, 1, n))
_weights_statement = Statement(_weight, sp.exp(-2 * c) / n, ">=")


def _weights_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, samples = -np.inf, 0
    for _ in range(300):
        nn, cap = int(rng.integers(1, 50)), float(rng.choice([0.5, 2.0, 5.0, 10.0]))
        logits = rng.normal(scale=10 * cap, size=nn)  # far beyond the cap: saturated without it
        t = cap * np.tanh(logits / cap)
        p = np.exp(t - t.max())
        p /= p.sum()
        worst = max(worst, float(np.exp(-2 * cap) / nn - p.min()) / (np.exp(-2 * cap) / nn))
        samples += 1
    return NumericResult(worst <= 0.0, samples, seed, max(worst, 0.0), 0.0,
                         "min_j softmax(c tanh(s/c))_j >= e^(-2c)/n for logits of scale 10c, c in {0.5, 2, 5, 10}; "
                         "relative shortfall")


def _weights_derivation() -> Derivation:
    def e(xx):
        return sp.exp(softcap(xx))

    def S(lo, hi, body=None):
        return sp.Sum(e(x[k]) if body is None else body, (k, lo, hi))

    below, above = S(1, jj - 1), S(jj + 1, n)
    cap_up, cap_down = sp.exp(c), sp.exp(-c)
    # e^{c tanh(s/c)} > e^{-c} and < e^{c}: tanh lies in (-1, 1), and e^{c y} increases with y
    lower = Derivation(e(x[jj])).step(cap_down, "monotone_step", ">", at=sp.tanh(x[jj] / c),
                                      proof=Derivation(sp.tanh(x[jj] / c)).step(sp.S.NegativeOne, "tanh_bound", ">"))

    def upper(idx):
        return Derivation(e(x[idx])).lt(cap_up, "monotone_step", at=sp.tanh(x[idx] / c),
                                        proof=Derivation(sp.tanh(x[idx] / c)).lt(sp.S.One, "tanh_bound"))

    D = (jj - 1) * cap_up + cap_down + (n - jj) * cap_up
    return (
        Derivation(_weight)
        .eq(e(x[jj]) / (below + S(jj, n)), "range_split", at=jj - 1, note="the keys before $j$, and from $j$ on")
        .eq(e(x[jj]) / (below + e(x[jj]) + above), "range_split", at=jj, note="the key $j$ itself")
        .ge(cap_down / (below + cap_down + above), "monotone_step", at=e(x[jj]), proof=lower,
            note=r"$x / (A + x + B)$ increases with $x$, and $e^{c \tanh(s_j/c)} > e^{-c}$")
        .ge(cap_down / (S(1, jj - 1, cap_up) + cap_down + above), "monotone_step", at=below, proof=upper(k),
            note=r"the normaliser decreases the weight; each $e^{c \tanh(s_k/c)} < e^{c}$")
        .ge(cap_down / (S(1, jj - 1, cap_up) + cap_down + S(jj + 1, n, cap_up)), "monotone_step", at=above,
            proof=upper(k), note="the same for the keys after $j$")
        .eq(cap_down / D, "sum_evaluate", note="$n - 1$ terms $e^{c}$")
        .ge(sp.exp(-2 * c) / n, "hyperbolic_witness",
            witness=2 * sp.exp(-2 * c) * sp.sinh(c) / (n * D),
            note=r"$e^{-c}/((n-1)e^c + e^{-c}) - e^{-2c}/n = 2 e^{-2c} \sinh(c) / (n ((n-1)e^c + e^{-c})) > 0$")
    )


register(Theorem(
    id="softcap_weights_ge",
    claim=r"In exact arithmetic, for every cap $c > 0$ and all real scores, every weight of "
          r"$\operatorname{softmax}(c\tanh(s/c))$ is at least $e^{-2c}/n$.",
    title="After soft-capping every attention weight is at least $e^{-2c}/n$ (exact arithmetic)",
    statement=_weights_statement,
    source=SOURCE,
    hypotheses=(Assumption("cap_positive", condition=sp.Q.positive(c), text="$c > 0$, scores real"),
                IndexRange("key", index=jj, lower=1, upper=n)),
    derivation=_weights_derivation,
    dimensions=(n, c),
    numeric=_weights_numeric,
    plain=(
        "Each capped logit lies in $(-c, c)$, so the numerator $e^{t_j}$ of a weight is above $e^{-c}$ and "
        "the normaliser $\\sum_k e^{t_k}$ below $n e^{c}$: every weight exceeds $e^{-2c}/n$. In exact "
        "arithmetic soft-capped attention spreads at least that much mass on every key, however large the raw "
        "logits; at $c = 50$ this floor is below float32's range (see the notes)."
    ),
    notes=(
        "The sharper bound on the way is $1/(1 + (n-1) e^{2c})$ (all other keys at the cap, key $j$ at the floor). "
        "The bound is about exact arithmetic and says nothing useful in floating point at Gemma 2's cap: at "
        r"$c = 50$, $e^{-100}/n \approx 3.7 \cdot 10^{-44}/n$ is already below the smallest normal float32 "
        r"($1.2 \cdot 10^{-38}$) for every $n$, and below the smallest subnormal float32 ($1.4 \cdot 10^{-45}$) "
        r"once $n \ge 27$; the sharper bound is nearly attained (the other logits near the cap, logit $j$ near "
        r"$-c$), so in float32 such a weight underflows to $0$. In float64 ($4.9 \cdot 10^{-324}$) the floor stays "
        r"representable up to $n \approx 7.5 \cdot 10^{279}$."
    ),
    topic=TOPIC,
))
