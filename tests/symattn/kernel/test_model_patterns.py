"""Models of the hypotheses at a size that only particular points reach (issue 19): a model search
tries every symbol at 1, 1/2 and 3 (positive where allowed), then -1, after the smallest values and before the
random ones (a symbol a closed bound confines to an interval too), so a size whose hypotheses hold
only at ``x = 1/2`` or ``x = y = 1`` is inside them and searched; the counterexample names the point
of the hypotheses (the sides are numbers there, so the point is the hypotheses'), checked here
independently. True claims under the same hypotheses are not refuted."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from symattn import Assumption, Statement, Theorem, Verdict
from symattn.engine.checker import check_theorem

n = sp.Symbol("n", integer=True, positive=True)
x, y, z = sp.symbols("x y z", real=True)
A = Assumption

# each admits n = 4 only at particular points (and n = 1, 2, 3 at the smallest values)
HYPOTHESES = [
    ("sine_peak", (A("h", n <= 3 + sp.sin(sp.pi * x)),)),
    ("product_on_a_disc", (A("h", n <= 3 + x * y), A("d", x**2 + y**2 <= 2))),
    ("parabola_peak", (A("h", n <= 3 + x - x**2 + sp.Rational(3, 4)),)),
    ("logistic_peak", (A("h", n <= 3 + 4 * x * (1 - x)),)),
    ("product_on_a_ball", (A("h", n <= 3 + x * y * z), A("b", x**2 + y**2 + z**2 <= 3))),
    ("abs_bump", (A("h", n <= 3 + sp.Abs(x) * (2 - sp.Abs(x))),)),
    ("bounded_above", (A("h", n <= 3 + x), A("a", x <= 1))),
    ("two_peaks", (A("h", n <= 3 + x * y * (3 - x * y) - 1), A("a", x * y <= 1))),
    # symbols confined to intervals by closed bounds (drawn inside them, at the midpoint and quarters
    # first): the patterns are tried there too
    ("disc_in_a_box", (A("h", n <= 3 + x * y), A("d", x**2 + y**2 <= 2), A("x0", x > 0), A("x1", x < 10),
                       A("y0", y > 0), A("y1", y < 10))),
    ("logistic_in_an_interval", (A("h", n <= 3 + 4 * x * (1 - x)), A("x0", x >= 0), A("x1", x <= 7))),
    ("peak_at_three", (A("h", n <= 3 - (x - 3) ** 2 + 1), A("x0", x >= -20), A("x1", x <= 20))),
    ("negative_quadrant", (A("h", n <= 3 + x * y), A("d", x**2 + y**2 <= 2), A("a", x + y < 0))),
    ("negative_product", (A("h", n <= 3 - (x + y) / 2), A("d", x**2 + y**2 <= 2), A("p", x * y >= 1))),
    ("ball_in_a_box", (A("h", n <= 3 + x * y * z), A("b", x**2 + y**2 + z**2 <= 3), A("x0", x >= 0),
                       A("x1", x <= 6), A("y0", y >= 0), A("y1", y <= 6), A("z0", z >= 0), A("z1", z <= 6))),
]


def theorem(lhs, hyps):
    return Theorem(id="claim", title="claim", source="extension", statement=Statement(lhs, 0),
                   hypotheses=hyps, dimensions=(n,))


def _point(detail: str) -> dict:
    m = re.search(r"inside the hypotheses at ([^;(]+)", detail)
    assert m, detail
    out = {}
    for part in m.group(1).split(","):
        name, value = (t.strip() for t in part.split("="))
        out[name] = sp.Rational(value)
    return out


@pytest.mark.parametrize("name,hyps", HYPOTHESES, ids=[h[0] for h in HYPOTHESES])
def test_a_size_reached_only_at_a_particular_point_is_searched(name, hyps):
    o = check_theorem(theorem((n - 1) * (n - 2) * (n - 3), hyps), numeric=False)
    assert o.verdict is Verdict.REFUTED, o.how
    detail = o.levels["instances"].detail
    assert detail.startswith("n = 4 "), detail
    values = _point(detail)
    at = {n: sp.Integer(4), **{s: values[str(s)] for s in (x, y, z) if str(s) in values}}
    for h in hyps:  # independently: the point is inside every hypothesis at n = 4
        assert h.condition.xreplace(at) is sp.true, (h.name, at)


@pytest.mark.parametrize("name,hyps", HYPOTHESES, ids=[h[0] for h in HYPOTHESES])
def test_a_true_claim_under_the_same_hypotheses_is_not_refuted(name, hyps):
    o = check_theorem(theorem((n - 1) * (n - 2) * (n - 3) * (n - 4), hyps), numeric=False)
    assert o.verdict is not Verdict.REFUTED, o.how
