"""Adversarial review 16: two folds of audited heads at the point where they do not hold.

``acot`` and ``acoth`` jump at 0 (``acot(0) = pi/2``, ``acoth(0) = i pi/2``), yet SymPy built
``acot(-x)`` as ``-acot(x)``, ``acoth(-x)`` as ``-acoth(x)`` and ``acoth(i x)`` as ``-i acot(x)`` for any
``x``: ``acot(-x) = -acot(x)`` was proved, false at ``x = 0``, and with the hypothesis ``x = 0``
``acot(-x) = -pi/2`` was proved by substitution. ``LeviCivita`` of integers that are no permutation was
SymPy's product formula (``LeviCivita(1, 2, 4) = 3``). The folds now need an argument shown nonzero, and
the symbol is evaluated only on a permutation or with a repeated index.
"""

from __future__ import annotations

import pytest
import sympy as sp

import symattn.kernel.sympy_fixes  # noqa: F401  (the corrected handlers, before any term is built)
from symattn import Verdict

from .claims import Claim, check, step

x = sp.Symbol("x", real=True)
z = sp.Symbol("z")
m = sp.Symbol("m", integer=True)
p = sp.Symbol("p", positive=True)
u = sp.Symbol("u", nonnegative=True)
ZERO, ONE = sp.Integer(0), sp.Integer(1)


def _claim(tid, lhs, rhs, rule="algebra", relation="="):
    return Claim(tid, lhs, rhs, (step(rhs, rule, relation),), relation=relation)


FALSE_CLAIMS = [  # each false at its variable = 0 (pi/2 against -pi/2; i pi/2 against -i pi/2)
    _claim("acot_odd", sp.acot(-x), -sp.acot(x)),
    _claim("acot_odd_sum", sp.acot(-x) + sp.acot(x), ZERO),
    _claim("acot_odd_complex", sp.acot(-z), -sp.acot(z)),
    _claim("acot_odd_integer", sp.acot(-m), -sp.acot(m)),
    _claim("acot_odd_nonnegative", sp.acot(-u), -sp.acot(u)),
    _claim("acoth_odd", sp.acoth(-x), -sp.acoth(x)),
    _claim("acoth_odd_sum", sp.acoth(-x) + sp.acoth(x), ZERO),
    _claim("acoth_imaginary", sp.acoth(sp.I * x), -sp.I * sp.acot(x)),
    _claim("acot_odd_square", (sp.acot(-x) + sp.acot(x)) ** 2, ZERO),
    _claim("acot_odd_below", sp.acot(-m) + sp.acot(m), ZERO, "positivity", "<="),
    _claim("levicivita_124", sp.LeviCivita(1, 2, 4), sp.Integer(3)),
    _claim("levicivita_135", sp.LeviCivita(1, 3, 5), sp.Integer(8)),
    _claim("levicivita_214", sp.LeviCivita(2, 1, 4), sp.Integer(-3)),
    # the product formula is shift-invariant: 0-based indices are outside the 1..n convention
    _claim("levicivita_012", sp.LeviCivita(0, 1, 2), ONE),
    _claim("levicivita_021", sp.LeviCivita(0, 2, 1), -ONE),
    _claim("levicivita_234", sp.LeviCivita(2, 3, 4), ONE),
    _claim("levicivita_out_of_range_repeat", sp.LeviCivita(0, 0, 1), ZERO),
]


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=[c.id for c in FALSE_CLAIMS])
def test_false_folds_at_the_jump_are_not_proved(claim):
    out = check(claim)
    assert out.verdict not in (Verdict.PROVED, Verdict.PROVED_FOR_INSTANCES), out.how


TRUE_CLAIMS = [
    _claim("acot_odd_positive", sp.acot(-p), -sp.acot(p)),  # p != 0: acot is odd away from 0
    _claim("acoth_odd_positive", sp.acoth(-p), -sp.acoth(p)),
    _claim("acot_at_zero", sp.acot(0), sp.pi / 2),
    _claim("acot_at_minus_one", sp.acot(-1), -sp.pi / 4),
    _claim("levicivita_odd_permutation", sp.LeviCivita(1, 3, 2), -ONE),
    _claim("levicivita_repeat", sp.LeviCivita(1, 1, 2), ZERO),
    _claim("levicivita_identity", sp.LeviCivita(1, 2, 3), ONE),
]


@pytest.mark.parametrize("claim", TRUE_CLAIMS, ids=[c.id for c in TRUE_CLAIMS])
def test_true_claims_of_the_same_shapes_are_not_refuted(claim):
    out = check(claim)
    assert out.verdict is not Verdict.REFUTED, out.how


def test_the_folds_wait_for_a_nonzero_argument():
    assert isinstance(sp.acot(-x), sp.acot) and isinstance(sp.acoth(-x), sp.acoth)
    assert isinstance(sp.acoth(sp.I * x), sp.acoth)
    assert sp.acot(-p) == -sp.acot(p) and sp.acoth(-p) == -sp.acoth(p)
    assert (sp.acot(0), sp.acoth(0), sp.acot(-1)) == (sp.pi / 2, sp.I * sp.pi / 2, -sp.pi / 4)


def test_levicivita_is_evaluated_on_permutations_and_repeats_only():
    assert isinstance(sp.LeviCivita(1, 2, 4), sp.LeviCivita) and isinstance(sp.LeviCivita(1, 3, 5), sp.LeviCivita)
    assert [sp.LeviCivita(*t) for t in ((1, 2, 3), (2, 1, 3), (3, 2, 1), (1, 1, 2))] == [1, -1, -1, 0]
    for t in ((0, 1, 2), (0, 2, 1), (2, 3, 4), (0, 0, 1), (-1, 0, 1), (1, 2, 5)):
        assert isinstance(sp.LeviCivita(*t), sp.LeviCivita), t
