r"""Lipschitz facts: softmax is 1/2-Lipschitz, dot-product self-attention is not Lipschitz
=======================================================================================

The softmax Jacobian ``J = diag(a) - a a^T`` (theorem ``softmax_jacobian``) has entries
``J_ij = a_i (delta_ij - a_j)`` for weights ``a`` on the simplex. Its rows are small in the
``l1`` sense; symmetric, so its operator norm is at most ``1/2`` as well. Self-attention with
the *same* input feeding queries, keys and values has no such bound.

Main results
------------
* ``softmax_jacobian_inf_norm_le_half``: every row of ``|J|`` sums to ``2 a_i (1 - a_i) <= 1/2``.
* ``softmax_jacobian_operator_norm_le_half``: ``||J v|| <= ||v|| / 2``.
* ``dot_product_self_attention_not_lipschitz``: for ``n = 2, d = 1`` and unit weights,
  ``f(X)_i = sum_j softmax_j(x_i x_j) x_j``; at ``X = (t, 0)``, ``d f_2 / d x_2 = t^2/4 + 1/2``,
  unbounded in ``t``.

References
----------
* Kim, Papamakarios and Mnih, "The Lipschitz Constant of Self-Attention", ICML 2021, Theorem 3.1
  (dot-product self-attention is not Lipschitz) and its proof (the ``n = 2`` example).
* Gao and Pavel, "On the Properties of the Softmax Function with Application in Game Theory and
  Reinforcement Learning", 2017, Proposition 4 (softmax is 1-Lipschitz; the 1/2 here is sharper
  and follows from the row sums).

Tags: Lipschitz, softmax Jacobian, operator norm, self-attention
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations._beyond import TOPIC
from symattn.derivation import Derivation
from symattn.statement import Equation, IndexRange, Statement
from symattn.theorem import Instances, NumericResult, Theorem, register

n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True, positive=True)
j = sp.Symbol("j", integer=True)
a = sp.IndexedBase("a", positive=True)

_J = a[i] * (sp.KroneckerDelta(i, j) - a[j])  # J_ij
_SIMPLEX = Equation("simplex", lhs=sp.Sum(a[j], (j, 1, n)), rhs=sp.S.One)
_HYPS = (IndexRange("row", index=i, lower=1, upper=n), _SIMPLEX)
_inf_statement = Statement(sp.Sum(sp.Abs(_J), (j, 1, n)), sp.Rational(1, 2), "<=")


def _inf_derivation() -> Derivation:
    def S(lo, hi, f=a[j]):
        return sp.Sum(f, (j, lo, hi))

    absJ = sp.Abs(_J)
    low, high = S(1, i - 1), S(i + 1, n)
    return (
        Derivation(_inf_statement.lhs)
        .eq(S(1, i - 1, absJ) + S(i, n, absJ), "range_split", at=i - 1, note="the keys before i, and from i on")
        .eq(S(1, i - 1, absJ) + sp.Abs(a[i] * (1 - a[i])) + S(i + 1, n, absJ), "range_split", at=i,
            note="the diagonal term J_ii = a_i (1 - a_i)")
        .eq(S(1, i - 1, a[i] * a[j]) + sp.Abs(a[i] * (1 - a[i])) + S(i + 1, n, a[i] * a[j]), "delta_by_range",
            note="off the diagonal delta_ij = 0 and |-a_i a_j| = a_i a_j")
        .eq(S(1, i - 1, a[i] * a[j]) + sp.Abs(a[i] * (S(1, n) - a[i])) + S(i + 1, n, a[i] * a[j]), "substitute",
            using="simplex", note="1 = sum_j a_j")
        .eq(S(1, i - 1, a[i] * a[j]) + sp.Abs(a[i] * (S(1, i - 1) + S(i, n) - a[i])) + S(i + 1, n, a[i] * a[j]),
            "range_split", at=i - 1, note="split the sum at i")
        .eq(S(1, i - 1, a[i] * a[j]) + sp.Abs(a[i] * (low + high)) + S(i + 1, n, a[i] * a[j]), "range_split", at=i,
            note="the term a_i cancels: 1 - a_i is the sum of the other weights")
        .eq(S(1, i - 1, a[i] * a[j]) + a[i] * (low + high) + S(i + 1, n, a[i] * a[j]), "abs_by_sign",
            note="a sum of positive weights over a range that is not reversed is nonnegative")
        .eq(2 * a[i] * (low + high), "sum_linearity", note="a_i leaves the sums")
        .eq(2 * a[i] * (low + S(i, n) - a[i]), "range_join", at=i, note="put the term a_i back")
        .eq(2 * a[i] * (S(1, n) - a[i]), "range_join", at=i - 1, note="join the ranges")
        .eq(2 * a[i] * (1 - a[i]), "substitute", using="simplex", note="sum_j a_j = 1")
        .le(sp.Rational(1, 2), "inequality", witness=2 * (a[i] - sp.Rational(1, 2)) ** 2,
            note="1/2 - 2 a (1 - a) = 2 (a - 1/2)^2 >= 0")
    )


def _simplex_instance(size: int) -> Statement:
    # n = size, the weights a softmax of free scores (so that the simplex hypothesis holds exactly)
    xs = sp.symbols(f"x1:{size + 1}", real=True)
    z = sum(sp.exp(x) for x in xs)
    w = [sp.exp(x) / z for x in xs]
    row = 1 if size == 1 else 2
    total = sum(sp.Abs(w[row - 1] * ((1 if jj == row else 0) - w[jj - 1])) for jj in range(1, size + 1))
    return Statement(total, sp.Rational(1, 2), "<=")


def _random_weights(rng, size):
    x = rng.normal(scale=rng.choice([0.1, 1.0, 5.0]), size=size)
    e = np.exp(x - x.max())
    return e / e.sum()


def _inf_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = -np.inf, 500
    for _ in range(trials):
        p = _random_weights(rng, int(rng.integers(1, 30)))
        jac = np.diag(p) - np.outer(p, p)  # (n, n)
        rows = np.abs(jac).sum(1)
        if not np.allclose(rows, 2 * p * (1 - p), atol=1e-14):
            return NumericResult(False, trials, seed, float(np.abs(rows - 2 * p * (1 - p)).max()), 1e-14,
                                 "row sums of |J| differ from 2 a_i (1 - a_i)")
        worst = max(worst, float(rows.max()) - 0.5)
    return NumericResult(worst <= 1e-15, trials, seed, max(worst, 0.0), 1e-15,
                         "max_i sum_j |J_ij| - 1/2 over random softmax weights (n up to 29, logit scales "
                         "0.1, 1, 5); the row sums equal 2 a_i (1 - a_i)")


register(Theorem(
    id="softmax_jacobian_inf_norm_le_half",
    title="Every row of |J| sums to 2 a_i (1 - a_i) <= 1/2: the softmax Jacobian has infinity norm at most 1/2",
    statement=_inf_statement,
    source="extension; from J = diag(a) - a a^T (seed 000, Proposition 'The softmax Jacobian')",
    hypotheses=_HYPS,
    derivation=_inf_derivation,
    dimensions=(n,),
    instances=Instances(_simplex_instance, (1, 2, 3), label="n (row 2, weights a softmax of free scores)"),
    numeric=_inf_numeric,
    plain=(
        "Row $i$ of the softmax Jacobian has the diagonal entry $a_i(1 - a_i)$ and the off-diagonal "
        "entries $-a_i a_j$. Their absolute values add up to $a_i(1 - a_i) + a_i \\sum_{j \\ne i} a_j = "
        "2 a_i (1 - a_i)$, which is at most $1/2$ (at $a_i = 1/2$). So $\\|J\\|_\\infty \\le 1/2$, and "
        "$\\|J\\|_1 \\le 1/2$ too, $J$ being symmetric."
    ),
    topic=TOPIC,
))


# ------------------------------------------------------------------------ not Lipschitz
x1, x2, t = sp.symbols("x_1 x_2 t", real=True)


def _f(index: int) -> sp.Expr:
    xs = (x1, x2)
    q = xs[index - 1]
    return sum(sp.exp(q * xj) * xj for xj in xs) / sum(sp.exp(q * xj) for xj in xs)


_notlip_statement = Statement(sp.Subs(sp.Derivative(_f(2), x2), (x1, x2), (t, 0)), t**2 / 4 + sp.Rational(1, 2))


def _notlip_numeric(seed: int) -> NumericResult:
    import torch

    worst = 0.0
    samples = 0
    for tv in np.linspace(-20.0, 20.0, 41):
        x = torch.tensor([tv, 0.0], dtype=torch.float64, requires_grad=True)  # (n,), d = 1

        def f(z):
            a_ = torch.softmax(z[:, None] * z[None, :], dim=1)  # (n, n), W_Q = W_K = W_V = 1
            return a_ @ z

        jac = torch.autograd.functional.jacobian(f, x)  # (n, n)
        worst = max(worst, abs(float(jac[1, 1]) - (tv**2 / 4 + 0.5)) / (1 + tv**2))
        samples += 1
    tol = 1e-12
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "torch.autograd Jacobian of softmax(X X^T) X at X = (t, 0), t = -20..20, entry (2, 2) "
                         "against t^2/4 + 1/2; relative error")


register(Theorem(
    id="dot_product_self_attention_not_lipschitz",
    title="Dot-product self-attention is not Lipschitz: at X = (t, 0), d f_2 / d x_2 = t^2/4 + 1/2",
    statement=_notlip_statement,
    source="extension; Kim, Papamakarios and Mnih (2021), 'The Lipschitz Constant of Self-Attention', Theorem 3.1 and its proof",
    derivation=lambda: (
        Derivation(_notlip_statement.lhs)
        .eq(sp.Subs(sp.diff(_f(2), x2), (x1, x2), (t, 0)), "differentiate", note="quotient and chain rules")
        .eq(_notlip_statement.rhs, "algebra", note="at x_1 = t, x_2 = 0 both weights are 1/2")
    ),
    numeric=_notlip_numeric,
    plain=(
        "Take two tokens of dimension 1 and $W_Q = W_K = W_V = 1$, so "
        "$f(X)_i = \\sum_j \\mathrm{softmax}_j(x_i x_j)\\, x_j$. At $X = (t, 0)$ the second token's scores "
        "are both 0, its weights both $1/2$, and the derivative of its output with respect to its own "
        "input is $t^2/4 + 1/2$. This grows without bound in $t$, so no Lipschitz constant holds on all "
        "of $\\mathbb{R}^2$: the query and the keys depend on the same input."
    ),
    notes="A concrete case, so no dimension stays symbolic; the statement holds for every real t.",
    topic=TOPIC,
))


# ------------------------------------------------------------------------ operator norm
vv = sp.IndexedBase("v", real=True)
_op_statement = Statement(
    sp.Sum(sp.Sum(_J * vv[j], (j, 1, n)) ** 2, (i, 1, n)),
    sp.Rational(1, 4) * sp.Sum(vv[j] ** 2, (j, 1, n)), "<=")


def _op_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = -np.inf, 400
    for _ in range(trials):
        p = _random_weights(rng, int(rng.integers(1, 30)))
        jac = np.diag(p) - np.outer(p, p)  # (n, n)
        worst = max(worst, float(np.linalg.norm(jac, 2)) - 0.5)
        x = rng.normal(size=p.size)
        worst = max(worst, float(np.linalg.norm(jac @ x) - 0.5 * np.linalg.norm(x)))
    # the constant is sharp: a = (1/2, 1/2), v = (1, -1) gives J v = v / 2
    sharp = np.diag([0.5, 0.5]) - np.outer([0.5, 0.5], [0.5, 0.5])
    ok_sharp = np.allclose(sharp @ np.array([1.0, -1.0]), [0.5, -0.5])
    return NumericResult(worst <= 1e-15 and ok_sharp, trials, seed, max(worst, 0.0), 1e-15,
                         "||J||_2 - 1/2 and ||J v|| - ||v||/2 over random softmax weights (n up to 29); "
                         "equality at a = (1/2, 1/2), v = (1, -1)")


register(Theorem(
    id="softmax_jacobian_operator_norm_le_half",
    title="The softmax Jacobian has operator norm at most 1/2: ||J v|| <= ||v|| / 2",
    statement=_op_statement,
    source="extension; from J = diag(a) - a a^T (seed 000, Proposition 'The softmax Jacobian')",
    hypotheses=_HYPS[1:],
    target="numerically-consistent",
    numeric=_op_numeric,
    plain=(
        "$J$ is symmetric and every row of $|J|$ sums to at most $1/2$ (softmax_jacobian_inf_norm_le_half), so by "
        "the Schur test $\\|Jv\\|^2 = \\sum_i (\\sum_j J_{ij} v_j)^2 \\le \\sum_i (\\sum_j |J_{ij}|)(\\sum_j |J_{ij}| v_j^2) "
        "\\le \\frac14 \\|v\\|^2$: softmax is $1/2$-Lipschitz in the Euclidean norm, and $1/2$ is attained at "
        "$a = (1/2, 1/2)$."
    ),
    notes=(
        "Registered at numerically-consistent: the Schur-test chain needs |sum_j J_ij v_j| <= sum_j |J_ij| |v_j| under "
        "a square, a Cauchy-Schwarz step with the weights sqrt|J_ij|, and the column sums of |J| by symmetry; the "
        "first is not a shape any rule accepts yet. The row-sum bound it rests on is proved."
    ),
    topic=TOPIC,
))
