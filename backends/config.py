"""``lamina.config``: global settings, as ``keras.config``."""

from .context import get_backend, set_backend
from .conv import conv_workspace_bytes, set_conv_workspace_bytes
from .state import floatx, set_floatx


def backend():
    """Name of the active engine (``"numpy"`` or ``"cupy"``), as ``keras.config.backend()``."""
    return get_backend().name


__all__ = ["backend", "floatx", "set_floatx", "set_backend", "conv_workspace_bytes",
           "set_conv_workspace_bytes"]
