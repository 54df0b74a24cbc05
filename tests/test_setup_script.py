"""scripts/test, the README's second command and CI's only step, tested in pieces with --dry-run:
which Debian packages it installs (only the missing, each with its reason, as root or through
sudo), the virtual environment, the installs, ruff before pytest, pytest's arguments passed on.

The script runs from a copy in a temporary directory (so `.venv` can be there or not), with a PATH
holding only fakes of dpkg-query, id and sudo beside the few real tools it needs.
"""

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ["texlive-latex-base", "texlive-latex-recommended", "latexmk", "chromium", "fonts-dejavu-core",
            "poppler-utils"]
BASH = shutil.which("bash")


def fake(bin_dir: Path, name: str, script: str) -> None:
    path = bin_dir / name
    path.write_text("#!" + BASH + "\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def dry_run(tmp_path, *args, installed=PACKAGES, uid=0, sudo=True, venv=False, dpkg=True):
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "test", root / "scripts" / "test")
    if venv:
        (root / ".venv" / "bin").mkdir(parents=True)
        fake(root / ".venv" / "bin", "python", "exit 0\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "grep"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    if dpkg:
        cases = "\n".join(f'  {p}) echo -n "install ok installed";;' for p in installed)
        fake(bin_dir, "dpkg-query", f'case "${{@: -1}}" in\n{cases}\n  *) exit 1;;\nesac\n')
    fake(bin_dir, "id", f"echo {uid}\n")
    if sudo:
        fake(bin_dir, "sudo", 'echo "sudo ran for real" >&2; exit 99\n')
    return subprocess.run([BASH, str(root / "scripts" / "test"), "--dry-run", *args], capture_output=True,
                          text=True, timeout=60, env={"PATH": str(bin_dir), "HOME": str(tmp_path)})


def commands(out: str) -> list[str]:
    return [line[2:] for line in out.splitlines() if line.startswith("+ ")]


def test_nothing_is_installed_when_every_package_is_present(tmp_path):
    r = dry_run(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Debian packages: all present" in r.stdout and not any("apt-get" in c for c in commands(r.stdout))


@pytest.mark.parametrize("uid, prefix", [(0, ""), (1000, "sudo ")], ids=["root", "through sudo"])
def test_only_the_missing_packages_are_installed_each_with_its_reason(uid, prefix, tmp_path):
    r = dry_run(tmp_path, installed=[p for p in PACKAGES if p not in ("chromium", "poppler-utils")], uid=uid)
    assert r.returncode == 0, r.stderr
    assert "  chromium: the HTML report is opened in a headless browser" in r.stdout
    assert "  poppler-utils: pdftotext" in r.stdout and "latexmk:" not in r.stdout
    apt = [c for c in commands(r.stdout) if "apt-get" in c]
    assert apt == [f"{prefix}env DEBIAN_FRONTEND=noninteractive apt-get update -qq",
                   f"{prefix}env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "
                   "chromium poppler-utils"]
    assert "sudo ran for real" not in r.stderr  # a dry run runs nothing


def test_not_root_and_no_sudo_stops_with_the_command_to_run(tmp_path):
    r = dry_run(tmp_path, installed=[], uid=1000, sudo=False)
    assert r.returncode == 1
    assert "not root and no sudo: run as root: apt-get install " + " ".join(PACKAGES) in r.stderr


def test_without_dpkg_it_says_what_to_install_and_goes_on(tmp_path):
    r = dry_run(tmp_path, dpkg=False)
    assert r.returncode == 0 and "no dpkg-query" in r.stderr and "pytest" in commands(r.stdout)[-1]


@pytest.mark.parametrize("venv", [False, True], ids=["fresh", "venv exists"])
def test_venv_peers_test_extra_then_ruff_then_pytest_with_the_arguments(venv, tmp_path):
    r = dry_run(tmp_path, "-k", "softmax", "-x", venv=venv)
    assert r.returncode == 0, r.stderr
    expected = [] if venv else ["python3 -m venv .venv"]
    expected += [".venv/bin/python -m pip install -q torch==2.13.0",
                 ".venv/bin/python -m pip install -q jax==0.10.2 jaxlib==0.10.2",
                 ".venv/bin/python -m pip install -q -e .[test]", ".venv/bin/python -m ruff check",
                 ".venv/bin/python -m pytest -q -n auto -k softmax -x"]
    assert commands(r.stdout) == expected


@pytest.mark.parametrize("args", [("-n", "1"), ("-n4",), ("-p", "no:xdist")], ids=["-n 1", "-n4", "no xdist"])
def test_pytest_runs_one_worker_per_core_unless_the_arguments_choose(args, tmp_path):
    r = dry_run(tmp_path, *args, venv=True)
    assert r.returncode == 0, r.stderr
    assert commands(r.stdout)[-1] == ".venv/bin/python -m pytest -q " + " ".join(args)


def test_ci_runs_exactly_the_readme_command():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    assert "scripts/test\n" in readme.split("## Quickstart", 1)[1].split("```", 2)[1]
    assert "set -euo pipefail" in ci
    assert [line for line in ci.splitlines() if line and not line.startswith(("#", "set ", "cd "))] == ["scripts/test"]
    assert os.access(REPO / "scripts" / "test", os.X_OK)
