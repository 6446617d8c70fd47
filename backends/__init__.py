"""``lamina.backends``: engine selection, the Backend interface, autodiff and ops.

Example:
    >>> import lamina
    >>> lamina.backends.available_backends()
    ('numpy',)
    >>> with lamina.backends.use_backend("numpy"):
    ...     pass
"""

from . import config, host_tuning, ops
from .autodiff import FreedGraphError, Tensor, Variable, grad, is_recording, no_grad
from .base import Backend
from .selection import (available_backends, get_backend, known_backends, set_backend,
                        use_backend)
from .state import floatx, set_floatx
from .randomness import set_random_seed

host_tuning.apply()

__all__ = [
    "Backend", "FreedGraphError", "Tensor", "Variable", "available_backends", "config",
    "floatx", "get_backend", "grad", "is_recording", "known_backends", "no_grad", "ops",
    "set_backend", "set_floatx", "set_random_seed", "use_backend",
]
