"""The second engine's re-check of a rank bound ``rank(A_1 ... A_k) <= b``.

The kernel proves such a bound from its schema ``rank_product_bound`` (the inner dimension at a
split, or the rank of the part before or after it) with no arithmetic fact going through its zero or
sign test. The second engine re-checks the claim from the product's own structure (read as data: the
factors of the ``MatMul``, their shapes), with its own table of facts of linear algebra:

* ``rank(c M) <= rank(M)`` for a scalar ``c`` (scalars are dropped);
* ``rank(A_1 ... A_k) <= rank(A_i ... A_j)`` for every contiguous run ``i..j`` of factors
  (``A_1 ... A_k = L (A_i ... A_j) R``, and ``rank(X Y) <= min(rank X, rank Y)``);
* ``rank(A) <= rows(A)`` and ``rank(A) <= cols(A)``;

with the shapes of consecutive factors shown to fit by flint's zero test (``cols(A_i) - rows(A_{i+1})``
reduces to 0). The bound ``b`` (or each argument of a ``Min``) must be one of these: a dimension of a
factor, shown equal by flint's zero test, or ``rank`` of a contiguous run of the factors, the same
term. Anything else is ``inexpressible`` (a weaker valid bound is not recognised; it is never
agreement).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.second import AGREE, INEXPRESSIBLE, Check

__all__ = ["is_rank", "recheck_rank_bound"]

_ENGINE = "flint"


def is_rank(e: Any) -> bool:
    """Whether ``e`` is the rank of a matrix (symattn's ``Rank`` head, read by name and module)."""
    return (isinstance(e, sp.Function) and type(e).__name__ == "Rank"
            and type(e).__module__ == "symattn.kernel.objects.block_matrices"
            and len(e.args) == 1)


def _short(x: Any, limit: int = 100) -> str:
    s = " ".join(sp.sstr(x).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _factors(M: Any) -> list | None:
    """The matrix factors of ``M`` (scalar factors dropped), or ``None`` when ``M`` is no matrix."""
    if not getattr(M, "is_Matrix", False) and not isinstance(M, sp.MatrixExpr):
        return None
    if isinstance(M, sp.MatMul):
        mats = [a for a in M.args if getattr(a, "is_Matrix", False) or isinstance(a, sp.MatrixExpr)]
        return mats or None
    return [M]


def _same(a: Any, b: Any) -> bool:
    from symattn.kernel.second.flint_zero import recheck_zero

    try:
        return recheck_zero(sp.sympify(a, strict=True) - sp.sympify(b, strict=True)).verdict == AGREE
    except (TypeError, ValueError, sp.SympifyError):
        return False


def recheck_rank_bound(lhs: Any, rhs: Any) -> Check | None:
    """The claim ``lhs <= rhs`` with ``lhs`` a rank (``None``: not such a claim)."""
    from symattn.kernel.terms import canonical

    if not is_rank(lhs):
        return None
    fact = f"{_short(lhs)} <= {_short(rhs)}"
    mats = _factors(canonical(lhs.args[0]))
    if mats is None:
        return Check(_ENGINE, INEXPRESSIBLE, "the rank of something that is not a matrix", fact)
    for a, b in zip(mats, mats[1:]):
        if not _same(a.shape[1], b.shape[0]):
            return Check(_ENGINE, INEXPRESSIBLE, f"the shapes of {_short(a, 40)} and {_short(b, 40)} are not shown "
                         "to fit", fact)
    dims = [x for m in mats for x in m.shape]
    runs = [mats[i:j] for i in range(len(mats)) for j in range(i + 1, len(mats) + 1)]
    bounds = list(rhs.args) if isinstance(rhs, sp.Min) else [rhs]
    why = []
    for b in bounds:
        if is_rank(b):
            inner = _factors(canonical(b.args[0]))
            if inner is not None and any(len(run) == len(inner) and all(x == y for x, y in zip(run, inner))
                                         for run in runs):
                why.append(f"rank of a run of the factors ({_short(b, 40)})")
                continue
            return Check(_ENGINE, INEXPRESSIBLE, f"{_short(b, 60)} is not the rank of a run of the factors", fact)
        hit = next((x for x in dims if _same(b, x)), None)
        if hit is None:
            return Check(_ENGINE, INEXPRESSIBLE, f"{_short(b, 60)} is not shown to be a dimension of a factor", fact)
        why.append(f"a dimension of a factor ({_short(hit, 40)})")
    return Check(_ENGINE, AGREE, f"rank(A_1 ... A_k) <= each bound: {'; '.join(why)} (the {len(mats)} factors' "
                 "shapes fit)", fact)
