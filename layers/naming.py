"""Layer names: Keras-style default names (``dense``, ``dense_1``, ...), their reset, and
the snake_case of a class name."""

import re
import threading

_name_counts = {}
_names_lock = threading.Lock()


def unique_name(base):
    """Keras-style default names: ``dense``, ``dense_1``, ``dense_2``, ..."""
    with _names_lock:  # layers built on two threads at once still get distinct names
        count = _name_counts.get(base, 0)
        _name_counts[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def reset_names():
    """Forget the default names given so far: the next ``Dense()`` is ``dense`` again
    (what ``keras.utils.clear_session`` does to names)."""
    with _names_lock:
        _name_counts.clear()


def snake_case(class_name):
    """``"Conv2D"`` -> ``"conv2d"``, ``"MultiHeadAttention"`` -> ``"multi_head_attention"``."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
