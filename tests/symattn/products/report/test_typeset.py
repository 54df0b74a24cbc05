"""The whole report reads as typeset mathematics: no ASCII maths left in the prose of the HTML or
of the LaTeX, for every registered theorem, problem and audit entry (the library's own texts).

The scan looks at the text a reader sees, outside ``<math>`` and ``<code>`` (HTML) and outside
maths and typewriter type (TeX): machine output (how a verdict was obtained, a rule's reason)
is shown as code on purpose."""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import pytest

from symattn.products.report.build import ReportOptions, build_report

#: ASCII maths a typeset report must not contain in its prose (the issue's list)
ASCII_MATHS = {
    "caret": re.compile(r"\^"),
    "underscore joined to a letter": re.compile(r"(?<![A-Za-z0-9\\])[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9{(]"),
    "sqrt(": re.compile(r"sqrt\("),
    "||": re.compile(r"\|\|"),
    "<=": re.compile(r"<="),
    ">=": re.compile(r">="),
    "sigma": re.compile(r"(?<![\\A-Za-z])sigma(?![A-Za-z])"),
    "d_k": re.compile(r"(?<![A-Za-z\\])d_k(?![A-Za-z])"),
}


def _findings(text: str, where: str) -> list:
    """One finding per offending place (the first pattern that matches there)."""
    out, seen = [], set()
    for name, rx in ASCII_MATHS.items():
        for m in rx.finditer(text):
            context = text[max(0, m.start() - 50):m.end() + 30]
            if (name, context) in seen:
                continue
            seen.add((name, context))
            out.append(f"{where}: {name} in ...{' '.join(context.split())!r}...")
    return out


def html_prose(page: str) -> str:
    """The text of an HTML page outside <math>, <code>, <svg>, <style> and tag attributes."""
    for tag in ("style", "svg", "math", "code", "script"):
        page = re.sub(rf"<{tag}\b.*?</{tag}>", " ", page, flags=re.S)
    page = re.sub(r"<[^>]+>", " ", page)
    return htmllib.unescape(page)


def _strip_group(tex: str, command: str) -> str:
    """Remove ``\\command{...}`` (balanced braces) and an optional ``[...]`` before it."""
    out, k = [], 0
    needle = "\\" + command
    while True:
        j = tex.find(needle, k)
        if j < 0 or not re.match(r"[\[{]", tex[j + len(needle):j + len(needle) + 1] or " "):
            if j < 0:
                out.append(tex[k:])
                break
            out.append(tex[k:j + len(needle)])
            k = j + len(needle)
            continue
        out.append(tex[k:j])
        m = j + len(needle)
        if tex[m] == "[":
            m = tex.index("]", m) + 1
        depth = 0
        start = m
        for m in range(start, len(tex)):
            depth += {"{": 1, "}": -1}.get(tex[m], 0)
            if depth == 0:
                break
        k = m + 1
    return "".join(out)


def _drop_bookmarks(tex: str) -> str:
    """``\\texorpdfstring{TeX}{bookmark}`` -> ``{TeX}``: the bookmark is plain text by design."""
    needle = "\\texorpdfstring{"
    while needle in tex:
        j = tex.index(needle)
        k, depth, groups = j + len(needle) - 1, 0, []
        start = k
        while len(groups) < 2:
            depth += {"{": 1, "}": -1}.get(tex[k], 0)
            if depth == 0:
                groups.append(tex[start:k + 1])
                start = k + 1
            k += 1
        tex = tex[:j] + groups[0] + tex[k:]
    return tex


def tex_prose(tex: str) -> str:
    """The text of a TeX fragment outside maths, typewriter type, labels and references; TeX's
    escapes turned back into the characters they stand for."""
    tex = re.sub(r"(?<!\\)%.*", "", tex)
    tex = re.sub(r"\\begin\{(align\*|equation\*|picture)\}.*?\\end\{\1\}", " ", tex, flags=re.S)
    for command in ("texttt", "label", "ref", "input", "includegraphics", "symattnfit", "symattnfitin", "symattnwide",
                    "symattnstatus", "symattnbadge", "symattnminibadge", "hypersetup", "definecolor", "color",
                    "textcolor"):
        tex = _strip_group(tex, command)
    tex = re.sub(r"\\hyperref\[[^\]]*\]", "", tex)
    tex = _drop_bookmarks(tex)
    tex = re.sub(r"(?<!\\)\$.*?(?<!\\)\$|\\\(.*?\\\)|\\\[.*?\\\]", " ", tex, flags=re.S)
    tex = tex.replace(r"\_", "_").replace(r"\^{}", "^").replace(r"\textasciicircum{}", "^")
    tex = tex.replace(r"\textbar{}", "|").replace(r"\textless{}", "<").replace(r"\textgreater{}", ">")
    return tex


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("typeset") / "report"
    build_report(ReportOptions(out=out, formats=("html", "latex"), check=False, figures="none", sections=True))
    return out


def test_the_html_prose_has_no_ascii_maths(rendered):
    findings = _findings(html_prose((rendered / "index.html").read_text(encoding="utf-8")), "index.html")
    assert not findings, f"{len(findings)} ASCII maths in the HTML prose:\n" + "\n".join(findings[:40])


def test_the_tex_prose_has_no_ascii_maths(rendered):
    findings = []
    for path in sorted((rendered / "tex").glob("*.tex")) + [rendered / "symattn.tex"]:
        if path.name in ("preamble.tex", "graph.tex"):
            continue
        findings += _findings(tex_prose(path.read_text(encoding="utf-8")), path.name)
    assert not findings, f"{len(findings)} ASCII maths in the TeX prose:\n" + "\n".join(findings[:40])


@pytest.mark.parametrize("text, found", [
    ("variance d_k sigma^4", {"d_k", "sigma", "caret", "underscore joined to a letter"}),
    ("||J v|| <= 2 (1 - a_m)", {"||", "<=", "underscore joined to a letter"}),
    ("scaled by sqrt(d_k) >= 1", {"sqrt(", ">=", "d_k", "underscore joined to a letter"}),
    ("typeset prose about the scores of 000_ccf06b253f58a07c.txt", set()),
])
def test_the_scan_recognises_ascii_maths(text, found):
    assert {f.split(": ")[1].split(" in ")[0] for f in _findings(text, "x")} == found


def test_the_scan_ignores_maths_and_code():
    page = '<p>variance <math><mi>σ</mi><msup>^</msup></math> by <code>d_k sigma^4</code></p>'
    assert _findings(html_prose(page), "x") == []
    assert _findings(tex_prose(r"variance $d_k \sigma^4$ by \texttt{d\_k sigma^4}"), "x") == []
    assert _findings(tex_prose(r"variance d\_k \textasciicircum{}4"), "x")


def test_figure_titles_and_captions_are_typeset():
    from symattn.products.report.content import parse_text
    from symattn.products.report.figures import FIGURES

    findings = []
    for name, spec in sorted(FIGURES.items()):
        for field in ("title", "caption"):
            prose = "".join(s for kind,
                            s in parse_text(getattr(spec, field), f"figure {name}, {field}") if kind == "text")
            findings += _findings(prose, f"figure {name}, {field}")
    assert not findings, "\n".join(findings)


def test_definitions_are_counted_apart_from_the_results(rendered):
    from symattn.engine.theorem import load_all

    theorems = list(load_all())
    definitions = [t.id for t in theorems if t.kind == "definition"]
    assert definitions, "the library defines layer norm and the two layer kinds"
    prose = " ".join(html_prose((rendered / "index.html").read_text(encoding="utf-8")).split())
    assert f"{len(theorems) - len(definitions)} results checked" in prose
    assert f"Besides them, {len(definitions)} definitions" in prose
    assert all(t.derivation is None for t in theorems if t.kind == "definition")
