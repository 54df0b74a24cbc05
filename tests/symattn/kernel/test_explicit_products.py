"""Matrix sums, products, transposes and entrywise products of concrete shape are written out from
their written-out operands (``search._combined_explicit``): the same matrix as SymPy's ``as_explicit``
(the oracle here), entry by entry, and a false identity at a concrete size is still told apart."""

import pytest
import sympy as sp

from symattn.kernel.search import expand_finite

A = sp.MatrixSymbol("A", 2, 3)
B = sp.MatrixSymbol("B", 3, 2)
C = sp.MatrixSymbol("C", 2, 2)
D = sp.MatrixSymbol("D", 2, 2)
x, y = sp.symbols("x y", real=True)
M = sp.ImmutableMatrix([[1, x], [y, 2]])

CASES = [
    A * B,
    2 * A * B,
    x * A * B * C,
    A * B + C,
    C + D + M,
    (A * B).T,
    A.T * A,
    B.T * A.T,
    sp.HadamardProduct(C, D),
    sp.HadamardProduct(C, M) + x * D,
    (C * D - D * C).T,
    A * B * M * C,
    sp.Transpose(A) * sp.Transpose(B).T.T,
]


@pytest.mark.parametrize("e", CASES, ids=[str(c) for c in CASES])
def test_written_out_as_sympy_writes_it(e):
    ours = expand_finite(e)
    assert isinstance(ours, sp.MatrixBase)
    oracle = sp.ImmutableMatrix(e.as_explicit()).applyfunc(lambda t: t.doit())
    assert ours.shape == oracle.shape
    assert (ours - oracle).applyfunc(sp.expand) == sp.zeros(*oracle.shape)


FALSE_AT_SIZE = [
    ((C * D).T, C.T * D.T),
    (C * D, D * C),
    (sp.HadamardProduct(C, D), C * D),
    (A * B + C, C + B.T * A.T),
    (2 * C * D, C * (2 * D) + C),
]


@pytest.mark.parametrize("lhs,rhs", FALSE_AT_SIZE, ids=[f"{a} = {b}" for a, b in FALSE_AT_SIZE])
def test_a_false_identity_at_a_size_stays_false(lhs, rhs):
    diff = (expand_finite(lhs) - expand_finite(rhs)).applyfunc(sp.expand)
    assert diff != sp.zeros(*diff.shape)


TRUE_AT_SIZE = [
    ((C * D).T, D.T * C.T),
    (sp.HadamardProduct(C, D), sp.HadamardProduct(D, C)),
    (A * B + C, C + (B.T * A.T).T),
    (x * (C + D), x * C + x * D),
]


@pytest.mark.parametrize("lhs,rhs", TRUE_AT_SIZE, ids=[f"{a} = {b}" for a, b in TRUE_AT_SIZE])
def test_a_true_identity_at_a_size_stays_true(lhs, rhs):
    diff = (expand_finite(lhs) - expand_finite(rhs)).applyfunc(sp.expand)
    assert diff == sp.zeros(*diff.shape)
