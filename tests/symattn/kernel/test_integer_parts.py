"""Floor, ceiling and fractional part of a closed number near an integer (issue 19, adversarial
round 23): SymPy evaluates them by floating point at a precision guessed from the magnitude, which
is too small near an integer (``floor(5 cos(2^-17))`` came out 5; the number is 4.99999999985...).
Statements are checked by substituting sizes, and SymPy evaluates the floors there, so a wrong
integer proved false instances and refuted true ones. Importing :mod:`symattn` installs an exact
check of SymPy's integer part (:mod:`symattn.kernel.integer_parts`).

Two tables: values of ``floor``/``ceiling``/``frac`` against mpmath at 120 digits (an oracle that
shares nothing with the code under test), and claims through the public API -- the false ones are
refuted at an exact point, the true ones never ``refuted``."""

from __future__ import annotations

import threading

import mpmath
import pytest
import sympy as sp

import symattn  # noqa: F401 -- installs the exact integer part
from symattn import Assumption, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem

n = sp.Symbol("n", integer=True, positive=True)
E17 = sp.Rational(1, 2**17)
E40 = sp.Rational(1, 2**40)

# closed numbers within about 10^-10 .. 10^-35 of an integer, on either side, and plain ones
NUMBERS = [
    ("five_cos", 5 * sp.cos(E17)),
    ("five_exp_minus", 5 * sp.exp(-E40)),
    ("five_exp_plus", 5 * sp.exp(E40)),
    ("five_tanh", 5 * sp.tanh(40)),
    ("minus_five_cos", -5 * sp.cos(E17)),
    ("seven_sqrt", 7 * sp.sqrt(1 - E40)),
    ("sqrt_above", sp.sqrt(10**20 + 1)),
    ("log_ratio", sp.log(8) / sp.log(2)),
    ("sqrt_two", sp.sqrt(2)),
    ("pi_power", sp.pi**3),
    ("golden_power", ((1 + sp.sqrt(5)) / 2) ** 40),
    ("near_pi_ratio", 3 * sp.atan(1) * 4 / sp.pi),
    ("cos_small_times_big", 1000 * sp.cos(sp.Rational(1, 10**6))),
]


def _mp(expr) -> mpmath.mpf:
    with mpmath.workdps(120):
        return mpmath.mpf(sp.N(expr, 120))


@pytest.mark.parametrize("name,x", NUMBERS, ids=[c[0] for c in NUMBERS])
def test_floor_ceiling_frac_against_mpmath_at_120_digits(name, x):
    value = _mp(x)
    with mpmath.workdps(120):
        floor_, ceil_ = int(mpmath.floor(value)), int(mpmath.ceil(value))
        assert abs(value - mpmath.nint(value)) > mpmath.mpf(10) ** -100 or value == mpmath.nint(value)
    for got, want in ((sp.floor(x), floor_), (sp.ceiling(x), ceil_)):
        # evaluated to the right integer, or left unevaluated (never a wrong integer)
        assert got == want or not got.is_Integer, (name, got, want)
    assert sp.floor(x) == floor_, (name, "floor left unevaluated")  # these are all decidable
    frac = sp.frac(x)
    if frac.is_number:
        with mpmath.workdps(120):
            assert abs(_mp(frac) - (value - floor_)) < mpmath.mpf(10) ** -90, (name, frac)


def test_integer_part_off_the_main_thread_stays_unevaluated():
    out = {}

    def run():
        out["floor"] = sp.floor(5 * sp.cos(E17))

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert out["floor"] == 4 or not out["floor"].is_Integer, out


def _thm(lhs, rhs, rel="=", hyps=()):
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, rhs, rel),
                   hypotheses=tuple(hyps), dimensions=(n,))


def _at_least(k):
    return (Assumption("h", n >= k),)


FALSE = [
    ("floor_five_cos", _thm(sp.floor(5 * sp.cos(E17)), 5)),
    ("frac_five_cos", _thm(sp.frac(5 * sp.cos(E17)), 0)),
    ("ceiling_five_exp", _thm(sp.ceiling(5 * sp.exp(E40)), 5)),
    ("floor_five_exp_minus", _thm(sp.floor(5 * sp.exp(-E40)), 5)),
    ("floor_five_tanh", _thm(sp.floor(5 * sp.tanh(40)), 5)),
    ("sized_floor_cos", _thm(sp.floor(n * sp.cos(E17)), n)),
    ("sized_floor_cos_power", _thm(sp.floor(5 * sp.cos(sp.Integer(2) ** -n)), 5, hyps=_at_least(17))),
    ("sized_ceiling_exp", _thm(sp.ceiling(n * sp.exp(E40)), n)),
    ("floor_ge", _thm(sp.floor(5 * sp.cos(E17)), 5, ">=")),
    ("frac_is_small", _thm(sp.frac(5 * sp.cos(E17)), sp.Rational(1, 2), "<")),
]

TRUE = [
    ("floor_five_cos", _thm(sp.floor(5 * sp.cos(E17)), 4)),
    ("frac_five_cos", _thm(sp.frac(5 * sp.cos(E17)), 5 * sp.cos(E17) - 4)),
    ("ceiling_five_exp", _thm(sp.ceiling(5 * sp.exp(E40)), 6)),
    ("floor_five_tanh", _thm(sp.floor(5 * sp.tanh(40)), 4)),
    ("sized_floor_cos", _thm(sp.floor(n * sp.cos(E17)), n - 1, hyps=(Assumption("h", n <= 1000),))),
    ("sized_floor_cos_power", _thm(sp.floor(5 * sp.cos(sp.Integer(2) ** -n)), 4)),
    ("sized_ceiling_exp_power", _thm(sp.ceiling(5 * sp.exp(sp.Integer(2) ** -n)), 6, hyps=_at_least(3))),
    ("sized_frac_cos_power", _thm(sp.frac(5 * sp.cos(sp.Integer(2) ** -n)), 5 * sp.cos(sp.Integer(2) ** -n) - 4)),
    ("floor_tanh_sized", _thm(sp.floor(5 * sp.tanh(n)), 4, hyps=_at_least(2))),
    ("log_ratio", _thm(sp.floor(sp.log(8) / sp.log(2)), 3)),
]


@pytest.mark.parametrize("name,thm", FALSE, ids=[c[0] for c in FALSE])
def test_a_false_claim_near_an_integer_is_refuted(name, thm):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is Verdict.REFUTED, (name, o.how)


@pytest.mark.parametrize("name,thm", TRUE, ids=[c[0] for c in TRUE])
def test_a_true_claim_near_an_integer_is_not_refuted(name, thm):
    o = check_theorem(thm, numeric=False)
    assert o.verdict is not Verdict.REFUTED, (name, o.how, {k: v.detail for k, v in o.levels.items()})
