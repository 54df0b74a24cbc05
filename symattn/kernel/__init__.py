"""The trusted core of symattn: the few operations every verdict ``proved`` depends on.

In the manner of HOL Light's ``fusion.ml``: what is here is trusted, everything else (the rules in
:mod:`symattn.rules`, the derivations, the report) only builds candidates and asks the core. A rule
may be wrong in what it *proposes*; it is the core that decides whether ``lhs = rhs`` (or a sign)
holds, and the core refuses what it cannot show.

Modules
-------
* :mod:`.terms` -- the term layer (locally nameless terms). ``canonical`` replaces every bound
  variable (``Sum``, ``Product``, ``Integral``, ``Lambda``, ``Limit``, our own ``ExprWithLimits``
  classes and the Lambda heads declared with ``declare_binder``) by the dummy of its binding depth carrying only
  what its range implies; ``substitute`` replaces free occurrences only and renames a binder rather
  than capture; ``free_symbols`` looks through binders, Indexed bases and matrix shapes.
  ``symattn.rules.check_step`` puts both sides of every step, and its arguments, in canonical form
  before any rule sees them: a hypothesis about a free ``j`` can never match a bound occurrence.
  ``open_binder`` opens a sum at its canonical variable (or at a value); a term holding canonical
  variables free gets its own binders above them, so an opened body is never captured.
* :mod:`.sign` -- the sign test ``sign_of`` / ``nonzero``: SymPy's assumptions on the canonical
  form, with the sign of a finite sum decided by the kernel (summand sign, range not reversed or
  nonempty), never by the index's own assumptions; ``ranges`` (the ``IndexRange`` hypotheses, a
  sum's own bounds for its variable) enter by writing each ranged ``v`` as ``lo + t`` or ``hi - u``
  with ``t, u >= 0``.
* :mod:`.zero` -- the zero test ``equal`` / ``is_zero`` / ``zero_test`` with definedness side
  conditions: the residual must reduce to 0 *and* every denominator (log argument, ``tan``'s
  cosine, ...) of one side that the other does not share must be shown nonzero from the
  assumptions or an ``Assumption`` hypothesis; every step is checked for this
  (``check_step``), not only ``algebra``.
* :mod:`.sums` -- the finite-sum evaluator: constants (with ``hi >= lo - 1``), linearity, the
  delta rule (solve for the index, the solution must be an integer in range), Faulhaber's sums of
  ``k, k^2, k^3``; infinite limits are refused.
* :mod:`.search` -- what the concrete levels rest on: ``expand_finite`` (the kernel's own
  unroller of finite sums and products with concrete limits, capture-free, never ``doit`` on a
  ``Sum``) from which each instance is *derived* from the statement; ``find_model`` (concrete
  values at which every checkable hypothesis holds, smallest first: a theorem without one is
  ``undecided``); ``find_counterexample`` (values for free symbols only, inside the hypotheses,
  reported only when every hypothesis is shown to hold there, and only where the sides are shown to
  differ by :mod:`.exact`): it shows failures and models, never a proof.
* :mod:`.exact` -- exact decisions about closed numbers: nonzero and the sign by ball arithmetic
  (python-flint's ``acb``, whose balls are guaranteed to contain the value), zero by the rational
  value or the minimal polynomial over Q (``minimal_polynomial`` under a time limit), never by
  structure or floating point; a float, an unevaluated integral, sum or limit is undecided.
* :mod:`.zippel` -- the Schwartz--Zippel test at points inside the hypotheses: equations solved
  for a variable and substituted, every point checked against every hypothesis, exact comparison,
  a degree bound that a test pins (``x y`` -> 2, ``x^2 y`` -> 3, ``(x y)^3`` -> 6).
* :mod:`.grading` -- from the four levels to one verdict (a concrete failure refutes; a
  Schwartz--Zippel level counts only when its false-pass bound is at most ``2**-30``; the
  symbolic level is capped by the verdicts of the lemmas it used; heuristics never above
  ``numerically-consistent``).
* :mod:`.timelimit` -- every potentially slow SymPy call runs under it; running out of time is
  ``undecided``, never a pass.
* :mod:`.second` -- the second engine, sharing nothing with SymPy's simplifier: every zero test
  the kernel accepts is re-checked by python-flint (a rational function over Q of opaque atoms),
  every sign/nonzero answer by Z3; a disagreement refuses the fact, with both answers; what it
  cannot express is recorded as checked by one engine (``symattn check --json``: ``rechecked``).

What is trusted, exactly
------------------------
* SymPy's expression trees as data: ``.args``, ``.func(*args)``, structural ``==``, ``xreplace``
  on canonical terms (where bound variables are dummies no user term contains), ``Dummy``.
* SymPy's assumption system (``is_positive``, ``is_nonnegative``, ``is_integer``, ``is_zero``) on
  canonical terms: it reads signs from the declared assumptions of *free* symbols and from the
  structure; bound variables carry only their range, so nothing is lent.
* Exact rewriting, used only to find a 0: ``expand``, ``cancel``, ``together``, ``powsimp``,
  ``factor_terms``, ``trigsimp``/``expand_trig``, ``simplify``, and ``doit`` of matrix
  expressions. These are equivalences *where both sides are defined*, which is why the zero test
  adds the definedness conditions; they never see a sum holding a Kronecker delta or an infinite
  limit (those are opaque symbols; only :mod:`.sums` rewrites them).
* ``factor_list`` / ``Mul.make_args`` to split denominators into conditions (splitting too finely
  only asks for more), ``Poly`` and ``diff`` of a linear form to solve a delta's equation.
* ``diff`` (SymPy's differentiation rules) in :mod:`.calculus`, only of an expression shown, head by
  head on every path to the variable, to be differentiable there (no ``Piecewise``, ``floor``,
  ``Heaviside``, ``sign``, ``Max``/``Min``; ``|g|`` only where ``g != 0``; powers, logs and poles only
  where defined); the monotonicity schema reads the sign of the derivative with the sign test.
  Limits are closed by the schemas of :mod:`.schemas.limits` (continuity at a finite point, ``0/0``
  by ``N'(z0)/D'(z0)``, ``u = 1/z``, decaying exponentials under shown rates); ``sympy.limit``
  (Gruntz) is never called.
* python-flint's ball arithmetic (``acb``: the exact value lies in the ball) and SymPy's
  ``minimal_polynomial``, for the closed numbers of the concrete levels (:mod:`.exact`).
* Never trusted: ``sympy.limit``, floating point, ``equals``, ``evalf``, ``Sum.doit`` with deltas, ``summation``.

Size
----
About 2900 lines with docstrings (:func:`core_size` counts them; a test keeps this figure honest).
Nothing in the core imports :mod:`symattn.report`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["MODULES", "core_size"]

#: the modules of the core, in reading order
MODULES = ("terms", "sign", "zero", "sums", "search", "exact", "zippel", "grading", "timelimit")


def core_size() -> int:
    """Lines of the core's modules (this file included)."""
    here = Path(__file__).parent
    files = [here / "__init__.py"] + [here / f"{m}.py" for m in MODULES]
    return sum(len(f.read_text().splitlines()) for f in files if f.exists())
