"""Every rule's tests can tell the rule from one that accepts everything, and the kernel refuses a
converted rule that lies.

Every rule is a proposer (:data:`symattn.rules.UNCONVERTED` is empty) and cannot pass a step by saying
so: a mutant that always passes without the kernel's theorem, or with a theorem of another statement
(``lhs = lhs``), must be refused on every invalid step of the tables. The invalid steps come from

* the module-level ``INVALID_STEPS`` tables of the rule test modules, each entry
  ``(rule, lhs, rhs, relation, args, hypotheses)``;
* the false claims of the kernel's soundness tables (tests/symattn/kernel), at their failing step;
* every registered derivation (nested ones included), with one step's right side perturbed so the
  step is false (``e -> e + 1`` or ``2 e`` for an equality, ``prev -> prev - 1`` for ``<=``).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest
import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

import tests.symattn.kernel as kernel_tests
import tests.symattn.rules as rule_tests
from symattn.engine.theorem import load_all, registry
from symattn.engine.verdict import Level
from symattn.language.derivation import Derivation
from symattn.rules import RULES, UNCONVERTED, ProofContext, check_step, load_rules, passed


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


def _status(entry):
    _label, rule, lhs, rhs, relation, args, ctx = entry
    return check_step(lhs, rhs, relation, rule, args, dataclasses.replace(ctx, used=set())).status


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


def test_every_rule_is_a_proposer():
    # no rule decides a step itself any more: check_step has no path for a pass without a theorem
    assert UNCONVERTED == frozenset()


@pytest.mark.parametrize("rule_name", ["algebra", "matrix_entrywise", "block_diagonal_product"])
def test_the_grading_never_proves_a_step_passed_without_the_kernels_theorem(rule_name, monkeypatch):
    # even if a pass with no theorem slipped past check_step, the checker's symbolic level refuses it
    import symattn.engine.checker as checker
    from symattn.engine.checker import Checker
    from symattn.engine.theorem import Theorem
    from symattn.engine.verdict import Verdict
    from symattn.language.statement import Statement
    from symattn.rules import RuleResult

    x = sp.Symbol("x", real=True)
    monkeypatch.setattr(checker, "check_step", lambda *a, **k: RuleResult(Level.PASS, "mutant"))
    thm = Theorem(id="false_one_is_two", title="(false)", statement=Statement(x + 1, x + 2), source="extension",
                  derivation=lambda: Derivation(x + 1).eq(x + 2, rule_name))
    out = Checker(numeric=False).check(thm)
    assert out.levels["symbolic"].status is Level.FAIL
    assert out.verdict is not Verdict.PROVED
