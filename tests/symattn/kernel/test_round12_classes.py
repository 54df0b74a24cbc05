"""Adversarial review 12: SymPy's ``Mod``, ``Max`` and ``Min`` read their arguments as real.

``Mod(a, q)._eval_is_nonnegative`` answers True whenever ``q > 0``, whatever ``a`` is, so
``0 <= Mod(t_k, 2)`` for a complex ``t_k`` auto-evaluated to True at every instance (``Mod(I, 2)`` is not
even defined: there is no order on the complex numbers), and ``Max(1, a)`` was "positive" (so real) for
a complex ``a``; the sign test also split ``Max(1, t_k) - 1`` into the pieces ``0`` and ``t_k - 1`` and
signed it by the first. Ten such claims were ``proved-for-instances``, 78 were accepted by the first
engine alone. The kernel corrects the handlers (``symattn.kernel.sympy_fixes``: each answers only when
every argument is known real) and the sign test splits a ``Max``/``Min`` only over real arguments.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import IndexRange, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.kernel import grading
from symattn.kernel.sign import has_fact, nonzero, sign_of

from .claims import Claim, check, step

n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
x = sp.Symbol("x", real=True)
a = sp.Symbol("a")  # complex
t = sp.IndexedBase("t")  # complex entries
s = sp.IndexedBase("s", real=True)
f = sp.Function("f")  # complex-valued
g = sp.Function("g", real=True)
Z, ONE = sp.Integer(0), sp.Integer(1)
RANGE = (IndexRange("rk", index=k, lower=1, upper=n),)

#: terms whose arguments are not known real: no sign, no realness
COMPLEX_ARGUMENT = [sp.Mod(a, 2), sp.Mod(t[k], 2), sp.Mod(f(x), 3), sp.Mod(sp.I * s[k], 2),
                    sp.Mod(sp.exp(sp.I * x), 2), sp.Mod(sp.sqrt(s[k]), 2), sp.Max(1, a), sp.Min(1, t[k]),
                    sp.Max(2, f(x)), sp.Min(-1, sp.sqrt(x))]


@pytest.mark.parametrize("e", COMPLEX_ARGUMENT, ids=[sp.sstr(e) for e in COMPLEX_ARGUMENT])
def test_mod_max_min_of_an_argument_not_known_real_have_no_sign(e):
    for fact in ("real", "extended_real", "nonnegative", "positive", "nonpositive", "negative"):
        assert getattr(e, f"is_{fact}") is None, fact
    assert sign_of(e) is None and sign_of(-e) is None
    assert not has_fact(e, "nonnegative") and not has_fact(e, "positive")
    assert sp.Le(0, e) not in (sp.true, sp.false) and sp.Le(e, 5) not in (sp.true, sp.false)


#: the same terms over real arguments keep every fact SymPy knows of them
REAL_ARGUMENT = [(sp.Mod(x, 2), "nonnegative"), (sp.Mod(x, -2), "nonpositive"), (sp.Mod(g(x), 3), "nonnegative"),
                 (sp.Mod(s[k], 2), "nonnegative"), (sp.Max(1, x), "positive"), (sp.Min(-1, x), "negative"),
                 (sp.Max(1, g(x)), "positive"), (sp.Max(x, sp.oo), "extended_real"), (sp.Mod(n, 3), "integer")]


@pytest.mark.parametrize("e,fact", REAL_ARGUMENT, ids=[sp.sstr(e) for e, _ in REAL_ARGUMENT])
def test_what_holds_of_real_arguments_is_still_known(e, fact):
    assert getattr(e, f"is_{fact}") is True


def test_max_of_real_arguments_is_still_split_by_the_sign_test():
    assert sign_of(sp.Max(x, 1) - 1) == "nonnegative" or has_fact(sp.Max(x, 1) - 1, "nonnegative")
    assert nonzero(sp.Max(x**2, 1))
    assert sign_of(sp.Max(1, t[k]) - 1) is None  # not over a complex t_k


def _instances(tid, lhs, rhs, relation="="):
    return Theorem(id=tid, title=tid, source="extension", statement=Statement(lhs, rhs, relation),
                   hypotheses=RANGE, dimensions=(n,), target="proved-for-instances")


#: false (or undefined) at some instance, with no derivation: the instance level must not accept them
FALSE_AT_INSTANCES = [
    _instances("mod_t_nonneg", Z, sp.Mod(t[k], 2), "<="),
    _instances("mod_t_sq_nonneg", Z, sp.Mod(t[k], 2) ** 2, "<="),
    _instances("mod_t1_times_n", Z, sp.Mod(t[1], 2) * n, "<="),
    _instances("mod_t_below_2", sp.Mod(t[k], 2), 2 * ONE, "<"),
    _instances("max_t_at_least_1", ONE, sp.Max(1, t[k]), "<="),
    _instances("min_t_at_most_1", sp.Min(1, t[k]), ONE, "<="),
    _instances("mod_sum_nonneg", Z, sp.Sum(sp.Mod(t[k], 2), (k, 1, n)), "<="),
    _instances("mod_i_s_nonneg", Z, sp.Mod(sp.I * s[k], 2), "<="),
    _instances("mod_exp_i_s_nonneg", Z, sp.Mod(sp.exp(sp.I * s[k]), 2), "<="),
    _instances("mod_t_is_real", sp.Mod(t[k], 2), sp.re(sp.Mod(t[k], 2))),
    _instances("mod_t_self_conjugate", sp.conjugate(sp.Mod(t[k], 2)), sp.Mod(t[k], 2)),
]


@pytest.mark.parametrize("thm", FALSE_AT_INSTANCES, ids=[t.id for t in FALSE_AT_INSTANCES])
def test_claims_on_mod_max_min_of_complex_values_are_not_accepted_at_instances(thm):
    out = check_theorem(thm, numeric=False)
    assert out.verdict not in (Verdict.PROVED, Verdict.PROVED_FOR_INSTANCES), out.how
    assert out.levels["instances"].status.value != "pass", out.how


#: true of real arguments, the same shapes: still accepted at instances
TRUE_AT_INSTANCES = [
    _instances("mod_s_nonneg", Z, sp.Mod(s[k], 2), "<="),
    _instances("mod_s_sq_nonneg", Z, sp.Mod(s[k], 2) ** 2, "<="),
    _instances("mod_s_plus_1_positive", Z, sp.Mod(s[k], 2) + 1, "<"),
    _instances("max_s_at_least_s", s[k], sp.Max(1, s[k]), "<="),
    _instances("max_s_at_least_1", ONE, sp.Max(1, s[k]), "<="),
    _instances("min_s_at_most_1", sp.Min(1, s[k]), ONE, "<="),
    _instances("mod_sum_s_nonneg", Z, sp.Sum(sp.Mod(s[k], 2), (k, 1, n)), "<="),
    _instances("mod_s_is_real", sp.Mod(s[k], 2), sp.re(sp.Mod(s[k], 2))),
    _instances("mod_s_self_conjugate", sp.conjugate(sp.Mod(s[k], 2)), sp.Mod(s[k], 2)),
]


@pytest.mark.parametrize("thm", TRUE_AT_INSTANCES, ids=[t.id for t in TRUE_AT_INSTANCES])
def test_the_same_claims_of_real_values_pass_at_instances(thm):
    out = check_theorem(thm, numeric=False)
    assert out.verdict is not Verdict.REFUTED, out.how
    assert out.levels["instances"].status.value == "pass", out.how


HEADS = {"mod": lambda e: sp.Mod(e, 2), "max": lambda e: sp.Max(1, e), "min": lambda e: sp.Min(1, e)}


def _one_step_claims(terms):
    """``0 <= Mod(e, 2)``, ``1 <= Max(1, e)``, ``Min(1, e) <= 1``, each in one step by each sign rule (the
    combinations SymPy refuses to build, ``Max`` of an unevaluated integral, left out)."""
    out = []
    for head, build in HEADS.items():
        for name, e in terms.items():
            try:
                term = build(e)
            except ValueError:  # "The argument ... is not comparable"
                continue
            for rule in ("positivity", "inequality"):
                tid = f"{head}_{name}_{rule}"
                if head == "min":
                    out.append(Claim(tid, term, ONE, (step(ONE, rule, "<="),), relation="<="))
                else:
                    low = ONE if head == "max" else Z
                    out.append(Claim(tid, low, term, (step(term, rule, "<="),), relation="<="))
    return out


COMPLEX_TERMS = {"fx": f(x), "integral": sp.Integral(f(x), (x, 0, 1)), "derivative": sp.Derivative(f(x), x),
                 "limit": sp.Limit(f(x), x, 0), "log": sp.log(x - 2), "acos": sp.acos(x + 3), "power": (x - 5) ** x}
#: a one-step derivation by positivity or inequality of a false (or undefined) bound: the step fails
FALSE_STEPS = _one_step_claims(COMPLEX_TERMS)


@pytest.mark.parametrize("engines", ["both", "first"])
@pytest.mark.parametrize("claim", FALSE_STEPS, ids=[c.id for c in FALSE_STEPS])
def test_a_sign_step_on_mod_max_min_of_a_complex_value_is_refused_by_either_engine(claim, engines, monkeypatch):
    if engines == "first":  # the kernel alone (SYMATTN_REQUIRE_RECHECK=0) must already refuse it
        monkeypatch.setattr(grading, "REQUIRE_RECHECK", False)
    out = check(claim)
    assert out.verdict is not Verdict.PROVED, out.how
    assert out.steps and out.steps[0].status.value != "pass", out.how


def test_the_tables_are_large_enough():
    assert len(FALSE_STEPS) >= 16 and len(TRUE_STEPS) >= 16


REAL_TERMS = {"gx": g(x), "x": x, "square": x**2 - 3, "exp": sp.exp(x), "sum": sp.Sum(s[k], (k, 1, n))}
TRUE_STEPS = _one_step_claims(REAL_TERMS)


@pytest.mark.parametrize("claim", TRUE_STEPS, ids=[c.id for c in TRUE_STEPS])
def test_the_same_steps_over_real_values_are_proved(claim):
    out = check(claim)
    assert out.verdict is not Verdict.REFUTED, out.how
    assert out.steps and out.steps[0].status.value == "pass", out.how
