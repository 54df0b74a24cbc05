"""Problems: seed 000's seven problems and seed 002's three exercises, solved
==========================================================================

Registers every problem of the texts (:mod:`symattn.products.problems`) with the theorems that solve it,
and the theorems that no other topic provides: the exact answer to seed 002's Exercise 1 (a
third key identical to the query) and the chain rule of Exercise 3 for the gradient of attention
with respect to the queries.

Main results
------------
* ``three_key_attention_output``: with ``k_3 = q`` and ``v_3 = (1, 1)`` the weights are
  ``(1, 1, e^{1/2}) / (2 + e^{1/2})`` and the output is ``(1 + e^{1/2}) / (2 + e^{1/2}) (1, 1)``.
* ``identical_key_weight_lt_half``: the identical key gets the largest weight, ``0.452``, but
  less than one half: it does not dominate in the sense of a majority.
* ``attention_grad_q_chain``: ``d<G, Attention(Q, K, V)>/dQ = (A o (G V^T - rowsum(A o G V^T))) K / sqrt(d_k)``,
  proved entry by entry for symbolic ``n, d_k, d_v``.

References
----------
* Seed 000 (``000_ccf06b253f58a07c.txt``), "Problems (7)".
* Seed 002 (``002_e97041f43d35f9ac.txt``), "Exercise" 1-3 and the worked numeric example.

Tags: problems, exercises, softmax Jacobian, backpropagation, worked example
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from symattn.engine.theorem import Instances, NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, IndexRange, Statement
from symattn.maths.complexity import attention_mlp_ratio, crossover, layer_costs
from symattn.maths.softmax import Score, Softmax
from symattn.products.problems import Problem, register_problem

SEED000 = "000_ccf06b253f58a07c.txt"
SEED002 = "002_e97041f43d35f9ac.txt"


# ============================================================== Exercise 1: a third, identical key
def three_key_example() -> dict:
    """Seed 002's worked example with Exercise 1's third key, computed exactly.

    Returns the scores, scaled scores, weights and output as SymPy matrices (rows).
    """
    q = sp.Matrix([[1, 0, 1, 0]])
    keys = sp.Matrix([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]])
    values = sp.Matrix([[1, 0], [0, 1], [1, 1]])
    d_k = q.cols
    raw = q * keys.T  # (1, 3)
    scaled = raw / sp.sqrt(d_k)  # (1, 3)
    e = scaled.applyfunc(sp.exp)
    weights = e / sum(e)  # (1, 3)
    return {"raw": raw, "scaled": scaled, "weights": weights, "output": weights * values}


_SQRT_E = sp.exp(sp.Rational(1, 2))
_W_CLOSED = sp.Matrix([[1, 1, _SQRT_E]]) / (2 + _SQRT_E)
_O_CLOSED = sp.Matrix([[1 + _SQRT_E, 1 + _SQRT_E]]) / (2 + _SQRT_E)


def _three_key_lhs() -> sp.Matrix:
    ex = three_key_example()
    return ex["weights"].row_join(ex["output"])


def _three_key_numeric(seed: int) -> NumericResult:
    from numeric import attention

    q = np.array([[1.0, 0.0, 1.0, 0.0]])
    k = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 0.0]])
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    got = attention(q, k, v)[0]
    want = np.array([float(x) for x in _O_CLOSED])
    err = float(np.max(np.abs(got - want)))
    tol = 1e-14
    return NumericResult(ok=err <= tol, samples=1, seed=seed, max_error=err, tolerance=tol,
                         detail="numeric.attention on the exercise's q, K, V vs the closed form")


three_key_attention_output = register(Theorem(
    id="three_key_attention_output",
    claim=r"In seed 002's example with $k_3 = q$, the weights are $(1, 1, e^{1/2})/(2 + e^{1/2})$ and the output is "
          r"$(1 + e^{1/2})/(2 + e^{1/2})\,(1, 1)$.",
    title=r"With a third key equal to the query: weights $(1, 1, e^{1/2})/(2 + e^{1/2})$, output $0.726\,(1, 1)$",
    statement=Statement(_three_key_lhs(), _W_CLOSED.row_join(_O_CLOSED)),
    source=f"{SEED002}, Exercise 1 (add k3 = (1,0,1,0), v3 = (1,1): recompute weights and output)",
    derivation=lambda: Derivation(_three_key_lhs()).eq(
        _W_CLOSED.row_join(_O_CLOSED), "algebra",
        note=r"scores $(1, 1, 2)/2$; divide numerator and denominator of the softmax by $e^{1/2}$"),
    instances=Instances(lambda size: Statement(_three_key_lhs(), _W_CLOSED.row_join(_O_CLOSED)), (1,),
                        label="the single case"),
    numeric=_three_key_numeric,
    plain=(
        "The query q = (1,0,1,0) meets keys (1,1,0,0), (0,0,1,1) and (1,0,1,0): dot products 1, 1, 2, "
        r"scaled by $1/\sqrt{4}$ to $1/2, 1/2, 1$. The softmax weights are $e^{1/2}, e^{1/2}, e$ over "
        r"$2e^{1/2} + e$, i.e. $(1, 1, e^{1/2})/(2 + e^{1/2}) = (0.274, 0.274, 0.452)$, and the output "
        "0.274 (1,0) + 0.274 (0,1) + 0.452 (1,1) = (0.726, 0.726)."
    ),
    notes="Shown as one row: the three weights, then the two output components.",
))


def _lt_half_derivation() -> Derivation:
    w3 = three_key_example()["weights"][2]
    return (
        Derivation(w3)
        .eq(_SQRT_E / (2 + _SQRT_E), "algebra", note=r"divide numerator and denominator by $e^{1/2}$")
        .lt(sp.Rational(1, 2), "inequality", witness=(2 - _SQRT_E) / (2 * (2 + _SQRT_E)),
            note=r"$1/2 - w = (2 - e^{1/2}) / (2 (2 + e^{1/2})) > 0$ because $e^{1/2} < 2$, i.e. $1/2 < \log 2$")
    )


identical_key_weight_lt_half = register(Theorem(
    id="identical_key_weight_lt_half",
    claim=r"In seed 002's three-key example, the key equal to the query gets weight $e^{1/2}/(2 + e^{1/2}) < 1/2$.",
    title=r"The key identical to the query gets less than half of the weight: $w_3 < 1/2$",
    statement=Statement(three_key_example()["weights"][2], sp.Rational(1, 2), "<"),
    source=f"{SEED002}, Exercise 1 ('confirm the identical key dominates the softmax distribution')",
    derivation=_lt_half_derivation,
    instances=Instances(lambda size: Statement(three_key_example()["weights"][2], sp.Rational(1, 2), "<"), (1,),
                        label="the single case"),
    numeric=lambda seed: NumericResult(
        ok=float(_SQRT_E / (2 + _SQRT_E)) < 0.5, samples=1, seed=seed,
        max_error=0.0, tolerance=0.0, detail=f"w_3 = {float(_SQRT_E / (2 + _SQRT_E)):.6f} < 0.5"),
    plain=(
        r"The identical key's weight is $e^{1/2}/(2 + e^{1/2}) = 0.452$: the largest of the three (the "
        r"other two are $0.274$ each, smaller by the factor $e^{1/2} = 1.65$), but below one half. The two "
        "other keys together receive 0.548. 'Dominates' is right only in the sense of 'largest'."
    ),
    notes=(
        "Seed 002 asks to 'confirm the identical key dominates the softmax distribution'. It receives "
        r"the largest weight, but not a majority and far from one-hot: with $d_k = 4$ the scaled score gap "
        "is only 1/2, so the softmax is mild. The key would need a weight above 1/2 to outweigh the "
        "others; that needs a scaled gap above log 2 = 0.693."
    ),
))


def _largest_derivation() -> Derivation:
    w1, _, w3 = three_key_example()["weights"]
    return (
        Derivation(w3)
        .eq(_SQRT_E / (2 + _SQRT_E), "algebra", note=r"divide numerator and denominator by $e^{1/2}$")
        .step(1 / (2 + _SQRT_E), "inequality", ">", witness=(_SQRT_E - 1) / (2 + _SQRT_E),
              note=r"the gap $(e^{1/2} - 1)/(2 + e^{1/2})$ is positive because $e^{1/2} > 1$")
        .eq(w1, "algebra", note=r"$w_1 = e^{1/2} / (2 e^{1/2} + e)$, divided through by $e^{1/2}$")
    )


def _largest_statement(size: int = 1) -> Statement:
    w1, _, w3 = three_key_example()["weights"]
    return Statement(w3, w1, ">")


identical_key_weight_largest = register(Theorem(
    id="identical_key_weight_largest",
    claim=r"In seed 002's three-key example, the key equal to the query gets a larger weight than each other key.",
    title=r"The key identical to the query gets the largest weight: $w_3 > w_1 = w_2$",
    statement=_largest_statement(),
    source=f"{SEED002}, Exercise 1 ('confirm the identical key dominates the softmax distribution')",
    derivation=_largest_derivation,
    instances=Instances(_largest_statement, (1,), label="the single case"),
    numeric=lambda seed: NumericResult(
        ok=float(_SQRT_E / (2 + _SQRT_E)) > float(1 / (2 + _SQRT_E)), samples=1, seed=seed,
        max_error=0.0, tolerance=0.0,
        detail=f"w_3 = {float(_SQRT_E / (2 + _SQRT_E)):.6f} > w_1 = w_2 = {float(1 / (2 + _SQRT_E)):.6f}"),
    plain=(
        r"The third key equals the query, so its scaled score $1$ beats the other two ($1/2$ each), and the "
        r"softmax, being increasing in the score, gives it the largest weight: "
        r"$w_3 = e^{1/2}/(2 + e^{1/2}) \approx 0.452$ against $w_1 = w_2 = 1/(2 + e^{1/2}) \approx 0.274$, "
        r"larger by the factor $e^{1/2} \approx 1.65$. The first two keys have the same score, so "
        r"$w_1 = w_2$ exactly (three_key_attention_output)."
    ),
    notes=(
        r"This is the sense in which the identical key 'dominates' (seed 002). It does not receive a "
        r"majority: identical_key_weight_lt_half shows $w_3 < 1/2$."
    ),
))

# ================================================================ Exercise 3: dAttention / dQ
_n, _dk, _dv = sp.symbols("n d_k d_v", integer=True, positive=True)

_GRAD_CASES = {1: (1, 1, 1), 2: (2, 2, 2), 3: (2, 3, 1), 4: (3, 2, 2), 5: (3, 1, 3), 6: (3, 3, 3)}


def _grad_instance(case: int, *, rowsum: bool = True) -> Statement:
    """The statement at one size; ``rowsum=False`` drops the ``- a a^T`` part of the softmax
    Jacobian (a plausible mistake, used by the tests)."""
    nv, dk, dv = _GRAD_CASES[case]
    sym = lambda name, r, c: sp.Matrix(r, c, lambda i, j: sp.Symbol(f"{name}_{i + 1}{j + 1}", real=True))  # noqa: E731
    Q, K, V, G = sym("q", nv, dk), sym("k", nv, dk), sym("v", nv, dv), sym("g", nv, dv)
    S = Q * K.T / sp.sqrt(dk)  # (n, n)
    E = S.applyfunc(sp.exp)
    A = sp.Matrix(nv, nv, lambda i, j: E[i, j] / sum(E[i, l] for l in range(nv)))  # row softmax
    O = A * V  # (n, d_v)
    loss = sum(G[i, j] * O[i, j] for i in range(nv) for j in range(dv))  # <G, O>
    lhs = sp.Matrix(nv, dk, lambda i, j: sp.diff(loss, Q[i, j]))  # SymPy's derivative
    dA = G * V.T
    rs = [sum(dA[i, l] * A[i, l] for l in range(nv)) if rowsum else 0 for i in range(nv)]
    dS = sp.Matrix(nv, nv, lambda i, j: A[i, j] * (dA[i, j] - rs[i]))  # softmax Jacobian, row by row
    rhs = dS * K / sp.sqrt(dk)
    # exp(S_ij) become independent positive symbols: an identity of rational functions in them
    # implies the identity at e_ij = exp(S_ij) (a sound generalisation that keeps SymPy fast).
    atoms = sorted(lhs.atoms(sp.exp) | rhs.atoms(sp.exp), key=sp.default_sort_key)
    rep = {a: sp.Symbol(f"e_{t}", positive=True) for t, a in enumerate(atoms)}
    return Statement(lhs.xreplace(rep), rhs.xreplace(rep))


def _grad_numeric(seed: int) -> NumericResult:
    from numeric import attention, attention_backward

    rng = np.random.default_rng(seed)
    worst, samples, h = 0.0, 0, 1e-6
    for _ in range(8):
        nv, dk, dv = (int(x) for x in rng.integers(1, 6, size=3))
        Q, K = rng.normal(size=(nv, dk)), rng.normal(size=(nv, dk))
        V, G = rng.normal(size=(nv, dv)), rng.normal(size=(nv, dv))
        A = np.exp(Q @ K.T / np.sqrt(dk))
        A /= A.sum(axis=1, keepdims=True)  # (n, n)
        dA = G @ V.T  # (n, n)
        chain = (A * (dA - np.sum(dA * A, axis=1, keepdims=True))) @ K / np.sqrt(dk)  # (n, d_k)
        fd = np.zeros_like(Q)
        for i in range(nv):
            for j in range(dk):
                e = np.zeros_like(Q)
                e[i, j] = h
                fd[i, j] = (np.sum(G * attention(Q + e, K, V)) - np.sum(G * attention(Q - e, K, V))) / (2 * h)
        dq = attention_backward(Q, K, V, G)[0]
        worst = max(worst, float(np.max(np.abs(fd - chain))), float(np.max(np.abs(dq - chain))))
        samples += 1
    tol = 1e-6
    return NumericResult(ok=worst <= tol, samples=samples, seed=seed, max_error=worst, tolerance=tol,
                         detail="central finite differences (step 1e-6) and numeric.attention_backward vs the chain "
                                "formula")


# -- the general derivation, entry by entry, for symbolic n, d_k, d_v --------------------------------
#
# L = sum_i sum_c G_ic sum_j A_ij V_jc with A_ij = softmax_j(S_i.), S_ij = sum_t Q_it K_jt / sqrt(d_k).
# For p in 1..n, q in 1..d_k:  dL/dQ_pq = (1/sqrt(d_k)) sum_l A_pl (dA_pl - sum_j A_pj dA_pj) K_lq,
# dA_pl = sum_c G_pc V_lc (the entries of G V^T): the (p, q) entry of the matrix statement.

KD = sp.KroneckerDelta
_i, _j, _l, _t, _c, _p, _q, _r = sp.symbols("i j l t c p q r", integer=True, positive=True)
_Qi, _Ki, _Vi, _Gi = (sp.IndexedBase(x, real=True) for x in "QKVG")
_rt = sp.sqrt(_dk)


def _score(x, y):
    return Score(_Qi, _Ki, x, y, _dk)


def _score_explicit(x, y):
    return Score(_Qi, _Ki, x, y, _dk).expanded()


def _normaliser(x, score=_score_explicit):
    return sp.Sum(sp.exp(score(x, _r)), (_r, 1, _n))


def _weight(x, y):
    """A_xy as the registered softmax of the scores (unfolded by 'definition' steps)."""
    return Softmax(sp.Lambda(_r, _score(x, _r)), y, _n)


def _weight_scores(x, y):
    """A_xy with the softmax unfolded, the scores not."""
    return sp.exp(_score(x, y)) / _normaliser(x, _score)


def _weight_explicit(x, y):
    return sp.exp(_score_explicit(x, y)) / _normaliser(x)


def _upstream(x, y):
    """(G V^T)_xy = dL/dA_xy."""
    return sp.Sum(_Gi[x, _c] * _Vi[y, _c], (_c, 1, _dv))


def _loss(w):
    return sp.Sum(_Gi[_i, _c] * sp.Sum(w(_i, _j) * _Vi[_j, _c], (_j, 1, _n)), (_c, 1, _dv), (_i, 1, _n))


def _dscore(x, y):
    """d S_xy / d Q_pq as SymPy writes it: sum_t delta_xp delta_qt K_yt."""
    return sp.Sum(KD(x, _p) * KD(_q, _t) * _Ki[y, _t], (_t, 1, _dk))


def _chain(w):
    """The derivative after the quotient rule, with the weights written through ``w``."""
    return sp.Sum(_Gi[_i, _c] * sp.Sum(
        _Vi[_j, _c] * w(_i, _j) * (_dscore(_i, _j) - sp.Sum(w(_i, _l) * _dscore(_i, _l), (_l, 1, _n))) / _rt,
        (_j, 1, _n)), (_c, 1, _dv), (_i, 1, _n))


_AK = sp.Sum(_weight(_p, _l) * _Ki[_l, _q], (_l, 1, _n))  # (A K)_pq
_mean_up = sp.Sum(_weight(_p, _j) * _upstream(_p, _j), (_j, 1, _n))  # rowsum(A o G V^T)_p
_grad_lhs = sp.Derivative(_loss(_weight), _Qi[_p, _q])
_grad_rhs = sp.Sum(_weight(_p, _l) * (_upstream(_p, _l) - _mean_up) * _Ki[_l, _q], (_l, 1, _n)) / _rt


def _grad_derivation() -> Derivation:
    e = lambda x, y: sp.exp(_score_explicit(x, y))  # noqa: E731
    quotient = sp.Sum(_Gi[_i, _c] * sp.Sum(
        e(_i, _j) * _Vi[_j, _c] * _dscore(_i, _j) / (_rt * _normaliser(_i))
        - e(_i, _j) * _Vi[_j, _c] * sp.Sum(e(_i, _r) * _dscore(_i, _r) / _rt, (_r, 1, _n)) / _normaliser(_i) ** 2,
        (_j, 1, _n)), (_c, 1, _dv), (_i, 1, _n))
    w = _weight
    contracted_t = sp.Sum(_Gi[_i, _c] * sp.Sum(
        _Vi[_j, _c] * w(_i, _j) * (KD(_i, _p) * _Ki[_j, _q] - sp.Sum(w(_i, _l) * KD(_i, _p) * _Ki[_l, _q], (_l, 1, _n)))
        / _rt, (_j, 1, _n)), (_c, 1, _dv), (_i, 1, _n))
    delta_out = sp.Sum(KD(_i, _p) * sp.Sum(_Gi[_i, _c] * sp.Sum(
        _Vi[_j, _c] * w(_i, _j) * (_Ki[_j, _q] - sp.Sum(w(_i, _l) * _Ki[_l, _q], (_l, 1, _n))), (_j, 1, _n)),
        (_c, 1, _dv)), (_i, 1, _n)) / _rt
    row_p = sp.Sum(_Gi[_p, _c] * sp.Sum(
        _Vi[_j, _c] * w(_p, _j) * (_Ki[_j, _q] - _AK), (_j, 1, _n)), (_c, 1, _dv)) / _rt
    gv_sums = lambda body: sp.Sum(_Gi[_p, _c] * sp.Sum(_Vi[_j, _c] * body, (_j, 1, _n)), (_c, 1, _dv))  # noqa: E731
    distributed = (gv_sums(w(_p, _j) * _Ki[_j, _q]) - _AK * gv_sums(w(_p, _j))) / _rt
    first_swapped = (sp.Sum(w(_p, _j) * _Ki[_j, _q] * _upstream(_p, _j), (_j, 1, _n)) - _AK * gv_sums(w(_p, _j))) / _rt
    both_swapped = (sp.Sum(w(_p, _j) * _Ki[_j, _q] * _upstream(_p, _j), (_j, 1, _n)) - _AK * _mean_up) / _rt
    return (
        Derivation(_grad_lhs)
        .eq(sp.Derivative(_loss(_weight_scores), _Qi[_p, _q]), "definition", name="softmax",
            note=r"unfold $A_{ij} = \exp(S_{ij}) / \sum_r \exp(S_{ir})$")
        .eq(sp.Derivative(_loss(_weight_explicit), _Qi[_p, _q]), "definition", name="attention_score",
            note=r"unfold $S_{ij} = \sum_t Q_{it} K_{jt} / \sqrt{d_k}$")
        .eq(quotient, "differentiate",
            note=r"quotient rule; $\partial S_{ir} / \partial Q_{pq} = \sum_t \delta_{ip} \delta_{qt} K_{rt} / "
                 r"\sqrt{d_k}$ (SymPy's derivative)")
        .eq(_chain(_weight_explicit), "sum_linearity", note=r"$1/Z_i$ and $1/\sqrt{d_k}$ move into the sum over $r$")
        .eq(_chain(_weight_scores), "definition", name="attention_score",
            note=r"fold the scores back (the derivatives $\partial S_{ir} / \partial Q_{pq}$ stay written out)")
        .eq(_chain(_weight), "definition", name="softmax",
            note=r"fold $\exp(S_{ij})/Z_i$ back to $A_{ij}$: the softmax Jacobian $A_{ij} (\delta_{jl} - A_{il})$ "
                 r"appears")
        .eq(contracted_t, "kronecker_delta_contraction", note=r"the sum over $t$: $q$ lies in $1, \dots, d_k$")
        .eq(delta_out, "sum_linearity", note=r"$\delta_{ip}$ and $1/\sqrt{d_k}$ leave the sums over $c, j, l$")
        .eq(row_p, "kronecker_delta_contraction", note=r"the sum over $i$: $p$ lies in $1, \dots, n$; only row $p$ of "
                                                       r"$Q$ matters")
        .eq(distributed, "sum_linearity", note="(A K)_pq leaves the sums over c and j")
        .eq(first_swapped, "sum_interchange", note=r"$\sum_c \sum_j = \sum_j \sum_c$: $(G V^\top)_{pj}$ appears")
        .eq(both_swapped, "sum_interchange", note=r"the same in the second term: $\operatorname{rowsum}(A \circ G "
                                                  r"V^\top)_p$ appears")
        .eq(_grad_rhs, "sum_linearity", note=r"collect: $\sum_l A_{pl} ((G V^\top)_{pl} - \operatorname{rowsum}_p) "
                                             r"K_{lq}$")
    )


attention_grad_q_chain = register(Theorem(
    id="attention_grad_q_chain",
    claim=r"For $L = \langle G, \operatorname{softmax}(QK^\top/\sqrt{d_k})V\rangle$, $\partial L/\partial Q_{pq}$ is "
          r"the softmax Jacobian applied to $GV^\top$ row by row, then multiplied by $K/\sqrt{d_k}$.",
    title=r"The gradient of attention with respect to $Q$ is the softmax Jacobian composed with matrix-product "
          r"gradients",
    statement=Statement(_grad_lhs, _grad_rhs),
    source=f"{SEED002}, Exercise 3 (derive d(Attention output)/dQ by naming the chain: softmax Jacobian, "
    "matrix-multiplication gradients)",
    hypotheses=(
        IndexRange("p_range", index=_p, lower=1, upper=_n),
        IndexRange("q_range", index=_q, lower=1, upper=_dk),
        Assumption("A_softmax", text=r"$A = \operatorname{softmax}(S)$ row-wise, $S_{ir} = \sum_t Q_{it} K_{rt} / "
                                     r"\sqrt{d_k}$ (the definitions "
                   r"`softmax` and `attention_score`)"),
        Assumption("G_upstream", text="G is the upstream gradient dL/dO of a loss L = <G, O>, O = A V"),
    ),
    derivation=_grad_derivation,
    dimensions=(_n, _dk, _dv),
    numeric=_grad_numeric,
    plain=(
        r"Write $O = A V$ with $A = \operatorname{softmax}(S)$, $S = Q K^\top / \sqrt{d_k}$, and let $G = \partial "
        r"L/\partial O$. The chain is: through the product $A V$, $\partial L/\partial A = G V^\top$; through the "
        r"row-wise softmax, whose Jacobian is $\operatorname{diag}(a) - a a^\top$ for each row $a$, $\partial "
        r"L/\partial S = A \circ (\partial L/\partial A - \operatorname{rowsum}(A \circ \partial L/\partial A))$; "
        r"through the product $Q K^\top / \sqrt{d_k}$, $\partial L/\partial Q = (\partial L/\partial S) K / "
        r"\sqrt{d_k}$. Entry $(p, q)$: $\partial L/\partial Q_{pq} = \frac{1}{\sqrt{d_k}} \sum_l A_{pl} ((G "
        r"V^\top)_{pl} - \sum_j A_{pj} (G V^\top)_{pj}) K_{lq}$."
    ),
    notes=(
        r"Proved entry by entry for symbolic $n, d_k, d_v$: SymPy differentiates the explicit loss "
        r"$\sum_i \sum_c G_{ic} \sum_j A_{ij} V_{jc}$ with respect to the indexed entry $Q_{pq}$ (quotient rule under "
        r"finite sums), the softmax is folded back, and the Kronecker deltas of $\partial Q_{it} / \partial Q_{pq}$ "
        r"are contracted ($q \in \{1, \dots, d_k\}$, $p \in \{1, \dots, n\}$); the rest is linearity and interchange "
        r"of finite sums. The instance level checks the matrix form, $(A \circ (G V^\top - \operatorname{rowsum}(A "
        r"\circ G V^\top))) K / \sqrt{d_k}$, against SymPy's derivative for every $n, d_k, d_v$ up to $3$, with "
        r"$\exp(S_{ij})$ replaced by independent positive "
        "symbols after differentiation (an identity of rational functions in them implies the identity "
        "for the exponentials)."
    ),
))


# ===================================================================== the problems themselves
def _crossover_computed() -> dict:
    d = sp.Symbol("d", positive=True)
    cross = crossover(d)
    return {
        "crossover_logits_and_av": cross["logits_and_av"],
        "crossover_attention_block": cross["attention_block"],
        "ratio_n2048_d4096_logits_and_av": attention_mlp_ratio(2048, 4096),
        "ratio_n2048_d4096_attention_block": attention_mlp_ratio(2048, 4096, reading="attention_block"),
        "ratio_n128000_d4096_logits_and_av": attention_mlp_ratio(128000, 4096),
        "ratio_n128000_d4096_attention_block": attention_mlp_ratio(128000, 4096, reading="attention_block"),
        "ratio_n128000_d4096_leading_order": attention_mlp_ratio(128000, 4096, reading="leading_order"),
        "layer_total_macs": layer_costs(sp.Symbol("n", positive=True), d, sp.Symbol("h", positive=True))["total"],
    }


def _exercise1_computed() -> dict:
    ex = three_key_example()
    return {
        "raw_scores": ex["raw"],
        "scaled_scores": ex["scaled"],
        "weights": ex["weights"],
        "weights_decimal": ex["weights"].evalf(4),
        "output": ex["output"],
        "output_decimal": ex["output"].evalf(4),
        "identical_key_weight_above_half": bool(ex["weights"][2] > sp.Rational(1, 2)),
    }


_P = [
    Problem(
        id="scaling_by_sqrt_dk", title=r"Why attention divides by the square root of $d_k$",
        source=f"{SEED000}, problem 'Why attention divides by the square root of $d_k$' (Proof, Intermediate)",
        kind="proof",
        statement=r"Show that for independent entries with mean $0$ and variance $\sigma^2$ the logit $\langle q, "
                  r"k\rangle$ has mean $0$ "
        r"and variance $d_k \sigma^4$, so that dividing by $\sqrt{d_k}$ makes its scale independent of $d_k$.",
        theorem_ids=("dot_product_variance",),
        solution=r"Each product $q_i k_i$ has mean $0$ and variance $\mathbb{E}[q_i^2] \mathbb{E}[k_i^2] = \sigma^4$ "
                 r"by independence; the "
        r"$d_k$ products are uncorrelated, so the variances add: $\operatorname{Var}\langle q, k\rangle = d_k "
        r"\sigma^4$ and the standard deviation is $\sigma^2 \sqrt{d_k}$. Dividing by $\sqrt{d_k}$ divides the variance "
        r"by $d_k$, leaving $\sigma^4$ (standard deviation $\sigma^2$).",
    ),
    Problem(
        id="softmax_jacobian_as_variance", title="The softmax Jacobian as a variance, and saturation",
        source=f"{SEED000}, problem 'The softmax Jacobian as a variance, and saturation' (Proof, Intermediate)",
        kind="proof",
        statement=r"Show $\partial \operatorname{softmax}(s) / \partial s = \operatorname{diag}(a) - a a^\top$ and "
        r"$v^\top (\operatorname{diag}(a) - a a^\top) v = \operatorname{Var}_{j \sim a}(v_j)$; conclude that the "
        r"Jacobian vanishes as $a$ concentrates on one index.",
        theorem_ids=("softmax_jacobian", "softmax_jacobian_quadratic_form", "softmax_saturation_bound"),
        solution=r"Differentiating $a_i = e^{s_i} / \sum_j e^{s_j}$ gives "
        r"$\partial a_i / \partial s_j = a_i (\delta_{ij} - a_j)$. Then $v^\top J v = \sum_i a_i v_i^2 - "
        r"(\sum_i a_i v_i)^2 = \mathbb{E}_a[v^2] - \mathbb{E}_a[v]^2 = \operatorname{Var}_a(v) \ge 0$. That each "
        r"quadratic form $\operatorname{Var}_a(v)$ tends to $0$ does not by itself say that the matrix $J$ "
        r"tends to $0$; the saturation bound closes the gap: for every $v$, "
        r"$\lVert J v \rVert \le 2 (1 - a_m) \lVert v \rVert$ with $a_m = \max_j a_j$ "
        r"(softmax_saturation_bound), so $\lVert J \rVert_2 \le 2 (1 - a_m) \to 0$ as $a$ tends to a "
        r"one-hot vector. (Equivalently: $J$ is symmetric positive semidefinite, so its largest eigenvalue is "
        r"the largest quadratic form $\operatorname{Var}_a(v)$ over unit $v$, which is at most "
        r"$2 (1 - a_m)$.)",
    ),
    Problem(
        id="attention_permutation_equivariance", title="Attention is permutation equivariant",
        source=f"{SEED000}, problem 'Attention is permutation equivariant' (Proof, Intermediate)",
        kind="proof",
        statement=r"For a permutation matrix $P$, show $\operatorname{Attention}(PXW_Q, PXW_K, PXW_V) = P "
                  r"\operatorname{Attention}(XW_Q, XW_K, XW_V)$.",
        theorem_ids=("attention_permutation_equivariant",),
        solution=r"The logits become $P S P^\top$; a row-wise softmax commutes with permuting rows and, within each "
                 r"row, "
        r"with permuting columns, so $\operatorname{softmax}(P S P^\top) = P A P^\top$; then $P A P^\top P V = P A V$ "
        r"since $P^\top P = I$.",
    ),
    Problem(
        id="mha_sum_of_low_rank_maps", title="Multi-head attention is a sum of low-rank maps",
        source=f"{SEED000}, problem 'Multi-head attention is a sum of low-rank maps' (Proof, Advanced)",
        kind="proof",
        statement=r"Show $\operatorname{MHA}(X) = \sum_m A^m X W_V^m W_O^m$ and that each $W_V^m W_O^m$ has rank at "
                  r"most $d/h$.",
        theorem_ids=("mha_sum_of_heads", "mha_head_rank_le"),
        solution=r"$\operatorname{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h) W_O$ is a block row times a block "
                 r"column, so it equals "
        r"$\sum_m \mathrm{head}_m W_O^m = \sum_m A^m X W_V^m W_O^m$. $W_V^m$ has $d/h$ columns, so "
        r"$\operatorname{rank}(W_V^m W_O^m) \le d/h$.",
    ),
    Problem(
        id="rope_relative_position", title="Rotary embeddings encode relative position exactly",
        source=f"{SEED000}, problem 'Rotary embeddings encode relative position exactly' (Proof, Advanced)",
        kind="proof",
        statement=r"Show $\langle R_p q, R_{p'} k \rangle = \langle q, R_{p'-p} k \rangle$, so the logit depends "
        r"on $p, p'$ only through $p' - p$.",
        theorem_ids=("rotation_compose", "rope_relative_logit"),
        solution=r"$R_p$ is block diagonal with $2 \times 2$ rotations $R(p \theta_m)$. For each block, "
        r"$R(\alpha)^\top R(\beta) = R(\beta - \alpha)$ (rotation_compose, from the addition formulas), so "
        r"blockwise $R_p^\top R_{p'} = R_{p'-p}$ and $\langle R_p q, R_{p'} k \rangle = q^\top R_p^\top R_{p'} k "
        r"= q^\top R_{p'-p} k = \langle q, R_{p'-p} k \rangle$ (rope_relative_logit, whose derivation applies "
        r"rotation_compose pair by pair).",
    ),
    Problem(
        id="attention_dominates_mlp_when", title="When does attention dominate the MLP?",
        source=f"{SEED000}, problem 'When does attention dominate the MLP?' (Numerical, Beginner)",
        kind="numerical",
        statement="From the per-layer costs, find the sequence length at which attention costs as much as the MLP, "
        "and evaluate the ratio for $d = 4096$ at $n = 2048$ and $n = 128{,}000$.",
        theorem_ids=("layer_cost_total", "attention_mlp_crossover", "attention_block_mlp_crossover",
                     "mlp_dominates_attention_at_n2048_d4096", "attention_mlp_ratio_at_n128000_d4096"),
        solution=r"The $n^2 d$ products (logits and $AV$) cost $2n^2 d$ MACs and the MLP $8nd^2$: their ratio is "
                 r"$n/(4d)$, so "
        r"the crossover is $n = 4d$ ($16{,}384$ for $d = 4096$). Counting the projections ($4nd^2$) with attention the "
        "ratio is $1/2 + n/(4d)$ and the crossover $n = 2d$ ($8{,}192$). At $d = 4096$, $n = 2048$ the ratios are "
        "$1/8$ and $5/8$: the MLP dominates. At $n = 128{,}000$ they are $7.8$ and $8.3$: attention dominates, but by "
        "about $8$, not the text's 30 (which is n/d = 31.25, the ratio with the constants 2 and 8 dropped).",
        computed=_crossover_computed(),
    ),
    Problem(
        id="mha_from_scratch", title="Implement multi-head attention from scratch",
        source=f"{SEED000}, problem 'Implement multi-head attention from scratch' (Coding, Intermediate)",
        kind="coding",
        statement=r"Implement $\operatorname{MHA}(X) = \operatorname{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h) "
                  r"W_O$ with $\mathrm{head}_m = \operatorname{Attention}(XW_Q^m, XW_K^m, XW_V^m)$.",
        theorem_ids=("mha_sum_of_heads",),
        solution="numeric.multi_head_attention projects once, splits the features into h consecutive slices "
        "(shape (..., h, n, d/h)), runs scaled dot-product attention per head, concatenates the heads in order and "
        r"applies $W_O$. Its tests compare it with the sum-of-heads form `numeric.mha_sum_of_heads` and check the "
        "feature split order and invalid arguments.",
        implementation="numeric.multi_head_attention",
        tests=("tests/numeric/test_reference.py::test_multi_head_attention_equals_the_sum_of_low_rank_heads",
               "tests/numeric/test_reference.py::test_multi_head_attention_splits_features_in_order",
               "tests/numeric/test_invalid_arguments.py"),
    ),
    Problem(
        id="exercise_third_identical_key", title="Add a third key identical to the query",
        source=f"{SEED002}, Exercise 1",
        kind="exercise",
        statement="Add k3 = (1,0,1,0) (identical to q) with value v3 = (1,1) to the worked example; recompute the "
        "attention weights and output, and confirm the identical key dominates the softmax distribution.",
        theorem_ids=("three_key_attention_output", "identical_key_weight_largest", "identical_key_weight_lt_half"),
        solution=r"Scores $q \cdot k = (1, 1, 2)$, scaled $(1/2, 1/2, 1)$. Weights $(e^{1/2}, e^{1/2}, e)/(2e^{1/2} + "
                 r"e) = "
        r"(1, 1, e^{1/2})/(2 + e^{1/2}) = (0.2741, 0.2741, 0.4519)$; output $(w_1 + w_3, w_2 + w_3) = "
        r"(1 + e^{1/2})/(2 + e^{1/2})\,(1, 1) = (0.7259, 0.7259)$. The identical key has the largest weight, by a "
        r"factor $e^{1/2} = 1.65$ over each other key, but less than one half: it does not dominate in the sense of "
        "a majority, let alone near one-hot.",
        computed=_exercise1_computed(),
    ),
    Problem(
        id="exercise_per_head_scale", title="Multi-head attention and the per-head scale",
        source=f"{SEED002}, Exercise 2",
        kind="exercise",
        statement="Split Q, K, V into h chunks along the features, attend per chunk, concatenate; explain why each "
                  "head "
        r"uses a smaller $d_k$ and so a different scaling factor.",
        theorem_ids=("mha_head_scale",),
        solution=r"Head $m$ sees queries and keys of width $d_k = d/h$, so its logits are sums of $d/h$ products with "
                 r"variance "
        r"$(d/h) \sigma^4$; the scale that normalises them is $1/\sqrt{d/h} = \sqrt{h/d}$, not $1/\sqrt{d}$.",
    ),
    Problem(
        id="exercise_attention_grad_q", title="The gradient of attention with respect to Q",
        source=f"{SEED002}, Exercise 3",
        kind="exercise",
        statement="Derive d(Attention output)/dQ by naming the chain of upstream pieces (softmax Jacobian, "
        "matrix-multiplication gradients).",
        theorem_ids=("attention_grad_q_chain",),
        solution=r"$O = A V$: $dA = G V^\top$. $A = \operatorname{softmax}(S)$ row-wise: $dS = A \circ (dA - "
                 r"\operatorname{rowsum}(A \circ dA))$, the softmax Jacobian "
        r"$\operatorname{diag}(a) - a a^\top$ applied to each row. $S = Q K^\top / \sqrt{d_k}$: $dQ = dS\, K / "
        r"\sqrt{d_k}$.",
    ),
]

PROBLEMS = [register_problem(p) for p in _P]
