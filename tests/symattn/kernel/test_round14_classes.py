"""Adversarial review 14: two more SymPy handlers decided facts they cannot know.

``Pow``: ``(-1)**e`` with ``e`` rational of unknown integrality (``n (n - 1)/2``, ``k/2``) was called
imaginary and not real (SymPy read "not shown an integer" as "not an integer"), so ``re`` of it folded
to 0 and ``KroneckerDelta(it, 1)`` to 0, though it is 1 at ``n = 0``. ``gamma``: ``gamma(x)`` for a
noninteger ``x`` of unknown sign took the sign of the negative branch (``gamma(o + 1/2)`` "nonpositive"
for an odd ``o``, though ``gamma(3/2) > 0``), so ``Abs`` gave ``-gamma`` and ``Max(gamma, 0)`` gave 0.
Both handlers are corrected in ``symattn.kernel.sympy_fixes``.
"""

from __future__ import annotations

import pytest
import sympy as sp

import symattn.kernel.sympy_fixes  # noqa: F401  (the corrected handlers, before any term is built)

n = sp.Symbol("n", integer=True)
k = sp.Symbol("k", integer=True)
o = sp.Symbol("o", odd=True)
N = sp.Symbol("N", integer=True, positive=True)


@pytest.mark.parametrize("e", [(-1) ** (n * (n - 1) / 2), (-1) ** (k / 2), (-1) ** ((o - 1) / 2),
                               (-1) ** ((k + N) * (k + N - 1) / 2), (-2) ** (n * (n + 1) / 2)], ids=str)
def test_a_negative_base_to_a_rational_power_of_unknown_integrality_has_no_realness(e):
    assert e.is_imaginary is None and e.is_real is None and e.is_extended_real is None
    assert sp.KroneckerDelta(e, 1) != 0 and sp.re(e) != 0 and sp.Eq(e, 1) is not sp.false


@pytest.mark.parametrize("e,fact,value", [((-1) ** (k + sp.S.Half), "imaginary", True), ((-1) ** (2 * k), "real", True),
                                          ((-1) ** k, "real", True), (sp.Symbol("x", negative=True) ** sp.S.Half,
                                                                      "imaginary", True),
                                          (2 ** (k / 2), "positive", True)], ids=str)
def test_what_sympy_knows_of_powers_is_still_known(e, fact, value):
    assert getattr(e, f"is_{fact}") is value


@pytest.mark.parametrize("e", [sp.gamma(o + sp.S.Half), sp.gamma(2 * n - sp.S.Half),
                               sp.gamma(2 * N - sp.Rational(5, 2))], ids=str)
def test_gamma_of_a_noninteger_of_unknown_sign_has_no_sign(e):
    # each is positive at one value of its symbol and negative at another (gamma(3/2) > 0 > gamma(-1/2))
    for fact in ("positive", "negative", "nonpositive", "nonnegative", "extended_positive", "extended_negative"):
        assert getattr(e, f"is_{fact}") is None, fact
    assert sp.Abs(e) != -e and sp.Abs(e) != e and sp.Max(e, 0) != 0 and sp.Min(e, 0) != e


def test_gamma_reflection_product_is_not_called_positive():
    # gamma(o + 1/2) gamma(1/2 - o) = pi / cos(pi o) = -pi for an odd o
    e = sp.gamma(o + sp.S.Half) * sp.gamma(sp.S.Half - o)
    assert e.is_positive is not True and sp.Max(e, 0) != e


@pytest.mark.parametrize("e,positive", [(sp.gamma(sp.Symbol("p", positive=True)), True),
                                        (sp.gamma(-sp.S.Half), False), (sp.gamma(-sp.Rational(3, 2)), True),
                                        (sp.gamma(sp.Symbol("q", negative=True, noninteger=True) - 2), None)], ids=str)
def test_what_holds_of_gamma_is_still_known(e, positive):
    assert e.is_positive is positive


def test_a_false_claim_through_the_power_handler_is_not_proved():
    from symattn import Verdict

    from .claims import Claim, check, step

    z = (-1) ** (N * (N - 1) / 2)
    for claim in (Claim("re_zero", sp.re(z) + 0 * N, sp.Integer(0), (step(sp.Integer(0), "algebra"),)),
                  Claim("kd_zero", sp.KroneckerDelta(z, 1), sp.Integer(0), (step(sp.Integer(0), "algebra"),))):
        assert check(claim).verdict is not Verdict.PROVED


# the claim tables: false claims of the two shapes must not be proved (nor proved for instances), true
# ones of the same shapes must not be refuted
nn = sp.Symbol("nn", integer=True, nonnegative=True)
ev = sp.Symbol("ev", even=True)
yneg = sp.Symbol("yneg", negative=True)
j = sp.Symbol("j", integer=True, positive=True)
_t = (-1) ** (nn * (nn - 1) / 2)
_tj = (-1) ** (j * (j - 1) / 2)
_g = sp.gamma(o + sp.S.Half)
_ZERO, _ONE, _HALF = sp.Integer(0), sp.Integer(1), sp.S.Half


def _claim(tid, lhs, rhs, rule="algebra", relation="=", dims=()):
    from .claims import Claim, step

    return Claim(tid, lhs, rhs, (step(rhs, rule, relation),), relation=relation, dimensions=dims)


FALSE_CLAIMS = [
    _claim("re_of_sign_power_is_0", sp.re(_t), _ZERO),  # 1 at nn = 0
    _claim("delta_of_sign_power_is_0", sp.KroneckerDelta(_t, 1), _ZERO),
    _claim("piecewise_on_sign_power_is_0", sp.Piecewise((1, sp.Eq(_t, 1)), (0, True)), _ZERO),
    _claim("re_of_half_power_is_0", sp.re((-1) ** (k / 2)), _ZERO),  # 1 at k = 0
    _claim("re_of_negative_base_half_power_is_0", sp.re(yneg ** (k / 2)), _ZERO),
    _claim("unevaluated_re_below_minus_half", sp.re(_t, evaluate=False) + _HALF, _ZERO, "positivity", "<"),
    _claim("sum_of_re_is_0", sp.Sum(sp.re(_tj, evaluate=False), (j, 1, N)), _ZERO, "sum_evaluate", dims=(N,)),
    _claim("abs_gamma_is_minus_gamma", sp.Abs(_g), -_g),  # gamma(3/2) > 0 at o = 1
    _claim("max_gamma_0_is_0", sp.Max(_g, 0), _ZERO),
    _claim("gamma_half_odd_nonpositive", sp.gamma(ev + 3 * _HALF), _ZERO, "positivity", "<="),  # ev = 0
    _claim("min_gamma_0_is_gamma", sp.Min(sp.gamma(2 * n - _HALF), 0), sp.gamma(2 * n - _HALF)),  # n = 1
]

TRUE_CLAIMS = [
    _claim("im_of_sign_power_is_0", sp.im(_t), _ZERO),
    _claim("abs_re_of_sign_power_is_1", sp.Abs(sp.re(_t)), _ONE),
    _claim("delta_of_squared_sign_power_is_1", sp.KroneckerDelta(_t ** 2, 1), _ONE),
    _claim("re_of_half_power_is_cos", sp.re((-1) ** (k / 2)), sp.cos(sp.pi * k / 2)),
    _claim("sum_of_abs_re_is_n", sp.Sum(sp.Abs(sp.re(_tj)), (j, 1, N)), N, "sum_evaluate", dims=(N,)),
    _claim("abs_gamma_squared", sp.Abs(_g) ** 2, _g ** 2),
    _claim("min_gamma_0_nonpositive", sp.Min(_g, 0), _ZERO, "positivity", "<="),
    _claim("max_gamma_0_above_gamma", sp.Max(_g, 0), _g, "positivity", ">="),
    _claim("abs_gamma_positive_argument", sp.Abs(sp.gamma(N + _HALF)), sp.gamma(N + _HALF)),
]


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=[c.id for c in FALSE_CLAIMS])
def test_false_claims_of_the_two_shapes_are_not_proved(claim):
    from symattn import Verdict

    from .claims import check

    out = check(claim)
    assert out.verdict not in (Verdict.PROVED, Verdict.PROVED_FOR_INSTANCES), out.how


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=[c.id for c in TRUE_CLAIMS])
def test_true_claims_of_the_two_shapes_are_not_refuted(claim):
    from symattn import Verdict

    from .claims import check

    out = check(claim)
    assert out.verdict is not Verdict.REFUTED, out.how
