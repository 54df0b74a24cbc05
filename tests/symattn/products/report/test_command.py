"""``symattn report`` on the command line: exit statuses, summary, usage errors."""

import pytest

import symattn.engine.theorem
from symattn.products.cli import main


def test_report_command_writes_html_and_exits_zero(tmp_path, capsys):
    out = tmp_path / "r"
    status = main(["report", "-k", "softmax_add_const", "--out", str(out), "--format", "html",
                   "--jobs", "1", "--figures", "used"])
    captured = capsys.readouterr()
    assert status == 0
    assert (out / "index.html").is_file() and not (out / "symattn.tex").exists()
    assert "1 theorems in" in captured.out and "1 proved" in captured.out
    assert "checked softmax_add_const: proved" in captured.err


def test_report_command_exits_one_below_target_but_writes_the_report(tmp_path, monkeypatch, capsys):
    from tests.symattn.products.report.test_build import test_theorems

    wrong = [t for t in test_theorems() if t.id == "square_of_sum_is_sum_of_squares"]
    monkeypatch.setattr(symattn.engine.theorem, "all_theorems", lambda pattern=None: wrong)
    out = tmp_path / "r"
    status = main(["report", "--out", str(out), "--format", "html", "--jobs", "1", "--figures", "none",
                   "--no-sections"])
    assert status == 1
    assert "below target: square_of_sum_is_sum_of_squares" in capsys.readouterr().out
    assert "v-refuted" in (out / "index.html").read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--format", "docx"], "formats must be a non-empty subset"),
        (["--jobs", "0"], "jobs must be a positive integer"),
        (["--templates", "/no/such/dir"], "templates must be a directory"),
        (["-k", "no_theorem_has_this_id"], "no theorem matches"),
    ],
)
def test_report_command_usage_errors_exit_two(args, message, tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "r"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_report_refuses_to_replace_the_working_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status = main(["report", "-k", "softmax_add_const", "--out", ".", "--format", "html", "--jobs", "1"])
    assert status == 1 and "refusing to write the report" in capsys.readouterr().err
