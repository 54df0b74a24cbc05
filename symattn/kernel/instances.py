"""Derived instances: the sizes at which the kernel instantiates a theorem itself.

A theorem whose dimensions are symbols (``n``, ``d_k``, ...) is checked by the kernel at the
*smallest sizes inside its hypotheses*, with no builder from its author:

* the size symbols are its integer dimensions that occur in the statement or the hypotheses;
* a symbol's candidate values are the smallest that keep its assumptions (``1, 2, 3, ...`` for a
  positive integer, ``0, 1, ...`` for a nonnegative one), or the members of the set an assumption
  ``Contains(n, S)`` confines it to; a dimension an equation hypothesis determines (``d = 2 h``) is
  computed, not enumerated;
* a size is used only where it satisfies the symbols' assumptions **and** the hypotheses: every
  hypothesis that the substitution closes must be shown true exactly, an index range must not become
  empty, and the hypotheses at that size must have a model (:func:`~symattn.kernel.search.find_model`).
  A size outside them is skipped, with the reason.

The statement at a size is the theorem's own, with the size substituted and finite sums unrolled by
:func:`~symattn.kernel.search.expand_finite`; what is checked there and how it grades is the
checker's (:mod:`symattn.engine.checker`).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import sympy as sp

from symattn.kernel import exact
from symattn.kernel.index_bounds import OutsideShape
from symattn.kernel.search import (
    TooLarge,
    _assumption_ok,
    _basic_symbols,
    _concrete_shape,
    _determined,
    _member_sets,
    _truth,
    expand_finite,
    find_model,
    hypothesis_symbols,
    statement_symbols,
)

__all__ = ["size_symbols", "sizes_inside", "candidate_sizes", "UndecidedSize", "finite_domain", "domain_values",
           "undefined_side",
           "hypotheses_at", "domain_violation", "describe_sizes", "describe_point",
           "concrete_cases", "explicit", "shown_by_z3"]

#: the most size assignments tried for one theorem
MAX_TRIED = 40
#: values per symbol when none of the smallest sizes is inside the hypotheses, and the most
#: assignments then screened by their closed hypotheses
WIDE = 8
MAX_SCREENED = 3000


def size_symbols(statement, hypotheses, dimensions) -> list:
    """The integer dimensions that occur in the statement or the hypotheses, in declaration order."""
    present = statement_symbols(statement) | hypothesis_symbols(hypotheses)
    out = []
    for d in dimensions:
        if isinstance(d, sp.Symbol) and d.is_integer and d in present and d not in out:
            out.append(d)
    return out


def _candidates(sym: sp.Symbol, members: dict, count: int, full: list | None = None) -> list:
    if full is not None:  # a finite domain: every value of it
        return full
    where = members.get(sym)
    if isinstance(where, sp.FiniteSet):
        vals = sorted((v for v in where.args if v.is_Integer and _assumption_ok(sym, v)), key=lambda v: (abs(v), v))
        return vals[:count]
    if where is not None and isinstance(where, sp.Interval) and where.start.is_finite:
        first = sp.ceiling(where.start) + (1 if where.left_open and where.start.is_Integer else 0)
        vals = [sp.Integer(first + t) for t in range(count * 2)]
        return [v for v in vals if where.contains(v) is sp.true and _assumption_ok(sym, v)][:count]
    if sym.is_positive:
        start = 1
    elif sym.is_nonnegative:
        start = 0
    elif sym.is_negative or sym.is_nonpositive:
        start = -1 if sym.is_negative else 0
        return [v for v in (sp.Integer(start - t) for t in range(count * 2)) if _assumption_ok(sym, v)][:count]
    else:  # 0, 1, -1, 2, -2, ...: smallest absolute value first
        vals = [sp.Integer(0)] + [sp.Integer(s * t) for t in range(1, count + 1) for s in (1, -1)]
        return [v for v in vals if _assumption_ok(sym, v)][:count]
    return [v for v in (sp.Integer(start + t) for t in range(count * 2)) if _assumption_ok(sym, v)][:count]


#: the most values of a finite domain that are all checked (a larger domain is sampled like an infinite one)
MAX_FINITE = 64


def _bounds(sym: sp.Symbol, hypotheses) -> tuple:
    """``(lo, hi)``: integer bounds on the integer ``sym`` from its sign assumptions and the
    hypotheses' conditions ``sym <= c``, ``c < sym`` (alone or in an ``And``), ``Contains(sym, Interval)``
    and index ranges of ``sym`` with constant ends (None: unbounded on that side)."""
    lo = 1 if sym.is_positive else 0 if sym.is_nonnegative else None
    hi = -1 if sym.is_negative else 0 if sym.is_nonpositive else None

    def tighten(new_lo, new_hi):
        nonlocal lo, hi
        if new_lo is not None:
            lo = new_lo if lo is None else max(lo, new_lo)
        if new_hi is not None:
            hi = new_hi if hi is None else min(hi, new_hi)

    for h in hypotheses:
        kind = type(h).__name__
        if kind == "IndexRange" and h.index == sym:
            a, b = sp.sympify(h.lower), sp.sympify(h.upper)
            tighten(int(a) if a.is_Integer else None, int(b) if b.is_Integer else None)
            continue
        if kind != "Assumption" or not isinstance(getattr(h, "condition", None), sp.Basic):
            continue
        cond = h.condition
        for c in (cond.args if isinstance(cond, sp.And) else (cond,)):
            if isinstance(c, sp.Contains) and c.args[0] == sym and isinstance(c.args[1], sp.Interval):
                iv = c.args[1]
                a = sp.ceiling(iv.start) if iv.start.is_finite else None
                b = sp.floor(iv.end) if iv.end.is_finite else None
                if a is not None and iv.left_open and a == iv.start:
                    a += 1
                if b is not None and iv.right_open and b == iv.end:
                    b -= 1
                tighten(None if a is None else int(a), None if b is None else int(b))
            elif isinstance(c, (sp.Le, sp.Lt, sp.Ge, sp.Gt)):
                small, big = (c.lhs, c.rhs) if isinstance(c, (sp.Le, sp.Lt)) else (c.rhs, c.lhs)
                strict = isinstance(c, (sp.Lt, sp.Gt))
                if small == sym and big.is_number and big.is_real:
                    b = sp.floor(big)
                    tighten(None, int(b - 1 if strict and b == big else b))
                elif big == sym and small.is_number and small.is_real:
                    a = sp.ceiling(small)
                    tighten(int(a + 1 if strict and a == small else a), None)
    return lo, hi


def domain_values(sym: sp.Symbol, members: dict, hypotheses) -> list | None:
    """Every value of the integer ``sym`` when its domain is finite (a ``Contains`` of a finite set,
    or bounded on both sides by its assumptions and the hypotheses) and has at most
    :data:`MAX_FINITE` values, smallest absolute value first; None otherwise."""
    lo, hi = _bounds(sym, hypotheses)
    where = members.get(sym)
    if isinstance(where, sp.FiniteSet):
        vals = [v for v in where.args if v.is_Integer and _assumption_ok(sym, v)
                and (lo is None or v >= lo) and (hi is None or v <= hi)]
    elif lo is not None and hi is not None:
        if hi - lo + 1 > MAX_FINITE:
            return None
        vals = [sp.Integer(v) for v in range(lo, hi + 1)]
        vals = [v for v in vals if _assumption_ok(sym, v) and (where is None or where.contains(v) is sp.true)]
    else:
        return None
    vals = sorted(set(vals), key=lambda v: (abs(v), v))
    return vals if len(vals) <= MAX_FINITE else None


def hypotheses_at(hypotheses: tuple, mapping: dict) -> tuple:
    """The hypotheses with the instance's substitution applied (an index range whose index the
    substitution sets becomes the condition ``lo <= value <= hi``)."""
    from symattn.language.statement import Assumption, IndexRange

    out = []
    for h in hypotheses:
        if isinstance(h, IndexRange) and h.index in mapping:  # the size sets the index: a condition on it
            v = mapping[h.index]
            lo, hi = (_xreplace(sp.sympify(e), mapping) for e in (h.lower, h.upper))
            out.append(Assumption(h.name, condition=sp.And(sp.Le(lo, v), sp.Le(v, hi)), text=h.describe()))
            continue
        changes = {}
        for f in dataclasses.fields(h):
            v = getattr(h, f.name)
            if isinstance(v, sp.Basic) and f.name != "name":
                new = v.xreplace(mapping)
                if f.name == "condition" and isinstance(h, Assumption) and new != v:
                    # a condition at concrete sizes, its finite sums written out as the statement's are
                    try:
                        new = expand_finite(new)
                    except (TooLarge, TypeError, ValueError, AttributeError):
                        pass
                changes[f.name] = new
        try:
            out.append(dataclasses.replace(h, **changes) if changes else h)
        except (ValueError, TypeError):
            # the hypothesis is not well-formed at this size (an index range made empty, a family of
            # dimension 0): keep it as it was, so that the check of the size sees the problem
            out.append(h)
    return tuple(out)


def _xreplace(x: Any, mapping: dict) -> Any:
    """``x`` with ``mapping`` put in, capture-free: a binder whose variable is named like a key
    (``Softmax(Lambda(n, s_n n), i, n)`` at the size ``n = 1``) is first renamed by the kernel's
    canonical form, so the value reaches the free occurrences only (SymPy's xreplace would put it in
    the binder's signature too)."""
    if not hasattr(x, "xreplace"):
        return x
    if mapping and isinstance(x, (sp.Basic, sp.MatrixBase)) and binds_a_key(x, mapping):
        from symattn.kernel.terms import canonical

        x = canonical(x)
    return x.xreplace(mapping)


def binds_a_key(x: Any, mapping: dict) -> bool:
    """Whether a Lambda, sum, product or integral inside ``x`` binds a variable that ``mapping`` replaces."""
    try:
        binders = x.atoms(sp.Lambda, sp.Sum, sp.Product, sp.Integral)
    except (AttributeError, TypeError):
        return False
    for b in binders:
        bound = b.variables if isinstance(b, sp.Lambda) else [lim[0] for lim in b.limits]
        if any(v in mapping for v in bound):
            return True
    return False


def domain_violation(mapping: dict, hypotheses) -> str | None:
    """Why the sizes ``mapping`` are outside the symbols' assumptions or the hypotheses (None: they
    are not shown to be outside). A hypothesis the substitution closes must be shown true exactly."""
    for s, v in mapping.items():
        if not _assumption_ok(s, v):
            facts = ", ".join(k for k, ok in sorted(s.assumptions0.items()) if ok and k in
                              ("integer", "positive", "nonnegative", "negative", "nonpositive", "nonzero", "even",
                               "odd", "prime"))
            return f"{s} = {v} breaks the assumptions of {s} ({facts})"
    def at(e):
        return expand_finite(_xreplace(sp.sympify(e), mapping))

    for h in hypotheses:
        kind = type(h).__name__
        if kind == "IndexRange" and h.index in mapping:
            lo, hi = at(h.lower), at(h.upper)
            if lo.is_Integer and hi.is_Integer and not lo <= mapping[h.index] <= hi:
                return f"{h.name}: {h.index} = {mapping[h.index]} is not in {lo}..{hi}"
        elif kind == "IndexRange":
            lo, hi = at(h.lower), at(h.upper)
            if lo.is_Integer and hi.is_Integer and lo > hi:
                return f"the range {h.name} of {h.index} is empty there ({lo}..{hi})"
        elif kind == "RandomFamily":
            dim = at(h.dim)
            if dim.is_Integer and dim < 1:
                return f"the family {h.name} has dimension {dim} there"
        elif kind == "Equation" and not h.forall:
            a, b = at(h.lhs), at(h.rhs)
            if not (_open(a) or _open(b)) and a.is_number and b.is_number:
                eq = exact.equal(a, b)
                if eq is False:
                    return f"{h.name}: {sp.sstr(a)} = {sp.sstr(b)} is false there"
                if eq is None:
                    return UndecidedSize(f"{h.name}: {sp.sstr(a)} = {sp.sstr(b)} is neither shown to hold nor "
                                         "shown false there")
        elif kind == "Assumption" and isinstance(h.condition, sp.Basic):
            c = at(h.condition)
            if not _open(c):
                truth = _truth(c)
                if truth is False:
                    return f"{h.name}: {sp.sstr(h.condition)} is false there"
                if truth is None:
                    return UndecidedSize(f"{h.name}: {sp.sstr(h.condition)} is neither shown to hold nor shown "
                                         "false there")
    return None


def _open(e: Any) -> bool:
    """Whether ``e`` still has something to take a value: a free symbol or an entry (``L[1]``)."""
    return bool(_basic_symbols(e) or (isinstance(e, sp.Basic) and e.atoms(sp.Indexed)))


def undefined_side(x: Any) -> str | None:
    """Why the value ``x`` of a side at an instance is not a finite exact value (``zoo``, ``nan``,
    ``oo``: a pole, an undefined expression), None when nothing shows it. Such an instance is outside
    the statement's domain: it is neither a pass nor a counterexample."""
    if isinstance(x, sp.MatrixBase):
        for e in x:
            why = undefined_side(e)
            if why:
                return why
        return None
    if not isinstance(x, sp.Basic):
        return None
    if x.has(sp.nan):
        return f"{_short(x)} is undefined (nan)"
    if x.has(sp.zoo):
        return f"{_short(x)} is undefined (a pole: zoo)"
    if x in (sp.oo, -sp.oo) or (x.is_number and x.is_finite is False):
        return f"{_short(x)} is infinite"
    return None


def _short(x: Any, limit: int = 80) -> str:
    s = sp.sstr(x)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def describe_point(symbols: list, mapping: dict) -> str:
    """``n = 2`` or ``(d, h) = (2, 1)``."""
    if len(symbols) == 1:
        return f"{symbols[0]} = {mapping[symbols[0]]}"
    return f"({', '.join(map(str, symbols))}) = ({', '.join(str(mapping[s]) for s in symbols)})"


def describe_sizes(symbols: list, mappings: list) -> str:
    if len(symbols) == 1:
        s = symbols[0]
        return f"{s} in {{{', '.join(str(m[s]) for m in mappings)}}}"
    names = ", ".join(map(str, symbols))
    tuples = ", ".join("(" + ", ".join(str(m[s]) for s in symbols) + ")" for m in mappings)
    return f"({names}) in {{{tuples}}}"


def _plan(statement, hypotheses, dimensions, per: int | None = None):
    """``(syms, enumerated, determined, lists, finite)``: the size symbols, those enumerated, those
    computed from the others, each enumerated symbol's values, and the number of assignments when
    the domain is finite (every enumerated symbol has a finite domain, at most :data:`MAX_FINITE`
    assignments in all; None otherwise)."""
    hypotheses = tuple(hypotheses)
    syms = size_symbols(statement, hypotheses, dimensions)
    if not syms:
        return [], [], {}, [], None
    determined = {s: e for s, e in _determined(hypotheses, set(syms)).items()}
    # a symbol determined by the others is computed; a cycle of determinations enumerates them all
    enumerated = [s for s in syms if s not in determined or _basic_symbols(determined[s]) & set(determined)]
    for s in list(determined):
        if s in enumerated:
            del determined[s]
    members = _member_sets(hypotheses, set(syms))
    full = {s: domain_values(s, members, hypotheses) for s in enumerated}
    finite = None
    if all(v is not None for v in full.values()):
        finite = 1
        for v in full.values():
            finite *= len(v)
        if finite > MAX_FINITE:
            finite = None
    if per is None:
        per = {0: 1, 1: 8, 2: 5, 3: 4}.get(len(enumerated), 3)  # values per symbol: the product stays small
    lists = [_candidates(s, members, per, full[s] if finite is not None else None) for s in enumerated]
    return syms, enumerated, determined, lists, finite


def finite_domain(statement, hypotheses, dimensions) -> int | None:
    """The number of size assignments when the size symbols' domain is finite (see :func:`_plan`)."""
    return _plan(statement, hypotheses, dimensions)[4]


def candidate_sizes(statement, hypotheses, dimensions, *, per: int | None = None, max_tried: int = MAX_TRIED,
                    seconds: float = 4.0):
    """The size assignments, smallest first, each as ``(mapping, why)``: ``why`` None for one inside
    the hypotheses, otherwise the reason it is outside them (a generator: the caller takes as many
    as it checks). A finite domain yields every assignment of it."""
    hypotheses = tuple(hypotheses)
    syms, enumerated, determined, lists, finite = _plan(statement, hypotheses, dimensions, per)
    if not syms:
        return
    combos = sorted(itertools.product(*(range(len(v)) for v in lists)), key=lambda ix: (sum(ix), ix))
    first = combos[:max(max_tried, finite or 0)]
    yield from _try_sizes(statement, hypotheses, enumerated, determined, lists, first, seconds)
    if len(enumerated) > 1 and finite is None:
        # more are wanted than the smallest sizes give (none of them may be inside the hypotheses: ``M <= N d``
        # with ``M = 4 B_c d``): larger values per symbol, smallest total first; the sizes shown outside are
        # checked cheaply (their closed hypotheses), a model is searched for at most MAX_TRIED of them (only
        # those inside are yielded; the caller takes as many as it checks)
        members = _member_sets(hypotheses, set(syms))
        tried = {tuple(lists[k][i] for k, i in enumerate(ix)) for ix in first}
        wide = [_candidates(s, members, WIDE) for s in enumerated]
        more = sorted(itertools.product(*(range(len(v)) for v in wide)), key=lambda ix: (sum(ix), ix))
        more = [ix for ix in more if tuple(wide[k][i] for k, i in enumerate(ix)) not in tried][:MAX_SCREENED]
        for mapping, why in _try_sizes(statement, hypotheses, enumerated, determined, wide, more, seconds,
                                       models=MAX_TRIED):
            if why is None:
                yield mapping, why


def _try_sizes(statement, hypotheses, enumerated, determined, lists, combos, seconds, models: int | None = None):
    """The size assignments of ``combos``, each as ``(mapping, why)`` (``why`` None inside the
    hypotheses); at most ``models`` model searches."""
    searched = 0
    for ix in combos:
        if models is not None and searched >= models:
            break
        mapping = {s: lists[k][i] for k, (s, i) in enumerate(zip(enumerated, ix))}
        for s, e in determined.items():
            mapping[s] = expand_finite(sp.sympify(e).xreplace(mapping))
        if any(not getattr(v, "is_Integer", False) for v in mapping.values()):
            yield mapping, "a determined size is not an integer there"
            continue
        try:
            why = domain_violation(mapping, hypotheses)
            if why is None:
                searched += 1
                at = hypotheses_at(hypotheses, mapping)
                exprs = [expand_finite(_xreplace(side, mapping)) for side in (statement.lhs, statement.rhs)]
                model, reasons = find_model(exprs, at, tries=6, seconds=seconds)
                if model is None:
                    everywhere = [r for r in reasons if getattr(r, "shown_false", False)]
                    if everywhere:
                        # a hypothesis with nothing left to take a value is false there: no point of this
                        # size is a model, so the size is outside the hypotheses
                        why = "no model of the hypotheses there (" + "; ".join(everywhere[:2]) + ")"
                    else:
                        # the points tried are not models, but none of their failures holds at every
                        # point (a condition on a drawn value, a hypothesis not decided, a time limit):
                        # the size is not known to be outside, and the sizes after it are not the smallest
                        why = UndecidedSize("no model of the hypotheses was found there, and none is shown "
                                            "impossible (" + "; ".join(reasons[:2]) + ")")
        except (OutsideShape, IndexError) as exc:
            # an entry read outside its matrix at these sizes: the statement is not defined there
            why = f"the statement is not defined there ({type(exc).__name__}: {exc})"
        except (ValueError, TypeError, AttributeError, ZeroDivisionError) as exc:
            # the statement is not well-formed at these sizes (a matrix of 1/2 columns)
            why = f"the statement is not well-formed there ({type(exc).__name__}: {exc})"
        yield mapping, why


class UndecidedSize(str):
    """The reason a size is skipped when it is not known to be outside the hypotheses: the caller
    cannot count the sizes after it as the smallest inside them."""


def sizes_inside(statement, hypotheses, dimensions, count: int = 3, seconds: float = 4.0):
    """``(symbols, mappings, skipped)``: the size symbols, up to ``count`` size assignments inside the
    hypotheses, smallest first, and the assignments skipped with why (``[(mapping, why)]``)."""
    syms = size_symbols(statement, tuple(hypotheses), dimensions)
    mappings, skipped = [], []
    for mapping, why in candidate_sizes(statement, hypotheses, dimensions, seconds=seconds):
        if isinstance(why, UndecidedSize):
            skipped.append((mapping, why))
            break  # not known to be outside: the sizes after it are not the smallest inside
        if why is not None:
            skipped.append((mapping, why))
            continue
        mappings.append(mapping)
        if len(mappings) >= count:
            break
    return syms, mappings, skipped


# ---------------------------------------------------------------------------------------------- cases
#: the most permutations enumerated for one ``Permutation`` hypothesis (4! = 24)
MAX_PERMUTATIONS = 24

_UNEVALUATED = (sp.Sum, sp.Product, sp.Integral, sp.Limit, sp.Derivative)


def explicit(x: Any) -> Any:
    """``x`` with its matrices of concrete shape written out: every matrix symbol of integer shape
    becomes the explicit matrix of its entries, and the matrix expressions built on them are
    evaluated by their definitions (``doit``). Only after :func:`expand_finite` has unrolled every
    finite sum: an expression that still has a sum, product, integral, limit or derivative is left
    as it is (SymPy's summation and integration are not trusted to evaluate it)."""
    if not isinstance(x, sp.Basic):
        return x
    x = expand_finite(x)
    if not (isinstance(x, sp.MatrixExpr) or x.has(sp.MatrixSymbol)) or x.has(*_UNEVALUATED):
        return x
    if not all(_concrete_shape(m) for m in x.atoms(sp.MatrixSymbol)):
        return x
    y = x.replace(lambda e: isinstance(e, sp.MatrixSymbol) and _concrete_shape(e), lambda e: e.as_explicit())
    y = y.doit()
    if y.has(*_UNEVALUATED):
        return x
    return sp.ImmutableMatrix(y) if isinstance(y, sp.MatrixBase) else y


def _permutation_value(perm: tuple, arg: Any) -> Any:
    """``sigma(arg)`` for the permutation ``perm`` of ``1..n`` (``perm[i-1] = sigma(i)``): the value at
    an integer argument inside ``1..n``; a ``Piecewise`` with no default at a symbolic one (undefined
    outside ``1..n``, so nothing is decided there)."""
    if getattr(arg, "is_Integer", False):
        if not 1 <= int(arg) <= len(perm):
            raise ValueError(f"the permutation of 1..{len(perm)} is applied to {arg}")
        return sp.Integer(perm[int(arg) - 1])
    return sp.Piecewise(*((sp.Integer(v), sp.Eq(arg, k)) for k, v in enumerate(perm, start=1)))


def _with_permutation(x: Any, name: str, perm: tuple) -> Any:
    from symattn.kernel.objects.permutations import PermutationMatrix, permutation_matrix

    if not isinstance(x, sp.Basic):
        return x
    P = permutation_matrix(perm)
    x = x.replace(lambda e: isinstance(e, PermutationMatrix) and e.name == name and e.shape[0] == len(perm),
                  lambda e: P)
    f = sp.Function(name)
    return x.replace(lambda e: isinstance(e, sp.core.function.AppliedUndef) and e.func == f and len(e.args) == 1,
                     lambda e: _permutation_value(perm, e.args[0]))


def concrete_cases(statement, hypotheses) -> list:
    """The cases a derived instance is checked in: ``[(label, statement, hypotheses)]``.

    A ``Permutation`` hypothesis of concrete size ``n`` (at most :data:`MAX_PERMUTATIONS`
    permutations) is discharged by enumeration: one case per permutation of ``1..n``, with the
    permutation matrix and the function written out (``sigma = (2, 1)``), the hypothesis dropped (it
    holds in that case). Every case's matrices of concrete shape are written out (:func:`explicit`).
    Exhaustive, so the instance holds exactly when every case does; a case where the sides differ
    is a counterexample inside the hypotheses. A permutation hypothesis whose size is not concrete,
    or has too many permutations, stays (the instance is then not shown by enumeration)."""
    from symattn.kernel.objects.permutations import Permutation
    from symattn.language.statement import Statement

    cases = [("", statement, tuple(hypotheses))]
    for h in hypotheses:
        n = sp.sympify(h.n) if isinstance(h, Permutation) else None
        if n is None or not n.is_Integer or int(n) < 1 or sp.factorial(int(n)) > MAX_PERMUTATIONS:
            continue
        out = []
        for label, st, hyps in cases:
            for perm in itertools.permutations(range(1, int(n) + 1)):
                def sub(x, perm=perm, name=h.sigma):
                    return _with_permutation(x, name, perm)
                said = f"{h.sigma} = ({', '.join(map(str, perm))}{',' if len(perm) == 1 else ''})"
                out.append(((label + ", " if label else "") + said,
                            Statement(sub(st.lhs), sub(st.rhs), st.relation),
                            tuple(g for g in hyps if g is not h)))
        cases = out
    return [(label, Statement(explicit(st.lhs), explicit(st.rhs), st.relation), hyps) for label, st, hyps in cases]


# ---------------------------------------------------------------------------------------------- forall
#: the most instances of ``forall`` equations substituted into one statement
MAX_UNFOLDED = 400


def _quantified_ok(var: sp.Symbol, value: Any, hypotheses) -> bool:
    """Whether the ``forall`` variable ``var`` may take ``value``: its assumptions, and every index
    range over it (whose bounds must then be concrete)."""
    if not _assumption_ok(var, value):
        return False
    for h in hypotheses:
        if type(h).__name__ == "IndexRange" and h.index == var:
            lo, hi = (expand_finite(sp.sympify(e)) for e in (h.lower, h.upper))
            if not (lo.is_Integer and hi.is_Integer and lo <= value <= hi):
                return False
    return True


def _forall_value(h, atom: sp.Indexed, hypotheses) -> Any:
    """The right side of the ``forall`` equation ``h`` at the concrete entry ``atom`` its left side
    defines (each quantified index an integer inside the variable's domain, the other indices equal),
    or None when it does not define ``atom``."""
    if h.lhs.base != atom.base or len(h.lhs.indices) != len(atom.indices):
        return None
    sub: dict = {}
    for pat, idx in zip(h.lhs.indices, atom.indices):
        if pat in h.forall and idx.is_Integer and sub.get(pat, idx) == idx and _quantified_ok(pat, idx, hypotheses):
            sub[pat] = idx
        elif pat != idx:
            return None
    if not set(h.forall) <= set(sub):
        return None
    return expand_finite(sp.sympify(h.rhs).xreplace(sub))


def unfold_forall(hypotheses, exprs: list) -> list:
    """``exprs`` with the entries that a ``forall`` equation defines replaced by its right side at
    their index (``L[2]`` by the recurrence's ``exp(M[1] - M[2]) L[1] + ...`` when ``L[t] = ...``
    holds for all t), repeatedly, at indices inside the quantified variable's assumptions and ranges
    only; each replacement is an instance of a hypothesis, so it is sound. The equations without
    ``forall`` (``L[0] = 0``) are left to :func:`~symattn.kernel.zippel.solve_equations`. ``exprs``
    unchanged when nothing applies or more than :data:`MAX_UNFOLDED` replacements would be needed."""
    rules = []
    for h in hypotheses:
        if type(h).__name__ == "Equation" and h.forall and isinstance(h.lhs, sp.Indexed):
            rules.append(h)
    if not rules:
        return list(exprs)

    def value(atom):
        for h in rules:
            v = _forall_value(h, atom, hypotheses)
            if v is not None:
                return v
        return None

    out, count = [], 0
    for e in exprs:
        for _round in range(MAX_UNFOLDED):
            if not isinstance(e, (sp.Basic, sp.MatrixBase)):
                break
            atoms = e.atoms(sp.Indexed) if isinstance(e, sp.Basic) else set().union(*(x.atoms(sp.Indexed) for x in e))
            subs = {}
            for a in atoms:
                if all(getattr(i, "is_Integer", False) for i in a.indices):
                    v = value(a)
                    if v is not None:
                        subs[a] = v
            if not subs:
                break
            count += len(subs)
            if count > MAX_UNFOLDED:
                return list(exprs)
            e = expand_finite(e.xreplace(subs))
        else:
            return list(exprs)
        out.append(e)
    return out


# ---------------------------------------------------------------------------------------------- trig
def pythagorean_zero(x: Any) -> bool:
    """Whether ``x`` is 0 as a polynomial in sines and cosines modulo ``sin(a)^2 + cos(a)^2 = 1``:
    each ``sin(a)``, ``cos(a)`` (one pair per argument ``a``, different arguments taken as
    independent) is a fresh variable, and the numerator is reduced by ``c^2 -> 1 - s^2`` (division by
    the monic ``c^2 + s^2 - 1``). A zero remainder shows ``x = 0`` wherever it is defined (the
    reduction is a ring homomorphism); anything else -- a denominator with a sine or cosine, another
    trigonometric function left, a nonzero remainder -- shows nothing (False)."""
    if isinstance(x, sp.MatrixBase):
        return all(pythagorean_zero(e) for e in x)
    if not isinstance(x, sp.Expr):
        return False
    if x.has(sp.Sum, sp.Product, sp.Integral, sp.Lambda, sp.Derivative):
        return False  # a sine of a bound variable is no one variable: only written-out instances
    trig = x.atoms(sp.sin, sp.cos)
    if not trig:
        return False
    subs, pairs = {}, []
    for a in sorted({t.args[0] for t in trig}, key=sp.default_sort_key):
        s, c = sp.Dummy("s"), sp.Dummy("c")
        subs[sp.sin(a)], subs[sp.cos(a)] = s, c
        pairs.append((s, c))
    f = x.xreplace(subs)
    if f.atoms(sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc):
        return False
    num, den = sp.fraction(sp.together(f))
    if any(den.has(s) or den.has(c) for s, c in pairs):
        return False
    num = sp.expand(num)
    for s, c in pairs:
        num = sp.expand(sp.rem(num, c**2 + s**2 - 1, c))
    return num == 0


# ---------------------------------------------------------------------------------------------- Z3
_Q_RELATIONS = {"positive": lambda x: x > 0, "nonnegative": lambda x: x >= 0, "negative": lambda x: x < 0,
                "nonpositive": lambda x: x <= 0, "nonzero": lambda x: sp.Ne(x, 0), "zero": lambda x: sp.Eq(x, 0)}


def _as_relation(c: Any) -> Any:
    """An assumption's condition as a relation Z3 reads (``Q.positive(x)`` as ``x > 0``, an ``And`` of
    them), or None: a condition left out is a fact fewer, never unsound."""
    if isinstance(c, sp.And):
        parts = [_as_relation(a) for a in c.args]
        parts = [p for p in parts if p is not None]
        return sp.And(*parts) if parts else None
    if isinstance(c, sp.core.relational.Relational):
        return c
    if isinstance(c, sp.logic.boolalg.BooleanFunction) or not isinstance(c, sp.Basic):
        return None
    if not isinstance(c, sp.assumptions.assume.AppliedPredicate):
        return None
    name, args = getattr(c.function, "name", None), tuple(c.arguments)
    if name in _Q_RELATIONS and len(args) == 1 and isinstance(args[0], sp.Expr):
        return _Q_RELATIONS[name](args[0])
    return None


def _ranged(hypotheses) -> dict:
    out = {}
    for h in hypotheses:
        if type(h).__name__ == "IndexRange":
            lo, hi = (expand_finite(sp.sympify(e)) for e in (h.lower, h.upper))
            out[h.index] = (lo, hi)
    return out


def _instantiated(c: Any, claim_symbols: set, ranges: dict) -> list:
    """``c`` at every value of each index symbol the claim leaves free that has a concrete
    :class:`~symattn.language.statement.IndexRange`: such an assumption is read for every value of the
    index in its range, as the rules and the model search read it (the README). An index with no range
    is one unknown value, not every value (``a[j] >= 0`` says nothing of ``a[1]``): ``c`` as it stands,
    whose free symbols are variables of Z3's, which only weakens the fact."""
    out = [c]
    for j in sorted(_basic_symbols(c) - claim_symbols, key=sp.default_sort_key):
        if not (isinstance(j, sp.Symbol) and j in ranges):
            continue
        lo, hi = ranges[j]
        if not (lo.is_Integer and hi.is_Integer and int(hi) - int(lo) < 64):
            continue
        values = [sp.Integer(v) for v in range(int(lo), int(hi) + 1)]
        out += [x.xreplace({j: v}) for x in list(out) for v in values]
    return out


def shown_by_z3(statement, hypotheses) -> str | None:
    """Whether the second engine's Z3 sign test shows a concrete inequality instance (an equation: as
    the two inequalities ``<=`` and ``>=``) under its hypotheses: the reason when it does, else None
    (not shown; never a counterexample).

    This is the instance level's last resort, after the kernel's own sign test: the claim ``gap > 0``
    (``>= 0``) is asked of :func:`~symattn.kernel.second.z3_sign.recheck_sign` with the index ranges
    of the instance and, as conditions, its equation hypotheses (a ``forall`` equation at the concrete
    indices the claim reads, :func:`unfold_forall`'s instances inside the variable's domain) and its
    assumptions (``Q.positive(x)`` as ``x > 0``; an assumption on ``s[j]`` read for every ``j`` of its
    concrete range, and ``j`` with no range one unknown index). Z3 decides real
    arithmetic exactly; every transcendental term is an atom carrying only facts of its structure, so
    ``unsat`` of the negation shows the instance and anything else shows nothing."""
    from symattn.kernel import second
    from symattn.kernel.second import AGREE
    from symattn.kernel.second.z3_sign import recheck_sign

    if not second.enabled():  # the kernel alone, or inside the second engine itself
        return None

    lhs, rhs, relation = statement.lhs, statement.rhs, statement.relation
    if not all(isinstance(x, sp.Expr) for x in (lhs, rhs)):
        return None
    # the claims asked of Z3: gap > 0 (>= 0); an equation as both inequalities, each shown
    claims = {"<": [(rhs - lhs, "positive")], ">": [(lhs - rhs, "positive")],
              "<=": [(rhs - lhs, "nonnegative")], ">=": [(lhs - rhs, "nonnegative")],
              "=": [(rhs - lhs, "nonnegative"), (lhs - rhs, "nonnegative")]}.get(relation)
    if claims is None:
        return None
    gap = lhs - rhs
    claim_symbols = _basic_symbols(gap)
    entries = gap.atoms(sp.Indexed)
    ranges = _ranged(hypotheses)
    conditions: list = []
    forall: list = []
    for h in hypotheses:
        kind = type(h).__name__
        if kind == "Equation":
            try:  # strict: never a string
                lhs_h, rhs_h = sp.sympify(h.lhs, strict=True), sp.sympify(h.rhs, strict=True)
            except (sp.SympifyError, TypeError):
                continue
            if not (isinstance(lhs_h, sp.Expr) and isinstance(rhs_h, sp.Expr)):
                continue
            if not h.forall:
                conditions.append(sp.Eq(expand_finite(lhs_h), expand_finite(rhs_h)))
            elif isinstance(lhs_h, sp.Indexed):
                forall.append(h)
        elif kind == "Assumption" and isinstance(h.condition, sp.Basic):
            c = _as_relation(h.condition)
            if c is not None:
                conditions += [expand_finite(x) for x in _instantiated(c, claim_symbols, ranges)]
    # the forall equations at each entry of the claim they define, and at the entries those instances
    # read in turn (a recurrence), up to MAX_UNFOLDED instances
    todo, seen = list(entries), set()
    while todo and len(seen) < MAX_UNFOLDED:
        e = todo.pop()
        if e in seen:
            continue
        seen.add(e)
        for h in forall:
            value = _forall_value(h, e, hypotheses)
            if value is not None:
                conditions.append(sp.Eq(e, value))
                if isinstance(value, sp.Basic):
                    todo += [a for a in value.atoms(sp.Indexed) if a not in seen]
    rng = tuple((v, lo, hi) for v, (lo, hi) in ranges.items()
                if v in claim_symbols and lo.is_Integer and hi.is_Integer)
    conditions = tuple(c for c in conditions if c is not sp.true)
    if any(c is sp.false for c in conditions):
        return None
    # conditions Z3 finds contradictory would show anything: such an instance is shown by nothing
    vacuous = recheck_sign(sp.Integer(-1), "positive", ranges=rng, conditions=conditions)
    if vacuous.verdict == AGREE:
        return None
    reasons = []
    for claim, rel in claims:
        check = recheck_sign(expand_finite(claim), rel, ranges=rng, conditions=conditions,
                             kernel="the instance's inequality")
        if check.verdict != AGREE:
            return None
        reasons.append(check.reason)
    return reasons[0] if len(reasons) == 1 else f"both inequalities {reasons[0]}"
