"""Derived instances of theorems about permutations (issue 19): a ``Permutation`` hypothesis of
concrete size is discharged by enumerating every permutation of ``1..n`` (exhaustive, so exact), and
the matrices of concrete shape are written out. A true theorem passes its derived instances; a false
one is refuted by an exact counterexample at one permutation, named in the counterexample. Through
the public API, tables of true and false cases."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level
from symattn.kernel.instances import concrete_cases, explicit
from symattn.maths.permutation import Permutation, PermutationMatrix, SoftmaxRows

n = sp.Symbol("n", integer=True, positive=True)
i, k = sp.symbols("i k", integer=True, positive=True)
S = sp.MatrixSymbol("S", n, n)
v = sp.MatrixSymbol("v", n, 1)
u = sp.MatrixSymbol("u", n, 1)
P = PermutationMatrix("sigma", n)
sigma = sp.Function("sigma")
x = sp.IndexedBase("x", real=True)
PERM = (Permutation("sigma_perm", sigma="sigma", n=n),)
I_RANGE = (IndexRange("i_range", index=i, lower=1, upper=n),)


def theorem(statement, hyps=PERM):
    return Theorem(id="claim", title="claim", source="extension", statement=statement, hypotheses=hyps,
                   dimensions=(n,))


def check(thm):
    return check_theorem(thm, numeric=False)


TRUE = [
    ("softmax_rows_conjugate", Statement(SoftmaxRows(P * S * P.T), P * SoftmaxRows(S) * P.T)),
    ("softmax_rows_row_permutation", Statement(SoftmaxRows(P * S), P * SoftmaxRows(S))),
    ("orthogonal", Statement(P * P.T, sp.Identity(n))),
    ("orthogonal_left", Statement(P.T * P, sp.Identity(n))),
    ("trace_of_conjugate", Statement(sp.Trace(P * S * P.T), sp.Trace(S))),
    ("inner_product_preserved", Statement((P * u).T * (P * v), u.T * v)),
    ("reindexed_sum", Statement(sp.Sum(x[sigma(k)], (k, 1, n)), sp.Sum(x[k], (k, 1, n)))),
    ("sum_of_squares_reindexed", Statement(sp.Sum(x[sigma(k)] ** 2, (k, 1, n)), sp.Sum(x[k] ** 2, (k, 1, n)))),
    ("image_hits_one_position", Statement(sp.Sum(sp.KroneckerDelta(sigma(i), k), (k, 1, n)), 1), PERM + I_RANGE),
]

# a false theorem and the smallest size at which a permutation refutes it
FALSE = [
    ("softmax_rows_column_permutation", Statement(SoftmaxRows(P * S), SoftmaxRows(S)), "n = 2"),
    ("commutes", Statement(P * S, S * P), "n = 2"),
    ("is_identity", Statement(P, sp.Identity(n)), "n = 2"),
    ("trace_is_n", Statement(sp.Trace(P), n), "n = 2"),
    ("conjugate_is_itself", Statement(P * S * P.T, S), "n = 2"),
    ("symmetric", Statement(P.T, P), "n = 3"),  # every permutation of 1 or 2 elements is an involution
    ("fixes_first", Statement(x[sigma(1)], x[1]), "n = 2"),
    ("weighted_sum_reindexed", Statement(sp.Sum(k * x[sigma(k)], (k, 1, n)), sp.Sum(k * x[k], (k, 1, n))), "n = 2"),
    ("softmax_rows_transpose", Statement(SoftmaxRows(P * S * P.T), SoftmaxRows(S).T), "n = 2"),
]


@pytest.mark.parametrize("case", TRUE, ids=[c[0] for c in TRUE])
def test_a_true_permutation_theorem_passes_its_derived_instances(case):
    name, st, *hyps = case
    o = check(theorem(st, *hyps))
    lv = o.levels["instances"]
    assert lv.status is Level.PASS and lv.data["derived"], lv.detail
    assert "exact for n in {1, 2, 3}" in lv.detail, lv.detail
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES, o.how


@pytest.mark.parametrize("name,st,where", FALSE, ids=[c[0] for c in FALSE])
def test_a_false_permutation_theorem_is_refuted_at_one_permutation(name, st, where):
    o = check(theorem(st))
    assert o.verdict is Verdict.REFUTED, o.how
    lv = o.levels["instances"]
    assert lv.status is Level.FAIL and lv.data["derived"], lv.detail
    assert o.counterexample.startswith(where + ", sigma = ("), o.counterexample
    assert "." not in o.counterexample.split(":", 1)[1].replace("...", ""), "exact numbers only: " + o.counterexample


def test_every_permutation_is_a_case_and_the_hypothesis_is_discharged():
    P3, S3 = PermutationMatrix("sigma", 3), sp.MatrixSymbol("S", 3, 3)
    cases = concrete_cases(Statement(P3 * S3, S3 * P3), (Permutation("p", sigma="sigma", n=3),))
    assert sorted(label for label, _, _ in cases) == sorted(
        f"sigma = ({a}, {b}, {c})" for a, b, c in __import__("itertools").permutations((1, 2, 3)))
    assert all(hyps == () for _, _, hyps in cases)
    assert all(isinstance(st.lhs, sp.MatrixBase) and st.lhs.shape == (3, 3) for _, st, _ in cases)


def test_a_permutation_of_symbolic_or_too_large_size_is_not_enumerated():
    for size in (n, 5):
        hyps = (Permutation("p", sigma="sigma", n=size),)
        cases = concrete_cases(Statement(x[sigma(1)], x[1]), hyps)
        assert [(label, h) for label, _, h in cases] == [("", hyps)]


def test_a_permutation_applied_outside_its_domain_is_an_error_not_a_value():
    with pytest.raises(ValueError, match="applied to 3"):
        concrete_cases(Statement(x[sigma(3)], x[1]), (Permutation("p", sigma="sigma", n=2),))


def test_explicit_writes_out_matrices_but_never_evaluates_an_integral():
    A = sp.MatrixSymbol("A", 2, 2)
    assert explicit(A * A.T) == (A.as_explicit() * A.as_explicit().T)
    y = sp.Symbol("y", real=True)
    kept = sp.Trace(A) * sp.Integral(sp.exp(-y**2), (y, 0, 1))
    assert explicit(kept) == kept
