"""The public modules only re-export, and ``__all__`` agrees with what they export."""

import importlib

import pytest


@pytest.mark.parametrize("name", ["symattn", "numeric"])
def test_all_matches_public_namespace(name):
    mod = importlib.import_module(name)
    public = {k for k, v in vars(mod).items() if not k.startswith("_") and not isinstance(v, type(importlib))}
    public |= set(getattr(mod, "_LAZY", ()))  # symattn imports its public names on first use
    assert set(mod.__all__) == public
    for k in mod.__all__:
        assert hasattr(mod, k)
