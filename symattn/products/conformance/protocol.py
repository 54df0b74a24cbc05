"""The error protocol, the precisions and the float64 references every comparison uses.

FlashAttention's protocol: an implementation run in a dtype may be off the float64 reference by
at most twice the error of the reference itself computed in that dtype, plus an allowance.

The allowance covers what the 2x rule cannot: the reference's own error is exactly 0 on some
tiny inputs (one key gives ``v`` exactly, and ``dq = 0`` exactly) where a correct kernel using
another formula is still one rounding of the terms away. It is :data:`ALLOWANCE_ULPS` units of
the epsilon of the arithmetic (float32 for float16 and bfloat16, whose kernels accumulate in
float32; their final rounding is in the reference's error already) times the size of the terms
the result is summed from (``P |V|`` for the output;
for the gradients see :func:`~symattn.products.conformance.references.magnitudes`; 1 + |lse| for
the log-sum-exp, whose rounding is absolute), small enough that an implementation with three
times the reference's error fails: ``3 r > 2 r + allowance`` as soon as ``r`` exceeds one such
unit, which the searched inputs (hundreds of keys, head dims up to 256) reach.
``tests/symattn/products/test_conformance.py`` checks that a 3x-error kernel fails and a 1.2x one passes,
forward and backward.

float64 has no wider precision at BLAS speed to measure its own reference against, so there the
reference's error is that of the same reference run in float32, scaled by the ratio of the
epsilons (rounding errors of one algorithm scale with the unit roundoff), and the bound is
3x rather than 2x: the float64 "exact" reference is itself that far from the truth.

bfloat16 (torch) is simulated in numpy: values rounded to bfloat16 and stored as float32,
arithmetic in float32, the result rounded to bfloat16 again (what a bf16 kernel with float32
accumulation computes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ALLOWANCE_ULPS", "Comparison", "Precision", "compare", "precision"]

ALLOWANCE_ULPS = 1


def round_bfloat16(x: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bfloat16 (ties to even), returned as float32.

    >>> round_bfloat16(np.array([1.0, 1.00390625, 1.01171875], dtype=np.float32))  # 1 + 2^-8 ties to 1
    array([1.      , 1.      , 1.015625], dtype=float32)
    """
    x = np.ascontiguousarray(x, dtype=np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    out = u.astype(np.uint32).view(np.float32)
    return np.where(np.isfinite(x), out, x)


@dataclass(frozen=True)
class Precision:
    """A tested dtype: its name, the numpy dtype holding its values, its epsilon."""

    name: str
    storage: np.dtype
    eps: float

    @property
    def compute_eps(self) -> float:
        """The epsilon of the arithmetic: float16 and bfloat16 kernels accumulate in float32."""
        return min(self.eps, float(np.finfo(np.float32).eps))

    def cast(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        if self.name == "bfloat16":
            return round_bfloat16(x.astype(np.float32))
        return x.astype(self.storage)

    def finish(self, x: np.ndarray) -> np.ndarray:
        """A result computed in the compute precision, rounded as the dtype would store it."""
        return self.cast(x)


_PRECISIONS = {
    "float64": Precision("float64", np.dtype(np.float64), float(np.finfo(np.float64).eps)),
    "float32": Precision("float32", np.dtype(np.float32), float(np.finfo(np.float32).eps)),
    "float16": Precision("float16", np.dtype(np.float16), float(np.finfo(np.float16).eps)),
    "bfloat16": Precision("bfloat16", np.dtype(np.float32), 2.0**-7),
}
DTYPES = tuple(_PRECISIONS)


def precision(name: str) -> Precision:
    try:
        return _PRECISIONS[name]
    except (KeyError, TypeError):
        raise ValueError(f"dtype must be one of {list(_PRECISIONS)}, got {name!r}") from None


@dataclass(frozen=True)
class Comparison:
    ok: bool
    err: float
    ref_err: float
    allowance: float
    factor: float = 2.0

    def describe(self, what: str = "output") -> str:
        if not np.isfinite(self.err):
            return f"non-finite {what} where the reference is finite"
        return (f"{what}: max error {self.err:.3g} > {self.factor:g} x reference error {self.ref_err:.3g} "
                f"+ allowance {self.allowance:.3g}")


def max_error(a, b, rows=None) -> float:
    """``max |a - b|`` over the entries selected by ``rows`` (inf if any is not finite)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if rows is not None:
        a, b = a[rows], b[rows]
    if a.size == 0:
        return 0.0
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - b)
    return float(np.max(diff)) if np.all(np.isfinite(diff)) else float("inf")


def compare(out, exact, ref_err: float, prec: Precision, magnitude: float, rows=None) -> Comparison:
    """The protocol on the entries selected by ``rows`` (a boolean over the leading axes; None: all).

    ``ref_err`` is the error of the reference computed in ``prec`` (for float64: in float32,
    then scaled by the ratio of the epsilons); ``magnitude`` the size of the terms the result is
    summed from (see :func:`symattn.products.conformance.references.magnitudes`).
    """
    err = max_error(out, exact, rows)
    factor = 2.0
    if prec.name == "float64":
        ref_err *= prec.eps / _PRECISIONS["float32"].eps
        factor = 3.0  # the float64 "exact" reference is itself ref_err away from the truth
    allowance = ALLOWANCE_ULPS * prec.compute_eps * magnitude
    return Comparison(err <= factor * ref_err + allowance, err, ref_err, allowance, factor)
