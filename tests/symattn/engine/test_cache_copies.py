"""The cache of outcomes through its entry points, on a copy of a tiny user project in a temporary
directory (symattn.engine.cache; see also tests/symattn/engine/test_cache.py, which changes things in-process).

Here the change is made on disk, as a user makes it: a rule's module, a helper of the user's
file, edited between two runs of ``symattn check``; the theorems checked again are read from the
JSON's ``cached`` field. Then ``symattn report``, the library's own test items, two concurrent
``symattn check`` processes and pytest-xdist workers sharing one cache directory.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

from symattn.engine.cache import Cache

ROOT = Path(__file__).resolve().parents[3]

# A rule in its own module, as a user writes one (README: "@rule(name, summary, params=(...))").
RULES_FILE = '''
from symattn.kernel.thm import by_zero
from symattn.rules import failed, passed, rule


@rule("zz_copy_double", "w + w = 2 w, by the kernel's zero test")
def _double(lhs, rhs, relation, ctx):
    if relation != "=":
        return failed("equalities only")
    return passed("by the kernel's zero test", thm=by_zero(lhs, rhs))
'''

# Four theorems: two use the rule (one derivation built by a function, one given as data), one
# applies the rule's theorem as a lemma, one uses neither (algebra only).
USER_FILE = '''
import sympy as sp

import zz_copy_rules  # noqa: F401 - registers the rule zz_copy_double
from symattn import Derivation, Statement, Theorem, register

x, y = sp.symbols("x y", real=True)


def _built():
    return Derivation(x + x).eq(2 * x, "zz_copy_double")


register(Theorem(id="zz_copy_built", title="built", source="extension", statement=Statement(x + x, 2 * x),
                 derivation=_built))
register(Theorem(id="zz_copy_data", title="data", source="extension", statement=Statement(y + y, 2 * y),
                 derivation=Derivation(y + y).eq(2 * y, "zz_copy_double")))
register(Theorem(id="zz_copy_applies", title="applies", source="extension",
                 statement=Statement(3 * x + 3 * x, 6 * x),
                 derivation=Derivation(3 * x + 3 * x).eq(6 * x, "apply_theorem", theorem="zz_copy_built",
                                                          mapping={x: 3 * x})))
register(Theorem(id="zz_copy_alone", title="alone", source="extension",
                 statement=Statement(x * (x + 1), x**2 + x),
                 derivation=Derivation(x * (x + 1)).eq(x**2 + x, "algebra")))
'''

IDS = {"zz_copy_built", "zz_copy_data", "zz_copy_applies", "zz_copy_alone"}
USES_THE_RULE = {"zz_copy_built", "zz_copy_data", "zz_copy_applies"}


def _env(**extra) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SYMATTN_NO_CACHE", None)
    env.pop("SYMATTN_CACHE_DIR", None)
    return {**env, **extra}


def _project(tmp_path: Path) -> Path:
    d = tmp_path / "proj"
    d.mkdir()
    (d / "zz_copy_rules.py").write_text(RULES_FILE)
    (d / "my_results.py").write_text(USER_FILE)
    return d


def _symattn(*argv, cwd, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "symattn", *argv], capture_output=True, text=True, cwd=cwd,
                          env=env or _env())


def _check(proj: Path, cache: Path) -> dict[str, bool]:
    """``symattn check my_results.py --json``: ``{id: served from the cache}`` (every theorem proved)."""
    r = _symattn("check", str(proj / "my_results.py"), "--json", "--cache-dir", str(cache), cwd=proj)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = json.loads(r.stdout)
    assert {row["id"] for row in rows} == IDS
    assert all(row["verdict"] == "proved" for row in rows), rows
    return {row["id"]: row["cached"] for row in rows}


def _rechecked(served: dict[str, bool]) -> set[str]:
    return {i for i, hit in served.items() if not hit}


def test_a_rule_module_edited_on_disk_rechecks_exactly_the_theorems_using_it(tmp_path):
    proj, cache = _project(tmp_path), tmp_path / "cache"
    assert _rechecked(_check(proj, cache)) == IDS
    assert _rechecked(_check(proj, cache)) == set()
    rules = proj / "zz_copy_rules.py"
    rules.write_text(rules.read_text() + "\n\n# an edit that changes nothing the rule decides\n")
    assert _rechecked(_check(proj, cache)) == USES_THE_RULE
    assert _rechecked(_check(proj, cache)) == set()


def test_a_rule_edited_to_refuse_every_step_is_not_served_as_passing(tmp_path):
    proj, cache = _project(tmp_path), tmp_path / "cache"
    _check(proj, cache)
    rules = proj / "zz_copy_rules.py"
    text = rules.read_text()
    old = 'if relation != "=":'
    assert text.count(old) == 1
    rules.write_text(text.replace(old, 'if True:'))
    r = _symattn("check", str(proj / "my_results.py"), "--json", "--cache-dir", str(cache), cwd=proj)
    assert r.returncode == 1, r.stdout + r.stderr  # the theorems using the rule no longer pass
    rows = {row["id"]: row for row in json.loads(r.stdout)}
    assert {i for i, row in rows.items() if not row["cached"]} == USES_THE_RULE
    assert {i for i, row in rows.items() if row["verdict"] == "proved"} == IDS - USES_THE_RULE


def test_a_hypothesis_edited_in_the_users_file_rechecks_that_theorem_and_those_whose_code_is_there(tmp_path):
    proj, cache = _project(tmp_path), tmp_path / "cache"
    _check(proj, cache)
    src = proj / "my_results.py"
    text = src.read_text()
    old = 'statement=Statement(x * (x + 1), x**2 + x),'
    assert text.count(old) == 1
    src.write_text(text.replace(old, old + '\n                 hypotheses=(Assumption("pos", x > 0),),')
                   .replace("from symattn import Derivation", "from symattn import Assumption, Derivation"))
    # zz_copy_alone: its hypotheses changed. zz_copy_built: its derivation's builder is code in the
    # edited file. zz_copy_applies: it applies zz_copy_built. zz_copy_data (data only, a rule of
    # another module) is served.
    assert _rechecked(_check(proj, cache)) == {"zz_copy_alone", "zz_copy_built", "zz_copy_applies"}


def test_report_uses_the_cache_check_filled(tmp_path):
    proj, cache = _project(tmp_path), tmp_path / "cache"
    _check(proj, cache)
    argv = ["report", str(proj / "my_results.py"), "--format", "html", "--figures", "none", "--jobs", "1",
            "--cache-dir", str(cache)]
    warm = _symattn(*argv, "--out", str(tmp_path / "warm"), cwd=proj)
    assert warm.returncode == 0, warm.stdout + warm.stderr
    assert f"{len(IDS)} theorems in" in warm.stdout and f"({len(IDS)} outcomes from the cache)" in warm.stdout
    off = _symattn(*argv, "--no-cache", "--out", str(tmp_path / "off"), cwd=proj)
    assert off.returncode == 0, off.stdout + off.stderr
    assert "outcomes from the cache" not in off.stdout
    assert (tmp_path / "warm" / "index.html").is_file()


def test_two_concurrent_symattn_check_processes_share_one_cache(tmp_path):
    proj, cache = _project(tmp_path), tmp_path / "cache"
    argv = [sys.executable, "-m", "symattn", "check", str(proj / "my_results.py"), "--json", "--cache-dir", str(cache)]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=proj, env=_env())
             for _ in range(2)]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    for out, _ in outs:
        assert {row["id"]: row["verdict"] for row in json.loads(out)} == dict.fromkeys(IDS, "proved")
    assert not list(cache.rglob("*.tmp"))
    entries = Cache(cache).entries()
    assert len(entries) == len(IDS)  # one entry per key, whoever wrote it last
    for path in entries:
        assert pickle.loads(path.read_bytes())["key"] == path.stem
    assert _rechecked(_check(proj, cache)) == set()


def test_pytest_xdist_workers_share_one_cache(tmp_path):
    proj, cache = _project(tmp_path), tmp_path / "cache"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--symattn",
           str(proj / "my_results.py"), "--symattn-cache-dir", str(cache), "--junitxml", str(tmp_path / "r.xml"),
           "-o", "junit_family=xunit1"]
    for run in ("cold", "warm"):
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=proj, env=_env())
        assert r.returncode == 0, r.stdout + r.stderr
        xml = (tmp_path / "r.xml").read_text().lower()
        assert xml.count('name="symattn_cached"') == len(IDS)
        checked = xml.count('name="symattn_cached" value="false"')
        if run == "cold":
            # the workers share the cache from the start: a theorem one worker checked (a lemma the
            # other's theorem applies) may already be served to the other, so only "some" is checked
            assert checked >= 1, xml
        else:
            assert checked == 0, xml
    assert not list(cache.rglob("*.tmp")) and len(Cache(cache).entries()) == len(IDS)


# Records, for each theorem a Checker checks, whether the outcome came from the cache.
RECORDER = '''
import json, os
from symattn.engine.checker import Checker

_check = Checker.check


def check(self, thm, *args, **kwargs):
    outcome = _check(self, thm, *args, **kwargs)
    with open(os.environ["ZZ_CACHE_RECORD"], "a") as f:
        f.write(json.dumps([thm.id, bool(getattr(outcome, "cached", False))]) + "\\n")
    return outcome


Checker.check = check
'''


def test_the_librarys_own_test_items_use_the_cache(tmp_path):
    (tmp_path / "zz_cache_recorder.py").write_text(textwrap.dedent(RECORDER))
    record, cache = tmp_path / "record.jsonl", tmp_path / "cache"
    env = _env(ZZ_CACHE_RECORD=str(record), SYMATTN_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join((str(ROOT), str(tmp_path))))
    items = ["tests/test_registry.py::test_theorem_reaches_target_verdict[softmax_add_const]",
             "tests/derivations/test_attention.py::test_bound_by_the_max_of_fewer_values_is_not_proved"]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "zz_cache_recorder", *items]
    runs = []
    for _ in range(2):
        record.unlink(missing_ok=True)
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        runs.append([json.loads(line) for line in record.read_text().splitlines()])
    # the registry's item, and a derivations test checking a theorem of its own (a false variant)
    for checked in ("softmax_add_const", "false_output_le_max_of_first_values"):
        assert [checked, False] in runs[0] and [checked, True] in runs[1] and [checked, False] not in runs[1], runs
    assert len(Cache(cache).entries()) >= 2
