"""The moment calculus: closed forms in the symbolic dimension, checked against hand-derived
formulas, against an independent explicit expansion at concrete sizes, and against sympy.stats."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from symattn.kernel.timelimit import time_limit
from symattn.maths.moments import Cov, E, Var, dot, explicit_expectation, gaussian_vector, iid_vector

d = sp.Symbol("d", integer=True, positive=True)
s, s2 = sp.symbols("s s2", positive=True)
m, m1, m2 = sp.symbols("m m1 m2", real=True)
i = sp.Symbol("i", integer=True, positive=True)


def same(a, b) -> bool:
    return sp.expand(a - b) == 0


def test_acceptance_var_of_gaussian_dot_product_is_d_k_sigma4_in_the_symbolic_dimension():
    d_k = sp.Symbol("d_k", integer=True, positive=True)
    sigma = sp.Symbol("sigma", positive=True)
    with time_limit(2):  # "immediately": a hang or a slow path fails here
        q = gaussian_vector("q", d_k, sigma)
        k = gaussian_vector("k", d_k, sigma)
        assert Var(dot(q, k)) == d_k * sigma**4


# Each row: (build the vectors and the quantity, the closed form derived by hand).
# Derivations in the comments use E[x^2] = s^2 + m^2, E[x^4] (Gaussian) = m^4 + 6 m^2 s^2 + 3 s^4.
CLOSED_FORMS = [
    # chi-square: ||q||^2 / s^2 ~ chi2_d, variance 2d
    ("gauss_var_norm", lambda: Var(dot(*[gaussian_vector("q", d, s)] * 2)), 2 * d * s**4),
    # E[(sum q_i^2)^2] = d E[q^4] + d(d-1) E[q^2]^2 = 3 d s^4 + d(d-1) s^4
    ("gauss_second_moment_norm", lambda: E(dot(*[gaussian_vector("q", d, s)] * 2) ** 2), d * (d + 2) * s**4),
    # only the i = j terms of E[(sum q_i k_i)^2] survive
    ("gauss_second_moment_dot",
     lambda: E(dot(gaussian_vector("q", d, s), gaussian_vector("k", d, s)) ** 2), d * s**4),
    ("scaled_dot_variance",
     lambda: Var(dot(gaussian_vector("q", d, s), gaussian_vector("k", d, s)) / sp.sqrt(d)), s**4),
    # any law: Var(sum q_i^2) = d Var(q^2) = d (mu_4 - s^4)
    ("iid_var_norm", lambda: Var(dot(*[iid_vector("u", d, variance=s**2)] * 2)),
     d * (sp.Symbol("mu_4^u", real=True, nonnegative=True) - s**4)),
    # the fourth moment does not enter Var<q,k>
    ("iid_var_dot", lambda: Var(dot(iid_vector("u", d, variance=s**2), iid_vector("w", d, variance=s**2))),
     d * s**4),
    ("nonzero_mean_var_dot",
     lambda: Var(dot(iid_vector("u", d, mean=m1, variance=s**2), iid_vector("w", d, mean=m2, variance=s2**2))),
     d * (s**2 * s2**2 + s**2 * m2**2 + m1**2 * s2**2)),
    ("nonzero_mean_e_dot",
     lambda: E(dot(iid_vector("u", d, mean=m1, variance=s**2), iid_vector("w", d, mean=m2, variance=1))),
     d * m1 * m2),
    # Var(sum q_i^2) = d (E q^4 - (E q^2)^2) = d (4 m^2 s^2 + 2 s^4)
    ("gauss_nonzero_mean_var_norm", lambda: Var(dot(*[gaussian_vector("q", d, s, mean=m)] * 2)),
     d * (4 * m**2 * s**2 + 2 * s**4)),
    # Rademacher entries: q_i^2 = 1, so ||q||^2 = d exactly
    ("rademacher_var_norm", lambda: Var(dot(*[iid_vector("r", d, variance=1, moments={4: 1})] * 2)), 0),
    # E[(sum u_i)^3] = d mu_3 for centred entries
    ("third_moment_of_sum", lambda: E(sp.Sum(iid_vector("u", d, variance=1)[i], (i, 1, d)) ** 3),
     d * sp.Symbol("mu_3^u", real=True)),
]


@pytest.mark.parametrize("name, build, expected", CLOSED_FORMS, ids=[c[0] for c in CLOSED_FORMS])
def test_closed_forms_match_hand_derivations(name, build, expected):
    with time_limit(5):
        got = build()
    assert same(got, expected), f"{name}: got {got}, expected {expected}"


def test_covariance_of_two_logits_sharing_the_query():
    # Cov(q.k1, q.k2) = sum_i (E[q_i^2] - E[q_i]^2) E[k1_i] E[k2_i] = d s^2 m1 m2 (i != j terms vanish)
    q = iid_vector("q", d, mean=m, variance=s**2)
    k1 = iid_vector("k1", d, mean=m1, variance=1)
    k2 = iid_vector("k2", d, mean=m2, variance=1)
    assert same(Cov(dot(q, k1), dot(q, k2)), d * s**2 * m1 * m2)
    centred = iid_vector("k3", d, variance=1)
    assert Cov(dot(q, k1), dot(q, centred)) == 0


def test_distinct_entries_are_independent_and_repeated_entries_are_not():
    q = iid_vector("q", d, mean=m, variance=s**2)
    assert same(E(q[1] * q[2]), m**2)
    assert same(E(q[1] * q[1]), s**2 + m**2)
    assert same(E(q[i] * dot(q, q)), (d - 1) * (s**2 + m**2) * m + q.raw_moment(3))


def test_vectors_with_the_same_name_are_different_independent_vectors():
    a = iid_vector("q", d, mean=m, variance=s**2)
    b = iid_vector("q", d, mean=m, variance=s**2)
    assert a.base != b.base
    assert same(E(dot(a, b)), d * m**2)
    assert same(E(dot(a, a)), d * (m**2 + s**2))


def test_raw_and_central_moment_tables_agree():
    raw = iid_vector("u", d, mean=m, variance=s**2, moments={3: 2, 4: 7})
    for r in (3, 4):
        back = sum(sp.binomial(r, j) * m ** (r - j) * raw.central_moment(j) for j in range(r + 1))
        assert same(back, raw.raw_moment(r))
    central = iid_vector("v", d, mean=m, variance=s**2, central_moments={4: 5})
    assert same(central.raw_moment(4), m**4 + 6 * m**2 * s**2 + 4 * m * central.central_moment(3) + 5)


def test_gaussian_moments_are_the_double_factorials():
    g = gaussian_vector("g", d, s)
    assert [g.central_moment(r) for r in range(7)] == [1, 0, s**2, 0, 3 * s**4, 0, 15 * s**6]


def test_family_hypothesis_carries_the_vector_moments():
    q = iid_vector("q", d, mean=m, variance=s**2, moments={4: 9})
    fam = q.family()
    assert (fam.base, fam.dim, fam.mean, fam.variance, fam.moments) == (q.base, d, m, s**2, ((4, 9),))


# ------------------------------------------------------------------ oracle: explicit expansion
def _explicit(expr: sp.Expr, n: int, vectors) -> sp.Expr:
    """Expectation at d = n by writing every sum out and expanding (no index patterns)."""
    expr = expr.xreplace({d: n}).doit()
    table, rename = {}, {}
    for v in vectors:
        for j in range(1, n + 1):
            x = sp.Symbol(f"{v.name}_{j}_{id(v)}", real=True)
            rename[v[j]] = x
            table[x] = v.raw_moment
    return explicit_expectation(expr.xreplace(rename), table)


@st.composite
def polynomials(draw):
    a = iid_vector("a", d, mean=m, variance=s**2)
    b = iid_vector("b", d, mean=m1, variance=1, central_moments={3: 2})
    pieces = [dot(a, b), dot(a, a), sp.Sum(b[i], (i, 1, d)), a[1], b[2] * a[1], sp.Integer(3)]
    degree = draw(st.integers(1, 3))
    expr = sp.S.Zero
    for _ in range(draw(st.integers(1, 2))):
        term = sp.S.One
        for _ in range(degree):
            term *= pieces[draw(st.integers(0, len(pieces) - 1))]
        expr += draw(st.integers(-2, 2)) * term
    return expr, (a, b)


@given(polynomials(), st.integers(2, 4))
def test_symbolic_dimension_agrees_with_explicit_expansion_at_each_size(case, n):
    expr, vectors = case
    with time_limit(20):
        symbolic = E(expr).xreplace({d: n})
        explicit = _explicit(expr, n, vectors)
    assert same(symbolic, explicit)


# ------------------------------------------------------------------ oracle: sympy.stats
@pytest.mark.parametrize("n", [1, 2, pytest.param(3, marks=pytest.mark.slow)])
def test_agrees_with_sympy_stats_normal_variables(n):
    from sympy.stats import E as stats_E
    from sympy.stats import Normal
    from sympy.stats import variance as stats_var

    q = gaussian_vector("q", d, s)
    k = gaussian_vector("k", d, s)
    qs = [Normal(f"q{j}", 0, s) for j in range(n)]
    ks = [Normal(f"k{j}", 0, s) for j in range(n)]
    x = sum(a * b for a, b in zip(qs, ks))
    y = sum(a * a for a in qs)
    with time_limit(60):
        pairs = [
            (Var(dot(q, k)), stats_var(x)),
            (E(dot(q, k)), stats_E(x)),
            (E(dot(q, k) ** 2), stats_E(x**2)),
            (Var(dot(q, q)), stats_var(y)),
            (E(dot(q, q)), stats_E(y)),
        ]
        for ours, theirs in pairs:
            assert sp.simplify(ours.xreplace({d: n}) - theirs) == 0


@pytest.mark.slow
def test_agrees_with_sympy_stats_for_a_nonzero_mean():
    from sympy.stats import Normal
    from sympy.stats import variance as stats_var

    q = gaussian_vector("q", d, s, mean=2)
    k = gaussian_vector("k", d, s, mean=-1)
    x = Normal("x", 2, s) * Normal("y", -1, s)
    with time_limit(60):
        assert sp.simplify(Var(dot(q, k)).xreplace({d: 1}) - stats_var(x)) == 0


# ------------------------------------------------------------------ invalid arguments
_x = iid_vector("x", d, variance=1)
_y3 = iid_vector("y3", 3, variance=1)
_e = iid_vector("e", d + 1, variance=1)
j, l = sp.symbols("j l", integer=True)

INVALID = [
    ("name_not_identifier", lambda: iid_vector("1q", d, variance=1), TypeError),
    ("name_not_str", lambda: iid_vector(3, d, variance=1), TypeError),
    ("dim_negative", lambda: iid_vector("q", -2, variance=1), ValueError),
    ("dim_not_integer_symbol", lambda: iid_vector("q", sp.Symbol("n"), variance=1), ValueError),
    ("dim_float", lambda: iid_vector("q", 2.5, variance=1), TypeError),
    ("dim_string", lambda: iid_vector("q", "d", variance=1), TypeError),
    ("variance_missing", lambda: iid_vector("q", d), TypeError),
    ("variance_none", lambda: iid_vector("q", d, variance=None), TypeError),
    ("variance_negative", lambda: iid_vector("q", d, variance=-1), ValueError),
    ("variance_string", lambda: iid_vector("q", d, variance="s**2"), TypeError),
    ("moments_low_order", lambda: iid_vector("q", d, variance=1, moments={2: 1}), ValueError),
    ("moments_string_value", lambda: iid_vector("q", d, variance=1, moments={4: "3"}), TypeError),
    ("moments_not_dict", lambda: iid_vector("q", d, variance=1, moments=[(4, 3)]), TypeError),
    ("moments_raw_and_central", lambda: iid_vector("q", d, variance=1, moments={4: 3}, central_moments={4: 3}),
     ValueError),
    ("sigma_zero", lambda: gaussian_vector("g", d, 0), ValueError),
    ("sigma_negative", lambda: gaussian_vector("g", d, -1), ValueError),
    ("sigma_string", lambda: gaussian_vector("g", d, "s"), TypeError),
    ("dot_not_a_vector", lambda: dot(_x, sp.Matrix([1, 2])), TypeError),
    ("dot_dimensions_differ", lambda: dot(_x, _e), ValueError),
    ("moment_order_negative", lambda: _x.raw_moment(-1), ValueError),
    ("moment_order_float", lambda: _x.raw_moment(2.0), TypeError),
    ("E_string", lambda: E("x[1]"), TypeError),
    ("E_not_polynomial", lambda: E(sp.exp(_x[1])), ValueError),
    ("E_negative_power", lambda: E(1 / _x[1]), ValueError),
    ("E_sum_off_by_one", lambda: E(sp.Sum(_x[i], (i, 0, d))), ValueError),
    ("E_sum_past_dim", lambda: E(sp.Sum(_x[i], (i, 1, d + 1))), ValueError),
    ("E_undecidable_coincidence", lambda: E(_x[j] * _x[l]), ValueError),
    ("E_index_dependent_weight", lambda: E(sp.Sum(i * _x[i], (i, 1, d))), ValueError),
    ("E_index_out_of_range", lambda: E(_y3[4]), ValueError),
    ("E_index_zero", lambda: E(_x[0]), ValueError),
]


@pytest.mark.parametrize("name, call, error", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_arguments_raise_clear_errors(name, call, error):
    with pytest.raises(error):
        call()


# ------------------------------------------------------------------------------ impossible declared laws
_d = sp.Symbol("d", integer=True, positive=True)
_s = sp.Symbol("s", positive=True)
_m4 = sp.Symbol("m4")


@pytest.mark.parametrize("kwargs, message", [
    (dict(variance=1, moments={4: sp.Rational(1, 2)}), r"E\[x\^4\] = 1/2 < E\[x\^2\]\^2 = 1, impossible \(Jensen"),
    (dict(variance=1, central_moments={4: sp.Rational(1, 2)}), "Jensen"),
    (dict(variance=_s**2, moments={4: _s**4 / 2}), "Jensen"),
    (dict(variance=1, moments={4: -1}), r"the even moment E\[x\^4\] = -1 is negative"),
    (dict(variance=1, moments={3: 5, 4: 2}), r"E\[x\^3\]\^2 > E\[x\^2\] E\[x\^4\], impossible \(Cauchy-Schwarz\)"),
    (dict(mean=1, variance=0, moments={3: 2}), "with variance 0 every entry equals its mean"),
])
def test_iid_vector_refuses_impossible_moments_naming_the_moment_and_the_bound(kwargs, message):
    import re

    with pytest.raises(ValueError, match=r"iid_vector 'r': impossible distribution: .*" + message) as info:
        iid_vector("r", _d, **kwargs)
    assert re.search(message, str(info.value))


@pytest.mark.parametrize("kwargs, var_rr", [
    (dict(variance=1, moments={4: 1}), 0),                          # Rademacher: E x^4 = (E x^2)^2 exactly
    (dict(variance=1, moments={4: 3}), 2 * _d),                     # Gaussian-like
    (dict(variance=_s**2, moments={4: 3 * _s**4}), 2 * _d * _s**4),
    (dict(variance=1, moments={4: _m4}), _d * (_m4 - 1)),           # symbolic: accepted as before
    (dict(variance=1, central_moments={4: _m4}), _d * (_m4 - 1)),
])
def test_iid_vector_accepts_possible_and_symbolic_moments(kwargs, var_rr):
    r = iid_vector("r", _d, **kwargs)
    assert same(Var(dot(r, r)), var_rr)


@pytest.mark.parametrize("covariance, ok", [
    (2 * _s**2, False), (-2 * _s**2, False), (sp.Rational(3, 2) * _s**2, False),
    (_s**2, True), (-_s**2, True), (_s**2 / 2, True), (0, True), (sp.Symbol("rho", positive=True) * _s**2, True),
])
def test_correlated_vectors_refuses_a_correlation_above_one(covariance, ok):
    from symattn.maths.moments import correlated_vectors

    if ok:
        q, k = correlated_vectors("q", "k", _d, variance=_s**2, covariance=covariance)
        assert same(E(dot(q, k)), _d * covariance)
    else:
        with pytest.raises(ValueError, match=r"correlated_vectors 'q', 'k': impossible distribution: .*"
                                             r"\|correlation\| > 1 is impossible"):
            correlated_vectors("q", "k", _d, variance=_s**2, covariance=covariance)


def test_correlated_vectors_refuses_impossible_mixed_moments():
    from symattn.maths.moments import correlated_vectors

    with pytest.raises(ValueError, match="impossible"):
        correlated_vectors("q", "k", _d, variance=1, covariance=sp.Rational(1, 2), mixed_moments={(2, 2): -1})
    q, k = correlated_vectors("q", "k", _d, variance=1, covariance=sp.Rational(1, 2), mixed_moments={(2, 2): 2})
    assert same(Var(dot(q, k)), _d * (2 - sp.Rational(1, 4)))
