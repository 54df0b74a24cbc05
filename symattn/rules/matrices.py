r"""Rules for matrix expressions with symbolic shapes.

Associativity and transposes
    ``matrix_associativity`` (products regrouped, scalars moved to the front), ``transpose_product``
    (:math:`(AB)^\top = B^\top A^\top`), ``matrix_distributivity`` (:math:`A(B + C) = AB + AC`).
    Each compares the two sides after the named normalisation, structurally: no simplification
    beyond it, no numbers.
Blocks
    ``block_matrix_product``: :math:`[A_1 \cdots A_k]\,[B_1; \cdots; B_k] = \sum_m A_m B_m`, after
    checking that every pair of blocks fits (columns of :math:`A_m` = rows of :math:`B_m`, with
    symbolic shapes). ``peel_last_block``: an indexed family of :math:`c \ge 2` blocks is the
    family of :math:`c - 1` blocks followed by the last one (``Concat``, ``Stack``, ``MatSum``);
    one block is that block. ``factor_out_of_blocks``: a factor not depending on the block index
    leaves ``Concat`` (on the left), ``Stack`` (on the right) or ``MatSum`` (either side).
    An induction on the number of blocks is ``bounded_induction`` (:mod:`symattn.rules.induction`,
    concluded by the kernel's :mod:`symattn.kernel.induction`).
Rank
    ``rank_of_product_le``: :math:`\operatorname{rank}(AB) \le \min(\text{inner dimension},
    \operatorname{rank}A, \operatorname{rank}B)`, the inner dimension read off the shapes.
Permutations
    ``permutation_matrix_orthogonal``: :math:`P^\top P = PP^\top = I` for :math:`P` the matrix of a
    declared permutation; ``sum_reindex_bijection``:
    :math:`\sum_{k=1}^n f(\sigma(k)) = \sum_{k=1}^n f(k)` for :math:`\sigma` declared a permutation
    of exactly that range; ``matrix_entrywise``: two matrices are equal when a nested derivation
    shows their :math:`(i, j)` entries equal for indices :math:`i, j` in range.
Evaluation
    ``evaluate_explicit``: an expression of explicit matrices equals its exact evaluation.

:func:`entry` gives the :math:`(i, j)` entry (1-based) of a matrix expression: sums over fresh
indices ``k_1, k_2, ...`` for products, :math:`(PM)_{ij} = M_{\sigma(i) j}` for permutation
matrices, and each symattn object's own formula.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.axioms import axiom
from symattn.kernel.schemas.matrices import entry_hypotheses, matrix_entry, normal_form
from symattn.kernel.terms import KernelError, alpha_equal, canonical
from symattn.kernel.thm import by_zero, refl, rewrite, sym, trans
from symattn.kernel.zero import opaque_note
from symattn.maths.multihead import Concat, MatSum, Rank, Stack, same_dim
from symattn.maths.permutation import Permutation, PermutationMatrix
from symattn.rules import ProofContext, RuleError, failed, proved, rule

__all__ = ["entry", "normal_form", "matrices_equal", "peel", "chain_thm"]


def _is_matrix(x: Any) -> bool:
    return isinstance(x, (MatrixExpr, sp.MatrixBase))


def _show(x: Any, limit: int = 240) -> str:
    try:
        s = sp.sstr(x)
    except Exception:  # noqa: BLE001 - a display helper must not fail (ordering a closed integral evaluates it)
        s = sp.sstr(x, order="none")
    return s if len(s) <= limit else s[:limit] + " ..."


# --------------------------------------------------------------------------------- normal forms
def matrices_equal(a: Any, b: Any, **how) -> bool:
    """A hint for the searching rules (the kernel decides): shapes agree and the kernel's normal forms
    (:func:`symattn.kernel.schemas.matrices.normal_form`) are identical."""
    if _is_matrix(a) != _is_matrix(b):
        return False
    if _is_matrix(a) and not (same_dim(a.shape[0], b.shape[0]) and same_dim(a.shape[1], b.shape[1])):
        return False
    return a == b or normal_form(a, **how) == normal_form(b, **how)


def normal_forms_meet(a: Any, b: Any, **how):
    """The kernel's ``a = b`` through the normal forms of both sides (``matrix_normal_form``), or a
    KernelError."""
    left, right = axiom("matrix_normal_form", expr=a, **how), axiom("matrix_normal_form", expr=b, **how)
    return trans(left, sym(right))


def _matrix_step(name: str, lhs, rhs, relation, **how):
    if relation != "=":
        raise RuleError(f"{name} justifies equalities only")
    if not (_is_matrix(lhs) or _is_matrix(rhs)) and not any(
        isinstance(x, sp.Basic) and x.atoms(MatrixExpr) for x in (lhs, rhs)
    ):
        return failed("no matrix expression on either side")
    try:
        return proved(normal_forms_meet(lhs, rhs, **how), f"both sides agree after {name.replace('_', ' ')}")
    except KernelError as exc:
        detail = str(exc)
    return failed(
        f"the sides differ after {name.replace('_', ' ')}: {_show(normal_form(lhs, **how))} vs "
        f"{_show(normal_form(rhs, **how))} ({detail})"
    )
@rule("matrix_associativity", "(AB)C = A(BC) and scalar factors move to the front of a product")
def check_matrix_associativity(lhs, rhs, relation, ctx):
    return _matrix_step("matrix_associativity", lhs, rhs, relation)


@rule("transpose_product", "(AB)^T = B^T A^T and (A^T)^T = A, with products regrouped")
def check_transpose_product(lhs, rhs, relation, ctx):
    return _matrix_step("transpose_product", lhs, rhs, relation, transposes=True)


@rule("matrix_distributivity", "A(B + C) = AB + AC and (A + B)C = AC + BC, with products regrouped")
def check_matrix_distributivity(lhs, rhs, relation, ctx):
    return _matrix_step("matrix_distributivity", lhs, rhs, relation, expand=True)


# --------------------------------------------------------------------------------- entries
def entry(expr: Any, i: Any, j: Any, depth: int = 0) -> Any:
    r"""The :math:`(i, j)` entry (1-based) of a matrix expression, as the kernel reads it
    (:func:`symattn.kernel.schemas.matrices.matrix_entry`).

    Products become sums over fresh indices ``k_{depth+1}``; a permutation matrix acts on the
    index, :math:`(PM)_{ij} = M_{\sigma(i) j}` and :math:`(MP^\top)_{ij} = M_{i\sigma(j)}`; a matrix
    symbol ``S`` has entries ``S[i, j]`` (an :class:`~sympy.IndexedBase`).

    >>> import sympy as sp
    >>> from symattn.maths.permutation import PermutationMatrix
    >>> n, d, i, j = sp.symbols("n d i j", integer=True, positive=True)
    >>> X, W = sp.MatrixSymbol("X", n, d), sp.MatrixSymbol("W", d, d)
    >>> entry(PermutationMatrix("sigma", n) * X * W, i, j)
    Sum(W[k_1, j]*X[sigma(i), k_1], (k_1, 1, d))
    """
    if not _is_matrix(expr):
        raise TypeError(f"entry: not a matrix expression: {_show(expr)}")
    return matrix_entry(expr, i, j, depth)


# --------------------------------------------------------------------------------- nested derivations
def chain_thm(d, ctx: ProofContext, label: str, start, end):
    """The kernel's theorem ``start = end`` through the nested derivation ``d`` (each step checked by
    its rule under ``ctx``; the ends bridged to ``start`` and ``end`` by the zero test when they are
    not the same term), or the failing :class:`RuleResult`."""
    from symattn.language.derivation import Derivation
    from symattn.rules.induction import _chain

    if not isinstance(d, Derivation):
        raise RuleError(f"{label}: expected a Derivation, got {type(d).__name__}")
    t, bad = _chain(d, ctx, label)
    if bad is not None:
        return None, bad
    try:
        if not alpha_equal(t.lhs, canonical(start)):
            t = trans(by_zero(start, t.lhs), t)
        if not alpha_equal(t.rhs, canonical(end)):
            t = trans(t, by_zero(t.rhs, end))
    except KernelError as exc:
        return None, failed(f"{label}: runs from {_show(d.start)} to {_show(d.end)}, not from {_show(start)} to "
                            f"{_show(end)} ({exc})")
    return t, None


@rule(
    "matrix_entrywise",
    "A = B when a nested derivation shows A[i, j] = B[i, j] for fresh indices i, j in range (the kernel's "
    "matrix_entrywise: the indices' freshness and the ranges checked by the kernel)",
    params=("i", "j", "proof"),
)
def check_matrix_entrywise(lhs, rhs, relation, ctx, i=None, j=None, proof=None):
    if relation != "=":
        raise RuleError("matrix_entrywise justifies equalities only")
    if not (_is_matrix(lhs) and _is_matrix(rhs)):
        raise RuleError("both sides must be matrices")
    context = entry_hypotheses(lhs, i, j)
    sub = dataclasses.replace(ctx, hypotheses=context)
    t, bad = chain_thm(proof, sub, "entry proof", matrix_entry(lhs, i, j), matrix_entry(rhs, i, j))
    if bad is not None:
        return bad
    return proved(axiom("matrix_entrywise", lhs=lhs, rhs=rhs, i=i, j=j, entries=t),
                  f"entries ({i}, {j}) shown equal for {i} in 1..{lhs.shape[0]}, {j} in 1..{lhs.shape[1]}")


# --------------------------------------------------------------------------------- blocks
def _block_products(expr) -> list:
    """The kernel's theorems ``expr = expr'`` expanding one product ``[A_1 ... A_k][B_1; ...; B_k]``."""
    out = []
    for mm in sp.preorder_traversal(expr):
        if not isinstance(mm, sp.MatMul):
            continue
        _, mats = mm.as_coeff_matrices()
        for k in range(len(mats) - 1):
            try:
                out.append(rewrite(expr, axiom("block_product", expr=mm, at=k)))
            except KernelError as exc:
                if "inner dimensions" in str(exc) or str(exc).startswith("a row of"):
                    raise  # the blocks do not fit: say so
    return out


@rule(
    "block_matrix_product",
    "[A_1 ... A_k][B_1; ...; B_k] = A_1 B_1 + ... + A_k B_k, every pair of blocks checked to fit",
)
def check_block_matrix_product(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("block_matrix_product justifies equalities only")
    for a, b, flip in ((lhs, rhs, False), (rhs, lhs, True)):
        for t in _block_products(a):
            try:
                done = trans(t, normal_forms_meet(t.rhs, b))
            except KernelError:
                continue
            return proved(sym(done) if flip else done, "block row times block column expanded into the sum of "
                                                        "block products")
    return failed("no product of a block row and a block column turns one side into the other")


def peel(node):
    """The node with its last block split off by the kernel's ``peel_last_block``, or ``None`` when the
    kernel refuses (the count not shown to be 1 or an integer >= 2 under the step's hypotheses).

    >>> import sympy as sp
    >>> from symattn.maths.multihead import FamilyMatrix
    >>> m, n, h = sp.symbols("m n h", integer=True, positive=True)
    >>> F = sp.Lambda(m, FamilyMatrix("F", m, n, n))
    >>> peel(Concat(F, h + 1)).args[1]
    F^(h + 1)
    >>> peel(Concat(F, h)) is None        # h may be 1: nothing to split off
    True
    """
    try:
        return axiom("peel_last_block", node=node).rhs
    except KernelError:
        return None


def _peelings(expr) -> list:
    """The kernel's theorems ``expr = expr'`` splitting the last block off one family, and off all."""
    nodes = [x for x in sp.preorder_traversal(expr) if isinstance(x, (Concat, Stack, MatSum))]
    thms = []
    for x in nodes:
        try:
            thms.append(axiom("peel_last_block", node=x))
        except KernelError:
            continue
    out = []
    for t in thms:
        try:
            out.append(rewrite(expr, t))
        except KernelError:
            continue
    if len(thms) > 1:
        acc = refl(expr)
        for t in thms:
            try:
                acc = trans(acc, rewrite(acc.rhs, t))
            except KernelError:
                continue
        out.append(acc)
    return out


@rule(
    "peel_last_block",
    "a family of c >= 2 blocks (c >= 2 from assumptions or an IndexRange) is the family of c - 1 blocks "
    "followed by block c (Concat, Stack, MatSum); a family of one block is that block",
)
def check_peel_last_block(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("peel_last_block justifies equalities only")
    for a, b, flip in ((lhs, rhs, False), (rhs, lhs, True)):
        for t in _peelings(a):
            try:
                done = trans(t, normal_forms_meet(t.rhs, b))
            except KernelError:
                continue
            return proved(sym(done) if flip else done, "last block split off")
    return failed("splitting off the last block (where the count is provably >= 2, or is 1) does not give the other "
                  "side")


def _factorings(expr) -> list:
    """The kernel's theorems ``expr = expr'`` taking a factor free of the block index out of a family."""
    out = []
    for node in sp.preorder_traversal(expr):
        if not isinstance(node, (Concat, Stack, MatSum)):
            continue
        body = node.term if isinstance(node, MatSum) else node.family.expr
        if not isinstance(body, sp.MatMul):
            continue
        _, mats = body.as_coeff_matrices()
        for p in range(1, len(mats)):
            for side in ("left", "right"):
                try:
                    out.append(rewrite(expr, axiom("factor_out_of_blocks", node=node, split=p, side=side)))
                except KernelError:
                    continue
    return out


@rule(
    "factor_out_of_blocks",
    "[M B_1 ... M B_h] = M [B_1 ... B_h], [B_1 M; ...; B_h M] = [B_1; ...; B_h] M, sum_m M B_m N = M (sum_m B_m) N, "
    "for M, N not depending on the block index",
)
def check_factor_out_of_blocks(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("factor_out_of_blocks justifies equalities only")
    for a, b, flip in ((lhs, rhs, False), (rhs, lhs, True)):
        for t in _factorings(a):
            try:
                done = trans(t, normal_forms_meet(t.rhs, b))
            except KernelError:
                continue
            return proved(sym(done) if flip else done, "a factor free of the block index taken out")
    return failed("no factor free of the block index can be taken out to give the other side")


# --------------------------------------------------------------------------------- rank
@rule(
    "rank_of_product_le",
    "rank(A_1 ... A_k) <= the inner dimension at any split, or the rank of the part before or after it",
)
def check_rank_of_product_le(lhs, rhs, relation, ctx):
    if relation not in ("<=",):
        raise RuleError(f"rank_of_product_le justifies '<=' steps, not {relation!r}")
    if not isinstance(lhs, Rank):
        raise RuleError(f"the left side must be rank(...), got {_show(lhs)}")
    M = lhs.args[0]
    if not isinstance(M, sp.MatMul):
        raise RuleError("the rank of a product is needed")
    _, mats = M.as_coeff_matrices()
    if len(mats) < 2:
        raise RuleError("the rank of a product of at least two matrices is needed")
    options = [(p, w) for p in range(1, len(mats)) for w in ("inner", "left", "right")]
    values = {o: axiom("rank_product_bound", M=M, bounds=(o,)) for o in options}

    def meets(t, target):
        try:
            return trans(t, by_zero(t.rhs, target)) if not alpha_equal(t.rhs, target) else t
        except (KernelError, ValueError, TypeError):  # SymPy may refuse to order a Min's arguments
            return None

    if isinstance(rhs, sp.Min):
        chosen = []
        for a in rhs.args:
            hit = next((o for o, t in values.items() if meets(refl(t.rhs), a) is not None), None)
            if hit is None:
                break
            chosen.append(hit)
        else:
            t = axiom("rank_product_bound", M=M, bounds=tuple(chosen))
            done = meets(t, rhs)
            if done is not None:
                return proved(done, "the minimum of valid bounds")
    for (p, w), t in values.items():
        done = meets(t, rhs)
        if done is not None:
            return proved(done, f"rank of a product <= its {w} bound at split {p} ({_show(t.rhs)})")
    return failed(f"{_show(rhs)} is none of the bounds {[_show(t.rhs) for t in values.values()]}")


# --------------------------------------------------------------------------------- permutations
@rule("permutation_matrix_orthogonal", "P^T P = P P^T = I for the matrix P of a declared permutation")
def check_permutation_matrix_orthogonal(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("permutation_matrix_orthogonal justifies equalities only")
    reasons = []
    for a, b, flip in ((lhs, rhs, False), (rhs, lhs, True)):
        for mm in sp.preorder_traversal(a):
            if not isinstance(mm, sp.MatMul):
                continue
            _, mats = mm.as_coeff_matrices()
            for k in range(len(mats) - 1):
                x, y = mats[k], mats[k + 1]
                pair = (isinstance(x, sp.Transpose) and isinstance(x.arg, PermutationMatrix) and x.arg == y) or (
                    isinstance(y, sp.Transpose) and isinstance(y.arg, PermutationMatrix) and y.arg == x
                )
                if not pair:
                    continue
                try:
                    t = rewrite(a, axiom("permutation_orthogonal", expr=mm, at=k))
                    t = trans(t, normal_forms_meet(t.rhs, b))
                except KernelError as exc:
                    reasons.append(str(exc))
                    continue
                P = y if isinstance(x, sp.Transpose) else x
                return proved(sym(t) if flip else t, f"{P.name} is a permutation: P^T P = P P^T = I")
    why = f" ({'; '.join(reasons)})" if reasons else ""
    return failed(f"no product P^T P or P P^T of a permutation matrix whose removal gives the other side{why}")


def _reindexings(expr, ctx) -> list:
    """The kernel's theorems ``expr = expr'`` re-indexing one sum along a declared permutation."""
    out = []
    if not isinstance(expr, sp.Basic):
        return out
    perms = ctx.of_type(Permutation)
    for s in sorted(expr.atoms(sp.Sum), key=sp.default_sort_key):
        for hyp in perms:
            try:
                out.append(rewrite(expr, axiom("sum_reindex", s=s, sigma=hyp.sigma)))
            except KernelError:
                continue
    return out


@rule(
    "sum_reindex_bijection",
    "sum_{k=1}^{n} f(sigma(k)) = sum_{k=1}^{n} f(k) for sigma declared a permutation of exactly 1..n",
)
def check_sum_reindex_bijection(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("sum_reindex_bijection justifies equalities only")
    if not ctx.of_type(Permutation):
        raise RuleError("no permutation declared among the hypotheses")
    for a, b, flip in ((lhs, rhs, False), (rhs, lhs, True)):
        for t in _reindexings(a, ctx):
            try:
                done = t if alpha_equal(t.rhs, b) else trans(t, by_zero(t.rhs, b))
            except KernelError:
                continue
            return proved(sym(done) if flip else done, "sum re-indexed along a permutation of its range")
    return failed(
        "no sum over 1..n whose summand depends on its index k only through sigma(k), for a declared "
        "permutation sigma of 1..n, re-indexes to the other side"
    )


# --------------------------------------------------------------------------------- evaluation
@rule("evaluate_explicit", "an expression in explicit matrices equals its exact evaluation by the kernel (entrywise; "
                           "sums over literal bounds written out, other sums by the kernel's evaluator or opaque)")
def check_evaluate_explicit(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("evaluate_explicit justifies equalities only")
    t = axiom("explicit_evaluation", expr=lhs)
    try:
        return proved(trans(t, by_zero(t.rhs, rhs)), "evaluated exactly by the kernel")
    except KernelError:
        pass
    try:  # the right side may hold explicit objects (or sums) of its own
        r = axiom("explicit_evaluation", expr=rhs)
        return proved(trans(t, by_zero(t.rhs, r.rhs), sym(r)), "both sides evaluated exactly by the kernel")
    except KernelError:
        pass
    note = opaque_note(t.rhs - rhs) if not isinstance(t.rhs, (sp.MatrixBase, MatrixExpr)) else ""
    return failed(f"the left side evaluates to {_show(t.rhs)}, not {_show(rhs)} (sums the kernel cannot close "
                  "stay unevaluated" + (f"; {note})" if note else ")"))
