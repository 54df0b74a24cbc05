"""The softmax: ``softmax(s)_i = exp(s_i) / sum_{j=1}^{n} exp(s_j)``.

:class:`Softmax` is the unevaluated component for a symbolic length ``n``; the vector is given
as a :class:`~sympy.Lambda` of the summation index, so ``softmax(s + c 1)`` is
``Softmax(Lambda(j, s[j] + c), i, n)``. ``doit()`` unfolds the definition; the ``definition``
rule (name ``"softmax"``) uses the same expansion.

>>> import sympy as sp
>>> s = sp.IndexedBase("s"); i, j = sp.symbols("i j", integer=True)
>>> n = sp.Symbol("n", integer=True, positive=True)
>>> Softmax(sp.Lambda(j, s[j]), i, n).doit()
exp(s[i])/Sum(exp(s[j]), (j, 1, n))

References
----------
Seed 000, "Scaled dot-product attention"; seed 004, "Scaled Dot-Product Attention".
"""

from __future__ import annotations

import sympy as sp

from symattn.rules.definitions import define

__all__ = ["Softmax", "softmax_component"]


class Softmax(sp.Function):
    """Component ``i`` of the softmax of the length-``n`` vector ``f(1), ..., f(n)``.

    Arguments: ``f`` (a one-argument :class:`~sympy.Lambda`), the component index ``i``, the
    length ``n``. Stays unevaluated until ``doit()``.
    """

    nargs = 3

    @classmethod
    def eval(cls, f, i, n):
        if not isinstance(f, sp.Lambda) or len(f.variables) != 1:
            raise TypeError(f"Softmax needs a one-argument Lambda for the vector, got {f!r}")
        return None  # never evaluate automatically: the definition is unfolded explicitly

    @property
    def vector(self) -> sp.Lambda:
        return self.args[0]

    def expanded(self) -> sp.Expr:
        f, i, n = self.args
        j = f.variables[0]
        k = j if j != i else sp.Dummy("k", integer=True)
        return sp.exp(f(i)) / sp.Sum(sp.exp(f(k)), (k, 1, n))

    def doit(self, **hints):
        return self.expanded()

    def _latex(self, printer):
        f, i, n = self.args
        j = f.variables[0]
        body = printer._print(f.expr)
        return r"\operatorname{softmax}\left(\left(%s\right)_{%s=1}^{%s}\right)_{%s}" % (
            body,
            printer._print(j),
            printer._print(n),
            printer._print(i),
        )


def softmax_component(f: sp.Lambda, i, n) -> Softmax:
    """``Softmax(f, i, n)``: component ``i`` of the softmax of ``f(1..n)``."""
    return Softmax(f, i, n)


define(
    "softmax",
    Softmax,
    lambda e: e.expanded(),
    text=r"\operatorname{softmax}(s)_i = e^{s_i} / \sum_{j=1}^{n} e^{s_j}",
)
