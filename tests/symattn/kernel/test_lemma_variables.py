"""A lemma is used only through an instance of its *variables*: ``apply_theorem``'s mapping replaces
symbols, IndexedBases (by IndexedBases) and MatrixSymbols (by matrices of the same shape), and every
assumption a replaced variable carries, the checked ones and the ones they do not imply alike
(``extended_positive``, ``zero=False``, ``transcendental``, an IndexedBase's positivity of its entries),
must hold of its image. A subterm is not a variable: ``exp(a + 1) = e exp(a)`` with ``a + 1 -> b`` is
no instance of it. Each false use below is one that the kernel once accepted or would accept if one of
these checks were dropped; each true one has the same shape and must pass.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Statement
from symattn.engine.verdict import Level
from symattn.rules import ProofContext, check_step

from .test_mutants_lemmas import _registry

a, b = sp.symbols("a b", real=True)
p = sp.Symbol("p", positive=True)
n, m = sp.symbols("n m", integer=True, positive=True)
i = sp.Symbol("i", integer=True)
k, j = sp.symbols("k j", integer=True)
Y, Z = sp.IndexedBase("Y"), sp.IndexedBase("Z")
Xp, Yp = sp.IndexedBase("Xp", positive=True), sp.IndexedBase("Yp", positive=True)
Xs, Ys, Ym = sp.IndexedBase("Xs", shape=(n,)), sp.IndexedBase("Ys", shape=(n,)), sp.IndexedBase("Ym", shape=(m,))
ep = sp.Symbol("ep", extended_positive=True)
nz = sp.Symbol("nz", zero=False)
tr = sp.Symbol("tr", transcendental=True)
Mn, Mm = sp.MatrixSymbol("Mn", n, n), sp.MatrixSymbol("Mm", m, m)
An, Bn = sp.MatrixSymbol("An", n, n), sp.MatrixSymbol("Bn", n, n)
f = sp.Function("f")


def use(statement, mapping, lhs, rhs, relation=None):
    ctx = ProofContext(hypotheses=(), registry=_registry([], statement))
    return check_step(lhs, rhs, relation or statement.relation, "apply_theorem",
                      {"theorem": "lem", "mapping": mapping}, ctx)


FALSE = [
    ("a subterm replaced", Statement(sp.exp(a + 1), sp.E * sp.exp(a)), {a + 1: b}, sp.exp(b), sp.E * sp.exp(a),
     "not a variable"),
    ("an entry replaced", Statement(Xp[i], 0, ">"), {Xp[i]: a}, a, 0, "not a variable"),
    ("an application replaced", Statement(f(a) - f(a), 0), {f(a): b}, b - f(a), 0, "not a variable"),
    ("positive entries to unknown ones", Statement(Xp[i], 0, ">"), {Xp: Y}, Y[i], 0, "not known to be positive"),
    ("an IndexedBase to a scalar", Statement(Y[i], Y[i]), {Y: a}, a, a, "is not one"),
    ("an IndexedBase to one of another shape", Statement(Xs[i], Xs[i]), {Xs: Ym}, Ym[i], Ym[i], "shape"),
    ("extended-positive to real", Statement(ep, 0, ">"), {ep: a}, a, 0, "extended_positive=True"),
    ("nonzero-by-zero=False to 0", Statement(nz, nz), {nz: sp.Integer(0)}, sp.Integer(0), sp.Integer(0),
     "zero=False"),
    ("transcendental to a rational", Statement(tr, tr), {tr: sp.Rational(1, 2)}, sp.Rational(1, 2),
     sp.Rational(1, 2), "transcendental=True"),
    ("an n x n matrix to an m x m one", Statement(sp.Trace(Mn), sp.Trace(Mn)), {Mn: Mm}, sp.Trace(Mm),
     sp.Trace(Mm), "n x n"),
    ("a matrix to a scalar", Statement(sp.Trace(Mn), sp.Trace(Mn)), {Mn: a}, a, a, "is not one"),
    # a key that is not free in the lemma would be silently ignored: refused, so that the user learns
    # that the mapping did not do what it says
    ("a summation index as a key", Statement(sp.Sum(Xp[k], (k, 1, n)), 0, ">"), {k: j},
     sp.Sum(Xp[j], (j, 1, n)), 0, "not a free variable"),
    ("a product index as a key", Statement(sp.Product(Xp[k], (k, 1, n)), 0, ">"), {k: j},
     sp.Product(Xp[j], (j, 1, n)), 0, "not a free variable"),
    ("a symbol the lemma does not mention", Statement(p, 0, ">"), {b: a}, p, 0, "not a free variable"),
    ("an IndexedBase the lemma does not mention", Statement(p, 0, ">"), {Y: Z}, p, 0, "not a free variable"),
    ("a matrix the lemma does not mention", Statement(p, 0, ">"), {Mn: An}, p, 0, "not a free variable"),
]

TRUE = [
    ("positive entries to positive ones", Statement(Xp[i], 0, ">"), {Xp: Yp}, Yp[i], 0),
    ("unknown entries to any IndexedBase", Statement(Y[i], Y[i]), {Y: Z}, Z[i], Z[i]),
    ("an IndexedBase of shape n to one of shape m, n -> m", Statement(Xs[i], Xs[i]), {Xs: Ym, n: m}, Ym[i], Ym[i]),
    ("an IndexedBase of shape n to another of shape n", Statement(Xs[i], Xs[i]), {Xs: Ys}, Ys[i], Ys[i]),
    ("extended-positive to positive", Statement(ep, 0, ">"), {ep: p}, p, 0),
    ("zero=False to a positive symbol", Statement(nz, nz), {nz: p}, p, p),
    ("transcendental to pi", Statement(tr, tr), {tr: sp.pi}, sp.pi, sp.pi),
    ("an n x n matrix to an m x m one, n -> m", Statement(sp.Trace(Mn), sp.Trace(Mn)), {Mn: Mm, n: m},
     sp.Trace(Mm), sp.Trace(Mm)),
    ("an n x n matrix to a product of n x n ones", Statement(sp.Trace(Mn), sp.Trace(Mn)), {Mn: An * Bn},
     sp.Trace(An * Bn), sp.Trace(An * Bn)),
    ("a summation's upper bound renamed", Statement(sp.Sum(Xp[k], (k, 1, n)), 0, ">"), {n: m},
     sp.Sum(Xp[k], (k, 1, m)), 0),
    ("the summand's IndexedBase renamed", Statement(sp.Sum(Xp[k], (k, 1, n)), 0, ">"), {Xp: Yp},
     sp.Sum(Yp[k], (k, 1, n)), 0),
]


@pytest.mark.parametrize("name, statement, mapping, lhs, rhs, why", FALSE, ids=[c[0] for c in FALSE])
def test_a_use_that_is_no_instance_of_the_lemma_fails_for_its_reason(name, statement, mapping, lhs, rhs, why):
    res = use(statement, mapping, lhs, rhs)
    assert res.status is Level.FAIL, res.reason
    assert why in res.reason, res.reason


@pytest.mark.parametrize("name, statement, mapping, lhs, rhs", TRUE, ids=[c[0] for c in TRUE])
def test_an_instance_of_the_lemmas_variables_passes(name, statement, mapping, lhs, rhs):
    res = use(statement, mapping, lhs, rhs)
    assert res.status is Level.PASS, res.reason


# ------------------------------------------------------------------------- under a binder
def test_under_a_binder_a_match_sympy_gets_wrong_is_not_taken(monkeypatch):
    """SymPy's matcher is not trusted: a match whose instance is not the subterm it replaces is refused."""
    F, G = sp.Function("F"), sp.Function("G")
    u, t = sp.Symbol("u"), sp.Symbol("t")
    k = sp.Symbol("k", integer=True)
    st = Statement(F(u), G(u))
    lhs = sp.Sum(F(k), (k, 1, n))
    good = use(st, {u: t}, lhs, sp.Sum(G(k), (k, 1, n)))
    assert good.status is Level.PASS, good.reason
    real_match = sp.Basic.match

    def wrong(self, pattern, *args, **kwargs):
        m = real_match(self, pattern, *args, **kwargs)
        return {w: v + 1 for w, v in m.items()} if m and self.func == F else m

    monkeypatch.setattr(sp.Basic, "match", wrong)
    bad = use(st, {u: t}, lhs, sp.Sum(G(k + 1), (k, 1, n)))
    assert bad.status is Level.FAIL, bad.reason
    assert "lem's side under the match" in bad.reason, bad.reason
