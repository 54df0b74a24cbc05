"""Using a registered theorem: its statement instantiated, its hypotheses discharged, here.

:func:`instance` is the kernel's primitive behind ``apply_theorem``: given a theorem of the registry
the checker put in the step's context (:data:`REGISTRY`; never an object a rule builds) and a mapping
of its symbols, it returns the ``Thm`` of the instantiated statement after checking

* that the mapping replaces variables only (symbols, IndexedBases by IndexedBases, MatrixSymbols by
  matrices of the same shape; a subterm such as ``a + 1`` or ``X[i]`` is no variable, and replacing it
  is no instance), and keeps every declared assumption of a variable it replaces (an integer stays an
  integer, a positive symbol positive, an IndexedBase's entries keep the base's: the image is shown so
  by the kernel's tests; an assumption those do not imply, such as ``zero=False``, is read off the image);
* that every hypothesis of the lemma, instantiated, holds in the current theorem: an equation is one of
  the current hypotheses (a ``forall`` equation only by one at least as general: the same variables
  quantified, so one instance never stands for all of them), a range is shown by the kernel's range
  test, an assumption is implied or stated, a random family and independence are declared alike.

:func:`rewrite_under` rewrites with an equational lemma inside binders: the lemma's free symbols named in
``loose`` match subterms (bound variables included), and the assumptions are checked on every matched
image with the ranges of the binders around it.

Each use is recorded in the ledger (:class:`LemmaUse`), from which the checker caps the verdict by the
lemma's own.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

import sympy as sp

from symattn.kernel.terms import KernelError, canonical, free_symbols, substitute

__all__ = ["REGISTRY", "LemmaUse", "instance", "rewrite_under", "image_conditions", "instantiate"]

#: the registry of theorems the checker set for this step (the kernel looks lemmas up only here)
REGISTRY: contextvars.ContextVar = contextvars.ContextVar("symattn_kernel_registry", default=None)

#: the assumptions checked on an image (the others SymPy derives from these)
_CHECKED = ("integer", "rational", "irrational", "real", "complex", "imaginary", "finite", "positive",
            "nonnegative", "negative", "nonpositive", "nonzero", "zero", "prime", "composite", "even", "odd",
            "noninteger")


@dataclass(frozen=True)
class LemmaUse:
    """The ledger's record of a lemma used by a step."""

    theorem_id: str
    status: str = "lemma"
    engine: str = "kernel"


def _registered(thm: Any) -> Any:
    reg = REGISTRY.get()
    if reg is None:
        raise KernelError("no registry of theorems in this step's context")
    try:
        known = reg.get(thm.id)
    except (KeyError, AttributeError):
        raise KernelError(f"{getattr(thm, 'id', thm)!r} is not a registered theorem") from None
    if known is not thm:
        raise KernelError(f"{thm.id!r} is not the registered theorem of that name")
    return known


def _hyps() -> tuple:
    from symattn.kernel.zero import HYPOTHESES

    return tuple(HYPOTHESES.get() or ())


def instantiate(thm, mapping: dict) -> tuple[Any, Any, list]:
    """The statement's sides and hypotheses of ``thm`` under ``mapping``."""
    for key in mapping:
        if not isinstance(key, sp.Basic):
            raise KernelError(f"mapping keys must be SymPy symbols, got {key!r}")
    kinds = [why for key, value in mapping.items() for why in _check_key(key, value, mapping)]
    if kinds:
        raise KernelError("; ".join(kinds))
    strays = _stray_keys(thm, mapping)
    if strays:
        raise KernelError(
            f"mapping key{'s' if len(strays) > 1 else ''} {', '.join(strays)} of apply_theorem "
            f"{getattr(thm, 'id', 'the theorem')!r} {'are' if len(strays) > 1 else 'is'} not a free variable of its "
            "statement or hypotheses: a bound variable (a summation or product index) is renamed by no "
            "mapping, and a symbol the lemma does not mention replaces nothing")

    def sub(x):
        return canonical(substitute(x, mapping)) if isinstance(x, (sp.Basic, sp.MatrixBase)) else x

    hyps = []
    for h in thm.hypotheses:
        fields = {k: (tuple(sub(v) for v in val) if k == "forall" else sub(val)) for k, val in vars(h).items()
                  if k != "name"}
        try:
            hyps.append(type(h)(name=h.name, **fields))
        except (TypeError, ValueError) as exc:
            # the mapping makes the hypothesis ill-formed (an index range's index mapped to n + 1)
            name = getattr(thm, "id", None) or "the theorem"
            images = ", ".join(f"{sp.sstr(k)} -> {sp.sstr(v)}" for k, v in mapping.items())
            raise KernelError(f"apply_theorem {name!r}: under the mapping ({images}) its hypothesis {h.name!r} is not "
                              f"well-formed: {exc}") from None
    return sub(thm.statement.lhs), sub(thm.statement.rhs), hyps


def _stray_keys(thm, mapping: dict) -> list:
    """The mapping's keys that are not free in the lemma (its statement's sides and its hypotheses'
    fields, a forall variable counting as free there): a key bound in the statement, or absent, would
    be silently ignored."""
    exprs = [thm.statement.lhs, thm.statement.rhs]
    for h in thm.hypotheses:
        for k, val in vars(h).items():
            if k != "name":
                exprs.extend(val if isinstance(val, tuple) else (val,))
    occurs: set = set()
    for e in exprs:
        if isinstance(e, (sp.Basic, sp.MatrixBase)):
            occurs |= free_symbols(e)
            for base in getattr(e, "atoms", lambda *a: set())(sp.IndexedBase):
                occurs.add(base)  # with the symbols of its shape (Xs of shape (n,) mentions n)
                occurs |= set().union(*(free_symbols(x) for x in (base.shape or ()) if isinstance(x, sp.Basic)))
    names = {getattr(x, "label", x) for x in occurs}
    return [sp.sstr(k) for k in mapping
            if isinstance(k, (sp.Symbol, sp.IndexedBase, sp.MatrixSymbol))
            and k not in occurs and getattr(k, "label", k) not in names]


def _key_facts(key) -> dict:
    """The declared assumptions of a lemma variable (an IndexedBase's are its entries')."""
    if isinstance(key, sp.Symbol):
        return dict(key.assumptions0)
    if isinstance(key, sp.IndexedBase):
        return dict(key.label.assumptions0)
    return {}


def _check_key(key, value, mapping: dict) -> list:
    """A lemma is an instance only under a mapping of its *variables*: a symbol, an IndexedBase (to an
    IndexedBase), a MatrixSymbol (to a matrix of the same shape). A subterm (``a + 1``, ``X[i]``,
    ``exp(a)``) is not a variable: replacing it is no instance of the statement."""
    if isinstance(key, sp.Symbol):
        return []
    if isinstance(key, sp.IndexedBase):
        if not isinstance(value, sp.IndexedBase):
            return [f"{key} is an IndexedBase in the lemma; its image {sp.sstr(value)} is not one"]
        if key.shape is not None and (value.shape is None or len(value.shape) != len(key.shape)
                                      or not all(_equal(substitute(x, mapping), y)
                                                 for x, y in zip(key.shape, value.shape))):
            return [f"{key} has shape {key.shape} in the lemma, but its image {value} has shape {value.shape}"]
        return []
    if isinstance(key, sp.MatrixSymbol):
        shape = getattr(value, "shape", None)
        if not isinstance(value, (sp.MatrixExpr, sp.MatrixBase)) or shape is None:
            return [f"{key} is a matrix in the lemma; its image {sp.sstr(value)} is not one"]
        want = tuple(substitute(x, mapping) for x in key.shape)
        if not all(_equal(x, y) for x, y in zip(want, shape)):
            return [f"{key} is {sp.sstr(want[0])} x {sp.sstr(want[1])} in the lemma (under the mapping), but its "
                    f"image {sp.sstr(value)} is {sp.sstr(shape[0])} x {sp.sstr(shape[1])}"]
        return []
    raise KernelError(f"mapping key {sp.sstr(key)} is not a variable of the lemma (a symbol, an IndexedBase or a "
                      f"MatrixSymbol): replacing a subterm is no instance of its statement")


def image_conditions(mapping: dict, hypotheses=(), env: dict | None = None) -> list:
    """Every assumption of a lemma variable is a side condition of the instance: the image must have it
    (from its own assumptions, the kernel's sign test, or the hypotheses); the entries of an IndexedBase's
    image must have the base's. An assumption the checked ones do not imply (``extended_positive``,
    ``zero=False``, ``commutative``) must be SymPy's of the image itself. Returns the failures."""
    from symattn.kernel.sign import has_fact, sign_of, untrusted_assumptions_atomized
    from symattn.kernel.sums import _is_integer, index_in_range
    from symattn.kernel.zero import _shown_nonzero

    bad = []
    for key, value in mapping.items():
        kind = _check_key(key, value, mapping)
        if kind:
            bad.extend(kind)
            continue
        facts = _key_facts(key)
        if isinstance(value, int) and not isinstance(value, bool):
            value = sp.Integer(value)
        if isinstance(key, sp.IndexedBase):
            value = value[sp.Dummy("j", integer=True)]
        shown, failed_before = {}, len(bad)
        for fact, truth in sorted(facts.items()):
            if truth is not True or fact not in _CHECKED:
                continue
            shown[fact] = True
            if has_fact(value, fact):
                continue
            if fact in ("positive", "nonnegative") and sign_of(value) in (
                ("positive",) if fact == "positive" else ("positive", "nonnegative")
            ):
                continue
            if fact == "positive" and env and index_in_range(value, 1, value, hypotheses, env):
                continue
            if fact == "nonzero" and _shown_nonzero(value, hypotheses):
                continue
            if fact in ("integer", "rational", "real", "complex", "finite") and _is_integer(value, hypotheses,
                                                                                             env or {}):
                continue
            bad.append(f"{key} is {fact} in the lemma, but {sp.sstr(value)} is not known to be {fact}")
        if len(bad) > failed_before or not facts:
            continue  # this key's checked facts failed (named above), or it declares none
        implied = sp.Dummy("x", **shown).assumptions0
        read = untrusted_assumptions_atomized(value)
        missing = [f"{fact}={truth}" for fact, truth in sorted(facts.items())
                   if implied.get(fact) != truth and getattr(read, f"is_{fact}", None) != truth]
        if missing:
            bad.append(f"{key} has the assumptions {', '.join(missing)} in the lemma, which {sp.sstr(value)} is not "
                       f"known to have")
    return bad


def _family_key(f, hypotheses) -> Any:
    from symattn.language.statement import RandomFamily

    if isinstance(f, RandomFamily):
        return f.base
    if isinstance(f, str):
        for h in hypotheses:
            if isinstance(h, RandomFamily) and h.name == f:
                return h.base
    return f


def _equal(a, b) -> bool:
    from symattn.kernel.zero import equal

    try:
        return equal(a, b)
    except KernelError:
        return False


def _moments_agree(g, h) -> bool:
    needed = dict(h.moments or ())
    have = dict(g.moments or ())
    return all(order in have and _equal(have[order], value) for order, value in needed.items())


def _same_forall(g, h) -> bool:
    """``g``'s equation covers ``h``'s: the same quantified variables, and then the same sides."""
    if len(g.forall or ()) != len(h.forall or ()):
        return False
    if not h.forall:
        return _equal(g.lhs, h.lhs) and _equal(g.rhs, h.rhs)
    # rename h's variables to g's, in order, when their declared assumptions agree
    ren = {}
    for a, b in zip(h.forall, g.forall):
        if not (isinstance(a, sp.Symbol) and isinstance(b, sp.Symbol)) or a.assumptions0 != b.assumptions0:
            return False
        ren[a] = b
    return _equal(substitute(h.lhs, ren), g.lhs) and _equal(substitute(h.rhs, ren), g.rhs)


def hypothesis_holds(h, hypotheses, lemma_hyps=(), env: dict | None = None) -> bool:
    from symattn.kernel.sums import index_in_range
    from symattn.language.statement import Assumption, Equation, Independent, IndexRange, RandomFamily

    if isinstance(h, Equation):
        return any(isinstance(g, Equation) and _same_forall(g, h) for g in hypotheses)
    if isinstance(h, IndexRange):
        return index_in_range(h.index, h.lower, h.upper, hypotheses, env or {})
    if isinstance(h, RandomFamily):
        return any(isinstance(g, RandomFamily) and g.base == h.base and _equal(g.dim, h.dim)
                   and _equal(g.mean, h.mean) and _equal(g.variance, h.variance) and _moments_agree(g, h)
                   for g in hypotheses)
    if isinstance(h, Independent):
        want = {_family_key(f, lemma_hyps) for f in h.families}
        return any(isinstance(g, Independent) and want <= {_family_key(f, hypotheses) for f in g.families}
                   for g in hypotheses)
    if isinstance(h, Assumption):
        cond = h.condition
        if cond is None or isinstance(cond, str):
            return any(isinstance(g, Assumption) and g.text == h.text for g in hypotheses)
        if cond is sp.true or cond is True:
            return True
        if _implied(cond, hypotheses):
            return True
        return any(isinstance(g, Assumption) and g.condition == cond for g in hypotheses)
    fields = {k: v for k, v in vars(h).items() if k != "name"}
    return any(type(g) is type(h) and {k: v for k, v in vars(g).items() if k != "name"} == fields for g in hypotheses)


def _implied(cond, hypotheses) -> bool:
    """A relation shown by the kernel's sign test (``Q.*`` predicates: by the symbols' declared assumptions)."""
    from symattn.kernel.sign import has_fact, sign_of
    from symattn.kernel.zero import _shown_nonzero, index_ranges

    ranges = index_ranges(hypotheses)
    rel = type(cond)
    if rel in (sp.Le, sp.Lt, sp.Ge, sp.Gt):
        gap = cond.rhs - cond.lhs if rel in (sp.Le, sp.Lt) else cond.lhs - cond.rhs
        s = sign_of(gap, ranges)
        return s == "positive" or (s == "nonnegative" and rel in (sp.Le, sp.Ge))
    if rel is sp.Ne:
        return _shown_nonzero(cond.lhs - cond.rhs, hypotheses)
    if isinstance(cond, sp.And):
        return all(_implied(c, hypotheses) for c in cond.args)
    if isinstance(cond, sp.assumptions.assume.AppliedPredicate) and len(cond.arguments) == 1:
        x = cond.arguments[0]
        fact = str(cond.function).removeprefix("Q.")
        return fact in _CHECKED and has_fact(x, fact)
    return False


def _check_hypotheses(thm, hyps, env: dict | None = None) -> None:
    missing = [h.name for h in hyps if not hypothesis_holds(h, _hyps(), hyps, env)]
    if missing:
        raise KernelError(f"hypotheses of {thm.id} not available here: {missing}")


def instance(thm: Any, mapping: dict):
    """The ``Thm`` of ``thm``'s statement under ``mapping`` (see the module docstring)."""
    from symattn.kernel import ledger
    from symattn.kernel.thm import _make

    thm = _registered(thm)
    L, R, hyps = instantiate(thm, dict(mapping or {}))
    bad = image_conditions(dict(mapping or {}), _hyps())
    if bad:
        raise KernelError("; ".join(bad))
    _check_hypotheses(thm, hyps)
    ledger.record(LemmaUse(thm.id))
    return _make(L, R, thm.statement.relation, f"theorem {thm.id}")


def rewrite_under(expr: Any, thm: Any, mapping: dict, loose: list, reverse: bool = False):
    """``expr = expr'`` rewriting with the equational lemma ``thm`` where its sides match, the symbols of
    ``loose`` in the mapping's values matching any subterm (checked with the binders' ranges)."""
    from sympy.concrete.expr_with_limits import ExprWithLimits

    from symattn.kernel import ledger
    from symattn.kernel.thm import _make

    thm = _registered(thm)
    if thm.statement.relation != "=":
        raise KernelError(f"{thm.id} is not an equation; it rewrites nothing")
    hyps_here = _hyps()
    wilds = {x: sp.Wild(f"w_{x}") for x in loose}
    pmap = {k: substitute(v, wilds) for k, v in mapping.items()}
    a, b = substitute(thm.statement.lhs, pmap), substitute(thm.statement.rhs, pmap)
    if reverse:
        a, b = b, a
    problems: list = []

    def walk(e, env):
        if not isinstance(e, sp.Basic) or e.is_Atom:
            return e
        m = e.match(a)
        if m is not None and all(w in m for w in wilds.values()) and a.xreplace(m) != e \
                and not _equal(a.xreplace(m), e):
            # SymPy's matcher is not trusted: the instance must be the subterm it replaces
            problems.append(f"{thm.id}'s side under the match {sp.sstr(m)} is {sp.sstr(a.xreplace(m))}, not "
                            f"{sp.sstr(e)}")
        elif m is not None and all(w in m for w in wilds.values()):
            image = {k: v.xreplace(m) for k, v in pmap.items()}
            bad = image_conditions(image, hyps_here, env)
            if not bad:
                L, R, hyps = instantiate(thm, image)
                _check_hypotheses(thm, hyps, env)
                return b.xreplace(m)
            problems.extend(bad)
        if isinstance(e, ExprWithLimits):
            inner = dict(env)
            for lim in e.limits:
                if len(lim) == 3:
                    inner[lim[0]] = (lim[1], lim[2])
            body = walk(e.function, inner)
            return e.func(body, *e.limits) if body is not e.function else e
        args = [walk(x, env) for x in e.args]
        return e if all(x is y for x, y in zip(args, e.args)) else e.func(*args)

    e = canonical(expr)
    new = walk(e, {})
    if new == e:
        raise KernelError("; ".join(sorted(set(problems))) or f"{thm.id} does not occur")
    ledger.record(LemmaUse(thm.id))
    return _make(e, new, "=", f"theorem {thm.id} under a binder")


def loose_symbols(thm: Any, mapping: dict, lhs: Any, rhs: Any) -> list:
    """Symbols of the mapping's values that are free neither in the step nor in the lemma's statement."""
    free_here = free_symbols(lhs) | free_symbols(rhs)
    return sorted({x for v in mapping.values() for x in free_symbols(v)} - free_here
                  - free_symbols(thm.statement.lhs) - free_symbols(thm.statement.rhs), key=str)
