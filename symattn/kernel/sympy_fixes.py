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
"""

from __future__ import annotations

import sympy as sp

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
            setattr(cls, name, cls._prop_handler.get(fact, _guarded(handler, extended)))


def install() -> None:
    """Replace the wrong handlers (idempotent) and forget SymPy's cached answers."""
    if getattr(sp.binomial._eval_is_nonnegative, "__symattn_fixed__", False):
        return
    _binomial_is_nonnegative.__symattn_fixed__ = True
    sp.binomial._eval_is_nonnegative = _binomial_is_nonnegative
    # the assumption system reads the handlers from the table it built with the class
    sp.binomial._prop_handler["nonnegative"] = _binomial_is_nonnegative
    _guard_real_arguments(sp.Mod, extended=False)
    _guard_real_arguments(sp.Max, extended=True)
    _guard_real_arguments(sp.Min, extended=True)
    from sympy.core.cache import clear_cache

    clear_cache()


install()
