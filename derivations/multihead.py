r"""Multi-head attention is a sum of low-rank maps
==============================================

Concatenating :math:`h` heads and multiplying by :math:`W_O` is the same as adding :math:`h`
per-head maps :math:`A^m X W_V^m W_O^m`, each factoring through a :math:`d/h`-dimensional space.

Main results
------------
* ``mha_sum_of_heads``: :math:`\operatorname{MHA}(X) = \sum_{m=1}^{h} A^m X W_V^m W_O^m` for every
  number of heads :math:`h` (induction on :math:`h`, block products checked shape by shape).
* ``mha_head_rank_le``: :math:`\operatorname{rank}(W_V^m W_O^m) \le d/h`.
* ``mha_qk_rank_le``: :math:`\operatorname{rank}(W_Q^m (W_K^m)^\top) \le d/h`.
* ``mha_head_rank_attained``, ``mha_qk_rank_attained``: the bounds are attained by generic
  weights (exact ranks of random integer matrices, at concrete sizes).
* ``mha_param_count``: :math:`h` heads of width :math:`d/h` have as many projection weights
  (:math:`3hd\cdot d/h + d^2 = 4d^2`) as one head of width :math:`d`.

References
----------
* Seed 000 ("The Mathematics of Transformers"), *Multi-head attention*, Proposition
  "Multi-head attention is a sum of low-rank attention maps" and its Key idea.
* Seed 004 (Amathify, "Attention and Transformers"), *Multi-Head Attention* and Worked Example 2.
* Seed 002, Problem 2 (split Q, K, V into h chunks).

Tags: multi-head attention, block matrices, rank, low-rank, parameter count, induction
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from numeric.reference import multi_head_attention
from numeric.reference import softmax as np_softmax
from symattn.engine.theorem import Instances, NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, Statement
from symattn.maths.multihead import (
    Concat,
    FamilyMatrix,
    HConcat,
    MatSum,
    MultiHeadAttention,
    NumEntries,
    Rank,
    Stack,
    VStack,
    head_blocks,
    mha_families,
    row_blocks,
)
from symattn.maths.permutation import Attention

n, d, d_k, d_v, h = sp.symbols("n d d_k d_v h", integer=True, positive=True)
m = sp.Symbol("m", integer=True, positive=True)
X = sp.MatrixSymbol("X", n, d)

SEED_000 = "000_ccf06b253f58a07c.txt"
SEED_004 = "004_b987b516506401e6.txt"

# ------------------------------------------------------------------------------------------ sum of heads
WQ, WK, WV, WO = mha_families(m, d, d_k, d_v)
HEAD = sp.Lambda(m, Attention(X * WQ(m), X * WK(m), X * WV(m)))  # m -> head_m
OUT = sp.Lambda(m, WO(m))  # m -> W_O^m, the m-th row block of W_O
MHA_X = MultiHeadAttention(X, WQ, WK, WV, WO, h)


def _pattern(m_):
    """A^m = softmax_rows(X W_Q^m (W_K^m)^T X^T / sqrt(d_k))."""
    return Attention(X * WQ(m_), X * WK(m_), X * WV(m_)).expanded().args[0]


SUM_FORM = MatSum(sp.MatMul(_pattern(m), X, WV(m), WO(m)), (m, 1, h))


#: the induction variable: the number of heads of the claim, 1 <= t <= h
t_heads = sp.Symbol("t", integer=True, positive=True)


def _concat_eq_sum_base(F, G) -> Derivation:
    one = sp.S.One
    return (
        Derivation(Concat(F, one) * Stack(G, one))
        .eq(F(one) * G(one), "peel_last_block", note=r"one block: $\operatorname{Concat}(F_1) = F_1$ and "
                                                     r"$\operatorname{Stack}(G_1) = G_1$")
        .eq(MatSum(F(m) * G(m), (m, 1, 1)), "peel_last_block", note="a sum with one term")
    )


def _concat_eq_sum_step(F, G) -> Derivation:
    """The claim for ``t`` heads from the claim for ``t - 1`` (``2 <= t <= h``, the kernel's range)."""
    t, k = t_heads, t_heads - 1
    return (
        Derivation(Concat(F, t) * Stack(G, t))
        .eq(sp.MatMul(HConcat(Concat(F, k), F(t)), VStack(Stack(G, k), G(t))), "peel_last_block",
            note=r"split off the last head and the last row block of $W_O$ ($t \ge 2$)")
        .eq(sp.MatAdd(sp.MatMul(Concat(F, k), Stack(G, k)), sp.MatMul(F(t), G(t))), "block_matrix_product",
            note=r"$[A_1 \ A_2] \begin{bmatrix} B_1 \\ B_2 \end{bmatrix} = A_1 B_1 + A_2 B_2$: inner dimensions "
                 r"$(t - 1) d_v$ and $d_v$ match")
        .eq(sp.MatAdd(MatSum(F(m) * G(m), (m, 1, k)), sp.MatMul(F(t), G(t))), "substitute",
            using="induction_hypothesis", note="the statement for t - 1 heads")
        .eq(MatSum(F(m) * G(m), (m, 1, t)), "peel_last_block", note="the last term joins the sum")
    )


def _mha_sum_of_heads_derivation() -> Derivation:
    concat = sp.MatMul(Concat(HEAD, h), Stack(OUT, h))
    per_head = MatSum(sp.MatMul(HEAD(m), OUT(m)), (m, 1, h))
    return (
        Derivation(MHA_X)
        .eq(concat, "definition", name="mha", note=r"$\operatorname{MHA}(X) = \operatorname{Concat}(\mathrm{head}_1, "
                                                   r"\dots, \mathrm{head}_h) W_O$")
        .eq(per_head, "bounded_induction", on=h, var=t_heads, start=1, base=_concat_eq_sum_base(HEAD, OUT),
            step=_concat_eq_sum_step(HEAD, OUT), note="block product, by induction on the number of heads t = 1..h")
        .eq(MatSum(sp.MatMul(Attention(X * WQ(m), X * WK(m), X * WV(m)).expanded(), WO(m)), (m, 1, h)),
            "definition", name="attention", note=r"$\mathrm{head}_m = A^m X W_V^m$")
        .eq(SUM_FORM, "matrix_associativity", note=r"regroup $A^m (X W_V^m) W_O^m$")
    )


def _mha_sum_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    for heads in (1, 2, 3, 4, 6):
        for _ in range(5):
            n_, w = int(rng.integers(1, 7)), int(rng.integers(1, 4))
            d_ = heads * w
            x = rng.normal(size=(n_, d_))
            w_q, w_k, w_v, w_o = (rng.normal(size=(d_, d_)) for _ in range(4))
            oracle = multi_head_attention(x, w_q, w_k, w_v, w_o, heads=heads)
            total = np.zeros((n_, d_))
            for q, k, v, o in zip(head_blocks(w_q, heads), head_blocks(w_k, heads), head_blocks(w_v, heads),
                                  row_blocks(w_o, heads)):
                a = np_softmax((x @ q) @ (x @ k).T / np.sqrt(w), axis=-1)  # (n, n)  A^m
                total += a @ x @ v @ o  # (n, d)  A^m X W_V^m W_O^m
            worst = max(worst, float(np.max(np.abs(total - oracle))))
            samples += 1
    tol = 1e-10
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "sum of A^m X W_V^m W_O^m vs numeric.reference.multi_head_attention, h in {1,2,3,4,6}")


register(Theorem(
    id="mha_sum_of_heads",
    claim=r"For any $X$ and head weights, $\operatorname{MHA}(X) = \sum_{m=1}^h \operatorname{softmax_{rows}}(XW_Q^m "
          r"(W_K^m)^\top X^\top/\sqrt{d_k})\, X W_V^m W_O^m$.",
    title=r"Multi-head attention is a sum of per-head maps $A^m X W_V^m W_O^m$",
    statement=Statement(MHA_X, SUM_FORM),
    source=f"{SEED_000}, Proposition 'Multi-head attention is a sum of low-rank attention maps'; "
           f"{SEED_004}, 'Multi-Head Attention'",
    hypotheses=(
        Assumption("blocks", text=r"$W_O$ is partitioned into $h$ row blocks $W_O^m$ of size $d_v \times d$; "
                                  r"head $m$ uses $W_Q^m, W_K^m$ ($d \times d_k$) and $W_V^m$ ($d \times d_v$)"),
    ),
    derivation=_mha_sum_of_heads_derivation,
    dimensions=(n, d, d_k, d_v, h),
    numeric=_mha_sum_numeric,
    plain=(
        r"Concatenating the $h$ head outputs side by side and multiplying by $W_O$ is the same as "
        r"multiplying each head by its own slice of rows of $W_O$ and adding the results. Since head $m$ is "
        r"its attention pattern $A^m$ applied to $X W_V^m$, multi-head attention is the sum of $h$ maps "
        r"$A^m X (W_V^m W_O^m)$, each passing through a $d_v$-dimensional bottleneck. The proof is an "
        "induction on the number of heads: split off the last head and the last row block, multiply "
        "the two-block matrices, and use the statement for one head fewer."
    ),
    notes=(
        r"Proved for any width $d$, head widths $d_k$ and $d_v$ and any number of heads $h$ (no relation between "
        r"them is needed); the texts' choice $d_k = d_v = d/h$ is a special case. Biases are omitted, as in "
        r"seed 000; with a value bias $b_V^m$ the term becomes $A^m (X W_V^m + \mathbf{1} b_V^m) W_O^m$ and $b_O$ is "
        "added once (numeric.reference.mha_sum_of_heads)."
    ),
))

# ------------------------------------------------------------------------------------------ ranks
w = d / h  # the head width d_k = d_v = d/h of the texts
WV_m = FamilyMatrix("W_V", m, d, w)
WO_m = FamilyMatrix("W_O", m, w, d)
WQ_m = FamilyMatrix("W_Q", m, d, w)
WK_m = FamilyMatrix("W_K", m, d, w)
_DIVIDES = Assumption("h_divides_d", text=r"$h$ divides $d$, so every head has width $d_k = d_v = d/h$")


def _random_int(rng, rows, cols):
    return sp.ImmutableMatrix(rng.integers(-5, 6, size=(rows, cols)).tolist())


def _rank_factors(size: int, width: int = 2):
    # h = size heads of width 2: d = 2h; seeded random integer matrices A (d x 2), B (d x 2)
    rng = np.random.default_rng(1000 + size)
    d_ = size * width
    return _random_int(rng, d_, width), _random_int(rng, d_, width)


def _rank_witness(kind: str, width: int = 2):
    """The substitution that takes the theorem's statement to its instance at ``size`` heads: the
    dimensions (h = size, d = 2 size) and the factors W_V^m = A, W_O^m = B^T (or W_Q^m = A,
    W_K^m = B); the kernel derives the instance from the statement with it."""
    def at(size: int) -> dict:
        A, B = _rank_factors(size, width)
        left, right = (WV_m, WO_m) if kind == "vo" else (WQ_m, WK_m)
        return {h: sp.Integer(size), d: sp.Integer(size * width), left: A, right: B.T if kind == "vo" else B}

    return at


def _rank_instance(kind: str, relation: str, width: int = 2):
    def build(size: int) -> Statement:
        A, B = _rank_factors(size, width)
        product = A * B.T  # d x d, through width: W_V^m W_O^m (W_O^m = B^T) or W_Q^m (W_K^m)^T
        return Statement(Rank(product), sp.Integer(width), relation)

    return build


def _rank_numeric(kind: str):
    def check(seed: int) -> NumericResult:
        rng = np.random.default_rng(seed)
        ranks_ok, samples, worst = True, 0, 0.0
        for heads in (1, 2, 4, 8):
            for width in (1, 2, 4):
                d_ = heads * width
                a = rng.normal(size=(d_, width))
                b = rng.normal(size=(width, d_)) if kind == "vo" else rng.normal(size=(d_, width)).T
                r = int(np.linalg.matrix_rank(a @ b))
                ranks_ok &= r == width
                samples += 1
                # the bound itself: the product has at most `width` non-negligible singular values
                sv = np.linalg.svd(a @ b, compute_uv=False)
                if sv.size > width:
                    worst = max(worst, float(sv[width] / sv[0]))
        tol = 1e-12
        return NumericResult(ranks_ok and worst <= tol, samples, seed, worst, tol,
                             "numpy rank of Gaussian products equals d/h every time (bound attained); "
                             "max error = largest singular value beyond d/h, relative to the largest")

    return check


def _rank_le_derivation(product):
    return lambda: Derivation(Rank(product)).le(
        w, "rank_of_product_le", note="the product factors through the inner dimension d/h"
    )


register(Theorem(
    id="mha_head_rank_le",
    claim=r"For $h$ dividing $d$ and any weights, $\operatorname{rank}(W_V^m W_O^m) \le d/h$.",
    title=r"Each head's value-output map $W_V^m W_O^m$ has rank at most $d/h$",
    statement=Statement(Rank(WV_m * WO_m), w, "<="),
    source=f"{SEED_000}, Proposition 'Multi-head attention is a sum of low-rank attention maps' and Key idea",
    hypotheses=(_DIVIDES,),
    derivation=_rank_le_derivation(WV_m * WO_m),
    dimensions=(d, h),
    numeric=_rank_numeric("vo"),
    plain=(
        r"$W_V^m$ is $d \times d/h$ and $W_O^m$ is $d/h \times d$, so their $d \times d$ product maps through a space "
        "of dimension d/h and its rank is at most d/h. Each head therefore writes into the output through a "
        "low-rank channel, however large d is."
    ),
    notes="The bound is attained for generic weights: see mha_head_rank_attained.",
))

register(Theorem(
    id="mha_qk_rank_le",
    claim=r"For $h$ dividing $d$ and any weights, $\operatorname{rank}(W_Q^m (W_K^m)^\top) \le d/h$.",
    title=r"Each head's bilinear form $W_Q^m (W_K^m)^\top$ has rank at most $d/h$",
    statement=Statement(Rank(WQ_m * WK_m.T), w, "<="),
    source=f"{SEED_000}, Proposition 'Multi-head attention is a sum of low-rank attention maps' and Key idea",
    hypotheses=(_DIVIDES,),
    derivation=_rank_le_derivation(WQ_m * WK_m.T),
    dimensions=(d, h),
    numeric=_rank_numeric("qk"),
    plain=(
        r"The logits of head $m$ are $X W_Q^m (W_K^m)^\top X^\top / \sqrt{d_k}$: they depend on the weights only "
        r"through the $d \times d$ matrix $W_Q^m (W_K^m)^\top$, which factors through $d/h$ dimensions and so has rank "
        "at most d/h."
    ),
    notes=(
        r"Seed 000's summary line says 'Each head has rank at most $d_k$'; precisely, the two $d \times d$ matrices "
        r"$W_Q^m (W_K^m)^\top$ and $W_V^m W_O^m$ have rank at most $d_k = d/h$ and $d_v = d/h$. The head's output "
        r"$A^m X W_V^m W_O^m$ ($n \times d$) then has rank at most $\min(n, d/h)$."
    ),
))


def _attained(kind: str, thm_id: str, product, title: str, bound_id: str, what: str):
    register(Theorem(
        id=thm_id,
        title=title,
        claim=rf"For $h = 1, \dots, 6$ heads of width $2$, an integer instance has "
              rf"$\operatorname{{rank}}({what}) = d/h$ exactly, so at those sizes the bound is attained for "
              r"generic weights.",
        statement=Statement(Rank(product), w, "="),
        source=f"{SEED_000}, Key idea after 'Multi-head attention is a sum of low-rank attention maps' (extension: "
               f"tightness)",
        target="proved-for-instances",
        hypotheses=(_DIVIDES, Assumption("generic", text="the weights are generic (outside a proper algebraic "
                                                         "subset)")),
        instances=Instances(_rank_instance(kind, "="), (1, 2, 3, 4, 5, 6), label="h (head width 2)",
                            at=_rank_witness(kind)),
        numeric=_rank_numeric(kind),
        plain=(
            f"At the sizes checked the bound of {bound_id} cannot be improved: for generic weights the rank is "
            "exactly d/h. "
            "At each concrete size one integer instance of full rank d/h is exhibited and its rank computed "
            r"exactly; since '$\operatorname{rank} \ge r$' means some $r \times r$ minor, a polynomial in the weights, "
            "is non-zero, one such instance shows the minor is a non-zero polynomial, hence non-zero for generic "
            "weights."
        ),
        notes=r"Shown at concrete sizes only ($h = 1, \dots, 6$ heads of width $2$); no symbolic proof for every $d$, "
              r"$h$.",
    ))


_attained("vo", "mha_head_rank_attained", WV_m * WO_m,
          "The rank bound $d/h$ for $W_V^m W_O^m$ is attained by generic weights (shown for $h \\le 6$ heads of "
          "width 2)",
          "mha_head_rank_le", "W_V^m W_O^m")
_attained("qk", "mha_qk_rank_attained", WQ_m * WK_m.T,
          r"The rank bound $d/h$ for $W_Q^m (W_K^m)^\top$ is attained by generic weights (shown for $h \le 6$ heads of "
          r"width 2)", "mha_qk_rank_le", r"W_Q^m (W_K^m)^\top")

# ------------------------------------------------------------------------------------------ parameters
W_single = {name: sp.MatrixSymbol(name, d, d) for name in ("W_Q", "W_K", "W_V", "W_O")}
PER_HEAD = NumEntries(WQ_m) + NumEntries(WK_m) + NumEntries(WV_m)
MULTI_COUNT = sp.Sum(PER_HEAD, (m, 1, h)) + NumEntries(W_single["W_O"])
SINGLE_COUNT = sp.Add(*[NumEntries(W) for W in W_single.values()])


def _param_count_derivation() -> Derivation:
    return (
        Derivation(MULTI_COUNT)
        .eq(sp.Sum(3 * d * (d / h), (m, 1, h)) + d * d, "definition", name="num_entries",
            note=r"$W_Q^m, W_K^m, W_V^m$ are $d \times d/h$; $W_O$ is $(h \cdot d/h) \times d = d \times d$")
        .eq(3 * d**2 + d**2, "sum_evaluate", note="h equal terms")
        .eq(4 * d**2, "algebra")
        .eq(SINGLE_COUNT, "definition", name="num_entries", note="four d x d matrices")
    )


def _param_count_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, samples = 0, 0
    for heads in (1, 2, 3, 4, 8):
        for _ in range(4):
            d_ = heads * int(rng.integers(1, 9))
            full = [rng.normal(size=(d_, d_)) for _ in range(4)]
            multi = sum(b.size for W in full[:3] for b in head_blocks(W, heads)) + sum(
                b.size for b in row_blocks(full[3], heads))
            worst = max(worst, abs(multi - sum(W.size for W in full)))
            samples += 1
    # seed 004, Worked Example 2: d = 512, h = 8 gives 4 * 512^2 = 1,048,576 weights
    base = sum(b.size for b in head_blocks(np.zeros((512, 3 * 512)), 8 * 3)) + 512 * 512
    ok = worst == 0 and base == 1_048_576
    return NumericResult(ok, samples + 1, seed, float(worst), 0.0,
                         f"entries of the head blocks vs the full matrices; d = 512, h = 8 gives {base} weights")


register(Theorem(
    id="mha_param_count",
    claim=r"For $h$ dividing $d$, $h$ heads of width $d/h$ plus $W_O$ have as many projection entries as one head of "
          r"width $d$ plus $W_O$.",
    title=r"$h$ heads of width $d/h$ have as many projection weights as one head of width $d$",
    statement=Statement(MULTI_COUNT, SINGLE_COUNT),
    source=f"{SEED_000}, 'Multi-head attention' ($d_k = d_v = d/h$ so that the parameter count matches); "
           f"{SEED_004}, Worked Example 2 'Counting Parameters and Cost'",
    hypotheses=(_DIVIDES,),
    derivation=_param_count_derivation,
    dimensions=(d, h),
    numeric=_param_count_numeric,
    plain=(
        r"Each of the $h$ heads has three $d \times d/h$ projections, $3 d^2/h$ weights, so all heads together have "
        r"$3 d^2$, and the output matrix $W_O$ has $d^2$: $4 d^2$ in total, exactly the count of one head with "
        "d x d projections. Splitting into heads reallocates rank; it does not add parameters."
    ),
    notes=(
        "Weights only. With biases both sides gain 4d (3h d/h + d), as seed 004's Worked Example 2 counts: "
        r"$4 \cdot 512^2 + 4 \cdot 512 = 1{,}050{,}624$ (see mha_param_count_with_bias). Seed 000's 'the total "
        "parameter count is the same' is right for the projections; the heads do differ in what they can express "
        "(h bilinear forms of rank d/h instead of one of rank d)."
    ),
))
