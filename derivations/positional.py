r"""Sinusoidal positional encoding: a shift of position is a rotation of each frequency pair
==========================================================================================

The original transformer adds to the token at position :math:`p` the vector
:math:`\mathrm{PE}(p)_{2m} = \sin(\omega_m p)`, :math:`\mathrm{PE}(p)_{2m+1} = \cos(\omega_m p)`,
:math:`\omega_m = 10000^{-2m/d}`, ``m = 0, ..., d/2 - 1``. All results hold for symbolic
``p``, :math:`\Delta`, ``m`` and even dimension ``d = 2B``.

Main results
------------
* ``sinusoidal_shift_is_rotation``: :math:`\mathrm{PE}(p+\Delta)_{(m)} =
  \begin{pmatrix}\cos\omega_m\Delta & \sin\omega_m\Delta\\ -\sin\omega_m\Delta & \cos\omega_m\Delta\end{pmatrix}
  \mathrm{PE}(p)_{(m)}`, the seed's matrix, independent of ``p``.
* ``shift_matrix_eq_rotation_neg``: that matrix is :math:`R(-x)`, the *clockwise* rotation by
  :math:`x` (in the (sin, cos) ordering of the pair).
* ``sinusoidal_at_zero``: :math:`\mathrm{PE}(0)_{(m)} = (0, 1)`: every sine is 0, every cosine 1.
* ``sinusoidal_dot_depends_on_offset``: :math:`\langle \mathrm{PE}(p), \mathrm{PE}(p+\Delta)\rangle
  = \sum_{m=0}^{B-1} \cos(\omega_m \Delta)`, independent of ``p``.

Notation
--------
:math:`v_{(m)} = (v_{2m}, v_{2m+1})` is the frequency pair ``m`` of a vector; indices are 0-based.

References
----------
* Seed 000 (``000_ccf06b253f58a07c.txt``), Definition "Sinusoidal positional encoding".
* Seed 004 (``004_b987b516506401e6.txt``), "Positional Encoding".
* Vaswani et al., "Attention Is All You Need", 2017, section 3.5.

Tags: positional encoding, sinusoidal, relative position, rotation
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from numeric.rope import sinusoidal_encoding as sinusoidal_numeric
from symattn.engine.theorem import NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, IndexRange, Statement
from symattn.maths.rope import Inner, PairOf, Rotation, SinusoidalEncoding, rotation, sinusoidal_vector

SEED0 = "000_ccf06b253f58a07c.txt, Definition 'Sinusoidal positional encoding'"
SEED4 = "004_b987b516506401e6.txt, 'Positional Encoding'"

B = sp.Symbol("B", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
p, delta, x = sp.symbols("p Delta x", real=True)

_DIMENSION = Assumption("d_even", condition=sp.Q.integer(B) & sp.Q.positive(B), text="d = 2B, B a positive integer")
_REAL = Assumption("positions_real", text=r"$p$ and $\Delta$ are real (the identities do not need integer positions)")
_PAIR = IndexRange("m_range", index=m, lower=0, upper=B - 1)


def PE(pos) -> SinusoidalEncoding:
    """The encoding of position ``pos`` in dimension ``2B`` (base 10000, as in both seeds)."""
    return SinusoidalEncoding(pos, B)


omega = PE(p).frequency(m)  # 10000^(-2m/d) = 10000^(-m/B)


def _seed_matrix(angle) -> sp.ImmutableMatrix:
    """The matrix of seed 000: [[cos a, sin a], [-sin a, cos a]]."""
    return sp.ImmutableMatrix([[sp.cos(angle), sp.sin(angle)], [-sp.sin(angle), sp.cos(angle)]])


def _block_diag(blocks) -> sp.ImmutableMatrix:
    return sp.ImmutableMatrix(sp.diag(*blocks))


def _max_abs(a) -> float:
    return float(np.max(np.abs(a))) if np.size(a) else 0.0


# ============================================================================= shift = rotation
def _shift_derivation() -> Derivation:
    wp, wd = sp.expand(omega * p), sp.expand(omega * delta)
    return (
        Derivation(PairOf(PE(p + delta), m))
        .eq(sp.ImmutableMatrix([sp.sin(wp + wd), sp.cos(wp + wd)]), "definition", name="pair",
            note=r"$PE(p + \Delta)_{2m} = \sin(\omega_m (p + \Delta))$, $PE(p + \Delta)_{2m+1} = \cos(\omega_m (p + "
                 r"\Delta))$")
        .eq(sp.ImmutableMatrix([sp.sin(wp) * sp.cos(wd) + sp.cos(wp) * sp.sin(wd),
                                sp.cos(wp) * sp.cos(wd) - sp.sin(wp) * sp.sin(wd)]), "trig_identity",
            note="sin(a + b) = sin a cos b + cos a sin b, cos(a + b) = cos a cos b - sin a sin b")
        .eq(sp.MatMul(_seed_matrix(wd), sp.ImmutableMatrix([sp.sin(wp), sp.cos(wp)])), "algebra",
            note=r"read the right side as a matrix times the vector $(\sin \omega_m p, \cos \omega_m p)$")
        .eq(sp.MatMul(_seed_matrix(wd), PairOf(PE(p), m)), "definition", name="pair",
            note="fold the pair m of PE(p)")
    )


def _shift_instance(d: int) -> Statement:
    """All pairs at once: PE(p + Delta) = diag_m(M(omega_m Delta)) PE(p) at size d."""
    b = d // 2
    blocks = [_seed_matrix(sp.expand(SinusoidalEncoding(p, b).frequency(j) * delta)) for j in range(b)]
    return Statement(sinusoidal_vector(d, p + delta), _block_diag(blocks) * sinusoidal_vector(d, p))


def _shift_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    # integer positions: numeric.rope.sinusoidal_encoding (an independent implementation)
    for d in (2, 8, 64, 512):
        table = sinusoidal_numeric(300, d)  # (300, d)
        w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
        for _ in range(20):
            pos, shift = rng.integers(0, 150, size=2)
            c, s = np.cos(w * shift), np.sin(w * shift)  # (d/2,)
            pred_sin = c * table[pos, 0::2] + s * table[pos, 1::2]
            pred_cos = -s * table[pos, 0::2] + c * table[pos, 1::2]
            worst = max(worst, _max_abs(pred_sin - table[pos + shift, 0::2]),
                        _max_abs(pred_cos - table[pos + shift, 1::2]))
            samples += 1
    # real positions: the symbolic statement lambdified at d = 6
    st = _shift_instance(6)
    f = sp.lambdify((p, delta), st.lhs - st.rhs, "numpy")
    for _ in range(50):
        worst = max(worst, _max_abs(np.asarray(f(*rng.uniform(-100, 100, size=2)), dtype=float)))
        samples += 1
    tol = 1e-10
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "PE(p + Delta) vs M(omega Delta) PE(p) per pair: numeric.rope table (integer p, Delta) "
                         "and the lambdified statement at d = 6 (real p, Delta)")


sinusoidal_shift_is_rotation = register(
    Theorem(
        id="sinusoidal_shift_is_rotation",
        claim=r"For all real $p, \Delta$ and every pair $m$, the sinusoidal pair at $p + \Delta$ is a fixed rotation "
              r"(by $\omega_m \Delta$) of the pair at $p$.",
        title=r"Shifting the position by $\Delta$ acts on each sinusoidal pair by a fixed rotation",
        statement=Statement(PairOf(PE(p + delta), m),
                            sp.MatMul(_seed_matrix(sp.expand(omega * delta)), PairOf(PE(p), m))),
        source=f"{SEED0} (the displayed shift identity); {SEED4}",
        kind="theorem",
        hypotheses=(_DIMENSION, _REAL, _PAIR),
        derivation=_shift_derivation,
        dimensions=(B,),
        numeric=_shift_numeric,
        plain=(
            r"Take the two coordinates of the positional encoding that share a frequency $\omega_m$: "
            r"$(\sin \omega_m p, \cos \omega_m p)$. Moving to position $p + \Delta$ multiplies this pair by the matrix "
            r"$\begin{pmatrix} \cos \omega_m \Delta & \sin \omega_m \Delta \\ -\sin \omega_m \Delta & \cos \omega_m "
            r"\Delta \end{pmatrix}$, which depends "
            "on the shift Delta but not on p. So a fixed linear map can move any encoding by Delta positions."
        ),
        notes=(
            "The seed's matrix is correct as printed, for the (sin, cos) ordering of the pair. It is the "
            r"rotation by $-\omega_m \Delta$ (clockwise; see shift_matrix_eq_rotation_neg), not by $+\omega_m \Delta$: "
            r"in the $(\cos, \sin)$ ordering the same shift is the counter-clockwise $R(\omega_m \Delta)$. The seed's "
            "conclusion 'relative position is linearly available to the model' means only that such a map "
            "exists for each Delta (a different map per Delta and per frequency); it does not say a model "
            "learns or uses it. The identity holds for any real p and Delta, not only integers, and for any "
            r"frequencies; $\omega_m = 10000^{-2m/d}$ is the seeds' choice."
        ),
    )
)


def _shift_matrix_derivation() -> Derivation:
    return (
        Derivation(_seed_matrix(x))
        .eq(rotation(-x), "algebra", note="cos(-x) = cos x, sin(-x) = -sin x")
        .eq(Rotation(-x), "definition", name="rotation", note="the counter-clockwise rotation by -x")
    )


def _shift_matrix_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    t = rng.uniform(-10, 10, size=100)
    seed_m = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])  # (2, 2, 100)
    rot = np.array([[np.cos(-t), -np.sin(-t)], [np.sin(-t), np.cos(-t)]])
    worst = _max_abs(seed_m - rot)
    # orientation: the seed's matrix turns (1, 0) clockwise for small x > 0
    ccw = np.array([[np.cos(0.1), np.sin(0.1)], [-np.sin(0.1), np.cos(0.1)]]) @ np.array([1.0, 0.0])
    ok = worst <= 1e-15 and ccw[1] < 0
    return NumericResult(ok, 100, seed, worst, 1e-15, "seed matrix vs R(-x); (1, 0) is turned clockwise")


shift_matrix_eq_rotation_neg = register(
    Theorem(
        id="shift_matrix_eq_rotation_neg",
        claim=r"For every real $x$, the seed's shift matrix $\begin{pmatrix} \cos x & \sin x \\ -\sin x & \cos x "
              r"\end{pmatrix}$ equals $R(-x)$.",
        title=r"The seed's shift matrix is the clockwise rotation: $\begin{pmatrix} \cos x & \sin x \\ -\sin x & \cos "
              r"x \end{pmatrix} = R(-x)$",
        statement=Statement(_seed_matrix(x), Rotation(-x)),
        source=f"{SEED0} (orientation of the displayed matrix)",
        kind="theorem",
        hypotheses=(Assumption("x_real", text="x is a real angle"),),
        derivation=_shift_matrix_derivation,
        numeric=_shift_matrix_numeric,
        plain=(
            r"The matrix in the seed's shift identity, $\begin{pmatrix} \cos x & \sin x \\ -\sin x & \cos x "
            r"\end{pmatrix}$, is a rotation by $-x$: "
            "it turns the plane clockwise. With $R(t)$ the counter-clockwise rotation used for RoPE, it is $R(-x)$."
        ),
    )
)


# ============================================================================= PE(0)
def _at_zero_derivation() -> Derivation:
    return (
        Derivation(PairOf(PE(0), m))
        .eq(sp.ImmutableMatrix([sp.sin(0 * omega, evaluate=False), sp.cos(0 * omega, evaluate=False)]), "definition",
            name="pair",
            note="PE(0)_(2m) = sin(0), PE(0)_(2m+1) = cos(0)")
        .eq(sp.ImmutableMatrix([0, 1]), "algebra", note="sin 0 = 0, cos 0 = 1")
    )


def _at_zero_numeric(seed: int) -> NumericResult:
    worst, samples = 0.0, 0
    for d in range(2, 514, 2):
        row = sinusoidal_numeric(1, d)[0]
        worst = max(worst, _max_abs(row - np.tile([0.0, 1.0], d // 2)))
        samples += 1
    return NumericResult(worst == 0.0, samples, seed, worst, 0.0,
                         "numeric.rope.sinusoidal_encoding(1, d)[0] == (0, 1, ..., 0, 1) for every even d <= 512")


sinusoidal_at_zero = register(
    Theorem(
        id="sinusoidal_at_zero",
        claim=r"At position $0$, every sinusoidal pair is $(\sin 0, \cos 0) = (0, 1)$.",
        title=r"At position $0$ every sine component is $0$ and every cosine component is $1$",
        statement=Statement(PairOf(PE(0), m), sp.ImmutableMatrix([0, 1])),
        source=f"{SEED4} ('For position 0, every sine component is 0 and every cosine component is 1'); {SEED0}",
        kind="theorem",
        hypotheses=(_DIMENSION, _PAIR),
        derivation=_at_zero_derivation,
        dimensions=(B,),
        numeric=_at_zero_numeric,
        plain=r"The encoding of the first position is $(0, 1, 0, 1, \dots)$: $\sin 0 = 0$ in the even slots, $\cos 0 = "
              r"1$ in the odd ones.",
        notes=(
            "Seed 004's formula is indexed by position 'pos' starting at 0; with 1-based positions the first "
            "token would get sin(1), cos(1), ... instead. PE(0) is not the zero vector: the first token's "
            r"embedding is shifted by the constant $(0, 1, 0, 1, \dots)$, of norm $\sqrt{d/2}$."
        ),
    )
)


# ============================================================================= <PE(p), PE(p + Delta)>
def _dot_derivation() -> Derivation:
    wp, wd = sp.expand(omega * p), sp.expand(omega * delta)
    pair_p = sp.ImmutableMatrix([sp.sin(wp), sp.cos(wp)])
    pair_q = sp.ImmutableMatrix([sp.sin(wp + wd), sp.cos(wp + wd)])
    return (
        Derivation(Inner(PE(p), PE(p + delta)))
        .eq(sp.Sum(Inner(PairOf(PE(p), m), PairOf(PE(p + delta), m)), (m, 0, B - 1)), "block_diagonal_product",
            note=r"an inner product in $\mathbb{R}^{2B}$ is the sum of the inner products of the $B$ pairs")
        .eq(sp.Sum(Inner(pair_p, pair_q), (m, 0, B - 1)), "definition", name="pair", note="write out the pairs")
        .eq(sp.Sum(sp.sin(wp) * sp.sin(wp + wd) + sp.cos(wp) * sp.cos(wp + wd), (m, 0, B - 1)), "definition",
            name="inner", note="<(a, b), (c, e)> = a c + b e")
        .eq(sp.Sum(sp.cos(wd), (m, 0, B - 1)), "trig_identity",
            note="cos(a) cos(a + b) + sin(a) sin(a + b) = cos(b)")
    )


def _dot_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    for d in (2, 8, 64, 512):
        table = sinusoidal_numeric(400, d)  # (400, d)
        w = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
        for _ in range(20):
            pos, shift = rng.integers(0, 200, size=2)
            worst = max(worst, abs(float(table[pos] @ table[pos + shift]) - float(np.cos(w * shift).sum())))
            samples += 1
    tol = 1e-9
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "<PE(p), PE(p + Delta)> vs sum_m cos(omega_m Delta) with numeric.rope's table")


sinusoidal_dot_depends_on_offset = register(
    Theorem(
        id="sinusoidal_dot_depends_on_offset",
        claim=r"For all real $p, \Delta$, $\langle PE(p), PE(p + \Delta)\rangle = \sum_{m=0}^{B-1} \cos(\omega_m "
              r"\Delta)$, which does not depend on $p$.",
        title=r"$\langle PE(p), PE(p + \Delta)\rangle = \sum_m \cos(\omega_m \Delta)$: the similarity of two encodings "
              r"depends only on their offset",
        statement=Statement(Inner(PE(p), PE(p + delta)), sp.Sum(sp.cos(sp.expand(omega * delta)), (m, 0, B - 1))),
        source=f"extension (a classical consequence of {SEED0})",
        kind="theorem",
        hypotheses=(_DIMENSION, _REAL),
        derivation=_dot_derivation,
        dimensions=(B,),
        numeric=_dot_numeric,
        plain=(
            "The dot product of the encodings of positions p and p + Delta is the sum over frequencies of "
            r"$\cos(\omega_m \Delta)$. It does not depend on $p$: two positions are exactly as similar as any other "
            "two positions the same distance apart. It is symmetric in Delta and largest (d/2) at Delta = 0."
        ),
        notes=(
            r"This is about the encodings alone. Attention logits compare $W_Q (x_p + PE(p))$ with "
            r"$W_K (x_{p'} + PE(p'))$, which mixes the encodings with the token embeddings and with $W_Q^\top W_K$, so "
            "the logit of a sinusoidally encoded model is not a function of p' - p in general -- the contrast "
            "seed 000 draws with RoPE."
        ),
    )
)
