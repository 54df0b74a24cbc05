"""The second engine: flint re-checks the kernel's zero tests, Z3 its sign obligations; a step on
which they disagree fails with both answers shown; the JSON says what was re-checked."""

import pytest
import sympy as sp

from symattn import Derivation, Statement, Theorem, Verdict
from symattn.engine.checker import Checker, outcome_to_json
from symattn.kernel import second
from symattn.kernel.second import flint_zero
from symattn.kernel.second.flint_zero import recheck_zero
from symattn.kernel.zero import _reduces_to_zero, zero_test

x, y, z = sp.symbols("x y z", real=True)
p = sp.Symbol("p", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
X = sp.IndexedBase("X")
f = sp.Function("f")
S = sp.Sum(X[k], (k, 1, n))
M_ = sp.Symbol("M_", integer=True)
R = sp.IndexedBase("R", real=True)

# claims lhs == rhs that are identities: SymPy (the kernel) reduces them to 0 and flint agrees
TRUE_ZERO = [
    ((x + y) ** 2, x**2 + 2 * x * y + y**2),
    ((x**2 - 1) / (x - 1), x + 1),
    (1 / x + 1 / y, (x + y) / (x * y)),
    (sp.exp(x + y), sp.exp(x) * sp.exp(y)),
    (sp.exp(2 * x), sp.exp(x) ** 2),
    ((1 + sp.sqrt(p)) * (1 - sp.sqrt(p)), 1 - p),
    (2 ** (n + 1), 2 * 2**n),
    (sp.Sum(X[k] + 2 * y * X[k] ** 2, (k, 1, n)), S + 2 * y * sp.Sum(X[k] ** 2, (k, 1, n))),
    (sp.Sum(y, (k, 1, n)), n * y),  # Karr's convention: (hi - lo + 1) copies
    (f(x + x) * X[k + 1 - 1], f(2 * x) * X[k]),
    ((x + sp.I) * (x - sp.I), x**2 + 1),
    (sp.sin(x) ** 2 + sp.cos(x) ** 2, 1),  # Euler: sin, cos through exp(i x), i**2 = -1
    (sp.cos(x - y), sp.sin(x) * sp.sin(y) + sp.cos(x) * sp.cos(y)),
]

# claims that are false: SymPy does not reduce them to 0, and flint shows them nonzero
FALSE_ZERO = [
    ((x + y) ** 2, x**2 + y**2),
    ((x**2 - 1) / (x - 1), x - 1),
    (1 / x + 1 / y, 2 / (x + y)),
    (X[k], X[k + 1]),
    (f(x), f(y)),
    (sp.pi * x, 3 * x),
    ((x + sp.I) * (x - sp.I), x**2 - 1),
    (x**3 - y**3, (x - y) * (x**2 + y**2)),
    (sp.Rational(1, 3) * x, x / 4),
    (X[1] * X[2] - X[2] * X[1] + z, 0),
]


@pytest.mark.parametrize("lhs,rhs", TRUE_ZERO)
def test_true_zero_claims_both_engines_agree(lhs, rhs):
    assert _reduces_to_zero(lhs - rhs)
    check = recheck_zero(lhs - rhs)
    assert check.verdict == second.AGREE, check.reason
    assert check.engine == "flint"


@pytest.mark.parametrize("lhs,rhs", FALSE_ZERO)
def test_false_zero_claims_both_engines_refuse(lhs, rhs):
    assert not _reduces_to_zero(lhs - rhs)
    check = recheck_zero(lhs - rhs)
    assert check.verdict == second.DISAGREE, check.reason  # flint on its own: not identically 0
    assert not zero_test(lhs, rhs).ok


@pytest.mark.parametrize("lhs,rhs", [
    (sp.Sum(X[k] * S, (k, 1, n)), S**2),  # keys are alpha-invariant: one atom whatever the binding level
    (sp.Sum(X[k], (k, 1, n)), sp.Sum(X[k], (k, 1, n - 1)) + X[n]),  # Karr: A(n) - A(0), A(n) - A(n-1) = X_n
    (sp.Sum(X[k], (k, 1, n)), sp.Sum(X[k], (k, 1, M_)) + sp.Sum(X[k], (k, M_ + 1, n))),  # split anywhere
    (sp.Sum(X[k], (k, n, n)), X[n]),
    (sp.Sum(X[k], (k, 1, 0)), 0),  # empty
    (sp.Sum(k, (k, 1, n)), n * (n + 1) / 2),  # Faulhaber
    (sp.Sum(k, (k, 1, -5)), 10),  # Karr: -sum_{-4}^{0} k
    (sp.tanh(x), (sp.exp(2 * x) - 1) / (sp.exp(2 * x) + 1)),  # through w = exp(x)
    (sp.log(2**n) / sp.log(2), n),  # log of a real power of a positive base
    (sp.log(8 * p), 3 * sp.log(2) + sp.log(p)),
    (sp.log(sp.exp(-R[n]) * sp.Sum(sp.exp(R[k]), (k, 1, n))), sp.log(sp.Sum(sp.exp(R[k]), (k, 1, n))) - R[n]),
    (sp.Abs(x - y), sp.Abs(y - x)),
    (sp.Abs(2 * x - 2), 2 * sp.Abs(x - 1)),
    (sp.Abs(x * y), sp.Abs(x) * sp.Abs(y)),  # |.| over flint's irreducible factors
    (sp.Derivative(x**2 * y + sp.exp(x * y), x, evaluate=False), 2 * x * y + y * sp.exp(x * y)),  # product rule
    (sp.Derivative(f(X[k]) + X[k], X[M_]), sp.Derivative(f(X[k]), X[M_]) + sp.KroneckerDelta(k, M_)),
    (sp.Abs(x**2 - y**2), sp.Abs(x - y) * sp.Abs(x + y)),
    (sp.KroneckerDelta(k, M_), sp.KroneckerDelta(M_, k)),
    (sp.exp(x / 2) ** 3, sp.exp(x) * sp.exp(x / 2)),  # exp(x/2) is tied to exp(x)
    (sp.E / (sp.E + 2 * sp.exp(sp.Rational(1, 2))), sp.exp(sp.Rational(1, 2)) / (sp.exp(sp.Rational(1, 2)) + 2)),
])
def test_flint_alone_knows_sums_by_karrs_convention(lhs, rhs):
    # SymPy's simplifier (the kernel's zero test) leaves these to the kernel's sum rules
    assert recheck_zero(lhs - rhs).verdict == second.AGREE


@pytest.mark.parametrize("expr", [
    sp.log(x**2) - 2 * sp.log(x),  # false at x = -1: log(x**2) is real, 2 log(x) is not
    sp.log(x * y) - sp.log(x) - sp.log(y),  # x, y only real
    sp.Abs(x) - x,
    sp.exp(x) ** sp.Rational(1, 2) - sp.exp(x / 2) + sp.Abs(x),
    # the sum may be empty (m <= 0): its log is not split off
    sp.log(sp.exp(-R[n]) * sp.Sum(sp.exp(R[k]), (k, 1, M_))) + R[n] - sp.log(sp.Sum(sp.exp(R[k]), (k, 1, M_))),
    sp.log(sp.exp(X[n])) - X[n],  # X is not declared real
])
def test_identities_that_need_a_sign_are_never_agreed(expr):
    assert recheck_zero(expr).verdict != second.AGREE


def test_flint_does_not_give_a_non_integer_bound_a_count():
    assert recheck_zero(sp.Sum(X[k], (k, 1, n / 2)) - sp.Sum(X[k], (k, 1, n / 2 - 1)) - X[n / 2]).verdict \
        == second.INEXPRESSIBLE


@pytest.mark.parametrize("expr,why", [
    (sp.log(p * y**2) - sp.log(p) - sp.log(y**2), "may be related"),  # log atoms: relations flint does not know
    (sp.Float(0.5) * x - x / 3, "floating-point"),
    (sp.log(x * y) - sp.log(x) - sp.log(y), "may be related"),
    (sp.Sum(y, (k, 1, n / 2)) - n * y / 2, "may be related"),  # no count for a non-integer bound
])
def test_what_flint_cannot_decide_is_inexpressible_never_agreement(expr, why):
    check = recheck_zero(expr)
    assert check.verdict == second.INEXPRESSIBLE
    assert why in check.reason


def _theorem(lhs, rhs, derivation, **kw):
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, rhs),
                   derivation=derivation, numeric=False, **kw)


def test_an_injected_disagreement_fails_the_step_with_both_answers(monkeypatch):
    lie = second.Check("flint", second.DISAGREE, "the numerator over Q is the nonzero polynomial 1 (injected)",
                       "(x + 1)**2 - x**2 - 2*x - 1 == 0", "SymPy reduces it to 0")
    monkeypatch.setattr(flint_zero, "recheck_zero", lambda expr, **kw: lie)
    thm = _theorem((x + 1) ** 2, x**2 + 2 * x + 1, Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra"))
    out = Checker(numeric=False).check(thm)
    assert out.verdict != Verdict.PROVED
    reason = out.steps[0].reason
    assert "kernel: SymPy reduces it to 0" in reason and "flint: the numerator over Q is" in reason
    assert out.levels["symbolic"].status.value == "fail"


def test_without_the_injection_the_same_step_is_rechecked_by_both():
    thm = _theorem((x + 1) ** 2, x**2 + 2 * x + 1, Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra"))
    out = Checker(numeric=False).check(thm)
    rec = outcome_to_json(thm, out)
    assert rec["steps"][0]["rechecked"] == "both", rec["steps"]
    assert rec["rechecked"] == "all"
    assert out.verdict == Verdict.PROVED
    assert any(c.engine == "flint" and c.verdict == second.AGREE for c in out.engines[0][1])


def test_a_step_flint_cannot_express_is_shown_as_one_engine(monkeypatch):
    from symattn.kernel import grading

    monkeypatch.setattr(grading, "REQUIRE_RECHECK", True)
    lhs, rhs = sp.gamma(p + 1), p * sp.gamma(p)  # SymPy's gammasimp knows it; flint's atoms do not
    thm = _theorem(lhs, rhs, Derivation(lhs).eq(rhs, "algebra"))
    out = Checker(numeric=False).check(thm)
    rec = outcome_to_json(thm, out)
    assert out.steps[0].ok
    assert rec["steps"][0]["rechecked"] == "one-engine" and "may be related" in rec["steps"][0]["why"]
    assert rec["rechecked"] == "none"
    # graded below proved, with the reason
    assert out.levels["symbolic"].status.value == "pass"
    assert out.verdict != Verdict.PROVED
    assert "not every step was re-checked by the second engine" in out.how and "step 1 (algebra)" in out.how
    monkeypatch.setattr(grading, "REQUIRE_RECHECK", False)  # SYMATTN_REQUIRE_RECHECK=0: proved, the step named
    out = Checker(numeric=False).check(thm)
    assert out.verdict == Verdict.PROVED and "checked by one engine only at: step 1 (algebra)" in out.how


@pytest.mark.parametrize("env, required", [(None, True), ("1", True), ("0", False)])
def test_require_recheck_is_the_default_and_0_turns_it_off(monkeypatch, env, required):
    import importlib

    from symattn.kernel import grading

    if env is None:
        monkeypatch.delenv("SYMATTN_REQUIRE_RECHECK", raising=False)
    else:
        monkeypatch.setenv("SYMATTN_REQUIRE_RECHECK", env)
    try:
        assert importlib.reload(grading).REQUIRE_RECHECK is required
    finally:
        monkeypatch.undo()
        importlib.reload(grading)


def test_with_the_second_engine_off_no_derivation_is_a_proof(monkeypatch):
    from symattn.kernel import grading

    monkeypatch.setattr(grading, "REQUIRE_RECHECK", True)
    lhs, rhs = (x + 1) ** 2, x**2 + 2 * x + 1
    thm = _theorem(lhs, rhs, Derivation(lhs).eq(rhs, "algebra"))
    with second.disabled():
        out = Checker(numeric=False).check(thm)
    assert out.levels["symbolic"].status.value == "pass" and out.verdict != Verdict.PROVED
    assert "the second engine is off" in out.how
    assert Checker(numeric=False).check(thm).verdict == Verdict.PROVED


def test_a_step_passed_without_the_kernels_theorem_is_never_proved(monkeypatch):
    """What an unconverted rule did (a pass that is its own decision, no theorem of the kernel) is no
    proof, whatever REQUIRE_RECHECK says: the symbolic level fails the step."""
    import dataclasses

    from symattn.engine import checker
    from symattn.kernel import grading

    real = checker.check_step

    def decided_by_the_rule(*args, **kw):
        return dataclasses.replace(real(*args, **kw), thm=None)

    lhs, rhs = (x + 1) ** 2, x**2 + 2 * x + 1
    thm = _theorem(lhs, rhs, Derivation(lhs).eq(rhs, "algebra"))
    for require in (True, False):
        monkeypatch.setattr(grading, "REQUIRE_RECHECK", require)
        monkeypatch.setattr(checker, "check_step", decided_by_the_rule)
        out = Checker(numeric=False).check(thm)
        assert out.verdict != Verdict.PROVED, out.how
        assert out.levels["symbolic"].status.value == "fail"
        assert "without a theorem of the kernel" in out.levels["symbolic"].detail
        monkeypatch.setattr(checker, "check_step", real)
        assert Checker(numeric=False).check(thm).verdict == Verdict.PROVED  # with the theorem: proved


# ------------------------------------------------------------------------------------------- Z3
from symattn.kernel.second import z3_sign  # noqa: E402
from symattn.kernel.second.integers import recheck_integer  # noqa: E402
from symattn.kernel.second.z3_sign import recheck_sign  # noqa: E402
from symattn.kernel.sign import nonzero, sign_of  # noqa: E402

m = sp.Symbol("m", integer=True)
j = sp.Symbol("j", integer=True)
P = sp.IndexedBase("P", positive=True)
AGREE, DISAGREE, INEXPRESSIBLE = second.AGREE, second.DISAGREE, second.INEXPRESSIBLE

# (expr, relation, ranges, what Z3 must say)
SIGNS = [
    (x**2 + 1, "positive", (), AGREE),
    (x**2 * y**2 - 2 * x * y + 1, "nonnegative", (), AGREE),
    (x**2 - 1, "positive", (), DISAGREE),  # x = 0
    (x * y, "nonnegative", (), DISAGREE),
    (sp.exp(x) - sp.exp(x - 1), "positive", (), AGREE),  # exp atoms ordered as their arguments
    (sp.log(p) - p + 1, "nonpositive", (), AGREE),
    (sp.log(x), "positive", (), INEXPRESSIBLE),  # log's argument is not shown positive
    (sp.sqrt(p) - 1, "nonnegative", (), DISAGREE),  # p = 1/4: a root is exact (R >= 0, R**2 = p)
    (sp.sqrt(p) + sp.sqrt(x**2), "nonnegative", (), AGREE),
    (sp.Max(x, 1), "positive", (), AGREE),
    (sp.Abs(x) - x, "nonnegative", (), AGREE),
    (sp.Piecewise((x, x > 0), (-x, True)), "nonnegative", (), AGREE),
    (sp.Piecewise((x, x > 0)), "nonnegative", (), INEXPRESSIBLE),  # no default branch
    (m - 1, "nonnegative", ((m, 1, n),), AGREE),
    (n - m, "nonnegative", ((m, 1, n),), AGREE),
    (n - m, "positive", ((m, 1, n),), DISAGREE),  # m = n
    (x - 1, "positive", ((x, 1, n),), DISAGREE),  # a ranged real may sit on its bound
    (sp.Sum(P[k], (k, 1, n)), "positive", (), AGREE),
    (sp.Sum(R[k] ** 2, (k, 1, n)), "nonnegative", (), AGREE),
    (sp.Sum(R[k] ** 2, (k, 1, n)), "positive", (), INEXPRESSIBLE),
    (sp.exp(x) / sp.Sum(sp.exp(R[k]), (k, 1, n)), "positive", (), AGREE),
    (sp.Sum(P[k], (k, 1, m)), "nonnegative", (), INEXPRESSIBLE),  # m may be -2: a reversed range
    (sp.Sum(P[k], (k, 1, m)), "nonnegative", ((m, 0, n),), AGREE),  # hi >= lo - 1: not reversed
    (sp.Sum(P[k], (k, 1, 0)), "nonpositive", (), AGREE),  # empty: 0
    (sp.Sum(P[k], (k, 1, m)), "nonpositive", ((m, -n, -1),), AGREE),  # Karr: -sum_{m+1}^{0} P_k <= 0
    (sp.Sum(P[k], (k, 1, m)), "negative", ((m, -n, -2),), AGREE),
    (sp.Sum(k, (k, 1, -5)), "nonnegative", (), AGREE),  # = -sum_{-4}^{0} k = 10
    (sp.Sum(-k, (k, 1, -5)), "nonpositive", (), AGREE),
    (sp.Sum(sp.Abs(k) - k, (k, 1, -5)), "nonnegative", (), INEXPRESSIBLE),  # it is -20: never agreement
    (sp.Sum(sp.Abs(k) - k, (k, 1, -5)), "nonpositive", (), AGREE),
    (sp.Sum(1, (k, 1, -5)), "positive", (), DISAGREE),  # (hi - lo + 1) c = -5, exact
    (sp.Sum(y**2, (k, 1, m)), "nonnegative", ((m, 0, n),), AGREE),
    (sp.Sum(sp.Sum(P[j], (j, 1, k)), (k, 1, n)), "positive", (), AGREE),  # nested: inner range from k
    (sp.Sum(P[k], (k, sp.Max(1, n - m), n)), "positive", ((m, 0, n),), AGREE),  # an integer Max as a bound
    (lambda: _tile_end(), "nonnegative", (), AGREE),  # TileEnd(w, T) is w_1 + ... + w_T
    (lambda: sp.Sum(P[k], (k, 1, _tile_end())), "positive", (), INEXPRESSIBLE),  # the tiles may be empty
    (sp.Product(P[k], (k, 1, m)), "positive", (), AGREE),  # reversed too: 1/prod of positives
    (sp.KroneckerDelta(m, j) - 1, "nonpositive", (), AGREE),
    ((-1) ** m, "nonzero", (), AGREE),
    (sp.tanh(x) + 1, "positive", (), AGREE),
    (x**2 + 1, "nonzero", (), AGREE),
    (sp.exp(x), "nonzero", (), AGREE),
    (x, "nonzero", (), DISAGREE),
    (n - m, "nonzero", ((m, 1, n),), DISAGREE),
    (sp.Sum(P[k], (k, 1, n)), "nonzero", (), AGREE),
    (sp.sin(x), "positive", (), INEXPRESSIBLE),
    (sp.Abs(sp.Symbol("w") + 1), "nonnegative", (), AGREE),  # |u| of a complex u is still >= 0
    (sp.Abs(sp.Symbol("w") + 1), "positive", (), INEXPRESSIBLE),
    (sp.Symbol("w") ** 2, "nonnegative", (), INEXPRESSIBLE),  # not declared real
]


def _tile_end():
    from symattn.maths.online_softmax import TileEnd

    return TileEnd(sp.IndexedBase("w", integer=True, nonnegative=True), n)


@pytest.mark.parametrize("expr,relation,ranges,expected", SIGNS)
def test_z3_sign_table(expr, relation, ranges, expected):
    expr = expr() if callable(expr) else expr
    check = recheck_sign(expr, relation, ranges=ranges)
    assert check.verdict == expected, check.reason
    assert check.engine == "z3"


INTEGRAL = [
    (n * (n + 1) / 2, False, AGREE),
    (n * (n - 1) * (n - 2) / 6, False, AGREE),
    (m**2 / 2 + m / 2, False, AGREE),
    (sp.floor(x / 2), False, AGREE),
    (n / 2, False, DISAGREE),
    ((n**2 + 1) / 2, False, DISAGREE),
    (sp.Symbol("e", even=True) / 2, False, AGREE),
    (m + sp.Rational(1, 2), True, AGREE),
    (m / 2, True, DISAGREE),  # m = 0
    (x, False, DISAGREE),
    (sp.Sum(k**2, (k, 1, n)), False, AGREE),  # a sum of integers
    (sp.Sum(k / 2, (k, 1, n)), False, INEXPRESSIBLE),
]


@pytest.mark.parametrize("expr,negate,expected", INTEGRAL)
def test_integrality_table(expr, negate, expected):
    check = recheck_integer(expr, negate=negate)
    assert check.verdict == expected, check.reason


@pytest.mark.parametrize("c", [sp.Rational(1, 2), sp.Integer(1), sp.Integer(-3), sp.Rational(7, 3), sp.Integer(64)])
def test_rational_bounds_of_exp_hold_to_50_digits(c):
    from fractions import Fraction

    import mpmath

    lo, hi = z3_sign._exp_bounds(Fraction(int(c.p), int(c.q)))
    with mpmath.workdps(50):
        e = mpmath.exp(mpmath.mpf(int(c.p)) / int(c.q))
        assert mpmath.mpf(lo.numerator) / lo.denominator < e < mpmath.mpf(hi.numerator) / hi.denominator
    assert hi - lo < Fraction(1, 10**6) * (1 + hi)


def test_integrality_reads_the_hypotheses_like_the_kernel():
    N, B, T = sp.symbols("N B T", integer=True, positive=True)
    assert recheck_integer(N / B).verdict == DISAGREE
    assert recheck_integer(N / B, conditions=(sp.Eq(T, N / B, evaluate=False),)).verdict == AGREE
    assert recheck_integer(N / B, conditions=(sp.Eq(sp.Mod(N, B), 0),)).verdict == AGREE
    assert recheck_integer(N / (2 * B), conditions=(sp.Eq(sp.Mod(N, B), 0),)).verdict == DISAGREE


def test_an_index_range_makes_its_symbol_an_integer():
    i = sp.Symbol("i")  # declared nothing; an IndexRange index is an integer
    assert recheck_integer(i + 1, integers=(i,), ranges=((i, 1, n),)).verdict == AGREE
    assert recheck_integer(i + 1).verdict == INEXPRESSIBLE


def test_every_z3_call_has_a_timeout_and_unknown_is_never_agreement(monkeypatch):
    monkeypatch.setattr(z3_sign, "TIMEOUT_MS", 1)
    z3_sign._decide.cache_clear()
    hard = (x**7 - 3 * x**5 * y**2 + x * y**6 - 2 * x**3 + y - 5) ** 2 + 1
    try:
        check = recheck_sign(hard, "positive")
    finally:
        z3_sign._decide.cache_clear()
    assert check.verdict in (AGREE, INEXPRESSIBLE)
    if check.verdict == INEXPRESSIBLE:
        assert "unknown" in check.reason


def test_the_kernel_sign_test_records_a_z3_check_and_agrees():
    with second.collecting() as checks:
        assert sign_of(sp.Sum(j, (j, 1, n))) == "positive"
        assert nonzero(x**2 + 1)
    assert [c.engine for c in checks] == ["z3", "z3"]
    assert all(c.verdict == AGREE for c in checks)


def test_an_injected_z3_disagreement_refuses_the_sign_and_fails_the_step(monkeypatch):
    def lie(expr, relation, **kw):
        return second.Check("z3", DISAGREE, "false at x = 0 (injected)", f"{expr} {relation}", "SymPy: positive")

    monkeypatch.setattr(z3_sign, "recheck_sign", lie)
    with second.collecting():
        assert sign_of(x**2 + 1) is None
        assert not nonzero(x**2 + 1)
    lhs = (x**3 + x) / (x**2 + 1)  # the definedness condition x**2 + 1 != 0 needs the sign test
    thm = _theorem(lhs, x, Derivation(lhs).eq(x, "algebra"))
    out = Checker(numeric=False).check(thm)
    assert out.verdict != Verdict.PROVED
    assert "kernel: SymPy: positive" in out.steps[0].reason and "z3: false at x = 0 (injected)" in out.steps[0].reason


# ------------------------------------------------------------------------- matrices, symbolic shape
_n = sp.Symbol("n", integer=True, positive=True)
_A, _B = sp.MatrixSymbol("A", _n, _n), sp.MatrixSymbol("B", _n, _n)


def _perm():
    from symattn.maths.permutation import PermutationMatrix

    return PermutationMatrix("sigma", _n)


@pytest.mark.parametrize("expr,expected", [
    (_A * (_A + _B) - _A * _A - _A * _B, AGREE),  # distributivity
    ((_A * _B).T - _B.T * _A.T, AGREE),
    (3 * x * _A - x * _A - 2 * x * _A, AGREE),  # scalar coefficients in the rational forms
    (_A * _B - _B * _A, INEXPRESSIBLE),  # noncommutative: never agreed
    (_A.T * _A - sp.Identity(_n), INEXPRESSIBLE),  # a matrix symbol is no orthogonal matrix
    (lambda: _perm().T * _perm() * _A - _A, AGREE),  # a permutation matrix is
    (lambda: _perm() * _A * _perm().T * _perm() - _perm() * _A, AGREE),
])
def test_matrix_expressions_of_symbolic_shape(expr, expected):
    expr = expr() if callable(expr) else expr
    assert recheck_zero(expr).verdict == expected
