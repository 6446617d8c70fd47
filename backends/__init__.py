"""``lamina.backends``: engine selection, the Backend interface, autodiff and ops.

Example:
    >>> import lamina
    >>> lamina.backends.available_backends()
    ('numpy',)
    >>> with lamina.backends.use_backend("numpy"):
    ...     pass
"""

from . import config, ops
from .autodiff import FreedGraphError, Tensor, Variable, grad, is_recording, no_grad
from .interface import Backend
from .context import available_backends, get_backend, known_backends, set_backend, use_backend
from .state import floatx, set_floatx
from .random import set_random_seed

__all__ = [
    "Backend", "FreedGraphError", "Tensor", "Variable", "available_backends", "config",
    "floatx", "get_backend", "grad", "is_recording", "known_backends", "no_grad", "ops",
    "set_backend", "set_floatx", "set_random_seed", "use_backend",
]
