"""symattn.rules.cauchy_schwarz: (sum x y)^2 <= (sum x^2)(sum y^2), accepted only when it is one."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.language.statement import IndexRange
from symattn.rules import ProofContext, check_step

n = sp.Symbol("n", integer=True, positive=True)
i, k, p = sp.symbols("i k p", integer=True, positive=True)
r = sp.Symbol("r", integer=True)
x, y = sp.IndexedBase("x", real=True), sp.IndexedBase("y", real=True)
z = sp.IndexedBase("z")  # no assumptions: possibly complex
A = sp.IndexedBase("A", real=True)


def S(expr, idx, lo=1, hi=n):
    return sp.Sum(expr, (idx, lo, hi))


def check(lhs, rhs, relation="<=", hypotheses=()):
    return check_step(lhs, rhs, relation, "cauchy_schwarz", {}, ProofContext(hypotheses=hypotheses))


@pytest.mark.parametrize(
    "lhs, rhs, relation",
    [
        (S(x[k] * y[k], k) ** 2, S(x[k] ** 2, k) * S(y[k] ** 2, k), "<="),
        (S(x[k] * y[k], k) ** 2, S(y[p] ** 2, p) * S(x[k] ** 2, k), "<="),  # other names, other order
        (S(x[k] ** 2, k) * S(y[k] ** 2, k), S(x[k] * y[k], k) ** 2, ">="),
        (S(x[k] * y[k] + x[k], k) ** 2, S(x[k] ** 2, k) * S((y[k] + 1) ** 2, k), "<="),  # summand x (y + 1)
        # a matrix-vector product, row by row: sum_i (sum_k A_ik x_k)^2 <= sum_i (sum_k A_ik^2)(sum_k x_k^2)
        (S(S(A[i, k] * x[k], k) ** 2, i), S(S(A[i, k] ** 2, k) * S(x[k] ** 2, k), i), "<="),
    ],
)
def test_cauchy_schwarz_accepts_its_instances(lhs, rhs, relation):
    res = check(lhs, rhs, relation)
    assert res.ok, res.reason


def test_cauchy_schwarz_accepts_a_range_known_from_an_index_range_hypothesis():
    lhs = S(x[k] * y[k], k, 1, r) ** 2
    rhs = S(x[k] ** 2, k, 1, r) * S(y[k] ** 2, k, 1, r)
    assert check(lhs, rhs).status is Level.FAIL  # r could be -5: the range is not known to be well formed
    assert check(lhs, rhs, hypotheses=(IndexRange("r_range", index=r, lower=0, upper=n),)).ok


@pytest.mark.parametrize(
    "lhs, rhs, relation, why",
    [
        (S(x[k] ** 2, k) * S(y[k] ** 2, k), S(x[k] * y[k], k) ** 2, "<=", "the wrong way round"),
        (S(x[k] * y[k], k) ** 2, S(x[k] ** 2, k) * S(y[k] ** 2, k), "<", "strict (equality when x ~ y)"),
        (S(x[k] * y[k], k) ** 2, S(x[k] ** 2, k) * S(y[k], k), "<=", "a dropped square"),
        (S(x[k] * y[k], k) ** 2, S(x[k] ** 2, k) * S(y[k] ** 2, k, 1, n + 1), "<=", "off-by-one range"),
        (S(x[k] * y[k], k) ** 2, S(x[k] ** 2, k) * S(y[k] ** 2, k, 2, n), "<=", "different lower bound"),
        (S(2 * x[k] * y[k], k) ** 2, S(x[k] ** 2, k) * S(y[k] ** 2, k), "<=", "a factor 2 lost"),
        (S(x[k] * y[k], k) ** 2, 2 * S(x[k] ** 2, k) * S(y[k] ** 2, k), "<=", "an extra factor"),
        (S(x[k] * y[k], k), S(x[k] ** 2, k) * S(y[k] ** 2, k), "<=", "left side not squared"),
        (S(z[k] * y[k], k) ** 2, S(z[k] ** 2, k) * S(y[k] ** 2, k), "<=", "z may be complex"),
        (S(x[k] * y[k], k) ** 2, S(x[k] ** 2, k) * S(y[k] ** 2, k), "=", "not an equality"),
        (S(S(A[i, k] * x[k], k) ** 2, i), S(S(A[i, k] ** 2, k) * S(x[k] ** 2, k), i, 1, n + 1), "<=",
         "outer sums over different ranges"),
        (S(x[k] * y[k], k, 1, r) ** 2, S(x[k] ** 2, k, 1, r) * S(y[k] ** 2, k, 1, r), "<=",
         "range not known to be well formed"),
    ],
)
def test_cauchy_schwarz_rejects_invalid_uses(lhs, rhs, relation, why):
    assert check(lhs, rhs, relation).status is Level.FAIL, why
