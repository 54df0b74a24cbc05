"""Adversarial review 11: SymPy's ``binomial(n, k)._eval_is_nonnegative`` answers False for every integer
``n`` not known nonnegative and odd ``k``, so ``binomial(n, 3)`` was "negative" to the sign test, to the
lemma side conditions (``apply_theorem`` with a lemma about a negative ``a``) and to SymPy's own
constructors (``Abs(binomial(n, 3))`` was built as ``-binomial(n, 3)``), though it is 0 at ``n = 0`` and 1
at ``n = 3``. The kernel corrects the handler (``symattn.kernel.sympy_fixes``) and its sign test reads
binomials through what holds of them."""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.kernel.sign import has_fact, nonzero, sign_of

from .claims import Claim, assert_proved, check, step

n = sp.Symbol("n", integer=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
C3, C5 = sp.binomial(n, 3), sp.binomial(n, 5)


@pytest.mark.parametrize("e", [C3, C5, sp.binomial(n, 7), sp.binomial(n + 1, 3), sp.binomial(2 * n, 1)])
def test_a_binomial_of_an_integer_of_unknown_sign_and_odd_k_has_no_sign(e):
    assert e.is_negative is None and e.is_nonnegative is None
    assert sign_of(-e) is None and sign_of(e) is None
    assert not nonzero(e)
    assert not has_fact(e, "negative") and not has_fact(e, "nonzero")
    assert sp.Abs(e) != -e and sp.sign(e) != -1 and sp.Max(e, 0) != 0


@pytest.mark.parametrize("e,fact", [(sp.binomial(m, 3), "nonnegative"), (sp.binomial(n, 2), "nonnegative"),
                                    (sp.binomial(-m - 1, 3), "negative"), (sp.binomial(n, -1), "nonnegative")])
def test_what_holds_of_a_binomial_is_still_known(e, fact):
    assert getattr(e, f"is_{fact}") is True


FALSE = [
    Claim("binomial_negative", C3, 0, (step(0, "inequality", "<"),), relation="<"),
    Claim("minus_binomial_positive", 0, -C5, (step(-C5, "inequality", "<"),), relation="<"),
    Claim("abs_of_binomial", sp.Abs(C3) + C3, 0, (step(0, "algebra"),)),
    Claim("sqrt_of_square", sp.sqrt(C3**2), -C3, (step(-C3, "algebra"),)),
    Claim("sign_of_binomial", sp.sign(C3), -1, (step(sp.Integer(-1), "algebra"),)),
    Claim("max_of_binomial", sp.Max(C3, 0), 0, (step(sp.Integer(0), "algebra"),)),
    Claim("binomial_cancelled", (C3**2 - C3) / C3, C3 - 1, (step(C3 - 1, "algebra"),)),
    Claim("binomial_at_most_minus_one", C3, -1, (step(sp.Integer(-1), "inequality", "<="),), relation="<="),
]


@pytest.mark.parametrize("claim", FALSE, ids=[c.id for c in FALSE])
def test_false_binomial_claims_are_not_proved(claim):
    out = check(claim)
    assert out.verdict.value != "proved", out.how


def test_a_true_binomial_identity_is_still_proved():
    assert_proved(Claim("sqrt_squared", sp.sqrt(C3) ** 2, C3, (step(C3, "algebra"),)))


@pytest.mark.parametrize("first", ["from symattn import Statement", "from symattn import Theorem, Derivation",
                                   "from symattn import E", "import symattn.statement"])
def test_the_correction_is_in_place_before_a_theorem_file_builds_a_term(first):
    import subprocess
    import sys

    code = (f"import warnings; warnings.simplefilter('ignore'); import sympy as sp; {first}; "
            "n = sp.Symbol('n', integer=True); print(sp.binomial(n, 3).is_negative, sp.Abs(sp.binomial(n, 3)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["None", "Abs(binomial(n,", "3))"], out.stdout
