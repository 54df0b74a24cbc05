"""``check``: run every property on an implementation and collect the verdicts."""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable

import numpy as np

from symattn.kernel.environment import MAX_SECONDS, seconds_problem

from . import properties as props
from . import variants
from .adapters import NUMPY, Adapter
from .cases import Case, Space
from .hints import for_cli
from .protocol import precision
from .references import explicit_mask
from .result import CallTimeout, ConformanceResult, PropertyResult

__all__ = ["DEFAULT_CALL_TIMEOUT", "PROPERTIES", "CallTimeout", "Runner", "check"]

#: Every property :func:`check` runs, in order (re-exported by the package).
PROPERTIES = (
    "agrees_with_reference",
    "lse_agrees_with_reference",
    "backward_agrees_with_reference",
    "convex_hull",
    "key_value_permutation",
    "query_permutation",
    "default_scale",
    "causal_no_future",
    "fully_masked_rows",
    "empty_sequences",
    "large_logits_finite",
    "float16_finite",
    "masked_values_do_not_leak",
    "deterministic",
    "rope_relative",
    *variants.NAMES,
)

#: seconds one call of the function (or of its backward) may take before the check stops
DEFAULT_CALL_TIMEOUT = 60.0


class Runner:
    """The implementation under test with everything it declared: how to call it, what to draw."""

    def __init__(self, fn, adapter: Adapter, dtype: str, causal, mask: bool, examples: int, space: Space,
                 backward, returns_lse: bool, dtypes: tuple[str, ...], masked_values_safe: bool = False,
                 call_timeout: float | None = DEFAULT_CALL_TIMEOUT):
        self.fn = fn
        self.call_timeout = call_timeout  # None: no limit
        self.hung: str | None = None  # set when a call timed out: the check stops there
        self.adapter = adapter
        self.prec = precision(dtype)
        self.causal = causal  # False, "top_left" or "bottom_right"
        self.mask = mask
        self.examples = examples
        self.space = space
        self.backward = backward  # None, "autograd" or a callable
        self.returns_lse = returns_lse
        self.dtypes = dtypes
        self.masked_values_safe = masked_values_safe  # NaN/inf behind a mask promised not to leak

    # ------------------------------------------------------------------------------ inputs
    def mask_for(self, case: Case) -> np.ndarray:
        """A random ``(n_q, n_k)`` mask: boolean (True = may attend) or, for ``mask="float"``,
        additive (0 or -inf, in the tested dtype); key 0 is always visible."""
        rng = np.random.default_rng(case.seed + 1)
        m = rng.random((case.n_q, case.n_k)) < 0.7
        m[:, 0] = True  # fully masked rows are reported by their own property
        return self.as_mask(m)

    def as_mask(self, allowed: np.ndarray) -> np.ndarray:
        """A boolean "may attend" matrix in the form the function takes."""
        if self.mask == "float":
            return self.prec.cast(np.where(allowed, 0.0, -np.inf))
        return allowed

    def options(self, case: Case, **extra) -> dict:
        """The options of one call, under symattn's names; ``extra`` adds or overrides."""
        opts = {}
        if self.causal:
            opts["causal"] = self.causal
        if self.mask:
            opts["mask"] = self.mask_for(case)
        opts.update(extra)
        return {key: value for key, value in opts.items() if value is not None}

    def reproduction(self, case: Case, opts: dict, before: str = "", dtype: str | None = None) -> str:
        """Python statements that follow ``Case(...).arrays()`` in a counterexample's reproduction:
        ``before`` (what the property did to the float64 arrays), the cast to the tested dtype,
        the options passed (the mask redrawn as :meth:`mask_for` draws it) and the call."""
        parts = [before] if before else []
        dtype = dtype or self.prec.storage.name
        if dtype != "float64":
            parts.append(f"q, k, v = (a.astype('{dtype}') for a in (q, k, v))")
        args = []
        for key, value in opts.items():
            if key == "mask" and self.mask:
                parts.append("import numpy as np")
                parts.append(f"mask = np.random.default_rng({case.seed + 1}).random(({case.n_q}, {case.n_k})) < 0.7")
                parts.append("mask[:, 0] = True")
                if self.mask == "float":
                    parts.append(f"mask = np.where(mask, 0.0, -np.inf).astype('{self.prec.storage.name}')")
                args.append("mask=mask")
            elif isinstance(value, np.ndarray):
                parts.append("import numpy as np")
                args.append(f"{key}=np.array({value.tolist()!r})")
            else:
                args.append(f"{key}={value!r}")
        parts.append("out = fn(" + ", ".join(["q", "k", "v", *args]) + ")")
        seen, code = set(), []
        for part in parts:  # "import numpy as np" once
            if part not in seen:
                seen.add(part)
                code.append(part)
        return "; ".join(code)

    def inputs(self, case: Case):
        """``(q, k, v)`` in float64 and the same values in the tested dtype."""
        exact = case.arrays(np.float64)
        return exact, tuple(self.prec.cast(a) for a in exact)

    def empty_rows(self, case: Case, opts: dict) -> np.ndarray:
        """Boolean ``(b, h, n_q)``: queries that may attend to no key."""
        allowed = explicit_mask(opts, (case.b, case.h, case.n_q, case.n_k))
        if allowed.dtype != np.bool_:
            allowed = allowed != -np.inf
        return ~allowed.any(axis=-1)

    # ------------------------------------------------------------------------------ calls
    def guarded(self, thunk):
        """``thunk()`` under the watchdog: run in a daemon thread, abandoned (and :class:`CallTimeout`
        raised) when it has not returned within ``call_timeout`` seconds, so a function that never
        returns fails the check instead of hanging it."""
        if self.hung:
            raise CallTimeout(self.hung)
        if self.call_timeout is None:
            return thunk()
        box: dict = {}

        def target():
            try:
                box["value"] = thunk()
            except BaseException as exc:  # noqa: BLE001  handed to the caller's thread
                box["error"] = exc

        worker = threading.Thread(target=target, name="symattn-conform-call", daemon=True)
        worker.start()
        worker.join(self.call_timeout)
        if worker.is_alive():
            self.hung = f"the function did not return within {self.call_timeout:g} s (allow longer with call_timeout=S)"
            raise CallTimeout(self.hung)
        if "error" in box:
            raise box["error"]
        return box["value"]

    def call(self, q, k, v, **opts):
        """``(out, lse)`` as numpy in (b, h, n, d) layout; ``lse`` is None unless ``returns_lse``."""
        result = self.guarded(lambda: self.adapter.call(self.fn, q, k, v, **opts))
        if self.returns_lse:
            if not isinstance(result, tuple):
                raise TypeError("returns_lse=True, but the function returned one array, not (out, lse)")
            out, lse = result
        else:
            if isinstance(result, tuple):
                raise TypeError("the function returned (out, lse); declare returns_lse=True")
            out, lse = result, None
        expected = q.shape[:-1] + (v.shape[-1],)
        if out.shape != expected:
            raise ValueError(f"output shape {out.shape}, expected {expected}")
        if lse is not None and lse.shape != q.shape[:-1]:
            raise ValueError(f"lse shape {lse.shape}, expected {q.shape[:-1]}")
        return out, lse

    def out(self, q, k, v, **opts) -> np.ndarray:
        return self.call(q, k, v, **opts)[0].astype(np.float64)

    def grads(self, q, k, v, d_out, **opts):
        """``(out, (dq, dk, dv))`` from the declared backward."""
        if self.backward == "autograd":
            out, grads = self.guarded(lambda: self.adapter.call_autograd(self.fn, q, k, v, d_out, **opts))
        else:
            out, lse = self.call(q, k, v, **opts)
            grads = self.guarded(lambda: self.adapter.call_backward(self.backward, q, k, v, self.prec.cast(out),
                                                                    d_out, lse=lse, **opts))
        for name, g, x in zip(("dq", "dk", "dv"), grads, (q, k, v)):
            if g.shape != x.shape:
                raise ValueError(f"{name} has shape {g.shape}, expected {x.shape}")
        return out, grads


def _passed_names(adapter: Adapter, causal, mask, spec: variants.Spec) -> tuple[dict, set]:
    """``({argument: what declared it}, arguments passed in every call)``: the keyword arguments
    of ``fn`` the check will use, under the function's own names."""
    named: dict = {}

    def note(option, why):
        name = adapter.option_names.get(option)
        if name is not None:
            named.setdefault(name, why)

    if causal and adapter.causal_value(causal) not in (None, False):
        note("causal", f"causal={causal!r}")
    if mask:
        note("mask", "mask=True")
    if spec.kv_heads is not None:
        note("kv_heads", "kv_heads")
    if spec.window is not None:
        note("window", "window=(left, right)")
        note("align", "window=(left, right)")
    if spec.softcap is not None:
        note("softcap", "softcap=c")
    if spec.alibi:
        note("alibi_slopes", "alibi=True")
    if spec.key_lengths:
        note("key_lengths", "key_lengths=True")
    if spec.dropout is not None:
        note("dropout", "dropout=p")
        if adapter.seed is None:
            note("seed", "dropout=p")
    always = set()
    if causal and not (adapter.fold_causal and mask):
        always |= {n for n in (adapter.option_names.get("causal"),) if n in named}
    if mask:
        always |= {n for n in (adapter.option_names.get("mask"),) if n in named}
    return named, always


def _check_signature(fn: Callable, what: str, positional: tuple[str, ...], named: dict, always: set) -> None:
    """A clear error now when ``fn`` cannot take the calls the check will make (arity, a declared
    option it has no argument for, a required argument the check never passes)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: the calls will tell
        return
    params = sig.parameters.values()
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    accepted = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    call = f"{what}({', '.join(positional)}, **options)"
    missing = [name for name in named if not var_kw and name not in accepted]
    if missing:
        name = missing[0]
        raise TypeError(f"{named[name]} was declared, but {what}{sig} has no argument {name!r} "
                        f"(nor **options): add it, or do not declare it")
    dummy = object()
    try:
        sig.bind(*(dummy for _ in positional), **{name: dummy for name in named})
        sig.bind(*(dummy for _ in positional), **{name: dummy for name in always})
    except TypeError as exc:
        raise TypeError(f"{what}{sig} cannot be called as {call} with the declared options: {exc}") from None


def prepare(
    fn: Callable,
    *,
    causal: bool | str = False,
    mask: bool | str = False,
    dtype: str | None = None,
    examples: int = 40,
    adapter: Adapter | None = None,
    value_dim: str | None = None,
    square: bool = False,
    max_n: int = 512,
    head_dims=None,
    dtypes=None,
    backward=None,
    returns_lse: bool = False,
    kv_heads=None,
    window=None,
    align=("top_left", "bottom_right"),
    softcap=None,
    alibi: bool = False,
    key_lengths: bool = False,
    dropout=None,
    masked_values_safe: bool = False,
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
) -> tuple[Runner, variants.Spec]:
    """:func:`check`'s validation and set-up: the :class:`Runner` and the variants declared, or a
    clear error naming what is wrong before any input is drawn (the calibration uses it too)."""
    adapter = adapter or NUMPY
    dtype = dtype if dtype is not None else (adapter.dtypes[0] if adapter.dtypes else "float64")
    if value_dim is None:
        value_dim = adapter.value_dim or "any"
    elif adapter.value_dim == "same" and value_dim != "same":
        raise ValueError(f"the {adapter.name} adapter's function needs d_v = d: value_dim={value_dim!r} would "
                         "draw inputs it refuses; drop it (value_dim='same' is the adapter's default)")
    if causal is True:
        causal = "top_left"
    if causal not in (False, "top_left", "bottom_right"):
        raise ValueError(f"causal must be False, True, 'top_left' or 'bottom_right', got {causal!r}")
    precision(dtype)  # validates
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 1:
        raise ValueError(f"examples must be a positive integer, got {examples!r}")
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if dtype == "bfloat16" and adapter.dtype != "bfloat16":
        raise ValueError("dtype='bfloat16' needs an adapter that casts to bfloat16, e.g. "
                         "torch_adapter(dtype='bfloat16')")
    if adapter.dtypes and dtype not in adapter.dtypes and not adapter.dtype:
        why = " (float64 needs jax.config.update('jax_enable_x64', True))" if adapter.name == "jax" else ""
        raise ValueError(f"the {adapter.name} adapter computes in {list(adapter.dtypes)}, not {dtype!r}{why}: "
                         f"test with dtype={adapter.dtypes[0]!r}")
    if dtypes is None:
        dtypes = (dtype,) if adapter.dtype else (adapter.dtypes or ("float64", "float32", "float16"))
    dtypes = tuple(dtypes)
    for d in dtypes:
        precision(d)
    if dtype not in dtypes:
        raise ValueError(f"dtype {dtype!r} is not among the declared dtypes {list(dtypes)}")
    if call_timeout is not None and (isinstance(call_timeout, bool) or not isinstance(call_timeout, (int, float))
                                     or seconds_problem(call_timeout) is not None):
        raise ValueError(f"call_timeout must be a positive number of seconds at most {MAX_SECONDS:g}, or None, "
                         f"got {call_timeout!r}")
    if backward is not None and backward != "autograd" and not callable(backward):
        raise ValueError(f"backward must be None, 'autograd' or a callable, got {backward!r}")
    if head_dims is not None and not isinstance(head_dims, (list, tuple)):
        raise ValueError(f"head_dims must be a list of positive integers, got {head_dims!r}")
    space = Space(value_dim=value_dim, square=square, max_n=max_n, head_dims=head_dims)
    spec = variants.Spec.build(kv_heads=kv_heads, window=window, align=align, softcap=softcap, alibi=alibi,
                               key_lengths=key_lengths, dropout=dropout)
    if mask not in (False, True, "bool", "float"):
        raise ValueError(f"mask must be False, True, 'bool' or 'float', got {mask!r}")
    mask = "bool" if mask is True else mask
    if causal:
        adapter.require("causal", "causal")
        adapter.native_options({"causal": causal})  # refuses an alignment it lacks, now
    if mask:
        adapter.require("mask", "mask=True")
    adapter.to_native(np.zeros((1, 1), precision(dtype).storage))  # refuses a dtype it cannot hold, now
    spec.require(adapter)
    named, always = _passed_names(adapter, causal, mask, spec)
    _check_signature(fn, "fn", ("q", "k", "v"), named, always)
    if callable(backward):
        _check_signature(backward, "backward", ("q", "k", "v", "out") + (("lse",) if returns_lse else ()) + ("d_out",),
                         named, always)
    if backward == "autograd" and adapter.vjp is None:
        raise ValueError(f"backward='autograd' needs an adapter that can differentiate (torch or jax), "
                         f"not {adapter.name!r}")
    runner = Runner(fn, adapter, dtype, causal, mask, examples, space, backward, returns_lse, dtypes,
                    bool(masked_values_safe), None if call_timeout is None else float(call_timeout))
    return runner, spec


def check(
    fn: Callable,
    *,
    causal: bool | str = False,
    mask: bool | str = False,
    dtype: str | None = None,
    examples: int = 40,
    adapter: Adapter | None = None,
    rope: Callable | None = None,
    target: str | None = None,
    hints: str = "python",
    value_dim: str | None = None,
    square: bool = False,
    max_n: int = 512,
    head_dims=None,
    dtypes=None,
    backward=None,
    returns_lse: bool = False,
    kv_heads=None,
    window=None,
    align=("top_left", "bottom_right"),
    softcap=None,
    alibi: bool = False,
    key_lengths: bool = False,
    dropout=None,
    masked_values_safe: bool = False,
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
) -> ConformanceResult:
    """Check ``fn(q, k, v, **options)`` against every property; see :mod:`symattn.products.conformance`.

    Parameters
    ----------
    fn : the implementation. Called with arrays of shape (batch, heads, n, d) (through ``adapter``)
        and, when tested, ``causal=...`` and ``mask=<bool array (n_q, n_k), True = may attend>``.
    causal : False, True/"top_left" (query i sees keys j <= i), or "bottom_right"
        (j <= i + n_k - n_q).
    mask : the function takes masks: True or "bool" passes random boolean ones (True = may
        attend), "float" additive ones (0 or -inf).
    dtype : the precision tested: "float64" (default; the adapter's first dtype when it declares
        some: float32 for JAX), "float32", "float16" or "bfloat16" (the last through
        ``torch_adapter(dtype='bfloat16')``).
    examples : Hypothesis examples per property (the search is deterministic).
    adapter : how to call ``fn`` (default: numpy in, numpy out, (batch, heads, n, d) layout).
    rope : optional ``rope(x, positions)`` to test that logits depend only on position offsets.
    value_dim, square, max_n, head_dims : the declared input space (``value_dim`` defaults to the
        adapter's: "same" for JAX, else "any"): ``value_dim="same"`` only
        draws d_v = d, ``square`` only n_q = n_k, lengths up to ``max_n``, head dims from
        ``head_dims`` (default: 1 ... 256, odd ones included). Nothing outside is drawn; an
        exception on a declared input is a failure with its counterexample.
    dtypes : the dtypes the function accepts (default: all of float64, float32, float16);
        ``float16_finite`` runs only when float16 is among them.
    backward : None, "autograd" (through the adapter: torch autograd, ``jax.vjp``) or a callable
        ``bwd(q, k, v, out, d_out, **options) -> (dq, dk, dv)`` (``bwd(q, k, v, out, lse, d_out,
        **options)`` when ``returns_lse``).
    returns_lse : the function returns ``(out, lse)``.
    kv_heads, window, align, softcap, alibi, key_lengths, dropout : the variants, each its own
        property (see :mod:`symattn.products.conformance.variants`).
    hints : "python" (default) or "cli": whether the hints of skipped properties name the arguments
        of this function (``returns_lse=True``) or the flags of ``symattn conform`` (``--returns-lse``).
    masked_values_safe : the function promises that NaN/inf in masked or padded keys and values
        never reaches its results; ``masked_values_do_not_leak`` is then graded (without it, it is
        reported: NaN x 0 is NaN in any matmul, so every BLAS-based kernel lets it through).
    call_timeout : seconds one call of ``fn`` (or of its backward) may take (default 60; None: no
        limit). A call still running then fails its property ("the function did not return within
        N s") and the properties after it are skipped: the check ends instead of hanging.
    """
    if hints not in ("python", "cli"):
        raise ValueError(f"hints must be 'python' or 'cli', got {hints!r}")
    runner, spec = prepare(fn, causal=causal, mask=mask, dtype=dtype, examples=examples, adapter=adapter,
                           value_dim=value_dim, square=square, max_n=max_n, head_dims=head_dims, dtypes=dtypes,
                           backward=backward, returns_lse=returns_lse, kv_heads=kv_heads, window=window,
                           align=align, softcap=softcap, alibi=alibi, key_lengths=key_lengths, dropout=dropout,
                           masked_values_safe=masked_values_safe, call_timeout=call_timeout)
    t0 = time.perf_counter()
    steps = [
        lambda: [props.agrees_with_reference(runner)],
        lambda: [props.lse_agrees_with_reference(runner)],
        lambda: [props.backward_agrees_with_reference(runner)],
        lambda: [props.convex_hull(runner)],
        lambda: [props.key_value_permutation(runner)],
        lambda: [props.query_permutation(runner)],
        lambda: [props.default_scale(runner)],
        lambda: [props.causal_no_future(runner)],
        lambda: [props.fully_masked_rows(runner)],
        lambda: [props.empty_sequences(runner)],
        lambda: [props.large_logits_finite(runner)],
        lambda: [props.float16_finite(runner)],
        lambda: [props.masked_values_do_not_leak(runner, spec)],
        lambda: [props.deterministic(runner)],
        lambda: [props.rope_relative(runner, rope)],
        lambda: variants.properties(runner, spec),
    ]
    results: list[PropertyResult] = []
    for step in steps:
        results.extend(step())
        if runner.hung:
            break
    if runner.hung:  # the rest would call a function still running in an abandoned thread
        last = results[-1]
        if last.status != "fail":  # a reporting property caught the timeout as an exception
            last.status, last.detail = "fail", runner.hung
        done = {r.name for r in results}
        results.extend(PropertyResult(n, "", "skipped", "not run: a call timed out in an earlier property")
                       for n in PROPERTIES if n not in done)
    options = {"dtype": runner.prec.name, "causal": runner.causal or "off", "mask": runner.mask or False,
               "examples": examples, "adapter": runner.adapter.name, "layout": runner.adapter.layout, "max_n": max_n,
               "value_dim": runner.space.value_dim,
               "square": square}
    if head_dims is not None:
        options["head_dims"] = ",".join(str(x) for x in runner.space.dims)
    if backward is not None:
        options["backward"] = backward if isinstance(backward, str) else getattr(backward, "__qualname__", "callable")
    if returns_lse:
        options["returns_lse"] = True
    if masked_values_safe:
        options["masked_values_safe"] = True
    if call_timeout != DEFAULT_CALL_TIMEOUT:
        options["call_timeout"] = call_timeout
    options.update(spec.describe())
    if hints == "cli":
        for r in results:
            r.detail = for_cli(r.detail)
    name = target or f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"
    return ConformanceResult(name, options, results, time.perf_counter() - t0)
