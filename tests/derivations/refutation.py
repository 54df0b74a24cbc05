"""What a false claim's check shows when its counterexample comes from an instance builder.

A builder whose statement the kernel can derive from the theorem's statement refutes the theorem
(verdict ``refuted``). A builder written in its own symbols is not derived: its failure is a
counterexample to the builder's statement only, so the kernel reports it in the instance level
("the builder's statement fails at ...") and leaves the verdict ``undecided`` -- never ``proved``.
"""

from symattn.engine.verdict import Level, Verdict


def builder_fails(outcome) -> bool:
    """The instance level found the builder's statement false (derived: a fail; not derived: the
    failure is reported and not counted)."""
    lv = outcome.levels["instances"]
    return lv.status is Level.FAIL or (lv.status is Level.UNDECIDED and "the builder's statement fails" in lv.detail)


def refuted(outcome) -> bool:
    """Refuted, or refuted by an instance builder that is not derived from the statement (then
    undecided, with the builder's counterexample shown)."""
    return outcome.verdict is Verdict.REFUTED or (outcome.verdict is Verdict.UNDECIDED and builder_fails(outcome))


def counterexample_text(outcome) -> str:
    return outcome.counterexample or outcome.levels["instances"].detail
