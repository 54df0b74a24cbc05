"""The static index of the library's theorem ids (:mod:`symattn.engine.library_index`): it must equal
what importing the library registers, or a reused id would slip past ``symattn check user.py``."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from symattn.engine import library_index
from symattn.engine.library_index import index, scan

REPO = Path(__file__).resolve().parents[3]


def test_the_index_equals_the_ids_the_registry_holds_after_load_all():
    # a fresh interpreter: the registry holds the library's theorems and nothing a test registered
    code = ("import json; from symattn.engine.theorem import load_all; "
            "print(json.dumps({t.id: t.topic for t in load_all()}))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    registered = json.loads(r.stdout)
    found = index(memo=False)
    assert found.unsure == ()  # every module read statically today; an unsure one would be imported instead
    assert set(found.ids) == set(registered)
    assert len(registered) > 100
    # each id is placed in a module that exists; those whose topic is their module agree with it
    assert all(m.startswith("derivations.") for m in found.ids.values())
    assert found.ids["softmax_add_const"] == "derivations.attention"
    assert found.ids["mha_head_rank_attained"] == "derivations.multihead"  # an id passed to a helper


def test_the_memo_is_keyed_by_content_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMATTN_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("SYMATTN_NO_CACHE", raising=False)
    monkeypatch.setattr(library_index, "_INDEX", [])
    fresh = index(memo=False)
    assert not (tmp_path / "library-ids.json").exists()  # memo=False neither reads nor writes it
    assert index() == fresh
    memo_file = tmp_path / "library-ids.json"
    memo = json.loads(memo_file.read_text())
    entry = memo["modules"]["derivations.softcap"]
    assert len(entry["sha256"]) == 64 and "softcap_bounded" in entry["ids"]
    # an entry with the right hash is believed (the memo is read) ...
    entry["ids"] = ["softcap_from_the_memo"]
    memo_file.write_text(json.dumps(memo))
    library_index.forget()
    assert index().ids.get("softcap_from_the_memo") == "derivations.softcap"
    # ... one whose hash is not the file's is scanned again
    entry["sha256"] = "0" * 64
    memo_file.write_text(json.dumps(memo))
    library_index.forget()
    assert index() == fresh
    library_index.forget()


def test_no_memo_with_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMATTN_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("SYMATTN_NO_CACHE", "1")
    monkeypatch.setattr(library_index, "_INDEX", [])
    assert index() == index(memo=False)
    assert not (tmp_path / "library-ids.json").exists()


SURE = [
    ('register(Theorem(id="a_b", title="t"))\n', ["a_b"]),
    ('t = register(Theorem("a_b", "t"))\n', ["a_b"]),
    ('register(Theorem(id="a_b", **evidence("a_b")))\n', ["a_b"]),  # an explicit id= cannot be overridden
    ('def f(k, i):\n    register(Theorem(id=i))\nf("x", "y_z")\nw = f(k="x", i="u_v")\n', ["y_z", "u_v"]),
    ('def f(i):\n    register(Theorem(id=i))\n', []),  # never called: no theorem
    ('if isinstance(x, Theorem):\n    pass\n', []),
]

UNSURE = [
    ('register(Theorem(id="a_" + "b"))\n', "an id computed"),
    ('register(Theorem(id=NAME))\n', "an id from a name"),
    ('register(Theorem(**spec))\n', "**kwargs without id="),
    ('register(Theorem(*args))\n', "*args without id="),
    ('register(Theorem(title="t"))\n', "no id"),
    ('t = Theorem(id="a_b")\nregister(t)\n', "register of a name"),
    ('register(make())\n', "register of a call that is not Theorem(...)"),
    ('T = Theorem\nregister(T(id="a_b"))\n', "Theorem aliased"),
    ('for r in rs:\n    register(r)\n', "register in a loop of names"),
    ('register(Theorem(id="a_b"))\nregistry.add(x)\n', "the registry used"),
    ('register(Theorem(id="a_b"))\nx = replace(y, id="c_d")\n', "replace(id=)"),
    ('register(Theorem(id="a_b"))\nt.id = "c_d"\n', ".id assigned"),
    ('def f(i):\n    register(Theorem(id=i))\nfor i in ids:\n    f(i)\n', "helper called in a loop"),
    ('def f(i):\n    register(Theorem(id=i))\nf(name)\n', "helper called without a literal"),
    ('def f(i):\n    i = i + "_x"\n    register(Theorem(id=i))\nf("a")\n', "helper parameter reassigned"),
    ('def f(i):\n    register(Theorem(id=i))\ng = f\n', "helper passed around"),
    ('def f(i):\n    register(Theorem(id=i))\nf(*xs)\n', "helper called with *args"),
    ('def f(i):\n    def g():\n        return Theorem(id=i)\n    register(g())\nf("a")\n', "nested function"),
    ("def f(:\n", "a syntax error"),
]


@pytest.mark.parametrize("source, ids", SURE, ids=[s for s, _ in SURE])
def test_scan_reads_literal_ids_and_helper_parameters(source, ids):
    assert scan(source) == ids


@pytest.mark.parametrize("source, why", UNSURE, ids=[w for _, w in UNSURE])
def test_scan_is_unsure_of_anything_else(source, why):
    assert scan(source) is None, why
