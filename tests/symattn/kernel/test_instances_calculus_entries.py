"""Derived instances of statements with derivatives, matrix entries and closed numbers SymPy cannot
order (issue 19). Three classes the library's own theorems met (softmax_jacobian,
attention_output_convex_combination, alibi_slopes_between_powers_of_two), each with a table of true
claims that must pass at the derived sizes and false ones of the same shape that must be refuted
there, by an exact counterexample:

* a derivative by an entry (``d/ds_j``) at a point is the derivative evaluated there, never the
  derivative by the number the entry takes (SymPy: "Can't calculate derivative wrt 0");
* the entry of a matrix expression is read through the kernel's convention (a matrix symbol ``X``
  has the real, 1-based entries ``X[i, j]``), not SymPy's explicit matrix (0-based ``X[i - 1, j - 1]``,
  another atom): a true statement written with ``Entry`` on one side and indexed entries on the
  other is never refuted because the two sides name different atoms;
* a closed number with an exponent SymPy cannot order (``3 - log(8)/log(2)``, exactly 0) is
  compared exactly, and the definedness walk does not raise on it.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level
from symattn.kernel.search import evaluate_derivatives
from symattn.kernel.zero import approximate_conditions, definedness_conditions
from symattn.maths.permutation import Entry

n, m = sp.symbols("n m", integer=True, positive=True)
i, j, k, l = sp.symbols("i j k l", integer=True, positive=True)
x = sp.Symbol("x", real=True)
s = sp.IndexedBase("s", real=True)
X, Y = sp.IndexedBase("X", real=True), sp.IndexedBase("Y", real=True)
XM, YM = sp.MatrixSymbol("X", n, m), sp.MatrixSymbol("Y", m, n)
XS = sp.MatrixSymbol("X", n, n)
ZS = sp.MatrixSymbol("Y", n, n)

RANGES = (IndexRange("i_range", index=i, lower=1, upper=n), IndexRange("j_range", index=j, lower=1, upper=n))


def _theorem(st, hypotheses=RANGES, dimensions=(n,)):
    return Theorem(id="claim", title="claim", source="extension", statement=st, hypotheses=hypotheses,
                   dimensions=dimensions)


def _check(st, **kw):
    return check_theorem(_theorem(st, **kw), numeric=False)


def _expsum(v):
    return sp.Sum(sp.exp(s[v]), (v, 1, n))


D = sp.Derivative

TRUE_DERIVATIVES = [
    ("linear", Statement(D(sp.Sum(s[l], (l, 1, n)), s[j]), 1)),
    ("square", Statement(D(sp.Sum(s[l] ** 2, (l, 1, n)), s[j]), 2 * s[j])),
    ("exp_entry", Statement(D(sp.exp(s[i]), s[j]), sp.KroneckerDelta(i, j) * sp.exp(s[i]))),
    ("log_sum_exp", Statement(D(sp.log(_expsum(l)), s[j]), sp.exp(s[j]) / _expsum(k))),
    ("softmax", Statement(D(sp.exp(s[i]) / _expsum(l), s[j]),
                          sp.exp(s[i]) / _expsum(l) * (sp.KroneckerDelta(i, j) - sp.exp(s[j]) / _expsum(k)))),
    ("by_a_symbol", Statement(D(x * sp.Sum(s[l], (l, 1, n)), x), sp.Sum(s[l], (l, 1, n)))),
    ("second_order", Statement(D(sp.Sum(s[l] ** 3, (l, 1, n)), (s[j], 2)), 6 * s[j])),
    ("mixed", Statement(D(sp.Sum(s[l], (l, 1, n)) ** 2, s[i], s[j]), 2)),
]

FALSE_DERIVATIVES = [
    ("square_halved", Statement(D(sp.Sum(s[l] ** 2, (l, 1, n)), s[j]), s[j])),
    ("exp_no_delta", Statement(D(sp.exp(s[i]), s[j]), sp.exp(s[i]))),
    ("log_sum_exp_inverse", Statement(D(sp.log(_expsum(l)), s[j]), 1 / _expsum(k))),
    ("linear_is_n", Statement(D(sp.Sum(s[l], (l, 1, n)), s[j]), n)),
    ("softmax_plus", Statement(D(sp.exp(s[i]) / _expsum(l), s[j]),
                               sp.exp(s[i]) / _expsum(l) * (sp.KroneckerDelta(i, j) + sp.exp(s[j]) / _expsum(k)))),
    ("by_a_symbol_squared", Statement(D(x**2 * sp.Sum(s[l], (l, 1, n)), x), x * sp.Sum(s[l], (l, 1, n)))),
    ("second_order_3", Statement(D(sp.Sum(s[l] ** 3, (l, 1, n)), (s[j], 2)), 3 * s[j])),
    ("mixed_zero", Statement(D(sp.Sum(s[l], (l, 1, n)) ** 2, s[i], s[j]), 0)),
]


@pytest.mark.parametrize("name,st", TRUE_DERIVATIVES, ids=[c[0] for c in TRUE_DERIVATIVES])
def test_a_true_derivative_by_an_entry_passes_its_derived_instances(name, st):
    o = _check(st)
    lv = o.levels["instances"]
    assert lv.status is Level.PASS, lv.detail
    assert lv.data.get("derived") is True
    assert "derivative wrt" not in lv.detail
    assert o.verdict is not Verdict.REFUTED


@pytest.mark.parametrize("name,st", FALSE_DERIVATIVES, ids=[c[0] for c in FALSE_DERIVATIVES])
def test_a_false_derivative_by_an_entry_is_refuted_exactly(name, st):
    o = _check(st)
    lv = o.levels["instances"]
    assert lv.status is Level.FAIL, lv.detail
    assert o.verdict is Verdict.REFUTED
    cex = lv.data["counterexample"]
    assert "Derivative" not in cex and "." not in cex.split(":", 1)[1].replace("...", ""), cex


def test_a_derivative_is_taken_before_its_variable_gets_a_value():
    from symattn.kernel.search import substitute_free

    d = D(s[1] ** 2 * s[2], s[1])
    at = substitute_free(d, {s[1]: sp.Integer(3), s[2]: sp.Integer(5)})
    assert at == 30  # 2 s_1 s_2 at (3, 5), never d(...)/d3
    # the variable's index takes the point's value first: d/ds_j at j = 2 is d/ds_2
    assert substitute_free(D(s[1] * s[2], s[j]), {j: sp.Integer(2), s[1]: sp.Integer(7), s[2]: sp.Integer(1)}) == 7
    # a derivative the kernel will not take (through an undefined function) stays unevaluated
    f = sp.Function("f")
    assert evaluate_derivatives(D(f(s[1]), s[1])).has(sp.Derivative)


ENTRY_TRUE = [
    ("product", Statement(Entry(XM * YM, i, j), sp.Sum(X[i, k] * Y[k, j], (k, 1, m)))),
    ("sum", Statement(Entry(XS + ZS, i, j), X[i, j] + Y[i, j])),
    ("transpose", Statement(Entry(XS.T, i, j), X[j, i])),
    ("scaled", Statement(Entry(3 * XS, i, j), 3 * X[i, j])),
    ("identity", Statement(Entry(sp.Identity(n), i, j), sp.KroneckerDelta(i, j))),
    ("gram", Statement(Entry(XS * XS.T, i, i), sp.Sum(X[i, k] ** 2, (k, 1, n)))),
    ("square", Statement(Entry(XS * XS, i, j), sp.Sum(X[i, k] * X[k, j], (k, 1, n)))),
    ("symmetric_gram", Statement(Entry(XS.T * XS, i, j), Entry(XS.T * XS, j, i))),
]

ENTRY_FALSE = [
    ("product_transposed", Statement(Entry(XM * YM, i, j), sp.Sum(X[k, i] * Y[k, j], (k, 1, m)))),
    ("sum_one", Statement(Entry(XS + ZS, i, j), X[i, j])),
    ("transpose_not", Statement(Entry(XS.T, i, j), X[i, j])),
    ("scaled_wrong", Statement(Entry(3 * XS, i, j), 2 * X[i, j])),
    ("identity_one", Statement(Entry(sp.Identity(n), i, j), 1)),
    ("gram_unsquared", Statement(Entry(XS * XS.T, i, i), sp.Sum(X[i, k], (k, 1, n)))),
    ("square_commuted", Statement(Entry(XS * XS, i, j), sp.Sum(X[k, i] * X[j, k], (k, 1, n)))),
    ("gram_symmetric_not", Statement(Entry(XS * XS, i, j), Entry(XS * XS, j, i))),
]

ENTRY_HYPS = RANGES + (IndexRange("k_free", index=k, lower=1, upper=m),)


@pytest.mark.parametrize("name,st", ENTRY_TRUE, ids=[c[0] for c in ENTRY_TRUE])
def test_a_true_entry_statement_is_never_refuted_by_a_change_of_convention(name, st):
    dims = (n, m) if st.lhs.has(XM) else (n,)
    hyps = RANGES if dims == (n,) else (IndexRange("i_range", index=i, lower=1, upper=n),
                                        IndexRange("j_range", index=j, lower=1, upper=n))
    o = _check(st, hypotheses=hyps, dimensions=dims)
    lv = o.levels["instances"]
    assert lv.status is Level.PASS, lv.detail
    assert o.verdict is not Verdict.REFUTED


@pytest.mark.parametrize("name,st", ENTRY_FALSE, ids=[c[0] for c in ENTRY_FALSE])
def test_a_false_entry_statement_is_refuted_by_a_derived_instance(name, st):
    dims = (n, m) if st.lhs.has(XM) else (n,)
    o = _check(st, dimensions=dims)
    lv = o.levels["instances"]
    assert lv.status is Level.FAIL, lv.detail
    assert o.verdict is Verdict.REFUTED


p = sp.Symbol("p", integer=True, positive=True)
_zero = p - sp.log(2**p) / sp.log(2)  # exactly 0; SymPy cannot order it at p = 3: 3 - log(8)/log(2)

CLOSED_TRUE = [
    ("power_of_zero_exponent", Statement(2**_zero, 1)),
    ("scaled", Statement(3 ** (sp.log(9) / sp.log(3) - 2) * p, p)),
    ("square", Statement((2**_zero + 1) ** 2, 4)),
    ("inverse", Statement(1 / 2 ** (sp.log(2 ** (p + 1)) / sp.log(2)), sp.Rational(1, 2) / 2**p)),
]

CLOSED_FALSE = [
    ("power_is_two", Statement(2**_zero, 2)),
    ("shifted", Statement(2 ** (sp.log(2 ** (p + 1)) / sp.log(2)), 2**p)),
    ("square_is_two", Statement((2**_zero + 1) ** 2, 2)),
    ("inverse_doubled", Statement(1 / 2 ** (sp.log(2 ** (p + 1)) / sp.log(2)), 2 / 2**p)),
]


@pytest.mark.parametrize("name,st", CLOSED_TRUE, ids=[c[0] for c in CLOSED_TRUE])
def test_a_true_closed_instance_with_an_unorderable_exponent_passes(name, st):
    o = _check(st, hypotheses=(), dimensions=(p,))
    lv = o.levels["instances"]
    assert lv.status is Level.PASS, lv.detail


@pytest.mark.parametrize("name,st", CLOSED_FALSE, ids=[c[0] for c in CLOSED_FALSE])
def test_a_false_closed_instance_with_an_unorderable_exponent_is_refuted(name, st):
    o = _check(st, hypotheses=(), dimensions=(p,))
    assert o.levels["instances"].status is Level.FAIL, o.levels["instances"].detail
    assert o.verdict is Verdict.REFUTED


def test_the_definedness_walk_orders_no_exponent_it_cannot():
    e = 3 - sp.log(8) / sp.log(2)
    assert definedness_conditions(2**e) == []  # the base 2 is nonzero whatever the exponent
    y = sp.Symbol("y", real=True)
    conds = definedness_conditions(y**e)
    assert conds, "an exponent that may be negative needs a nonzero base"
    assert set(approximate_conditions(y**e)) == set(conds)  # and says it may ask for more than needed
    assert definedness_conditions(y ** (-e - 1)) == definedness_conditions(y**-1)
