"""Definitions: a head (an unevaluated expression class of symattn's) and its unfolding.

:func:`define` registers ``name`` for the class ``cls`` with its expansion, and refuses

* a class that is, or derives from, one of SymPy's concrete classes (``exp``, ``Add``, ``Symbol``, ...):
  such a class keeps SymPy's evaluation and assumptions (a ``class LinearExp(sp.exp)`` defined as ``1 + u``
  would be positive by SymPy and ``1 + u`` by the definition); only the neutral bases of
  :data:`NEUTRAL_BASES` may appear in its ancestry;
* a second definition of a name or of a class, unless it is the same expansion (a module imported
  twice): a contradictory definition never replaces the one the kernel unfolds.

:func:`unfold` is the kernel's primitive: the ``Thm`` ``expr = expr'`` with every occurrence of the head
unfolded, computed on fresh names and substituted back without capture.

The sign test never reads the assumptions a head class declares (``_eval_is_positive`` and its kin):
it unfolds registered heads first (:func:`symattn.kernel.sign.sign_of`), so what a head is said to be
is what its definition shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.core.assumptions import _assume_defined
from sympy.core.function import Application
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.terms import KernelError, substitute
from symattn.kernel.wellformed import DEFINITIONS, check_term, class_problem
from symattn.kernel.zero import register_unfolding

__all__ = ["Definition", "DEFINITIONS", "NEUTRAL_BASES", "define", "unfold", "expand"]

#: SymPy classes a defined head may derive from: they carry no evaluation or assumption of their own
NEUTRAL_BASES = frozenset({sp.Basic, sp.Expr, sp.Atom, sp.AtomicExpr, sp.Function, Application, MatrixExpr,
                           sp.core.function.FunctionClass, sp.logic.boolalg.Boolean})


@dataclass(frozen=True)
class Definition:
    name: str
    cls: type
    expand: Callable[[Any], Any]  # instance of cls -> its expansion
    text: str = ""




def _same_function(f: Callable, g: Callable, depth: int = 0) -> bool:
    """Whether two expansions are the same function (a module imported twice defines it again): the
    same object, or the same code (bytecode, constants, names), name, defaults and closure values. A
    callable without code (an object with ``__call__``) is the same only as itself; two lambdas of one
    scope that differ only in a captured value (``u + c`` at ``c = 1`` and at ``c = 2``) are not."""
    if f is g:
        return True
    cf, cg = getattr(f, "__code__", None), getattr(g, "__code__", None)
    if cf is None or cg is None:
        return False
    if (cf.co_code, cf.co_consts, cf.co_names) != (cg.co_code, cg.co_consts, cg.co_names):
        return False
    if getattr(f, "__qualname__", None) != getattr(g, "__qualname__", None):
        return False
    try:
        return (_same_values(getattr(f, "__defaults__", None), getattr(g, "__defaults__", None), depth)
                and _same_values([c.cell_contents for c in (f.__closure__ or ())],
                                 [c.cell_contents for c in (g.__closure__ or ())], depth))
    except Exception:  # noqa: BLE001 -- an empty cell, or values that cannot be compared: not shown the same
        return False


def _same_values(xs, ys, depth: int) -> bool:
    """Captured values compared as a re-import recreates them: classes by module and qualified name,
    functions by :func:`_same_function` (a few levels deep), anything else by type and equality
    (``1``, ``1.0`` and ``True`` are different expansions)."""
    xs, ys = list(xs or ()), list(ys or ())
    if len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys):
        if isinstance(x, type) and isinstance(y, type):
            same = _same_class(x, y)
        elif callable(x) and callable(y) and hasattr(x, "__code__"):
            same = depth < 3 and _same_function(x, y, depth + 1)
        else:
            same = type(x) is type(y) and bool(x == y)
        if not same:
            return False
    return True


def _same_class(a: type, b: type) -> bool:
    return a is b or (a.__module__ == b.__module__ and a.__qualname__ == b.__qualname__)


def define(name: str, cls: type, expand: Callable[[Any], Any], text: str = "") -> Definition:
    """Register the definition ``name``: occurrences of ``cls`` unfold through ``expand``."""
    if not (isinstance(cls, type) and issubclass(cls, sp.Basic)):
        raise TypeError(f"definition {name!r}: {cls!r} is not a SymPy expression class")
    for base in cls.__mro__:
        if base.__module__.split(".")[0] == "sympy" and base not in NEUTRAL_BASES and not _sympy_mixin(base):
            what = "is" if base is cls else f"derives from {base.__module__}.{base.__name__}, which is"
            raise ValueError(
                f"definition {name!r}: {cls.__name__} {what} SymPy's own class; only symattn's unevaluated "
                "heads can be defined (SymPy evaluates its own classes and lends them assumptions, so a "
                "'definition' could contradict it)"
            )
    _refuse_claims(name, cls)
    existing = DEFINITIONS.get(name)
    if existing is not None and not (_same_class(existing.cls, cls) and _same_function(existing.expand, expand)):
        raise ValueError(f"definition {name!r} is already registered (for {existing.cls.__name__}); a second, "
                         "different definition would contradict it")
    for other in DEFINITIONS.values():
        if other.name != name and _same_class(other.cls, cls):
            raise ValueError(f"definition {name!r}: {cls.__name__} is already defined as {other.name!r}")
    if not _own(cls):
        why = class_problem(cls, defining=True)
        if why:
            raise ValueError(f"definition {name!r}: {cls.__name__} is refused: {why}")
    d = Definition(name, cls, expand, text)
    known = DEFINITIONS.get(name)
    DEFINITIONS[name] = d
    register_unfolding(cls, lambda e, d=d: _unfold_instance(d, e))
    if not _own(cls) and known is None:
        try:
            _freeze_at_definition(d)
        except KernelError as exc:  # circular: the definition is not registered
            DEFINITIONS.pop(name, None)
            from symattn.kernel.zero import UNFOLDINGS

            UNFOLDINGS.pop(cls, None)
            for key in [k for k in _FROZEN if k[0] == name]:
                _FROZEN.pop(key)
                AT_DEFINITION.pop(key, None)
            raise ValueError(f"definition {name!r}: {exc}") from None
    return d


#: (definition name, arity) -> (fresh arguments, the expansion at them): a user's definition is
#: expanded ONCE per arity and the kernel unfolds that frozen expansion ever after, so an expansion
#: that reads mutable state (a global, an environment variable) cannot unfold two ways in a process
_FROZEN: dict[tuple[str, int], tuple[type, tuple, Any]] = {}
_IN_PROGRESS: list[str] = []


def _arities(cls: type) -> tuple:
    nargs = getattr(cls, "nargs", None)
    if isinstance(nargs, sp.FiniteSet) and len(nargs) <= 4:
        return tuple(int(n) for n in nargs)
    return (1,)


def _freeze_at_definition(d: Definition) -> None:
    """Freeze the expansion now, at the arities the head takes (one when it does not say): an
    expansion that cannot be computed yet (it names something defined later) is frozen at first use;
    a circular definition is refused here."""
    for n in _arities(d.cls):
        try:
            fresh, body = frozen(d, n)
            AT_DEFINITION[(d.name, n)] = _described(fresh, body)
        except KernelError as exc:
            if "circular" in str(exc):
                raise
        except Exception:  # noqa: BLE001 - the user's expansion does not apply yet: frozen at first use
            continue


#: (name, arity) -> the expansion frozen when ``define()`` ran, as text (for the cache's quick key)
AT_DEFINITION: dict[tuple[str, int], str] = {}


def _described(fresh: tuple, body: Any) -> str:
    names = {f: sp.Symbol(f"_arg{i}") for i, f in enumerate(fresh)}
    return sp.srepr(substitute(body, names)) if isinstance(body, sp.Basic) else repr(body)


def definitions_text() -> str:
    """Every user definition's expansion frozen at ``define()``, as one deterministic text."""
    return "\n".join(f"{k[0]}/{k[1]}: {v}" for k, v in sorted(AT_DEFINITION.items()))


def frozen(d: Definition, arity: int) -> tuple[tuple, Any]:
    """``(fresh arguments, expansion)`` of the user's definition ``d`` at ``arity`` arguments,
    computed once; refuses a definition that reaches its own head through other definitions."""
    key = (d.name, arity)
    hit = _FROZEN.get(key)
    if hit is not None and hit[0] is d.cls:
        return hit[1], hit[2]
    if d.name in _IN_PROGRESS:
        cycle = " -> ".join(_IN_PROGRESS[_IN_PROGRESS.index(d.name):] + [d.name])
        raise KernelError(f"circular definitions ({cycle}): a definition that reaches its own head defines nothing")
    fresh = tuple(sp.Dummy(f"arg{n}") for n in range(arity))
    _IN_PROGRESS.append(d.name)
    try:
        body = d.expand(d.cls(*fresh))
        if isinstance(body, sp.Basic) and body.has(d.cls):
            raise KernelError(f"definition {d.name!r} mentions its own head: a circular definition defines nothing")
        check_term(body, f"the expansion of definition {d.name!r}")
        _reach(d, body, [d.name], set())
    finally:
        _IN_PROGRESS.pop()
    _FROZEN[key] = (d.cls, fresh, body)
    return fresh, body


def _reach(d: Definition, body: Any, path: list, seen: set) -> None:
    """Refuse when ``body`` reaches ``d``'s head through the (frozen) expansions of the other user
    definitions it mentions."""
    if not isinstance(body, sp.Basic):
        return
    for other in list(DEFINITIONS.values()):
        if _own(other.cls) or not body.has(other.cls):
            continue
        if other.cls is d.cls:
            raise KernelError(f"circular definitions ({' -> '.join(path + [d.name])}): a definition that "
                              "reaches its own head defines nothing")
        for n in sorted({len(i.args) for i in body.atoms(other.cls)}):
            if (other.name, n) in seen:
                continue
            seen.add((other.name, n))
            _fresh, inner = frozen(other, n)
            _reach(d, inner, path + [other.name], seen)


def frozen_expansions(expr: Any) -> list[str]:
    """``srepr`` of the frozen expansion of every user definition whose head occurs in ``expr`` (for
    the cache key: it changes when an expansion does)."""
    out = []
    if not isinstance(expr, (sp.Basic, sp.MatrixBase)):
        return out
    for d in DEFINITIONS.values():
        if _own(d.cls):
            continue
        insts = expr.atoms(d.cls) if isinstance(expr, sp.Basic) else set().union(*(e.atoms(d.cls) for e in expr))
        for n in sorted({len(i.args) for i in insts}):
            try:
                fresh, body = frozen(d, n)
            except Exception as exc:  # noqa: BLE001 - recorded as what it is
                out.append(f"{d.name}/{n}: {type(exc).__name__}: {exc}")
                continue
            out.append(f"{d.name}/{n}: {_described(fresh, body)}")
    return out


def _unfold_instance(d: Definition, e: Any) -> Any:
    """The unfolding of one occurrence; a library head that reads an entry or component by index
    unfolds only where its index is shown inside the shape (:func:`symattn.kernel.index_bounds.check`,
    with the ranges of the hypotheses and of the binders enclosing ``e``)."""
    from symattn.kernel.index_bounds import ENCLOSING, check

    check(e)
    token = ENCLOSING.set(((), {}))  # the expansion is computed out of the enclosing scope
    try:
        return (_expand_without_capture if _own(d.cls) else _expand_abstract)(d, e)
    finally:
        ENCLOSING.reset(token)


#: SymPy's assumption names: a head that declares any of them says what its definition must show
_FACTS = frozenset(_assume_defined) - {"commutative"}


def _own(cls: type) -> bool:
    return cls.__module__.startswith(("symattn.", "derivations.")) or cls.__module__.split(".")[0] == "sympy"


def _refuse_claims(name: str, cls: type) -> None:
    """A user's head may not evaluate itself (``eval``) nor declare assumptions (``is_positive = True``,
    ``_eval_is_positive``): SymPy would act on those when the head is built or asked, before and
    regardless of the definition, so a definition ``Liar(y) = -1 - y**2`` with ``is_positive = True``, or an
    ``eval`` that disagrees with the expansion, would let a false statement be built and proved. symattn's
    own heads (reviewed with the library) may."""
    for base in cls.__mro__:
        if _own(base) or base is object:
            continue
        own = vars(base)
        if "eval" in own:
            raise ValueError(f"definition {name!r}: {base.__name__} defines eval, so SymPy would evaluate it "
                             "before the definition is unfolded; a defined head must stay unevaluated")
        claims = sorted(k for k in own if (k.startswith("is_") and k[3:] in _FACTS)
                        or (k.startswith("_eval_is_") and k[9:] in _FACTS))
        if claims:
            raise ValueError(f"definition {name!r}: {base.__name__} declares {claims}; what a defined head is "
                             "must follow from its definition, not be declared")


def _sympy_mixin(base: type) -> bool:
    """SymPy's printing/evaluation mixins and ``object``-like bases that carry no mathematics."""
    return base.__name__ in {"EvalfMixin", "Printable", "ManagedProperties", "BasicMeta", "Boolean"} or (
        not issubclass(base, sp.Basic))


def expand(expr: Any, d: Definition) -> Any:
    """Every occurrence of ``d``'s head in ``expr`` unfolded, without capture."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: expand(e, d))
    if not isinstance(expr, sp.Basic):
        return expr
    from symattn.kernel.index_bounds import scoped_replace

    return scoped_replace(expr, lambda e: isinstance(e, d.cls), lambda e: _unfold_instance(d, e))


def _expand_abstract(d: Definition, e: Any) -> Any:
    """A user's head unfolded as a lambda abstraction: its expansion computed once at fresh arguments
    that carry no assumption (and frozen: :func:`frozen`), then the actual arguments substituted. So the
    expansion is a function of the arguments' values (an ``expand`` that reads their syntax or their
    assumptions would otherwise unfold ``G(x)`` and ``G(z + 1)`` differently for ``x = z + 1``), and a
    definition that mentions its own head (``R(t) := R(t) + 1``) is refused."""
    if not all(isinstance(a, sp.Expr) and not isinstance(a, MatrixExpr) for a in e.args):
        raise KernelError(f"{d.name}: a user's head is unfolded at scalar arguments only")
    fresh, body = frozen(d, len(e.args))
    return substitute(body, dict(zip(fresh, e.args)))


def _expand_without_capture(d: Definition, e: Any) -> Any:
    """``d.expand(e)``, computed on ``e`` with its free symbols renamed to fresh dummies and then
    substituted back capture-avoidingly: a binder in the definition's body (a sum over a fixed
    ``j``) can never capture a free ``j`` of the instance."""
    labels = {b.label for b in e.atoms(sp.IndexedBase)} if isinstance(e, sp.Basic) else set()
    syms = [x for x in e.free_symbols if isinstance(x, sp.Symbol) and not isinstance(x, sp.Dummy) and x not in labels]
    fresh = {x: sp.Dummy(x.name, **x.assumptions0) for x in syms}
    body = d.expand(e.xreplace(fresh) if fresh else e)
    return substitute(body, {v: k for k, v in fresh.items()}) if fresh else body


def unfold(expr: Any, name: str):
    """The kernel's ``Thm`` ``expr = expr'`` unfolding every occurrence of definition ``name``."""
    from symattn.kernel.thm import _make

    d = DEFINITIONS.get(name)
    if d is None:
        raise KernelError(f"unknown definition {name!r}; known: {sorted(DEFINITIONS)}")
    out = expand(expr, d)
    if out == expr:
        raise KernelError(f"{name} does not occur")
    return _make(expr, out, "=", f"definition {name}")
