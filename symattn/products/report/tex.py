r"""LaTeX output: escaping, the Jinja environment with TeX-safe delimiters, and compiling to PDF.

Jinja's ``{{ }}`` and ``{% %}`` clash with TeX's braces, so the LaTeX templates use

* ``\VAR{expr}`` for values, ``\BLOCK{stmt}`` for statements, ``\#{...}`` for comments,

and :class:`jinja2.StrictUndefined`, so that a missing field fails loudly instead of printing
nothing. Every piece of text goes through :func:`tex_escape`; mathematics comes from
:func:`symattn.language.printing.latex` and is passed through unchanged.

>>> print(tex_escape("50% of {a_b} & ~x^2 costs $3 # \\ ≈ ⟨q,k⟩ ≤ σ"))
50\% of \{a\_b\} \& \textasciitilde{}x\textasciicircum{}2 costs \ensuremath{\$}3 \# \textbackslash{} $\approx$ $\langle$q,k$\rangle$ $\le$ $\sigma$
"""  # noqa: E501 -- a doctest output line (must match exactly)

from __future__ import annotations

import os
import shutil
import subprocess
import unicodedata
from pathlib import Path

import jinja2

from symattn.engine.verdict import Verdict
from symattn.language.printing import TEX_SPECIALS
from symattn.products.report.content import Links, Math, Paragraph, Rich, Table, parse_text, pdf_text

__all__ = ["tex_escape", "tex_text", "environment", "compile_pdf", "PdfResult", "INSTALL_HINT"]

_SPECIAL = TEX_SPECIALS

# Unicode that shows up in mathematical prose, as TeX. Latin letters with accents are left to
# inputenc (utf8 is LaTeX's default input encoding) and fontenc T1.
_UNICODE_MATH = {
    "≈": r"\approx", "≃": r"\simeq", "≅": r"\cong", "≠": r"\ne", "≡": r"\equiv",
    "≤": r"\le", "≥": r"\ge", "≪": r"\ll", "≫": r"\gg", "±": r"\pm", "∓": r"\mp",
    "×": r"\times", "·": r"\cdot", "⋅": r"\cdot", "∘": r"\circ", "∗": r"\ast", "÷": r"\div",
    "⟨": r"\langle", "⟩": r"\rangle", "‖": r"\|", "∥": r"\|", "√": r"\surd",
    "∑": r"\sum", "∏": r"\prod", "∫": r"\int", "∂": r"\partial", "∇": r"\nabla", "∞": r"\infty",
    "∈": r"\in", "∉": r"\notin", "⊂": r"\subset", "⊆": r"\subseteq", "∪": r"\cup", "∩": r"\cap",
    "∀": r"\forall", "∃": r"\exists", "¬": r"\neg", "∧": r"\wedge", "∨": r"\vee", "⊗": r"\otimes",
    "⊕": r"\oplus", "⊙": r"\odot", "⊤": r"\top", "⊥": r"\perp", "→": r"\to", "←": r"\leftarrow",
    "↔": r"\leftrightarrow", "⇒": r"\Rightarrow", "⇔": r"\Leftrightarrow", "↦": r"\mapsto",
    "ℝ": r"\mathbb{R}", "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}", "ℚ": r"\mathbb{Q}", "ℂ": r"\mathbb{C}",
    "∝": r"\propto", "∼": r"\sim", "′": r"\prime", "°": r"^\circ", "ℓ": r"\ell", "∅": r"\emptyset",
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "ϵ": r"\epsilon",
    "ζ": r"\zeta", "η": r"\eta", "θ": r"\theta", "ϑ": r"\vartheta", "ι": r"\iota", "κ": r"\kappa",
    "λ": r"\lambda", "μ": r"\mu", "ν": r"\nu", "ξ": r"\xi", "π": r"\pi", "ρ": r"\rho", "ϱ": r"\varrho",
    "σ": r"\sigma", "ς": r"\varsigma", "τ": r"\tau", "υ": r"\upsilon", "φ": r"\varphi", "ϕ": r"\phi",
    "χ": r"\chi", "ψ": r"\psi", "ω": r"\omega", "Γ": r"\Gamma", "Δ": r"\Delta", "Θ": r"\Theta",
    "Λ": r"\Lambda", "Ξ": r"\Xi", "Π": r"\Pi", "Σ": r"\Sigma", "Υ": r"\Upsilon", "Φ": r"\Phi",
    "Ψ": r"\Psi", "Ω": r"\Omega",
    "²": "^2", "³": "^3", "¹": "^1", "⁻": "^-", "₀": "_0", "₁": "_1", "₂": "_2", "ₖ": "_k", "ᵀ": r"^\top",
}
_UNICODE_TEXT = {
    "–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''", "…": r"\dots{}",
    "\u00a0": "~", "\u2009": r"\,", "\u202f": r"\,", "•": r"\textbullet{}", "−": "-", "§": r"\S{}",
    "†": r"\dag{}", "‡": r"\ddag{}", "©": r"\copyright{}", "€": r"\texteuro{}",
}


def tex_escape(text: object) -> str:
    """Escape ``text`` for TeX's text mode: special characters, and the Unicode of
    mathematical prose (``≈ ⟨ ⟩ σ ∘ ≤`` ...) as TeX commands. A character TeX cannot typeset
    with the base packages is shown as ``[U+XXXX]`` rather than breaking the compile."""
    out = []
    for ch in str(text):
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch if ch.isprintable() or ch in "\n\t" else " ")
        elif ch in _UNICODE_MATH:
            out.append(f"${_UNICODE_MATH[ch]}$")
        elif ch in _UNICODE_TEXT:
            out.append(_UNICODE_TEXT[ch])
        elif ord(ch) < 0x180 and unicodedata.category(ch).startswith("L"):
            out.append(ch)  # Latin-1 and Latin Extended-A letters: inputenc utf8 + T1 fonts
        else:
            out.append(r"\texttt{[U+%04X]}" % ord(ch))
    return "".join(out)


def tex_text(text: object, refs=(), breakable: bool = False, cell: bool | None = None) -> str:
    """Prose (:func:`~symattn.products.report.content.parse_text`) as TeX: the text escaped, ``$...$`` kept
    as maths, ```...``` in typewriter type, theorem ids of ``refs`` as ``\\hyperref`` links."""
    out = []
    for kind, s in parse_text(str(text or ""), refs=refs):
        if kind == "math":
            out.append(tex_inline_math(s, cell=breakable if cell is None else cell))
        elif kind == "code":
            out.append(tex_verb(s, hyphenate=breakable if cell is None else cell))
        elif kind == "ref":
            out.append(r"\hyperref[thm:%s]{%s}" % (s, tex_verb(s)))
        else:
            out.append(tex_breakable(s) if breakable else tex_escape(s))
    return "".join(out)


def tex_rich(parts, cell: bool = False) -> str:
    r"""Parts from :func:`symattn.products.report.typeset.rich` as TeX: words in the running font, maths
    inline (TeX breaks it at top-level relations and signs), program output in typewriter type with
    breaks allowed after punctuation. Use inside ragged-right text: typewriter spaces do not stretch.

    >>> print(tex_rich([("text", "gap "), ("math", "x^{2}"), ("text", " is 50% off"), ("code", "a_b")]))
    gap $x^{2}$ is 50\% off\texttt{a\_\allowbreak{}b}
    """
    out = []
    for kind, s in parts or ():
        if kind == "math":
            out.append(tex_inline_math(s, cell))
        elif kind == "code":
            out.append(tex_verb(s, hyphenate=cell))
        else:
            out.append(tex_breakable(s))
    return "".join(out)


#: an inline formula wider than this (em, estimated) goes on a line of its own
WIDE_INLINE_EM = 22.0


def tex_inline_math(latex: str, cell: bool = False) -> str:
    """Inline maths: in a table cell scaled to the column if wider; in running text a formula too
    long to share a line goes on its own line (TeX cannot break inside ``\\left( \\right)``)."""
    from symattn.products.report.typeset import tex_width

    if cell:
        return r"\symattnfitin{%s}" % latex
    if tex_width(latex) > WIDE_INLINE_EM:
        return r"\symattnwide{%s}" % latex
    return f"${latex}$"


def tex_cell(text: object, refs=()) -> str:
    """Like :func:`tex_text`, with breaks allowed after ``_ , . /`` in the text (narrow columns)."""
    return tex_text(text, refs, breakable=True)


def tex_heading(text: object, refs=()) -> str:
    """A sectioning title: typeset in the document, plain Unicode in the PDF bookmarks
    (``\\texorpdfstring``), so that the table of contents shows the same maths as the text.

    >>> print(tex_heading(r"Variance $d_k \\sigma^4$"))
    \\texorpdfstring{Variance $d_k \\sigma^4$}{Variance d\\_k σ⁴}
    """
    plain = tex_text(text)
    bookmark = "".join(TEX_SPECIALS.get(ch, ch) if ch in "#%&_{}$~^\\" else ch for ch in pdf_text(str(text or "")))
    if plain == bookmark:
        return plain
    return r"\texorpdfstring{%s}{%s}" % (plain, bookmark)


def tex_verb(text: object, hyphenate: bool = False) -> str:
    """Machine text (justifications, reasons) in typewriter type. Long identifiers have no
    spaces to break at, so a break is allowed after ``_ , ( = / . :``.

    >>> print(tex_verb("apply_theorem(x=1)"))
    \\texttt{apply\\_\\allowbreak{}theorem(\\allowbreak{}x=\\allowbreak{}1)}
    """
    out, run = [], 0
    for ch in str(text):
        out.append(tex_escape(ch))
        run = run + 1 if ch.isalpha() else 0
        if ch in "_,(=/.:":
            out.append(r"\allowbreak{}")
        elif hyphenate and run % 7 == 0 and run:  # a narrow column: a long word may break, hyphenated
            out.append(r"\-")
    return r"\texttt{" + "".join(out) + "}"


def tex_breakable(text: object) -> str:
    """Escaped text in the running font with breaks allowed after ``_ , . /`` (file names)."""
    out = []
    for ch in str(text):
        out.append(tex_escape(ch))
        if ch in "_,./":
            out.append(r"\allowbreak{}")
    return "".join(out)


_BADGES = {v.value for v in Verdict} | {"unchecked", "holds", "holds-to-stated-rounding", "ambiguous", "does-not-hold"}


def badge_key(verdict: object) -> str:
    """The colour key of a verdict badge: the verdict itself, or ``other`` for labels that are not
    verdicts (an audit may say ``ambiguous``)."""
    return str(verdict) if str(verdict) in _BADGES else "other"


def _fit(latex: str, reserve: str = "0pt") -> str:
    return r"\symattnfit[%s]{%s}" % (reserve, latex)


def environment(user_dir: Path | None = None, refs=()) -> jinja2.Environment:
    """The LaTeX template environment (user templates first, then ours); prose links the
    theorem ids ``refs`` to their sections."""
    loaders = []
    if user_dir is not None:
        loaders.append(jinja2.FileSystemLoader(str(user_dir)))
    loaders.append(jinja2.PackageLoader("symattn.products.report", "templates"))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        block_start_string=r"\BLOCK{",
        block_end_string="}",
        variable_start_string=r"\VAR{",
        variable_end_string="}",
        comment_start_string=r"\#{",
        comment_end_string="}",
        line_statement_prefix=None,
        line_comment_prefix=None,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    refs = set(refs)
    from symattn.products.report.typeset import tex_width

    env.filters.update(rich=tex_rich, cellrich=lambda p: tex_rich(p, cell=True), texwidth=tex_width, e=tex_escape,
                       text=lambda t: tex_text(t, refs),
                       verb=tex_verb, brk=tex_breakable,
                       cell=lambda t: tex_cell(t, refs), fit=_fit, badgekey=badge_key,
                       source=lambda t: tex_text(t, refs, breakable=True, cell=False),
                       heading=lambda t: tex_heading(t, refs))
    env.tests.update(math=lambda x: isinstance(x, Math), paragraph=lambda x: isinstance(x, Paragraph),
                     table=lambda x: isinstance(x, Table), links=lambda x: isinstance(x, Links),
                     rich=lambda x: isinstance(x, Rich))
    return env


# ---------------------------------------------------------------------------------------------- PDF
INSTALL_HINT = (
    "pdflatex was not found, so no PDF was made (the .tex and the HTML are written). Install it with\n"
    "    apt-get install texlive-latex-base texlive-latex-recommended latexmk    (Debian/Ubuntu)\n"
    "    brew install --cask mactex-no-gui                                       (macOS)\n"
    "then run `symattn report --format pdf` again, or compile reports/symattn.tex yourself."
)


class PdfResult:
    """``status``: ``"ok"``, ``"missing"`` (no pdflatex) or ``"error"`` (with the log's tail)."""

    def __init__(self, status: str, message: str = "", tool: str = ""):
        self.status, self.message, self.tool = status, message, tool

    def __repr__(self) -> str:
        return f"PdfResult({self.status!r})"


def _reproducible_env() -> dict:
    # pdfTeX honours these: no dates in the PDF, so two runs give the same bytes
    env = dict(os.environ)
    env.update(SOURCE_DATE_EPOCH="0", FORCE_SOURCE_DATE="1", TZ="UTC")
    return env


def compile_pdf(directory: Path, name: str = "symattn", *, timeout: float = 300.0) -> PdfResult:
    """Compile ``directory/name.tex`` with pdflatex (until cross-references settle) into
    ``directory/name.pdf``. Auxiliary files go to a scratch directory, never next to the
    report: the log holds dates, which would break byte-for-byte reproducibility."""
    import tempfile

    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        return PdfResult("missing", INSTALL_HINT)
    with tempfile.TemporaryDirectory(prefix="symattn-tex-") as scratch:
        cmd = [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-file-line-error",
               f"-output-directory={scratch}", f"{name}.tex"]
        log = Path(scratch) / f"{name}.log"
        for _ in range(4):  # the toc and longtable widths need up to three passes
            proc = subprocess.run(cmd, cwd=directory, capture_output=True, timeout=timeout,
                                  env=_reproducible_env(), stdin=subprocess.DEVNULL)
            text = log.read_text(errors="replace") if log.exists() else proc.stdout.decode(errors="replace")
            if proc.returncode != 0:
                return PdfResult("error", _log_tail(text), "pdflatex")
            if "Rerun to get" not in text and "Label(s) may have changed" not in text and \
                    "Rerun LaTeX" not in text:
                break
        shutil.copyfile(Path(scratch) / f"{name}.pdf", directory / f"{name}.pdf")
    return PdfResult("ok", "", "pdflatex")


def _log_tail(text: str, lines: int = 30) -> str:
    """The error lines of a LaTeX log (from the first ``! ...`` or ``file.tex:line:`` error), else its end."""
    import re

    rows = text.splitlines()
    for k, row in enumerate(rows):
        if row.startswith("!") or re.match(r"^\S+\.(tex|sty|cls):\d+: ", row):
            return "\n".join(rows[k:k + lines])
    return "\n".join(rows[-lines:])
