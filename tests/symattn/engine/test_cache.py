"""The cache of outcomes (symattn.engine.cache): never served stale, exactly the concerned theorems re-checked.

Each staleness case changes one thing a verdict depends on -- a rule module's source, the
kernel's, a lemma's statement, a hypothesis, a seed, a dependency's version, the checker's
options -- and checks which theorems of a small family are checked again (``cached`` false): the
ones that depend on the change, and no other.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

import symattn.engine.cache as cache_mod
from symattn.engine.cache import Cache, theorem_key
from symattn.engine.checker import Checker
from symattn.engine.theorem import NumericResult, Probabilistic, Theorem, registry
from symattn.engine.verdict import Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, Statement

x, y, z = sp.symbols("x y z", real=True)
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _fresh_memos(monkeypatch):
    """Every test starts from the real sources and versions, and leaves them so."""
    cache_mod.forget_sources()
    monkeypatch.setattr(cache_mod, "_versions", None)
    yield
    cache_mod.forget_sources()


def _numeric(seed):
    return NumericResult(True, 4, seed, 0.0, 1e-12)


def _sz_build(size):
    return Statement((x + y) ** 2, x**2 + 2 * x * y + y**2)


def family(*, lemma_steps=1, lemma_symbol=z, hypothesis=x > 0, seed=3) -> dict[str, Theorem]:
    """Five small theorems: a lemma (by the rule of tests/symattn/engine/cache_rule.py), one applying it, one
    with a hypothesis (algebra), one probabilistic only (no derivation), and one numeric only."""
    w = lemma_symbol
    chain = Derivation(w + w)
    for _ in range(lemma_steps):
        chain = chain.eq(2 * w, "zz_cache_double")
    lemma = Theorem(id="zz_cache_lemma", title="", source="extension", statement=Statement(w + w, 2 * w),
                    derivation=chain)
    user = Theorem(id="zz_cache_user", title="", source="extension", statement=Statement(y + y, 2 * y),
                   derivation=Derivation(y + y).eq(2 * y, "apply_theorem", theorem="zz_cache_lemma",
                                                    mapping={w: y}))
    hyp = Theorem(id="zz_cache_hyp", title="", source="extension", statement=Statement(x * (x + 1), x**2 + x),
                  hypotheses=(Assumption("pos", hypothesis),),
                  derivation=Derivation(x * (x + 1)).eq(x**2 + x, "algebra"))
    prob = Theorem(id="zz_cache_prob", title="", source="extension", target=Verdict.CHECKED_PROBABILISTICALLY,
                   statement=Statement((x + y) ** 2, x**2 + 2 * x * y + y**2),
                   probabilistic=Probabilistic(_sz_build, sizes=(1,), trials=3, seed=seed))
    num = Theorem(id="zz_cache_num", title="", source="extension", kind="empirical",
                  target=Verdict.NUMERICALLY_CONSISTENT, statement=Statement(x, x), numeric=_numeric)
    return {t.id: t for t in (lemma, user, hyp, prob, num)}


@pytest.fixture
def registered(monkeypatch):
    """Register a family's theorems (the lemma must be in the registry for apply_theorem) and the
    test rule."""
    from symattn.rules import RULES, load_rules

    from .cache_rule import RULE

    load_rules()
    monkeypatch.setitem(RULES, RULE.name, RULE)
    added: list[str] = []

    def put(fam):
        for t in fam.values():
            registry._theorems.pop(t.id, None)
            registry.add(t)
            added.append(t.id)
        return fam

    yield put
    for i in added:
        registry._theorems.pop(i, None)


def run(fam, cache, **options) -> dict[str, bool]:
    """Check the family with a fresh checker through ``cache``: ``{id: served from the cache}``."""
    checker = Checker(cache=cache, **options)
    out = {}
    for i, t in fam.items():
        o = checker.check(t)
        assert o.verdict is not Verdict.REFUTED and o.verdict is not Verdict.UNDECIDED, (i, o.how)
        out[i] = o.cached
    return out


def rechecked(served: dict[str, bool]) -> set[str]:
    return {i for i, hit in served.items() if not hit}


ALL = set(family())


def _patch_source(monkeypatch, module: str, extra: bytes = b"\n# changed\n"):
    real = cache_mod.module_source
    monkeypatch.setattr(cache_mod, "module_source", lambda name: real(name) + (extra if name == module else b""))
    cache_mod.forget_sources()


# (name, how to change, the theorems that must be checked again)
def _rule_module(monkeypatch, fam):
    from .cache_rule import RULE

    _patch_source(monkeypatch, RULE.check.__module__)
    return fam


def _algebra(monkeypatch, fam):
    _patch_source(monkeypatch, "symattn.rules.algebra")  # the checker's own equality tests use it
    return fam


def _other_rule_module(monkeypatch, fam):
    _patch_source(monkeypatch, "symattn.rules.trig")  # no theorem of the family uses it
    return fam


def _kernel(monkeypatch, fam):
    _patch_source(monkeypatch, "symattn.kernel.zero")
    return fam


def _checker_source(monkeypatch, fam):
    _patch_source(monkeypatch, "symattn.engine.checker")
    return fam


def _lemma_derivation(monkeypatch, fam):
    return family(lemma_steps=2)  # one more (trivial) step: the user's own parts are unchanged


def _lemma_statement(monkeypatch, fam):
    return family(lemma_symbol=sp.Symbol("z"))  # z + z = 2 z for every complex z, not only real ones


def _hypothesis(monkeypatch, fam):
    return family(hypothesis=x >= 0)


def _seed(monkeypatch, fam):
    return family(seed=4)


def _sympy_version(monkeypatch, fam):
    monkeypatch.setattr(cache_mod, "_versions", {**cache_mod.versions(), "sympy": "0.0.0"})
    return fam


def _z3_version(monkeypatch, fam):
    monkeypatch.setattr(cache_mod, "_versions", {**cache_mod.versions(), "z3-solver": "0.0.0"})
    return fam


def _flint_version(monkeypatch, fam):
    monkeypatch.setattr(cache_mod, "_versions", {**cache_mod.versions(), "python-flint": "0.0.0"})
    return fam


def _nothing(monkeypatch, fam):
    return family()


CHANGES = [
    ("nothing changed", _nothing, set()),
    ("the source of a rule's module", _rule_module, {"zz_cache_lemma", "zz_cache_user"}),
    ("the source of symattn.rules.algebra (the checker uses it)", _algebra, ALL),
    ("the source of a rule module no derivation uses", _other_rule_module, set()),
    ("the kernel's source", _kernel, ALL),
    ("the checker's source", _checker_source, ALL),
    ("a lemma's derivation (the theorem applying it unchanged)", _lemma_derivation,
     {"zz_cache_lemma", "zz_cache_user"}),
    ("a lemma's statement", _lemma_statement, {"zz_cache_lemma", "zz_cache_user"}),
    ("a hypothesis", _hypothesis, {"zz_cache_hyp"}),
    ("a probabilistic seed", _seed, {"zz_cache_prob"}),
    ("the SymPy version", _sympy_version, ALL),
    ("the Z3 version", _z3_version, ALL),
    ("the python-flint version", _flint_version, ALL),
]


@pytest.mark.parametrize(("change", "expected"), [c[1:] for c in CHANGES], ids=[c[0] for c in CHANGES])
def test_exactly_the_theorems_a_change_concerns_are_checked_again(tmp_path, monkeypatch, registered, change,
                                                                   expected):
    cache = Cache(tmp_path)
    fam = registered(family())
    assert rechecked(run(fam, cache)) == ALL  # cold: everything checked
    assert rechecked(run(fam, cache)) == set()  # warm: nothing
    fam = registered(change(monkeypatch, fam))
    assert rechecked(run(fam, cache)) == expected
    assert rechecked(run(fam, cache)) == set()  # and the new outcomes were stored


@pytest.mark.parametrize("options", [{"seed": 1}, {"numeric": False}, {"time_limit": 3.0}])
def test_the_checkers_options_are_part_of_the_key(tmp_path, registered, options):
    cache = Cache(tmp_path)
    fam = registered(family())
    fam.pop("zz_cache_num")  # without the numeric level it is undecided (and not stored)
    run(fam, cache)
    assert rechecked(run(fam, cache, **options)) == set(fam)
    assert rechecked(run(fam, cache, **options)) == set() and rechecked(run(fam, cache)) == set()


def test_a_served_outcome_equals_the_fresh_one_and_renders_identically(tmp_path, monkeypatch):
    from symattn.engine.acceptance import outcome_html, outcome_latex
    from symattn.products.report import content, typeset
    from symattn.products.report.content import theorem_entry

    for module in (content, typeset):  # printing under a loaded machine: no notice
        monkeypatch.setattr(module, "PRINT_SECONDS", 120.0)
    from symattn.engine.theorem import load_all

    load_all()
    thm = registry.get("softmax_add_const")
    fresh = Checker().check(thm)
    cache = Cache(tmp_path)
    first = Checker(cache=cache).check(thm)
    served = Checker(cache=cache).check(thm)
    assert not first.cached and served.cached
    for a in (first, served):
        assert (a.verdict, a.how, a.counterexample, a.model) == (fresh.verdict, fresh.how, fresh.counterexample,
                                                                 fresh.model)
        assert {k: (v.status, v.detail, v.data) for k, v in a.levels.items()} == \
            {k: (v.status, v.detail, v.data) for k, v in fresh.levels.items()}
        assert [(s.status, str(s.reason)) for s in a.steps] == [(s.status, str(s.reason)) for s in fresh.steps]
    served.seconds = first.seconds  # the only field a check sets from the clock
    assert outcome_html(served) == outcome_html(first) and outcome_latex(served) == outcome_latex(first)
    assert theorem_entry(thm, served) == theorem_entry(thm, first)


def test_undecided_outcomes_are_not_stored(tmp_path):
    def boom():
        raise RuntimeError("broken builder")

    thm = Theorem(id="zz_cache_boom", title="", source="extension", statement=Statement(x, x), derivation=boom)
    cache = Cache(tmp_path)
    assert Checker(cache=cache).check(thm).verdict is not Verdict.PROVED
    assert cache.writes == 0 and cache.info()["entries"] == 0


def test_damaged_entries_are_misses_and_writes_leave_no_temporary_files(tmp_path, registered):
    cache = Cache(tmp_path)
    fam = registered(family())
    run(fam, cache)
    files = cache.entries()
    assert len(files) == len(fam) and not list(tmp_path.rglob("*.tmp"))
    files[0].write_bytes(files[0].read_bytes()[:20])  # truncated
    files[1].write_bytes(pickle.dumps({"key": "another key", "outcome": None}))  # not this key's entry
    assert len(rechecked(run(fam, cache))) == 2


def test_keys_are_the_same_in_another_process():
    code = ("from symattn.engine.theorem import load_all; from symattn.engine.cache import theorem_key; import json; "
            "r = load_all(); memo = {}; "
            "print(json.dumps({t.id: theorem_key(t, {'time_limit': 10.0, 'numeric': True, 'seed': 0}, memo=memo) "
            "for t in list(r)[:12]}))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                           check=True).stdout for _ in range(2)]
    assert json.loads(outs[0]) == json.loads(outs[1]) and len(json.loads(outs[0])) == 12


def test_two_processes_writing_one_cache_at_once(tmp_path):
    # Each process checks the same six theorems into one directory, at once; an outcome is stored
    # unless something in it was undecided (a time limit, under load).
    code = ("import sys, json; from symattn.engine.theorem import load_all; "
            "from symattn.engine.checker import Checker; "
            "from symattn.engine.cache import Cache; r = load_all(); c = Cache(sys.argv[1]); "
            "ch = Checker(cache=c, time_limit=60.0); ts = r.select('^softmax')[:6]; os = [ch.check(t) for t in ts]; "
            "print(json.dumps([[t.id, o.cached or getattr(o, '_cacheable', False)] for t, o in zip(ts, os)]))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True,
                              cwd=ROOT, env=env) for _ in range(2)]
    results = [json.loads(p.communicate()[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs) and [i for i, _ in results[0]] == [i for i, _ in results[1]]
    stored = {i for r in results for i, ok in r if ok}
    assert stored and not list(tmp_path.rglob("*.tmp"))
    cache = Cache(tmp_path)
    for path in cache.entries():  # every entry whole, under its own key
        assert pickle.loads(path.read_bytes())["key"] == path.stem
    from symattn.engine.theorem import load_all

    load_all()
    checker = Checker(cache=cache, time_limit=60.0)  # this process: every stored outcome is served
    assert all(checker.check(registry.get(i)).cached for i in stored)


def test_a_changed_rule_module_changes_the_keys_of_exactly_the_library_theorems_using_it(monkeypatch):
    """Library-wide: the theorems whose key changes are those whose derivations (nested ones
    included) name a rule of the module, and those that apply them, found by walking the steps."""
    from symattn.engine.checker import _applied_ids
    from symattn.engine.theorem import load_all
    from symattn.rules import load_rules

    module = "symattn.rules.reindex"
    rules = {name for name, r in load_rules().items() if r.check.__module__ == module}
    theorems = list(load_all())
    options = {"time_limit": 10.0, "numeric": True, "seed": 0}

    def uses(d) -> bool:
        todo = [d]
        while todo:
            chain = todo.pop()
            for step in chain.steps:
                if step.rule in rules:
                    return True
                todo.extend(v for v in _nested(step.args) if isinstance(v, Derivation))
        return False

    direct = {t.id for t in theorems if t.get_derivation() is not None and uses(t.get_derivation())}
    expected = set(direct)
    changed = True
    while changed:
        changed = False
        for t in theorems:
            d = t.get_derivation()
            if t.id not in expected and d is not None and set(_applied_ids(d)) & expected:
                expected.add(t.id)
                changed = True
    before = {t.id: theorem_key(t, options, memo={}) for t in theorems}
    _patch_source(monkeypatch, module)
    after = {t.id: theorem_key(t, options, memo={}) for t in theorems}
    assert direct, "the module chosen must be used by some theorem"
    assert {i for i in before if before[i] != after[i]} == expected


def _nested(value):
    if isinstance(value, dict):
        for v in value.values():
            yield v
            yield from _nested(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield v
            yield from _nested(v)


def test_default_directory_environment_and_switch(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMATTN_CACHE_DIR", str(tmp_path / "here"))
    assert cache_mod.default_directory() == tmp_path / "here"
    monkeypatch.delenv("SYMATTN_CACHE_DIR")
    src = tmp_path / "mine.py"
    src.write_text("")
    assert cache_mod.default_directory([src]) == tmp_path / ".symattn-cache"
    monkeypatch.setenv("SYMATTN_NO_CACHE", "1")
    with cache_mod.using(Cache(tmp_path)):
        assert cache_mod.ambient() is None
    monkeypatch.setenv("SYMATTN_NO_CACHE", "0")
    with cache_mod.using(Cache(tmp_path)) as c:
        assert cache_mod.ambient() is c
    assert cache_mod.ambient() is None


def _cli(*argv, cwd=ROOT):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SYMATTN_NO_CACHE", None)
    return subprocess.run([sys.executable, "-m", "symattn", *argv], capture_output=True, text=True, cwd=cwd,
                          env=env)


def test_check_json_says_which_outcomes_came_from_the_cache_and_cache_info_clear(tmp_path):
    d = str(tmp_path / "c")
    args = ["check", "-k", "^softmax_add_const$|^softmax_jacobian_symmetric$", "--json", "--cache-dir", d]
    cold = json.loads(_cli(*args).stdout)
    warm = json.loads(_cli(*args).stdout)
    off = json.loads(_cli(*args, "--no-cache").stdout)
    assert [r["cached"] for r in cold] == [False, False] and [r["cached"] for r in warm] == [True, True]
    assert [r["cached"] for r in off] == [False, False]
    assert [r["verdict"] for r in warm] == [r["verdict"] for r in cold]
    info = json.loads(_cli("cache", "info", "--cache-dir", d, "--json").stdout)
    assert info["entries"] == 2 and info["bytes"] > 0
    cleared = _cli("cache", "clear", "--cache-dir", d)
    assert cleared.returncode == 0 and "removed 2 cached outcomes" in cleared.stdout
    assert json.loads(_cli("cache", "info", "--cache-dir", d, "--json").stdout)["entries"] == 0


USER_FILE = '''
import sympy as sp
from symattn import Derivation, Statement, Theorem, register
x = sp.Symbol("x", real=True)
register(Theorem(id="my_double", title="double", source="extension", statement=Statement(x + x, 2 * x),
                 derivation=Derivation(x + x).eq(2 * x, "algebra")))
'''


def test_pytest_symattn_items_use_the_cache_beside_the_source(tmp_path):
    src = tmp_path / "my_results.py"
    src.write_text(USER_FILE)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SYMATTN_NO_CACHE", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--symattn", str(src),
           "--junitxml", str(tmp_path / "r.xml"), "-o", "junit_family=xunit1"]
    for expect in ("false", "true"):
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        xml = (tmp_path / "r.xml").read_text()
        assert f'name="symattn_cached" value="{expect}"' in xml.lower()
    assert Cache(tmp_path / ".symattn-cache").info()["entries"] == 1
    r = subprocess.run([*cmd, "--symattn-no-cache"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert r.returncode == 0 and 'value="false"' in (tmp_path / "r.xml").read_text().lower()


def _chain_builder(steps):
    """One builder's code, over the data it closes over."""
    return lambda: steps


def _default_builder(chain=None):
    def build(c=chain):
        return c
    return build


def _partial_target(chain):
    return chain


_TRUE_CHAIN = Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra")
_FALSE_CHAIN = Derivation((x + 1) ** 2).eq(x**2 + 1, "algebra")


@pytest.mark.parametrize("make", [
    _chain_builder,                                        # a closure cell
    _default_builder,                                      # a default argument
    lambda chain: __import__("functools").partial(_partial_target, chain),  # a partial's argument
], ids=["closure", "default", "partial"])
def test_the_same_builder_code_over_other_data_is_not_served_the_other_outcome(tmp_path, make):
    """A builder is its code *and* the data it carries: the quick key (no derivation built) must
    tell apart two theorems of one id whose builders share their code but close over different
    derivations, or the second is served the first's verdict (a false one `proved`)."""
    st = Statement((x + 1) ** 2, x**2 + 2 * x + 1)
    good = Theorem(id="zz_cache_closure", title="", source="extension", statement=st, derivation=make(_TRUE_CHAIN))
    bad = Theorem(id="zz_cache_closure", title="", source="extension",
                  statement=Statement((x + 1) ** 2, x**2 + 1), derivation=make(_FALSE_CHAIN))
    same_statement = Theorem(id="zz_cache_closure", title="", source="extension", statement=st,
                             derivation=make(Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 2, "algebra")))
    options = {"time_limit": 10.0}
    assert cache_mod.quick_key(good, options) != cache_mod.quick_key(same_statement, options)
    cache = Cache(tmp_path)
    assert Checker(cache=cache, numeric=False).check(good).verdict is Verdict.PROVED
    assert Checker(cache=cache, numeric=False).check(same_statement).verdict is not Verdict.PROVED
    assert Checker(cache=cache, numeric=False).check(bad).verdict is not Verdict.PROVED
    # and the same data again is served
    again = Checker(cache=cache, numeric=False).check(
        Theorem(id="zz_cache_closure", title="", source="extension", statement=st, derivation=make(_TRUE_CHAIN)))
    assert again.verdict is Verdict.PROVED and again.cached


@pytest.mark.parametrize("with_cache", [False, True], ids=["no_cache", "cache"])
def test_one_checker_does_not_serve_a_theorem_the_outcome_of_another_of_the_same_id(tmp_path, with_cache):
    """Adversarial review 19: one Checker memoised outcomes by id, so a factory's second theorem of
    the same id (a false one) was given the first's `proved`."""
    def make(c):
        return Theorem(id="zz_same_id", title="", source="extension",
                       statement=Statement((x + 1) ** 2, x**2 + 2 * x + c),
                       derivation=lambda: Derivation((x + 1) ** 2).eq(x**2 + 2 * x + c, "algebra"))
    checker = Checker(cache=Cache(tmp_path) if with_cache else None, numeric=False)
    true_thm = make(1)
    assert checker.check(true_thm).verdict is Verdict.PROVED
    assert checker.check(make(3)).verdict is Verdict.REFUTED
    assert checker.check(make(1)).verdict is Verdict.PROVED
    assert checker.check(true_thm) is checker.check(true_thm)  # the very object: memoised
