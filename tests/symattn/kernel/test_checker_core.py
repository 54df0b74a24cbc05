"""The checker's part of the trusted core: the time limit and grading live in symattn.kernel,
the core imports no report code, the finite expander unrolls sums itself, and a configured level
that crashes is never a pass."""

import subprocess
import sys

import pytest
import sympy as sp

from symattn import Derivation, NumericResult, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.engine.verdict import Level, LevelResult
from symattn.kernel.grading import MAX_FALSE_PASS, grade
from symattn.kernel.search import expand_finite, substitute_free

x = sp.Symbol("x", real=True)
k, j = sp.symbols("k j", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
s = sp.IndexedBase("s")


def test_importing_the_core_does_not_import_the_report():
    code = (
        "import sys; import symattn.kernel.timelimit, symattn.kernel.grading, symattn.kernel.search, "
        "symattn.engine.checker, symattn.engine.theorem, symattn.language.derivation, symattn.language.statement, "
        "symattn.engine.verdict; bad = [m for m in sys.modules if m.startswith('symattn.products.report')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=".")
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("expr,expected", [
    (sp.Sum(k**2, (k, 1, 3)), sp.Integer(14)),
    (sp.Sum(sp.KroneckerDelta(k, sp.Rational(3, 2)), (k, 0, 3)), sp.Integer(0)),  # 3/2 is no integer
    (sp.Sum(sp.KroneckerDelta(k, 2), (k, 0, 3)), sp.Integer(1)),
    (sp.Sum(k, (k, 3, 2)), sp.Integer(0)),  # empty range
    (sp.Product(k, (k, 1, 4)), sp.Integer(24)),
    (sp.Sum(s[k] * s[j], (j, 1, k), (k, 1, 2)), s[1] ** 2 + s[1] * s[2] + s[2] ** 2),  # inner limit uses k
    (sp.Sum(sp.Sum(k, (k, 1, 2)) * k, (k, 1, 2)), sp.Integer(9)),  # the inner k is its own variable
])
def test_the_expander_unrolls_finite_sums_itself(expr, expected):
    assert sp.expand(expand_finite(expr) - expected) == 0


def test_substitution_never_captures_a_bound_variable():
    e = sp.Sum(s[k] + k * j, (k, 1, j))
    out = substitute_free(e, {k: 5, j: 2})
    assert out == sp.Sum(s[k] + 2 * k, (k, 1, 2))


def _levels(**status):
    base = {name: LevelResult() for name in ("symbolic", "instances", "probabilistic", "numeric")}
    base.update(status)
    return base


def test_grading_counts_probabilistic_evidence_only_below_the_false_pass_bound():
    weak = LevelResult(Level.PASS, "weak", {"error_bound": 2.0**-20, "derived": True})
    strong = LevelResult(Level.PASS, "strong", {"error_bound": MAX_FALSE_PASS, "derived": True})
    builder = LevelResult(Level.PASS, "strong, builder's", {"error_bound": 1e-40, "derived": False})
    verdict_of = lambda _: Verdict.PROVED  # noqa: E731
    assert grade("theorem", _levels(probabilistic=weak), (), verdict_of, "at x = 0")[0] is Verdict.UNDECIDED
    assert grade("theorem", _levels(probabilistic=strong), (), verdict_of,
                 "at x = 0")[0] is Verdict.CHECKED_PROBABILISTICALLY
    assert grade("theorem", _levels(probabilistic=builder), (), verdict_of, "at x = 0")[0] is Verdict.UNDECIDED


def test_grading_without_a_model_is_undecided_whatever_the_levels_say():
    sym = LevelResult(Level.PASS, "all steps checked")
    v, how, _ = grade("theorem", _levels(symbolic=sym), (), lambda _: Verdict.PROVED, None, no_model="a0: 0 != 1")
    assert v is Verdict.UNDECIDED and "a0: 0 != 1" in how


def test_a_numeric_check_that_raises_is_no_pass():
    def boom(seed):
        raise RuntimeError("numeric check broke")

    t = Theorem(id="t", title="t", source="extension", statement=Statement((x + 1) ** 2, x**2 + 2 * x + 1),
                derivation=Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra"), numeric=boom)
    o = check_theorem(t)
    assert o.levels["numeric"].status is Level.UNDECIDED and "numeric check broke" in o.levels["numeric"].detail
    ok = Theorem(id="t2", title="t", source="extension", statement=Statement(x, x),
                 numeric=lambda seed: NumericResult(True, 1, seed, 0.0, 0.0))
    assert check_theorem(ok).levels["numeric"].status is Level.PASS
