"""The kernel's lemma instances (``symattn.kernel.lemmas``): every kind of hypothesis a used theorem
may carry is discharged only by what holds here, and the instance keeps its symbols' assumptions.

Written against the mutants mutmut left alive in ``lemmas.py`` (``scripts/mutate-core lemmas``): each
true instance below must pass and each false one fail for the reason named, so a kernel that skips or
weakens one check (an equation matched on one side, a moment not compared, a relation's gap taken the
wrong way round, a forall variable's domain ignored) is told from the real one.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Assumption, Equation, IndexRange, Statement, Theorem
from symattn.engine.theorem import Registry
from symattn.engine.verdict import Level
from symattn.kernel import ledger
from symattn.kernel.context import HYPOTHESES
from symattn.kernel.lemmas import REGISTRY, LemmaUse, instance
from symattn.kernel.terms import KernelError
from symattn.language.statement import CorrelatedPairs, Independent, RandomFamily
from symattn.rules import ProofContext, check_step

W = sp.Symbol("W", real=True)
u, v, w = sp.symbols("u v w", real=True)
a, b, c = sp.symbols("a b c", real=True)
p = sp.Symbol("p", positive=True)
nn = sp.Symbol("nn", nonnegative=True)
n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True)
j = sp.Symbol("j", integer=True)
k = sp.Symbol("k", integer=True)
kp = sp.Symbol("kp", integer=True, positive=True)
zc = sp.Symbol("zc")  # complex, nothing known
X, Y, Z = sp.IndexedBase("X"), sp.IndexedBase("Y"), sp.IndexedBase("Z")
q = sp.IndexedBase("q")
mu, sigma = sp.Symbol("mu", real=True), sp.Symbol("sigma", positive=True)


def _registry(lemma_hyps, statement=None):
    reg = Registry()
    reg.add(Theorem(id="lem", title="lem", statement=statement or Statement(W, W), source="extension",
                    hypotheses=tuple(lemma_hyps)))
    return reg


def use(lemma_hyps, mapping, here=(), lhs=W, rhs=W, relation="=", statement=None):
    """The step ``lhs relation rhs`` by the lemma ``lem`` (statement ``W = W`` unless given) whose
    hypotheses are ``lemma_hyps``, under ``mapping``, in a theorem whose hypotheses are ``here``."""
    ctx = ProofContext(hypotheses=tuple(here), registry=_registry(lemma_hyps, statement))
    return check_step(lhs, rhs, relation, "apply_theorem", {"theorem": "lem", "mapping": mapping}, ctx)


def assert_passes(res):
    assert res.status is Level.PASS, res.reason


def assert_fails(res, *words):
    assert res.status is Level.FAIL, res.reason
    for word in words:
        assert word in res.reason, res.reason


# ------------------------------------------------------------------------- equation hypotheses
EQ = Equation("h_eq", lhs=u, rhs=v)


def test_an_equation_hypothesis_is_discharged_by_the_same_equation_here():
    assert_passes(use([EQ], {u: a, v: b}, [Equation("e", lhs=a, rhs=b)]))


@pytest.mark.parametrize("here", [
    [Equation("e", lhs=a, rhs=c)],        # the same left side, another right side
    [Equation("e", lhs=c, rhs=b)],        # the same right side, another left side
    [Equation("e", lhs=a, rhs=b, forall=(a,))],  # a forall equation is not the closed one
    [Assumption("e", condition=sp.Eq(a, b))],    # not an equation hypothesis
])
def test_an_equation_hypothesis_is_not_discharged_by_another_equation(here):
    assert_fails(use([EQ], {u: a, v: b}, here), "not available", "h_eq", "lem")


def test_the_missing_hypotheses_are_named_with_the_lemma():
    res = use([EQ, Equation("h_other", lhs=u, rhs=w)], {u: a, v: b, w: c}, [Equation("e", lhs=a, rhs=b)])
    assert_fails(res, "hypotheses of lem not available here: ['h_other']")


FORALL = Equation("h_all", lhs=q[i], rhs=mu, forall=(i,))


def test_a_forall_hypothesis_is_discharged_by_one_as_general_with_its_variable_renamed():
    assert_passes(use([FORALL], {}, [Equation("mean", lhs=q[j], rhs=mu, forall=(j,))]))


@pytest.mark.parametrize("here", [
    [Equation("mean", lhs=q[kp], rhs=mu, forall=(kp,))],   # only for positive indices: less general
    [Equation("mean", lhs=q[j], rhs=mu)],                   # one instance, not all of them
    [Equation("mean", lhs=q[j], rhs=sigma, forall=(j,))],  # another right side
    [Equation("mean", lhs=X[j], rhs=mu, forall=(j,))],     # another left side
    [Equation("mean", lhs=q[j], rhs=mu, forall=(j, k))],   # other variables quantified
])
def test_a_forall_hypothesis_is_not_discharged_by_a_less_general_or_other_equation(here):
    assert_fails(use([FORALL], {}, here), "not available", "h_all")


def test_a_forall_variable_mapped_keeps_its_new_domain():
    # the lemma's "for all i: q[i] = mu" with i -> kp asks for "for all positive kp", which holds here
    lemma = [Equation("h_all", lhs=q[i], rhs=mu, forall=(i,))]
    assert_passes(use(lemma, {i: kp}, [Equation("mean", lhs=q[kp], rhs=mu, forall=(kp,))]))


# ------------------------------------------------------------------------- index ranges
def test_an_index_range_hypothesis_is_shown_from_the_ranges_here():
    lemma = [IndexRange("i_range", index=i, lower=1, upper=n)]
    assert_passes(use(lemma, {i: j}, [IndexRange("j_range", index=j, lower=1, upper=n)]))
    assert_passes(use(lemma, {i: j}, [IndexRange("j_range", index=j, lower=2, upper=n - 1)]))


@pytest.mark.parametrize("lo, hi", [(0, n), (1, n + 1)])
def test_an_index_range_hypothesis_wider_here_is_not_shown(lo, hi):
    lemma = [IndexRange("i_range", index=i, lower=1, upper=n)]
    assert_fails(use(lemma, {i: j}, [IndexRange("j_range", index=j, lower=lo, upper=hi)]), "i_range")


def test_a_mapping_that_makes_a_hypothesis_ill_formed_is_refused_with_the_mapping_named():
    lemma = [IndexRange("i_range", index=i, lower=1, upper=n)]
    res = use(lemma, {i: n + 1, W: a}, [])
    assert_fails(res, "apply_theorem 'lem': under the mapping (i -> n + 1, W -> a) its hypothesis 'i_range' is "
                      "not well-formed")


# ------------------------------------------------------------------------- random families
def _family(base=X, name="X_fam", dim=n, mean=0, variance=1, moments=((4, 3),)):
    return RandomFamily(name, base=base, dim=dim, mean=mean, variance=variance, moments=moments)


def test_a_random_family_hypothesis_is_discharged_by_the_same_law_here():
    assert_passes(use([_family()], {}, [_family(name="here")]))
    # a family declared here with more moments than the lemma asks for
    assert_passes(use([_family()], {}, [_family(moments=((3, 0), (4, 3)))]))
    assert_passes(use([_family(moments=())], {}, [_family(moments=((4, 3),))]))


@pytest.mark.parametrize("here", [
    _family(base=Y), _family(dim=n + 1), _family(mean=1), _family(variance=2), _family(moments=()),
    _family(moments=((4, 2),)), _family(moments=((3, 3),)),
])
def test_a_random_family_hypothesis_is_not_discharged_by_another_law(here):
    assert_fails(use([_family()], {}, [here]), "X_fam")


def _independent_lemma():
    return [_family(), _family(base=Y, name="Y_fam"), Independent("ind", families=("X_fam", "Y_fam"))]


def _declared(*bases):
    return [_family(base=B_, name=f"{B_}_here") for B_ in bases]


def test_independence_is_discharged_by_independence_of_the_same_families_here():
    here = _declared(X, Y) + [Independent("ind_here", families=("X_here", "Y_here"))]
    assert_passes(use(_independent_lemma(), {}, here))
    here = _declared(X, Y, Z) + [Independent("ind_here", families=(_family(base=Z), _family(), _family(base=Y)))]
    assert_passes(use(_independent_lemma(), {}, here))


@pytest.mark.parametrize("fams", [("X_here", "Z_here"), ("Z_here", "Y_here"), ("X_here",)])
def test_independence_of_other_families_here_does_not_discharge_it(fams):
    here = _declared(X, Y, Z) + [Independent("ind_here", families=fams)]
    assert_fails(use(_independent_lemma(), {}, here), "ind")


# ------------------------------------------------------------------------- assumptions
def test_an_assumption_in_words_is_discharged_by_the_same_words_only():
    lemma = [Assumption("words", text="the kernel is smooth")]
    assert_passes(use(lemma, {}, [Assumption("here", text="the kernel is smooth")]))
    assert_fails(use(lemma, {}, [Assumption("here", text="the kernel is rough")]), "words")
    assert_fails(use(lemma, {}, [Equation("here", lhs=a, rhs=b)]), "words")


@pytest.mark.parametrize("cond", [sp.true, True])
def test_an_assumption_that_is_true_holds_with_no_hypothesis(cond):
    assert_passes(use([Assumption("t", condition=cond)], {}, []))


RANGED = [IndexRange("j_range", index=j, lower=1, upper=n)]


@pytest.mark.parametrize("cond, mapping", [
    (sp.Le(u, v), {u: j, v: n}),            # n - j >= 0 from the range
    (sp.Le(u, v), {u: j - n, v: sp.S(0)}),        # the gap is rhs - lhs, not lhs + rhs
    (sp.Lt(u, v), {u: j, v: n + 1}),        # a positive gap
    (sp.Ge(u, v), {u: n, v: j}),
    (sp.Ge(u, v), {u: sp.S(0), v: j - n}),        # the gap is lhs - rhs
    (sp.Gt(u, v), {u: n + 1, v: j}),
    (sp.Ne(u, v), {u: j, v: -n - 1}),       # j + n + 1 > 0
    (sp.Ne(u, v), {u: j, v: -j}),           # the gap j - (-j) = 2 j, not j + (-j) = 0
    (sp.And(sp.Le(u, v), sp.Le(v, w)), {u: sp.S(1), v: j, w: n}),
    (sp.Q.positive(u), {u: p + nn}),
    (sp.Q.nonnegative(u), {u: nn}),
])
def test_a_relation_shown_by_the_sign_test_with_the_ranges_holds(cond, mapping):
    assert_passes(use([Assumption("rel", condition=cond)], mapping, RANGED))


@pytest.mark.parametrize("cond, mapping", [
    (sp.Le(u, v), {u: j, v: n - 1}),        # j may be n
    (sp.Le(u, v), {u: n, v: j}),
    (sp.Lt(u, v), {u: j, v: n}),            # only n - j >= 0 is shown
    (sp.Ge(u, v), {u: j, v: n}),
    (sp.Gt(u, v), {u: n, v: j}),            # only n - j >= 0 is shown
    (sp.Ne(u, v), {u: j, v: n}),            # j may be n
    (sp.And(sp.Le(u, v), sp.Le(v, w)), {u: sp.S(1), v: j, w: n - 1}),
    (sp.Q.positive(u), {u: nn}),
    (sp.Q.positive(u), {u: a}),
    (sp.Eq(u, v), {u: a, v: b}),             # no relation the sign test decides
])
def test_a_relation_not_shown_does_not_hold(cond, mapping):
    assert_fails(use([Assumption("rel", condition=cond)], mapping, RANGED), "rel")


def test_a_relation_not_shown_holds_when_stated_as_it_is():
    lemma = [Assumption("rel", condition=sp.Le(u, v))]
    assert_passes(use(lemma, {u: a, v: b}, [Assumption("here", condition=sp.Le(a, b))]))
    assert_fails(use(lemma, {u: a, v: b}, [Assumption("here", condition=sp.Le(b, a))]), "rel")
    assert_fails(use(lemma, {u: a, v: b}, [Assumption("here", text="a is at most b")]), "rel")


# ------------------------------------------------------------------------- other hypotheses
def _pairs(cov=sp.Rational(1, 2)):
    return CorrelatedPairs("pairs", q=X, k=Y, dim=n, covariance=cov)


def test_another_kind_of_hypothesis_is_discharged_by_an_equal_one_only():
    lemma = [_family(), _family(base=Y, name="Y_fam"), _pairs()]
    base = [_family(), _family(base=Y, name="Y_fam")]
    assert_passes(use(lemma, {}, base + [CorrelatedPairs("other_name", q=X, k=Y, dim=n, covariance=sp.Rational(1, 2))]))
    assert_fails(use(lemma, {}, base + [_pairs(sp.Rational(1, 3))]), "pairs")
    assert_fails(use(lemma, {}, base + [Assumption("here", text="pairs")]), "pairs")


# ------------------------------------------------------------------------- the image's assumptions
def test_a_nonzero_real_symbol_is_not_mapped_to_a_nonzero_complex_one():
    zr = sp.Symbol("zr", real=True, nonzero=True)
    st = Statement(zr**2, 0, ">")
    here = [Assumption("ne", condition=sp.Ne(zc, 0))]
    assert_fails(use([], {zr: zc}, here, zc**2, 0, ">", statement=st), "real")


@pytest.mark.parametrize("value, ok", [(p + nn, True), (nn, False), (a, False)])
def test_a_positive_symbol_maps_to_a_value_shown_positive(value, ok):
    y = sp.Symbol("y", positive=True)
    st = Statement(y, 0, ">")
    res = use([], {y: value}, [], value, 0, ">", statement=st)
    if ok:
        assert_passes(res)
    else:
        assert_fails(res, "positive")


# ------------------------------------------------------------------------- the kernel primitive itself
def _in_context(reg, hyps=()):
    return REGISTRY.set(reg), HYPOTHESES.set(tuple(hyps))


def _reset(tokens):
    REGISTRY.reset(tokens[0])
    HYPOTHESES.reset(tokens[1])


def test_instance_is_refused_without_a_registry_or_for_an_unregistered_theorem():
    reg = _registry([])
    thm = reg.get("lem")
    tokens = _in_context(None)
    try:
        with pytest.raises(KernelError, match="no registry of theorems in this step's context"):
            instance(thm, {})
    finally:
        _reset(tokens)
    tokens = _in_context(reg)
    try:
        with pytest.raises(KernelError, match="^'nothing' is not a registered theorem$"):
            instance("nothing", {})
        other = Theorem(id="lem", title="lem", statement=Statement(W, W), source="extension")
        with pytest.raises(KernelError, match="^'lem' is not the registered theorem of that name$"):
            instance(other, {})
        with pytest.raises(KernelError, match="mapping keys must be SymPy symbols, got 'W'"):
            instance(thm, {"W": a})
    finally:
        _reset(tokens)


def test_instance_records_the_lemma_and_says_which_theorem_it_is():
    reg = _registry([EQ])
    tokens = _in_context(reg, [Equation("e", lhs=a, rhs=b)])
    try:
        ledger.take()
        t = instance(reg.get("lem"), {W: a, u: a, v: b})
        assert (t.lhs, t.rhs, t.relation) == (a, a, "=")
        assert t._body.why == "theorem lem"
        assert LemmaUse("lem") in ledger.take() + t._body.checks
    finally:
        _reset(tokens)
