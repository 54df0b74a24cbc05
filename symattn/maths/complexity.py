r"""The cost of a transformer layer, counted product by product.

For sequence length :math:`n`, width :math:`d`, :math:`h` heads of width :math:`d/h` and an MLP
expanding to :math:`r d` (:math:`r = 4` in the texts), one layer performs

.. math::

    \underbrace{3nd^2}_{Q,K,V} + \underbrace{n^2 d}_{QK^\top} + \underbrace{n^2 d}_{AV}
    + \underbrace{nd^2}_{W_O} + \underbrace{2r\,nd^2}_{\text{MLP}}
    = (4 + 2r)\,nd^2 + 2n^2 d \quad\text{multiply-accumulates},

that is :math:`12nd^2 + 2n^2d` MACs for :math:`r = 4`. Units matter: an :math:`(a \times b)(b \times c)`
product is :math:`abc` *multiply-accumulates* (MACs), which is what seed 000's table calls
"FLOPs"; profilers count a multiply and an add separately, :math:`2abc` FLOPs. Every figure here
carries its unit (``"mac"`` or ``"flop"``; memory in stored *elements*).

Unevaluated SymPy objects (:class:`MatMulMACs`, :class:`QKVProjectionMACs`, ...,
:class:`LayerMACs`, :class:`MHAParamCount`) let a derivation unfold the cost one level at a time
with the ``definition`` rule (names ``"layer_cost"``, ``"matmul_macs"``, ``"mha_param_count"``).

Examples
========

>>> import sympy as sp
>>> n, d, h = sp.symbols("n d h", positive=True, integer=True)
>>> costs = layer_costs(n, d, h)
>>> costs["total"]
12*d**2*n + 2*d*n**2
>>> costs.unit
'mac'
>>> layer_costs(n, d, h, unit="flop")["logits"]      # 2 FLOPs per multiply-accumulate
2*d*n**2
>>> mha_param_count(512)                              # 4 * 512**2 + 4 * 512
1050624
>>> crossover(d)                                      # where attention equals the MLP
{'logits_and_av': 4*d, 'attention_block': 2*d}

References
==========
Seed 000, Proposition "Complexity of a transformer layer" and its Key idea; seed 004, Worked
Example 2 "Counting Parameters and Cost"; Kaplan et al. (2020), "Scaling Laws for Neural Language
Models", Table 1 (forward pass ~ 2N FLOPs per token, backward ~ twice the forward).
"""

from __future__ import annotations

import numbers
from typing import Any

import sympy as sp

from symattn.kernel.definitions import define
from symattn.kernel.timelimit import time_limit
from symattn.language.sizes import dimension as _dimension

__all__ = [
    "UNITS",
    "COMPONENTS",
    "CROSSOVER_READINGS",
    "CostTable",
    "MatMulMACs",
    "LayerCost",
    "QKVProjectionMACs",
    "LogitsMACs",
    "AttentionValuesMACs",
    "OutputProjectionMACs",
    "MLPMACs",
    "LayerMACs",
    "MHAParamCount",
    "layer_costs",
    "activation_memory",
    "mha_param_count",
    "model_costs",
    "crossover",
    "attention_mlp_ratio",
    "KVCacheEntries",
    "GQAParamCount",
    "ArrayEntries",
    "DecodeScoreMACs",
    "RecomputeScoreMACs",
    "kv_cache_bytes",
    "gqa_param_count",
]

#: ``"mac"``: multiply-accumulates (the seed's count); ``"flop"``: 2 per MAC (profilers' count).
UNITS = ("mac", "flop")
#: The rows of seed 000's table, in order; ``total`` is their sum.
COMPONENTS = ("qkv_projections", "logits", "attention_values", "output_projection", "mlp")
#: Which attention terms are compared with the MLP (see :func:`crossover`).
CROSSOVER_READINGS = ("logits_and_av", "attention_block", "leading_order")


class CostTable(dict):
    """A mapping component -> SymPy expression, with the unit every value is counted in."""

    def __init__(self, values: dict, unit: str):
        super().__init__(values)
        self.unit = unit

    def __repr__(self) -> str:
        return f"CostTable({dict.__repr__(self)}, unit={self.unit!r})"


# ------------------------------------------------------------------------------- validation
def _ratio(value: Any) -> sp.Expr:
    """The MLP expansion factor: a positive integer, Fraction/Rational or SymPy symbol."""
    if isinstance(value, bool) or isinstance(value, (str, float)):
        raise TypeError(f"mlp_ratio must be a positive integer, rational or SymPy expression, got {value!r}")
    if isinstance(value, numbers.Rational):
        value = sp.Rational(value.numerator, value.denominator)
    if not isinstance(value, sp.Expr):
        raise TypeError(f"mlp_ratio must be a positive integer, rational or SymPy expression, got {value!r}")
    if value.is_positive is False:
        raise ValueError(f"mlp_ratio must be positive, got {value}")
    return value


def _unit(unit: Any) -> sp.Integer:
    if unit not in UNITS:
        raise ValueError(f"unit must be 'mac' (multiply-accumulates) or 'flop' (2 per MAC), got {unit!r}")
    return sp.Integer(1 if unit == "mac" else 2)


def _heads(d: sp.Expr, h: sp.Expr) -> None:
    if d.is_Integer and h.is_Integer and d % h != 0:
        raise ValueError(f"d = {d} is not divisible by h = {h}: heads of width d/h need h | d")


# ------------------------------------------------------------------------- unevaluated costs
class MatMulMACs(sp.Function):
    r"""Multiply-accumulates of an :math:`(a \times b)(b \times c)` matrix product: :math:`abc`.

    >>> a, b, c = sp.symbols("a b c", positive=True)
    >>> MatMulMACs(a, b, c), MatMulMACs(a, b, c).doit()
    (MatMulMACs(a, b, c), a*b*c)
    """

    nargs = 3

    @classmethod
    def eval(cls, a, b, c):
        return None  # stays unevaluated: the definition is unfolded by an explicit step

    def doit(self, **hints):
        a, b, c = (x.doit(**hints) if hints.get("deep", True) else x for x in self.args)
        return a * b * c

    def _latex(self, printer):
        a, b, c = (printer._print(x) for x in self.args)
        return r"\operatorname{MAC}\left(%s \times %s \cdot %s \times %s\right)" % (a, b, b, c)


class LayerCost(sp.Function):
    """Base class of the unevaluated per-component costs of a layer (MACs).

    ``expanded()`` rewrites the cost as the matrix products that incur it (one level); the
    ``definition`` rule ``"layer_cost"`` unfolds any subclass the same way.
    """

    _tex = "cost"

    @classmethod
    def eval(cls, *args):
        return None

    def expanded(self) -> sp.Expr:  # pragma: no cover - overridden
        raise NotImplementedError

    def doit(self, **hints):
        return self.expanded().doit(**hints)

    def _latex(self, printer):
        args = ", ".join(printer._print(a) for a in self.args)
        return r"\operatorname{MAC}_{\mathrm{%s}}\left(%s\right)" % (self._tex, args)


class QKVProjectionMACs(LayerCost):
    """``Q, K, V = X W_Q^m, X W_K^m, X W_V^m`` for ``h`` heads: ``3h`` products ``(n x d)(d x d/h)``.

    >>> n, d, h = sp.symbols("n d h", positive=True)
    >>> QKVProjectionMACs(n, d, h).doit()
    3*d**2*n
    """

    nargs = 3
    _tex = "QKV"

    def expanded(self):
        n, d, h = self.args
        return 3 * h * MatMulMACs(n, d, d / h)


class LogitsMACs(LayerCost):
    """``Q^m (K^m)^T`` for ``h`` heads: ``h`` products ``(n x d/h)(d/h x n)``.

    >>> n, d, h = sp.symbols("n d h", positive=True)
    >>> LogitsMACs(n, d, h).doit()
    d*n**2
    """

    nargs = 3
    _tex = "QK^\\top"

    def expanded(self):
        n, d, h = self.args
        return h * MatMulMACs(n, d / h, n)


class AttentionValuesMACs(LayerCost):
    """``A^m V^m`` for ``h`` heads: ``h`` products ``(n x n)(n x d/h)``.

    >>> n, d, h = sp.symbols("n d h", positive=True)
    >>> AttentionValuesMACs(n, d, h).doit()
    d*n**2
    """

    nargs = 3
    _tex = "AV"

    def expanded(self):
        n, d, h = self.args
        return h * MatMulMACs(n, n, d / h)


class OutputProjectionMACs(LayerCost):
    """``Concat(heads) W_O``: one product ``(n x d)(d x d)``.

    >>> n, d = sp.symbols("n d", positive=True)
    >>> OutputProjectionMACs(n, d).doit()
    d**2*n
    """

    nargs = 2
    _tex = "W_O"

    def expanded(self):
        n, d = self.args
        return MatMulMACs(n, d, d)


class MLPMACs(LayerCost):
    """``W_2 rho(W_1 x)`` on ``n`` tokens, hidden width ``r d``: ``(n x d)(d x rd)`` then ``(n x rd)(rd x d)``.

    >>> n, d = sp.symbols("n d", positive=True)
    >>> MLPMACs(n, d, 4).doit()
    8*d**2*n
    """

    nargs = 3
    _tex = "MLP"

    def expanded(self):
        n, d, r = self.args
        return MatMulMACs(n, d, r * d) + MatMulMACs(n, r * d, d)


class LayerMACs(LayerCost):
    """One layer: the sum of seed 000's table, ``(4 + 2r) n d^2 + 2 n^2 d`` MACs.

    >>> n, d, h = sp.symbols("n d h", positive=True)
    >>> LayerMACs(n, d, h, 4).doit()
    12*d**2*n + 2*d*n**2
    """

    nargs = 4
    _tex = "layer"

    def expanded(self):
        n, d, h, r = self.args
        return (QKVProjectionMACs(n, d, h) + LogitsMACs(n, d, h) + AttentionValuesMACs(n, d, h)
                + OutputProjectionMACs(n, d) + MLPMACs(n, d, r))


class MHAParamCount(sp.Function):
    r"""Parameters of one multi-head attention block with biases: ``h`` heads, each with
    :math:`W_Q^m, W_K^m, W_V^m \in \mathbb{R}^{d \times d/h}` and biases of length :math:`d/h`, plus
    :math:`W_O \in \mathbb{R}^{d \times d}` and its bias: :math:`4d^2 + 4d`, independent of ``h``.

    >>> d, h = sp.symbols("d h", positive=True)
    >>> MHAParamCount(d, h).doit()
    4*d**2 + 4*d
    """

    nargs = 2

    @classmethod
    def eval(cls, d, h):
        return None

    def expanded(self) -> sp.Expr:
        d, h = self.args
        return 3 * h * (d * (d / h) + d / h) + (d * d + d)

    def doit(self, **hints):
        return sp.expand(self.expanded())

    def _latex(self, printer):
        return r"\#\text{params}_{\mathrm{MHA}}\left(%s, %s\right)" % tuple(printer._print(a) for a in self.args)


define("layer_cost", LayerCost, lambda e: e.expanded(),
       text=r"cost of a layer component = the matrix products that incur it")
define("matmul_macs", MatMulMACs, lambda e: e.args[0] * e.args[1] * e.args[2],
       text=r"an (a x b)(b x c) product costs abc multiply-accumulates")
define("mha_param_count", MHAParamCount, lambda e: e.expanded(),
       text=r"h heads x (3 weight blocks d x d/h + 3 biases d/h) + W_O (d x d) + its bias (d)")


# ---------------------------------------------------------------------------------- helpers
def layer_costs(n, d, h, *, mlp_ratio=4, unit: str = "mac", causal: bool = False, window=None) -> CostTable:
    """Seed 000's table as exact SymPy expressions: one cost per component and the total.

    Parameters
    ==========
    n, d, h : positive int or SymPy expression
        Sequence length, model width, number of heads (``h`` must divide ``d`` when both are integers).
    mlp_ratio : positive int, Fraction or SymPy expression
        MLP hidden width over ``d`` (4 in the texts).
    unit : ``"mac"`` or ``"flop"``
        Multiply-accumulates (what the seed's "FLOPs" column counts), or FLOPs = 2 x MAC.
    causal, window :
        Count only the score pairs a causal mask (``n(n+1)/2``) or a sliding window of ``window``
        keys (``w(w+1)/2 + (n-w)w``) keeps, for the logits and the weighted values
        (:func:`symattn.maths.masks.score_pairs`; theorems ``causal_score_pairs``,
        ``sliding_window_score_pairs``). A kernel that skips masked blocks comes close to this;
        one that computes the full score matrix and masks it does not.

    Returns
    =======
    :class:`CostTable` with keys ``qkv_projections, logits, attention_values, output_projection,
    mlp, total`` and attribute ``unit``.

    Examples
    ========

    >>> t = layer_costs(2048, 4096, 32)
    >>> t["mlp"] > t["logits"] + t["attention_values"]      # 8nd^2 vs 2n^2 d: n < 4d
    True
    >>> layer_costs(3, 4, 3)
    Traceback (most recent call last):
      ...
    ValueError: d = 4 is not divisible by h = 3: heads of width d/h need h | d
    >>> layer_costs(4, 8, 2, causal=True)["logits"]       # 10 of the 16 pairs, d = 8 MACs each
    80
    >>> layer_costs(8, 8, 2, window=3)["attention_values"]  # 21 pairs
    168
    """
    n, d, h = _dimension("n", n), _dimension("d", d), _dimension("h", h)
    _heads(d, h)
    r = _ratio(mlp_ratio)
    k = _unit(unit)
    objs = {
        "qkv_projections": QKVProjectionMACs(n, d, h),
        "logits": LogitsMACs(n, d, h),
        "attention_values": AttentionValuesMACs(n, d, h),
        "output_projection": OutputProjectionMACs(n, d),
        "mlp": MLPMACs(n, d, r),
    }
    values = {key: sp.expand(k * obj.doit()) for key, obj in objs.items()}
    if causal or window is not None:
        from symattn.maths.masks import score_pairs

        pairs = score_pairs(n, causal=causal, window=window)
        values["logits"] = values["attention_values"] = sp.expand(k * pairs * d)
    values["total"] = sp.expand(sum(values.values()))
    return CostTable(values, unit)


def activation_memory(n, d, h, *, mlp_ratio=4) -> CostTable:
    """Activations stored by one layer's forward pass, in *elements* (multiply by bytes per element).

    Seed 000's memory column: ``Q, K, V`` (``3nd``), one ``n x n`` attention matrix per head
    (``h n^2``), ``AV`` (``nd``), the output projection (``nd``) and the MLP hidden layer (``r n d``).

    >>> import sympy as sp
    >>> n, d, h = sp.symbols("n d h", positive=True, integer=True)
    >>> activation_memory(n, d, h)["total"]
    9*d*n + h*n**2
    """
    n, d, h = _dimension("n", n), _dimension("d", d), _dimension("h", h)
    _heads(d, h)
    r = _ratio(mlp_ratio)
    values = {
        "qkv_projections": 3 * n * d,
        "logits": h * n**2,
        "attention_values": n * d,
        "output_projection": n * d,
        "mlp": sp.expand(r * n * d),
    }
    values["total"] = sp.expand(sum(values.values()))
    return CostTable(values, "elements")


def mha_param_count(d, *, bias: bool = True, h=None) -> sp.Expr:
    """Parameters of one multi-head attention block: ``4 d^2`` weights (+ ``4 d`` biases).

    ``h`` is optional and only checked (``h | d``): with ``d_k = d_v = d/h`` the count does not
    depend on ``h``.

    >>> mha_param_count(512), mha_param_count(512, bias=False)
    (1050624, 1048576)
    """
    if not isinstance(bias, bool):
        raise TypeError(f"bias must be True or False, got {bias!r}")
    d = _dimension("d", d)
    if h is not None:
        _heads(d, _dimension("h", h))
    return sp.expand(4 * d**2 + (4 * d if bias else 0))


def model_costs(n, d, h, layers, *, vocab=None, mlp_ratio=4, unit: str = "mac") -> CostTable:
    """Whole-model matrix-product cost of one sequence of ``n`` tokens.

    Keys: ``layer`` (one layer, :func:`layer_costs` total), ``layers`` (times ``layers``),
    ``unembedding`` (``n d vocab`` for the output logits, 0 without ``vocab``), ``forward``,
    ``backward`` and ``train_step``.

    ``backward = 2 x forward`` is the standard *approximation* (Kaplan et al. 2020), not a
    theorem: each product ``Y = X W`` needs ``dX = dY W^T`` and ``dW = X^T dY`` in the backward
    pass, each as costly as the forward product; elementwise work (softmax, norms,
    activations) and the first layer's unneeded input gradient are ignored.

    >>> c = model_costs(1, 512, 8, 6)
    >>> c["backward"] == 2 * c["forward"], c["train_step"] == 3 * c["forward"]
    (True, True)
    """
    layers = _dimension("layers", layers)
    per = layer_costs(n, d, h, mlp_ratio=mlp_ratio, unit=unit)["total"]
    if vocab is None:
        unemb = sp.Integer(0)
    else:
        vocab = _dimension("vocab", vocab)
        unemb = _unit(unit) * _dimension("n", n) * _dimension("d", d) * vocab
    forward = sp.expand(layers * per + unemb)
    return CostTable(
        {
            "layer": per,
            "layers": sp.expand(layers * per),
            "unembedding": sp.expand(unemb),
            "forward": forward,
            "backward": sp.expand(2 * forward),
            "train_step": sp.expand(3 * forward),
        },
        unit,
    )


def attention_mlp_ratio(n, d, *, reading: str = "logits_and_av", mlp_ratio=4) -> sp.Expr:
    """Attention cost over MLP cost for one layer, under one reading of "attention":

    * ``"logits_and_av"``: the two ``n^2 d`` terms, ``2n^2 d / (2r n d^2) = n / (r d)``;
    * ``"attention_block"``: projections too, ``(4nd^2 + 2n^2 d) / (2r n d^2)``;
    * ``"leading_order"``: seed 000's summary "attention costs n^2 d and the MLP costs n d^2",
      constants dropped: ``n / d``.

    >>> attention_mlp_ratio(128000, 4096), attention_mlp_ratio(128000, 4096, reading="leading_order")
    (125/16, 125/4)
    """
    n, d = _dimension("n", n), _dimension("d", d)
    r = _ratio(mlp_ratio)
    if reading not in CROSSOVER_READINGS:
        raise ValueError(f"reading must be one of {CROSSOVER_READINGS}, got {reading!r}")
    if reading == "leading_order":
        return sp.cancel(n**2 * d / (n * d**2))
    t = layer_costs(n, d, 1, mlp_ratio=r)
    attn = t["logits"] + t["attention_values"]
    if reading == "attention_block":
        attn += t["qkv_projections"] + t["output_projection"]
    return sp.cancel(attn / t["mlp"])


def crossover(d, *, mlp_ratio=4, seconds: float = 5.0) -> dict:
    """The sequence length at which attention costs as much as the MLP, solved symbolically.

    Returns ``{"logits_and_av": n*, "attention_block": n*}``: the positive root in ``n`` of
    ``2n^2 d = 2r n d^2`` (``n* = r d``) and of ``4nd^2 + 2n^2 d = 2r n d^2`` (``n* = (r - 2) d``;
    ``None`` when ``r <= 2``, the attention block then always costs at least the MLP). Above
    ``n*`` attention costs more. With the seed's ``r = 4``: ``4d`` and ``2d``, not the text's
    "``n ~ d``" (which is the ``leading_order`` reading, ``n^2 d = n d^2``).

    >>> crossover(4096)
    {'logits_and_av': 16384, 'attention_block': 8192}
    """
    d = _dimension("d", d)
    r = _ratio(mlp_ratio)
    n = sp.Symbol("n", positive=True)
    t = layer_costs(n, d, 1, mlp_ratio=r)
    eqs = {
        "logits_and_av": t["logits"] + t["attention_values"] - t["mlp"],
        "attention_block": t["qkv_projections"] + t["logits"] + t["attention_values"] + t["output_projection"]
        - t["mlp"],
    }
    out = {}
    with time_limit(seconds):
        for key, gap in eqs.items():
            roots = [x for x in sp.solve(gap, n) if x.is_positive is not False]
            out[key] = sp.factor(roots[0]) if roots else None
    return out


# ------------------------------------------------------------------ KV cache and grouped-query attention
class KVCacheEntries(sp.Function):
    r"""Values held by a KV cache: for each of ``L`` layers, each of ``B`` sequences and each of ``T``
    cached tokens, a key and a value vector of width ``d_head`` for each of the ``h_kv`` key/value
    heads: :math:`2 L h_{kv} d_{head} T B`.

    >>> L, h, d, T, B = sp.symbols("L h d T B", positive=True, integer=True)
    >>> KVCacheEntries(L, h, d, T, B).doit()
    2*B*L*T*d*h
    """

    nargs = 5

    @classmethod
    def eval(cls, *args):
        return None

    def expanded(self) -> sp.Expr:
        L, h_kv, d_head, T, B = self.args
        # keys and values (2) x layers x sequences x tokens x (heads x head width)
        return 2 * L * B * T * NumHeadEntries(h_kv, d_head)

    def doit(self, **hints):
        return sp.expand(self.expanded().doit())

    def _latex(self, printer):
        return r"\#\text{KV}\left(%s\right)" % ", ".join(printer._print(a) for a in self.args)


class NumHeadEntries(sp.Function):
    """Entries of one token's key (or value) over all ``h_kv`` heads of width ``d_head``."""

    nargs = 2

    @classmethod
    def eval(cls, *args):
        return None

    def expanded(self) -> sp.Expr:
        h_kv, d_head = self.args
        return h_kv * d_head

    def doit(self, **hints):
        return self.expanded()

    def _latex(self, printer):
        return r"%s \cdot %s" % tuple(printer._print(a) for a in self.args)


class GQAParamCount(sp.Function):
    r"""Projection weights of grouped-query attention with ``h`` query heads, ``h_kv`` key/value
    heads, width ``d`` and heads of width ``d/h``: :math:`W_Q, W_O \in \mathbb R^{d \times d}`,
    :math:`W_K, W_V \in \mathbb R^{d \times h_{kv} d/h}`; with ``bias`` (1) their biases too.

    >>> d, h, g = sp.symbols("d h h_kv", positive=True, integer=True)
    >>> GQAParamCount(d, h, g, 0).doit()
    2*d**2 + 2*d**2*h_kv/h
    """

    nargs = 4

    @classmethod
    def eval(cls, *args):
        return None

    def expanded(self) -> sp.Expr:
        d, h, h_kv, bias = self.args
        width = h_kv * d / h
        return (MatrixEntries(d, d) + 2 * MatrixEntries(d, width) + MatrixEntries(d, d)
                + bias * (d + 2 * width + d))

    def doit(self, **hints):
        return sp.expand(self.expanded().doit())

    def _latex(self, printer):
        d, h, h_kv, bias = (printer._print(a) for a in self.args)
        name = r"\text{params}^{+b}" if self.args[3] == 1 else r"\text{params}"
        return r"\#%s_{\mathrm{GQA}}\left(%s, %s, %s\right)" % (name, d, h, h_kv)


class MatrixEntries(sp.Function):
    """Entries of an ``a x b`` matrix: ``ab``."""

    nargs = 2

    @classmethod
    def eval(cls, *args):
        return None

    def doit(self, **hints):
        return self.args[0] * self.args[1]

    def _latex(self, printer):
        return r"\#\mathbb{R}^{%s \times %s}" % tuple(printer._print(a) for a in self.args)


class ArrayEntries(sp.Function):
    r"""Entries of an array of shape ``(n_1, ..., n_k)``, counted from the shape: the number of index
    tuples, :math:`\sum_{r_1=1}^{n_1} \cdots \sum_{r_k=1}^{n_k} 1` (definition ``array_entries``).
    The theorems that count parameters, caches and memory traffic start from this, not from a product.

    >>> a, b = sp.symbols("a b", positive=True, integer=True)
    >>> ArrayEntries(a, b).expanded()
    Sum(1, (r_1, 1, a), (r_2, 1, b))
    >>> ArrayEntries(a, b).doit(), ArrayEntries(2, 3, 4).doit()
    (a*b, 24)
    """

    @classmethod
    def eval(cls, *shape):
        if not shape:
            raise TypeError("ArrayEntries needs at least one dimension")
        return None

    def expanded(self) -> sp.Expr:
        idx = [sp.Symbol(f"r_{m}", integer=True, positive=True) for m in range(1, len(self.args) + 1)]
        return sp.Sum(sp.S.One, *[(r, 1, size) for r, size in zip(idx, self.args)])

    def doit(self, **hints):
        out = sp.S.One
        for size in self.args:
            out *= size
        return out

    def _latex(self, printer):
        return r"\#\mathbb{R}^{%s}" % r" \times ".join(printer._print(a) for a in self.args)


class _StepSumMACs(sp.Function):
    """Base of the decoding costs summed over steps ``t = 1..n``: a subclass names the product of
    step ``t`` in ``_step(t, d)``; ``expanded()`` is the unevaluated sum of those products."""

    nargs = 2

    @classmethod
    def eval(cls, *args):
        return None

    def _step(self, t, d) -> sp.Expr:  # pragma: no cover - overridden
        raise NotImplementedError

    def expanded(self) -> sp.Expr:
        n, d = self.args
        t = sp.Symbol("t", integer=True, positive=True)
        return sp.Sum(self._step(t, d), (t, 1, n))

    def doit(self, **hints):
        return sp.expand(self.expanded().replace(lambda e: isinstance(e, MatMulMACs), lambda e: e.doit()).doit())


class DecodeScoreMACs(_StepSumMACs):
    r"""Score multiply-accumulates of ``n`` decoding steps with a KV cache: at step ``t`` one new
    query against the ``t`` cached keys, a :math:`(1 \times d)(d \times t)` product.

    >>> n, d = sp.symbols("n d", positive=True, integer=True)
    >>> DecodeScoreMACs(n, d).doit()
    d*n**2/2 + d*n/2
    """

    def _step(self, t, d) -> sp.Expr:
        return MatMulMACs(1, d, t)

    def _latex(self, printer):
        return r"\operatorname{MAC}_{\mathrm{decode}}\left(%s, %s\right)" % tuple(printer._print(a) for a in self.args)


class RecomputeScoreMACs(_StepSumMACs):
    r"""Score multiply-accumulates of ``n`` decoding steps without a cache: at step ``t`` all ``t``
    queries against all ``t`` keys are recomputed, a :math:`(t \times d)(d \times t)` product.

    >>> n, d = sp.symbols("n d", positive=True, integer=True)
    >>> sp.factor(RecomputeScoreMACs(n, d).doit())
    d*n*(n + 1)*(2*n + 1)/6
    """

    def _step(self, t, d) -> sp.Expr:
        return MatMulMACs(t, d, t)

    def _latex(self, printer):
        return (r"\operatorname{MAC}_{\mathrm{no\,cache}}\left(%s, %s\right)"
                % tuple(printer._print(a) for a in self.args))


define("kv_cache_entries", KVCacheEntries, lambda e: e.expanded(),
       text=r"2 (keys and values) x layers x sequences x tokens x entries per token")
define("head_entries", NumHeadEntries, lambda e: e.expanded(), text=r"h_kv heads of width d_head")
define("gqa_param_count", GQAParamCount, lambda e: e.expanded(),
       text=r"W_Q, W_O: d x d; W_K, W_V: d x h_kv d/h; biases of the same widths")
define("matrix_entries", MatrixEntries, lambda e: e.doit(), text=r"an a x b matrix has ab entries")
define("array_entries", ArrayEntries, lambda e: e.expanded(),
       text=r"an array of shape (n_1, ..., n_k) has one entry per index tuple")
define("decode_macs", DecodeScoreMACs, lambda e: e.expanded(),
       text=r"step t: one query against t cached keys")
define("recompute_macs", RecomputeScoreMACs, lambda e: e.expanded(),
       text=r"step t: t queries against t keys, recomputed")


def kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch=1, bytes_per_value=2) -> sp.Expr:
    """Bytes of a KV cache: ``2 * layers * kv_heads * head_dim * tokens * batch * bytes_per_value``
    (theorem ``kv_cache_size``; 2 for keys and values; ``bytes_per_value`` 2 for 16-bit).

    Examples
    ========
    A 32-layer model with 32 heads of width 128 in 16-bit holds half a mebibyte per token; with
    8 key/value heads (grouped-query attention) a quarter of that, 128 KiB:

    >>> kv_cache_bytes(32, 32, 128, 1)            # 2 * 32 * 32 * 128 * 2 bytes = 0.5 MiB
    524288
    >>> kv_cache_bytes(32, 8, 128, 1) // 1024     # KiB
    128
    >>> kv_cache_bytes(32, 8, 128, 8192, batch=4) / 2**30    # 4 sequences of 8192 tokens, GiB
    4
    >>> kv_cache_bytes(32, 8, 128, 1, bytes_per_value=0)
    Traceback (most recent call last):
      ...
    ValueError: bytes_per_value must be a positive integer, got 0
    """
    values = [_dimension(name, v) for name, v in (("layers", layers), ("kv_heads", kv_heads),
                                                  ("head_dim", head_dim), ("tokens", tokens), ("batch", batch),
                                                  ("bytes_per_value", bytes_per_value))]
    L, h_kv, d_head, T, B, size = values
    return sp.expand(KVCacheEntries(L, h_kv, d_head, T, B).doit() * size)


def gqa_param_count(d, heads, kv_heads, *, bias: bool = False) -> sp.Expr:
    """Projection parameters of grouped-query attention: ``2d^2 + 2d^2 kv_heads/heads`` weights
    (theorem ``gqa_param_count``), plus ``2d + 2d kv_heads/heads`` biases with ``bias=True``.

    ``kv_heads = heads`` is multi-head attention (``4d^2``), ``kv_heads = 1`` multi-query attention.
    The count holds where ``kv_heads`` divides ``heads`` (and ``heads`` divides ``d``): refused when the
    sizes show it cannot (``kv_heads = heads + 1``); with symbols it is the formula under that condition.

    >>> gqa_param_count(4096, 32, 8)                # 2 * 4096^2 * (1 + 8/32)
    41943040
    >>> gqa_param_count(512, 8, 8, bias=True) == mha_param_count(512)
    True
    >>> gqa_param_count(512, 8, 3)
    Traceback (most recent call last):
      ...
    ValueError: kv_heads = 3 must divide heads = 8 (each key/value head serves a whole group)
    """
    if not isinstance(bias, bool):
        raise TypeError(f"bias must be True or False, got {bias!r}")
    d, h, h_kv = _dimension("d", d), _dimension("heads", heads), _dimension("kv_heads", kv_heads)
    _heads(d, h)
    if h.is_Integer and h_kv.is_Integer and h % h_kv != 0:
        raise ValueError(f"kv_heads = {h_kv} must divide heads = {h} (each key/value head serves a whole group)")
    if (h_kv - h).is_positive or (h / h_kv).is_integer is False:
        raise ValueError(f"kv_heads = {h_kv} cannot divide heads = {h}: it is larger or leaves a remainder at "
                         "every size (each key/value head serves a whole group)")
    return sp.expand(GQAParamCount(d, h, h_kv, sp.Integer(int(bias))).doit())
