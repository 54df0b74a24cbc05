"""The public surface of :mod:`numeric`: ``__all__`` and the module namespace agree."""

import importlib
import types

import numeric


def test_all_lists_exactly_the_public_names_of_the_module():
    public = {
        name
        for name, value in vars(numeric).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert sorted(numeric.__all__) == sorted(public)


def test_all_has_no_duplicates_and_every_name_resolves():
    assert len(set(numeric.__all__)) == len(numeric.__all__)
    for name in numeric.__all__:
        assert getattr(numeric, name) is not None


def test_submodules_export_what_they_define():
    for stem in ("linear", "reference", "rope", "tiled", "validation"):
        module = importlib.import_module(f"numeric.{stem}")
        for name in module.__all__:
            value = getattr(module, name)
            # constants (DEFAULT_BLOCK_Q ...) have no __module__; everything else is defined here
            assert getattr(value, "__module__", module.__name__) == module.__name__, name
