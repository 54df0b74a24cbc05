"""Notebook representations of theorems and derivations."""

import sympy as sp

from symattn.engine.theorem import load_all
from symattn.language.derivation import Derivation

x = sp.Symbol("x")


def test_derivation_latex_is_an_aligned_block_without_dollars():
    d = Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra", note="expand").le(x**2 + 2 * x + 2, "inequality")
    tex = d._repr_latex_()
    assert tex.startswith("$$\\begin{aligned}") and tex.endswith("\\end{aligned}$$")
    assert "={}& x^{2} + 2 x + 1 && \\text{algebra -- expand}" in tex
    assert "\\le{}& x^{2} + 2 x + 2" in tex


def test_derivation_html_has_one_row_per_step_in_mathml():
    d = Derivation((x + 1) ** 2).eq(x**2 + 2 * x + 1, "algebra", note="expand <this>")
    out = d._repr_html_()
    assert out.count("<tr>") == 2 and "<math" in out and "expand &lt;this&gt;" in out


def test_theorem_reprs_show_statement_and_steps_without_checking():
    thm = load_all().get("softmax_add_const")
    tex = thm._repr_latex_()
    assert "softmax\\_add\\_const" not in tex and "Softmax is invariant" in tex
    assert tex.count("$$") % 2 == 0 and "\\begin{aligned}" in tex
    out = thm._repr_html_()
    assert 'id="thm-softmax_add_const"' in out and "not checked" in out and out.count('class="step ') == 6
