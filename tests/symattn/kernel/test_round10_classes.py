"""Adversarial review 10.

A. A size where a hypothesis is neither shown to hold nor shown false (``M = 4 atan(1/5) - atan(1/239)
   - pi/4`` is exactly 0, by Machin's formula, but not shown so) was skipped as outside the
   hypotheses, so a false claim passed at the later sizes (``n = m`` under ``M (n - m)^2 >= 0`` was
   proved-for-instances from (1, 1), (2, 2), (3, 3)). Such a size now stops the instances: undecided.
B. Entries in two conventions: ``Entry(A, 1, 1)`` is the kernel's first entry ``A[1, 1]``, SymPy's is
   ``A[0, 0]``; ``tr A = sum_k Entry(A, k, k)`` was refuted at n = 1. A statement that reads a matrix
   through ``Entry`` and also holds it elsewhere is refused (undecided), and so is one with two symbols
   of one name (``W`` n x n and ``W`` m x m had equal entries).
C. SymPy's ``det(0_n) = 0`` is false at n = 0: a determinant of a zero matrix of a size not shown
   positive is not a term.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, Derivation, Equation, IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.maths.permutation import Entry

R = sp.Rational
MACHIN = 4 * sp.atan(R(1, 5)) - sp.atan(R(1, 239)) - sp.pi / 4  # exactly 0
n, m = sp.symbols("n m", integer=True, positive=True)
n0 = sp.Symbol("n", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True)
i, j = sp.symbols("i j", integer=True)


def _thm(tid, lhs, rhs, relation="=", hyps=(), dims=(), steps=()):
    def derivation():
        d = Derivation(lhs)
        for expr, rule in steps:
            d = d.step(expr, rule, relation)
        return d

    return Theorem(id=tid, title=tid, source="extension", statement=Statement(lhs, rhs, relation),
                   hypotheses=tuple(hyps), derivation=derivation if steps else None, dimensions=tuple(dims))


def _check(t):
    return check_theorem(t, numeric=False)


UNDECIDED_HYPOTHESIS_FALSE = [
    _thm("diag", n, m, hyps=[Assumption("machin", condition=sp.Ge(MACHIN * (n - m) ** 2, 0))], dims=[n, m]),
    _thm("sum_is_three", sp.Sum(1, (k, 1, n)), 3, hyps=[Equation("e", lhs=MACHIN * n, rhs=3 * MACHIN)], dims=[n]),
    _thm("n_eq_m_by_equation", n, m, hyps=[Equation("e", lhs=MACHIN * n, rhs=MACHIN * m)], dims=[n, m]),
    _thm("gauss_wrong", sp.Sum(k, (k, 1, n0)), n0**2,
         hyps=[Assumption("a", condition=sp.Ge(n0 * (n0 - 1) * MACHIN, 0))], dims=[n0]),
    _thm("square_small", n**2, n, hyps=[Assumption("a", condition=sp.Ge(MACHIN + n, 1))], dims=[n]),
    _thm("cube_bound", n**3, 1, "<=", hyps=[Assumption("a", condition=sp.Le(MACHIN * n, 0))], dims=[n]),
    _thm("constant_sum", sp.Sum(2, (k, 1, n)), 2, hyps=[Assumption("a", condition=sp.Eq(MACHIN * n**2, 0))], dims=[n]),
    _thm("pair_equal", n + m, 2 * n, hyps=[Assumption("a", condition=sp.Ge(MACHIN * (n - m), 0)),
                                            Assumption("b", condition=sp.Le(MACHIN * (n - m), 0))], dims=[n, m]),
]


@pytest.mark.parametrize("t", UNDECIDED_HYPOTHESIS_FALSE, ids=[t.id for t in UNDECIDED_HYPOTHESIS_FALSE])
def test_a_size_with_an_undecided_hypothesis_is_not_skipped_as_outside(t):
    o = _check(t)
    assert o.verdict not in (Verdict.PROVED, Verdict.PROVED_FOR_INSTANCES), o.how
    # said by the instances (the size stops them) or by the model search (no point shows the hypotheses)
    assert "neither shown to hold nor shown false" in o.how or "undecidable at the point" in o.how, o.how


DECIDED_HYPOTHESIS_TRUE = [
    # hypotheses shown false at the small sizes still put those sizes outside
    _thm("from_three", sp.Sum(1, (k, 1, n)), n, hyps=[Assumption("a", condition=sp.Ge(n, 3))], dims=[n]),
    _thm("even_sizes", sp.Sum(1, (k, 1, n)), n, hyps=[Assumption("a", condition=sp.Eq(sp.Mod(n, 2), 0))], dims=[n]),
    _thm("gauss_from_two", sp.Sum(k, (k, 1, n)), n * (n + 1) / 2, hyps=[Assumption("a", condition=sp.Ge(n, 2))],
         dims=[n]),
    _thm("diag_sizes", n, m, hyps=[Equation("e", lhs=n, rhs=m)], dims=[n, m]),
]


@pytest.mark.parametrize("t", DECIDED_HYPOTHESIS_TRUE, ids=[t.id for t in DECIDED_HYPOTHESIS_TRUE])
def test_sizes_shown_outside_are_still_skipped(t):
    o = _check(t)
    assert o.levels["instances"].status.value == "pass", o.how


A2, B2 = sp.MatrixSymbol("A2", 2, 2), sp.MatrixSymbol("B2", 2, 2)
A = sp.MatrixSymbol("A", n, n)
W_n, W_m = sp.MatrixSymbol("W", n, n), sp.MatrixSymbol("W", m, m)
x_real, x_pos = sp.Symbol("x", real=True), sp.Symbol("x", positive=True)

MIXED = [
    _thm("first_entry_true", Entry(A2, 1, 1), A2[0, 0]),                 # true in SymPy's reading
    _thm("first_entry_false", Entry(A2, 1, 1), A2[1, 1]),                # false in SymPy's reading
    _thm("shifted_true", Entry(A, i + 1, j + 1), A[i, j],
         hyps=[IndexRange("ir", index=i, lower=0, upper=n - 1), IndexRange("jr", index=j, lower=0, upper=n - 1)],
         dims=[n]),
    _thm("product_true", Entry(A2 * B2, 1, 1), (A2 * B2)[0, 0]),
    _thm("trace_true", sp.Trace(A), sp.Sum(Entry(A, k, k), (k, 1, n)), dims=[n]),
    _thm("trace_of_a_product", sp.Trace(A2 * B2), Entry(A2 * B2, 1, 1) + Entry(A2 * B2, 2, 2)),
    _thm("determinant", sp.Determinant(A2), Entry(A2, 1, 1) * Entry(A2, 2, 2) - Entry(A2, 1, 2) * Entry(A2, 2, 1)),
    _thm("same_name_matrices", Entry(W_n, 1, 1), Entry(W_m, 1, 1), dims=[n, m]),
    _thm("same_name_scalars", x_real, x_pos),
    _thm("same_name_inequality", x_real**2, x_pos**2, ">="),
]


@pytest.mark.parametrize("t", MIXED, ids=[t.id for t in MIXED])
def test_statements_the_kernel_could_confuse_are_refused_never_refuted(t):
    o = _check(t)
    assert o.verdict is Verdict.UNDECIDED, o.how
    assert "does not accept" in o.how, o.how


ONE_CONVENTION = [
    _thm("entries_of_a_product", Entry(A2 * B2, 1, 1),
         Entry(A2, 1, 1) * Entry(B2, 1, 1) + Entry(A2, 1, 2) * Entry(B2, 2, 1)),
    _thm("trace_explicit", sp.Trace(A2 * B2), sp.Trace(B2 * A2)),
    _thm("sympy_elements_only", (A2 * B2)[0, 0], A2[0, 0] * B2[0, 0] + A2[0, 1] * B2[1, 0]),
    _thm("trace_by_entries", sp.Sum(Entry(A, k, k), (k, 1, n)), sp.Sum(Entry(A.T, k, k), (k, 1, n)), dims=[n]),
]


@pytest.mark.parametrize("t", ONE_CONVENTION, ids=[t.id for t in ONE_CONVENTION])
def test_statements_in_one_convention_are_accepted_and_never_refuted(t):
    o = _check(t)
    assert o.verdict is not Verdict.REFUTED, o.how
    assert "does not accept" not in o.how and o.levels["instances"].status.value != "fail", o.how


ZERO_DETERMINANTS = [
    _thm("det_zero_nonnegative", sp.Determinant(sp.ZeroMatrix(n0, n0)), 0, dims=[n0]),
    _thm("det_zero_plus_one", sp.Determinant(sp.ZeroMatrix(n0, n0)) + 1, 1, dims=[n0]),
    _thm("det_zero_product", sp.Determinant(sp.ZeroMatrix(n0, n0) * sp.MatrixSymbol("C", n0, n0)), 0, dims=[n0]),
]


@pytest.mark.parametrize("t", ZERO_DETERMINANTS, ids=[t.id for t in ZERO_DETERMINANTS])
def test_the_determinant_of_a_zero_matrix_of_size_not_shown_positive_is_not_a_term(t):
    o = _check(t)
    assert o.verdict is not Verdict.PROVED, o.how
    assert "det(0_n)" in o.how, o.how


def test_the_determinant_of_a_zero_matrix_of_positive_size_is_a_term():
    o = _check(_thm("det_zero_positive", sp.Determinant(sp.ZeroMatrix(n, n)), 0, dims=[n],
                    steps=[(sp.Integer(0), "algebra")]))
    assert o.levels["symbolic"].status.value == "pass" and o.verdict is not Verdict.REFUTED, o.how
