r"""Why muP divides by d: the logit of aligned queries and keys
============================================================

The texts' argument for ``1/sqrt(d_k)`` (theorem ``dot_product_variance``) assumes queries and
keys independent. During training they align: when each pair ``(q_i, k_i)`` has covariance
``rho sigma^2`` the logit's *mean* is ``d rho sigma^2``, growing like ``d``, while its standard
deviation grows like ``sqrt(d)``. Dividing by ``sqrt(d)`` then still leaves a mean of order
``sqrt(d)``; dividing by ``d`` keeps it ``O(1)``, which is the muP prescription.

Main results
------------
* ``correlated_logit_mean``: ``E<q, k> = d rho sigma^2``.
* ``correlated_logit_variance``: for jointly Gaussian pairs, ``Var<q, k> = d sigma^4 (1 + rho^2)``
  (for other laws ``d (E[q_i^2 k_i^2] - rho^2 sigma^4)``, see
  :func:`symattn.maths.moments.correlated_vectors`).

References
----------
Yang, Hu et al., "Tensor Programs V: Tuning Large Neural Networks via Zero-Shot Hyperparameter
Transfer", 2022, section 4 and Appendix J ("attention logit scaling 1/d instead of 1/sqrt(d)",
the correlation argument).

Tags: muP, attention scaling, correlated queries and keys, moments
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations._beyond import TOPIC
from symattn.engine.theorem import NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import RandomFamily, Statement
from symattn.rules.correlation import CorrelatedPairs
from symattn.rules.expectation import Expectation, Variance

SOURCE = "extension; Yang et al. (2022), 'Tensor Programs V', section 4 and Appendix J (1/d attention scaling)"

d = sp.Symbol("d", integer=True, positive=True)
sigma = sp.Symbol("sigma", positive=True)
rho = sp.Symbol("rho", real=True)
i = sp.Symbol("i", integer=True, positive=True)
q = sp.IndexedBase("q", real=True)
k = sp.IndexedBase("k", real=True)

_logit = sp.Sum(q[i] * k[i], (i, 1, d))
_M22 = sigma**4 * (1 + 2 * rho**2)  # Isserlis: E[q^2 k^2] = E[q^2]E[k^2] + 2 E[qk]^2


def _hyps(gaussian: bool) -> tuple:
    mixed = (((2, 2), _M22),) if gaussian else ()
    return (
        RandomFamily("q_entries", base=q, dim=d, mean=0, variance=sigma**2),
        RandomFamily("k_entries", base=k, dim=d, mean=0, variance=sigma**2),
        CorrelatedPairs(f"correlated_{'gaussian_' if gaussian else ''}pairs", q=q, k=k, dim=d,
                        covariance=rho * sigma**2, mixed=mixed),
    )


def _monte_carlo(kind: str):
    def check(seed: int) -> NumericResult:
        rng = np.random.default_rng(seed)
        worst, samples = 0.0, 0
        for dd, rr, ss in ((4, 0.5, 1.0), (64, 0.9, 0.5), (256, -0.3, 2.0)):
            reps = 8000
            z1, z2 = rng.standard_normal((2, reps, dd))  # (reps, d) each
            qs, ks = ss * z1, ss * (rr * z1 + np.sqrt(1 - rr**2) * z2)  # Cov(q_i, k_i) = rho sigma^2
            logits = (qs * ks).sum(1)  # (reps,)
            mean_want, var_want = dd * rr * ss**2, dd * ss**4 * (1 + rr**2)
            if kind == "mean":
                err = abs(logits.mean() - mean_want) / np.sqrt(var_want / reps)  # in standard errors
            else:
                # standard error of the sample variance ~ var * sqrt(2/reps) (nearly Gaussian logits)
                err = abs(logits.var() - var_want) / (var_want * np.sqrt(2.0 / reps) * 1.5)
            worst = max(worst, float(err))
            samples += reps
        return NumericResult(worst <= 5.0, samples, seed, worst, 5.0,
                             f"Monte Carlo over bivariate-normal pairs (d, rho, sigma) = (4, .5, 1), (64, .9, .5), "
                             f"(256, -.3, 2); {kind} error in standard errors")

    return check


_mean_statement = Statement(Expectation(_logit), d * rho * sigma**2)

register(Theorem(
    id="correlated_logit_mean",
    claim=r"For i.i.d. centred pairs with $\operatorname{Cov}(q_i, k_i) = \rho\sigma^2$, $\mathbb{E}\langle q, "
          r"k\rangle = d\rho\sigma^2$.",
    title=r"If each $(q_i, k_i)$ has covariance $\rho \sigma^2$, the logit has mean $d \rho \sigma^2$: it grows like "
          r"$d$",
    statement=_mean_statement,
    source=SOURCE,
    hypotheses=_hyps(False),
    derivation=lambda: (
        Derivation(_mean_statement.lhs)
        .eq(sp.Sum(Expectation(q[i] * k[i]), (i, 1, d)), "linearity_of_expectation", note="a finite sum")
        .eq(sp.Sum(rho * sigma**2, (i, 1, d)), "pair_moment",
            note=r"$\mathbb{E}[q_i k_i] = \operatorname{Cov}(q_i, k_i) = \rho \sigma^2$ (means $0$)")
        .eq(d * rho * sigma**2, "sum_evaluate", note="$d$ equal terms")
    ),
    dimensions=(d,),
    numeric=_monte_carlo("mean"),
    plain=(
        "If the entries of $q$ and $k$ have mean 0 and variance $\\sigma^2$ and each pair $(q_i, k_i)$ has "
        "covariance $\\rho\\sigma^2$, independently across $i$, then $\\mathbb{E}\\langle q, k\\rangle = "
        "d\\rho\\sigma^2$. Its fluctuations grow like $\\sqrt d$ (`correlated_logit_variance`), so once queries and "
        "keys align the mean dominates: $\\langle q, k\\rangle/\\sqrt d$ has mean $\\sqrt d \\rho\\sigma^2$, unbounded "
        "in the width, while $\\langle q, k\\rangle/d$ stays $O(1)$. That is why muP scales attention by $1/d$."
    ),
    notes="Only the covariance of each pair and linearity are used; no independence between $q$ and $k$ is assumed.",
    topic=TOPIC,
))

_var_statement = Statement(Variance(_logit), d * sigma**4 * (1 + rho**2))

register(Theorem(
    id="correlated_logit_variance",
    claim=r"For i.i.d. centred pairs with $\operatorname{Cov}(q_i, k_i) = \rho\sigma^2$ and $\mathbb{E}[q_i^2 k_i^2] "
          r"= \sigma^4(1 + 2\rho^2)$ (jointly Gaussian), $\operatorname{Var}\langle q, k\rangle = d\sigma^4(1 + "
          r"\rho^2)$.",
    title=r"For jointly Gaussian pairs with correlation $\rho$, the logit has variance $d \sigma^4 (1 + \rho^2)$",
    statement=_var_statement,
    source=SOURCE,
    hypotheses=_hyps(True),
    derivation=lambda: (
        Derivation(_var_statement.lhs)
        .eq(sp.Sum(Variance(q[i] * k[i]), (i, 1, d)), "variance_of_pair_sum",
            note="the pairs are independent across $i$")
        .eq(sp.Sum(Expectation((q[i] * k[i]) ** 2) - Expectation(q[i] * k[i]) ** 2, (i, 1, d)), "variance_definition",
            note=r"$\operatorname{Var} X = \mathbb{E}[X^2] - \mathbb{E}[X]^2$")
        .eq(sp.Sum(_M22 - rho**2 * sigma**4, (i, 1, d)), "pair_moment",
            note=r"$\mathbb{E}[q_i^2 k_i^2] = \sigma^4 (1 + 2 \rho^2)$ (Isserlis), $\mathbb{E}[q_i k_i] = \rho "
                 r"\sigma^2$")
        .eq(d * sigma**4 * (1 + rho**2), "sum_evaluate", note="$d$ equal terms")
    ),
    dimensions=(d,),
    numeric=_monte_carlo("var"),
    plain=(
        "For jointly Gaussian pairs, $\\mathbb{E}[q_i^2 k_i^2] = \\sigma^4(1 + 2\\rho^2)$ (Isserlis), so each term "
        "has variance $\\sigma^4(1 + \\rho^2)$ and the logit $d\\sigma^4(1 + \\rho^2)$: the standard deviation "
        "grows like $\\sqrt d$ while the mean grows like $d$."
    ),
    notes=r"The Gaussian mixed moment enters as a declared moment of the hypothesis; for other laws the variance is "
          r"$d(\mathbb{E}[q_i^2 k_i^2] - \rho^2 \sigma^4)$.",
    topic=TOPIC,
))
