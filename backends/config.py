"""``lamina.config``: global settings, as ``keras.config``.

Besides the engine and the float type: the fuzz factor (``epsilon``), the image layout that
``data_format=None`` means, where progress output goes (``interactive logging``), the
loading safety default (``enable_unsafe_deserialization``), the debugging caps on ``fit``
(``max_epochs``, ``max_steps_per_epoch``, also read from ``KERAS_MAX_EPOCHS`` /
``KERAS_MAX_STEPS_PER_EPOCH`` as Keras reads them) and Keras' switches lamina only keeps
(traceback filtering, flash attention, NNX). Every value here is process-wide.
"""

import os

from .context import get_backend, set_backend
from .conv import conv_workspace_bytes, set_conv_workspace_bytes
from .state import (epsilon, floatx, image_data_format, set_epsilon, set_floatx,
                    set_image_data_format)


def backend():
    """Name of the active engine (``"numpy"`` or ``"cupy"``), as ``keras.config.backend()``."""
    return get_backend().name


def _cap_from_environment(variable):
    """The cap set in the environment ``variable``; unset, empty or 0 is no cap (as in
    Keras, which tests the value's truth)."""
    value = os.environ.get(variable, "").strip()
    try:
        cap = int(value) if value else 0
    except ValueError:
        raise ValueError(f"{variable} must be an integer (0: no cap), got {value!r}") from None
    return _checked_cap(cap, variable) if cap else None


def _checked_cap(value, name):
    if value is None:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__") or value < 1:
        raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
    return int(value)


_settings = {
    "interactive_logging": True,
    "traceback_filtering": True,
    "unsafe_deserialization": False,
    "flash_attention": None,             # Keras' default: None ("not disabled")
    "max_epochs": _cap_from_environment("KERAS_MAX_EPOCHS"),
    "max_steps_per_epoch": _cap_from_environment("KERAS_MAX_STEPS_PER_EPOCH"),
}


def enable_interactive_logging():
    """Progress bars and messages of ``fit``/``evaluate``/``predict`` and the callbacks
    go to ``sys.stdout`` (the default)."""
    _settings["interactive_logging"] = True


def disable_interactive_logging():
    """Progress and messages go to Python's ``logging`` (logger ``"lamina"``, level INFO)
    instead of ``sys.stdout``, one line per pass, as Keras sends them to absl logging: the
    choice for jobs on a server."""
    _settings["interactive_logging"] = False


def is_interactive_logging_enabled():
    """Whether progress output goes to ``sys.stdout`` (``True``) or to ``logging``."""
    return _settings["interactive_logging"]


def enable_traceback_filtering():
    """Keras' switch for shortening its tracebacks. lamina never filters tracebacks; the
    setting is kept so that code calling it runs."""
    _settings["traceback_filtering"] = True


def disable_traceback_filtering():
    """Keras' switch for shortening its tracebacks (state only in lamina, see
    :func:`enable_traceback_filtering`)."""
    _settings["traceback_filtering"] = False


def is_traceback_filtering_enabled():
    """The traceback filtering setting (``True`` by default, as in Keras)."""
    return _settings["traceback_filtering"]


def enable_unsafe_deserialization():
    """Turn ``safe_mode`` off for every later load, as Keras does: a Lambda whose function
    a file stores as code no longer stops the load in safe mode. lamina still never runs
    code from a file: such a Lambda takes its function from ``custom_objects``."""
    _settings["unsafe_deserialization"] = True


def effective_safe_mode(safe_mode):
    """The ``safe_mode`` a load runs with: ``False`` after
    :func:`enable_unsafe_deserialization`, else the one asked for."""
    return False if _settings["unsafe_deserialization"] else safe_mode


def enable_flash_attention():
    """Keras' flash-attention switch. lamina has no flash attention kernel: the setting is
    kept (:func:`is_flash_attention_enabled` returns Keras' values) and changes nothing."""
    _settings["flash_attention"] = None


def disable_flash_attention():
    """Keras' flash-attention switch (state only in lamina)."""
    _settings["flash_attention"] = False


def is_flash_attention_enabled():
    """``False`` after :func:`disable_flash_attention`, else ``None`` (Keras' values)."""
    return _settings["flash_attention"]


def is_nnx_enabled():
    """Keras' JAX-only NNX switch: always ``False`` in lamina."""
    return False


def max_epochs():
    """The cap on ``fit``'s ``epochs`` (``None``: no cap), from :func:`set_max_epochs` or
    the ``KERAS_MAX_EPOCHS`` environment variable."""
    return _settings["max_epochs"]


def set_max_epochs(max_epochs):
    """Cap the epochs of every later ``fit`` (``None`` removes the cap): a debugging aid,
    as in Keras; ``fit`` warns when it limits its epochs.

    Args:
        max_epochs: positive integer or ``None``.
    """
    _settings["max_epochs"] = _checked_cap(max_epochs, "max_epochs")


def max_steps_per_epoch():
    """The cap on the steps of one epoch of ``fit``, ``evaluate`` and ``predict``
    (``None``: no cap), from :func:`set_max_steps_per_epoch` or
    ``KERAS_MAX_STEPS_PER_EPOCH``."""
    return _settings["max_steps_per_epoch"]


def set_max_steps_per_epoch(max_steps_per_epoch):
    """Cap the steps of each epoch of every later ``fit``, ``evaluate`` and ``predict``
    (``None`` removes the cap); a warning says when a pass is limited.

    Args:
        max_steps_per_epoch: positive integer or ``None``.
    """
    _settings["max_steps_per_epoch"] = _checked_cap(max_steps_per_epoch,
                                                    "max_steps_per_epoch")


__all__ = ["backend", "floatx", "set_floatx", "set_backend", "conv_workspace_bytes",
           "set_conv_workspace_bytes", "epsilon", "set_epsilon", "image_data_format",
           "set_image_data_format", "enable_interactive_logging",
           "disable_interactive_logging", "is_interactive_logging_enabled",
           "enable_traceback_filtering", "disable_traceback_filtering",
           "is_traceback_filtering_enabled", "enable_unsafe_deserialization",
           "enable_flash_attention", "disable_flash_attention", "is_flash_attention_enabled",
           "is_nnx_enabled", "max_epochs", "set_max_epochs", "max_steps_per_epoch",
           "set_max_steps_per_epoch"]
