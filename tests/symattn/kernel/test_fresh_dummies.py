"""Fresh names never fall among the canonical bound variables.

SymPy numbers a Dummy from a random base in ``10**6 .. 9 * 10**6``, counting up; the kernel's
canonical bound variables use the indices ``_BASE .. _WINDOW_END - 1`` (7,340,000 onwards). In a
process whose base lay in or below that window, a rule's fresh index (``fresh_index``) could get an
index inside it and be read as a bound variable: ``cauchy_schwarz`` then failed with "_i is not a
symbol of its own" (CI, once). The kernel moves SymPy's base above the window on import."""

from __future__ import annotations

import subprocess
import sys

import sympy as sp

from symattn.kernel import terms
from symattn.kernel.calculus import fresh_index, within_range
from symattn.kernel.terms import canonical, is_bound_variable

n = sp.Symbol("n", integer=True, positive=True)


def test_every_dummy_made_after_import_is_above_the_canonical_window():
    for d in (sp.Dummy(), sp.Dummy("i", integer=True), fresh_index(1, n, "i"), fresh_index(0, n - 1)):
        assert d.dummy_index >= terms._WINDOW_END, d.dummy_index
        assert not is_bound_variable(d)


def test_canonical_variables_are_still_bound_variables():
    k = sp.Symbol("k", integer=True)
    term = canonical(sp.Sum(k, (k, 1, n)))
    (bound,) = term.variables
    assert is_bound_variable(bound) and terms._BASE <= bound.dummy_index < terms._WINDOW_END


def test_a_fresh_index_is_usable_in_a_range_whatever_sympys_random_base():
    # every base SymPy may draw, the window's own included, in fresh interpreters
    code = (
        "import sympy as sp, random\n"
        "sp.Dummy._base_dummy_index = {base}\n"
        "from symattn.kernel import terms\n"
        "from symattn.kernel.calculus import fresh_index, within_range\n"
        "n = sp.Symbol('n', integer=True, positive=True)\n"
        "i = fresh_index(1, n, 'i')\n"
        "assert not terms.is_bound_variable(i), i.dummy_index\n"
        "with within_range(i, 1, n):\n"
        "    pass\n"
        "assert i.dummy_index > {base}\n"
    )
    for base in (10**6, terms._BASE - 5, terms._BASE, terms._BASE + 123, terms._WINDOW_END - 1, 9 * 10**6):
        out = subprocess.run([sys.executable, "-c", code.format(base=base)], capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, (base, out.stderr[-600:])


def test_within_range_accepts_a_fresh_index_here():
    i = fresh_index(1, n, "i")
    with within_range(i, 1, n):
        pass
