"""derivations.residual: the residual Jacobian, the LN / pre-norm / post-norm definitions, the experiment."""

import numpy as np
import pytest
import sympy as sp

import derivations.residual as res
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, Theorem, registry
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement

X, F, p, q, r, t = res.X, res.F, res.p, res.q, res.r, res.t
KD = sp.KroneckerDelta


@pytest.fixture(scope="module")
def checker():
    return Checker()


def test_residual_jacobian_proved_with_numeric_passing_and_no_instance(checker):
    # the statement is entrywise at arbitrary indices: no size occurs in it, so there is no instance to
    # derive (an explicit-matrix builder is another statement, which would not count)
    out = checker.check(registry.get("prenorm_residual_jacobian"))
    assert out.verdict is Verdict.PROVED, out.how
    assert out.levels["numeric"].status is Level.PASS, out.levels["numeric"].detail
    assert out.levels["instances"].status is Level.NA, out.levels["instances"].detail


@pytest.mark.parametrize("theorem_id", ["layer_norm", "prenorm_layer", "postnorm_layer"])
def test_definitions_carry_no_derivation_and_pass_their_instance_and_numeric_checks(checker, theorem_id):
    thm = registry.get(theorem_id)
    assert thm.kind == "definition" and thm.derivation is None
    out = checker.check(thm)
    assert out.verdict is Verdict.PROVED_FOR_INSTANCES, out.how
    assert out.levels["numeric"].status is Level.PASS, out.levels["numeric"].detail
    assert out.levels["instances"].status is Level.PASS, out.levels["instances"].detail


def test_prenorm_vs_postnorm_is_empirical_and_never_proved(checker):
    thm = registry.get("prenorm_vs_postnorm")
    assert thm.kind == "empirical" and thm.derivation is None
    out = checker.check(thm)
    assert out.verdict is Verdict.NUMERICALLY_CONSISTENT, out.how


def test_prenorm_last_layer_gradient_shrinks_with_depth_but_postnorm_does_not():
    pre = [np.mean([res.layer_gradient_norms("pre", L, width=32, batch=32, seed=s)["w2"][-1] for s in range(3)])
           for L in (2, 16)]
    post = [np.mean([res.layer_gradient_norms("post", L, width=32, batch=32, seed=s)["w2"][-1] for s in range(3)])
            for L in (2, 16)]
    assert pre[1] < 0.6 * pre[0]
    assert 0.67 < post[1] / post[0] < 1.5


def test_layer_norm_expansion_has_zero_mean_and_unit_variance_for_unit_gain():
    d = 3
    ln = [res._unroll(res.LayerNorm(X, 1, c, d, res.gamma, res.beta, res.eps).doit()) for c in range(1, d + 1)]
    vals = {X[1, 1]: 1, X[1, 2]: 2, X[1, 3]: 6, res.eps: 0}
    vals.update({res.gamma[c]: 1 for c in range(1, d + 1)})
    vals.update({res.beta[c]: 0 for c in range(1, d + 1)})
    out = [sp.nsimplify(e.xreplace(vals)) for e in ln]
    assert sp.simplify(sum(out)) == 0
    assert sp.simplify(sum(z**2 for z in out) / d) == 1


def _residual_jacobian_at(rows: int, cols: int) -> Statement:
    """The Jacobian of X + F(X) for an explicit rows x cols X and abstract F (one function per entry)."""
    xs = [sp.Symbol(f"X{i}{j}", real=True) for i in range(1, rows + 1) for j in range(1, cols + 1)]
    fs = sp.Matrix([sp.Function(f"F{i}{j}")(*xs) for i in range(1, rows + 1) for j in range(1, cols + 1)])
    x = sp.Matrix(xs)
    return Statement((x + fs).jacobian(xs), sp.eye(len(xs)) + fs.jacobian(xs))


def test_residual_jacobian_forgetting_the_identity_is_not_proved(checker):
    wrong = sp.Derivative(res.Sublayer(F, X, p, q), X[r, t])

    def proof():
        return Derivation(sp.Derivative(res._update, X[r, t])).eq(wrong, "differentiate")

    def instance(size):
        st = _residual_jacobian_at(*{1: (1, 1), 2: (1, 2)}[size])
        return Statement(st.lhs, st.rhs - sp.eye(st.rhs.shape[0]))

    thm = Theorem(id="false_residual_jacobian", title="false",
                  statement=Statement(sp.Derivative(res._update, X[r, t]), wrong),
                  source="extension", derivation=proof, instances=Instances(instance, (1, 2)))
    out = checker.check(thm)
    assert out.levels["symbolic"].status is Level.FAIL
    # undefined functions cannot be evaluated, so no counterexample: the verdict is "not proved"
    assert out.verdict < Verdict.PROVED_FOR_INSTANCES


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: res.Sublayer(sp.Integer(1), X, p, q), TypeError),
        (lambda: res.Sublayer(F, sp.Symbol("Y"), p, q), TypeError),
        (lambda: res.LayerNorm(X, p, q, -2, res.gamma, res.beta, res.eps), ValueError),
        (lambda: res.LayerNorm(X, p, q, 3, res.gamma, res.beta, sp.Integer(-1)), ValueError),
        (lambda: res.LayerNorm(sp.Lambda(r, X[r, r]), p, q, 3, res.gamma, res.beta, res.eps), TypeError),
        (lambda: res.layer_gradient_norms("mid", 2), ValueError),
        (lambda: res.layer_gradient_norms("pre", 0), ValueError),
        (lambda: res.layer_gradient_norms("pre", 2.5), ValueError),
    ],
)
def test_invalid_arguments_raise_clear_errors(call, error):
    with pytest.raises(error):
        call()
