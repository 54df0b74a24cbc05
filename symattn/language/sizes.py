"""Sizes: the dimensions, counts and lengths the helpers take, validated once.

A size is a positive Python/NumPy integer or a SymPy expression, never a string or a float (both
would be read silently otherwise):

>>> import sympy as sp
>>> dimension("d", 64), dimension("n", sp.Symbol("n", positive=True, integer=True))
(64, n)
>>> dimension("d", 0)
Traceback (most recent call last):
  ...
ValueError: d must be a positive integer, got 0
"""

from __future__ import annotations

import numbers
from typing import Any

import sympy as sp

__all__ = ["dimension"]


def dimension(name: str, value: Any, *, allow_zero: bool = False) -> sp.Expr:
    """A size: a positive Python/NumPy integer or a SymPy expression (never a string or float)."""
    if isinstance(value, bool) or isinstance(value, str):
        raise TypeError(f"{name} must be a positive integer or a SymPy expression, got {value!r}")
    if isinstance(value, numbers.Integral):
        value = int(value)
        if value < 0 or (value == 0 and not allow_zero):
            raise ValueError(f"{name} must be a positive integer, got {value}")
        return sp.Integer(value)
    if isinstance(value, sp.Expr):
        if value.is_number and not (value.is_integer and (value.is_positive or (allow_zero and value.is_zero))):
            raise ValueError(f"{name} must be a positive integer, got {value}")
        if value.is_positive is False and not (allow_zero and value.is_zero):
            raise ValueError(f"{name} must be positive, got {value}")
        return value
    raise TypeError(f"{name} must be a positive integer or a SymPy expression, got {type(value).__name__} {value!r}")
