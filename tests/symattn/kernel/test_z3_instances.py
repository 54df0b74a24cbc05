"""The derived instances' last resort: an instance the kernel's sign test cannot show, shown by Z3.

:func:`symattn.kernel.instances.shown_by_z3` asks the second engine's Z3 sign test for a concrete
instance, with the instance's hypotheses as conditions. It may only *show* an instance: a false one,
one whose hypotheses it reads too generously (a ``forall`` outside its domain, an assumption on one
entry read for all, a hypothesis dropped), or one whose hypotheses contradict each other must never
come out shown. The checker names the sizes that rest on Z3 alone.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symattn.kernel import second
from symattn.kernel.instances import shown_by_z3
from symattn.language.statement import Assumption, Equation, IndexRange, Statement

x, y = sp.symbols("x y", real=True)
v1, v2 = sp.symbols("v1 v2", real=True)
a = sp.IndexedBase("a", real=True)
L = sp.IndexedBase("L", real=True)
f = sp.Function("f", real=True)
j = sp.Symbol("j", integer=True)
t = sp.Symbol("t", integer=True, positive=True)
e1, e2 = sp.exp(x), sp.exp(y)
half, quarter = sp.Rational(1, 2), sp.Rational(1, 4)

SIMPLEX2 = (Equation("sum", lhs=a[1] + a[2], rhs=1), IndexRange("j", index=j, lower=1, upper=2),
            Assumption("nonneg", condition=sp.Q.nonnegative(a[j])))
RECURRENCE = (Equation("start", lhs=L[0], rhs=0), Equation("step", lhs=L[t], rhs=L[t - 1] + 1, forall=(t,)))

TRUE = [  # (name, statement, hypotheses): each true, and beyond the kernel's own sign test
    ("average_le_max", Statement((e1 * v1 + e2 * v2) / (e1 + e2), sp.Max(v1, v2), "<="), ()),
    ("average_ge_min", Statement((e1 * v1 + e2 * v2) / (e1 + e2), sp.Min(v1, v2), ">="), ()),
    ("product_on_simplex", Statement(a[1] * a[2], quarter, "<="), SIMPLEX2),
    ("jacobian_row_on_simplex", Statement(a[1] * (sp.Abs(1 - a[1]) + sp.Abs(a[2])), half, "<="), SIMPLEX2),
    ("abs_equation_on_simplex", Statement(sp.Abs(1 - a[1]) * a[1], a[2] * a[1], "="), SIMPLEX2),
    ("triangle", Statement(sp.Abs(x) + sp.Abs(y), sp.Abs(x + y), ">="), ()),
    ("recurrence_unfolded", Statement(L[3], sp.Integer(3), ">="), RECURRENCE),
    ("ranged_assumption", Statement(a[1] + a[2], sp.Integer(0), ">"),
     (IndexRange("j", index=j, lower=1, upper=2), Assumption("pos", condition=sp.Q.positive(a[j])))),
    ("relational_assumption", Statement(x * x + y, sp.Integer(0), ">"), (Assumption("y", condition=y > 0),)),
]

FALSE_OR_NOT_SHOWN = [  # each false, or true only under a reading of the hypotheses they do not state
    ("product_bound_too_small", Statement(a[1] * a[2], sp.Rational(1, 8), "<="), SIMPLEX2),
    ("simplex_without_nonnegativity", Statement(a[1] * (sp.Abs(1 - a[1]) + sp.Abs(a[2])), half, "<="),
     SIMPLEX2[:2]),
    # an assumption on a[j] with no range for j is about one unknown j, not every entry (review 18)
    ("simplex_with_unranged_nonnegativity", Statement(a[1] * (sp.Abs(1 - a[1]) + sp.Abs(a[2])), half, "<="),
     (SIMPLEX2[0], SIMPLEX2[2])),
    ("unranged_assumption_not_every_entry", Statement(a[1] + a[2], sp.Integer(0), ">="),
     (Assumption("nonneg", condition=sp.Q.nonnegative(a[j])),)),
    ("unranged_relational_not_every_entry", Statement(a[1] + a[2] + a[3], sp.Integer(0), ">="),
     (Assumption("nonneg", condition=a[j] >= 0),)),
    ("unranged_positive_not_every_entry", Statement(a[2], sp.Integer(0), ">"),
     (Assumption("pos", condition=sp.Q.positive(a[j])),)),
    ("average_le_min", Statement((e1 * v1 + e2 * v2) / (e1 + e2), sp.Min(v1, v2), "<="), ()),
    ("square_strictly_positive", Statement(x ** 2, sp.Integer(0), ">"), ()),
    ("abs_equation", Statement(sp.Abs(x), x, "="), ()),
    ("contradictory_hypotheses", Statement(x, sp.Integer(5), ">"),
     (Assumption("big", condition=x > 1), Assumption("negative", condition=x < 0))),
    # the forall variable is a positive integer: L[0] is not defined by the step equation
    ("forall_outside_its_domain", Statement(L[0], sp.Integer(1), ">="),
     (Equation("one", lhs=L[t], rhs=1, forall=(t,)),)),
    # a ranged assumption holds on its range only: a[3] is outside it
    ("ranged_assumption_outside_range", Statement(a[3], sp.Integer(0), ">"),
     (IndexRange("j", index=j, lower=1, upper=2), Assumption("pos", condition=sp.Q.positive(a[j])))),
    # a ranged index is read at every value, not as an order between the entries
    ("ranged_assumption_no_order", Statement(a[1] - a[2], sp.Integer(0), ">"),
     (IndexRange("j", index=j, lower=1, upper=2), Assumption("pos", condition=sp.Q.positive(a[j])))),
    # only an integer symbol is an index read for every value: f(x) > 0 at one real x says nothing of f(1)
    ("real_variable_not_instantiated", Statement(f(1), sp.Integer(0), ">"),
     (Assumption("pos", condition=sp.Q.positive(f(x))),)),
    ("strict_on_simplex", Statement(a[1] * a[2], quarter, "<"), SIMPLEX2),
    # an entry at a real index is no index read for every value
    ("real_index_not_instantiated", Statement(a[1], sp.Integer(0), ">"),
     (Assumption("pos", condition=sp.Q.positive(a[x])),)),
    # a range with a symbolic end: a[5] may lie beyond it
    ("symbolic_range_not_read_loosely", Statement(a[5], sp.Integer(0), ">"),
     (IndexRange("j", index=j, lower=1, upper=sp.Symbol("m", integer=True, positive=True)),
      Assumption("pos", condition=sp.Q.positive(a[j])))),
]


@pytest.mark.parametrize("name,st,hyps", TRUE, ids=[c[0] for c in TRUE])
def test_true_instances_are_shown(name, st, hyps):
    assert shown_by_z3(st, hyps) is not None


@pytest.mark.parametrize("name,st,hyps", FALSE_OR_NOT_SHOWN, ids=[c[0] for c in FALSE_OR_NOT_SHOWN])
def test_false_instances_are_never_shown(name, st, hyps):
    assert shown_by_z3(st, hyps) is None


def test_nothing_is_shown_with_the_second_engine_disabled():
    name, st, hyps = TRUE[2]
    with second.disabled():
        assert shown_by_z3(st, hyps) is None


def test_the_checker_names_the_sizes_that_rest_on_z3_alone():
    from symattn.engine.checker import Checker
    from symattn.engine.library import registry
    from symattn.engine.verdict import Level

    lv = Checker(numeric=False).check(registry.get("attention_output_le_max_value")).levels["instances"]
    assert lv.status is Level.PASS and lv.data["derived"], lv.detail
    assert lv.data["z3_only"], lv.data
    assert "Z3 sign test alone" in lv.detail


def test_a_false_inequality_with_only_instances_is_still_refuted():
    from symattn import Verdict
    from symattn.engine.checker import check_theorem
    from symattn.engine.theorem import Theorem

    n = sp.Symbol("n", integer=True, positive=True)
    k = sp.Symbol("k", integer=True)
    s = sp.IndexedBase("s", real=True)
    w = sp.exp(s[k]) / sp.Sum(sp.exp(s[j]), (j, 1, n))
    # the weighted average of the values k is at most 1: false at n = 2 (values 1 and 2)
    thm = Theorem(id="z3_false_average", title="false", claim="false", source="test",
                  statement=Statement(sp.Sum(w * k, (k, 1, n)), sp.Integer(1), "<="), dimensions=(n,))
    out = check_theorem(thm, numeric=False)
    assert out.verdict is Verdict.REFUTED, out.how
