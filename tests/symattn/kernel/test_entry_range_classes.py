"""Adversarial review 7: entries and components read outside a shape. ``Entry`` is 1-based and nothing
checked its index against the matrix's shape, so ``sum_{i=1}^{n+1} (I_n)_{ii} = n + 1`` was proved, and
``Softmax(s, n + 1, n)`` unfolded to ``e^{s_{n+1}} / sum_{j<=n} e^{s_j}``. The kernel now unfolds an
entry, a softmax component or a positional pair only where its index is shown inside the shape (by the
sign test, with the step's ranges and those of the enclosing sums); otherwise the step fails naming
the index and the shape. The same claims with indices inside are proved as before."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Derivation, IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.maths.permutation import Entry
from symattn.maths.softmax import Softmax

n, d = sp.symbols("n d", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True, positive=True)
X, Y = sp.MatrixSymbol("X", n, n), sp.MatrixSymbol("Y", n, d)
XI, YI = sp.IndexedBase("X", real=True), sp.IndexedBase("Y", real=True)
s = sp.IndexedBase("s", real=True)
Id, Z = sp.Identity(n), sp.ZeroMatrix(n, n)
I_IN = IndexRange("i_in", index=i, lower=1, upper=n)
J_IN = IndexRange("j_in", index=j, lower=1, upper=n)
J_D = IndexRange("j_d", index=j, lower=1, upper=d)


def _check(lhs, rhs, steps, hyps=(), dims=(n,)):
    def derivation():
        der = Derivation(lhs)
        for expr, rule, kw in steps:
            der = der.eq(expr, rule, **kw)
        return der

    thm = Theorem(id="e", title="e", source="extension", statement=Statement(lhs, rhs), hypotheses=tuple(hyps),
                  derivation=derivation, dimensions=dims)
    return check_theorem(thm, numeric=False)


def _sm(idx, size):
    return Softmax(sp.Lambda(k, s[k]), idx, size)


DEF = {"name": "entry"}
SM = {"name": "softmax"}

OUTSIDE = [
    ("identity_trace_overrun", sp.Sum(Entry(Id, i, i), (i, 1, n + 1)), n + 1,
     [(sp.Sum(sp.KroneckerDelta(i, i), (i, 1, n + 1)), "definition", DEF), (n + 1, "sum_evaluate", {})], ()),
    ("identity_entry_out", Entry(Id, n + 1, n + 1), 1, [(sp.S(1), "definition", DEF)], ()),
    ("zero_entry_out", Entry(Z, n + 1, 1), 0, [(sp.S(0), "definition", DEF)], ()),
    ("matrix_entry_out", Entry(X, n + 1, 1), XI[n + 1, 1], [(XI[n + 1, 1], "definition", DEF)], ()),
    ("entry_zero_row", Entry(X, 0, 1), XI[0, 1], [(XI[0, 1], "definition", DEF)], ()),
    ("transpose_rows_past_d", sp.Sum(Entry(Y.T, i, 1), (i, 1, n)), sp.Sum(YI[1, i], (i, 1, n)),
     [(sp.Sum(YI[1, i], (i, 1, n)), "definition", DEF)], ()),
    ("softmax_component_past_n", _sm(n + 1, n), sp.exp(s[n + 1]) / sp.Sum(sp.exp(s[k]), (k, 1, n)),
     [(sp.exp(s[n + 1]) / sp.Sum(sp.exp(s[k]), (k, 1, n)), "definition", SM)], ()),
    ("softmax_component_zero", _sm(0, n), sp.exp(s[0]) / sp.Sum(sp.exp(s[k]), (k, 1, n)),
     [(sp.exp(s[0]) / sp.Sum(sp.exp(s[k]), (k, 1, n)), "definition", SM)], ()),
]

INSIDE = [
    ("identity_trace", sp.Sum(Entry(Id, i, i), (i, 1, n)), n,
     [(sp.Sum(sp.KroneckerDelta(i, i), (i, 1, n)), "definition", DEF), (n, "sum_evaluate", {})], ()),
    ("identity_entry_last", Entry(Id, n, n), 1, [(sp.S(1), "definition", DEF)], ()),
    ("zero_entry_last", Entry(Z, n, 1), 0, [(sp.S(0), "definition", DEF)], ()),
    ("matrix_entry_ranged", Entry(X, i, j), XI[i, j], [(XI[i, j], "definition", DEF)], (I_IN, J_IN)),
    ("matrix_entry_first", Entry(X, 1, 1), XI[1, 1], [(XI[1, 1], "definition", DEF)], ()),
    ("transpose_rows_to_d", sp.Sum(Entry(Y.T, j, 1), (j, 1, d)), sp.Sum(YI[1, j], (j, 1, d)),
     [(sp.Sum(YI[1, j], (j, 1, d)), "definition", DEF)], ()),
    ("softmax_component_ranged", _sm(i, n), sp.exp(s[i]) / sp.Sum(sp.exp(s[k]), (k, 1, n)),
     [(sp.exp(s[i]) / sp.Sum(sp.exp(s[k]), (k, 1, n)), "definition", SM)], (I_IN,)),
    ("softmax_component_last", _sm(n, n), sp.exp(s[n]) / sp.Sum(sp.exp(s[k]), (k, 1, n)),
     [(sp.exp(s[n]) / sp.Sum(sp.exp(s[k]), (k, 1, n)), "definition", SM)], ()),
]


def _dims(lhs):
    return (n, d) if lhs.has(Y) else (n,)


@pytest.mark.parametrize("case", OUTSIDE, ids=lambda c: c[0])
def test_an_entry_outside_the_shape_is_not_unfolded(case):
    name, lhs, rhs, steps, hyps = case
    o = _check(lhs, rhs, steps, hyps, _dims(lhs))
    assert o.verdict is not Verdict.PROVED, o.how
    assert o.levels["symbolic"].status.value != "pass", o.how
    assert "inside" in o.how or "outside" in o.how, o.how
    if name != "transpose_rows_past_d":  # true at the sizes where it is defined (n <= d), skipped elsewhere
        assert o.verdict is not Verdict.PROVED_FOR_INSTANCES, o.how


@pytest.mark.parametrize("case", INSIDE, ids=lambda c: c[0])
def test_an_entry_inside_the_shape_is_unfolded_as_before(case):
    name, lhs, rhs, steps, hyps = case
    o = _check(lhs, rhs, steps, hyps, _dims(lhs))
    assert o.levels["symbolic"].status.value == "pass", o.how
    assert o.verdict is not Verdict.REFUTED, o.how
