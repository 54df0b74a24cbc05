"""Adversarial round 3, class B: definedness is a whitelist, summands are defined over their range.

(8) A SymPy function the kernel has no table for (zeta, Ei, li, besselk, expint, harmonic, erfinv,
beta, ...) has an unknown domain: ``0 * f(x) = 0`` is refused with a message naming it, while a step
keeping the same application on both sides, and the total or tabled functions, still pass.
(9) A summand as written must be defined for every value of its bound variable in the range, even
when SymPy's evaluation (which the kernel's canonical form performs) would cancel the singular factor.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Derivation, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.kernel.zero import zero_test

x, y = sp.symbols("x y", real=True)
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)


def _check(tid, lhs, rhs, chain):
    thm = Theorem(id=tid, title=tid, source="test", statement=Statement(lhs, rhs), derivation=chain,
                  dimensions=(n,) if (lhs.has(n) or rhs.has(n)) else ())
    return check_theorem(thm, numeric=False)


POLES = {"zeta": sp.zeta(x), "Ei": sp.Ei(x), "li": sp.li(x), "besselk": sp.besselk(0, x),
         "expint": sp.expint(1, x), "harmonic": sp.harmonic(x), "erfinv": sp.erfinv(x), "beta": sp.beta(x, y)}


@pytest.mark.parametrize("name", sorted(POLES))
def test_zero_times_a_function_with_an_unknown_domain_is_refused(name):
    f = POLES[name]
    e = sp.Mul(0, f, evaluate=False)
    o = _check(f"zero_times_{name.lower()}", e, sp.S.Zero, lambda e=e: Derivation(e).eq(0, "algebra"))
    assert o.verdict is not Verdict.PROVED
    # since review 15 such a SymPy function is refused as a term (test_round15_classes.py) ...
    assert f"SymPy's {name} is not among the functions" in o.how, o.how
    # ... and the zero test, reached directly, still does not know where it is defined
    res = zero_test(e, sp.S.Zero)
    assert not res.ok and f"does not know where {name} is defined" in res.explain(), res.explain()


@pytest.mark.parametrize("name", sorted(POLES))
def test_the_same_application_on_both_sides_still_passes(name):
    f = POLES[name]
    assert zero_test(f + 1 - 1, f).ok
    assert zero_test(2 * f - f, f).ok


@pytest.mark.parametrize("f", [sp.exp(x), sp.sin(x), sp.cosh(x), sp.Abs(x), sp.floor(x), sp.tanh(x), sp.erf(x),
                               sp.KroneckerDelta(k, n)])
def test_zero_times_a_total_function_is_still_zero(f):
    assert zero_test(sp.Mul(0, f, evaluate=False), sp.S.Zero).ok


def test_tabled_conditions_still_name_the_point():
    assert not zero_test(sp.Mul(0, sp.log(x), evaluate=False), 0).ok
    assert zero_test(sp.Mul(0, sp.log(sp.exp(x) + 1), evaluate=False), 0).ok
    assert not zero_test(sp.Mul(0, sp.atan(sp.I * x), evaluate=False), 0).ok   # atan(i) is infinite
    assert zero_test(sp.Mul(0, sp.atan(x), evaluate=False), 0).ok              # x real: 1 + x^2 > 0


def _unevaluated(kind, var):
    if kind == "k/k":
        return sp.Mul(var, sp.Pow(var, -1, evaluate=False), evaluate=False)
    if kind == "shift":
        return sp.Mul(var - 2, sp.Pow(var - 2, -1, evaluate=False), evaluate=False)
    if kind == "log":
        return sp.Add(sp.log(var), -sp.log(var), 1, evaluate=False)
    return sp.Add(sp.Pow(var, -1, evaluate=False), -sp.Pow(var, -1, evaluate=False), 1, evaluate=False)


@pytest.mark.parametrize("kind,lo,singular", [
    ("k/k", 0, True), ("k/k", 1, False), ("shift", 1, True), ("shift", 3, False),
    ("log", 0, True), ("log", 1, False), ("inv", 0, True), ("inv", 2, False),
])
def test_a_summand_must_be_defined_on_its_whole_range(kind, lo, singular):
    term = _unevaluated(kind, k)
    s = sp.Sum(term, (k, lo, n))
    value = n - lo + 1
    o = _check(f"sum_{kind.replace('/', '_')}_{lo}", s, value,
               lambda: Derivation(s).eq(sp.Sum(1, (k, lo, n)), "algebra").eq(value, "sum_evaluate"))
    if singular:
        assert o.verdict is not Verdict.PROVED
        assert "summand" in o.how and "range" in o.how
    else:
        assert o.verdict is Verdict.PROVED, o.how


def test_a_free_factor_cancelled_inside_a_sum_must_be_nonzero():
    z = sp.Symbol("z", real=True)
    zp = sp.Symbol("zp", positive=True)
    for sym, ok in ((z, False), (zp, True)):
        term = sp.Mul(sym, sp.Pow(sym, -1, evaluate=False), evaluate=False)
        s = sp.Sum(term, (k, 1, n))
        o = _check(f"sum_free_{sym.name}", s, n, lambda s=s: Derivation(s).eq(sp.Sum(1, (k, 1, n)), "algebra")
                   .eq(n, "sum_evaluate"))
        assert (o.verdict is Verdict.PROVED) is ok, o.how


def test_binomial_is_total_on_integers_only():
    assert zero_test(sp.Mul(0, sp.binomial(n, k), evaluate=False), 0).ok
    assert not zero_test(sp.Mul(0, sp.binomial(x, y), evaluate=False), 0).ok  # Gamma(x + 1) has poles
