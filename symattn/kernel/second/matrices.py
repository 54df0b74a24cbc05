"""Matrix expressions of symbolic shape: noncommutative polynomials over the scalar rational forms.

A matrix expression is read as a sum of words in *letters* (matrix symbols, symattn's permutation
matrices, and every other matrix-valued head keyed by its arguments' normal forms) with scalar
coefficients in :mod:`.atoms`' rational forms: ``MatAdd`` adds, ``MatMul`` concatenates words (its
scalar factors multiply the coefficient), ``Transpose`` reverses a word and transposes each letter,
``Identity`` is the empty word, ``ZeroMatrix`` is 0, an integer ``MatPow`` repeats. One relation is
known: a permutation matrix is orthogonal (``P^T P = P P^T = I``, symattn's ``PermutationMatrix``).

A family of blocks (symattn's ``Concat``, ``Stack`` and ``MatSum`` over a block index ``m``) is one
letter keyed by the index, the number of blocks (or the bounds) and the normal form of its block,
once the factors common to every word of the block and free of ``m`` are taken out: on the left of a
``Concat`` (``[L B_1 ... L B_h] = L [B_1 ... B_h]``), on the right of a ``Stack``, on either side of
a ``MatSum`` (linearity); a ``MatSum`` with literal bounds is written out, a ``Concat`` or ``Stack`` of
one block is that block; ``HConcat(X_1, ..., X_k) VStack(Y_1, ..., Y_k)`` is ``X_1 Y_1 + ... + X_k Y_k``
when each ``X_i`` is as wide as ``Y_i`` is tall. Identities of block matrices, each valid whatever the
letters are.
``expr == 0`` is agreed when every coefficient of the normal form is 0; anything else is undecided
(this module never disagrees: the letters may satisfy relations it does not know).
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from symattn.kernel.second.atoms import Inexpressible, RationalForm

__all__ = ["NCForm"]


class NCForm:
    def __init__(self, *exprs: Any):
        self.form = RationalForm(*exprs, spare=64)
        self.letters: dict = {}
        self.reps: list = []
        self.orthogonal: set = set()

    # ---------------------------------------------------------------------------- polynomials
    def _add(self, a: dict, b: dict, sign: int = 1) -> dict:
        out = dict(a)
        for w, c in b.items():
            c = c if sign == 1 else self.form.mul(c, self.form.const(sp.Integer(-1)))
            out[w] = self.form.add(out[w], c) if w in out else c
            if out[w][0].is_zero():
                del out[w]
        return out

    def _mul(self, a: dict, b: dict) -> dict:
        out: dict = {}
        for wa, ca in a.items():
            for wb, cb in b.items():
                w = self._reduce(wa + wb)
                c = self.form.mul(ca, cb)
                out[w] = self.form.add(out[w], c) if w in out else c
                if out[w][0].is_zero():
                    del out[w]
        return out

    def _reduce(self, w: tuple) -> tuple:
        changed = True
        while changed and self.orthogonal:
            changed = False
            for i in range(len(w) - 1):
                (x, tx), (y, ty) = w[i], w[i + 1]
                if x == y and x in self.orthogonal and tx != ty:
                    w = w[:i] + w[i + 2:]
                    changed = True
                    break
        return w

    def _scalar(self, r: tuple) -> dict:
        return {(): r} if not r[0].is_zero() else {}

    def _letter(self, key: Any, rep: Any, orthogonal: bool = False) -> dict:
        if key not in self.letters:
            self.letters[key] = len(self.reps)
            self.reps.append(rep)
            if orthogonal:
                self.orthogonal.add(self.letters[key])
        return {((self.letters[key], False),): self.form.one_r()}

    def key(self, p: dict) -> tuple:
        return tuple(sorted((w, self.form.key(c)) for w, c in p.items()))

    # ---------------------------------------------------------------------------- translation
    def of(self, e: Any) -> dict:
        if isinstance(e, sp.ZeroMatrix):
            return {}
        if isinstance(e, sp.Identity):
            return {(): self.form.one_r()}
        if isinstance(e, sp.MatAdd):
            out: dict = {}
            for a in e.args:
                out = self._add(out, self.of(a))
            return out
        if isinstance(e, sp.MatMul):
            out = {(): self.form.one_r()}
            args = list(e.args)
            i = 0
            while i < len(args):
                a = args[i]
                if i + 1 < len(args) and self._fitting_blocks(a, args[i + 1]):
                    # [X_1 ... X_k] [Y_1; ...; Y_k] = X_1 Y_1 + ... + X_k Y_k (each inner pair of one size)
                    pairs: dict = {}
                    for x, y in zip(a.args, args[i + 1].args):
                        pairs = self._add(pairs, self._mul(self.of(x), self.of(y)))
                    out = self._mul(out, pairs)
                    i += 2
                    continue
                out = self._mul(out, self.of(a) if isinstance(a, MatrixExpr) else self._scalar(self.form.of(a)))
                i += 1
            return out
        if isinstance(e, sp.Transpose):
            inner = self.of(e.arg)
            return {self._reduce(tuple((x, not t) for x, t in reversed(w))): c for w, c in inner.items()}
        if isinstance(e, sp.MatPow) and isinstance(e.exp, sp.Integer) and int(e.exp) >= 0:
            out = {(): self.form.one_r()}
            base = self.of(e.base)
            for _ in range(int(e.exp)):
                out = self._mul(out, base)
            return out
        if isinstance(e, sp.MatrixSymbol):
            return self._letter(("sym", e), e)
        if type(e).__name__ == "PermutationMatrix" and type(e).__module__.startswith("symattn."):
            return self._letter(("perm", e), e, orthogonal=True)
        family = self._family(e)
        if family is not None:
            return family
        if isinstance(e, MatrixExpr):
            keys = []
            for a in e.args:
                if isinstance(a, MatrixExpr):
                    keys.append(("nc", self.key(self.of(a))))
                elif isinstance(a, sp.Expr) and not isinstance(a, sp.Lambda):
                    try:
                        keys.append(("rat", self.form.key(self.form.of(a))))
                    except Inexpressible:
                        keys.append(("raw", a))
                else:
                    keys.append(("raw", a))
            return self._letter(("head", type(e), tuple(keys)), e)
        raise Inexpressible(f"not a matrix expression: {type(e).__name__}")

    def _same_size(self, a: Any, b: Any) -> bool:
        try:
            return self.form.reduce(self.form.of(sp.sympify(a, strict=True) - sp.sympify(b, strict=True))[0]).is_zero()
        except (Inexpressible, TypeError, sp.SympifyError):
            return False

    def _fitting_blocks(self, a: Any, b: Any) -> bool:
        """Whether ``a`` is symattn's ``HConcat`` and ``b`` its ``VStack`` of as many blocks, each
        block of ``a`` as wide as the matching block of ``b`` is tall (sizes equal as rational forms)."""
        blocks = "symattn.kernel.objects.block_matrices"
        if type(a).__name__ != "HConcat" or type(b).__name__ != "VStack" or \
                type(a).__module__ != blocks or type(b).__module__ != blocks:
            return False
        if len(a.args) != len(b.args) or not a.args:
            return False
        return all(isinstance(x, MatrixExpr) and isinstance(y, MatrixExpr) and self._same_size(x.shape[1], y.shape[0])
                   for x, y in zip(a.args, b.args))

    def _written_out(self, e: Any) -> dict | None:
        """A family with literal bounds written out: ``MatSum(F_m, (m, lo, hi))`` with integers
        ``lo <= hi`` (at most 16 terms) is ``F_lo + ... + F_hi``; ``Concat``/``Stack`` of one block is
        that block at ``m = 1``; ``None`` otherwise."""
        name = type(e).__name__
        if name == "MatSum":
            body, (m, lo, hi) = e.args[0], tuple(e.args[1])
            if not (isinstance(lo, sp.Integer) and isinstance(hi, sp.Integer) and 0 <= int(hi) - int(lo) < 16):
                return None
            out: dict = {}
            for j in range(int(lo), int(hi) + 1):
                out = self._add(out, self.of(body.xreplace({m: sp.Integer(j)})))
            return out
        lam, count = e.args
        if count == 1 and isinstance(lam, sp.Lambda) and len(lam.variables) == 1:
            return self.of(lam.expr.xreplace({lam.variables[0]: sp.Integer(1)}))
        return None

    # ---------------------------------------------------------------------------- families of blocks
    def _family(self, e: Any) -> dict | None:
        """A family of blocks (symattn's ``Concat``, ``Stack``, ``MatSum``: read by name and module) with
        its common factors taken out (module docstring); ``None``: not such a family."""
        from symattn.kernel.terms import free_symbols

        name = type(e).__name__
        if name not in ("Concat", "Stack", "MatSum") or type(e).__module__ != "symattn.kernel.objects.block_matrices":
            return None
        if name == "MatSum":
            body, (m, lo, hi) = e.args[0], tuple(e.args[1])
            extent = (lo, hi)
        else:
            lam, count = e.args
            if not isinstance(lam, sp.Lambda) or len(lam.variables) != 1:
                return None
            m, body = lam.variables[0], lam.expr
            extent = (count,)
        if not isinstance(body, MatrixExpr) or any(isinstance(b, sp.Basic) and m in free_symbols(b) for b in extent):
            return None
        written = self._written_out(e)
        if written is not None:
            return written
        poly = self.of(body)
        if not poly:
            return None

        def free(letter) -> bool:
            return m not in free_symbols(self.reps[letter[0]])

        words = list(poly)
        left: tuple = ()
        right: tuple = ()
        if name in ("Concat", "MatSum"):  # [L B_1 ... L B_h] = L [B_1 ... B_h]; sum_m L B_m = L sum_m B_m
            first = words[0]
            n = 0
            while n < min(len(w) for w in words) and free(first[n]) and all(w[n] == first[n] for w in words):
                n += 1
            left = first[:n]
        if name in ("Stack", "MatSum"):  # [B_1 R; ...; B_h R] = [B_1; ...; B_h] R; sum_m B_m R = (sum_m B_m) R
            words_l = [w[len(left):] for w in words]
            first = words_l[0]
            n = 0
            while n < min(len(w) for w in words_l) and free(first[-1 - n]) \
                    and all(w[-1 - n] == first[-1 - n] for w in words_l):
                n += 1
            right = first[len(first) - n:] if n else ()
        rest = {w[len(left):len(w) - len(right)]: c for w, c in poly.items()}
        extent_keys = []
        for b in extent:
            try:
                extent_keys.append(("rat", self.form.key(self.form.of(b))))
            except Inexpressible:
                extent_keys.append(("raw", b))
        m_key = self.form.key(self.form.of(m))
        letter = self._letter(("family", name, m_key, self.key(rest), tuple(extent_keys)), e)
        out = {tuple(left): self.form.one_r()}
        out = self._mul(out, letter)
        return self._mul(out, {tuple(right): self.form.one_r()})

    def is_zero(self, e: Any) -> bool:
        return not self.of(e)
