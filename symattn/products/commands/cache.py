"""``symattn cache info|clear``: the cache of check outcomes (:mod:`symattn.engine.cache`).

``info`` prints where the cache is, how many outcomes it holds and their size (``--json``: one
object); ``clear`` deletes them. Exit 0; 2 on usage errors.
"""

from __future__ import annotations

import json
import sys

HELP = "show (info) or empty (clear) the cache of check outcomes that check, report and pytest --symattn use"


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("info", "clear"), help="info: where and how big; clear: delete it")
    parser.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="the cache beside these sources (default: the library's)")
    parser.add_argument("--cache-dir", metavar="DIR", default=None, help="this cache directory instead")
    parser.add_argument("--json", action="store_true", help="info as JSON")


def run(args) -> int:
    from symattn.engine.cache import Cache, default_directory

    sources = [s for s in args.sources if s.endswith(".py") or "/" in s]
    if args.sources and not sources:
        print(f"symattn cache: SOURCEs must be .py files or directories, got {args.sources}", file=sys.stderr)
        return 2
    cache = Cache(args.cache_dir or default_directory(sources or None))
    if args.action == "clear":
        n = cache.clear()
        print(f"removed {n} cached outcome{'s' if n != 1 else ''} from {cache.directory}")
        return 0
    info = cache.info()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    size = info["bytes"] / 2**20
    print(f"cache of outcomes: {info['directory']}\n"
          f"format {info['format']}: {info['entries']} outcome{'s' if info['entries'] != 1 else ''}, {size:.1f} MiB")
    if info["other_formats"]:
        print(f"older formats present (never read; `symattn cache clear` removes them): "
              f"{', '.join(info['other_formats'])}")
    return 0
