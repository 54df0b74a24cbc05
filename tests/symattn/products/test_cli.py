"""The command line: subcommands, exit statuses, and the stable ``check --json`` schema."""

import json
import subprocess
import sys

import pytest

from symattn.products.cli import main

VERDICTS = {"proved", "proved-for-instances", "checked-probabilistically", "numerically-consistent",
            "undecided", "refuted"}
LEVEL_VALUES = {"pass", "fail", "undecided", "n/a", "not-counted"}


def test_list_shows_every_theorem(capsys):
    assert main(["list", "-k", "softmax_add_const"]) == 0
    out = capsys.readouterr().out
    assert "softmax_add_const" in out and "004_b987b516506401e6.txt" in out and "proved" in out


def test_show_prints_statement_hypotheses_and_steps(capsys):
    assert main(["show", "softmax_add_const"]) == 0
    out = capsys.readouterr().out
    assert "Statement:" in out and "Hypotheses:" in out and "by definition(name=softmax)" in out
    assert "claim: For every real $c$" in out  # the claim, next to the statement


def test_list_json_carries_the_claim(capsys):
    assert main(["list", "-k", "^softmax_add_const$", "--json"]) == 0
    (r,) = json.loads(capsys.readouterr().out)
    assert r["claim"].startswith("For every real $c$")


def test_show_unknown_id_is_a_usage_error(capsys):
    assert main(["show", "no_such_theorem"]) == 2
    assert "no theorem with id 'no_such_theorem'" in capsys.readouterr().err


def test_check_json_follows_the_schema(capsys):
    assert main(["check", "-k", "^softmax_add_const$", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in records] == ["softmax_add_const"]
    r = records[0]
    assert set(r) == {"id", "title", "claim", "source", "kind", "verdict", "shown_as", "target", "how", "levels",
                      "not_counted", "seconds", "cached", "rechecked", "steps"}
    assert r["shown_as"] == r["verdict"]  # a theorem's verdict is shown by its name
    assert isinstance(r["cached"], bool)
    assert r["rechecked"] in ("all", "partial", "none")
    assert r["steps"] and all(s["rechecked"] in ("both", "one-engine") and s["why"] for s in r["steps"])
    assert r["verdict"] == "proved" and r["target"] == "proved"
    assert r["verdict"] in VERDICTS and r["target"] in VERDICTS
    assert set(r["levels"]) == {"symbolic", "instances", "probabilistic", "numeric"}
    assert set(r["levels"].values()) <= LEVEL_VALUES
    assert isinstance(r["seconds"], float)


@pytest.mark.parametrize(
    "argv",
    [["check", "--jobs", "0"], ["check", "--time-limit", "-1"], ["check", "-k", "matches_nothing_zzz"],
     ["no_such_command"], [], ["check", "--jobs", "x"]],
)
def test_usage_errors_exit_2(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse exits 2 itself
        code = exc.code
    assert code == 2


def test_check_exits_1_when_a_theorem_is_below_target(monkeypatch, capsys):
    import sympy as sp

    from symattn.engine.theorem import Theorem, registry
    from symattn.language.statement import Statement

    x = sp.Symbol("x", real=True)
    # true, but stated with no derivation and no instances: nothing shows it, so it stays undecided
    # (a false statement would be refuted by the kernel's exact point search instead)
    bad = Theorem(id="zz_unprovable", title="sin^2 + cos^2 = 1, unproved",
                  statement=Statement(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.S.One), source="extension")
    monkeypatch.setitem(registry._theorems, "zz_unprovable", bad)
    assert main(["check", "-k", "^zz_unprovable$"]) == 1
    out = capsys.readouterr().out
    assert "below target" in out and "REFUTED" not in out


def test_check_exits_1_and_says_refuted_for_a_false_theorem(monkeypatch, capsys):
    import sympy as sp

    from symattn.engine.theorem import Theorem, registry
    from symattn.language.statement import Statement

    x = sp.Symbol("x")
    bad = Theorem(id="zz_false", title="x = x + 1", statement=Statement(x, x + 1), source="extension")
    monkeypatch.setitem(registry._theorems, "zz_false", bad)
    assert main(["check", "-k", "^zz_false$"]) == 1
    assert "REFUTED" in capsys.readouterr().out


def test_python_dash_m_entry_point_runs_in_parallel():
    out = subprocess.run(
        [sys.executable, "-m", "symattn", "check", "-k", "^softmax_add_const$", "--json", "--jobs", "2"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)[0]["verdict"] == "proved"


# ---------------------------------------------------------------------------------------------- SOURCEs
SOURCE_HEADER = """\
import sympy as sp
from symattn import Derivation, Statement, Theorem, expect_failure, register
x = sp.Symbol("x")
"""
GOOD = ('register(Theorem(id="cli_square", title="t", source="extension", '
        'statement=Statement((x + 1)**2, x**2 + 2*x + 1), '
        'derivation=Derivation((x + 1)**2).eq(x**2 + 2*x + 1, "algebra")))\n')
WRONG = ('register(Theorem(id="cli_wrong", title="t", source="extension", '
         'statement=Statement((x + 1)**2, x**2 + 1), derivation=Derivation((x + 1)**2).eq(x**2 + 1, "algebra")))\n')
USES = """\
from symattn.engine.theorem import registry
base = registry.get("attention_row_stochastic")
register(Theorem(id="cli_uses_library", title="t", source="extension", statement=base.statement,
                 hypotheses=base.hypotheses,
                 derivation=Derivation(base.statement.lhs)
                 .eq(base.statement.rhs, "apply_theorem", theorem="attention_row_stochastic")))
"""


@pytest.fixture
def source(tmp_path):
    from symattn.products import sources

    def write(body: str, name: str = "mine.py") -> str:
        path = tmp_path / name
        path.write_text(SOURCE_HEADER + body)
        return str(path)

    with sources.isolated():
        yield write


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


SOURCE_CASES = [
    # (case, command, source body or None for a missing file, exit status, fragments of stderr or stdout)
    ("list: missing file", "list", None, 2, ["no such file"]),
    ("check: missing file", "check", None, 2, ["no such file"]),
    ("list: no theorems", "list", "y = 1\n", 0, ["warning: ", "registers no theorem"]),
    ("check: no theorems", "check", "y = 1\n", 1, ["warning: ", "registers no theorem"]),
    ("report: no theorems", "report", "y = 1\n", 1, ["registers no theorem"]),
    ("check: import fails", "check", "raise RuntimeError('my setup broke')\n", 2,
     ["importing it failed", "RuntimeError: my setup broke", "line 4"]),
    ("check: collides with the library", "check", GOOD.replace("cli_square", "softmax_add_const"), 2,
     ["mine.py:4: theorem id 'softmax_add_const' is already registered at derivations/"]),
    ("check: never registered", "check",
     "t = Theorem(id='cli_draft', title='t', source='e', statement=Statement(x, x))\n",
     2, ["mine.py:4: theorem 'cli_draft'", "never registered"]),
    ("check: derivation raises", "check", GOOD.replace("derivation=Derivation", "derivation=lambda: 1/0 or Derivation"),
     1, ["mine.py:4: theorem 'cli_square': building its derivation raised ZeroDivisionError"]),
    ("check: proved", "check", GOOD, 0, ["cli_square", "proved"]),
    ("check: wrong claim", "check", WRONG, 1, ["cli_wrong", "failing step 1", "residual: before - after = 2*x"]),
    ("check: expected failure fails", "check", f"expect_failure({WRONG.strip()}, 'drops 2x on purpose')\n", 0,
     ["(expected failure)", "1 failed as expected: cli_wrong"]),
    ("check: expected failure passes", "check", f"expect_failure({GOOD.strip()}, 'thought wrong')\n", 1,
     ["PASSED, but expected to fail", "remove expect_failure"]),
]


@pytest.mark.parametrize("case, command, body, status, fragments", SOURCE_CASES, ids=[c[0] for c in SOURCE_CASES])
def test_sources_give_the_documented_exit_status_and_message(case, command, body, status, fragments, source,
                                                             tmp_path, capsys):
    path = str(tmp_path / "missing.py") if body is None else source(body)
    extra = ["--format", "html", "--out", str(tmp_path / "out"), "--jobs", "1"] if command == "report" else []
    code, out, err = _run([command, path, *extra], capsys)
    assert code == status, out + err
    for fragment in fragments:
        assert fragment in out + err, out + err
    assert "Traceback" not in out and "symattn/rules" not in out + err and "symattn/engine/checker" not in out + err
    if status == 2:  # an error of the source: one line, or the last lines of its own traceback
        assert out == "" and ("\n" not in err.strip() or "importing it failed" in err)


def test_check_shows_library_theorems_used_as_dependencies(source, capsys):
    code, out, _ = _run(["check", source(USES)], capsys)
    assert code == 0, out
    assert "cli_uses_library" in out and "[dependency of cli_uses_library]" in out
    assert [line.split()[0] for line in out.splitlines()[1:3]] == ["cli_uses_library", "attention_row_stochastic"]


def test_list_json_with_sources_says_where_each_theorem_comes_from(source, capsys):
    path = source(USES)
    code, out, _ = _run(["list", path, "--json"], capsys)
    records = {r["id"]: r for r in json.loads(out)}
    assert code == 0 and set(records) == {"cli_uses_library", "attention_row_stochastic"}
    own = records["cli_uses_library"]
    assert own["origin"].endswith("mine.py:6") and not own["dependency_of"]
    assert records["attention_row_stochastic"]["origin"].startswith("derivations/attention.py:")
    assert records["attention_row_stochastic"]["dependency_of"] == ["cli_uses_library"]


def test_with_library_adds_every_builtin_theorem_and_k_filters(source, capsys):
    from symattn.engine.theorem import load_all

    path = source(GOOD)
    _, out, _ = _run(["list", path, "--with-library", "--json"], capsys)
    assert {r["id"] for r in json.loads(out)} == {t.id for t in load_all()}
    _, out, _ = _run(["list", path, "--with-library", "-k", "^cli_", "--json"], capsys)
    assert [r["id"] for r in json.loads(out)] == ["cli_square"]


def test_show_finds_a_theorem_of_a_source(source, capsys):
    code, out, _ = _run(["show", "cli_square", source(GOOD)], capsys)
    assert code == 0 and "cli_square: t" in out and "by algebra" in out


@pytest.mark.parametrize("title, expected", [(None, "mine"), ("My own results", "My own results")])
def test_report_of_a_source_is_titled_by_title_or_the_module_name(title, expected, source, tmp_path, capsys):
    path = source(GOOD)
    out_dir = tmp_path / "report"
    argv = ["report", path, "--format", "html,latex", "--out", str(out_dir), "--jobs", "1"]
    code, out, err = _run(argv + (["--title", title] if title else []), capsys)
    assert code == 0, out + err
    html = (out_dir / "index.html").read_text()
    assert f"<title>{expected}</title>" in html and "cli_square" in html
    assert "softmax_add_const" not in html  # only the source's theorems (the library is not added)
    assert rf"\title{{{expected}}}" in (out_dir / "symattn.tex").read_text()


def test_a_definition_is_shown_with_its_own_wording_never_as_proved(capsys):
    assert main(["check", "-k", "^layer_norm$", "--json"]) == 0
    (r,) = json.loads(capsys.readouterr().out)
    assert r["kind"] == "definition" and r["shown_as"].startswith("definition, ")
    assert "proved" not in r["shown_as"]


@pytest.mark.parametrize("verdict", sorted(VERDICTS))
def test_no_verdict_of_a_definition_is_worded_as_proved(verdict):
    from symattn.engine.verdict import meaning_for, wording

    assert "proved" not in wording(verdict, "definition")
    assert meaning_for(verdict, "definition").startswith("a definition, not a result")
    assert wording(verdict, "theorem") == verdict


# ------------------------------------------------------------------------------------ issue 22
def test_version_prints_the_package_version(capsys):
    import symattn

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() in (f"symattn {symattn.__version__}",)


def test_show_prints_the_verdict(capsys):
    assert main(["show", "softmax_add_const"]) == 0
    assert "Verdict: proved (target proved;" in capsys.readouterr().out
    assert main(["show", "softmax_add_const", "--no-check"]) == 0
    assert "Verdict:" not in capsys.readouterr().out


@pytest.mark.parametrize("typed, suggested", [("softmax_add_cnst", "softmax_add_const"),
                                              ("sofmax_add_const", "softmax_add_const"),
                                              ("add_const", "softmax_add_const")])
def test_an_unknown_theorem_id_suggests_close_ones(typed, suggested, capsys):
    assert main(["show", typed]) == 2
    err = capsys.readouterr().err
    assert "did you mean:" in err and suggested in err.split("did you mean:")[1]


@pytest.mark.parametrize("value, ok", [("abc", False), ("", False), ("-1", False), ("0", False), ("nan", False),
                                       ("inf", False), ("1e300", False), ("86401", False), ("8", True), ("0.5", True),
                                       ("1e1", True), ("86400", True)])
def test_environment_variables_are_validated_in_one_line(value, ok):
    from symattn.kernel.environment import environment_errors

    errors = environment_errors({"SYMATTN_TIME_LIMIT": value})
    assert (errors == []) is ok
    if not ok:
        assert errors == [f"SYMATTN_TIME_LIMIT must be a positive number of seconds at most 86400 (e.g. 8 or 0.5), "
                          f"got {value!r}"]


@pytest.mark.parametrize("name, value, message", [
    ("SYMATTN_SECOND_ENGINE_SECONDS", "ten", "must be a positive number of seconds"),
    ("SYMATTN_SECOND_ENGINE_SECONDS", "1e300", "must be a positive number of seconds at most 86400"),
    ("SYMATTN_SECOND_ENGINE_SECONDS", "inf", "must be a positive number of seconds at most 86400"),
    ("SYMATTN_Z3_TIMEOUT_MS", "1" + "0" * 30, "must be a positive integer at most 86400000"),
    ("SYMATTN_Z3_TIMEOUT_MS", "0", "must be a positive integer"),
    ("SYMATTN_Z3_TIMEOUT_MS", "2.5", "must be a positive integer"),
    ("SYMATTN_SECOND_ENGINE", "off", "must be one of '0', '1'"),
    ("SYMATTN_REQUIRE_RECHECK", "yes", "must be one of '0', '1'"),
    ("SYMATTN_NO_CACHE", "maybe", "must be one of"),
])
def test_every_environment_variable_symattn_reads_is_validated(name, value, message):
    from symattn.kernel.environment import environment_errors

    (line,) = environment_errors({name: value})
    assert line.startswith(f"{name} {message}") and line.endswith(f"got {value!r}")


@pytest.mark.parametrize("name, text, value", [("SYMATTN_SECOND_ENGINE_SECONDS", "2.5", 2.5),
                                               ("SYMATTN_Z3_TIMEOUT_MS", "86400000", 86400000),
                                               ("SYMATTN_TIME_LIMIT", "86400", 86400.0)])
def test_environment_values_are_read_through_the_one_validation(name, text, value, monkeypatch):
    from symattn.kernel.environment import environment_value

    monkeypatch.delenv(name, raising=False)
    assert environment_value(name, "default") == "default"
    monkeypatch.setenv(name, text)
    assert environment_value(name, None) == value
    monkeypatch.setenv(name, "1e300")
    with pytest.raises(ValueError, match=f"^{name} must be a positive"):
        environment_value(name, None)


def test_a_bad_environment_variable_is_a_one_line_usage_error_before_any_import():
    env = {k: v for k, v in __import__("os").environ.items() if k != "SYMATTN_TIME_LIMIT"}
    out = subprocess.run([sys.executable, "-m", "symattn", "list"], capture_output=True, text=True,
                         env={**env, "SYMATTN_TIME_LIMIT": "abc"}, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "symattn: SYMATTN_TIME_LIMIT must be a positive number of seconds at most 86400 (e.g. 8 or 0.5), got 'abc'"]


@pytest.mark.parametrize("command", [["check"], ["report", "--out", "REPORT_DIR"], ["show", "softmax_add_const"]])
@pytest.mark.parametrize("value, ok", [("nan", False), ("inf", False), ("-inf", False), ("-1", False), ("0", False),
                                       ("1e300", False), ("86400.5", False), ("0.5", True), ("86400", True)])
def test_every_time_limit_option_is_validated_before_any_work(command, value, ok, monkeypatch, capsys, tmp_path):
    """--time-limit must be finite, positive and at most a day, for every command taking it: one line
    naming the option and the value, exit 2; a valid value goes past the check (stopped here by a
    selection matching nothing, also exit 2 but with its own message)."""
    argv = [str(tmp_path / "r") if a == "REPORT_DIR" else a for a in command] + [f"--time-limit={value}"]
    if command[0] != "show":
        argv += ["-k", "matches_nothing_zzz"]
    else:
        argv += ["--no-check"] if ok else []
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    if ok:
        assert "--time-limit" not in err
    else:
        assert code == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"symattn {command[0]}: --time-limit must be a positive "
                                                       "number of seconds at most 86400"), err
        assert lines[0].endswith(f"got {float(value)}")


def test_a_huge_environment_time_limit_is_a_usage_error_not_an_overflow():
    env = {k: v for k, v in __import__("os").environ.items() if k != "SYMATTN_TIME_LIMIT"}
    for value, code in (("1e300", 2), ("inf", 2), ("nan", 2)):
        out = subprocess.run([sys.executable, "-m", "symattn", "check", "-k", "matches_nothing_zzz"],
                             capture_output=True, text=True, env={**env, "SYMATTN_TIME_LIMIT": value}, timeout=120)
        assert out.returncode == code
        assert out.stderr.strip().splitlines() == [
            f"symattn: SYMATTN_TIME_LIMIT must be a positive number of seconds at most 86400 (e.g. 8 or 0.5), "
            f"got {value!r}"]


def test_help_imports_neither_sympy_nor_numpy():
    code = ("import sys; from symattn.products.cli import build_parser; import symattn; build_parser().format_help(); "
            "print(sorted(m for m in sys.modules if m in ('sympy', 'numpy', 'symattn.engine.theorem') or "
            "m.startswith('symattn.kernel.') and m != 'symattn.kernel.environment'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.fixture
def no_checks(monkeypatch):
    """Fail the test if the report command gets as far as loading theorems."""
    import symattn.products.commands.report as report

    def boom(*a, **k):
        raise AssertionError("the output location must be checked before any work")

    monkeypatch.setattr(report, "resolve", boom)


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "file", "exists and is not a directory"),
    (lambda d: d / "file" / "sub", "is not a directory"),
    (lambda d: "/proc/symattn_report", "cannot create a directory in /proc"),
])
def test_report_to_an_unwritable_place_is_a_usage_error_before_any_check(make, message, tmp_path, no_checks,
                                                                         capsys):
    (tmp_path / "file").write_text("x")
    out = str(make(tmp_path))
    assert main(["report", "--out", out, "-k", "softmax_add_const"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"symattn report: --out {out}: ") and message in err and len(err.splitlines()) == 1


def test_startup_is_measured_as_ratios_against_python_in_one_run(monkeypatch):
    from symattn.products import startup

    monkeypatch.setattr(startup, "commands", lambda user: {"python -c pass": [sys.executable, "-c", "pass"],
                                                           "symattn --help": [sys.executable, "-m", "symattn",
                                                                              "--help"]})
    result = startup.measure(1)
    rows = result["commands"]
    assert rows["python -c pass"]["wall_ratio"] == 1.0 and rows["symattn --help"]["wall"] > 0
    table = startup.format_table(result).splitlines()
    assert table[2].split() == ["command", "wall", "s", "x", "pass", "cpu", "s", "x", "pass"]
    assert table[4].startswith("symattn --help")


def _theorem_file(path, tid, doc=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    head = f'"""{doc}"""\n' if doc is not None else ""
    path.write_text(head + "import sympy as sp\nfrom symattn import Derivation, Statement, Theorem, register\n"
                    "x = sp.Symbol('x')\n"
                    f"register(Theorem(id={tid!r}, title='t', source='extension', statement=Statement(x, x), "
                    "derivation=Derivation(x).eq(x, 'algebra')))\n")
    return str(path)


@pytest.mark.parametrize("doc, expected", [
    ("Mean of a wrong identity.\n\nMore text.", "Mean of a wrong identity"),
    ("My results: three statements about queries.", "My results"),
    ("\n   Two   spaces  kept apart   \n", "Two spaces kept apart"),
    (None, "thm_mean_wrong"),
    ("", "thm_mean_wrong"),
])
def test_a_user_file_is_titled_and_grouped_by_its_docstring(doc, expected, tmp_path):
    from symattn.products import sources
    from symattn.products.report.content import topic_title

    with sources.isolated():
        src = sources.load_source(_theorem_file(tmp_path / "thm_mean_wrong.py", "zz_doc_title", doc))
        assert src.title == expected and [t.topic for t in src.theorems] == [expected]
        assert topic_title(expected) == (expected if " " in expected else "Thm mean wrong")


def test_two_files_of_one_name_are_two_topics(tmp_path):
    from symattn.products import sources

    with sources.isolated():
        a = sources.load_source(_theorem_file(tmp_path / "a" / "thm.py", "zz_thm_a"))
        b = sources.load_source(_theorem_file(tmp_path / "b" / "thm.py", "zz_thm_b"))
        assert a.title == "thm" and b.title.startswith("thm (") and b.title.endswith("thm.py)")
        assert {t.topic for t in a.theorems}.isdisjoint({t.topic for t in b.theorems})
