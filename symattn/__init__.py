"""symattn: machine-checked mathematics of transformer attention.

The kernel (statements, derivations, rules, verdicts) and the symbolic helpers users import:

>>> import sympy as sp
>>> from symattn import gaussian_vector, dot, Var
>>> d_k = sp.Symbol("d_k", integer=True, positive=True)
>>> sigma = sp.Symbol("sigma", positive=True)
>>> q, k = gaussian_vector("q", d_k, sigma), gaussian_vector("k", d_k, sigma)
>>> Var(dot(q, k))
d_k*sigma**4
"""

from symattn.acceptance import VerdictError, expect_failure
from symattn.checker import Checker, check_theorem

# beyond the texts (issue 14): GQA, KV cache, masks, FlashAttention's IO, correlated moments
from symattn.complexity import (  # noqa: E402
    activation_memory,
    attention_mlp_ratio,
    crossover,
    gqa_param_count,
    kv_cache_bytes,
    layer_costs,
    mha_param_count,
    model_costs,
)
from symattn.conformance import check as check_conformance
from symattn.derivation import Derivation, Step
from symattn.flash_io import flash_hbm_accesses  # noqa: E402
from symattn.masks import causal_mask, score_pairs, window_mask  # noqa: E402
from symattn.moments import (
    Cov,
    E,
    Var,
    correlated_vectors,  # noqa: E402
    dot,
    gaussian_vector,
    iid_vector,
)
from symattn.multihead import head_blocks, mha_sum_form
from symattn.online_softmax import SoftmaxState
from symattn.online_softmax import merge as online_softmax_merge
from symattn.online_softmax import state as online_softmax_state
from symattn.permutation import permutation_matrix
from symattn.rope import rope_matrix, rope_permutation, rotation, sinusoidal_vector
from symattn.softmax import Softmax, softmax, softmax_jacobian, softmax_jacobian_entry
from symattn.statement import (
    Assumption,
    Equation,
    Independent,
    IndexRange,
    RandomFamily,
    Statement,
)
from symattn.theorem import Instances, NumericResult, Probabilistic, Theorem, load_all, register, registry
from symattn.verdict import Level, Outcome, Verdict

__version__ = "0.1.0"

__all__ = [
    # kernel
    "Assumption",
    "Checker",
    "Derivation",
    "Equation",
    "Independent",
    "IndexRange",
    "Instances",
    "Level",
    "NumericResult",
    "Outcome",
    "Probabilistic",
    "RandomFamily",
    "Statement",
    "Step",
    "Theorem",
    "Verdict",
    "VerdictError",
    "check_theorem",
    "expect_failure",
    "load_all",
    "register",
    "registry",
    # moments
    "Cov",
    "E",
    "Var",
    "correlated_vectors",
    "dot",
    "gaussian_vector",
    "iid_vector",
    # softmax
    "Softmax",
    "softmax",
    "softmax_jacobian",
    "softmax_jacobian_entry",
    # rotary and sinusoidal encodings
    "rope_matrix",
    "rope_permutation",
    "rotation",
    "sinusoidal_vector",
    # multi-head attention and permutations
    "head_blocks",
    "mha_sum_form",
    "permutation_matrix",
    # online softmax
    "SoftmaxState",
    "online_softmax_merge",
    "online_softmax_state",
    # complexity
    "activation_memory",
    "attention_mlp_ratio",
    "crossover",
    "layer_costs",
    "mha_param_count",
    "model_costs",
    # beyond the texts: GQA, KV cache, masks, FlashAttention's IO
    "causal_mask",
    "flash_hbm_accesses",
    "gqa_param_count",
    "kv_cache_bytes",
    "score_pairs",
    "window_mask",
    # conformance
    "check_conformance",
]
