"""Conformance: the theorems as executable contracts for any attention implementation.

A kernel engineer hands :func:`check` a callable ``fn(q, k, v, **options) -> out`` (numpy in,
numpy out; an :class:`Adapter` wraps torch/JAX functions and other layouts), declares what it
supports (value dim, square only, lengths, head dims, dtypes, its backward, the variants), and
gets, for each property the theory guarantees, a verdict and -- when it fails -- a *shrunk*
counterexample found by Hypothesis.

Inputs cross tiles: lengths up to ``max_n`` (512) drawn from an explicit small-first list of
lengths that break tiled kernels (1, 2, primes, multiples of 16/32/64/128 and each +-1), head
dims up to 256 with odd ones (40, 59, 111), batch and heads up to 3 (:mod:`.cases`).

==================================  ====================================================================
``agrees_with_reference``           Definition of scaled dot-product attention (seed 000); FlashAttention's
                                    protocol: error <= 2 x the error of the reference computed in the
                                    tested dtype, plus a one-ulp allowance (:mod:`.protocol`).
``lse_agrees_with_reference``       the log-sum-exp, for functions returning ``(out, lse)``.
``backward_agrees_with_reference``  dq, dk, dv by the same protocol against float64 gradients.
``convex_hull``                     ``attention_output_convex_combination``.
``key_value_permutation``           ``attention_permutation_equivariant`` (keys and values together).
``query_permutation``               ``attention_permutation_equivariant`` (queries).
``default_scale``                   ``scaled_logit_std`` (reports the scale used when it is not 1/sqrt(d_k)).
``causal_no_future``                causal masking (seed 004), top-left or bottom-right alignment.
``fully_masked_rows``               reported: output, lse and dq of a query that may attend to nothing.
``empty_sequences``                 reported: what n_q = 0 and n_k = 0 give (zeros, error, NaN).
``large_logits_finite``             ``softmax_add_const`` (max subtraction is exact), scores ~1e4.
``float16_finite``                  float16 inputs give finite outputs.
``masked_values_do_not_leak``       NaN/inf in masked or padded keys and values reach neither the
                                    output nor the gradients.
``deterministic``                   two calls on one input give the same bits (gradients too).
``rope_relative``                   ``rope_relative_logit`` (optional, with a RoPE function).
variants                            GQA, sliding window (both alignments), soft-cap, ALiBi, key
                                    lengths, dropout: see :mod:`.variants`.
==================================  ====================================================================

Example
-------
>>> import numeric
>>> result = check(numeric.attention, examples=5, max_n=16)
>>> result.passed
True
"""

from __future__ import annotations

from .adapters import NUMPY, Adapter, jax_adapter, load_callable, torch_adapter
from .cases import HEAD_DIMS, Case, Space, interesting_lengths
from .protocol import ALLOWANCE_ULPS
from .result import ConformanceResult, PropertyResult, dumps
from .runner import PROPERTIES, check

__all__ = [
    "ALLOWANCE_ULPS",
    "HEAD_DIMS",
    "NUMPY",
    "PROPERTIES",
    "Adapter",
    "Case",
    "ConformanceResult",
    "PropertyResult",
    "Space",
    "check",
    "dumps",
    "interesting_lengths",
    "jax_adapter",
    "load_callable",
    "torch_adapter",
]
