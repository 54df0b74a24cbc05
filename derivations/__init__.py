"""The library of theorems, one module per topic.

Importing a module registers its theorems in :data:`symattn.engine.theorem.registry`;
:func:`symattn.engine.theorem.load_all` imports them all.
"""
