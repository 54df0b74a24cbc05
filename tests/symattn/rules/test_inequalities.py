"""positivity and sum_monotone: structural signs, max/min over ranges (index ranges checked)."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.language.printing import latex
from symattn.language.statement import IndexRange
from symattn.maths.softmax import Softmax
from symattn.rules import ProofContext, check_step
from symattn.rules.inequalities import MaxOver, MinOver, sign

n = sp.Symbol("n", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
j, k, l = sp.symbols("j k l", integer=True)
x = sp.Symbol("x", real=True)
s = sp.IndexedBase("s", real=True)
v = sp.IndexedBase("v", real=True)
j_in = ProofContext(hypotheses=(IndexRange("j_range", index=j, lower=1, upper=n),))
bare = ProofContext()
w = Softmax(sp.Lambda(k, s[k]), j, n)
top, bottom = MaxOver(v[l], (l, 1, n)), MinOver(v[l], (l, 1, n))


def status(lhs, rhs, relation, rule, ctx=bare):
    return check_step(lhs, rhs, relation, rule, {}, ctx).status


@pytest.mark.parametrize(
    "lhs, rhs, relation, ctx",
    [
        (0, sp.exp(x), "<", bare),
        (w, 0, ">", j_in),  # a softmax weight, unfolded by the sign procedure (component j inside 1..n)
        (0, sp.Sum(sp.exp(s[k]), (k, 1, n)), "<", bare),
        (0, sp.Sum(s[k] ** 2, (k, 1, m)), "<=", bare),  # possibly empty: nonnegative only
        (v[j], top, "<=", j_in),
        (bottom, v[j], "<=", j_in),
        (top, v[j], ">=", j_in),
        (0, sp.exp(x) * (top - v[j]), "<=", j_in),
    ],
)
def test_positivity_accepts_valid_signs(lhs, rhs, relation, ctx):
    assert status(lhs, rhs, relation, "positivity", ctx) is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, relation, ctx, why",
    [
        (0, x, "<=", bare, "a real symbol has no sign"),
        (0, -sp.exp(x), "<=", bare, "sign error"),
        (0, sp.Sum(s[k] ** 2, (k, 1, m)), "<", bare, "a possibly empty sum is not positive"),
        (0, sp.Sum(s[k] ** 2, (k, 1, m - 2)), "<=", bare, "upside-down range 1..m-2 with m = 0 is a negative sum"),
        (v[j], top, "<=", bare, "j not known to lie in 1..n"),
        (v[j], MaxOver(v[l], (l, 1, n - 1)), "<=", j_in, "off by one: j may be n, outside 1..n-1"),
        (v[j], bottom, "<=", j_in, "min confused with max"),
        (top, v[j], "<=", j_in, "reversed bound"),
        (0, sp.exp(x) * (top - v[j]), "<", j_in, "strict claim from a nonnegative gap"),
        (0, sp.Matrix([1]), "<=", bare, "matrices have no sign"),
    ],
)
def test_positivity_rejects_invalid_steps(lhs, rhs, relation, ctx, why):
    assert status(lhs, rhs, relation, "positivity", ctx) is Level.FAIL, why


def test_sum_monotone_accepts_termwise_bounds_by_max_and_min():
    o = sp.Sum(w * v[j], (j, 1, n))
    assert status(o, sp.Sum(w * top, (j, 1, n)), "<=", "sum_monotone") is Level.PASS
    assert status(o, sp.Sum(w * bottom, (j, 1, n)), ">=", "sum_monotone") is Level.PASS
    # bound variable names do not matter
    assert status(o, sp.Sum(Softmax(sp.Lambda(l, s[l]), k, n) * top.xreplace({l: j}), (k, 1, n)), "<=",
                  "sum_monotone") is Level.PASS
    assert status(sp.Sum(sp.exp(s[j]), (j, 1, n)), sp.Sum(2 * sp.exp(s[j]), (j, 1, n)), "<",
                  "sum_monotone") is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, relation, why",
    [
        (sp.Sum(w * v[j], (j, 1, n)), sp.Sum(w * top, (j, 1, n)), ">=", "reversed inequality"),
        (sp.Sum(w * v[j], (j, 1, n)), sp.Sum(w * bottom, (j, 1, n)), "<=", "min used as an upper bound"),
        (sp.Sum(w * v[j], (j, 1, n + 1)), sp.Sum(w * top, (j, 1, n + 1)), "<=",
         "off by one: v_{n+1} is not below max_{l<=n}"),
        (sp.Sum(v[j], (j, 1, n)), sp.Sum(v[j] * top, (j, 1, n)), "<=", "dropped the weights: v_j <= v_j max is false"),
        (sp.Sum(w * v[j], (j, 1, n)), sp.Sum(w * top, (j, 2, n)), "<=", "different ranges"),
        (sp.Sum(s[j], (j, 1, m)), sp.Sum(s[j] + 1, (j, 1, m)), "<", "strict over a possibly empty range"),
        (sp.Sum(-sp.exp(s[j]) * v[j], (j, 1, n)), sp.Sum(-sp.exp(s[j]) * top, (j, 1, n)), "<=",
         "negative weights flip the bound"),
    ],
)
def test_sum_monotone_rejects_invalid_steps(lhs, rhs, relation, why):
    assert status(lhs, rhs, relation, "sum_monotone") is Level.FAIL, why


def test_sign_returns_none_when_unknown_and_never_guesses():
    assert sign(x) is None
    assert sign(x**2) == "nonnegative"
    assert sign(sp.exp(x) + x**2) == "positive"


def test_extrema_evaluate_at_numeric_bounds_and_print():
    assert MaxOver(v[l], (l, 1, 3)).doit() == sp.Max(v[1], v[2], v[3])
    assert MinOver(v[l], (l, 2, 2)).doit() == v[2]
    assert MaxOver(v[l], (l, 1, n)).doit() == MaxOver(v[l], (l, 1, n))
    assert latex(MinOver(v[l], (l, 1, n))) == r"\min_{l=1}^{n} {v}_{l}"


@pytest.mark.parametrize(
    "build, error",
    [
        (lambda: MaxOver(v[l], (l, 1, n), (k, 1, n)), ValueError),
        (lambda: MaxOver(v[x], (x, 1, n)), TypeError),
        (lambda: MaxOver(v[l], (l, 3, 1)).doit(), ValueError),
    ],
)
def test_extrema_reject_invalid_arguments(build, error):
    with pytest.raises(error):
        build()
