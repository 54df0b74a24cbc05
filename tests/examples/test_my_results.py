"""The tutorial in examples/my_results runs as its README says: through the CLI (check, report), the
pytest plugin (the example's own configuration), and its documented fix proves the false claim's
corrected form."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# each test runs symattn or pytest in a subprocess (a few seconds each)
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "my_results"
SOURCE = EXAMPLE / "my_results.py"


def run(*argv, cwd=REPO) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS" and not k.startswith("PYTEST_XDIST")}
    env = {**env, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


def test_check_proves_two_refutes_the_slip_as_expected_and_exits_0():
    r = run("-m", "symattn", "check", str(SOURCE))
    assert r.returncode == 0, r.stdout + r.stderr
    rows = dict(re.findall(r"^(\w+)\s+(proved|refuted|undecided|\S+)\s+proved\s", r.stdout, re.M))
    assert rows == {"query_norm_sq_mean": "proved", "scaled_logit_variance": "proved",
                    "logit_over_d_k_variance": "refuted", "dot_product_variance": "proved"}
    assert "[dependency of scaled_logit_variance, logit_over_d_k_variance]" in r.stdout
    # the failed step as the README reads it: sigma^4/d_k - sigma^4 = sigma^4 (1 - d_k)/d_k
    assert "failing step 3 (fail): = sigma**4" in r.stdout
    assert "residual: before - after = sigma**4*(1 - d_k)/d_k (should be 0)" in r.stdout
    assert "1 failed as expected: logit_over_d_k_variance" in r.stdout


def test_report_writes_html_latex_and_pdf_titled_by_the_module_docstring(tmp_path):
    out = tmp_path / "my_report"
    r = run("-m", "symattn", "report", str(SOURCE), "--out", str(out), "--jobs", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    html = (out / "index.html").read_text()
    assert "<title>My results</title>" in html  # the docstring's "My results: three statements ..."
    for tid in ("query_norm_sq_mean", "scaled_logit_variance", "logit_over_d_k_variance", "dot_product_variance"):
        assert tid in html
    assert r"\title{My results}" in (out / "symattn.tex").read_text()
    if shutil.which("pdflatex"):
        assert (out / "symattn.pdf").read_bytes().startswith(b"%PDF")
    else:
        assert "pdflatex" in r.stderr


def test_pytest_in_the_example_collects_its_theorems_from_its_configuration():
    r = run("-m", "pytest", "-p", "symattn.products.pytest_plugin", "-p", "no:cacheprovider", "-v", cwd=EXAMPLE)
    assert r.returncode == 0, r.stdout + r.stderr
    for line in ("my_results.py::query_norm_sq_mean PASSED", "my_results.py::scaled_logit_variance PASSED",
                 "my_results.py::logit_over_d_k_variance XFAIL"):
        assert line in r.stdout
    assert "2 passed, 1 xfailed" in r.stdout


def test_the_readme_documents_the_commands_that_are_tested():
    readme = (EXAMPLE / "README.md").read_text()
    for command in ("symattn check my_results.py", "symattn report my_results.py --out my_report",
                    "pytest --symattn my_results.py"):
        assert command in readme


def test_the_documented_fix_proves_the_corrected_claim(tmp_path):
    from symattn.products import sources

    text = SOURCE.read_text()
    fixed = (text.replace("statement=Statement(Variance(logit / d_k), sigma**4),",
                          "statement=Statement(Variance(logit / d_k), sigma**4 / d_k),")
             .replace('        .eq(sigma**4, "algebra", note="the slip: the remaining 1/d_k is dropped")\n', "")
             .replace("((qs * ks).sum(axis=1) / d) ** 2, sigma**4),",
                      "((qs * ks).sum(axis=1) / d) ** 2, sigma**4 / d_k),")
             .replace("expect_failure(register(Theorem(", "(register(Theorem("))
    fixed = re.sub(r'\)\), "dividing by d_k.*\n', ")))\n", fixed)
    assert fixed.count("sigma**4 / d_k") == text.count("sigma**4 / d_k") + 2 and "expect_failure(register" not in fixed
    (tmp_path / "fixed.py").write_text(fixed)
    with sources.isolated():
        src = sources.load_source(str(tmp_path / "fixed.py"))
        thm = next(t for t in src.theorems if t.id == "logit_over_d_k_variance")
        outcome = thm.check()
        assert outcome.verdict.value == "proved", outcome.how
        assert outcome.raise_for_verdict() is outcome
