"""Layer names: Keras-style default names (``dense``, ``dense_1``, ...) and their counters
(``get_uid``), their reset, and the snake_case of a class name."""

import re
import threading

_name_counts = {}
_names_lock = threading.Lock()


def get_uid(prefix=""):
    """The next number (1, 2, ...) for ``prefix``, as Keras' ``backend.get_uid``: the
    counter the default layer names use (after two ``Dense()``, ``get_uid("dense")`` is 3)."""
    with _names_lock:  # layers built on two threads at once still get distinct names
        count = _name_counts.get(prefix, 0) + 1
        _name_counts[prefix] = count
    return count


def unique_name(base):
    """Keras-style default names: ``dense``, ``dense_1``, ``dense_2``, ..."""
    count = get_uid(base) - 1
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
