"""rename_bound, sum_interchange and sum_join: alpha-conversion, Fubini for finite sums, joining ranges."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.rules import ProofContext, check_step
from symattn.rules.reindex import canonical_bound, flatten_sums

n, d = sp.symbols("n d", integer=True, positive=True)
a, b = sp.symbols("a b", integer=True, nonnegative=True)
i, j, k, c, e = sp.symbols("i j k c e", integer=True)
f, g, P, F, V = (sp.IndexedBase(x) for x in "f g P F V".split())
ctx = ProofContext()


def status(lhs, rhs, rule, **args):
    return check_step(lhs, rhs, "=", rule, args, ctx).status


def test_canonical_bound_ignores_names_but_not_ranges_or_bodies():
    assert canonical_bound(sp.Sum(f[j], (j, 1, n))) == canonical_bound(sp.Sum(f[k], (k, 1, n)))
    assert canonical_bound(sp.Sum(f[j], (j, 1, n))) != canonical_bound(sp.Sum(f[k], (k, 0, n)))
    assert canonical_bound(sp.Lambda(j, f[j])) == canonical_bound(sp.Lambda(k, f[k]))
    # an inner bound variable is never captured by the renamed outer one
    nested = sp.Sum(f[j] * sp.Sum(g[j, k], (k, 1, j)), (j, 1, n))
    renamed = sp.Sum(f[k] * sp.Sum(g[k, j], (j, 1, k)), (k, 1, n))
    assert canonical_bound(nested) == canonical_bound(renamed)
    assert canonical_bound(nested) != canonical_bound(sp.Sum(f[j] * sp.Sum(g[k, j], (k, 1, j)), (j, 1, n)))


def test_rename_bound_accepts_alpha_equivalent_sides():
    assert status(sp.Sum(sp.exp(f[j]), (j, 1, n)) / sp.Sum(sp.exp(f[k]), (k, 1, n)), sp.S.One,
                  "rename_bound") is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, why",
    [
        (sp.Sum(f[j], (j, 1, n)), sp.Sum(f[k], (k, 1, n + 1)), "off-by-one bound"),
        (sp.Sum(f[j], (j, 1, n)), sp.Sum(g[k], (k, 1, n)), "different summand"),
        (sp.Sum(f[j] * f[i], (j, 1, n)), sp.Sum(f[k] * f[k], (k, 1, n)), "a free index captured by renaming"),
    ],
)
def test_rename_bound_rejects_more_than_renaming(lhs, rhs, why):
    assert status(lhs, rhs, "rename_bound") is Level.FAIL, why


def test_sum_interchange_swaps_independent_sums():
    quad = sp.Sum(sp.Sum(P[i, c] * F[j, c], (c, 1, d)) * V[j, e], (j, 1, n))
    lin = sp.Sum(P[i, c] * sp.Sum(F[j, c] * V[j, e], (j, 1, n)), (c, 1, d))
    assert status(quad, lin, "sum_interchange") is Level.PASS
    assert status(lin, quad, "sum_interchange") is Level.PASS


@pytest.mark.parametrize(
    "lhs, rhs, why",
    [
        (sp.Sum(sp.Sum(F[j, c], (c, 1, j)), (j, 1, n)), sp.Sum(sp.Sum(F[j, c], (j, 1, c)), (c, 1, n)),
         "triangular range: the inner bound depends on the outer index"),
        (sp.Sum(sp.Sum(P[i, c] * F[j, c], (c, 1, d)) * V[j, e], (j, 1, n)),
         sp.Sum(P[i, c] * sp.Sum(F[j, c] * V[j, e], (j, 1, n)), (c, 1, n)), "wrong range after the swap"),
        (sp.Sum(sp.Sum(P[i, c] * F[j, c], (c, 1, d)) * V[j, e], (j, 1, n)),
         sp.Sum(P[i, c], (c, 1, d)) * sp.Sum(F[j, c] * V[j, e], (j, 1, n)), "sum of products is not a product of sums"),
        (sp.Sum(f[j], (j, 1, n)), sp.Sum(f[k], (k, 1, n)), "nothing to interchange"),
    ],
)
def test_sum_interchange_rejects_invalid_steps(lhs, rhs, why):
    assert status(lhs, rhs, "sum_interchange") is Level.FAIL, why


def test_flatten_sums_moves_factors_inward_only_when_safe():
    assert flatten_sums(sp.Sum(f[j] * sp.Sum(g[k], (k, 1, n)), (j, 1, n))) == sp.Sum(f[j] * g[k], (k, 1, n), (j, 1, n))
    clash = sp.Sum(f[k] * sp.Sum(g[k], (k, 1, n)), (j, 1, n))
    assert flatten_sums(clash) == clash


def test_sum_join_is_sum_split_backwards():
    whole = sp.Sum(f[k], (k, 1, a + b))
    assert status(sp.Sum(f[k], (k, 1, a)) + sp.Sum(f[k], (k, a + 1, a + b)), whole, "sum_join", at=a) is Level.PASS
    assert status(sp.Sum(f[k], (k, 1, a)) + sp.Sum(f[k], (k, a, a + b)), whole, "sum_join", at=a) is Level.FAIL
    assert status(sp.Sum(f[k], (k, 1, a)) + sp.Sum(f[k], (k, a + 2, a + b)), whole, "sum_join", at=a) is Level.FAIL
