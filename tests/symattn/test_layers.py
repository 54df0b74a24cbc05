"""The package shows its layers: every import of every module under ``symattn/`` goes down a layer
(or stays within one), and no set of modules imports itself round a circle.

The layers, bottom to top, are those ``symattn/__init__.py`` and the README's Layout section list.
Imports are read from the source (``ast``), all of them: at module level, under ``if``/``try``, and inside
functions -- an import hidden in a function body is still an edge. There is no exception list.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# (module prefix, layer): a module belongs to the layer of the longest prefix naming it. The package
# itself (the public facade, its deprecated shims, ``__main__``) sits on top: it may import anything,
# nothing may import it.
LAYERS = (
    ("symattn.language", 0),
    ("symattn.kernel", 1),
    ("symattn.maths", 2),
    ("symattn.rules", 3),
    ("symattn.engine", 4),
    ("symattn.products", 5),
    ("symattn", 6),
)


def package_modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name (a package by its ``__init__``)."""
    out = {}
    for path in sorted((root / package.replace(".", "/")).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _module_of(name: str, modules: Mapping[str, Path]) -> str | None:
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def imports_of(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The modules of ``modules`` that module ``name`` (source at ``path``) imports, anywhere in it.
    ``from a import b`` is an import of ``a.b`` when that is a module, else of ``a``."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
        else:
            continue
        for target in targets:
            module = _module_of(target, modules)
            if module is not None and module != name:
                found.add(module)
    return found


def module_graph(root: Path, package: str = "symattn") -> dict[str, set[str]]:
    modules = package_modules(root, package)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def layer_of(module: str, layers: Iterable[tuple[str, int]] = LAYERS) -> int:
    best = max((p for p in layers if module == p[0] or module.startswith(p[0] + ".")),
               key=lambda p: len(p[0]), default=None)
    if best is None:
        raise ValueError(f"module {module!r} is in no layer")
    return best[1]


def upward_imports(graph: Mapping[str, set[str]], layer: Callable[[str], int]) -> list[tuple[str, str]]:
    """The edges ``(importer, imported)`` whose imported module sits in a higher layer."""
    return sorted((a, b) for a, targets in graph.items() for b in targets if layer(b) > layer(a))


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (each a circle of imports), found by
    Tarjan's algorithm, iteratively (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    nodes = set(graph) | {b for targets in graph.values() for b in targets}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, successors = work[-1]
            for w in successors:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


# -- the checker, on small graphs whose answer is known ------------------------------------------------

TOY_LAYERS = (("p.low", 0), ("p.high", 1), ("p", 2))


def toy_layer(m):
    return layer_of(m, TOY_LAYERS)


def test_an_import_up_a_layer_is_reported():
    graph = {"p.low.a": {"p.high.b"}, "p.high.b": set()}
    assert upward_imports(graph, toy_layer) == [("p.low.a", "p.high.b")]


def test_imports_down_or_within_a_layer_are_not_reported():
    graph = {"p.high.b": {"p.low.a", "p.high.c"}, "p.high.c": {"p.low.a"}, "p.low.a": set(), "p": {"p.high.b"}}
    assert upward_imports(graph, toy_layer) == []
    assert cycles(graph) == []


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}, "e": {"a", "c"}}, [["a", "b"], ["c", "d"]]),
    ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, []),  # a diamond is no circle
])
def test_a_circle_of_imports_is_reported(graph, expected):
    assert cycles(graph) == expected


def test_a_long_chain_needs_no_recursion():
    n = 5000
    graph = {f"m{i}": {f"m{i + 1}"} for i in range(n)}
    assert cycles(graph) == []
    graph[f"m{n}"] = {"m0"}
    assert cycles(graph) == [sorted(f"m{i}" for i in range(n + 1))]


def test_the_reader_sees_imports_inside_functions_and_relative_imports(tmp_path):
    pkg = tmp_path / "p"
    (pkg / "low").mkdir(parents=True)
    (pkg / "high").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("")
    (pkg / "high" / "__init__.py").write_text("")
    (pkg / "high" / "b.py").write_text("from ..low import a\n")
    (pkg / "low" / "a.py").write_text(
        "import os\n\n\ndef f():\n    try:\n        from p.high import b\n    except ImportError:\n        pass\n")
    graph = module_graph(tmp_path, "p")
    assert graph["p.high.b"] == {"p.low.a"}
    assert graph["p.low.a"] == {"p.high.b"}
    assert upward_imports(graph, toy_layer) == [("p.low.a", "p.high.b")]
    assert cycles(graph) == [["p.high.b", "p.low.a"]]


def test_a_module_in_no_layer_is_an_error():
    with pytest.raises(ValueError, match="in no layer"):
        layer_of("elsewhere.x", TOY_LAYERS)


# -- the package -----------------------------------------------------------------------------------------

GRAPH = module_graph(ROOT)


def test_the_graph_is_read():
    # a floor, so that a reader that found nothing cannot pass the two tests below
    assert len(GRAPH) > 100
    assert sum(map(len, GRAPH.values())) > 300
    assert "symattn.kernel.terms" in GRAPH["symattn.kernel.zero"]


def test_every_module_is_in_a_layer_and_only_shims_sit_on_top():
    top = sorted(m for m in GRAPH if layer_of(m) == LAYERS[-1][1])
    assert all(m.count(".") == 1 or m == "symattn" for m in top), top


def test_no_import_goes_up_a_layer():
    assert upward_imports(GRAPH, layer_of) == []


def test_no_modules_import_each_other_round_a_circle():
    assert cycles(GRAPH) == []
