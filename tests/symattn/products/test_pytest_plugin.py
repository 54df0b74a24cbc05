"""The pytest plugin: a source's theorems as items, graded by the acceptance rule, reported by the
failing step; -k, -x, xdist, the ini option, and the entry point.

Each test runs pytest in a subprocess in a directory of its own (its own pytest.ini, so the
repository's configuration does not apply), with ``-p symattn.products.pytest_plugin`` since the project
need not be installed.
"""

import importlib.util
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

# each test runs symattn or pytest in a subprocess (a few seconds each)
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]

SOURCE = textwrap.dedent("""\
    import sympy as sp
    from symattn import Derivation, Statement, Theorem, expect_failure, register
    x = sp.Symbol("x")

    def square(tid, rhs):
        return Theorem(id=tid, title="t", source="extension", statement=Statement((x + 1)**2, rhs),
                       derivation=Derivation((x + 1)**2).eq(rhs, "algebra", note="expand"))

    register(square("plug_wrong_first", x**2 + 1))
    register(square("plug_square", x**2 + 2*x + 1))
    expect_failure(register(square("plug_expected", x**2 + 2)), "drops 2x on purpose")
    register(square("plug_wrong_second", x**2 + 3))
""")


def run_pytest(cwd: Path, *args: str, plugin: bool = True, pythonpath: tuple = ()) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS" and not k.startswith("PYTEST_XDIST")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *map(str, pythonpath), env.get("PYTHONPATH", "")])
    load = ["-p", "symattn.products.pytest_plugin"] if plugin else []
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *load, *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "mine.py").write_text(SOURCE)
    return tmp_path


def test_each_theorem_is_an_item_and_a_failure_shows_the_step_not_a_traceback(project):
    r = run_pytest(project, "--symattn", "mine.py", "-v")
    out = r.stdout
    assert r.returncode == 1, out + r.stderr
    for line in ("mine.py::plug_square PASSED", "mine.py::plug_wrong_first FAILED",
                 "mine.py::plug_expected XFAIL", "mine.py::plug_wrong_second FAILED"):
        assert line in out, out
    assert "2 failed, 1 passed, 1 xfailed" in out
    # the failure is told by the failing step, its rule, the residual and the verdict's reason
    # (x + 1)^2 = x^2 + 1 is false: the kernel's exact search refutes it at a point, and the failing
    # step of the derivation is shown too
    for fragment in ("mine.py:9: plug_wrong_first: refuted, target proved",
                     "reason: instances check failed: exact point inside the hypotheses (found by the kernel): at x = ",
                     "failing step 1 (fail): = x**2 + 1", "rule:     algebra  -- expand",
                     "residual: before - after = 2*x (should be 0)"):
        assert fragment in out, out
    assert "Traceback" not in out and "symattn/engine/checker.py" not in out and "symattn/rules" not in out
    assert "symattn/products/pytest_plugin.py" not in out


def test_x_stops_at_the_first_failing_theorem(project):
    r = run_pytest(project, "--symattn", "mine.py", "-x")
    assert r.returncode == 1 and "1 failed" in r.stdout and "plug_wrong_second" not in r.stdout, r.stdout


def test_xdist_workers_collect_the_same_items_and_grade_them_alike(project):
    if importlib.util.find_spec("xdist") is None:
        pytest.skip("pytest-xdist is not installed (it is in the test extra)")
    r = run_pytest(project, "--symattn", "mine.py", "-n", "2")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "2 failed, 1 passed, 1 xfailed" in r.stdout and "residual: before - after = 2*x" in r.stdout


def test_the_ini_option_names_sources_relative_to_the_configuration_file(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\nsymattn_sources = sub/mine.py\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mine.py").write_text(SOURCE)
    r = run_pytest(tmp_path / "sub", "-k", "plug_square", "-v")  # run from elsewhere than the ini's directory
    assert r.returncode == 0, r.stdout + r.stderr
    assert "mine.py::plug_square PASSED" in r.stdout


BAD = {"nope.py": (None, "nope.py: no such file"),
       "raises.py": ("raise RuntimeError('setup broke')\n", "RuntimeError: setup broke"),
       "empty.py": ("y = 1\n", "empty.py registers no theorem")}


def test_a_bad_source_is_a_collection_error_with_its_message(project):
    for name, (body, _) in BAD.items():
        if body is not None:
            (project / name).write_text(body)
    args = [a for name in BAD for a in ("--symattn", name)]
    r = run_pytest(project, *args, "--symattn", "mine.py")
    out = r.stdout
    assert r.returncode == 2, out + r.stderr  # pytest's status for collection errors
    assert "3 errors" in out and "INTERNALERROR" not in out + r.stderr, out + r.stderr
    for _, message in BAD.values():
        assert message in out, out
    assert "symattn/products/sources.py" not in out and "_pytest" not in out


def test_the_pytest11_entry_point_is_declared_for_the_plugin_module():
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    plugin = "symattn.products.pytest_plugin"
    assert meta["project"]["entry-points"]["pytest11"] == {plugin: plugin}
    import symattn.products.pytest_plugin as plugin

    assert callable(plugin.pytest_addoption) and callable(plugin.pytest_collection_modifyitems)
    assert "pytest-xdist" in " ".join(meta["project"]["optional-dependencies"]["test"])


@pytest.mark.parametrize("with_p", [False, True], ids=["entry point alone", "entry point and -p"])
def test_an_installed_entry_point_loads_the_plugin_once_and_k_selects_by_id(with_p, project):
    # what `pip install` writes, in miniature: a distribution whose pytest11 entry point is ours
    site = project / "site"
    info = site / "symattn_entry_point_probe-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: symattn-entry-point-probe\nVersion: 0\n")
    (info / "entry_points.txt").write_text(
        "[pytest11]\nsymattn.products.pytest_plugin = symattn.products.pytest_plugin\n")
    r = run_pytest(project, "--symattn", "mine.py", "-k", "plug_square", plugin=with_p, pythonpath=(site,))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 3 deselected" in r.stdout


def test_with_library_adds_every_builtin_theorem_after_the_sources(project):
    from symattn.engine.theorem import all_theorems

    r = run_pytest(project, "--symattn", "mine.py", "--with-library", "-v", "-k",
                   "plug_square or softmax_add_const")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "mine.py::plug_square PASSED" in out and "symattn-library::softmax_add_const PASSED" in out
    assert out.index("mine.py::plug_square") < out.index("symattn-library::softmax_add_const")
    chosen = 1 + sum("softmax_add_const" in t.id for t in all_theorems())
    assert f"{4 + len(all_theorems()) - chosen} deselected" in out, out


@pytest.mark.parametrize("value, ok", [("nan", False), ("inf", False), ("-1", False), ("0", False), ("1e300", False),
                                       ("30", True)])
def test_a_bad_symattn_time_limit_is_a_usage_error_naming_the_option(project, value, ok):
    r = run_pytest(project, "--symattn", "mine.py", f"--symattn-time-limit={value}", "-k", "plug_square")
    if ok:
        assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr
    else:
        assert r.returncode == 4, r.stdout + r.stderr  # pytest's usage error
        assert f"--symattn-time-limit must be a positive number of seconds at most 86400 (e.g. 8 or 0.5), got " \
               f"{float(value)}" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
