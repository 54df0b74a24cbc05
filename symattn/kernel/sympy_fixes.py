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


def install() -> None:
    """Replace the wrong handlers (idempotent) and forget SymPy's cached answers."""
    if getattr(sp.binomial._eval_is_nonnegative, "__symattn_fixed__", False):
        return
    _binomial_is_nonnegative.__symattn_fixed__ = True
    sp.binomial._eval_is_nonnegative = _binomial_is_nonnegative
    # the assumption system reads the handlers from the table it built with the class
    sp.binomial._prop_handler["nonnegative"] = _binomial_is_nonnegative
    from sympy.core.cache import clear_cache

    clear_cache()


install()
