"""Argument checks shared by the built-in layers: errors that name the layer, positive int
tuples, data format and padding."""

from ..backends.state import image_data_format


def layer_error(layer, message):
    """A ValueError that names the layer and its class, as every lamina layer reports."""
    return ValueError(f"Layer '{layer.name}' ({type(layer).__name__}) {message}")


def positive_tuple(layer, value, rank, arg_name):
    """``value`` (an int or ``rank`` ints, all positive) as a tuple of ``rank`` ints."""
    items = (value,) * rank if is_int(value) else value
    try:
        items = tuple(items)
    except TypeError:
        items = None
    if items is None or len(items) != rank or not all(is_int(v) and v > 0 for v in items):
        raise layer_error(layer, f"needs {arg_name} to be a positive int or a tuple of "
                                 f"{rank} positive ints, got {value!r}")
    return tuple(int(v) for v in items)


def int_or_int_list(layer, value, arg_name):
    """Keras' axis arguments: an int, or a list (or tuple) of ints returned as a list."""
    if isinstance(value, (list, tuple)) and value and all(is_int(v) for v in value):
        return [int(v) for v in value]
    if is_int(value):
        return int(value)
    raise layer_error(layer, f"needs {arg_name} to be an int or a list of ints, got "
                             f"{value!r}")


def is_int(value):
    return hasattr(value, "__index__") and not isinstance(value, bool)


def check_data_format(layer, data_format):
    """Keras' ``data_format``: ``"channels_last"`` or ``"channels_first"``
    (case-insensitive); ``None`` (the default) is ``lamina.config.image_data_format()``."""
    name = data_format.lower() if isinstance(data_format, str) else data_format
    if name is None:
        return image_data_format()
    if name not in ("channels_last", "channels_first"):
        raise layer_error(layer, f"needs data_format 'channels_last' or 'channels_first', "
                                 f"got {data_format!r}")
    return name


def check_padding(layer, padding, allowed):
    name = padding.lower() if isinstance(padding, str) else padding
    if name not in allowed:
        raise layer_error(layer, f"needs padding in {allowed}, got {padding!r}")
    return name
