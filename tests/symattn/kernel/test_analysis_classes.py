"""Issue 18, classes 1 and 2, through the public API: signs and monotonicity are the kernel's (a
derivative is taken only of what is differentiable on the segment, its sign shown by the kernel's
sign test), and limits are closed by the kernel's lemmas, never by ``sympy.limit`` (the order of the
parameters a limit depends on is a hypothesis the user states).

Each false claim must fail at the named step for the named reason; each true claim of the same
shape must be proved.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, IndexRange
from symattn.maths.extrema import MaxOver, MinOver
from tests.symattn.kernel.claims import Claim, assert_proved, assert_rejected, step

x, y, s = sp.symbols("x y s", real=True)
a, b = sp.symbols("a b", real=True)
c = sp.Symbol("c", positive=True)
p = sp.Symbol("p", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
i, j = sp.symbols("i j", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
w = sp.IndexedBase("w", nonnegative=True)
v = sp.IndexedBase("v", real=True)
D = sp.Derivative
KD = sp.KroneckerDelta
T = sp.tanh(s)
STEP = sp.Piecewise((0, x < 0), (1, True))
CAP = (Assumption("cap", condition=sp.Gt(c, 0)),)
A_GT_B = (Assumption("a_gt_b", condition=sp.Gt(a, b)),)
A_LT_B = (Assumption("a_lt_b", condition=sp.Lt(a, b)),)
M_IN = (IndexRange("m_range", index=j, lower=1, upper=n),)
SIGMOID = sp.exp(a * x) / (sp.exp(a * x) + sp.exp(b * x))


def claim(id, lhs, rhs, rule, relation="=", hyps=(), why="", **args):
    return Claim(id, lhs, rhs, (step(rhs, rule, relation, **args),), relation=relation, hypotheses=hyps,
                 bad_step=1, why=why)


# ------------------------------------------------------------------------------------- class 1
# SymPy's calculus differentiates a Piecewise step to 0, floor to an unevaluated 0-like derivative, |x|
# to sign(x) and Max(x, 0) to Heaviside(x): none is a derivative at the break. A bound by "F is
# increasing" is only as good as the kernel's monotonicity test.
SIGN_FALSE = [
    claim("d_piecewise_step_is_0", D(STEP, x), 0, "differentiate", why="piecewise is not differentiable"),
    claim("d_floor_is_0", D(sp.floor(x), x), 0, "differentiate", why="floor is not differentiable"),
    claim("d_heaviside_is_0", D(sp.Heaviside(x), x), 0, "differentiate", why="heaviside is not differentiable"),
    claim("d_abs_is_sign", D(sp.Abs(x), x), sp.sign(x), "differentiate", why="real and nonzero"),
    claim("d_max_is_heaviside", D(sp.Max(x, 0), x), sp.Heaviside(x), "differentiate", why="max is not differentiable"),
    claim("d_sign_is_0", D(sp.sign(x), x), 0, "differentiate", why="sign is not differentiable"),
    claim("d_sqrt_at_0", D(sp.sqrt(x**2), x), x / sp.sqrt(x**2), "differentiate", why="real and nonzero"),
    # F(tanh s) < F(1) for a step F: "increasing" because its SymPy derivative is 0
    claim("step_of_tanh_below_step_of_1", sp.Piecewise((0, T < 0), (1, True)), 1, "tanh_bound", "<",
          why="piecewise is not differentiable"),
    claim("ceiling_of_tanh_below_1", sp.ceiling(T), 1, "tanh_bound", "<", why="ceiling is not differentiable"),
    # (t - 1/2)^2 is not monotone on (-1, 1)
    claim("square_not_monotone", (T - sp.Rational(1, 2)) ** 2, sp.Rational(1, 4), "tanh_bound", "<",
          why="sign of the derivative"),
    claim("abs_kink_inside_range", sp.Abs(T - sp.Rational(1, 2)), sp.Rational(1, 2), "tanh_bound", "<",
          why="real and nonzero"),
    claim("slope_of_unknown_sign", y * T, y, "tanh_bound", "<", why="sign of the derivative"),
    # an extended real may be oo, where tanh is 1: refused as a term (kernel.wellformed) before any step
    claim("tanh_of_an_extended_real", sp.tanh(sp.Symbol("e", extended_real=True)), 1, "tanh_bound", "<",
          why="may be infinite"),
    # a delta term makes the summand negative at j = m; a possibly reversed range is a negative sum
    claim("delta_makes_a_term_negative", sp.S.Zero, sp.Sum(w[k] * (1 - 2 * KD(k, j)), (k, 1, n)),
          "nonnegative_terms", "<=", M_IN, why="not shown nonnegative"),
    claim("reversed_range_sum_of_squares", sp.S.Zero, sp.Sum(v[k] ** 2, (k, 1, m - 2)), "nonnegative_terms", "<=",
          why="not shown nonnegative"),
]

TANH_LT_1 = Derivation(T).lt(sp.S.One, "tanh_bound")
f = sp.IndexedBase("f")
l = sp.Symbol("l", integer=True)
TOP, BOTTOM = MaxOver(v[l], (l, 1, n)), MinOver(v[l], (l, 1, n))
J_IN = (IndexRange("j_range", index=j, lower=1, upper=n),)


def mono(id, lhs, rhs, relation, at, proof, hyps=(), why=""):
    return claim(id, lhs, rhs, "monotone_step", relation, hyps, why, at=at, proof=proof)


MONOTONE_FALSE = [
    mono("mono_step_function", sp.Piecewise((0, T < 0), (1, True)), 1, "<", T, TANH_LT_1,
         why="piecewise is not differentiable"),
    mono("mono_ceiling", sp.ceiling(T), 1, "<", T, TANH_LT_1, why="ceiling is not differentiable"),
    mono("mono_heaviside", sp.Heaviside(T - sp.Rational(1, 2)), 1, "<", T, TANH_LT_1,
         why="heaviside is not differentiable"),
    mono("mono_sign", sp.sign(T), 1, "<", T, TANH_LT_1, why="sign is not differentiable"),
    mono("mono_min", sp.Min(T, 0), 0, "<", T, TANH_LT_1, why="min is not differentiable"),
    mono("mono_not_monotone", (T - sp.Rational(1, 2)) ** 2, sp.Rational(1, 4), "<", T, TANH_LT_1,
         why="sign of the derivative"),
    mono("mono_pole_inside_segment", 1 / T, 1, ">", T, TANH_LT_1, why="not shown nonzero"),
    mono("mono_wrong_direction", sp.exp(-T), sp.exp(-1), "<", T, TANH_LT_1, why="other way"),
    claim("positivity_piecewise", sp.S.Zero, sp.Piecewise((-1, x < 0), (1, True)), "positivity", "<=",
          why="not shown nonnegative"),
    claim("positivity_max_without_range", v[j], TOP, "positivity", "<=", why="not shown nonnegative"),
    claim("positivity_max_off_by_one", v[j], MaxOver(v[l], (l, 1, n - 1)), "positivity", "<=", J_IN,
          why="not shown nonnegative"),
    claim("sum_monotone_min_as_upper", sp.Sum(w[k] * v[k], (k, 1, n)), sp.Sum(w[k] * BOTTOM, (k, 1, n)),
          "sum_monotone", "<=", why="not shown nonnegative"),
    claim("termwise_leaves_the_range", sp.Sum(v[k], (k, 1, n + 1)), sp.Sum(TOP, (k, 1, n + 1)), "termwise_bound",
          "<=", why="not shown nonnegative"),
    claim("triangle_reversed_range", sp.Abs(sp.Sum(f[k], (k, 1, m - 2))),
          sp.Sum(sp.Abs(f[k]), (k, 1, m - 2)), "triangle_inequality", "<=", why="not reversed"),
]

MONOTONE_TRUE = [
    mono("mono_exp_capped", sp.exp(c * T), sp.exp(c), "<", T, TANH_LT_1, CAP),
    mono("mono_cube_shifted", (T + 2) ** 3, 27, "<", T, TANH_LT_1),
    mono("mono_decreasing", 1 / (1 + sp.exp(T)), 1 / (1 + sp.E), ">", T, TANH_LT_1),
    mono("mono_cube_nonstrict", T**3, 1, "<=", T, TANH_LT_1),
    mono("mono_abs_away_from_kink", sp.Abs(T - 2), 1, ">", T, TANH_LT_1),
    mono("mono_sqrt_positive_segment", sp.sqrt(1 + sp.exp(T)), sp.sqrt(1 + sp.E), "<", sp.exp(T),
         Derivation(sp.exp(T)).lt(sp.E, "tanh_bound")),
    claim("positivity_exp", sp.S.Zero, sp.exp(x), "positivity", "<"),
    claim("positivity_max_in_range", v[j], TOP, "positivity", "<=", J_IN),
    claim("sum_monotone_max_as_upper", sp.Sum(w[k] * v[k], (k, 1, n)), sp.Sum(w[k] * TOP, (k, 1, n)),
          "sum_monotone", "<="),
    claim("termwise_in_the_range", sp.Sum(v[k], (k, 1, n)), sp.Sum(TOP, (k, 1, n)), "termwise_bound", "<="),
    claim("triangle_nonreversed_range", sp.Abs(sp.Sum(f[k], (k, 1, m))), sp.Sum(sp.Abs(f[k]), (k, 1, m)),
          "triangle_inequality", "<="),
]

SIGN_TRUE = [
    claim("d_exp", D(sp.exp(2 * x), x), 2 * sp.exp(2 * x), "differentiate"),
    claim("d_sin_chain", D(sp.sin(x**2), x), 2 * x * sp.cos(x**2), "differentiate"),
    claim("d_tanh", D(sp.tanh(x), x), 1 - sp.tanh(x) ** 2, "differentiate"),
    claim("d_sqrt_positive", D(sp.sqrt(p), p), 1 / (2 * sp.sqrt(p)), "differentiate"),
    claim("d_log_positive", D(sp.log(p), p), 1 / p, "differentiate"),
    claim("d_abs_of_positive", D(sp.Abs(x**2 + 1), x), 2 * x, "differentiate"),
    claim("d_max_of_ordered", D(sp.Max(p, 0), p), 1, "differentiate"),
    claim("d_product", D(x * sp.exp(x), x), (1 + x) * sp.exp(x), "differentiate"),
    claim("capped_below_cap", c * T, c, "tanh_bound", "<", CAP),
    claim("abs_capped_below_cap", c * sp.Abs(T), c, "tanh_bound", "<", CAP),
    claim("decreasing_in_tanh", 2 - T, 1, "tanh_bound", ">"),
    claim("exp_of_tanh_below_e", sp.exp(T), sp.E, "tanh_bound", "<"),
    claim("exp_of_capped_below", sp.exp(c * T), sp.exp(c), "tanh_bound", "<", CAP),
    claim("positive_slope", sp.exp(y) * T + y, sp.exp(y) + y, "tanh_bound", "<"),
    claim("delta_drops_one_term", sp.S.Zero, sp.Sum(w[k] * (1 - KD(k, j)), (k, 1, n)), "nonnegative_terms", "<=",
          M_IN),
    claim("possibly_empty_range", sp.S.Zero, sp.Sum(v[k] ** 2, (k, 1, m)), "nonnegative_terms", "<="),
]


# ------------------------------------------------------------------------------------- class 2
LIMIT_FALSE = [
    claim("sigmoid_limit_1_no_order", sp.Limit(SIGMOID, x, sp.oo), 1, "limit_evaluate", why="not shown negative"),
    claim("sigmoid_limit_1_when_a_lt_b", sp.Limit(SIGMOID, x, sp.oo), 1, "limit_evaluate", hyps=A_LT_B,
          why="evaluate to"),
    claim("sigmoid_limit_0_when_a_gt_b", sp.Limit(SIGMOID, x, sp.oo), 0, "limit_evaluate", hyps=A_GT_B,
          why="evaluate to"),
    claim("exp_decays_without_sign", sp.Limit(sp.exp(a * x), x, sp.oo), 0, "limit_evaluate", why="not shown negative"),
    claim("sinc_at_0_is_0", sp.Limit(sp.sin(x) / x, x, 0), 0, "limit_evaluate", why="evaluate to"),
    claim("floor_left_of_0", sp.Limit(sp.floor(x), x, 0, "-"), 0, "limit_evaluate", why="floor is not continuous"),
    claim("sign_right_of_0", sp.Limit(sp.sign(x), x, 0, "+"), 0, "limit_evaluate", why="sign is not continuous"),
    claim("heaviside_at_0", sp.Limit(sp.Heaviside(x), x, 0), sp.Rational(1, 2), "limit_evaluate",
          why="heaviside is not continuous"),
    claim("step_left_of_0", sp.Limit(STEP, x, 0, "-"), 1, "limit_evaluate", why="piecewise is not continuous"),
    claim("pole_at_0", sp.Limit(1 / x, x, 0, "+"), 0, "limit_evaluate", why="not shown nonzero"),
    claim("softcap_limit_doubled", sp.Limit(c * sp.tanh(s / c), c, sp.oo), 2 * s, "limit_evaluate",
          why="evaluate to"),
    claim("sin_at_infinity", sp.Limit(sp.sin(x), x, sp.oo), 0, "limit_evaluate", why="no kernel lemma"),
    claim("squeeze_with_a_wrong_bound", sp.Limit(x**2 * sp.sin(1 / x), x, 0, "+"), 0, "limit_evaluate",
          why="not shown nonnegative", lower=-(x**2), upper=x**3),
    claim("squeeze_bounds_apart", sp.Limit(x**2 * sp.sin(1 / x), x, 0, "+"), 0, "limit_evaluate",
          why="different values", lower=-(x**2), upper=1 + x**2),
    claim("squeeze_to_the_wrong_value", sp.Limit(sp.exp(-x) * sp.cos(x), x, sp.oo), 1, "limit_evaluate",
          why="evaluate to", lower=-sp.exp(-x), upper=sp.exp(-x)),
    claim("log_quotient_at_1_wrong", sp.Limit(sp.log(x) / (x - 1), x, 1), 2, "limit_evaluate", why="evaluate to"),
    claim("sqrt_quotient_at_0", sp.Limit(sp.sqrt(x) / x, x, 0, "+"), 1, "limit_evaluate", why="not shown at the point"),
]

LIMIT_TRUE = [
    claim("sigmoid_limit_1_when_a_gt_b", sp.Limit(SIGMOID, x, sp.oo), 1, "limit_evaluate", hyps=A_GT_B),
    claim("sigmoid_limit_0_when_a_lt_b", sp.Limit(SIGMOID, x, sp.oo), 0, "limit_evaluate", hyps=A_LT_B),
    claim("exp_decays_with_sign", sp.Limit(sp.exp(-p * x), x, sp.oo), 0, "limit_evaluate"),
    claim("sinc_at_0_is_1", sp.Limit(sp.sin(x) / x, x, 0), 1, "limit_evaluate"),
    claim("removable_quotient", sp.Limit((x**2 - 1) / (x - 1), x, 1), 2, "limit_evaluate"),
    claim("log_quotient_at_1", sp.Limit(sp.log(x) / (x - 1), x, 1), 1, "limit_evaluate"),
    claim("squeeze_oscillation_at_0", sp.Limit(x**2 * sp.sin(1 / x), x, 0, "+"), 0, "limit_evaluate",
          lower=-(x**2), upper=x**2),
    claim("squeeze_damped_cosine", sp.Limit(sp.exp(-x) * sp.cos(x), x, sp.oo), 0, "limit_evaluate",
          lower=-sp.exp(-x), upper=sp.exp(-x)),
    claim("polynomial_at_2", sp.Limit(x**2 + 1, x, 2), 5, "limit_evaluate"),
    claim("abs_continuous_at_0", sp.Limit(sp.Abs(x), x, 0), 0, "limit_evaluate"),
    claim("softcap_limit", sp.Limit(c * sp.tanh(s / c), c, sp.oo), s, "limit_evaluate"),
    claim("one_plus_decay", sp.Limit(1 + sp.exp(-x), x, sp.oo), 1, "limit_evaluate"),
    claim("exp_difference_quotient", sp.Limit(x * (sp.exp(1 / x) - 1), x, sp.oo), 1, "limit_evaluate"),
]

FALSE_CLAIMS = SIGN_FALSE + MONOTONE_FALSE + LIMIT_FALSE
TRUE_CLAIMS = SIGN_TRUE + MONOTONE_TRUE + LIMIT_TRUE


def test_the_tables_are_large_enough():
    assert len(SIGN_FALSE) >= 8 and len(MONOTONE_FALSE) >= 8 and len(LIMIT_FALSE) >= 8
    assert len(SIGN_TRUE) >= 8 and len(MONOTONE_TRUE) >= 8 and len(LIMIT_TRUE) >= 8


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda cl: cl.id)
def test_false_claim_fails_at_the_named_step_for_the_named_reason(claim):
    assert_rejected(claim)


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=lambda cl: cl.id)
def test_true_claim_of_the_same_shape_is_proved(claim):
    assert_proved(claim)


def test_no_sympy_limit_in_the_kernel_or_the_limit_rule():
    """The trusted path never calls ``sympy.limit`` (Gruntz)."""
    import ast
    import inspect

    import symattn.kernel.calculus as calc
    import symattn.kernel.schemas.limits as lim
    import symattn.rules.hyperbolic as hyp

    for mod in (calc, lim, hyp):
        for node in ast.walk(ast.parse(inspect.getsource(mod))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                assert name not in ("limit", "gruntz", "limit_seq"), f"{mod.__name__} calls {name}"


def test_a_premise_made_under_other_hypotheses_is_not_laundered_through_a_schema():
    """A theorem about a generic summand proved for x in 1..n does not give the sums over 0..n, and a
    bound proved under a hypothesis the step does not have is refused by the schemas that take it."""
    from symattn.kernel.axioms import axiom
    from symattn.kernel.calculus import fresh_index, within_range
    from symattn.kernel.terms import KernelError
    from symattn.kernel.thm import by_sign
    from symattn.kernel.zero import HYPOTHESES

    token = HYPOTHESES.set(())
    try:
        xi = fresh_index(0, n, "x")
        with within_range(xi, 1, n):
            t = by_sign(sp.S.Zero, xi, "<")  # 0 < x, true on 1..n only
        assert axiom("sum_termwise", lower=1, upper=n, var=xi, bound=t).relation == "<"
        with pytest.raises(KernelError, match="hypotheses the step does not have"):
            axiom("sum_termwise", lower=0, upper=n, var=xi, bound=t)
        yv = sp.Symbol("y_fresh", real=True)
        with within_range(yv, 1, 2):
            t2 = by_sign(sp.S.Zero, yv, "<")
        with pytest.raises(KernelError, match="hypotheses the step does not have"):
            axiom("monotone", expr=sp.exp(yv), at=yv, bound=t2)
    finally:
        HYPOTHESES.reset(token)
