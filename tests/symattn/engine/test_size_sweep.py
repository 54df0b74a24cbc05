"""The sweep of larger sizes (issue 19): a statement that mentions no symbol but its sizes (at each
size the sides are numbers) whose first counterexample lies beyond the counted and searched sizes is
refuted at an exact size inside the hypotheses, not graded ``proved-for-instances``; a true one keeps
its verdict and says it was swept; a statement whose exact values grow too fast to write out
(``2^(2^n)``) is not swept, and never hangs. Tables of false and true cases, through the public API;
each false case's counterexample is checked independently here (the sides evaluated by SymPy at the
size the verdict names)."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from symattn import Assumption, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem

n = sp.Symbol("n", integer=True, positive=True)
d = sp.Symbol("d", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
i = sp.Symbol("i", integer=True)
P3 = (n - 1) * (n - 2) * (n - 3)


def theorem(lhs, rhs, rel="=", hyps=(), dims=(n,)):
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, rhs, rel),
                   hypotheses=tuple(hyps), dimensions=tuple(dims))


def check(thm):
    return check_theorem(thm, numeric=False)


FALSE = [
    ("floor_by_ten", theorem(sp.floor(n / 10), 0)),
    ("floor_by_thousand", theorem(sp.floor(n / 1000), 0)),
    ("sum_of_floors", theorem(sp.Sum(sp.floor(k / 30), (k, 1, n)), 0)),
    ("mod_41", theorem(sp.Mod(n, 41), n)),
    ("strict_at_a_root", theorem((n - 10) ** 2 * (n - 11) ** 2, 0, ">")),
    ("linear_beats_square", theorem(1000 * n, n**2, ">=")),
    ("polynomial_beats_power", theorem(n**10 + 1, 2**n, ">=")),
    ("shifted_by_hypothesis", theorem(sp.floor(n / 15), 0, hyps=(Assumption("h", n >= 5),))),
    ("gap_in_hypothesis", theorem(P3, 0, hyps=(Assumption("h", sp.Or(n <= 3, n >= 20)),))),
    ("two_sizes", theorem(sp.floor(n * d / 50), 0, dims=(n, d))),
    ("window_count", theorem(sp.Sum(sp.Min(i, 10), (i, 1, n)), n * (n + 1) / 2)),
    ("factorial_threshold", theorem(sp.floor(sp.factorial(n) / 10**100), 0)),
    ("power_threshold", theorem(sp.floor(2**n / 10**300), 0)),
    # first counterexamples between the swept values (65..98, 258..510): found by narrowing
    ("floor_by_seventy", theorem(sp.floor(n / 70), 0)),
    ("floor_by_three_hundred", theorem(sp.floor(n / 300), 0, "<=")),
    ("square_beats_linear", theorem(n**2, 90 * n, "<=")),
    ("narrowed_under_hypothesis", theorem(sp.floor(n / 77), 0, hyps=(Assumption("h", n >= 70),))),
    # bounded and hyperbolic heads
    ("erf_threshold", theorem(sp.floor(10 * sp.erf(n / 20)), 8, "<=")),
    ("frac_near_zero", theorem(sp.frac(n * sp.sqrt(2)), sp.Rational(1, 100), ">")),
    ("cosh_threshold", theorem(sp.cosh(n), 10**20, "<")),
    ("tanh_threshold", theorem(sp.floor(100 * sp.tanh(n / 10)), 98, "<")),
    # steep terms with an irrational exponent or base (adversarial round 24: the sweep stopped at its
    # first size and still said it found none)
    ("irrational_exponent", theorem(sp.floor(n / 40) + sp.floor(sp.exp(-sp.pi * sp.sqrt(n))), 0)),
    ("irrational_base", theorem(sp.floor(n / 40) + sp.floor((2 - sp.sqrt(3)) ** n), 0)),
    ("near_integer_power", theorem(sp.floor((2 + sp.sqrt(3)) ** n + sp.Rational(1, 10**20)),
                                   sp.floor((2 + sp.sqrt(3)) ** n))),
    ("near_integer_exponential", theorem(sp.frac(sp.exp(sp.pi * sp.sqrt(n))), sp.Rational(999, 1000), "<",
                                         hyps=(Assumption("h", n >= 5),))),
    # every elementary head (round 24: tan, cot, coth, sech, asinh, acos were not swept)
    ("tanh_near_one", theorem(sp.floor(sp.tanh(n) + sp.Rational(1, 10**10)), 0)),
    ("tan_head", theorem(sp.floor(sp.tan(1 / (n + 1)) / 2) + sp.floor(n / 10), 0)),
    ("coth_head", theorem(sp.floor(sp.coth(n) - sp.Rational(1, 10**10)), 1)),
    ("sech_head", theorem(sp.floor(1 - sp.sech(n) + sp.Rational(1, 10**10)), 0)),
    ("asinh_head", theorem(sp.floor(1 / (1 + sp.asinh(n))) + sp.floor(n / 10), 0)),
    ("acos_head", theorem(sp.floor(sp.acos(1 / (n + 1)) / 2) + sp.floor(n / 10), 0)),
    # first counterexamples in 65..256, beyond 1025, several sizes beyond 24
    ("window_65_98", theorem(sp.floor(n / 65) * sp.floor(98 / n), 0)),
    ("window_130_254", theorem(sp.floor(n / 130) * sp.floor(254 / n), 0)),
    ("mod_67", theorem(sp.Mod(n**2, 67), 0, ">")),
    ("frac_of_exponential", theorem(sp.frac(sp.exp(sp.sqrt(n))), sp.Rational(99, 100), "<")),
    ("floor_by_1100", theorem(sp.floor(n / 1100), 0)),
    ("both_beyond_24", theorem(sp.floor(n / 25) * sp.floor(d / 25), 0, dims=(n, d))),
    ("product_beyond_24", theorem(sp.floor(n * d / 700), 0, dims=(n, d))),
    # a size an equation determines from another (round 27: the joint sweep stopped at 24)
    ("determined_size", theorem(sp.floor(d / 30), 0, hyps=(Assumption("h", sp.Eq(d, n + 1)),), dims=(n, d))),
    ("doubled_size", theorem(sp.floor(d / 513), 0, hyps=(Assumption("h", sp.Eq(d, 2 * n)),), dims=(n, d))),
    # one size beyond 24 against the other's smallest values inside the hypotheses (round 28: against
    # 1, 2, 3 only, which m >= 4 excludes)
    ("against_the_smallest_allowed", theorem(n, 6 * d + 5, "<=", hyps=(Assumption("h", d >= 4),), dims=(n, d))),
    ("offset_beyond_24", theorem(n, d + 24, "<=", hyps=(Assumption("h", d >= 4),), dims=(n, d))),
    ("floor_against_allowed", theorem(sp.floor(n / (d + 26)), 0, hyps=(Assumption("h", d >= 4),), dims=(n, d))),
    ("against_a_set", theorem(n, d + 24, "<=", hyps=(Assumption("h", sp.Contains(d, sp.FiniteSet(8, 16))),),
                              dims=(n, d))),
]

TRUE = [
    ("gauss", theorem(sp.Sum(k, (k, 1, n)), n * (n + 1) / 2)),
    ("power_beats_linear", theorem(2**n, n, ">")),
    ("floor_plus_ceiling", theorem(sp.floor(n / 2) + sp.ceiling(n / 2), n)),
    ("product_is_factorial", theorem(sp.Product(k, (k, 1, n)), sp.factorial(n))),
    ("squares", theorem(sp.Sum(k**2, (k, 1, n)), n * (n + 1) * (2 * n + 1) / 6)),
    ("mod_below", theorem(sp.Mod(n, n + 1), n)),
    ("two_sizes_floor", theorem(sp.floor((n + d) / 2) + sp.ceiling((n + d) / 2), n + d, dims=(n, d))),
    ("big_powers", theorem(3 ** (n**2), 2 ** (n**2), ">=")),
    ("with_hypothesis", theorem(sp.floor(n / 2), 2, ">=", hyps=(Assumption("h", n >= 4),))),
    ("tanh_below_one", theorem(sp.tanh(n), 1, "<")),
    ("floor_tanh", theorem(sp.floor(5 * sp.tanh(n)), 4, "<=")),
    ("atan_bounded", theorem(sp.floor(3 * sp.atan(n)), 4, "<=")),
    ("sinh_below_cosh", theorem(sp.sinh(n) - sp.cosh(n), 0, "<")),
    ("determined_size", theorem(sp.floor(d / 2), sp.floor((n + 1) / 2), hyps=(Assumption("h", sp.Eq(d, n + 1)),),
                                dims=(n, d))),
]

# true, with values no machine holds at the larger sizes: never swept (and never a hang)
STEEP = [
    ("tower", theorem(2 ** (2**n), 2**n, ">=")),
    ("sum_of_a_tower", theorem(sp.Sum(2 ** (2**k), (k, 1, n)), 2, ">=")),
    ("factorial_of_a_power", theorem(sp.factorial(2**n), 1, ">=")),
]


def _size(detail: str, dims) -> dict:
    """The sizes a refutation names: ``n = 10 (derived ...`` or ``(n, d) = (7, 8) (derived ...``."""
    m = re.match(r"(\([\w, ]+\)|\w+) = (\([\d, ]+\)|\d+) ", detail)
    assert m, detail
    names = [s.strip() for s in m.group(1).strip("()").split(",")]
    values = [int(v) for v in m.group(2).strip("()").split(",")]
    by_name = {str(s): s for s in dims}
    return {by_name[a]: sp.Integer(v) for a, v in zip(names, values, strict=True)}


@pytest.mark.parametrize("name,thm", FALSE, ids=[t[0] for t in FALSE])
def test_a_false_closed_statement_is_refuted_at_a_size_beyond_the_counted_ones(name, thm):
    o = check(thm)
    assert o.verdict is Verdict.REFUTED, o.how
    lv = o.levels["instances"]
    assert lv.data["derived"], lv.detail
    at = _size(lv.detail, thm.dimensions)
    # the counterexample, independently: inside the hypotheses and the statement false there
    for h in thm.hypotheses:
        assert bool(h.condition.xreplace(at)), (h, at)
    st = thm.statement
    a, b = (sp.sympify(side).xreplace(at).doit() for side in (st.lhs, st.rhs))
    holds = {"=": sp.Eq, "<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge}[st.relation](a, b)
    assert holds is sp.false, (at, a, b)
    if len(thm.dimensions) == 1:  # one size: the smallest counterexample inside the hypotheses
        (size,) = at.values()
        for v in range(1, int(size)):
            below = {thm.dimensions[0]: sp.Integer(v)}
            if not all(bool(h.condition.xreplace(below)) for h in thm.hypotheses):
                continue
            a, b = (sp.sympify(side).xreplace(below).doit() for side in (st.lhs, st.rhs))
            holds = {"=": sp.Eq, "<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge}[st.relation](a, b)
            assert holds is sp.true, (name, "a smaller counterexample", v, size)


@pytest.mark.parametrize("name,thm", TRUE, ids=[t[0] for t in TRUE])
def test_a_true_closed_statement_is_swept_and_keeps_its_verdict(name, thm):
    o = check(thm)
    assert o.verdict is not Verdict.REFUTED, o.how
    lv = o.levels["instances"]
    assert "a sweep of larger sizes" in lv.detail, lv.detail


@pytest.mark.parametrize("name,thm", STEEP, ids=[t[0] for t in STEEP])
@pytest.mark.timeout(60)
def test_a_statement_growing_too_fast_is_not_swept(name, thm):
    o = check(thm)
    assert o.verdict is not Verdict.REFUTED, o.how
    assert "a sweep of larger sizes" not in o.levels["instances"].detail


def test_a_statement_with_a_free_variable_is_not_swept():
    x = sp.Symbol("x", real=True)
    o = check(theorem(x**2 + n, n, ">="))
    assert o.verdict is not Verdict.REFUTED, o.how
    assert "a sweep of larger sizes" not in o.levels["instances"].detail
