r"""Typesetting what the checker says, and breaking long formulas into lines.

Three jobs, shared by the HTML and the LaTeX report:

* **Names.** The kernel works on the locally nameless form of a term (:func:`symattn.kernel.terms.canonical`):
  a bound ``j`` becomes the canonical dummy ``_k0``. A reason that names a canonical term would show
  ``_k0`` where the step the reader is looking at says ``j``. :func:`bound_names` reads the
  step's own expressions and maps each binding level to the name the user bound there;
  :func:`restore_names` puts those names back.
* **Messages.** A reason is a :class:`~symattn.kernel.message.Message` (text with the SymPy objects
  it names) or a plain string. :func:`rich` turns either into parts: ``("text", s)`` for words,
  ``("math", latex)`` for an expression; in a plain string the expressions written in SymPy's
  notation are found and typeset by :func:`symattn.products.report.ascii_math.program_parts`.
* **Lines.** :func:`display_lines` splits a long formula at its top-level sum into lines no wider
  than the page (estimated by :func:`tex_width`), as ``breqn`` would, instead of shrinking it.

>>> import sympy as sp
>>> from symattn.kernel.terms import canonical
>>> j, n = sp.symbols("j n", integer=True, positive=True)
>>> s = sp.Sum(j**2, (j, 1, n))
>>> names = bound_names(s)
>>> restore_names(canonical(s), names) == s
True
>>> rich("split the sum over _k0 = 1..n", names)
[('text', 'split the sum over '), ('math', 'j = 1, \\dots, n')]
"""

from __future__ import annotations

import re
from typing import Any

import sympy as sp

from symattn.kernel.timelimit import TimeLimitExceeded, time_limit
from symattn.language.printing import latex as _latex

__all__ = ["bound_names", "restore_names", "rich", "display_lines", "tex_width", "plain_with_names", "LINE_EM",
           "PRINT_SECONDS", "tex_of", "sanitize_math"]

#: Seconds allowed for printing one expression (a huge matrix must not stall the report).
PRINT_SECONDS = 10.0


def tex_of(expr: Any) -> str:
    """LaTeX of ``expr`` through :func:`symattn.language.printing.latex`, under a time limit."""
    try:
        with time_limit(PRINT_SECONDS):
            return sanitize_math(_latex(expr))
    except TimeLimitExceeded:
        return r"\text{(expression too large to print)}"
    except Exception as exc:  # a printer bug in one object must not take the whole report down
        from symattn.language.printing import text_to_tex

        return r"\text{(could not print: %s: %s)}" % (type(exc).__name__, text_to_tex(str(exc))[:200])


_TEXT_GROUP = re.compile(r"\\text\{([^{}]*)\}")


def sanitize_math(latex: str) -> str:
    """Repair LaTeX that TeX rejects but lenient converters accept: ``\\text{QK^\\top}`` (a
    superscript or a command inside ``\\text``) becomes ``\\mathrm{QK^\\top}``.

    >>> print(sanitize_math(r"\\operatorname{MAC}_{\\text{QK^\\top}} + \\text{ if } x"))
    \\operatorname{MAC}_{\\mathrm{QK^\\top}} + \\text{ if } x
    """
    def fix(m):
        body = m.group(1)
        return r"\mathrm{%s}" % body if re.search(r"(?<!\\)[\^_]|\\[A-Za-z]", body) else m.group(0)

    return _TEXT_GROUP.sub(fix, latex)


#: the width, in em of the running font, that a displayed line may take (A4, 2.2 cm margins, 11 pt,
#: less the step number and the relation column)
LINE_EM = 34.0

_DUMMY_WORD = re.compile(r"(?<![A-Za-z0-9])_k(\d+)(?![A-Za-z0-9])")


def _level_of(x: Any) -> int | None:
    from symattn.kernel.terms import _BASE, is_bound_variable

    if is_bound_variable(x):
        return (x.dummy_index - _BASE) // 8
    return None


def _binder_variables(e: Any) -> list:
    """The variables ``e`` binds, in the order the kernel numbers them (SymPy's limits order)."""
    from symattn.kernel.terms import LAMBDA_RANGES

    if isinstance(e, sp.concrete.expr_with_limits.ExprWithLimits):
        return [lim[0] for lim in e.limits]
    if isinstance(e, sp.Limit):
        return [e.args[1]]
    if isinstance(e, sp.Lambda):
        return list(e.variables)
    if type(e) in LAMBDA_RANGES and e.args and isinstance(e.args[0], sp.Lambda):
        return list(e.args[0].variables)
    return []


def bound_names(*exprs: Any) -> dict:
    """``{level: Symbol}``: for each binding level, the first variable the expressions bind there
    (preorder). Canonical dummies of that level are shown with that name."""
    names: dict = {}

    def walk(e: Any, level: int) -> None:
        if isinstance(e, sp.MatrixBase):
            for x in e:
                walk(x, level)
            return
        if not isinstance(e, sp.Basic) or not e.args:
            return
        vs = _binder_variables(e)
        if vs and type(e) is not sp.Lambda and not isinstance(e, (sp.concrete.expr_with_limits.ExprWithLimits,
                                                                   sp.Limit)):
            # a head like Softmax(Lambda(j, ...), i, n): the Lambda is its first argument
            for off, v in enumerate(vs):
                if _level_of(v) is None:
                    names.setdefault(level + off, v)
            walk(e.args[0].expr, level + len(vs))
            for a in e.args[1:]:
                walk(a, level)
            return
        for off, v in enumerate(vs):
            if _level_of(v) is None:
                names.setdefault(level + off, v)
        inner = level + len(vs)
        for a in e.args:
            walk(a, inner if vs else level)

    for x in exprs:
        try:
            walk(x, 0)
        except Exception:  # noqa: BLE001 - names are a courtesy to the reader, never a failure
            pass
    return names


def _name_for(level: int, names: dict) -> sp.Symbol:
    v = names.get(level)
    return v if v is not None else sp.Symbol(("j", "l", "m", "p", "r")[level % 5] + ("'" * (level // 5)))


def restore_names(obj: Any, names: dict) -> Any:
    """``obj`` with every canonical dummy replaced by the user's name for its level (a fresh
    letter when the expressions bind nothing at that level)."""
    if not isinstance(obj, (sp.Basic, sp.MatrixBase)):
        return obj
    try:
        dummies = [d for d in obj.atoms(sp.Dummy) if _level_of(d) is not None]
    except Exception:  # noqa: BLE001
        return obj
    if not dummies:
        return obj
    mapping = {d: _name_for(_level_of(d), names) for d in dummies}
    try:
        return obj.xreplace(mapping)
    except Exception:  # noqa: BLE001
        return obj


def plain_with_names(text: str, names: dict) -> str:
    """A plain string with the canonical dummies' printed names (``_k0``) replaced by the user's."""
    return _DUMMY_WORD.sub(lambda m: str(_name_for(int(m.group(1)), names)), str(text))


def rich(text: Any, names: dict | None = None) -> list:
    """The parts of a reason: a :class:`~symattn.kernel.message.Message`'s words as ``text`` and
    its expressions as ``math`` (LaTeX, names restored); in a plain string (program output) the
    expressions in SymPy's notation are typeset too, names restored."""
    from symattn.kernel.message import Message
    from symattn.products.report.ascii_math import program_parts
    names = names or {}
    if text is None or text == "":
        return []
    if isinstance(text, Message):
        out: list = []
        for p in text.parts:
            if isinstance(p, str):
                if p:
                    out += program_parts(plain_with_names(p, names))
            elif isinstance(p, (sp.Basic, sp.MatrixBase, int, float)) and not isinstance(p, bool):
                out.append(("math", tex_of(restore_names(p, names))))
            else:
                out.append(("text", plain_with_names(str(p), names)))
        return out
    return program_parts(plain_with_names(str(text), names))


# ---------------------------------------------------------------------------------------------- lines
_CMD = re.compile(r"\\([A-Za-z]+|.)")
# commands that print nothing, or whose arguments are what is seen
_INVISIBLE = {"left", "right", "mathrm", "operatorname", "mathbf", "mathit", "mathcal", "mathbb", "text",
              "displaystyle",
              "bigl", "bigr", "Bigl", "Bigr", "big", "Big", "limits", "nolimits", "mathop", "boldsymbol", "hat",
              "tilde", "bar", "overline", "vec", "begin", "end", "matrix", "mathsf", "mathtt"}
_WIDE = {"sum": 1.6, "prod": 1.6, "int": 1.0, "quad": 1.0, "qquad": 2.0, "cdot": 0.8, "times": 0.8, "le": 1.1,
         "ge": 1.1, "leq": 1.1, "geq": 1.1, "ne": 1.1, "to": 1.1, "mapsto": 1.2, "in": 0.9, ",": 0.17, ";": 0.28,
         " ": 0.33, "!": -0.17, "langle": 0.4, "rangle": 0.4, "lVert": 0.5, "rVert": 0.5, "|": 0.5}


def _group(s: str, k: int) -> tuple[str, int]:
    """The ``{...}`` group at ``s[k]`` (or the single token there) and the index after it."""
    if k >= len(s):
        return "", k
    if s[k] != "{":
        m = _CMD.match(s, k)
        if m:
            return s[k:m.end()], m.end()
        return s[k], k + 1
    depth = 0
    for j in range(k, len(s)):
        depth += {"{": 1, "}": -1}.get(s[j], 0)
        if depth == 0:
            return s[k + 1:j], j + 1
    return s[k + 1:], len(s)


def tex_width(latex: str) -> float:
    """A rough width of a formula in em (display style): letters count about half an em, a
    fraction the wider of its parts, scripts two thirds, a big operator more. Used only to decide
    where to break a long formula; TeX's own measure decides the rest.

    >>> tex_width("x + y") < tex_width(r"\\sum_{j=1}^{n} x_{j}^{2} + \\frac{a + b + c}{2}")
    True
    """
    return _width(latex, 1.0)


def _width(s: str, scale: float) -> float:
    w, k = 0.0, 0
    while k < len(s):
        ch = s[k]
        if ch == "\\":
            m = _CMD.match(s, k)
            name = m.group(1)
            k = m.end()
            if name == "frac" or name == "dfrac" or name == "tfrac":
                a, k = _group(s, k)
                b, k = _group(s, k)
                w += max(_width(a, scale * 0.9), _width(b, scale * 0.9)) + 0.3 * scale
            elif name == "sqrt":
                a, k = _group(s, k)
                w += _width(a, scale) + 0.9 * scale
            elif name in ("text", "mathrm", "operatorname") and k < len(s) and s[k] == "{":
                a, k = _group(s, k)
                w += len(a) * 0.5 * scale
            elif name in ("begin", "end"):
                _, k = _group(s, k)
            elif name in _INVISIBLE:
                continue
            elif name in _WIDE:
                w += _WIDE[name] * scale
            else:
                w += 0.6 * scale  # a Greek letter, a named operator's letter group is under-counted
        elif ch in "^_":
            a, k = _group(s, k + 1)
            w += _width(a, scale * 0.7) * (0.6 if ch == "_" else 1.0)
        elif ch in "{}":
            k += 1
        elif ch in "+-=<>":
            w += 1.0 * scale
            k += 1
        elif ch == " ":
            k += 1
        elif ch == "&":
            k += 1
        else:
            w += 0.5 * scale
            k += 1
    return w


def _terms(expr: Any) -> list:
    """The top-level terms of a sum in printing order."""
    from symattn.language.printing import SymattnLatexPrinter

    try:
        return list(SymattnLatexPrinter()._as_ordered_terms(expr))
    except Exception:  # noqa: BLE001
        return list(expr.args)


def _pack(pieces: list, width: float, first: float) -> list:
    """Greedy lines from pieces of LaTeX (each already no wider than it can be made)."""
    lines, cur, avail = [], "", first
    for p in pieces:
        cand = (cur + " " + p).strip()
        if cur and tex_width(cand) > avail:
            lines.append(cur)
            cur, avail = p, width
        else:
            cur = cand
    if cur:
        lines.append(cur)
    return lines


def _split(expr: Any, width: float, first: float, depth: int = 0) -> list:
    """Lines of LaTeX for ``expr``: a sum broken before top-level signs, a product between its
    factors, a parenthesised sum inside a product broken inside big parentheses (which, unlike
    ``\\left( \\right)``, may open on one line and close on another)."""
    whole = tex_of(expr)
    if tex_width(whole) <= first or depth > 4 or not isinstance(expr, (sp.Add, sp.Mul)):
        return [whole]
    if isinstance(expr, sp.Add):
        pieces: list = []
        for k, t in enumerate(_terms(expr)):
            neg = t.could_extract_minus_sign()
            body_expr = -t if neg else t
            sign = ("-" if neg else "") if k == 0 else ("- " if neg else "+ ")
            body = tex_of(body_expr)
            if isinstance(body_expr, sp.Add):
                body = r"\left(%s\right)" % body
            if tex_width(sign + body) > width and isinstance(body_expr, sp.Mul):
                sub = _split(body_expr, width - 1, width - 1, depth + 1)
                pieces += [sign + sub[0]] + sub[1:]
            else:
                pieces.append(sign + body)
        return _pack(pieces, width, first)
    # a product
    numer, denom = sp.fraction(expr)
    prefix = ""
    if denom != 1:
        prefix = r"\frac{1}{%s}" % tex_of(denom)
        expr = numer
        if not isinstance(expr, sp.Mul):
            if isinstance(expr, sp.Add):
                inner = _split(expr, width - 2, first - 2 - tex_width(prefix), depth + 1)
                return _bracket(prefix, inner)
            return [whole]
    coeff = expr.as_coeff_mul()[0]
    pieces = []
    lead = prefix
    if coeff == -1:
        lead = "-" + lead
    elif coeff != 1:
        lead = tex_of(coeff) + " " + lead
    for f in [f for f in expr.as_ordered_factors() if not f.is_Number]:
        body = tex_of(f)
        if isinstance(f, sp.Add):
            if tex_width(body) + 1 > width:
                inner = _split(f, width - 2, width - 2, depth + 1)
                pieces += _bracket("", inner)
                continue
            body = r"\left(%s\right)" % body
        pieces.append(body)
    if lead:
        pieces[0] = (lead + " " + pieces[0]).strip()
    return _pack(pieces, width, first)


def _bracket(prefix: str, inner: list) -> list:
    """``prefix (inner lines)`` with big parentheses that may span lines."""
    if len(inner) == 1:
        return [r"%s\left(%s\right)" % (prefix, inner[0])]
    return [r"%s\Bigl(%s" % (prefix, inner[0])] + inner[1:-1] + [inner[-1] + r"\Bigr)"]


def display_lines(expr: Any, width: float = LINE_EM, first: float | None = None) -> list[str]:
    """LaTeX of ``expr`` as lines each about ``width`` em at most (``first`` for the first line):
    a sum too long for one line is broken before a top-level ``+`` or ``-``, the continuation lines
    starting with the sign; a product between its factors. Anything else (a matrix, one huge
    fraction) is one line, which TeX scales down only if even that does not fit.

    >>> x = sp.symbols("x0:12")
    >>> len(display_lines(sum(sp.Symbol(f"a_{k}") * sp.sqrt(v) for k, v in enumerate(x)), width=12))
    4
    >>> display_lines(sp.Symbol("x") + 1)
    ['x + 1']
    """
    return _split(expr, width, width if first is None else first)
