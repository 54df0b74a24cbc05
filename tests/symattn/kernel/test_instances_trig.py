"""Derived instances of trigonometric theorems (issue 19): at a concrete size the sides are compared
modulo ``sin(a)^2 + cos(a)^2 = 1`` (each argument's sine and cosine a pair of variables, the
numerator reduced by the monic ``c^2 + s^2 - 1``), so rotations' identities are shown exactly; a
false one is refuted at an exact point. Tables of true and false cases, through the public API, and
the reduction's own cases."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from symattn import Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level
from symattn.kernel.instances import pythagorean_zero

n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
th, x, y = (sp.IndexedBase(name, real=True) for name in ("theta", "x", "y"))
p = sp.Symbol("p", real=True)
c, s = sp.cos(th[k]), sp.sin(th[k])


def S(body):
    return sp.Sum(body, (k, 1, n))


def theorem(statement):
    return Theorem(id="claim", title="claim", source="extension", statement=statement, dimensions=(n,))


def check(thm):
    return check_theorem(thm, numeric=False)


TRUE = [
    ("pythagoras", Statement(S(s**2 + c**2), n)),
    ("rotation_preserves_norm", Statement(S((c * x[k] - s * y[k]) ** 2 + (s * x[k] + c * y[k]) ** 2),
                                          S(x[k] ** 2 + y[k] ** 2))),
    ("rotation_preserves_inner_product",
     Statement(S((c * x[k] - s * y[k]) * (c * y[k] - s * x[k]) + (s * x[k] + c * y[k]) * (s * y[k] + c * x[k])),
               S(2 * x[k] * y[k]))),
    ("shared_angle", Statement(S((sp.cos(p) * x[k] - sp.sin(p) * y[k]) ** 2
                                 + (sp.sin(p) * x[k] + sp.cos(p) * y[k]) ** 2), S(x[k] ** 2 + y[k] ** 2))),
    ("fourth_powers", Statement(S(s**4 - c**4), S(s**2 - c**2))),
    ("cos_squared", Statement(S(c**2), S(1 - s**2))),
    ("rational_in_x", Statement(S((s**2 + c**2) / (1 + x[k] ** 2)), S(1 / (1 + x[k] ** 2)))),
    ("cubes", Statement(S(s**3 + s * c**2), S(s))),
]

FALSE = [
    ("sin_squares_sum_to_n", Statement(S(s**2), n)),
    ("rotation_without_cross_term", Statement(S((c * x[k] + s * x[k]) ** 2), S(x[k] ** 2))),
    ("pythagoras_off_by_one", Statement(S(s**2 + c**2), n + 1)),
    ("fourth_powers_sum", Statement(S(s**4 + c**4), n)),
    ("cos_is_one_minus_sin", Statement(S(c), S(1 - s))),
    ("norm_not_preserved_by_shear", Statement(S((x[k] + s * y[k]) ** 2 + y[k] ** 2), S(x[k] ** 2 + y[k] ** 2))),
    ("double_angle_wrong", Statement(S(2 * s * c), S(s))),
    ("cubes_wrong", Statement(S(s**3 + s * c**2), S(c))),
]


@pytest.mark.parametrize("name,st", TRUE, ids=[t[0] for t in TRUE])
def test_a_true_trigonometric_theorem_passes_its_derived_instances(name, st):
    o = check(theorem(st))
    lv = o.levels["instances"]
    assert lv.status is Level.PASS and lv.data["derived"], lv.detail
    assert "exact for n in {1, 2, 3}" in lv.detail, lv.detail
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES, o.how


@pytest.mark.parametrize("name,st", FALSE, ids=[t[0] for t in FALSE])
def test_a_false_trigonometric_theorem_is_refuted_exactly(name, st):
    o = check(theorem(st))
    assert o.verdict is Verdict.REFUTED, o.how
    assert o.levels["instances"].status is Level.FAIL and o.levels["instances"].data["derived"]
    assert not re.search(r"\d\.\d|e[+-]\d", o.counterexample), o.counterexample


@pytest.mark.parametrize("expr,zero", [
    (sp.sin(p) ** 2 + sp.cos(p) ** 2 - 1, True),
    (sp.sin(p) ** 2 - sp.cos(p) ** 2, False),
    (sp.sin(2 * p) - 2 * sp.sin(p) * sp.cos(p), False),  # different arguments are independent: not shown
    (sp.tan(p) * sp.cos(p) - sp.sin(p), False),  # another function left: not shown
    ((sp.sin(p) ** 2 + sp.cos(p) ** 2 - 1) / sp.sin(p), False),  # a trigonometric denominator: not shown
    (x[1] - x[1], False),  # no sine or cosine: for the zero test, not this reduction
    (sp.Matrix([sp.sin(p) ** 2 + sp.cos(p) ** 2 - 1, sp.cos(p) ** 2 - 1 + sp.sin(p) ** 2]), True),
    (sp.Matrix([sp.sin(p) ** 2 + sp.cos(p) ** 2 - 1, sp.sin(p)]), False),
])
def test_the_reduction_shows_zero_only_modulo_pythagoras(expr, zero):
    assert pythagorean_zero(expr) is zero
