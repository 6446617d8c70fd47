"""``lamina.tree``: nested-structure utilities (flatten, map_structure, pack_sequence_as,
traverse, ...), as ``keras.tree``."""

from lamina.backends.tree import *  # noqa: F401,F403  (the public names)
from lamina.backends.tree import __all__  # noqa: F401
