"""Property tests that try to fool the kernel with random near-miss identities."""

import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from symattn.engine.checker import Checker
from symattn.engine.theorem import Probabilistic, Theorem
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from symattn.rules import ProofContext, check_step

X = sp.symbols("x0:3", real=True)


@st.composite
def polynomials(draw, depth=3):
    """Random expression trees over x0..x2 with small integer constants (unexpanded)."""
    if depth == 0 or draw(st.booleans()):
        if draw(st.booleans()):
            return X[draw(st.integers(0, 2))]
        return sp.Integer(draw(st.integers(-3, 3)))
    a = draw(polynomials(depth=depth - 1))
    b = draw(polynomials(depth=depth - 1))
    op = draw(st.sampled_from(["add", "mul", "sub", "pow"]))
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    return a ** draw(st.integers(2, 3))


@st.composite
def monomials(draw):
    coeff = draw(st.integers(-3, 3).filter(lambda c: c != 0))
    powers = [draw(st.integers(0, 2)) for _ in X]
    return coeff * sp.Mul(*(x**k for x, k in zip(X, powers)))


@given(polynomials())
def test_algebra_accepts_a_polynomial_equal_to_its_expansion(p):
    assert check_step(p, sp.expand(p), "=", "algebra", {}, ProofContext()).status is Level.PASS


@given(polynomials(), monomials())
def test_algebra_rejects_an_expansion_off_by_one_monomial(p, m):
    r = check_step(p, sp.expand(p) + m, "=", "algebra", {}, ProofContext())
    assert r.status is Level.FAIL


@given(polynomials(), monomials())
def test_a_false_identity_never_reaches_proved(p, m):
    """Claim p = expand(p) + m with a one-step 'proof': the kernel must not say proved, and the
    Schwartz-Zippel level must refute it."""
    wrong = sp.expand(p) + m
    thm = Theorem(
        id="near_miss", title="", source="extension", statement=Statement(p, wrong),
        derivation=Derivation(p).eq(wrong, "algebra"),
        probabilistic=Probabilistic(lambda size: Statement(p, wrong), (1,), trials=2),
    )
    outcome = Checker().check(thm)
    assert outcome.verdict is Verdict.REFUTED
