"""The mathematics users import: random vectors and their moments, softmax, rotary and sinusoidal
encodings, multi-head attention and permutations, masks, cost models, online softmax, extrema.

Each module builds SymPy objects and registers their definitions with the kernel; none decides
anything. Above :mod:`symattn.kernel` and :mod:`symattn.language`, below the rules.
"""
