"""The public modules only re-export, and ``__all__`` agrees with what they export."""

import importlib

import pytest


@pytest.mark.parametrize("name", ["symattn", "numeric"])
def test_all_matches_public_namespace(name):
    mod = importlib.import_module(name)
    public = {k for k, v in vars(mod).items() if not k.startswith("_") and not isinstance(v, type(importlib))}
    assert set(mod.__all__) == public
    for k in mod.__all__:
        assert hasattr(mod, k)
