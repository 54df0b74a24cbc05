"""Loading a user's source of theorems: what it registered, where, what it uses; every bad input a
one-line error naming the source and the theorem."""

import sys
import textwrap

import pytest

from symattn.engine.theorem import registry
from symattn.products import sources
from symattn.products.sources import SourceError, build_errors, dependencies, load_source, load_sources, select

HEADER = """\
import sympy as sp
from symattn import Derivation, Statement, Theorem, register
x = sp.Symbol("x")
"""


def theorem(tid: str, *, derivation: str = 'Derivation((x + 1)**2).eq(x**2 + 2*x + 1, "algebra")') -> str:
    return (f'register(Theorem(id="{tid}", title="t", source="extension", '
            f'statement=Statement((x + 1)**2, x**2 + 2*x + 1), derivation={derivation}))\n')


@pytest.fixture(autouse=True)
def isolated():
    with sources.isolated():
        yield


@pytest.fixture
def write(tmp_path):
    def write(name: str, body: str, header: str = HEADER):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + textwrap.dedent(body))
        return str(path)

    return write


def test_a_file_registers_its_theorems_with_their_lines(write):
    path = write("mine.py", theorem("src_one") + "\n" + theorem("src_two"))
    src = load_source(path)
    assert [t.id for t in src.theorems] == ["src_one", "src_two"]
    assert src.locations["src_one"].endswith("mine.py:4") and src.locations["src_two"].endswith("mine.py:6")
    assert src.title == "mine" and all(t.topic == "mine" for t in src.theorems)
    assert registry.get("src_one") is src.theorems[0]


def test_a_source_named_twice_is_imported_once(write):
    path = write("mine.py", theorem("src_once"))
    assert load_sources([path, path]) == [load_source(path)]


def test_two_files_with_the_same_name_do_not_meet(write):
    a = load_source(write("a/mine.py", theorem("src_in_a")))
    b = load_source(write("b/mine.py", theorem("src_in_b")))
    assert a.module is not b.module and a.module.__name__ != b.module.__name__
    assert [t.id for t in b.theorems] == ["src_in_b"]


def test_a_dotted_module_name_is_a_source(write, tmp_path, monkeypatch):
    write("mypkg/__init__.py", "", header="")
    write("mypkg/results.py", theorem("src_dotted"))
    monkeypatch.syspath_prepend(str(tmp_path))
    src = load_source("mypkg.results")
    assert [t.id for t in src.theorems] == ["src_dotted"] and src.title == "mypkg.results"
    assert src.locations["src_dotted"].endswith("results.py:4")


def test_a_library_module_is_a_source_of_its_own_theorems():
    src = load_source("derivations.scaling")
    assert "dot_product_variance" in {t.id for t in src.theorems}
    assert all(t.topic == "scaling" for t in src.theorems)


def test_theorems_registered_by_a_helper_module_beside_the_source_count(write):
    write("helper_for_source.py", theorem("src_from_helper"))
    src = load_source(write("mine.py", "import helper_for_source\n" + theorem("src_own")))
    assert [t.id for t in src.theorems] == ["src_from_helper", "src_own"]


def test_a_source_without_theorems_is_empty_not_an_error(write):
    assert load_source(write("empty.py", "y = 1\n")).theorems == []


# ---------------------------------------------------------------------------------------------- bad input
BAD = [
    # (case, files {name: body}, source to load, fragments the one error must contain)
    ("missing file", {}, "{tmp}/nope.py", ["nope.py: no such file"]),
    ("a directory", {"pkg/__init__.py": ""}, "{tmp}/pkg", ["is a directory"]),
    ("not python", {"notes.txt": ""}, "{tmp}/notes.txt", ["not a .py file"]),
    ("unknown module", {}, "no_such_module_zz.results", ["no_such_module_zz.results: no such file, and no module"]),
    ("not a module name", {}, "not-a-module", ["neither an existing file nor a dotted module name"]),
    ("import fails", {"broken.py": "def f():\n    return 1 / 0\nf()\n"}, "{tmp}/broken.py",
     ["broken.py: importing it failed", "ZeroDivisionError: division by zero", "return 1 / 0"]),
    ("syntax error", {"syntax.py": "def f(:\n"}, "{tmp}/syntax.py", ["importing it failed", "SyntaxError"]),
    ("exits", {"exits.py": "import sys\nsys.exit(3)\n"}, "{tmp}/exits.py", ["importing it failed", "SystemExit: 3"]),
    ("collides with the library", {"clash.py": theorem("dot_product_variance")}, "{tmp}/clash.py",
     ["clash.py:4: theorem id 'dot_product_variance' is already registered at", "derivations/scaling.py:"]),
    ("defined, never registered",
     {"forgot.py": "t = Theorem(id='src_forgotten', title='t', source='extension',\n"
                   "            statement=Statement(x, x))\n"},
     "{tmp}/forgot.py", ["forgot.py:4: theorem 'src_forgotten'", "defined but never registered"]),
    ("bad theorem id", {"badid.py": theorem("Bad-Id")}, "{tmp}/badid.py",
     ["badid.py: importing it failed", "theorem id must be snake_case", "badid.py\", line 4"]),
]


@pytest.mark.parametrize("case, files, spec, fragments", BAD, ids=[b[0] for b in BAD])
def test_bad_sources_are_one_clear_error_naming_the_source(case, files, spec, fragments, tmp_path):
    for name, body in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER + body if name.endswith(".py") and "import" not in body else body)
    with pytest.raises(SourceError) as info:
        load_source(spec.format(tmp=tmp_path))
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    # never the inside of the kernel or of the import machinery
    assert "symattn/engine/theorem.py" not in message and "importlib" not in message and "<frozen" not in message
    if "importing it failed" not in message:
        assert "\n" not in message


def test_two_sources_with_one_id_name_both_places(write):
    first = write("first.py", theorem("src_shared"))
    second = write("second.py", "\n" + theorem("src_shared"))
    both = r"second\.py:5: theorem id 'src_shared' is already registered at .*first\.py:4"
    with pytest.raises(SourceError, match=both):
        load_sources([first, second])


def test_a_derivation_that_raises_while_built_is_one_line_naming_place_and_theorem(write):
    body = "def chain():\n    return Derivation(x).eq(1 / 0, 'algebra')\n" + theorem("src_raises", derivation="chain")
    src = load_source(write("raises.py", body))
    errors = build_errors(src.theorems, [src])
    message = errors["src_raises"]
    assert "raises.py:5: theorem 'src_raises': building its derivation raised ZeroDivisionError" in message
    assert "\n" not in message


# ---------------------------------------------------------------------------------------------- selection
USES_LIBRARY = """\
from derivations.scaling import _hypotheses, _logit, d_k, sigma
from symattn.rules.expectation import StandardDeviation, Variance

register(Theorem(
    id="src_uses_scaled_std", title="t", source="extension", hypotheses=_hypotheses(d_k),
    statement=Statement(StandardDeviation(_logit(d_k) / sp.sqrt(d_k)), sigma**2),
    derivation=lambda: Derivation(StandardDeviation(_logit(d_k) / sp.sqrt(d_k)))
        .eq(sigma**2, "apply_theorem", theorem="scaled_logit_std")))
"""


def test_dependencies_are_the_library_theorems_used_transitively(write):
    src = load_source(write("uses.py", USES_LIBRARY))
    deps = dependencies(src.theorems)
    # scaled_logit_std itself uses dot_product_variance through apply_theorem
    assert deps == {"scaled_logit_std": ["src_uses_scaled_std"], "dot_product_variance": ["scaled_logit_std"]}


def test_selection_is_the_sources_then_their_dependencies_and_with_library_everything(write):
    src = load_source(write("uses.py", USES_LIBRARY))
    chosen = select([src])
    assert [t.id for t in chosen.theorems] == ["src_uses_scaled_std", "scaled_logit_std", "dot_product_variance"]
    assert [t.id for t in chosen.chosen] == ["src_uses_scaled_std"]
    everything = select([src], with_library=True)
    assert {t.id for t in everything.theorems} == {t.id for t in registry}
    assert everything.dependency_of == {}
    assert [t.id for t in select([src], pattern="nothing_matches_zz").theorems] == []


def test_isolated_leaves_registry_modules_and_path_as_they_were(write):
    ids, path = {t.id for t in registry}, list(sys.path)
    with sources.isolated():
        src = load_source(write("mine.py", theorem("src_transient")))
        assert "src_transient" in registry and src.module.__name__ in sys.modules
    assert {t.id for t in registry} == ids and sys.path == path and src.module.__name__ not in sys.modules
