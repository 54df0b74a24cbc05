"""Shared fixtures of the report tests."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def library_build(tmp_path_factory):
    """The library's full report, built once per session (every theorem checked, every figure):
    ``(directory, ReportResult, theorems)``. Used only by tests marked ``slow``."""
    from symattn.engine.cache import Cache, using
    from symattn.engine.theorem import load_all
    from symattn.products.report import ReportOptions, build_report

    theorems = list(load_all())
    out = tmp_path_factory.mktemp("library") / "reports"
    # the outcomes through the content-addressed cache the registry's and the derivations' items use
    # (tests/test_registry.py): a theorem another item of the session already checked is not checked
    # again, and one checked here first is not checked again there
    with using(Cache()):
        result = build_report(ReportOptions(out=out, jobs=os.cpu_count() or 1), theorems=theorems)
    return out, result, theorems
