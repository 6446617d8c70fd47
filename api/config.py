"""``lamina.config``: global settings (engine, float type, epsilon, image layout, logging,
loading safety, fit caps, dtype policy), as ``keras.config``."""

from lamina.backends.config import *  # noqa: F401,F403  (the public names)
from lamina.backends.config import __all__ as _backend_names
from lamina.layers.options.dtype_policies import dtype_policy, set_dtype_policy

__all__ = [*_backend_names, "dtype_policy", "set_dtype_policy"]
