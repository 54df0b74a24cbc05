"""The library of theorems, one module per topic.

Importing a module registers its theorems in :data:`symattn.theorem.registry`;
:func:`symattn.theorem.load_all` imports them all.
"""
