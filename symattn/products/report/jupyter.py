r"""Jupyter representations of theorems and derivations.

:meth:`Theorem._repr_latex_`, :meth:`Theorem._repr_html_`, :meth:`Derivation._repr_latex_` and
:meth:`Derivation._repr_html_` call the four functions here. Nothing is checked: a notebook cell
that displays a theorem must be instant, so the derivation's steps show their rules but no
results (run ``symattn check`` or :func:`symattn.engine.checker.check_theorem` for those).

>>> import sympy as sp
>>> from symattn.language.derivation import Derivation
>>> x = sp.Symbol("x")
>>> print(derivation_latex(Derivation((x + 1)**2).eq(x**2 + 2*x + 1, "algebra")))
\begin{aligned}
& \left(x + 1\right)^{2} \\
={}& x^{2} + 2 x + 1 && \text{algebra}
\end{aligned}
"""

from __future__ import annotations

from markupsafe import Markup

from symattn.products.report.content import _REL, tex_of, theorem_entry

__all__ = ["theorem_latex", "theorem_html", "derivation_latex", "derivation_html"]


def _text(s: str) -> str:
    """Prose for ``\\text{}`` in MathJax/KaTeX: the text with braces and backslashes made safe, its
    ``$...$`` maths kept (both renderers typeset maths nested in ``\\text``), code as plain text."""
    from symattn.products.report.content import parse_text

    out = []
    for kind, part in parse_text(str(s or "")):
        if kind == "math":
            out.append(f"${part}$")
        else:
            out.append(part.replace("\\", "/").replace("{", "(").replace("}", ")").replace("$", ""))
    return "".join(out)


def derivation_latex(d) -> str:
    """The derivation as an ``aligned`` block, one step a line with its rule on the right
    (no surrounding ``$$``: the caller adds them)."""
    rows = [rf"& {tex_of(d.start)} \\"]
    for s in d.steps:
        why = s.justification() + (f" -- {s.note}" if s.note else "")
        rows.append(rf"{_REL[s.relation]}{{}}& {tex_of(s.expr)} && \text{{{_text(why)}}} \\")
    rows[-1] = rows[-1][:-3]
    return "\\begin{aligned}\n" + "\n".join(rows) + "\n\\end{aligned}"


def theorem_latex(thm) -> str:
    """Title, statement, hypotheses and derivation as LaTeX for a notebook (with ``$$``)."""
    parts = [rf"$$\textbf{{{_text(thm.kind.capitalize())} ({_text(thm.id)}): {_text(thm.title)}}}$$",
             f"$${thm.statement.latex()}$$"]
    for h in thm.hypotheses:
        parts.append(rf"$$\text{{{_text(h.name)}: }} {h.latex()}$$")
    d = thm.get_derivation()
    if d is not None:
        parts.append("$$" + derivation_latex(d) + "$$")
    return "\n".join(parts)


def _html_env():
    from symattn.products.report.html import MathML, environment

    return environment(MathML())


def theorem_html(thm) -> str:
    """The theorem as the report shows it (without check results), as an HTML fragment."""
    env = _html_env()
    entry = theorem_entry(thm, None)
    body = env.get_template("theorem.html.j2").render(entry=entry, figures={}, figure_errors={},
                                                         known_ids=set())
    return str(Markup('<div class="symattn"><style>') + Markup(_NOTEBOOK_CSS) + Markup("</style>") +
               Markup(body) + Markup("</div>"))


def derivation_html(d) -> str:
    """The derivation as an HTML fragment: one MathML line per step, with its rule."""
    from symattn.products.report.html import MathML

    m = MathML()
    rows = [Markup('<tr><td></td><td>') + m.convert(tex_of(d.start), True) + Markup("</td><td></td></tr>")]
    for s in d.steps:
        why = Markup("<code>{}</code>").format(s.justification())
        if s.note:
            why += Markup(" &mdash; ") + m.text(s.note)
        rows.append(Markup("<tr><td>") + m.convert(_REL[s.relation]) + Markup("</td><td>") +
                    m.convert(tex_of(s.expr), True) + Markup('</td><td style="font-size:85%">') + why +
                    Markup("</td></tr>"))
    return str(Markup('<table class="symattn-derivation">') + Markup("").join(rows) + Markup("</table>"))


_NOTEBOOK_CSS = """
.symattn .badge{display:inline-block;padding:0 .5em;border-radius:1em;color:#fff;background:#6e7781;font:600 .8em sans-serif}
.symattn .v-proved{background:#1a7f37}.symattn .v-proved-for-instances{background:#2f81c1}
.symattn .v-checked-probabilistically{background:#6f42c1}.symattn .v-numerically-consistent{background:#9a6700}
.symattn .v-refuted{background:#cf222e}.symattn .meta,.symattn .why{color:#57606a;font-size:.9em}
.symattn ol.steps{list-style:none;padding:0}.symattn .step{display:grid;grid-template-columns:2em 1fr;gap:0 .4em}
.symattn .step .why{grid-column:2}.symattn .kind-box{border:1px dashed #d4a72c;padding:.4em .7em}
"""  # noqa: E501 -- CSS kept byte-identical
