r"""Rotary position embeddings: the logit depends on positions only through their offset
====================================================================================

RoPE rotates the pair ``m`` of a query at position :math:`p` by the angle :math:`\theta_m p`
(:math:`\theta_m = b^{-2m/d}`, ``b = 10000`` in RoFormer), and the key at :math:`p'` by
:math:`\theta_m p'`. Because rotations of the plane compose by adding angles, the logit
:math:`\langle R_p q, R_{p'} k\rangle` equals :math:`\langle q, R_{p'-p} k\rangle`. The proofs
here hold for a *symbolic* even dimension :math:`d = 2B`: the ``2 x 2`` lemma is lifted to
:math:`\mathbb{R}^{2B}` by the ``block_diagonal_product`` rule.

Main results
------------
* ``rotation_compose``: :math:`R(\alpha)^\top R(\beta) = R(\beta - \alpha)` for the
  counter-clockwise rotation :math:`R(t) = \begin{pmatrix}\cos t & -\sin t\\ \sin t & \cos t\end{pmatrix}`.
* ``rope_relative_logit``: :math:`\langle R_p q, R_{p'} k\rangle = \langle q, R_{p'-p} k\rangle`
  for symbolic ``d = 2B``, ``p``, ``p'`` and base ``b``.
* ``rope_orthogonal``: :math:`R_p^\top R_p = I_d`.
* ``rope_norm_preserving``: :math:`\langle R_p q, R_p q\rangle = \langle q, q\rangle`.
* ``rope_at_zero_eq_identity``: :math:`R_0 = I_d`.
* ``rope_convention_permutation``: :math:`R^{\mathrm{half}}_p = \Pi R_p \Pi^\top`, where
  :math:`(\Pi x)_i = x_{c(i)}`, :math:`c = (0, 2, \dots, d-2, 1, 3, \dots, d-1)`: the
  ``rotate_half`` layout (pairs ``(m, m + d/2)``) is the interleaved one (pairs ``(2m, 2m+1)``)
  with the coordinates permuted.

Notation
--------
``B`` pairs, ``d = 2B``; coordinates are 0-based; :math:`v_{(m)}` is the pair of coordinates of
block ``m`` of a vector ``v``; :math:`R_p` without a tag is the interleaved layout.

References
----------
* Seed 000 (``000_ccf06b253f58a07c.txt``), Proposition "Rotary embeddings make the logit depend
  only on relative position".
* Su, Lu, Pan, Murtadha, Wen, Liu, "RoFormer: Enhanced Transformer with Rotary Position
  Embedding", 2021, eqs. (13)-(16).

Tags: rotary embedding, RoPE, relative position, rotation, block-diagonal, permutation
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from numeric.rope import rope as rope_numeric
from numeric.rope import rope_permutation as rope_permutation_numeric
from symattn.engine.theorem import NumericResult, Theorem, register
from symattn.language.derivation import Derivation
from symattn.language.statement import Assumption, IndexRange, Statement
from symattn.maths.rope import (
    Bilinear,
    Inner,
    PairBlockDiagonal,
    PairOf,
    PairPermutation,
    Rope,
    Rotation,
    rope_matrix,
    rope_permutation,
    rotation,
)

SEED = "000_ccf06b253f58a07c.txt"
PROPOSITION = f"{SEED}, Proposition 'Rotary embeddings make the logit depend only on relative position'"

alpha, beta = sp.symbols("alpha beta", real=True)
B = sp.Symbol("B", integer=True, positive=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
p, p2 = sp.symbols("p p'", real=True)
base = sp.Symbol("b", positive=True)
q = sp.MatrixSymbol("q", 2 * B, 1)
k = sp.MatrixSymbol("k", 2 * B, 1)

_DIMENSION = Assumption("d_even", condition=sp.Q.integer(B) & sp.Q.positive(B), text="d = 2B, B a positive integer")
_POSITIONS = Assumption("positions_real", text="p, p' are real positions (not necessarily integers)")
_BASE = Assumption("base_positive", condition=sp.Q.positive(base),
                   text=r"$\theta_m = b^{-2m/d}$ with base $b > 0$ ($b = 10000$ in RoFormer)")
_BLOCK = IndexRange("m_range", index=m, lower=0, upper=B - 1)


def _mm(*factors):
    """An unevaluated matrix product (``*`` would call ``doit`` and expand the rotations)."""
    return sp.MatMul(*factors)


# ============================================================================= rotation_compose
def _rotation_compose_derivation() -> Derivation:
    Ra, Rb = rotation(alpha), rotation(beta)
    product = sp.ImmutableMatrix(
        [
            [sp.cos(alpha) * sp.cos(beta) + sp.sin(alpha) * sp.sin(beta),
             -sp.cos(alpha) * sp.sin(beta) + sp.sin(alpha) * sp.cos(beta)],
            [-sp.sin(alpha) * sp.cos(beta) + sp.cos(alpha) * sp.sin(beta),
             sp.sin(alpha) * sp.sin(beta) + sp.cos(alpha) * sp.cos(beta)],
        ]
    )
    return (
        Derivation(_mm(sp.Transpose(Rotation(alpha)), Rotation(beta)))
        .eq(_mm(Ra.T, Rb), "definition", name="rotation", note="write out both rotations")
        .eq(product, "algebra", note="multiply the 2x2 matrices")
        .eq(rotation(beta - alpha), "trig_identity",
            note="cos(b - a) = cos a cos b + sin a sin b, sin(b - a) = sin b cos a - cos b sin a")
        .eq(Rotation(beta - alpha), "definition", name="rotation", note="fold the rotation by b - a")
    )


def _np_rotation(t: float) -> np.ndarray:
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def _rotation_compose_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 200
    for _ in range(trials):
        a, b_ = rng.uniform(-50, 50, size=2)
        err = np.abs(_np_rotation(a).T @ _np_rotation(b_) - _np_rotation(b_ - a)).max()
        worst = max(worst, float(err))
    tol = 1e-12
    return NumericResult(worst <= tol, trials, seed, worst, tol,
                         "R(a)^T R(b) vs R(b - a) in float64, angles uniform in [-50, 50]")


rotation_compose = register(
    Theorem(
        id="rotation_compose",
        claim=r"For all real angles $\alpha, \beta$, $R(\alpha)^\top R(\beta) = R(\beta - \alpha)$.",
        title=r"Rotations of the plane compose by subtracting angles: $R(\alpha)^\top R(\beta) = R(\beta - \alpha)$",
        statement=Statement(_mm(sp.Transpose(Rotation(alpha)), Rotation(beta)), Rotation(beta - alpha)),
        source=f"{PROPOSITION} (the 2x2 lemma used in its proof); RoFormer eq. (16)",
        kind="theorem",
        hypotheses=(Assumption("angles_real", condition=sp.Q.real(alpha) & sp.Q.real(beta),
                               text="alpha, beta are real angles"),),
        derivation=_rotation_compose_derivation,
        numeric=_rotation_compose_numeric,
        plain=(
            "Rotating the plane back by an angle a and then forward by b is the same as rotating by b - a. "
            r"Here $R(t)$ turns vectors counter-clockwise: $R(t) = \begin{pmatrix} \cos t & -\sin t \\ \sin t & \cos t "
            r"\end{pmatrix}$, so "
            "R(pi/2) sends (1, 0) to (0, 1). The transpose of a rotation is the rotation by the opposite angle."
        ),
        notes=(
            r"The seed uses $R_p$ without fixing its orientation; with the clockwise convention "
            r"$R(t) = \begin{pmatrix} \cos t & \sin t \\ -\sin t & \cos t \end{pmatrix}$ the same identity holds (both "
            "are rotation groups), so the proposition does not depend on the choice, but the sign of p' - p does "
            r"depend on which vector is rotated back: $R_p^\top R_{p'} = R_{p'-p}$, not $R_{p-p'}$."
        ),
    )
)


# ============================================================================= rope_relative_logit
def _rope(pos, convention="interleaved"):
    return Rope(pos, B, base, convention)


def _rope_relative_logit_derivation() -> Derivation:
    Rp, Rp2 = _rope(p), _rope(p2)
    per_block = Bilinear(PairOf(q, m), _mm(sp.Transpose(Rp.block(m)), Rp2.block(m)), PairOf(k, m))
    composed = Bilinear(PairOf(q, m), _rope(p2 - p).block(m), PairOf(k, m))
    a, b_ = Rp.block(m).angle, Rp2.block(m).angle
    return (
        Derivation(Inner(_mm(Rp, q), _mm(Rp2, k)))
        .eq(sp.Sum(per_block, (m, 0, B - 1)), "block_diagonal_product",
            note=r"$R_p$ and $R_{p'}$ are block diagonal on the pairs $(2m, 2m+1)$: the inner product is a sum over "
                 r"blocks")
        .eq(sp.Sum(composed, (m, 0, B - 1)), "apply_theorem", theorem="rotation_compose",
            mapping={alpha: a, beta: b_},
            note=r"in each block $R(\theta_m p)^\top R(\theta_m p') = R(\theta_m (p' - p))$")
        .eq(Inner(q, _mm(_rope(p2 - p), k)), "block_diagonal_product",
            note=r"reassemble the blocks: $R(\theta_m (p' - p))$ is block $m$ of $R_{p'-p}$")
    )


def _vector(name: str, d: int) -> sp.ImmutableMatrix:
    return sp.ImmutableMatrix(sp.symbols(f"{name}0:{d}", real=True))


def _rope_relative_logit_numeric(seed: int) -> NumericResult:
    """numeric.rope (written independently, as the formula reads) checks the identity in float64."""
    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    for d in (2, 4, 8, 16, 64, 128):
        for convention in ("interleaved", "half"):
            for _ in range(20):
                qv, kv = rng.standard_normal(d), rng.standard_normal(d)
                pos, pos2 = rng.uniform(-2000, 2000, size=2)
                lhs = rope_numeric(qv[None], np.array([pos]), convention=convention)[0] @ rope_numeric(
                    kv[None], np.array([pos2]), convention=convention)[0]
                rhs = qv @ rope_numeric(kv[None], np.array([pos2 - pos]), convention=convention)[0]
                scale = np.linalg.norm(qv) * np.linalg.norm(kv)
                worst = max(worst, abs(lhs - rhs) / scale)
                samples += 1
    tol = 1e-9  # angles up to 4000 rad: cos/sin of large arguments lose ~1e-13 relative
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "<rope(q, p), rope(k, p')> vs <q, rope(k, p' - p)> (numeric.rope, both layouts), "
                         "error relative to |q||k|; d in {2, ..., 128}, positions in [-2000, 2000]")


rope_relative_logit = register(
    Theorem(
        id="rope_relative_logit",
        claim=r"For all real positions $p, p'$ and all $q, k \in \mathbb{R}^{2B}$, $\langle R_p q, R_{p'} k\rangle = "
              r"\langle q, R_{p'-p} k\rangle$.",
        title=r"RoPE makes the logit a function of the offset: $\langle R_p q, R_{p'} k\rangle = \langle q, R_{p'-p} "
              r"k\rangle$",
        statement=Statement(Inner(_mm(_rope(p), q), _mm(_rope(p2), k)), Inner(q, _mm(_rope(p2 - p), k))),
        source=f"{PROPOSITION}; RoFormer (Su et al. 2021) eq. (16)",
        kind="theorem",
        hypotheses=(_DIMENSION, _POSITIONS, _BASE, _BLOCK),
        derivation=_rope_relative_logit_derivation,
        dimensions=(B,),
        numeric=_rope_relative_logit_numeric,
        plain=(
            "Rotary embeddings turn each pair of coordinates $(2m, 2m+1)$ of the query at position $p$ by the "
            r"angle $\theta_m p$, and those of the key at position $p'$ by $\theta_m p'$. The dot product of the two "
            "rotated vectors equals the dot product of the unrotated query with the key rotated by "
            r"$\theta_m (p' - p)$: only the distance $p' - p$ between the positions enters. This holds in every "
            r"even dimension $d$, for any base $b$ of the frequencies $\theta_m = b^{-2m/d}$, and for real positions."
        ),
        notes=(
            "The seed concludes that 'the attention logit depends on p and p' only through p' - p'. That is "
            r"exact for FIXED vectors $q$ and $k$. In a model the query $q_p$ and key $k_{p'}$ are themselves computed "
            "from the tokens at p and p' (and, after the first layer, from their context), so the logit "
            "depends on the positions through p' - p AND through the content there; what RoPE guarantees is "
            "that shifting both positions by the same amount with the same vectors leaves the logit unchanged. "
            "The seed's 'the construction extends to unseen positions' is a statement that the formula is "
            r"defined for any $p$ (the angles $\theta_m p$ exist for every real $p$); it is not a claim -- and nothing "
            "here shows -- that a model trained on short contexts generalises to longer ones. The seed does "
            r"not define $\theta_m$; we use RoFormer's $\theta_m = b^{-2m/d}$, $m = 0, \dots, d/2-1$, though the "
            "identity holds for any real frequencies. The seed's pairs $(2m, 2m+1)$ are the interleaved layout; see "
            r"rope_convention_permutation for the `rotate_half` layout."
        ),
        figures=("rope_logit_diagonals",),
    )
)


# ============================================================================= rope_orthogonal
def _rope_orthogonal_derivation() -> Derivation:
    Rp = _rope(p)
    blockwise = PairBlockDiagonal(sp.Lambda(m, _mm(sp.Transpose(Rp.block(m)), Rp.block(m))), B)
    a = Rp.block(m).angle
    return (
        Derivation(_mm(sp.Transpose(Rp), Rp))
        .eq(blockwise, "block_diagonal_product", note="a product of block-diagonal matrices is block diagonal")
        .eq(PairBlockDiagonal(sp.Lambda(m, Rotation(0)), B), "apply_theorem", theorem="rotation_compose",
            mapping={alpha: a, beta: a}, note=r"$R(t)^\top R(t) = R(t - t) = R(0)$ in each block")
        .eq(PairBlockDiagonal(sp.Lambda(m, sp.Identity(2)), B), "block_diagonal_product",
            note=r"$R(0) = I_2$ ($\cos 0 = 1$, $\sin 0 = 0$)")
        .eq(sp.Identity(2 * B), "block_diagonal_product", note="identity blocks make the identity")
    )


def _rope_orthogonal_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    for d in (2, 4, 8, 16, 64):
        f = sp.lambdify(p, rope_matrix(d, p), "numpy")
        for _ in range(20):
            R = np.asarray(f(rng.uniform(-1000, 1000)), dtype=float)
            worst = max(worst, float(np.abs(R.T @ R - np.eye(d)).max()))
            samples += 1
    tol = 1e-12
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "max |R_p^T R_p - I| (rope_matrix lambdified, base 10000)")


rope_orthogonal = register(
    Theorem(
        id="rope_orthogonal",
        claim=r"For every real position $p$, $R_p^\top R_p = I$.",
        title=r"The RoPE matrix is orthogonal: $R_p^\top R_p = I$",
        statement=Statement(_mm(sp.Transpose(_rope(p)), _rope(p)), sp.Identity(2 * B)),
        source=f"{PROPOSITION} ($R_p$ is 'the block-diagonal rotation'); RoFormer section 3.4.2",
        kind="theorem",
        hypotheses=(_DIMENSION, _POSITIONS, _BASE, _BLOCK),
        derivation=_rope_orthogonal_derivation,
        dimensions=(B,),
        numeric=_rope_orthogonal_numeric,
        plain=(
            "Each 2x2 block of the RoPE matrix is a rotation, and a rotation undone by its transpose gives "
            r"the identity; so $R_p^\top R_p$ is the identity in every even dimension. RoPE never stretches or "
            "shrinks a query or key, it only turns it."
        ),
    )
)


def _rope_norm_derivation() -> Derivation:
    Rp = _rope(p)
    return (
        Derivation(Inner(_mm(Rp, q), _mm(Rp, q)))
        .eq(Bilinear(q, _mm(sp.Transpose(Rp), Rp), q), "block_diagonal_product",
            note=r"$\langle A u, A u\rangle = u^\top A^\top A u$, block by block")
        .eq(Bilinear(q, sp.Identity(2 * B), q), "apply_theorem", theorem="rope_orthogonal", mapping={},
            note=r"$R_p^\top R_p = I$")
        .eq(Inner(q, q), "block_diagonal_product", note=r"$u^\top I u = \langle u, u\rangle$")
    )


def _rope_norm_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    for d in (2, 8, 64, 256):
        for convention in ("interleaved", "half"):
            x = rng.standard_normal((16, d))
            pos = rng.uniform(-1000, 1000, size=16)
            rel = np.abs(np.linalg.norm(rope_numeric(x, pos, convention=convention), axis=-1)
                         / np.linalg.norm(x, axis=-1) - 1)
            worst = max(worst, float(rel.max()))
            samples += 16
    tol = 1e-12
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "| |rope(x, p)| / |x| - 1 | with numeric.rope, both layouts")


rope_norm_preserving = register(
    Theorem(
        id="rope_norm_preserving",
        claim=r"For every real position $p$ and every $q$, $\langle R_p q, R_p q\rangle = \langle q, q\rangle$.",
        title=r"RoPE preserves norms: $\langle R_p q, R_p q\rangle = \langle q, q\rangle$",
        statement=Statement(Inner(_mm(_rope(p), q), _mm(_rope(p), q)), Inner(q, q)),
        source=f"{PROPOSITION} (consequence of $R_p$ being a rotation); RoFormer section 3.4.2",
        kind="theorem",
        hypotheses=(_DIMENSION, _POSITIONS, _BASE, _BLOCK),
        derivation=_rope_norm_derivation,
        dimensions=(B,),
        numeric=_rope_norm_numeric,
        plain=(
            r"Rotating a query or key does not change its length: the squared norm of $R_p q$ equals that of $q$. "
            "So RoPE changes which direction a vector points in, never how large its logits can get."
        ),
    )
)


def _rope_at_zero_derivation() -> Derivation:
    return (
        Derivation(_rope(0))
        .eq(PairBlockDiagonal(sp.Lambda(m, Rotation(0)), B), "block_diagonal_product",
            note=r"every block of $R_0$ is the rotation by $\theta_m \cdot 0 = 0$")
        .eq(PairBlockDiagonal(sp.Lambda(m, sp.Identity(2)), B), "block_diagonal_product",
            note=r"$R(0) = I_2$")
        .eq(sp.Identity(2 * B), "block_diagonal_product", note="identity blocks make the identity")
    )


def _rope_at_zero_numeric(seed: int) -> NumericResult:
    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    for d in (2, 6, 64):
        for convention in ("interleaved", "half"):
            x = rng.standard_normal((8, d))
            worst = max(worst, float(np.abs(rope_numeric(x, np.zeros(8), convention=convention) - x).max()))
            samples += 8
    return NumericResult(worst == 0.0, samples, seed, worst, 0.0, "rope(x, 0) == x exactly (cos 0 = 1, sin 0 = 0)")


rope_at_zero_eq_identity = register(
    Theorem(
        id="rope_at_zero_eq_identity",
        claim=r"For every base $b > 0$, $R_0 = I$.",
        title=r"RoPE at position $0$ is the identity: $R_0 = I$",
        statement=Statement(_rope(0), sp.Identity(2 * B)),
        source=f"{PROPOSITION} ($R_p$ at $p = 0$)",
        kind="theorem",
        hypotheses=(_DIMENSION, _BASE),
        derivation=_rope_at_zero_derivation,
        dimensions=(B,),
        numeric=_rope_at_zero_numeric,
        plain=r"At position $0$ every angle $\theta_m \cdot 0$ is zero, so RoPE leaves the vector unchanged.",
    )
)


# ============================================================================= the two layouts
def _rope_permutation_derivation() -> Derivation:
    Pi = PairPermutation(B)
    blocks = sp.Lambda(m, _rope(p).block(m))
    return (
        Derivation(_rope(p, "half"))
        .eq(PairBlockDiagonal(blocks, B, "half"), "block_diagonal_product",
            note=r"$R^{\mathrm{half}}_p$ rotates the pairs $(m, m + B)$ by $\theta_m p$")
        .eq(_mm(Pi, PairBlockDiagonal(blocks, B, "interleaved"), sp.Transpose(Pi)), "block_diagonal_product",
            note="Pi sends coordinate 2m to m and 2m + 1 to m + B (checked from the entries of Pi)")
        .eq(_mm(Pi, _rope(p), sp.Transpose(Pi)), "block_diagonal_product",
            note=r"the interleaved blocks are those of $R_p$")
    )


def _rope_permutation_numeric(seed: int) -> NumericResult:
    """The explicit Pi (rope_permutation) against numeric.rope's half layout and index array."""
    rng = np.random.default_rng(seed)
    worst, samples = 0.0, 0
    for d in (2, 4, 6, 8, 16, 64):
        P = np.array(rope_permutation(d).tolist(), dtype=float)
        perm = rope_permutation_numeric(d)
        worst = max(worst, float(np.abs(P - np.eye(d)[perm]).max()))  # same permutation as numeric.rope
        x = rng.standard_normal((10, d))
        pos = rng.uniform(-500, 500, size=10)
        half = rope_numeric(x, pos, convention="half")
        # R^half = P R^inter P^T, applied to rows x: (P R^inter P^T x^T)^T
        conj = (P @ rope_numeric(x @ P, pos, convention="interleaved").T).T
        worst = max(worst, float(np.abs(half - conj).max()))
        samples += 10
    tol = 1e-12
    return NumericResult(worst <= tol, samples, seed, worst, tol,
                         "numeric.rope half layout vs P (interleaved rope) P^T with the explicit P")


rope_convention_permutation = register(
    Theorem(
        id="rope_convention_permutation",
        claim=r"For every real position $p$, the `rotate_half` RoPE matrix is $\Pi R_p \Pi^\top$ for the fixed "
              r"permutation $\Pi$ of the pairs.",
        title=r"The `rotate_half` layout is the interleaved one up to a permutation: $R^{\mathrm{half}}_p = \Pi R_p "
              r"\Pi^\top$",
        statement=Statement(_rope(p, "half"), _mm(PairPermutation(B), _rope(p), sp.Transpose(PairPermutation(B)))),
        source=f"extension (two layouts of {PROPOSITION}: the seed's pairs $(2m, 2m+1)$ and `rotate_half`'s $(m, m + "
               f"d/2)$)",
        kind="theorem",
        hypotheses=(_DIMENSION, _POSITIONS, _BASE, _BLOCK),
        derivation=_rope_permutation_derivation,
        dimensions=(B,),
        numeric=_rope_permutation_numeric,
        plain=(
            r"Open implementations often rotate coordinate $m$ together with coordinate $m + d/2$ (`rotate_half`) "
            "instead of the neighbours 2m and 2m + 1. Both are the same rotation written in a different "
            "order of coordinates: listing the even coordinates first and the odd ones after (the permutation "
            "Pi) turns one into the other. So both have the relative-position property; but weights trained "
            "with one layout must have their query and key columns permuted to be used with the other."
        ),
        notes=(
            r"$\Pi$ is explicit: $(\Pi x)_i = x_{c(i)}$ with $c(i) = 2i$ for $i < B$ and $c(i) = 2(i - B) + 1$ for $i "
            r"\ge B$, "
            "the index array numeric.rope.rope_permutation(d) = (0, 2, ..., d-2, 1, 3, ..., d-1). The symbolic "
            r"proof checks from these entries that $\Pi$ sends pair $(2m, 2m+1)$ to $(m, m + B)$ for every $m \in \{0, "
            r"\dots, B-1\}$."
        ),
    )
)
