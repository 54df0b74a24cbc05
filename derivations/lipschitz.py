r"""Lipschitz facts: softmax is 1/2-Lipschitz, dot-product self-attention is not Lipschitz
=======================================================================================

The softmax Jacobian ``J = diag(a) - a a^T`` (theorem ``softmax_jacobian``) has entries
``J_ij = a_i (delta_ij - a_j)`` for weights ``a`` on the simplex. Its rows are small in the
``l1`` sense; symmetric, so its operator norm is at most ``1/2`` as well. Self-attention with
the *same* input feeding queries, keys and values has no such bound.

Main results
------------
* ``softmax_jacobian_row_abs_sum``, ``softmax_jacobian_column_abs_sum``: for weights ``a >= 0`` summing
  to 1 (masked keys allowed), every row and column of ``|J|`` sums to exactly ``2 a_i (1 - a_i)``.
* ``softmax_jacobian_inf_norm_le_half``, ``softmax_jacobian_column_abs_sum_le_half``: so at most ``1/2``.
* ``softmax_jacobian_operator_norm_le_half``: ``||J v|| <= ||v|| / 2``.
* ``dot_product_self_attention_jacobian_unbounded``: for ``n = 2, d = 1`` and unit weights,
  ``f(X)_i = sum_j softmax_j(x_i x_j) x_j``; at ``X = (t, 0)``, ``d f_2 / d x_2 = t^2/4 + 1/2``,
  unbounded in ``t``.
* ``dot_product_self_attention_not_lipschitz``: for every ``n >= 2``, ``d >= 1`` and every ``L``, explicit
  ``X, Y`` with ``||f(X) - f(Y)|| > L ||X - Y||`` (numerically consistent; the derivation is not yet
  supported by the rules).

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
from symattn.engine.theorem import NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, Equation, IndexRange, Statement

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


_jac_statement = Statement(sp.Subs(sp.Derivative(_f(2), x2), (x1, x2), (t, 0)), t**2 / 4 + sp.Rational(1, 2))


def _jac_numeric(seed: int) -> NumericResult:
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
    id="dot_product_self_attention_jacobian_unbounded",
    title=r"For two tokens of width $1$, the self-attention Jacobian entry $\partial f_2 / \partial x_2$ at "
          r"$X = (t, 0)$ is $t^2/4 + 1/2$, unbounded in $t$",
    claim=r"For $n = 2$, $d = 1$ and $W_Q = W_K = W_V = 1$, $f(X)_i = \sum_j \operatorname{softmax}_j(x_i x_j)\, x_j$ "
          r"has $\partial f_2/\partial x_2 = t^2/4 + 1/2$ at $X = (t, 0)$ for every real $t$.",
    statement=_jac_statement,
    source="extension; Kim, Papamakarios and Mnih (2021), 'The Lipschitz Constant of Self-Attention', Theorem 3.1 and "
           "its proof",
    derivation=lambda: (
        Derivation(_jac_statement.lhs)
        .eq(sp.Subs(sp.diff(_f(2), x2), (x1, x2), (t, 0)), "differentiate", note="quotient and chain rules")
        .eq(_jac_statement.rhs, "algebra", note="at $x_1 = t$, $x_2 = 0$ both weights are $1/2$")
    ),
    numeric=_jac_numeric,
    plain=(
        "Take two tokens of dimension 1 and $W_Q = W_K = W_V = 1$, so "
        "$f(X)_i = \\sum_j \\mathrm{softmax}_j(x_i x_j)\\, x_j$. At $X = (t, 0)$ the second token's scores "
        "are both 0, its weights both $1/2$, and the derivative of its output with respect to its own "
        "input is $t^2/4 + 1/2$, which grows without bound in $t$: the query and the keys depend on the same "
        "input. A map with an unbounded partial derivative is not Lipschitz (by the mean value theorem), which "
        "dot_product_self_attention_not_lipschitz states directly, for any $n \\ge 2$ and $d \\ge 1$."
    ),
    notes="One concrete size ($n = 2$, $d = 1$), stated for every real $t$; the step from an unbounded derivative to "
          "non-Lipschitzness is not formalised here.",
    topic=TOPIC,
))

# For every L, witnesses X, Y in R^{n x d} (unit weights, no scaling): rows 1 and 2 only, first coordinate only.
# Row 2 is -u e_1 in X and +u e_1 in Y with u^2 = log 2 (so e^{u^2} = 2), row 1 is t e_1 with t u = log(lam)
# (so e^{+-t u} = lam^{+-1}): f(Y)_{21} = (lam t + 2u)/(lam + n), f(X)_{21} = (t - 2 lam u)/(1 + n lam).
# With lam = n 2^{7|L|} >= n >= 2 their gap is at least 3t/10, and 3t/10 > 2|L| u = |L| ||X - Y||.
nn, dd = sp.symbols("n d", integer=True, positive=True)
Lc = sp.Symbol("L", real=True)
ri, ck, rj, rl, rr = sp.symbols("i k j l r", integer=True, positive=True)
_u = sp.sqrt(sp.log(2))
_lam = nn * 2 ** (7 * sp.Abs(Lc))
_t = sp.log(_lam) / _u


def _witness(sign):
    """Entry (row, col) of X (sign = -1) or Y (sign = +1)."""
    return lambda row, col: (_t * sp.KroneckerDelta(row, 1) + sign * _u * sp.KroneckerDelta(row, 2)) \
        * sp.KroneckerDelta(col, 1)


def _self_attention(Z, row, col):
    """Entry (row, col) of softmax(Z Z^T) Z, Z an n x d matrix given entrywise."""
    def score(a_, b_):
        return sp.Sum(Z(a_, rl) * Z(b_, rl), (rl, 1, dd))

    return sp.Sum(sp.exp(score(row, rj)) * Z(rj, col), (rj, 1, nn)) / sp.Sum(sp.exp(score(row, rr)), (rr, 1, nn))


_X, _Y = _witness(-1), _witness(+1)
_notlip_statement = Statement(
    sp.Sum((_self_attention(_X, ri, ck) - _self_attention(_Y, ri, ck)) ** 2, (ri, 1, nn), (ck, 1, dd)),
    Lc**2 * sp.Sum((_X(ri, ck) - _Y(ri, ck)) ** 2, (ri, 1, nn), (ck, 1, dd)), ">")


def _notlip_numeric(seed: int) -> NumericResult:
    def attend(z):  # softmax(Z Z^T) Z, row-stable
        s_ = z @ z.T  # (n, n)
        e_ = np.exp(s_ - s_.max(1, keepdims=True))
        return (e_ / e_.sum(1, keepdims=True)) @ z  # (n, d)

    rng = np.random.default_rng(seed)
    worst, samples = -np.inf, 0
    u = float(np.sqrt(np.log(2.0)))
    for _ in range(300):
        n_, d_ = int(rng.integers(2, 12)), int(rng.integers(1, 6))
        big = float(rng.choice([0.0, 0.3, 1.0, 3.0, 6.0]))
        lip = float(rng.uniform(-big, big))
        t_ = (np.log(n_) + 7 * abs(lip) * np.log(2.0)) / u
        x = np.zeros((n_, d_))
        x[0, 0] = t_
        y = x.copy()
        x[1, 0], y[1, 0] = -u, u
        lhs = float(((attend(x) - attend(y)) ** 2).sum())
        rhs = lip**2 * float(((x - y) ** 2).sum())
        worst = max(worst, (rhs - lhs) / lhs)  # must be negative: lhs > rhs
        samples += 1
    return NumericResult(worst < 0, samples, seed, max(worst, 0.0), 0.0,
                         "||f(X) - f(Y)||^2 against L^2 ||X - Y||^2 at the witnesses, float64 with a row-stable "
                         "softmax, n in 2..11, d in 1..5, |L| up to 6; largest (rhs - lhs)/lhs (< 0 needed)")


register(Theorem(
    id="dot_product_self_attention_not_lipschitz",
    title=r"Dot-product self-attention is not Lipschitz: for every $L$ there are $X, Y \in \mathbb{R}^{n \times d}$ "
          r"with $\lVert f(X) - f(Y)\rVert > L \lVert X - Y \rVert$ ($n \ge 2$, $d \ge 1$)",
    claim=r"For every $n \ge 2$, $d \ge 1$ and every real $L$, the map $f(X) = \operatorname{softmax}(X X^\top) X$ on "
          r"$\mathbb{R}^{n \times d}$ has explicit $X, Y$ (depending on $L$) with $\lVert f(X) - f(Y)\rVert_F^2 > "
          r"L^2 \lVert X - Y\rVert_F^2$.",
    statement=_notlip_statement,
    source="extension; Kim, Papamakarios and Mnih (2021), 'The Lipschitz Constant of Self-Attention', Theorem 3.1",
    target="numerically-consistent",
    hypotheses=(Assumption("two_tokens", condition=sp.Ge(nn, 2), text=r"$n \ge 2$ tokens"),
                Assumption("width", condition=sp.Ge(dd, 1), text=r"$d \ge 1$ features"),
                Assumption("any_constant", condition=sp.Q.real(Lc), text="$L$ is any real number")),
    numeric=_notlip_numeric,
    plain=(
        "Take $W_Q = W_K = W_V = I$, so $f(X) = \\operatorname{softmax}(X X^\\top) X$ row by row, and put "
        "$u = \\sqrt{\\log 2}$, $\\lambda = n\\, 2^{7|L|}$, $t = \\log(\\lambda)/u$. Let $X$ and $Y$ have first row "
        "$t e_1$, second row $-u e_1$ and $+u e_1$, and zero rows otherwise, so $\\lVert X - Y\\rVert = 2u$. The "
        "scores of the second row are exact: $e^{\\pm t u} = \\lambda^{\\pm 1}$ and $e^{u^2} = 2$, giving "
        "$f(Y)_{21} = (\\lambda t + 2u)/(\\lambda + n)$ and $f(X)_{21} = (t - 2\\lambda u)/(1 + n\\lambda)$. For "
        "$\\lambda \\ge n \\ge 2$ the first is at least $t/2$ and the second at most $t/5$, so "
        "$\\lVert f(X) - f(Y)\\rVert \\ge 3t/10 > 2|L| u = |L| \\lVert X - Y\\rVert$, since "
        "$\\log \\lambda = \\log n + 7|L| \\log 2 > (20/3) |L| \\log 2$. No $L$ is a Lipschitz constant: a query "
        "and the keys it meets move together."
    ),
    notes=(
        "The statement is the theorem itself, for symbolic $n$, $d$ and $L$, with the witnesses written out; its "
        "verdict is only numerically-consistent. The two entries of the second output row at the witnesses are "
        "proved for symbolic $n$ and $d$ (dot_product_self_attention_witness_entry with $u = \\pm\\sqrt{\\log 2}$, "
        "through dot_product_self_attention_witness_normaliser); what is not yet formalised is the rest of the "
        "argument in the plain statement: dropping the other squares of the norm and the inequality between "
        "logarithms and exponentials with $|L|$. dot_product_self_attention_jacobian_unbounded proves the "
        "unbounded derivative at $n = 2$, $d = 1$. Kim et al. prove the theorem for multi-head attention and any "
        "$p$-norm; "
        "this is the single head with identity weights and without the $1/\\sqrt{d}$ scale (a scale only rescales "
        "the witnesses)."
    ),
    topic=TOPIC,
))


# The entry of f(X) at the witnesses that the argument above uses, for symbolic n and d: row p (any
# p in 2..n) of X is -u e_1, row 1 is t e_1, the rest zero. The number of tokens is written n = m + 2
# (m >= 0), so that "2 lies in 1..n" and "n - 2 >= 0" are visible to the kernel's range and sign tests.
_m = sp.Symbol("m", integer=True, nonnegative=True)
_n2 = _m + 2
_p = sp.Symbol("p", integer=True, positive=True)
_ur, _tr = sp.symbols("u t", real=True)


def _row_witness(row, col):
    return (_tr * sp.KroneckerDelta(row, 1) - _ur * sp.KroneckerDelta(row, _p)) * sp.KroneckerDelta(col, 1)


_entry_lhs = _self_attention(_row_witness, _p, 1).xreplace({nn: _n2})
_entry_rhs = (_tr * sp.exp(-_ur * _tr) - _ur * sp.exp(_ur**2)) / (sp.exp(-_ur * _tr) + sp.exp(_ur**2) + _n2 - 2)
_entry_statement = Statement(_entry_lhs, _entry_rhs)


def _term(r):
    """A key's weight (before normalising) in row p at the witness, as the kernel writes it."""
    return sp.exp(_ur**2 * sp.KroneckerDelta(r, _p)) * sp.exp(-_tr * _ur * sp.KroneckerDelta(1, r))


def _terms(lo, hi, body=None):
    return sp.Sum(_term(rr) if body is None else body, (rr, lo, hi))


_norm_statement = Statement(_terms(1, _n2), sp.exp(-_ur * _tr) + sp.exp(_ur**2) + _n2 - 2)


def _norm_derivation() -> Derivation:
    return (
        Derivation(_norm_statement.lhs)
        .eq(_term(1) + _terms(2, _n2), "range_split", at=1, note="the first key")
        .eq(_term(1) + _terms(2, _p - 1) + _terms(_p, _n2), "range_split", at=_p - 1, note="the keys before $p$")
        .eq(_term(1) + _terms(2, _p - 1) + _term(_p) + _terms(_p + 1, _n2), "range_split", at=_p, note="the key $p$")
        .eq(sp.exp(-_tr * _ur) + _terms(2, _p - 1, sp.S.One) + sp.exp(_ur**2) + _terms(_p + 1, _n2, sp.S.One),
            "delta_by_range", note=r"the other keys have score $0$: weight $e^0 = 1$; $\delta_{1p} = 0$")
        .eq(_norm_statement.rhs, "sum_evaluate", note="$n - 2$ of them")
    )


def _entry_derivation() -> Derivation:
    KD = sp.KroneckerDelta
    no_self_delta = _entry_lhs.replace(lambda e: e in (KD(_p, 1), KD(1, _p)), lambda e: sp.S.Zero)
    raw = _tr * sp.exp(-_tr * _ur) * sp.exp(_ur**2 * KD(1, _p)) - _ur * sp.exp(_ur**2) * sp.exp(-_tr * _ur * KD(1, _p))
    num = _tr * sp.exp(-_tr * _ur) - _ur * sp.exp(_ur**2)
    return (
        Derivation(_entry_lhs)
        .eq(no_self_delta, "delta_by_range", note=r"row $p \ge 2$ is not row $1$: $\delta_{p1} = 0$")
        .eq(raw / _terms(1, _n2), "sum_evaluate",
            note=r"the scores are $\sum_l X_{pl} X_{jl} = -u (t \delta_{j1} - u \delta_{jp})$, and the numerator's "
                 r"sum over $j$ picks the rows $1$ and $p$")
        .eq(num / _terms(1, _n2), "delta_by_range", note=r"$\delta_{1p} = 0$ again")
        .eq(_entry_rhs, "apply_theorem", theorem="dot_product_self_attention_witness_normaliser",
            note="the normaliser of row $p$")
    )


def _entry_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    for _ in range(200):
        n_, d_ = int(rng.integers(2, 12)), int(rng.integers(1, 6))
        p_ = int(rng.integers(2, n_ + 1))
        t_, u_ = rng.normal(scale=3.0, size=2)
        x = np.zeros((n_, d_))
        x[0, 0], x[p_ - 1, 0] = t_, -u_
        s_ = x @ x.T  # (n, n)
        e_ = np.exp(s_ - s_.max(1, keepdims=True))
        got = ((e_ / e_.sum(1, keepdims=True)) @ x)[p_ - 1, 0]
        want = (t_ * np.exp(-u_ * t_) - u_ * np.exp(u_**2)) / (np.exp(-u_ * t_) + np.exp(u_**2) + n_ - 2)
        worst = max(worst, abs(got - want) / (1 + abs(want)))
        samples += 1
    tol = 1e-12
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "entry (p, 1) of softmax(X X^T) X at the witness (numpy, row-stable) against the closed form, "
                         "n in 2..11, d in 1..5, t, u normal of scale 3; relative error")


register(Theorem(
    id="dot_product_self_attention_witness_normaliser",
    title=r"At the same $X$, row $p$'s softmax normaliser is $e^{-ut} + e^{u^2} + n - 2$",
    claim=r"For every $n = m + 2 \ge 2$, row $p \in \{2, \dots, n\}$ and real $t, u$, "
          r"$\sum_{r=1}^{n} e^{u^2 \delta_{rp}} e^{-tu \delta_{1r}} = e^{-ut} + e^{u^2} + n - 2$.",
    statement=_norm_statement,
    source="extension; the computation behind dot_product_self_attention_not_lipschitz",
    hypotheses=(IndexRange("second_row", index=_p, lower=2, upper=_n2),),
    derivation=_norm_derivation,
    dimensions=(_m,),
    plain="Key $1$ has weight $e^{-ut}$, key $p$ weight $e^{u^2}$, and each of the other $n - 2$ keys weight "
          "$e^0 = 1$.",
    topic=TOPIC,
))

register(Theorem(
    id="dot_product_self_attention_witness_entry",
    title=r"At $X$ with row $1$ equal to $t e_1$ and row $p$ to $-u e_1$, entry $(p, 1)$ of "
          r"$\operatorname{softmax}(XX^\top)X$ is $(t e^{-ut} - u e^{u^2})/(e^{-ut} + e^{u^2} + n - 2)$",
    claim=r"For every $n \ge 2$ (written $m + 2$), $d \ge 1$, row $p \in \{2, \dots, n\}$ and real $t, u$, "
          r"the matrix $X$ with row $1$ equal to $t e_1$, row $p$ to $-u e_1$ and zeros elsewhere has "
          r"$(\operatorname{softmax}(XX^\top)X)_{p1} = (t e^{-ut} - u e^{u^2})/(e^{-ut} + e^{u^2} + n - 2)$.",
    statement=_entry_statement,
    source="extension; the computation behind dot_product_self_attention_not_lipschitz (Kim, Papamakarios and Mnih "
           "(2021), Theorem 3.1)",
    hypotheses=(IndexRange("second_row", index=_p, lower=2, upper=_n2),),
    derivation=_entry_derivation,
    dimensions=(_m, dd),
    numeric=_entry_numeric,
    plain=(
        "Row $p$'s scores against the keys are $\\langle x_p, x_j\\rangle$: $-ut$ for key $1$, $u^2$ for itself and "
        "$0$ for the other $n - 2$ keys, whose values are zero. So its output's first coordinate is "
        "$(t e^{-ut} - u e^{u^2})/(e^{-ut} + e^{u^2} + n - 2)$, for any $n \\ge 2$, any width $d$ and any row "
        "$p \\ge 2$. "
        "With $u \\to -u$ it gives the other witness $Y$: these are the two numbers whose gap "
        "dot_product_self_attention_not_lipschitz bounds below."
    ),
    notes="The number of tokens is written $n = m + 2$ with $m \\ge 0$, so that the kernel sees $n \\ge 2$ in the "
          "ranges and signs; an assumption '$n \\ge 2$' is not used by its range tests.",
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
    claim=r"For any weights $a \ge 0$ summing to $1$ and any real $v$, $\lVert J v\rVert^2 \le \lVert v\rVert^2/4$ "
          r"with $J = \operatorname{diag}(a) - aa^\top$.",
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
