"""``symattn check user.py`` does not import the library (issue 22), yet a reused library id is still
refused naming both places, and a theorem applied by id is still found: each test runs the command in
a fresh interpreter, where nothing loaded the library before."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # subprocesses, a few seconds each

REPO = Path(__file__).resolve().parents[3]

SELF_CONTAINED = textwrap.dedent('''
    """One theorem, as a user writes it."""
    import sympy as sp
    from symattn import Derivation, Statement, Theorem, register

    x = sp.Symbol("x")
    register(Theorem(id="lazy_square_of_sum", title="(x+1)^2", source="extension",
                     statement=Statement((x + 1)**2, x**2 + 2*x + 1),
                     derivation=Derivation((x + 1)**2).eq(x**2 + 2*x + 1, "algebra")))
''')

# the statement is built here, not imported from derivations: only the id names the library theorem
APPLIES = textwrap.dedent('''
    """Uses a library theorem by id."""
    import sympy as sp
    from symattn import Derivation, Statement, Theorem, register

    c, s = sp.Symbol("c", positive=True), sp.Symbol("s", real=True)
    capped = sp.Limit(c * sp.tanh(s / c), c, sp.oo, dir="-")
    register(Theorem(id="lazy_softcap_limit", title="t", source="extension", statement=Statement(capped, s),
                     derivation=Derivation(capped).eq(s, "apply_theorem", theorem="softcap_tends_to_identity")))
''')

CLASH = textwrap.dedent('''
    import sympy as sp
    from symattn import Derivation, Statement, Theorem, register
    x = sp.Symbol("x")
    register(Theorem(id="dot_product_variance", title="t", source="extension",
                     statement=Statement((x + 1)**2, x**2 + 2*x + 1),
                     derivation=Derivation((x + 1)**2).eq(x**2 + 2*x + 1, "algebra")))
''')

# the CLI's main, then which library modules were imported, on the last line of stdout
RUN = ("import json, sys\n"
       "from symattn.products.cli import main\n"
       "status = main(sys.argv[1:])\n"
       "print(json.dumps([status, sorted(m for m in sys.modules if m.startswith('derivations.'))]))\n")


def env(cache: Path) -> dict:
    e = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS" and not k.startswith("PYTEST_XDIST")}
    e.pop("SYMATTN_NO_CACHE", None)
    e.update(PYTHONPATH=str(REPO), SYMATTN_CACHE_DIR=str(cache))
    return e


def symattn(tmp_path: Path, *argv: str) -> tuple[int, list, str, str]:
    r = subprocess.run([sys.executable, "-c", RUN, *argv], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300, env=env(tmp_path / "cache"))
    assert r.stdout.strip(), r.stderr
    status, modules = json.loads(r.stdout.strip().splitlines()[-1])
    return status, modules, r.stdout, r.stderr


def test_check_of_a_self_contained_file_imports_no_library_module_even_from_the_cache(tmp_path):
    (tmp_path / "user.py").write_text(SELF_CONTAINED)
    status, modules, out, err = symattn(tmp_path, "check", "user.py")
    assert status == 0, out + err
    assert "lazy_square_of_sum" in out and "1 proved" in out
    assert modules == []
    # a second later, from the cache of outcomes: still nothing of the library
    status, modules, out, err = symattn(tmp_path, "check", "user.py")
    assert status == 0 and "(1 from the cache of outcomes)" in out, out + err
    assert modules == []


def test_a_theorem_applied_by_id_is_found_with_nothing_preloaded(tmp_path):
    (tmp_path / "uses.py").write_text(APPLIES)
    for attempt in ("fresh", "from the cache"):
        status, modules, out, err = symattn(tmp_path, "check", "uses.py")
        assert status == 0, (attempt, out + err)
        assert "lazy_softcap_limit" in out and "2 proved" in out
        assert "[dependency of lazy_softcap_limit]" in out.split("softcap_tends_to_identity", 1)[1].splitlines()[0]
        assert "derivations.softcap" in modules  # the lookup that missed loaded the library
    assert "(2 from the cache of outcomes)" in out


def test_no_cache_and_jobs_find_the_applied_theorem_too(tmp_path):
    (tmp_path / "uses.py").write_text(APPLIES)
    (tmp_path / "user.py").write_text(SELF_CONTAINED)
    status, _, out, err = symattn(tmp_path, "check", "--no-cache", "--jobs", "2", "uses.py", "user.py")
    assert status == 0 and "3 proved" in out, out + err


def test_a_reused_library_id_is_refused_naming_both_places(tmp_path):
    (tmp_path / "clash.py").write_text(CLASH)
    status, modules, out, err = symattn(tmp_path, "check", "clash.py")
    assert status == 2, out + err
    assert re.search(r"clash\.py:5: theorem id 'dot_product_variance' is already registered at "
                     r"\S*derivations/scaling\.py:\d+; choose another id", err), err
    assert modules == ["derivations.scaling"]  # the module holding the id, not the whole library


def test_with_library_and_show_still_load_the_whole_library(tmp_path):
    (tmp_path / "user.py").write_text(SELF_CONTAINED)
    status, modules, out, err = symattn(tmp_path, "list", "--with-library", "user.py")
    assert status == 0, out + err
    assert "lazy_square_of_sum" in out and "softmax_add_const" in out
    assert "derivations.attention" in modules and "derivations.softmax" in modules
    status, modules, out, err = symattn(tmp_path, "show", "--no-check", "softcap_bounded")
    assert status == 0 and "softcap_bounded" in out, out + err
    assert "derivations.attention" in modules


def test_pytest_symattn_finds_the_applied_theorem_with_nothing_preloaded(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "uses.py").write_text(APPLIES)
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "symattn.products.pytest_plugin",
            "--symattn", "uses.py", "-v"]
    r = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env(tmp_path / "c"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "uses.py::lazy_softcap_limit PASSED" in r.stdout and "1 passed" in r.stdout
