"""The ``SOURCE ...`` arguments that ``list``, ``check``, ``report`` and ``show`` share.

Without sources a command acts on the built-in library, as it always did. With sources (``.py``
files or dotted module names, see :mod:`symattn.products.sources`) it acts on the theorems they register,
plus the built-in theorems those use through ``apply_theorem`` (shown as dependencies);
``--with-library`` adds the whole library.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

__all__ = ["add_source_arguments", "Resolved", "resolve"]


def add_source_arguments(parser) -> None:
    parser.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="a .py file or dotted module name registering theorems (default: the library)")
    parser.add_argument("--with-library", action="store_true",
                        help="with SOURCEs: also the whole built-in library")


@dataclass
class Resolved:
    """What a command acts on, and how it should end."""

    theorems: list
    selection: object | None  # symattn.products.sources.Selection, or None for the library alone
    status: int | None = None  # set: stop with this exit status
    empty_sources: tuple = ()

    def dependency_of(self, theorem_id: str) -> list:
        return self.selection.dependency_of.get(theorem_id, []) if self.selection is not None else []

    def origin(self, theorem) -> str | None:
        return self.selection.origin(theorem) if self.selection is not None else None


def resolve(args, prog: str, *, pattern: str | None = None, library: bool = False) -> Resolved:
    """Load ``args.sources`` and select the theorems; errors and warnings go to stderr, one line
    each (or the last lines of a failed import's traceback), and set ``status``. The library is
    loaded when there are no sources, with ``--with-library``, or with ``library=True``; otherwise
    only what the sources use from it (:mod:`symattn.products.sources`)."""
    from symattn.engine.theorem import all_theorems, load_all

    specs = list(getattr(args, "sources", None) or [])
    if not specs:
        if getattr(args, "with_library", False):
            print(f"symattn {prog}: warning: --with-library has no effect without a SOURCE", file=sys.stderr)
        return Resolved(all_theorems(pattern), None)

    from symattn.products.sources import SourceError, load_sources, select

    if library:
        load_all()
    try:
        sources = load_sources(specs)
    except SourceError as exc:
        print(f"symattn {prog}: {exc}", file=sys.stderr)
        return Resolved([], None, status=2)
    empty = tuple(s.name for s in sources if not s.theorems)
    for name in empty:
        print(f"symattn {prog}: warning: {name} registers no theorem", file=sys.stderr)
    selection = select(sources, pattern=pattern, with_library=args.with_library)
    return Resolved(selection.theorems, selection, empty_sources=empty)
