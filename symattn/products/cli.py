"""The ``symattn`` command line: a thin layer that parses arguments and calls the library.

Each subcommand lives in its own module under :mod:`symattn.products.commands` and exposes

* ``HELP``: a one-line description,
* ``add_arguments(parser)``: declare its options on an :class:`argparse.ArgumentParser`,
* ``run(args) -> int``: do the work and return the exit status.

``list``, ``show``, ``check`` and ``report`` also take SOURCEs: a user's ``.py`` files or dotted
module names whose theorems they act on (:mod:`symattn.products.commands.sources`, :mod:`symattn.products.sources`).

Startup is kept short (``symattn --help`` imports neither SymPy nor numpy): command modules import
what they need inside ``run``, and :mod:`symattn` imports its public names on first use.
Environment variables are validated first (:func:`symattn.kernel.environment.environment_errors`).

Exit statuses: 0 success; 1 a check failed (a theorem does not pass by :mod:`symattn.engine.acceptance`:
refuted, below its target, or a configured level not passing), or a SOURCE registers no theorem;
2 a usage error, or a SOURCE that cannot be loaded.
"""

from __future__ import annotations

import argparse
import importlib
import sys

__all__ = ["main", "COMMANDS"]

# Order is the order shown by ``symattn --help``.
COMMANDS = ("list", "show", "check", "report", "audit", "bench", "conform", "cache")


def _load(name: str):
    try:
        return importlib.import_module(f"symattn.products.commands.{name}")
    except ModuleNotFoundError as exc:  # a command whose module is not there yet
        if exc.name == f"symattn.products.commands.{name}":
            return None
        raise


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("symattn")
    except metadata.PackageNotFoundError:  # run from a checkout that is not installed
        from symattn.products import __version__

        return __version__


class _Version(argparse.Action):  # computed only when asked for: --help need not look it up
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="print symattn's version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"symattn {_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="symattn",
        description="Machine-checked mathematics of transformer attention.",
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = _load(name)
        if module is None:
            continue
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    from symattn.kernel.environment import environment_errors

    errors = environment_errors()
    if errors:  # before anything imports the kernel, which reads them
        for line in errors:
            print(f"symattn: {line}", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `symattn audit | head`: the reader left; not an error of ours
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
