"""Hints in the words the user typed: Python arguments for :func:`~symattn.products.conformance.check`,
command-line flags for ``symattn conform``.

Every hint (a skipped property's reason, an error before drawing) is written once, with the
Python argument; :func:`for_cli` rewrites the arguments it names into the flags of the CLI.

>>> for_cli("declare returns_lse=True for a function returning (out, lse)")
'declare --returns-lse for a function returning (out, lse)'
>>> for_cli("test with dtype='float32' or enable x64")
'test with --dtype float32 or enable x64'
"""

from __future__ import annotations

__all__ = ["PYTHON_TO_CLI", "for_cli"]

# Python argument (as the messages spell it) -> the flag of `symattn conform`
PYTHON_TO_CLI = {
    "backward='autograd' or backward=<callable>": "--backward (autograd) or --backward MODULE:FUNCTION",
    "backward=<a callable>": "--backward MODULE:FUNCTION",
    "backward='autograd'": "--backward",
    "returns_lse=True": "--returns-lse",
    "causal='top_left' or 'bottom_right'": "--causal top_left or --causal bottom_right",
    "causal='bottom_right'": "--causal bottom_right",
    "causal='top_left'": "--causal top_left",
    "mask=True": "--mask",
    "kv_heads=True (or a group size)": "--kv-heads (or --kv-heads GROUP)",
    "kv_heads=True": "--kv-heads",
    "window=(left, right)": "--window LEFT,RIGHT",
    "align='top_left'": "--align top_left",
    "softcap=c": "--softcap C",
    "alibi=True": "--alibi",
    "key_lengths=True": "--key-lengths",
    "dropout=p": "--dropout P",
    "masked_values_safe=True": "--masked-values-safe",
    "masked_values_safe": "--masked-values-safe",
    "rope=<a rope(x, positions) function>": "--rope MODULE:FUNCTION",
    "value_dim='same'": "--value-dim same",
    "dtypes=[...]": "--dtypes DT,DT",
    "dtype='float32'": "--dtype float32",
    "dtype='float64'": "--dtype float64",
    "dtype='bfloat16'": "--dtype bfloat16",
    "torch_adapter(dtype='bfloat16')": "--adapter torch",
    "call_timeout=S": "--call-timeout S",
}


def for_cli(text: str) -> str:
    """``text`` with every Python argument of :data:`PYTHON_TO_CLI` replaced by its flag."""
    if not text:
        return text
    for python, flag in sorted(PYTHON_TO_CLI.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(python, flag)
    return text
