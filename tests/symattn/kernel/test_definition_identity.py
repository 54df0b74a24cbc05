"""Redefining a head: ``define()`` accepts a second registration of a name only when it is the same
definition (a module imported twice defines it again, with a new function object of the same code), and
refuses any other as a contradiction, even when it looks the same: a lambda of the same scope (same
qualified name, same bytecode) that captures another value, reads another global name, or has another
default; a callable with no code at all (an object with ``__call__``) is the same only as itself.
Each refusal names the reason ("already registered"), before anything is unfolded.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.kernel.definitions import DEFINITIONS, define


def _cls(name):
    return type(name, (sp.Function,), {"__module__": "tests.user_heads", "nargs": 1})


def _make(c):
    """A fresh function object per call, same code and qualified name, capturing ``c``."""
    return lambda e: e.args[0] + c


def _make_default(c):
    def expand(e, c=c):
        return e.args[0] + c
    return expand


def _reads(which):
    """Two lambdas of one scope (one qualified name, one bytecode) reading different global names."""
    return (lambda e: e.args[0] + G_ONE) if which == 1 else (lambda e: e.args[0] + G_TWO)


G_ONE, G_TWO = sp.Integer(1), sp.Integer(2)


def _make_with_class(name):
    """As a helper that defines a head would: the closure holds the class (a re-import makes a new one)."""
    cls = _cls(name)
    return lambda e: cls(e.args[0]) + 1


def _make_with_helper(c):
    def helper(u):
        return u + c
    return lambda e: helper(e.args[0])


class _Callable:
    def __call__(self, e):
        return e.args[0] + 1


SAME = [  # (first, second): the same definition twice, accepted
    ("one function object", _make(1), None),
    ("a new object of the same code and capture", _make(sp.Integer(1)), _make(sp.Integer(1))),
    ("a new object of the same default", _make_default(3), _make_default(3)),
    ("the same callable object", _Callable(), None),
    ("a capture of a class recreated by a re-import", _make_with_class("IdentCap"), _make_with_class("IdentCap")),
    ("a capture of a helper function recreated", _make_with_helper(1), _make_with_helper(1)),
]

DIFFERENT = [  # (first, second): contradictory, refused
    ("another captured value", _make(sp.Integer(1)), _make(sp.Integer(2))),
    ("a captured value of another type", _make(1), _make(1.0)),
    ("another default", _make_default(3), _make_default(4)),
    ("another global name", _reads(1), _reads(2)),
    ("another body", lambda e: e.args[0] + 1, lambda e: e.args[0] - 1),
    ("another constant", lambda e: e.args[0] + 1, lambda e: e.args[0] + 2),
    ("another callable object of the same class", _Callable(), _Callable()),
    ("a function, then a callable object", _make(1), _Callable()),
    ("a callable object, then a function", _Callable(), _make(1)),
    ("a capture of another class", _make_with_class("IdentCapA"), _make_with_class("IdentCapB")),
    ("a capture of a helper that captures another value", _make_with_helper(1), _make_with_helper(2)),
]


@pytest.mark.parametrize("label, first, second", SAME, ids=[s[0] for s in SAME])
def test_the_same_definition_registered_twice_is_accepted(label, first, second):
    name = f"ident_same_{SAME.index(next(s for s in SAME if s[0] == label))}"
    cls = _cls(name.title().replace("_", ""))
    try:
        d = define(name, cls, first)
        again = define(name, cls, second if second is not None else first)
        assert again.cls is cls and DEFINITIONS[name] is again and d.name == again.name
    finally:
        DEFINITIONS.pop(name, None)


@pytest.mark.parametrize("label, first, second", DIFFERENT, ids=[s[0] for s in DIFFERENT])
def test_a_different_definition_of_the_same_name_is_refused(label, first, second):
    name = f"ident_diff_{[s[0] for s in DIFFERENT].index(label)}"
    cls = _cls(name.title().replace("_", ""))
    try:
        d = define(name, cls, first)
        with pytest.raises(ValueError, match="already registered"):
            define(name, cls, second)
        assert DEFINITIONS[name] is d  # the first definition stands
    finally:
        DEFINITIONS.pop(name, None)


def test_the_same_function_for_another_class_is_refused():
    name = "ident_other_class"
    f = _make(1)
    try:
        define(name, _cls("IdentOne"), f)
        with pytest.raises(ValueError, match="already registered"):
            define(name, _cls("IdentTwo"), f)
    finally:
        DEFINITIONS.pop(name, None)
