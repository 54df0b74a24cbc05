r"""The online softmax: exact attention one block of keys at a time
==================================================================

FlashAttention never forms the ``n x n`` score matrix. It sweeps the keys in tiles and keeps,
per query, a running reference ``m`` (the running maximum), a running normaliser ``l`` and an
unnormalised output ``o``; absorbing a tile rescales the old statistics by ``e^{m_old - m_new}``.
This module proves that the recurrence computes *exactly* the softmax-weighted average and the
log-sum-exp, for any block sizes, any number of tiles, and any choice of the reference values
(the maximum is needed only to keep ``e^{s_j - m} <= 1`` in floating point).

Main results
------------
* ``online_softmax_merge``: merging the states of the key blocks ``1..a`` and ``a+1..a+b`` (any
  references ``m_A``, ``m_B``, ``m``) gives the state of ``1..a+b``.
* ``online_softmax_output_eq_attention``: the normalised state ``o / l`` of the keys ``1..n``
  is the softmax-weighted sum of their values, whatever the reference ``m``.
* ``online_softmax_any_tiling``: by induction on the number of tiles ``T``, the online
  recurrence over tiles of arbitrary widths ``w_1, ..., w_T`` ends in the state of all keys.
* ``online_softmax_tiled_output``: the tiled output ``O_T / L_T`` is exact attention.
* ``online_softmax_lse``: the final ``M_T + log L_T`` is ``log sum_j e^{s_j}``, the log-sum-exp
  the tiled kernel returns for its backward pass.

Notation
--------
Scores ``s_j`` and one coordinate ``v_j`` of the values (the identities hold coordinate by
coordinate); tile ``t`` is the key range ``end(t-1)+1 .. end(t)`` with ``end(t) = w_1 + ... +
w_t`` (:class:`symattn.maths.online_softmax.TileEnd`); ``M_t`` the running reference after ``t`` tiles,
``mu_t`` the reference of tile ``t`` alone.

References
----------
* Seed 002 ("Math Behind Transformer Attention"), *How It Actually Works*, second paragraph:
  FlashAttention "uses an online, numerically stable running version of softmax (tracking a
  running max and running sum ...) to compute the exact same output with O(n) memory".
* Seed 000 ("The Mathematics of Transformers"), *Key idea* after the complexity table:
  FlashAttention computes exact attention "by tiling and recomputation, reducing memory to O(n)
  at no accuracy cost".
* Milakov & Gimelshein, "Online normalizer calculation for softmax", 2018; Dao et al.,
  "FlashAttention", NeurIPS 2022, Algorithm 1.

Tags: online softmax, FlashAttention, tiling, log-sum-exp, induction
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from symattn.engine.theorem import NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, Equation, Statement
from symattn.maths.online_softmax import SoftmaxState, TileEnd, merge, state
from symattn.maths.softmax import Softmax
from symattn.rules.induction import labelled

__all__ = ["tiling_hypotheses", "online_recurrence"]

j, k = sp.symbols("j k", integer=True)
a, b = sp.symbols("a b", integer=True, nonnegative=True)
n = sp.Symbol("n", integer=True, positive=True)
m, m_A, m_B = sp.symbols("m m_A m_B", real=True)
s = sp.IndexedBase("s", real=True)
v = sp.IndexedBase("v", real=True)

T = sp.Symbol("T", integer=True, nonnegative=True)
T_pos = sp.Symbol("T", integer=True, positive=True)
t = sp.Symbol("t", integer=True, positive=True)
w = sp.IndexedBase("w", integer=True, nonnegative=True)
w_pos = sp.IndexedBase("w", integer=True, positive=True)
M = sp.IndexedBase("M", real=True)  # running reference after t tiles
mu = sp.IndexedBase("mu", real=True)  # reference of tile t alone
L = sp.IndexedBase("L")  # running normaliser after t tiles
O = sp.IndexedBase("O")  # running unnormalised output after t tiles  # noqa: E741

_SOURCE = (
    "002_e97041f43d35f9ac.txt, 'How It Actually Works' (online running softmax in FlashAttention); "
    "000_ccf06b253f58a07c.txt, Key idea after Proposition 'Complexity of a transformer layer' "
    "(FlashAttention: exact attention, O(n) memory)"
)


def _weight(ref):
    return sp.exp(s[j] - ref)


def _union_state(ref, upper) -> sp.ImmutableMatrix:
    """(l, o) of the keys 1..upper with reference ``ref``."""
    return state(s, v, ref, index=(j, 1, upper)).as_matrix()


# ----------------------------------------------------------------------------------- merge
def _merged(ref_a, ref_b, ref, size_a, size_b) -> SoftmaxState:
    block_a = state(s, v, ref_a, index=(j, 1, size_a))
    block_b = state(s, v, ref_b, index=(j, size_a + 1, size_a + size_b))
    return merge(block_a, block_b, m=ref)


def _merge_derivation() -> Derivation:
    def split(ref, lo, hi):
        return sp.Sum(_weight(ref), (j, lo, hi)), sp.Sum(_weight(ref) * v[j], (j, lo, hi))

    l_a, o_a = split(m, 1, a)
    l_b, o_b = split(m, a + 1, a + b)
    l_ab, o_ab = split(m, 1, a + b)
    return (
        Derivation(_merged(m_A, m_B, m, a, b).as_matrix())
        .eq(sp.ImmutableMatrix([l_a + l_b, o_a + o_b]), "sum_linearity",
            note=r"$e^{m_A - m} e^{s_j - m_A} = e^{s_j - m}$ on block $A$ (and with $m_B$ on block $B$): the "
            "rescaling factors enter the sums and the block references cancel")
        .eq(sp.ImmutableMatrix([l_ab, o_a + o_b]), "sum_join", at=a,
            note="the block 1..a followed by the block a+1..a+b is the range 1..a+b")
        .eq(_union_state(m, a + b), "sum_join", at=a, note="the same for the output")
    )


def _direct(scores: np.ndarray, values: np.ndarray, ref: float) -> tuple[float, np.ndarray]:
    e = np.exp(scores - ref)  # (n,)
    return float(e.sum()), e @ values  # l, o (d_v,)


def _merge_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 200
    for _ in range(trials):
        n_keys = int(rng.integers(2, 40))
        cut = int(rng.integers(0, n_keys + 1))  # empty blocks allowed
        scores = rng.normal(scale=3.0, size=n_keys)  # (n,)
        values = rng.normal(size=(n_keys, 3))  # (n, d_v)
        refs = rng.normal(scale=2.0, size=3)  # arbitrary m_A, m_B, m: not the maxima
        l_a, o_a = _direct(scores[:cut], values[:cut], refs[0])
        l_b, o_b = _direct(scores[cut:], values[cut:], refs[1])
        l_ab, o_ab = _direct(scores, values, refs[2])
        l_m = np.exp(refs[0] - refs[2]) * l_a + np.exp(refs[1] - refs[2]) * l_b
        o_m = np.exp(refs[0] - refs[2]) * o_a + np.exp(refs[1] - refs[2]) * o_b
        scale = max(1.0, abs(l_ab), float(np.abs(o_ab).max()))
        worst = max(worst, abs(l_m - l_ab) / scale, float(np.abs(o_m - o_ab).max()) / scale)
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "random splits (empty blocks included) and arbitrary references m_A, m_B, m; "
                         "relative error of (l, o) against the direct sums")


online_softmax_merge = register(
    Theorem(
        id="online_softmax_merge",
        claim=r"For any references $m_A, m_B, m$, merging the online-softmax states of the blocks $1..a$ and "
              r"$a+1..a+b$ gives the state of $1..a+b$ with reference $m$.",
        title="Merging the online-softmax states of two key blocks gives the state of their union",
        statement=Statement(_merged(m_A, m_B, m, a, b).as_matrix(), _union_state(m, a + b)),
        source=_SOURCE,
        kind="theorem",
        # a, b are declared nonnegative integers (empty blocks allowed): apply_theorem checks that
        # every instance keeps those assumptions
        hypotheses=(
            Assumption("references_real", condition=sp.Q.real(m) & sp.Q.real(m_A) & sp.Q.real(m_B),
                       text=r"$m_A, m_B, m$ are arbitrary real numbers"),
        ),
        derivation=_merge_derivation,
        dimensions=(a, b),
        numeric=_merge_numeric,
        plain=(
            "Keep for a block of keys the triple (m, l, o): a reference value m, the sum l of "
            r"$e^{s_j - m}$ and the weighted sum $o$ of $e^{s_j - m} v_j$. Two blocks that follow each "
            r"other merge by rescaling: $l = e^{m_A - m} l_A + e^{m_B - m} l_B$ and likewise for $o$. "
            r"The result is exactly the triple of the combined block, for every choice of $m_A, m_B$ "
            "and m -- the maximum of the scores is chosen only so that no exponential overflows."
        ),
        notes=(
            "Proved for arbitrary real references: the running maximum is a floating-point device, "
            "not a condition of exactness. Seed 002 says the running version computes 'the exact "
            "same output'; that is exact in real arithmetic (this theorem), and in floating point "
            "only up to rounding -- the rescaled sums are added in a different order than in the "
            "one-pass softmax. Values are treated one coordinate at a time."
        ),
    )
)


# ----------------------------------------------------------------------------- normalisation
def _output_lhs(ref, upper):
    st = state(s, v, ref, index=(j, 1, upper))
    return st.o / st.l


def _attention(upper):
    return sp.Sum(Softmax(sp.Lambda(k, s[k]), j, upper) * v[j], (j, 1, upper))


def _output_derivation() -> Derivation:
    num = sp.Sum(sp.exp(s[j]) * v[j], (j, 1, n))
    return (
        Derivation(_output_lhs(m, n))
        .eq(num / sp.Sum(sp.exp(s[j]), (j, 1, n)), "sum_linearity",
            note=r"$e^{s_j - m} = e^{-m} e^{s_j}$: the factor $e^{-m}$ leaves both sums and cancels")
        .eq(num / sp.Sum(sp.exp(s[k]), (k, 1, n)), "rename_bound", note="name the normaliser's index k")
        .eq(sp.Sum(sp.exp(s[j]) / sp.Sum(sp.exp(s[k]), (k, 1, n)) * v[j], (j, 1, n)), "sum_linearity",
            note="the normaliser does not depend on j: move it into the sum")
        .eq(_attention(n), "definition", name="softmax", note="fold the softmax")
    )


def _output_numeric(seed: int) -> NumericResult:
    from numeric.reference import softmax

    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 200
    for _ in range(trials):
        n_keys = int(rng.integers(1, 50))
        scores = rng.normal(scale=4.0, size=n_keys)  # (n,)
        values = rng.normal(size=(n_keys, 4))  # (n, d_v)
        ref = float(rng.normal(scale=3.0))  # any reference, not the max
        l_, o_ = _direct(scores, values, ref)
        worst = max(worst, float(np.abs(o_ / l_ - softmax(scores) @ values).max()))
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "o/l with an arbitrary reference against softmax(s) @ V (numeric.reference)")


register(
    Theorem(
        id="online_softmax_output_eq_attention",
        claim=r"For every real reference $m$, $o/l = \sum_j e^{s_j - m} v_j / \sum_j e^{s_j - m}$ equals the softmax "
              r"average $\sum_j \operatorname{softmax}(s)_j v_j$.",
        title=r"The normalised state $o / l$ is the softmax-weighted average of the values, for any reference $m$",
        statement=Statement(_output_lhs(m, n), _attention(n)),
        source=_SOURCE,
        hypotheses=(Assumption("reference_real", condition=sp.Q.real(m), text="m is an arbitrary real number"),),
        derivation=_output_derivation,
        dimensions=(n,),
        numeric=_output_numeric,
        plain=(
            "Dividing the accumulated output o by the accumulated normaliser l gives the softmax "
            "average of the values, whatever reference m was subtracted from the scores: the "
            r"factor $e^{-m}$ appears in both and cancels."
        ),
    )
)


# --------------------------------------------------------------------------------- tiling
def online_recurrence(widths, ref_w=None, ref_t=None):
    """Absorb explicit tiles one at a time with :func:`symattn.maths.online_softmax.merge`.

    Returns the final state (scores ``s[1..N]``, values ``v[1..N]``) and ``N``; the references
    default to the symbols ``M[t]`` (running) and ``mu[t]`` (per tile), arbitrary reals."""
    widths = list(widths)
    if any(int(x) != x or x < 0 for x in widths):
        raise ValueError(f"tile widths must be nonnegative integers, got {widths}")
    run = SoftmaxState(M[0], sp.S.Zero, sp.S.Zero)
    end = 0
    for t_, width in enumerate(widths, start=1):
        keys = range(end + 1, end + width + 1)
        tile_ref = mu[t_] if ref_t is None else ref_t[t_ - 1]
        tile = SoftmaxState(
            tile_ref,
            sp.Add(*[sp.exp(s[x] - tile_ref) for x in keys]),
            sp.Add(*[sp.exp(s[x] - tile_ref) * v[x] for x in keys]),
        )
        run = merge(run, tile, m=M[t_] if ref_w is None else ref_w[t_ - 1])
        end += width
    return run, end


def tiling_hypotheses(widths: sp.IndexedBase) -> tuple:
    """The online recurrence over tiles of widths ``widths``, as hypotheses of a theorem."""
    start = TileEnd(widths, t - 1)
    tile = state(s, v, mu[t], index=(j, start + 1, start + widths[t]))
    step = merge(SoftmaxState(M[t - 1], L[t - 1], O[t - 1]), tile, m=M[t])
    return (
        Equation("initial_normaliser", lhs=L[0], rhs=sp.S.Zero),
        Equation("initial_output", lhs=O[0], rhs=sp.S.Zero),
        Equation("recurrence_normaliser", lhs=L[t], rhs=step.l, forall=(t,)),
        Equation("recurrence_output", lhs=O[t], rhs=step.o, forall=(t,)),
        Assumption("references_real", text=r"the references $M_t, \mu_t$ are arbitrary real numbers"),
        Assumption("tile_widths", text=r"tile widths $w_t$ are nonnegative integers; $\operatorname{end}(t) = w_1 + "
                                       r"\dots + w_t$"),
    )


def _claim(widths, at):
    return sp.ImmutableMatrix([L[at], O[at]]), _union_state(M[at], TileEnd(widths, at))


def _tiling_proof(widths) -> dict:
    """The arguments of the ``induction`` rule for tiles of widths ``widths``."""
    state_t, union_t = _claim(widths, t)
    state_0, union_0 = _claim(widths, 0)
    prev = SoftmaxState(M[t - 1], L[t - 1], O[t - 1])
    start = TileEnd(widths, t - 1)
    tile = state(s, v, mu[t], index=(j, start + 1, start + widths[t]))
    after_recurrence = merge(prev, tile, m=M[t]).as_matrix()
    prefix = state(s, v, M[t - 1], index=(j, 1, start))
    after_ih = merge(prefix, tile, m=M[t]).as_matrix()
    base = (
        Derivation(state_0)
        .eq(sp.ImmutableMatrix([0, 0]), "substitute", using=["initial_normaliser", "initial_output"],
            note="the state before the first tile")
        .eq(union_0, "algebra", note="sums over the empty range 1..0 are 0")
    )
    step = (
        Derivation(state_t)
        .eq(after_recurrence, "substitute", using=["recurrence_normaliser", "recurrence_output"],
            note="absorb tile t: rescale the running state and add the tile's state")
        .eq(after_ih, "substitute", using=["induction_hypothesis_0", "induction_hypothesis_1"],
            note="the running state after t-1 tiles is the state of the keys 1..end(t-1)")
        .eq(_union_state(M[t], start + widths[t]), "apply_theorem", theorem="online_softmax_merge",
            mapping={a: start, b: widths[t], m: M[t], m_A: M[t - 1], m_B: mu[t]},
            note="merge the prefix 1..end(t-1) with tile t")
        .eq(union_t, "definition", name="tile_end", note=r"$\operatorname{end}(t-1) + w_t = \operatorname{end}(t)$")
    )
    return {"var": t, "start": 0, "base": labelled(base, "base case T = 0"),
            "step": labelled(step, "step t-1 -> t (merge with tile t)")}


def _any_tiling_derivation() -> Derivation:
    state_T, union_T = _claim(w, T)
    return Derivation(state_T).eq(union_T, "bounded_induction", on=T, **_tiling_proof(w),
                                  note="induction on the number of tiles")


_WIDTHS = (2, 1, 3, 0, 2, 1, 2, 1)


def _run_online(scores, values, widths, refs="max", rng=None):
    """The recurrence in numpy over explicit tiles: returns (m, l, o)."""
    m_run, l_run, o_run = -np.inf, 0.0, np.zeros(values.shape[1])  # (d_v,)
    end = 0
    for width in widths:
        tile_s = scores[end:end + width]  # (w,)
        tile_v = values[end:end + width]  # (w, d_v)
        end += width
        if refs == "max":
            if width == 0:
                continue
            mu_t = tile_s.max()
            m_new = max(m_run, mu_t)
        else:  # arbitrary references: any real numbers work in exact arithmetic
            mu_t, m_new = rng.normal(scale=2.0, size=2)
        p = np.exp(tile_s - mu_t)  # (w,)
        scale_old = np.exp(m_run - m_new) if np.isfinite(m_run) else 0.0
        l_run = scale_old * l_run + np.exp(mu_t - m_new) * p.sum()
        o_run = scale_old * o_run + np.exp(mu_t - m_new) * (p @ tile_v)
        m_run = m_new
    return m_run, l_run, o_run


def _random_widths(rng, n_keys):
    cuts = np.sort(rng.integers(0, n_keys + 1, size=int(rng.integers(0, 6))))
    bounds = np.concatenate([[0], cuts, [n_keys]])
    return [int(x) for x in np.diff(bounds)]  # widths, some possibly 0


def _any_tiling_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 200
    for trial in range(trials):
        n_keys = int(rng.integers(1, 40))
        scores = rng.normal(scale=3.0, size=n_keys)  # (n,)
        values = rng.normal(size=(n_keys, 3))  # (n, d_v)
        widths = _random_widths(rng, n_keys)
        refs = "max" if trial % 2 else "random"
        m_run, l_run, o_run = _run_online(scores, values, widths, refs, rng)
        l_ab, o_ab = _direct(scores, values, m_run)
        scale = max(1.0, l_ab, float(np.abs(o_ab).max()))
        worst = max(worst, abs(l_run - l_ab) / scale, float(np.abs(o_run - o_ab).max()) / scale)
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "random tilings (empty tiles included), running-max and arbitrary references; "
                         "relative error of the final (l, o) against the direct sums at the final reference")


register(
    Theorem(
        id="online_softmax_any_tiling",
        claim=r"For every number of tiles $T$, any tile widths and any references, the online-softmax recurrence "
              r"ends in the normaliser and output of all keys.",
        title="The online softmax over any tiling of the keys ends in the state of all keys",
        statement=Statement(*_claim(w, T)),
        source=_SOURCE,
        hypotheses=tiling_hypotheses(w),
        derivation=_any_tiling_derivation,
        dimensions=(T,),
        numeric=_any_tiling_numeric,
        plain=(
            r"Cut the keys $1, \dots, N$, in order, into $T$ tiles of any widths (empty tiles allowed). Start "
            "with $l = o = 0$ and absorb the tiles one by one: rescale the running sums by "
            r"$e^{M_{\mathrm{old}} - M_{\mathrm{new}}}$ and add the tile's own sums rescaled by $e^{\mu_t - "
            r"M_{\mathrm{new}}}$. After the last tile, $(l, o)$ is exactly $(\sum_j e^{s_j - M_T}, \sum_j e^{s_j - "
            r"M_T} v_j)$ over "
            "all keys. The proof is an induction on the number of tiles whose step is the merge "
            "theorem."
        ),
        notes=(
            "Tiles are consecutive ranges of keys in their order; any other partition reduces to "
            "this one by reordering the keys, which does not change a finite sum. The references "
            r"$M_t, \mu_t$ are arbitrary (the kernel uses running maxima). The first state, before any "
            r"tile, is $l = o = 0$ with any $M_0$ (the kernel's $-\infty$ start gives the factor $e^{-\infty} = 0$, "
            "the same thing)."
        ),
    )
)


# The statement divides by (or takes the log of) the running normaliser L_T. The recurrence makes
# L_T a sum of exponentials, but the kernel's zero test needs the condition stated: both sides must
# be defined at the same points.
_NORMALISER_NONZERO = Assumption(
    "normaliser_nonzero", condition=sp.Ne(L[T_pos], 0),
    text="the running normaliser $L_T$ is nonzero (it is a sum of exponentials)",
)


def _tiled_output_derivation() -> Derivation:
    state_T, union_T = _claim(w_pos, T_pos)
    end = TileEnd(w_pos, T_pos)
    return (
        Derivation(O[T_pos] / L[T_pos])
        .eq(union_T[1] / union_T[0], "bounded_induction", on=T_pos, **_tiling_proof(w_pos),
            note=r"the tiling theorem's induction: $(L_T, O_T)$ is the state of all keys")
        .eq(_attention(end), "apply_theorem", theorem="online_softmax_output_eq_attention",
            mapping={n: end, m: M[T_pos]}, note="normalise")
    )


def _tiled_output_numeric(seed: int) -> NumericResult:
    from numeric import attention, tiled_attention

    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 60
    for _ in range(trials):
        n_q, n_k, d = int(rng.integers(1, 9)), int(rng.integers(1, 70)), int(rng.integers(1, 6))
        q, kk, vv = rng.normal(size=(n_q, d)), rng.normal(size=(n_k, d)), rng.normal(size=(n_k, 3))
        out, _ = tiled_attention(q, kk, vv, block_q=int(rng.integers(1, 5)), block_k=int(rng.integers(1, 17)))
        worst = max(worst, float(np.abs(out - attention(q, kk, vv)).max()))
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "numeric.tiled_attention (random block sizes) against numeric.attention")


register(
    Theorem(
        id="online_softmax_tiled_output",
        claim=r"For any tiling of the keys and any references, the tiled online softmax's $O_T / L_T$ equals softmax "
              r"attention over all keys.",
        title="The tiled online softmax outputs exact attention",
        statement=Statement(O[T_pos] / L[T_pos], _attention(TileEnd(w_pos, T_pos))),
        source=_SOURCE,
        hypotheses=tiling_hypotheses(w_pos)[:-1]
        + (Assumption("tile_widths", text=r"$T \ge 1$ tiles of positive integer widths $w_t$"), _NORMALISER_NONZERO),
        derivation=_tiled_output_derivation,
        dimensions=(T_pos,),
        numeric=_tiled_output_numeric,
        plain=(
            "After the last tile, dividing the running output by the running normaliser gives "
            "exactly the attention output: the softmax-weighted average of the values over all "
            "keys. Nothing is approximated; only the order of the floating-point additions changes."
        ),
        notes=(
            "Stated for nonempty tiles (so that there is at least one key and $l > 0$). The numeric "
            "check runs the project's numpy kernel numeric.tiled_attention, which cites "
            "online_softmax_merge, against the reference formula."
        ),
    )
)


def _lse_derivation() -> Derivation:
    state_T, union_T = _claim(w_pos, T_pos)
    end = TileEnd(w_pos, T_pos)
    total = sp.Sum(sp.exp(s[j]), (j, 1, end))
    return (
        Derivation(M[T_pos] + sp.log(L[T_pos]))
        .eq(M[T_pos] + sp.log(union_T[0]), "bounded_induction", on=T_pos, **_tiling_proof(w_pos),
            note=r"the tiling theorem's induction: $L_T = \sum_j e^{s_j - M_T}$")
        .eq(M[T_pos] + sp.log(sp.exp(-M[T_pos]) * total), "sum_linearity", note=r"$e^{-M_T}$ leaves the sum")
        .eq(sp.log(total), "algebra", note=r"$\log(e^{-M} x) = -M + \log x$ for $x > 0$")
    )


def _lse_numeric(seed: int) -> NumericResult:
    from numeric import logsumexp, tiled_attention

    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 100
    for trial in range(trials):
        n_keys = int(rng.integers(1, 60))
        scores = rng.normal(scale=5.0, size=n_keys) + (300.0 if trial % 3 == 0 else 0.0)  # (n,)
        widths = [x for x in _random_widths(rng, n_keys) if x > 0]
        m_run, l_run, _ = _run_online(scores, np.zeros((n_keys, 1)), widths, "max")
        worst = max(worst, abs(m_run + np.log(l_run) - float(logsumexp(scores))))
        q, kk = rng.normal(size=(2, 3)), rng.normal(size=(n_keys, 3))
        _, lse = tiled_attention(q, kk, np.zeros((n_keys, 1)), scale=1.0, block_k=int(rng.integers(1, 9)))
        worst = max(worst, float(np.abs(lse - logsumexp(q @ kk.T)).max()))
    tol = 1e-12 * 400
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "running max + log(running sum) over random tilings (scores up to ~300, where "
                         "exp overflows without the max) and numeric.tiled_attention's lse, against logsumexp")


register(
    Theorem(
        id="online_softmax_lse",
        claim=r"For any tiling and any references, the final $M_T + \log L_T$ equals $\log \sum_j e^{s_j}$.",
        title=r"The final $m + \log l$ of the online softmax is the log-sum-exp of all scores",
        statement=Statement(M[T_pos] + sp.log(L[T_pos]), sp.log(sp.Sum(sp.exp(s[j]), (j, 1, TileEnd(w_pos, T_pos))))),
        source=_SOURCE,
        hypotheses=tiling_hypotheses(w_pos)[:-1]
        + (Assumption("tile_widths", text=r"$T \ge 1$ tiles of positive integer widths $w_t$"), _NORMALISER_NONZERO),
        derivation=_lse_derivation,
        dimensions=(T_pos,),
        numeric=_lse_numeric,
        plain=(
            "The running reference plus the logarithm of the running normaliser is, after the last "
            "tile, the log-sum-exp of all the scores -- the number the tiled kernel saves so that "
            "the backward pass can recompute the softmax weights tile by tile."
        ),
        notes="The numeric tolerance is absolute on values of size up to ~300 (about 400 ulp there).",
    )
)
