"""Adversarial round 3, class A: the kernel never trusts a Python method of a user's class.

Every node of every term the kernel receives (statement, hypotheses, chain, each step's sides and
arguments) is SymPy's, symattn's, or a user's head that defines nothing but printing. False claims
that a head overriding ``__eq__``, ``__sub__``, ``_hashable_content``, ``eval`` ... would make
``proved`` are refused with a message naming the class and the method; the true claims of the same
shapes (SymPy's heads, a user's head with ``_latex``, an undefined function) are still proved.
A user definition's expansion is frozen once, so a stateful expansion cannot unfold two ways, and
circular definitions are refused at ``define()``.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn import Derivation, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem
from symattn.kernel.definitions import DEFINITIONS, define, frozen
from symattn.kernel.terms import KernelError
from symattn.kernel.wellformed import check_term

x = sp.Symbol("x", real=True)


def _cls(name, *bases, **attrs):
    return type(name, bases, {"__module__": "tests.user_heads_wf", **attrs})


def _verdict(statement, derivation=None, tid="wf"):
    thm = Theorem(id=tid, title=tid, source="test", statement=statement, derivation=derivation)
    return check_theorem(thm, numeric=False)


PROTOCOL = {
    "__eq__": lambda self, other: True,
    "__ne__": lambda self, other: False,
    "__hash__": lambda self: 0,
    "__sub__": lambda self, other: sp.S.Zero,
    "__rsub__": lambda self, other: sp.S.Zero,
    "__add__": lambda self, other: sp.S.Zero,
    "__mul__": lambda self, other: sp.S.Zero,
    "_hashable_content": lambda self: (),
    "eval": classmethod(lambda cls, a: None),
    "_eval_subs": lambda self, old, new: self,
    "doit": lambda self, **hints: sp.S.Zero,
    "_eval_expand_mul": lambda self, **hints: sp.S.Zero,
    "func": property(lambda self: sp.exp),
    "__new__": lambda cls, *args: sp.Basic.__new__(cls, *args),
}


@pytest.mark.parametrize("method", sorted(PROTOCOL))
def test_a_head_overriding_a_protocol_method_is_refused_by_name(method):
    cls = _cls(f"Over{method.strip('_')}", sp.Function, **{method: PROTOCOL[method]})
    term = sp.Basic.__new__(cls, x)  # built around any override of __new__/eval
    with pytest.raises(KernelError, match=rf"{cls.__name__}.*{method}"):
        check_term(sp.Add(term, 1, evaluate=False), "here")


def test_a_head_with_an_always_true_eq_proves_nothing():
    cls = _cls("EqAllT", sp.Function, __eq__=lambda self, other: True, __hash__=sp.Function.__hash__)
    o = _verdict(Statement(cls(x), cls(x + 1)), lambda: Derivation(cls(x)), "wf_eq")
    assert o.verdict is not Verdict.PROVED and "__eq__" in o.how


def test_a_head_with_a_zero_sub_proves_nothing_and_cannot_be_defined():
    cls = _cls("SubZT", sp.Function, __sub__=lambda s, o: sp.S.Zero, __rsub__=lambda s, o: sp.S.Zero)
    with pytest.raises(ValueError, match="__rsub__, __sub__"):
        define("wf_subz", cls, lambda e: e.args[0] + 1)
    assert "wf_subz" not in DEFINITIONS
    o = _verdict(Statement(x + 1, x + 5), lambda: Derivation(x + 1).eq(cls(x), "algebra").eq(x + 5, "algebra"),
                 "wf_sub")
    assert o.verdict is not Verdict.PROVED and "__sub__" in o.how


def test_a_symbol_subclass_from_outside_sympy_is_refused():
    cls = _cls("EqSymT", sp.Symbol, __eq__=lambda self, other: True, __hash__=sp.Symbol.__hash__)
    plain = _cls("PlainSymT", sp.Symbol)
    for c in (cls, plain):
        e = c("ex", real=True)
        o = _verdict(Statement(e, e + 1), lambda e=e: Derivation(e), f"wf_sym_{c.__name__.lower()}")
        assert o.verdict is Verdict.UNDECIDED and "Symbol" in o.how


def test_a_subclass_of_exp_with_its_own_eval_is_refused():
    cls = _cls("NegExpT", sp.exp, eval=classmethod(lambda c, a: sp.Integer(-1) if a == 0 else None))
    o = _verdict(Statement(sp.Integer(0), cls(x), "<"), lambda: Derivation(sp.Integer(0)).lt(cls(x), "positivity"),
                 "wf_negexp")
    assert o.verdict is not Verdict.PROVED and "eval" in o.how


def test_floats_are_refused_and_rationals_still_decide():
    lhs = sp.Mul(x, sp.Add(1, sp.Float("1e-20"), evaluate=False), evaluate=False)
    o = _verdict(Statement(lhs, x), lambda: Derivation(lhs).eq(x, "algebra"), "wf_float")
    assert o.verdict is not Verdict.PROVED and "float" in o.how.lower()
    good = sp.Mul(x, sp.Add(1, sp.Rational(1, 10**20), evaluate=False), evaluate=False)
    o = _verdict(Statement(good, x + x / 10**20), lambda: Derivation(good).eq(x + x / 10**20, "algebra"), "wf_rat")
    assert o.verdict is Verdict.PROVED, o.how


def test_true_claims_with_sympy_heads_printing_heads_and_undefined_functions_are_proved():
    pretty = _cls("PrettyT", sp.Function, _latex=lambda self, p: r"\mathrm{P}", _sympystr=lambda self, p: "P",
                  __doc__="a documented head")
    define("wf_pretty", pretty, lambda e: e.args[0] ** 2)
    f = sp.Function("f", real=True)
    cases = [
        (sp.exp(x) * sp.exp(x), sp.exp(2 * x)),
        (pretty(x) - 1, x ** 2 - 1),
        (f(x) + f(x), 2 * f(x)),
        (sp.Sum(sp.cos(x) ** 2 + sp.sin(x) ** 2, (sp.Symbol("k", integer=True), 1, 3)),
         sp.Sum(1, (sp.Symbol("k", integer=True), 1, 3))),
    ]
    for n, (a, b) in enumerate(cases):
        rule = "definition" if a.has(pretty) else "algebra"
        kw = {"name": "wf_pretty"} if a.has(pretty) else {}
        o = _verdict(Statement(a, b), lambda a=a, b=b, rule=rule, kw=kw: Derivation(a).eq(b, rule, **kw), f"wf_ok{n}")
        assert o.verdict is Verdict.PROVED, (n, o.how)
    DEFINITIONS.pop("wf_pretty")


def test_an_undefined_function_smuggling_a_method_is_refused():
    g = sp.Function("g", __eq__=lambda self, other: True)
    with pytest.raises(KernelError, match="__eq__"):
        check_term(g(x))
    check_term(sp.Function("h", positive=True)(x))  # assumptions only: fine


def test_a_stateful_expansion_is_frozen_once():
    state = {"c": 1}
    cls = _cls("HstT", sp.Function)
    define("wf_hst", cls, lambda e: e.args[0] + state["c"])
    state["c"] = 2
    o1 = _verdict(Statement(cls(x), x + 1), lambda: Derivation(cls(x)).eq(x + 1, "definition", name="wf_hst"), "wf_s1")
    o2 = _verdict(Statement(cls(x), x + 2), lambda: Derivation(cls(x)).eq(x + 2, "definition", name="wf_hst"), "wf_s2")
    assert o1.verdict is Verdict.PROVED, o1.how
    assert o2.verdict is not Verdict.PROVED
    fresh, body = frozen(DEFINITIONS["wf_hst"], 1)
    assert body == fresh[0] + 1
    DEFINITIONS.pop("wf_hst")


def test_circular_definitions_are_refused_at_define():
    fc, gc, hc, sf = (_cls(n, sp.Function) for n in ("FcT", "GcT", "HcT", "SfT"))
    define("wf_fc", fc, lambda e: gc(e.args[0]))
    define("wf_gc", gc, lambda e: hc(e.args[0]) * 2)
    with pytest.raises(ValueError, match="circular definitions"):
        define("wf_hc", hc, lambda e: fc(e.args[0]) + 1)
    assert "wf_hc" not in DEFINITIONS
    with pytest.raises(ValueError, match="own head"):
        define("wf_sf", sf, lambda e: sf(e.args[0]) + 1)
    define("wf_hc", hc, lambda e: e.args[0] + 1)  # acyclic: fine
    o = _verdict(Statement(fc(x), 2 * x + 2), lambda: (Derivation(fc(x)).eq(gc(x), "definition", name="wf_fc")
                 .eq(2 * hc(x), "definition", name="wf_gc").eq(2 * x + 2, "definition", name="wf_hc")), "wf_chain")
    assert o.verdict is Verdict.PROVED, o.how
    for n in ("wf_fc", "wf_gc", "wf_hc"):
        DEFINITIONS.pop(n)


def test_a_helper_of_its_own_is_allowed_but_not_a_sympy_name():
    ok = _cls("HelperT", sp.Function, expanded=lambda self: self.args[0] + 1)
    check_term(ok(x))
    for name in ("expand", "simplify", "as_real_imag", "is_number", "could_extract_minus_sign", "_imp_", "fdiff",
                 "limits", "shape", "function"):
        bad = _cls(f"Helper{name.strip('_')}T", sp.Function, **{name: lambda self, *a, **k: sp.S.Zero})
        with pytest.raises(KernelError, match=name):
            check_term(bad(x))
