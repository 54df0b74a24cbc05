"""TeX escaping, the TeX-delimited template environment, and the PDF step without pdflatex."""

import jinja2
import pytest

from symattn.products.report import tex
from symattn.products.report.content import TextError
from symattn.products.report.tex import compile_pdf, environment, tex_escape, tex_heading, tex_text, tex_verb

ESCAPES = [
    ("plain words", "plain words"),
    ("a & b", r"a \& b"),
    ("50%", r"50\%"),
    ("$5", r"\ensuremath{\$}5"),  # in maths: a text dollar would come from a bitmap font
    ("#1", r"\#1"),
    ("snake_case", r"snake\_case"),
    ("{x}", r"\{x\}"),
    ("~", r"\textasciitilde{}"),
    ("x^2", r"x\textasciicircum{}2"),
    ("a\\b", r"a\textbackslash{}b"),
    ("<b>", r"\textless{}b\textgreater{}"),
    ("≈", r"$\approx$"),
    ("⟨q,k⟩", r"$\langle$q,k$\rangle$"),
    ("σ²", r"$\sigma$$^2$"),
    ("f ∘ g", r"f $\circ$ g"),
    ("a ≤ b ≥ c", r"a $\le$ b $\ge$ c"),
    ("x — y – z", r"x --- y -- z"),
    ("“q”", r"``q''"),
    ("café", "café"),
    ("🙂", r"\texttt{[U+1F642]}"),
]


@pytest.mark.parametrize("text, expected", ESCAPES, ids=[repr(t) for t, _ in ESCAPES])
def test_tex_escape_maps_specials_and_unicode(text, expected):
    assert tex_escape(text) == expected


def test_inline_maths_is_kept_and_text_around_it_escaped():
    assert tex_text("variance $d_k \\sigma^4$ for 100% of_it") == r"variance $d_k \sigma^4$ for 100\% of\_it"
    # a literal dollar is written \$; a lone $ is an error, not silently text
    assert tex_text(r"costs \$5 & up") == r"costs \ensuremath{\$}5 \& up"
    with pytest.raises(TextError, match="unbalanced"):
        tex_text("costs $5 & up")


def test_prose_typesets_code_and_links_theorem_ids():
    out = tex_text("by `apply_theorem` and softmax_add_const", refs={"softmax_add_const"})
    assert r"\texttt{apply\_\allowbreak{}theorem}" in out
    assert r"\hyperref[thm:softmax_add_const]{\texttt{softmax\_" in out


def test_headings_carry_a_plain_bookmark():
    assert tex_heading(r"Variance $d_k \sigma^4$") == r"\texorpdfstring{Variance $d_k \sigma^4$}{Variance d\_k σ⁴}"
    assert tex_heading("Plain title") == "Plain title"


def test_machine_text_may_break_after_separators():
    assert tex_verb("a_b(c)") == r"\texttt{a\_\allowbreak{}b(\allowbreak{}c)}"


def test_templates_use_tex_delimiters_and_fail_on_missing_values():
    env = environment()
    t = env.from_string(r"\section{\VAR{title | e}}\BLOCK{for x in xs} \VAR{x}\BLOCK{endfor}\#{ comment }")
    assert t.render(title="a_b", xs=[1, 2]) == r"\section{a\_b} 1 2"
    with pytest.raises(jinja2.UndefinedError):
        t.render(xs=[])


def test_user_templates_come_first(tmp_path):
    (tmp_path / "preamble.tex.j2").write_text("MINE")
    assert environment(tmp_path).get_template("preamble.tex.j2").render() == "MINE"
    assert "symattnfit" in environment().get_template("preamble.tex.j2").render(title="t", version="0")


def test_without_pdflatex_the_pdf_step_explains_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(tex.shutil, "which", lambda name: None)
    result = compile_pdf(tmp_path)
    assert result.status == "missing"
    assert "apt-get install texlive-latex-base texlive-latex-recommended" in result.message
    assert not (tmp_path / "symattn.pdf").exists()


def test_a_latex_error_is_reported_with_the_log(tmp_path):
    (tmp_path / "symattn.tex").write_text(
        "\\documentclass{article}\\begin{document}\\undefinedcommandhere\\end{document}\n")
    result = compile_pdf(tmp_path)
    assert result.status == "error" and "Undefined control sequence" in result.message


def test_long_formulas_are_scaled_to_the_line(tmp_path):
    # a formula far wider than the page must compile, scaled by \symattnfit, without overfull boxes
    env = environment()
    wide = " + ".join(f"x_{{{k}}}^{{{k}}}" for k in range(120))
    doc = ("\\documentclass{article}\n" + env.get_template("preamble.tex.j2").render(title="t", version="0")
           + "\\begin{document}\n\\begin{align*}\n&\\symattnfit[3em]{" + wide + "}\\\\\n= {}&\\symattnfit[3em]{"
           + wide + "}\n\\end{align*}\n\\end{document}\n")
    (tmp_path / "symattn.tex").write_text(doc)
    result = compile_pdf(tmp_path)
    assert result.status == "ok", result.message
    assert (tmp_path / "symattn.pdf").read_bytes().startswith(b"%PDF")
