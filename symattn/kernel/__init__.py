"""The trusted core of symattn (placeholder: the full description of what is trusted is written
with the term layer and the zero test)."""
