"""The language theorems are written in: statements and their hypotheses (:mod:`.statement`), derivations
and their steps (:mod:`.derivation`), sizes and shapes, and the LaTeX printer (:mod:`.printing`).

The bottom layer: data and printing, no decisions; it imports nothing of symattn above it.
"""
