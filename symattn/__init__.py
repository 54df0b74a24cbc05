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

import sys
import types

# Every public name is imported on first use (PEP 562), so that ``import symattn`` -- and with it
# ``symattn --help`` -- does not pay for SymPy, numpy and the library (issue 22: startup).
_LAZY = {
    "VerdictError": ("symattn.acceptance", "VerdictError"),
    "expect_failure": ("symattn.acceptance", "expect_failure"),
    "Checker": ("symattn.checker", "Checker"),
    "check_theorem": ("symattn.checker", "check_theorem"),
    "activation_memory": ("symattn.complexity", "activation_memory"),
    "attention_mlp_ratio": ("symattn.complexity", "attention_mlp_ratio"),
    "crossover": ("symattn.complexity", "crossover"),
    "gqa_param_count": ("symattn.complexity", "gqa_param_count"),
    "kv_cache_bytes": ("symattn.complexity", "kv_cache_bytes"),
    "layer_costs": ("symattn.complexity", "layer_costs"),
    "mha_param_count": ("symattn.complexity", "mha_param_count"),
    "model_costs": ("symattn.complexity", "model_costs"),
    "check_conformance": ("symattn.conformance", "check"),
    "Derivation": ("symattn.derivation", "Derivation"),
    "Step": ("symattn.derivation", "Step"),
    "flash_hbm_accesses": ("symattn.flash_io", "flash_hbm_accesses"),
    "causal_mask": ("symattn.masks", "causal_mask"),
    "score_pairs": ("symattn.masks", "score_pairs"),
    "window_mask": ("symattn.masks", "window_mask"),
    "Cov": ("symattn.moments", "Cov"),
    "E": ("symattn.moments", "E"),
    "Var": ("symattn.moments", "Var"),
    "correlated_vectors": ("symattn.moments", "correlated_vectors"),
    "dot": ("symattn.moments", "dot"),
    "gaussian_vector": ("symattn.moments", "gaussian_vector"),
    "iid_vector": ("symattn.moments", "iid_vector"),
    "head_blocks": ("symattn.multihead", "head_blocks"),
    "mha_sum_form": ("symattn.multihead", "mha_sum_form"),
    "SoftmaxState": ("symattn.online_softmax", "SoftmaxState"),
    "online_softmax_merge": ("symattn.online_softmax", "merge"),
    "online_softmax_state": ("symattn.online_softmax", "state"),
    "permutation_matrix": ("symattn.permutation", "permutation_matrix"),
    "rope_matrix": ("symattn.rope", "rope_matrix"),
    "rope_permutation": ("symattn.rope", "rope_permutation"),
    "rotation": ("symattn.rope", "rotation"),
    "sinusoidal_vector": ("symattn.rope", "sinusoidal_vector"),
    "Softmax": ("symattn.softmax", "Softmax"),
    "softmax": ("symattn.softmax", "softmax"),
    "softmax_jacobian": ("symattn.softmax", "softmax_jacobian"),
    "softmax_jacobian_entry": ("symattn.softmax", "softmax_jacobian_entry"),
    "Assumption": ("symattn.statement", "Assumption"),
    "CorrelatedPairs": ("symattn.statement", "CorrelatedPairs"),
    "Equation": ("symattn.statement", "Equation"),
    "Independent": ("symattn.statement", "Independent"),
    "IndexRange": ("symattn.statement", "IndexRange"),
    "RandomFamily": ("symattn.statement", "RandomFamily"),
    "Statement": ("symattn.statement", "Statement"),
    "Instances": ("symattn.theorem", "Instances"),
    "NumericResult": ("symattn.theorem", "NumericResult"),
    "Probabilistic": ("symattn.theorem", "Probabilistic"),
    "Theorem": ("symattn.theorem", "Theorem"),
    "load_all": ("symattn.theorem", "load_all"),
    "register": ("symattn.theorem", "register"),
    "registry": ("symattn.theorem", "registry"),
    "Level": ("symattn.verdict", "Level"),
    "Outcome": ("symattn.verdict", "Outcome"),
    "Verdict": ("symattn.verdict", "Verdict"),
}


def __getattr__(name: str):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'symattn' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"


class _Package(types.ModuleType):
    """The package module: a public name that is also a submodule's name (``softmax``, the function, and
    ``symattn.softmax``, its module) stays the public name. The import system sets each submodule it
    loads as an attribute of its package, which would make ``from symattn import softmax`` the module
    once anything has imported it (``from symattn import Softmax`` does); that assignment is not kept.
    The module is ``sys.modules["symattn.softmax"]``, and ``from symattn.softmax import ...`` works."""

    def __setattr__(self, name, value):
        if name in _PUBLIC_OVER_SUBMODULE and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


_PUBLIC_OVER_SUBMODULE = frozenset(n for n in _LAZY if _LAZY[n] == (f"symattn.{n}", n))
sys.modules[__name__].__class__ = _Package

__all__ = [
    # kernel
    "Assumption",
    "Checker",
    "CorrelatedPairs",
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
