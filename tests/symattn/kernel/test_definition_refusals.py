"""``define()`` refuses what it cannot trust before anything is registered, and says why, naming the
definition: a value that is no SymPy expression class; SymPy's own class (or one deriving from it); a
second, different definition of a name. A circular definition is refused and leaves nothing behind: not
its name, not its unfolding, not its frozen expansion (another definition's stays), so the name can
then be defined acyclically. A definition keeps the text it was given.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.kernel import definitions as D
from symattn.kernel.definitions import DEFINITIONS, define
from symattn.kernel.zero import UNFOLDINGS


def _cls(name, *bases, **attrs):
    return type(name, bases or (sp.Function,), {"__module__": "tests.user_heads", "nargs": 1, **attrs})


@pytest.mark.parametrize("value", [lambda e: e, 3, "Softmax", sp.Symbol("s"), int])
def test_a_value_that_is_no_sympy_expression_class_is_refused_by_name(value):
    with pytest.raises(TypeError, match=r"definition 'ref_notclass': .* is not a SymPy expression class"):
        define("ref_notclass", value, lambda e: e)
    assert "ref_notclass" not in DEFINITIONS


@pytest.mark.parametrize("base", [sp.exp, sp.Abs, sp.tanh])
def test_sympys_own_class_is_refused_as_itself(base):
    with pytest.raises(ValueError, match=rf"definition 'ref_own': {base.__name__} is SymPy's own class; only "
                                         r"symattn's unevaluated heads can be defined \(SymPy evaluates its own "
                                         r"classes and lends them assumptions, so a 'definition' could "
                                         r"contradict it\)"):
        define("ref_own", base, lambda e: e.args[0])
    assert "ref_own" not in DEFINITIONS


@pytest.mark.parametrize("base", [sp.exp, sp.Abs, sp.tanh])
def test_a_class_deriving_from_sympys_is_refused_naming_the_base(base):
    cls = _cls(f"RefDerived{base.__name__}", base)
    with pytest.raises(ValueError, match=rf"{cls.__name__} derives from {base.__module__}\.{base.__name__}, which is "
                                         "SymPy's own class"):
        define("ref_derived", cls, lambda e: e.args[0])
    assert "ref_derived" not in DEFINITIONS


def test_a_head_that_declares_a_sign_is_refused_naming_the_definition():
    cls = _cls("RefClaims", is_positive=True)
    with pytest.raises(ValueError) as err:
        define("ref_claims", cls, lambda e: e.args[0])
    assert "ref_claims" in str(err.value) and "ref_claims" not in DEFINITIONS


def test_a_different_definition_is_refused_saying_it_would_contradict():
    cls = _cls("RefTwice")
    try:
        define("ref_twice", cls, lambda e: e.args[0] + 1)
        with pytest.raises(ValueError, match=r"definition 'ref_twice' is already registered \(for RefTwice\); a "
                                             "second, different definition would contradict it"):
            define("ref_twice", cls, lambda e: e.args[0] + 2)
    finally:
        DEFINITIONS.pop("ref_twice", None)


def test_a_definition_keeps_its_text():
    cls = _cls("RefText")
    try:
        d = define("ref_text", cls, lambda e: e.args[0] + 1, text="$R(u) = u + 1$")
        assert d.text == "$R(u) = u + 1$" and DEFINITIONS["ref_text"].text == "$R(u) = u + 1$"
        e = define("ref_text_plain", _cls("RefTextPlain"), lambda e: e.args[0])
        assert e.text == ""
    finally:
        DEFINITIONS.pop("ref_text", None)
        DEFINITIONS.pop("ref_text_plain", None)


def test_a_circular_definition_leaves_nothing_behind_and_the_name_can_be_defined_again():
    keep, a, b = _cls("RefKeep"), _cls("RefCycA"), _cls("RefCycB")
    x = sp.Symbol("x")
    try:
        define("ref_keep", keep, lambda e: e.args[0] ** 2)  # frozen at definition: must survive
        kept = {k: v for k, v in D._FROZEN.items() if k[0] == "ref_keep"}
        assert kept
        define("ref_cyc_a", a, lambda e: b(e.args[0]) + 1)
        with pytest.raises(ValueError, match="circular"):
            define("ref_cyc_b", b, lambda e: a(e.args[0]) * 2)
        assert "ref_cyc_b" not in DEFINITIONS
        assert b not in UNFOLDINGS
        assert not [k for k in D._FROZEN if k[0] == "ref_cyc_b"]
        assert not [k for k in D.AT_DEFINITION if k[0] == "ref_cyc_b"]
        assert {k: v for k, v in D._FROZEN.items() if k[0] == "ref_keep"} == kept
        define("ref_cyc_b", b, lambda e: e.args[0] - 1)  # acyclic now: accepted
        assert D.unfold(b(x), "ref_cyc_b").rhs == x - 1
    finally:
        for n, c in (("ref_keep", keep), ("ref_cyc_a", a), ("ref_cyc_b", b)):
            DEFINITIONS.pop(n, None)
            UNFOLDINGS.pop(c, None)
