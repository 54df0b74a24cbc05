"""Proof rules: small checkers that decide whether ``lhs -> rhs`` is a valid step.

A rule is a function ``check(lhs, rhs, relation, ctx, **args) -> RuleResult`` registered under a
name with :func:`rule`. It returns ``pass`` only when it has *verified* the step; it returns
``fail`` with a reason when the step is not an application of the rule (or is false), and
``undecided`` when a SymPy call ran out of time. A rule never falls back to floating point.

Families of rules live in one module each (:mod:`.algebra`, :mod:`.definitions`, :mod:`.sums`,
:mod:`.substitution`, :mod:`.theorems`, ...); importing this package registers them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from symattn.kernel.sums import check_finite
from symattn.kernel.terms import KernelError, canonical
from symattn.kernel.zero import HYPOTHESES, undischarged
from symattn.timelimit import DEFAULT_SECONDS, TimeLimitExceeded, time_limit
from symattn.verdict import Level

__all__ = [
    "RuleResult",
    "RuleError",
    "ProofContext",
    "rule",
    "RULES",
    "check_step",
    "passed",
    "failed",
]


@dataclass(frozen=True)
class RuleResult:
    status: Level
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status is Level.PASS


def passed(reason: str = "") -> RuleResult:
    return RuleResult(Level.PASS, reason)


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


def rule(name: str, summary: str, params: tuple = ()):
    """Register ``fn`` as the checker of rule ``name``."""

    def register(fn):
        if name in RULES:
            raise ValueError(f"rule {name!r} registered twice")
        RULES[name] = Rule(name, fn, summary, tuple(params))
        return fn

    return register


def check_step(lhs: Any, rhs: Any, relation: str, rule_name: str, args: dict, ctx: ProofContext) -> RuleResult:
    """Check one step with its rule, under the context's time limit."""
    _load_rule_modules()
    r = RULES.get(rule_name)
    if r is None:
        return failed(f"unknown rule {rule_name!r}; known rules: {sorted(RULES)}")
    if r.params:
        unknown = set(args) - set(r.params)
        if unknown:
            return failed(f"rule {rule_name!r} does not take arguments {sorted(unknown)}; it takes {list(r.params)}")
    token = HYPOTHESES.set(tuple(ctx.hypotheses))
    try:
        with time_limit(ctx.time_limit):
            # the term layer first: bound variables become canonical dummies knowing only their range
            lhs, rhs = canonical(lhs), canonical(rhs)
            # no theorem of the library needs an infinite sum, and none of the rules knows the
            # convergence conditions (linearity, interchange, splitting all need them)
            check_finite(lhs, f"{rule_name} (every rule)")
            check_finite(rhs, f"{rule_name} (every rule)")
            args = {k: _canonical_arg(v) for k, v in args.items()}
            result = r.check(lhs, rhs, relation, ctx, **args)
            if isinstance(result, RuleResult) and result.ok:
                def same(f, g, r=r, args=args):  # the step's rule rewrites one condition into the other
                    res = r.check(f, g, "=", ctx, **args)
                    return isinstance(res, RuleResult) and res.ok

                missing = undischarged(lhs, rhs, ctx.hypotheses, same=same)
                if missing:
                    conds = " and ".join(f"{sp.sstr(m)} != 0" for m in missing)
                    result = failed(
                        f"{rule_name}: the sides are not defined at the same points; the step holds only "
                        f"where {conds}: add the hypothesis or declare the symbols nonzero/positive"
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
    if not isinstance(result, RuleResult):  # a rule bug must not read as a pass
        return failed(f"rule {rule_name!r} returned {result!r}, not a RuleResult")
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
