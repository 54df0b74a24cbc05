"""How an implementation is called: layout, array type, option names, differentiation.

A check generates numpy arrays in the (batch, heads, n, d) layout and options under symattn's
names (those of :func:`numeric.attention`). An :class:`Adapter` converts both for the
implementation and converts its output back; ``vjp`` differentiates through it
(``backward="autograd"``).

Option names (symattn -> torch ``scaled_dot_product_attention`` -> ``jax.nn.dot_product_attention``):

===============  ====================  ==========================  ================================
symattn          torch SDPA            JAX                         value passed
===============  ====================  ==========================  ================================
``mask``         ``attn_mask``         ``mask``                    bool ``(n_q, n_k)``, True = attend
``causal``       ``is_causal``         ``is_causal``               True (both are top-left aligned)
``kv_heads``     ``enable_gqa``        (from the shapes)           True; k, v have h_kv heads
``window``       --                    ``local_window_size``       ``(left, right)``, top-left only
``key_lengths``  --                    ``key_value_seq_lengths``   int32 ``(batch,)``
``dropout``      ``dropout_p``         --                          p; the seed via ``torch.manual_seed``
``softcap``      --                    --                          c
``alibi_slopes`` --                    --                          float ``(h,)``
===============  ====================  ==========================  ================================

A dash means the function has no such argument: declaring that variant for it is a clear error
before any input is drawn (pass ``option_names={"window": "window_size"}`` for a kernel that has
one under another name). An option mapped to ``None`` is implied by the shapes and not passed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["NUMPY", "Adapter", "jax_adapter", "load_callable", "torch_adapter"]

# symattn's own names: what a numpy implementation receives.
NUMPY_OPTIONS = {
    "mask": "mask", "causal": "causal", "kv_heads": None, "window": "window", "align": "align",
    "softcap": "softcap", "alibi_slopes": "alibi_slopes", "key_lengths": "key_lengths",
    "dropout": "dropout", "seed": "seed",
}


def _identity(a):
    return a


def _window_as_is(window, align):
    return window


@dataclass(frozen=True)
class Adapter:
    """How to call an implementation: convert numpy inputs, rename options, convert the output back.

    ``layout`` is the implementation's tensor layout: ``"bhnd"`` (batch, heads, n, d; what symattn
    and ``torch.nn.functional.scaled_dot_product_attention`` use) or ``"bnhd"`` (batch, n, heads, d;
    FlashAttention's and JAX's). Inputs are generated as (batch, heads, n, d) and transposed.
    ``option_names`` maps symattn's option names to the implementation's (see the module
    docstring); ``dtype`` is the native dtype floating inputs are cast to (``None``: unchanged);
    ``vjp(fn, options, q, k, v, d_out) -> (out, (dq, dk, dv))`` differentiates a native function.
    """

    name: str = "numpy"
    layout: str = "bhnd"
    to_native: Callable[[np.ndarray], Any] = _identity
    from_native: Callable[[Any], np.ndarray] = np.asarray
    option_names: dict = field(default_factory=lambda: dict(NUMPY_OPTIONS))
    causal_value: Callable[[str], Any] = _identity
    window_value: Callable[[tuple, str], Any] = _window_as_is
    align_value: Callable[[str], Any] = _identity
    seed: Callable[[int], Any] | None = None  # how to seed a dropout (None: pass it as an option)
    vjp: Callable | None = None
    dtype: str | None = None
    invoke: Callable | None = None  # invoke(fn, (q, k, v), options): how to call (default: directly)
    fold_causal: bool = False  # causal together with a mask: pass one mask, the causal band folded in
    # declared capabilities: the defaults of a check through this adapter (None: no constraint)
    value_dim: str | None = None  # "same": the function needs d_v = d
    dtypes: tuple | None = None  # the dtypes it computes in; the first is the default dtype

    def __post_init__(self) -> None:
        if self.layout not in ("bhnd", "bnhd"):
            raise ValueError(f"layout must be 'bhnd' or 'bnhd', got {self.layout!r}")

    def supports(self, option: str) -> bool:
        return option in self.option_names

    def require(self, option: str, what: str) -> None:
        """Raise a clear error when the implementation has no argument for ``option``."""
        if not self.supports(option):
            raise ValueError(f"{what} was declared, but the {self.name} adapter has no argument for {option!r}; "
                             f"pass option_names={{{option!r}: '<the function's argument>'}} to the adapter")

    # ---------------------------------------------------------------------------------- layout
    def _lay(self, a: np.ndarray) -> np.ndarray:  # (B, H, N, D) -> implementation layout
        return a if self.layout == "bhnd" or a.ndim != 4 else np.ascontiguousarray(a.transpose(0, 2, 1, 3))

    def _unlay(self, a: np.ndarray, kind: str = "out") -> np.ndarray:  # implementation layout -> (B, H, N, D)
        if self.layout == "bhnd":
            return a
        if kind == "lse" and a.ndim == 3:
            return a.transpose(0, 2, 1)  # (B, N, H) -> (B, H, N)
        return a.transpose(0, 2, 1, 3) if a.ndim == 4 else a

    def _back(self, x, kind: str = "out") -> np.ndarray:
        a = self.from_native(x)
        if not isinstance(a, np.ndarray):
            raise TypeError(f"the function returned {type(x).__name__}, not an array")
        return self._unlay(a, kind)

    # ---------------------------------------------------------------------------------- options
    def native_options(self, options: dict) -> dict:
        native = {}
        options = dict(options)
        if self.fold_causal and options.get("causal") and options.get("mask") is not None:
            options["mask"] = fold_causal(options["mask"], options.pop("causal"))
        align = options.pop("align", None)
        if "seed" in options and self.seed is not None:
            self.seed(options.pop("seed"))
        for key, value in options.items():
            if value is None or value is False:
                continue
            if key not in self.option_names:
                self.require(key, f"option {key!r}")
            name = self.option_names[key]
            if name is None:  # implied by the shapes (grouped kv heads)
                continue
            if key == "causal":
                value = self.causal_value(value)
                if value is None or value is False:
                    continue
            elif key == "window":
                value = self.window_value(value, align or "top_left")
            elif isinstance(value, np.ndarray):
                value = self.to_native(value)
            native[name] = value
        if align is not None and "window" not in options and "alibi_slopes" not in options:
            align = None
        if align is not None and self.option_names.get("align"):
            native[self.option_names["align"]] = self.align_value(align)
        return native

    def _inputs(self, q, k, v):
        return tuple(self.to_native(self._lay(a)) for a in (q, k, v))

    # ---------------------------------------------------------------------------------- calls
    def call(self, fn: Callable, q: np.ndarray, k: np.ndarray, v: np.ndarray, **options):
        """``fn`` on the converted inputs; returns the output (or ``(out, lse)``) as numpy, (B, H, N, D)."""
        inputs, opts = self._inputs(q, k, v), self.native_options(options)
        result = self.invoke(fn, inputs, opts) if self.invoke is not None else fn(*inputs, **opts)
        if isinstance(result, (tuple, list)):
            if len(result) != 2:
                raise TypeError(f"the function returned a sequence of {len(result)} items, expected (out, lse)")
            return self._back(result[0]), self._back(result[1], "lse")
        return self._back(result)

    def call_backward(self, bwd: Callable, q, k, v, out, d_out, lse=None, **options):
        """A user's backward ``bwd(q, k, v, out, [lse,] d_out, **options) -> (dq, dk, dv)``."""
        nq, nk, nv = self._inputs(q, k, v)
        nout, ndo = (self.to_native(self._lay(a)) for a in (out, d_out))
        opts = self.native_options(options)
        if lse is not None:
            nlse = self.to_native(lse if self.layout == "bhnd" else np.ascontiguousarray(lse.transpose(0, 2, 1)))
            grads = bwd(nq, nk, nv, nout, nlse, ndo, **opts)
        else:
            grads = bwd(nq, nk, nv, nout, ndo, **opts)
        return self._grads(grads)

    def _grads(self, grads):
        if not isinstance(grads, (tuple, list)) or len(grads) != 3:
            raise TypeError(f"the backward returned {type(grads).__name__}, expected a tuple (dq, dk, dv)")
        return tuple(self._back(g) for g in grads)

    def call_autograd(self, fn: Callable, q, k, v, d_out, **options):
        """``(out, (dq, dk, dv))`` by differentiating ``fn`` through the array library."""
        if self.vjp is None:
            raise ValueError(f"the {self.name} adapter cannot differentiate: use backward=<a callable> "
                             "or a torch/jax adapter")
        opts = self.native_options(options)

        nq, nk, nv = self._inputs(q, k, v)
        out, grads = self.vjp(fn, opts, nq, nk, nv, self.to_native(self._lay(d_out)))
        return self._back(out), self._grads(grads)


NUMPY = Adapter()


def fold_causal(mask: np.ndarray, causal) -> np.ndarray:
    """``mask`` (``(..., n_q, n_k)``; bool, True = may attend, or additive float) with the causal band
    folded in: key ``j`` hidden from query ``i`` when ``j > i + offset`` (offset 0 top-left,
    ``n_k - n_q`` bottom-right). For functions that refuse a mask together with ``is_causal``.

    >>> fold_causal(np.ones((2, 3), dtype=bool), "top_left")
    array([[ True, False, False],
           [ True,  True, False]])
    """
    mask = np.asarray(mask)
    n_q, n_k = mask.shape[-2:]
    offset = n_k - n_q if causal == "bottom_right" else 0
    band = np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + offset  # (n_q, n_k)
    if mask.dtype == np.bool_:
        return mask & band
    return np.where(band, mask, np.asarray(-np.inf, dtype=mask.dtype)).astype(mask.dtype)


# ---------------------------------------------------------------------------------------- torch
def torch_adapter(layout: str = "bhnd", *, device: str = "cpu", dtype: str | None = None,
                  option_names: dict | None = None) -> Adapter:
    """Adapter for torch functions with the signature of ``scaled_dot_product_attention``.

    numpy -> tensors on ``device`` (``"cpu"``, or ``"cuda"`` when asked and available), cast to
    ``dtype`` (e.g. ``"bfloat16"``; default: the numpy dtype), options renamed as in the module
    docstring (``causal`` is top-left only: torch aligns its causal mask to the top-left). torch
    refuses ``attn_mask`` with ``is_causal=True``: with both, the causal band is folded into the
    mask (:func:`fold_causal`) and ``is_causal`` is not passed. The
    dropout seed is set with ``torch.manual_seed``; ``backward="autograd"`` uses
    ``torch.autograd.grad``.
    """
    import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} was asked for, but torch.cuda.is_available() is False")
    if device != "cpu" and not device.startswith("cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda[:N]', got {device!r}")
    native_dtype = None
    if dtype is not None:
        native_dtype = getattr(torch, dtype, None)
        if not isinstance(native_dtype, torch.dtype) or not native_dtype.is_floating_point:
            raise ValueError(f"dtype must name a floating torch dtype (e.g. 'bfloat16'), got {dtype!r}")

    def to_native(a):
        t = torch.from_numpy(np.ascontiguousarray(a)).to(device)
        if native_dtype is not None and t.is_floating_point():
            t = t.to(native_dtype)
        return t

    def from_native(t):
        if isinstance(t, torch.Tensor):
            t = t.detach()
            if t.dtype == torch.bfloat16:
                t = t.float()
            return t.cpu().numpy()
        return np.asarray(t)

    def causal_value(alignment):
        if alignment == "bottom_right":
            raise ValueError("torch's is_causal is top-left aligned; test it with causal='top_left'")
        return bool(alignment)

    def vjp(fn, opts, q, k, v, do):
        q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
        out = fn(q, k, v, **opts)
        out = out[0] if isinstance(out, (tuple, list)) else out
        grads = torch.autograd.grad(out, (q, k, v), do, allow_unused=True)
        grads = tuple(torch.zeros_like(x) if g is None else g for g, x in zip(grads, (q, k, v)))
        return out, grads

    names = {"mask": "attn_mask", "causal": "is_causal", "kv_heads": "enable_gqa", "dropout": "dropout_p",
             "seed": None}
    names.update(option_names or {})
    return Adapter(
        name="torch" if device == "cpu" else f"torch ({device})",
        layout=layout,
        to_native=to_native,
        from_native=from_native,
        option_names=names,
        causal_value=causal_value,
        seed=lambda s: torch.manual_seed(int(s)),
        vjp=vjp,
        dtype=dtype,
        fold_causal=True,
    )


# ---------------------------------------------------------------------------------------- JAX
def jax_adapter(layout: str = "bnhd", *, option_names: dict | None = None) -> Adapter:
    """Adapter for functions with the signature of ``jax.nn.dot_product_attention``.

    Layout (batch, n, heads, d) by default; numpy -> ``jnp`` arrays; options renamed as in the
    module docstring (``is_causal`` and ``local_window_size`` are top-left aligned; a window
    bound ``None`` becomes a bound past every key). ``backward="autograd"`` uses ``jax.vjp``.
    float64 needs ``jax.config.update("jax_enable_x64", True)``; without it jax computes in
    float32, and ``dtype="float64"`` is refused rather than silently downcast. The adapter declares
    what the function supports, so a check through it needs no more: ``value_dim="same"``
    (``dot_product_attention`` wants d_v = d) and dtypes float32, float16 (float64 too with x64),
    float32 the default; float16 only when the backend computes it (probed once: XLA on CPU
    refuses a jitted float16 attention, so there ``float16_finite`` is skipped, not failed).
    """
    import jax
    import jax.numpy as jnp

    def to_native(a):
        a = np.ascontiguousarray(a)
        if a.dtype == np.float64 and not jax.config.jax_enable_x64:
            raise ValueError("float64 inputs with jax_enable_x64 off would be computed in float32: "
                             "test with dtype='float32' or enable x64")
        if a.dtype.kind == "i":
            a = a.astype(np.int32)
        return jnp.asarray(a)

    def causal_value(alignment):
        if alignment == "bottom_right":
            raise ValueError("jax's is_causal is top-left aligned; test it with causal='top_left'")
        return bool(alignment)

    def window_value(window, align):
        if align != "top_left":
            raise ValueError("jax's local_window_size is top-left aligned; test windows with align='top_left'")
        big = 1 << 30  # an unbounded side: past every key
        left, right = window
        return (big if left is None else int(left), big if right is None else int(right))

    # Eager JAX compiles every primitive anew for every shape (seconds per new shape under
    # jax.vjp); one jitted wrapper per function and static options compiles once per shape.
    # Array options (masks, lengths) are traced arguments, the others static.
    jitted: dict = {}

    def split(opts):
        arrays = {key: value for key, value in opts.items() if isinstance(value, jax.Array)}
        static = tuple(sorted((key, value) for key, value in opts.items() if key not in arrays))
        return arrays, static

    def first(r):
        return r[0] if isinstance(r, (tuple, list)) else r

    def invoke(fn, inputs, opts):
        arrays, static = split(opts)
        key = ("call", fn, static)
        if key not in jitted:
            jitted[key] = jax.jit(lambda q, k, v, arr: fn(q, k, v, **arr, **dict(static)))
        return jitted[key](*inputs, arrays)

    def vjp(fn, opts, q, k, v, do):
        arrays, static = split(opts)
        key = ("vjp", fn, static)
        if key not in jitted:
            def run(q, k, v, do, arr):
                out, pull = jax.vjp(lambda a, b, c: first(fn(a, b, c, **arr, **dict(static))), q, k, v)
                return out, pull(do)
            jitted[key] = jax.jit(run)
        return jitted[key](q, k, v, do, arrays)

    names = {"mask": "mask", "causal": "is_causal", "kv_heads": None, "window": "local_window_size",
             "key_lengths": "key_value_seq_lengths"}
    names.update(option_names or {})
    # jax.nn.dot_product_attention needs the value head dim to equal the query's; without x64 it
    # computes in float32 (float64 inputs would be downcast silently: refused instead)
    dtypes = ("float64", "float32", "float16") if jax.config.jax_enable_x64 else ("float32", "float16")
    if not _jax_float16_works():  # XLA on CPU refuses float16 dot_general with float32 accumulation
        dtypes = tuple(d for d in dtypes if d != "float16")
    return Adapter(name="jax", layout=layout, to_native=to_native, from_native=np.asarray, option_names=names,
                   causal_value=causal_value, window_value=window_value, vjp=vjp, invoke=invoke,
                   value_dim="same", dtypes=dtypes)


_JAX_FLOAT16: dict = {}


def _jax_float16_works() -> bool:
    """Whether the default JAX backend computes a jitted float16 ``dot_product_attention`` and its
    ``vjp`` (XLA on CPU refuses the float16 x float16 -> float32 ``dot_general``). Probed once per
    backend on a (1, 1, 1, 1) input."""
    import jax
    import jax.numpy as jnp

    backend = jax.default_backend()
    if backend not in _JAX_FLOAT16:
        x = jnp.ones((1, 1, 1, 1), jnp.float16)
        f = jax.nn.dot_product_attention
        try:
            jax.block_until_ready(jax.jit(f)(x, x, x))
            out, pull = jax.vjp(jax.jit(f), x, x, x)
            jax.block_until_ready(pull(jnp.ones_like(out)))
            _JAX_FLOAT16[backend] = True
        except Exception:  # noqa: BLE001  any refusal: the backend does not compute float16 attention
            _JAX_FLOAT16[backend] = False
    return _JAX_FLOAT16[backend]


def load_callable(spec: str) -> Callable:
    """``"package.module:function"`` or ``"path/to/file.py:function"`` -> the function (imported,
    never evaluated as code). A module is looked for in the current directory first, as
    ``python -c "import mymodule"`` would; a file is imported by its path, its directory put on
    ``sys.path`` (its own helper modules import)."""
    import os
    import sys

    module_name, sep, attr = spec.rpartition(":") if isinstance(spec, str) else ("", "", "")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected MODULE:FUNCTION or FILE.py:FUNCTION, got {spec!r}")
    if module_name.endswith(".py") or "/" in module_name or os.sep in module_name:
        module = _import_path(module_name)
    else:
        if not all(part.isidentifier() for part in module_name.split(".")):
            raise ValueError(f"{module_name!r} is neither a dotted module name nor a .py file")
        cwd = os.getcwd()
        if cwd not in sys.path and "" not in sys.path:
            sys.path.insert(0, cwd)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
                raise ValueError(f"no module named {module_name!r} (looked in the current directory and on "
                                 f"sys.path; for a file, write {module_name.replace('.', '/')}.py:{attr})") from None
            raise
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{module_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{spec} is not callable")
    return obj


def _import_path(text: str):
    import hashlib
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(text).expanduser().resolve()
    if not path.is_file():
        raise ValueError(f"{text}: no such file")
    if path.suffix != ".py":
        raise ValueError(f"{text}: not a .py file")
    name = f"_symattn_conform_{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:10]}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
