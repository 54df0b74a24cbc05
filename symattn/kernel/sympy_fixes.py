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

Adversarial review 13 found two more. ``asin``, ``acos``, ``atan`` call themselves irrational at every
rational argument, so ``atan(m)`` for an integer ``m`` was "nonzero" (``sign(atan(m))`` folded to 1,
``0**atan(m)`` to 0), though ``atan(0) = asin(0) = acos(1) = 0``; the corrected handlers say irrational
only where the argument is shown away from that point (Lindemann: the value at any other rational is
transcendental). ``genocchi(n)`` decided its parity for an ``n`` of unknown parity (``genocchi(p)`` was
even for a prime ``p``; ``genocchi(2) = -1``); the corrected handlers need the parity of ``n``:

>>> m, p, k = sp.Symbol("m", integer=True), sp.Symbol("p", prime=True), sp.Symbol("k", integer=True, nonnegative=True)
>>> sp.atan(m).is_nonzero, sp.acos(m).is_zero, sp.sign(sp.atan(m)), sp.genocchi(p).is_even
(None, None, sign(atan(m)), None)
>>> sp.atan(m + sp.S.Half).is_irrational, sp.acos(sp.Rational(1, 3)).is_irrational, sp.genocchi(2 * k + 3).is_even
(True, True, True)

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
"""

from __future__ import annotations

import sympy as sp
from sympy.core.logic import fuzzy_not
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


def _genocchi_parity(even: bool):
    def parity(self):
        if len(self.args) > 1 and self.args[1] != 1:
            return None
        n = self.args[0]
        if not (n.is_integer and n.is_nonnegative):
            return None
        if n.is_even:  # G_0 = 0; G_2, G_4, ... odd
            return n.is_zero if even else fuzzy_not(n.is_zero)
        if n.is_odd:  # G_1 = -1; G_3, G_5, ... = 0
            return (n - 1).is_positive if even else fuzzy_not((n - 1).is_positive)
        return None  # parity of n unknown (a prime n: G_2 = -1, G_3 = 0)

    parity.__symattn_fixed__ = True
    return parity


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
    _replace(sp.genocchi, "even", _genocchi_parity(even=True))
    _replace(sp.genocchi, "odd", _genocchi_parity(even=False))
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
    from sympy.core.cache import clear_cache

    clear_cache()


install()
