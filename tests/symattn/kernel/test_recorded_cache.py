"""What a step records never depends on what the process decided before.

The kernel memoises its decisions (the sign test, the calculus signs, the range signs, the zero test's
reduction, the probability hypotheses' problems). A memo that kept only the value returned it without
the second engine's checks made while computing it: a step that reused a decision made earlier (by
another step, theorem or test) recorded none of its facts and was shown "checked by one engine"
(found by mutation testing: ``positivity_max_in_range`` failed after the tests before it, passed alone).
``symattn.kernel.second.recorded_cache`` keeps the checks with the value and records them on every use.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.engine.checker import Checker
from symattn.kernel import calculus, second, sign, zero
from symattn.kernel.schemas import probability

from .claims import Claim, step
from .test_analysis_classes import TRUE_CLAIMS


def _fact(tag):
    return second.Check("z3", second.AGREE, f"fact {tag}", fact=tag, kind="sign")


def test_checks_made_while_a_value_is_computed_are_recorded_on_every_use():
    calls = []

    @second.recorded_cache(maxsize=8)
    def decide(x):
        calls.append(x)
        second.record(_fact(f"{x}-a"))
        second.record(_fact(f"{x}-b"))
        return x * 2

    decide(1)  # first computed outside any step: nothing collects it
    for _ in range(2):
        with second.collecting() as got:
            assert decide(1) == 2
        assert [c.fact for c in got] == ["1-a", "1-b"]
    with second.collecting() as got:
        decide(2)
    assert [c.fact for c in got] == ["2-a", "2-b"]
    assert calls == [1, 2]  # still memoised


def test_nested_memoised_decisions_record_each_check_once_per_use():
    @second.recorded_cache(maxsize=8)
    def inner(x):
        second.record(_fact(f"inner{x}"))
        return x

    @second.recorded_cache(maxsize=8)
    def outer(x):
        second.record(_fact(f"outer{x}"))
        return inner(x) + inner(x + 1)

    with second.collecting() as first:
        outer(1)
    with second.collecting() as again:
        outer(1)
    with second.collecting() as alone:
        inner(1)
    assert [c.fact for c in first] == [c.fact for c in again] == ["outer1", "inner1", "inner2"]
    assert [c.fact for c in alone] == ["inner1"]


def test_a_computation_that_raises_records_what_it_made_before_raising():
    @second.recorded_cache(maxsize=8)
    def fails(x):
        second.record(_fact("before"))
        raise ValueError("no")

    with second.collecting() as got, pytest.raises(ValueError):
        fails(1)
    assert [c.fact for c in got] == ["before"]


@pytest.mark.parametrize("fn", [sign._sign_cached, calculus._sign_cached, calculus._range_signs_cached,
                                zero._reduces_cached, probability._problems_cached],
                         ids=["sign", "calculus_sign", "range_signs", "zero_reduces", "probability_problems"])
def test_every_memo_of_a_deciding_module_keeps_its_checks(fn):
    # each is a recorded_cache (its wrapper is not the lru_cache itself, whose values carry the checks)
    assert fn.__wrapped__ is not None and hasattr(fn, "cache_clear")
    assert fn.__qualname__ == fn.__wrapped__.__qualname__
    assert "recorded_cache" in fn.__code__.co_qualname


def _per_step(out):
    return [(s.status.value, tuple(sorted((c.engine, c.verdict, c.fact) for c in s.checks))) for s in out.steps]


x = sp.Symbol("x", real=True)
t = sp.IndexedBase("s", real=True)
k, n = sp.symbols("k n", integer=True, positive=True)
MORE = [
    Claim("max_square", sp.Integer(1), sp.Max(1, x**2), (step(sp.Max(1, x**2), "positivity", "<="),), relation="<="),
    Claim("mod_real", sp.Integer(0), sp.Mod(x, 2), (step(sp.Mod(x, 2), "inequality", "<="),), relation="<="),
    Claim("sum_squares", sp.Integer(0), sp.Sum(t[k] ** 2, (k, 1, n)),
          (step(sp.Sum(t[k] ** 2, (k, 1, n)), "positivity", "<="),), relation="<="),
]


@pytest.mark.parametrize("claim", TRUE_CLAIMS + MORE, ids=[c.id for c in TRUE_CLAIMS + MORE])
def test_checking_a_theorem_again_records_the_same_checks_per_step(claim):
    """The second check of the same theorem in the same process reuses every memoised decision of the
    first: each step must record the same checks and reach the same status."""
    checker = Checker(numeric=False)
    first = checker.check(claim.theorem())
    again = Checker(numeric=False).check(claim.theorem())
    assert _per_step(first) == _per_step(again), (first.how, again.how)
    assert first.verdict == again.verdict
    assert [s.status.value for s in first.steps] == [s.status.value for s in again.steps]
