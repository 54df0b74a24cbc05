"""Shared fixtures of the report tests."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def library_build(tmp_path_factory):
    """The library's full report, built once per session (every theorem checked, every figure):
    ``(directory, ReportResult, theorems)``. Used only by tests marked ``slow``."""
    from symattn.report import ReportOptions, build_report
    from symattn.theorem import load_all

    theorems = list(load_all())
    out = tmp_path_factory.mktemp("library") / "reports"
    return out, build_report(ReportOptions(out=out, jobs=os.cpu_count() or 1), theorems=theorems), theorems
