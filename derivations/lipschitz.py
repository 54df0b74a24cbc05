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
a = sp.IndexedBase("a", nonnegative=True)  # weights on the simplex; masked keys have a_j = 0

_J = a[i] * (sp.KroneckerDelta(i, j) - a[j])  # J_ij
_SIMPLEX = Equation("simplex_j", lhs=sp.Sum(a[j], (j, 1, n)), rhs=sp.S.One)
_HYPS = (IndexRange("row", index=i, lower=1, upper=n), _SIMPLEX)
_inf_statement = Statement(sp.Sum(sp.Abs(_J), (j, 1, n)), sp.Rational(1, 2), "<=")
_row_statement = Statement(sp.Sum(sp.Abs(_J), (j, 1, n)), 2 * a[i] * (1 - a[i]))


def _abs_sum_derivation(free, bound, total) -> Derivation:
    """sum_{bound} |a_row (delta - a_col)| <= 1/2 along a row (bound = j) or a column (bound = the row
    index): the diagonal term a(1 - a), the others a_free a_bound, and sum_{bound != free} a = 1 - a_free."""
    def S(lo, hi, f=a[bound]):
        return sp.Sum(f, (bound, lo, hi))

    term = total.function
    absJ = sp.Abs(term)
    diag = sp.Abs(a[free] * (1 - a[free]))
    off = a[free] * a[bound]
    low, high = S(1, free - 1), S(free + 1, n)
    simplex = f"simplex_{bound}"
    return (
        Derivation(total)
        .eq(S(1, free - 1, absJ) + S(free, n, absJ), "range_split", at=free - 1,
            note="before the diagonal, and from it on")
        .eq(S(1, free - 1, absJ) + diag + S(free + 1, n, absJ), "range_split", at=free,
            note="the diagonal term $a(1 - a)$")
        .eq(S(1, free - 1, off) + diag + S(free + 1, n, off), "delta_by_range",
            note=r"off the diagonal $\delta = 0$ and $|-a_i a_j| = a_i a_j$")
        .eq(S(1, free - 1, off) + sp.Abs(a[free] * (S(1, n) - a[free])) + S(free + 1, n, off), "substitute",
            using=simplex, note="$1 =$ the sum of the weights")
        .eq(S(1, free - 1, off) + sp.Abs(a[free] * (S(1, free - 1) + S(free, n) - a[free])) + S(free + 1, n, off),
            "range_split", at=free - 1, note="split the sum at the diagonal")
        .eq(S(1, free - 1, off) + sp.Abs(a[free] * (low + high)) + S(free + 1, n, off), "range_split", at=free,
            note="the diagonal weight cancels: $1 - a$ is the sum of the other weights")
        .eq(S(1, free - 1, off) + a[free] * (low + high) + S(free + 1, n, off), "abs_by_sign",
            note="a sum of positive weights over a range that is not reversed is nonnegative")
        .eq(2 * a[free] * (low + high), "sum_linearity", note="the diagonal weight leaves the sums")
        .eq(2 * a[free] * (low + S(free, n) - a[free]), "range_join", at=free, note="put the diagonal weight back")
        .eq(2 * a[free] * (S(1, n) - a[free]), "range_join", at=free - 1, note="join the ranges")
        .eq(2 * a[free] * (1 - a[free]), "substitute", using=simplex, note="the weights sum to $1$")
    )


def _half_derivation(total, free, equality, mapping=None) -> Derivation:
    """sum |J| <= 1/2 from the equality theorem: 2 a (1 - a) <= 1/2."""
    return (
        Derivation(total)
        .eq(2 * a[free] * (1 - a[free]), "apply_theorem", theorem=equality, mapping=mapping,
            note=r"the sum is $2 a (1 - a)$")
        .le(sp.Rational(1, 2), "inequality", witness=2 * (a[free] - sp.Rational(1, 2)) ** 2,
            note=r"$1/2 - 2 a (1 - a) = 2 (a - 1/2)^2 \ge 0$")
    )


def _inf_derivation() -> Derivation:
    return _half_derivation(_inf_statement.lhs, i, "softmax_jacobian_row_abs_sum")


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
    id="softmax_jacobian_row_abs_sum",
    title=r"Row $i$ of $|J|$ sums to exactly $2 a_i (1 - a_i)$, for any weights $a \ge 0$ summing to $1$",
    claim=r"For weights $a_1, \dots, a_n \ge 0$ with $\sum_j a_j = 1$ (masked keys allowed), "
          r"$\sum_j |a_i(\delta_{ij} - a_j)| = 2 a_i (1 - a_i)$.",
    statement=_row_statement,
    source=r"extension; from $J = \operatorname{diag}(a) - a a^\top$ (seed 000, Proposition 'The softmax Jacobian')",
    hypotheses=_HYPS,
    derivation=lambda: _abs_sum_derivation(i, j, _row_statement.lhs),
    dimensions=(n,),
    numeric=_inf_numeric,
    plain=(
        "Row $i$ of the softmax Jacobian has the diagonal entry $a_i(1 - a_i)$ and the off-diagonal "
        "entries $-a_i a_j$. Their absolute values add up to $a_i(1 - a_i) + a_i \\sum_{j \\ne i} a_j = "
        "2 a_i (1 - a_i)$. Only $a \\ge 0$ and $\\sum_j a_j = 1$ are used, so masked keys ($a_j = 0$) are allowed."
    ),
    topic=TOPIC,
))

register(Theorem(
    id="softmax_jacobian_inf_norm_le_half",
    title=r"Every row of $|J|$ sums to at most $1/2$: the softmax Jacobian has infinity norm at most $1/2$ "
          r"(weights $a \ge 0$)",
    claim=r"For every row $i$ and any weights $a \ge 0$ summing to $1$, $\sum_j |J_{ij}| = 2a_i(1 - a_i) \le 1/2$, "
          r"so $\lVert J \rVert_\infty \le 1/2$.",
    statement=_inf_statement,
    source=r"extension; from $J = \operatorname{diag}(a) - a a^\top$ (seed 000, Proposition 'The softmax Jacobian')",
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


# ------------------------------------------------------------------------ columns
kc = sp.Symbol("k", integer=True, positive=True)  # the column
lc = sp.Symbol("l", integer=True)  # the row, summed
_col_statement = Statement(sp.Sum(sp.Abs(a[lc] * (sp.KroneckerDelta(lc, kc) - a[kc])), (lc, 1, n)), sp.Rational(1, 2),
                           "<=")
_col_eq_statement = Statement(_col_statement.lhs, 2 * a[kc] * (1 - a[kc]))
_COL_HYPS = (IndexRange("column", index=kc, lower=1, upper=n),
             Equation("simplex_l", lhs=sp.Sum(a[lc], (lc, 1, n)), rhs=sp.S.One))


def _col_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = -np.inf, 300
    for _ in range(trials):
        p = _random_weights(rng, int(rng.integers(1, 30)))
        cols = np.abs(np.diag(p) - np.outer(p, p)).sum(0)
        worst = max(worst, float(cols.max()) - 0.5)
    return NumericResult(worst <= 1e-15, trials, seed, max(worst, 0.0), 1e-15,
                         "max_k sum_l |J_lk| - 1/2 over random softmax weights")


register(Theorem(
    id="softmax_jacobian_column_abs_sum",
    title=r"Column $k$ of $|J|$ sums to exactly $2 a_k (1 - a_k)$, for any weights $a \ge 0$ summing to $1$",
    claim=r"For weights $a \ge 0$ with $\sum_l a_l = 1$, $\sum_l |a_l(\delta_{lk} - a_k)| = 2 a_k (1 - a_k)$.",
    statement=_col_eq_statement,
    source=r"extension; from $J = \operatorname{diag}(a) - a a^\top$ (seed 000, Proposition 'The softmax Jacobian')",
    hypotheses=_COL_HYPS,
    derivation=lambda: _abs_sum_derivation(kc, lc, _col_statement.lhs),
    dimensions=(n,),
    numeric=_col_numeric,
    plain="The same count down a column: $|J_{kk}| + \\sum_{l \\ne k} a_l a_k = 2 a_k (1 - a_k)$ ($J$ is symmetric).",
    topic=TOPIC,
))

register(Theorem(
    id="softmax_jacobian_column_abs_sum_le_half",
    title=r"Every column of $|J|$ sums to at most $1/2$ (weights $a \ge 0$)",
    claim=r"For every column $k$ and any weights $a \ge 0$ summing to $1$, $\sum_l |J_{lk}| = 2a_k(1 - a_k) \le 1/2$.",
    statement=_col_statement,
    source=r"extension; from $J = \operatorname{diag}(a) - a a^\top$ (seed 000, Proposition 'The softmax Jacobian')",
    hypotheses=_COL_HYPS,
    derivation=lambda: _half_derivation(_col_statement.lhs, kc, "softmax_jacobian_column_abs_sum"),
    dimensions=(n,),
    numeric=_col_numeric,
    plain="The same count down a column: $|J_{kk}| + \\sum_{l \\ne k} a_l a_k = 2 a_k (1 - a_k) \\le 1/2$ ($J$ is "
          "symmetric).",
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
    def f(z):  # softmax(X X^T) X for n = 2, d = 1, W_Q = W_K = W_V = 1; works for complex z
        s_ = z[:, None] * z[None, :]  # (n, n)
        e_ = np.exp(s_ - s_.real.max(1, keepdims=True))
        return (e_ / e_.sum(1, keepdims=True)) @ z  # (n,)

    worst, samples, step = 0.0, 0, 1e-30
    for tv in np.linspace(-20.0, 20.0, 41):
        # complex-step derivative: Im f(x + i h e_2) / h is d f / d x_2 to rounding, no cancellation
        z = np.array([tv, 0.0], dtype=complex) + np.array([0.0, 1j * step])
        deriv = float(f(z)[1].imag / step)
        worst = max(worst, abs(deriv - (tv**2 / 4 + 0.5)) / (1 + tv**2))
        samples += 1
    tol = 1e-12
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "complex-step derivative of softmax(X X^T) X at X = (t, 0), t = -20..20, entry (2, 2) "
                         "against t^2/4 + 1/2; relative error")


register(Theorem(
    id="dot_product_self_attention_not_lipschitz",
    title=r"Dot-product self-attention is not Lipschitz: at $X = (t, 0)$, $\partial f_2 / \partial x_2 = t^2/4 + 1/2$",
    statement=_notlip_statement,
    source="extension; Kim, Papamakarios and Mnih (2021), 'The Lipschitz Constant of Self-Attention', Theorem 3.1 and "
           "its proof",
    derivation=lambda: (
        Derivation(_notlip_statement.lhs)
        .eq(sp.Subs(sp.diff(_f(2), x2), (x1, x2), (t, 0)), "differentiate", note="quotient and chain rules")
        .eq(_notlip_statement.rhs, "algebra", note="at $x_1 = t$, $x_2 = 0$ both weights are $1/2$")
    ),
    numeric=_notlip_numeric,
    plain=(
        "Take two tokens of dimension 1 and $W_Q = W_K = W_V = 1$, so "
        "$f(X)_i = \\sum_j \\mathrm{softmax}_j(x_i x_j)\\, x_j$. At $X = (t, 0)$ the second token's scores "
        "are both 0, its weights both $1/2$, and the derivative of its output with respect to its own "
        "input is $t^2/4 + 1/2$. This grows without bound in $t$, so no Lipschitz constant holds on all "
        "of $\\mathbb{R}^2$: the query and the keys depend on the same input."
    ),
    notes="A concrete case, so no dimension stays symbolic; the statement holds for every real $t$.",
    topic=TOPIC,
))


# ------------------------------------------------------------------------ operator norm
vv = sp.IndexedBase("v", real=True)
jp = sp.Symbol("j", integer=True, positive=True)  # a column index, summed over 1..n (so positive)
_Jp = a[i] * (sp.KroneckerDelta(i, jp) - a[jp])
_op_statement = Statement(
    sp.Sum(sp.Sum(_Jp * vv[jp], (jp, 1, n)) ** 2, (i, 1, n)),
    sp.Rational(1, 4) * sp.Sum(vv[jp] ** 2, (jp, 1, n)), "<=")


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


def _op_derivation() -> Derivation:
    absJ = sp.Abs(_Jp)
    row_abs = sp.Sum(absJ, (jp, 1, n))
    weighted = sp.Sum(absJ * vv[jp] ** 2, (jp, 1, n))
    summand = (
        Derivation(sp.Sum(_Jp * vv[jp], (jp, 1, n)) ** 2)
        .le(sp.Sum(absJ * sp.Abs(vv[jp]), (jp, 1, n)) ** 2, "triangle_inequality",
            note=r"$|\sum| \le \sum |\cdot|$, squared")
        .le(row_abs * weighted, "weighted_cauchy_schwarz", weight=absJ, values=sp.Abs(vv[jp]),
            note=r"Cauchy-Schwarz with $\sqrt{|J_{ij}|}$ and $\sqrt{|J_{ij}|}\, |v_j|$")
        .le(sp.Rational(1, 2) * weighted, "monotone_step", at=row_abs,
            proof=Derivation(row_abs).le(sp.Rational(1, 2), "apply_theorem",
                                         theorem="softmax_jacobian_inf_norm_le_half"),
            note="the row sums of $|J|$ are at most $1/2$")
    )
    col_abs = sp.Sum(sp.Abs(a[i] * (sp.KroneckerDelta(i, jp) - a[jp])), (i, 1, n))
    column = (
        Derivation(vv[jp] ** 2 * col_abs)
        .le(vv[jp] ** 2 * sp.Rational(1, 2), "monotone_step", at=col_abs,
            proof=Derivation(col_abs).le(sp.Rational(1, 2), "apply_theorem",
                                         theorem="softmax_jacobian_column_abs_sum_le_half", mapping={kc: jp}),
            note="the column sums of $|J|$ are at most $1/2$")
    )
    return (
        Derivation(_op_statement.lhs)
        .le(sp.Sum(sp.Rational(1, 2) * weighted, (i, 1, n)), "monotone_step", at=_op_statement.lhs, proof=summand,
            note="row by row: the Schur test")
        .eq(sp.Rational(1, 2) * sp.Sum(sp.Sum(absJ * vv[jp] ** 2, (jp, 1, n)), (i, 1, n)), "sum_linearity",
            note="$1/2$ leaves the sum")
        .eq(sp.Rational(1, 2) * sp.Sum(sp.Sum(absJ * vv[jp] ** 2, (i, 1, n)), (jp, 1, n)), "sum_interchange",
            note="sum over the columns outside")
        .eq(sp.Rational(1, 2) * sp.Sum(vv[jp] ** 2 * col_abs, (jp, 1, n)), "sum_linearity",
            note="$v_j^2$ leaves the inner sum")
        .le(sp.Rational(1, 2) * sp.Sum(vv[jp] ** 2 * sp.Rational(1, 2), (jp, 1, n)), "monotone_step",
            at=sp.Sum(vv[jp] ** 2 * col_abs, (jp, 1, n)), proof=column, note="column by column")
        .eq(_op_statement.rhs, "sum_linearity", note="collect")
    )


register(Theorem(
    id="softmax_jacobian_operator_norm_le_half",
    title=r"The softmax Jacobian has operator norm at most $1/2$: $\lVert J v \rVert^2 \le \lVert v \rVert^2 / 4$",
    statement=_op_statement,
    source=r"extension; from $J = \operatorname{diag}(a) - a a^\top$ (seed 000, Proposition 'The softmax Jacobian')",
    hypotheses=(Equation("simplex_j", lhs=sp.Sum(a[jp], (jp, 1, n)), rhs=sp.S.One),
                Equation("simplex_l", lhs=sp.Sum(a[lc], (lc, 1, n)), rhs=sp.S.One)),
    derivation=_op_derivation,
    dimensions=(n,),
    numeric=_op_numeric,
    plain=(
        "Row by row, $(\\sum_j J_{ij} v_j)^2 \\le (\\sum_j |J_{ij}|)(\\sum_j |J_{ij}| v_j^2) \\le \\frac12 \\sum_j "
        "|J_{ij}| v_j^2$ (Cauchy-Schwarz with the weights $|J_{ij}|$, then the row sums of $|J|$). Summing over $i$ "
        "and using the column sums, $\\|Jv\\|^2 \\le \\frac14 \\|v\\|^2$: softmax is $1/2$-Lipschitz in the Euclidean "
        "norm (the Schur test), and $1/2$ is attained at $a = (1/2, 1/2)$, $v = (1, -1)$."
    ),
    topic=TOPIC,
))
