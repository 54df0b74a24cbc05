"""The hits of the second adversarial review (README and public API only), each a class now closed.

H1, H2, H5 a user's ``define`` whose expansion reads the syntax or the assumptions of its argument
   unfolded ``G(x)`` and ``G(z + 1)`` differently under ``x = z + 1``: a user's head is now unfolded as an
   abstraction (the expansion at fresh arguments without assumptions, then the arguments substituted).
H3 a circular definition ``R(t) := R(t) + 1`` proved ``R(x) = R(x) + 1``: refused.
H6, H7 a user's head class overriding SymPy's expansion hooks (``_eval_expand_mul``, ``_eval_expand_trig``)
   ran its own code inside the zero test: applications of a user's head classes are opaque atoms there.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.engine.verdict import Level
from symattn.kernel.definitions import DEFINITIONS, define
from symattn.kernel.zero import UNFOLDINGS
from symattn.language.statement import Equation
from symattn.rules import ProofContext, check_step

x, z = sp.symbols("x z", real=True)
k = sp.Symbol("k", integer=True)


def _head(name, **attrs):
    return type(name, (sp.Function,), {"__module__": "user_heads", **attrs})


@pytest.fixture
def defined():
    made = []

    def make(name, cls, expand):
        define(name, cls, expand)
        made.append((name, cls))
        return cls

    yield make
    for name, cls in made:
        DEFINITIONS.pop(name, None)
        UNFOLDINGS.pop(cls, None)


def test_a_users_syntax_reading_definition_no_longer_proves_one_equals_zero(defined):
    G = defined("g_syntax", _head("Gsyn"), lambda e: sp.Integer(1) if e.args[0].is_Symbol else sp.Integer(0))
    h = Equation("xz", lhs=x, rhs=z + 1)
    ctx = ProofContext(hypotheses=(h,))
    one = check_step(sp.Integer(1), G(x), "=", "definition", {"name": "g_syntax"}, ctx)
    zero = check_step(G(z + 1), sp.Integer(0), "=", "definition", {"name": "g_syntax"}, ctx)
    assert not (one.ok and zero.ok)


def test_a_circular_definition_defines_nothing(defined):
    R = _head("Radv")
    with pytest.raises(ValueError, match="circular"):  # refused when defined (round 3), before any use
        defined("r_adv", R, lambda e: R(e.args[0]) + 1)
    res = check_step(R(x), R(x) + 1, "=", "definition", {"name": "r_adv"}, ProofContext())
    assert res.status is Level.FAIL and "unknown definition" in res.reason, res.reason


@pytest.mark.parametrize("hook, rule", [("_eval_expand_mul", "algebra"), ("_eval_expand_trig", "trig_identity"),
                                        ("_eval_simplify", "algebra"), ("_eval_expand_basic", "algebra")])
def test_a_users_head_class_never_runs_its_hooks_in_the_zero_test(hook, rule):
    W = _head("Whook", **{hook: lambda self, **hints: sp.Integer(0)})
    res = check_step(W(x), sp.Integer(0), "=", rule, {}, ProofContext())
    assert res.status is not Level.PASS, res.reason


def test_a_users_plain_head_still_cancels_in_the_zero_test():
    W = _head("Wplain")
    assert check_step(W(x) + W(x), 2 * W(x), "=", "algebra", {}, ProofContext()).ok
