"""Permutation equivariance: the counterexamples (positional encodings, causal masks) are refuted by
the checker, the witness is exact, and a plausible proof of a false lemma does not check."""

import numpy as np
import pytest
import sympy as sp

from derivations.equivariance import positional_counterexample
from numeric.reference import attention
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, Theorem
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from symattn.maths.permutation import (
    Attention,
    Permutation,
    PermutationMatrix,
    SoftmaxRows,
    attention_explicit,
    permutation_matrix,
)
from symattn.maths.softmax import Softmax
from symattn.rules.matrices import entry
from tests.derivations.refutation import counterexample_text, refuted

n, d = sp.symbols("n d", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
X, E = sp.MatrixSymbol("X", n, d), sp.MatrixSymbol("E", n, d)
P = PermutationMatrix("sigma", n)


def _swap(size):
    return permutation_matrix((2, 1) + tuple(range(3, size + 1)))


def _positional_instance(size):
    # attention with additive positional encodings E = (1, 0, ..., 0), tokens x_1..x_n symbolic
    x = sp.Matrix(sp.symbols(f"x1:{size + 1}", real=True))
    pe = sp.Matrix([1] + [0] * (size - 1))
    Pm = _swap(size)
    a, b = Pm * x + pe, x + pe
    return Statement(attention_explicit(a, a, a), Pm * attention_explicit(b, b, b))


def test_false_universal_claim_positional_encodings_keep_equivariance_is_refuted():
    thm = Theorem(
        id="false_positional_attention_equivariant",
        title="(false) attention with additive positional encodings is permutation equivariant",
        statement=Statement(Attention(P * X + E, P * X + E, P * X + E), P * Attention(X + E, X + E, X + E)),
        source="extension",
        instances=Instances(_positional_instance, (2,)),
    )
    outcome = Checker(numeric=False).check(thm)
    assert refuted(outcome)
    assert "left =" in counterexample_text(outcome) and "x1 =" in counterexample_text(outcome)


def test_positional_counterexample_uses_the_sinusoidal_encoding_and_matches_numpy():
    from numeric.rope import sinusoidal_encoding

    cx = positional_counterexample()
    assert np.allclose(np.array(cx["E"], dtype=float), sinusoidal_encoding(2, 2))  # positions 0, 1
    assert cx["squared_gap"] == sp.Rational(1, 18)  # (1/2 - 2/3)^2 + (2/3 - 1/2)^2, every weight rational
    assert cx["left_value"] != cx["right_value"]
    wq, wk, wv = (np.array(cx[k], dtype=float) for k in ("W_Q", "W_K", "W_V"))
    a = np.array(cx["P"] * cx["X"] + cx["E"], dtype=float)
    b = np.array(cx["X"] + cx["E"], dtype=float)
    left = attention(a @ wq, a @ wk, a @ wv)  # d_k = 1: the scale 1/sqrt(d_k) is 1
    right = np.array(cx["P"], dtype=float) @ attention(b @ wq, b @ wk, b @ wv)
    assert np.allclose(left, np.array(cx["left_value"], dtype=float))
    assert np.allclose(right, np.array(cx["right_value"], dtype=float))


def test_the_witness_is_stated_for_two_positions_only():
    with pytest.raises(ValueError, match="two positions"):
        positional_counterexample(3)


def test_without_positional_encodings_the_same_inputs_are_equivariant():
    cx = positional_counterexample()
    Pm, x = cx["P"], cx["X"]
    assert attention_explicit(Pm * x, Pm * x, Pm * x) == Pm * attention_explicit(x, x, x)


def test_causal_attention_is_not_permutation_equivariant():
    x, Pm = sp.Matrix([[1], [0]]), _swap(2)
    left = attention_explicit(Pm * x, Pm * x, Pm * x, causal=True)  # token 1 of P X sees only itself: 0
    right = Pm * attention_explicit(x, x, x, causal=True)  # row 2 of the original output: 1/2
    assert left[0, 0] == 0 and right[0, 0] == sp.Rational(1, 2)

    def build(size):
        xs = sp.Matrix(sp.symbols(f"x1:{size + 1}", real=True))
        Ps = _swap(size)
        return Statement(attention_explicit(Ps * xs, Ps * xs, Ps * xs, causal=True),
                         Ps * attention_explicit(xs, xs, xs, causal=True))

    thm = Theorem(id="false_causal_attention_equivariant", title="(false) causal attention is equivariant",
                  statement=Statement(0, 0), source="extension", instances=Instances(build, (2,)))
    assert refuted(Checker(numeric=False).check(thm))


def test_reindexing_along_a_map_not_declared_a_permutation_does_not_prove_the_softmax_lemma():
    # the same proof as softmax_rows_permutation_conjugate, but sigma is only assumed to map
    # 1..n into 1..n (no Permutation hypothesis): the re-indexing step must fail
    S = sp.MatrixSymbol("S", n, n)
    s = sp.IndexedBase("S")
    sigma = P.sigma
    k1 = sp.Symbol("k_1", integer=True, positive=True)
    lhs, rhs = SoftmaxRows(P * S * P.T), P * SoftmaxRows(S) * P.T
    proof = (
        Derivation(entry(lhs, i, j))
        .eq(sp.exp(s[sigma(i), sigma(j)]) / sp.Sum(sp.exp(s[sigma(i), sigma(k1)]), (k1, 1, n)), "definition",
            name="softmax")
        .eq(sp.exp(s[sigma(i), sigma(j)]) / sp.Sum(sp.exp(s[sigma(i), k1]), (k1, 1, n)), "sum_reindex_bijection")
        .eq(Softmax(sp.Lambda(k1, s[sigma(i), k1]), sigma(j), n), "definition", name="softmax")
    )

    def build(hyps):
        return Theorem(id="softmax_conjugate_unchecked_sigma", title="t", statement=Statement(lhs, rhs),
                       source="extension", hypotheses=hyps, dimensions=(n,),
                       derivation=lambda: Derivation(lhs).eq(rhs, "matrix_entrywise", i=i, j=j, proof=proof))

    assert Checker(numeric=False).check(build(())).levels["symbolic"].status is Level.FAIL
    good = Checker(numeric=False).check(build((Permutation("sigma_perm", sigma="sigma", n=n),)))
    assert good.verdict is Verdict.PROVED


def test_false_claim_attention_is_invariant_is_refuted():
    # equivariant, not invariant: Attention(PX...) = Attention(X...) is false
    def build(size):
        xs = sp.Matrix(sp.symbols(f"x1:{size + 1}", real=True))
        Ps = _swap(size)
        return Statement(attention_explicit(Ps * xs, Ps * xs, Ps * xs), attention_explicit(xs, xs, xs))

    thm = Theorem(id="false_attention_invariant", title="(false) attention is permutation invariant",
                  statement=Statement(Attention(P * X, P * X, P * X), Attention(X, X, X)), source="extension",
                  instances=Instances(build, (2,)))
    assert refuted(Checker(numeric=False).check(thm))
