"""Deprecated: this module is now :mod:`symattn.maths.rope`.

This path works for one release, with a DeprecationWarning."""

from symattn import _moved

_moved(__name__)
