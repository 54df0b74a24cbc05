"""``definition``, ``substitute`` and ``apply_theorem``: only what is declared may be used."""

import pytest
import sympy as sp

from symattn.engine.theorem import Registry, Theorem
from symattn.engine.verdict import Level
from symattn.language.statement import Equation, IndexRange, Statement
from symattn.maths.softmax import Softmax
from symattn.rules import ProofContext, check_step

n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
x, y, c = sp.symbols("x y c", real=True)
s = sp.IndexedBase("s")
a = sp.IndexedBase("a")
sm = Softmax(sp.Lambda(j, s[j]), i, n)
unfolded = sp.exp(s[i]) / sp.Sum(sp.exp(s[j]), (j, 1, n))


def st(lhs, rhs, rule, ctx=ProofContext(), relation="=", **args):
    return check_step(lhs, rhs, relation, rule, args, ctx)


I_IN = ProofContext(hypotheses=(IndexRange("i_range", index=i, lower=1, upper=n),))


def test_definition_unfolds_and_folds():
    assert st(sm, unfolded, "definition", ctx=I_IN, name="softmax").ok
    assert st(unfolded, sm, "definition", ctx=I_IN, name="softmax").ok


def test_a_component_not_shown_inside_the_scores_is_not_unfolded():
    # component i of a softmax over n scores is defined for i in 1..n only (adversarial review 7)
    out = st(sm, unfolded, "definition", name="softmax")
    assert not out.ok and "not shown inside 1..n" in out.reason, out.reason


@pytest.mark.parametrize(
    "lhs, rhs, args, why",
    [
        (sm, sp.exp(s[i]) / sp.Sum(sp.exp(s[j]), (j, 1, n - 1)), {"name": "softmax"}, "off-by-one bound"),
        (sm, sp.exp(s[j]) / sp.Sum(sp.exp(s[j]), (j, 1, n)), {"name": "softmax"}, "wrong component"),
        (sm, unfolded, {"name": "no_such_definition"}, "unknown definition"),
        (x, x, {"name": "softmax"}, "definition not mentioned"),
        (sm, unfolded, {}, "no name given"),
    ],
)
def test_definition_rejects(lhs, rhs, args, why):
    assert st(lhs, rhs, "definition", **args).status is Level.FAIL, why


sum_to_one = Equation("sum_a", lhs=sp.Sum(a[j], (j, 1, n)), rhs=1)
mean_zero = Equation("mean_zero", lhs=sp.Function("E")(s[i]), rhs=0, forall=(i,))
ctx = ProofContext(hypotheses=(sum_to_one, mean_zero))


def test_substitute_uses_declared_equations():
    assert st(x * sp.Sum(a[j], (j, 1, n)) + y, x + y, "substitute", ctx, using="sum_a").ok
    E = sp.Function("E")
    assert st(E(s[j]) * x + y, y, "substitute", ctx, using="mean_zero").ok  # pattern over the index


@pytest.mark.parametrize(
    "lhs, rhs, using, why",
    [
        (x * sp.Sum(a[j], (j, 1, n)), 2 * x, "sum_a", "wrong result"),
        (x * sp.Sum(a[j], (j, 1, n - 1)), x, "sum_a", "different range: hypothesis does not apply"),
        (x * sp.Sum(a[j], (j, 1, n)), x, "not_declared", "undeclared hypothesis"),
        (x, x, "sum_a", "hypothesis does not occur"),
    ],
)
def test_substitute_rejects(lhs, rhs, using, why):
    assert st(lhs, rhs, "substitute", ctx, using=using).status is Level.FAIL, why


def _square_registry():
    reg = Registry()
    z = sp.Symbol("z", real=True)
    reg.add(Theorem(id="square_nonneg", title="", statement=Statement(0, z**2, "<="), source="extension"))
    reg.add(Theorem(id="double", title="", statement=Statement(2 * z, z + z), source="extension"))
    return reg, z


def test_apply_theorem_instantiates_and_records_use():
    reg, z = _square_registry()
    c1 = ProofContext(registry=reg)
    assert st(sp.S(0), (x + y) ** 2, "apply_theorem", c1, "<=", theorem="square_nonneg", mapping={z: x + y}).ok
    assert c1.used == {"square_nonneg"}


@pytest.mark.parametrize(
    "lhs, rhs, relation, args, why",
    [
        (sp.S(0), (x + y) ** 2, ">=", {"theorem": "square_nonneg", "mapping": "XY"}, "wrong direction"),
        (sp.S(0), x**3, "<=", {"theorem": "square_nonneg", "mapping": {"z": "x"}}, "not an instance"),
        (sp.S(0), (x + y) ** 2, "<=", {"theorem": "no_such", "mapping": {}}, "unknown theorem"),
        (sp.S(1), (x + y) ** 2, "<=", {"theorem": "square_nonneg", "mapping": "XY"}, "wrong left side"),
    ],
)
def test_apply_theorem_rejects(lhs, rhs, relation, args, why):
    reg, z = _square_registry()
    if args.get("mapping") == "XY":
        args = dict(args, mapping={z: x + y})
    elif args.get("mapping") == {"z": "x"}:
        args = dict(args, mapping={z: x})
    assert st(lhs, rhs, "apply_theorem", ProofContext(registry=reg), relation, **args).status is Level.FAIL, why


def test_apply_theorem_respects_symbol_assumptions():
    reg = Registry()
    k = sp.Symbol("k", integer=True, positive=True)
    reg.add(Theorem(id="pos", title="", statement=Statement(0, k, "<"), source="extension"))
    # x is merely real: instantiating a positive integer symbol with it is not allowed
    r = st(sp.S(0), x, "apply_theorem", ProofContext(registry=reg), "<", theorem="pos", mapping={k: x})
    assert r.status is Level.FAIL and ("positive" in r.reason or "integer" in r.reason)


def test_apply_theorem_rejects_cycles():
    reg, z = _square_registry()
    c1 = ProofContext(registry=reg, theorem_id="double")
    r = st(2 * x, x + x, "apply_theorem", c1, theorem="double", mapping={z: x})
    assert r.status is Level.FAIL and "circular" in r.reason
    c2 = ProofContext(registry=reg, theorem_id="other", stack=("double",))
    assert st(2 * x, x + x, "apply_theorem", c2, theorem="double", mapping={z: x}).status is Level.FAIL


def test_apply_theorem_checks_hypotheses_of_the_used_theorem():
    reg = Registry()
    reg.add(
        Theorem(
            id="needs_range",
            title="",
            statement=Statement(sp.Sum(a[j] * sp.KroneckerDelta(i, j), (j, 1, n)), a[i]),
            source="extension",
            hypotheses=(IndexRange("i_range", index=i, lower=1, upper=n),),
        )
    )
    lhs = sp.Sum(a[j] * sp.KroneckerDelta(i, j), (j, 1, n))
    without = ProofContext(registry=reg)
    assert st(lhs, a[i], "apply_theorem", without, theorem="needs_range").status is Level.FAIL
    with_range = ProofContext(registry=reg, hypotheses=(IndexRange("r", index=i, lower=1, upper=n),))
    assert st(lhs, a[i], "apply_theorem", with_range, theorem="needs_range").ok
