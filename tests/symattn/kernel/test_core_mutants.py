"""The small modules of the trusted core -- :mod:`symattn.kernel.axioms`, :mod:`symattn.kernel.hypotheses`
and :mod:`symattn.kernel.induction` -- tested one decision at a time.

Written against the mutants a mutmut run of those three modules generated: every test states one
property of a function there -- the theorem an accepted inference gives (sides, relation,
justification, hypotheses), or the refusal it gives (the kernel's error, worded exactly) -- so that a
kernel weakened in that one place fails here. Expected values are worked out by hand: ``f(3)`` is
not an instance of ``w + 1`` with ``w`` an integer (``3`` is a number, never matched, and ``f(3) - 1``
is not known to be an integer); the induction hypothesis of ``t**2 - t = t*(t - 1)`` is the claim at
``t - 1``; ``T - (-1) = T + 1`` is positive when ``T`` is nonnegative.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
import sympy as sp

from symattn.kernel import axioms, ledger, second
from symattn.kernel import hypotheses as khyp
from symattn.kernel import induction as kind
from symattn.kernel.context import HYPOTHESES
from symattn.kernel.terms import KernelError, canonical
from symattn.kernel.thm import Thm, by_sign, by_zero, refl
from symattn.language.statement import Assumption, Equation, IndexRange

from .claims import under

x, y = sp.symbols("x y", real=True)
i, j = sp.symbols("i j", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
s = sp.Symbol("s")  # no assumptions: an integer only through a range
f, g = sp.Function("f"), sp.Function("g")
v, u = sp.IndexedBase("v"), sp.IndexedBase("u")

# forall variables, one per declared domain
W = sp.Symbol("w")  # nothing declared
K = sp.Symbol("k", integer=True)
P = sp.Symbol("p", positive=True)
A = sp.Symbol("a", nonnegative=True)
M = sp.Symbol("m", negative=True)
NP = sp.Symbol("q", nonpositive=True)
Z = sp.Symbol("z", nonzero=True)
R = sp.Symbol("r", real=True)
C = sp.Symbol("c", complex=True)
FIN = sp.Symbol("b", finite=True)
E = sp.Symbol("e", even=True)
PE = sp.Symbol("pe", positive=True, even=True)
AE = sp.Symbol("ae", nonnegative=True, even=True)
NPE = sp.Symbol("qe", nonpositive=True, even=True)
ZE = sp.Symbol("ze", nonzero=True, even=True)
MI = sp.Symbol("mi", negative=True, irrational=True)


@pytest.fixture(autouse=True)
def kernel_alone():
    with second.disabled():
        yield


def refused(message: str, fn, *args, **kwargs) -> None:
    """``fn(*args)`` is refused with the kernel's error, worded exactly ``message``."""
    with pytest.raises(KernelError) as info:
        fn(*args, **kwargs)
    assert str(info.value) == message


def states(t, lhs, rhs, relation="=", why=None, context=None) -> None:
    assert isinstance(t, Thm)
    assert (t.lhs, t.rhs, t.relation) == (canonical(lhs), canonical(rhs), relation)
    if why is not None:
        assert t.why == why
    if context is not None:
        assert t.context == tuple(context)


# ================================================================================ axioms
RECORD = SimpleNamespace(status="made by the fake schema")


@pytest.fixture
def fake_schema():
    """A schema registered as if from a core schema module ``fake_family``; removed afterwards."""
    def build(lo, hi):
        ledger.record(RECORD)
        return lo, hi, "<"

    build.__module__ = "symattn.kernel.schemas.fake_family"
    yield build
    axioms.SCHEMAS.pop("zz_fake", None)
    axioms.SCHEMAS.pop("zz_other", None)


def test_schema_registers_name_family_statement_and_builder(fake_schema):
    assert axioms.schema("zz_fake", "lo < hi, trusted by the test")(fake_schema) is fake_schema
    assert axioms.SCHEMAS["zz_fake"] == axioms.Schema("zz_fake", "fake_family", "lo < hi, trusted by the test",
                                                      fake_schema)


def test_schema_registered_twice_is_refused(fake_schema):
    axioms.schema("zz_fake", "first")(fake_schema)
    refused("schema 'zz_fake' registered twice", axioms.schema("zz_fake", "second"), fake_schema)
    assert axioms.SCHEMAS["zz_fake"].statement == "first"


def test_schema_outside_the_core_schema_modules_is_refused(fake_schema):
    def build():
        return x, x, "="

    build.__module__ = "symattn.kernel.fake_family"
    refused("schema 'zz_other': only the core's schema modules register schemas, not symattn.kernel.fake_family",
            axioms.schema("zz_other", "nope"), build)
    assert "zz_other" not in axioms.SCHEMAS


def test_axiom_builds_the_instance_through_the_schema(fake_schema):
    axioms.schema("zz_fake", "lo < hi")(fake_schema)
    states(axioms.axiom("zz_fake", lo=x, hi=x + 1), x, x + 1, "<", why="axiom zz_fake", context=())
    with under(Assumption("pos", sp.Gt(x, 0))):
        t = axioms.axiom("zz_fake", lo=y, hi=2 * y)
    states(t, y, 2 * y, "<", context=(Assumption("pos", sp.Gt(x, 0)),))
    assert t.checks == (RECORD,)


def test_axiom_keeps_only_the_records_its_schema_made(fake_schema):
    axioms.schema("zz_fake", "lo < hi")(fake_schema)
    ledger.take()
    ledger.record(SimpleNamespace(status="made before the axiom"))
    assert axioms.axiom("zz_fake", lo=x, hi=y).checks == (RECORD,)
    assert ledger.take() == ()


def test_axiom_of_a_real_schema_and_its_side_condition():
    states(axioms.axiom("trig_identity", lhs=sp.sin(x) ** 2 + sp.cos(x) ** 2, rhs=1),
           sp.sin(x) ** 2 + sp.cos(x) ** 2, 1, "=", why="axiom trig_identity")
    refused("not an identity of sines and cosines: sin(x) vs 1", axioms.axiom, "trig_identity", lhs=sp.sin(x), rhs=1)


def test_axiom_unknown_schema_is_refused_naming_the_table():
    with pytest.raises(KernelError) as info:
        axioms.axiom("no_such_schema", lhs=x)
    msg = str(info.value)
    assert msg.startswith("no axiom schema 'no_such_schema' (the table has [")
    assert "'trig_identity'" in msg and msg.endswith("])")


def test_load_imports_each_schema_module_once_in_order(monkeypatch):
    folder = os.path.dirname(axioms.__file__) + "/schemas"
    expected = [f"symattn.kernel.schemas.{name[:-3]}" for name in sorted(os.listdir(folder))
                if name.endswith(".py") and name != "__init__.py"]
    calls = []
    real = axioms.importlib.import_module
    monkeypatch.setattr(axioms.importlib, "import_module", lambda name: calls.append(name) or real(name))
    monkeypatch.setattr(axioms, "_loaded", [False])
    axioms._load()
    assert calls == expected and len(expected) >= 8
    assert axioms._loaded == [True]
    axioms._load()
    axioms.table()
    assert calls == expected


def test_table_sorted_by_family_then_name():
    t = axioms.table()
    assert len(t) == len(axioms.SCHEMAS) > 20
    keys = [(sch.family, sch.name) for sch in t]
    assert keys == sorted(keys)
    assert all(isinstance(sch, axioms.Schema) for sch in t)
    assert ("trig", "trig_identity") in keys


# ================================================================================ hypotheses: use
H = Equation("h", lhs=f(x), rhs=g(x))
POS = Assumption("pos", sp.Gt(x, 0))


def test_use_gives_the_hypothesis_as_stated():
    with under(H):
        states(khyp.use(H), f(x), g(x), "=", why="hypothesis h", context=(H,))
    with under(POS):
        states(khyp.use(POS), x, 0, ">")


def test_use_of_a_hypothesis_the_theorem_does_not_have_is_refused():
    with under(POS):
        refused("'h' is not a hypothesis of this theorem", khyp.use, H)


# ================================================================================ _index_variables
def test_index_variables():
    assert khyp._index_variables(v[W, 1], (W,)) == {W}
    assert khyp._index_variables(f(v[W], v[1]), (W, K)) == {W}
    assert khyp._index_variables(v[2 * W] + u[K + 1] * f(R), (W, K, R)) == {W, K}
    assert khyp._index_variables(v[W] + f(K), (W, K)) == {W}
    assert khyp._index_variables(f(W), (W,)) == set()
    assert khyp._index_variables(3, (W,)) == set()


# ================================================================================ in_domain
RANGE_S = IndexRange("sr", index=s, lower=1, upper=n)
RANGE_S0 = IndexRange("sr0", index=s, lower=0, upper=n)
NZ_Y = Assumption("nzy", sp.Ne(y, 0))
NZ_J = Assumption("nzj", sp.Ne(j, 0))
NZ_I = Assumption("nzi", sp.Ne(i, 0))
SUM = sp.Sum(i, (i, 1, n))  # an integer, positive by the sign test only
HALF = SUM / (n + 1)  # n/2: positive by the sign test only, not known to be >= 1
SQ = x ** 2 - 2 * x + 1  # (x - 1)**2: nonnegative by the sign test, not by SymPy's assumptions
JSQ = -j ** 2 + 2 * j - 1  # -(j - 1)**2: an integer, nonpositive by the sign test only


def no(var, value, fact, why=None):
    return f"{var} is {why or fact} in the equation, but {sp.sstr(value)} is not known to be {fact}"


IN_DOMAIN = [
    # (var, value, hypotheses, env, as_index, expected)
    (W, x / 2, (), {}, False, None),
    (R, x / 2, (), {}, False, None),
    (W, j, (), {}, True, None),
    (W, x / 2, (), {}, True, no(W, x / 2, "integer", "an index")),
    (K, x / 2, (), {}, True, no(K, x / 2, "integer")),
    (K, x / 2, (), {}, False, no(K, x / 2, "integer")),
    (K, j + 1, (), {}, False, None),
    (P, x / 2, (), {}, True, no(P, x / 2, "integer", "an index")),
    (W, s, (RANGE_S,), {}, True, None),
    (W, s, (), {s: (1, n)}, True, None),
    (W, s, (), {}, True, no(W, s, "integer", "an index")),
    (E, 2 * j, (), {}, False, None),
    (E, 3, (), {}, False, no(E, 3, "even")),
    (E, -3, (), {}, False, no(E, -3, "even")),
    (E, j, (NZ_J,), {}, False, no(E, j, "even")),
    (E, s, (RANGE_S,), {}, False, no(E, s, "rational")),
    # positive
    (P, j, (), {}, False, no(P, j, "positive")),
    (P, x ** 2 + 1, (), {}, False, None),
    (P, i, (IndexRange("ir", index=i, lower=1, upper=n),), {}, False, None),
    (P, i, (IndexRange("ir", index=i, lower=0, upper=n),), {}, False, no(P, i, "positive")),
    (P, i, (NZ_I,), {i: (1, n)}, False, None),
    (P, i, (NZ_I,), {i: (2, n)}, False, None),
    (P, i, (NZ_I,), {i: (0, n)}, False, no(P, i, "positive")),
    (PE, j, (NZ_J,), {j: (1, n)}, False, no(PE, j, "even")),
    (P, HALF, (), {}, False, None),
    (A, HALF, (), {}, False, None),
    # signed by the sign test on the product as written; its expansion (what index_in_range reads) is not
    (A, SUM * ((x - 1) ** 2 + (x - 2) ** 2), (), {}, False, None),
    (A, SUM * ((x - 1) ** 2 + (x - 2) ** 2 + 1), (), {}, False, None),
    (M, -HALF, (), {}, False, None),
    (NP, -HALF, (), {}, False, None),
    (MI, -HALF, (), {}, False, no(MI, -HALF, "irrational")),  # negative by the sign test; n/2 is rational
    # nonnegative
    (A, SQ, (), {}, False, None),
    (A, x, (), {}, False, no(A, x, "nonnegative")),
    (A, i, (IndexRange("ir", index=i, lower=0, upper=n),), {}, False, None),
    (A, i, (), {i: (0, n)}, False, None),
    (A, i, (), {i: (-1, n)}, False, no(A, i, "nonnegative")),
    (A, s, (RANGE_S0,), {}, False, None),
    (AE, j, (), {j: (0, n)}, False, no(AE, j, "even")),
    # negative, nonpositive
    (M, -x ** 2 - 1, (), {}, False, None),
    (M, x, (), {}, False, no(M, x, "negative")),
    (M, x ** 2 + 1, (), {}, False, no(M, x ** 2 + 1, "negative")),
    (M, -SQ, (), {}, False, no(M, -SQ, "negative")),
    (NP, -SQ, (), {}, False, None),
    (NP, x, (), {}, False, no(NP, x, "nonpositive")),
    (NP, x ** 2 + 1, (), {}, False, no(NP, x ** 2 + 1, "nonpositive")),
    (NPE, JSQ, (), {}, False, no(NPE, JSQ, "even")),
    # nonzero
    (Z, y, (NZ_Y,), {}, False, None),
    (Z, y, (), {}, False, no(Z, y, "nonzero")),
    (ZE, j, (NZ_J,), {}, False, no(ZE, j, "even")),
    # real, complex, finite: integers through ranges
    (R, s, (RANGE_S,), {}, False, None),
    (R, s, (), {s: (1, n)}, False, None),
    (R, s, (), {}, False, no(R, s, "real")),
    (C, s, (RANGE_S,), {}, False, None),
    (C, s, (), {}, False, no(C, s, "complex")),
    (FIN, s, (RANGE_S,), {}, False, None),
    (FIN, s, (), {}, False, no(FIN, s, "finite")),
]


@pytest.mark.parametrize("var, value, hyps, env, as_index, expected", IN_DOMAIN)
def test_in_domain(var, value, hyps, env, as_index, expected):
    assert khyp.in_domain(var, sp.sympify(value), hyps, env, as_index=as_index) == expected


def test_in_domain_as_index_defaults_to_false():
    assert khyp.in_domain(R, x / 2, (), {}) is None
    assert khyp.in_domain(K, x / 2, (), {}) == no(K, x / 2, "integer")


KR = IndexRange("kr", index=K, lower=1, upper=n)
WR = IndexRange("wr", index=W, lower=1, upper=n)


def test_in_domain_index_ranges_of_the_variable():
    other = IndexRange("jr", index=j, lower=5, upper=6)
    hyps = (POS, other, KR, WR)
    assert khyp.in_domain(K, sp.Integer(1), hyps, {}) is None
    assert khyp.in_domain(K, n, hyps, {}) is None
    assert khyp.in_domain(K, i, hyps, {i: (1, n)}) is None
    assert khyp.in_domain(W, s, hyps + (RANGE_S,), {}) is None
    assert khyp.in_domain(W, s, hyps, {}) == "w ranges over 1..n, but s is not known to"
    assert khyp.in_domain(K, i, hyps, {i: (0, n)}) == "k ranges over 1..n, but i is not known to"
    assert khyp.in_domain(K, n + 1, hyps, {}) == "k ranges over 1..n, but n + 1 is not known to"
    assert khyp.in_domain(K, sp.Integer(0), hyps, {}) == "k ranges over 1..n, but 0 is not known to"
    assert khyp.in_domain(j, sp.Integer(5), hyps, {}) is None
    assert khyp.in_domain(j, sp.Integer(4), hyps, {}) == "j ranges over 5..6, but 4 is not known to"


# ================================================================================ rewrite_with
def test_rewrite_with_an_equation_without_forall():
    with under(POS, H):
        states(khyp.rewrite_with(f(x) + 1, H), f(x) + 1, g(x) + 1, "=", why="hypothesis h", context=(POS, H))
        states(khyp.rewrite_with(2 * g(x), H, reverse=True), 2 * g(x), 2 * f(x))
        states(khyp.rewrite_with(g(f(x)), H), g(f(x)), g(g(x)))
        states(khyp.rewrite_with(f(f(x)) * y, H), f(f(x)) * y, f(g(x)) * y)


def test_rewrite_with_a_number_side():
    two = Equation("two", lhs=sp.Integer(2), rhs=y)
    with under(two):
        states(khyp.rewrite_with(f(2) + x, two), f(2) + x, f(y) + x)


def test_rewrite_with_refusals():
    with under(POS):
        refused("'h' is not a hypothesis of this theorem", khyp.rewrite_with, f(x), H)
        refused("hypothesis 'pos' is not an equation", khyp.rewrite_with, x, POS)
    with under(H):
        refused("h does not occur", khyp.rewrite_with, g(x) + 1, H)
        refused("h does not occur", khyp.rewrite_with, f(x), H, reverse=True)


SQF = Equation("sq", lhs=f(P), rhs=P ** 2, forall=(P,))


def test_rewrite_with_forall_in_the_domain():
    with under(SQF):
        problems = []
        states(khyp.rewrite_with(f(3) + f(y), SQF, problems=problems), f(3) + f(y), 9 + f(y),
               why="hypothesis sq", context=(SQF,))
        assert problems == [no(P, y, "positive")]
        states(khyp.rewrite_with(x * f(3), SQF), x * f(3), 9 * x)


def test_rewrite_with_forall_out_of_the_domain():
    with under(SQF):
        refused(f"sq does not occur in its domain: {no(P, y, 'positive')}", khyp.rewrite_with, f(y), SQF)
        refused(f"sq does not occur in its domain: {no(P, -1, 'positive')}; {no(P, y, 'positive')}",
                khyp.rewrite_with, f(y) * g(f(y)) + f(-1), SQF)
        problems = ["earlier"]
        with pytest.raises(KernelError):
            khyp.rewrite_with(f(y), SQF, problems=problems)
        assert problems == ["earlier", no(P, y, "positive")]


SUCC = Equation("succ", lhs=K + 1, rhs=g(K), forall=(K,))


def test_rewrite_with_never_matches_a_number():
    with under(SUCC):
        refused(f"succ does not occur in its domain: {no(K, f(3) - 1, 'integer')}", khyp.rewrite_with, f(3), SUCC)
        states(khyp.rewrite_with(f(j + 1), SUCC), f(j + 1), f(g(j)))


VW = Equation("vw", lhs=v[W], rhs=u[W], forall=(W,))


def test_rewrite_with_index_variables_are_integers():
    with under(VW):
        states(khyp.rewrite_with(v[j] + v[x / 2], VW), v[j] + v[x / 2], u[j] + v[x / 2])
        refused(f"vw does not occur in its domain: {no(W, x / 2, 'integer', 'an index')}",
                khyp.rewrite_with, v[x / 2], VW)
        m = khyp.rewrite_with(sp.Matrix([[v[j], v[x / 2]], [1, f(x)]]), VW)
        assert m.lhs == sp.ImmutableMatrix([[v[j], v[x / 2]], [1, f(x)]])
        assert m.rhs == sp.ImmutableMatrix([[u[j], v[x / 2]], [1, f(x)]])
        assert (m.relation, m.why, m.context) == ("=", "hypothesis vw", (VW,))
    with under(VW, RANGE_S):
        states(khyp.rewrite_with(v[s], VW), v[s], u[s])
        m = khyp.rewrite_with(sp.Matrix([v[s], v[x / 2]]), VW)
        assert m.rhs == sp.ImmutableMatrix([u[s], v[x / 2]])


def test_rewrite_with_in_a_matrix():
    with under(H):
        m = khyp.rewrite_with(sp.Matrix([[f(x), 1], [2, x]]), H)
        assert m.lhs == sp.ImmutableMatrix([[f(x), 1], [2, x]])
        assert m.rhs == sp.ImmutableMatrix([[g(x), 1], [2, x]])
        refused("h does not occur", khyp.rewrite_with, sp.Matrix([g(x), 1]), H)
    with under(SQF):
        problems = []
        m = khyp.rewrite_with(sp.Matrix([f(2), f(y)]), SQF, problems=problems)
        assert m.rhs == sp.ImmutableMatrix([4, f(y)])
        assert problems == [no(P, y, "positive")]
        refused(f"sq does not occur in its domain: {no(P, y, 'positive')}", khyp.rewrite_with,
                sp.Matrix([f(y)]), SQF)


VK = Equation("vk", lhs=v[K], rhs=u[K], forall=(K,))
N_ = sp.Symbol("N", integer=True)
HN = Equation("hn", lhs=N_, rhs=n)


def test_rewrite_with_under_a_binder_sees_its_range():
    with under(VK, KR):
        states(khyp.rewrite_with(sp.Sum(v[i], (i, 1, n)), VK), sp.Sum(v[i], (i, 1, n)), sp.Sum(u[i], (i, 1, n)))
        states(khyp.rewrite_with(x * sp.Sum(v[i] * f(i), (i, 2, n)), VK),
               x * sp.Sum(v[i] * f(i), (i, 2, n)), x * sp.Sum(u[i] * f(i), (i, 2, n)))
        refused("vk does not occur in its domain: k ranges over 1..n, but _k0 is not known to",
                khyp.rewrite_with, sp.Sum(v[i], (i, 0, n)), VK)
        refused("vk does not occur in its domain: k ranges over 1..n, but _k0 is not known to",
                khyp.rewrite_with, sp.Matrix([sp.Sum(v[i], (i, 0, n))]), VK)
        m = khyp.rewrite_with(sp.Matrix([sp.Sum(v[i], (i, 1, n))]), VK)
        assert m.rhs == canonical(sp.Matrix([sp.Sum(u[i], (i, 1, n))]))
        states(khyp.rewrite_with(v[1] + v[n], VK), v[1] + v[n], u[1] + u[n])
    with under(VW, WR, RANGE_S):
        states(khyp.rewrite_with(v[s], VW), v[s], u[s])
    with under(VW, WR, RANGE_S0):
        refused("vw does not occur in its domain: w ranges over 1..n, but s is not known to",
                khyp.rewrite_with, v[s], VW)


def test_rewrite_with_forall_in_the_bounds_of_a_binder():
    with under(SQF):
        states(khyp.rewrite_with(sp.Sum(v[i], (i, 1, f(3))), SQF), sp.Sum(v[i], (i, 1, f(3))), sp.Sum(v[i], (i, 1, 9)))
        refused(f"sq does not occur in its domain: {no(P, y, 'positive')}", khyp.rewrite_with,
                sp.Sum(v[i], (i, 1, f(y))), SQF)
    with under(VW, RANGE_S):
        states(khyp.rewrite_with(sp.Sum(v[i], (i, 1, v[s])), VW), sp.Sum(v[i], (i, 1, v[s])),
               sp.Sum(u[i], (i, 1, u[s])))
    with under(VK, KR):
        inner = sp.Sum(sp.Sum(f(j), (j, 1, v[i])) + 1, (i, 1, n))
        states(khyp.rewrite_with(inner, VK), inner, sp.Sum(sp.Sum(f(j), (j, 1, u[i])) + 1, (i, 1, n)))


def test_rewrite_with_in_the_bounds_of_a_binder():
    with under(HN):
        states(khyp.rewrite_with(sp.Sum(v[i], (i, 1, N_)), HN), sp.Sum(v[i], (i, 1, N_)), sp.Sum(v[i], (i, 1, n)))
        states(khyp.rewrite_with(sp.Sum(v[i], (i, N_, 5)), HN), sp.Sum(v[i], (i, N_, 5)), sp.Sum(v[i], (i, n, 5)))
        states(khyp.rewrite_with(sp.Sum(v[i] * N_, (i, 1, 3)), HN), sp.Sum(v[i] * N_, (i, 1, 3)),
               sp.Sum(v[i] * n, (i, 1, 3)))
        states(khyp.rewrite_with(sp.Sum(N_ * v[i], (i, 1, N_)), HN), sp.Sum(N_ * v[i], (i, 1, N_)),
               sp.Sum(n * v[i], (i, 1, n)))


# ================================================================================ induction
t = sp.Symbol("t", integer=True)
T = sp.Symbol("T", integer=True, nonnegative=True)
CL, CR = t ** 2 - t, t * (t - 1)


def ih(start=0, bound=T, *extra):
    return extra + (Equation("induction_hypothesis", lhs=(t - 1) ** 2 - (t - 1), rhs=(t - 1) * (t - 2)),
                    IndexRange("induction_range", index=t, lower=start + 1, upper=bound))


def test_step_hypotheses_scalar_claim():
    assert kind.step_hypotheses(CL, CR, t, 0, T) == ih()
    with under(POS):
        assert kind.step_hypotheses(CL, CR, t, -1, T) == (POS,) + ih(-1)


def test_step_hypotheses_column_claim():
    got = kind.step_hypotheses(sp.Matrix([t, 2 * t]), sp.Matrix([f(t), t + x]), t, 0, T)
    assert got == (Equation("induction_hypothesis_0", lhs=t - 1, rhs=f(t - 1)),
                   Equation("induction_hypothesis_1", lhs=2 * t - 2, rhs=t - 1 + x),
                   IndexRange("induction_range", index=t, lower=1, upper=T))


def test_step_hypotheses_refusals():
    refused("the claim's sides have different shapes", kind.step_hypotheses, sp.Matrix([t, t]), t, t, 0, T)
    for name in ("induction_hypothesis", "induction_range"):
        with under(Equation(name, lhs=x, rhs=y)):
            refused("the theorem already has a hypothesis named like the induction's",
                    kind.step_hypotheses, CL, CR, t, 0, T)
    with under(Equation("induction_hypothesis_0", lhs=x, rhs=y)):
        refused("the theorem already has a hypothesis named like the induction's",
                kind.step_hypotheses, sp.Matrix([t, t]), sp.Matrix([t, t]), t, 0, T)
        assert kind.step_hypotheses(CL, CR, t, 0, T)[-1].name == "induction_range"


def _induct(cl, cr, var, start, bound, extra=()):
    """Base (at ``start``) and step (under the step hypotheses) by the zero test, then conclude."""
    outer = tuple(HYPOTHESES.get() or ())
    base = by_zero(sp.sympify(cl).subs(var, start), sp.sympify(cr).subs(var, start))
    with under(*kind.step_hypotheses(cl, cr, var, start, bound), *extra):
        step = by_zero(cl, cr)
    with under(*outer):
        return kind.conclude(cl, cr, var, start, bound, base, step)


def test_conclude_gives_the_claim_at_the_bound():
    (th,) = _induct(CL, CR, t, 0, T)
    states(th, T ** 2 - T, T * (T - 1), "=", why="induction on t from 0 to T", context=())
    with under(POS):
        (th,) = _induct(CL, CR, t, -1, T)
    states(th, T ** 2 - T, T * (T - 1), "=", why="induction on t from -1 to T", context=(POS,))


def test_conclude_column_claim():
    got = _induct(sp.Matrix([CL, 2 * t]), sp.Matrix([CR, t + t]), t, 0, T)
    assert len(got) == 2
    states(got[0], T ** 2 - T, T * (T - 1), why="induction on t from 0 to T", context=())
    states(got[1], 2 * T, 2 * T)


def test_conclude_refuses_a_base_or_step_that_is_not_an_equation():
    base = refl(sp.Integer(0))
    with under(*kind.step_hypotheses(CL, CR, t, 0, T)):
        step = by_zero(CL, CR)
        less = by_sign(t, t + 1, "<")
    refused("the base case is not an equation the kernel has shown", kind.conclude, CL, CR, t, 0, T, None, step)
    refused("the induction step is not an equation the kernel has shown", kind.conclude, CL, CR, t, 0, T, base, None)
    refused("the base case is not an equation the kernel has shown", kind.conclude, CL, CR, t, 0, T,
            by_sign(sp.Integer(0), sp.Integer(1), "<"), step)
    refused("the induction step is not an equation the kernel has shown", kind.conclude, CL, CR, t, 0, T, base, less)


def test_conclude_refuses_proofs_under_other_hypotheses():
    with under(POS):
        base_pos = refl(sp.Integer(0))
    base = refl(sp.Integer(0))
    with under(*kind.step_hypotheses(CL, CR, t, 0, T), IndexRange("more", index=t, lower=2, upper=T)):
        step_more = by_zero(CL, CR)
    with under(*kind.step_hypotheses(CL, CR, t, 0, T)):
        step = by_zero(CL, CR)
    refused("the base case was proved under hypotheses the induction does not give it",
            kind.conclude, CL, CR, t, 0, T, base_pos, step)
    refused("the induction step was proved under hypotheses the induction does not give it",
            kind.conclude, CL, CR, t, 0, T, base, step_more)
    assert len(kind.conclude(CL, CR, t, 0, T, base, step)) == 1


def test_conclude_refuses_a_base_or_step_of_another_claim():
    base = refl(sp.Integer(0))
    with under(*kind.step_hypotheses(CL, CR, t, 0, T)):
        step = by_zero(CL, CR)
        other = by_zero(t ** 2, t * t)
    refused("the base case does not prove the claim at t = 0", kind.conclude, CL, CR, t, 0, T, refl(x), step)
    refused("the induction step does not prove the claim at t = t", kind.conclude, CL, CR, t, 0, T, base, other)


def test_check_variable_the_variable():
    refused("the induction variable must be an integer Symbol, got 1", kind._check_variable, sp.Integer(1), 0, T)
    refused("the induction variable must be an integer Symbol, got x", kind._check_variable, x, 0, T)
    refused("the induction variable must be an integer Symbol, got s", kind._check_variable, s, 0, T)
    refused("the induction variable must be an integer Symbol, got t", kind.conclude, sp.Symbol("t"), 0, sp.Symbol("t"),
            0, T, None, None)
    for a in ("even", "odd", "prime", "composite", "zero", "negative", "nonpositive"):
        tt = sp.Symbol("t", integer=True, **{a: True})
        with pytest.raises(KernelError) as info:
            kind._check_variable(tt, 0, T)
        assert str(info.value).startswith("the induction variable t carries assumptions [")
        assert f"'{a}'" in str(info.value)
        assert str(info.value).endswith("] that a generic step may not use")
    refused("the induction variable t carries assumptions ['even'] that a generic step may not use",
            kind._check_variable, sp.Symbol("t", even=True), 0, T)


def test_check_variable_positive_and_nonnegative():
    tp = sp.Symbol("t", integer=True, positive=True)
    tn = sp.Symbol("t", integer=True, nonnegative=True)
    assert kind._check_variable(tp, 0, T) is None
    assert kind._check_variable(tn, -1, T) is None
    assert kind._check_variable(t, -2, T) is None
    assert kind._check_variable(t, -1, T) is None
    refused("t is declared positive but the step must hold for every t >= 0", kind._check_variable, tp, -1, T)
    refused("t is declared nonnegative but the step must hold for every t >= -1", kind._check_variable, tn, -2, T)


def test_check_variable_the_bound():
    refused("induction runs up to an integer, got x", kind._check_variable, t, 0, x)
    refused("induction runs up to an integer, got s", kind._check_variable, t, 0, s)
    refused("induction runs up to an integer, got 5", kind._check_variable, t, 0, 5)
    refused("the induction variable t must differ from the bound t + 1", kind._check_variable, t, 0, t + 1)
    refused("j is not known to be >= 0", kind._check_variable, t, 0, j)
    refused("T is not known to be >= 1", kind._check_variable, t, 1, T)
    assert kind._check_variable(t, 0, T) is None
    assert kind._check_variable(t, T, T) is None
    assert kind._check_variable(t, 3, sp.Integer(3)) is None
    assert kind._check_variable(t, 0, T + 1) is None


def test_nonneg():
    assert kind._nonneg(sp.Integer(0)) and kind._nonneg(T) and kind._nonneg(T + 1)
    assert kind._nonneg((T + 1) ** 2 - T ** 2 - 2 * T - 1)
    assert not kind._nonneg(sp.Integer(-1)) and not kind._nonneg(j) and not kind._nonneg(T - 1)


def test_check_variable_hypotheses_mentioning_the_variable():
    ok = (POS, Equation("fa", lhs=f(t), rhs=g(t), forall=(t,)), Equation("hx", lhs=f(x), rhs=g(x)))
    with under(*ok):
        assert kind._check_variable(t, 0, T) is None
    with under(*ok, Assumption("tpos", sp.Gt(t, 0)), IndexRange("tr", index=t, lower=0, upper=T)):
        refused("hypotheses ['tpos', 'tr'] mention t: the step case must hold for a generic t",
                kind._check_variable, t, 0, T)
        refused("hypotheses ['tpos', 'tr'] mention t: the step case must hold for a generic t",
                kind.conclude, CL, CR, t, 0, T, None, None)
    with under(Equation("ft", lhs=f(t), rhs=g(x), forall=(x,))):
        refused("hypotheses ['ft'] mention t: the step case must hold for a generic t", kind._check_variable, t, 0, T)


def test_rewrite_with_never_parses_a_string_side():
    """The core never parses text: a ``forall`` equation whose side is a string is refused, not read as
    the term the string spells (``f(2) = 2 + 1`` here)."""
    h = Equation("text", lhs=f(W), rhs="w + 1", forall=(W,))
    with under(h), pytest.raises(sp.SympifyError):
        khyp.rewrite_with(f(2), h)
