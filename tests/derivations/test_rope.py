"""derivations.rope: the RoPE theorems are general (symbolic B), and plausible-looking wrong
statements or broken proofs do not reach ``proved``."""

import sympy as sp

import derivations.rope as R
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, Theorem
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from symattn.maths.rope import Bilinear, Inner, PairOf, PairPermutation, Rope, rope_matrix
from symattn.rules.algebra import equal
from tests.derivations.refutation import builder_fails, refuted


def _rope(pos, convention="interleaved"):
    return Rope(pos, R.B, R.base, convention)


def test_rope_theorems_keep_the_dimension_symbolic():
    checker = Checker()
    for thm in (R.rope_relative_logit, R.rope_orthogonal, R.rope_norm_preserving, R.rope_convention_permutation):
        assert R.B in thm.dimensions and R.B in thm.statement.free_symbols
        outcome = checker.check(thm)
        assert outcome.verdict is Verdict.PROVED, outcome.how
        assert outcome.levels["symbolic"].status is Level.PASS


def test_relative_logit_uses_the_2x2_lemma_and_carries_the_figure():
    outcome = Checker().check(R.rope_relative_logit)
    assert outcome.levels["symbolic"].data["used"] == ["rotation_compose"]
    assert "rope_logit_diagonals" in R.rope_relative_logit.figures


def test_relative_logit_literal_instance_with_symbolic_query_and_key():
    # the registered instance check uses the equivalent matrix identity; here the literal logit at d = 2
    q, k = sp.Matrix(sp.symbols("q0:2", real=True)), sp.Matrix(sp.symbols("k0:2", real=True))
    lhs = ((rope_matrix(2, R.p) * q).T * (rope_matrix(2, R.p2) * k))[0, 0]
    rhs = (q.T * rope_matrix(2, R.p2 - R.p) * k)[0, 0]
    assert equal(lhs, rhs)


def _wrong_direction_logit() -> Theorem:
    """<R_p q, R_p' k> = <q, R_(p - p') k>: the offset with the wrong sign, and a proof that
    copies the right one."""
    m = R.m

    def derivation():
        Rp, Rp2 = _rope(R.p), _rope(R.p2)
        per_block = Bilinear(PairOf(R.q, m), sp.MatMul(sp.Transpose(Rp.block(m)), Rp2.block(m)), PairOf(R.k, m))
        wrong = Bilinear(PairOf(R.q, m), _rope(R.p - R.p2).block(m), PairOf(R.k, m))
        return (
            Derivation(Inner(sp.MatMul(Rp, R.q), sp.MatMul(Rp2, R.k)))
            .eq(sp.Sum(per_block, (m, 0, R.B - 1)), "block_diagonal_product")
            .eq(sp.Sum(wrong, (m, 0, R.B - 1)), "apply_theorem", theorem="rotation_compose",
                mapping={R.alpha: Rp.block(m).angle, R.beta: Rp2.block(m).angle})
            .eq(Inner(R.q, sp.MatMul(_rope(R.p - R.p2), R.k)), "block_diagonal_product")
        )

    def instance(d):
        return Statement(rope_matrix(d, R.p).T * rope_matrix(d, R.p2), rope_matrix(d, R.p - R.p2))

    return Theorem(
        id="test_rope_logit_wrong_sign",
        title="wrong sign of the offset",
        statement=Statement(Inner(sp.MatMul(_rope(R.p), R.q), sp.MatMul(_rope(R.p2), R.k)),
                            Inner(R.q, sp.MatMul(_rope(R.p - R.p2), R.k))),
        source="extension",
        derivation=derivation,
        dimensions=(R.B,),
        instances=Instances(instance, (2, 4), label="d"),
    )


def test_wrong_sign_of_offset_is_refuted_not_proved():
    # the kernel may give up on the wrong step (fail or time limit); either way it is not a proof,
    # and the instance check finds the counterexample
    outcome = Checker(time_limit=3).check(_wrong_direction_logit())
    assert outcome.levels["symbolic"].status in (Level.FAIL, Level.UNDECIDED)
    assert builder_fails(outcome)
    assert refuted(outcome)


def test_reversed_conjugation_is_not_proved():
    """R^half = Pi^T R Pi is false for d >= 6 (Pi is not an involution there)."""
    Pi = PairPermutation(R.B)

    def derivation():
        return Derivation(_rope(R.p, "half")).eq(sp.MatMul(sp.Transpose(Pi), _rope(R.p), Pi), "block_diagonal_product")

    thm = Theorem(
        id="test_rope_conjugation_reversed",
        title="reversed conjugation",
        statement=Statement(_rope(R.p, "half"), sp.MatMul(sp.Transpose(Pi), _rope(R.p), Pi)),
        source="extension",
        derivation=derivation,
        dimensions=(R.B,),
        instances=Instances(
            lambda d: Statement(rope_matrix(d, R.p, convention="half"),
                                PairPermutation(d // 2).explicit().T * rope_matrix(d, R.p)
                                * PairPermutation(d // 2).explicit()),
            (2, 4, 6), label="d"),
    )
    outcome = Checker().check(thm)
    assert refuted(outcome), outcome.how


def test_broken_step_in_relative_logit_derivation_fails():
    good = R._rope_relative_logit_derivation()
    # step 2 claims the composed block is R(theta_m (p + p')) instead of R(theta_m (p' - p))
    bad_body = Bilinear(PairOf(R.q, R.m), _rope(R.p + R.p2).block(R.m), PairOf(R.k, R.m))
    broken = good.replaced(1, sp.Sum(bad_body, (R.m, 0, R.B - 1)))
    thm = Theorem(
        id="test_rope_broken_step",
        title="broken step",
        statement=R.rope_relative_logit.statement,
        source="extension",
        derivation=broken,
        dimensions=(R.B,),
    )
    outcome = Checker(time_limit=3).check(thm)
    assert outcome.levels["symbolic"].status in (Level.FAIL, Level.UNDECIDED)
    assert outcome.verdict is not Verdict.PROVED


def test_numeric_checks_pass_with_their_stated_tolerance():
    for thm in (R.rotation_compose, R.rope_relative_logit, R.rope_orthogonal, R.rope_norm_preserving,
                R.rope_at_zero_eq_identity, R.rope_convention_permutation):
        res = thm.numeric(3)
        assert res.ok and res.samples > 0 and res.max_error <= res.tolerance, (thm.id, res.describe())
