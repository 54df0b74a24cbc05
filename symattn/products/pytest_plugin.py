"""pytest plugin: every theorem a source registers is a test item.

Registered through the ``pytest11`` entry point (``symattn.products.pytest_plugin``), so that once symattn
is installed::

    pytest --symattn my_results.py              # repeatable; a .py file or a dotted module name

or, in the project's pytest configuration, ``symattn_sources = my_results.py other.py``, collects
one item per theorem, named ``my_results.py::query_norm_sq_mean``. An item passes by the rule of
:mod:`symattn.engine.acceptance` (its verdict reaches its target and every configured level passes); a
theorem declared with :func:`symattn.engine.acceptance.expect_failure` is a strict ``xfail``. A failing
item shows the failing step, its rule, the residual and the verdict's reason, not a traceback into
the kernel. ``-k``, ``-x`` and pytest-xdist (``-n 2``: each worker loads the sources itself and
collects the same items) work as for any test.

``--with-library`` adds every built-in theorem of :mod:`derivations` (node ids
``symattn-library::<id>``), as ``symattn check --with-library`` does; alone, it collects the library.

Without a source option (or ``--with-library``) the plugin does nothing. Without the installed entry point, load it with
``pytest -p symattn.products.pytest_plugin``.

The library's own per-theorem tests (``tests/test_registry.py``) use :func:`assert_theorem` of this
module, so the built-in theorems and the user's pass or fail by the same rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["LibraryFile", "TheoremFailure", "TheoremItem", "SourceFile", "assert_theorem", "judge"]


def judge(theorem, outcome):
    """The pass/fail rule (:func:`symattn.engine.acceptance.judge`), re-exported for tests."""
    from symattn.engine.acceptance import judge as _judge

    return _judge(theorem, outcome)


class TheoremFailure(pytest.fail.Exception):
    """A theorem did not pass; the message is the description of what went wrong, shown without a
    Python traceback (``pytrace=False``)."""

    def __init__(self, report: str):
        super().__init__(report, pytrace=False)
        self.report = report


def assert_theorem(theorem, outcome, *, expected_failure: bool = False) -> None:
    """Raise :class:`TheoremFailure` with :func:`symattn.engine.acceptance.describe` unless ``outcome``
    passes for ``theorem`` by the rule of :mod:`symattn.engine.acceptance`.

    An expected failure (``xfail``) is not handled here (pytest's marker does that): the rule is
    applied as if it were not declared, so that pytest sees the failure it expects."""
    from symattn.engine.acceptance import describe, problems

    if problems(outcome, theorem.target):
        raise TheoremFailure(describe(theorem, outcome))


# ---------------------------------------------------------------------------------------------- options
def pytest_addoption(parser) -> None:
    group = parser.getgroup("symattn", "symattn: check theorems as tests")
    group.addoption("--symattn", action="append", default=[], metavar="SOURCE", dest="symattn_sources",
                    help="collect every theorem this .py file or dotted module registers (repeatable)")
    group.addoption("--symattn-time-limit", type=float, default=None, metavar="SECONDS", dest="symattn_time_limit",
                    help="limit for each SymPy call of a rule (default: symattn's)")
    group.addoption("--with-library", "--symattn-with-library", action="store_true", default=False,
                    dest="symattn_with_library",
                    help="also collect every built-in theorem of the library (symattn-library::<id>)")
    group.addoption("--symattn-no-cache", action="store_true", default=False, dest="symattn_no_cache",
                    help="check every theorem afresh (do not use the cache of outcomes, symattn.engine.cache)")
    group.addoption("--symattn-cache-dir", default=None, metavar="DIR", dest="symattn_cache_dir",
                    help="the cache of outcomes (default: .symattn-cache beside the first source)")
    parser.addini("symattn_sources", type="args", default=[],
                  help="sources of theorems to collect (paths relative to the configuration file)")


def _specs(config) -> list[tuple[str, str]]:
    """``(spec as given, spec to load)``: command-line paths are relative to the invocation
    directory, configuration paths to the configuration file's directory."""
    out = []
    for spec in config.getoption("symattn_sources") or []:
        out.append((spec, spec))
    base = Path(config.inipath).parent if config.inipath else Path(config.rootpath)
    for spec in config.getini("symattn_sources") or []:
        is_path = spec.endswith(".py") or "/" in spec
        out.append((spec, str(base / spec) if is_path and not Path(spec).is_absolute() else spec))
    return out


def pytest_configure(config) -> None:
    limit = config.getoption("symattn_time_limit", None)
    if limit is not None:  # a usage error before any collection
        from symattn.kernel.environment import seconds_problem

        problem = seconds_problem(limit)
        if problem is not None:
            raise pytest.UsageError(f"--symattn-time-limit {problem}, got {limit}")
    if _specs(config) or config.getoption("symattn_with_library", False):
        from symattn.products.sources import watch_registrations

        # before anything imports a source (--doctest-modules, a conftest): know which file
        # registered which theorem, whoever imports it
        watch_registrations()


def _checker(config):
    from symattn.engine.checker import Checker

    checker = config.stash.get(_CHECKER, None)
    if checker is None:
        limit = config.getoption("symattn_time_limit")
        options = {} if limit is None else {"time_limit": limit}
        checker = Checker(**options, cache=_cache(config))
        config.stash[_CHECKER] = checker
    return checker


_CHECKER = pytest.StashKey[object]()


def _cache(config):
    """The cache of outcomes for this run (None with --symattn-no-cache or SYMATTN_NO_CACHE=1)."""
    from symattn.engine.cache import Cache, default_directory, disabled_by_environment

    if config.getoption("symattn_no_cache") or disabled_by_environment():
        return None
    directory = config.getoption("symattn_cache_dir")
    if directory:
        return Cache(directory)
    paths = [load for _, load in _specs(config) if load.endswith(".py") or "/" in load]
    return Cache(default_directory(paths or None))


# ---------------------------------------------------------------------------------------------- collection
@pytest.hookimpl(tryfirst=True)  # before -k / -m deselect: our items are selected like any other
def pytest_collection_modifyitems(session, config, items) -> None:
    specs = _specs(config)
    with_library = config.getoption("symattn_with_library", False)
    if not specs and not with_library:
        return
    collectors = [SourceFile.for_source(session, spec, shown) for shown, spec in specs]
    if with_library:
        collectors.append(LibraryFile.for_session(session))
    for collector in collectors:  # the library last: it is what the sources' theorems are not
        report = collector.ihook.pytest_make_collect_report(collector=collector)
        collector.ihook.pytest_collectreport(report=report)  # a failed one counts as a collection error
        if report.passed:
            known = {i.nodeid for i in items}
            items.extend(i for i in report.result if i.nodeid not in known)


class SourceError(Exception):
    """Loading a source failed; shown as its one-line message (or the import's last lines)."""


class SourceFile(pytest.File):
    """The theorems of one source."""

    def __init__(self, *, spec: str, **kwargs):
        super().__init__(**kwargs)
        self.spec = spec

    @classmethod
    def for_source(cls, session, spec: str, shown: str) -> SourceFile:
        """The collector of ``spec``, its node id the file's path relative to the rootdir (or the
        source as given, when it lies outside)."""
        path = Path(spec)
        if not (spec.endswith(".py") or "/" in spec):  # a dotted name: find its file, do not import it yet
            import importlib.util

            try:
                found = importlib.util.find_spec(spec)
            except (ImportError, ValueError):
                found = None
            path = Path(found.origin) if found is not None and found.origin else Path(spec.replace(".", "/") + ".py")
        path = path.resolve()
        try:
            nodeid = str(path.relative_to(session.config.rootpath))
        except ValueError:
            nodeid = shown
        return cls.from_parent(session, path=path, nodeid=nodeid.replace("\\", "/"), spec=spec)

    def collect(self):
        from symattn.engine.acceptance import expected_failure
        from symattn.products import sources

        try:
            src = sources.load_source(self.spec)
        except sources.SourceError as exc:
            raise SourceError(str(exc)) from None
        if not src.theorems:
            raise SourceError(f"{src.name} registers no theorem")
        for message in sources.build_errors(src.theorems, [src]).values():
            self.warn(pytest.PytestWarning(message))
        for t in src.theorems:
            item = TheoremItem.from_parent(self, name=t.id, theorem=t, origin=src.locations.get(t.id, ""))
            reason = expected_failure(t)
            if reason is not None:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True, raises=TheoremFailure))
            yield item

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, SourceError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class LibraryFile(pytest.File):
    """The built-in theorems (``--with-library``): every registered theorem no source registered."""

    @classmethod
    def for_session(cls, session) -> LibraryFile:
        import derivations

        path = Path(derivations.__file__).resolve()
        return cls.from_parent(session, path=path, nodeid="symattn-library")

    def collect(self):
        from symattn.engine.acceptance import expected_failure
        from symattn.engine.theorem import all_theorems
        from symattn.products import sources

        theirs = {t.id for src in sources._LOADED.values() for t in src.theorems}
        for t in all_theorems():
            if t.id in theirs:
                continue
            item = TheoremItem.from_parent(self, name=t.id, theorem=t, origin=sources.location_of(t))
            reason = expected_failure(t)
            if reason is not None:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True, raises=TheoremFailure))
            yield item


class TheoremItem(pytest.Item):
    """One theorem, checked at every level and graded by :mod:`symattn.engine.acceptance`."""

    def __init__(self, *, theorem, origin: str = "", **kwargs):
        super().__init__(**kwargs)
        self.theorem = theorem
        self.origin = origin

    def runtest(self) -> None:
        outcome = _checker(self.config).check(self.theorem)
        self.user_properties.append(("symattn_cached", bool(getattr(outcome, "cached", False))))
        assert_theorem(self.theorem, outcome)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, TheoremFailure):
            where = f"{self.origin}: " if self.origin else ""
            return where + excinfo.value.report
        return super().repr_failure(excinfo)

    def reportinfo(self):
        line = None
        if ":" in self.origin:
            tail = self.origin.rsplit(":", 1)[1]
            line = int(tail) - 1 if tail.isdigit() else None
        return self.path, line, f"theorem {self.theorem.id}"
