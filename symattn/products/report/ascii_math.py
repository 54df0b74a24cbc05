r"""Typeset the expressions inside program output that reaches the report as plain text.

The checker's reasons become :class:`~symattn.kernel.message.Message` objects that keep their
expressions; until every producer does, and for text that is program output by nature (the claim
audit's computed values, the levels' data), a string may still hold SymPy's ``str`` notation:
``d_k*sigma**4``, ``sqrt(d_k)``, ``KroneckerDelta(i, j)``. A reader of a typeset report should not
see that. :func:`program_parts` finds such expressions in the text and writes them as LaTeX.

It is a display transformation only: a small recursive-descent parser of SymPy's printed notation
that emits LaTeX directly. Nothing is evaluated, no SymPy object is built from the text (no
``sympify``), and anything it does not recognise stays text. A span counts as an expression only if
it is unmistakably one (a ``*``, ``/``, ``**``, an index ``a[i]``, a known function call), so that
prose such as "left side - right side" is left alone.

>>> program_parts("mean 0, variance d_k*sigma**4")
[('text', 'mean 0, variance '), ('math', 'd_{k} \\sigma^{4}')]
>>> program_parts("the gap 2*(a[i] - 1/2)**2 is nonnegative")
[('text', 'the gap '), ('math', '2 \\left(a_{i} - \\frac{1}{2}\\right)^{2}'), ('text', ' is nonnegative')]
>>> program_parts("std sqrt(d_k)*sigma**2; KroneckerDelta(i, j) = 0")
[('text', 'std '), ('math', '\\sqrt{d_{k}} \\sigma^{2}'), ('text', '; '), ('math', '\\delta_{i j} = 0')]
>>> program_parts("split the sum over j = 1..i - 1 at i")
[('text', 'split the sum over '), ('math', 'j = 1, \\dots, i - 1'), ('text', ' at i')]
>>> program_parts("h heads: d*(d/h) + d^2 = 4*d**2")
[('text', 'h heads: '), ('math', 'd \\left(\\frac{d}{h}\\right) + d^{2} = 4 d^{2}')]
>>> program_parts("left side - right side, 20000 samples")
[('text', 'left side - right side, 20000 samples')]
"""

from __future__ import annotations

import re

__all__ = ["program_parts", "to_latex"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![A-Za-z_])")
_REL = (" <= ", " >= ", " == ", " != ", " < ", " > ", " = ")
_REL_TEX = {"<=": r"\le", ">=": r"\ge", "==": "=", "!=": r"\ne", "<": "<", ">": ">", "=": "="}
#: calls that make a span an expression, and how they print
_FUNCS = {"sqrt", "exp", "log", "Abs", "KroneckerDelta", "Sum", "Product", "Max", "Min", "sin", "cos", "tan",
          "tanh", "Variance", "Expectation", "Covariance", "Lambda", "binomial", "factorial", "floor", "ceiling",
          "Piecewise", "MaxOver", "MinOver", "Softmax", "Trace", "Transpose", "Matrix", "Integral", "oo"}
_WORDS = {"and", "or", "not", "in", "is", "if", "for", "at", "of", "the", "to", "by", "with", "from", "as"}


class _Fail(Exception):
    pass


class _Parser:
    """SymPy's printed notation -> a tree of tuples; ``mathy`` records whether a sign of an
    expression (an operator other than + and -, an index, a known call) was seen."""

    def __init__(self, s: str, k: int):
        self.s, self.k, self.mathy = s, k, False

    def peek(self, tok: str) -> bool:
        return self.s.startswith(tok, self.k)

    def eat(self, tok: str) -> bool:
        if self.peek(tok):
            self.k += len(tok)
            return True
        return False

    def rel(self):
        left = self.range()
        chain = [left]
        while True:
            for r in _REL:
                save = self.k
                if self.eat(r):
                    try:
                        chain += [r.strip(), self.range()]
                        break
                    except _Fail:
                        self.k = save
                        return ("rel", chain) if len(chain) > 1 else left
            else:
                return ("rel", chain) if len(chain) > 1 else left

    def range(self):
        """``lo..hi`` (how the checker writes an integer range)."""
        lo = self.sum()
        save = self.k
        if self.eat(".."):
            try:
                hi = self.sum()
            except _Fail:
                self.k = save
                return lo
            self.mathy = True
            return ("range", lo, hi)
        return lo

    def sum(self):
        neg = self.eat("-")
        terms = [("neg", self.term()) if neg else self.term()]
        while True:
            save = self.k
            op = "+" if self.eat(" + ") else "-" if self.eat(" - ") else None
            if op is None:
                return ("sum", terms) if len(terms) > 1 else terms[0]
            try:
                t = self.term()
            except _Fail:
                self.k = save
                return ("sum", terms) if len(terms) > 1 else terms[0]
            terms.append(t if op == "+" else ("neg", t))

    def term(self):
        out = self.power()
        while True:
            save = self.k
            if self.peek("**"):
                return out
            op = "*" if self.eat("*") else "/" if self.eat("/") else None
            if op is None:
                return out
            try:
                rhs = self.power()
            except _Fail:
                self.k = save
                return out
            self.mathy = True
            out = ("mul", out, rhs) if op == "*" else ("div", out, rhs)

    def power(self):
        base = self.postfix()
        if self.eat("**") or (self.peek("^") and not self.peek("^(") and self.eat("^")):
            self.mathy = True
            neg = self.eat("-")
            e = self.power()
            return ("pow", base, ("neg", e) if neg else e)
        return base

    def postfix(self):
        a = self.atom()
        while self.peek("["):
            self.eat("[")
            idx = self.args("]")
            self.mathy = True
            a = ("index", a, idx)
        return a

    def args(self, close: str) -> list:
        out = [self.rel()]
        while self.eat(", "):
            out.append(self.rel())
        if not self.eat(close):
            raise _Fail
        return out

    def atom(self):
        m = _NUMBER.match(self.s, self.k)
        if m:
            self.k = m.end()
            return ("num", m.group(0))
        m = _NAME.match(self.s, self.k)
        if m and not m.group(0).startswith("_"):
            name = m.group(0)
            self.k = m.end()
            if self.peek("("):
                self.eat("(")
                args = self.args(")")
                if name in _FUNCS:
                    self.mathy = True
                return ("call", name, args)
            if name == "oo":
                return ("raw", r"\infty")
            return ("name", name)
        if self.eat("("):
            items = self.args(")")
            return ("group", items)
        raise _Fail


def _name(name: str) -> str:
    import sympy as sp

    from symattn.language.printing import latex

    return latex(sp.Symbol(name))


def _compound(t) -> bool:
    return t[0] in ("sum", "neg", "mul", "div", "rel", "pow")


def _paren(t) -> str:
    tex = to_latex(t)
    return r"\left(%s\right)" % tex if _compound(t) else tex


def to_latex(t) -> str:
    """LaTeX of a tree from the parser."""
    kind = t[0]
    if kind == "num":
        return t[1]
    if kind == "raw":
        return t[1]
    if kind == "name":
        return _name(t[1])
    if kind == "neg":
        inner = t[1]
        return "-" + (r"\left(%s\right)" % to_latex(inner) if inner[0] in ("sum", "rel") else to_latex(inner))
    if kind == "sum":
        out = to_latex(t[1][0])
        for x in t[1][1:]:
            if x[0] == "neg":
                inner = x[1]
                out += " - " + (r"\left(%s\right)" % to_latex(inner) if inner[0] in ("sum", "rel") else
                                to_latex(inner))
            else:
                out += " + " + to_latex(x)
        return out
    if kind == "mul":
        a, b = t[1], t[2]
        left = to_latex(a) if a[0] in ("mul", "pow", "div") or not _compound(a) else _paren(a)
        right = _paren(b) if b[0] in ("sum", "neg", "rel") else to_latex(b)
        sep = r" \cdot " if b[0] == "num" or (a[0] == "num" and b[0] == "num") else " "
        return left + sep + right
    if kind == "div":
        return r"\frac{%s}{%s}" % (to_latex(t[1]), to_latex(t[2]))
    if kind == "pow":
        base, e = t[1], t[2]
        b = to_latex(base)
        if _compound(base):
            b = r"\left(%s\right)" % b
        if base[0] == "call" and base[1] == "sqrt" and e == ("num", "2"):
            return to_latex(base[2][0]) if not _compound(base[2][0]) else _paren(base[2][0])
        return "{%s}^{%s}" % (b, to_latex(e)) if base[0] == "index" else "%s^{%s}" % (b, to_latex(e))
    if kind == "index":
        return "%s_{%s}" % (to_latex(t[1]), " ".join(to_latex(x) for x in t[2]))
    if kind == "range":
        return r"%s, \dots, %s" % (to_latex(t[1]), to_latex(t[2]))
    if kind == "group":
        return r"\left(%s\right)" % ", ".join(to_latex(x) for x in t[1])
    if kind == "rel":
        parts = t[1]
        out = to_latex(parts[0])
        for op, rhs in zip(parts[1::2], parts[2::2]):
            out += f" {_REL_TEX[op]} {to_latex(rhs)}"
        return out
    if kind == "call":
        return _call(t[1], t[2])
    raise ValueError(kind)


def _limits(lim) -> tuple[str, str, str] | None:
    if lim[0] == "group" and len(lim[1]) == 3:
        v, lo, hi = lim[1]
        return to_latex(v), to_latex(lo), to_latex(hi)
    return None


def _call(name: str, args: list) -> str:
    tex = [to_latex(a) for a in args]
    if name == "sqrt" and len(args) == 1:
        return r"\sqrt{%s}" % tex[0]
    if name == "exp" and len(args) == 1:
        return "e^{%s}" % tex[0]
    if name == "Abs" and len(args) == 1:
        return r"\left|%s\right|" % tex[0]
    if name == "KroneckerDelta" and len(args) == 2:
        return r"\delta_{%s %s}" % (tex[0], tex[1])
    if name in ("Sum", "Product", "Integral") and len(args) >= 2:
        lims = [_limits(a) for a in args[1:]]
        if all(lims):
            op = {"Sum": r"\sum", "Product": r"\prod", "Integral": r"\int"}[name]
            if name == "Integral":
                return "".join(r"\int_{%s}^{%s}" % (lo, hi) for _, lo, hi in lims) + " " + tex[0] + "".join(
                    r" \, d%s" % v for v, _, _ in lims)
            body = _paren(args[0]) if args[0][0] in ("sum", "neg") else tex[0]
            return "".join(r"%s_{%s=%s}^{%s}" % (op, v, lo, hi) for v, lo, hi in reversed(lims)) + " " + body
    if name in ("MaxOver", "MinOver") and len(args) == 2 and _limits(args[1]):
        v, lo, hi = _limits(args[1])
        return r"\%s_{%s=%s}^{%s} %s" % ("max" if name == "MaxOver" else "min", v, lo, hi, _paren(args[0]))
    if name == "Softmax" and len(args) == 3 and args[0][0] == "call" and args[0][1] == "Lambda":
        return r"\operatorname{softmax}\left(%s\right)_{%s}" % (to_latex(args[0][2][1]), tex[1])
    if name == "Lambda" and len(args) == 2:
        return r"\left(%s \mapsto %s\right)" % (tex[0], tex[1])
    if name in ("log", "sin", "cos", "tan", "tanh", "max", "min", "Max", "Min"):
        return r"\%s\left(%s\right)" % (name.lower(), ", ".join(tex))
    if name in ("Variance", "Expectation", "Covariance"):
        op = {"Variance": r"\operatorname{Var}", "Expectation": r"\mathbb{E}", "Covariance": r"\operatorname{Cov}"}
        return r"%s\left(%s\right)" % (op[name], ", ".join(tex))
    return r"\operatorname{%s}\left(%s\right)" % (name.replace("_", r"\_"), ", ".join(tex))


def _worth_it(tree, mathy: bool) -> bool:
    if mathy:
        return True
    # a relation or a sum of short names and numbers (``1 <= i = 1``, ``n - 1``) reads as maths too
    if tree[0] not in ("rel", "sum"):
        return False
    names = []

    def walk(t):
        if t[0] == "name":
            names.append(t[1])
        elif t[0] in ("sum", "rel", "group"):
            for x in t[1]:
                if isinstance(x, tuple):
                    walk(x)
        elif t[0] == "neg":
            walk(t[1])

    walk(tree)
    return all(len(n) <= 2 or "_" in n for n in names) and not any(n in _WORDS for n in names)


def program_parts(text: str) -> list:
    """``text`` as ``("text", s)`` and ``("math", latex)`` parts (see the module docstring)."""
    s = str(text)
    out: list = []
    buf, k = [], 0
    while k < len(s):
        starts_word = k == 0 or not (s[k - 1].isalnum() or s[k - 1] in "_.")
        if starts_word and (s[k].isalnum() or s[k] in "_(-"):
            p = _Parser(s, k)
            try:
                tree = p.rel()
                end = p.k
            except (_Fail, RecursionError, IndexError):
                tree, end = None, k
            ends_word = end >= len(s) or not (s[end].isalnum() or s[end] in "_")
            if tree is not None and end > k and ends_word and _worth_it(tree, p.mathy):
                try:
                    tex = to_latex(tree)
                except (ValueError, KeyError, RecursionError):
                    tex = None
                if tex is not None:
                    if buf:
                        out.append(("text", "".join(buf)))
                        buf = []
                    out.append(("math", tex))
                    k = end
                    continue
        buf.append(s[k])
        k += 1
    if buf:
        out.append(("text", "".join(buf)))
    return out
