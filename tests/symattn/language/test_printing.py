"""Golden strings for the LaTeX printer: (input, expected LaTeX), expected written by hand."""

import pytest
import sympy as sp
from sympy.printing.latex import LatexPrinter

from symattn.language.printing import SymattnLatexPrinter, latex
from symattn.language.statement import Assumption, Equation, IndexRange, Statement
from symattn.maths.softmax import CategoricalVariance, Softmax, SoftmaxJacobian, SpectralNorm
from symattn.rules.expectation import Expectation, Variance

i, j = sp.symbols("i j", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
x, y, c = sp.symbols("x y c", real=True)
s = sp.IndexedBase("s")
a = sp.IndexedBase("a")
v = sp.IndexedBase("v")
M = sp.MatrixSymbol("M", 3, 3)

GOLDEN = [
    # our own printer methods
    (sp.KroneckerDelta(i, j), r"\delta_{i j}"),
    (sp.Pow(sp.KroneckerDelta(i, j), 3, evaluate=False), r"\delta_{i j}^{3}"),  # delta^2 = delta evaluates
    (sp.Q.real(x), r"x \in \mathbb{R}"),
    (sp.Q.integer(n), r"n \in \mathbb{Z}"),
    (sp.Q.positive(n), r"n > 0"),
    (sp.Q.nonnegative(x), r"x \ge 0"),
    (sp.Q.nonzero(x), r"x \ne 0"),
    (sp.Q.even(n), r"n \text{ even}"),
    (sp.Matrix([[1, 2], [3, 4]]), r"\left(\begin{matrix}1 & 2\\3 & 4\end{matrix}\right)"),
    # symattn objects with a _latex method, printed through our printer
    (Softmax(sp.Lambda(j, s[j]), i, n), r"\operatorname{softmax}\left(\left({s}_{j}\right)_{j=1}^{n}\right)_{i}"),
    (Softmax(sp.Lambda(j, s[j] + c), i, n),
     r"\operatorname{softmax}\left(\left(c + {s}_{j}\right)_{j=1}^{n}\right)_{i}"),
    (SoftmaxJacobian(a, i, j), r"J^{\operatorname{softmax}}_{i j}"),
    (CategoricalVariance(a, v, n), r"\operatorname{Var}_{J\sim a}\left(v_{J}\right)"),
    (SpectralNorm(M), r"\left\| M \right\|_{2}"),
    (Expectation(x * y), r"\mathbb{E}\left[x y\right]"),
    (Variance(x), r"\operatorname{Var}\left(x\right)"),
    # SymPy's own conventions that the reports rely on
    (sp.Symbol("d_k") * sp.Symbol("sigma") ** 4, r"d_{k} \sigma^{4}"),
    (sp.exp(s[i]) / sp.Sum(sp.exp(s[j]), (j, 1, n)), r"\frac{e^{{s}_{i}}}{\sum_{j=1}^{n} e^{{s}_{j}}}"),
]


@pytest.mark.parametrize("expr, expected", GOLDEN, ids=[str(k) for k in range(len(GOLDEN))])
def test_latex_matches_golden_string(expr, expected):
    assert latex(expr) == expected


HYPOTHESES = [
    (Statement(x, y, "<="), r"x \le y"),
    (Statement(x, y, ">"), r"x > y"),
    (IndexRange("i_range", index=i, lower=1, upper=n), r"i \in \{1, \dots, n\}"),
    (Assumption("c_real", condition=sp.Q.real(c)), r"c \in \mathbb{R}"),
    (Assumption("words", text="c is real_valued"), r"\text{c is real\_valued}"),
    (Equation("sq", lhs=x**2, rhs=y), r"x^{2} = y"),
]


@pytest.mark.parametrize("obj, expected", HYPOTHESES, ids=[type(o).__name__ + str(k) for k, (o, _) in
                                                           enumerate(HYPOTHESES)])
def test_statements_and_hypotheses_print_through_latex(obj, expected):
    assert latex(obj) == expected == obj.latex()


def test_unknown_predicates_print_as_named_operators():
    # Q.hermitian has no entry of its own: its name is shown, underscores escaped
    assert latex(sp.Q.hermitian(x)) == r"\operatorname{hermitian}(x)"


def test_printer_settings_are_passed_through():
    assert latex(sp.Rational(1, 2) * x, fold_short_frac=True) == r"x / 2"
    assert isinstance(SymattnLatexPrinter(), LatexPrinter)


def test_a_power_of_an_object_whose_latex_takes_no_exp_still_prints():
    import sympy as sp

    from symattn.language.printing import latex

    class Thing(sp.Function):
        def _latex(self, printer):  # no exp= parameter, as many hand-written printers
            return r"T_{%s}" % printer._print(self.args[0])

    x = sp.Symbol("x")
    assert latex(Thing(x) ** 2) == r"\left(T_{x}\right)^{2}"
    assert latex(Thing(x)) == "T_{x}"


def test_report_tex_of_survives_a_printer_that_raises():
    import sympy as sp

    from symattn.products.report.content import tex_of

    class Broken(sp.Function):
        def _latex(self, printer):
            raise ValueError("boom")

    assert "could not print: ValueError: boom" in tex_of(Broken(sp.Symbol("x")))
