"""The kernel's sign test with ranges (``sign_of(expr, ranges)``), and the term layer on terms that
hold canonical variables free (opened binder bodies).

Soundness is checked against the meaning, not against the code: every sign the test claims for a
family of sums over ranges depending on a ranged ``j`` is confirmed on every instance ``1 <= j <= n
<= 5`` (SymPy's own convention for reversed ranges included), and the known-false cases are named.
"""

import itertools

import pytest
import sympy as sp

from symattn.kernel.sign import nonzero, sign_of
from symattn.kernel.terms import canonical, free_symbols, open_binder

j, n = sp.symbols("j n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
c = sp.Symbol("c", positive=True)
z = sp.Symbol("z")  # complex
s = sp.IndexedBase("s", real=True)
R = [(j, 1, n)]

BOUNDS = [0, 1, j - 1, j, j + 1, n - 1, n, n - j]
SUMMANDS = [sp.S.One, k, k - 1, k - j, sp.exp(k), 2 - k]


def _value(expr, jv, nv):
    return sp.sympify(expr.xreplace({j: jv, n: nv})).doit()


@pytest.mark.parametrize("body", SUMMANDS, ids=str)
def test_every_sign_claimed_for_a_ranged_sum_holds_on_every_instance(body):
    claimed = 0
    for lo, hi in itertools.product(BOUNDS, BOUNDS):
        e = sp.Sum(body, (k, lo, hi))
        got = sign_of(e, R)
        if got is None:
            continue
        claimed += 1
        for nv in range(1, 6):
            for jv in range(1, nv + 1):
                v = _value(e, jv, nv)
                assert v > 0 if got == "positive" else v >= 0, (e, got, jv, nv, v)
    assert claimed  # the family is not vacuous: some signs are claimed


@pytest.mark.parametrize("expr, want", [
    # positive + nonnegative sums over possibly empty ranges on both sides of j
    (sp.exp(c * sp.tanh(s[j] / c)) + sp.Sum(sp.exp(s[k]), (k, 1, j - 1)) + sp.Sum(sp.exp(s[k]), (k, j + 1, n)),
     "positive"),
    (sp.Sum(1, (k, j, n)), "positive"),
    (sp.Sum(sp.exp(s[k]), (k, j + 1, n)), "nonnegative"),
    ((n - j) * sp.exp(c) + sp.exp(-c), "positive"),
    (n - j, "nonnegative"),
])
def test_ranges_sign_what_the_assumptions_alone_cannot(expr, want):
    assert sign_of(expr) != want
    assert sign_of(expr, R) == want


@pytest.mark.parametrize("expr", [
    sp.Sum(sp.exp(z * s[k]), (k, 1, n)),        # exp of a non-real number has no sign
    sp.Sum(sp.exp(s[k]), (k, j + 2, n)),        # reversed at j = n: SymPy's sum is then negative
    sp.Sum(1, (k, 1, n - 2)),                   # reversed at n = 1
    sp.Sum(sp.exp(s[k]), (k, j + 1, n)) - 1,    # possibly empty
    j - 2,                                      # j = 1 is in range
    n - j - 1,                                  # j = n is in range
])
def test_ranges_do_not_sign_what_is_false_somewhere(expr):
    assert sign_of(expr, R) is None
    assert not nonzero(expr, R) or expr.has(sp.exp(z * s[k]))


def test_a_range_is_not_lent_to_a_bound_variable_of_the_same_name():
    # j in 1..n says nothing about a bound j summed from 0
    e = sp.Sum(j - 1, (j, 0, n))
    assert sign_of(e, R) is None


# ------------------------------------------------------------------------------ term layer
a = sp.IndexedBase("a")
i = sp.Symbol("i", integer=True, positive=True)

NESTED = [
    sp.Sum(sp.Sum(a[i] * a[j], (j, 1, n)) ** 2, (i, 1, n)),
    sp.Sum(sp.Product(a[i] + a[j], (j, 1, n)), (i, 1, n)),
    sp.Sum(sp.Sum(a[i] * a[j], (j, 1, i)) ** 2, (i, 1, n)),
    sp.Sum(sp.Lambda(j, a[i] * a[j])(k) + sp.Sum(a[j], (j, i, n)) ** 3, (i, 0, n)),
]


@pytest.mark.parametrize("term", NESTED, ids=lambda t: sp.sstr(t)[:40])
def test_canonical_of_an_opened_body_never_captures_the_opened_variable(term):
    var, _lo, _hi, body = open_binder(term)
    again = canonical(body)
    assert var in free_symbols(body) and var in free_symbols(again)
    assert again == canonical(again)
    # and the body is the summand: instantiating it at a fresh symbol gives the user's summand back
    x = sp.Symbol("x_fresh", integer=True)
    user = canonical(term.function.xreplace({term.limits[0][0]: x}))
    assert open_binder(term, x)[3] == user
