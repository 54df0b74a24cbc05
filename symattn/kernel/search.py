"""Concrete points: the finite expander, models of hypotheses, and the counterexample search.

Everything here works at *concrete points*: values for the free symbols of a statement and its
hypotheses. Three services, all used by the checker:

* :func:`expand_finite` -- the kernel's own expander for finite sums and products whose limits are
  concrete integers: unrolled term by term (capture-free: a bound variable is replaced only where
  it is bound by the sum being unrolled), never through SymPy's ``doit`` on a ``Sum`` (which
  evaluates ``Sum(KroneckerDelta(k, m/2), (k, 0, m))`` to 1). symattn's own heads (``Softmax``,
  ``Score``, ...) are expanded through their ``doit``, which rewrites them into sums.
* :func:`find_model` -- an assignment that satisfies every hypothesis (symbol assumptions, index
  ranges, equations, checkable assumptions, random families and their independence), tried first
  at the smallest values and then at random ones. A theorem whose hypotheses have no model found is
  not proved (ex falso is not a proof).
* :func:`find_counterexample` -- random points *inside* the hypotheses (only free symbols and the
  entries they make concrete are given values; bound variables never are), at which the statement
  is shown to fail by exact evaluation (:mod:`symattn.kernel.exact`: balls that exclude 0, minimal
  polynomials; floating point never decides); a side shown non-real at real inputs breaks an
  inequality. A point is reported only if every hypothesis holds there, and the report shows that
  it does; the two sides are shown as exact numbers.

Values are exact rationals; SymPy is trusted for exact arithmetic on numbers and for ``ask`` of a
predicate on a number.
"""

from __future__ import annotations

import contextvars
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement, MatrixExpr

from symattn.kernel import exact
from symattn.kernel.timelimit import TimeLimitExceeded, time_limit

__all__ = ["expand_finite", "Model", "find_model", "find_counterexample", "Counterexample", "hypothesis_symbols",
           "statement_symbols", "substitute_free", "check_hypotheses"]

#: the largest number of terms :func:`expand_finite` writes out for one sum
MAX_TERMS = 4096

class TooLarge(Exception):
    """A finite sum too long to unroll."""


# ---------------------------------------------------------------------------------------------- expander
def _bound_free_subs(expr: Any, var: sp.Symbol, value: Any) -> Any:
    """Replace the free occurrences of ``var`` in ``expr`` (an inner sum that binds ``var`` again
    keeps its own ``var``; its limits, which sit outside its binder, are still replaced)."""
    if not isinstance(expr, sp.Basic) or var not in expr.free_symbols:
        return expr
    if expr == var:
        return value
    if isinstance(expr, (sp.Sum, sp.Product)):
        # limits are innermost first; the bounds of limit m lie in the scope of the variables of the
        # limits after m. With K the outermost limit binding var: the body and the bounds of the
        # limits before K see the bound var; the bounds of K and of the limits after it see the free one.
        binding = [m for m, (v, _, _) in enumerate(expr.limits) if v == var]
        K = binding[-1] if binding else -1
        body = expr.function if binding else _bound_free_subs(expr.function, var, value)
        limits = [
            (v, lo, hi) if m < K else (v, _bound_free_subs(lo, var, value), _bound_free_subs(hi, var, value))
            for m, (v, lo, hi) in enumerate(expr.limits)
        ]
        return type(expr)(body, *limits)
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: _bound_free_subs(e, var, value))
    args = [_bound_free_subs(a, var, value) for a in expr.args]
    return expr.func(*args)


def _is_symattn_head(e: Any) -> bool:
    """symattn's own heads, and the heads of registered definitions (``symattn.rules.definitions.define``,
    e.g. a derivation module's LayerNorm): both unfold through their definitions."""
    if not isinstance(e, sp.Basic) or not hasattr(e, "doit"):
        return False
    if (type(e).__module__ or "").startswith("symattn."):
        return True
    from symattn.kernel.zero import UNFOLDINGS

    return type(e) in UNFOLDINGS


def _inside_shape(e: Any) -> bool:
    """Whether a head that reads an entry or component by index (``Entry``, ``Softmax``, ``PairOf``) has
    its indices shown inside the shape (:func:`symattn.kernel.index_bounds.check`, with the ranges of
    the step's hypotheses); an index shown outside at concrete integers raises
    :class:`~symattn.kernel.index_bounds.OutsideShape` (the statement is not defined there, never a
    value); one not shown either way leaves the head unexpanded."""
    from symattn.kernel.index_bounds import OutsideShape, check, obligations

    if not obligations(e):
        return True
    try:
        check(e)
    except OutsideShape:
        raise
    except (TypeError, ValueError):  # KernelError is a ValueError: not shown inside
        return False
    return True


def expand_finite(expr: Any) -> Any:
    """Unroll every finite sum/product with concrete integer limits, write matrix expressions of
    concrete shape as explicit matrices, and expand symattn's own heads through their definitions.

    >>> k, m = sp.symbols("k m", integer=True)
    >>> expand_finite(sp.Sum(k**2, (k, 1, 3)))
    14
    >>> expand_finite(sp.Sum(sp.KroneckerDelta(k, sp.Rational(3, 2)), (k, 0, 3)))
    0
    >>> expand_finite(sp.Sum(k, (k, 1, m)))
    Sum(k, (k, 1, m))
    >>> expand_finite(sp.Sum(k, (k, 4, 1)))  # Karr: -(2 + 3)
    -5
    """
    return _expand(expr, 0, {})


def _expand(e: Any, depth: int, memo: dict) -> Any:
    # ``memo``: the results of this call of expand_finite by (subterm, depth): a subterm repeated in
    # the tree (the entries of an unrolled matrix product share most of theirs) is expanded once
    if isinstance(e, sp.Basic) and not e.is_Atom:
        key = (e, depth)
        done = memo.get(key)
        if done is None:
            done = memo[key] = _expand_uncached(e, depth, memo)
        return done
    return _expand_uncached(e, depth, memo)


def _expand_uncached(e: Any, depth: int, memo: dict) -> Any:
    if depth > 200:  # counts unrolled sums and expanded definitions, not the depth of the tree
        raise TooLarge("expansion nests too deeply")
    if isinstance(e, sp.MatrixBase):
        return e.applyfunc(lambda x: _expand(x, depth, memo))
    if not isinstance(e, sp.Basic) or e.is_Atom:
        return e
    if isinstance(e, (sp.Sum, sp.Product)):
        # limits are innermost first: unroll the outermost; what is left is the inner sum
        (v, lo, hi) = e.limits[-1]
        body = type(e)(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function
        lo, hi = _expand(lo, depth, memo), _expand(hi, depth, memo)
        if lo.is_Integer and hi.is_Integer:
            # Karr's convention, as SymPy's and the sign test's: hi = lo - 1 is empty; a range with
            # hi < lo - 1 runs over hi+1..lo-1, negated for a sum, inverted for a product
            first, last, reverse = int(lo), int(hi), False
            if last < first - 1:
                first, last, reverse = last + 1, first - 1, True
            count = last - first + 1
            if count > MAX_TERMS:
                raise TooLarge(f"a sum of {count} terms")
            terms = [_bound_free_subs(body, v, sp.Integer(t)) for t in range(first, last + 1)]
            combined = sp.Add(*terms) if isinstance(e, sp.Sum) else sp.Mul(*terms)
            if reverse:
                combined = -combined if isinstance(e, sp.Sum) else 1 / combined
            return _expand(combined, depth + 1, memo)
        for b in (lo, hi):
            if isinstance(b, sp.Basic) and b.is_number and b.is_integer is not True and not b.has(
                    sp.oo, -sp.oo, sp.zoo):
                # the kernel's sums run over integer ranges: at this point the term is undefined (as an
                # entry outside its shape), never SymPy's value of a sum over 1/2..3/2
                from symattn.kernel.index_bounds import OutsideShape

                raise OutsideShape(f"the bound {sp.sstr(b)} of {type(e).__name__.lower()} over {sp.sstr(v)} is not an "
                                   "integer there")
        if len(e.limits) > 1:
            return e
        return type(e)(e.function, (v, lo, hi))
    if _is_symattn_head(e) and not _inside_shape(e):
        return e  # an index not shown inside the shape: the head stands for nothing to unfold
    if type(e).__name__ == "Entry" and _is_symattn_head(e):
        # an entry is read through the kernel's entry convention (a matrix symbol X has the real,
        # 1-based entries X[i, j]) before its matrix is written out: SymPy's explicit matrix has
        # the 0-based X[i - 1, j - 1] instead, another atom
        from symattn.kernel.zero import UNFOLDINGS

        unfold = UNFOLDINGS.get(type(e))
        try:
            done = unfold(e) if unfold is not None else None
        except (TypeError, ValueError):  # KernelError is a ValueError
            done = None
        if done is not None and done != e:
            return _expand(done, depth + 1, memo)
    if isinstance(e, MatrixExpr) and not isinstance(e, sp.MatrixSymbol) and _concrete_shape(e):
        combined = _combined_explicit(e, depth, memo)
        if combined is not None:
            return combined
        try:
            explicit = e.as_explicit()
        except (ValueError, TypeError, AttributeError, NotImplementedError):
            explicit = None
        if explicit is not None:
            return _expand(sp.ImmutableMatrix(explicit), depth + 1, memo)
    args = [_expand(a, depth, memo) for a in e.args]
    new = e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e
    if isinstance(new, (sp.Trace, sp.Determinant)) and isinstance(new.args[0], sp.MatrixBase):
        # the trace or determinant of an explicit matrix: exact arithmetic on its entries
        return _expand(new.args[0].trace() if isinstance(new, sp.Trace) else new.args[0].det(), depth + 1, memo)
    if type(new).__name__ == "Entry" and isinstance(new.args[0], sp.MatrixBase) and not all(
        getattr(t, "is_Integer", False) for t in new.args[1:]
    ):
        return new  # the entry of an explicit matrix at indices still free: read once they have values
    if _is_symattn_head(new) and not _inside_shape(new):
        return new
    if _is_symattn_head(new):
        from symattn.kernel.zero import UNFOLDINGS

        if not (type(new).__module__ or "").startswith("symattn.") and type(new) in UNFOLDINGS:
            # a head defined elsewhere unfolds through the kernel's frozen definition, never its methods
            try:
                done = UNFOLDINGS[type(new)](new)
            except (TypeError, ValueError):  # KernelError is a ValueError
                done = new
        else:
            done = new.doit()
        # a definition that does not unfold the head (it comes back, possibly with fresh dummies)
        # is left as it is
        if done != new and not (isinstance(done, sp.Basic) and done.has(type(new))):
            return _expand(done, depth + 1, memo)
    return new


def _concrete_shape(e: Any) -> bool:
    """Whether a matrix expression's shape is two integers (SymPy gives Python ints for a shape read
    from an explicit matrix, Integers otherwise)."""
    return all((isinstance(s, int) and not isinstance(s, bool)) or getattr(s, "is_Integer", False) for s in e.shape)


def _explicit_operand(a: Any, depth: int, memo: dict) -> Any:
    """An operand of a matrix sum/product/transpose written out: an explicit matrix, a scalar, or
    ``None`` (left to SymPy's ``as_explicit``)."""
    if isinstance(a, sp.MatrixSymbol) and _concrete_shape(a):
        return sp.ImmutableMatrix(a.as_explicit())  # its entries a[i, j], as as_explicit writes them
    done = _expand(a, depth, memo)
    if isinstance(done, sp.MatrixBase) or (isinstance(done, sp.Basic) and not isinstance(done, MatrixExpr)
                                           and not getattr(done, "is_Matrix", False)):
        return done
    return None


def _combined_explicit(e: Any, depth: int, memo: dict) -> Any:
    """A matrix sum, product, transpose or entrywise product of concrete shape, written out from its
    operands written out (the definition of each operation on explicit matrices): the same matrix as
    SymPy's ``as_explicit``, without an unevaluated ``Sum`` per entry of a product (``None``: not one of
    these, or an operand that does not write out)."""
    if not isinstance(e, (sp.MatMul, sp.MatAdd, sp.Transpose, sp.HadamardProduct)):
        return None
    ops = [_explicit_operand(a, depth, memo) for a in e.args]
    if any(o is None for o in ops):
        return None
    matrices = [o for o in ops if isinstance(o, sp.MatrixBase)]
    if not matrices:
        return None
    if isinstance(e, sp.Transpose):
        out = ops[0].T
    elif isinstance(e, sp.MatMul):
        scalars = sp.Mul(*[o for o in ops if not isinstance(o, sp.MatrixBase)])
        out = matrices[0]
        for m in matrices[1:]:
            out = out * m
        out = out * scalars if scalars != 1 else out
    elif isinstance(e, sp.MatAdd):
        if len(matrices) != len(ops):
            return None
        out = matrices[0]
        for m in matrices[1:]:
            out = out + m
    else:
        if len(matrices) != len(ops):
            return None
        out = matrices[0]
        for m in matrices[1:]:
            out = out.multiply_elementwise(m)
    if out.shape != tuple(int(s) for s in e.shape):
        return None
    return _expand(sp.ImmutableMatrix(out), depth + 1, memo)


# ---------------------------------------------------------------------------------------------- points
def _hyps(hypotheses, kind: str) -> list:
    return [h for h in hypotheses if type(h).__name__ == kind]


def _basic_symbols(x: Any) -> set:
    """Free scalar symbols of ``x`` (matrix shapes included), without the labels of indexed bases
    (``s`` in ``s[j]`` is a name, not a value)."""
    if not isinstance(x, (sp.Basic, sp.MatrixBase)):
        return set()
    out = {s for s in x.free_symbols if isinstance(s, sp.Symbol)}
    if isinstance(x, sp.Basic):
        out -= {b.label for b in x.atoms(sp.IndexedBase)}
        for m in x.atoms(sp.MatrixSymbol):
            for dim in m.shape:
                out |= {s for s in getattr(dim, "free_symbols", set()) if isinstance(s, sp.Symbol)}
    return out


def substitute_free(x: Any, point: dict, _memo: dict | None = None) -> Any:
    """Simultaneous, capture-free substitution of ``point`` into ``x``: a variable bound by a sum or
    product inside ``x`` is never replaced there (only its free occurrences are)."""
    if isinstance(x, int) and not isinstance(x, bool):
        return sp.Integer(x)
    if isinstance(x, sp.MatrixBase):
        memo: dict = {}
        return x.applyfunc(lambda e: substitute_free(e, point, memo))
    if not isinstance(x, sp.Basic) or not point:
        return x
    if x in point:
        return point[x]
    if x.is_Atom and not isinstance(x, sp.Indexed):
        return x
    # a subterm repeated in ``x`` (the entries of an unrolled matrix product share most of theirs) is
    # substituted once: the memo holds the results under this ``point`` (a sum's body gets its own)
    if _memo is None:
        _memo = {}
    done = _memo.get(x)
    if done is not None:
        return done
    if isinstance(x, sp.Indexed):  # an Atom to SymPy, but its indices may hold free symbols
        new = x.base[tuple(substitute_free(t, point, _memo) for t in x.indices)]
        out = point.get(new, new)
    elif isinstance(x, sp.Derivative):
        out = _substitute_derivative(x, point, _memo)
    elif isinstance(x, sp.Lambda):  # its variables are bound: only the free occurrences are replaced
        bound = set(x.variables)
        inner = {k: val for k, val in point.items() if k not in bound}
        out = sp.Lambda(x.variables, substitute_free(x.expr, inner)) if inner else x
    elif isinstance(x, (sp.Sum, sp.Product)):
        # bounds of limit m are in the scope of the variables of the limits after m
        limits = []
        for m, (v, lo, hi) in enumerate(x.limits):
            outer = {w for (w, _, _) in x.limits[m + 1:]}
            sub = {k: val for k, val in point.items() if k not in outer}
            limits.append((v, substitute_free(lo, sub), substitute_free(hi, sub)))
        bound = {v for (v, _, _) in x.limits}
        inner = {k: val for k, val in point.items() if k not in bound}
        out = type(x)(substitute_free(x.function, inner), *limits)
    else:
        args = [substitute_free(a, point, _memo) for a in x.args]
        out = x.func(*args) if any(a is not b for a, b in zip(args, x.args)) else x
    _memo[x] = out
    return out


def _substitute_derivative(x: sp.Derivative, point: dict, memo: dict) -> Any:
    """A derivative at a point: ``d f / d s_j`` at ``s_1 = 2`` is ``(d f / d s_1)`` evaluated at 2, never
    ``d f / d 2``. The variables take the point's values of their indices (``s_j`` at ``j = 1`` is
    ``s_1``), the body every other value; the derivative is then taken (SymPy's exact
    differentiation, of an expression the point has made concrete) and the variables' values put in.
    A derivative SymPy leaves unevaluated keeps its variables unvalued (no number: no evidence)."""
    variables = []
    for v, count in x.variable_count:
        if isinstance(v, sp.Indexed):
            v = v.base[tuple(substitute_free(t, point, memo) for t in v.indices)]
        variables.append((v, count))
    names = {v for v, _ in variables}
    inner = {k: val for k, val in point.items() if k not in names}
    body = expand_finite(substitute_free(x.expr, inner))
    done = evaluate_derivatives(sp.Derivative(body, *variables, evaluate=False))
    if isinstance(done, sp.Basic) and done.has(sp.Derivative):
        return done
    return substitute_free(done, {k: val for k, val in point.items() if k in names})


def _concrete_variable(v: Any) -> bool:
    return isinstance(v, sp.Symbol) or (isinstance(v, sp.Indexed) and all(
        getattr(t, "is_Integer", False) for t in v.indices))


def evaluate_derivatives(x: Any) -> Any:
    """``x`` with each derivative of a concrete body (no unevaluated sum, product, integral or limit)
    by concrete variables (a symbol, an entry at integer indices) taken by the kernel's
    :func:`~symattn.kernel.calculus.derivative` (the body shown differentiable head by head, the
    result re-checked by the second engine); one it refuses is left unevaluated (no evidence)."""
    if isinstance(x, sp.MatrixBase):
        return x.applyfunc(evaluate_derivatives)
    if not isinstance(x, sp.Basic) or not x.has(sp.Derivative):
        return x
    from symattn.kernel.calculus import value_of_derivative

    def take(d):
        if d.expr.has(sp.Derivative, sp.Sum, sp.Product, sp.Integral, sp.Limit):
            return d
        if not all(_concrete_variable(v) for v, _ in d.variable_count):
            return d
        try:
            return value_of_derivative(d)
        except (ValueError, TypeError, NotImplementedError):  # KernelError is a ValueError
            return d

    return x.replace(lambda e: isinstance(e, sp.Derivative), take)


def _hypothesis_exprs(h) -> list:
    kind = type(h).__name__
    if kind == "Equation":
        return [h.lhs, h.rhs]
    if kind == "IndexRange":
        return [h.index, h.lower, h.upper]
    if kind == "Assumption":
        c = h.condition
        return [c] if isinstance(c, sp.Basic) else []
    if kind == "RandomFamily":
        return [h.dim, h.mean, h.variance, *(sp.sympify(m) for _, m in h.moments)]
    if kind == "CorrelatedPairs":
        return [h.dim, h.covariance, *(sp.sympify(v) for _, v in h.mixed)]
    if kind == "Permutation":
        return [h.n]
    return []


def statement_symbols(statement) -> set:
    """The free scalar symbols of a statement's sides (matrix shapes included, labels of indexed
    bases excluded)."""
    return _basic_symbols(statement.lhs) | _basic_symbols(statement.rhs)


def hypothesis_symbols(hypotheses) -> set:
    """The free symbols the hypotheses mention (forall variables of equations excluded)."""
    out: set = set()
    for h in hypotheses:
        syms = set().union(*(_basic_symbols(e) for e in _hypothesis_exprs(h)))
        syms -= set(getattr(h, "forall", ()) or ())
        out |= syms
    return out


def _assumption_ok(atom: Any, value: Any) -> bool:
    """Whether ``value`` has every property SymPy's assumptions give ``atom`` (positive, integer,
    nonzero, prime, even, ...)."""
    facts = getattr(atom, "assumptions0", None)
    if facts is None:  # Indexed entries carry their base's assumptions through is_<fact>
        facts = {}
        for fact in ("integer", "real", "positive", "negative", "nonnegative", "nonpositive", "nonzero", "zero"):
            v = getattr(atom, f"is_{fact}", None)
            if v is not None:
                facts[fact] = v
    if _is_number(value) and not isinstance(value, sp.MatrixBase):
        # a number: every declared fact decided of it (a value breaking any of them, prime, composite,
        # antihermitian, irrational, ..., is no point of the symbol: adversarial review 13 had 2 <= b_1
        # "refuted" at b_1 = 1 for a prime base, and s^2 <= 0 at s = 3/4 for an antihermitian s)
        return all(_number_has(value, fact) is bool(wanted) for fact, wanted in facts.items())
    for fact, wanted in facts.items():
        if fact in ("commutative", "hermitian", "complex", "finite", "infinite", "extended_real",
                    "extended_positive", "extended_negative", "extended_nonnegative", "extended_nonpositive",
                    "extended_nonzero", "imaginary", "antihermitian", "algebraic", "transcendental"):
            if fact in ("infinite", "imaginary", "transcendental") and wanted:
                return False
            continue
        got = getattr(value, f"is_{fact}", None)
        if got is None or bool(got) != bool(wanted):
            return False
    return True


def _number_has(value: Any, fact: str) -> bool | None:
    """Whether the closed number ``value`` has the assumption ``fact`` (None: not decided). SymPy
    decides most facts of a number; ``antihermitian`` of a real number is whether it is 0 (SymPy
    leaves ``Rational(3, 4).is_antihermitian`` undecided)."""
    got = getattr(value, f"is_{fact}", None)
    if got is None and fact == "antihermitian" and value.is_extended_real is True:
        got = value.is_zero
    return got


def _draw(atom: Any, rng: random.Random | None) -> Any:
    """A value for ``atom``: the smallest plausible value when ``rng`` is None, otherwise a small
    random one; shaped by the atom's integer/sign assumptions (checked afterwards in full)."""
    integer = bool(getattr(atom, "is_integer", False))
    if rng is None:
        known_nonzero = getattr(atom, "is_positive", False) or getattr(atom, "is_nonzero", False)
        base = sp.Integer(1) if known_nonzero else sp.Integer(0)
        if getattr(atom, "is_negative", False):
            base = sp.Integer(-1)
        if getattr(atom, "is_prime", False):
            base = sp.Integer(2)
        return base
    pattern = _PATTERN.get()
    if pattern is not None:
        return _patterned(atom, integer, *pattern)
    v = sp.Integer(rng.randint(-6, 6)) if integer else sp.Rational(rng.randint(-9, 9), rng.randint(1, 4))
    if getattr(atom, "is_positive", False):
        v = abs(v) + (1 if integer else sp.Rational(1, 2))
    elif getattr(atom, "is_nonnegative", False):
        v = abs(v)
    elif getattr(atom, "is_negative", False):
        v = -abs(v) - 1
    elif getattr(atom, "is_nonpositive", False):
        v = -abs(v)
    if getattr(atom, "is_nonzero", False) and v == 0:
        v = sp.Integer(1)
    if getattr(atom, "is_imaginary", False):
        return sp.I * (v if v != 0 else sp.Integer(1))  # an imaginary symbol: a nonzero multiple of i
    if _COMPLEX_DRAWS.get() and not integer and getattr(atom, "is_real", None) is None \
            and getattr(atom, "is_extended_real", None) is None and rng.random() < 0.5:
        # an equation's symbol not declared real is complex: half the draws leave the real line
        # (``conjugate(z) = z`` has no real counterexample)
        return v + sp.I * sp.Rational(rng.choice((-7, -4, -2, -1, 1, 2, 4, 7)), rng.randint(1, 3))
    return v


def _patterned(atom: Any, integer: bool, magnitude: Any, imaginary: Any, positive: bool = False) -> Any:
    """The value of a patterned try (:data:`_PATTERNS`): ``-magnitude`` for every symbol whose
    assumptions allow a negative value, ``+magnitude`` for one that must be nonnegative, an
    integer's magnitude rounded up; an equation's symbol not declared real also gets the imaginary
    part. Every symbol negative at once is the sign pattern independent draws reach least often
    (``sqrt(x y) = sqrt(x) sqrt(y)`` fails only there), and 1/2 the magnitude below 1 a positive
    symbol's draws rarely reach (``sqrt(p) <= p``). ``positive`` (the patterns of a model search,
    :data:`_MODEL_PATTERNS`): ``+magnitude`` for every symbol that may be positive."""
    v = sp.ceiling(magnitude) if integer else magnitude
    if positive:
        if getattr(atom, "is_negative", False) or getattr(atom, "is_nonpositive", False):
            v = -v
    elif not (getattr(atom, "is_positive", False) or getattr(atom, "is_nonnegative", False)):
        v = -v
    if getattr(atom, "is_imaginary", False):
        return sp.I * v
    if imaginary and _COMPLEX_DRAWS.get() and not integer and getattr(atom, "is_real", None) is None \
            and getattr(atom, "is_extended_real", None) is None:
        return v + sp.I * imaginary  # an imaginary part beyond pi (log(exp(z)) = z fails there)
    return v


#: the tries after the first (smallest values) and before the random ones: (magnitude, imaginary part)
_PATTERNS = ((sp.Rational(1, 2), 0), (sp.Integer(3), sp.Integer(4)))

#: the tries of a model search after the first (smallest values) and before the random ones: every
#: symbol at 1, at 1/2, at 3 (positive where its assumptions allow), then at -1 (where they allow):
#: ``x y >= 1`` with ``x^2 + y^2 <= 2`` has its rational models at ``x = y = 1`` and ``x = y = -1``,
#: ``sin(pi x) >= 1`` at ``x = 1/2``, points independent draws seldom reach
_MODEL_PATTERNS = ((sp.Integer(1), 0, True), (sp.Rational(1, 2), 0, True), (sp.Integer(3), 0, True),
                   (sp.Integer(1), 0, False))

#: while a patterned try draws its point: the pattern (None: random draws)
_PATTERN: contextvars.ContextVar = contextvars.ContextVar("symattn_draw_pattern", default=None)


#: while the counterexample search of an equation draws its points: symbols not declared real may get
#: complex values (an inequality's are real: complex numbers have no order)
_COMPLEX_DRAWS: contextvars.ContextVar = contextvars.ContextVar("symattn_complex_draws", default=False)


def _is_number(x: Any) -> bool:
    if isinstance(x, sp.MatrixBase):
        return all(_is_number(e) for e in x)
    return isinstance(x, sp.Basic) and x.is_number


def _evaluate(x: Any, point: dict) -> Any:
    if isinstance(x, int) and not isinstance(x, bool):
        return sp.Integer(x)
    if not isinstance(x, (sp.Basic, sp.MatrixBase)):
        return x
    # substitute, unroll, and again: unrolling makes entries (s[1]) that the point values
    for _ in range(4):
        new = expand_finite(substitute_free(x, point))
        if new == x:
            break
        x = new
    return x


def _numbers_equal(a: Any, b: Any) -> bool | None:
    """Exact comparison of two closed numbers (None: undefined or not shown either way); see
    :mod:`symattn.kernel.exact` (balls for "differ", minimal polynomials for "equal")."""
    return exact.equal(a, b)


def _truth(cond: Any) -> bool | None:
    """The truth of a closed condition (a relational, a boolean, a ``Q`` predicate)."""
    if cond is sp.true or cond is True:
        return True
    if cond is sp.false or cond is False:
        return False
    if isinstance(cond, sp.logic.boolalg.BooleanFunction) and not isinstance(cond, sp.core.relational.Relational):
        parts = [_truth(a) for a in cond.args]
        if isinstance(cond, sp.And):
            return False if False in parts else (None if None in parts else True)
        if isinstance(cond, sp.Or):
            return True if True in parts else (None if None in parts else False)
        if isinstance(cond, sp.Not):
            return None if parts[0] is None else not parts[0]
        return None
    if isinstance(cond, sp.core.relational.Relational):
        if isinstance(cond, sp.Eq):
            return _numbers_equal(cond.lhs, cond.rhs)
        if isinstance(cond, sp.Ne):
            eq = _numbers_equal(cond.lhs, cond.rhs)
            return None if eq is None else not eq
        try:
            s = exact.sign(cond.lhs - cond.rhs)
        except (TypeError, ValueError):
            return None
        if s is None:
            return None
        if s == "nonreal":
            return False
        return {sp.Le: s <= 0, sp.Lt: s < 0, sp.Ge: s >= 0, sp.Gt: s > 0}[type(cond)]
    if isinstance(cond, sp.assumptions.AppliedPredicate):
        try:
            return sp.ask(cond)
        except Exception:
            return None
    return None


@dataclass
class Model:
    """A concrete assignment and, per hypothesis, how it was seen to hold."""

    values: dict
    holds: list = field(default_factory=list)  # (hypothesis name, evidence) checked at the values
    unchecked: list = field(default_factory=list)  # (hypothesis name, why it could not be checked)

    def describe(self, limit: int = 12) -> str:
        shown = sorted(self.values.items(), key=lambda kv: sp.default_sort_key(kv[0]))
        where = ", ".join(f"{sp.sstr(s)} = {sp.sstr(v)}" for s, v in shown[:limit])
        if len(shown) > limit:
            where += f", ... ({len(shown)} values)"
        out = f"at {where or 'no free symbols'}"
        if self.holds:
            out += "; hypotheses hold there: " + "; ".join(f"{n}: {e}" for n, e in self.holds)
        if self.unchecked:
            out += "; stated in words (no formal content): " + ", ".join(n for n, _ in self.unchecked)
        return out


class _Reject(Exception):
    """The point violates a hypothesis or an assumption (message says which).

    ``point_free``: the violated condition takes no value from the point (every symbol and entry in it
    was already concrete), so *every* point violates it: the hypotheses have no model at all. Otherwise
    (the default) only this point is shown outside them, and another might be a model."""

    def __init__(self, message: str, point_free: bool = False):
        super().__init__(message)
        self.point_free = point_free


class Reason(str):
    """Why a try of :func:`find_model` failed; ``shown_false`` when the reason holds at every point
    (a condition with nothing left to take a value is false), not only at the point tried."""

    shown_false: bool = False

    def __new__(cls, text: str, shown_false: bool = False):
        out = super().__new__(cls, text)
        out.shown_false = shown_false
        return out


def _open(e: Any) -> bool:
    """Whether ``e`` still takes a value from a point: a free symbol, an entry (``L[1]``, ``X[0, 1]``),
    a matrix symbol, or a moment (whose value comes from a family's law, whose parameters may be open)."""
    if isinstance(e, sp.MatrixBase):
        return any(_open(x) for x in e)
    if not isinstance(e, sp.Basic):
        return False
    return bool(_basic_symbols(e) or e.atoms(sp.Indexed, sp.MatrixSymbol, MatrixElement) or _mentions_moment(e))


def _random_bases(hypotheses) -> set:
    return {h.base for h in _hyps(hypotheses, "RandomFamily")}


def _mentions_random(e: Any, bases: set) -> bool:
    """Whether ``e`` mentions a random entry outside an expectation-like head of symattn."""
    if not isinstance(e, sp.Basic):
        return False
    if _is_symattn_head(e) and type(e).__module__ in ("symattn.rules.expectation", "symattn.kernel.objects.moments"):
        return False
    if isinstance(e, sp.Indexed) and e.base in bases:
        return True
    if e in bases:
        return True
    return any(_mentions_random(a, bases) for a in e.args)


def _order_symbols(symbols: set, hypotheses) -> list:
    """Symbols in an order where each index range's bounds come before its index and each
    equation-determined symbol after what determines it."""
    deps: dict = {s: set() for s in symbols}
    for h in _hyps(hypotheses, "IndexRange"):
        if h.index in deps:
            deps[h.index] |= (_basic_symbols(h.lower) | _basic_symbols(h.upper)) & symbols - {h.index}
    for s, rhs in _determined(hypotheses, symbols).items():
        deps[s] |= _basic_symbols(rhs) & symbols - {s}
    out, seen = [], set()

    def visit(s, trail=()):
        if s in seen or s in trail:
            return
        for d in sorted(deps.get(s, ()), key=sp.default_sort_key):
            visit(d, trail + (s,))
        seen.add(s)
        out.append(s)

    for s in sorted(symbols, key=sp.default_sort_key):
        visit(s)
    return out


def _determined(hypotheses, symbols: set) -> dict:
    """Symbols that an equation hypothesis (no forall) fixes: ``s = rhs`` with ``s`` not in rhs; and
    an assumption ``Eq(a, b)`` (alone or in an ``And``) linear in a symbol with a nonzero number as its
    coefficient (or one in other symbols, evaluated at the point), solved for it (``Eq(3 x, 1)``:
    ``x = 1/3``; ``Eq(x + y, -7)``: ``x = -7 - y``), points no draw reaches. A proposal only: the
    value is checked against every hypothesis afterwards."""
    out = {}
    for h in _hyps(hypotheses, "Equation"):
        if h.forall:
            continue
        for a, b in ((h.lhs, h.rhs), (h.rhs, h.lhs)):
            if isinstance(a, sp.Symbol) and a in symbols and a not in _basic_symbols(b) and a not in out:
                out[a] = b
                break
    for c in _assumed_equations(hypotheses):
        try:
            gap = sp.expand(c.lhs - c.rhs)
        except (TypeError, AttributeError):
            continue
        for v in sorted(_basic_symbols(gap) & symbols, key=sp.default_sort_key):
            if v in out or not isinstance(v, sp.Symbol):
                continue
            coeff = gap.coeff(v, 1)
            rest = sp.expand(gap - coeff * v)
            # a coefficient with symbols is evaluated at the point (0 there: no number, no model)
            if coeff != 0 and coeff.is_zero is not True and v not in _basic_symbols(rest) | _basic_symbols(coeff) \
                    and not any(v in _basic_symbols(d) for d in out.values()):
                out[v] = -rest / coeff
                break
    return out


def _assumed_equations(hypotheses) -> list:
    """The equations ``Eq(a, b)`` that assumptions state (alone or in an ``And``)."""
    out = []
    for h in _hyps(hypotheses, "Assumption"):
        cond = getattr(h, "condition", None)
        for c in (cond.args if isinstance(cond, sp.And) else (cond,)):
            if isinstance(c, sp.Eq):
                out.append(c)
    return out


def _member_sets(hypotheses, symbols: set) -> dict:
    """Symbols that an assumption confines to a set: ``Contains(s, S)`` (alone or in an ``And``),
    ``s`` a symbol; two such sets for one symbol are intersected."""
    out: dict = {}
    for h in _hyps(hypotheses, "Assumption"):
        cond = getattr(h, "condition", None)
        parts = cond.args if isinstance(cond, sp.And) else (cond,)
        for c in parts:
            if isinstance(c, sp.Eq) and (roots := _quadratic_roots(c, symbols)) is not None:
                s, where = roots
                out[s] = where if s not in out else sp.Intersection(out[s], where)
            elif isinstance(c, sp.Contains) and isinstance(c.args[0], sp.Symbol) and c.args[0] in symbols:
                s, where = c.args[0], c.args[1]
                out[s] = where if s not in out else sp.Intersection(out[s], where)
            elif (bound := _closed_bound(c, symbols)) is not None:
                s, where = bound
                out[s] = where if s not in out else sp.Intersection(out[s], where)
    return out


def _quadratic_roots(c: Any, symbols: set):
    """``(s, {roots})`` for an equation of one symbol, a quadratic with rational coefficients
    (``Eq(x^2, 2)``: ``x`` in ``{-sqrt(2), sqrt(2)}``), else None; the roots are checked afterwards."""
    try:
        gap = sp.expand(c.lhs - c.rhs)
    except (TypeError, AttributeError):
        return None
    free = _basic_symbols(gap)
    if len(free) != 1 or not free <= symbols:
        return None
    (v,) = free
    if not isinstance(v, sp.Symbol):
        return None
    try:
        poly = sp.Poly(gap, v)
    except sp.PolynomialError:
        return None
    if poly.degree() != 2 or not all(q.is_Rational for q in poly.all_coeffs()):
        return None
    a2, a1, a0 = poly.all_coeffs()
    disc = a1**2 - 4 * a2 * a0
    if disc < 0:
        return None
    return v, sp.FiniteSet((-a1 - sp.sqrt(disc)) / (2 * a2), (-a1 + sp.sqrt(disc)) / (2 * a2))


def _closed_bound(c: Any, symbols: set):
    """``(s, interval)`` for a bound ``s > a`` (``>=``, ``<``, ``<=``, either way round) of a symbol by a
    closed real number (nothing in ``a`` takes a value from the point): the values are then drawn
    inside it (a hypothesis ``x > 10^9 n`` at ``n = 1`` has models no small random value reaches).
    None otherwise. The drawn value is still checked against every hypothesis."""
    if not isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan, sp.StrictLessThan, sp.LessThan)):
        return None
    lhs, rhs, gt = c.lhs, c.rhs, isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan))
    strict = isinstance(c, (sp.StrictGreaterThan, sp.StrictLessThan))
    if isinstance(rhs, sp.Symbol) and rhs in symbols and not isinstance(lhs, sp.Symbol):
        lhs, rhs, gt = rhs, lhs, not gt
    if not (isinstance(lhs, sp.Symbol) and lhs in symbols) or _open(rhs) or not rhs.is_number:
        return None
    if not (rhs.is_real and rhs.is_finite):
        return None
    value = sp.nsimplify(rhs) if isinstance(rhs, sp.Float) else rhs
    if gt:
        return lhs, sp.Interval(value, sp.oo, left_open=strict)
    return lhs, sp.Interval(-sp.oo, value, right_open=strict)


def _draw_from(s: sp.Symbol, where: Any, rng: random.Random | None) -> Any:
    """A value of ``s`` inside the set ``where`` that agrees with the assumptions of ``s`` (the smallest
    such when ``rng`` is None); :class:`_Reject` when there is none that is easy to see."""
    if where is sp.S.EmptySet:
        raise _Reject(f"{s} must lie in the empty set", point_free=True)
    integer = bool(getattr(s, "is_integer", False))
    if isinstance(where, sp.FiniteSet):
        members = sorted((v for v in where.args if v.is_number and _assumption_ok(s, v)), key=sp.default_sort_key)
        if not members:
            raise _Reject(f"no member of {sp.sstr(where)} fits the assumptions of {s}", point_free=True)
        return members[0] if rng is None else members[rng.randrange(len(members))]
    if isinstance(where, sp.Interval) and where.start.is_number and where.end.is_number:
        lo, hi = where.start, where.end
        if integer:
            first = sp.ceiling(lo) if lo.is_finite else sp.floor(hi) - 6 if hi.is_finite else sp.Integer(0)
            if where.left_open and first == lo:
                first += 1
            last = sp.floor(hi) if hi.is_finite else first + 6
            if where.right_open and last == hi:
                last -= 1
            candidates = [sp.Integer(v) for v in range(int(first), int(min(last, first + 6)) + 1)]
        else:
            if lo.is_finite and hi.is_finite:
                candidates = [lo + (hi - lo) * sp.Rational(k, 4) for k in (2, 1, 3, 0, 4)]
            elif lo.is_finite:
                candidates = [lo + sp.Rational(k, 2) for k in range(0, 8)]
            elif hi.is_finite:
                candidates = [hi - sp.Rational(k, 2) for k in range(0, 8)]
            else:
                candidates = [sp.Integer(k) for k in (0, 1, -1, 2)]
        fits = [v for v in candidates if where.contains(v) is sp.true and _assumption_ok(s, v)]
        pick = None if rng is None or not fits else fits[rng.randrange(len(fits))]
        pattern = _PATTERN.get() if rng is not None else None
        if pattern is not None:  # a patterned try: the pattern's value where the set holds it (the
            # random draws after the patterns stay as they were: ``pick`` consumed the same draw)
            value = _patterned(s, integer, *pattern)
            for v in (value, -value):
                if where.contains(v) is sp.true and _assumption_ok(s, v):
                    return v
        if not fits:
            raise _Reject(f"no value of {s} found in {sp.sstr(where)}")
        return fits[0] if rng is None else pick
    raise _Reject(f"cannot draw {s} from {sp.sstr(where)}")


def _assign(statement_exprs: list, hypotheses, rng: random.Random | None, extra: Iterable = ()) -> dict:
    """One candidate point: values for every free symbol, then for every entry (``s[1]``, ``X[0, 1]``)
    the substituted expressions make concrete. Raises :class:`_Reject` if a value breaks an
    assumption or an index range is empty there."""
    exprs = list(statement_exprs) + [e for h in hypotheses for e in _hypothesis_exprs(h)]
    symbols = set().union(*(_basic_symbols(e) for e in statement_exprs)) | hypothesis_symbols(hypotheses) | set(extra)
    for h in _hyps(hypotheses, "Equation"):
        symbols -= set(h.forall or ())
    ranges = {h.index: h for h in _hyps(hypotheses, "IndexRange")}
    determined = _determined(hypotheses, symbols)
    members = _member_sets(hypotheses, symbols)
    point: dict = {}
    for s in _order_symbols(symbols, hypotheses):
        if s in determined:
            v = _evaluate(determined[s], point)
            if not _is_number(v):
                raise _Reject(f"{s} = {sp.sstr(determined[s])} is not a number there")
        elif s in members and s not in ranges:
            where = _evaluate(members[s], point)
            if isinstance(where, sp.Intersection):
                where = where.doit() if hasattr(where, "doit") else where
            try:
                v = _draw_from(s, where, rng)
            except _Reject as exc:  # shown for every point only when the set took nothing from this one
                raise _Reject(str(exc), point_free=exc.point_free and not _open(members[s])) from None
        elif s in ranges:
            for bound in (ranges[s].lower, ranges[s].upper):  # an entry in a bound (i in 1..w[1]) first
                for a in sorted(sp.sympify(bound).atoms(sp.Indexed), key=sp.default_sort_key):
                    # the entry at the point (w[i] is w[1] once i = 1): valued once, under that name only
                    entry = _evaluate(a, point)
                    if not isinstance(entry, sp.Indexed) or entry in point \
                            or not all(t.is_Integer for t in entry.indices):
                        continue
                    v_a = _draw(entry, rng)
                    if not _entry_ok(entry, v_a):
                        raise _Reject(f"{sp.sstr(entry)} = {sp.sstr(v_a)} breaks the assumptions of "
                                      f"{sp.sstr(entry.base)}")
                    point[entry] = v_a
            lo, hi = _evaluate(ranges[s].lower, point), _evaluate(ranges[s].upper, point)
            if not (getattr(lo, "is_Integer", False) and getattr(hi, "is_Integer", False)):
                raise _Reject(f"the range of {s} is not concrete")
            if lo > hi:
                raise _Reject(f"the range {ranges[s].name} of {s} is empty there ({lo}..{hi})",
                              point_free=not (_open(ranges[s].lower) or _open(ranges[s].upper)))
            v = lo if rng is None else sp.Integer(rng.randint(int(lo), int(hi)))
        else:
            v = _draw(s, rng)
        if not _assumption_ok(s, v):
            raise _Reject(f"{s} = {v} breaks the assumptions of {s}",
                          point_free=s in determined and not _open(determined[s]))
        point[s] = v
    # entries made concrete: Indexed with integer indices, matrix entries
    bases = _random_bases(hypotheses)
    for _ in range(8):
        pending = set()
        for e in exprs:
            ev = _evaluate(e, point) if isinstance(e, (sp.Basic, sp.MatrixBase)) else None
            if isinstance(ev, (sp.Basic, sp.MatrixBase)):
                pending |= {a for a in _atoms(ev) if a not in point}
        if not pending:
            break
        _solve_linear_equations(hypotheses, point, pending, rng, bases)
        pending = {a for a in pending if a not in point}
        for a in sorted(pending, key=sp.default_sort_key):
            if isinstance(a, sp.Indexed) and a.base in bases:
                continue  # a random entry: no value (the statement speaks of its distribution)
            if a in point:  # valued meanwhile, as an entry a definition refers to
                continue
            v = _entry_from_equations(a, hypotheses, point, rng, bases)
            point[a] = v if v is not None else _draw(a, rng)
    for a in point:  # every entry valued under its name at the point: w[i] and w[1] at i = 1 are one
        if isinstance(a, sp.Indexed) and any(_basic_symbols(t) and _basic_symbols(t) <= set(point) for t in a.indices):
            raise _Reject(f"{sp.sstr(a)} was valued before its index: the point is not consistent")
    for a, v in point.items():  # an entry keeps its base's assumptions (a[j] >= 0 for a nonnegative base)
        if isinstance(a, (sp.Indexed, MatrixElement)) and _is_number(v) and not _entry_ok(a, v):
            raise _Reject(f"{sp.sstr(a)} = {sp.sstr(v)} breaks the assumptions of {sp.sstr(a.args[0])}")
    return point


def _entry_ok(atom, value) -> bool:
    """Whether a value keeps an entry's assumptions, the sign facts decided exactly."""
    for fact, test in (("positive", lambda s: s == 1), ("negative", lambda s: s == -1),
                       ("nonnegative", lambda s: s in (0, 1)), ("nonpositive", lambda s: s in (0, -1)),
                       ("real", lambda s: s in (-1, 0, 1)), ("nonzero", lambda s: s != 0)):
        if getattr(atom, f"is_{fact}", None):
            sv = exact.sign(value)
            if sv is None or not test(sv):
                return False
    if getattr(atom, "is_integer", None) and not getattr(value, "is_Integer", False):
        return False
    return _assumption_ok(atom, value)  # every other declared fact (prime, even, irrational, ...)


def _solve_linear_equations(hypotheses, point, pending, rng, bases) -> None:
    """For an equation (no forall) over entries not yet valued (``a[1] + a[2] = 1``): value all but
    the last entry, and solve for the last when the equation is linear in it."""
    for h in _hyps(hypotheses, "Equation"):
        if h.forall:
            continue
        try:
            r = _evaluate(sp.sympify(h.lhs) - sp.sympify(h.rhs), point)
        except (TypeError, sp.SympifyError):
            continue
        if not isinstance(r, sp.Expr):
            continue
        unknown = sorted((a for a in _atoms(r) if a not in point and a in pending
                          and not (isinstance(a, sp.Indexed) and a.base in bases)), key=sp.default_sort_key)
        if not unknown:
            continue
        *rest, last = unknown
        for a in rest:
            v = _entry_from_equations(a, hypotheses, point)
            if v is None and (getattr(a, "is_positive", False) or getattr(a, "is_nonnegative", False)) \
                    and not getattr(a, "is_integer", False):
                # a weight of a sum: a small share, so that the solved last one keeps its sign too
                # (the equal split 1/len first, as the smallest point of a simplex)
                share = sp.Rational(1, len(unknown))
                v = share if rng is None else share * sp.Rational(rng.randint(1, 9), 10)
            point[a] = v if v is not None else _draw(a, rng)
        r = _evaluate(r, point)
        coeff = sp.expand(r).coeff(last, 1)
        if coeff.is_number and coeff != 0 and not sp.expand(r - coeff * last).has(last):
            point[last] = -(r - coeff * last) / coeff


def _atoms(e: Any) -> set:
    if isinstance(e, sp.MatrixBase):
        return set().union(*(_atoms(x) for x in e)) if len(e) else set()
    out = set()
    for a in e.atoms(sp.Indexed, MatrixElement, sp.Symbol):
        if isinstance(a, sp.Indexed) and all(getattr(i, "is_Integer", False) for i in a.indices):
            out.add(a)
        elif isinstance(a, MatrixElement) and a.i.is_Integer and a.j.is_Integer:
            out.add(a)
    return out


def _entry_from_equations(atom, hypotheses, point, rng=None, bases=frozenset(), depth: int = 0) -> Any:
    """The value an equation hypothesis gives an entry (``L[0] = 0``, or ``L[t] = ...`` for all t,
    at a t inside the forall variable's assumptions), or None. The entries a definition refers to
    (``S[1]`` in ``E[0] = S[1] - S[0]``) are valued first (by their own equations, or drawn)."""
    for h in _hyps(hypotheses, "Equation"):
        if not isinstance(h.lhs, sp.Indexed) or not isinstance(atom, sp.Indexed) or h.lhs.base != atom.base:
            continue
        if not h.forall and substitute_free(h.lhs, point) == atom:
            v = _evaluate(h.rhs, point)
            return v if _is_number(v) else None
        if h.forall and len(h.lhs.indices) == len(atom.indices):
            sub = {}
            for pat, idx in zip(h.lhs.indices, atom.indices):
                if pat in h.forall and _assumption_ok(pat, idx):
                    sub[pat] = idx
                elif pat != idx:
                    break
            else:
                rhs = substitute_free(h.rhs, sub)
                v = _evaluate(rhs, point)
                for _round in range(4):
                    if _is_number(v) or depth >= 6 or not isinstance(v, (sp.Basic, sp.MatrixBase)):
                        break
                    missing = sorted((b for b in _atoms(v) if b not in point and b != atom
                                      and not (isinstance(b, sp.Indexed) and b.base in bases)), key=sp.default_sort_key)
                    if not missing:
                        break
                    bounds = _limit_atoms(v)
                    for b in missing:
                        if b in bounds:  # a sum's bound: a small positive integer (a value any real may take)
                            w = sp.Integer(1 if rng is None else rng.randint(1, 3))
                            point[b] = w if _assumption_ok(b, w) else _draw(b, rng)
                            continue
                        w = _entry_from_equations(b, hypotheses, point, rng, bases, depth + 1)
                        point[b] = w if w is not None else _draw(b, rng)
                    v = _evaluate(rhs, point)
                if _is_number(v):
                    return v
    return None


def _limit_atoms(e: Any) -> set:
    """The entries that occur in the bounds of a sum or product of ``e``."""
    out: set = set()
    if isinstance(e, sp.Basic):
        for x in e.atoms(sp.Sum, sp.Product):
            for (_v, lo, hi) in x.limits:
                out |= _atoms(lo) | _atoms(hi) if isinstance(lo, sp.Basic) and isinstance(hi, sp.Basic) else set()
    return out


def _check_hypotheses(hypotheses, point: dict) -> tuple[list, list]:
    """Evidence that each hypothesis holds at ``point``; raises :class:`_Reject` naming every one
    that does not (which hypotheses could not be satisfied together there). Returns (holds, unchecked)."""
    failed: list = []
    holds, unchecked = [], []
    everywhere = False  # one hypothesis false at every point: no model at all
    for h in hypotheses:
        try:
            got, missing = _check_one(h, hypotheses, point)
        except _Reject as exc:
            failed.append(str(exc))
            everywhere = everywhere or exc.point_free
            continue
        holds += got
        unchecked += missing
    if failed:
        raise _Reject("; ".join(failed), point_free=everywhere)
    return holds, unchecked


def _check_one(hyp, hypotheses, point: dict) -> tuple[list, list]:
    """``(holds, unchecked)`` for one hypothesis at ``point``; raises :class:`_Reject` when it fails."""
    holds, unchecked = [], []
    ranges = {h.index: h for h in _hyps(hypotheses, "IndexRange")}
    quantified = {x for e in _hyps(hypotheses, "Equation") for x in (e.forall or ())}
    for h in (hyp,):  # one hypothesis; ``continue`` ends its check
        kind = type(h).__name__
        if kind == "IndexRange" and h.index in quantified and h.index not in point:
            # the range of an equation's ``forall`` variable, which takes no value at a point
            lo, hi = (_evaluate(x, point) for x in (h.lower, h.upper))
            if not all(getattr(x, "is_Integer", False) for x in (lo, hi)):
                raise _Reject(f"{h.name}: the range of the quantified {sp.sstr(h.index)} is not concrete")
            holds.append((h.name, f"{sp.sstr(h.index)} ranges over {lo}..{hi} (quantified)"))
        elif kind == "IndexRange":
            lo, hi, v = (_evaluate(x, point) for x in (h.lower, h.upper, h.index))
            if not all(getattr(x, "is_Integer", False) for x in (lo, hi, v)) or not lo <= v <= hi:
                raise _Reject(f"{h.name}: {sp.sstr(h.index)} = {sp.sstr(v)} is not in {sp.sstr(lo)}..{sp.sstr(hi)}")
            holds.append((h.name, f"{lo} <= {h.index} = {v} <= {hi}"))
        elif kind == "Equation":
            spread = {f.base for f in _hyps(hypotheses, "RandomFamily") if _positive_at(f.variance, point)}
            if _mentions_random(h.lhs, spread) or _mentions_random(h.rhs, spread):
                if _identically_zero(h.lhs, h.rhs):
                    holds.append((h.name, "an identity"))
                    continue
                raise _Reject(
                    f"{h.name}: the equation {sp.sstr(h.lhs)} = {sp.sstr(h.rhs)} ties random entries to a value, "
                    "but they are independent with variance > 0"
                )
            if h.forall:
                why = _definition_problem(h, hypotheses) or _definition_at_point(h, hypotheses, point)
                if why and _mentions_moment(h.lhs, h.rhs) and _kernel_consistent(hypotheses):
                    holds.append((h.name, "a moment equation for every value of "
                                          f"{', '.join(map(str, h.forall))}: the kernel's consistency check of the "
                                          "probability hypotheses (symattn.kernel.schemas.probability) accepts it"))
                elif why:
                    unchecked.append((h.name, why))
                else:
                    holds.append((h.name, "a definition of its head for every value of "
                                          f"{', '.join(map(str, h.forall))} (no other equation defines it, and it "
                                          "refers only to earlier entries): satisfiable"))
                continue
            a, b = _evaluate(h.lhs, point), _evaluate(h.rhs, point)
            if not (_is_number(a) and _is_number(b)):
                a, b = moments_at([a, b], _families_at(hypotheses, point))
            if not (_is_number(a) and _is_number(b)):
                unchecked.append((h.name, "not a number at the point (nor a moment of a family of concrete size)"))
                continue
            ok = all(_numbers_equal(x, y) for x, y in zip(_entries(a), _entries(b)))
            if not ok:
                raise _Reject(f"{h.name}: {sp.sstr(a)} != {sp.sstr(b)}", point_free=not (_open(h.lhs) or _open(h.rhs)))
            holds.append((h.name, f"{sp.sstr(a)} = {sp.sstr(b)}"))
        elif kind == "Assumption":
            c = h.condition
            if not isinstance(c, sp.Basic):
                unchecked.append((h.name, INFORMAL))
                continue
            # a condition on an entry s[j] with j an index is read for every j in its range; with j
            # not ranged, for every entry of s the point values (and at the point's own j)
            instances = [point]
            idx = [s for s in _basic_symbols(c) if s in ranges]
            if idx:
                instances = [{**point, **combo} for combo in _range_points(idx, ranges, point)]
            loose = [e for e in c.atoms(sp.Indexed) if len(e.indices) == 1 and isinstance(e.indices[0], sp.Symbol)
                     and e.indices[0] not in ranges and not e.indices[0].is_Integer]
            for e in loose:
                j = e.indices[0]
                seen = sorted({a.indices[0] for a in point if isinstance(a, sp.Indexed) and a.base == e.base
                               and len(a.indices) == 1 and a.indices[0].is_Integer and _assumption_ok(j, a.indices[0])},
                              key=sp.default_sort_key)
                instances = [{**inst, j: v} for inst in instances for v in seen] + instances
            families = _families_at(hypotheses, point) if _mentions_moment(c) else ()
            for inst in instances:
                ev = _evaluate(c, inst)
                if families:  # a condition on moments: computed from the families' laws
                    ev = moments_at([ev], families)[0]
                val = _truth(ev)
                if val is False:
                    raise _Reject(f"{h.name}: {sp.sstr(c)} is false at {_show_point(inst, c)}", point_free=not _open(c))
                if val is None:
                    unchecked.append((h.name, "undecidable at the point"))
                    break
            else:
                holds.append((h.name, "true" + (f" for every {', '.join(map(str, idx))} in range" if idx else "")))
        elif kind == "RandomFamily":
            v = _evaluate(h.variance, point)
            sv = exact.sign(v) if _is_number(v) else None
            if sv in (-1, "nonreal"):
                raise _Reject(f"{h.name}: variance {sp.sstr(v)} is not >= 0", point_free=not _open(h.variance))
            if sv not in (0, 1):
                unchecked.append((h.name, "variance not shown >= 0 at the point"))
                continue
            if h.moments:
                why = _moments_problem(h, point)
                if why and getattr(h.base[1], "is_real", False):
                    why = _constraints_problem(h.name, hypotheses, point)
                elif why and _kernel_consistent(hypotheses):
                    why = None  # complex entries: the kernel's consistency check of the laws is all there is
                if why:
                    unchecked.append((h.name, why))
                    continue
                holds.append((h.name, f"variance {sp.sstr(v)} >= 0; the declared moments are a distribution's"))
            else:
                holds.append((h.name, f"variance {sp.sstr(v)} >= 0"))
        elif kind == "Independent":
            fams = list(h.families)
            if len(set(fams)) != len(fams):
                raise _Reject(f"{h.name}: a family is listed twice (a family is not independent of itself)",
                              point_free=True)
            for g in hypotheses:
                if type(g).__name__ == "CorrelatedPairs" and {g.q, g.k} <= set(fams):
                    cov = _evaluate(g.covariance, point)
                    if exact.is_zero(cov) is not True:
                        raise _Reject(f"{h.name} and {g.name}: {g.q} and {g.k} are declared independent and "
                                      f"correlated (covariance {sp.sstr(cov)})", point_free=not _open(g.covariance))
            holds.append((h.name, "distinct families"))
        elif kind == "CorrelatedPairs":
            constraint = _constraints_problem(h.name, hypotheses, point)  # raises when one is false
            why = _correlation_problem(h, hypotheses, point)
            if why and not constraint:
                holds.append((h.name, "the kernel's constraints on the pair hold there (|correlation| <= 1, ...)"))
            elif why:
                unchecked.append((h.name, why))
            else:
                holds.append((h.name, "a bivariate normal law has these moments"))
        elif kind == "Permutation":
            n = _evaluate(h.n, point)
            if not (getattr(n, "is_Integer", False) and n >= 0):
                unchecked.append((h.name, f"the size {sp.sstr(n)} is not a nonnegative integer at the point"))
            else:
                holds.append((h.name, f"the identity is a permutation of 1..{n}"))
        else:
            unchecked.append((h.name, f"{kind} has no point check"))
    return holds, unchecked


#: the reason given for a hypothesis stated in words: it has no formal content (no rule derives a fact
#: from it), so it neither blocks a model nor is shown to hold; a counterexample is not reported with one
INFORMAL = "stated in words"


# ----------------------------------------------------------------- hypotheses a point does not evaluate
def _definition_problem(h, hypotheses) -> str | None:
    """Why a ``forall`` equation is not shown satisfiable (None: it is a definition). It is when its
    left side is ``B[t, ...]`` with the quantified variables as indices, no other ``forall``
    equation has head ``B``, the right side refers to ``B`` only at ``t - c`` (``c`` a positive
    integer, ``t`` bounded below by its assumptions or a range), and no equation without ``forall``
    fixes an entry of ``B`` inside its domain."""
    lhs, vars_ = h.lhs, tuple(h.forall)
    if not (isinstance(lhs, sp.Indexed) and tuple(lhs.indices) == vars_ and len(set(vars_)) == len(vars_)):
        return "universally quantified, and its left side is not an entry indexed by the quantified variables"
    head = lhs.base
    for g in _hyps(hypotheses, "Equation"):
        if g is h:
            continue
        if g.forall and isinstance(g.lhs, sp.Indexed) and g.lhs.base == head:
            return f"{g.name} defines {head} too (two definitions of one head may contradict each other)"
        if not g.forall and isinstance(g.lhs, sp.Indexed) and g.lhs.base == head:
            if all(_assumption_ok(v, i) and i.is_number for v, i in zip(vars_, g.lhs.indices)) and \
                    _inside_ranges(vars_, g.lhs.indices, hypotheses):
                defined = substitute_free(h.rhs, dict(zip(vars_, g.lhs.indices)))
                if not _identically_zero(defined, g.rhs):
                    return f"{g.name} fixes the entry {sp.sstr(g.lhs)}, which {h.name} defines as well"
    lower = _lower_bounds(vars_, hypotheses)
    rhs = h.rhs if isinstance(h.rhs, sp.Basic) else sp.sympify(h.rhs)
    for e in rhs.atoms(sp.Indexed):
        if e.base != head:
            continue
        for v, idx in zip(vars_, e.indices):
            c = sp.expand(v - idx)
            if not (c.is_Integer and c > 0 and v in lower):
                return (f"refers to {sp.sstr(e)}, not only to earlier entries of a variable bounded below: "
                        "not shown to be a definition")
    return None


def _definition_at_point(h, hypotheses, point) -> str | None:
    """Why the point's entries of a defined head do not follow the definition (raises
    :class:`_Reject` when one is shown not to); None when each entry in its domain does."""
    vars_ = tuple(h.forall)
    for a, value in list(point.items()):
        if not (isinstance(a, sp.Indexed) and a.base == h.lhs.base and len(a.indices) == len(vars_)):
            continue
        sub = dict(zip(vars_, a.indices))
        if not all(_assumption_ok(v, i) for v, i in sub.items()) or not _inside_ranges(vars_, a.indices, hypotheses):
            continue
        want = _evaluate(substitute_free(h.rhs, sub), point)
        if not _is_number(want):
            return f"the entries {sp.sstr(a)} refers to have no value at the point"
        eq = _numbers_equal(value, want)
        if eq is False:
            raise _Reject(f"{h.name}: {sp.sstr(a)} = {sp.sstr(value)} at the point, but the definition gives "
                          f"{sp.sstr(want)}")
        if eq is None:
            return f"{sp.sstr(a)} is not shown to follow the definition at the point"
    return None


def _lower_bounds(vars_, hypotheses) -> set:
    out = {v for v in vars_ if v.is_integer and (v.is_nonnegative or v.is_positive)}
    for r in _hyps(hypotheses, "IndexRange"):
        if r.index in vars_ and sp.sympify(r.lower).is_number:
            out.add(r.index)
    return out


def _inside_ranges(vars_, indices, hypotheses) -> bool:
    for r in _hyps(hypotheses, "IndexRange"):
        if r.index in vars_:
            i = indices[list(vars_).index(r.index)]
            lo, hi = sp.sympify(r.lower), sp.sympify(r.upper)
            if (lo.is_number and i < lo) or (hi.is_number and i > hi):
                return False
    return True


def _families_at(hypotheses, point) -> list:
    out = []
    for h in _hyps(hypotheses, "RandomFamily"):
        out.append((h.base, _evaluate(h.dim, point), _evaluate(h.mean, point), _evaluate(h.variance, point),
                    tuple((o, _evaluate(m, point)) for o, m in h.moments)))
    return out


def _mentions_moment(*exprs) -> bool:
    return any(isinstance(x, sp.Basic) and any(_is_moment(e) for e in sp.preorder_traversal(x)) for x in exprs)


def _kernel_consistent(hypotheses) -> bool:
    """Whether the kernel's consistency check of the probability and equation hypotheses
    (:func:`symattn.kernel.schemas.probability.problems`) finds no contradiction."""
    try:
        from symattn.kernel.schemas.probability import problems

        return not problems(tuple(hypotheses))
    except Exception:  # noqa: BLE001 -- not shown consistent
        return False


def _is_moment(e: Any) -> bool:
    return isinstance(e, sp.Basic) and any(c.__name__ == "_Moment" for c in type(e).__mro__)


def moments_at(exprs: list, families: list) -> list:
    """``exprs`` with their moments (``Expectation``, ``Variance`` of entries of the families, each
    ``(base, dim, mean, variance, moments)`` with a concrete dim) evaluated from the families' i.i.d.
    laws (:mod:`symattn.kernel.objects.moments`); an expression is returned unchanged when that is not all of it (an
    entry outside ``1..dim``, several families, a moment no family gives)."""
    from symattn.kernel.objects.random_vectors import iid_vector

    out = []
    for x in exprs:
        if not (isinstance(x, sp.Basic) and any(_is_moment(e) for e in sp.preorder_traversal(x))):
            out.append(x)
            continue
        entries = {a for a in x.atoms(sp.Indexed) if any(a.base == f[0] for f in families)}
        used = {a.base for a in entries}
        if len(used) != 1:
            out.append(x)
            continue
        base, dim, mean, var, moments = next(f for f in families if f[0] in used)
        if not getattr(dim, "is_Integer", False):
            out.append(x)
            continue
        law = iid_vector(str(base), int(dim), mean=mean, variance=var, moments=dict(moments))
        subs = {}
        for a in entries:
            if len(a.indices) != 1 or not a.indices[0].is_Integer or not 1 <= int(a.indices[0]) <= int(dim):
                subs = None
                break
            subs[a] = law[int(a.indices[0])]
        if subs is None:
            out.append(x)
            continue
        before = x.free_symbols
        new = x.xreplace(subs).replace(_is_moment, lambda e: e.closed_form())
        if any(_is_moment(e) for e in sp.preorder_traversal(new)) or not new.free_symbols <= before:
            out.append(x)
        else:
            out.append(new)
    return out


def _constraints_problem(name: str, hypotheses, point) -> str | None:
    """Why the kernel's conditions on the parameters of the probability hypothesis ``name``
    (:func:`symattn.kernel.schemas.probability.constraints`: variance >= 0, Jensen's inequality for
    declared moments, |correlation| <= 1) are not shown at the point (raises :class:`_Reject` when one
    is false there); None when every one holds exactly."""
    try:
        from symattn.kernel.schemas.probability import constraints

        found = [c for names, c in constraints(tuple(hypotheses)) if name in names]
    except Exception as exc:  # noqa: BLE001 -- no constraint known: not shown
        return f"the kernel's constraints could not be formed ({type(exc).__name__})"
    for c in found:
        val = _truth(_evaluate(c, point))
        if val is False:
            raise _Reject(f"{name}: {sp.sstr(c)} is false at the point", point_free=not _open(c))
        if val is not True:
            return f"{sp.sstr(c)} is not shown at the point"
    return None


def _gaussian_moments(mean, var, order: int) -> dict:
    m = {0: sp.Integer(1), 1: mean}
    for n in range(2, order + 1):
        m[n] = sp.expand(mean * m[n - 1] + (n - 1) * var * m[n - 2])
    return m


def _moments_problem(h, point) -> str | None:
    """Why the declared raw moments of a family are not shown to be those of some distribution
    (None: they are). Orders 1 and 2 must agree with the mean and variance; the moments are a
    distribution's when they are a normal law's, or when the Hankel matrix of the moments (unknown
    orders filled with the normal law's) is positive definite (the truncated Hamburger problem)."""
    mean, var = _evaluate(h.mean, point), _evaluate(h.variance, point)
    declared = {int(o): _evaluate(m, point) for o, m in h.moments}
    top = max(declared)
    closed = not any(_open(sp.sympify(x)) for x in (h.mean, h.variance, *(m for _, m in h.moments)))
    gauss = _gaussian_moments(mean, var, max(top, 2) + 1)
    m = {**gauss, 1: mean, 2: var + mean**2}
    for o, v in declared.items():
        if o in (1, 2) and exact.equal(v, m[o]) is not True:
            raise _Reject(f"{h.name}: the declared moment of order {o} is {sp.sstr(v)}, not {sp.sstr(m[o])}",
                          point_free=closed)
        m[o] = v
    if all(exact.equal(v, gauss[o]) is True for o, v in declared.items()):
        return None
    if not getattr(h.base[1], "is_real", False):
        # complex entries: E[w^4] is no square's mean (it may be 0), so no Hankel matrix constrains it
        return "the entries are not real: their raw moments are not checked by a Hankel matrix"
    K = (top + 1) // 2
    H = sp.Matrix(K + 1, K + 1, lambda i, j: m[i + j])
    for size in range(1, K + 2):
        minor = H[:size, :size].det()
        s = exact.sign(minor)
        if s == -1:
            raise _Reject(f"{h.name}: no distribution has these moments (a Hankel minor is {sp.sstr(minor)} < 0)",
                          point_free=closed)
        if s != 1:
            return "the declared moments are not shown to be a distribution's (a Hankel minor is not shown > 0)"
    return None


def _correlation_problem(h, hypotheses, point) -> str | None:
    """Why a :class:`~symattn.rules.correlation.CorrelatedPairs` hypothesis is not shown to have a
    model at the point (None: a bivariate normal law with the families' variances and the
    covariance, whose mixed moments are the declared ones, is one)."""
    fams = {f.base: f for f in _hyps(hypotheses, "RandomFamily")}
    if h.q not in fams or h.k not in fams:
        return "its families are not declared as random families (no variances)"
    fq, fk = fams[h.q], fams[h.k]
    if fq.moments or fk.moments:
        return "a family of the pair declares raw moments: no bivariate law is checked against them"
    vq, vk = _evaluate(fq.variance, point), _evaluate(fk.variance, point)
    mq, mk = _evaluate(fq.mean, point), _evaluate(fk.mean, point)
    cov = _evaluate(h.covariance, point)
    if not all(_is_number(x) for x in (vq, vk, cov, mq, mk)):
        return "the variances or the covariance are not numbers at the point"
    gap = exact.sign(vq * vk - cov**2)
    if gap == -1:
        raise _Reject(f"{h.name}: covariance {sp.sstr(cov)} exceeds sqrt(Var q Var k) = sqrt({sp.sstr(vq * vk)})",
                      point_free=not any(_open(x) for x in (fq.variance, fk.variance, h.covariance)))
    if gap not in (0, 1):
        return "the covariance is not shown to be at most sqrt(Var q Var k)"
    if not (exact.is_zero(mq) and exact.is_zero(mk)):
        return "the families of a correlated pair must have mean 0 (the pair rules read E[q_i k_i] as the covariance)"
    if h.mixed:
        from symattn.kernel.objects.moments import _bivariate_normal_moment

        for (a, b), value in h.mixed:
            if vq != vk:
                return "mixed moments are checked only for families of equal variance"
            want = _bivariate_normal_moment(int(a), int(b), vq, cov)
            if exact.equal(_evaluate(value, point), want) is not True:
                return (f"the declared mixed moment E[q^{a} k^{b}] = {sp.sstr(value)} is not shown to be a law's "
                        "(it is not the bivariate normal's)")
    return None


#: the public name of the point check (used by :mod:`symattn.kernel.zippel`)
check_hypotheses = _check_hypotheses


def _positive_at(variance, point) -> bool:
    """Whether a variance is positive at the point (a degenerate family may satisfy an equation)."""
    v = _evaluate(variance, point)
    return not (_is_number(v) and exact.is_zero(v) is True)


def _range_points(idx, ranges, point, cap: int = 64) -> list:
    combos = [{}]
    for s in idx:
        lo, hi = _evaluate(ranges[s].lower, point), _evaluate(ranges[s].upper, point)
        if not (getattr(lo, "is_Integer", False) and getattr(hi, "is_Integer", False)):
            return [{}]
        combos = [{**c, s: sp.Integer(v)} for c in combos for v in range(int(lo), int(hi) + 1)][:cap]
    return combos


def _show_point(point, expr) -> str:
    syms = _basic_symbols(expr)
    return ", ".join(f"{s} = {point[s]}" for s in sorted(syms, key=sp.default_sort_key) if s in point) or "the point"


def _identically_zero(a, b) -> bool:
    try:
        from symattn.kernel.zero import equal

        return bool(equal(a, b))
    except Exception:
        return False


def _entries(x: Any) -> list:
    return list(x) if isinstance(x, sp.MatrixBase) else [x]


def find_model(statement_exprs: list, hypotheses, *, seed: int = 0, tries: int = 24, seconds: float = 8.0,
               extra: Iterable = (), sides: Iterable = ()):
    """A :class:`Model` of the hypotheses, or ``(None, reasons)``.

    A model is a point at which every hypothesis is *shown* to hold, exactly: a hypothesis the point
    does not evaluate (a ``forall`` equation, a moment equation, a correlation, declared raw moments)
    is discharged at it (a definition by recurrence, the moment computed from the family's law, a
    bivariate normal law, a Hankel matrix that is positive definite) or the point is not a model.
    Only a hypothesis stated in words (no formal content) is passed over, and named.

    Tries the smallest values first (positive integers 1, nonnegative 0, an index at its lower
    bound, a symbol an assumption ``Contains(s, S)`` confines at the smallest member of ``S``), then
    random small values. Returns ``(model, [])`` or ``(None, [why each try failed])``.

    ``sides``: the statement's sides; a point where one of them is shown undefined (a definedness
    condition vanishes there exactly: ``log x`` under ``x = 0``) is no model of the theorem, whose
    claim says nothing there.
    """
    rng = random.Random(seed)
    reasons: list[Reason] = []
    try:
        with time_limit(seconds):
            conditions = _side_conditions(list(sides))
            patterns = len(_MODEL_PATTERNS) if tries > 1 else 0
            for attempt in range(tries + patterns):
                pattern = _MODEL_PATTERNS[attempt - 1] if 1 <= attempt <= patterns else None
                token = _PATTERN.set(pattern)
                try:
                    point = _assign(statement_exprs, hypotheses, None if attempt == 0 else rng, extra)
                    holds, unchecked = _check_hypotheses(hypotheses, point)
                    formal = [(n, why) for n, why in unchecked if why != INFORMAL]
                    if formal:
                        # not shown to hold there: the point is not a model
                        raise _Reject("not shown to hold at the point: " +
                                      "; ".join(f"{n} ({why})" for n, why in formal))
                    undefined = next((c for c in conditions if _vanishes_soon(c, point)), None)
                    if undefined is not None:
                        raise _Reject(f"the statement is undefined at the point ({sp.sstr(undefined)[:80]} = 0 "
                                      "there)", point_free=not _open(undefined))
                except _Reject as exc:
                    if str(exc) not in reasons:
                        reasons.append(Reason(str(exc), exc.point_free))
                    continue
                except (TooLarge, TypeError, ValueError, AttributeError, ZeroDivisionError, IndexError) as exc:
                    reasons.append(Reason(f"{type(exc).__name__}: {exc}"))
                    continue
                finally:
                    _PATTERN.reset(token)
                shown = {s: v for s, v in point.items() if isinstance(s, sp.Symbol)}
                return Model(shown, holds, unchecked), []
    except TimeLimitExceeded:
        reasons.append(Reason(f"time limit of {seconds:g} s"))
    return None, reasons


# ---------------------------------------------------------------------------------------------- search
@dataclass
class Counterexample:
    """A point inside the hypotheses where the statement fails."""

    model: Model
    left: Any
    right: Any

    def __str__(self) -> str:
        return f"{self.model.describe()}: left = {sp.sstr(self.left)}, right = {sp.sstr(self.right)}"


def _violates(a: Any, b: Any, relation: str) -> bool | None:
    """Whether ``a relation b`` is shown, exactly, to fail (None: undefined there, or not shown either
    way; floating point never decides). An inequality between sides of which one is shown not real
    fails (the claim compares real quantities)."""
    if relation == "=":
        eq = exact.equal(a, b)
        return None if eq is None else not eq
    try:
        s = exact.sign(sp.sympify(a) - sp.sympify(b))
    except (TypeError, ValueError, sp.SympifyError):
        return None
    if s is None:
        return None
    if s == "nonreal":
        return True
    return {"<=": s > 0, "<": s >= 0, ">=": s < 0, ">": s <= 0}[relation]


def _side_conditions(sides: list) -> list:
    """The definedness conditions of the sides as stated (``x`` of ``x h(x)`` for a head ``h(x) = 1/x``)."""
    from symattn.kernel.zero import definedness_conditions

    out: list = []
    for side in sides:
        if isinstance(side, (sp.Basic, sp.MatrixBase)):
            try:
                out += [f for f in definedness_conditions(side) if f not in out]
            except (TypeError, ValueError, AttributeError, NotImplementedError):  # KernelError is a ValueError
                continue
    return out


def _vanishes_soon(cond: Any, point: dict, seconds: float = 1.0) -> bool:
    """:func:`_vanishes` under its own short limit (not shown in time: not shown to vanish)."""
    try:
        with time_limit(seconds):
            return _vanishes(cond, point)
    except TimeLimitExceeded:
        return False


def _vanishes(cond: Any, point: dict) -> bool:
    try:
        v = _evaluate(cond, point)
        return isinstance(v, sp.Basic) and v.is_number and exact.is_zero(v) is True
    except (TooLarge, TypeError, ValueError, AttributeError, ZeroDivisionError):
        return False


def find_counterexample(statement, hypotheses=(), *, seed: int = 0, tries: int = 12, seconds: float = 8.0):
    """A :class:`Counterexample` (every hypothesis checked at it), or None.

    Only free symbols are given values (bound variables never are), in an order that samples an
    index range's bounds before the index, from values that keep every assumption; the entries
    the point makes concrete (``s[1]``, ``X[0, 1]``) get values too, except random entries of a
    :class:`~symattn.language.statement.RandomFamily`. A point where a side is undefined is skipped. A
    point is reported only when every hypothesis is seen to hold there; a hypothesis stated only
    in words cannot be checked, so with one the search reports nothing.
    """
    sides = [statement.lhs, statement.rhs]
    closed = not any(_basic_symbols(x) or (isinstance(x, (sp.Basic, sp.MatrixBase)) and _atoms(expand_finite(x)))
                     for x in sides)
    if closed:  # nothing to assign: no hypothesis can constrain the point, so none is consulted
        hypotheses = ()
    if any(type(h).__name__ == "Assumption" and not isinstance(h.condition, sp.Basic) for h in hypotheses):
        return None
    rng = random.Random(seed)
    conditions = _side_conditions(sides)
    token = _COMPLEX_DRAWS.set(statement.relation == "=")
    try:
        return _search(statement, sides, hypotheses, rng, conditions, tries, seconds)
    finally:
        _COMPLEX_DRAWS.reset(token)


def _search(statement, sides, hypotheses, rng, conditions, tries, seconds):
    evaluated, draws = 0, 0
    # a draw outside the hypotheses (x <= y fails at x = 3/4, y = -8/3) is no try: up to 4 draws a try,
    # within the time the tries had (tries x seconds)
    deadline = time.monotonic() + tries * seconds
    while evaluated < tries and draws < 4 * tries and time.monotonic() < deadline:
        attempt, draws = draws, draws + 1
        try:
            with time_limit(seconds):
                pattern = _PATTERNS[attempt - 1] if 1 <= attempt <= len(_PATTERNS) else None
                token = _PATTERN.set(pattern)
                try:
                    point = _assign(sides, hypotheses, rng if attempt else None)
                    holds, unchecked = _check_hypotheses(hypotheses, point)
                except _Reject:
                    continue
                finally:
                    _PATTERN.reset(token)
                evaluated += 1
                if unchecked:
                    continue
                if any(_vanishes(c, point) for c in conditions):
                    continue  # a side is undefined there (read before SymPy folds 0 * h(0) to 0)
                lhs, rhs = (_evaluate(side, point) for side in sides)
                la, ra = _entries(lhs), _entries(rhs)
                if len(la) != len(ra):
                    continue
                for a, b in zip(la, ra):
                    if not (_is_number(a) and _is_number(b)):
                        break
                    if _violates(a, b, statement.relation):
                        return Counterexample(Model(dict(point), holds, unchecked), a, b)
        except (_Reject, TooLarge, TypeError, ValueError, AttributeError, ZeroDivisionError, IndexError,
                TimeLimitExceeded):
            continue
    return None

