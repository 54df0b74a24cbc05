"""derivations.positional: the sinusoidal results are general and their plausible-but-wrong
variants (orientation, PE(0), dependence on p) are not proved."""

import sympy as sp

import derivations.positional as P
from symattn.engine.checker import Checker
from symattn.engine.theorem import Instances, NumericResult, Theorem
from symattn.engine.verdict import Level, Verdict
from symattn.language.derivation import Derivation
from symattn.language.statement import Statement
from symattn.maths.rope import Inner, PairOf, Rotation, SinusoidalEncoding, rotation, sinusoidal_vector
from tests.derivations.refutation import refuted


def test_sinusoidal_theorems_are_proved_for_symbolic_dimension():
    checker = Checker()
    for thm in (P.sinusoidal_shift_is_rotation, P.sinusoidal_at_zero, P.sinusoidal_dot_depends_on_offset):
        assert P.B in thm.dimensions
        outcome = checker.check(thm)
        assert outcome.verdict is Verdict.PROVED, outcome.how


def test_shift_matrix_is_free_of_p_and_is_the_clockwise_rotation():
    M = P.sinusoidal_shift_is_rotation.statement.rhs.args[0]
    assert P.p not in M.free_symbols
    assert P._seed_matrix(P.x) == rotation(-P.x)
    assert P._seed_matrix(P.x) != rotation(P.x)


def _counter_clockwise_shift() -> Theorem:
    """The tempting misreading: PE(p + D)_(m) = R(+omega D) PE(p)_(m) in the (sin, cos) order."""
    wd = sp.expand(P.omega * P.delta)

    def derivation():
        return Derivation(PairOf(P.PE(P.p + P.delta), P.m)).eq(
            sp.MatMul(Rotation(wd), PairOf(P.PE(P.p), P.m)), "trig_identity")

    def instance(d):
        b = d // 2
        blocks = [rotation(sp.expand(SinusoidalEncoding(P.p, b).frequency(j) * P.delta)) for j in range(b)]
        return Statement(sinusoidal_vector(d, P.p + P.delta),
                         sp.ImmutableMatrix(sp.diag(*blocks)) * sinusoidal_vector(d, P.p))

    return Theorem(
        id="test_sinusoidal_shift_counter_clockwise",
        title="wrong orientation",
        statement=Statement(PairOf(P.PE(P.p + P.delta), P.m), sp.MatMul(Rotation(wd), PairOf(P.PE(P.p), P.m))),
        source="extension",
        derivation=derivation,
        dimensions=(P.B,),
        instances=Instances(instance, (2, 4), label="d"),
    )


def test_counter_clockwise_reading_of_the_shift_is_refuted():
    outcome = Checker().check(_counter_clockwise_shift())
    assert outcome.levels["symbolic"].status is Level.FAIL
    assert refuted(outcome)


def test_pe_zero_with_sine_and_cosine_swapped_is_refuted():
    thm = Theorem(
        id="test_sinusoidal_zero_swapped",
        title="PE(0) = (1, 0, 1, 0, ...)",
        statement=Statement(PairOf(P.PE(0), P.m), sp.ImmutableMatrix([1, 0])),
        source="extension",
        derivation=lambda: Derivation(PairOf(P.PE(0), P.m)).eq(sp.ImmutableMatrix([1, 0]), "definition", name="pair"),
        dimensions=(P.B,),
        instances=Instances(lambda d: Statement(sinusoidal_vector(d, 0), sp.ImmutableMatrix([1, 0] * (d // 2))), (2, 4),
                            label="d"),
    )
    outcome = Checker().check(thm)
    assert refuted(outcome)


def test_dot_product_claimed_to_depend_on_p_is_not_proved():
    """<PE(p), PE(p + D)> = sum_m cos(omega_m (2p + D)) -- plausible-looking, false."""
    w = P.omega
    wrong = sp.Sum(sp.cos(sp.expand(w * (2 * P.p + P.delta))), (P.m, 0, P.B - 1))

    def derivation():
        good = P._dot_derivation()
        return good.replaced(len(good.steps) - 1, wrong)

    def numeric(seed):
        import numpy as np

        rng = np.random.default_rng(seed)
        d, worst = 8, 0.0
        f_lhs = sp.lambdify((P.p, P.delta), (sinusoidal_vector(d, P.p).T * sinusoidal_vector(d, P.p + P.delta))[0, 0])
        f_rhs = sp.lambdify((P.p, P.delta), sum(sp.cos(SinusoidalEncoding(P.p, 4).frequency(j) * (2 * P.p + P.delta))
                                                 for j in range(4)))
        for _ in range(20):
            a, b = rng.uniform(-10, 10, size=2)
            worst = max(worst, abs(f_lhs(a, b) - f_rhs(a, b)))
        return NumericResult(worst <= 1e-9, 20, seed, worst, 1e-9)

    thm = Theorem(
        id="test_sinusoidal_dot_depends_on_p",
        title="wrong dot product",
        statement=Statement(Inner(P.PE(P.p), P.PE(P.p + P.delta)), wrong),
        source="extension",
        derivation=derivation,
        dimensions=(P.B,),
        numeric=numeric,
    )
    outcome = Checker().check(thm)
    assert outcome.levels["symbolic"].status is Level.FAIL
    assert refuted(outcome)


def test_numeric_checks_pass_with_their_stated_tolerance():
    for thm in (P.sinusoidal_shift_is_rotation, P.shift_matrix_eq_rotation_neg, P.sinusoidal_at_zero,
                P.sinusoidal_dot_depends_on_offset):
        res = thm.numeric(5)
        assert res.ok and res.samples > 0 and res.max_error <= res.tolerance, (thm.id, res.describe())
