"""Mutation-killing tests for symattn.kernel.definitions: a user's head may not declare what it is.

Every way a head class (or a user base it derives from) may smuggle evaluation or assumptions past its
definition must be refused by ``define()``.
"""

import pytest
import sympy as sp

from symattn.kernel.definitions import define


class _Base(sp.Function):
    is_positive = True


def _cls(name, **attrs):
    return type(name, (sp.Function,), attrs)


REFUSED = [
    ("eval", _cls("MutEval", eval=classmethod(lambda cls, x: None)), "eval"),
    ("is_positive", _cls("MutIsPos", is_positive=True), "declares"),
    ("_eval_is_positive", _cls("MutEvalPos", _eval_is_positive=lambda self: True), "declares"),
    ("is_real", _cls("MutIsReal", is_real=True), "declares"),
    ("inherited is_positive", type("MutInherit", (_Base,), {}), "declares"),
]


@pytest.mark.parametrize("label,cls,why", REFUSED, ids=[r[0] for r in REFUSED])
def test_claims_refused(label, cls, why):
    with pytest.raises(ValueError, match=why):
        define(f"mut_def_{cls.__name__}", cls, lambda e: -1 - e.args[0] ** 2)
