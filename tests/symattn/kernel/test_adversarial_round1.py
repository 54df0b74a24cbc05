"""The hits of the first adversarial review (README and public API only), each a class now closed.

H1 a public kernel function made a theorem of any sides (``thm.lemma``): gone; instances of registered
   theorems come only from ``kernel.lemmas.instance``, which looks the lemma up and discharges it.
H2 a user's rule called the kernel's private ``_make``: a rule whose module uses a kernel-private name is
   refused before it runs.
H3 a user's head with its own ``eval`` (SymPy evaluates it before the definition is unfolded) and
H4 a user's head declaring ``is_positive`` (read by SymPy before the definition): ``define`` refuses both.
"""

from __future__ import annotations

import sys
import types

import pytest
import sympy as sp

import symattn.kernel.thm as kthm
from symattn.engine.verdict import Level
from symattn.kernel.definitions import DEFINITIONS, define
from symattn.rules import RULES, ProofContext, check_step, proved, rule

x = sp.Symbol("x", real=True)


def test_the_kernel_exposes_no_primitive_that_states_arbitrary_sides():
    assert not hasattr(kthm, "lemma")
    assert "lemma" not in kthm.__all__


@pytest.mark.parametrize("private", ["_make", "_TOKEN", "_Body"])
def test_a_users_rule_that_uses_a_kernel_private_name_is_refused(private):
    src = (f"import symattn.kernel.thm as K\nfrom symattn.rules import proved\n"
           f"def lie(lhs, rhs, relation, ctx):\n    return proved(K.{private}(lhs, rhs, relation, 'forged'))\n")
    mod = types.ModuleType(f"user_forger_{private}")
    mod.__file__ = f"/tmp/user_forger_{private}.py"
    with open(mod.__file__, "w") as f:
        f.write(src)
    exec(compile(src, mod.__file__, "exec"), mod.__dict__)  # noqa: S102 - the test's own source
    sys.modules[mod.__name__] = mod
    name = f"lie_{private}"
    rule(name, "forges a theorem")(mod.lie)
    try:
        res = check_step(x, x + 1, "=", name, {}, ProofContext())
        assert res.status is Level.FAIL and "private" in res.reason, res.reason
    finally:
        RULES.pop(name)
        sys.modules.pop(mod.__name__)


def _head(name, **attrs):
    return type(name, (sp.Function,), {"__module__": "user_heads", **attrs})


@pytest.mark.parametrize("attrs, what", [
    ({"eval": classmethod(lambda cls, a: a**2 + 1 if a.is_Integer else None)}, "eval"),
    ({"is_positive": True, "is_real": True}, "declares"),
    ({"is_integer": True}, "declares"),
    ({"_eval_is_nonnegative": lambda self: True}, "declares"),
    ({"_eval_is_zero": lambda self: False}, "declares"),
])
def test_a_users_head_that_evaluates_or_declares_assumptions_cannot_be_defined(attrs, what):
    cls = _head("Lying", **attrs)
    with pytest.raises(ValueError, match=what):
        define("lying_head", cls, lambda e: -1 - e.args[0] ** 2)
    assert "lying_head" not in DEFINITIONS


def test_a_plain_users_head_is_still_defined_and_used():
    cls = _head("Plain", nargs=1)
    define("plain_head", cls, lambda e: e.args[0] ** 2)
    try:
        res = check_step(cls(x), x**2, "=", "definition", {"name": "plain_head"}, ProofContext())
        assert res.ok, res.reason
    finally:
        DEFINITIONS.pop("plain_head")
        from symattn.kernel.zero import UNFOLDINGS

        UNFOLDINGS.pop(cls)


def test_a_rule_of_the_library_is_not_taken_for_a_forger():
    @rule("honest_user_rule", "the zero test")
    def honest(lhs, rhs, relation, ctx):
        return proved(kthm.by_zero(lhs, rhs))

    try:
        assert check_step(2 * x, x + x, "=", "honest_user_rule", {}, ProofContext()).ok
    finally:
        RULES.pop("honest_user_rule")
