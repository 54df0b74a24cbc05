"""Integrals and limits are opaque atoms to the zero test: SymPy's integration and Gruntz's algorithm
never decide a step of ``algebra`` or ``evaluate_explicit`` (SymPy integrates |sin 3t| over 0..pi to
2/3, not 2), in either grading mode; a limit is closed only by the kernel's lemmas."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.kernel import grading
from tests.symattn.kernel.claims import Claim, assert_proved, assert_rejected, step

t, u, x = sp.symbols("t u x", real=True)
p = sp.Symbol("p", positive=True)
I, L, A, pi = sp.Integral, sp.Limit, sp.Abs, sp.pi


def claim(id, lhs, rhs, rule, why=""):
    return Claim(id, lhs, rhs, (step(rhs, rule),), bad_step=1, why=why)


WRONG = [  # values SymPy's integration gets wrong
    (I(A(sp.sin(3 * t)), (t, 0, pi)), sp.Rational(2, 3)),
    (I(A(sp.sin(t)), (t, 0, 3 * pi)), 2),
    (I(A(sp.sin(2 * t)), (t, 0, 2 * pi)), 2),
    (I(A(sp.cos(3 * t)), (t, 0, pi)), sp.Rational(4, 3)),
]
FALSE_CLAIMS = [claim(f"wrong_integral_{n}_{r}", lhs, rhs, r, why="no lemma that evaluates an integral")
                for n, (lhs, rhs) in enumerate(WRONG) for r in ("algebra", "evaluate_explicit")]
FALSE_CLAIMS += [
    claim("floor_integral_no_internal_error", I(sp.floor(t), (t, 0, 2)), 1, "algebra", why="opaque atom"),
    claim("sinc_limit_by_algebra", L(sp.sin(x) / x, x, 0), 1, "algebra", why="never by sympy's limit"),
    claim("sinc_limit_by_evaluate", L(sp.sin(x) / x, x, 0), 1, "evaluate_explicit", why="opaque atom"),
    claim("two_sided_abs_limit", L(A(x) / x, x, 0, "+-"), 1, "algebra", why="never by sympy's limit"),
    claim("ftc_by_sympy", sp.Derivative(I(sp.exp(t**2), (t, 0, p)), p), sp.exp(p**2), "algebra",
          why="opaque atom"),
]
TRUE_CLAIMS = [
    claim("integral_alpha_equal", I(A(sp.sin(3 * t)), (t, 0, pi)), I(A(sp.sin(3 * u)), (u, 0, pi)), "algebra"),
    claim("integral_linear", 2 * I(A(sp.sin(3 * t)), (t, 0, pi)) - I(A(sp.sin(3 * u)), (u, 0, pi)),
          I(A(sp.sin(3 * t)), (t, 0, pi)), "algebra"),
    claim("sinc_limit_by_lemma", L(sp.sin(x) / x, x, 0), 1, "limit_evaluate"),
    claim("decay_by_lemma", L(sp.exp(-p * x), x, sp.oo), 0, "limit_evaluate"),
]


@pytest.fixture(params=["default", "no-recheck"])
def mode(request, monkeypatch):
    if request.param == "no-recheck":
        monkeypatch.setenv("SYMATTN_REQUIRE_RECHECK", "0")
        monkeypatch.setattr(grading, "REQUIRE_RECHECK", False)
    return request.param


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda cl: cl.id)
def test_false_or_unevaluated_claim_fails_in_both_modes(claim, mode):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda cl: cl.id)
def test_true_claim_of_the_same_shape_is_proved(claim):
    assert_proved(claim)
