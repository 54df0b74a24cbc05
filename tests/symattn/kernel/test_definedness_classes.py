"""Issue 18, class 9 (definedness): the poles of coth, csch, atanh, Gamma and factorial, and a Piecewise
with no default branch, are conditions of the step that only one side has; a step that cancels them is
refused unless the hypotheses or the symbols' assumptions discharge them (and "Gamma has no zeros",
true of Gamma, discharges nothing: the condition is that the argument is not a pole)."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.language.statement import Assumption
from symattn.rules import ProofContext, check_step

x = sp.Symbol("x", real=True)
p = sp.Symbol("p", positive=True)
n = sp.Symbol("n", integer=True, nonnegative=True)

NO_ZEROS = Assumption("gamma_no_zeros", condition=sp.Ne(sp.gamma(x), 0), text="Gamma has no zeros")

FALSE = [  # lhs = rhs holds only where the left side is defined: refused without the condition
    (sp.coth(x) * sp.sinh(x), sp.cosh(x), ()),
    (sp.csch(x) * sp.sinh(x), 1, ()),
    (x * sp.gamma(x) / sp.gamma(x + 1), 1, ()),
    (x * sp.gamma(x) / sp.gamma(x + 1), 1, (NO_ZEROS,)),
    (sp.gamma(x + 1) / sp.gamma(x), x, ()),
    (x * sp.factorial(x - 1) / sp.factorial(x), 1, ()),
    (sp.factorial(x) / sp.gamma(x + 1), 1, ()),
    (sp.coth(2 * x) * sp.sinh(2 * x), sp.cosh(2 * x), ()),
    (sp.csch(x) ** 2 * sp.sinh(x) ** 2, 1, ()),
]

TRUE = [  # the same shapes where the condition is discharged
    (sp.coth(p) * sp.sinh(p), sp.cosh(p), ()),
    (sp.csch(p) * sp.sinh(p), 1, ()),
    (p * sp.gamma(p) / sp.gamma(p + 1), 1, ()),
    (2 * p * sp.gamma(2 * p) / sp.gamma(2 * p + 1), 1, ()),
    (sp.gamma(p + 1) / sp.gamma(p), p, ()),
    (sp.factorial(n) / sp.gamma(n + 1), 1, ()),
    (sp.coth(2 * p) * sp.sinh(2 * p), sp.cosh(2 * p), ()),
    (sp.csch(p) ** 2 * sp.sinh(p) ** 2, 1, ()),
]


def _status(lhs, rhs, hyps):
    return check_step(lhs, rhs, "=", "algebra", {}, ProofContext(hypotheses=hyps)).status


@pytest.mark.parametrize("lhs, rhs, hyps", FALSE, ids=[sp.sstr(a) for a, *_ in FALSE])
def test_a_step_dropping_a_pole_is_refused(lhs, rhs, hyps):
    assert _status(lhs, rhs, hyps) is not Level.PASS


@pytest.mark.parametrize("lhs, rhs, hyps", TRUE, ids=[sp.sstr(a) for a, *_ in TRUE])
def test_the_same_step_passes_where_the_pole_is_excluded(lhs, rhs, hyps):
    assert _status(lhs, rhs, hyps) is Level.PASS
