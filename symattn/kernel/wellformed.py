"""Well-formed terms: what the kernel agrees to look at.

The kernel trusts SymPy's expression trees as data (``.args``, ``.func``, structural ``==``,
hashing, arithmetic). Those are Python methods, and a user's class can override them: a head whose
``__eq__`` always answers ``True`` makes ``F(x) = F(x + 1)`` a term equality, one whose ``__sub__``
returns 0 makes every residual vanish (for SymPy and the second engine alike), one whose
``_hashable_content`` drops its arguments makes ``F(x)`` and ``F(x + 1)`` structurally equal, a
subclass of ``exp`` with its own ``eval`` evaluates to ``-1`` while the sign test reads ``exp``'s
positivity. So before it decides anything the kernel checks every node of every term it receives
(each side of a step and its arguments, in :func:`symattn.rules.check_step`; the statement, the
hypotheses and the chain's terms, in the checker) with :func:`check_term`:

* a node's class is SymPy's own, symattn's (the reviewed library: ``symattn.*``, ``derivations.*``),
  SymPy's undefined function of ``Function("f", real=True)`` (assumption keywords only), or a
  user's head made the sanctioned way: a subclass of ``sympy.Function`` (or a head registered with
  :func:`~symattn.kernel.definitions.define`);
* a user's class (every one of its ancestors that is not SymPy's or symattn's) defines nothing but
  printing (:data:`PRINTING`), a docstring and helpers of its own that SymPy never calls (a public
  name no SymPy expression class defines, as ``expanded``): no ``__eq__``, ``__hash__``, arithmetic, ``eval``,
  ``_eval_*``, ``is_*``, ``__new__``, ``doit``, ``subs``, ``func``, ``args``, ``_hashable_content``,
  ..., and an instance carries no attributes of its own;
* a user's subclass of ``Symbol`` (or of any atom of SymPy's) is refused outright, and so is a
  metaclass that is not SymPy's;
* no floating-point number: ``x (1 + 1e-20) = x`` would be decided by SymPy's rounding (write
  ``Rational(1, 10**20)``);
* no ``nan`` and no ``zoo``: SymPy's constructors fold undefined terms to them (``1/(x - x)``,
  ``tan(pi/2)``, ``log(0)``, ``gamma(0)`` are ``zoo``; ``oo - oo``, ``0*oo`` are ``nan``), and such a
  value makes ``nan = nan`` or ``tan(pi/2) = gamma(0)`` a statement about no number.

A refusal is a :class:`~symattn.kernel.terms.KernelError` naming the class and the method (or the
float). The check is memoised per class.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef, UndefinedFunction

from symattn.kernel.terms import KernelError

#: The table of definitions by name (each a :class:`symattn.kernel.definitions.Definition`), filled only
#: by :func:`symattn.kernel.definitions.define`, which re-exports it: it lives here because the heads it
#: defines are well formed (:func:`class_problem`), and the check must not import the code it admits.
DEFINITIONS: dict = {}

__all__ = ["PRINTING", "check_term", "check_terms", "check_hypotheses", "check_statement_names"]

#: what a user's head may define: how it prints, nothing the mathematics reads
PRINTING = frozenset({"_latex", "_pretty", "_sympystr", "__doc__"})

#: what Python and SymPy's metaclass put in every class body (checked for content below)
_BOOKKEEPING = frozenset({"__module__", "__qualname__", "__dict__", "__weakref__", "__annotations__",
                          "__firstlineno__", "__static_attributes__", "_explicit_class_assumptions",
                          "_prop_handler", "default_assumptions", "_nargs", "nargs"})

#: what ``Function("f", **assumptions)`` puts in the undefined class's body
_UNDEFINED = frozenset({"_kwargs", "_sage_", "name", "__doc__"})

_VERDICTS: dict[int, tuple[type, str]] = {}  # id(cls) -> (cls, "" or the reason it is refused)


_TRUSTED: dict[int, tuple[type, bool]] = {}


def _own(cls: type) -> bool:
    """``cls`` is SymPy's, symattn's or the library's own: its ``__module__`` names one of those
    packages AND the class really lives there (a user's class that sets ``__module__`` to
    ``symattn.maths.softmax`` is not trusted): the module is loaded from inside the package's directory,
    the class is found under its name there (or is a local class), and every function of its body
    was compiled from a file inside that directory."""
    if cls is object:
        return True
    mod = getattr(cls, "__module__", None) or ""
    if not isinstance(mod, str) or mod.split(".")[0] not in ("sympy", "symattn", "derivations"):
        return False
    hit = _TRUSTED.get(id(cls))
    if hit is None or hit[0] is not cls:
        hit = _TRUSTED[id(cls)] = (cls, _really_from(cls, mod))
    return hit[1]


def _package_dir(top: str) -> str:
    pkg = sys.modules.get(top)
    f = getattr(pkg, "__file__", None)
    return os.path.dirname(os.path.realpath(f)) if f else ""


def _inside(path: Any, root: str) -> bool:
    if not isinstance(path, str) or not root:
        return False
    return os.path.realpath(path).startswith(root + os.sep)


#: the kernel's corrections of SymPy's handlers: functions from it in a SymPy class are SymPy's
_SYMPY_FIXES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sympy_fixes.py")


def _really_from(cls: type, mod: str) -> bool:
    root = _package_dir(mod.split(".")[0])
    module = sys.modules.get(mod)
    if module is None or not _inside(getattr(module, "__file__", None), root):
        return False
    qual = getattr(cls, "__qualname__", "") or ""
    if "<locals>" not in qual:
        obj: Any = module
        for part in qual.split("."):
            obj = getattr(obj, part, None)
        if obj is not cls:
            return False
    for v in vars(cls).values():
        for f in (v, getattr(v, "__func__", None), getattr(v, "fget", None)):
            code = getattr(f, "__code__", None)
            if code is not None and not _inside(code.co_filename, root) and code.co_filename != _SYMPY_FIXES:
                return False  # (a handler the kernel itself corrected, symattn.kernel.sympy_fixes, is SymPy's)
    return True



def _user_defined_heads() -> set:
    return {d.cls for d in DEFINITIONS.values()}


def class_problem(cls: type, defining: bool = False) -> str:
    """Why nodes of class ``cls`` are refused ("" when they are not); ``defining``: ``cls`` is being
    registered by ``define()`` (so it need not subclass ``sympy.Function``)."""
    why = _structural(cls)
    if why or defining or _own(cls) or type(cls) is UndefinedFunction:
        return why
    if not issubclass(cls, sp.Function) and cls not in _user_defined_heads():
        return "a user's head must subclass sympy.Function (or be registered with define())"
    return ""


def _structural(cls: type) -> str:
    meta = type(cls)
    if meta is not type and not _own(meta):
        return f"its metaclass {meta.__module__}.{meta.__qualname__} is not SymPy's"
    if meta is UndefinedFunction and cls.__bases__ == (AppliedUndef,) and (cls.__module__ is None):
        extra = sorted(k for k in vars(cls) if k not in _BOOKKEEPING | _UNDEFINED and not (
            k.startswith("is_") and isinstance(vars(cls)[k], bool)))
        return f"it defines {extra} (Function(name, ...) takes assumptions only)" if extra else ""
    if _own(cls):
        return ""
    if issubclass(cls, sp.Atom):
        return ("it is a user's subclass of SymPy's atom class "
                f"{next(b for b in cls.__mro__ if _own(b)).__name__}; use sympy.Symbol itself")
    sympys = [b for b in cls.__mro__ if _own(b) and b is not object]
    for base in cls.__mro__:
        if _own(base):
            continue
        body = vars(base)
        bad = sorted(k for k in body if k not in PRINTING | _BOOKKEEPING and not _helper(k, sympys))
        if bad:
            where = "" if base is cls else f" (in its base {base.__qualname__})"
            return (f"it defines {', '.join(bad)}{where}: a user's head may define only printing "
                    f"({', '.join(sorted(PRINTING - {'__doc__'}))}), never a method SymPy or the kernel calls")
        if body.get("_explicit_class_assumptions"):
            return f"it declares assumptions {sorted(body['_explicit_class_assumptions'])}"
        if "nargs" in body and not isinstance(body["nargs"], (int, tuple, sp.Set)):
            return "its nargs is not a number of arguments"
    return ""


def _helper(name: str, sympys: list) -> bool:
    """A method of the user's own that SymPy never calls: a public name (``expanded``) that none of
    the head's SymPy/symattn bases defines and that is not of a family SymPy looks up by name
    (``is_*``, ``as_*``, ``could_*``); every underscored name is refused (``_eval_*``, ``_imp_``,
    ``_sympy_``, ...) but printing."""
    if name.startswith("_") or name.startswith(("is_", "as_", "could_")):
        return False
    return not any(name in vars(b) for b in sympys) and name not in _sympy_names()


@functools.lru_cache(maxsize=1)
def _sympy_names() -> frozenset:
    """Every attribute name a SymPy expression class defines (``limits``, ``shape``, ``expand``, ...):
    code that reads such a name duck-typed must never reach a user's method by it."""
    names: set[str] = set()
    todo, seen = [sp.Basic], set()
    while todo:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        if (c.__module__ or "").startswith("sympy"):
            names.update(vars(c))
        todo.extend(c.__subclasses__())
    names.update(dir(sp.MatrixBase))
    return frozenset(names)


def _unaudited(cls: type) -> str:
    """Why an application of SymPy's own function ``cls`` is refused: it is not one of the heads whose
    constructor and assumption handlers the kernel has audited (:func:`symattn.kernel.sympy_fixes.
    audited_heads`); "" for an audited head and for every class that is not SymPy's function."""
    from symattn.kernel.sympy_fixes import audited_heads

    if not (isinstance(cls, type) and issubclass(cls, sp.Function)) or issubclass(cls, AppliedUndef):
        return ""
    if not (cls.__module__ or "").startswith("sympy.") or cls in audited_heads():
        return ""
    return (f"SymPy's {cls.__name__} is not among the functions whose constructors and assumption handlers "
            "the kernel has audited (SymPy folds applications of such functions as it builds them, and "
            "some wrongly: gegenbauer(1/2, 3/2, x) to 1, conjugate(li(x)) to li(x)); the kernel leaves them "
            "unevaluated and decides nothing of them. Define the function you need with define(), or use an "
            "undefined function (sympy.Function('f', real=True)) and state what you use of it as hypotheses")


def _refusal(cls: type) -> str:
    hit = _VERDICTS.get(id(cls))
    if hit is None or hit[0] is not cls:
        hit = _VERDICTS[id(cls)] = (cls, _structural(cls) or _unaudited(cls))
    if hit[1] or _own(cls) or type(cls) is UndefinedFunction:
        return hit[1]
    return class_problem(cls)


def check_term(expr: Any, where: str = "") -> None:
    """Raise :class:`KernelError` unless every node of ``expr`` is well-formed (module docstring)."""
    at = f" ({where})" if where else ""
    stack = [expr]
    seen: set[int] = set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        cls = type(e)
        if isinstance(e, (list, tuple)) and cls in (list, tuple):
            stack.extend(e)
            continue
        if isinstance(e, (bool, int, str, type(None))) and cls in (bool, int, str, type(None)):
            continue
        if isinstance(e, float) and cls is float:
            raise KernelError(f"the term holds the floating-point number {e!r}{at}: the kernel decides no "
                              "term with a float (rounding would decide it); write it as sympy.Rational")
        why = _refusal(cls) or ("it is the kernel's own marker of an unknown domain" if (
            cls.__name__ == "UnknownDomain" and cls.__module__ == "symattn.kernel.zero") else "")
        if why:
            raise KernelError(f"the term holds {cls.__qualname__}(...){at}, which the kernel does not accept: "
                              f"{why}")
        if isinstance(e, sp.MatrixBase):
            stack.extend(list(e))
            continue
        if not isinstance(e, sp.Basic):
            raise KernelError(f"the term holds a {cls.__qualname__}{at}, which is not a SymPy expression")
        if isinstance(e, (sp.Symbol, AppliedUndef, sp.Indexed, sp.IndexedBase)) and _may_be_infinite(e):
            what = (f"the symbol {e.name}" if isinstance(e, sp.Symbol) else
                    f"the function application {sp.sstr(e)[:80]}" if isinstance(e, AppliedUndef) else
                    f"the indexed {sp.sstr(e)[:80]}")
            raise KernelError(f"the term holds {what}{at}, which the kernel does not accept: it may be "
                              f"infinite (its assumptions "
                              f"{_infinite_assumptions(e)} allow +-oo, where 0*x and x - x are undefined): "
                              "declare it real/positive/nonnegative/... (finite) instead")
        if e is sp.S.NaN or e is sp.S.ComplexInfinity:
            what = ("nan, SymPy's undefined value (oo - oo, 0*oo, exp(zoo) fold to it)" if e is sp.S.NaN else
                    "zoo, SymPy's complex infinity (1/0, tan(pi/2), log(0), gamma(0), factorial(-1) fold to it)")
            raise KernelError(f"the term holds {what}{at}, which the kernel does not accept: it stands for no "
                              "value, so no equation or inequality holds of it (write the term whose pole you "
                              "mean with its variable, e.g. 1/x, and state where it is defined)")
        if isinstance(e, sp.Float):
            raise KernelError(f"the term holds the floating-point number {e}{at}, which the kernel does not accept: it "
                              "decides no term "
                              "with a Float (SymPy's rounding would decide it: x (1 + 1e-20) = x); write it as "
                              "sympy.Rational")
        if isinstance(e, sp.MatPow) and e.exp.is_integer is not True:
            raise KernelError(f"the term holds the matrix power {sp.sstr(e)[:120]}{at}, which the kernel does not "
                              f"accept: the exponent {sp.sstr(e.exp)} is not shown an integer (a matrix root is "
                              "neither unique nor always defined: (A**2)**(1/2) is not A at A = [[-1]])")
        if isinstance(e, (sp.Trace, sp.Determinant)):
            _check_square_argument(e, at)
        if isinstance(e, (sp.Sum, sp.Product)):
            for lim in e.limits:
                bad = [b for b in lim[1:] if isinstance(b, sp.Basic) and b.is_integer is False
                       and not b.has(sp.oo, -sp.oo, sp.zoo)]  # infinite sums: refused by every rule
                if bad:
                    raise KernelError(f"the term holds {cls.__name__.lower()} over {sp.sstr(lim[0])} = "
                                      f"{sp.sstr(lim[1])}..{sp.sstr(lim[-1])}{at}, which the kernel does not accept: "
                                      f"the bound {sp.sstr(bad[0])} is not an integer (the kernel's sums and "
                                      "products run over integer ranges)")
        if not _own(cls) and set(getattr(e, "__dict__", None) or ()) - {"nargs"}:
            raise KernelError(f"the term holds {cls.__qualname__}(...){at} carrying attributes "
                              f"{sorted(set(e.__dict__) - {'nargs'})}: a term is its class and its arguments only")
        stack.extend(e.args)


def _square(m: Any) -> bool:
    shape = getattr(m, "shape", None)
    if shape is None:
        return True  # a scalar inside a Kronecker product (1 x 1)
    try:
        return sp.expand(sp.sympify(shape[0]) - sp.sympify(shape[1])) == 0
    except (TypeError, ValueError, sp.SympifyError):
        return False


def _check_square_argument(e: Any, at: str) -> None:
    """A trace or determinant is of a square matrix, and SymPy's rewriting of it is right only for
    square factors: it gives tr(A (x) B) = tr A tr B and det(diag(A, B)) = det A det B (and 0 when a
    block is not known to be square), both false for rectangular factors. The kernel accepts a
    trace or determinant whose matrix, and every factor of a Kronecker product or block of a
    block-diagonal matrix in it, is square by its shape (the same expression for rows and columns)."""
    name = "trace" if isinstance(e, sp.Trace) else "determinant"
    arg = e.args[0]
    if isinstance(arg, (sp.MatrixExpr, sp.MatrixBase)) and not _square(arg):
        raise KernelError(f"the term holds the {name} of {sp.sstr(arg)[:100]}{at}, of shape "
                          f"{sp.sstr(arg.shape[0])} x {sp.sstr(arg.shape[1])}, which the kernel does not accept: "
                          f"a {name} is of a square matrix (its rows and columns the same expression)")
    if not isinstance(arg, sp.Basic):
        return
    if name == "determinant":
        zero = next((z for z in sp.preorder_traversal(arg) if isinstance(z, sp.ZeroMatrix)
                     and sp.sympify(z.shape[0]).is_positive is not True), None)
        if zero is not None:
            raise KernelError(f"the term holds the determinant of {sp.sstr(arg)[:100]}{at}, with the zero matrix "
                              f"{sp.sstr(zero)} of size {sp.sstr(zero.shape[0])} not shown positive, which the kernel "
                              "does not accept: SymPy rewrites det(0_n) to 0, false at n = 0 (the empty matrix has "
                              "determinant 1); give the size a positive assumption")
    for node in sp.preorder_traversal(arg):
        if isinstance(node, (sp.KroneckerProduct, sp.BlockDiagMatrix)):
            bad = [f for f in node.args if not _square(f)]
            if bad:
                what = "a Kronecker product" if isinstance(node, sp.KroneckerProduct) else "a block-diagonal matrix"
                raise KernelError(
                    f"the term holds the {name} of {what} with the factor {sp.sstr(bad[0])[:80]} of shape "
                    f"{sp.sstr(bad[0].shape[0])} x {sp.sstr(bad[0].shape[1])}{at}, which the kernel does not "
                    f"accept: SymPy's rewriting of it (tr(A (x) B) = tr A tr B, det diag(A, B) = det A det B, "
                    f"and 0 when a block is not known square) holds for square factors only; give the factors "
                    f"square shapes or write the entries")


def _declared(e: Any) -> dict:
    """The assumptions declared of a symbol, an indexed entry or base (its label's included), or an
    undefined function's class (``Function("f", extended_real=True)``)."""
    if isinstance(e, AppliedUndef):
        return dict(type(e).default_assumptions)
    a = dict(e.assumptions0)
    if isinstance(e, sp.IndexedBase):
        a.update({k: v for k, v in e.label.assumptions0.items() if k not in a})
    return a


def _infinite_assumptions(e: Any) -> list:
    a = _declared(e)
    return sorted(k for k, v in a.items() if v is True and (k == "infinite" or k.startswith("extended_")))


def _may_be_infinite(e: Any) -> bool:
    """A symbol, indexed entry or base, or undefined function application whose declared assumptions
    allow an infinite value explicitly (``extended_real``, ``extended_positive``, ``noninteger``, ...
    without ``real``/``finite``, or ``infinite``): adversarial review 13 found ``fe(x) < fe(x) + 1``
    proved for ``fe = Function("fe", extended_real=True)``, false at ``fe(x) = oo``."""
    a = _declared(e)
    if a.get("infinite") is True:
        return True
    if a.get("finite") is True or a.get("real") is True or a.get("complex") is True:
        return False
    return any(v is True and k.startswith("extended_") for k, v in a.items())


def check_terms(terms, where: str = "") -> None:
    for t in terms:
        check_term(t, where)


def check_hypotheses(hypotheses, where: str = "hypothesis") -> None:
    """Every SymPy term held by the hypotheses' fields."""
    for h in hypotheses or ():
        if dataclasses.is_dataclass(h):
            for f in dataclasses.fields(h):
                v = getattr(h, f.name)
                if isinstance(v, (sp.Basic, sp.MatrixBase)) or (
                        isinstance(v, tuple) and any(isinstance(x, (sp.Basic, sp.MatrixBase)) for x in v)):
                    check_term(v, f"{where} {getattr(h, 'name', '')} {f.name}".strip())


def _entry_and_other_matrices(e: Any, acc: tuple) -> tuple:
    """``(matrix symbols read through Entry, matrix symbols held anywhere else, name -> symbols)``."""
    if isinstance(e, sp.MatrixBase):
        for x in e:
            _entry_and_other_matrices(x, acc)
        return acc
    if not isinstance(e, sp.Basic):
        return acc
    if isinstance(e, sp.IndexedBase):  # its label names the entries (K[j, t] of the matrix K): no symbol
        for a in e.args[1:]:
            _entry_and_other_matrices(a, acc)
        return acc
    if isinstance(e, (sp.MatrixSymbol, sp.Symbol)) and not isinstance(e, sp.Dummy):
        acc[2].setdefault(e.name, set()).add(e)
    if type(e).__name__ == "Entry" and (type(e).__module__ or "").startswith("symattn.") and e.args:
        inner = e.args[0]
        if isinstance(inner, sp.Basic):
            acc[0].update(inner.atoms(sp.MatrixSymbol))
            labels = {b.label for b in inner.atoms(sp.IndexedBase)}
            for x in inner.atoms(sp.MatrixSymbol, sp.Symbol):
                if not isinstance(x, sp.Dummy) and x not in labels:
                    acc[2].setdefault(x.name, set()).add(x)
        for a in e.args[1:]:
            _entry_and_other_matrices(a, acc)
        return acc
    if isinstance(e, sp.MatrixSymbol):
        acc[1].add(e)
    for a in e.args:
        _entry_and_other_matrices(a, acc)
    return acc


def check_statement_names(lhs: Any, rhs: Any, where: str = "") -> None:
    """Refuse a statement whose symbols the kernel could confuse:

    * two different symbols or matrix symbols with one name (``MatrixSymbol("W", n, n)`` and
      ``MatrixSymbol("W", m, m)``; ``x`` real and ``x`` positive): SymPy keeps them apart, a printed
      counterexample or the second engine's translation by name would not;
    * a matrix symbol whose entries are read through ``Entry(A, i, j)`` (the kernel's real, 1-based
      entries) and that also appears outside an ``Entry`` (SymPy's ``A[i, j]``, or a matrix expression,
      trace or determinant SymPy writes out with its 0-based ``A[i - 1, j - 1]``): the two conventions
      name the first entry ``A[1, 1]`` and ``A[0, 0]``, so the statement could not be compared at a
      size (``tr A = sum_k Entry(A, k, k)`` was refuted; ``Entry(A, 1, 1) = A[1, 1]`` unfolds to a true
      equation, though SymPy's ``A[1, 1]`` is the second diagonal entry). Write every entry through
      ``Entry``, or none."""
    at = f" ({where})" if where else ""
    acc: tuple = (set(), set(), {})
    for side in (lhs, rhs):
        _entry_and_other_matrices(side, acc)
    for name, syms in sorted(acc[2].items()):
        if len(syms) > 1:
            shown = ", ".join(sorted((f"{type(x).__name__} {sp.sstr(x)}" + (f" of shape {x.shape}" if isinstance(
                x, sp.MatrixSymbol) else f" {sorted(k for k, v in x.assumptions0.items() if v)}")) for x in syms))
            raise KernelError(f"the statement{at} holds {len(syms)} different symbols named {name!r} ({shown}), "
                              "which the kernel does not accept: one name, one symbol (rename one of them)")
    mixed = sorted(acc[0] & acc[1], key=lambda m: m.name)
    if mixed:
        raise KernelError(
            f"the statement{at} reads the entries of {mixed[0].name} through Entry (the kernel's 1-based entries) "
            f"and also holds {mixed[0].name} outside an Entry (SymPy's 0-based {mixed[0].name}[i, j], or a matrix "
            "expression SymPy writes out), which the kernel does not accept: the two conventions name the first "
            f"entry {mixed[0].name}[1, 1] and {mixed[0].name}[0, 0]; write every entry through Entry, or none")
