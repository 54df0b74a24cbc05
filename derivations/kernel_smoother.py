r"""Attention as a kernel smoother, and linear attention
=====================================================

Softmax attention is, algebraically, a Nadaraya--Watson average with the kernel
``kappa(q, k) = exp(<q, k> / sqrt(d_k))``. Replacing ``kappa`` by a factorisable
``<phi(q), phi(k)>`` lets associativity reorder the computation from ``(phi(Q) phi(K)^T) V`` to
``phi(Q) (phi(K)^T V)``, and, with a causal mask, into prefix sums that a recurrent network can
carry.

Main results
------------
* ``attention_is_nadaraya_watson``: ``o_i = sum_j kappa(q_i, k_j) v_j / sum_j kappa(q_i, k_j)``
  (an identity; symbolic ``n``, ``d_k``).
* ``kernel_smoother_analogy``: the heuristic itself; its checkable part (larger inverse
  temperature, more concentrated weights) is graded on numerical evidence only.
* ``linear_attention_associativity``: the quadratic and the linear evaluation orders of
  normalised linear attention give the same row (symbolic ``n``, ``d``).
* ``linear_attention_costs``: the multiply-accumulate counts of the two orders,
  ``n^2 (d + d_v + 1)`` and ``2 n d (d_v + 1)``.
* ``causal_linear_attention_prefix_sums``: causal linear attention through the prefix sums
  ``S_i = sum_{j<=i} phi(k_j) v_j^T`` and ``z_i = sum_{j<=i} phi(k_j)``.
* ``causal_linear_attention_state_recurrence``: ``S_i = S_{i-1} + phi(k_i) v_i^T`` and
  ``z_i = z_{i-1} + phi(k_i)``.

Notation
--------
``Q[i, c]``, ``K[j, c]`` are the entries of queries and keys (``c = 1..d_k``); ``V[j, e]`` one
coordinate ``e`` of the values; ``P[i, c] = phi(q_i)_c`` and ``F[j, c] = phi(k_j)_c`` the
feature-mapped queries and keys (``c = 1..d``), for an arbitrary feature map ``phi``.

References
----------
* Seed 000 ("The Mathematics of Transformers"), *Heuristic: Attention as a kernel smoother* and
  its *What this does not say*.
* Katharopoulos et al., "Transformers are RNNs", ICML 2020, eq. (4)-(7), (18)-(20).

Tags: kernel smoother, Nadaraya-Watson, linear attention, associativity, prefix sums, cost
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from symattn.engine.theorem import Instances, NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, IndexRange, Statement
from symattn.maths.softmax import Softmax

i, j, l, c, e = sp.symbols("i j l c e", integer=True, positive=True)
n, d_k, d, d_v = sp.symbols("n d_k d d_v", integer=True, positive=True)
Q = sp.IndexedBase("Q", real=True)
K = sp.IndexedBase("K", real=True)
V = sp.IndexedBase("V", real=True)
P = sp.IndexedBase("P", real=True)  # phi(q_i)_c
F = sp.IndexedBase("F", real=True)  # phi(k_j)_c

_SOURCE_NW = "000_ccf06b253f58a07c.txt, Heuristic 'Attention as a kernel smoother'"
_SOURCE_LINEAR = (
    "000_ccf06b253f58a07c.txt, Heuristic 'Attention as a kernel smoother', 'What this does not say' "
    r"(linear attention replaces $\kappa$ by a factorisable $\langle \phi(q), \phi(k)\rangle$, cost $O(n^2 d) \to O(n "
    r"d^2)$)"
)


# ----------------------------------------------------------------------------- Nadaraya-Watson
def _logit(row, col):
    return sp.Sum(Q[row, c] * K[col, c], (c, 1, d_k)) / sp.sqrt(d_k)


def kappa(row, col):
    """``kappa(q_row, k_col) = exp(<q_row, k_col> / sqrt(d_k))``."""
    return sp.exp(_logit(row, col))


def _attention_row():
    return sp.Sum(Softmax(sp.Lambda(l, _logit(i, l)), j, n) * V[j, e], (j, 1, n))


def _nadaraya_watson():
    return sp.Sum(kappa(i, j) * V[j, e], (j, 1, n)) / sp.Sum(kappa(i, l), (l, 1, n))


def _nw_derivation() -> Derivation:
    return (
        Derivation(_attention_row())
        .eq(sp.Sum(kappa(i, j) / sp.Sum(kappa(i, l), (l, 1, n)) * V[j, e], (j, 1, n)), "definition",
            name="softmax", note=r"unfold the softmax of the scaled logits: its numerator is $\kappa(q_i, k_j)$")
        .eq(_nadaraya_watson(), "sum_linearity", note="the normaliser does not depend on j")
    )


def _nw_numeric(seed: int) -> NumericResult:
    from numeric.reference import attention

    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 100
    for _ in range(trials):
        n_q, n_k, dk, dv = (int(x) for x in rng.integers(1, 12, size=4))
        q, k, v = rng.normal(size=(n_q, dk)), rng.normal(size=(n_k, dk)), rng.normal(size=(n_k, dv))
        kern = np.exp(q @ k.T / np.sqrt(dk))  # (n_q, n_k)  kappa(q_i, k_j)
        nw = (kern @ v) / kern.sum(axis=1, keepdims=True)  # (n_q, d_v)
        worst = max(worst, float(np.abs(nw - attention(q, k, v)).max()))
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "Nadaraya-Watson average with kappa = exp(q.k/sqrt(d_k)) against numeric.attention")


register(
    Theorem(
        id="attention_is_nadaraya_watson",
        claim=r"For all real $Q, K, V$, softmax attention's output $\sum_j \operatorname{softmax}_j(q_i \cdot "
              r"k_j/\sqrt{d_k}) V_{je}$ is the Nadaraya-Watson average with kernel $\exp(\langle q, "
              r"k\rangle/\sqrt{d_k})$.",
        title=r"Softmax attention is a Nadaraya-Watson average with kernel $\exp(\langle q, k\rangle/\sqrt{d_k})$",
        statement=Statement(_attention_row(), _nadaraya_watson()),
        source=_SOURCE_NW,
        hypotheses=(IndexRange("i_range", index=i, lower=1, upper=n),),
        derivation=_nw_derivation,
        dimensions=(n, d_k),
        numeric=_nw_numeric,
        plain=(
            r"Write $\kappa(q, k) = \exp(\langle q, k\rangle/\sqrt{d_k})$. Then the attention output of query $i$ is "
            r"$\sum_j \kappa(q_i, k_j) v_j$ divided by $\sum_j \kappa(q_i, k_j)$: a kernel-weighted average of "
            "the values, which is the form of the Nadaraya-Watson estimator. This part of the "
            "heuristic is an exact identity."
        ),
        notes=(
            "Only the algebraic form is proved. Whether attention behaves like a kernel smoother "
            "(bandwidth, consistency rates) is the heuristic kernel_smoother_analogy."
        ),
    )
)


# ----------------------------------------------------------------------------- the heuristic
beta, beta_1, beta_2 = sp.symbols("beta beta_1 beta_2", nonnegative=True)
s = sp.IndexedBase("s", real=True)


def entropy(inverse_temperature):
    """``H(softmax(beta s)) = -sum_j p_j log p_j`` for the scores ``s_1..s_n``."""
    p = Softmax(sp.Lambda(l, inverse_temperature * s[l]), j, n)
    return -sp.Sum(p * sp.log(p), (j, 1, n))


def _entropy_np(scores: np.ndarray, b: float) -> float:
    from numeric.reference import softmax

    p = softmax(b * scores)  # (n,)
    nz = p > 0
    return float(-(p[nz] * np.log(p[nz])).sum())


def _analogy_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 300
    for _ in range(trials):
        scores = rng.normal(size=int(rng.integers(2, 30)))  # (n,)
        b1, b2 = np.sort(rng.uniform(0, 6, size=2))
        worst = max(worst, _entropy_np(scores, b2) - _entropy_np(scores, b1))  # must be <= 0
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, max(worst, 0.0), tol,
                         "largest increase of the softmax entropy H(softmax(beta s)) from beta_1 to "
                         "beta_2 >= beta_1 (random scores); larger beta = smaller bandwidth")


register(
    Theorem(
        id="kernel_smoother_analogy",
        claim=r"Heuristic, checked numerically only: raising the inverse temperature $\beta$ does not increase the "
              r"entropy of $\operatorname{softmax}(\beta s)$.",
        title="Attention as a kernel smoother: temperature acts as a bandwidth",
        statement=Statement(entropy(beta_2), entropy(beta_1), "<="),
        source=_SOURCE_NW + ", and its 'What this does not say'",
        kind="heuristic",
        target="numerically-consistent",
        hypotheses=(Assumption("ordered_temperatures", condition=sp.Le(beta_1, beta_2),
                               text=r"$0 \le \beta_1 \le \beta_2$ (inverse temperatures)"),),
        numeric=_analogy_numeric,
        plain=(
            "Reading attention as a kernel smoother explains why it averages nearby values and why "
            "the temperature matters: multiplying the scores by a larger inverse temperature beta "
            "narrows the kernel, and the weights concentrate on fewer keys (their entropy goes "
            "down). The analogy is a source of ideas, not of guarantees."
        ),
        notes=(
            "Checked part: the entropy of softmax(beta s) does not increase with beta (numerically "
            r"here). Caveats from the text, made precise: (1) $\kappa(q, k) = \exp(\langle q, k\rangle/\sqrt{d_k})$ "
            r"compares a query with a key, two different projections ($X W_Q$, $X W_K$) of the tokens, "
            "so it is not the symmetric, distance-based kernel on one space that kernel smoothing "
            r"assumes. (2) Seed 000 says $\kappa$ 'is positive definite as a function of $(q,k)$ pairs "
            "via the exponential of a linear kernel'. Positive definiteness is a property of a "
            r"kernel on ONE space $\mathcal{X} \times \mathcal{X}$: for $q$ and $k$ ranging over the same space, "
            r"$\exp(\langle q, k\rangle/\sqrt{d})$ "
            "is positive definite (the exponential of the positive-definite linear kernel, by the "
            "Schur product theorem and the power series). For q and k drawn from two different "
            r"spaces (or the same token seen through $W_Q$ versus $W_K$) 'positive definite' is not "
            r"defined: the Gram matrix $\kappa(q_i, k_j)$ is not square-symmetric in general. (3) "
            "Nadaraya-Watson rates assume a fixed kernel and i.i.d. samples; attention learns its "
            "kernel and its tokens are neither independent nor identically distributed. The "
            r"temperature claim is about the $1/\sqrt{d_k}$ factor read as a bandwidth: at fixed "
            "logits, larger scale = narrower kernel."
        ),
    )
)


# ----------------------------------------------------------------------------- linear attention
def _phi_dot(row, col):
    """``<phi(q_row), phi(k_col)>``."""
    return sp.Sum(P[row, c] * F[col, c], (c, 1, d))


def _quadratic(upper):
    """Row i in the quadratic order: (phi(Q) phi(K)^T) V, normalised; keys 1..upper."""
    return sp.Sum(_phi_dot(i, j) * V[j, e], (j, 1, upper)) / sp.Sum(_phi_dot(i, j), (j, 1, upper))


def _prefix_state(upper):
    """``S[c, e] = sum_{j<=upper} phi(k_j)_c v_{j,e}`` and ``z[c] = sum_{j<=upper} phi(k_j)_c``."""
    return sp.Sum(F[j, c] * V[j, e], (j, 1, upper)), sp.Sum(F[j, c], (j, 1, upper))


def _linear(upper):
    """Row i in the linear order: phi(q_i)^T (phi(K)^T V) / phi(q_i)^T (phi(K)^T 1)."""
    S, z = _prefix_state(upper)
    return sp.Sum(P[i, c] * S, (c, 1, d)) / sp.Sum(P[i, c] * z, (c, 1, d))


def _associativity_derivation(upper) -> Derivation:
    S, _ = _prefix_state(upper)
    return (
        Derivation(_quadratic(upper))
        .eq(sp.Sum(P[i, c] * S, (c, 1, d)) / sp.Sum(_phi_dot(i, j), (j, 1, upper)), "sum_interchange",
            note=r"numerator: sum over keys and features in the other order, $\phi(q_i)_c$ leaves the key sum")
        .eq(_linear(upper), "sum_interchange", note="the same for the normaliser")
    )


def _linear_numeric(causal: bool):
    def check(seed: int) -> NumericResult:
        from numeric.linear import elu_plus_one, linear_attention

        rng = np.random.default_rng(seed)
        worst, trials = 0.0, 100
        for _ in range(trials):
            n_, dd, dv = (int(x) for x in rng.integers(1, 12, size=3))
            q, k, v = rng.normal(size=(n_, dd)), rng.normal(size=(n_, dd)), rng.normal(size=(n_, dv))
            fq, fk = elu_plus_one(q), elu_plus_one(k)  # (n, d) positive features
            a = fq @ fk.T  # (n, n)  <phi(q_i), phi(k_j)>
            if causal:
                a = np.tril(a)
                S = np.cumsum(fk[:, :, None] * v[:, None, :], axis=0)  # (n, d, d_v)  S_i
                z = np.cumsum(fk, axis=0)  # (n, d)  z_i
                prefix = np.einsum("nd,nde->ne", fq, S) / np.einsum("nd,nd->n", fq, z)[:, None]
            else:
                prefix = (fq @ (fk.T @ v)) / (fq @ fk.sum(axis=0))[:, None]
            quad = (a @ v) / a.sum(axis=1, keepdims=True)  # (n, d_v)
            lib = linear_attention(q, k, v, causal=causal, order="linear")
            worst = max(worst, float(np.abs(prefix - quad).max()), float(np.abs(lib - quad).max()))
        tol = 1e-11
        return NumericResult(worst <= tol, trials, seed, worst, tol,
                             "phi = elu + 1; the two evaluation orders written out here and "
                             "numeric.linear_attention(order='linear') against the quadratic order")

    return check


register(
    Theorem(
        id="linear_attention_associativity",
        claim=r"For any feature map values $\phi(q_i), \phi(k_j)$ with a nonzero normaliser, "
              r"$\phi(q_i)^\top(\phi(K)^\top V)$ normalised equals $(\phi(q_i)^\top \phi(K)^\top) V$ normalised.",
        title=r"Linear attention: $\phi(Q)(\phi(K)^\top V)$ equals $(\phi(Q) \phi(K)^\top) V$, normalised, row by row",
        statement=Statement(_quadratic(n), _linear(n)),
        source=_SOURCE_LINEAR,
        hypotheses=(Assumption("normaliser_nonzero", condition=sp.Ne(sp.Sum(_phi_dot(i, j), (j, 1, n)), 0),
                               text=r"$\phi$ is any feature map; the normaliser $\phi(q_i)^\top \sum_j "
                                    r"\phi(k_j)$ is nonzero"),),
        derivation=lambda: _associativity_derivation(n),
        dimensions=(n, d),
        numeric=_linear_numeric(False),
        plain=(
            r"With a kernel that factorises as $\langle \phi(q), \phi(k)\rangle$, the weighted sum over keys can be "
            "computed in either order: first all query-key products (an n x n matrix) and then the "
            r"values, or first the $d \times d_v$ matrix $\phi(K)^\top V$, shared by all queries, and then one "
            "product per query. Both give exactly the same row: a finite double sum can be summed in "
            "either order."
        ),
        notes=(
            "The identity holds for every feature map; the normaliser must be nonzero, which "
            "positive feature maps (elu + 1, as in Katharopoulos et al.) guarantee."
        ),
    )
)


# ----------------------------------------------------------------------------- costs
r_ = sp.Symbol("r", integer=True, positive=True)


def _macs(*ranges):
    """The number of multiply-accumulates of a loop nest: one per index tuple."""
    return sp.Sum(1, *[(sym, 1, hi) for sym, hi in ranges])


def _costs():
    quadratic = (
        _macs((i, n), (j, n), (c, d))  # A = phi(Q) phi(K)^T
        + _macs((i, n), (e, d_v), (j, n))  # A V
        + _macs((i, n), (j, n))  # A 1, the normaliser
    )
    linear = (
        _macs((c, d), (e, d_v), (j, n))  # phi(K)^T V
        + _macs((i, n), (e, d_v), (c, d))  # phi(Q) (phi(K)^T V)
        + _macs((c, d), (j, n))  # phi(K)^T 1
        + _macs((i, n), (c, d))  # phi(Q) (phi(K)^T 1)
    )
    return sp.ImmutableMatrix([quadratic, linear])


_CLOSED = sp.ImmutableMatrix([n**2 * (d + d_v + 1), 2 * n * d * (d_v + 1)])


def _costs_derivation() -> Derivation:
    return (
        Derivation(_costs())
        .eq(sp.ImmutableMatrix([n**2 * d + n**2 * d_v + n**2, n * d * d_v + n * d * d_v + n * d + n * d]),
            "sum_evaluate", note="each loop nest runs once per index tuple")
        .eq(_CLOSED, "algebra", note="collect terms")
    )


def _count_loops(n_, d_, dv_) -> tuple[int, int]:
    """Multiply-accumulates counted by running the loop nests (independent of the formula)."""
    quad = lin = 0
    for _ in range(n_):
        for _ in range(n_):
            quad += d_ + dv_ + 1  # one query-key pair: d products, d_v value updates, 1 normaliser add
    for _ in range(d_):
        lin += n_ * dv_ + n_  # phi(K)^T V and phi(K)^T 1, one feature row at a time
    for _ in range(n_):
        lin += d_ * dv_ + d_  # phi(q_i)^T (phi(K)^T V) and phi(q_i)^T z
    return quad, lin


def _costs_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0, 50
    f = sp.lambdify((n, d, d_v), _CLOSED, "numpy")
    for _ in range(trials):
        n_, d_, dv_ = (int(x) for x in rng.integers(1, 20, size=3))
        got = np.asarray(f(n_, d_, dv_), dtype=float).ravel()
        worst = max(worst, float(np.abs(got - np.array(_count_loops(n_, d_, dv_))).max()))
    return NumericResult(worst == 0, trials, seed, worst, 0.0,
                         "closed forms against loop nests run in Python for random (n, d, d_v)")


register(
    Theorem(
        id="linear_attention_costs",
        claim=r"Counted as index tuples of the products, linear attention costs exactly $n^2(d + d_v + 1)$ "
              r"multiply-accumulates in the quadratic order and $2nd(d_v + 1)$ in the linear order.",
        title=r"Multiply-accumulates: $n^2 (d + d_v + 1)$ in the quadratic order, $2 n d (d_v + 1)$ in the linear "
              r"order",
        statement=Statement(_costs(), _CLOSED),
        source=_SOURCE_LINEAR,
        hypotheses=(Assumption("cost_model", text="a product of p x q and q x r matrices costs p q r "
                               r"multiply-accumulates; divisions by the normaliser ($n d_v$ in both orders) "
                               "and the feature map are not counted"),),
        derivation=_costs_derivation,
        dimensions=(n, d, d_v),
        numeric=_costs_numeric,
        plain=(
            r"Counting multiply-accumulates: the quadratic order forms $n^2$ query-key products of "
            r"length $d$, then $n^2 d_v$ value updates and $n^2$ normaliser additions, $n^2 (d + d_v + 1)$ in "
            r"all. The linear order forms $\phi(K)^\top V$ and $\phi(K)^\top \mathbf{1}$ once ($n d d_v + n d$) and "
            r"then applies them to every query ($n d d_v + n d$), $2 n d (d_v + 1)$ in all: linear in $n$, "
            "quadratic in the width."
        ),
        notes=(
            r"For $d_v = d$ the counts are $n^2 (2d + 1) = O(n^2 d)$ and $2 n d (d + 1) = O(n d^2)$, as "
            r"seed 000 says; the linear order is cheaper exactly when $2 d (d_v + 1) < n (d + d_v + 1)$, "
            r"roughly $n > d$ for $d_v = d$. Here $d$ is the feature dimension of $\phi$, which for random-"
            r"feature maps can be much larger than $d_k$. The counts are for one head."
        ),
    )
)


# ----------------------------------------------------------------------------- causal prefix sums
register(
    Theorem(
        id="causal_linear_attention_prefix_sums",
        claim=r"For every position $i$ and any feature map with a nonzero normaliser, causal linear attention equals "
              r"$\phi(q_i)^\top S_i / \phi(q_i)^\top z_i$ with the prefix sums $S_i, z_i$.",
        title=r"Causal linear attention through prefix sums: $o_i = \phi(q_i)^\top S_i / \phi(q_i)^\top z_i$",
        statement=Statement(_quadratic(i), _linear(i)),
        source=_SOURCE_LINEAR + "; causal masking from 004_b987b516506401e6.txt, 'The Complete Transformer Block'",
        hypotheses=(
            IndexRange("i_range", index=i, lower=1, upper=n),
            Assumption("normaliser_nonzero", condition=sp.Ne(sp.Sum(_phi_dot(i, j), (j, 1, i)), 0),
                       text=r"$\phi$ is any feature map; the normaliser $\phi(q_i)^\top z_i$ is nonzero"),
        ),
        derivation=lambda: _associativity_derivation(i),
        dimensions=(i, d),
        numeric=_linear_numeric(True),
        plain=(
            r"With a causal mask query $i$ sees keys $1, \dots, i$. In the linear order the only quantities "
            r"needed are the prefix sums $S_i = \sum_{j \le i} \phi(k_j) v_j^\top$ and $z_i = \sum_{j \le i} "
            r"\phi(k_j)$: the output is $\phi(q_i)^\top S_i / \phi(q_i)^\top z_i$, the same as masking the $n \times "
            r"n$ matrix."
        ),
        notes="Query i's row is the non-causal identity with the key range cut at i.",
    )
)


def _recurrence_statement():
    S_i, z_i = _prefix_state(i)
    S_prev, z_prev = _prefix_state(i - 1)
    return Statement(sp.ImmutableMatrix([S_i, z_i]),
                     sp.ImmutableMatrix([S_prev + F[i, c] * V[i, e], z_prev + F[i, c]]))


def _recurrence_derivation() -> Derivation:
    S_i, z_i = _prefix_state(i)
    S_prev, z_prev = _prefix_state(i - 1)
    return (
        Derivation(sp.ImmutableMatrix([S_i, z_i]))
        .eq(sp.ImmutableMatrix([S_prev + F[i, c] * V[i, e], z_i]), "sum_split", at=i - 1,
            note=r"the keys $1, \dots, i$ are $1, \dots, i-1$ and the key $i$")
        .eq(sp.ImmutableMatrix([S_prev + F[i, c] * V[i, e], z_prev + F[i, c]]), "sum_split", at=i - 1,
            note="the same for the normaliser")
    )


def _recurrence_instance(size: int) -> Statement:
    st = _recurrence_statement().subs({i: size})
    return Statement(st.lhs.doit(), st.rhs.doit())


def _recurrence_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 100
    for _ in range(trials):
        n_, dd, dv = (int(x) for x in rng.integers(1, 15, size=3))
        fk, v = rng.uniform(0.1, 2, size=(n_, dd)), rng.normal(size=(n_, dv))
        S, z = np.zeros((dd, dv)), np.zeros(dd)  # (d, d_v), (d,)
        for step in range(n_):  # the recurrent form: one key at a time
            S, z = S + np.outer(fk[step], v[step]), z + fk[step]
            direct_S = fk[: step + 1].T @ v[: step + 1]  # (d, d_v)
            worst = max(worst, float(np.abs(S - direct_S).max()), float(np.abs(z - fk[: step + 1].sum(0)).max()))
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "recurrent S_i, z_i against the prefix sums computed directly")


register(
    Theorem(
        id="causal_linear_attention_state_recurrence",
        claim=r"For every position $i$, the prefix sums satisfy $S_i = S_{i-1} + \phi(k_i) v_i^\top$ and $z_i = "
              r"z_{i-1} + \phi(k_i)$.",
        title=r"The prefix sums of causal linear attention obey $S_i = S_{i-1} + \phi(k_i) v_i^\top$, $z_i = z_{i-1} + "
              r"\phi(k_i)$",
        statement=_recurrence_statement(),
        source=_SOURCE_LINEAR,
        hypotheses=(IndexRange("i_range", index=i, lower=1, upper=n),),
        derivation=_recurrence_derivation,
        dimensions=(i,),
        instances=Instances(_recurrence_instance, tuple(range(1, 7)), label="i"),
        numeric=_recurrence_numeric,
        plain=(
            "The prefix sums are updated by one outer product per key, so causal linear attention "
            r"can run as a recurrent network whose state is the $d \times d_v$ matrix $S_i$ and the vector "
            r"$z_i$: constant memory per step, linear time in $n$."
        ),
        notes=r"Entry $(c, e)$ of $S_i$ and entry $c$ of $z_i$; $S_0 = 0$, $z_0 = 0$ (empty sums).",
    )
)
