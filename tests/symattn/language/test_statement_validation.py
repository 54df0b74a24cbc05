"""Malformed hypotheses are refused when they are built, with an error naming the hypothesis and the
field (never a crash later, inside ``describe`` or the kernel)."""

import pytest
import sympy as sp

from symattn import CorrelatedPairs, RandomFamily

q, k = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
d = sp.Symbol("d", integer=True, positive=True)
v, rho = sp.Symbol("v", positive=True), sp.Symbol("rho", real=True)

BAD_PAIRS = [
    (dict(mixed=((2, 2, v),)), "mixed entry"),
    (dict(mixed=((2, v),)), "mixed entry"),
    (dict(mixed=(((2, 2, 1), v),)), "mixed entry"),
    (dict(mixed=[[(2,), v]]), "mixed entry"),
    (dict(mixed=(((2, 2), "v"),)), "value of mixed"),
    (dict(mixed=5), "mixed must be a tuple"),
    (dict(q=sp.Symbol("q")), "q must be"),
    (dict(k="k"), "k must be"),
    (dict(k=q), "same family"),
    (dict(dim=0), "dim 0"),
    (dict(dim=sp.Rational(1, 2)), "dim 1/2"),
    (dict(covariance="rho"), "covariance"),
]


@pytest.mark.parametrize("change,words", BAD_PAIRS, ids=[w + str(i) for i, (_, w) in enumerate(BAD_PAIRS)])
def test_malformed_correlated_pairs_are_refused_by_name(change, words):
    fields = dict(q=q, k=k, dim=d, covariance=rho, **{})
    fields.update(change)
    with pytest.raises((TypeError, ValueError)) as err:
        CorrelatedPairs("pairs", **fields)
    assert "'pairs'" in str(err.value) and words in str(err.value)


BAD_FAMILIES = [
    (dict(moments=((4,),)), "moments entry"),
    (dict(moments=((4, 3, 1),)), "moments entry"),
    (dict(moments=(4, 3)), "moments entry"),
    (dict(moments="4"), "moments must be a tuple"),
    (dict(moments=((4, "3"),)), "value of moments"),
    (dict(base=sp.Symbol("q")), "base must be"),
    (dict(mean="0"), "mean"),
]


@pytest.mark.parametrize("change,words", BAD_FAMILIES, ids=[w + str(i) for i, (_, w) in enumerate(BAD_FAMILIES)])
def test_malformed_random_families_are_refused_by_name(change, words):
    fields = dict(base=q, dim=d, mean=0, variance=v)
    fields.update(change)
    with pytest.raises((TypeError, ValueError)) as err:
        RandomFamily("fam", **fields)
    assert "'fam'" in str(err.value) and words in str(err.value)


GOOD = [
    lambda: CorrelatedPairs("pairs", q=q, k=k, dim=d, covariance=rho),
    lambda: CorrelatedPairs("pairs", q=q, k=k, dim=d, covariance=0, mixed=(((2, 2), 3 * v**2), ((1, 3), 0))),
    lambda: CorrelatedPairs("pairs", q=q, k=k, dim=3, covariance=rho, mixed=[[(2, 2), 1]]),
    # orders that are not integers >= 1 are well formed; the kernel refuses them when checking
    lambda: CorrelatedPairs("pairs", q=q, k=k, dim=d, covariance=0, mixed=(((2.5, 2), 3),)),
    lambda: RandomFamily("fam", base=q, dim=d, variance=v),
    lambda: RandomFamily("fam", base=q, dim=d, mean=1, variance=v, moments=((4, 3 * v**2), (3, 0))),
]


@pytest.mark.parametrize("build", GOOD)
def test_well_formed_hypotheses_are_built_and_described(build):
    h = build()
    assert h.describe() and h.latex()


x_ = sp.Symbol("x", real=True)
NOT_QUANTITIES = [sp.And(x_ > 0, x_ < 1), True, False, x_ > 0, sp.Eq(x_, 1), sp.true, sp.Interval(0, 1),
                  sp.Or(x_ < 0, x_ > 1)]


@pytest.mark.parametrize("value", NOT_QUANTITIES, ids=[str(v) for v in NOT_QUANTITIES])
@pytest.mark.parametrize("side", ["lhs", "rhs"])
def test_a_statement_side_that_is_a_truth_value_or_a_set_is_refused_when_built(value, side):
    from symattn import Statement

    sides = {"lhs": x_, "rhs": x_, side: value}
    with pytest.raises(TypeError, match=f"{side} must be a quantity"):
        Statement(sides["lhs"], sides["rhs"])


@pytest.mark.parametrize("value", [x_, sp.Symbol("b"), sp.MatrixSymbol("A", 2, 2), sp.Matrix([[1]]),
                                   sp.Piecewise((1, x_ > 0), (0, True)), 3, sp.Rational(1, 2)])
def test_quantities_make_statements(value):
    from symattn import Statement

    assert Statement(value, value).lhs is not None


_j = sp.Symbol("j", integer=True, positive=True)
_n = sp.Symbol("n", integer=True, positive=True)


@pytest.mark.parametrize("lower,upper,what", [
    (1, sp.oo, "upper bound oo"), (-sp.oo, _n, "lower bound -oo"), (1, sp.zoo, "upper bound zoo"),
    (1, _n + sp.oo, "upper bound oo"), (-sp.oo, sp.oo, "lower bound -oo"),
], ids=["to_oo", "from_minus_oo", "zoo", "n_plus_oo", "both"])
def test_an_index_range_with_an_infinite_bound_is_refused_as_not_finite(lower, upper, what):
    from symattn import IndexRange

    with pytest.raises(ValueError) as err:
        IndexRange("r", index=_j, lower=lower, upper=upper)
    assert what in str(err.value) and "not finite" in str(err.value) and "empty" not in str(err.value)


@pytest.mark.parametrize("lower,upper", [(1, _n), (_n, 2 * _n), (0, 0), (-3, _n)])
def test_finite_index_ranges_are_still_built(lower, upper):
    from symattn import IndexRange

    assert IndexRange("r", index=_j, lower=lower, upper=upper).upper == upper


def test_a_decidably_empty_range_is_still_refused_as_empty():
    from symattn import IndexRange

    with pytest.raises(ValueError, match="is empty"):
        IndexRange("r", index=_j, lower=3, upper=1)
