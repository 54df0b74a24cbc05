"""The objects the kernel's schemas and tests recognise, with their definitions: the moments of random
vectors and their calculus (:mod:`.moments`), the constructors of random vectors, which check each
declared law with the probability schemas (:mod:`.random_vectors`), permutations
(:mod:`.permutations`), block matrices and ranks (:mod:`.block_matrices`), rotations of coordinate
pairs (:mod:`.rotations`), index bands (:mod:`.bands`).

They live in the trusted core because its verdicts depend on them: a schema rewrites a
:class:`~.moments.Expectation` or a :class:`~.block_matrices.Concat` by what these classes are, and the
concrete levels evaluate moments with this calculus. The helpers users call to build them
(:mod:`symattn.maths`) sit above and re-export them.
"""
