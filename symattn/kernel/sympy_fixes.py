"""Corrections of SymPy's assumption handlers that the kernel would otherwise read.

The kernel reads SymPy's assumptions of SymPy's own functions (the sign test asks ``is_positive``;
constructors fold ``Abs``, ``sign``, ``Max`` and ``sqrt`` by them). One of them is wrong:
``binomial(n, k)._eval_is_nonnegative`` answers False for every integer ``n`` not known
nonnegative and odd ``k``, so ``binomial(n, 3)`` is "negative" -- yet it is 0 at ``n = 0`` and 1 at
``n = 3`` (adversarial review 11: ``binomial(n, 3) < 0`` was proved, and ``Abs(binomial(n, 3))`` was
built as ``-binomial(n, 3)``). Installed by :mod:`symattn.kernel.terms` (which every module of the
core that reads a term imports) and when a public name of :mod:`symattn` is first imported, so before
a theorem file builds a term:

>>> import sympy as sp
>>> n = sp.Symbol("n", integer=True)
>>> sp.binomial(n, 3).is_negative, sp.binomial(n, 3).is_nonnegative, sp.Abs(sp.binomial(n, 3))
(None, None, Abs(binomial(n, 3)))
>>> sp.binomial(-n**2 - 1, 3).is_negative, sp.binomial(n**2, 3).is_nonnegative, sp.binomial(n, 2).is_nonnegative
(True, True, True)

Two more families read signs of arguments that may not be real (adversarial review 12). ``Mod(a, q)``
is "nonnegative" whenever ``q > 0``, whatever ``a`` is, so ``0 <= Mod(t_k, 2)`` with ``t_k`` complex
evaluated to True (``Mod(I, 2)`` is not even defined: there is no order on the complex numbers);
``Max``/``Min`` are "positive" when one argument is, so ``Max(1, a)`` is real for a complex ``a``.
Each handler of ``Mod``, ``Max`` and ``Min`` now answers only when every argument is known real
(extended real for ``Max``/``Min``, whose ``oo`` arguments SymPy allows), and otherwise says nothing:

>>> a, x = sp.Symbol("a"), sp.Symbol("x", real=True)
>>> sp.Mod(a, 2).is_nonnegative, sp.Mod(a, 2).is_real, sp.Max(1, a).is_positive, sp.Min(a, 2).is_real
(None, None, None, None)
>>> sp.Mod(x, 2).is_nonnegative, sp.Mod(x, -2).is_nonpositive, sp.Max(1, x).is_positive
(True, True, True)

Adversarial review 13 found one more. ``asin``, ``acos``, ``atan`` call themselves irrational at every
rational argument, so ``atan(m)`` for an integer ``m`` was "nonzero" (``sign(atan(m))`` folded to 1,
``0**atan(m)`` to 0), though ``atan(0) = asin(0) = acos(1) = 0``; the corrected handlers say irrational
only where the argument is shown away from that point (Lindemann: the value at any other rational is
transcendental):

>>> m = sp.Symbol("m", integer=True)
>>> sp.atan(m).is_nonzero, sp.acos(m).is_zero, sp.sign(sp.atan(m))
(None, None, sign(atan(m)))
>>> sp.atan(m + sp.S.Half).is_irrational, sp.acos(sp.Rational(1, 3)).is_irrational
(True, True)

Adversarial review 14 found two more. ``Pow``: ``(-1)**e`` for an ``e`` that is rational but of unknown
integrality (``n (n - 1)/2``, ``k/2``, ``(o - 1)/2``) was "imaginary" and "not real" (SymPy read "not
shown an integer" as "not an integer"), so ``re`` of it folded to 0 and ``KroneckerDelta(it, 1)`` to
0, though it is 1 at ``n = 0``. Every fact handler of ``Pow`` now says nothing for a negative base to
such an exponent. ``gamma``: ``gamma(x)`` of a noninteger ``x`` took the sign of ``floor(x)``'s parity
whatever the sign of ``x`` (``gamma(o + 1/2)`` "nonpositive" for an odd ``o``, though
``gamma(3/2) > 0``); that rule holds on the negative axis only:

>>> n, o = sp.Symbol("n", integer=True), sp.Symbol("o", odd=True)
>>> t = (-1) ** (n * (n - 1) / 2)
>>> t.is_imaginary, t.is_real, sp.re(t) == 0, sp.gamma(o + sp.S.Half).is_positive
(None, None, False, None)
>>> ((-1) ** (2 * n)).is_real, ((-1) ** (n + sp.S.Half)).is_imaginary, sp.gamma(-sp.S.Half).is_positive
(True, True, False)

Adversarial review 15 showed that this cannot go on function by function: SymPy's special functions
fold as they are built, and some wrongly (``gegenbauer(1/2, 3/2, x)`` to 1, ``jacobi(1/2, 1, 1, x)`` to
4/5, ``legendre(n, -1)`` to ``(-1)**n`` for a negative ``n``, ``elliptic_pi(-1, 3, 0)`` to a closed form
outside its range, ``conjugate(li(x))`` to ``li(x)``), and their handlers decide facts
(``divisor_sigma(k, m)`` "a positive integer" for a complex ``k``). So the kernel reads only the
functions of :func:`audited_heads` (the elementary ones, rounding, ``Max``/``Min``/``Mod``, the deltas,
``erf``, ``gamma`` and its logarithm and derivatives, the factorials); every other function of SymPy's
special and combinatorial families is silenced: it stays unevaluated, states no assumption, and offers
no rewriting of itself (``conjugate``, ``Abs``), and the kernel refuses it as a term. ``loggamma``'s
conjugate is taken only off its branch cut:

>>> x, p = sp.Symbol("x", real=True), sp.Symbol("p", positive=True)
>>> sp.gegenbauer(sp.S.Half, sp.Rational(3, 2), x), sp.conjugate(sp.li(x)), sp.zeta(2)
(gegenbauer(1/2, 3/2, x), conjugate(li(x)), zeta(2))
>>> sp.conjugate(sp.loggamma(x)), sp.conjugate(sp.loggamma(p)), sp.gamma(sp.S.Half), sp.factorial2(5)
(conjugate(loggamma(x)), loggamma(p), sqrt(pi), 15)

Adversarial review 16: ``acot`` and ``acoth`` jump at 0, so their odd folds need an argument shown
nonzero; ``LeviCivita`` of integers is evaluated only with every index in ``1..n`` (a permutation, or a
repeated index):

>>> sp.acot(-x), sp.acot(-p), sp.acot(0), sp.LeviCivita(1, 2, 4), sp.LeviCivita(1, 3, 2)
(acot(-x), -acot(p), pi/2, LeviCivita(1, 2, 4), -1)
>>> sp.LeviCivita(0, 1, 2), sp.LeviCivita(2, 2, 1)
(LeviCivita(0, 1, 2), 0)

Adversarial review 23: ``floor``, ``ceiling`` and ``frac`` of a closed number near an integer were
evaluated by floating point at too small a precision (``floor(5 cos(2^-17))`` was 5); the integer
part is now checked exactly (:mod:`symattn.kernel.integer_parts`, installed here):

>>> sp.floor(5 * sp.cos(sp.Rational(1, 2**17))), sp.ceiling(5 * sp.exp(sp.Rational(1, 2**40)))
(4, 6)
"""

from __future__ import annotations

import sympy as sp
from sympy.functions.elementary.integers import floor

__all__ = ["install"]


def _binomial_is_nonnegative(self):
    n, k = self.args
    if n.is_integer and k.is_integer:
        if n.is_nonnegative or k.is_negative or k.is_even:
            return True  # 0 outside 0..n, positive inside; (-1)^k binomial(k - n - 1, k) >= 0 for even k
        if n.is_negative and k.is_odd and k.is_nonnegative:
            return False  # (-1)^k binomial(k - n - 1, k) < 0
    return None  # odd k, n of unknown sign: 0 at n = 0, positive from n = k, negative below 0


def _args_real(self, extended: bool) -> bool:
    return all((a.is_extended_real if extended else a.is_real) is True for a in self.args)


def _guarded(handler, extended: bool):
    """The handler, answering only when every argument is known real."""

    def guarded(self, *args, **kwargs):
        if not _args_real(self, extended):
            return None
        return handler(self, *args, **kwargs)

    guarded.__symattn_fixed__ = True
    guarded.__wrapped__ = handler
    return guarded


def _guard_real_arguments(cls, extended: bool) -> None:
    # every handler in the table the assumption system built with the class, and the class's own
    # ``_eval_is_*`` attributes (called directly by some of SymPy's code)
    for fact, handler in list(cls._prop_handler.items()):
        if fact == "commutative" or getattr(handler, "__symattn_fixed__", False):
            continue
        cls._prop_handler[fact] = _guarded(handler, extended)
    for name in dir(cls):
        if not name.startswith("_eval_is_") or name in ("_eval_is_commutative",):
            continue
        handler = getattr(cls, name)
        if not callable(handler) or getattr(handler, "__symattn_fixed__", False):
            continue
        fact = name[len("_eval_is_"):]
        if fact in cls._prop_handler:
            setattr(cls, name, cls._prop_handler[fact])


def _inverse_trig_is_rational(zero_at):
    def is_rational(self):
        s = self.func(*self.args)
        if s.func != self.func:
            return s.is_rational
        a = s.args[0]
        if a.is_rational and (a - zero_at).is_nonzero:
            return False  # transcendental away from the one rational point where it is 0
        return None

    is_rational.__symattn_fixed__ = True
    return is_rational


def _gamma_is_positive(self):
    x = self.args[0]
    if x.is_positive:
        return True
    if x.is_noninteger and x.is_negative:  # Gamma alternates in sign between the negative poles
        return floor(x).is_even
    return None  # a noninteger x of unknown sign: Gamma(1/2) > 0, Gamma(-1/2) < 0


_gamma_is_positive.__symattn_fixed__ = True


def _pow_guarded(handler):
    """``(-1)**e`` with ``e`` rational of unknown integrality (``n (n - 1)/2``, ``k/2``): SymPy reads
    "not shown an integer" as "not an integer" and calls it imaginary (not real), yet it is 1 at n = 0."""

    def guarded(self, *args, **kwargs):
        b, e = self.args
        if b.is_extended_negative and e.is_integer is None and e.is_rational:
            return None
        return handler(self, *args, **kwargs)

    guarded.__symattn_fixed__ = True
    return guarded


def _loggamma_conjugate(self):
    z = self.args[0]
    if z.is_extended_positive or z.is_extended_real is False:  # off the cut (-oo, 0]: Schwarz reflection
        return self.func(z.conjugate())
    return None  # loggamma(-1/2) = log(2 sqrt(pi)) - i pi is not its own conjugate


_loggamma_conjugate.__symattn_fixed__ = True


def _eval_when(original, accepts):
    """``original`` (a class's bound ``eval``), called only on the arguments ``accepts`` admits; on any
    other the application stays unevaluated."""

    def guarded(cls, *args, **kwargs):
        return original(*args, **kwargs) if accepts(*args) else None

    guarded.__symattn_fixed__ = True
    return classmethod(guarded)


def _away_from_zero(arg, *rest) -> bool:
    """``acot`` and ``acoth`` jump at 0 (``acot(0) = pi/2``, ``acoth(0) = i pi/2``), so SymPy's folds
    ``acot(-w) = -acot(w)``, ``acoth(-w) = -acoth(w)`` and ``acoth(i w) = -i acot(w)`` hold only for
    ``w != 0``: a symbolic argument is evaluated only when it is shown nonzero (a number always is
    evaluated exactly)."""
    arg = sp.sympify(arg)
    return arg.is_number or arg.is_zero is False


def _levicivita_defined(*args) -> bool:
    """SymPy's ``LeviCivita`` of integers is a product formula that is +-1 on permutations (and 0 with a
    repeated index) but 3 at ``(1, 2, 4)``, where the symbol is 0 or undefined: the integer case is
    evaluated only when every index lies in ``1..n`` (the convention of ``epsilon_{12...n} = 1``; the
    formula is shift-invariant, so it also gave ``LeviCivita(0, 1, 2) = 1``, a value of the 0-based
    convention the kernel does not adopt), on a permutation or with a repeat."""
    if not (args and all(isinstance(a, (int, sp.Integer)) for a in args)):
        return True
    vals = [int(a) for a in args]
    return all(1 <= v <= len(vals) for v in vals)


def audited_heads() -> frozenset:
    """SymPy's function classes whose constructors and assumption handlers the kernel reads: the
    elementary functions, the piecewise and rounding heads, ``Max``/``Min``/``Mod``, the deltas, ``erf``
    and its kin, ``gamma`` and its logarithm and derivatives, and the factorials. Each was audited (and
    corrected in this module where wrong); every other SymPy function is silenced (:func:`_silence`) and
    refused as a term (:func:`symattn.kernel.wellformed.check_term`)."""
    return frozenset({
        sp.exp, sp.log, sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc, sp.sinh, sp.cosh, sp.tanh, sp.coth,
        sp.sech, sp.csch, sp.asin, sp.acos, sp.atan, sp.acot, sp.asec, sp.acsc, sp.asinh, sp.acosh, sp.atanh,
        sp.acoth, sp.atan2, sp.Abs, sp.sign, sp.re, sp.im, sp.conjugate, sp.arg, sp.floor, sp.ceiling, sp.frac,
        sp.Max, sp.Min, sp.Mod, sp.Piecewise, sp.Heaviside, sp.KroneckerDelta, sp.LeviCivita, sp.erf, sp.erfc,
        sp.erfi, sp.sinc, sp.gamma, sp.loggamma, sp.polygamma, sp.digamma, sp.factorial, sp.factorial2,
        sp.binomial})


#: the families of SymPy functions whose constructors fold and whose handlers decide facts the kernel
#: has not audited (adversarial review 15: gegenbauer(1/2, 3/2, x) folded to 1, conjugate(li(x)) to
#: li(x), divisor_sigma(k, m) was a positive integer for any k, elliptic_pi(-1, 3, 0) took a closed
#: form outside its range, legendre(n, -1) was (-1)**n for a negative n)
_SILENCED_MODULES = ("sympy.functions.special.", "sympy.functions.combinatorial.")
_SILENCED_ELEMENTARY = ("LambertW", "Rem", "asech", "acsch")
#: hooks through which SymPy's audited constructors read an argument's own rewriting of itself
_HOOKS = ("_eval_conjugate", "_eval_adjoint", "_eval_transpose", "_eval_Abs", "_eval_power")


def _nothing(*args, **kwargs):
    return None


_nothing.__symattn_fixed__ = True


#: the families SymPy itself computes with (``expand_trig`` and ``cos(pi/12)`` through ``chebyshevt``,
#: ``Sum.doit`` through ``bernoulli``; ``expand_trig(cos(a - b))`` needs ``chebyshevt(-1, x) = x``): at
#: a degree that is an integer literal (every other parameter a number too) each is a polynomial or a
#: number SymPy computes exactly, and that evaluation is kept; at any other degree
#: (``gegenbauer(1/2, 3/2, x)``, ``legendre(n, -1)``, ``chebyshevt(x, -1)``) it is not
_POLYNOMIAL_MODULES = ("sympy.functions.special.polynomials", "sympy.functions.combinatorial.")
_FACTORIALS = ("RisingFactorial", "FallingFactorial")
#: the incomplete gammas SymPy's integration (and so ``sympy.stats``) computes with: at a rational
#: literal parameter SymPy's closed forms (``lowergamma(1/2, x) = sqrt(pi) erf(sqrt(x))``) are kept
_INCOMPLETE_GAMMAS = ("lowergamma", "uppergamma")


def _integer_degree(*args) -> bool:
    return bool(args) and isinstance(args[0], sp.Integer) and all(
        isinstance(a, sp.Basic) and a.is_number for a in args[1:-1])


def _rational_parameter(a, *rest) -> bool:
    return isinstance(a, sp.Rational)


def _integer_step(x, k, *rest) -> bool:
    return isinstance(k, sp.Integer)  # rf(x, 3) = x (x + 1) (x + 2): a product SymPy writes out exactly


def _function_classes() -> list:
    seen: set = set()
    todo, out = [sp.Function], []
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
                out.append(sub)
    return out


def silenced_heads() -> list:
    """The SymPy function classes :func:`_silence` leaves unevaluated and without assumptions."""
    audited = audited_heads()
    bases = {b for a in audited for b in a.__mro__}
    out = []
    for cls in _function_classes():
        mod = cls.__module__ or ""
        if cls in audited or cls in bases:
            continue  # (a base of an audited head keeps what the head inherits from it)
        if mod.startswith(_SILENCED_MODULES) or (mod.startswith("sympy.functions.elementary.")
                                                 and cls.__name__ in _SILENCED_ELEMENTARY):
            out.append(cls)
    return sorted(out, key=lambda c: (c.__module__, c.__qualname__))


def _silence(cls) -> None:
    """``cls`` no longer evaluates (its constructor returns the application unevaluated; a polynomial
    or combinatorial family still at an integer literal degree, :data:`_POLYNOMIAL_MODULES`), states
    no assumption but commutativity, and offers no rewriting of itself to SymPy's audited constructors
    (``conjugate``, ``Abs``, powers): nothing it would decide reaches a term."""
    from sympy.core.assumptions import StdFactKB, _assume_defined, as_property, make_property

    if getattr(getattr(cls.__dict__.get("eval"), "__func__", None), "__symattn_fixed__", False):
        return
    if cls.__name__ in _FACTORIALS:
        cls.eval = _eval_when(cls.eval, _integer_step)
    elif cls.__name__ in _INCOMPLETE_GAMMAS:
        cls.eval = _eval_when(cls.eval, _rational_parameter)
    elif (cls.__module__ or "").startswith(_POLYNOMIAL_MODULES):
        cls.eval = _eval_when(cls.eval, _integer_degree)
    else:
        cls.eval = classmethod(_nothing)
    keep = {k: v for k, v in cls.default_assumptions.items() if k == "commutative"}
    for fact in cls.default_assumptions:
        if fact != "commutative":
            setattr(cls, as_property(fact), make_property(fact))
    cls._explicit_class_assumptions = dict(keep)
    cls.default_assumptions = StdFactKB(keep)
    cls._prop_handler = {k: v for k, v in cls._prop_handler.items() if k == "commutative"}
    for fact in _assume_defined:
        if fact != "commutative" and hasattr(cls, f"_eval_is_{fact}"):
            setattr(cls, f"_eval_is_{fact}", _nothing)
    for hook in _HOOKS:
        if hasattr(cls, hook):
            setattr(cls, hook, _nothing)


def _replace(cls, fact: str, handler) -> None:
    # the class attribute, and the table the assumption system built with the class (which it reads)
    setattr(cls, f"_eval_is_{fact}", handler)
    cls._prop_handler[fact] = handler


def install() -> None:
    """Replace the wrong handlers (idempotent) and forget SymPy's cached answers."""
    if getattr(sp.binomial._eval_is_nonnegative, "__symattn_fixed__", False):
        return
    _binomial_is_nonnegative.__symattn_fixed__ = True
    _replace(sp.binomial, "nonnegative", _binomial_is_nonnegative)
    for cls, zero_at in ((sp.asin, 0), (sp.acos, 1), (sp.atan, 0)):
        _replace(cls, "rational", _inverse_trig_is_rational(zero_at))
    _replace(sp.gamma, "positive", _gamma_is_positive)
    for fact in ("imaginary", "extended_real", "real", "complex", "extended_positive", "extended_negative",
                 "positive", "negative", "extended_nonnegative", "extended_nonpositive", "nonnegative",
                 "nonpositive", "zero", "extended_nonzero", "nonzero", "integer", "rational", "irrational"):
        handler = sp.Pow._prop_handler.get(fact)
        if handler is not None and not getattr(handler, "__symattn_fixed__", False):
            sp.Pow._prop_handler[fact] = _pow_guarded(handler)
    _guard_real_arguments(sp.Mod, extended=False)
    _guard_real_arguments(sp.Max, extended=True)
    _guard_real_arguments(sp.Min, extended=True)
    sp.loggamma._eval_conjugate = _loggamma_conjugate
    for cls in (sp.acot, sp.acoth):
        cls.eval = _eval_when(cls.eval, _away_from_zero)
    sp.LeviCivita.eval = _eval_when(sp.LeviCivita.eval, _levicivita_defined)
    for cls in silenced_heads():
        _silence(cls)
    from symattn.kernel import integer_parts  # floor and ceiling of a closed number, checked exactly

    integer_parts.install()
    from sympy.core.cache import clear_cache

    clear_cache()


install()
