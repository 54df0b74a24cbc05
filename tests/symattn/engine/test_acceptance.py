"""The pass/fail rule shared by the CLI, the pytest plugin and the registry test; expected
failures; how a failure is told; the Outcome's notebook views and raise_for_verdict."""

import pytest
import sympy as sp

from symattn import Derivation, Statement, Theorem, VerdictError, check_theorem, expect_failure
from symattn.engine.acceptance import describe, expected_failure, failing_step, judge, problems
from symattn.engine.verdict import LEVELS, Level, LevelResult, Outcome, Verdict

x = sp.Symbol("x")


def outcome(verdict: str, **levels: str) -> Outcome:
    result = {name: LevelResult(Level(levels.get(name, "n/a")), f"{name} detail") for name in LEVELS}
    return Outcome("t", Verdict.parse(verdict), "how", result)


RULE = [
    # (verdict, target, levels, passes)
    ("proved", "proved", {"symbolic": "pass", "numeric": "pass"}, True),
    ("proved", "proved-for-instances", {"symbolic": "pass"}, True),
    ("proved-for-instances", "proved", {"symbolic": "fail", "instances": "pass"}, False),
    ("proved-for-instances", "proved-for-instances", {"instances": "pass"}, True),
    # reaches its target, but part of its evidence did not pass: a failure, not hidden
    ("proved-for-instances", "proved-for-instances", {"symbolic": "undecided", "instances": "pass"}, False),
    ("numerically-consistent", "numerically-consistent", {"symbolic": "fail", "numeric": "pass"}, False),
    ("numerically-consistent", "numerically-consistent", {"numeric": "pass"}, True),
    ("refuted", "undecided", {"numeric": "fail"}, False),
    ("undecided", "undecided", {"symbolic": "undecided"}, False),
    ("undecided", "undecided", {}, False),  # nothing configured: no evidence at all passes no check (class 13)
    ("numerically-consistent", "undecided", {}, False),
]


@pytest.mark.parametrize("verdict, target, levels, passes", RULE)
def test_a_theorem_passes_iff_it_reaches_its_target_and_every_configured_level_passes(verdict, target, levels,
                                                                                        passes):
    assert (problems(outcome(verdict, **levels), target) == []) is passes


def square(tid: str, rhs, *, target="proved") -> Theorem:
    return Theorem(id=tid, title="t", source="extension", target=target, statement=Statement((x + 1) ** 2, rhs),
                   derivation=Derivation((x + 1) ** 2).eq(rhs, "algebra", note="expand"))


def wrong_step(tid: str, *, target="proved") -> Theorem:
    """A true statement, (x + 1)^2 = x^2 + 2x + 1, whose derivation takes a false first step through
    x^2 + 1: nothing refutes the statement, and the derivation does not check (undecided)."""
    return Theorem(id=tid, title="t", source="extension", target=target,
                   statement=Statement((x + 1) ** 2, x**2 + 2 * x + 1),
                   derivation=Derivation((x + 1) ** 2).eq(x**2 + 1, "algebra", note="expand")
                   .eq(x**2 + 2 * x + 1, "algebra"))


@pytest.mark.parametrize("rhs, declared, status", [
    (x**2 + 2 * x + 1, False, "pass"), (x**2 + 1, False, "fail"),
    (x**2 + 1, True, "xfail"), (x**2 + 2 * x + 1, True, "xpass"),
])
def test_an_expected_failure_inverts_the_rule_strictly(rhs, declared, status):
    thm = square("acc_square", rhs)
    if declared:
        expect_failure(thm, "on purpose")
    assert judge(thm, check_theorem(thm)).status == status
    assert judge(thm, check_theorem(thm)).ok is (status in ("pass", "xfail"))


def test_expect_failure_needs_a_reason_and_a_theorem_and_is_per_object():
    thm = square("acc_declared", x**2 + 1)
    with pytest.raises(ValueError, match="needs a reason"):
        expect_failure(thm, "  ")
    with pytest.raises(TypeError, match="takes a Theorem"):
        expect_failure("acc_declared", "why")
    assert expect_failure(thm, "why") is thm and expected_failure(thm) == "why"
    assert expected_failure(square("acc_declared", x**2 + 1)) is None  # another object with the same id


def test_the_failing_step_has_its_rule_reason_and_residual():
    thm = square("acc_wrong", x**2 + 1)
    fs = failing_step(thm, check_theorem(thm))
    assert (fs.number, fs.rule, fs.relation, fs.status) == (1, "algebra", "=", "fail")
    assert fs.before == "(x + 1)**2" and fs.after == "x**2 + 1"
    assert fs.residual == "before - after = 2*x (should be 0)" and fs.exprs["residual"] == 2 * x


def test_an_inequality_step_reports_its_gap():
    thm = Theorem(id="acc_le", title="t", source="extension", statement=Statement(x**2, x**2 - 1, "<="),
                  derivation=Derivation(x**2).le(x**2 - 1, "inequality"))
    fs = failing_step(thm, check_theorem(thm))
    assert fs.residual == "after - before = -1 (should be >= 0)"


def test_a_chain_that_ends_elsewhere_is_told_by_its_ends():
    thm = Theorem(id="acc_ends", title="t", source="extension", statement=Statement((x + 1) ** 2, x**2 + 1),
                  derivation=Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra"))
    text = describe(thm, check_theorem(thm))
    assert "the chain's end is not the statement's right-hand side" in text
    assert "residual: chain end - statement rhs = 2*x (should be 0)" in text


def test_describe_never_raises_when_the_derivation_cannot_be_rebuilt():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("not twice")
        return Derivation((x + 1) ** 2).eq(x**2 + 1, "algebra")

    thm = Theorem(id="acc_flaky", title="t", source="extension", statement=Statement((x + 1) ** 2, x**2 + 1),
                  derivation=flaky)
    text = describe(thm, check_theorem(thm))
    assert "failing step 1" in text and "not shown (the derivation could not be rebuilt)" in text


def test_raise_for_verdict_returns_a_passing_outcome_and_raises_the_description_otherwise():
    good = square("acc_good", x**2 + 2 * x + 1).check()
    assert good.raise_for_verdict() is good and good.target is Verdict.PROVED
    # undecided reaches the target undecided, but the derivation it has did not check
    bad = wrong_step("acc_bad", target="undecided").check()
    assert bad.target is Verdict.UNDECIDED
    with pytest.raises(VerdictError, match=r"acc_bad: undecided, target undecided(.|\n)*failing step 1 \(fail\)"):
        bad.raise_for_verdict()
    with pytest.raises(VerdictError, match="verdict undecided does not reach the target proved"):
        bad.raise_for_verdict("proved")


def test_notebook_views_show_verdict_levels_and_failing_step():
    o = wrong_step("acc_view").check()
    html = o._repr_html_()
    assert "<code>acc_view</code>" in html and "undecided" in html and "does not pass" in html
    assert "failing step 1 (fail)" in html and "<td>symbolic</td><td>fail</td>" in html
    # not registered, yet its steps are shown: the outcome knows which theorem it checked
    assert "from:     (x + 1)**2" in html and "residual: before - after = 2*x" in html
    latex = o._repr_latex_()
    assert latex.startswith("$$\\begin{array}") and latex.endswith("\\end{array}$$")
    assert "failing step 1" in latex and "\\text{symbolic} & \\text{fail}" in latex
    assert "2 x" in latex  # the residual, typeset
    assert "<" not in latex


def test_a_crash_recorded_by_the_checker_is_told_by_its_last_line_not_its_frames():
    o = outcome("undecided", symbolic="undecided")
    o.levels["symbolic"].detail = ('Traceback (most recent call last):\n'
                                   '  File "symattn/engine/checker.py", line 60, in check\n'
                                   "ValueError: broken hypothesis")
    text = describe(square("acc_crash", x**2 + 1), o)
    assert "symbolic level undecided: ValueError: broken hypothesis" in text
    assert "Traceback" not in text and "checker.py" not in text
