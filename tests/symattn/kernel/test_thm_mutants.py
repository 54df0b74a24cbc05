"""The LCF primitives of :mod:`symattn.kernel.thm`, tested one decision at a time.

Written against the mutants a mutmut run of ``thm.py`` left alive (or never ran): every test states
one property of a primitive -- the conclusion it yields (sides, relation, justification), the
hypotheses it holds under (``context``), the records of the decisions it made (``checks``), or the
refusal it gives (the kernel's error, naming the problem) -- so that a kernel weakened in that one
place fails here. The expected values are worked out by hand from the mathematics (``x < x + 1``
because the gap is 1; ``<`` then ``<=`` chain to ``<``), never read back from the code under test.

The second engine is switched on where a test reads ``checks`` (its re-checks are the records), and
off elsewhere (faster; nothing here depends on it).
"""

from __future__ import annotations

import pickle

import pytest
import sympy as sp

from symattn.kernel import ledger, second
from symattn.kernel import thm as kthm
from symattn.kernel.second import flint_zero
from symattn.kernel.terms import KernelError, canonical
from symattn.kernel.thm import Thm, accept, by_sign, by_zero, hypothesis, refl, rewrite, sym, trans, within
from symattn.language.statement import Assumption, Equation, IndexRange

from .claims import under

x, y = sp.symbols("x y", real=True)
i, j, k, n = sp.symbols("i j k n", integer=True)
f, g = sp.Function("f"), sp.Function("g")

POS = Assumption("pos", sp.Gt(x, 0))
NZ = Assumption("nz", sp.Ne(y, 0))
RANGE = IndexRange("r", index=i, lower=1, upper=n)


@pytest.fixture(autouse=True)
def kernel_alone():
    with second.disabled():
        yield


@pytest.fixture
def recording():
    """The second engine on and a step's ledger open: the kernel's decisions leave records."""
    token = second._ENABLED.set(True)
    try:
        with second.collecting() as checks:
            ledger.take()
            yield checks
            ledger.take()
    finally:
        second._ENABLED.reset(token)


def refused(message: str, fn, *args, **kwargs) -> None:
    """``fn(*args)`` is refused with the kernel's error, worded exactly ``message``."""
    with pytest.raises(KernelError) as info:
        fn(*args, **kwargs)
    assert str(info.value) == message


def kinds(t: Thm) -> list:
    return [(c.kind, c.fact) for c in t.checks]


def step(p, relation):
    """``(q, Thm(p relation q))``: ``q = p`` for ``=``, ``p + 1`` upwards, ``p - 1`` downwards."""
    if relation == "=":
        return p, refl(p)
    q = p + 1 if relation in ("<", "<=") else p - 1
    return q, by_sign(p, q, relation)


# ------------------------------------------------------------------------------ Thm itself
def test_a_thm_is_not_forged_without_the_token():
    body = refl(x)._body
    for forged in (lambda: Thm(body), lambda: Thm(body, object()), lambda: Thm(body, None)):
        with pytest.raises(KernelError) as info:
            forged()
        assert str(info.value) == "a Thm is made only by the kernel's primitives (symattn.kernel.thm)"


def test_a_thm_is_immutable_and_never_pickled():
    t = refl(x)
    with pytest.raises(AttributeError):
        t._body = None
    with pytest.raises(TypeError) as info:
        pickle.dumps(t)
    assert str(info.value) == "a Thm cannot be pickled; send the step's outcome, not the theorem"
    assert t.lhs == x  # untouched


def test_repr_shows_both_sides_and_the_relation():
    assert repr(by_sign(x, x + 1, "<")) == "Thm(x < x + 1)"
    assert repr(by_sign(x + 2, y**2 + x + 2, "<=")) == "Thm(x + 2 <= x + y**2 + 2)"


# ------------------------------------------------------------------------------ _make, refl
def test_refl_states_e_equals_e_by_reflexivity_and_holds_under_the_steps_hypotheses():
    t = refl(x + 1)
    assert (t.lhs, t.rhs, t.relation, t.why, t.checks, t.context) == (x + 1, x + 1, "=", "reflexivity", (), ())
    with under(POS, NZ):
        t = refl(y)
    assert t.context == (POS, NZ)
    assert isinstance(t.checks, tuple) and isinstance(t.context, tuple)


def test_a_thm_holds_canonical_sides():
    s = sp.Sum(f(j), (j, 1, n))
    t = refl(s)
    assert t.lhs == canonical(s) and t.rhs == canonical(s)
    assert t.lhs != s  # the bound variable is the kernel's dummy, no user symbol
    assert j not in t.lhs.free_symbols | t.lhs.atoms(sp.Symbol)


def test_an_unknown_relation_is_refused():
    refused("unknown relation '!='", kthm._make, x, y, "!=", "why")  # what an axiom schema builds on


# ------------------------------------------------------------------------------ sym
def test_sym_swaps_the_sides_flips_the_relation_and_keeps_why_and_context():
    with under(POS):
        t = by_sign(x, x + 1, "<")
    with under(NZ):  # sym made elsewhere: the theorem still holds under POS only
        s = sym(t)
    assert (s.lhs, s.rhs, s.relation) == (x + 1, x, ">")
    assert s.why == t.why == "the gap is positive"
    assert s.context == (POS,)
    assert s.checks == t.checks
    assert [sym(step(x, r)[1]).relation for r in kthm.RELATIONS] == ["=", ">=", ">", "<=", "<"]


# ------------------------------------------------------------------------------ trans
# (r1, r2) -> the relation of the chain, or None when the directions differ
CHAINS = {
    ("=", "="): "=",
    ("=", "<"): "<", ("=", "<="): "<=", ("=", ">"): ">", ("=", ">="): ">=",
    ("<", "="): "<", ("<=", "="): "<=", (">", "="): ">", (">=", "="): ">=",
    ("<", "<"): "<", ("<", "<="): "<", ("<=", "<"): "<", ("<=", "<="): "<=",
    (">", ">"): ">", (">", ">="): ">", (">=", ">"): ">", (">=", ">="): ">=",
    ("<", ">"): None, ("<", ">="): None, ("<=", ">"): None, ("<=", ">="): None,
    (">", "<"): None, (">", "<="): None, (">=", "<"): None, (">=", "<="): None,
}


@pytest.mark.parametrize(("r1", "r2"), sorted(CHAINS))
def test_trans_composes_the_relations(r1, r2):
    b, t1 = step(x, r1)
    c, t2 = step(b, r2)
    want = CHAINS[(r1, r2)]
    if want is None:
        refused(f"cannot chain {r1!r} with {r2!r}: the directions differ", trans, t1, t2)
        return
    t = trans(t1, t2)
    assert (t.lhs, t.rhs, t.relation) == (x, c, want)
    assert t.why.split("; ") == [t1.why, t2.why]


def test_trans_of_three():
    t1 = by_sign(x, x + 1, "<=")
    t2 = refl(x + 1)
    t3 = by_sign(x + 1, x + 3, "<")
    t = trans(t1, t2, t3)
    assert (t.lhs, t.rhs, t.relation) == (x, x + 3, "<")
    assert t.why == "the gap is positive; reflexivity; the gap is positive"


def test_trans_of_one_is_that_theorem_and_of_none_is_refused():
    t1 = by_sign(x, x + 1, "<")
    t = trans(t1)
    assert (t.lhs, t.rhs, t.relation, t.why) == (x, x + 1, "<", t1.why)
    refused("trans needs at least one theorem", trans)


def test_trans_refuses_a_gap_in_the_chain_and_a_non_theorem():
    t1 = by_sign(x, x + 1, "<")
    t2 = by_sign(x + 2, x + 3, "<")
    refused("trans: x + 1 is not x + 2", trans, t1, t2)
    refused("expected a Thm from the kernel, got str", trans, t1, "x + 1 < x + 2")
    refused("expected a Thm from the kernel, got NoneType", trans, None)


def test_trans_accepts_alpha_equal_middle_terms():
    s_j, s_k = sp.Sum(f(j), (j, 1, n)), sp.Sum(f(k), (k, 1, n))
    t = trans(refl(s_j), refl(s_k))
    assert t.lhs == t.rhs == canonical(s_k)


def test_trans_holds_under_the_union_of_the_hypotheses():
    with under(POS):
        t1 = by_sign(x, x + 1, "<")
    with under(NZ, POS):
        t2 = by_sign(x + 1, x + 2, "<=")
    with under(RANGE):  # chained elsewhere: neither its own nor no hypotheses
        t = trans(t1, t2)
    assert t.context == (POS, NZ)


def test_trans_keeps_equal_hypotheses_once():
    twin = Assumption("pos", sp.Gt(x, 0))  # equal to POS, another object
    assert twin == POS and twin is not POS
    with under(POS):
        t1 = refl(x)
    with under(twin):
        t2 = refl(x)
    assert trans(t1, t2).context == (POS,)


def test_trans_keeps_the_records_of_both_in_order(recording):
    t1 = by_zero((x + 1) ** 2, x**2 + 2 * x + 1)
    t2 = by_sign(x**2 + 2 * x + 1, x**2 + 2 * x + 2, "<")
    assert t1.checks and t2.checks
    assert trans(t1, t2).checks == t1.checks + t2.checks


# ------------------------------------------------------------------------------ within, accept
def test_within_asks_every_hypothesis_of_the_theorem_to_be_given():
    twin = Assumption("pos", sp.Gt(x, 0))
    with under(POS, NZ):
        t = refl(x)
    assert within(t, (NZ, POS))
    assert within(t, (twin, NZ, RANGE))  # an equal hypothesis is the same hypothesis
    assert not within(t, (POS,))
    assert not within(t, (NZ,))
    assert not within(t, (RANGE,))
    assert not within(t, ())
    assert within(refl(x), ())


ACCEPTED = {  # the theorem's relation -> the step relations it shows (same sides)
    "<": {"<", "<="}, "<=": {"<="}, ">": {">", ">="}, ">=": {">="}, "=": {"=", "<=", ">="},
}


@pytest.mark.parametrize("have", sorted(ACCEPTED))
def test_accept_takes_the_same_or_a_weaker_relation_and_a_flipped_theorem(have):
    b, t = step(x, have)
    for want in kthm.RELATIONS:
        shown = want in ACCEPTED[have]
        assert accept(t, x, b, want) is shown, (have, want)
        assert accept(t, b, x, kthm._FLIP[want]) is shown, (have, want, "flipped")


def test_accept_asks_both_sides_to_be_the_theorems():
    t = by_sign(x, x + 1, "<")
    assert accept(t, x, x + 1, "<")
    assert not accept(t, y, x + 1, "<")
    assert not accept(t, x, y, "<")
    assert not accept(t, x + 1, x + 1, "<")
    assert not accept(t, x, x, "<")
    s_j, s_k = sp.Sum(f(j), (j, 1, n)), sp.Sum(f(k), (k, 1, n))
    assert accept(refl(s_j), s_k, s_j, "=")  # sides compared up to bound names


def test_accept_refuses_a_non_theorem_and_a_theorem_made_under_other_hypotheses():
    assert accept("x < x + 1", x, x + 1, "<") is False
    assert accept(None, x, x + 1, "<") is False
    with under(POS):
        t = by_sign(x, x + 1, "<")
        assert accept(t, x, x + 1, "<") is True
    with under(Assumption("pos", sp.Gt(x, 0)), NZ):
        assert accept(t, x, x + 1, "<") is True
    with under(NZ):
        assert accept(t, x, x + 1, "<") is False
    assert accept(t, x, x + 1, "<") is False


# ------------------------------------------------------------------------------ by_zero
def test_by_zero_states_the_equation_by_the_zero_test():
    t = by_zero((x + 1) ** 2, x**2 + 2 * x + 1)
    assert (t.lhs, t.rhs, t.relation, t.why) == ((x + 1) ** 2, x**2 + 2 * x + 1, "=", "zero test")


QUOTIENT = (y**2 - y) / y  # y - 1, where y != 0


def test_by_zero_refuses_a_nonzero_difference_and_a_missing_condition():
    refused("lhs - rhs does not reduce to 0", by_zero, x + 1, x)
    with pytest.raises(KernelError) as info:
        by_zero(QUOTIENT, y - 1)
    assert str(info.value).startswith("lhs - rhs reduces to 0 only where y != 0: add the hypothesis")


def test_by_zero_reads_the_steps_hypotheses():
    with under(NZ):
        t = by_zero(QUOTIENT, y - 1)
    assert (t.lhs, t.rhs, t.context) == (QUOTIENT, y - 1, (NZ,))


def test_by_zero_keeps_the_records_of_its_decision(recording):
    t = by_zero((x + 1) ** 2, x**2 + 2 * x + 1)
    assert [kind for kind, _ in kinds(t)] == ["zero"]


def test_an_engine_disagreement_refuses_by_zero_and_is_on_the_steps_records(recording, monkeypatch):
    # SymPy reduces the difference to 0, the second engine (an injected one) shows it is not: by_zero
    # refuses, as the algebra rule does ("does not reduce to 0" -- the kernel's verdict); both answers
    # are the disagreeing check on the step's records, which the checker appends to the step's reason
    lie = second.Check("flint", second.DISAGREE, "the numerator over Q is 1 (injected)",
                       "(x + 1)**2 - x**2 - 2*x - 1 == 0", "SymPy reduces it to 0")
    monkeypatch.setattr(flint_zero, "recheck_zero", lambda expr, **kw: lie)
    refused("lhs - rhs does not reduce to 0", by_zero, (x + 1) ** 2, x**2 + 2 * x + 1)
    assert [(c.kind, c.verdict, c.reason) for c in recording] == [("zero", second.DISAGREE, lie.reason)]


# ------------------------------------------------------------------------------ by_sign
def test_by_sign_reads_the_gap_the_right_way_round():
    for lhs, rhs, relation in ((x, x + 1, "<"), (x, x + 1, "<="), (x + 1, x, ">"), (x + 1, x, ">=")):
        t = by_sign(lhs, rhs, relation)
        assert (t.lhs, t.rhs, t.relation, t.why) == (lhs, rhs, relation, "the gap is positive")
    t = by_sign(0, x**2, "<=")
    assert t.why == "the gap is nonnegative"
    t = by_sign(x**2, 0, ">=")
    assert (t.lhs, t.rhs, t.relation, t.why) == (x**2, 0, ">=", "the gap is nonnegative")


def test_by_sign_refuses_a_wrong_way_inequality():
    refused("the gap -1 is not shown positive from the assumptions and ranges", by_sign, x + 1, x, "<")
    refused("the gap -1 is not shown nonnegative from the assumptions and ranges", by_sign, x, x + 1, ">=")


def test_a_strict_inequality_needs_a_positive_gap():
    refused("the gap x**2 is not shown positive from the assumptions and ranges", by_sign, 0, x**2, "<")
    refused("the gap x**2 is not shown positive from the assumptions and ranges", by_sign, x**2, 0, ">")
    refused("the gap x is not shown nonnegative from the assumptions and ranges", by_sign, 0, x, "<=")
    refused("the gap x is not shown nonnegative from the assumptions and ranges", by_sign, x, 0, ">=")


def test_by_sign_proves_inequalities_of_scalars_only():
    refused("by_sign proves inequalities, not '='", by_sign, x, x, "=")
    a = sp.MatrixSymbol("A", 2, 2)
    for lhs, rhs in ((a, 0), (0, a), (a, a)):
        refused("inequalities compare scalars, not matrices", by_sign, lhs, rhs, "<=")
    refused("inequalities compare scalars, not matrices", by_sign, sp.eye(2), sp.zeros(2), ">=")


def test_by_sign_reads_the_index_ranges_of_the_step():
    refused("the gap i is not shown positive from the assumptions and ranges", by_sign, 0, i, "<")
    with under(RANGE):
        t = by_sign(0, i, "<")
    assert t.relation == "<" and t.context == (RANGE,)


def test_a_scale_must_be_shown_positive_and_multiplies_the_gap():
    t = by_sign(0, x**2 + 1, "<", scale=2)
    assert (t.lhs, t.rhs, t.relation) == (0, x**2 + 1, "<")
    refused("the scale -2 is not shown positive", by_sign, 0, x**2 + 1, "<", scale=-2)
    refused("the scale x is not shown positive", by_sign, 0, x**2 + 1, "<", scale=x)
    refused("the scale i is not shown positive", by_sign, x, x + 1, "<", scale=i)
    with under(RANGE):  # i >= 1 by the step's range
        assert by_sign(x, x + 1, "<", scale=i).relation == "<"


def test_a_witness_must_equal_the_scaled_gap():
    t = by_sign(0, x**2 + 2 * x + 1, "<=", witness=(x + 1) ** 2)
    assert (t.lhs, t.rhs, t.relation, t.why) == (0, x**2 + 2 * x + 1, "<=", "the gap is nonnegative")
    t = by_sign(x**2 + 2 * x + 1, 0, ">=", witness=(x + 1) ** 2)
    assert t.relation == ">="
    assert by_sign(0, x**2 + 1, "<", scale=2, witness=2 * x**2 + 2).relation == "<"
    refused("lhs - rhs does not reduce to 0", by_sign, 0, x**2 + 1, "<", scale=2, witness=x**2 + 1)
    refused("lhs - rhs does not reduce to 0", by_sign, 0, x**2 + 2 * x + 1, "<=", witness=(x - 1) ** 2)
    # the witness's sign is the one read: a gap shown equal to a square is nonnegative, not positive
    refused("the gap (x + 1)**2 is not shown positive from the assumptions and ranges",
            by_sign, 0, x**2 + 2 * x + 1, "<", witness=(x + 1) ** 2)


def test_by_sign_keeps_the_records_of_every_decision(recording):
    t = by_sign(0, x**2 + 1, "<", scale=2)
    assert kinds(t) == [("sign", "2 > 0"), ("sign", "2*x**2 + 2 > 0")]
    t = by_sign(0, x**2 + 1, "<", scale=2, witness=2 * x**2 + 2)
    assert ("sign", "2 > 0") in kinds(t) and ("sign", "2*x**2 + 2 > 0") in kinds(t)
    assert kinds(by_sign(x, x + 1, "<")) == [("sign", "1 > 0")]


# ------------------------------------------------------------------------------ rewrite
def test_rewrite_replaces_the_left_side_by_the_right():
    t = by_zero(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1)
    e = y * (sp.sin(x) ** 2 + sp.cos(x) ** 2) + x
    r = rewrite(e, t)
    assert (r.lhs, r.rhs, r.relation, r.why) == (e, x + y, "=", "zero test")


def test_rewrite_keeps_the_equations_hypotheses_and_records(recording):
    with under(POS):
        t = by_zero(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1)
    assert t.checks
    with under(NZ):
        r = rewrite(y * (sp.sin(x) ** 2 + sp.cos(x) ** 2), t)
    assert (r.rhs, r.why, r.checks, r.context) == (y, t.why, t.checks, (POS,))


def test_rewrite_finds_an_occurrence_under_binders():
    inner = sp.Sum(2 * g(j), (j, 1, n))
    t = by_zero(inner, 2 * sp.Sum(g(j), (j, 1, n)))
    e = sp.Sum(inner * f(i), (i, 1, n))  # inside, the inner sum's variable is one level deeper
    r = rewrite(e, t)
    assert r.lhs == canonical(e)
    assert r.rhs == canonical(sp.Sum(2 * sp.Sum(g(j), (j, 1, n)) * f(i), (i, 1, n)))
    assert r.why == "zero test"


def test_rewrite_needs_an_equation_that_occurs():
    refused("only an equation rewrites inside a term", rewrite, x + 2, by_sign(x, x + 1, "<"))
    refused("rewrite: y does not occur in x + 1", rewrite, x + 1, by_zero(y, y + 0 * x))
    refused("rewrite: x does not occur in 3", rewrite, 3, refl(x))
    refused("expected a Thm from the kernel, got str", rewrite, x, "x = x")


def _bound(e, *path):
    """The kernel's dummy bound by the binder at ``path`` (argument indices) in canonical ``e``."""
    node = canonical(e)
    for p in path:
        node = node.args[p]
    return node.variables[0] if isinstance(node, sp.Lambda) else node.limits[0][0]


def _pythagoras(d, on_the_left=True):
    one = sp.sin(d) ** 2 + sp.cos(d) ** 2
    return by_zero(one, 1) if on_the_left else by_zero(1, one)


@pytest.mark.parametrize("on_the_left", [True, False])
def test_rewrite_refuses_to_capture_a_bound_variable(on_the_left):
    s = sp.Sum(f(i) * (sp.sin(y) ** 2 + sp.cos(y) ** 2), (i, 1, n))
    refused("rewrite would capture a bound variable", rewrite, s, _pythagoras(_bound(s), on_the_left))
    lam = sp.Lambda(x, f(x) + 1)
    refused("rewrite would capture a bound variable", rewrite, lam, _pythagoras(_bound(lam), on_the_left))


def test_rewrite_refuses_to_capture_the_variable_of_an_outer_binder():
    nested = sp.Sum(f(i) * sp.Sum(g(j), (j, 1, n)), (i, 1, n))  # two binders (SymPy merges no Mul)
    inner = next(a for a in canonical(nested).function.args if isinstance(a, sp.Sum))
    outer = _bound(nested)
    assert outer != inner.limits[0][0]
    refused("rewrite would capture a bound variable", rewrite, nested, _pythagoras(outer))
    lams = sp.Lambda(x, sp.Lambda(y, x + y))
    outer = _bound(lams)
    assert outer != _bound(lams, 1)
    refused("rewrite would capture a bound variable", rewrite, lams, _pythagoras(outer))


# ------------------------------------------------------------------------------ hypothesis
def test_an_equation_hypothesis_is_a_theorem_as_stated():
    eq = Equation("E", lhs=f(x), rhs=x**2 + 1)
    with under(POS, eq):
        t = hypothesis(eq)
        assert (t.lhs, t.rhs, t.relation, t.why) == (f(x), x**2 + 1, "=", "hypothesis E")
        assert t.context == (POS, eq)
        twin = Equation("E", lhs=f(x), rhs=x**2 + 1)
        assert hypothesis(twin).rhs == x**2 + 1  # an equal hypothesis is the same hypothesis


@pytest.mark.parametrize(("cls", "relation"), [(sp.Eq, "="), (sp.Le, "<="), (sp.Lt, "<"), (sp.Ge, ">="),
                                               (sp.Gt, ">")])
def test_an_assumed_relation_is_a_theorem_as_stated(cls, relation):
    a = Assumption("a", cls(f(x), y + 1))
    with under(a):
        t = hypothesis(a)
    assert (t.lhs, t.rhs, t.relation, t.why) == (f(x), y + 1, relation, "hypothesis a")


def test_only_a_hypothesis_of_the_step_is_used():
    with under(POS):
        refused("'nz' is not a hypothesis of this theorem", hypothesis, NZ)
        refused("x > 0 is not a hypothesis of this theorem", hypothesis, sp.Gt(x, 0))
    refused("'pos' is not a hypothesis of this theorem", hypothesis, POS)


def test_a_hypothesis_that_is_no_usable_relation_is_refused():
    forall = Equation("E", lhs=f(k), rhs=k, forall=(k,))
    wordy = Assumption("w", text="x is small")
    ne = Assumption("ne", sp.Ne(x, 1))
    bare = sp.Gt(x, 0)  # in the hypotheses, but no Hypothesis: named by itself
    with under(forall, wordy, ne, RANGE, bare):
        refused("hypothesis 'E' holds for all (k,): use it through symattn.kernel.hypotheses.rewrite_with",
                hypothesis, forall)
        refused("hypothesis 'w' states no relation", hypothesis, wordy)
        refused("hypothesis 'ne' is not an equation or an inequality", hypothesis, ne)
        refused("hypothesis 'r' states no relation", hypothesis, RANGE)
        refused("hypothesis x > 0 states no relation", hypothesis, bare)


# ------------------------------------------------------------------------------ regressions
def test_a_witness_leaves_the_record_of_its_zero_test(recording):
    # the witness is shown equal to the gap by the zero test: that decision is one of the theorem's
    t = by_sign(0, x**2 + 2 * x + 1, "<=", witness=(x + 1) ** 2)
    assert [kind for kind, _ in kinds(t)] == ["zero", "sign"]
    assert kinds(t)[1] == ("sign", "(x + 1)**2 >= 0")
    t = by_sign(0, x**2 + 1, "<", scale=2, witness=2 * x**2 + 2)
    assert [kind for kind, _ in kinds(t)] == ["sign", "zero", "sign"]
