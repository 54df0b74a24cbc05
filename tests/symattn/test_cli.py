"""The command line: subcommands, exit statuses, and the stable ``check --json`` schema."""

import json
import subprocess
import sys

import pytest

from symattn.cli import main

VERDICTS = {"proved", "proved-for-instances", "checked-probabilistically", "numerically-consistent",
            "undecided", "refuted"}
LEVEL_VALUES = {"pass", "fail", "undecided", "n/a"}


def test_list_shows_every_theorem(capsys):
    assert main(["list", "-k", "softmax_add_const"]) == 0
    out = capsys.readouterr().out
    assert "softmax_add_const" in out and "004_b987b516506401e6.txt" in out and "proved" in out


def test_show_prints_statement_hypotheses_and_steps(capsys):
    assert main(["show", "softmax_add_const"]) == 0
    out = capsys.readouterr().out
    assert "Statement:" in out and "Hypotheses:" in out and "by definition(name=softmax)" in out


def test_show_unknown_id_is_a_usage_error(capsys):
    assert main(["show", "no_such_theorem"]) == 2
    assert "no theorem with id 'no_such_theorem'" in capsys.readouterr().err


def test_check_json_follows_the_schema(capsys):
    assert main(["check", "-k", "^softmax_add_const$", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in records] == ["softmax_add_const"]
    r = records[0]
    assert set(r) == {"id", "title", "source", "kind", "verdict", "target", "how", "levels", "seconds"}
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

    from symattn.statement import Statement
    from symattn.theorem import Theorem, registry

    x = sp.Symbol("x")
    bad = Theorem(id="zz_unprovable", title="x = x + 1", statement=Statement(x, x + 1), source="extension")
    monkeypatch.setitem(registry._theorems, "zz_unprovable", bad)
    assert main(["check", "-k", "^zz_unprovable$"]) == 1
    assert "below target" in capsys.readouterr().out


def test_python_dash_m_entry_point_runs_in_parallel():
    out = subprocess.run(
        [sys.executable, "-m", "symattn", "check", "-k", "^softmax_add_const$", "--json", "--jobs", "2"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)[0]["verdict"] == "proved"
