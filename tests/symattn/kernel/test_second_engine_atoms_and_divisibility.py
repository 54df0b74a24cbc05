"""Two classes of fact the second engine could not re-check (issue 18):

* integrality under divisibility hypotheses ``Mod(a, b) = 0`` (the GQA widths ``h_kv d / h``): Z3's
  nonlinear integer arithmetic timed out on the ``Mod``; the engine now writes ``a = b q`` with a fresh
  integer ``q`` and decides the polynomial it gets;
* a sign with the same opaque atom twice (``|u| b - |u| b`` with a complex ``u``, a power ``p**x``):
  each occurrence was a new, unrelated Z3 variable; now one term is one variable.

True facts are agreed; false ones are never agreed (a false integrality is shown false by a model)."""

import pytest
import sympy as sp

from symattn.kernel.second import AGREE, DISAGREE
from symattn.kernel.second.integers import recheck_integer
from symattn.kernel.second.z3_sign import recheck_sign

N, B, C, M, d, h, hk = sp.symbols("N B C M d h h_kv", integer=True, positive=True)


def divides(b, a):
    return sp.Eq(sp.Mod(a, b), 0)


TRUE_INTEGERS = [
    (N / B, (divides(B, N),)),
    ((N / B) ** 3, (divides(B, N),)),
    (N / B + M / B, (divides(B, N), divides(B, M))),
    (N * M / B, (divides(B, N),)),
    (N / (B * C), (divides(B * C, N),)),
    (d * hk / h - 1, (divides(h, d), divides(hk, h))),  # gqa_param_count's key/value width
    (d / hk, (divides(h, d), divides(hk, h))),  # divisibility is transitive
    (N / B - C, (divides(B, N),)),
    (N**2 / B**2, (divides(B, N),)),
]

FALSE_INTEGERS = [
    (N / (2 * B), (divides(B, N),)),
    (N / B**2, (divides(B, N),)),
    (d * hk / h**2, (divides(h, d), divides(hk, h))),
    (N / B, (divides(N, B),)),  # the wrong direction
    ((N + 1) / B, (divides(B, N),)),
    (M / B, (divides(B, N),)),
    (N / C, (divides(B, N),)),
    (d / (h * hk), (divides(h, d), divides(hk, h))),
]


@pytest.mark.parametrize("expr, conditions", TRUE_INTEGERS)
def test_an_integer_under_divisibility_is_agreed(expr, conditions):
    check = recheck_integer(expr, conditions=conditions)
    assert check.verdict == AGREE, check.reason


@pytest.mark.parametrize("expr, conditions", FALSE_INTEGERS)
def test_a_non_integer_under_divisibility_is_shown_false(expr, conditions):
    assert recheck_integer(expr, conditions=conditions).verdict == DISAGREE


def test_without_the_divisibility_nothing_is_agreed():
    for expr, _ in TRUE_INTEGERS[:7]:
        assert recheck_integer(expr).verdict != AGREE


hb, Sb = sp.IndexedBase("h"), sp.IndexedBase("S")  # complex entries: |u| is an opaque atom
k = sp.Symbol("k", integer=True, nonnegative=True)
D = sp.Symbol("D", integer=True, positive=True)
dd = sp.Symbol("d", nonnegative=True)
p, q = sp.symbols("p q", positive=True)
x, y = sp.symbols("x y", real=True)
A, Bk = sp.Abs(hb[k + 1] - hb[k]), sp.Abs(Sb[k + 1])

TRUE_SIGNS = [
    ((dd + A) * Bk - A * Bk, "nonnegative"),  # rope_abel_summation_bound's termwise fact
    ((A + 1) ** 2 - A**2 - 2 * A, "positive"),
    (A * (Bk + 1) - A * Bk, "nonnegative"),
    ((p**x + 1) * q - p**x * q, "positive"),
    ((sp.Abs(hb[1]) + 1) * sp.Abs(hb[2]) - sp.Abs(hb[2]) * sp.Abs(hb[1]) + dd, "nonnegative"),
    ((dd + 1) * p**x - p**x * dd, "positive"),
    (A * Bk * (A + Bk) - A**2 * Bk - A * Bk**2 + 1, "positive"),
    ((q + A) * (q - A) + A**2, "positive"),
]

FALSE_SIGNS = [
    (sp.Abs(hb[1]) - sp.Abs(hb[2]), "nonnegative"),
    (A * Bk - A, "nonnegative"),
    ((x - A) * Bk + A * Bk, "nonnegative"),
    (p**x - p**y, "nonnegative"),
    (A - 2 * A, "nonnegative"),
    ((dd + A) * Bk - A * Bk, "positive"),  # d may be 0
    (A * Bk - Bk, "nonnegative"),
    (p**x * q - q, "nonnegative"),
]


@pytest.mark.parametrize("expr, relation", TRUE_SIGNS)
def test_the_same_atom_twice_is_one_variable(expr, relation):
    check = recheck_sign(expr, relation)
    assert check.verdict == AGREE, check.reason


def test_the_termwise_fact_with_its_range():
    assert recheck_sign(TRUE_SIGNS[0][0], "nonnegative", ranges=((k, 0, D - 1),)).verdict == AGREE


@pytest.mark.parametrize("expr, relation", FALSE_SIGNS)
def test_a_false_sign_over_atoms_is_never_agreed(expr, relation):
    assert recheck_sign(expr, relation).verdict != AGREE
