r"""Attention is permutation equivariant
====================================

Permuting the tokens (the rows of :math:`X`) permutes the output rows the same way and changes
nothing else: every sublayer of a transformer without positional information commutes with
:math:`X \mapsto PX`.

Main results
------------
* ``softmax_rows_permutation_conjugate``:
  :math:`\operatorname{softmax_{rows}}(PSP^\top) = P\operatorname{softmax_{rows}}(S)P^\top`
  (re-indexing the normalising sum along the permutation).
* ``softmax_rows_permutation_rows``: :math:`\operatorname{softmax_{rows}}(PS) = P\operatorname{softmax_{rows}}(S)`.
* ``attention_permutation_equivariant``:
  :math:`\operatorname{Attention}(PXW_Q, PXW_K, PXW_V) = P\operatorname{Attention}(XW_Q, XW_K, XW_V)`.
* ``layernorm_permutation_equivariant``, ``mlp_permutation_equivariant``: position-wise maps commute
  with row permutations.
* ``mha_permutation_equivariant``: :math:`\operatorname{MHA}(PX) = P\operatorname{MHA}(X)` for every
  number of heads.
* ``prenorm_layer_permutation_equivariant``: the pre-norm layer
  :math:`Y = X + \operatorname{MHA}(\operatorname{LN}_1 X)`, :math:`Y + \operatorname{MLP}(\operatorname{LN}_2 Y)`
  is equivariant (composition of the above through ``apply_theorem``).
* ``positional_encoding_breaks_equivariance``: with additive positional encodings :math:`E` there
  are :math:`X, P` with :math:`\operatorname{Attn}(PX + E) \ne P\operatorname{Attn}(X + E)`
  (an exact rational witness; :func:`positional_counterexample` returns it).

Notation
--------
:math:`P = P_\sigma`, :math:`(P_\sigma)_{ik} = \delta_{\sigma(i)k}` for a permutation :math:`\sigma`
of :math:`\{1,\dots,n\}`, so :math:`(PX)_{ij} = X_{\sigma(i)j}`.

References
----------
* Seed 000 ("The Mathematics of Transformers"), Proposition "Attention is permutation equivariant"
  and the paragraph after it; *Residual stream, normalisation and the MLP block*.
* Seed 004 (Amathify), *Positional Encoding*, first paragraph.
* Lee et al. (2019), "Set Transformer", Property 1; Yun et al. (2020), "Are Transformers universal
  approximators of sequence-to-sequence functions?", Sec. 2.

Tags: permutation equivariance, symmetry, positional encoding, softmax, layer norm, counterexample
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from numeric.reference import TransformerLayerParams, attention, layer_norm, mlp, multi_head_attention, pre_norm_layer
from numeric.rope import sinusoidal_encoding
from symattn.engine.theorem import Instances, NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, Statement
from symattn.maths.multihead import MultiHeadAttention, mha_families
from symattn.maths.permutation import (
    MLP,
    Attention,
    LayerNorm,
    Permutation,
    PermutationMatrix,
    SoftmaxRows,
    permutation_matrix,
)
from symattn.maths.softmax import Softmax
from symattn.rules.matrices import entry

__all__ = ["positional_counterexample", "prenorm_layer"]

SEED_000 = "000_ccf06b253f58a07c.txt"
SEED_004 = "004_b987b516506401e6.txt"

n, d, d_k, d_v, r, h = sp.symbols("n d d_k d_v r h", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
m = sp.Symbol("m", integer=True, positive=True)
k1 = sp.Symbol("k_1", integer=True, positive=True)  # the summation index `entry` introduces first
eps = sp.Symbol("epsilon", positive=True)
t = sp.Symbol("t", real=True)
rho = sp.Lambda(t, sp.Function("rho")(t))

P = PermutationMatrix("sigma", n)
sigma = P.sigma
PERM = Permutation("sigma_perm", sigma="sigma", n=n)
S = sp.MatrixSymbol("S", n, n)
X = sp.MatrixSymbol("X", n, d)
W_Q, W_K = sp.MatrixSymbol("W_Q", d, d_k), sp.MatrixSymbol("W_K", d, d_k)
W_V = sp.MatrixSymbol("W_V", d, d_v)
gamma, beta = sp.MatrixSymbol("gamma", 1, d), sp.MatrixSymbol("beta", 1, d)
W_1, b_1 = sp.MatrixSymbol("W_1", d, r), sp.MatrixSymbol("b_1", 1, r)
W_2, b_2 = sp.MatrixSymbol("W_2", r, d), sp.MatrixSymbol("b_2", 1, d)
s_ = sp.IndexedBase("S")

_EQUIVARIANCE = f"{SEED_000}, Proposition 'Attention is permutation equivariant'"
_POSITIONWISE = (f"{SEED_000}, paragraph after 'Attention is permutation equivariant' "
                 "(MLP and normalisation act position-wise)")


def _random_perm(rng, size: int) -> np.ndarray:
    return np.eye(size)[rng.permutation(size)]  # rows of I reordered: (P x)_i = x_{perm(i)}


def _numeric(fn, detail: str, tol: float = 1e-12):
    """Max |f(P X) - P f(X)| over random inputs and random permutations."""

    def check(seed: int) -> NumericResult:
        rng = np.random.default_rng(seed)
        worst, samples = 0.0, 0
        for size in (1, 2, 3, 5, 8):
            for _ in range(6):
                Pm = _random_perm(rng, size)
                worst = max(worst, float(fn(rng, size, Pm)))
                samples += 1
        return NumericResult(worst <= tol, samples, seed, worst, tol, detail)

    return check


# ------------------------------------------------------------------------------------------ softmax lemmas
def _softmax_conjugate_derivation() -> Derivation:
    lhs, rhs = SoftmaxRows(P * S * P.T), P * SoftmaxRows(S) * P.T
    proof = (
        Derivation(entry(lhs, i, j))  # softmax of row sigma(i) of S, read in the order sigma
        .eq(sp.exp(s_[sigma(i), sigma(j)]) / sp.Sum(sp.exp(s_[sigma(i), sigma(k1)]), (k1, 1, n)),
            "definition", name="softmax", note=r"unfold: $(P S P^\top)_{il} = S_{\sigma(i) \sigma(l)}$")
        .eq(sp.exp(s_[sigma(i), sigma(j)]) / sp.Sum(sp.exp(s_[sigma(i), k1]), (k1, 1, n)),
            "sum_reindex_bijection", note=r"$\sigma$ is a bijection of $1, \dots, n$: the normaliser is the same sum")
        .eq(Softmax(sp.Lambda(k1, s_[sigma(i), k1]), sigma(j), n), "definition", name="softmax",
            note=r"fold: entry $(\sigma(i), \sigma(j))$ of $\operatorname{softmax}_{\mathrm{rows}}(S)$")
    )
    return Derivation(lhs).eq(rhs, "matrix_entrywise", i=i, j=j, proof=proof,
                              note=r"compare entry $(i, j)$ for every $i, j \in \{1, \dots, n\}$")


def _np_softmax_rows(x):
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


register(Theorem(
    id="softmax_rows_permutation_conjugate",
    claim=r"For any $n \times n$ matrix $S$ and any permutation matrix $P$, $\operatorname{softmax_{rows}}(PSP^\top) "
          r"= P \operatorname{softmax_{rows}}(S) P^\top$.",
    title="Row-wise softmax commutes with simultaneous permutation of rows and columns",
    statement=Statement(SoftmaxRows(P * S * P.T), P * SoftmaxRows(S) * P.T),
    source=f"{_EQUIVARIANCE} " r"(the step $\operatorname{softmax}(P S P^\top) = P \operatorname{softmax}(S) P^\top$ "
                               r"of its proof)",
    hypotheses=(PERM,),
    derivation=_softmax_conjugate_derivation,
    dimensions=(n,),
    numeric=_numeric(lambda rng, size, Pm: np.abs(
        _np_softmax_rows(Pm @ (s := rng.normal(size=(size, size))) @ Pm.T) - Pm @ _np_softmax_rows(s) @ Pm.T).max(),
        "softmax_rows(P S P^T) vs P softmax_rows(S) P^T, random S and permutations, n in {1,2,3,5,8}"),
    plain=(
        r"Entry $(i, j)$ of $\operatorname{softmax}_{\mathrm{rows}}(P S P^\top)$ is $\exp(S_{\sigma(i) \sigma(j)})$ "
        r"divided by the sum over $l$ of $\exp(S_{\sigma(i) \sigma(l)})$. Because $\sigma$ is a bijection of $1, "
        r"\dots, n$, that sum runs over the same terms as the sum over $l$ of $\exp(S_{\sigma(i) l})$, so the entry is "
        r"entry $(\sigma(i), \sigma(j))$ of $\operatorname{softmax}_{\mathrm{rows}}(S)$, which is entry $(i, j)$ of $P "
        r"\operatorname{softmax}_{\mathrm{rows}}(S) P^\top$."
    ),
    notes=r"The only non-trivial step is re-indexing the normalising sum; it needs $\sigma$ to be a bijection of "
          r"exactly $1, \dots, n$.",
))


def _softmax_rows_derivation() -> Derivation:
    lhs, rhs = SoftmaxRows(P * S), P * SoftmaxRows(S)
    proof = (
        Derivation(entry(lhs, i, j))
        .eq(sp.exp(s_[sigma(i), j]) / sp.Sum(sp.exp(s_[sigma(i), k1]), (k1, 1, n)), "definition", name="softmax",
            note=r"row $i$ of $P S$ is row $\sigma(i)$ of $S$")
        .eq(entry(rhs, i, j), "definition", name="softmax",
            note=r"entry $(\sigma(i), j)$ of $\operatorname{softmax}_{\mathrm{rows}}(S)$")
    )
    return Derivation(lhs).eq(rhs, "matrix_entrywise", i=i, j=j, proof=proof)


register(Theorem(
    id="softmax_rows_permutation_rows",
    claim=r"For any $n \times m$ matrix $S$ and any permutation matrix $P$, $\operatorname{softmax_{rows}}(PS) = P "
          r"\operatorname{softmax_{rows}}(S)$.",
    title="Row-wise softmax commutes with permuting the rows",
    statement=Statement(SoftmaxRows(P * S), P * SoftmaxRows(S)),
    source=f"{_EQUIVARIANCE} (row-wise maps commute with row permutations)",
    hypotheses=(PERM,),
    derivation=_softmax_rows_derivation,
    dimensions=(n,),
    numeric=_numeric(lambda rng, size, Pm: np.abs(
        _np_softmax_rows(Pm @ (s := rng.normal(size=(size, size)))) - Pm @ _np_softmax_rows(s)).max(),
        "softmax_rows(P S) vs P softmax_rows(S)"),
    plain=(
        "The softmax is taken in each row separately, so permuting the rows before or after it gives the "
        r"same matrix: row $i$ of $\operatorname{softmax}_{\mathrm{rows}}(P S)$ is the softmax of row $\sigma(i)$ of "
        r"$S$."
    ),
    notes=r"Holds for any row-wise map; bijectivity of $\sigma$ is not even needed here (any map of the row index).",
))


# ------------------------------------------------------------------------------------------ attention
def _attention_derivation() -> Derivation:
    logits = X * W_Q * W_K.T * X.T / sp.sqrt(d_k)  # n x n, without P
    return (
        Derivation(Attention(P * X * W_Q, P * X * W_K, P * X * W_V))
        .eq(sp.MatMul(SoftmaxRows((P * X * W_Q) * (P * X * W_K).T / sp.sqrt(d_k)), P * X * W_V), "definition",
            name="attention", note=r"$\operatorname{softmax}_{\mathrm{rows}}(Q K^\top / \sqrt{d_k})\, V$ with $Q = P X "
                                   r"W_Q, \dots$")
        .eq(sp.MatMul(SoftmaxRows(sp.MatMul(P, logits, P.T)), P, X, W_V), "transpose_product",
            note=r"$(P X W_K)^\top = W_K^\top X^\top P^\top$: the logits are $P (X W_Q W_K^\top X^\top / \sqrt{d_k}) "
                 r"P^\top$")
        .eq(sp.MatMul(P, SoftmaxRows(logits), P.T, P, X, W_V), "apply_theorem",
            theorem="softmax_rows_permutation_conjugate", mapping={S: logits})
        .eq(sp.MatMul(P, SoftmaxRows(logits), X, W_V), "permutation_matrix_orthogonal", note=r"$P^\top P = I$")
        .eq(P * Attention(X * W_Q, X * W_K, X * W_V), "definition", name="attention", note="fold")
    )


def _attention_numeric(rng, size, Pm):
    dm, dk, dv = 4, 3, 2
    x, wq, wk, wv = (rng.normal(size=s) for s in ((size, dm), (dm, dk), (dm, dk), (dm, dv)))
    px = Pm @ x
    return np.abs(attention(px @ wq, px @ wk, px @ wv) - Pm @ attention(x @ wq, x @ wk, x @ wv)).max()


register(Theorem(
    id="attention_permutation_equivariant",
    claim=r"For any permutation matrix $P$ and any $X, W_Q, W_K, W_V$, $\operatorname{Attention}(PXW_Q, PXW_K, "
          r"PXW_V) = P \operatorname{Attention}(XW_Q, XW_K, XW_V)$.",
    title="Self-attention is permutation equivariant",
    statement=Statement(Attention(P * X * W_Q, P * X * W_K, P * X * W_V), P * Attention(X * W_Q, X * W_K, X * W_V)),
    source=f"{_EQUIVARIANCE}; {SEED_004}, 'Positional Encoding' (shuffle the tokens and each output is shuffled the "
           f"same way)",
    hypotheses=(PERM,),
    derivation=_attention_derivation,
    dimensions=(n, d, d_k, d_v),
    numeric=_numeric(_attention_numeric, "numeric.reference.attention on P X vs P times it on X"),
    plain=(
        r"Permuting the tokens permutes the queries, keys and values. The logit matrix becomes $P L P^\top$, "
        r"its row-wise softmax $P A P^\top$, and the columns of $A$ meet the permuted values through $P^\top P = I$: "
        "the output is P times the original output. Self-attention cannot tell where in the sequence a token "
        "is; it only moves each token's output along with the token."
    ),
    notes=(
        "Seed 000 concludes that 'a transformer without positional information computes a function of the "
        "input multiset, not the sequence'. Precisely: the map is equivariant, not invariant; output row i "
        "is a function of token i and of the multiset of all tokens, so the output is a sequence that is "
        "reordered with the input (a pooled output, e.g. the mean of the rows, is then a function of the "
        "multiset). Seed 004's 'attention treats its input as a set' is looser still: repeated tokens "
        "count with multiplicity (a multiset), and the outputs are not unchanged but shuffled. With a causal "
        "mask (seed 004, 'The Complete Transformer Block') equivariance fails: token i attends only to "
        r"positions $j \le i$, which depends on the order (see `tests/derivations/test_equivariance.py`)."
    ),
))


# ------------------------------------------------------------------------------------------ position-wise maps
def _layernorm_derivation() -> Derivation:
    lhs, rhs = LayerNorm(P * X, gamma, beta, eps), P * LayerNorm(X, gamma, beta, eps)
    proof = Derivation(entry(lhs, i, j), note=r"row $i$ of $\operatorname{LN}(P X)$ is $\operatorname{LN}$ of row "
                                              r"$\sigma(i)$ of $X$: the entries coincide")
    return Derivation(lhs).eq(rhs, "matrix_entrywise", i=i, j=j, proof=proof)


def _layernorm_numeric(rng, size, Pm):
    x, g, b = rng.normal(size=(size, 6)), rng.normal(size=6), rng.normal(size=6)
    return np.abs(layer_norm(Pm @ x, g, b) - Pm @ layer_norm(x, g, b)).max()


register(Theorem(
    id="layernorm_permutation_equivariant",
    claim=r"For any permutation matrix $P$, $\operatorname{LN}(PX) = P \operatorname{LN}(X)$: layer normalisation "
          r"acts row by row.",
    title="Layer normalisation commutes with permuting the tokens",
    statement=Statement(LayerNorm(P * X, gamma, beta, eps), P * LayerNorm(X, gamma, beta, eps)),
    source=_POSITIONWISE,
    hypotheses=(PERM,),
    derivation=_layernorm_derivation,
    dimensions=(n, d),
    numeric=_numeric(_layernorm_numeric, "numeric.reference.layer_norm on P X vs P times it on X"),
    plain=(
        "Layer normalisation standardises each token's vector using that token's own mean and variance; "
        r"row $i$ of $\operatorname{LN}(P X)$ is $\operatorname{LN}$ applied to row $\sigma(i)$ of $X$, which is row "
        r"$i$ of $P \operatorname{LN}(X)$."
    ),
    notes="Batch normalisation, which pools statistics over tokens, would also commute with P (the pooled "
          "statistics are symmetric), but the seeds use layer norm.",
))


def _mlp_derivation() -> Derivation:
    lhs, rhs = MLP(P * X, W_1, b_1, W_2, b_2, rho), P * MLP(X, W_1, b_1, W_2, b_2, rho)
    unfolded_l = MLP(P * X, W_1, b_1, W_2, b_2, rho).expanded()
    unfolded_r = sp.MatMul(P, MLP(X, W_1, b_1, W_2, b_2, rho).expanded())
    proof = Derivation(entry(unfolded_l, i, j), note=r"row $i$ reads only row $\sigma(i)$ of $X$: the entries coincide")
    return (
        Derivation(lhs)
        .eq(unfolded_l, "definition", name="mlp", note=r"$\rho(P X W_1 + \mathbf{1} b_1) W_2 + \mathbf{1} b_2$")
        .eq(unfolded_r, "matrix_entrywise", i=i, j=j, proof=proof,
            note=r"$(P M)_{ij} = M_{\sigma(i) j}$, and the bias rows $\mathbf{1} b$ are the same in every row")
        .eq(rhs, "definition", name="mlp", note="fold")
    )


def _mlp_numeric(rng, size, Pm):
    x, w1, c1, w2, c2 = (rng.normal(size=s) for s in ((size, 4), (4, 16), (16,), (16, 4), (4,)))
    return np.abs(mlp(Pm @ x, w1, w2, c1, c2) - Pm @ mlp(x, w1, w2, c1, c2)).max()


register(Theorem(
    id="mlp_permutation_equivariant",
    claim=r"For any permutation matrix $P$ and any activation $\rho$, $\operatorname{MLP}(PX) = P "
          r"\operatorname{MLP}(X)$.",
    title="The position-wise MLP commutes with permuting the tokens",
    statement=Statement(MLP(P * X, W_1, b_1, W_2, b_2, rho), P * MLP(X, W_1, b_1, W_2, b_2, rho)),
    source=_POSITIONWISE,
    hypotheses=(PERM,),
    derivation=_mlp_derivation,
    dimensions=(n, d, r),
    numeric=_numeric(_mlp_numeric, "numeric.reference.mlp (GELU) on P X vs P times it on X"),
    plain=(
        r"The MLP is applied to each token separately, with the same weights: $\rho(x W_1 + b_1) W_2 + b_2$ for "
        r"each row $x$. Row $i$ of $\operatorname{MLP}(P X)$ is the MLP of row $\sigma(i)$ of $X$, for any activation "
        r"$\rho$."
    ),
    notes=(
        r"Seed 000 writes $\operatorname{MLP}(x) = W_2 \rho(W_1 x)$ on column vectors ($W_1 \in \mathbb{R}^{4d \times "
        r"d}$); on the rows of $X$ that is $X W_1^\top$, i.e. our $W_1$ ($d \times r$) is the seed's $W_1$ transposed, "
        r"$r = 4d$. Biases included here."
    ),
))


# ------------------------------------------------------------------------------------------ multi-head
FAMILIES = mha_families(m, d, d_k, d_v)


def _mha_derivation() -> Derivation:
    wq, wk, wv, wo = FAMILIES

    def heads(Xm, left=None):
        head = Attention(Xm * wq(m), Xm * wk(m), Xm * wv(m))
        return sp.Lambda(m, head if left is None else sp.MatMul(left, head))

    from symattn.maths.multihead import Concat, Stack

    stack = Stack(sp.Lambda(m, wo(m)), h)
    return (
        Derivation(MultiHeadAttention(P * X, *FAMILIES, h))
        .eq(sp.MatMul(Concat(heads(P * X), h), stack), "definition", name="mha")
        .eq(sp.MatMul(Concat(heads(X, P), h), stack), "apply_theorem", theorem="attention_permutation_equivariant",
            mapping={W_Q: wq(m), W_K: wk(m), W_V: wv(m)}, note="in every head")
        .eq(sp.MatMul(P, Concat(heads(X), h), stack), "factor_out_of_blocks",
            note=r"$[P H_1 \ \cdots \ P H_h] = P [H_1 \ \cdots \ H_h]$")
        .eq(P * MultiHeadAttention(X, *FAMILIES, h), "definition", name="mha", note="fold")
    )


def _mha_numeric(rng, size, Pm):
    x, wq, wk, wv, wo = (rng.normal(size=(6, 6)) if c else rng.normal(size=(size, 6)) for c in range(5))
    return np.abs(multi_head_attention(Pm @ x, wq, wk, wv, wo, heads=3)
                  - Pm @ multi_head_attention(x, wq, wk, wv, wo, heads=3)).max()


register(Theorem(
    id="mha_permutation_equivariant",
    claim=r"For any permutation matrix $P$ and any head weights, $\operatorname{MHA}(PX) = P \operatorname{MHA}(X)$.",
    title="Multi-head attention is permutation equivariant",
    statement=Statement(MultiHeadAttention(P * X, *FAMILIES, h), P * MultiHeadAttention(X, *FAMILIES, h)),
    source=f"{_EQUIVARIANCE} (applied to every head of 'Multi-head attention')",
    hypotheses=(PERM,),
    derivation=_mha_derivation,
    dimensions=(n, d, d_k, d_v, h),
    numeric=_numeric(_mha_numeric, "numeric.reference.multi_head_attention (3 heads) on P X vs P times it on X"),
    plain=(
        r"Every head is an attention map, hence equivariant; concatenating $P \mathrm{head}_1, \dots, P "
        r"\mathrm{head}_h$ gives $P$ times the concatenation, and $W_O$ acts on the right. So $\operatorname{MHA}(P X) "
        r"= P \operatorname{MHA}(X)$ for any number of heads."
    ),
))


# ------------------------------------------------------------------------------------------ pre-norm layer
gamma_1, beta_1 = sp.MatrixSymbol("gamma_1", 1, d), sp.MatrixSymbol("beta_1", 1, d)
gamma_2, beta_2 = sp.MatrixSymbol("gamma_2", 1, d), sp.MatrixSymbol("beta_2", 1, d)


def _mha(Z):
    return MultiHeadAttention(Z, *FAMILIES, h)


def _ln(Z, g, b):
    return LayerNorm(Z, g, b, eps)


def _mlp(Z):
    return MLP(Z, W_1, b_1, W_2, b_2, rho)


def prenorm_layer(Z):
    """The pre-norm layer of seed 000: ``Y = Z + MHA(LN_1(Z))``, then ``Y + MLP(LN_2(Y))``."""
    Y = sp.MatAdd(Z, _mha(_ln(Z, gamma_1, beta_1)))
    return sp.MatAdd(Y, _mlp(_ln(Y, gamma_2, beta_2)))


def _prenorm_derivation() -> Derivation:
    PX = P * X
    A0 = _mha(_ln(X, gamma_1, beta_1))  # MHA(LN_1 X)
    Y = sp.MatAdd(X, A0)
    step1_Y = sp.MatAdd(PX, _mha(sp.MatMul(P, _ln(X, gamma_1, beta_1))))
    step2_Y = sp.MatAdd(PX, sp.MatMul(P, A0))
    step3_Y = sp.MatMul(P, Y)
    return (
        Derivation(prenorm_layer(PX))
        .eq(sp.MatAdd(step1_Y, _mlp(_ln(step1_Y, gamma_2, beta_2))), "apply_theorem",
            theorem="layernorm_permutation_equivariant", mapping={gamma: gamma_1, beta: beta_1},
            note=r"$\operatorname{LN}_1(P X) = P \operatorname{LN}_1(X)$")
        .eq(sp.MatAdd(step2_Y, _mlp(_ln(step2_Y, gamma_2, beta_2))), "apply_theorem",
            theorem="mha_permutation_equivariant", mapping={X: _ln(X, gamma_1, beta_1)},
            note=r"$\operatorname{MHA}(P Z) = P \operatorname{MHA}(Z)$ with $Z = \operatorname{LN}_1(X)$")
        .eq(sp.MatAdd(step3_Y, _mlp(_ln(step3_Y, gamma_2, beta_2))), "matrix_distributivity",
            note=r"$P X + P \operatorname{MHA}(\operatorname{LN}_1 X) = P Y$")
        .eq(sp.MatAdd(step3_Y, _mlp(sp.MatMul(P, _ln(Y, gamma_2, beta_2)))), "apply_theorem",
            theorem="layernorm_permutation_equivariant", mapping={X: Y, gamma: gamma_2, beta: beta_2},
            note=r"$\operatorname{LN}_2(P Y) = P \operatorname{LN}_2(Y)$")
        .eq(sp.MatAdd(step3_Y, sp.MatMul(P, _mlp(_ln(Y, gamma_2, beta_2)))), "apply_theorem",
            theorem="mlp_permutation_equivariant", mapping={X: _ln(Y, gamma_2, beta_2)},
            note=r"$\operatorname{MLP}(P Z) = P \operatorname{MLP}(Z)$ with $Z = \operatorname{LN}_2(Y)$")
        .eq(sp.MatMul(P, prenorm_layer(X)), "matrix_distributivity",
            note=r"$P Y + P \operatorname{MLP}(\operatorname{LN}_2 Y) = P (Y + \operatorname{MLP}(\operatorname{LN}_2 "
                 r"Y))$")
    )


def _prenorm_numeric(rng, size, Pm):
    p = TransformerLayerParams.random(d_model=8, d_ff=32, rng=rng)
    x = rng.normal(size=(size, 8))
    return np.abs(pre_norm_layer(Pm @ x, p, heads=2) - Pm @ pre_norm_layer(x, p, heads=2)).max()


register(Theorem(
    id="prenorm_layer_permutation_equivariant",
    claim=r"For any permutation matrix $P$, a pre-norm transformer layer (MHA and MLP sublayers, no mask) maps $PX$ "
          r"to $P$ times its output on $X$.",
    title="A pre-norm transformer layer is permutation equivariant",
    statement=Statement(prenorm_layer(P * X), P * prenorm_layer(X)),
    source=f"{SEED_000}, 'Residual stream, normalisation and the MLP block' with Proposition 'Attention is "
           f"permutation equivariant' ('nothing else in the architecture breaks the symmetry')",
    hypotheses=(PERM,),
    derivation=_prenorm_derivation,
    dimensions=(n, d, d_k, d_v, h, r),
    numeric=_numeric(_prenorm_numeric, "numeric.reference.pre_norm_layer (2 heads, biases, GELU) on P X vs P times it "
                                       "on X",
                     tol=1e-10),
    plain=(
        "Each sublayer commutes with the permutation and the residual additions are linear, so the whole "
        r"pre-norm layer $X + \operatorname{MHA}(\operatorname{LN}_1 X)$, then $Y + "
        r"\operatorname{MLP}(\operatorname{LN}_2 Y)$, commutes with it: permuting the input tokens "
        "permutes the output tokens. Stacking layers keeps this, so without positional information the "
        "whole (unmasked) transformer is equivariant."
    ),
    notes=(
        r"Proved by composing the equivariance of layer norm, multi-head attention and the MLP (`apply_theorem`) "
        "with distributivity of P over the residual sums. Post-norm layers are equivariant by the same "
        "argument. Causal masking breaks it (see attention_permutation_equivariant's notes)."
    ),
))


# ------------------------------------------------------------------------------------------ positional encodings
LOG2 = sp.log(2)


def _witness(size: int = 2) -> dict:
    """Exact witness with the sinusoidal encoding of seed 004 at ``d_model = 2``: positions 0 and 1
    get ``E = (sin 0, cos 0; sin 1, cos 1) = (0, 1; sin 1, cos 1)``. The weights read the first
    (sine) coordinate scaled by ``1/sin 1``, so position 1 has query ``log 2`` and key and value
    ``1`` and position 0 has ``0``: every exponential is a power of 2 and every weight rational.
    The tokens ``X`` only have a second coordinate, which the weights do not read."""
    if size != 2:
        raise ValueError("the witness is stated for two positions")
    Xw = sp.ImmutableMatrix([[0, 1], [0, 0]])  # two tokens, distinguished by their second coordinate
    Ew = sp.ImmutableMatrix([[sp.sin(p), sp.cos(p)] for p in (0, 1)])  # PE(pos) = (sin pos, cos pos)
    perm = (2, 1)  # swap the two positions
    Pw = permutation_matrix(perm)
    s1 = sp.sin(1)
    wq, wk, wv = (sp.ImmutableMatrix([[f / s1], [0]]) for f in (LOG2, 1, 1))  # (2, 1) each
    shuffled = sp.ImmutableMatrix(Pw * Xw + Ew)  # P X + E
    plain = sp.ImmutableMatrix(Xw + Ew)  # X + E
    left = Attention(shuffled * wq, shuffled * wk, shuffled * wv)
    right = sp.MatMul(Pw, Attention(plain * wq, plain * wk, plain * wv))
    return {"n": size, "X": Xw, "E": Ew, "permutation": perm, "P": Pw, "W_Q": wq, "W_K": wk, "W_V": wv,
            "left": left, "right": right}


def _squared_gap(w: dict):
    diff = sp.MatAdd(w["left"], sp.MatMul(-1, w["right"]))
    return sp.Trace(sp.MatMul(sp.Transpose(diff), diff))


def _sides(w: dict) -> tuple:
    """The two sides evaluated exactly (explicit rational matrices)."""
    return w["left"].doit(), sp.ImmutableMatrix(w["P"] * w["right"].args[1].doit())


def _gap_value(w: dict) -> sp.Expr:
    left, right = _sides(w)
    return sp.Add(*[x**2 for x in sp.Matrix(left) - sp.Matrix(right)])


def positional_counterexample(size: int = 2) -> dict:
    """The concrete counterexample: X, positional encodings E, permutation P, weights, and the two
    sides ``Attn((P X + E) W_Q, ...)`` and ``P Attn((X + E) W_Q, ...)`` evaluated exactly.

    >>> cx = positional_counterexample()
    >>> cx["permutation"], cx["left_value"].T, cx["right_value"].T, cx["squared_gap"]
    ((2, 1), Matrix([[1/2, 2/3]]), Matrix([[2/3, 1/2]]), 1/18)
    """
    w = _witness(size)
    w["left_value"], w["right_value"] = _sides(w)
    w["squared_gap"] = _gap_value(w)
    return w


def _positional_derivation() -> Derivation:
    w = _witness(2)
    return (
        Derivation(_squared_gap(w))
        .eq(_gap_value(w), "evaluate_explicit",
            note=r"exact: $\sin 1 / \sin 1 = 1$, and every $e^{k \log 2}$ is the integer $2^k$")
        .step(sp.S.Zero, "inequality", ">", note="a positive rational")
    )


def _positional_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    smallest, samples = np.inf, 0
    for size in (2, 3, 5, 8):
        pe = sinusoidal_encoding(size, 4)  # (n, d) the sinusoidal encodings of seed 004
        for _ in range(10):
            x = rng.normal(size=(size, 4))
            wq, wk, wv = (rng.normal(size=(4, 4)) for _ in range(3))
            perm = rng.permutation(size)
            while size > 1 and np.all(perm == np.arange(size)):
                perm = rng.permutation(size)
            Pm = np.eye(size)[perm]
            a, b = Pm @ x + pe, x + pe
            gap = np.abs(attention(a @ wq, a @ wk, a @ wv) - Pm @ attention(b @ wq, b @ wk, b @ wv)).max()
            smallest = min(smallest, float(gap))
            samples += 1
    tol = 1e-6
    return NumericResult(smallest > tol, samples, seed, smallest, tol,
                         "smallest |Attn(PX+E) - P Attn(X+E)| over random X, W, non-identity P with sinusoidal E "
                         "(here max_error is that smallest gap; it must exceed the tolerance)")


register(Theorem(
    id="positional_encoding_breaks_equivariance",
    claim=r"For one explicit input ($n = 2$, $d = 2$) and weights, attention with sinusoidal encodings added gives "
          r"$\lVert \operatorname{Attn}(P(X+E)) - P\operatorname{Attn}(X+E) \rVert > 0$: equivariance fails.",
    title="The sinusoidal positional encoding breaks permutation equivariance",
    statement=Statement(_squared_gap(_witness(2)), 0, ">"),
    source=f"{SEED_004}, 'Positional Encoding' (word order must be injected explicitly); {SEED_000}, paragraph after "
           "'Attention is permutation equivariant' ('positional encodings are required')",
    hypotheses=(Assumption("witness", text=r"$n = 2$ positions $0, 1$ and $d_{\mathrm{model}} = 2$, so "
                                           r"$E = \begin{pmatrix} \sin 0 & \cos 0 \\ \sin 1 & \cos 1 \end{pmatrix}$; "
                                           r"$X = \begin{pmatrix} 0 & 1 \\ 0 & 0 \end{pmatrix}$; $P$ swaps the "
                                           r"two positions; $W_Q = (\log 2 / \sin 1, 0)^\top$, "
                                           r"$W_K = W_V = (1/\sin 1, 0)^\top$"),),
    derivation=_positional_derivation,
    instances=Instances(lambda size: Statement(_squared_gap(_witness(size)).doit(), 0, ">"), (2,),
                        label="n (the witness)"),
    numeric=_positional_numeric,
    plain=(
        r"Once the sinusoidal position vectors $PE(\mathrm{pos}) = (\sin \mathrm{pos}, \cos \mathrm{pos})$ "
        r"of seed 004 are added, permuting the tokens no longer just permutes the output. The weights read "
        r"the sine coordinate, which is $0$ at position $0$ and $\sin 1$ at position $1$, so the attention "
        r"pattern depends on the position and not on the token: $\operatorname{Attn}((PX + E) W_Q, \dots)$ "
        r"is $(1/2, 2/3)^\top$ while $P \operatorname{Attn}((X + E) W_Q, \dots)$ is $(2/3, 1/2)^\top$. "
        r"The squared difference of the two sides is the positive number $1/18$, computed exactly (the "
        r"weights are chosen so that every exponential is a power of $2$)."
    ),
    notes=(
        r"This is the existential statement (there exist $X$, $P$ and weights with "
        r"$\operatorname{Attn}(PX + E) \ne P \operatorname{Attn}(X + E)$ for the encoding $E$ the texts "
        r"define), proved by an explicit witness; the false universal claim is refuted by the checker in "
        r"tests/derivations/test_equivariance.py. The numeric check repeats it for random $X$, weights and "
        r"permutations with the sinusoidal $E$ at $d_{\mathrm{model}} = 4$ and $n$ up to $8$. Breaking "
        r"equivariance is necessary for a model to use word order, not sufficient for it to do so well; "
        r"rotary encodings (seed 000) break it inside the logits instead."
    ),
))
