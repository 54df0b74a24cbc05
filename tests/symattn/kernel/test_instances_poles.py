"""Derived instances keep the poles of the statement as stated (adversarial review 7): written out at a
size, SymPy cancels ``s_1 s_2 / s_2`` to ``s_1``, so ``prod_{j<=n} s_j / s_n = prod_{j<n} s_j`` looked
true at every size though its left side is undefined where ``s_n = 0``, and the claim was graded
``proved-for-instances``. The definedness conditions of the two sides are read on the statement with
the size substituted and nothing evaluated: an instance whose sides are defined at different points
(not shown from the hypotheses) is not shown. The same claims with the pole excluded by a hypothesis
or an assumption are still proved for instances."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem

n = sp.Symbol("n", integer=True, positive=True)
i, j, k = sp.symbols("i j k", integer=True, positive=True)
x = sp.Symbol("x", real=True)
s = sp.IndexedBase("s", real=True)
p = sp.IndexedBase("p", positive=True)
P, S, D = sp.Product, sp.Sum, sp.Derivative
I_IN = IndexRange("i_in", index=i, lower=1, upper=n)


def _check(st, hyps=()):
    thm = Theorem(id="claim", title="claim", source="extension", statement=st, hypotheses=tuple(hyps),
                  dimensions=(n,))
    return check_theorem(thm, numeric=False)


APART = [
    ("product_over_last", Statement(P(s[j], (j, 1, n)) / s[n], P(s[j], (j, 1, n - 1))), ()),
    ("product_over_first", Statement(P(s[j], (j, 1, n)) / s[1], P(s[j], (j, 2, n))), ()),
    ("squares_over_first", Statement(P(s[j] ** 2, (j, 1, n)) / s[1] ** 2, P(s[j] ** 2, (j, 2, n))), ()),
    ("cubes_over_last", Statement(P(s[j] ** 3, (j, 1, n)) / s[n] ** 3, P(s[j] ** 3, (j, 1, n - 1))), ()),
    ("sum_over_product", Statement(S(s[j] * P(s[k], (k, 1, n)), (j, 1, 1)) / P(s[k], (k, 1, n)), s[1]), ()),
    ("derivative_of_product", Statement(D(P(s[j], (j, 1, n)), s[i]), P(s[j], (j, 1, n)) / s[i]), (I_IN,)),
    ("shifted_factors", Statement(P(x + s[j], (j, 1, n)) / (x + s[1]), P(x + s[j], (j, 2, n))), ()),
    ("one_more_factor", Statement(P(s[j], (j, 1, n + 1)) / s[n + 1], P(s[j], (j, 1, n))), ()),
]

SAME_DOMAIN = [
    ("product_over_last_nonzero", Statement(P(s[j], (j, 1, n)) / s[n], P(s[j], (j, 1, n - 1))),
     (Assumption("last_nonzero", condition=sp.Ne(s[n], 0)),)),
    ("product_over_first_positive", Statement(P(p[j], (j, 1, n)) / p[1], P(p[j], (j, 2, n))), ()),
    ("product_nonzero", Statement(P(s[j], (j, 1, n)) / s[1], P(s[j], (j, 2, n))),
     (Assumption("product_nonzero", condition=sp.Ne(P(s[j], (j, 1, n)), 0)),)),
    ("pole_on_both_sides", Statement(S(s[j] * s[1], (j, 1, n)) / s[1] ** 2, S(s[j], (j, 1, n)) / s[1]), ()),
    ("derivative_of_positive_product", Statement(D(P(p[j], (j, 1, n)), p[i]), P(p[j], (j, 1, n)) / p[i]),
     (I_IN,)),
    ("shifted_factors_nonzero", Statement(P(x + s[j], (j, 1, n)) / (x + s[1]), P(x + s[j], (j, 2, n))),
     (Assumption("first_nonzero", condition=sp.Ne(x + s[1], 0)),)),
    ("one_more_positive_factor", Statement(P(p[j], (j, 1, n + 1)) / p[n + 1], P(p[j], (j, 1, n))), ()),
    ("no_pole", Statement(S(s[j], (j, 1, n)), S(s[k], (k, 1, n))), ()),
]


@pytest.mark.parametrize("name,st,hyps", APART, ids=[c[0] for c in APART])
def test_an_instance_whose_sides_have_different_poles_is_not_shown(name, st, hyps):
    o = _check(st, hyps)
    assert o.verdict not in (Verdict.PROVED, Verdict.PROVED_FOR_INSTANCES), o.how
    assert "defined at different points" in o.levels["instances"].detail, o.levels["instances"].detail


@pytest.mark.parametrize("name,st,hyps", SAME_DOMAIN, ids=[c[0] for c in SAME_DOMAIN])
def test_the_same_claim_with_the_pole_excluded_is_proved_for_instances(name, st, hyps):
    o = _check(st, hyps)
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES, o.how
