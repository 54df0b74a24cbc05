"""Issue 18, class 4: ``define()`` never trusts the class it is given.

False claims that a trusting kernel would prove, and the true ones of the same shape that must still
pass: a head deriving from one of SymPy's classes is refused (it keeps SymPy's evaluation and
assumptions); a second, different definition of a name or a class is refused; the sign test reads what
a head's definition shows, never what its class says of itself.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.kernel.definitions import DEFINITIONS, define
from symattn.kernel.sign import nonzero, sign_of

x = sp.Symbol("x", real=True)


def _cls(name, *bases, **attrs):
    return type(name, bases, {"__module__": "tests.user_heads", **attrs})


@pytest.mark.parametrize("base", [sp.exp, sp.log, sp.Abs, sp.sqrt(2).func, sp.Add, sp.Symbol, sp.Piecewise, sp.tanh,
                                  sp.Max, sp.KroneckerDelta])
def test_a_head_deriving_from_a_sympy_class_is_refused(base):
    cls = _cls(f"User{base.__name__}", base)
    with pytest.raises(ValueError, match="SymPy's own class"):
        define(f"user_{base.__name__.lower()}", cls, lambda e: 1 + e.args[0])
    assert f"user_{base.__name__.lower()}" not in DEFINITIONS


def test_a_neutral_head_is_accepted_and_redefining_it_identically_is_harmless():
    cls = _cls("UserHead", sp.Function, nargs=1)
    def expansion(e):
        return e.args[0] ** 2
    define("user_head_ok", cls, expansion)
    define("user_head_ok", cls, expansion)  # the same module imported twice
    with pytest.raises(ValueError, match="already registered"):
        define("user_head_ok", cls, lambda e: e.args[0] ** 2 + 1)
    with pytest.raises(ValueError, match="already defined"):
        define("user_head_alias", cls, expansion)
    DEFINITIONS.pop("user_head_ok")


@pytest.mark.parametrize("name", ["softmax", "attention_score"])
def test_a_contradictory_definition_of_a_library_head_is_refused(name):
    from symattn.rules import load_rules

    load_rules()  # the library's definitions (the test must not depend on which module ran before)
    d = DEFINITIONS[name]
    with pytest.raises(ValueError):
        define(name, d.cls, lambda e: sp.S.Zero)
    with pytest.raises(ValueError):
        define(f"{name}_again", d.cls, lambda e: sp.S.Zero)
    assert DEFINITIONS[name] is d


@pytest.mark.parametrize("claim", ["positive", "nonnegative"])
def test_a_head_that_says_what_it_is_cannot_be_defined(claim):
    # a head that says it is positive, defined as x - 1: what a head is must follow from its definition
    cls = _cls(f"Liar{claim}", sp.Function, nargs=1, **{f"_eval_is_{claim}": lambda self: True})
    with pytest.raises(ValueError, match="declares"):
        define(f"liar_{claim}", cls, lambda e: e.args[0] - 1)
    assert f"liar_{claim}" not in DEFINITIONS


def test_a_true_sign_of_a_users_head_is_read_from_its_definition():
    cls = _cls("SquarePlusOne", sp.Function, nargs=1)
    define("square_plus_one", cls, lambda e: e.args[0] ** 2 + 1)
    try:
        assert sign_of(cls(x)) == "positive"
        assert nonzero(cls(x))
    finally:
        DEFINITIONS.pop("square_plus_one")
        from symattn.kernel.zero import UNFOLDINGS

        UNFOLDINGS.pop(cls)
