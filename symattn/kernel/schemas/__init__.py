"""The core's axiom schemas, one module per family (see :mod:`symattn.kernel.axioms`)."""
