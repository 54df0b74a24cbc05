"""The axiom table: every schema the core accepts instances of, each with its side conditions.

A schema is a function of the core (defined in :mod:`symattn.kernel.schemas`, one module per family)
that, given the parameters of an instance, builds the instance ``lhs REL rhs`` itself and discharges
its side conditions with the core's own tests (:mod:`.zero`, :mod:`.sign`, :mod:`.sums`), raising
:class:`~symattn.kernel.terms.KernelError` when one does not hold. :func:`axiom` is the only way from
a schema to a :class:`~symattn.kernel.thm.Thm`. A rule names the schema and the parameters; it never
builds the instance.

The table is :data:`SCHEMAS`; :func:`table` lists it (name, family, statement) for the docs, the README
and the report.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from symattn.kernel.terms import KernelError

__all__ = ["SCHEMAS", "Schema", "schema", "axiom", "table"]


@dataclass(frozen=True)
class Schema:
    name: str
    family: str
    statement: str
    build: Callable


SCHEMAS: dict[str, Schema] = {}


def schema(name: str, statement: str):
    """Register a schema of the core (only modules of :mod:`symattn.kernel.schemas` may)."""

    def register(fn):
        module = fn.__module__
        if not module.startswith("symattn.kernel.schemas."):
            raise KernelError(f"schema {name!r}: only the core's schema modules register schemas, not {module}")
        if name in SCHEMAS:
            raise KernelError(f"schema {name!r} registered twice")
        SCHEMAS[name] = Schema(name, module.rsplit(".", 1)[-1], statement, fn)
        return fn

    return register


_loaded = [False]


def _load() -> None:
    if _loaded[0]:
        return
    from symattn.kernel import schemas

    for info in sorted(pkgutil.iter_modules(schemas.__path__), key=lambda i: i.name):
        importlib.import_module(f"symattn.kernel.schemas.{info.name}")
    _loaded[0] = True


def axiom(name: str, **params):
    """The instance of schema ``name`` at ``params``, as a theorem (its side conditions discharged)."""
    from symattn.kernel.thm import _make, _take_checks

    _load()
    s = SCHEMAS.get(name)
    if s is None:
        raise KernelError(f"no axiom schema {name!r} (the table has {sorted(SCHEMAS)})")
    _take_checks()
    lhs, rhs, relation = s.build(**params)
    return _make(lhs, rhs, relation, f"axiom {name}", _take_checks())


def table() -> list[Schema]:
    """The schemas, by family then name."""
    _load()
    return sorted(SCHEMAS.values(), key=lambda s: (s.family, s.name))
