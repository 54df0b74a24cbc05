"""The registry of theorems: theorems by id, in registration order, and the import of the library
(:func:`load_all`, every module of :mod:`derivations`).

It stores what :func:`register` is given (a :class:`symattn.engine.theorem.Theorem`) and reads only its
``id``, ``topic`` and ``order``; the checker looks lemmas up here, and :mod:`symattn.engine.theorem`
re-exports it.

The library is loaded *lazily* by the global :data:`registry`: a lookup by id that misses
(:meth:`Registry.get`, ``in``) imports the library once (:func:`load_all`) and looks again, so that a
user's theorem applying a library theorem by id finds it without anyone loading the library first
(issue 22: importing it dominated ``symattn check user.py``). Iterating, ``len`` and
:meth:`Registry.select` see what is registered so far: whoever needs the whole library calls
:func:`load_all` (or :func:`all_theorems`). :meth:`Registry.peek` looks up without loading.
"""

from __future__ import annotations

import fnmatch
import importlib
import pkgutil
import re
import sys
from typing import Any

__all__ = ["Registry", "registry", "register", "load_all", "all_theorems"]


class Registry:
    """Theorems by id, in registration order."""

    def __init__(self, *, on_miss: Any = None) -> None:
        self._theorems: dict[str, Any] = {}
        #: called (once) on the first lookup by id that misses; the global registry's loads the library
        self._on_miss = on_miss

    def add(self, thm: Any) -> Any:
        if thm.id in self._theorems and self._theorems[thm.id] is not thm:
            raise ValueError(f"theorem id {thm.id!r} registered twice")
        thm.order = len(self._theorems) if thm.id not in self._theorems else thm.order
        self._theorems[thm.id] = thm
        return thm

    def get(self, theorem_id: str) -> Any:
        """The theorem ``theorem_id``; on a miss the library is loaded (once) and looked in."""
        thm = self._theorems.get(theorem_id)
        if thm is None and self._missed():
            thm = self._theorems.get(theorem_id)
        if thm is None:
            raise KeyError(f"no theorem with id {theorem_id!r}")
        return thm

    def peek(self, theorem_id: str) -> Any:
        """The theorem registered so far under ``theorem_id``, else None: never loads the library."""
        return self._theorems.get(theorem_id)

    def __contains__(self, theorem_id: str) -> bool:
        return theorem_id in self._theorems or (self._missed() and theorem_id in self._theorems)

    def _missed(self) -> bool:
        """Run the hook of the first miss, if it has not run: True if it ran now."""
        hook, self._on_miss = self._on_miss, None
        if hook is None:
            return False
        hook()
        return True

    def __iter__(self):
        return iter(self._theorems.values())

    def __len__(self) -> int:
        return len(self._theorems)

    def select(self, pattern: str | None = None) -> list:
        """Theorems whose id (or topic) matches ``pattern``: a regular expression searched in the
        id, or a shell glob; ``|`` separates alternatives."""
        if not pattern:
            return list(self)
        try:
            rx = re.compile(pattern)
        except re.error:
            rx = None
        out = []
        for t in self:
            if rx is not None and (rx.search(t.id) or rx.search(t.topic)):
                out.append(t)
            elif fnmatch.fnmatch(t.id, pattern):
                out.append(t)
        return out


registry = Registry()  # its hook of the first miss, load_all, is set below


def register(thm: Any) -> Any:
    """Add ``thm`` to the global registry and return it."""
    if not thm.topic:
        thm.topic = _caller_topic()
    return registry.add(thm)


def _caller_topic() -> str:
    # The frames of the callers two to five levels up (as ``inspect.stack()[2:6]``, without the cost
    # of ``inspect.stack``, which reads every frame's source file: seconds for the library's imports).
    try:
        frame = sys._getframe(2)
    except ValueError:
        return ""
    for _ in range(4):
        if frame is None:
            break
        mod = frame.f_globals.get("__name__", "")
        if mod.startswith("derivations."):
            return mod.split(".", 1)[1]
        frame = frame.f_back
    return ""


def load_all() -> Registry:
    """Import every module of :mod:`derivations`, registering their theorems."""
    import derivations

    registry._on_miss = None  # loaded explicitly: a miss from now on (or while loading) is a miss
    for info in sorted(pkgutil.iter_modules(derivations.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"derivations.{info.name}")
    return registry


def all_theorems(pattern: str | None = None) -> list:
    load_all()
    return registry.select(pattern)


registry._on_miss = load_all
