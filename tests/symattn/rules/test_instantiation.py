"""Class 7 of issue 10 (the rule items): instantiating a lemma keeps every assumption of its symbols
as a side condition of the instance; forall variables keep their domain; only symattn's own heads
can be defined."""

import pytest
import sympy as sp

from symattn import Assumption, Equation, IndexRange, Statement, Theorem
from symattn.engine.theorem import Registry
from symattn.engine.verdict import Level
from symattn.rules import ProofContext, check_step
from symattn.rules.definitions import define

x = sp.Symbol("x", real=True)
p = sp.Symbol("p", positive=True)
j = sp.Symbol("j", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True)
z = sp.Symbol("z", real=True, nonzero=True)
P = sp.Symbol("P", prime=True)
N = sp.Symbol("N", integer=True)
y = sp.Symbol("y", positive=True)
A, B = sp.symbols("A B", positive=True)
q = sp.IndexedBase("q")
mu = sp.Symbol("mu")

LEMMAS = {
    "square_of_nonzero_positive": Statement(z**2, 0, ">"),
    "prime_at_least_two": Statement(P, 2, ">="),
    "integer_product_of_neighbours": Statement(N**2 - N, 0, ">="),
    "am_gm_reciprocal": Statement(y + 1 / y, 2, ">="),
    "log_of_product": Statement(sp.log(A * B), sp.log(A) + sp.log(B)),
}
reg = Registry()
for tid, st in LEMMAS.items():
    reg.add(Theorem(id=tid, title=tid, statement=st, source="extension"))


def result(lhs, rhs, relation, theorem, mapping, hypotheses=()):
    ctx = ProofContext(hypotheses=tuple(hypotheses), registry=reg)
    return check_step(lhs, rhs, relation, "apply_theorem", {"theorem": theorem, "mapping": mapping}, ctx)


# (lhs, rhs, relation, theorem, mapping, hypotheses, the assumption that must be named)
INVALID_INSTANCES = [
    (x**2, 0, ">", "square_of_nonzero_positive", {z: x}, (), "nonzero"),
    (sp.S.One, 2, ">=", "prime_at_least_two", {P: sp.S.One}, (), "prime"),
    (sp.Rational(1, 4) - sp.Rational(1, 2), 0, ">=", "integer_product_of_neighbours", {N: sp.Rational(1, 2)}, (),
     "integer"),
    (x**2 - x, 0, ">=", "integer_product_of_neighbours", {N: x}, (), "integer"),
    (-1 + 1 / sp.S(-1), 2, ">=", "am_gm_reciprocal", {y: sp.S(-1)}, (), "positive"),
    (x + 1 / x, 2, ">=", "am_gm_reciprocal", {y: x}, (), "positive"),
    (sp.log(x * p), sp.log(x) + sp.log(p), "=", "log_of_product", {A: x, B: p}, (), "positive"),
    (sp.Sum(sp.log(2 * k), (k, 0, n)), sp.Sum(sp.log(2) + sp.log(k), (k, 0, n)), "=", "log_of_product",
     {A: sp.S(2), B: k}, (), "positive"),
]

VALID_STEPS = [
    (p**2, 0, ">", "square_of_nonzero_positive", {z: p}, ()),
    (x**2, 0, ">", "square_of_nonzero_positive", {z: x}, (Assumption("x_ne_0", condition=sp.Ne(x, 0)),)),
    (sp.S(7), 2, ">=", "prime_at_least_two", {P: sp.S(7)}, ()),
    (j**2 - j, 0, ">=", "integer_product_of_neighbours", {N: j}, ()),
    (p + 1 / p, 2, ">=", "am_gm_reciprocal", {y: p}, ()),
    (sp.log(2 * p), sp.log(2) + sp.log(p), "=", "log_of_product", {A: sp.S(2), B: p}, ()),
    (sp.Sum(sp.log(2 * k), (k, 1, n)), sp.Sum(sp.log(2) + sp.log(k), (k, 1, n)), "=", "log_of_product",
     {A: sp.S(2), B: k}, ()),
    (sp.S(2), 2, ">=", "prime_at_least_two", {P: sp.S(2)}, ()),
]


@pytest.mark.parametrize("lhs, rhs, relation, theorem, mapping, hyps, fact", INVALID_INSTANCES)
def test_instance_must_have_every_assumption_of_the_lemmas_symbols(lhs, rhs, relation, theorem, mapping, hyps, fact):
    res = result(lhs, rhs, relation, theorem, mapping, hyps)
    assert res.status is Level.FAIL, res.reason
    assert fact in res.reason, res.reason


@pytest.mark.parametrize("lhs, rhs, relation, theorem, mapping, hyps", VALID_STEPS)
def test_instance_whose_image_keeps_the_assumptions_passes(lhs, rhs, relation, theorem, mapping, hyps):
    res = result(lhs, rhs, relation, theorem, mapping, hyps)
    assert res.status is Level.PASS, res.reason


i_pos = sp.Symbol("i", integer=True, positive=True)
mean_pos = Equation("mean", lhs=q[i_pos], rhs=mu, forall=(i_pos,))
mean_range = (Equation("mean", lhs=q[k], rhs=mu, forall=(k,)), IndexRange("k_range", index=k, lower=1, upper=n))


def substitute(lhs, rhs, hyps):
    return check_step(lhs, rhs, "=", "substitute", {"using": "mean"}, ProofContext(hypotheses=tuple(hyps)))


@pytest.mark.parametrize(
    "lhs, rhs, hyps",
    [
        (q[0], mu, (mean_pos,)),
        (q[-1] + q[1], mu + mu, (mean_pos,)),
        (q[x], mu, (mean_pos,)),
        (sp.Sum(q[k], (k, 0, n)), sp.Sum(mu, (k, 0, n)), (mean_pos,)),
        (q[0], mu, mean_range),
        (q[n + 1], mu, mean_range),
        (sp.Sum(q[k], (k, 1, n + 1)), sp.Sum(mu, (k, 1, n + 1)), mean_range),
        (sp.Sum(q[k - 1], (k, 1, n)), sp.Sum(mu, (k, 1, n)), mean_range),
    ],
)
def test_forall_equation_is_not_used_outside_its_domain(lhs, rhs, hyps):
    res = substitute(lhs, rhs, hyps)
    assert res.status is Level.FAIL and "domain" in res.reason, res.reason


@pytest.mark.parametrize(
    "lhs, rhs, hyps",
    [
        (q[1], mu, (mean_pos,)),
        (q[j], mu, (mean_pos,)),
        (sp.Sum(q[k], (k, 1, n)), sp.Sum(mu, (k, 1, n)), (mean_pos,)),
        (q[n], mu, mean_range),
        (sp.Sum(q[k], (k, 1, n)), sp.Sum(mu, (k, 1, n)), mean_range),
        (sp.Sum(q[k + 1], (k, 0, n - 1)), sp.Sum(mu, (k, 0, n - 1)), mean_range),
    ],
)
def test_forall_equation_is_used_inside_its_domain(lhs, rhs, hyps):
    assert substitute(lhs, rhs, hyps).status is Level.PASS


@pytest.mark.parametrize("cls", [sp.exp, sp.log, sp.sin, sp.KroneckerDelta, sp.Sum])
def test_define_refuses_sympys_own_classes(cls):
    with pytest.raises(ValueError, match="SymPy's own class"):
        define(f"fake_{cls.__name__}", cls, lambda e: e)
