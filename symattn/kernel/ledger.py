"""The ledger of decisions: every fact the core decides (a zero test, a sign, a side condition) may
leave a record here (which engine decided it, and how); :mod:`.thm` moves the records made while a
primitive ran onto the ``Thm`` it returns, so the checker can say per step which engines checked it.

Records are opaque to the core (the second engine defines them); a record is anything with a
``status`` attribute.
"""

from __future__ import annotations

from contextvars import ContextVar

__all__ = ["record", "take"]

_RECORDS: ContextVar[tuple] = ContextVar("symattn_ledger", default=())


def record(check) -> None:
    """Add one decision record to the current ledger."""
    _RECORDS.set(_RECORDS.get() + (check,))


def take() -> tuple:
    """The records made since the last ``take``, and an empty ledger."""
    out = _RECORDS.get()
    _RECORDS.set(())
    return out
