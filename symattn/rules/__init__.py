"""Proof rules: untrusted proposers of the kernel's theorems.

A rule is a function ``check(lhs, rhs, relation, ctx, **args) -> RuleResult`` registered under a
name with :func:`rule`. A rule decides nothing: it chooses which of the kernel's primitives to apply
where (:mod:`symattn.kernel.thm`: the zero test, the sign test, rewriting, axiom schemas, hypotheses,
lemmas) and returns :func:`proved` with the kernel's :class:`~symattn.kernel.thm.Thm`. :func:`check_step`
accepts the step only when that ``Thm`` states exactly the step (:func:`symattn.kernel.thm.accept`); a
``pass`` without one fails. A rule returns ``fail`` with a reason when the step is not an application of
the rule, and ``undecided`` when a kernel call ran out of time. ``tests/symattn/rules/
test_rules_decide_nothing.py`` reads the source of every rule and fails on a deciding SymPy call
(``is_positive`` and its kin, ``limit``, ``doit``, ``summation``, ``simplify``, ``equals``, ``solve``,
making symbols).

Families of rules live in one module each (:mod:`.algebra`, :mod:`.definitions`, :mod:`.sums`,
:mod:`.substitution`, :mod:`.theorems`, ...); importing this package registers them all.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from symattn.kernel import ledger
from symattn.kernel.lemmas import REGISTRY, LemmaUse
from symattn.kernel.sums import check_finite
from symattn.kernel.terms import KernelError, canonical
from symattn.kernel.thm import accept
from symattn.kernel.timelimit import DEFAULT_SECONDS, TimeLimitExceeded, time_limit
from symattn.kernel.verdict import Level
from symattn.kernel.wellformed import check_term, check_terms
from symattn.kernel.zero import (
    HYPOTHESES,
    IntegerBound,
    UnknownDomain,
    side_singularities,
    singular_message,
    undischarged,
)

__all__ = [
    "RuleResult",
    "RuleError",
    "ProofContext",
    "rule",
    "RULES",
    "check_step",
    "passed",
    "proved",
    "failed",
]


@dataclass(frozen=True)
class RuleResult:
    status: Level
    reason: str = ""
    #: the kernel's theorem stating the step (a pass without one is refused by check_step)
    thm: Any = None
    #: the decision records of the engines that checked the step (see symattn.kernel.ledger)
    checks: tuple = ()

    @property
    def ok(self) -> bool:
        return self.status is Level.PASS


def proved(thm: Any, reason: str = "") -> RuleResult:
    """The step holds: ``thm`` is the kernel's theorem stating it (``reason`` says how it was found)."""
    return RuleResult(Level.PASS, reason or getattr(thm, "why", ""), thm=thm)


def passed(reason: str = "", thm: Any = None) -> RuleResult:
    return RuleResult(Level.PASS, reason, thm=thm)


def failed(reason: str) -> RuleResult:
    return RuleResult(Level.FAIL, reason)


#: Raised inside a rule (or the kernel) when the step is not a valid application; becomes ``fail``.
RuleError = KernelError


def _require_equality(relation: str, what: str) -> None:
    """Raise :class:`RuleError` unless the step is an equality (``what`` names the rule in the message)."""
    if relation != "=":
        raise RuleError(f"{what} justifies equalities only; this step is {relation!r}")


def _rewrite_to_fixpoint(expr: Any, step: Callable[[Any], Any], rounds: int) -> Any:
    """Apply ``step`` until ``expr`` stops changing, at most ``rounds`` times; the last result."""
    for _ in range(rounds):
        new = step(expr)
        if new == expr:
            return expr
        expr = new
    return expr


@dataclass
class ProofContext:
    """What a rule may consult: the theorem's hypotheses, and the registry for ``apply_theorem``."""

    hypotheses: tuple = ()
    theorem_id: str = ""
    time_limit: float = DEFAULT_SECONDS
    registry: Any = None
    #: theorem ids used through ``apply_theorem`` (the checker caps the verdict by theirs)
    used: set = field(default_factory=set)
    #: ids of theorems being checked further up (cycle detection)
    stack: tuple = ()
    #: callback ``(theorem_id) -> Verdict`` supplied by the checker
    verdict_of: Callable[[str], Any] | None = None

    def hypothesis(self, name: str):
        for h in self.hypotheses:
            if h.name == name:
                return h
        raise RuleError(f"no hypothesis named {name!r} (have: {[h.name for h in self.hypotheses]})")

    def of_type(self, kind: type) -> list:
        return [h for h in self.hypotheses if isinstance(h, kind)]


@dataclass(frozen=True)
class Rule:
    name: str
    check: Callable[..., RuleResult]
    summary: str
    params: tuple = ()


RULES: dict[str, Rule] = {}

#: rules not yet converted to proposers (their pass their own decision). Empty: every rule hands the
#: kernel's Thm, and :func:`check_step` takes a pass only with a Thm that states the step. Kept (empty, a
#: test pins it) so that the tests reading it keep their meaning.
UNCONVERTED: frozenset = frozenset()


def rule(name: str, summary: str, params: tuple = ()):
    """Register ``fn`` as the checker of rule ``name``."""

    def register(fn):
        if name in RULES:
            raise ValueError(f"rule {name!r} registered twice")
        RULES[name] = Rule(name, fn, summary, tuple(params))
        return fn

    return register


#: the kernel's private names: a rule that uses one forges what only the primitives may make
_PRIVATE = frozenset({"_make", "_TOKEN", "_Body", "HYPOTHESES", "REGISTRY", "_RECORDS"})


@functools.cache
def _forging(module: str) -> str:
    """The kernel-private names the source of a rule's module uses ('' when none, or no source)."""
    import ast
    import inspect
    import sys

    mod = sys.modules.get(module)
    try:
        tree = ast.parse(inspect.getsource(mod))
    except (OSError, TypeError, SyntaxError):
        return ""
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    used |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    return ", ".join(sorted(used & _PRIVATE))


def check_step(lhs: Any, rhs: Any, relation: str, rule_name: str, args: dict, ctx: ProofContext) -> RuleResult:
    """Check one step with its rule, under the context's time limit."""
    _load_rule_modules()
    r = RULES.get(rule_name)
    if r is None:
        import difflib

        close = difflib.get_close_matches(str(rule_name), list(RULES), n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(map(repr, close))}?" if close else f"known rules: {sorted(RULES)}"
        return failed(f"unknown rule {rule_name!r}; {hint}")
    module = getattr(r.check, "__module__", "") or ""
    if not module.startswith("symattn.kernel.") and (bad := _forging(module)):
        return failed(f"rule {rule_name!r} (module {module}) uses the kernel's private {bad}: a rule may only "
                      "call the kernel's primitives, never make a theorem itself")
    if r.params:
        unknown = set(args) - set(r.params)
        if unknown:
            return failed(f"rule {rule_name!r} does not take arguments {sorted(unknown)}; it takes {list(r.params)}")
    token = HYPOTHESES.set(tuple(ctx.hypotheses))
    reg_token = REGISTRY.set(ctx.registry)
    try:
        with time_limit(ctx.time_limit):
            # every node a class whose equality, hashing and arithmetic are SymPy's, and no float
            check_term(lhs, "the step's left side")
            check_term(rhs, "the step's right side")
            check_terms([x for v in args.values() for x in (v if isinstance(v, (tuple, list)) else (v,))
                         if isinstance(x, (sp.Basic, sp.MatrixBase))], "an argument of the step")
            raw_lhs, raw_rhs = lhs, rhs
            # the term layer first: bound variables become canonical dummies knowing only their range
            lhs, rhs = canonical(lhs), canonical(rhs)
            # no theorem of the library needs an infinite sum, and none of the rules knows the
            # convergence conditions (linearity, interchange, splitting all need them)
            check_finite(lhs, f"{rule_name} (every rule)")
            check_finite(rhs, f"{rule_name} (every rule)")
            args = {k: _canonical_arg(v) for k, v in args.items()}
            ledger.take()
            result = r.check(lhs, rhs, relation, ctx, **args)
            if isinstance(result, RuleResult) and result.ok and not accept(result.thm, lhs, rhs, relation):
                what = ("no theorem of the kernel" if result.thm is None
                        else f"the kernel's theorem {result.thm!r}, which is not this step")
                result = failed(f"{rule_name}: the rule proposed {what}; a step is taken only when the kernel "
                                "has shown it")
            if isinstance(result, RuleResult) and result.ok:
                singular = side_singularities(raw_lhs, raw_rhs, ctx.hypotheses)
                if singular:
                    result = failed(f"{rule_name}: {singular_message(singular)}")
            if isinstance(result, RuleResult) and result.ok:
                def same(f, g, r=r, args=args):  # the step's rule rewrites one condition into the other
                    res = r.check(f, g, "=", ctx, **args)
                    return isinstance(res, RuleResult) and res.ok and accept(res.thm, f, g, "=")

                missing = undischarged(lhs, rhs, ctx.hypotheses, same=same)
                if missing:
                    conds = " and ".join(sp.sstr(m) if isinstance(m, (UnknownDomain, IntegerBound))
                                         else f"{sp.sstr(m)} != 0" for m in missing)
                    how = ("rewrite the step so both sides keep the application" if all(
                        isinstance(m, UnknownDomain) for m in missing)
                        else "the kernel's sums run over integer ranges: declare the bound integer, or state "
                        "it whole (an integer T = N/B, Eq(Mod(n, b), 0))" if all(
                            isinstance(m, IntegerBound) for m in missing)
                        else "add the hypothesis or declare the symbols nonzero/positive")
                    result = failed(
                        f"{rule_name}: the sides are not defined at the same points; the step holds only "
                        f"where {conds}: {how}"
                    )
    except TimeLimitExceeded as exc:
        return RuleResult(Level.UNDECIDED, f"{rule_name}: {exc}")
    except RuleError as exc:
        return failed(f"{rule_name}: {exc}")
    except RecursionError:
        return RuleResult(Level.UNDECIDED, f"{rule_name}: expression too deep for SymPy")
    except StopIteration:  # raised by some SymPy simplifications of sums; a rule that did not finish
        return failed(f"{rule_name}: SymPy could not complete the check (StopIteration inside SymPy)")
    except TypeError as exc:
        if "unexpected keyword argument" in str(exc) or "missing" in str(exc):
            return failed(f"{rule_name}: bad arguments: {exc}")
        return failed(f"{rule_name}: could not apply: {type(exc).__name__}: {exc}")
    except (ValueError, NotImplementedError, AttributeError, IndexError, KeyError) as exc:
        return failed(f"{rule_name}: could not apply: {type(exc).__name__}: {exc}")
    finally:
        HYPOTHESES.reset(token)
        REGISTRY.reset(reg_token)
    if not isinstance(result, RuleResult):  # a rule bug must not read as a pass
        return failed(f"rule {rule_name!r} returned {result!r}, not a RuleResult")
    if result.ok:
        from dataclasses import replace

        result = replace(result, checks=tuple(result.thm.checks) + ledger.take())
        # the lemmas the kernel instantiated cap the verdict, whatever the rule reported
        ctx.used.update(c.theorem_id for c in result.checks if isinstance(c, LemmaUse))
    return result


def _canonical_arg(v: Any) -> Any:
    if isinstance(v, (sp.Basic, sp.MatrixBase)):
        return canonical(v)
    if isinstance(v, dict):
        return {k: _canonical_arg(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return type(v)(_canonical_arg(x) for x in v)
    return v


_loaded = [False]


def _load_rule_modules() -> None:
    """Import every module of this package (each registers its family of rules)."""
    if _loaded[0]:
        return
    import pkgutil

    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    _loaded[0] = True


def load_rules() -> dict[str, Rule]:
    """All registered rules, by name."""
    _load_rule_modules()
    return dict(RULES)
