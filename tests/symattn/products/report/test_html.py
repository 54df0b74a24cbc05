"""MathML conversion with counted fallbacks; every registered formula converts."""

import pytest

from symattn.engine.theorem import load_all
from symattn.products.report.content import theorem_entry
from symattn.products.report.html import MathML, environment


def test_display_maths_is_block_mathml_with_the_source_annotated():
    m = MathML()
    out = str(m.convert(r"\frac{a}{b} < c", display=True))
    assert out.startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">')
    assert "<mfrac>" in out and '<annotation encoding="application/x-tex">\\frac{a}{b} &lt; c</annotation>' in out
    assert m.fallbacks == []


@pytest.mark.parametrize("bad", [r"\frac{a}{", r"\left( x", "x^"])
def test_unconvertible_latex_falls_back_to_escaped_code_and_is_counted(bad):
    m = MathML()
    out = str(m.convert(bad))
    assert out.startswith('<code class="tex-fallback"') and "<math" not in out
    assert [b for b, _ in m.fallbacks] == [bad]


def test_text_is_escaped_and_inline_maths_converted():
    out = str(MathML().text("<b>x</b> & $x^{2}$"))
    assert out.startswith("&lt;b&gt;x&lt;/b&gt; &amp; <math")


def test_environment_autoescapes():
    env = environment(MathML())
    assert env.from_string("{{ s }}").render(s="<script>") == "&lt;script&gt;"


def test_every_registered_formula_converts_to_mathml():
    m = MathML()
    registry = load_all()
    for thm in registry:
        e = theorem_entry(thm, None)
        for tex in [e.statement, e.start or "", *(s.expr for s in e.steps),
                    *(h[1] for h in e.hypotheses if h[1] is not None)]:
            if tex:
                m.convert(tex, display=True)
        m.text(e.plain)
        m.text(e.notes)
    assert m.fallbacks == [], m.fallbacks[:5]
