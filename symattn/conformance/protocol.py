"""The error protocol, the precisions and the float64 references every comparison uses.

FlashAttention's protocol: an implementation run in a dtype may be off the float64 reference by
at most twice the error of the reference itself computed in that dtype, plus an allowance.

The allowance covers what the 2x rule cannot: the reference's own error is exactly 0 on some
tiny inputs (one key gives ``v`` exactly) where a correctly rounded implementation may still be
one rounding away. It is one unit of the dtype's epsilon times the largest reference magnitude
(:data:`ALLOWANCE_ULPS`), small enough that an implementation with three times the reference's
error fails: ``3 r > 2 r + allowance`` as soon as ``r`` exceeds one such unit, which the searched
inputs (hundreds of keys, head dims up to 256) always reach. ``tests/symattn/test_conformance.py``
checks that a 3x-error kernel fails and a 1.2x one passes, forward and backward.

float64 has no wider precision at BLAS speed, so there the reference's own rounding is measured
as the difference between two float64 evaluations of it (keys in the given and in reversed
order, a permutation the result does not depend on).

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
    array([1.       , 1.       , 1.015625 ], dtype=float32)
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

    def describe(self, what: str = "output") -> str:
        if not np.isfinite(self.err):
            return f"non-finite {what} where the reference is finite"
        return (f"{what}: max error {self.err:.3g} > 2 x reference error {self.ref_err:.3g} "
                f"+ allowance {self.allowance:.3g}")


def compare(out: np.ndarray, exact: np.ndarray, ref_lo: np.ndarray, eps: float, rows=None) -> Comparison:
    """The protocol on the entries selected by ``rows`` (a boolean over the leading axes; None: all)."""
    out = np.asarray(out, dtype=np.float64)
    exact = np.asarray(exact, dtype=np.float64)
    ref_lo = np.asarray(ref_lo, dtype=np.float64)
    if rows is not None:
        out, exact, ref_lo = out[rows], exact[rows], ref_lo[rows]
    if out.size == 0:
        return Comparison(True, 0.0, 0.0, 0.0)
    with np.errstate(invalid="ignore"):
        diff = np.abs(out - exact)
    err = float(np.max(diff)) if np.all(np.isfinite(diff)) else float("inf")
    ref_err = float(np.max(np.abs(ref_lo - exact)))
    allowance = ALLOWANCE_ULPS * eps * float(np.max(np.abs(exact)))
    return Comparison(err <= 2 * ref_err + allowance, err, ref_err, allowance)
