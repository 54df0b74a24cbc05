"""The library's own test items check theorems through the cache of outcomes (:mod:`symattn.engine.cache`).

During each test here, a :class:`~symattn.engine.checker.Checker` made without ``cache=`` uses the cache in
``$SYMATTN_CACHE_DIR`` or ``.symattn-cache/`` beside the library (``SYMATTN_NO_CACHE=1`` turns it
off). Keys are content hashes, so a theorem a test builds (a false variant, say) has its own entry;
nothing here patches a rule or the kernel behind the keys' back. Tests elsewhere (mutation tests
that do patch the kernel) run without it.
"""

import pytest

from symattn.engine.cache import Cache, using

_CACHE = Cache()


@pytest.fixture(autouse=True)
def _outcome_cache():
    with using(_CACHE):
        yield
