"""Messages: text with expressions in it, for what the kernel, the rules and the checker say.

A reason such as "the gap ``n - 1`` is not shown nonnegative" names expressions. Flattened to a
string with ``sstr`` it prints as ASCII (``d_k*sigma**4``) and with the kernel's dummy names
(``_k0``); a reader of the report should see typeset maths in the user's own names. A
:class:`Message` keeps its parts: it *is* the flattened string (a ``str`` subclass, so every
existing use of a reason as text keeps working), and ``parts`` holds the pieces, strings and SymPy
objects, which the report typesets (``symattn.language.printing``) after restoring bound names.

Data only: nothing here decides anything.

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> m = Message("the gap ", x**2 - 1, " is not shown nonnegative")
>>> m
'the gap x**2 - 1 is not shown nonnegative'
>>> [type(p).__name__ for p in m.parts]
['str', 'Add', 'str']
>>> "gap" in m, isinstance(m, str)
(True, True)
"""

from __future__ import annotations

from typing import Any

import sympy as sp

__all__ = ["Message", "parts_of"]


def _flat(p: Any) -> str:
    if isinstance(p, str):
        return p
    if isinstance(p, (sp.Basic, sp.MatrixBase)):
        return sp.sstr(p)
    return str(p)


class Message(str):
    """A string that remembers the expressions it was made of (see the module docstring)."""

    parts: tuple

    def __new__(cls, *parts: Any) -> Message:
        flat: list = []
        for p in parts:  # a Message inside a Message contributes its own parts
            flat.extend(p.parts if isinstance(p, Message) else (p,))
        self = super().__new__(cls, "".join(_flat(p) for p in flat))
        self.parts = tuple(flat)
        return self

    def __add__(self, other: Any) -> Message:  # type: ignore[override]
        return Message(self, other) if isinstance(other, str) else NotImplemented

    def __radd__(self, other: Any) -> Message:
        return Message(other, self) if isinstance(other, str) else NotImplemented

    def __reduce__(self):  # pickles (multiprocessing workers) keep the parts
        return (Message, self.parts)


def parts_of(text: Any) -> tuple:
    """The parts of a message; a plain string is one part."""
    if isinstance(text, Message):
        return text.parts
    return (text,) if text else ()
