"""Every rule's tests can tell the rule from one that accepts everything, and the kernel refuses a
converted rule that lies.

A rule converted to a proposer (outside :data:`symattn.rules.UNCONVERTED`) cannot pass a step by saying
so: a mutant that always passes without the kernel's theorem, or with a theorem of another statement
(``lhs = lhs``), must be refused on every invalid step of the tables. For a rule not yet converted,

For each registered rule, some invalid step in the test tables must be rejected with ``fail`` by
the rule, and accepted once the rule is replaced by a mutant that always passes (so the rejection
was the rule's doing, not the chain check's or a time-out's). The invalid steps come from

* the module-level ``INVALID_STEPS`` tables of the rule test modules, each entry
  ``(rule, lhs, rhs, relation, args, hypotheses)``;
* the false claims of the kernel's soundness tables (tests/symattn/kernel), at their failing step;
* every registered derivation (nested ones included), with one step's right side perturbed so the
  step is false (``e -> e + 1`` or ``2 e`` for an equality, ``prev -> prev - 1`` for ``<=``).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil

import pytest
import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

import tests.symattn.kernel as kernel_tests
import tests.symattn.rules as rule_tests
from symattn.derivation import Derivation
from symattn.rules import RULES, UNCONVERTED, ProofContext, check_step, load_rules, passed
from symattn.theorem import load_all, registry
from symattn.verdict import Level


def _tables(package) -> list:
    out = []
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("test_") or info.name == "test_rule_mutants":
            continue
        mod = importlib.import_module(f"{package.__name__}.{info.name}")
        for rule, lhs, rhs, relation, args, hyps in getattr(mod, "INVALID_STEPS", ()):
            out.append((f"{info.name}", rule, lhs, rhs, relation, args, ProofContext(hypotheses=tuple(hyps))))
        for name in ("FALSE_CLAIMS", "INFINITE_FALSE", "DERIVATIVE_FALSE"):
            for claim in getattr(mod, name, ()):
                thm = claim.theorem()
                prev, st = list(thm.get_derivation().pairs())[claim.bad_step - 1]
                ctx = ProofContext(hypotheses=thm.hypotheses, registry=registry)
                out.append((claim.id, st.rule, prev, st.expr, st.relation, st.args, ctx))
    return out


def _perturbed(prev, expr, relation):
    if isinstance(expr, (sp.MatrixBase, MatrixExpr)):
        return 2 * expr if relation == "=" else None
    if not isinstance(expr, sp.Basic):
        expr = sp.sympify(expr, strict=True)
    if relation == "=":
        return expr + 1
    return prev - 1 if relation in ("<=", "<") else prev + 1


def _nested(args) -> list:
    found = []
    for v in args.values():
        for x in (v if isinstance(v, (list, tuple)) else v.values() if isinstance(v, dict) else (v,)):
            if isinstance(x, Derivation):
                found.append(x)
    return found


def _registry_mutants() -> list:
    load_all()
    out = []
    for thm in registry:
        d = thm.get_derivation()
        if d is None:
            continue
        ctx = ProofContext(hypotheses=thm.hypotheses, theorem_id=thm.id, registry=registry)
        todo = [(thm.id, d)]
        while todo:
            label, der = todo.pop()
            for n, (prev, st) in enumerate(der.pairs(), start=1):
                todo += [(f"{label}/{st.rule}", sub) for sub in _nested(st.args)]
                bad = _perturbed(prev, st.expr, st.relation)
                if bad is not None:
                    out.append((f"{label} step {n}", st.rule, prev, bad, st.relation, st.args, ctx))
    return out


def _always_passes(rule):
    return dataclasses.replace(RULES[rule], check=lambda *a, **k: passed("mutant"))


def _status(entry):
    _label, rule, lhs, rhs, relation, args, ctx = entry
    return check_step(lhs, rhs, relation, rule, args, dataclasses.replace(ctx, used=set())).status


@functools.lru_cache(maxsize=1)
def _rejections() -> dict:
    """For each rule, the first invalid step the rule rejects with ``fail`` and its always-pass
    mutant accepts (a rejection by the kernel's own checks, say of an infinite sum, is not the
    rule's, and does not count)."""
    load_rules()
    found: dict = {}
    for entry in _tables(rule_tests) + _tables(kernel_tests) + _registry_mutants():
        rule = entry[1]
        if rule in found or rule not in RULES or _status(entry) is not Level.FAIL:
            continue
        original = RULES[rule]
        RULES[rule] = _always_passes(rule)
        try:
            if _status(entry) is Level.PASS:
                found[rule] = entry
        finally:
            RULES[rule] = original
    return found


def _lying(rule, how):
    from symattn.kernel.thm import refl

    if how == "no theorem":
        return dataclasses.replace(RULES[rule], check=lambda *a, **k: passed("mutant"))
    return dataclasses.replace(RULES[rule], check=lambda lhs, *a, **k: passed("mutant", thm=refl(lhs)))


@pytest.mark.parametrize("how", ["no theorem", "another statement"])
@pytest.mark.parametrize("rule", sorted(set(load_rules()) - UNCONVERTED))
def test_a_converted_rule_that_lies_is_refused_by_the_kernel(rule, how, monkeypatch):
    entries = [e for e in _tables(rule_tests) + _tables(kernel_tests) + _registry_mutants() if e[1] == rule]
    assert entries, f"no invalid step in the test tables uses rule {rule!r}"
    monkeypatch.setitem(RULES, rule, _lying(rule, how))
    for entry in entries:
        assert _status(entry) is not Level.PASS, entry[0]


@pytest.mark.parametrize("rule", sorted(UNCONVERTED))
def test_some_invalid_step_is_rejected_by_the_rule_and_accepted_by_an_always_pass_mutant(rule, monkeypatch):
    found = _rejections()
    assert rule in found, f"no invalid step in the test tables is rejected (fail) by rule {rule!r}"
    assert _status(found[rule]) is Level.FAIL
    monkeypatch.setitem(RULES, rule, _always_passes(rule))
    assert _status(found[rule]) is Level.PASS
