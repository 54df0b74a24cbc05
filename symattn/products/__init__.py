"""What people run: the report (:mod:`.report`), the claim audit (:mod:`.audit`), conformance checks of
attention implementations (:mod:`.conformance`), the CLI and its commands (:mod:`.cli`,
:mod:`.commands`), the pytest plugin, theorem sources and the problems section.

The top layer: it imports the engine and everything below, and nothing imports it.
"""

#: The release (``symattn --version`` without installed metadata, the report's footer); ``symattn``
#: re-exports it.
__version__ = "0.1.0"
