"""The reordering schemas of finite sums, ``sum_flatten`` and ``sum_interchange``, checked against an
oracle that shares nothing with them: both sides written out at concrete bounds (SymPy's ``doit`` on
numbers, in the test only) must be the same number, the flattened side must be one multi-index sum
when nothing would be captured, and it must be left alone when moving a factor inside would capture
one of its symbols. ``sum_interchange`` must refuse a sum whose index set is no box (an inner bound,
lower or upper, mentioning an outer index): interchanging it would change its value.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.schemas.sums import flatten_sums, rectangular
from symattn.kernel.terms import KernelError

j, c, k, l = sp.symbols("j c k l", integer=True)
n, m = sp.symbols("n m", integer=True, positive=True)
x = sp.Symbol("x", real=True)

AT = {n: 3, m: 2, x: sp.Rational(5, 7), k: 4}


def value(e):
    """The number ``e`` is at the concrete point ``AT`` (nested finite sums written out)."""
    return sp.nsimplify(sp.sympify(e).xreplace(AT).doit(), rational=True)


# nested sums that flatten: (the sum, how many limits the flat sum has)
FLATTEN = [
    ("constant factor outside", sp.Sum(x * sp.Sum(j * c, (c, 1, m)), (j, 1, n)), 2),
    ("outer index outside", sp.Sum(j**2 * sp.Sum(c + 1, (c, 1, m)), (j, 1, n)), 2),
    ("inner bound on the outer index", sp.Sum(j * sp.Sum(c**2, (c, 1, j)), (j, 1, n)), 2),
    ("free symbol outside", sp.Sum((k + j) * sp.Sum(c, (c, j, m + 1)), (j, 1, n)), 2),
    ("three levels", sp.Sum(j * sp.Sum(c * sp.Sum(l + c, (l, 1, c)), (c, 1, m)), (j, 1, n)), 3),
    ("inner two-index sum", sp.Sum(x * sp.Sum(c * l, (c, 1, m), (l, 1, 2)), (j, 1, n)), 3),
]

# moving the factor inside would capture its symbol: the term is left as it is (and keeps its value)
CAPTURING = [
    ("factor mentions the inner index", sp.Sum(c * sp.Sum(c**2, (c, 1, m)), (j, 1, n))),
    ("two inner sums", sp.Sum(sp.Sum(c, (c, 1, m)) * sp.Sum(l, (l, 1, j)), (j, 1, n))),
]


@pytest.mark.parametrize("name, s, nlimits", FLATTEN, ids=[f[0] for f in FLATTEN])
def test_a_nested_sum_flattens_to_one_sum_of_the_same_value(name, s, nlimits):
    flat = flatten_sums(s)
    assert isinstance(flat, sp.Sum) and len(flat.limits) == nlimits, flat
    assert not any(isinstance(f, sp.Sum) for f in sp.Mul.make_args(flat.function)), flat
    assert value(flat) == value(s), (flat, s)
    thm = axiom("sum_flatten", expr=s)
    assert value(thm.lhs) == value(thm.rhs) == value(s), thm


def test_the_capture_check_reads_the_factor_not_the_inner_sum():
    """``sum_j (c sum_c c^2)`` with ``c`` free in the factor: moving ``c`` inside would bind it."""
    s = sp.Sum(c * sp.Sum(c**2, (c, 1, m)), (j, 1, n))
    assert flatten_sums(s) == s


@pytest.mark.parametrize("name, s", CAPTURING, ids=[f[0] for f in CAPTURING])
def test_a_sum_whose_flattening_would_capture_or_is_ambiguous_keeps_its_value(name, s):
    out = flatten_sums(s)
    assert value(out) == value(s), out
    thm = axiom("sum_flatten", expr=s)
    assert value(thm.lhs) == value(thm.rhs), thm


def test_flattening_runs_to_a_fixed_point_and_leaves_non_sums_alone():
    s = sp.Sum(j * sp.Sum(c * sp.Sum(l, (l, 1, c)), (c, 1, m)), (j, 1, n))
    assert len(flatten_sums(s).limits) == 3
    assert flatten_sums(x + 1) == x + 1
    assert flatten_sums(3) == 3


# ---------------------------------------------------------------------------------- interchange
BOXES = [
    sp.Sum(j * c**2, (c, 1, m), (j, 1, n)),
    sp.Sum(x * j + c, (c, k, m + 2), (j, -1, n)),
]
NOT_BOXES = [
    ("inner upper bound on the outer index", sp.Sum(j * c, (c, 1, j), (j, 1, n))),
    ("inner lower bound on the outer index", sp.Sum(j * c, (c, j, n), (j, 1, n))),
    ("outer bound on the inner index", sp.Sum(j * c, (c, 1, m), (j, c, n))),
]


@pytest.mark.parametrize("s", BOXES)
def test_a_box_is_interchanged_with_its_value_kept(s):
    assert rectangular(s)
    thm = axiom("sum_interchange", s=s, order=tuple(reversed(s.limits)))
    assert value(thm.lhs) == value(thm.rhs)


@pytest.mark.parametrize("name, s", NOT_BOXES, ids=[f[0] for f in NOT_BOXES])
def test_a_sum_that_is_no_box_is_not_interchanged(name, s):
    assert not rectangular(s)
    with pytest.raises(KernelError, match="none of whose ranges mentions another index"):
        axiom("sum_interchange", s=s, order=tuple(reversed(s.limits)))


def test_interchange_needs_a_permutation_of_the_limits():
    s = BOXES[0]
    with pytest.raises(KernelError, match="permutation"):
        axiom("sum_interchange", s=s, order=(s.limits[0], (j, 1, n + 1)))
