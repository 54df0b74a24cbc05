"""symattn: machine-checked mathematics of transformer attention."""

from symattn.derivation import Derivation, Step
from symattn.statement import (
    Assumption,
    Equation,
    Independent,
    IndexRange,
    RandomFamily,
    Statement,
)
from symattn.theorem import Instances, NumericResult, Probabilistic, Theorem, load_all, register, registry
from symattn.verdict import Level, Outcome, Verdict

__version__ = "0.1.0"

__all__ = [
    "Assumption",
    "Derivation",
    "Equation",
    "Independent",
    "IndexRange",
    "Instances",
    "Level",
    "NumericResult",
    "Outcome",
    "Probabilistic",
    "RandomFamily",
    "Statement",
    "Step",
    "Theorem",
    "Verdict",
    "load_all",
    "register",
    "registry",
]
