r"""A content-addressed cache of check outcomes: what has not changed is not checked again.

The **key** of a theorem is a SHA-256 hash of everything its verdict depends on:

* the statement, the hypotheses, the dimensions, the kind and the target;
* the derivation *as built* (its callable is called): the start, and each step's rule, relation,
  expression and arguments (nested derivations included), every SymPy term as the ``srepr`` of
  its canonical form (:func:`symattn.kernel.terms.canonical`: alpha-equivalent terms give one key);
* the instance, probabilistic and numeric specifications: sizes, labels, trials, field sizes,
  seeds, and the *source code* behind their builders and the numeric check (see below);
* the checker's options (time limit, numeric level on or off, seed; the second engine on or off and
  whether the grading requires its re-check);
* the source of the kernel (every file of :mod:`symattn.kernel`, subpackages included), of the checker's core
  (:data:`CORE_MODULES`), of every rule module the derivation's steps name, of every project
  module defining a class that occurs in one of its terms, and of every project module whose
  functions the theorem's callables reach (their code, followed through the project's functions);
* the versions of Python, SymPy, python-flint, Z3 and numpy (:func:`versions`);
* the keys of the lemmas it applies (``apply_theorem``, nested derivations included), so that a
  changed lemma re-checks every theorem built on it.

"Project" modules are those of :data:`PROJECT_PACKAGES` and any module loaded from a file outside
the Python installation (a user's source file and its helpers). Anything the key cannot describe
deterministically (an object whose ``repr`` holds a memory address, say) makes the key differ from
run to run: the theorem is then simply checked every time, never served stale.

**The quick key.** Computing a key builds the derivation and canonicalises every term, about as
long as importing the library. So each entry is also recorded under a *quick key*
(:func:`quick_key`): the theorem's parts as given (no derivation built, terms not canonicalised),
the source of every file of the project packages (:func:`world`), of the user modules the
theorem's code reaches and of every user module registering a rule (a derivation names its rules by
string); the record under it also holds the quick keys its lemmas had, checked again (recursively)
on every use. When nothing changed, the quick key finds the full key, and the
outcome, without building anything; when anything in the project changed, every quick key changes
and the full keys decide, re-checking exactly the theorems concerned. (This assumes, as the whole design
does, that the same code builds the same derivation: builders depend on no outside state.)

**Entries** are pickles of the checker's :class:`~symattn.engine.verdict.Outcome` (plain data, SymPy terms
and the kernel's messages), one file per key under ``<directory>/v<FORMAT>/<key[:2]>/<key>.pickle``,
written to a temporary file in the same directory and moved into place with :func:`os.replace`:
a reader sees a whole entry or none, so pytest-xdist workers and concurrent ``symattn`` processes
may share a directory. An entry that fails to load (truncated by a full disk, written by an
incompatible version) is a miss. An outcome that cannot be pickled is not stored. A served
outcome has ``cached = True``; its ``seconds`` are those of the check that produced it.

The **directory** (:func:`default_directory`): ``$SYMATTN_CACHE_DIR`` when set; otherwise
``.symattn-cache/`` beside the sources (the directory of a user's source file, or the directory
holding the library's ``derivations`` package) when that is writable; otherwise the user cache
directory (``$XDG_CACHE_HOME/symattn``, by default ``~/.cache/symattn``). ``SYMATTN_NO_CACHE=1``
(or ``--no-cache``) turns it off. Entries are code-adjacent data: like the sources beside them,
whoever can write the directory controls what is loaded (:mod:`pickle`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import pickle
import sys
import sysconfig
import tempfile
import time
import types
from fractions import Fraction
from pathlib import Path
from typing import Any

__all__ = [
    "CORE_MODULES",
    "FORMAT",
    "PROJECT_PACKAGES",
    "Cache",
    "default_directory",
    "describe",
    "forget_sources",
    "module_source",
    "theorem_key",
    "versions",
]

#: Bumped whenever the key's recipe or the entry format changes.
FORMAT = 1

#: Modules whose source every key includes besides the kernel package: the checker, the grading
#: and outcome types, the objects it checks, the rule dispatch and the time limits.
CORE_MODULES = (
    "symattn.engine.checker",
    "symattn.engine.verdict",
    "symattn.language.derivation",
    "symattn.language.statement",
    "symattn.engine.theorem",
    "symattn.engine.library",
    "symattn.engine.acceptance",
    "symattn.kernel.environment",
    "symattn.rules",
    "symattn.rules.algebra",  # the checker's own equality and sign tests (instances, end matching)
    "symattn.engine.cache",
)

#: Packages whose modules count as project code (their source goes into the keys that use them).
PROJECT_PACKAGES = ("symattn", "derivations", "numeric")

#: The distributions whose versions every key includes.
DEPENDENCIES = ("sympy", "python-flint", "z3-solver", "numpy", "mpmath")

ENV_DIR = "SYMATTN_CACHE_DIR"
ENV_OFF = "SYMATTN_NO_CACHE"


# ---------------------------------------------------------------------------------------------- sources
_sources: dict[str, bytes] = {}
_installed = tuple(
    str(Path(p).resolve()) for p in {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib",
                                                                           "platlib")} if p
)


def module_source(name: str) -> bytes:
    """The source of module ``name`` (its file's bytes; for a package, its ``__init__``), or a marker
    naming what could not be read. The one place keys read source code (tests patch it)."""
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None) if module is not None else None
    top = sys.modules.get(name.split(".", 1)[0])
    if path is None and top is not None and getattr(top, "__path__", None) and "." in name:
        # a module of a loaded package, found by its file without importing anything
        base = Path(list(top.__path__)[0]).joinpath(*name.split(".")[1:])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                path = str(candidate)
                break
    if path is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        path = spec.origin if spec is not None and spec.has_location else None
    if path is None:
        return f"<no source for {name}>".encode()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        return f"<unreadable source for {name}: {exc}>".encode()


def forget_sources() -> None:
    """Drop the memo of source hashes (after a source changed within this process)."""
    _sources.clear()
    _kernel.clear()
    _world.clear()


def _source_hash(name: str) -> bytes:
    h = _sources.get(name)
    if h is None:
        h = _sources[name] = hashlib.sha256(module_source(name)).digest()
    return h


_kernel: list[bytes] = []


def _kernel_modules() -> list[str]:
    """Every module of :mod:`symattn.kernel` (by file, loaded or not), sorted."""
    import symattn.kernel as kernel

    root = Path(kernel.__file__).parent
    names = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(("symattn", "kernel", *parts)))
    return names


def _kernel_digests() -> list[bytes]:
    if not _kernel:
        _kernel.extend(_source_hash(m) for m in _kernel_modules())
    return _kernel


def _is_project_module(name: str | None) -> bool:
    if not name or name in ("__main__", "builtins"):
        return bool(name == "__main__")
    if name.split(".", 1)[0] in PROJECT_PACKAGES:
        return True
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    if not path:
        return False
    resolved = str(Path(path).resolve())
    return not any(resolved.startswith(root) for root in _installed)


def _code_modules(fn: Any, out: set[str], seen: set[int], depth: int = 0) -> None:
    """Add to ``out`` the project modules of ``fn`` and of the project functions, classes and modules
    its code names (followed through those functions, a few levels deep)."""
    if id(fn) in seen or depth > 6:
        return
    seen.add(id(fn))
    if isinstance(fn, (staticmethod, classmethod)):
        fn = fn.__func__
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if isinstance(fn, functools.partial):
        _code_modules(fn.func, out, seen, depth)
        for a in (*fn.args, *fn.keywords.values()):
            if callable(a):
                _code_modules(a, out, seen, depth + 1)
        return
    if isinstance(fn, types.ModuleType):
        if _is_project_module(fn.__name__):
            out.add(fn.__name__)
        return
    module = getattr(fn, "__module__", None)
    if not _is_project_module(module):
        return
    out.add(module)
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    glb = getattr(fn, "__globals__", {})
    cells = [c.cell_contents for c in (getattr(fn, "__closure__", None) or ()) if _cell_filled(c)]
    for obj in (*(glb.get(n) for n in _names(code)), *cells):
        if obj is None or isinstance(obj, (int, float, str, bytes, bool)):
            continue
        if isinstance(obj, types.ModuleType) or callable(obj):
            _code_modules(obj, out, seen, depth + 1)


def _callable_data(fn: Any) -> list:
    """What ``fn`` carries besides its code: a partial's function and arguments, a bound method's
    object, a function's closure cells, defaults and keyword defaults (modules left out: their
    source is hashed; a type by its name)."""
    if isinstance(fn, (staticmethod, classmethod)):
        fn = fn.__func__
    if isinstance(fn, functools.partial):
        return [fn.func, tuple(fn.args), dict(fn.keywords)]
    if isinstance(fn, types.MethodType):
        return [fn.__self__ if not isinstance(fn.__self__, types.ModuleType) else None, fn.__func__]
    out = [c.cell_contents for c in (getattr(fn, "__closure__", None) or ()) if _cell_filled(c)]
    out += list(getattr(fn, "__defaults__", None) or ())
    out += sorted((getattr(fn, "__kwdefaults__", None) or {}).items())
    return [None if isinstance(o, types.ModuleType) else (f"type:{o.__module__}.{o.__qualname__}"
            if isinstance(o, type) else o) for o in out]


def _cell_filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - raises ValueError when empty
    except ValueError:
        return False
    return True


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


# ---------------------------------------------------------------------------------------------- versions
_versions: dict[str, str] | None = None


def versions() -> dict[str, str]:
    """The versions every key includes: Python and :data:`DEPENDENCIES` (``absent`` if not installed)."""
    global _versions
    if _versions is None:
        found = {"python": sys.version.split()[0]}
        for dist in DEPENDENCIES:
            try:
                found[dist] = importlib.metadata.version(dist)
            except importlib.metadata.PackageNotFoundError:
                found[dist] = "absent"
        _versions = found
    return dict(_versions)


# ---------------------------------------------------------------------------------------------- description
class _Describer:
    """A deterministic text of a theorem's parts; collects the modules and lemma ids it meets."""

    def __init__(self, *, canonical: bool = True) -> None:
        self.canonical = canonical  # False: terms as they are, callables by name (the quick key)
        self.modules: set[str] = set()
        self.lemmas: list[str] = []
        self._callables: set[int] = set()
        self._rules: dict | None = None
        self.expansions: set[str] = set()  # the frozen expansions of the user definitions its terms use

    def __call__(self, x: Any) -> str:
        import sympy as sp

        from symattn.language.derivation import Derivation, Step

        if x is None or isinstance(x, (bool, int, float, complex, str, bytes)):
            return f"{type(x).__name__}:{x!r}"
        if isinstance(x, Fraction):
            return f"Fraction:{x!r}"
        if isinstance(x, enum.Enum):
            return f"{type(x).__module__}.{type(x).__qualname__}.{x.name}"
        if isinstance(x, sp.MatrixBase) and not isinstance(x, sp.Basic):
            return f"Matrix{x.shape}[" + ",".join(self(e) for e in x) + "]"
        if isinstance(x, sp.Basic):
            return "S:" + self._term(x)
        if isinstance(x, Derivation):
            self._classes(x.start)
            return "Derivation(" + self(x.start) + ";" + ";".join(self(s) for s in x.steps) + ")"
        if isinstance(x, Step):
            self._rule(x.rule, x.args)
            return (f"Step({x.relation!r},{x.rule!r}," + self(x.expr) + ","
                    + self(x.args) + ")")
        if isinstance(x, dict):
            items = sorted((self(k), self(v)) for k, v in x.items())
            return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
        if isinstance(x, (list, tuple)):
            return f"{type(x).__name__}(" + ",".join(self(e) for e in x) + ")"
        if isinstance(x, (set, frozenset)):
            return "set(" + ",".join(sorted(self(e) for e in x)) + ")"
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            cls = type(x)
            if _is_project_module(cls.__module__):
                self.modules.add(cls.__module__)
            parts = ",".join(f"{f.name}=" + self(getattr(x, f.name)) for f in dataclasses.fields(x))
            return f"{cls.__module__}.{cls.__qualname__}({parts})"
        if callable(x):
            name = f"fn:{getattr(x, '__module__', '?')}.{getattr(x, '__qualname__', type(x).__qualname__)}"
            if id(x) in self._callables:
                return name
            self._callables.add(id(x))
            _code_modules(x, self.modules, set())
            # the data a callable carries (closure cells, defaults, a partial's arguments): two builders
            # of the same code over different data build different derivations
            data = _callable_data(x)
            return name + ("[" + ",".join(self(d) for d in data) + "]" if data else "")
        # anything else: its type and repr (a repr holding an address makes the key change every
        # run, which is safe: the theorem is checked every time)
        cls = type(x)
        if _is_project_module(cls.__module__):
            self.modules.add(cls.__module__)
        return f"{cls.__module__}.{cls.__qualname__}:{x!r}"

    def _term(self, x) -> str:
        import sympy as sp

        from symattn.kernel.terms import canonical

        self._classes(x)
        if not self.canonical:
            return sp.srepr(x)
        from symattn.kernel.definitions import frozen_expansions

        self.expansions.update(frozen_expansions(x))
        try:
            c = canonical(x)
        except Exception:  # noqa: BLE001 - a term canonical cannot handle is described as it is
            c = x
        return sp.srepr(c)

    def _classes(self, x) -> None:
        """Record the project modules of the classes (and undefined functions' classes) in term ``x``."""
        import sympy as sp

        if not isinstance(x, sp.Basic):
            return
        for node in sp.preorder_traversal(x):
            module = type(node).__module__
            if module and not module.startswith("sympy") and _is_project_module(module):
                self.modules.add(module)

    def _rule(self, name: str, args: dict) -> None:
        if self._rules is None:
            from symattn.rules import load_rules

            self._rules = load_rules()
        rule = self._rules.get(name)
        if rule is not None:
            module = getattr(rule.check, "__module__", None)
            if module:
                self.modules.add(module)
        if name == "apply_theorem":
            used = args.get("theorem")
            if isinstance(used, str) and used not in self.lemmas:
                self.lemmas.append(used)


def describe(thm: Any, options: dict) -> tuple[str, set[str], list[str]]:
    """``(text, modules, lemma ids)``: the deterministic description of ``thm`` under the checker's
    ``options`` that its key hashes, the project modules whose source the key must include, and the
    theorems its derivation applies. Building the derivation may raise: the text then says so."""
    dsc = _Describer()
    parts = [
        f"format {FORMAT}",
        "id " + dsc(thm.id),
        "kind " + dsc(thm.kind),
        "target " + dsc(thm.target),
        "statement " + dsc(thm.statement),
        "hypotheses " + dsc(tuple(thm.hypotheses)),
        "dimensions " + dsc(tuple(thm.dimensions)),
        "options " + dsc(dict(options)),
    ]
    try:
        derivation = thm.get_derivation()
    except Exception as exc:  # noqa: BLE001 - the check reports it; the key records it
        derivation = f"<building the derivation raised {type(exc).__name__}: {exc}>"
    if callable(thm.derivation):
        dsc(thm.derivation)  # the builder's code
    parts.append("derivation " + dsc(derivation))
    for name in ("instances", "probabilistic"):
        spec = getattr(thm, name)
        parts.append(f"{name} " + dsc(spec))
    parts.append("numeric " + dsc(thm.numeric))
    # what the kernel unfolds a user's head to: a definition whose expansion reads outside state (an
    # environment variable) changes the key when the expansion does
    parts.append("expansions " + dsc(sorted(dsc.expansions)))
    return "\n".join(parts), dsc.modules, dsc.lemmas


def theorem_key(thm: Any, options: dict, *, lookup=None, memo: dict | None = None, _stack: tuple = ()) -> str:
    """The cache key of ``thm`` under the checker ``options`` (see the module docstring).

    ``lookup(theorem_id)`` finds an applied lemma (default: the registry); ``memo`` maps ids to
    keys already computed. A lemma that cannot be found, or a cycle, enters the key as a marker.
    """
    if memo is not None and thm.id in memo:
        return memo[thm.id]
    if lookup is None:
        from symattn.engine.library import registry

        lookup = registry.get
    text, modules, lemmas = describe(thm, options)
    h = hashlib.sha256(text.encode())
    for digest in _kernel_digests():
        h.update(digest)
    for name in sorted(set(CORE_MODULES) | modules):
        h.update(name.encode() + b"\0" + _source_hash(name))
    for dist, version in sorted(versions().items()):
        h.update(f"{dist}={version}\0".encode())
    for used in lemmas:
        if used == thm.id or used in _stack:
            h.update(f"lemma {used}: cycle\0".encode())
            continue
        try:
            lemma = lookup(used)
        except KeyError:
            h.update(f"lemma {used}: unknown\0".encode())
            continue
        sub = theorem_key(lemma, options, lookup=lookup, memo=memo, _stack=(*_stack, thm.id))
        h.update(f"lemma {used}: {sub}\0".encode())
    key = h.hexdigest()
    if memo is not None:
        memo[thm.id] = key
        memo[("lemmas", thm.id)] = list(lemmas)
    return key


# ---------------------------------------------------------------------------------------------- the quick key
_world: list[bytes] = []


def _project_modules() -> list[str]:
    """Every module of the project packages (:data:`PROJECT_PACKAGES`), by file, loaded or not."""
    names = []
    for package in PROJECT_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        for root in getattr(module, "__path__", []):
            for path in sorted(Path(root).rglob("*.py")):
                parts = path.relative_to(root).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                if all(p.isidentifier() for p in parts):
                    names.append(".".join((package, *parts)))
    return names


def world() -> bytes:
    """A hash of all the project's code (every file of the project packages, loaded or not).
    Memoised per process (:func:`forget_sources` drops it)."""
    if _world:
        return _world[0]
    h = hashlib.sha256(f"format {FORMAT}\0".encode())
    for name in sorted(set(_project_modules()) | set(CORE_MODULES)):
        h.update(name.encode() + b"\0" + _source_hash(name))
    _world.append(h.digest())
    return _world[0]


def quick_key(thm: Any, options: dict) -> str:
    """A key computed without building anything: the theorem's own parts as given (terms by their
    ``srepr``, not canonicalised; callables by name and the data they carry: closure cells, defaults, a
    partial's arguments), :func:`world`, and the source of every module
    outside the project packages that its terms' classes or its callables' code reach (a user's
    file and its helpers). Equal quick keys mean the same code and the same parts, hence the same
    derivation built and the same full key (:func:`theorem_key`): the full key recorded under a
    quick key stands for it."""
    from symattn.kernel.definitions import definitions_text

    dsc = _Describer(canonical=False)
    derivation = thm.derivation if not callable(thm.derivation) else f"built by {dsc(thm.derivation)}"
    text = "\n".join([
        f"quick {FORMAT}", dsc(thm.id), dsc(thm.kind), dsc(thm.target), dsc(thm.statement),
        dsc(tuple(thm.hypotheses)), dsc(tuple(thm.dimensions)), dsc(dict(options)), dsc(derivation),
        dsc(thm.instances), dsc(thm.probabilistic), dsc(thm.numeric),
        # every user definition's expansion as frozen by define() (the derivation is not built here,
        # so the heads it uses are unknown: all of them count)
        "definitions " + definitions_text(),
    ])
    h = hashlib.sha256(world() + text.encode())
    for dist, version in sorted(versions().items()):
        h.update(f"{dist}={version}\0".encode())
    # a derivation names its rules by string, so following a builder's code does not reach the
    # module of a rule it uses: every rule module outside the project packages (a user's) counts,
    # as every user definition does (the derivation is not built here)
    for name in sorted(dsc.modules | _user_rule_modules()):
        if name.split(".", 1)[0] not in PROJECT_PACKAGES:
            h.update(name.encode() + b"\0" + _source_hash(name))
    return h.hexdigest()


def _user_rule_modules() -> set[str]:
    """The modules of the registered rules outside the project packages (a user's rule files)."""
    from symattn.rules import RULES

    modules = {getattr(r.check, "__module__", None) for r in list(RULES.values())}
    return {m for m in modules if m and m.split(".", 1)[0] not in PROJECT_PACKAGES}


# ---------------------------------------------------------------------------------------------- storage
def _user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "symattn"


def _writable(directory: Path) -> bool:
    return directory.is_dir() and os.access(directory, os.W_OK | os.X_OK)


def default_directory(sources: list[str | os.PathLike] | None = None) -> Path:
    """Where the cache lives (see the module docstring): ``$SYMATTN_CACHE_DIR``, else ``.symattn-cache``
    beside the first of ``sources`` (files or directories; default: the library's), else the user
    cache directory."""
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env)
    if sources:
        first = Path(sources[0])
        beside = first if first.is_dir() else first.parent
    else:
        import derivations

        beside = Path(derivations.__file__).resolve().parent.parent
    if _writable(beside):
        return beside / ".symattn-cache"
    return _user_cache_dir()


def disabled_by_environment() -> bool:
    return os.environ.get(ENV_OFF, "").strip().lower() not in ("", "0", "false", "no")


def _atomic_write(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through a temporary file in the same directory and
    :func:`os.replace`: readers see the old file, or the whole new one. False if it failed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:12]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


class Cache:
    """Outcomes by key in ``directory`` (created on the first write)."""

    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = Path(directory) if directory is not None else default_directory()
        self.hits = 0
        self.misses = 0
        self.writes = 0

    def __repr__(self) -> str:
        return f"Cache({str(self.directory)!r})"

    def __getstate__(self):  # sent to worker processes: the directory only
        return {"directory": self.directory}

    def __setstate__(self, state):
        self.__init__(state["directory"])

    @property
    def root(self) -> Path:
        return self.directory / f"v{FORMAT}"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.pickle"

    def get(self, key: str):
        """The outcome stored under ``key`` (marked ``cached``), or None."""
        try:
            with open(self._path(key), "rb") as f:
                entry = pickle.load(f)
            if not isinstance(entry, dict) or entry.get("key") != key:
                raise ValueError("not an entry for this key")
            outcome = entry["outcome"]
        except FileNotFoundError:
            self.misses += 1
            return None
        except Exception:  # noqa: BLE001 - a damaged or incompatible entry is a miss
            self.misses += 1
            return None
        outcome.cached = True
        self.hits += 1
        return outcome

    def put(self, key: str, outcome) -> bool:
        """Store ``outcome`` under ``key`` atomically; False when it cannot be pickled or written."""
        was = getattr(outcome, "cached", False)
        try:
            outcome.cached = False
            data = pickle.dumps({"key": key, "stored": time.time(), "outcome": outcome},
                                protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - an outcome holding something unpicklable is not cached
            return False
        finally:
            outcome.cached = was
        if not _atomic_write(self._path(key), data):
            return False
        self.writes += 1
        return True

    def _index_path(self, quick: str) -> Path:
        return self.root / "quick" / quick[:2] / quick

    def quick_record(self, quick: str) -> dict | None:
        """What was recorded under the quick key ``quick`` (:func:`quick_key`): ``{"key": full key,
        "lemmas": {lemma id: its quick key then}}``, or None."""
        try:
            record = json.loads(self._index_path(quick).read_text())
            key, lemmas = record["key"], record["lemmas"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not (isinstance(key, str) and len(key) == 64 and isinstance(lemmas, dict)):
            return None
        return {"key": key, "lemmas": {str(i): str(q) for i, q in lemmas.items()}}

    def record(self, quick: str, key: str, lemmas: dict[str, str]) -> None:
        """Record (atomically) that quick key ``quick`` stands for full key ``key``, valid while the
        lemmas it applies still have the quick keys ``lemmas``."""
        _atomic_write(self._index_path(quick), json.dumps({"key": key, "lemmas": lemmas}).encode())

    def entries(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(self.root.glob("*/*.pickle"))

    def info(self) -> dict:
        """``directory``, ``entries``, ``bytes`` and older formats' directories still present."""
        files = self.entries()
        older = sorted(p.name for p in self.directory.glob("v*") if p.is_dir() and p.name != self.root.name) \
            if self.directory.is_dir() else []
        return {
            "directory": str(self.directory),
            "format": FORMAT,
            "entries": len(files),
            "bytes": sum(p.stat().st_size for p in files),
            "other_formats": older,
        }

    def clear(self) -> int:
        """Delete every entry (of every format); the number deleted."""
        n = 0
        if not self.directory.is_dir():
            return 0
        for sub in self.directory.glob("v*"):
            if not sub.is_dir():
                continue
            for p in sorted(sub.rglob("*"), key=lambda p: -len(p.parts)):  # files, then directories
                with contextlib.suppress(OSError):
                    if p.is_dir():
                        p.rmdir()
                    else:
                        p.unlink()
                        n += p.suffix == ".pickle"
            with contextlib.suppress(OSError):
                sub.rmdir()
        return n


# ---------------------------------------------------------------------------------------------- the checker's hook
def _cacheable(outcome, checker, lemmas) -> bool:
    """Whether ``outcome`` may be stored: nothing in it, or in the lemmas it rests on, was undecided
    (a time limit depends on the machine's load, not only on the key's contents)."""
    from symattn.engine.verdict import Level, Verdict

    if outcome.verdict is Verdict.UNDECIDED:
        return False
    if any(lv.status is Level.UNDECIDED and not (lv.data.get("kernel_inconclusive") and not lv.data.get("timed_out"))
           for lv in outcome.levels.values()):
        return False  # (the kernel's own instances, inconclusive without a time limit, are deterministic)
    used = set(lemmas) | set(outcome.levels.get("symbolic").data.get("used", ()) if "symbolic" in outcome.levels
                             else ())
    for lemma in used:
        dep = checker._outcomes.get(lemma)
        if dep is None or not getattr(dep, "_cacheable", True):
            return False
    return True


def cached_check(checker, thm, cache: Cache):
    """:meth:`symattn.engine.checker.Checker.check` through ``cache``: the stored outcome of ``thm``'s key if
    there is one (found by its quick key when nothing changed), else a fresh check, stored when it
    is cacheable (:func:`_cacheable`)."""
    from symattn.engine.library import registry
    from symattn.kernel import grading, second

    options = {"time_limit": checker.time_limit, "numeric": checker.numeric, "seed": checker.seed,
               # the second engine on or off, and whether the grading requires its re-check, change outcomes
               "second_engine": second.enabled(), "require_recheck": grading.REQUIRE_RECHECK}
    memo = checker.__dict__.setdefault("_cache_keys", {})
    quick = _quick(thm, options, memo)
    if quick is not None:
        known = _valid_record(cache, quick, options, memo, registry.get, {thm.id})
        outcome = cache.get(known) if known is not None else None
        if outcome is not None:
            checker._outcomes[thm.id] = outcome
            return outcome
    try:
        key = theorem_key(thm, options, lookup=registry.get, memo=memo)
        lemmas = describe_lemmas(thm, memo)
    except Exception:  # noqa: BLE001 - a theorem whose key cannot be computed is simply checked
        return checker._check_fresh(thm)
    outcome = cache.get(key)
    if outcome is None:
        outcome = checker._check_fresh(thm)
        ok = _cacheable(outcome, checker, lemmas)
        outcome._cacheable = ok
        if not (ok and cache.put(key, outcome)):
            return outcome
    else:
        checker._outcomes[thm.id] = outcome
    if quick is not None:
        _record(cache, quick, key, lemmas, options, memo, registry.get)
    return outcome


def _quick(thm, options, memo) -> str | None:
    if ("quick", thm.id) not in memo:
        try:
            memo[("quick", thm.id)] = quick_key(thm, options)
        except Exception:  # noqa: BLE001 - no quick key: the full key decides alone
            memo[("quick", thm.id)] = None
    return memo[("quick", thm.id)]


def _record(cache, quick, key, lemmas, options, memo, lookup) -> None:
    """Record ``quick`` -> ``key`` with the quick keys its lemmas have now (none unknown)."""
    quicks = {}
    for lemma_id in lemmas:
        try:
            q = _quick(lookup(lemma_id), options, memo)
        except KeyError:
            return
        if q is None:
            return
        quicks[lemma_id] = q
    cache.record(quick, key, quicks)


def _valid_record(cache, quick, options, memo, lookup, seen: set) -> str | None:
    """The full key recorded under ``quick`` if every lemma it applies (recursively) still has the
    quick key recorded with it; None otherwise. A lemma's own quick key does not cover the lemmas it
    applies, hence the recursion."""
    record = cache.quick_record(quick)
    if record is None:
        return None
    for lemma_id, then in record["lemmas"].items():
        if lemma_id in seen:
            continue
        try:
            now = _quick(lookup(lemma_id), options, memo)
        except KeyError:
            return None
        if now != then or _valid_record(cache, now, options, memo, lookup, seen | {lemma_id}) is None:
            return None
    return record["key"]


def describe_lemmas(thm, memo) -> list[str]:
    """The lemma ids the key of ``thm`` included (recorded by :func:`theorem_key`)."""
    return memo.get(("lemmas", thm.id), [])


# ---------------------------------------------------------------------------------------------- commands
def add_arguments(parser) -> None:
    """``--no-cache`` and ``--cache-dir``, for the commands that check."""
    parser.add_argument("--no-cache", action="store_true",
                        help="check everything afresh: neither read nor write the cache of outcomes")
    parser.add_argument("--cache-dir", metavar="DIR", default=None,
                        help="the cache of outcomes (default: $SYMATTN_CACHE_DIR, else .symattn-cache beside "
                             "the sources, else the user cache directory)")


def from_args(args) -> Cache | None:
    """The cache a command's arguments ask for (None with ``--no-cache`` or ``SYMATTN_NO_CACHE``)."""
    if getattr(args, "no_cache", False) or disabled_by_environment():
        return None
    directory = getattr(args, "cache_dir", None)
    if directory:
        return Cache(directory)
    sources = [s for s in (getattr(args, "sources", None) or []) if s.endswith(".py") or os.sep in s]
    return Cache(default_directory(sources or None))


# ---------------------------------------------------------------------------------------------- ambient
_ambient: list[Cache] = []


@contextlib.contextmanager
def using(cache: Cache | None):
    """Within the block, a :class:`~symattn.engine.checker.Checker` made without ``cache=`` uses ``cache``."""
    _ambient.append(cache)
    try:
        yield cache
    finally:
        _ambient.pop()


def ambient() -> Cache | None:
    """The cache of the innermost :func:`using` block (None outside any, or when disabled by
    ``SYMATTN_NO_CACHE``)."""
    if not _ambient or disabled_by_environment():
        return None
    return _ambient[-1]
