"""symattn: machine-checked mathematics of transformer attention.

The layers, bottom first. Each imports only the layers below it (and itself), never one above, and no
modules import each other round a circle (``tests/symattn/test_layers.py`` reads every import, inside
functions too, with no exception list):

``symattn.language``
    the vocabulary theorems are written in: statements and their hypotheses, derivations and steps,
    sizes, shapes, the LaTeX printer. Data and printing only; imports nothing of symattn.
``symattn.kernel``
    TRUSTED: terms and binders, the zero test with its side conditions, signs, sums, the axiom table,
    the second engine (python-flint, Z3) and the verdict types; the only code that decides. Imports
    ``language``.
``symattn.maths``
    the mathematics users import: moments, softmax, rope, multihead, permutation, masks, complexity,
    flash_io, online_softmax, extrema. Builds objects and their definitions; decides nothing. Imports
    ``kernel``, ``language``.
``symattn.rules``
    UNTRUSTED proposers: each rule turns a step into obligations and axiom instances for the kernel.
    Imports ``maths``, ``kernel``, ``language``.
``symattn.engine``
    the proof engine: theorems and the registry, the checker, acceptance (the target verdicts), the
    cache of outcomes. Imports ``rules`` and everything below.
``symattn.products``
    what people run: the report, the claim audit, conformance, the CLI and its commands, the pytest
    plugin, sources, problems. Imports ``engine`` and everything below.
``symattn`` itself
    this module (the public names, imported on first use), ``__main__``, and the deprecated aliases of
    the old flat module paths (``symattn.checker`` is now ``symattn.engine.checker``, and so on: see
    ``_MOVED``), kept for one release; nothing imports it.

The public names:

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

from symattn.products import __version__ as __version__  # the release (the products' __init__ holds nothing else)

# Every public name is imported on first use (PEP 562), so that ``import symattn`` -- and with it
# ``symattn --help`` -- does not pay for SymPy, numpy and the library (issue 22: startup).
_LAZY = {
    "VerdictError": ("symattn.engine.acceptance", "VerdictError"),
    "expect_failure": ("symattn.engine.acceptance", "expect_failure"),
    "Checker": ("symattn.engine.checker", "Checker"),
    "check_theorem": ("symattn.engine.checker", "check_theorem"),
    "activation_memory": ("symattn.maths.complexity", "activation_memory"),
    "attention_mlp_ratio": ("symattn.maths.complexity", "attention_mlp_ratio"),
    "crossover": ("symattn.maths.complexity", "crossover"),
    "gqa_param_count": ("symattn.maths.complexity", "gqa_param_count"),
    "kv_cache_bytes": ("symattn.maths.complexity", "kv_cache_bytes"),
    "layer_costs": ("symattn.maths.complexity", "layer_costs"),
    "mha_param_count": ("symattn.maths.complexity", "mha_param_count"),
    "model_costs": ("symattn.maths.complexity", "model_costs"),
    "check_conformance": ("symattn.products.conformance", "check"),
    "Derivation": ("symattn.language.derivation", "Derivation"),
    "Step": ("symattn.language.derivation", "Step"),
    "flash_hbm_accesses": ("symattn.maths.flash_io", "flash_hbm_accesses"),
    "causal_mask": ("symattn.maths.masks", "causal_mask"),
    "score_pairs": ("symattn.maths.masks", "score_pairs"),
    "window_mask": ("symattn.maths.masks", "window_mask"),
    "Cov": ("symattn.maths.moments", "Cov"),
    "E": ("symattn.maths.moments", "E"),
    "Var": ("symattn.maths.moments", "Var"),
    "correlated_vectors": ("symattn.maths.moments", "correlated_vectors"),
    "dot": ("symattn.maths.moments", "dot"),
    "gaussian_vector": ("symattn.maths.moments", "gaussian_vector"),
    "iid_vector": ("symattn.maths.moments", "iid_vector"),
    "head_blocks": ("symattn.maths.multihead", "head_blocks"),
    "mha_sum_form": ("symattn.maths.multihead", "mha_sum_form"),
    "SoftmaxState": ("symattn.maths.online_softmax", "SoftmaxState"),
    "online_softmax_merge": ("symattn.maths.online_softmax", "merge"),
    "online_softmax_state": ("symattn.maths.online_softmax", "state"),
    "permutation_matrix": ("symattn.maths.permutation", "permutation_matrix"),
    "rope_matrix": ("symattn.maths.rope", "rope_matrix"),
    "rope_permutation": ("symattn.maths.rope", "rope_permutation"),
    "rotation": ("symattn.maths.rope", "rotation"),
    "sinusoidal_vector": ("symattn.maths.rope", "sinusoidal_vector"),
    "Softmax": ("symattn.maths.softmax", "Softmax"),
    "softmax": ("symattn.maths.softmax", "softmax"),
    "softmax_jacobian": ("symattn.maths.softmax", "softmax_jacobian"),
    "softmax_jacobian_entry": ("symattn.maths.softmax", "softmax_jacobian_entry"),
    "Assumption": ("symattn.language.statement", "Assumption"),
    "CorrelatedPairs": ("symattn.language.statement", "CorrelatedPairs"),
    "Equation": ("symattn.language.statement", "Equation"),
    "Independent": ("symattn.language.statement", "Independent"),
    "IndexRange": ("symattn.language.statement", "IndexRange"),
    "RandomFamily": ("symattn.language.statement", "RandomFamily"),
    "Statement": ("symattn.language.statement", "Statement"),
    "Instances": ("symattn.language.evidence", "Instances"),
    "NumericResult": ("symattn.language.evidence", "NumericResult"),
    "Probabilistic": ("symattn.language.evidence", "Probabilistic"),
    "Theorem": ("symattn.engine.theorem", "Theorem"),
    "load_all": ("symattn.engine.theorem", "load_all"),
    "register": ("symattn.engine.theorem", "register"),
    "registry": ("symattn.engine.theorem", "registry"),
    "Level": ("symattn.engine.verdict", "Level"),
    "Outcome": ("symattn.engine.verdict", "Outcome"),
    "Verdict": ("symattn.engine.verdict", "Verdict"),
}


def __getattr__(name: str):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'symattn' has no attribute {name!r}") from None
    import importlib

    # before any public name is handed out (and so before a theorem file builds a term): SymPy's wrong
    # assumption handlers, corrected by the kernel (binomial(n, 3) is no negative number)
    importlib.import_module("symattn.kernel.sympy_fixes")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


class _Package(types.ModuleType):
    """The package module: a public name that is also a submodule's name (``softmax``, the function, and
    ``symattn.softmax``, the deprecated path of its module ``symattn.maths.softmax``) stays the public
    name. The import system sets each submodule it loads as an attribute of its package, which would make
    ``from symattn import softmax`` the module once anything has imported ``symattn.softmax``; that
    assignment is not kept. The module is ``sys.modules["symattn.softmax"]``, and
    ``from symattn.softmax import ...`` works (with a warning)."""

    def __setattr__(self, name, value):
        if name in _PUBLIC_OVER_SUBMODULE and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


#: The module paths of release 0.1 and where each module now lives. Each old path is a module of its own
#: (``symattn/checker.py``...) that warns and hands over the new module itself (:func:`_moved`), so that
#: ``symattn.checker`` *is* ``symattn.engine.checker``: identity, ``isinstance`` and monkeypatching hold.
#: The submodules of a moved package (``symattn.report.build``) are found by :class:`_MovedFinder`.
_MOVED = {
    "symattn.statement": "symattn.language.statement",
    "symattn.derivation": "symattn.language.derivation",
    "symattn.printing": "symattn.language.printing",
    "symattn.sizes": "symattn.language.sizes",
    "symattn.shapes": "symattn.language.shapes",
    "symattn.timelimit": "symattn.kernel.timelimit",
    **{f"symattn.{m}": f"symattn.maths.{m}" for m in (
        "complexity", "extrema", "flash_io", "masks", "moments", "multihead", "online_softmax", "permutation",
        "rope", "softmax")},
    **{f"symattn.{m}": f"symattn.engine.{m}" for m in (
        "acceptance", "cache", "checker", "library", "theorem", "verdict")},
    **{f"symattn.{m}": f"symattn.products.{m}" for m in (
        "audit", "cli", "commands", "conformance", "problems", "pytest_plugin", "report", "sources", "startup")},
}


def _moved(old: str, stacklevel: int = 3) -> types.ModuleType:
    """Warn that module path ``old`` is deprecated and make it the module that now lives at
    ``_MOVED[old]`` (``sys.modules[old]`` is that module, which the import system then returns)."""
    import importlib
    import warnings

    new = _MOVED[old]
    warnings.warn(f"{old} is deprecated and will be removed in the next release: import {new}",
                  DeprecationWarning, stacklevel=stacklevel)
    importlib.import_module("symattn.kernel.sympy_fixes")  # as __getattr__ does
    module = importlib.import_module(new)
    sys.modules[old] = module
    return module


class _MovedFinder:
    """Finds a submodule of a moved package under its old name (``symattn.report.build``): the module
    is the one at the new name, found once; the old name only aliases it."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if not fullname.startswith("symattn.") or fullname in _MOVED:
            return None
        old = next((o for o in _MOVED if fullname.startswith(o + ".")), None)
        if old is None:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(fullname, _MovedLoader(_MOVED[old] + fullname[len(old):]))


class _MovedLoader:
    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec):
        import importlib
        import warnings

        warnings.warn(f"{spec.name} is deprecated and will be removed in the next release: import {self.new}",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(self.new)
        self.spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self.spec  # the import system set the alias's spec on it: the module keeps its own


if not any(isinstance(f, type) and f.__name__ == "_MovedFinder" for f in sys.meta_path):
    sys.meta_path.insert(0, _MovedFinder)  # before the path finder, which would load a second copy

_PUBLIC_OVER_SUBMODULE = frozenset(n for n in _LAZY if f"symattn.{n}" in _MOVED)
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
