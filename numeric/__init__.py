"""Numeric cross-checks: reference attention written as the formulas read, and the tiled kernel.

* :mod:`numeric.reference` -- softmax, attention (and its backward), multi-head attention,
  layer norm, MLP, pre-/post-norm layers: the slow, obvious versions.
* :mod:`numeric.tiled` -- exact attention by tiles with the online softmax (FlashAttention),
  forward and backward, in O(n d) extra memory.
* :mod:`numeric.rope` -- rotary and sinusoidal position encodings.
* :mod:`numeric.linear` -- linear attention in both evaluation orders.
* :mod:`numeric.bench` -- the benchmark behind ``symattn bench`` (not imported here).

This module only re-exports; ``__all__`` lists exactly the public names.
"""

from .linear import elu_plus_one, linear_attention
from .reference import (
    TransformerLayerParams,
    alibi_slopes,
    attention,
    attention_backward,
    attention_scores,
    gelu,
    layer_norm,
    logsumexp,
    mha_sum_of_heads,
    mlp,
    multi_head_attention,
    post_norm_layer,
    pre_norm_layer,
    relu,
    softmax,
    softmax_jacobian,
)
from .rope import rope, rope_frequencies, rope_permutation, sinusoidal_encoding
from .tiled import (
    DEFAULT_BLOCK_K,
    DEFAULT_BLOCK_Q,
    cpu_count,
    decode_step,
    tiled_attention,
    tiled_attention_backward,
)

__all__ = [
    "DEFAULT_BLOCK_K",
    "DEFAULT_BLOCK_Q",
    "TransformerLayerParams",
    "alibi_slopes",
    "attention",
    "attention_backward",
    "attention_scores",
    "cpu_count",
    "decode_step",
    "elu_plus_one",
    "gelu",
    "layer_norm",
    "linear_attention",
    "logsumexp",
    "mha_sum_of_heads",
    "mlp",
    "multi_head_attention",
    "post_norm_layer",
    "pre_norm_layer",
    "relu",
    "rope",
    "rope_frequencies",
    "rope_permutation",
    "sinusoidal_encoding",
    "softmax",
    "softmax_jacobian",
    "tiled_attention",
    "tiled_attention_backward",
]
