"""The ids of the library's theorems, read from the source of :mod:`derivations` without importing it.

``symattn check user.py`` must refuse an id the user's file reuses from the library (naming both
places), but importing the whole library to know its ids costs far more than checking a small file
(issue 22). :func:`index` reads each module that :func:`symattn.engine.library.load_all` would
import with :mod:`ast` instead, and finds the ``Theorem(id="...", ...)`` calls:

* an id given as a string literal (keyword ``id=`` or the first positional argument) is indexed;
* an id given as a parameter of a module-level function (``def _attained(kind, thm_id, ...):
  register(Theorem(id=thm_id, ...))``) is indexed when every use of that function is a call, at
  module level, passing a string literal for it;
* anything else makes the module *unsure* (:attr:`Index.unsure`), and the caller imports it for
  real: an id computed otherwise, a ``Theorem`` or ``register`` used other than by a call, a
  ``register`` of anything but a ``Theorem(...)`` call, a ``.id`` assigned, a ``replace(...,
  id=...)``, a reference to ``registry``, a module the scan cannot parse, a subpackage or a module
  without a ``.py`` file.

The scan of a module is memoised by the SHA-256 of its bytes, in ``library-ids.json`` of the
cache directory (:func:`symattn.engine.cache.default_directory`; not with ``SYMATTN_NO_CACHE=1``),
and per process. ``tests/symattn/engine/test_library_index.py`` checks that the index equals the
ids the registry holds after ``load_all()``, so that a module the scan misreads fails the tests.

>>> scan(b'register(Theorem(id="a_b", title="t"))\\nregister(Theorem("c_d", "t"))\\n')
['a_b', 'c_d']
>>> scan(b'register(Theorem(id="a_" + "b", title="t"))') is None  # not a literal: unsure
True
>>> scan(b'def f(i):\\n    register(Theorem(id=i))\\nf("x_y")\\nf(i="z_w")\\n')
['x_y', 'z_w']
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["FORMAT", "Index", "index", "scan", "forget"]

#: bumped whenever :func:`scan` reads differently (the memo of older scans is then ignored)
FORMAT = 1
MEMO_NAME = "library-ids.json"


@dataclass(frozen=True)
class Index:
    """What the scan found: ``ids`` (theorem id -> module name, e.g. ``"derivations.softmax"``) and
    the modules it could not read (``unsure``), which must be imported to know their ids."""

    ids: dict = field(default_factory=dict)
    unsure: tuple = ()


class _Unsure(Exception):
    pass


def _name(func) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _literal(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _parameters(fn) -> list[str]:
    a = fn.args
    return [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]


def _positional(fn) -> list[str]:
    return [p.arg for p in (*fn.args.posonlyargs, *fn.args.args)]


def scan(source: bytes | str) -> list[str] | None:
    """The theorem ids one module's ``Theorem(...)`` calls give, in source order, or None when the
    scan is unsure of them (see the module docstring)."""
    try:
        return _scan(ast.parse(source))
    except (SyntaxError, ValueError, _Unsure):
        return None


def _scan(tree: ast.Module) -> list[str]:
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    top_functions = {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    top_statements = {id(s) for s in tree.body}

    def enclosing_function(node):
        p = parents.get(id(node))
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            p = parents.get(id(p))
        return p

    found: list[tuple[int, int, str]] = []  # (line, column, id): source order
    pending: dict[str, set[str]] = {}  # module-level function -> its parameters that are ids
    calls = set()  # id() of the Call nodes whose func is a Name (a use of a name by calling it)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                calls.add(id(node.func))
            name = _name(node.func)
            if name == "Theorem":
                _theorem_call(node, found, pending, enclosing_function, top_functions)
            elif name == "register":
                if len(node.args) != 1 or node.keywords or not (
                        isinstance(node.args[0], ast.Call) and _name(node.args[0].func) == "Theorem"):
                    raise _Unsure("register of something else than a Theorem(...) call")
            elif name == "replace" and any(k.arg in ("id", None) for k in node.keywords):
                raise _Unsure("replace(..., id=...)")
        elif isinstance(node, ast.Attribute) and node.attr == "id" and isinstance(node.ctx, ast.Store):
            raise _Unsure(".id assigned")
        elif isinstance(node, ast.Name) and node.id == "registry":
            raise _Unsure("the registry used directly")
    for node in ast.walk(tree):  # Theorem and register only ever called, never passed around
        if isinstance(node, (ast.Name, ast.Attribute)) and _name(node) in ("Theorem", "register"):
            if isinstance(getattr(node, "ctx", None), ast.Load) and not _is_called(node, parents):
                if not _is_isinstance_check(node, parents):
                    raise _Unsure(f"{_name(node)} used other than by a call")
    for fname, params in pending.items():
        fn = top_functions[fname]
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id in params and not isinstance(node.ctx, ast.Load):
                raise _Unsure(f"parameter {node.id} of {fname} reassigned")
        positional = _positional(fn)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Name) and node.id == fname):
                continue
            call = parents.get(id(node))
            if id(node) not in calls or not isinstance(call, ast.Call) or call.func is not node:
                raise _Unsure(f"{fname} used other than by a call")
            holder = parents.get(id(call))
            if id(holder) not in top_statements or not isinstance(holder, (ast.Expr, ast.Assign, ast.AnnAssign)):
                raise _Unsure(f"{fname} called other than at module level")
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                raise _Unsure(f"{fname} called with *args or **kwargs")
            given = {k.arg: k.value for k in call.keywords}
            given.update({positional[i]: a for i, a in enumerate(call.args) if i < len(positional)})
            for p in sorted(params, key=_parameters(fn).index):
                value = _literal(given.get(p))
                if value is None:
                    raise _Unsure(f"{fname} called without a literal {p}")
                found.append((call.lineno, call.col_offset, value))
    return [i for _, _, i in sorted(found)]


def _theorem_call(node, found, pending, enclosing_function, top_functions) -> None:
    given = [k.value for k in node.keywords if k.arg == "id"]  # then no *args or **kwargs can give another
    if not given:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise _Unsure("Theorem(*args) or Theorem(**kwargs) without id=")
        given = node.args[:1]
    if not given:
        raise _Unsure("Theorem(...) without an id")
    value = _literal(given[0])
    if value is not None:
        found.append((node.lineno, node.col_offset, value))
        return
    fn = enclosing_function(node)
    if (isinstance(given[0], ast.Name) and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
            and top_functions.get(fn.name) is fn and given[0].id in _parameters(fn)):
        pending.setdefault(fn.name, set()).add(given[0].id)
        return
    raise _Unsure("an id that is not a literal")


def _is_called(node, parents) -> bool:
    parent = parents.get(id(node))
    return isinstance(parent, ast.Call) and parent.func is node


def _is_isinstance_check(node, parents) -> bool:
    """``isinstance(x, Theorem)``: a use of the name that makes no theorem."""
    parent = parents.get(id(node))
    return isinstance(parent, ast.Call) and _name(parent.func) == "isinstance" and node in parent.args[1:]


# ---------------------------------------------------------------------------------------------- the index
_INDEX: list[Index] = []


def forget() -> None:
    """Drop the per-process memo (the memo file stays; it is keyed by content)."""
    _INDEX.clear()


def _memo_path() -> Path | None:
    from symattn.engine.cache import default_directory, disabled_by_environment

    if disabled_by_environment():
        return None
    try:
        return default_directory() / MEMO_NAME
    except Exception:  # noqa: BLE001 - no memo: the scan is simply done again
        return None


def _read_memo(path: Path | None) -> dict:
    if path is None:
        return {}
    try:
        memo = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(memo, dict) or memo.get("format") != FORMAT or not isinstance(memo.get("modules"), dict):
        return {}
    return memo["modules"]


def _library_modules() -> list[tuple[str, Path | None]]:
    """``(module name, its .py file or None)`` of every module :func:`load_all` imports, in its order."""
    import pkgutil

    import derivations

    out = []
    for info in sorted(pkgutil.iter_modules(derivations.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        path = None
        if not info.ispkg and hasattr(info.module_finder, "path"):
            candidate = Path(info.module_finder.path) / f"{info.name}.py"
            path = candidate if candidate.is_file() else None
        out.append((f"derivations.{info.name}", path))
    return out


def index(*, memo: bool = True) -> Index:
    """The static index of the library (see the module docstring); ``memo=False`` scans every
    module afresh and neither reads nor writes the memo file."""
    if memo and _INDEX:
        return _INDEX[0]
    path = _memo_path() if memo else None
    old = _read_memo(path)
    new: dict[str, dict] = {}
    ids: dict[str, str] = {}
    unsure: list[str] = []
    for name, file in _library_modules():
        if file is None:
            unsure.append(name)
            continue
        try:
            data = file.read_bytes()
        except OSError:
            unsure.append(name)
            continue
        digest = hashlib.sha256(data).hexdigest()
        entry = old.get(name)
        if isinstance(entry, dict) and entry.get("sha256") == digest and (
                entry.get("ids") is None or isinstance(entry.get("ids"), list)):
            found = entry["ids"]
        else:
            found = scan(data)
        new[name] = {"sha256": digest, "ids": found}
        if found is None:
            unsure.append(name)
        else:
            for theorem_id in found:
                ids.setdefault(theorem_id, name)
    if path is not None and new != old:
        from symattn.engine.cache import _atomic_write

        _atomic_write(path, json.dumps({"format": FORMAT, "modules": new}, indent=1, sort_keys=True).encode())
    result = Index(ids, tuple(unsure))
    if memo:
        _INDEX[:] = [result]
    return result
