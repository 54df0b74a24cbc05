"""Rules decide nothing: the source of every converted rule module makes no deciding SymPy call.

A rule is an untrusted proposer (see :mod:`symattn.rules`): signs, zeros, limits and sums are decided
by the kernel (:mod:`symattn.kernel`). This test reads the AST of every rule module whose rules are all
converted (none in :data:`symattn.rules.UNCONVERTED`) and of every module outside the kernel that the
proof engine uses to decide, and fails on

* reading an assumption of SymPy's (``x.is_positive``, ``x.is_zero``, ... : any lower-case ``is_``
  attribute; the capitalised structural ones such as ``is_Add`` are data);
* calling a deciding or evaluating function: ``limit``, ``doit``, ``summation``, ``simplify``,
  ``equals``, ``solve``, ``ask``, ``nsimplify``, ``evalf``, ``N``, ``refine``;
* making a symbol (``Symbol``, ``Dummy``, ``symbols``, ``Wild``): fresh names come from the kernel;
* touching the kernel's context (``HYPOTHESES``) or its private token.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pytest

import symattn.rules as rules_pkg
from symattn.rules import RULES, UNCONVERTED, load_rules

CALLS = {"limit", "doit", "summation", "simplify", "equals", "solve", "ask", "nsimplify", "evalf", "N",
         "refine", "Symbol", "Dummy", "symbols", "Wild", "solveset", "limit_seq"}
NAMES = {"HYPOTHESES", "_TOKEN", "_make", "_Body"}


def offences(source: str) -> list[str]:
    """Every deciding use in ``source``, as ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("is_") and node.attr[3:4].islower():
                found.append(f"{node.lineno}: reads .{node.attr}")
            if node.attr in NAMES:
                found.append(f"{node.lineno}: touches {node.attr}")
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if name in CALLS:
                found.append(f"{node.lineno}: calls {name}()")
        if isinstance(node, ast.Name) and node.id in NAMES:
            found.append(f"{node.lineno}: touches {node.id}")
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in NAMES or alias.name in CALLS - {"N"}:
                    found.append(f"{node.lineno}: imports {alias.name}")
    return found


def _converted_modules() -> list[str]:
    load_rules()
    by_module: dict[str, set] = {}
    for name, r in RULES.items():
        by_module.setdefault(r.check.__module__, set()).add(name)
    names = []
    for info in pkgutil.iter_modules(rules_pkg.__path__):
        mod = f"symattn.rules.{info.name}"
        if not (by_module.get(mod, set()) & UNCONVERTED):
            names.append(mod)
    return sorted(names)


@pytest.mark.parametrize("module", _converted_modules())
def test_a_converted_rule_module_makes_no_deciding_call(module):
    source = inspect.getsource(importlib.import_module(module))
    assert offences(source) == [], f"{module} decides by itself"


@pytest.mark.parametrize("snippet, caught", [
    ("if e.is_positive: pass", True),
    ("x = sp.limit(f, t, 0)", True),
    ("y = expr.doit()", True),
    ("z = sp.Symbol('_k')", True),
    ("from sympy import summation", True),
    ("ok = a.equals(b)", True),
    ("from symattn.kernel.zero import HYPOTHESES", True),
    ("if e.is_Add: pass", False),
    ("t = by_zero(a, b)", False),
    ("n = len(expr.args)", False),
])
def test_the_reader_catches_each_kind_of_deciding_call(snippet, caught):
    assert bool(offences(snippet)) is caught


def test_no_rule_is_left_unconverted():
    # the set only shrank, and is now empty: every rule module is read by the test above
    assert UNCONVERTED == frozenset()
