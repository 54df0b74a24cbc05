"""Adversarial review 2 (public API): four classes of false claims that were graded ``proved``.

1. A power with a non-literal exponent is a possible division by zero: ``x**y`` is defined where
   ``x != 0`` unless the exponent is shown positive (``x**m * x**-m = 1`` fails at x = 0, m = 1), also
   for a summand (the condition on the bound variable is discharged over the whole range).
2. ``tanh`` is total on the reals only (``tanh(i pi/2) = zoo``): for an argument not shown real the
   condition is ``cosh(arg) != 0``.
3. A symbol whose assumptions allow an infinite value (``extended_real`` ...) is refused.
4. A class is trusted as SymPy's or symattn's only when it really lives there (not by ``__module__``).
Each class: false claims refused, true claims of the same shape still proved.
"""

from __future__ import annotations

import sys

import pytest
import sympy as sp

from symattn import Assumption, Derivation, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.kernel.terms import KernelError
from symattn.kernel.wellformed import check_term

U = lambda *a: sp.Mul(*a, evaluate=False)  # noqa: E731
x, y = sp.symbols("x y", real=True)
m = sp.Symbol("m", integer=True)
k = sp.Symbol("k", integer=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
p = sp.Symbol("p", positive=True)
xn = sp.Symbol("xn", real=True, nonzero=True)
npos = sp.Symbol("npos", integer=True, positive=True)
z = sp.Symbol("z")


def _check(lhs, rhs, rule="algebra", hyps=(), tid="r2"):
    thm = Theorem(id=tid, title=tid, source="test", statement=Statement(lhs, rhs), hypotheses=tuple(hyps),
                  derivation=lambda: Derivation(lhs).eq(rhs, rule))
    return check_theorem(thm, numeric=False)


# ------------------------------------------------------------------ class 1: symbolic exponents
POW_FALSE = [
    ((x**y + x**(y + 1)) / x**y, 1 + x, "algebra"),
    ((x**m + x**(m + 1)) / x**m, 1 + x, "algebra"),
    (U(x**y, x**(1 - y)), x, "algebra"),
    (U(x**m, x**(-m)), sp.Integer(1), "algebra"),
    (U(x**y, x**(-y)), sp.Integer(1), "algebra"),
    (U(0, x**m), sp.Integer(0), "algebra"),
    (U(0, x**(-y**2)), sp.Integer(0), "algebra"),
    (U(0, (x - 1)**y), sp.Integer(0), "algebra"),
    (U(0, x**(y - 1)), sp.Integer(0), "algebra"),
    (sp.Sum(U(k**y, k**(-y)), (k, 0, n)), n + 1, "sum_evaluate"),
]


@pytest.mark.parametrize("i", range(len(POW_FALSE)))
def test_symbolic_exponent_false_refused(i):
    lhs, rhs, rule = POW_FALSE[i]
    o = _check(lhs, rhs, rule, tid=f"pow_false_{i}")
    assert o.verdict is not Verdict.PROVED, o.how
    assert "!= 0" in o.how, o.how


POW_TRUE = [
    (U(xn**2, xn**(-2)), sp.Integer(1), "algebra", ()),
    (U(p**y, p**(-y)), sp.Integer(1), "algebra", ()),
    (U(p**y, p**(1 - y)), p, "algebra", ()),
    (U(0, x**(y**2 + 1)), sp.Integer(0), "algebra", ()),
    (U(0, x**npos), sp.Integer(0), "algebra", ()),
    (U(xn**m, xn**(-m)), sp.Integer(1), "algebra", ()),
    ((x**m + x**(m + 1)) / x**m, 1 + x, "algebra", (Assumption("x_ne_0", condition=sp.Ne(x, 0)),)),
    (U(x**y, x**(-y)), sp.Integer(1), "algebra", (Assumption("x_ne_0", condition=sp.Ne(x, 0)),)),
]


@pytest.mark.parametrize("i", range(len(POW_TRUE)))
def test_symbolic_exponent_true_proved(i):
    lhs, rhs, rule, hyps = POW_TRUE[i]
    o = _check(lhs, rhs, rule, hyps, tid=f"pow_true_{i}")
    assert o.verdict is Verdict.PROVED, o.how


# ------------------------------------------------------------------ class 2: tanh off the reals
TANH_FALSE = [
    (U(0, sp.tanh(z)), sp.Integer(0)),
    (sp.tanh(z) * sp.cosh(z), sp.sinh(z)),
    (U(0, sp.tanh(z + 1)), sp.Integer(0)),
    (U(0, sp.tanh(2 * z)), sp.Integer(0)),
    (U(0, sp.tanh(z - 1)), sp.Integer(0)),
    (U(0, sp.tanh(sp.I * x)), sp.Integer(0)),
    (sp.tanh(z) * sp.cosh(z) + 1, sp.sinh(z) + 1),
    (U(0, sp.tanh(z**2)), sp.Integer(0)),
    (2 * sp.tanh(z) * sp.cosh(z), 2 * sp.sinh(z)),
]


@pytest.mark.parametrize("i", range(len(TANH_FALSE)))
def test_tanh_complex_false_refused(i):
    lhs, rhs = TANH_FALSE[i]
    o = _check(lhs, rhs, tid=f"tanh_false_{i}")
    assert o.verdict is not Verdict.PROVED, o.how
    assert "cos" in o.how, o.how  # cosh(arg) != 0 (tanh(i x) = i tan(x): cos(x) != 0)


TANH_TRUE = [
    (U(0, sp.tanh(x)), sp.Integer(0)),
    (sp.tanh(x) * sp.cosh(x), sp.sinh(x)),
    (U(0, sp.tanh(x**2 + y)), sp.Integer(0)),
    (sp.tanh(p) * sp.cosh(p), sp.sinh(p)),
    (U(0, sp.sinh(z)), sp.Integer(0)),
    (U(0, sp.exp(z)), sp.Integer(0)),
]


@pytest.mark.parametrize("i", range(len(TANH_TRUE)))
def test_tanh_real_true_proved(i):
    lhs, rhs = TANH_TRUE[i]
    o = _check(lhs, rhs, tid=f"tanh_true_{i}")
    assert o.verdict is Verdict.PROVED, o.how


# ------------------------------------------------------------------ class 3: possibly infinite symbols
INFINITE = [dict(extended_real=True), dict(extended_positive=True), dict(extended_nonnegative=True),
            dict(extended_negative=True), dict(extended_nonpositive=True), dict(extended_nonzero=True),
            dict(infinite=True), dict(extended_real=True, extended_nonzero=True)]


@pytest.mark.parametrize("i", range(len(INFINITE)))
def test_possibly_infinite_symbol_refused(i):
    s = sp.Symbol("xe", **INFINITE[i])
    with pytest.raises(KernelError, match="may be infinite"):
        check_term(s + 1)
    o = _check(U(0, s), sp.Integer(0), tid=f"inf_false_{i}")
    assert o.verdict is not Verdict.PROVED and "may be infinite" in o.how, o.how
    o = _check(sp.Add(s, -s, evaluate=False), sp.Integer(0), tid=f"inf_false_add_{i}")
    assert o.verdict is not Verdict.PROVED and "may be infinite" in o.how, o.how


FINITE = [dict(real=True), dict(positive=True), dict(nonnegative=True), dict(extended_real=True, finite=True),
          dict(integer=True), dict(extended_positive=True, real=True), dict(), dict(complex=True)]


@pytest.mark.parametrize("i", range(len(FINITE)))
def test_finite_symbol_accepted(i):
    s = sp.Symbol("xf", **FINITE[i])
    check_term(s + 1)
    o = _check(U(0, s), sp.Integer(0), tid=f"inf_true_{i}")
    assert o.verdict is Verdict.PROVED, o.how


# ------------------------------------------------------------------ class 4: module spoofing
def _spoof(module, qualname=None):
    def pos(self):
        return True

    cls = type("h", (sp.Function,), {"_eval_is_positive": pos, "_eval_is_real": pos})
    cls.__module__ = module
    if qualname is not None:
        cls.__qualname__ = qualname
    return cls


SPOOFS = [("symattn.maths.softmax", None), ("symattn", None), ("symattn.kernel.zero", None),
          ("sympy.core.function", None), ("sympy", None), ("derivations", None),
          ("sympy.functions.elementary.exponential", None), ("symattn.maths.softmax", "f.<locals>.h"),
          ("symattn.kernel.zero", "TOTAL")]


@pytest.mark.parametrize("i", range(len(SPOOFS)))
def test_module_spoofing_refused(i):
    cls = _spoof(*SPOOFS[i])
    with pytest.raises(KernelError, match="_eval_is_positive"):
        check_term(cls(x))
    o = check_theorem(Theorem(id=f"spoof_{i}", title="s", source="test", statement=Statement(0, cls(x), "<"),
                              derivation=lambda: Derivation(sp.Integer(0)).lt(cls(x), "positivity")),
                      numeric=False)
    assert o.verdict is not Verdict.PROVED and "_eval_is_positive" in o.how, o.how


def test_spoof_planted_in_module_refused():
    mod = sys.modules["symattn.kernel.zero"]
    cls = _spoof("symattn.kernel.zero", "PlantedHead")
    mod.PlantedHead = cls
    try:
        with pytest.raises(KernelError, match="_eval_is_positive"):
            check_term(cls(x))
    finally:
        del mod.PlantedHead


def test_real_classes_accepted():
    from symattn.maths.masks import Band
    from symattn.maths.online_softmax import TileEnd
    from symattn.maths.permutation import Entry

    for cls in (Band, TileEnd, Entry):
        from symattn.kernel.wellformed import _own

        assert _own(cls), cls
    check_term(sp.exp(x) + sp.tanh(x) + sp.gamma(p) + sp.Sum(k, (k, 1, n)) + sp.Function("f")(x))
    printing = type("g", (sp.Function,), {"__module__": "tests.user", "_latex": lambda self, printer: "g"})
    check_term(printing(x))
    o = check_theorem(Theorem(id="real_pos", title="s", source="test", statement=Statement(0, sp.exp(x), "<"),
                              derivation=lambda: Derivation(sp.Integer(0)).lt(sp.exp(x), "positivity")),
                      numeric=False)
    assert o.verdict is Verdict.PROVED, o.how
