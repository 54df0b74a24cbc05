"""Range rules (mask_restrict, abs_by_sign, delta_by_range, floor_by_range, minmax_by_range,
range_split/range_join, range_inequality): tables of valid uses, and of invalid uses each rejected
for its own reason."""

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.language.statement import Assumption, IndexRange
from symattn.maths.masks import Band, causal_mask, window_mask
from symattn.rules import ProofContext, check_step
from symattn.rules.ranges import range_sign

n, w, g, c = sp.symbols("n w g c", integer=True, positive=True)
i, r = sp.symbols("i r", integer=True, positive=True)
j = sp.Symbol("j", integer=True)
f = sp.IndexedBase("f", real=True)
a = sp.IndexedBase("a", positive=True)
x = sp.Symbol("x", real=True)

I_IN = IndexRange("i_range", index=i, lower=1, upper=n)
W_IN = IndexRange("w_range", index=w, lower=1, upper=n)
R_IN = IndexRange("r_range", index=r, lower=1, upper=g)
W_COVERS = Assumption("w_covers", condition=sp.Le(n, w))


def ctx(*hyps):
    return ProofContext(hypotheses=tuple(hyps))


def S(body, lo, hi):
    return sp.Sum(body, (j, lo, hi))


VALID = [
    ("mask_restrict", S(causal_mask(i, j) * f[j], 1, n), S(f[j], 1, i), (I_IN,), {}),
    ("mask_restrict", S(window_mask(i, j, w) * f[j], 1, n), S(f[j], sp.Max(1, i - w + 1), i), (I_IN,), {}),
    ("mask_restrict", S(window_mask(i, j, w) * f[j], 1, n), S(f[j], 1, i), (I_IN, W_COVERS), {}),
    ("mask_restrict", S(Band(j, n + 1, 2 * n) * f[j], 1, n), sp.S.Zero, (), {}),  # no key inside the band
    # a band's ends that are not integers: the integer keys inside are ceiling(lo)..floor(hi)
    ("mask_restrict", S(Band(j, sp.Rational(3, 2), n) * f[j], 1, n), S(f[j], 2, n), (), {}),
    ("mask_restrict", S(Band(j, 1, n - sp.Rational(1, 2)) * f[j], 1, n), S(f[j], 1, n - 1), (), {}),
    ("abs_by_sign", S(sp.Abs(i - j) * f[j], 1, i), S((i - j) * f[j], 1, i), (), {}),
    ("abs_by_sign", sp.Abs(S(a[j], 1, i - 1)), S(a[j], 1, i - 1), (), {}),
    ("delta_by_range", S(sp.KroneckerDelta(i, j) * f[j], i + 1, n), S(0 * f[j], i + 1, n), (I_IN,), {}),
    ("floor_by_range", sp.floor(((c - 1) * g + r - 1) / g), c - 1, (R_IN,), {"value": c - 1}),
    ("minmax_by_range", S(sp.Max(1, j - w + 1), w + 1, n), S(j - w + 1, w + 1, n), (W_IN,), {}),
    ("range_split", S(f[j], 1, n), S(f[j], 1, i - 1) + S(f[j], i, n), (I_IN,), {"at": i - 1}),
    ("range_join", S(f[j], 1, i - 1) + f[i], S(f[j], 1, i), (I_IN,), {"at": i - 1}),
]


@pytest.mark.parametrize("rule, lhs, rhs, hyps, args", VALID, ids=[f"{v[0]}-{k}" for k, v in enumerate(VALID)])
def test_valid_uses_pass(rule, lhs, rhs, hyps, args):
    res = check_step(lhs, rhs, "=", rule, args, ctx(*hyps))
    assert res.status is Level.PASS, res.reason


INVALID = [
    # the window may start after key 1 unless w >= n is known
    ("mask_restrict", S(window_mask(i, j, w) * f[j], 1, n), S(f[j], 1, i), (I_IN,), {}, "differ"),
    # without i <= n the band may run past the last key: the range end stays a Min
    ("mask_restrict", S(causal_mask(i, j) * f[j], 1, n), S(f[j], 1, i), (), {}, "differ"),
    # the band 3/2..n holds the keys 2..n, not a sum from 3/2 nor from 1
    ("mask_restrict", S(Band(j, sp.Rational(3, 2), n) * f[j], 1, n), S(f[j], 1, n), (), {}, "differ"),
    ("mask_restrict", S(Band(j, 1, n - sp.Rational(1, 2)) * f[j], 1, n), S(f[j], 1, n), (), {}, "differ"),
    # |i - j| = j - i is the wrong sign for j <= i
    ("abs_by_sign", S(sp.Abs(i - j) * f[j], 1, i), S((j - i) * f[j], 1, i), (), {}, "differ"),
    # a sum over a possibly reversed range is not known to be nonnegative
    ("abs_by_sign", sp.Abs(S(a[j], 1, i - n)), S(a[j], 1, i - n), (), {}, "applies nowhere"),
    # without i <= n the range i+1..n may be reversed: minus the sum over n+1..i, which contains j = i
    ("delta_by_range", S(sp.KroneckerDelta(i, j) * f[j], i + 1, n), S(0 * f[j], i + 1, n), (), {}, "applies nowhere"),
    # the diagonal term is not zero
    ("delta_by_range", S(sp.KroneckerDelta(i, j) * f[j], i, n), S(0 * f[j], i, n), (), {}, "applies nowhere"),
    # floor(((c-1)g + r - 1)/g) is c - 1, not c, for 1 <= r <= g
    ("floor_by_range", sp.floor(((c - 1) * g + r - 1) / g), c, (R_IN,), {"value": c}, "applies nowhere"),
    # r up to g + 1 would reach the next group: not decided
    ("floor_by_range", sp.floor(((c - 1) * g + r - 1) / g), c - 1,
     (IndexRange("r_wide", index=r, lower=1, upper=g + 1),), {"value": c - 1}, "applies nowhere"),
    ("minmax_by_range", S(sp.Max(1, j - w + 1), 1, n), S(j - w + 1, 1, n), (), {}, "applies nowhere"),
    # the split point n + 1 lies outside 0..n
    ("range_split", S(f[j], 1, n), S(f[j], 1, n + 1) + S(f[j], n + 2, n), (), {"at": n + 1}, "not known to lie"),
]


@pytest.mark.parametrize("rule, lhs, rhs, hyps, args, why", INVALID, ids=[f"{v[0]}-{k}" for k, v in enumerate(INVALID)])
def test_invalid_uses_fail_for_their_own_reason(rule, lhs, rhs, hyps, args, why):
    res = check_step(lhs, rhs, "=", rule, args, ctx(*hyps))
    assert res.status is Level.FAIL
    assert why in res.reason


def test_range_inequality_uses_bounds_on_symbols():
    N, d, M = sp.symbols("N d M", integer=True, positive=True)
    hyps = (Assumption("lo", condition=sp.Le(d, M)), Assumption("hi", condition=sp.Le(M, N * d)))
    exact = 3 * N * d + 2 * N + 12 * N**2 * d**2 / M + 16 * N**2 * d / M
    ok = check_step(exact, 33 * N**2 * d**2 / M, "<=", "range_inequality", {"scale": M}, ctx(*hyps))
    assert ok.status is Level.PASS, ok.reason
    # without M <= N d the bound is false (M huge): not signed
    bad = check_step(exact, 33 * N**2 * d**2 / M, "<=", "range_inequality", {"scale": M}, ctx(hyps[0]))
    assert bad.status is Level.FAIL and "cannot sign" in bad.reason
    # a scale that may be negative is refused
    neg = check_step(exact, 33 * N**2 * d**2 / M, "<=", "range_inequality", {"scale": -M}, ctx(*hyps))
    assert neg.status is Level.FAIL and "not known to be positive" in neg.reason


def test_range_sign_is_never_fooled_by_an_unknown_coefficient():
    y = sp.Symbol("y", real=True)
    assert range_sign(y * (n - i), [(i, 1, n)]) is None  # y may be negative
    assert range_sign(n - i, [(i, 1, n)]) == "nonnegative"
    assert range_sign(n - i, [(i, 1, n + 1)]) is None
    assert range_sign(sp.Min(i, w) - 1, [(i, 1, n), (w, 1, n)]) == "nonnegative"
    assert range_sign(sp.Max(i, w) - n, [(i, 1, n), (w, 1, n)]) is None


def test_band_evaluates_only_when_numbers_decide():
    assert Band(sp.Integer(2), sp.Integer(1), sp.Integer(3)) == 1
    assert Band(sp.Integer(0), -sp.oo, sp.Integer(-1)) == 0
    assert isinstance(Band(j, 1, n), Band)
    with pytest.raises(TypeError):
        Band("j", 1, 2)


def test_a_reversed_range_gives_its_index_no_range():
    # Sum over 5..2 is minus the sum over 3..4 (SymPy's convention): the mask is 0 there, not 1
    lhs = S(Band(j, 5, 10) * f[j], 5, 2)
    assert lhs.doit() == -(Band(3, 5, 10) * f[3] + Band(4, 5, 10) * f[4])  # = 0
    bad = check_step(S(Band(j, 3, 4) * f[j], 5, 2), sp.S.Zero, "=", "mask_restrict", {}, ctx())
    assert bad.status is Level.FAIL  # truly -(f[3] + f[4]), not 0
    m = sp.Symbol("m", integer=True)
    unknown = check_step(S(sp.Abs(j - 1) * f[j], 1, m), S((j - 1) * f[j], 1, m), "=", "abs_by_sign", {}, ctx())
    assert unknown.status is Level.FAIL  # m may be < 0: then j runs over m+1..0 where j - 1 < 0
