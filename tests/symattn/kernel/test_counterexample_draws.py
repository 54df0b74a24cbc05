"""The counterexample search over points inside the hypotheses: a draw the hypotheses reject is no
try, so a false claim under a relational hypothesis that half the draws miss (``x <= y``) is still
refuted, by an exact point inside the hypotheses; a true claim of the same shape never is."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level

x, y, z = sp.symbols("x y z", real=True)


def _theorem(st, *conds):
    hyps = tuple(Assumption(f"h{k}", condition=c) for k, c in enumerate(conds))
    return Theorem(id="claim", title="claim", source="extension", statement=st, hypotheses=hyps)


FALSE = [
    ("square_monotone", Statement(x**2, y**2, "<="), x <= y),
    ("square_monotone_strict", Statement(x**2, y**2, "<"), x < y),
    ("abs_below", Statement(sp.Abs(x), y, "<="), x <= y),
    ("reciprocal_antitone", Statement(1 / y, 1 / x, "<="), sp.And(x < y, sp.Ne(x, 0), sp.Ne(y, 0))),
    ("product_monotone", Statement(x * z, y * z, "<="), x <= y),
    ("cube_root_free", Statement(x**2 * y, y, "<="), x <= y),
    ("chain_square", Statement(x**2, z**2, "<="), sp.And(x <= y, y <= z)),
    ("sum_of_two", Statement(x + y, 2 * y - 1, "<="), x <= y),
]

TRUE = [
    ("square_of_nonnegatives", Statement(x**2, y**2, "<="), sp.And(x >= 0, x <= y)),
    ("abs_bound", Statement(x**2, y**2, "<="), sp.Abs(x) <= y),
    ("shift", Statement(x + 1, y + 1, "<="), x <= y),
    ("scaled", Statement(2 * x, 2 * y, "<="), x <= y),
    ("cube", Statement(x**3, y**3, "<="), x <= y),
    ("negated", Statement(-y, -x, "<="), x <= y),
    ("chain", Statement(x, z, "<="), sp.And(x <= y, y <= z)),
    ("midpoint", Statement(x, (x + y) / 2, "<="), x <= y),
]


@pytest.mark.parametrize("name,st,cond", FALSE, ids=[c[0] for c in FALSE])
def test_a_false_claim_under_a_relational_hypothesis_is_refuted_inside_it(name, st, cond):
    o = check_theorem(_theorem(st, cond), numeric=False)
    assert o.verdict is Verdict.REFUTED, o.how
    failing = [lv for lv in o.levels.values() if lv.status is Level.FAIL]
    assert failing and "hypotheses hold there" in failing[0].detail, o.how
    assert "." not in failing[0].detail.split("at ", 1)[1].split(";")[0], failing[0].detail  # exact values


@pytest.mark.parametrize("name,st,cond", TRUE, ids=[c[0] for c in TRUE])
def test_a_true_claim_of_the_same_shape_is_never_refuted(name, st, cond):
    o = check_theorem(_theorem(st, cond), numeric=False)
    assert o.verdict is not Verdict.REFUTED, o.how


# ------------------------------------------------------------------------- complex and imaginary symbols
# A symbol declared neither real nor anything implying it is complex: an equation about it that fails
# only off the real line is refuted at an exact Gaussian-rational point; an imaginary symbol is drawn
# as a nonzero multiple of i. An inequality's symbols stay real (complex numbers have no order).
zc, wc = sp.symbols("zc wc")
yi = sp.Symbol("yi", imaginary=True)
R = sp.Symbol("R", real=True)

COMPLEX_FALSE = [
    ("conjugate_is_identity", Statement(sp.conjugate(zc), zc)),
    ("abs_squared_is_square", Statement(sp.Abs(zc) ** 2, zc**2)),
    ("real_part_is_all", Statement(sp.re(zc), zc)),
    ("imaginary_part_vanishes", Statement(sp.im(zc), 0)),
    ("sqrt_of_square_is_modulus", Statement(sp.sqrt(zc**2), sp.Abs(zc))),
    ("conjugate_of_product_swaps_one", Statement(sp.conjugate(zc * wc), zc * sp.conjugate(wc))),
    ("imaginary_square_is_abs_square", Statement(yi**2, sp.Abs(yi) ** 2)),
    ("imaginary_is_its_conjugate", Statement(sp.conjugate(yi), yi)),
]

COMPLEX_TRUE = [
    ("conjugate_of_real", Statement(sp.conjugate(R), R)),
    ("abs_squared_of_real", Statement(sp.Abs(R) ** 2, R**2)),
    ("real_part_of_real", Statement(sp.re(R), R)),
    ("conjugate_is_additive", Statement(sp.conjugate(zc + wc), sp.conjugate(zc) + sp.conjugate(wc))),
    ("conjugate_twice", Statement(sp.conjugate(sp.conjugate(zc)), zc)),
    ("modulus_squared", Statement(zc * sp.conjugate(zc), sp.Abs(zc) ** 2)),
    ("imaginary_square", Statement(yi**2, -sp.Abs(yi) ** 2)),
    ("imaginary_conjugate", Statement(sp.conjugate(yi), -yi)),
    ("square_nonnegative_real", Statement(R**2, 0, ">=")),
]


@pytest.mark.parametrize("name,st", COMPLEX_FALSE, ids=[c[0] for c in COMPLEX_FALSE])
def test_an_equation_false_off_the_real_line_is_refuted_at_an_exact_complex_point(name, st):
    o = check_theorem(_theorem(st), numeric=False)
    assert o.verdict is Verdict.REFUTED, o.how
    assert "I" in o.how, o.how  # the point is off the real line, exactly


@pytest.mark.parametrize("name,st", COMPLEX_TRUE, ids=[c[0] for c in COMPLEX_TRUE])
def test_a_true_equation_about_complex_or_imaginary_symbols_is_never_refuted(name, st):
    o = check_theorem(_theorem(st), numeric=False)
    assert o.verdict is not Verdict.REFUTED, o.how


# --------------------------------------------------------------------------------------- patterned draws
# Claims that fail only where every symbol is negative at once, only below 1 for a positive symbol, or
# only beyond an imaginary part of pi: independent random draws reach such points rarely, so the search
# tries them first (every symbol -1/2, then -3 + 4i), inside the symbols' assumptions. Each false claim
# is refuted at an exact point; a true claim of the same shape never is.
a, b = sp.symbols("a b", real=True)
p, q = sp.symbols("p q", positive=True)
u = sp.Symbol("u", nonnegative=True)
m = sp.Symbol("m", integer=True)
w = sp.Symbol("w")

PATTERN_FALSE = [
    ("sqrt_of_product", Statement(sp.sqrt(a * b), sp.sqrt(a) * sp.sqrt(b))),
    ("sqrt_of_product_three", Statement(sp.sqrt(a * b * zc**2), sp.sqrt(a) * sp.sqrt(b) * zc)),
    ("sqrt_below_itself", Statement(sp.sqrt(p), p, "<=")),
    ("square_above_itself", Statement(p, p**2, "<=")),
    ("root_of_nonnegative_below", Statement(sp.sqrt(u), u, "<=")),
    ("log_of_exp", Statement(sp.log(sp.exp(w)), w)),
    ("sqrt_times_conjugate_root", Statement(sp.sqrt(w) * sp.sqrt(sp.conjugate(w)), sp.Abs(w))),
    ("sqrt_of_square_real", Statement(sp.sqrt(a**2), a)),
    ("cube_below_square", Statement(a**3, a**2, ">=")),
    ("product_of_integers_positive", Statement(m * (m + 1) * a * b, 0, "<=")),
]

PATTERN_TRUE = [
    ("sqrt_of_product_positive", Statement(sp.sqrt(p * q), sp.sqrt(p) * sp.sqrt(q))),
    ("sqrt_of_square_abs", Statement(sp.sqrt(a**2), sp.Abs(a))),
    ("log_of_exp_real", Statement(sp.log(sp.exp(a)), a)),
    ("exp_of_log", Statement(sp.exp(sp.log(w)), w)),
    ("am_gm", Statement(sp.sqrt(p * q), (p + q) / 2, "<=")),
    ("square_nonnegative", Statement(a**2 + b**2, 2 * a * b, ">=")),
    ("abs_of_product", Statement(sp.Abs(w * zc), sp.Abs(w) * sp.Abs(zc))),
    ("consecutive_integers", Statement(m * (m + 1), 0, ">=")),
]


@pytest.mark.parametrize("name,st", PATTERN_FALSE, ids=[c[0] for c in PATTERN_FALSE])
def test_a_claim_false_only_at_a_rare_sign_or_size_is_refuted_exactly(name, st):
    o = check_theorem(_theorem(st), numeric=False)
    assert o.verdict is Verdict.REFUTED, o.how
    at = o.how.split(" at ", 1)[1].split(":")[0]
    assert "." not in at, o.how  # exact values


@pytest.mark.parametrize("name,st", PATTERN_TRUE, ids=[c[0] for c in PATTERN_TRUE])
def test_a_true_claim_of_the_same_shape_is_not_refuted(name, st):
    o = check_theorem(_theorem(st), numeric=False)
    assert o.verdict is not Verdict.REFUTED, o.how


def test_a_claim_with_nothing_to_check_says_what_each_level_lacked():
    o = check_theorem(_theorem(Statement(sp.sqrt(a**2), sp.Abs(a))), numeric=False)
    assert o.verdict is Verdict.UNDECIDED
    assert "no derivation" in o.how and "no counterexample at the exact points" in o.how, o.how
