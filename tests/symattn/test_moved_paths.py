"""The module paths of release 0.1 (``symattn.checker``, ``symattn.report.build``, ...) still work for
one release: each warns (``DeprecationWarning``, naming the new path) and *is* the module at the new path,
so identity, ``isinstance`` and monkeypatching are those of the new module. Normal use warns nowhere."""

import json
import subprocess
import sys

import pytest

import symattn

PROBE = r"""
import importlib, json, sys, warnings
import symattn
out = {}
for old, new in sorted(symattn._MOVED.items()):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    out[old] = {"same": module is importlib.import_module(new) and sys.modules[old] is module,
                "warnings": [str(w.message) for w in caught if w.category is DeprecationWarning]}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import symattn.report.build as old_build
import symattn.products.report.build as new_build
out["symattn.report.build"] = {"same": old_build is new_build,
                               "spec": new_build.__spec__.name,
                               "warnings": [str(w.message) for w in caught if w.category is DeprecationWarning]}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def probed():
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("old", sorted(symattn._MOVED))
def test_an_old_path_warns_and_is_the_new_module(probed, old):
    new = symattn._MOVED[old]
    assert probed[old]["same"]
    assert probed[old]["warnings"] == [f"{old} is deprecated and will be removed in the next release: import {new}"]


def test_a_submodule_of_a_moved_package_is_the_one_module_under_its_new_name(probed):
    got = probed["symattn.report.build"]
    assert got["same"] and got["spec"] == "symattn.products.report.build"
    assert "symattn.report.build is deprecated and will be removed in the next release: " \
           "import symattn.products.report.build" in got["warnings"]


def test_the_old_time_limit_path_names_both_the_limits_and_their_validation():
    import symattn.kernel.environment as environment
    import symattn.kernel.timelimit as timelimit

    assert symattn._MOVED["symattn.timelimit"] == "symattn.kernel.timelimit"
    for name in ("time_limit", "TimeLimitExceeded", "TimeLimitUnavailable", "DEFAULT_SECONDS", "seconds_problem",
                 "environment_errors", "environment_value", "check_seconds", "default_seconds", "MAX_SECONDS"):
        assert hasattr(timelimit, name), name
    assert timelimit.seconds_problem is environment.seconds_problem


def test_every_old_path_has_its_alias_module_and_nothing_else_sits_at_the_top():
    from pathlib import Path

    top = Path(symattn.__file__).parent
    aliases = {p.stem for p in top.glob("*.py")} - {"__init__", "__main__"}
    assert aliases == {old.split(".", 1)[1] for old in symattn._MOVED}


@pytest.mark.parametrize("code", [
    "import symattn; from symattn import *",
    "import symattn.products.cli as cli; cli.build_parser().format_help()",
    "import symattn.products.pytest_plugin, symattn.engine.checker, symattn.products.report.build",
])
def test_normal_use_warns_nowhere(code):
    r = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
