"""Sources of theorems outside the library: a user's Python file or module, loaded and accounted for.

A *source* is a path to a ``.py`` file or a dotted module name. Loading it:

1. does *not* load the built-in library (importing it would cost more than checking a small file,
   issue 22), yet keeps what loading it first gave:

   * an id the source reuses from the library is still refused, naming both places: the ids of the
     library are known from a static index of its source (:mod:`symattn.engine.library_index`);
     registering an id it holds imports that one library module, whose own registration is then
     the one named. A library module whose ids the index cannot read is imported here, before the
     source;
   * the theorems the source uses through ``apply_theorem`` (and the dependency graph,
     :func:`dependencies`) are found: a lookup by id that misses loads the library once
     (:class:`symattn.engine.library.Registry`).

   What needs the whole library loads it itself: a command without sources, ``--with-library``
   (:func:`select`), ``symattn show`` and ``symattn report``, :func:`isolated`;
2. imports it: a file by its path with :mod:`importlib` under a module name of its own
   (``_symattn_source_<stem>_<hash of the path>``, so two files called ``my_results.py`` do not
   meet), its directory put on ``sys.path`` as ``python my_results.py`` would; a dotted name with
   :func:`importlib.import_module`. Nothing is ever ``exec``'d from a string;
3. records which theorems it registered, and where (``file:line`` of the ``register`` call), and
   its title: the first line of its docstring, else its module name (a second source with the
   same title gets its path appended), which titles the report and heads its theorems' topic.

Everything that can go wrong is a :class:`SourceError` with one line (or, for a source that fails
to import, the last lines of its traceback) naming the source and the theorem:

* the path does not exist, or the module cannot be found;
* importing it raises (the traceback's last lines; the commands exit 2);
* it registers an id that the library or another source already registered (both places named);
* it defines a :class:`~symattn.engine.theorem.Theorem` at module level that it never registers
  (names starting with ``_`` are private and not looked at).

A source that registers no theorem is not an error here (:attr:`Source.theorems` is empty): the
commands warn about it.

>>> import textwrap, tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "one_result.py").write_text(textwrap.dedent('''
...     import sympy as sp
...     from symattn import Derivation, Statement, Theorem, register
...     x = sp.Symbol("x")
...     register(Theorem(id="doctest_square_of_sum", title="(x+1)^2", source="extension",
...                      statement=Statement((x + 1)**2, x**2 + 2*x + 1),
...                      derivation=Derivation((x + 1)**2).eq(x**2 + 2*x + 1, "algebra")))
... '''))
>>> src = load_source(str(d / "one_result.py"))
>>> [t.id for t in src.theorems], src.title, src.locations["doctest_square_of_sum"].endswith("one_result.py:5")
(['doctest_square_of_sum'], 'one_result', True)
>>> forget(src)  # the doctest leaves the registry as it found it
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

__all__ = [
    "Source",
    "SourceError",
    "Selection",
    "load_source",
    "load_sources",
    "select",
    "dependencies",
    "build_errors",
    "location_of",
    "watch_registrations",
    "forget",
    "isolated",
]

#: the symattn package (this module is symattn/products/sources.py): frames and modules inside it are symattn's
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


class SourceError(ValueError):
    """A source could not be loaded; the message names the source (and the theorem, if any)."""


@dataclass
class Source:
    """A loaded source: what it registered and where."""

    spec: str  # as given on the command line
    name: str  # how it is shown: the path as given, or the dotted name
    title: str  # the docstring's first line, else the module name (default report title and topic)
    module: ModuleType
    path: Path | None
    theorems: list = field(default_factory=list)
    #: theorem id -> ``file:line`` of its registration
    locations: dict = field(default_factory=dict)


#: resolved path (or dotted name) -> Source, so that a source named twice, or by the CLI and the
#: plugin in one process, is imported once
_LOADED: dict[str, Source] = {}


def _is_path(spec: str) -> bool:
    return spec.endswith(".py") or os.sep in spec or "/" in spec or os.path.exists(spec)


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _line_of_id(path: Path, theorem_id: str) -> int | None:
    """The line of ``id="theorem_id"`` in a file (how a registration is found after the fact)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for needle in (f'id="{theorem_id}"', f"id='{theorem_id}'", f'"{theorem_id}"', f"'{theorem_id}'"):
        for n, line in enumerate(lines, start=1):
            if needle in line:
                return n
    return None


def location_of(theorem) -> str:
    """Where ``theorem`` was registered: ``file:line`` when known, else its module or topic."""
    site = _SITES.get(theorem.id)
    if site is not None and site[0] is theorem:
        return site[2]
    topic = getattr(theorem, "topic", "")
    module = sys.modules.get(f"derivations.{topic}") if topic else None
    if module is not None and getattr(module, "__file__", None):
        path = Path(module.__file__).resolve()
        line = _line_of_id(path, theorem.id)
        return f"{_shown(path)}:{line}" if line else _shown(path)
    return f"topic {topic!r}" if topic else "an unknown place"


#: theorem id -> (the theorem, the file that registered it, ``file:line``), for every theorem
#: registered since :func:`watch_registrations` (the first :func:`load_source` calls it)
_SITES: dict[str, tuple] = {}


def watch_registrations() -> None:
    """From now on, note where each theorem is registered, and refuse an id that is already taken
    with a :class:`SourceError` naming both places (the registry's own message cannot).

    Idempotent. The pytest plugin calls it before collection, so that a source that something else
    imports first (``--doctest-modules``, a conftest) is still known by the file that registered it.
    """
    from symattn.engine.theorem import Registry, registry

    if "add" in registry.__dict__:
        return
    original = Registry.add

    def add(thm):
        found = _caller()
        site = f"{_shown(Path(found[0]))}:{found[1]}" if found else "an unknown place"
        taken = registry.peek(thm.id)
        if taken is None:
            taken = _library_theorem(thm.id)
        if taken is not None and taken is not thm:
            raise SourceError(
                f"{site}: theorem id {thm.id!r} is already registered at {location_of(taken)}; "
                f"choose another id"
            )
        result = original(registry, thm)
        if found and thm.id not in _SITES:
            _SITES[thm.id] = (thm, str(Path(found[0]).resolve()), site)
        return result

    try:
        registry.add = add  # an instance attribute: shadows Registry.add for the global registry only
    except AttributeError:  # a registry that does not allow it: sources still load, places are guessed
        pass


def _library_theorem(theorem_id: str):
    """The library's theorem ``theorem_id`` if the library has one, importing (only) the module that
    registers it when it is not imported yet (:mod:`symattn.engine.library_index`); else None. A
    module being imported is not imported again: it is the one registering."""
    from symattn.engine.library_index import index
    from symattn.engine.theorem import registry

    module = index().ids.get(theorem_id)
    if module is None or module in sys.modules:
        return registry.peek(theorem_id)
    importlib.import_module(module)
    return registry.peek(theorem_id)


def _import_unsure_library_modules() -> None:
    """Import the library modules whose ids the static index could not read: their ids must be
    registered before a source's, for a reused one to be refused."""
    from symattn.engine.library_index import index

    for module in index().unsure:
        importlib.import_module(module)


def _library_ids_of_others(module_name: str) -> set[str]:
    """The ids of the library's theorems, but those of ``module_name`` (a library module given as a
    source is the source of its own theorems)."""
    from symattn.engine.library_index import index

    return {i for i, m in index().ids.items() if m != module_name}


def _caller() -> tuple[str, int] | None:
    """``(file, line)`` of the innermost frame outside symattn: the ``register`` call of the user."""
    f = sys._getframe(2)
    while f is not None:
        filename = f.f_code.co_filename
        if not filename.startswith("<") and not _in_package(filename):
            return filename, f.f_lineno
        f = f.f_back
    return None


def _registered_in(path: Path | None) -> list:
    """The theorems whose registration was seen in the file ``path``."""
    from symattn.engine.theorem import registry

    if path is None:
        return []
    key = str(path.resolve())
    return [t for t in registry if t.id in _SITES and _SITES[t.id][0] is t and _SITES[t.id][1] == key]


def _tail(exc: BaseException, lines: int = 8) -> str:
    """The last lines of the traceback of ``exc``, without the frames of the import machinery."""
    tb = traceback.TracebackException.from_exception(exc)
    frames = [f for f in tb.stack if not f.filename.startswith("<") and not _in_package(f.filename)]
    tb.stack = traceback.StackSummary.from_list(frames)
    text = "".join(tb.format()).rstrip().splitlines()
    return "\n".join("  " + s for s in text[-lines:])


def _in_package(filename: str) -> bool:
    """Whether a frame's file is symattn's own code (or the import machinery): the user is shown
    their own frames and the exception, not the inside of the kernel."""
    p = str(Path(filename).resolve())
    return p.startswith(str(_PACKAGE_DIR) + os.sep) or f"{os.sep}importlib{os.sep}" in p


def _same_file(filename, path: Path) -> bool:
    try:
        return filename is not None and Path(filename).resolve() == path
    except (OSError, TypeError, ValueError):
        return False


def _import_file(path: Path) -> ModuleType:
    digest = hashlib.sha1(str(path).encode("utf-8")).hexdigest()[:10]
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in path.stem)
    name = f"_symattn_source_{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SourceError(f"{_shown(path)}: not a Python file importlib can load")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    parent = str(path.parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)  # its own helper modules import, as with `python my_results.py`
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _docstring_title(module) -> str | None:
    """The first line of the module's docstring, up to a ``": "`` and without its full stop, if any."""
    doc = getattr(module, "__doc__", None)
    if not isinstance(doc, str):
        return None
    for line in doc.strip().splitlines():
        line = " ".join(line.split())
        if line:
            line = line.split(": ", 1)[0]  # "My results: three statements ..." -> "My results"
            line = line[:-1] if line.endswith(".") and not line.endswith("..") else line
            return line[:100] or None
    return None


def load_source(spec: str) -> Source:
    """Import one source and return what it registered; see the module docstring for errors."""
    from symattn.engine.theorem import Theorem, registry

    if not isinstance(spec, str) or not spec.strip():
        raise SourceError(f"a source must be a path to a .py file or a dotted module name, got {spec!r}")
    watch_registrations()
    if _is_path(spec):
        path = Path(spec).expanduser().resolve()
        key, shown = str(path), _shown(path)
        if not path.exists():
            raise SourceError(f"{spec}: no such file")
        if path.is_dir():
            raise SourceError(f"{spec}: is a directory; name a .py file (or a package by its dotted name)")
        if path.suffix != ".py":
            raise SourceError(f"{spec}: not a .py file")
    else:
        path, key, shown = None, spec, spec
        if not all(part.isidentifier() for part in spec.split(".")):
            raise SourceError(f"{spec}: neither an existing file nor a dotted module name")
    if key in _LOADED:
        return _LOADED[key]
    try:
        _import_unsure_library_modules()
    except Exception as exc:  # noqa: BLE001 - a broken library is named as such
        raise SourceError(f"{shown}: importing the library (to know its theorem ids) failed:\n{_tail(exc)}") from None

    before = {t.id: t for t in registry}
    preloaded = None
    if path is not None:  # imported already, by its path, under another name (pytest's doctests, a conftest)
        preloaded = next((m for m in list(sys.modules.values())
                          if _same_file(getattr(m, "__file__", None), path)), None)
    elif spec in sys.modules:
        preloaded = sys.modules[spec]
    try:
        if preloaded is not None:
            module = preloaded
        elif path is not None:
            module = _import_file(path)
        else:
            module = importlib.import_module(spec)
    except SourceError:
        raise
    except ModuleNotFoundError as exc:
        if path is None and exc.name is not None and (spec == exc.name or spec.startswith(exc.name + ".")):
            raise SourceError(f"{spec}: no such file, and no module of that name can be imported") from None
        raise SourceError(f"{shown}: importing it failed:\n{_tail(exc)}") from None
    except BaseException as exc:  # noqa: BLE001 - SystemExit from a script too; KeyboardInterrupt passes
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise SourceError(f"{shown}: importing it failed:\n{_tail(exc)}") from None

    if path is None and getattr(module, "__file__", None):
        path = Path(module.__file__).resolve()
    title = _docstring_title(module) or (path.stem if _is_path(spec) else spec)
    taken = {src.title for src in _LOADED.values()}
    if title in taken:  # two files called thm.py (or with one docstring title) stay apart in the report
        title = f"{title} ({shown})"
    library = _library_ids_of_others(getattr(module, "__name__", ""))
    # what it registered; the library's modules it imported (or a lookup loaded) registered theirs meanwhile
    new = [t for t in registry if (t.id not in before or before[t.id] is not t) and t.id not in library]
    if preloaded is not None:  # imported before we looked: what its file registered
        new = _registered_in(path) or [
            t for t in registry
            if any(v is t for v in vars(module).values()) or (t.topic and t.topic == spec.removeprefix("derivations."))
        ]
    # a Theorem defined at module level but never registered is almost certainly a mistake
    for attr, value in vars(module).items():
        if attr.startswith("_") or not isinstance(value, Theorem):
            continue
        if registry.peek(value.id) is not value:
            line = _line_of_id(path, value.id) if path is not None else None
            where = f"{shown}:{line}" if line else shown
            raise SourceError(
                f"{where}: theorem {value.id!r} ({attr} = Theorem(...)) is defined but never registered; "
                f"wrap it in register(...) (or name it _{attr} if it is not meant to be checked)"
            )
    locations = {}
    for t in new:
        if not t.topic:
            t.topic = title  # groups the user's theorems under their module in the report
        locations[t.id] = location_of(t)
    src = Source(spec=spec, name=shown, title=title, module=module, path=path, theorems=new, locations=locations)
    _LOADED[key] = src
    return src


def load_sources(specs) -> list[Source]:
    """Load every source, in order (a source named twice is loaded once)."""
    out: list[Source] = []
    for spec in specs:
        src = load_source(spec)
        if all(s is not src for s in out):
            out.append(src)
    return out


@contextmanager
def isolated():
    """Leave the registry, the loaded sources, ``sys.modules`` and ``sys.path`` as they were: for
    tests that load sources (a test of a user's project can use it too)."""
    from symattn.engine import acceptance
    from symattn.engine.theorem import load_all, registry

    load_all()  # the library stays: its modules are imported once, and would not register again
    saved = (dict(registry._theorems), dict(_LOADED), dict(_SITES), dict(acceptance._EXPECTED), list(sys.path))
    modules = set(sys.modules)
    try:
        yield
    finally:
        for store, old in zip((registry._theorems, _LOADED, _SITES, acceptance._EXPECTED), saved):
            store.clear()
            store.update(old)
        added = [str(Path(p).resolve()) + os.sep for p in sys.path if p not in saved[4] and p]
        sys.path[:] = saved[4]
        for name in set(sys.modules) - modules:  # the sources and the helper modules beside them
            where = str(getattr(sys.modules[name], "__file__", None) or "")
            if name.startswith("_symattn_source_") or any(where.startswith(a) for a in added):
                del sys.modules[name]


def forget(src: Source) -> None:
    """Unregister a source's theorems and drop it from the cache (tests and doctests use this to
    leave the registry as they found it)."""
    from symattn.engine.acceptance import _EXPECTED
    from symattn.engine.theorem import registry

    for t in src.theorems:
        if registry.peek(t.id) is t:
            del registry._theorems[t.id]
        if t.id in _EXPECTED and _EXPECTED[t.id][0] is t:
            del _EXPECTED[t.id]
    for key, value in list(_LOADED.items()):
        if value is src:
            del _LOADED[key]
    name = getattr(src.module, "__name__", "")
    if name.startswith("_symattn_source_"):
        sys.modules.pop(name, None)


# ---------------------------------------------------------------------------------------------- selection
def _derivations_in(value):
    """Derivations nested in a rule's arguments (``bounded_induction`` takes two)."""
    from symattn.language.derivation import Derivation

    if isinstance(value, Derivation):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _derivations_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _derivations_in(v)


def _used_ids(theorem) -> list[str]:
    """Ids named by ``apply_theorem`` steps of ``theorem``'s derivation (nested ones included);
    a derivation that cannot be built uses nothing (:func:`build_errors` reports it)."""
    try:
        d = theorem.get_derivation()
    except Exception:  # noqa: BLE001
        return []
    out: list[str] = []
    todo = [d] if d is not None else []
    while todo:
        chain = todo.pop()
        for step in chain.steps:
            if step.rule == "apply_theorem" and isinstance(step.args.get("theorem"), str):
                if step.args["theorem"] not in out:
                    out.append(step.args["theorem"])
            todo.extend(_derivations_in(step.args))
    return out


def dependencies(theorems) -> dict[str, list[str]]:
    """The theorems ``theorems`` use through ``apply_theorem``, transitively, that are not among
    them: ``{dependency id: [ids of the theorems that use it]}``, in first-use order."""
    from symattn.engine.theorem import registry

    chosen = {t.id for t in theorems}
    users: dict[str, list[str]] = {}
    todo = list(theorems)
    seen = set(chosen)
    while todo:
        t = todo.pop(0)
        for dep in _used_ids(t):
            if dep not in chosen:
                users.setdefault(dep, [])
                if t.id not in users[dep]:
                    users[dep].append(t.id)
            if dep not in seen and dep in registry:
                seen.add(dep)
                todo.append(registry.get(dep))
    return {k: v for k, v in users.items() if k in registry}


@dataclass
class Selection:
    """What a command acts on: the chosen theorems, then the dependencies they pull in."""

    theorems: list  # chosen theorems first, then dependencies
    dependency_of: dict  # dependency id -> ids that use it
    sources: list

    @property
    def chosen(self) -> list:
        return [t for t in self.theorems if t.id not in self.dependency_of]

    def origin(self, theorem) -> str:
        for src in self.sources:
            if theorem.id in src.locations and any(t is theorem for t in src.theorems):
                return src.locations[theorem.id]
        return location_of(theorem)


def select(sources: list[Source], *, pattern: str | None = None, with_library: bool = False) -> Selection:
    """The theorems of ``sources`` (and of the whole library with ``with_library``) matching
    ``pattern`` (as ``-k``), followed by the built-in theorems they use through ``apply_theorem``."""
    from symattn.engine.theorem import load_all, registry

    own = [t for src in sources for t in src.theorems]
    if with_library:
        load_all()
        own_ids = {t.id for t in own}
        pool = [t for t in registry if t.id not in own_ids] + own
    else:
        pool = own
    if pattern:
        matching = {t.id for t in registry.select(pattern)}
        pool = [t for t in pool if t.id in matching]
    deps = dependencies(pool)
    return Selection(pool + [registry.get(i) for i in deps], deps, list(sources))


def build_errors(theorems, sources: list[Source]) -> dict[str, str]:
    """``{theorem id: one-line error}`` for every theorem whose derivation raises while being built,
    naming the place in the source where it raised (``file:line``) and the theorem."""
    out = {}
    for t in theorems:
        if not callable(t.derivation):
            continue
        try:
            t.get_derivation()
        except Exception as exc:  # noqa: BLE001 - reported, one line
            out[t.id] = f"{_raise_site(exc, sources) or location_of(t)}: theorem {t.id!r}: building its " \
                        f"derivation raised {type(exc).__name__}: {' '.join(str(exc).split())}"
    return out


def _raise_site(exc: BaseException, sources: list[Source]) -> str | None:
    """``file:line`` of the innermost frame of ``exc`` in one of the sources (else outside symattn)."""
    paths = {s.path for s in sources if s.path is not None}
    frames = traceback.extract_tb(exc.__traceback__)
    for f in reversed(frames):
        p = Path(f.filename).resolve()
        if p in paths:
            return f"{_shown(p)}:{f.lineno}"
    for f in reversed(frames):
        p = Path(f.filename).resolve()
        if not str(p).startswith(str(_PACKAGE_DIR) + os.sep) and p.exists():
            return f"{_shown(p)}:{f.lineno}"
    return None
