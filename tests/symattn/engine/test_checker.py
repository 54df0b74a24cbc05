"""The checker's grading: try to fool the kernel; it must not say ``proved``."""

import time

import pytest
import sympy as sp

from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, NumericResult, Probabilistic, Theorem
from symattn.engine.verdict import Level, Verdict
from symattn.kernel.thm import refl
from symattn.language.derivation import Derivation
from symattn.language.statement import IndexRange, Statement
from symattn.maths.softmax import Softmax
from symattn.rules import RULES, Rule, passed

n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
c = sp.Symbol("c", real=True)
s = sp.IndexedBase("s", real=True)
x, y = sp.symbols("x y", real=True)


def thm(**kw):
    base = dict(id="t", title="t", source="extension", statement=Statement(x, x))
    base.update(kw)
    return Theorem(**base)


def check(t, **kw):
    return Checker(**kw).check(t)


# ------------------------------------------------------------------------------ false claims
def _softmax_vec(size, shift):
    xs = sp.symbols(f"x1:{size + 1}", real=True)
    return sp.Matrix([sp.exp(v + shift) for v in xs]) / sum(sp.exp(v + shift) for v in xs), xs


def test_softmax_plus_constant_claim_is_refuted():
    """softmax(s + c) = softmax(s) + c, with a plausible-looking proof, must come out refuted."""
    lhs = Softmax(sp.Lambda(j, s[j] + c), i, n)
    rhs = Softmax(sp.Lambda(j, s[j]), i, n) + c
    proof = (
        Derivation(lhs)
        .eq(sp.exp(s[i] + c) / sp.Sum(sp.exp(s[j] + c), (j, 1, n)), "definition", name="softmax")
        .eq(sp.exp(s[i]) / sp.Sum(sp.exp(s[j]), (j, 1, n)) + c, "algebra", note="'shift comes out'")
        .eq(rhs, "definition", name="softmax")
    )

    def instance(size):  # the statement itself at n = size; the kernel checks it is
        return Statement(lhs, rhs).subs({n: size})

    o = check(thm(statement=Statement(lhs, rhs), derivation=proof, dimensions=(n,),
                  hypotheses=(IndexRange("r", index=i, lower=1, upper=n),),
                  instances=Instances(instance, (1, 2, 3), at=n)))
    assert o.verdict is Verdict.REFUTED
    assert o.levels["symbolic"].status is Level.FAIL and "step 2" in o.levels["symbolic"].detail
    assert o.counterexample and "left" in o.counterexample


def test_variance_with_sigma_squared_is_not_proved():
    """Var<q,k> = d_k sigma^2 (the classic slip) with an 'algebra' proof is rejected."""
    d, sigma = sp.symbols("d_k sigma", positive=True)
    k = sp.Symbol("k", integer=True)
    lhs = sp.Sum(sigma**4, (k, 1, d))
    o = check(thm(statement=Statement(lhs, d * sigma**2),
                  derivation=Derivation(lhs).eq(d * sigma**2, "sum_evaluate"), dimensions=(d,)))
    assert o.verdict is not Verdict.PROVED
    assert o.levels["symbolic"].status is Level.FAIL


def test_numeric_pass_does_not_rescue_a_broken_proof():
    broken = Derivation(x**2 - y**2).eq((x - y) ** 2, "algebra")
    ok_numeric = lambda seed: NumericResult(True, 10, seed, 0.0, 1e-12)  # noqa: E731
    o = check(thm(statement=Statement(x**2 - y**2, (x - y) * (x + y)), derivation=broken, numeric=ok_numeric))
    assert o.verdict is Verdict.NUMERICALLY_CONSISTENT
    assert "did not check" in o.how


# ------------------------------------------------------------------------------ structure of chains
def test_chain_must_start_at_lhs_and_end_at_rhs():
    st = Statement((x + 1) ** 2, x**2 + 2 * x + 1)
    good = Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra")
    assert check(thm(statement=st, derivation=good)).verdict is Verdict.PROVED
    wrong_start = Derivation((x + 2) ** 2).eq(x**2 + 4 * x + 4, "algebra")
    o = check(thm(statement=st, derivation=wrong_start))
    assert o.verdict is not Verdict.PROVED and "start" in o.levels["symbolic"].detail
    stops_early = Derivation((x + 1) ** 2).eq((x + 1) * (x + 1), "algebra")
    assert check(thm(statement=Statement((x + 1) ** 2, x**2 + 3), derivation=stops_early)).verdict is not Verdict.PROVED


def test_chain_relation_must_imply_the_statement():
    p = sp.Symbol("p", positive=True)
    chain = Derivation(x).lt(x + p, "inequality")
    assert check(thm(statement=Statement(x, x + p, "<="), derivation=chain)).verdict is Verdict.PROVED
    assert check(thm(statement=Statement(x, x + p, "="), derivation=chain)).verdict is not Verdict.PROVED
    le_chain = Derivation(x).le(x + p, "inequality")
    assert check(thm(statement=Statement(x, x + p, "<"), derivation=le_chain)).verdict is not Verdict.PROVED


def test_mixed_directions_are_rejected():
    p = sp.Symbol("p", positive=True)
    chain = Derivation(x).le(x + p, "inequality").ge(x, "inequality")
    o = check(thm(statement=Statement(x, x, "<="), derivation=chain))
    assert o.verdict is not Verdict.PROVED


def test_proved_requires_dimensions_to_stay_symbolic():
    lhs = sp.Sum(c, (i, 1, 3))
    st = Statement(lhs, 3 * c)
    o = check(thm(statement=st, derivation=Derivation(lhs).eq(3 * c, "sum_evaluate"), dimensions=(n,)))
    assert o.verdict is not Verdict.PROVED and "not free" in o.levels["symbolic"].detail


def test_heuristic_is_never_graded_above_numerically_consistent():
    st = Statement((x + 1) ** 2, x**2 + 2 * x + 1)
    t = thm(statement=st, kind="heuristic", target="numerically-consistent",
            derivation=Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra"))
    assert check(t).verdict is Verdict.NUMERICALLY_CONSISTENT
    with pytest.raises(ValueError, match="never shown as proved"):
        thm(kind="empirical", target="proved")


# ------------------------------------------------------------------------------ time limits
def test_a_rule_that_runs_past_the_limit_gives_undecided(monkeypatch):
    def slow(lhs, rhs, relation, ctx):
        time.sleep(5)
        return passed("too late")

    monkeypatch.setitem(RULES, "slow_rule", Rule("slow_rule", slow, "sleeps"))
    t = thm(statement=Statement(x, x), derivation=Derivation(x).eq(x, "slow_rule"))
    t0 = time.perf_counter()
    o = check(t, time_limit=0.2)
    assert time.perf_counter() - t0 < 3
    assert o.verdict is Verdict.UNDECIDED
    assert o.levels["symbolic"].status is Level.UNDECIDED and "time limit" in o.levels["symbolic"].detail


def test_a_rule_returning_garbage_is_a_failure(monkeypatch):
    monkeypatch.setitem(RULES, "bad_rule", Rule("bad_rule", lambda *a: True, "returns True"))
    o = check(thm(statement=Statement(x, y), derivation=Derivation(x).eq(y, "bad_rule")))
    assert o.verdict is not Verdict.PROVED


# ------------------------------------------------------------------------------ instances / probabilistic
def test_instances_pass_gives_proved_for_instances_only():
    st = Statement(sp.Sum(s[j], (j, 1, n)) ** 2, sp.Sum(sp.Sum(s[j] * s[i], (i, 1, n)), (j, 1, n)))

    o = check(thm(statement=st, instances=Instances(lambda size: st.subs({n: size}), (1, 2, 3))))
    assert o.verdict is Verdict.PROVED_FOR_INSTANCES


def test_instances_of_another_statement_give_nothing():
    def inst(size):
        v = sp.Matrix(sp.symbols(f"v1:{size + 1}"))
        return Statement((v.T * v)[0], sum(e**2 for e in v))

    # a true statement (a false one, x = y, is refuted at an exact point by the kernel itself)
    o = check(thm(statement=Statement((x + y) ** 2, x**2 + 2 * x * y + y**2), instances=Instances(inst, (1, 2, 3))))
    assert o.verdict is Verdict.UNDECIDED and "not counted" in o.levels["instances"].detail


def test_schwartz_zippel_catches_a_false_identity_and_bounds_its_error():
    v = sp.symbols("v1:6")
    true_id = Statement(sum(v) ** 2, sum(a * b for a in v for b in v))
    false_id = Statement(sum(v) ** 2, sum(a**2 for a in v))

    ok = check(thm(statement=true_id, probabilistic=Probabilistic(lambda size: true_id, (1,))))
    assert ok.verdict is Verdict.CHECKED_PROBABILISTICALLY
    assert ok.levels["probabilistic"].data["error_bound"] < 1e-20
    bad = check(thm(statement=false_id, probabilistic=Probabilistic(lambda size: false_id, (1,))))
    assert bad.verdict is Verdict.REFUTED


def test_used_theorem_caps_the_verdict():
    from symattn.engine.theorem import registry

    z = sp.Symbol("z", real=True)
    # (z * 0 would be 0 to SymPy, and z no variable of the lemma for the mapping to replace)
    pyth = sp.sin(z) ** 2 + sp.cos(z) ** 2
    weak = Theorem(id="zz_weak_lemma", title="", statement=Statement(pyth, 1), source="extension",
                   numeric=lambda seed: NumericResult(True, 1, seed, 0.0, 0.0))
    registry.add(weak)
    try:
        here = pyth.subs(z, x)
        user = thm(statement=Statement(here, 1),
                   derivation=Derivation(here).eq(1, "apply_theorem", theorem="zz_weak_lemma", mapping={z: x}))
        o = check(user)
        assert o.verdict is Verdict.NUMERICALLY_CONSISTENT and "capped by zz_weak_lemma" in o.how
    finally:
        registry._theorems.pop("zz_weak_lemma")


def test_exception_in_a_check_is_reported_as_undecided():
    def boom():
        raise RuntimeError("broken builder")

    o = check(thm(derivation=boom))
    assert o.verdict is not Verdict.PROVED
    assert "broken builder" in o.levels["symbolic"].detail


# ------------------------------------------------------------------------------ dependencies and time limits
def _slow_lemma_pair(monkeypatch, lemma_id, nested=False):
    """A lemma whose check (three steps of 0.12 s) takes longer than a step limit of 0.2 s, and a
    theorem applying it (in a nested derivation if ``nested``)."""

    def nap(lhs, rhs, relation, ctx):
        time.sleep(0.12)
        return passed("napped", thm=refl(lhs))

    def via(lhs, rhs, relation, ctx, proof=None):
        return passed("by the nested chain" if proof is not None else "no chain", thm=refl(lhs))

    monkeypatch.setitem(RULES, "nap_rule", Rule("nap_rule", nap, "sleeps 0.12 s"))
    monkeypatch.setitem(RULES, "via_rule", Rule("via_rule", via, "carries a nested chain"))
    z = sp.Symbol("z", real=True)
    lemma = Theorem(id=lemma_id, title="", statement=Statement(z, z), source="extension",
                    derivation=Derivation(z).eq(z, "nap_rule").eq(z, "nap_rule").eq(z, "nap_rule"))
    use = Derivation(x).eq(x, "apply_theorem", theorem=lemma_id, mapping={z: x})
    chain = Derivation(x).eq(x, "via_rule", proof=use).eq(x, "apply_theorem", theorem=lemma_id, mapping={z: x}) \
        if nested else use
    return lemma, thm(statement=Statement(x, x), derivation=chain)


@pytest.mark.parametrize("nested", [False, True])
def test_a_slow_dependency_does_not_time_out_the_step_that_applies_it(monkeypatch, nested):
    from symattn.engine.theorem import registry

    lemma, user = _slow_lemma_pair(monkeypatch, "zz_slow_lemma", nested)
    registry.add(lemma)
    try:
        checker = Checker(time_limit=0.2, numeric=False)
        o = checker.check(user)
        assert o.verdict is Verdict.PROVED, o.how
        assert checker.check(lemma).verdict is Verdict.PROVED
        assert checker.check(lemma).seconds > 0.3  # it did take longer than the step limit
    finally:
        registry._theorems.pop("zz_slow_lemma")


def test_applied_ids_include_nested_derivations_in_order_of_first_use():
    from symattn.engine.checker import _applied_ids

    inner = Derivation(x).eq(x, "apply_theorem", theorem="b").eq(x, "apply_theorem", theorem="a")
    outer = Derivation(x).eq(x, "apply_theorem", theorem="a").eq(x, "some_rule", parts=[{"p": inner}])
    assert _applied_ids(outer) == ["a", "b"]


def test_a_paused_limit_does_not_count_the_pause_and_still_holds_after_it():
    from symattn.kernel.timelimit import TimeLimitExceeded, paused_time_limits, time_limit

    with time_limit(0.3):
        with paused_time_limits():
            time.sleep(0.45)  # past the limit, but paused: no exception
        time.sleep(0.05)
    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.3):
            with paused_time_limits():
                time.sleep(0.1)
            time.sleep(1.0)  # the limit holds again after the pause
    with time_limit(5.0):  # a limit set inside the pause applies there
        with paused_time_limits():
            with pytest.raises(TimeLimitExceeded):
                with time_limit(0.1):
                    time.sleep(1.0)


# ------------------------------------------------------------------------------ bad inputs: early, clear errors
@pytest.mark.parametrize("returned, ok", [
    (True, False), (False, False), (None, False), ((True, 1), False), ({"ok": True}, False),
    (NumericResult(True, 1, 0, 0.0, 0.0), True), (NumericResult(False, 1, 0, 1.0, 0.0), True),
    (NumericResult("yes", 1, 0, 0.0, 0.0), False),
])
def test_a_numeric_callback_returning_something_else_than_a_numeric_result_is_named(returned, ok):
    o = check(thm(id="zz_cb", statement=Statement(x * 0, 0), numeric=lambda seed: returned))
    level = o.levels["numeric"]
    if ok:
        assert level.status is (Level.PASS if returned.ok else Level.FAIL)
    else:
        assert level.status is Level.UNDECIDED
        assert "theorem 'zz_cb': its numeric callback must return a symattn.NumericResult" in level.detail
        assert "AttributeError" not in level.detail


@pytest.mark.parametrize("lhs, rhs", [("x", "x"), ("x", x), (x, "x + 1"), (b"x", x)])
def test_a_statement_of_strings_is_refused_never_parsed(lhs, rhs):
    with pytest.raises(TypeError, match=r"Statement: (lhs|rhs) must be a SymPy expression .* build it with SymPy"):
        Statement(lhs, rhs)


@pytest.mark.parametrize("lhs, rhs", [(x, x), (1, x - x + 1), (0.5, sp.Rational(1, 2)), (sp.Integer(2), 2)])
def test_a_statement_of_expressions_and_numbers_is_accepted(lhs, rhs):
    assert Statement(lhs, rhs).relation == "="


@pytest.mark.parametrize("options, error, message", [
    ({"time_limit": -1}, ValueError, "time_limit must be a positive number"),
    ({"time_limit": 0}, ValueError, "time_limit must be a positive number"),
    ({"time_limit": float("nan")}, ValueError, "time_limit must be a positive number"),
    ({"time_limit": float("inf")}, ValueError, "time_limit must be a positive number"),
    ({"time_limit": 1e300}, ValueError, "at most 86400"),
    ({"numeric": "no"}, TypeError, "numeric must be True or False"),
    ({"seed": 1.5}, TypeError, "seed must be an int"),
    ({"timelimit": 3}, TypeError, "unknown option.*timelimit.*the options are time_limit"),
])
def test_bad_checker_options_are_an_error_at_the_call_not_a_verdict(options, error, message):
    from symattn.engine.checker import check_many, check_theorem

    t = thm(id="zz_opts")
    for call in (lambda: check_theorem(t, **options), lambda: check_many([t], **options), lambda: t.check(**options)):
        with pytest.raises(error, match=message):
            call()


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True, "2"])
def test_check_many_refuses_bad_jobs(jobs):
    from symattn.engine.checker import check_many

    with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
        check_many([thm(id="zz_jobs")], jobs=jobs)


def test_good_checker_options_still_check():
    from symattn.engine.checker import check_many, check_theorem

    t = thm(id="zz_good", statement=Statement(x + 0, x))
    assert check_theorem(t, time_limit=5, numeric=False, seed=3).verdict is check_many([t], jobs=1, seed=1)[0].verdict
