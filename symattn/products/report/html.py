"""HTML output: MathML from the same LaTeX strings, and the autoescaping Jinja environment.

The HTML report is self-contained and offline: no CDN, no network, no JavaScript needed to read
the mathematics. Each LaTeX string from :func:`symattn.language.printing.latex` is converted to MathML with
``latex2mathml`` (display formulas with ``display="block"``), which browsers render natively. A
string the converter cannot handle is shown as escaped LaTeX in ``<code>`` and counted in
:attr:`MathML.fallbacks`, so that a test can insist there are none.

>>> m = MathML()
>>> str(m.convert("x^{2}"))[:31]
'<math xmlns="http://www.w3.org/'
>>> m.fallbacks
[]
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from symattn.products.report.content import Links, Math, Paragraph, Rich, Table, expand_macros, parse_text

__all__ = ["MathML", "environment"]

# an unknown command passed through as text, or TeX syntax left inside an <mtext>
_UNKNOWN = re.compile(r">(\\[A-Za-z]+)<|<mtext>([^<]*[\\^][^<]*)</mtext>")


#: the width, in em, that a displayed formula may take in the page's main column (about 1000 px)
FIT_EM = 38.0
#: the width of a full-width table, in em, less the cells' padding
CELL_EM = 50.0


class MathML:
    """LaTeX -> MathML with a record of the strings that could not be converted."""

    def __init__(self) -> None:
        self.fallbacks: list[tuple[str, str]] = []  # (latex, error)
        #: theorem ids that prose links to (a word equal to one becomes a link to its section)
        self.refs: set = set()
        self._cache: dict[tuple[str, bool], Markup] = {}

    def convert(self, latex: str, display: bool = False) -> Markup:
        key = (latex, display)
        if key not in self._cache:
            self._cache[key] = self._convert(latex, display)
        elif self._cache[key].startswith("<code"):
            self.fallbacks.append((latex, "repeated"))
        return self._cache[key]

    def _convert(self, latex: str, display: bool) -> Markup:
        from latex2mathml.converter import convert

        try:
            mathml = convert(expand_macros(latex), display="block" if display else "inline")
            # latex2mathml passes unknown commands through as text (<mi>\foo</mi>): a failure too
            unknown = _UNKNOWN.search(mathml)
            if unknown:
                raise ValueError(f"not converted: {unknown.group(1) or unknown.group(2)}")
        except Exception as exc:  # the converter raises many types; any failure falls back
            self.fallbacks.append((latex, f"{type(exc).__name__}: {exc}"))
            return Markup('<code class="tex-fallback" title="MathML conversion failed">') + escape(latex) + \
                Markup("</code>")
        # keep the source for copy/paste and accessibility tools: <semantics> shows its first
        # child and hides the annotation
        head, _, rest = mathml.partition(">")
        inner = rest[: rest.rindex("</math>")]
        return Markup(f'{head}><semantics><mrow>{inner}</mrow>'
                      f'<annotation encoding="application/x-tex">{escape(latex)}</annotation>'
                      f"</semantics></math>")

    def rich(self, parts, width: float | None = None) -> Markup:
        """Parts from :func:`symattn.products.report.typeset.rich`: words escaped, maths as inline MathML,
        program output as code. ``width`` (em): the column's, for parts inside a table cell."""
        from symattn.products.report.typeset import tex_width

        out = Markup("")
        for kind, s in parts or ():
            if kind == "math" and width is not None:
                out += self.fitted(s, display=False, width=width)
            elif kind == "math":  # a formula too long to share a line gets one of its own, as in the PDF
                out += self.fitted(s, display=True, width=FIT_EM - 12) if tex_width(s) > 22 else self.convert(s)
            elif kind == "code":
                out += Markup('<code class="out">') + escape(s) + Markup("</code>")
            else:
                out += escape(s)
        return out

    def fitted(self, latex: str, display: bool = True, width: float = FIT_EM) -> Markup:
        """A formula that no line break can shorten, set smaller when its estimated width is more
        than ``width`` em (what ``\\symattnfit`` does in the PDF)."""
        from symattn.products.report.typeset import tex_width

        math = self.convert(latex, display=display)
        w = tex_width(latex)
        if w <= width:
            return math
        scale = max(45, int(100 * width / w))
        # a span (valid inside a paragraph or a list item), a block when the formula is displayed
        block = "display: block; " if display else ""
        return Markup('<span class="fit" style="%sfont-size: %d%%">' % (block, scale)) + math + Markup("</span>")

    def lines(self, lines, width: float = FIT_EM) -> Markup:
        """A displayed formula given as lines (:func:`symattn.products.report.typeset.display_lines`): one
        block formula, or several, the continuation lines indented."""
        lines = list(lines or ())
        if len(lines) <= 1:
            return self.fitted(lines[0] if lines else "", width=width)
        out = Markup('<div class="lines">')
        for k, line in enumerate(lines):
            cell = self.fitted(line, width=width - 3 * bool(k))
            out += Markup('<div class="line%s">' % (" cont" if k else "")) + cell + Markup("</div>")
        return out + Markup("</div>")

    def text(self, text: str) -> Markup:
        """Prose (:func:`~symattn.products.report.content.parse_text`): text escaped, ``$...$`` as inline
        MathML, ```...``` as code, theorem ids as links to their sections."""
        out = Markup("")
        for kind, s in parse_text(str(text or ""), refs=self.refs):
            if kind == "math":
                out += self.convert(s)
            elif kind == "code":  # an identifier may break after an underscore, nowhere else
                out += Markup("<code>") + Markup("_<wbr>").join(escape(p) for p in s.split("_")) + Markup("</code>")
            elif kind == "ref":
                out += Markup('<a class="ref" href="#thm-%s"><code>%s</code></a>') % (s, s)
            else:
                out += escape(s)
        return out


_SVG_ID = re.compile(r'(\sid=")([^"]+)(")')
_SVG_REF = re.compile(r'(url\(#)([^)]+)(\))|((?:xlink:)?href="#)([^"]+)(")')


def prefix_svg_ids(svg: str, prefix: str) -> Markup:
    """An inline SVG with every ``id`` and every reference to one of them (``url(#...)``,
    ``href="#..."``) prefixed, so that two SVGs in one page never share an id (matplotlib numbers its
    ids from 1 in every figure). Links to the page outside the SVG are left alone.

    >>> print(prefix_svg_ids('<g id="a"><use xlink:href="#a"/><a href="#thm-x"/><p clip-path="url(#a)"/></g>', "f"))
    <g id="f-a"><use xlink:href="#f-a"/><a href="#thm-x"/><p clip-path="url(#f-a)"/></g>
    """
    svg = str(svg)
    own = set(m.group(2) for m in _SVG_ID.finditer(svg))

    def ref(m):
        k = 1 if m.group(1) else 4
        target = m.group(k + 1)
        return f"{m.group(k)}{prefix}-{target}{m.group(k + 2)}" if target in own else m.group(0)

    svg = _SVG_ID.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}{m.group(3)}", svg)
    return Markup(_SVG_REF.sub(ref, svg))


def environment(mathml: MathML, user_dir: Path | None = None) -> jinja2.Environment:
    """The HTML template environment (autoescape on; user templates first, then ours)."""
    loaders = []
    if user_dir is not None:
        loaders.append(jinja2.FileSystemLoader(str(user_dir)))
    loaders.append(jinja2.PackageLoader("symattn.products.report", "templates"))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        math=lambda s: mathml.fitted(s, display=False, width=FIT_EM - 8),
        dmath=lambda s: mathml.fitted(s, display=True),
        text=mathml.text,
        rich=mathml.rich,
        # inside a table cell: ``share`` is the column's part of the table's width
        cellrich=lambda parts, share: mathml.rich(parts, width=max(4.0, share * CELL_EM)),
        cellmath=lambda s, share: mathml.fitted(s, display=False, width=max(4.0, share * CELL_EM)),
        dlines=mathml.lines,
        svgids=prefix_svg_ids,
        wbr=lambda s: Markup("<wbr>_").join(escape(part) for part in str(s).split("_")),
        out=lambda s: Markup('<code class="out">') + escape(str(s)) + Markup("</code>") if str(s) else Markup(""),
        paras=lambda s: Markup("").join(Markup("<p>") + mathml.text(p.strip()) + Markup("</p>")
                                        for p in str(s or "").split("\n\n") if p.strip()),
    )
    env.tests.update(math=lambda x: isinstance(x, Math), paragraph=lambda x: isinstance(x, Paragraph),
                     table=lambda x: isinstance(x, Table), links=lambda x: isinstance(x, Links),
                     rich=lambda x: isinstance(x, Rich))
    return env
