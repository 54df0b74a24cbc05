r"""Axiom schemas of matrices.

* ``explicit_evaluation``: an expression built from explicit matrices equals its evaluation, computed
  by the kernel entrywise: explicit products, sums, scalar multiples, transposes, non-negative integer
  powers, traces and entries (``M[i, j]`` with integer ``i, j``) are exact arithmetic on the entries;
  ``Identity``/``ZeroMatrix``/``OneMatrix`` of integer shape are written out; a head of symattn's with a
  registered definition (``Attention``, ``SoftmaxRows``, ...) is unfolded by that definition. Sums inside
  are evaluated only by the kernel: a sum over integer literal bounds ``a..b`` with ``b >= a - 1`` is
  written out term by term (empty when ``b = a - 1``); any other finite sum goes through the kernel's
  evaluator (:func:`symattn.kernel.sums.evaluate`: constants over integer bounds, the delta rule with its
  range check, Faulhaber) and what it does not close stays an unevaluated, opaque sum. SymPy's
  ``Sum.doit``/``summation`` is never called: ``sum_{k=0}^{n} (-1)^k k C(n, k)`` stays a sum (it is
  ``-1`` at ``n = 1``, ``0`` for ``n >= 2``: SymPy's closed form is ``0``). A matrix symbol, or a shape
  that is not an integer, is refused.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement, MatrixExpr

from symattn.kernel.axioms import schema
from symattn.kernel.terms import KernelError, canonical, substitute

__all__ = ["explicit_value", "normal_form", "unroll_literal_sums"]

#: the most terms a sum over literal bounds is written out into
MAX_TERMS = 256


def _hyps() -> tuple:
    from symattn.kernel.zero import HYPOTHESES

    return tuple(HYPOTHESES.get() or ())


def _show(x: Any, limit: int = 200) -> str:
    s = sp.sstr(x)
    return s if len(s) <= limit else s[:limit] + " ..."


# ============================================================================= sums over literal bounds
def unroll_literal_sums(expr: Any) -> Any:
    """Every finite sum whose outermost range has integer literal bounds ``a..b`` with
    ``-1 <= b - a < MAX_TERMS`` written out term by term (outermost first, so that inner bounds become
    literals too). A reversed range (``b < a - 1``) is left alone (Karr's convention reads the summand
    outside the range; the kernel's evaluator decides such sums)."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(unroll_literal_sums)
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr
    if isinstance(expr, sp.Sum):
        limits = list(expr.limits)
        k, lo, hi = limits[-1]  # outermost
        if isinstance(lo, sp.Integer) and isinstance(hi, sp.Integer) and -1 <= hi - lo < MAX_TERMS:
            inner = sp.Sum(expr.function, *limits[:-1]) if len(limits) > 1 else expr.function
            terms = [substitute(inner, {k: sp.Integer(v)}) for v in range(int(lo), int(hi) + 1)]
            return unroll_literal_sums(sp.Add(*terms))
        body = unroll_literal_sums(expr.function)
        return expr if body == expr.function else sp.Sum(body, *limits)
    args = [unroll_literal_sums(a) for a in expr.args]
    return expr if all(a is b for a, b in zip(args, expr.args)) else expr.func(*args)


# ============================================================================= explicit evaluation
def _definition_of(node: Any):
    from symattn.kernel.definitions import DEFINITIONS

    for d in DEFINITIONS.values():
        if type(node) is d.cls:
            return d
    return None


def _integer_shape(node: Any) -> tuple[int, int]:
    rows, cols = (sp.sympify(s) for s in node.shape)
    if not (isinstance(rows, sp.Integer) and isinstance(cols, sp.Integer)):
        raise KernelError(f"{_show(node)} has the shape {node.shape}, not an explicit one")
    return int(rows), int(cols)


class _Evaluator:
    """The entrywise evaluation, with every sum held as an opaque symbol (``table``)."""

    def __init__(self, table: dict):
        self.table = table
        self.depth = 0

    def hold(self, e: Any) -> Any:
        from symattn.kernel.zero import opaque_sums

        if isinstance(e, sp.MatrixBase):
            return e.applyfunc(self.hold)
        return opaque_sums(e, self.table)

    def matrix(self, node: Any) -> sp.ImmutableMatrix:
        self.depth += 1
        try:
            if self.depth > 200:
                raise KernelError("explicit evaluation: the expression is nested too deeply")
            return self._matrix(node)
        finally:
            self.depth -= 1

    def _matrix(self, node: Any) -> sp.ImmutableMatrix:
        if isinstance(node, sp.MatrixBase):
            return sp.ImmutableMatrix(node.rows, node.cols, [self.scalar(x) for x in node])
        if not isinstance(node, MatrixExpr):
            raise KernelError(f"not a matrix: {_show(node)}")
        if isinstance(node, sp.MatrixSymbol):
            raise KernelError(f"the matrix symbol {node.name} has no explicit entries")
        if isinstance(node, (sp.Identity, sp.ZeroMatrix, sp.OneMatrix)):
            r, c = _integer_shape(node)
            fill = {sp.Identity: lambda i, j: 1 if i == j else 0, sp.ZeroMatrix: lambda i, j: 0,
                    sp.OneMatrix: lambda i, j: 1}[type(node)]
            return sp.ImmutableMatrix(r, c, fill)
        if isinstance(node, sp.MatAdd):
            parts = [self.matrix(a) for a in node.args]
            out = parts[0]
            for p in parts[1:]:
                if p.shape != out.shape:
                    raise KernelError(f"a sum of matrices of shapes {out.shape} and {p.shape}")
                out = out + p
            return sp.ImmutableMatrix(out)
        if isinstance(node, sp.MatMul):
            coeff = sp.S.One
            out = None
            for a in node.args:
                if isinstance(a, (MatrixExpr, sp.MatrixBase)):
                    m = self.matrix(a)
                    if out is not None and out.shape[1] != m.shape[0]:
                        raise KernelError(f"a product of matrices of shapes {out.shape} and {m.shape}")
                    out = m if out is None else out * m
                else:
                    coeff = coeff * self.scalar(a)
            if out is None:
                raise KernelError(f"a product with no matrix factor: {_show(node)}")
            return sp.ImmutableMatrix(out.applyfunc(lambda x: coeff * x))
        if isinstance(node, sp.Transpose):
            return sp.ImmutableMatrix(self.matrix(node.arg).T)
        if isinstance(node, sp.MatPow):
            base, exp = self.matrix(node.args[0]), sp.sympify(node.args[1])
            if not (isinstance(exp, sp.Integer) and exp >= 0) or base.rows != base.cols:
                raise KernelError(f"only non-negative integer powers of square matrices are evaluated: {_show(node)}")
            out = sp.ImmutableMatrix(sp.eye(base.rows))
            for _ in range(int(exp)):
                out = out * base
            return sp.ImmutableMatrix(out)
        d = _definition_of(node)
        if d is not None:
            return self.matrix(self.unfold(node, d))
        raise KernelError(f"explicit evaluation does not know {type(node).__name__}: {_show(node)}")

    def unfold(self, node: Any, d) -> Any:
        """``node`` by its registered definition, its arguments evaluated first (sums held opaque, so
        that no definition's code hands a sum to SymPy's summation)."""
        from symattn.kernel.definitions import expand

        args = [self.matrix(a) if isinstance(a, (MatrixExpr, sp.MatrixBase)) else self.scalar(a) for a in node.args]
        rebuilt = node.func(*args)
        out = expand(rebuilt, d)
        if out == rebuilt:
            raise KernelError(f"the definition {d.name} does not unfold {_show(node)}")
        return self.hold(_evaluate_sums(unroll_literal_sums(out), _hyps()))

    def scalar(self, e: Any) -> Any:
        if not isinstance(e, sp.Basic) or e.is_Atom:
            return e
        if isinstance(e, (MatrixExpr, sp.MatrixBase)):
            raise KernelError(f"a matrix where a scalar is expected: {_show(e)}")
        if isinstance(e, sp.Trace):
            m = self.matrix(e.arg)
            if m.rows != m.cols:
                raise KernelError(f"the trace of a {m.shape} matrix")
            return sp.Add(*[m[i, i] for i in range(m.rows)])
        if isinstance(e, MatrixElement):
            m = self.matrix(e.parent)
            i, j = sp.sympify(e.i), sp.sympify(e.j)
            if not (isinstance(i, sp.Integer) and isinstance(j, sp.Integer)
                    and 0 <= i < m.rows and 0 <= j < m.cols):
                raise KernelError(f"the entry ({e.i}, {e.j}) of a {m.shape} matrix")
            return m[int(i), int(j)]
        d = _definition_of(e)
        if d is not None and any(isinstance(a, (MatrixExpr, sp.MatrixBase)) for a in e.args):
            return self.scalar(self.unfold(e, d))
        args = [self.scalar(a) for a in e.args]
        return e if all(a is b for a, b in zip(args, e.args)) else e.func(*args)


def _evaluate_sums(expr: Any, hypotheses) -> Any:
    """Each outermost sum by the kernel's evaluator; a sum it refuses (a delta it cannot contract)
    stays as it is."""
    from symattn.kernel.sums import evaluate

    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda x: _evaluate_sums(x, hypotheses))
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr

    def one(s):
        try:
            return evaluate(s, hypotheses)
        except KernelError:
            return s

    if isinstance(expr, sp.Sum):
        return one(expr)
    args = [_evaluate_sums(a, hypotheses) for a in expr.args]
    return expr if all(a is b for a, b in zip(args, expr.args)) else expr.func(*args)


def explicit_value(expr: Any, hypotheses=()) -> Any:
    """The kernel's evaluation of ``expr`` (see the module docstring); sums it does not close remain."""
    from symattn.kernel.sums import check_finite

    check_finite(expr, "explicit_evaluation")
    e = canonical(expr)
    e = _evaluate_sums(unroll_literal_sums(e), hypotheses)
    table: dict = {}
    ev = _Evaluator(table)
    held = ev.hold(e)
    if isinstance(held, (MatrixExpr, sp.MatrixBase)):
        value: Any = ev.matrix(held)
    else:
        value = ev.scalar(held)
    if table:
        back = {v: k for k, v in table.items()}
        value = value.applyfunc(lambda x: x.xreplace(back)) if isinstance(value, sp.MatrixBase) \
            else value.xreplace(back)
    return value


@schema("explicit_evaluation", "an expression of explicit matrices equals its entrywise evaluation (products, sums, "
                               "transposes, powers, traces, entries, defined heads unfolded); sums over literal "
                               "bounds written out, other sums only by the kernel's evaluator (never SymPy's "
                               "summation)")
def _explicit_evaluation(expr: Any):
    e = canonical(expr)
    return e, explicit_value(e, _hyps()), "="


# ============================================================================= normal forms
def _same_dim(a: Any, b: Any) -> bool:
    """Two dimensions shown equal by the kernel (structurally, else by the zero test)."""
    from symattn.kernel.zero import equal

    a, b = sp.sympify(a), sp.sympify(b)
    return a == b or canonical(a) == canonical(b) or equal(a, b)


def normal_form(expr: Any, *, transposes: bool = False, expand: bool = False) -> Any:
    """Rebuild ``expr`` with products flattened and sums put in canonical order (associativity,
    scalars to the front); optionally push transposes through products and expand products over
    sums. Only these identities are applied (SymPy's constructors of ``MatMul``/``MatAdd`` with their
    shape checks, ``Transpose``'s ``(AB)^T = B^T A^T``, ``MatMul.expand``); nothing is evaluated.

    >>> A, B, C = (sp.MatrixSymbol(x, 2, 2) for x in "ABC")
    >>> normal_form(sp.MatMul(A, sp.MatMul(B, C))) == normal_form(sp.MatMul(sp.MatMul(A, B), C))
    True
    >>> normal_form(sp.Transpose(sp.MatMul(A, B)), transposes=True)
    B.T*A.T
    """
    if not isinstance(expr, sp.Basic) or expr.is_Atom or isinstance(expr, sp.MatrixSymbol):
        return expr
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: normal_form(e, transposes=transposes, expand=expand))
    args = [normal_form(a, transposes=transposes, expand=expand) for a in expr.args]
    if isinstance(expr, sp.MatMul):
        out = sp.MatMul(*args, evaluate=True)
        if expand and isinstance(out, sp.MatMul) and any(isinstance(a, sp.MatAdd) for a in out.args):
            out = normal_form(out.expand(), transposes=transposes, expand=False)
        return out
    if isinstance(expr, sp.MatAdd):
        return sp.MatAdd(*args, evaluate=True)
    if isinstance(expr, sp.Transpose) and transposes:
        return normal_form(args[0].transpose(), transposes=False, expand=expand) if not isinstance(
            args[0], sp.Transpose) else args[0].args[0]
    return expr.func(*args)


@schema("matrix_normal_form", "expr = its normal form: products flattened and regrouped, scalars to the front, "
                              "sums in canonical order; with transposes, (AB)^T = B^T A^T and (A^T)^T = A; with "
                              "expand, A(B + C) = AB + AC (shapes checked by the constructors)")
def _matrix_normal_form(expr: Any, transposes: bool = False, expand: bool = False):
    if not isinstance(transposes, bool) or not isinstance(expand, bool):
        raise KernelError("matrix_normal_form: transposes and expand are booleans")
    e = canonical(expr)
    try:
        out = normal_form(e, transposes=transposes, expand=expand)
    except sp.matrices.exceptions.ShapeError as exc:
        raise KernelError(f"the shapes do not fit: {exc}") from None
    return e, canonical(out), "="


# ============================================================================= permutations
def _permutation(name: str, n: Any):
    """The step's hypothesis that ``name`` is a permutation of ``1..n`` (the kernel reads the hypotheses
    itself), or a KernelError."""
    from symattn.kernel.objects.permutations import Permutation

    for h in _hyps():
        if isinstance(h, Permutation) and h.sigma == name and _same_dim(h.n, n):
            return h
    raise KernelError(f"no hypothesis that {name} is a permutation of {{1, ..., {sp.sstr(n)}}}")


@schema("permutation_orthogonal", "in a product ... P^T P ... (or ... P P^T ...) of the matrix P of a permutation "
                                  "sigma of 1..n (a hypothesis of the step), the pair is the identity I_n")
def _permutation_orthogonal(expr: Any, at: int):
    from symattn.kernel.objects.permutations import PermutationMatrix

    e = canonical(expr)
    if not isinstance(e, sp.MatMul):
        raise KernelError(f"permutation_orthogonal: not a product: {_show(e)}")
    coeff, mats = e.as_coeff_matrices()
    if not isinstance(at, int) or not 0 <= at < len(mats) - 1:
        raise KernelError(f"permutation_orthogonal: no pair of factors at {at!r}")
    x, y = mats[at], mats[at + 1]
    if isinstance(x, sp.Transpose) and isinstance(x.arg, PermutationMatrix) and x.arg == y:
        P = y
    elif isinstance(y, sp.Transpose) and isinstance(y.arg, PermutationMatrix) and y.arg == x:
        P = x
    else:
        raise KernelError(f"factors {at}, {at + 1} are not P^T P or P P^T of a permutation matrix P")
    _permutation(P.name, P.shape[0])
    rest = [*mats[:at], *mats[at + 2:]]
    new = sp.MatMul(coeff, *rest) if rest else coeff * sp.Identity(P.shape[0])
    if rest and coeff == 1 and len(rest) == 1:
        new = rest[0]
    return e, canonical(new), "="


@schema("sum_reindex", "sum_{k=1}^{n} f(sigma(k)) = sum_{k=1}^{n} f(k) for sigma a permutation of 1..n (a hypothesis "
                       "of the step), k occurring in the summand only inside sigma(k)")
def _sum_reindex(s: Any, sigma: str):
    e = canonical(s)
    if not isinstance(e, sp.Sum) or len(e.limits) != 1:
        raise KernelError(f"sum_reindex: not a sum over one index: {_show(e)}")
    k, lo, hi = e.limits[0]
    if not (_same_dim(lo, 1)):
        raise KernelError(f"sum_reindex: the sum starts at {sp.sstr(lo)}, not 1")
    h = _permutation(sigma, hi)
    f = h.function
    if not e.function.has(f(k)):
        raise KernelError(f"sum_reindex: the summand has no {sigma}({k})")
    t = sp.Dummy("t")
    body = e.function.xreplace({f(k): t})
    if k in body.free_symbols:
        raise KernelError(f"sum_reindex: the index occurs outside {sigma}(index): not a re-indexing")
    return e, canonical(sp.Sum(body.xreplace({t: k}), (k, lo, hi))), "="


# ============================================================================= rank
@schema("rank_product_bound", "rank(A_1 ... A_k) <= the inner dimension at a split p (the columns of A_p), the rank "
                              "of A_1 ... A_p, or the rank of A_{p+1} ... A_k (or the minimum of several of these); "
                              "consecutive shapes checked")
def _rank_product_bound(M: Any, bounds: tuple):
    from symattn.kernel.objects.block_matrices import Rank

    e = canonical(M)
    if not isinstance(e, sp.MatMul):
        raise KernelError("rank_product_bound: the rank of a product is needed")
    _, mats = e.as_coeff_matrices()
    if len(mats) < 2:
        raise KernelError("rank_product_bound: the rank of a product of at least two matrices is needed")
    # a scalar factor c changes no bound: rank(c M) <= rank(M), whatever c is
    for a, b in zip(mats, mats[1:]):
        if not _same_dim(a.shape[1], b.shape[0]):
            raise KernelError(f"{_show(a)} has {a.shape[1]} columns but {_show(b)} has {b.shape[0]} rows")
    if not bounds:
        raise KernelError("rank_product_bound: no bound named")
    values = []
    for p, which in bounds:
        if not isinstance(p, int) or not 1 <= p < len(mats):
            raise KernelError(f"rank_product_bound: no split at {p!r}")
        left = mats[0] if p == 1 else sp.MatMul(*mats[:p])
        right = mats[p] if p == len(mats) - 1 else sp.MatMul(*mats[p:])
        table = {"inner": mats[p - 1].shape[1], "left": Rank(left), "right": Rank(right)}
        if which not in table:
            raise KernelError(f"rank_product_bound: {which!r} is not inner, left or right")
        values.append(table[which])
    bound = values[0] if len(values) == 1 else sp.Min(*values, evaluate=False)
    return Rank(e), bound, "<="


# ============================================================================= blocks
def _row_of_blocks(M) -> list | None:
    from symattn.kernel.objects.block_matrices import HConcat

    if isinstance(M, HConcat):
        return list(M.blocks)
    if isinstance(M, sp.BlockMatrix) and M.blockshape[0] == 1:
        return list(M.blocks[0, :])
    return None


def _column_of_blocks(M) -> list | None:
    from symattn.kernel.objects.block_matrices import VStack

    if isinstance(M, VStack):
        return list(M.blocks)
    if isinstance(M, sp.BlockMatrix) and M.blockshape[1] == 1:
        return list(M.blocks[:, 0])
    return None


@schema("block_product", "in a product ... [A_1 ... A_k][B_1; ...; B_k] ..., the pair is A_1 B_1 + ... + A_k B_k, "
                         "the same number of blocks and every pair shown to fit (columns of A_m = rows of B_m)")
def _block_product(expr: Any, at: int):
    e = canonical(expr)
    if not isinstance(e, sp.MatMul):
        raise KernelError(f"block_product: not a product: {_show(e)}")
    coeff, mats = e.as_coeff_matrices()
    if not isinstance(at, int) or not 0 <= at < len(mats) - 1:
        raise KernelError(f"block_product: no pair of factors at {at!r}")
    As, Bs = _row_of_blocks(mats[at]), _column_of_blocks(mats[at + 1])
    if As is None or Bs is None:
        raise KernelError(f"block_product: factors {at}, {at + 1} are not a row of blocks times a column of blocks")
    if len(As) != len(Bs):
        raise KernelError(f"a row of {len(As)} blocks times a column of {len(Bs)} blocks")
    for m, (A, B) in enumerate(zip(As, Bs), start=1):
        if not _same_dim(A.shape[1], B.shape[0]):
            raise KernelError(f"block {m}: A_{m} is {A.shape[0]} x {A.shape[1]} but B_{m} is {B.shape[0]} x "
                              f"{B.shape[1]}: inner dimensions {A.shape[1]} and {B.shape[0]} differ")
    total = sp.MatAdd(*[sp.MatMul(A, B) for A, B in zip(As, Bs)]) if len(As) > 1 else sp.MatMul(As[0], Bs[0])
    factors = [*mats[:at], total, *mats[at + 2:]]
    new = sp.MatMul(coeff, *factors) if (coeff != 1 or len(factors) > 1) else total
    return e, canonical(new), "="


def _rewrap(node, m, body):
    from symattn.kernel.objects.block_matrices import MatSum

    if isinstance(node, MatSum):
        return MatSum(body, (m, *node.bounds))
    return type(node)(sp.Lambda(m, body), node.count)


@schema("factor_out_of_blocks", "[M B_1 ... M B_h] = M [B_1 ... B_h] (Concat, M on the left), [B_1 M; ...; B_h M] = "
                                "[B_1; ...; B_h] M (Stack, M on the right), sum_m M B_m N = M (sum_m B_m) N (MatSum, "
                                "either side), the factor shown free of the block index")
def _factor_out_of_blocks(node: Any, split: int, side: str):
    from symattn.kernel.objects.block_matrices import Concat, MatSum, Stack
    from symattn.kernel.terms import free_symbols

    e = canonical(node)
    if isinstance(e, (Concat, Stack)):
        m, body = e.family.variables[0], e.family.expr
    elif isinstance(e, MatSum):
        m, body = e.variable, e.term
    else:
        raise KernelError(f"factor_out_of_blocks: not a family of blocks: {_show(e)}")
    if not isinstance(body, sp.MatMul):
        raise KernelError("factor_out_of_blocks: the blocks are not products")
    coeff, mats = body.as_coeff_matrices()
    if not isinstance(split, int) or not 1 <= split < len(mats):
        raise KernelError(f"factor_out_of_blocks: no split at {split!r}")
    p = split
    if side == "left":
        if not isinstance(e, (Concat, MatSum)):
            raise KernelError("a factor on the left leaves only a Concat or a MatSum")
        if any(m in free_symbols(x) for x in mats[:p]):
            raise KernelError("the factor depends on the block index")
        inner = sp.MatMul(coeff, *mats[p:]) if coeff != 1 or len(mats[p:]) > 1 else mats[p]
        new = sp.MatMul(*mats[:p], _rewrap(e, m, inner))
    elif side == "right":
        if not isinstance(e, (Stack, MatSum)):
            raise KernelError("a factor on the right leaves only a Stack or a MatSum")
        if any(m in free_symbols(x) for x in mats[p:]):
            raise KernelError("the factor depends on the block index")
        inner = sp.MatMul(coeff, *mats[:p]) if coeff != 1 or p > 1 else mats[0]
        new = sp.MatMul(_rewrap(e, m, inner), *mats[p:])
    else:
        raise KernelError(f"factor_out_of_blocks: side is left or right, not {side!r}")
    return e, canonical(new), "="


@schema("peel_last_block", "a family of c blocks (Concat, Stack) with c an integer shown >= 2 is the family of c - 1 "
                           "blocks followed by block c; sum_{m=a}^{b} M_m = sum_{m=a}^{b-1} M_m + M_b for an integer "
                           "b - a shown >= 1; a family of one block, or a sum with a = b, is that block")
def _peel_last_block(node: Any):
    from symattn.kernel.objects.block_matrices import Concat, HConcat, MatSum, Stack, VStack
    from symattn.kernel.sign import provably_le
    from symattn.kernel.sums import _is_integer
    from symattn.kernel.zero import index_ranges

    e = canonical(node)
    hyps = _hyps()
    ranges = index_ranges(hyps)
    if isinstance(e, (Concat, Stack)):
        c = sp.sympify(e.count)
        if c == 1:
            return e, canonical(e.member(sp.S.One)), "="
        if not (_is_integer(c, hyps, {}) and provably_le(2, c, ranges)):
            raise KernelError(f"the number of blocks {sp.sstr(c)} is not shown to be an integer >= 2")
        joined = HConcat if isinstance(e, Concat) else VStack
        return e, canonical(joined(type(e)(e.family, c - 1), e.member(c))), "="
    if isinstance(e, MatSum):
        lo, hi = e.bounds
        gap = sp.expand(hi - lo)
        if canonical(gap) == 0:
            return e, canonical(substitute(e.term, {e.variable: lo})), "="
        if not (_is_integer(gap, hyps, {}) and provably_le(1, gap, ranges)):
            raise KernelError(f"the sum over {sp.sstr(lo)}..{sp.sstr(hi)} is not shown to have at least two terms")
        rest = MatSum(e.term, (e.variable, lo, hi - 1))
        return e, canonical(sp.MatAdd(rest, substitute(e.term, {e.variable: hi}))), "="
    raise KernelError(f"peel_last_block: not a family of blocks: {_show(e)}")


# ============================================================================= entries and extensionality
def _fresh_index(depth: int) -> sp.Symbol:
    """The summation index of nesting ``depth`` (``k_1``, ``k_2``, ...: deterministic, so a derivation
    can be written against an entry; bound, so :func:`canonical` renames it; the names are reserved)."""
    return sp.Symbol(f"k_{depth}", integer=True, positive=True)


def _library_entry(expr: Any):
    """The ``_symattn_entry`` of one of symattn's own heads (part of the reviewed library, like their
    assumption methods), or ``None``; a head defined elsewhere (a subclass included) is refused."""
    own = getattr(type(expr), "_symattn_entry", None)
    if own is None:
        return None
    where = (type(expr).__module__ or "", getattr(own, "__module__", "") or "")
    if not all(w == "symattn" or w.startswith("symattn.") for w in where):
        raise KernelError(f"the entries of {type(expr).__name__} (defined in {where[0]}) are not the library's: "
                          "unfold it by its definition first")
    return expr._symattn_entry


#: the largest literal power of a matrix whose entry is written as a product
MAX_POWER = 16


def matrix_entry(expr: Any, i: Any, j: Any, depth: int = 0) -> Any:
    r"""The :math:`(i, j)` entry (1-based) of a matrix expression, as the kernel reads it.

    Products become sums over fresh indices ``k_{depth+1}``; a permutation matrix acts on the index,
    :math:`(PM)_{ij} = M_{\sigma(i) j}` and :math:`(MP^\top)_{ij} = M_{i\sigma(j)}`; a matrix symbol ``S``
    has entries ``S[i, j]`` (an :class:`~sympy.IndexedBase`); symattn's heads give their own formula."""
    if depth == 0:
        names = {s.name for s in (expr.atoms(sp.Symbol) if isinstance(expr, sp.Basic) else ())}
        names |= {getattr(i, "name", ""), getattr(j, "name", "")}
        clash = sorted(x for x in names if x.startswith("k_") and x[2:].isdigit())
        if clash:
            raise KernelError(f"entry: the names {clash} are reserved for summation indices")
    if not isinstance(expr, (MatrixExpr, sp.MatrixBase)):
        raise KernelError(f"entry: not a matrix expression: {_show(expr)}")
    if isinstance(expr, sp.MatrixBase):
        if not (isinstance(i, sp.Integer) and isinstance(j, sp.Integer)):
            raise KernelError("entry of an explicit matrix needs integer indices")
        if not (1 <= int(i) <= expr.rows and 1 <= int(j) <= expr.cols):
            from symattn.kernel.index_bounds import OutsideShape

            raise OutsideShape(f"entry ({i}, {j}) of an explicit {expr.rows} x {expr.cols} matrix is outside its "
                               "shape: "
                               "the entry is not defined there")
        return expr[int(i) - 1, int(j) - 1]
    own = _library_entry(expr)
    if own is not None:
        return own(i, j, depth, matrix_entry)
    if isinstance(expr, sp.MatrixSymbol):
        return sp.IndexedBase(expr.name)[i, j]
    if isinstance(expr, sp.Identity):
        return sp.KroneckerDelta(i, j)
    if isinstance(expr, sp.ZeroMatrix):
        return sp.S.Zero
    if isinstance(expr, sp.OneMatrix):
        return sp.S.One
    if isinstance(expr, sp.Transpose):
        return matrix_entry(expr.arg, j, i, depth)
    if isinstance(expr, sp.MatAdd):
        return sp.Add(*[matrix_entry(a, i, j, depth) for a in expr.args])
    if isinstance(expr, sp.MatMul):
        coeff, mats = expr.as_coeff_matrices()
        return coeff * _product_entry(list(mats), i, j, depth)
    if isinstance(expr, sp.MatPow) and isinstance(expr.exp, sp.Integer) and 0 <= expr.exp <= MAX_POWER:
        # a literal power of a square matrix: the product of its factors (M^0 = I)
        if expr.exp == 0:
            return sp.KroneckerDelta(i, j)
        return _product_entry([expr.base] * int(expr.exp), i, j, depth)
    raise KernelError(f"entry: unsupported matrix expression {type(expr).__name__}: {_show(expr)}")


def _product_entry(mats: list, i, j, depth: int):
    from symattn.kernel.objects.permutations import PermutationMatrix

    if len(mats) == 1:
        return matrix_entry(mats[0], i, j, depth)
    first, last = mats[0], mats[-1]
    if type(first) is PermutationMatrix:  # (P M)_{ij} = M_{sigma(i) j}
        return _product_entry(mats[1:], first.sigma(i), j, depth)
    if isinstance(last, sp.Transpose) and type(last.arg) is PermutationMatrix:  # (M P^T)_{ij} = M_{i sigma(j)}
        return _product_entry(mats[:-1], i, last.arg.sigma(j), depth)
    inner = first.shape[1]
    if inner == 1:
        return matrix_entry(first, i, sp.S.One, depth) * _product_entry(mats[1:], sp.S.One, j, depth)
    k = _fresh_index(depth + 1)
    return sp.Sum(matrix_entry(first, i, k, depth + 1) * _product_entry(mats[1:], k, j, depth + 1), (k, 1, inner))


#: the assumptions a generic index of 1..n may carry: those of a positive integer, and no more
_GENERIC_INDEX = sp.Symbol("_generic_index", integer=True, positive=True).assumptions0


def _mentioned_by(h: Any, x: sp.Symbol) -> bool:
    """Whether hypothesis ``h`` mentions ``x`` in any field (a ``forall`` variable of it excepted)."""
    from symattn.kernel.terms import free_symbols

    if x in set(getattr(h, "forall", ()) or ()):
        return False

    def has(v):
        if isinstance(v, (tuple, list)):
            return any(has(w) for w in v)
        if isinstance(v, sp.MatrixBase):
            return any(has(w) for w in v)
        return isinstance(v, sp.Basic) and (x in free_symbols(v) or v.has(x))

    fields = vars(h) if hasattr(h, "__dict__") else {}
    return any(has(v) for k, v in fields.items() if k != "forall")


def _matrix_names(expr: Any, out: dict) -> None:
    """Every matrix symbol's name with its shape, and every IndexedBase's name, refusing a name used twice
    (two shapes, or a matrix symbol and an indexed base of the same name: their entries would coincide)."""
    if not isinstance(expr, sp.Basic):
        return
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.MatrixSymbol):
            key, what = node.name, ("matrix", tuple(sp.sympify(s) for s in node.shape))
        elif isinstance(node, sp.IndexedBase):
            key, what = str(node.label), ("indexed", None)
        else:
            continue
        if out.setdefault(key, what) != what:
            raise KernelError(f"the name {key} stands for two different objects ({out[key]} and {what}): "
                              "their entries would be confused")


def entry_hypotheses(lhs: Any, i: Any, j: Any) -> tuple:
    """The hypotheses an entry proof for ``lhs`` is made under: the step's, and ``1 <= i <= rows``,
    ``1 <= j <= columns`` (built here, so an entry proof made under anything more is refused)."""
    from symattn.language.statement import IndexRange

    if not isinstance(lhs, (MatrixExpr, sp.MatrixBase)):
        raise KernelError(f"not a matrix: {_show(lhs)}")
    _check_generic_index(i, "i", lhs, lhs)
    _check_generic_index(j, "j", lhs, lhs)
    if i == j:
        raise KernelError("the row and column indices must be different symbols")
    ranges = (IndexRange(f"{i}_in_rows", index=i, lower=1, upper=lhs.shape[0]),
              IndexRange(f"{j}_in_columns", index=j, lower=1, upper=lhs.shape[1]))
    names = {h.name for h in _hyps()}
    if names & {r.name for r in ranges}:
        raise KernelError(f"the theorem already has a hypothesis named {sorted(names & {r.name for r in ranges})}")
    return _hyps() + ranges


def _check_generic_index(x: Any, w: str, lhs: Any, rhs: Any) -> None:
    from symattn.kernel.terms import free_symbols

    if not isinstance(x, sp.Symbol) or isinstance(x, sp.Dummy) or x.is_integer is not True:
        raise KernelError(f"{w} must be an integer Symbol, got {x!r}")
    extra = sorted(k for k, v in x.assumptions0.items() if v is not None and _GENERIC_INDEX.get(k) != v)
    if extra:
        raise KernelError(f"the index {x} carries assumptions {extra} that a generic index of 1..n may not use")
    if x.name.startswith("k_") and x.name[2:].isdigit():
        raise KernelError(f"the name {x} is reserved for summation indices")
    for side in (lhs, rhs):
        if x in free_symbols(side):
            raise KernelError(f"index {x} is not fresh: it occurs in the matrices")
    used = [h.name for h in _hyps() if _mentioned_by(h, x)]
    if used:
        raise KernelError(f"index {x} is not fresh: hypotheses {used} mention it")


@schema("matrix_entrywise", "A = B for matrices of shapes shown equal, when A[i, j] = B[i, j] was shown by the kernel "
                            "for integer indices i, j fresh (in neither matrix nor any hypothesis, carrying no "
                            "assumption beyond a positive integer's) under exactly the step's hypotheses and "
                            "1 <= i <= rows, 1 <= j <= columns; entries read by the kernel's matrix_entry")
def _matrix_entrywise(lhs: Any, rhs: Any, i: Any, j: Any, entries: Any):
    from symattn.kernel import ledger
    from symattn.kernel.thm import Thm, accept, within
    from symattn.kernel.zero import HYPOTHESES

    a, b = canonical(lhs), canonical(rhs)
    if not (isinstance(a, (MatrixExpr, sp.MatrixBase)) and isinstance(b, (MatrixExpr, sp.MatrixBase))):
        raise KernelError("matrix_entrywise: both sides must be matrices")
    if not (_same_dim(a.shape[0], b.shape[0]) and _same_dim(a.shape[1], b.shape[1])):
        raise KernelError(f"matrix_entrywise: shape mismatch: {a.shape} vs {b.shape}")
    _check_generic_index(i, "i", a, b)
    _check_generic_index(j, "j", a, b)
    if i == j:
        raise KernelError("matrix_entrywise: the row and column indices must be different symbols")
    names: dict = {}
    _matrix_names(a, names)
    _matrix_names(b, names)
    context = entry_hypotheses(a, i, j)
    if not isinstance(entries, Thm) or entries.relation != "=":
        raise KernelError("matrix_entrywise: the entry proof is not an equation the kernel has shown")
    if not within(entries, context):
        raise KernelError("matrix_entrywise: the entry proof was made under hypotheses the step does not give it")
    token = HYPOTHESES.set(context)
    try:
        ok = accept(entries, matrix_entry(a, i, j), matrix_entry(b, i, j), "=")
    finally:
        HYPOTHESES.reset(token)
    if not ok:
        raise KernelError(f"matrix_entrywise: the entry proof shows {_show(entries.lhs)} = {_show(entries.rhs)}, not "
                          f"entry ({i}, {j}) of the two sides")
    for c in entries.checks:  # the facts of the entry proof are the facts of this step
        ledger.record(c)
    # the second engine on the instance's own fact, entry (i, j) of both sides equal
    from symattn.kernel.zero import _refused, residual

    both = _refused(residual(canonical(matrix_entry(a, i, j)), canonical(matrix_entry(b, i, j))))
    if both:
        raise KernelError(f"matrix_entrywise: {both}")
    return a, b, "="
