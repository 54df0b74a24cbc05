"""Attention: the softmax and the attention matrix
================================================

Scaled dot-product attention mixes value rows with weights given by a row-wise softmax.

Main results
------------
* ``softmax_add_const``: adding the same constant to every logit leaves the softmax unchanged.

References
----------
* Seed 004 (Amathify, "Attention and Transformers"), *Did You Know?*: "Softmax is unchanged if you
  subtract the same constant from all scores".
* Seed 000 ("The Mathematics of Transformers"), *Definition: Scaled dot-product attention*.

Tags: softmax, shift invariance, numerical stability
"""

from __future__ import annotations

import sympy as sp

from symattn.derivation import Derivation
from symattn.softmax import Softmax
from symattn.statement import Assumption, IndexRange, Statement
from symattn.theorem import Instances, Theorem, register

n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
c = sp.Symbol("c", real=True)
s = sp.IndexedBase("s", real=True)


def _softmax_add_const_derivation() -> Derivation:
    shifted = Softmax(sp.Lambda(j, s[j] + c), i, n)
    return (
        Derivation(shifted)
        .eq(sp.exp(s[i] + c) / sp.Sum(sp.exp(s[j] + c), (j, 1, n)), "definition", name="softmax",
            note="unfold the softmax of s + c")
        .eq(sp.exp(c) * sp.exp(s[i]) / sp.Sum(sp.exp(c) * sp.exp(s[j]), (j, 1, n)), "algebra",
            note="e^{x+c} = e^c e^x")
        .eq(sp.Mul(sp.exp(c) * sp.exp(s[i]), sp.Pow(sp.Mul(sp.exp(c), sp.Sum(sp.exp(s[j]), (j, 1, n)),
                                                                evaluate=False), -1, evaluate=False),
                   evaluate=False), "sum_linearity",
            note="the constant e^c leaves the sum")
        .eq(sp.exp(s[i]) / sp.Sum(sp.exp(s[j]), (j, 1, n)), "algebra", note="cancel e^c > 0")
        .eq(Softmax(sp.Lambda(j, s[j]), i, n), "definition", name="softmax", note="fold the softmax of s")
    )


def _softmax_add_const_instance(size: int) -> Statement:
    x = sp.symbols(f"x1:{size + 1}", real=True)
    lhs = sp.Matrix([sp.exp(xk + c) for xk in x]) / sum(sp.exp(xk + c) for xk in x)
    rhs = sp.Matrix([sp.exp(xk) for xk in x]) / sum(sp.exp(xk) for xk in x)
    return Statement(lhs, rhs)


softmax_add_const = register(
    Theorem(
        id="softmax_add_const",
        title="Softmax is invariant under adding a constant to every logit",
        statement=Statement(Softmax(sp.Lambda(j, s[j] + c), i, n), Softmax(sp.Lambda(j, s[j]), i, n)),
        source="004_b987b516506401e6.txt, 'Did You Know?' (softmax unchanged by subtracting a constant); "
        "000_ccf06b253f58a07c.txt, Definition 'Scaled dot-product attention'",
        kind="theorem",
        hypotheses=(
            IndexRange("i_range", index=i, lower=1, upper=n),
            Assumption("c_real", condition=sp.Q.real(c), text="c is a real constant, the same for every logit"),
        ),
        derivation=_softmax_add_const_derivation,
        dimensions=(n,),
        instances=Instances(_softmax_add_const_instance, tuple(range(1, 7)), label="n"),
        plain=(
            "Adding the same number c to every score does not change the softmax: the factor e^c "
            "appears in the numerator and in every term of the denominator, and cancels. This is why "
            "implementations may subtract the row maximum before exponentiating, to avoid overflow, "
            "without changing the result."
        ),
    )
)
