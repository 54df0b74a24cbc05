"""The trusted core of symattn: the only code that decides, and everything a ``proved`` rests on.

In the manner of HOL Light's ``fusion.ml``, with theorems as values: a fact is a
:class:`~symattn.kernel.thm.Thm`, which only the primitives of this package construct (a private token
guards the constructor; a ``Thm`` never leaves the process, and records the hypotheses it was made
under). The rules of :mod:`symattn.rules` are untrusted proposers: they choose which primitive to apply
where and hand back a ``Thm``; :func:`symattn.rules.check_step` takes a step only when the ``Thm``
states it exactly (:func:`~symattn.kernel.thm.accept`). A wrong rule can fail to find a proof; it
cannot make the kernel accept a false step. ``tests/symattn/rules/test_rules_decide_nothing.py`` reads
every converted rule module and fails on a deciding SymPy call.

The primitives
--------------
* :mod:`.thm` -- ``refl``, ``sym``, ``trans``; ``by_zero`` (the zero test with definedness);
  ``by_sign`` (the sign test of a gap, with a witness and a positive scale); ``rewrite`` (congruence,
  also under binders, never capturing); ``hypothesis``; ``accept``.
* :mod:`.axioms` -- the one table of axiom schemas (:func:`~symattn.kernel.axioms.table`), each a
  function of :mod:`.schemas` that builds its instance itself and discharges its side conditions with
  the tests below: :mod:`.schemas.sums` (linearity, delta contraction, closed forms, split, single
  term, flatten, interchange), :mod:`.schemas.ranges` (masks, ``|x|``, deltas, floors, max/min, range
  split, range inequalities), :mod:`.schemas.analysis` (derivatives, monotonicity, tanh bounds,
  triangle and Cauchy--Schwarz inequalities, termwise bounds, shifts, extrema), :mod:`.schemas.limits`
  (limits without Gruntz: substitution at a point of continuity, quotients, decaying exponentials under
  shown rates, limits at infinity), :mod:`.schemas.probability` (linearity of expectation,
  independence, variances of independent and paired sums, moments of declared families),
  :mod:`.schemas.trig` (the addition formulas and ``sin^2 + cos^2 = 1``), :mod:`.schemas.blocks`
  (operators block diagonal on coordinate pairs: bilinear forms as sums over the blocks, operators equal
  when their ``2 x 2`` blocks at a fresh block index are), :mod:`.schemas.matrices`
  (entrywise evaluation of explicit matrices, sums only by the kernel's evaluator; normal forms, blocks,
  permutations, ranks; ``matrix_entrywise``, extensionality: matrices of equal shape are equal when their
  entries, read by the kernel's ``matrix_entry``, were shown equal for fresh generic indices under exactly
  the ranges the kernel adds).
* :mod:`.ledger` -- the records of each decision (which engine decided what), moved onto the ``Thm``
  a primitive returns; the checker reports them per step.
* :mod:`.definitions` -- ``define`` (refuses a head deriving from one of SymPy's classes, a head
  overriding SymPy's protocol, a second, different definition of a name or a head, and circular
  definitions) and ``unfold``; a user's expansion is computed once per arity and frozen.
* :mod:`.hypotheses` -- a hypothesis equation used as stated or at instances of its ``forall``
  variables, each kept in its declared domain (every declared assumption; index positions are
  integers; ``IndexRange`` hypotheses with the binders' ranges).
* :mod:`.lemmas` -- instances of registered theorems only (looked up in the registry the checker
  put in the step's context), the image of every symbol keeping its assumptions, every hypothesis of
  the lemma discharged here (a ``forall`` equation only by one as general); each use recorded, so the
  checker caps the verdict by the lemma's.
* :mod:`.induction` -- the claim at ``T`` from a base ``Thm`` made under the theorem's hypotheses and a
  step ``Thm`` made under exactly the context the kernel builds (induction hypothesis and range).

The tests
---------
* :mod:`.wellformed` -- the terms the kernel agrees to look at (the statement, the hypotheses, the
  chain, both sides and the arguments of every step): every node's class SymPy's, symattn's, or a
  user's ``sympy.Function`` subclass / ``define()``d head defining only printing (no ``__eq__``,
  ``__hash__``, arithmetic, ``_hashable_content``, ``eval``, ``_eval_*``, ``is_*``, ``__new__``,
  ``func``, ``args``, ...); no user ``Symbol`` subclass; no floating-point number.
* :mod:`.sympy_fixes` -- SymPy assumption handlers the kernel reads and corrects on import (SymPy's
  ``binomial(n, 3)`` is "negative" for every integer ``n``; it is 0 at ``n = 0``), the SymPy functions
  it has audited (``audited_heads``), and the silencing of every other special or combinatorial one
  (no evaluation, no assumption; :mod:`.wellformed` refuses them as terms).
* :mod:`.context` -- the state every test reads: the step's hypotheses, the definitions the kernel
  unfolds, the ranges of the binders enclosing a head being unfolded (the walk that sets them decides
  each range with the order test it is given: the sign test's), below all the tests that read it.
* :mod:`.terms` -- locally nameless terms: ``canonical`` replaces every bound variable by the dummy
  of its depth carrying only what its range implies (by Karr's convention, whichever way the range
  runs); ``substitute`` never captures; ``free_symbols`` looks through binders.
* :mod:`.zero` -- the zero test: the residual must reduce to 0 by exact rewriting with every sum an
  opaque atom (after the kernel's own delta contraction and linear normal form: SymPy never evaluates a
  sum), *and* every definedness condition of one side the other lacks must be shown nonzero (SymPy's
  functions by a whitelist: one without a table entry has an unknown domain, matched only by the same
  application on the other side); a summand as written must be defined on its whole range.
* :mod:`.sign` -- the sign test: SymPy's assumptions on canonical terms (a user's defined heads
  unfolded first), finite sums signed by the kernel (summand sign, range not reversed), ranged
  symbols at the ends of their ranges.
* :mod:`.sums` -- the finite-sum evaluator: constants and Faulhaber's sums over bounds shown integer
  (Karr's convention), the delta rule with its integrality and range checks; infinite limits refused.
* :mod:`.calculus` -- derivatives only of expressions differentiable on every path to the variable,
  of a literal order.
* :mod:`.index_bounds` -- an entry, a softmax component or a positional pair unfolded only where its
  index is shown inside the shape (the ranges of the hypotheses, the enclosing sums and declared
  permutations).
* :mod:`.second` -- the second engine, sharing nothing with SymPy's simplifier: every zero the kernel
  accepts re-checked by python-flint (a rational function over Q of opaque atoms), every sign by Z3;
  a disagreement refuses the fact with both answers; what it cannot express is recorded as checked by
  one engine (``symattn check --json``: ``rechecked``).
* The concrete levels: :mod:`.search` (the expander, models shown at a point, counterexamples inside
  the hypotheses), :mod:`.instances` (the smallest sizes inside the assumptions and the hypotheses,
  at which every theorem with integer dimensions is instantiated),
  :mod:`.exact` (closed numbers decided exactly: ball arithmetic for signs, minimal
  polynomials for zero), :mod:`.zippel` (Schwartz--Zippel at points of the hypotheses),
  :mod:`.grading` (four levels to one verdict, of the types in :mod:`.verdict`),
  :mod:`.timelimit` (a slow call is ``undecided``; the one validation of every limit and of the
  environment variables symattn reads is :mod:`.environment`).
* :mod:`.objects` -- the objects the schemas and the concrete levels recognise, with their
  definitions: moments of random vectors and their calculus (which the concrete levels evaluate) and the
  constructors of random vectors, permutations, block matrices and ranks, the rotations of RoPE, index
  bands; the helpers of :mod:`symattn.maths` build them and re-export them.

What is trusted, exactly
------------------------
* SymPy's expression trees as data (``.args``, ``.func(*args)``, structural ``==``, ``xreplace``,
  ``match`` on canonical terms, ``Dummy``) -- SymPy's own methods only: :mod:`.wellformed` refuses a
  user's class that overrides any of them.
* The table of SymPy functions defined everywhere (``zero.TOTAL``) and of those with named conditions
  (``zero.CONDITIONED``).
* SymPy's assumption system on canonical terms: the declared assumptions of free symbols, and the
  assumption methods (``_eval_is_positive`` and its kin) of symattn's own heads, which are part of
  the reviewed library (a user's heads are unfolded instead); likewise the entry formulas (``_symattn_entry``) of
  symattn's own matrix heads, which ``matrix_entry`` reads (a head defined elsewhere is refused).
* Exact rewriting used only to find a 0, on terms whose sums are opaque: ``expand``, ``cancel``,
  ``together``, ``powsimp``, ``factor_terms``, ``trigsimp``/``expand_trig``, ``simplify``; ``doit`` of
  matrix expressions of explicit shape; ``Poly`` for linear forms and degrees; ``factor_list`` to split
  denominators into conditions.
* ``diff`` in :mod:`.calculus`, only where differentiability is shown head by head.
* python-flint (exact polynomials over Q, ``acb`` balls) and Z3 as the second engine and for the
  concrete levels; ``minimal_polynomial`` under a time limit.
* The setup of each step by :func:`symattn.rules.check_step` (the theorem's hypotheses and the
  registry put in the kernel's context, the Thm accepted against the step's canonical sides).
* Never trusted: ``sympy.limit`` (Gruntz), ``integrate`` and ``Integral.doit`` (every integral and limit
  is an opaque atom to the zero test), ``summation`` and ``Sum.doit``, ``solve``, ``equals``,
  ``evalf`` and floating point.

Size
----
About 15700 lines with docstrings, about 2600 of them the second engine (:func:`core_size` counts them; a test
keeps this figure honest).
Nothing in the core imports :mod:`symattn.products.report`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["MODULES", "core_size"]

#: the modules of the core, in reading order
MODULES = ("thm", "axioms", "ledger", "definitions", "hypotheses", "lemmas", "induction", "wellformed", "terms",
           "zero", "sign", "sums", "calculus", "search", "instances", "exact", "zippel", "grading", "verdict",
           "timelimit", "environment", "index_bounds", "context", "sympy_fixes")


def core_size() -> int:
    """Lines of the core's modules (this file included)."""
    here = Path(__file__).parent
    files = [here / "__init__.py"] + [here / f"{m}.py" for m in MODULES]
    files += sorted((here / "schemas").glob("*.py")) + sorted((here / "second").glob("*.py"))
    files += sorted((here / "objects").glob("*.py"))
    return sum(len(f.read_text().splitlines()) for f in files if f.exists())
