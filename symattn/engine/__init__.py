"""The proof engine: theorems and their registry (:mod:`.theorem`, :mod:`.library`), the checker that
runs a theorem's levels through the rules and the kernel (:mod:`.checker`), the target verdicts
(:mod:`.acceptance`, :mod:`.verdict`) and the cache of outcomes (:mod:`.cache`).

Above the rules; what it reports rests on the kernel, never on the engine's own code.
"""
