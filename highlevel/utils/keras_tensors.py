"""Small ``keras.utils`` helpers around symbolic tensors, data tuples and the session:
``clear_session``, ``get_source_inputs``, ``is_keras_tensor``,
``pack_x_y_sample_weight`` / ``unpack_x_y_sample_weight``, ``standardize_dtype`` and
``is_float_dtype`` / ``is_int_dtype``."""

import gc

import numpy as np

from ...backends import state
from ...layers.naming import reset_names
from ...layers.symbolic import SymbolicTensor


def clear_session(free_memory=True):
    """Reset the default layer names (the next ``Dense()`` is ``dense`` again) and, with
    ``free_memory``, collect garbage, as ``keras.utils.clear_session`` does. Models made
    before keep working."""
    reset_names()
    if free_memory:
        gc.collect()


def is_keras_tensor(x):
    """Whether ``x`` is a symbolic tensor (made by ``Input`` or a layer called on one)."""
    return isinstance(x, SymbolicTensor)


def get_source_inputs(tensor):
    """The ``Input`` tensors that ``tensor`` (a symbolic tensor) was computed from, in the
    order a depth-first walk back through the layer calls meets them (as Keras)."""
    if not is_keras_tensor(tensor):
        raise ValueError(f"get_source_inputs expects a symbolic tensor (from Input or a "
                         f"layer called on one), got {type(tensor).__name__}")
    sources, seen, stack = [], set(), [tensor]
    while stack:                     # depth first, arguments in order (Keras' recursion)
        current = stack.pop()
        parents = [] if current.node is None else current.node.flat_inputs
        if parents:
            stack.extend(reversed(parents))
        elif id(current) not in seen:
            seen.add(id(current))
            sources.append(current)
    return sources


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``: the shortest tuple holding the
    given parts, as ``fit`` reads them (a lone tuple ``x`` is wrapped so it stays one)."""
    if y is None:
        return x if not isinstance(x, (list, tuple)) else (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_batch(batch):
    """A batch ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` as the triple
    ``(x, y, sample_weight)`` (missing parts None; a list is one ``x``, as ``fit`` reads a
    generator's batches)."""
    if not isinstance(batch, tuple):
        return batch, None, None
    if len(batch) == 1:
        return batch[0], None, None
    if len(batch) == 2:
        return batch[0], batch[1], None
    if len(batch) == 3:
        return batch
    raise ValueError(f"a batch must be x, (x,), (x, y) or (x, y, sample_weight); got a "
                     f"tuple of {len(batch)} elements")


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, w)``
    (missing parts are None), as ``keras.utils.unpack_x_y_sample_weight`` (which reads a
    list as a tuple)."""
    return unpack_batch(tuple(data) if isinstance(data, list) else data)


def standardize_dtype(dtype=None):
    """The canonical dtype name: ``None`` -> ``floatx()``, ``np.float32``/``"float32"``/a
    NumPy dtype -> ``"float32"``, ``float`` -> ``"float32"``, ``int`` -> ``"int64"``,
    ``str``/``"string"`` -> ``"string"``; raises ``ValueError`` for anything else."""
    if dtype is None:
        return state.floatx()
    if dtype is str or (isinstance(dtype, str) and dtype == "string"):
        return "string"
    if dtype is float or (isinstance(dtype, str) and dtype == "float"):
        return "float32"
    if dtype is int or (isinstance(dtype, str) and dtype == "int"):
        return "int64"
    try:
        canonical = np.dtype(dtype)
    except TypeError:
        raise ValueError(f"Invalid dtype: {dtype!r}") from None
    return "string" if canonical.kind in "USO" else canonical.name


def is_float_dtype(dtype):
    """Whether ``dtype`` (anything :func:`standardize_dtype` takes) is a float type, as
    Keras' ``backend.is_float_dtype``."""
    return standardize_dtype(dtype).startswith(("float", "bfloat"))


def is_int_dtype(dtype):
    """Whether ``dtype`` is a signed or unsigned integer type (``bool`` is not), as Keras'
    ``backend.is_int_dtype``."""
    return standardize_dtype(dtype).startswith(("int", "uint"))


__all__ = ["clear_session", "get_source_inputs", "is_float_dtype", "is_int_dtype",
           "is_keras_tensor",
           "pack_x_y_sample_weight", "standardize_dtype", "unpack_batch",
           "unpack_x_y_sample_weight"]
