r"""The hyperbolic tangent and limits: ``tanh_bound``, ``hyperbolic_as_exp``, ``limit_evaluate``,
``hyperbolic_witness``. Proposers only: every fact comes from the kernel's schemas
(:mod:`symattn.kernel.schemas.analysis`, :mod:`symattn.kernel.schemas.limits`).

* ``tanh_bound``  -- :math:`-1 < \tanh x < 1` and :math:`|\tanh x| < 1` for real ``x`` (schemas
  ``tanh_lt_one``, ``tanh_gt_minus_one``, ``abs_tanh_lt_one``). The step ``F(tanh x) REL F(b)``
  replaces one occurrence ``tanh x`` (or ``|tanh x|``) by the end ``b`` of its range; the kernel's
  ``monotone`` schema shows ``F`` strictly monotone on the segment (the sign of ``F'`` by its sign
  test), so ``c |tanh(s/c)| < c`` for ``c > 0``.
* ``hyperbolic_as_exp``  -- both sides agree once ``sinh, cosh, tanh, sech`` ... are written with
  exponentials (schema ``hyperbolic_as_exp``, then the zero test).
* ``hyperbolic_witness``  -- ``lhs <= rhs`` through a witness equal to ``rhs - lhs`` once both are
  written with exponentials, whose sign the kernel's sign test reads off (schema ``gap_sign`` with
  the equation), with the theorem's index ranges.
* ``limit_evaluate``  -- each ``Limit`` closed by the kernel's limit lemmas, never by
  ``sympy.limit``: a body continuous at a finite point (``limit_substitute``); at ``oo`` a body
  that is a continuous function of decaying exponentials ``e^{c z}``, ``c < 0`` (``limit_decaying``;
  the rule divides by the dominant exponential, the kernel needs the order of the rates shown: by
  the symbols' signs, or by an order hypothesis ``a > b`` the theorem states); at ``oo`` through
  ``u = 1/z`` (``limit_at_infinity``) followed by substitution or a quotient ``N/D`` with
  ``N(0) = D(0) = 0`` (``limit_quotient``: ``N'(0)/D'(0)``); with ``lower=`` and ``upper=``, a squeeze
  (``limit_squeeze``: the bounds shown by the kernel's sign test for every point of the approach, their
  limits closed by the lemmas above).

>>> import sympy as sp
>>> from symattn.rules import ProofContext, check_step
>>> c, s = sp.Symbol("c", positive=True), sp.Symbol("s", real=True)
>>> check_step(sp.Limit(c * sp.tanh(s / c), c, sp.oo), s, "=", "limit_evaluate", {}, ProofContext()).ok
True
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from symattn.kernel.axioms import axiom
from symattn.kernel.calculus import depends_on
from symattn.kernel.terms import KernelError, alpha_equal
from symattn.kernel.thm import accept, by_zero, refl, rewrite, sym, trans
from symattn.rules import RuleError, failed, proved, rule

__all__ = ["tanh_occurrences"]


def _show(x: Any) -> str:
    s = sp.sstr(x)
    return s if len(s) <= 200 else s[:200] + " ..."


def tanh_occurrences(expr: Any) -> list:
    """The ``tanh(x)`` and ``|tanh(x)|`` subexpressions of ``expr``, outermost form first."""
    if not isinstance(expr, sp.Basic):
        return []
    absolute = [a for a in expr.atoms(sp.Abs) if isinstance(a.args[0], sp.tanh)]
    plain = list(expr.atoms(sp.tanh))
    return sorted(absolute, key=sp.default_sort_key) + sorted(plain, key=sp.default_sort_key)


def _scalar(x):
    return sp.sympify(x, strict=True) if isinstance(x, (int, float)) else x


@rule(
    "tanh_bound",
    "F(tanh x) < F(b) for b the end (1 or -1; 1 for |tanh x|) that F moves towards, F strictly monotone in tanh x "
    "(the kernel's monotone schema); -1 < tanh x < 1 for real x",
)
def check_tanh_bound(lhs, rhs, relation, ctx):
    if relation not in ("<", "<=", ">", ">="):
        raise RuleError(f"tanh_bound justifies inequalities, not {relation!r}")
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        raise RuleError("tanh_bound compares scalars")
    lhs, rhs = _scalar(lhs), _scalar(rhs)
    tried = []
    for occ in tanh_occurrences(lhs):
        arg = occ.args[0].args[0] if isinstance(occ, sp.Abs) else occ.args[0]
        bounds = [("abs_tanh_lt_one", sp.S.One)] if isinstance(occ, sp.Abs) else [
            ("tanh_lt_one", sp.S.One), ("tanh_gt_minus_one", sp.S.NegativeOne)]
        for name, end in bounds:
            try:
                bound = axiom(name, arg=arg)
            except KernelError as exc:
                tried.append(f"{_show(occ)}: {exc}")
                break
            try:
                thm = bound if alpha_equal(lhs, occ) else axiom("monotone", expr=lhs, at=occ, bound=bound,
                                                                   strict=relation in ("<", ">"))
            except KernelError as exc:
                tried.append(f"{_show(occ)} -> {end}: {exc}")
                continue
            forward = alpha_equal(thm.lhs, lhs)
            other = thm.rhs if forward else thm.lhs
            try:
                if not alpha_equal(other, rhs):
                    thm = trans(thm, by_zero(other, rhs)) if forward else trans(by_zero(rhs, other), thm)
            except KernelError:
                tried.append(f"{_show(occ)} -> {end}: the replacement gives {_show(other)}, not the right side")
                continue
            if accept(thm, lhs, rhs, relation):
                return proved(thm, f"{_show(occ)} lies strictly inside its range; the end is {end}")
            tried.append(f"{_show(occ)} -> {end}: the kernel shows {thm!r}, the other direction")
    if not tried:
        return failed("no tanh(x) on the left side whose replacement by an end of its range gives the right side")
    return failed("; ".join(tried))


_HYPERBOLIC = (sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch)


def _as_exp(x):
    """The kernel's theorem ``x = x written with exponentials`` (reflexivity without hyperbolics)."""
    if isinstance(x, sp.Basic) and x.has(*_HYPERBOLIC):
        return axiom("hyperbolic_as_exp", expr=x)
    return refl(x)


@rule("hyperbolic_as_exp", "the sides agree once sinh, cosh, tanh, ... are written with exponentials")
def check_hyperbolic_as_exp(lhs, rhs, relation, ctx):
    if relation != "=":
        raise RuleError("hyperbolic_as_exp justifies equalities only")
    lhs, rhs = _scalar(lhs), _scalar(rhs)
    if not any(isinstance(x, sp.Basic) and x.has(*_HYPERBOLIC) for x in (lhs, rhs)):
        return failed("no hyperbolic function on either side")
    a, b = _as_exp(lhs), _as_exp(rhs)
    try:
        middle = by_zero(a.rhs, b.rhs)
    except KernelError as exc:
        return failed(f"the sides differ when written with exponentials ({exc})")
    return proved(trans(a, middle, sym(b)), "equal once written with exponentials")


@rule("hyperbolic_witness", "rhs - lhs equals a witness (compared with exponentials) whose sign the kernel's "
      "sign test shows (the symbols' assumptions and the IndexRange hypotheses)",
      params=("witness",))
def check_hyperbolic_witness(lhs, rhs, relation, ctx, witness=None):
    if relation not in ("<=", "<", ">=", ">"):
        raise RuleError(f"hyperbolic_witness justifies inequalities, not {relation!r}")
    if witness is None:
        raise RuleError("hyperbolic_witness needs witness=<an expression equal to the gap>")
    gap = rhs - lhs if relation in ("<=", "<") else lhs - rhs
    w, g = _as_exp(_scalar(witness)), _as_exp(gap)
    try:
        eq = trans(w, by_zero(w.rhs, g.rhs), sym(g))
    except KernelError:
        return failed("the witness is not equal to the gap, even written with exponentials")
    try:
        return proved(axiom("gap_sign", lhs=lhs, rhs=rhs, relation=relation, equation=sym(eq)),
                      f"the gap equals {_show(witness)}")
    except KernelError as exc:
        return failed(f"the kernel cannot sign the witness {_show(witness)}: {exc}")


# ------------------------------------------------------------------------------------ limits
def _dominant_forms(body: Any, z: Any) -> list:
    """Candidate forms of ``body`` divided through by each of its exponentials ``e^{c z}`` (and by 1):
    the rule's guesses at the dominant term; the kernel checks the form and the rates."""
    num, den = sp.fraction(sp.together(body))
    rates = {sp.S.Zero}
    for e in (sp.expand(num) + sp.expand(den)).atoms(sp.exp):
        if depends_on(e, z):
            c = sp.diff(sp.expand(e.args[0]), z)
            if not c.has(z):
                rates.add(c)
    out = []
    for c in sorted(rates, key=sp.default_sort_key):
        scale = sp.exp(-c * z)
        out.append(_merged_exps(sp.expand(num) * scale) / _merged_exps(sp.expand(den) * scale))
    return out


def _merged_exps(x: Any) -> Any:
    """Each term of ``x`` with its exponential factors merged into one ``exp`` of the summed exponents."""
    terms = []
    for t in sp.Add.make_args(sp.expand(x, power_exp=False)):
        exps = [f for f in sp.Mul.make_args(t) if isinstance(f, sp.exp)]
        rest = [f for f in sp.Mul.make_args(t) if not isinstance(f, sp.exp)]
        terms.append(sp.Mul(*rest) * sp.exp(sp.expand(sp.Add(*[e.args[0] for e in exps]))))
    return sp.Add(*terms)


def _close_limit(lim: sp.Limit, reasons: list):
    """The kernel's theorem ``lim = value`` by the first lemma that applies, or None."""
    body, z, z0, _dir = lim.args

    def attempt(name, **params):
        try:
            return axiom(name, **params)
        except KernelError as exc:
            reasons.append(f"{name}: {exc}")
            return None

    if not z0.has(sp.oo, -sp.oo, sp.zoo):
        t = attempt("limit_substitute", limit=lim)
        if t is not None:
            return t
        num, den = sp.fraction(sp.together(body))
        if den != 1:
            return attempt("limit_quotient", limit=lim, numerator=num, denominator=den)
        return None
    if z0 == sp.oo:
        for form in _dominant_forms(body, z):
            t = attempt("limit_decaying", limit=lim, form=form)
            if t is not None:
                return t
    inv = attempt("limit_at_infinity", limit=lim)
    if inv is None:
        return None
    inner = inv.rhs
    if not isinstance(inner, sp.Limit):
        return None
    rest = _close_limit(inner, reasons)
    return trans(inv, rest) if rest is not None else None


def _limits_closed(x: Any, reasons: list):
    """The kernel's theorem ``x = x with every Limit replaced by its value``."""
    out = refl(x)
    if not isinstance(x, sp.Basic):
        return out
    for lim in sorted(out.rhs.atoms(sp.Limit), key=sp.default_sort_key):
        t = _close_limit(lim, reasons)
        if t is None:
            return None
        out = trans(out, t) if alpha_equal(out.rhs, lim) else trans(out, rewrite(out.rhs, t))
    return out


def _squeezed(lhs: Any, lower: Any, upper: Any, reasons: list):
    """The kernel's theorem ``lhs = L`` for ``lhs`` a Limit squeezed between ``lower`` and ``upper``."""
    from symattn.rules.summation import index_argument

    if not isinstance(lhs, sp.Limit):
        reasons.append("squeeze: the left side must be the limit itself")
        return None
    body, z, z0, direction = lhs.args
    g, h = index_argument((_scalar(lower), _scalar(upper)), z, lhs)
    try:
        below = axiom("gap_sign", lhs=g, rhs=body, relation="<=")
        above = axiom("gap_sign", lhs=body, rhs=h, relation="<=")
    except KernelError as exc:
        reasons.append(f"squeeze: {exc}")
        return None
    gl, hl = _close_limit(sp.Limit(g, z, z0, str(direction)), reasons), \
        _close_limit(sp.Limit(h, z, z0, str(direction)), reasons)
    if gl is None or hl is None:
        return None
    try:
        return axiom("limit_squeeze", limit=lhs, below=below, above=above, below_limit=gl, above_limit=hl)
    except KernelError as exc:
        reasons.append(f"limit_squeeze: {exc}")
        return None


@rule("limit_evaluate", "close each Limit by the kernel's limit lemmas (continuity at a finite point, decaying "
      "exponentials under the order of the rates, u = 1/z, N'(z0)/D'(z0) for 0/0, squeeze between lower= and "
      "upper=); never sympy.limit", params=("lower", "upper"))
def check_limit_evaluate(lhs, rhs, relation, ctx, lower=None, upper=None):
    if relation != "=":
        raise RuleError("limit_evaluate justifies equalities only")
    lhs, rhs = _scalar(lhs), _scalar(rhs)
    if not any(isinstance(x, sp.Basic) and x.has(sp.Limit) for x in (lhs, rhs)):
        return failed("no limit on either side")
    reasons: list = []
    if lower is not None or upper is not None:
        if lower is None or upper is None:
            raise RuleError("a squeeze needs both lower= and upper=")
        a = _squeezed(lhs, lower, upper, reasons)
        if a is None:
            return failed("no kernel lemma closes the limit: " + "; ".join(reasons))
        try:
            return proved(trans(a, by_zero(a.rhs, rhs)), "squeezed between the bounds")
        except KernelError as exc:
            return failed(f"the limits evaluate to {_show(a.rhs)} and {_show(rhs)} ({exc})")
    a, b = _limits_closed(lhs, reasons), _limits_closed(rhs, reasons)
    if a is None or b is None:
        return failed("no kernel lemma closes the limit: " + "; ".join(reasons))
    try:
        middle = by_zero(a.rhs, b.rhs)
    except KernelError as exc:
        return failed(f"the limits evaluate to {_show(a.rhs)} and {_show(b.rhs)} ({exc})")
    return proved(trans(a, middle, sym(b)), "the limits close to the same value")
