r"""RoPE's long-term decay: Abel summation of the rotary logit
=========================================================

Write the ``d/2`` coordinate pairs of a query and a key as complex numbers; with
``h_i = (q_{2i} + i q_{2i+1})(k_{2i} - i k_{2i+1})`` the RoPE logit between positions ``m`` and ``n``
is ``Re sum_{i=0}^{d/2-1} h_i e^{i(m-n) theta_i}`` (theorem ``rope_relative_logit`` states the
real form). RoFormer bounds it by summation by parts: with ``S_0 = 0``, ``S_{j+1} = S_j +
e^{i(m-n) theta_j}`` and ``h_{d/2} = 0``,

.. math::

    \sum_{i=0}^{d/2-1} h_i e^{i(m-n)\theta_i} = \sum_{i=0}^{d/2-1} (h_i - h_{i+1}) S_{i+1},
    \qquad
    \Big|\sum_{i} h_i e^{i(m-n)\theta_i}\Big| \le \max_i |h_{i+1} - h_i| \sum_{j=1}^{d/2} |S_j|,

and ``(1/(d/2)) sum_j |S_j|`` decays with ``|m - n|`` for ``theta_j = 10000^{-2j/d}`` (figure
``rope_decay``).

Main results
------------
* ``rope_abel_summation``: the summation-by-parts identity, for symbolic ``d/2`` and any complex
  ``h_i``, ``E_i`` (``E_i = e^{i(m-n)theta_i}`` in RoPE).
* ``rope_abel_summation_bound``: the bound, for symbolic ``d/2``.

References
----------
Su, Lu, Pan, Murtadha, Wen and Liu, "RoFormer: Enhanced Transformer with Rotary Position
Embedding", 2021, section 3.4.3 ("Long-term decay") and Figure 2.

Tags: RoPE, long-term decay, Abel summation, summation by parts
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations._beyond import TOPIC
from symattn.engine.theorem import NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Equation, Statement
from symattn.rules.inequalities import MaxOver

SOURCE = "extension; Su et al. (2021), 'RoFormer', section 3.4.3 (long-term decay, Abel summation)"

D = sp.Symbol("D", integer=True, positive=True)  # d/2, the number of coordinate pairs
i, jj, kk = sp.symbols("i j k", integer=True)
h = sp.IndexedBase("h", complex=True)
E = sp.IndexedBase("E", complex=True)  # E_i = e^{i (m - n) theta_i}
S = sp.IndexedBase("S", complex=True)  # partial sums

_HYPS = (
    Equation("partial_sums", lhs=E[jj], rhs=S[jj + 1] - S[jj], forall=(jj,)),
    Equation("empty_partial_sum", lhs=S[0], rhs=sp.S.Zero),
    Equation("h_beyond_last", lhs=h[D], rhs=sp.S.Zero),
)

_lhs = sp.Sum(h[i] * E[i], (i, 0, D - 1))
_abel_rhs = sp.Sum((h[i] - h[i + 1]) * S[i + 1], (i, 0, D - 1))
_identity = Statement(_lhs, _abel_rhs)


def _identity_derivation() -> Derivation:
    A = sp.Sum(h[i] * S[i + 1], (i, 0, D - 1))
    return (
        Derivation(_lhs)
        .eq(sp.Sum(h[i] * (S[i + 1] - S[i]), (i, 0, D - 1)), "substitute", using="partial_sums",
            note="$E_i = S_{i+1} - S_i$")
        .eq(A - sp.Sum(h[i] * S[i], (i, 0, D - 1)), "sum_linearity", note="two sums")
        .eq(A - (sp.Sum(h[i] * S[i], (i, 0, D - 1)) + h[D] * S[D]), "substitute", using="h_beyond_last",
            note="add $h_{d/2} S_{d/2} = 0$")
        .eq(A - sp.Sum(h[i] * S[i], (i, 0, D)), "range_join", at=D - 1, note="it is the term $i = d/2$")
        .eq(A - (h[0] * S[0] + sp.Sum(h[i] * S[i], (i, 1, D))), "range_split", at=0, note="take out $i = 0$")
        .eq(A - sp.Sum(h[i] * S[i], (i, 1, D)), "substitute", using="empty_partial_sum", note="$S_0 = 0$")
        .eq(A - sp.Sum(h[i + 1] * S[i + 1], (i, 0, D - 1)), "sum_shift", note=r"$i \to i + 1$")
        .eq(_abel_rhs, "sum_linearity", note="one sum again")
    )


def _random_case(rng, pairs):
    h_ = rng.normal(size=pairs) + 1j * rng.normal(size=pairs)
    e_ = np.exp(1j * rng.normal(size=pairs) * 10)
    s_ = np.concatenate([[0], np.cumsum(e_)])  # S_0..S_{d/2}
    h_ext = np.concatenate([h_, [0]])
    return h_, e_, s_, h_ext


def _rope_logit_check(rng) -> float:
    """The RoPE logit q^T R_m^T R_n k equals Re sum_i h_i e^{i(m-n) theta_i}."""
    dd = 2 * int(rng.integers(1, 9))
    q, k = rng.normal(size=(2, dd))
    m_, n_ = (int(x) for x in rng.integers(0, 200, size=2))
    theta = 10000.0 ** (-2 * np.arange(dd // 2) / dd)

    def rotate(x, pos):  # pairs (x_{2i}, x_{2i+1}) rotated by pos * theta_i
        c, s_ = np.cos(pos * theta), np.sin(pos * theta)
        out = np.empty_like(x)
        out[0::2] = c * x[0::2] - s_ * x[1::2]
        out[1::2] = s_ * x[0::2] + c * x[1::2]
        return out

    logit = rotate(q, m_) @ rotate(k, n_)
    h_ = (q[0::2] + 1j * q[1::2]) * (k[0::2] - 1j * k[1::2])
    return abs(logit - float(np.real(np.sum(h_ * np.exp(1j * (m_ - n_) * theta))))) / (1 + abs(logit))


def _identity_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(200):
        pairs = int(rng.integers(1, 40))
        h_, e_, s_, h_ext = _random_case(rng, pairs)
        lhs = np.sum(h_ * e_)
        rhs = np.sum((h_ext[:-1] - h_ext[1:]) * s_[1:])
        worst = max(worst, abs(lhs - rhs) / (1 + abs(lhs)), _rope_logit_check(rng))
    tol = 1e-12
    return NumericResult(worst <= tol, 200, seed, worst, tol,
                         "random complex h, unit E: both sides of the identity; and the real RoPE logit "
                         "q^T R_m^T R_n k against Re sum_i h_i e^{i(m-n)theta_i}")


register(Theorem(
    id="rope_abel_summation",
    claim=r"For any complex sequences with $E_j = S_{j+1} - S_j$, $S_0 = 0$ and $h_D = 0$, "
          r"$\sum_{i<D} h_i E_i = \sum_{i<D} (h_i - h_{i+1}) S_{i+1}$.",
    title=r"Abel summation: $\sum_i h_i E_i = \sum_i (h_i - h_{i+1}) S_{i+1}$ with $S$ the partial sums of $E$",
    statement=_identity,
    source=SOURCE,
    hypotheses=_HYPS,
    derivation=_identity_derivation,
    dimensions=(D,),
    numeric=_identity_numeric,
    plain=(
        "With $S_0 = 0$, $S_{j+1} = S_j + E_j$ and $h_{d/2} = 0$, write $E_i = S_{i+1} - S_i$, split the sum in two "
        "and shift the index of the second: $\\sum_{i=0}^{d/2-1} h_i E_i = \\sum_{i=0}^{d/2-1}(h_i - h_{i+1}) "
        "S_{i+1}$. For RoPE, $E_i = e^{i(m-n)\\theta_i}$ and $h_i = (q_{2i} + i q_{2i+1})(k_{2i} - i k_{2i+1})$, whose "
        "sum has the logit as its real part."
    ),
    topic=TOPIC,
))

_MAXDIFF = MaxOver(sp.Abs(h[kk + 1] - h[kk]), (kk, 0, D - 1))
_bound = Statement(sp.Abs(_lhs), _MAXDIFF * sp.Sum(sp.Abs(S[jj]), (jj, 1, D)), "<=")


def _bound_derivation() -> Derivation:
    return (
        Derivation(sp.Abs(_lhs))
        .eq(sp.Abs(_abel_rhs), "apply_theorem", theorem="rope_abel_summation", note="Abel summation")
        .le(sp.Sum(sp.Abs(h[i] - h[i + 1]) * sp.Abs(S[i + 1]), (i, 0, D - 1)), "triangle_inequality",
            note=r"$|\sum| \le \sum |\cdot|$, and $|ab| = |a||b|$")
        .le(sp.Sum(_MAXDIFF * sp.Abs(S[i + 1]), (i, 0, D - 1)), "termwise_bound",
            note="each $|h_i - h_{i+1}|$ is at most the maximum")
        .eq(_MAXDIFF * sp.Sum(sp.Abs(S[i + 1]), (i, 0, D - 1)), "sum_linearity", note="the maximum leaves the sum")
        .eq(_bound.rhs, "sum_shift", note="$j = i + 1$")
    )


def _bound_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst = -np.inf
    for _ in range(300):
        pairs = int(rng.integers(1, 40))
        h_, e_, s_, h_ext = _random_case(rng, pairs)
        lhs = abs(np.sum(h_ * e_))
        rhs = np.max(np.abs(np.diff(h_ext))) * np.sum(np.abs(s_[1:]))
        worst = max(worst, (lhs - rhs) / (1 + rhs))
    return NumericResult(worst <= 1e-12, 300, seed, max(worst, 0.0), 1e-12,
                         "random complex h and unit E (h_{d/2} = 0): |sum h E| against the bound; relative excess")


register(Theorem(
    id="rope_abel_summation_bound",
    claim=r"For any complex sequences under the same hypotheses, "
          r"$|\sum_{i<D} h_i E_i| \le \max_k |h_{k+1} - h_k| \sum_{j=1}^D |S_j|$.",
    title=r"RoPE's long-term decay bound: $|\sum_i h_i e^{i(m-n)\theta_i}| \le \max_i |h_{i+1} - h_i| \sum_j |S_j|$",
    statement=_bound,
    source=SOURCE,
    hypotheses=_HYPS,
    derivation=_bound_derivation,
    dimensions=(D,),
    numeric=_bound_numeric,
    figures=("rope_decay",),
    plain=(
        "From Abel summation and the triangle inequality, the RoPE logit is at most "
        "$\\max_i |h_{i+1} - h_i| \\sum_{j=1}^{d/2} |S_j|$ in absolute value, where $S_j$ are the partial sums of "
        "$e^{i(m-n)\\theta_k}$. The first factor depends only on the query and the key; the second only on the "
        "distance $m - n$, and its average $\\frac{1}{d/2}\\sum_j |S_j|$ decays (with oscillations) as the "
        "distance grows: RoFormer's 'long-term decay'."
    ),
    notes=(
        "The decay is of this upper bound, as RoFormer says; the logit itself need not decay for a given $q, k$. "
        r"The figure computes the average of $|S_j|$ for $d = 128$ and $\theta_j = 10000^{-2j/d}$."
    ),
    topic=TOPIC,
))
