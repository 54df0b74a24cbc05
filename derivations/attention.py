"""Attention: the softmax and the attention matrix
================================================

Scaled dot-product attention mixes value rows with weights given by a row-wise softmax.

Main results
------------
* ``softmax_add_const``: adding the same constant to every logit leaves the softmax unchanged.
* ``attention_row_stochastic``: the weights of one query sum to 1 (symbolic ``n``).
* ``attention_weights_positive``: every weight is strictly positive for finite scores.
* ``attention_output_convex_combination``: for real ``Q, K, V``, row ``i`` of
  ``Attention(Q, K, V)`` is ``sum_j A_ij v_j`` with the weights unfolded, ``A_ij > 0`` and
  ``sum_j A_ij = 1``: a convex combination of the value rows.
* ``attention_output_le_max_value``, ``attention_output_ge_min_value``: the box bounds that follow,
  each output coordinate between the smallest and largest value.

References
----------
* Seed 004 (Amathify, "Attention and Transformers"), *Did You Know?*: "Softmax is unchanged if you
  subtract the same constant from all scores".
* Seed 000 ("The Mathematics of Transformers"), *Definition: Scaled dot-product attention*
  ("A is row-stochastic ... so row i of the output is a convex combination of the value vectors").
* Seed 002 ("Math Behind Transformer Attention"), *Reading it piece by piece*.
* Seed 004, *Did You Know?*, first bullet ("every row of an attention matrix is a probability
  distribution").

Tags: softmax, shift invariance, numerical stability, row-stochastic, convex combination
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from symattn.engine.theorem import Instances, NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, IndexRange, Statement
from symattn.maths.permutation import Attention, Entry
from symattn.maths.softmax import Softmax
from symattn.rules.inequalities import MaxOver, MinOver

n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
c = sp.Symbol("c", real=True)
s = sp.IndexedBase("s", real=True)


def _softmax_add_const_derivation() -> Derivation:
    shifted = Softmax(sp.Lambda(j, s[j] + c), i, n)
    return (
        Derivation(shifted)
        .eq(sp.exp(s[i] + c) / sp.Sum(sp.exp(s[j] + c), (j, 1, n)), "definition", name="softmax",
            note="unfold the softmax of s + c")
        .eq(sp.exp(c) * sp.exp(s[i]) / sp.Sum(sp.exp(c) * sp.exp(s[j]), (j, 1, n)), "algebra",
            note=r"$e^{x+c} = e^c e^x$")
        .eq(sp.Mul(sp.exp(c) * sp.exp(s[i]), sp.Pow(sp.Mul(sp.exp(c), sp.Sum(sp.exp(s[j]), (j, 1, n)),
                                                                evaluate=False), -1, evaluate=False),
                   evaluate=False), "sum_linearity",
            note=r"the constant $e^c$ leaves the sum")
        .eq(sp.exp(s[i]) / sp.Sum(sp.exp(s[j]), (j, 1, n)), "algebra", note=r"cancel $e^c > 0$")
        .eq(Softmax(sp.Lambda(j, s[j]), i, n), "definition", name="softmax", note="fold the softmax of s")
    )


def _softmax_add_const_numeric(seed: int) -> NumericResult:
    """softmax(s + c) against softmax(s) in float64 for random lengths, logits and shifts, with
    the max-subtracting ``numeric.softmax`` and with the naive formula exp(x)/sum exp(x) (kept
    within overflow range) -- the identity is what licenses the max subtraction."""
    import numeric

    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    for size in (1, 2, 3, 7, 64, 1000):
        for _ in range(20):
            logits = rng.normal(0.0, 5.0, size)
            shift = rng.uniform(-50.0, 50.0)
            naive = np.exp(logits + shift) / np.exp(logits + shift).sum()
            stable = numeric.softmax(logits)
            worst = max(worst, float(np.max(np.abs(naive - stable))),
                        float(np.max(np.abs(numeric.softmax(logits + shift) - stable))))
            samples += 1
    tol = 1e-12
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "naive softmax(s + c) and max-subtracted softmax(s), float64, n up to 1000, |c| <= 50")


softmax_add_const = register(
    Theorem(
        id="softmax_add_const",
        claim=r"For every real $c$ and all scores $s_1, \dots, s_n$, $\operatorname{softmax}(s + c\mathbf{1})_i = "
              r"\operatorname{softmax}(s)_i$.",
        title="Softmax is invariant under adding a constant to every logit",
        statement=Statement(Softmax(sp.Lambda(j, s[j] + c), i, n), Softmax(sp.Lambda(j, s[j]), i, n)),
        source="004_b987b516506401e6.txt, 'Did You Know?' (softmax unchanged by subtracting a constant); "
        "000_ccf06b253f58a07c.txt, Definition 'Scaled dot-product attention'",
        kind="theorem",
        hypotheses=(
            IndexRange("i_range", index=i, lower=1, upper=n),
            Assumption("c_real", condition=sp.Q.real(c), text="c is a real constant, the same for every logit"),
        ),
        derivation=_softmax_add_const_derivation,
        dimensions=(n,),
        numeric=_softmax_add_const_numeric,
        plain=(
            r"Adding the same number $c$ to every score does not change the softmax: the factor $e^c$ "
            "appears in the numerator and in every term of the denominator, and cancels. This is why "
            "implementations may subtract the row maximum before exponentiating, to avoid overflow, "
            "without changing the result."
        ),
    )
)


# ------------------------------------------------------------------------ row-stochastic rows
k, l = sp.symbols("k l", integer=True, positive=True)
v = sp.IndexedBase("v", real=True)

_SOURCE_ROWS = (
    "000_ccf06b253f58a07c.txt, Definition 'Scaled dot-product attention' (A is row-stochastic); "
    "002_e97041f43d35f9ac.txt, 'Reading it piece by piece' (softmax turns each row into a probability "
    "distribution); 004_b987b516506401e6.txt, 'Did You Know?' first bullet (every row of an attention "
    "matrix is a probability distribution)"
)


def _weight(index):
    """Entry (i, index) of the attention matrix, for the scores s_1..s_n of row i."""
    return Softmax(sp.Lambda(k, s[k]), index, n)


def _row_sum_derivation() -> Derivation:
    return (
        Derivation(sp.Sum(_weight(j), (j, 1, n)))
        .eq(sp.Sum(sp.exp(s[j]) / sp.Sum(sp.exp(s[k]), (k, 1, n)), (j, 1, n)), "definition", name="softmax",
            note="unfold the softmax")
        .eq(sp.Sum(sp.exp(s[j]), (j, 1, n)) / sp.Sum(sp.exp(s[k]), (k, 1, n)), "sum_linearity",
            note="the normaliser does not depend on j")
        .eq(sp.S.One, "rename_bound", note="numerator and normaliser are the same sum")
    )


def _row_sum_numeric(seed: int) -> NumericResult:
    from numeric.reference import attention_scores, softmax

    rng = np.random.default_rng(seed)
    worst, negative, trials = 0.0, 0, 100
    for trial in range(trials):
        n_q, n_k, d = int(rng.integers(1, 10)), int(rng.integers(1, 40)), int(rng.integers(1, 8))
        scores = attention_scores(rng.normal(size=(n_q, d)) * 3, rng.normal(size=(n_k, d)) * 3)  # (n_q, n_k)
        if trial % 2 and n_q == n_k:
            scores = attention_scores(rng.normal(size=(n_q, d)), rng.normal(size=(n_k, d)), causal=True)
        a = softmax(scores)  # (n_q, n_k), -inf scores (causal mask) give exact zeros
        worst = max(worst, float(np.abs(a.sum(axis=-1) - 1.0).max()))
        negative += int((a < 0).sum())
    tol = 1e-13
    return NumericResult(worst <= tol and negative == 0, trials, seed, worst, tol,
                         f"row sums of softmax(scale QK^T [+ causal mask]) minus 1; {negative} negative weights")


register(
    Theorem(
        id="attention_row_stochastic",
        claim=r"For any scores $s_1, \dots, s_n$, the softmax weights $\operatorname{softmax}(s)_1, \dots, "
              r"\operatorname{softmax}(s)_n$ sum to $1$.",
        title="Each row of the attention matrix sums to 1",
        statement=Statement(sp.Sum(_weight(j), (j, 1, n)), 1),
        source=_SOURCE_ROWS,
        derivation=_row_sum_derivation,
        dimensions=(n,),
        numeric=_row_sum_numeric,
        plain=(
            "The softmax weights of one query over its n keys add up to exactly 1: each weight is "
            r"$e^{s_j}$ divided by the sum of all the $e^{s_k}$, and adding up the numerators gives that "
            r"same sum. Together with attention_weights_positive, every row of the attention matrix "
            "is a probability distribution over the keys."
        ),
        notes=(
            r"Seed 000 writes '$A_{ij} \ge 0$'. For finite scores the weights are strictly positive "
            r"(attention_weights_positive); '$\ge 0$' is the right statement only for masked attention, "
            r"where seed 004's causal mask 'sets scores for future positions to $-\infty$' and $e^{-\infty} = 0$ "
            "makes those weights exactly 0 -- the rows still sum to 1 over the visible keys, as long "
            "as at least one key is visible."
        ),
    )
)


def _positive_derivation() -> Derivation:
    return (
        Derivation(_weight(i))
        .eq(sp.exp(s[i]) / sp.Sum(sp.exp(s[k]), (k, 1, n)), "definition", name="softmax", note="unfold the softmax")
        .step(sp.S.Zero, "positivity", ">", note=r"$e^x > 0$ for real $x$, and a nonempty sum of positive terms is "
                                                 r"positive")
    )


def _positive_instance(size: int) -> Statement:
    # the statement itself at n = size (the kernel unrolls the softmax and checks it is this)
    return Statement(_weight(i), 0, ">").subs({n: size})


def _positive_numeric(seed: int) -> NumericResult:
    from numeric.reference import softmax

    rng = np.random.default_rng(seed)
    smallest, trials = np.inf, 200
    for _ in range(trials):
        scores = rng.normal(scale=10.0, size=int(rng.integers(1, 60)))  # (n,), spreads well below 700
        smallest = min(smallest, float(softmax(scores).min()))
    return NumericResult(smallest > 0, trials, seed, 0.0 if smallest > 0 else 1.0, 0.0,
                         f"smallest weight seen {smallest:.3g} (> 0) for score spreads well inside float64's range")


register(
    Theorem(
        id="attention_weights_positive",
        claim=r"For finite real scores, every softmax weight $\operatorname{softmax}(s)_i$ is strictly positive.",
        title="Every attention weight is strictly positive (finite scores)",
        statement=Statement(_weight(i), 0, ">"),
        source=_SOURCE_ROWS,
        hypotheses=(IndexRange("i_range", index=i, lower=1, upper=n),
                    Assumption("finite_scores", condition=sp.Q.finite(s[i]) & sp.Q.real(s[i]),
                               text=r"the scores $s_1, \dots, s_n$ are finite real numbers (no mask)")),
        derivation=_positive_derivation,
        dimensions=(n,),
        instances=Instances(_positive_instance, tuple(range(1, 9)), label="n"),
        numeric=_positive_numeric,
        plain=(
            "With finite scores, no key is ever ignored completely: each weight is a positive "
            "exponential divided by a positive sum, so it is strictly greater than 0."
        ),
        notes=(
            r"Seed 000 states $A_{ij} \ge 0$, which is true but weaker than what holds: $A_{ij} > 0$ for finite "
            "scores. With a causal mask (seed 004: scores of future positions set to -inf) the masked "
            r"weights are exactly $0$, so '$\ge 0$' is the right statement for masked attention. In float64 "
            "a weight also underflows to exactly 0 once its score is about 745 below the row maximum "
            r"($e^{-745}$ is below the smallest subnormal); the theorem is about exact arithmetic."
        ),
    )
)


# ------------------------------------------------------------------------ convex combination
def _output():
    """Coordinate of the output row: sum_j A_ij v_j, for one coordinate v_j of the values."""
    return sp.Sum(_weight(j) * v[j], (j, 1, n))


def _bound_derivation(extremum, relation) -> Derivation:
    e = extremum(v[l], (l, 1, n))
    d = Derivation(_output())
    d.step(sp.Sum(_weight(j) * e, (j, 1, n)), "sum_monotone", relation,
           note=r"each weight is positive and each $v_j$ lies between the smallest and largest value")
    return (
        d.eq(e * sp.Sum(_weight(j), (j, 1, n)), "sum_linearity", note="the extreme value does not depend on j")
        .eq(e, "apply_theorem", theorem="attention_row_stochastic", note="the weights sum to 1")
    )




def _bound_numeric(seed: int) -> NumericResult:
    from numeric.reference import attention

    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 100
    for trial in range(trials):
        n_q = n_k = int(rng.integers(1, 30))
        d, d_v = int(rng.integers(1, 6)), int(rng.integers(1, 5))
        q, kk = rng.normal(size=(n_q, d)) * 2, rng.normal(size=(n_k, d)) * 2
        vv = rng.normal(size=(n_k, d_v))
        out = attention(q, kk, vv, causal=bool(trial % 2))  # (n_q, d_v)
        if trial % 2:  # causal: row i mixes v_1..v_i only
            hi = np.maximum.accumulate(vv, axis=0)  # (n, d_v) running max over visible keys
            lo = np.minimum.accumulate(vv, axis=0)
        else:
            hi, lo = vv.max(axis=0, keepdims=True), vv.min(axis=0, keepdims=True)
        worst = max(worst, float(np.maximum(out - hi, lo - out).max()))
    tol = 1e-14
    return NumericResult(worst <= tol, trials, seed, max(worst, 0.0), tol,
                         "largest excursion of an output coordinate beyond [min_j v_j, max_j v_j] "
                         "(over visible keys, with and without a causal mask)")


_BOUND_NOTES = (
    "Seed 000 says 'row i of the output is a convex combination of the value vectors'; the bound is "
    r"proved coordinate by coordinate (each coordinate of $o_i$ lies between the smallest and largest "
    "value of that coordinate), which follows from, but is weaker than, lying in the convex hull of "
    r"the $v_j$. The bound needs only nonnegative weights summing to $1$, so it also holds with a causal "
    "mask (over the visible keys). The exact instance check fixes the values to rationals and keeps "
    "the scores symbolic."
)

# the attention of real matrices Q (n_q x d_k), K (n x d_k), V (n x d_v), unfolded entry by entry
n_q, d_k, d_v = sp.symbols("n_q d_k d_v", integer=True, positive=True)
cv, tk = sp.symbols("c t", integer=True, positive=True)  # a value coordinate, a feature index
_Qm, _Km, _Vm = sp.MatrixSymbol("Q", n_q, d_k), sp.MatrixSymbol("K", n, d_k), sp.MatrixSymbol("V", n, d_v)
_Q, _K, _V = (sp.IndexedBase(x, real=True) for x in "QKV")


def _score(x, y):
    """The scaled score of query x and key y, q_x . k_y / sqrt(d_k), written out."""
    return sp.Sum(_Q[x, tk] * _K[y, tk], (tk, 1, d_k)) / sp.sqrt(d_k)


_A = sp.exp(_score(i, j)) / sp.Sum(sp.exp(_score(i, l)), (l, 1, n))  # A_ij, the softmax unfolded
_convex_statement = Statement(
    sp.ImmutableMatrix([Entry(Attention(_Qm, _Km, _Vm), i, cv), sp.Sum(_A, (j, 1, n)), sp.sign(_A)]),
    sp.ImmutableMatrix([sp.Sum(_A * _V[j, cv], (j, 1, n)), 1, 1]))


def _convex_derivation() -> Derivation:
    rest = [sp.Sum(_A, (j, 1, n)), sp.sign(_A)]
    weight = Softmax(sp.Lambda(l, _score(i, l)), j, n)
    output = sp.Sum(_A * _V[j, cv], (j, 1, n))
    normalised = sp.Sum(sp.exp(_score(i, j)), (j, 1, n)) / sp.Sum(sp.exp(_score(i, l)), (l, 1, n))
    return (
        Derivation(_convex_statement.lhs)
        .eq(sp.ImmutableMatrix([sp.Sum(weight * _V[j, cv], (j, 1, n))] + rest), "definition", name="entry",
            note=r"entry $(i, c)$ of $\operatorname{softmax}_{\mathrm{rows}}(QK^\top/\sqrt{d_k})\, V$: a sum over the "
                 r"keys $j$ of the weight times $V_{jc}$")
        .eq(sp.ImmutableMatrix([output] + rest), "definition", name="softmax", note="unfold the softmax")
        .eq(sp.ImmutableMatrix([output, normalised, sp.sign(_A)]), "sum_linearity",
            note="the normaliser does not depend on $j$")
        .eq(sp.ImmutableMatrix([output, 1, sp.sign(_A)]), "rename_bound",
            note="numerator and normaliser are the same sum: the weights of row $i$ sum to $1$")
        .eq(_convex_statement.rhs, "algebra",
            note=r"$A_{ij}$ is a positive number over a positive one (real scores), so its sign is $1$")
    )


def _convex_numeric(seed: int) -> NumericResult:
    from numeric.reference import attention, attention_scores, softmax

    rng = np.random.default_rng(seed)
    worst, nonpositive, trials = 0.0, 0, 100
    for _ in range(trials):
        n_q, n_k, d, d_v = (int(rng.integers(1, m)) for m in (10, 30, 6, 5))
        q, kk, vv = rng.normal(size=(n_q, d)) * 2, rng.normal(size=(n_k, d)) * 2, rng.normal(size=(n_k, d_v))
        a = softmax(attention_scores(q, kk))  # (n_q, n_k)
        nonpositive += int((a <= 0).sum())
        # o_i - sum_j A_ij v_j and sum_j A_ij - 1: the output row is the combination, weights sum to 1
        worst = max(worst, float(np.abs(attention(q, kk, vv) - a @ vv).max()), float(np.abs(a.sum(-1) - 1).max()))
    tol = 1e-13
    return NumericResult(worst <= tol and nonpositive == 0, trials, seed, worst, tol,
                         f"|o_i - sum_j A_ij v_j| and |sum_j A_ij - 1|; {nonpositive} weights <= 0")


register(
    Theorem(
        id="attention_output_convex_combination",
        title=r"Each output row is a convex combination of the value rows: $o_i = \sum_j A_{ij} v_j$ with "
              r"$A_{ij} > 0$ and $\sum_j A_{ij} = 1$",
        claim=r"For real $Q, K, V$, row $i$ of $\operatorname{Attention}(Q, K, V)$ is $\sum_j A_{ij} v_j$ with "
              r"$A_{ij} = e^{q_i \cdot k_j/\sqrt{d_k}} / \sum_l e^{q_i \cdot k_l/\sqrt{d_k}}$, every $A_{ij} > 0$ and "
              r"$\sum_j A_{ij} = 1$: a convex combination of the value rows.",
        statement=_convex_statement,
        source=_SOURCE_ROWS,
        hypotheses=(IndexRange("query_row", index=i, lower=1, upper=n_q),
                    IndexRange("value_column", index=cv, lower=1, upper=d_v),
                    IndexRange("key", index=j, lower=1, upper=n)),
        derivation=_convex_derivation,
        dimensions=(n, n_q, d_k, d_v),
        numeric=_convex_numeric,
        plain=(
            r"Entry $(i, c)$ of $\operatorname{Attention}(Q, K, V) = \operatorname{softmax}_{\mathrm{rows}}"
            r"(QK^\top/\sqrt{d_k})\, V$ is $\sum_j A_{ij} V_{jc}$, so row $i$ of the output is "
            r"$o_i = \sum_j A_{ij} v_j$ with $v_j$ the rows of $V$. The weights of the row add up to $1$ "
            r"and each is strictly positive ($\operatorname{sgn} A_{ij} = 1$). So $o_i$ lies in the convex "
            r"hull of $v_1, \dots, v_n$, in fact in its relative interior: attention mixes the values, it "
            r"cannot extrapolate beyond them."
        ),
        notes=(
            r"The two box bounds, each coordinate of $o_i$ at most the largest and at least the smallest "
            r"value of that coordinate (attention_output_le_max_value, attention_output_ge_min_value), "
            r"follow from this and are proved separately. With a causal mask the masked weights are "
            r"exactly $0$, so there $A_{ij} \ge 0$ and $o_i$ lies in the convex hull of the visible "
            r"values only."
        ),
    )
)

register(
    Theorem(
        id="attention_output_le_max_value",
        claim=r"For real values $v_1, \dots, v_n$ and any scores, the softmax average $\sum_j "
              r"\operatorname{softmax}(s)_j v_j$ is at most $\max_j v_j$.",
        title=r"Box bound: each output coordinate is at most the largest value, $o_{i} \le \max_j v_j$",
        statement=Statement(_output(), MaxOver(v[l], (l, 1, n)), "<="),
        source=_SOURCE_ROWS,
        derivation=lambda: _bound_derivation(MaxOver, "<="),
        dimensions=(n,),
        numeric=_bound_numeric,
        plain=(
            "The output of attention for one query is a weighted average of the value vectors with "
            "positive weights adding up to 1. So, coordinate by coordinate, it can never exceed the "
            r"largest value (this theorem) nor fall below the smallest (attention_output_ge_min_value): "
            "attention mixes the values, it cannot extrapolate beyond them."
        ),
        notes=_BOUND_NOTES,
    )
)

register(
    Theorem(
        id="attention_output_ge_min_value",
        claim=r"For real values $v_1, \dots, v_n$ and any scores, the softmax average $\sum_j "
              r"\operatorname{softmax}(s)_j v_j$ is at least $\min_j v_j$.",
        title=r"Box bound: each output coordinate is at least the smallest value, $o_{i} \ge \min_j v_j$",
        statement=Statement(_output(), MinOver(v[l], (l, 1, n)), ">="),
        source=_SOURCE_ROWS,
        derivation=lambda: _bound_derivation(MinOver, ">="),
        dimensions=(n,),
        numeric=_bound_numeric,
        plain=(
            "The lower half of the convex-combination bound: a weighted average with positive "
            "weights summing to 1 is never smaller than the smallest of the averaged numbers."
        ),
        notes=_BOUND_NOTES,
    )
)
