"""The inputs a conformance check draws, and the space an implementation declares it supports.

Tiled kernels break at tile boundaries, so lengths are not drawn uniformly: they come from an
explicit list of *interesting* lengths (1, 2, small numbers, primes, every multiple of 16 up to
``max_n`` and each plus or minus one), ordered small-first. Hypothesis shrinks a
``sampled_from`` towards the front of its list, so a counterexample shrinks towards small shapes
but one that needs ``n = 65`` stays 65: 64 is tried, passes, and 65 is the smallest failing
entry. Head dims come from a similar list (FlashAttention's test suite uses 40, 59 and 111).

The declared space (:class:`Space`) bounds what is drawn: ``value_dim="same"`` draws d_v = d,
``square`` draws n_q = n_k, ``max_n`` caps lengths, ``head_dims`` restricts d, ``kv_heads``
draws grouped key/value heads. Nothing outside it is ever generated.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

__all__ = ["HEAD_DIMS", "Case", "Domain", "Space", "cases", "find", "interesting_lengths", "shrink"]

# Primes that sit next to the tile sizes kernels use (16 ... 256), and FlashAttention's 113, 147, 203.
_PRIMES = (11, 13, 17, 31, 37, 61, 67, 97, 113, 127, 131, 193, 251, 257, 383, 509, 1021)
HEAD_DIMS = (1, 2, 3, 4, 5, 8, 16, 32, 40, 59, 64, 80, 96, 111, 128, 160, 192, 224, 256)

# Work cap: when q k^T of one (batch, head) pair is already this large, batch and heads are 1
# (a 3 x 3 x 512 x 512 x 256 case would cost seconds per call and find nothing one pair does not).
_WORK_CAP = 2**22


def interesting_lengths(max_n: int) -> tuple[int, ...]:
    """The lengths drawn, small first: 1..8, primes, multiples of 16 (hence of 32, 64, 128) and +-1.

    >>> interesting_lengths(40)
    (1, 2, 3, 4, 5, 6, 7, 8, 11, 13, 15, 16, 17, 31, 32, 33, 37)
    """
    if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < 1:
        raise ValueError(f"max_n must be a positive integer, got {max_n!r}")
    lengths = set(range(1, 9)) | set(_PRIMES)
    for m in range(16, max_n + 2, 16):
        lengths |= {m - 1, m, m + 1}
    return tuple(sorted(n for n in lengths if n <= max_n))


@dataclass(frozen=True)
class Space:
    """What the implementation declares it supports (the inputs ever drawn)."""

    value_dim: str = "any"  # "any": d_v drawn independently of d; "same": d_v = d
    square: bool = False  # n_q = n_k always
    max_n: int = 512
    head_dims: tuple[int, ...] | None = None  # None: HEAD_DIMS
    max_batch: int = 3
    max_heads: int = 3
    kv_heads: bool | int | None = None  # None: h_kv = h; True: any divisor of h; int g: h = g h_kv

    def __post_init__(self) -> None:
        if self.value_dim not in ("any", "same"):
            raise ValueError(f"value_dim must be 'any' or 'same', got {self.value_dim!r}")
        interesting_lengths(self.max_n)  # validates max_n
        if self.head_dims is not None:
            dims = tuple(self.head_dims)
            if not dims or any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1 for x in dims):
                raise ValueError(f"head_dims must be a non-empty list of positive integers, got {self.head_dims!r}")
            object.__setattr__(self, "head_dims", tuple(sorted({int(x) for x in dims})))
        kv = self.kv_heads
        if not (kv is None or kv is True or (isinstance(kv, int) and not isinstance(kv, bool) and kv >= 1)):
            raise ValueError(f"kv_heads must be None, True or a positive group size, got {kv!r}")

    @property
    def dims(self) -> tuple[int, ...]:
        return self.head_dims or HEAD_DIMS

    def restrict(self, **changes) -> Space:
        return replace(self, **changes)


@dataclass(frozen=True)
class Case:
    """One generated input: shapes (b, h, n_q, n_k, d, d_v), kv heads, a seed and a logit scale."""

    b: int
    h: int
    n_q: int
    n_k: int
    d: int
    d_v: int
    seed: int
    scale: float = 1.0
    h_kv: int | None = None  # key/value heads (None: h)

    @property
    def kv(self) -> int:
        return self.h if self.h_kv is None else self.h_kv

    def arrays(self, dtype=np.float64):
        """``q (b, h, n_q, d)``, ``k (b, h_kv, n_k, d)``, ``v (b, h_kv, n_k, d_v)``, N(0, 1) entries."""
        return tuple(a.astype(dtype, copy=False) for a in _draw(self))

    def d_out(self, dtype=np.float64) -> np.ndarray:
        """The upstream gradient ``dO (b, h, n_q, d_v)`` used by the backward properties."""
        rng = np.random.default_rng(self.seed + 101)
        return rng.standard_normal((self.b, self.h, self.n_q, self.d_v)).astype(dtype)

    def describe(self, then: str = "") -> str:
        """Three lines: the shapes, the seed and the order of the draws, the code that redraws it
        (``then``: the statements that follow, e.g. what the property did to the arrays and the call)."""
        scaled = f", then q scaled by {self.scale:g}" if self.scale != 1 else ""
        code = (f"Case(b={self.b}, h={self.h}, n_q={self.n_q}, n_k={self.n_k}, d={self.d}, d_v={self.d_v}, "
                f"seed={self.seed}" + (f", scale={self.scale:g}" if self.scale != 1 else "")
                + (f", h_kv={self.h_kv}" if self.h_kv else "") + ")")
        return (
            f"shapes q {(self.b, self.h, self.n_q, self.d)}, k {(self.b, self.kv, self.n_k, self.d)}, "
            f"v {(self.b, self.kv, self.n_k, self.d_v)}\n"
            f"seed {self.seed}: numpy.random.default_rng({self.seed}) draws q, then k, then v, N(0,1){scaled}; "
            f"d_out from default_rng({self.seed + 101}); a mask from default_rng({self.seed + 1})\n"
            f"reproduce: from symattn.products.conformance import Case; q, k, v = {code}.arrays()"
            + (f"; {then}" if then else "")
        )


@functools.lru_cache(maxsize=32)
def _draw(case: Case):
    # every property draws the same case several times: generating 10^6 normals costs ~20 ms
    rng = np.random.default_rng(case.seed)
    q = rng.standard_normal((case.b, case.h, case.n_q, case.d)) * case.scale
    k = rng.standard_normal((case.b, case.kv, case.n_k, case.d))
    v = rng.standard_normal((case.b, case.kv, case.n_k, case.d_v))
    for a in (q, k, v):
        a.setflags(write=False)  # shared between calls: nobody may write into them
    return q, k, v


def cases(space: Space, *, square: bool | None = None, min_n_k: int = 1, min_d: int = 1, max_n: int | None = None):
    """A Hypothesis strategy of :class:`Case` inside ``space`` (optionally narrower still)."""
    from hypothesis import strategies as st

    square = space.square if square is None else (square or space.square)
    lengths = interesting_lengths(min(space.max_n, max_n or space.max_n))
    n = st.sampled_from(lengths)
    n_k_lengths = [x for x in lengths if x >= min_n_k] or [lengths[-1]]
    n_k_strategy = st.sampled_from(n_k_lengths)
    dims = [x for x in space.dims if x >= min_d] or [max(space.dims)]
    d_strategy = st.sampled_from(dims)

    domain = Domain(lengths=lengths, n_k_lengths=tuple(n_k_lengths), dims=tuple(dims), dv_dims=space.dims,
                    square=square, same_dv=space.value_dim == "same", kv_heads=space.kv_heads,
                    max_batch=space.max_batch, max_heads=space.max_heads)

    @st.composite
    def build(draw):
        n_k = draw(n_k_strategy)
        n_q = n_k if square else draw(n)
        d = draw(d_strategy)
        d_v = d if space.value_dim == "same" else draw(st.sampled_from(space.dims))
        small = n_q * n_k * (d + d_v) <= _WORK_CAP
        b = draw(st.integers(1, space.max_batch)) if small else 1
        if space.kv_heads is None:
            h = draw(st.integers(1, space.max_heads)) if small else 1
            h_kv = None
        elif space.kv_heads is True:
            # GQA and MQA: h up to 6 so that groups of 2 and 3 with 2-3 kv heads occur
            h = draw(st.sampled_from((1, 2, 3, 4, 6))) if small else 2
            h_kv = draw(st.sampled_from([x for x in range(1, h + 1) if h % x == 0]))
        else:
            h_kv = draw(st.integers(1, space.max_heads)) if small else 1
            h = space.kv_heads * h_kv
        return Case(b=b, h=h, n_q=n_q, n_k=n_k, d=d, d_v=d_v, seed=draw(st.integers(0, 2**16)),
                    scale=draw(st.sampled_from([1.0, 3.0])), h_kv=h_kv)

    strategy = build()
    strategy.symattn_domain = domain  # what find's own shrinking may move a case to
    return strategy


@dataclass(frozen=True)
class Domain:
    """The values a case of one strategy may take, smallest first (for :func:`shrink`)."""

    lengths: tuple
    n_k_lengths: tuple
    dims: tuple
    dv_dims: tuple
    square: bool
    same_dv: bool
    kv_heads: object
    max_batch: int
    max_heads: int

    def smaller(self, c: Case):
        """Cases one field smaller than ``c`` (in the order tried), all inside the domain: first each
        field at its minimum (b = h = 1, the shortest lengths, d = d_v = 1 ...; with the case's seed,
        then with two others, since a smaller shape redraws every value), then one step at a time."""
        tried = set()
        for jump in self._minima(c):
            for seed in (c.seed, c.seed + 1, c.seed + 2):
                x = replace(jump, seed=seed)
                if x not in tried:
                    tried.add(x)
                    yield x
        for x in self._steps(c):
            if x not in tried:
                yield x

    def _minima(self, c: Case):
        if c.b > 1:
            yield replace(c, b=1)
        if self.kv_heads is None and c.h > 1:
            yield replace(c, h=1)
        elif self.kv_heads is True and (c.h, c.kv) != (1, 1):
            yield replace(c, h=1, h_kv=1)
        elif self.kv_heads not in (None, True) and c.kv > 1:
            yield replace(c, h=self.kv_heads, h_kv=1)
        if self.n_k_lengths[0] < c.n_k:
            n = self.n_k_lengths[0]
            yield replace(c, n_k=n, n_q=n) if self.square else replace(c, n_k=n)
        if not self.square and self.lengths[0] < c.n_q:
            yield replace(c, n_q=self.lengths[0])
        if self.dims[0] < c.d:
            yield replace(c, d=self.dims[0], d_v=self.dims[0]) if self.same_dv else replace(c, d=self.dims[0])
        if not self.same_dv and self.dv_dims[0] < c.d_v:
            yield replace(c, d_v=self.dv_dims[0])

    def _steps(self, c: Case):
        for b in range(1, c.b):
            yield replace(c, b=b)
        if self.kv_heads is None:
            for h in range(1, c.h):
                yield replace(c, h=h)
        elif self.kv_heads is True:
            for h in (1, 2, 3, 4, 6):
                for h_kv in (x for x in range(1, h + 1) if h % x == 0):
                    if (h, h_kv) < (c.h, c.kv) and h <= c.h and h_kv <= c.kv:
                        yield replace(c, h=h, h_kv=h_kv)
        else:
            for h_kv in range(1, c.kv):
                yield replace(c, h=self.kv_heads * h_kv, h_kv=h_kv)
        for n in (x for x in self.n_k_lengths if x < c.n_k):
            yield replace(c, n_k=n, n_q=n) if self.square else replace(c, n_k=n)
        if not self.square:
            for n in (x for x in self.lengths if x < c.n_q):
                yield replace(c, n_q=n)
        for d in (x for x in self.dims if x < c.d):
            yield replace(c, d=d, d_v=d) if self.same_dv else replace(c, d=d)
        if not self.same_dv:
            for d_v in (x for x in self.dv_dims if x < c.d_v):
                yield replace(c, d_v=d_v)
        if c.scale != 1.0:
            yield replace(c, scale=1.0)


def shrink(case: Case, fails, domain: Domain, budget: int = 80) -> Case:
    """Greedy shrinking after Hypothesis's: move to the first smaller case (one field at a time,
    smallest values first) that still fails, until none does or ``budget`` calls are spent.

    Hypothesis stops shrinking when its own budget runs out (a slow implementation, a large first
    failure), which can leave ``q (1, 1, 95, 224)``; this pass guarantees a counterexample from
    which no single field can be made smaller."""
    calls = 0
    improved = True
    while improved and calls < budget:
        improved = False
        for smaller in domain.smaller(case):
            calls += 1
            if fails(smaller):
                case, improved = smaller, True
                break
            if calls >= budget:
                break
    return case


def find(strategy, fails, examples: int):
    """The minimal input for which ``fails`` holds, or None (deterministic search and shrinking:
    Hypothesis's, then :func:`shrink` for a :class:`Case`)."""
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis import find as hypothesis_find
    from hypothesis.errors import NoSuchExample

    s = settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
    )
    try:
        found = hypothesis_find(strategy, fails, settings=s)
    except NoSuchExample:
        return None
    domain = getattr(strategy, "symattn_domain", None)
    if domain is not None and isinstance(found, Case):
        found = shrink(found, fails, domain)
    return found
