"""Conversions between Tensors, engine arrays and NumPy, dtype casts, and array facts
(``dtype``, ``size``, ``ndim``, ``is_tensor``)."""

import numpy as np

from .. import state
from ..autodiff import Tensor
from .core import data_of, record


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """``x`` as a Tensor (no copy when it already is one of the right dtype).

    lamina has dense tensors only: ``sparse=True`` or ``ragged=True`` raise ValueError.
    Strings (or ``dtype="string"``) give a NumPy string array, what lamina's string
    layers (``TextVectorization``, ``StringLookup``, ``Input(dtype="string")`` models)
    take, where Keras' TensorFlow backend gives a ``tf.string`` tensor."""
    if sparse or ragged:
        raise ValueError(f"convert_to_tensor: lamina has dense tensors only, got "
                         f"sparse={sparse!r}, ragged={ragged!r}")
    if dtype == "string" or (dtype is None and _holds_strings(x)):
        return np.asarray(x, dtype=str)
    if isinstance(x, Tensor) and (dtype is None or x.dtype == dtype):
        return x
    if isinstance(x, Tensor):
        return cast(x, dtype)
    return Tensor(x, dtype=dtype)


def _holds_strings(x):
    """Whether ``x`` is string data: a string, a NumPy string array, or a (nested) list or
    tuple whose first leaf is a string. Only that leaf is read: converting the whole list
    to find out would copy every number (and bring every GPU array to the host) once more
    before the Tensor is made."""
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "US"
    while isinstance(x, (list, tuple)) and len(x):
        x = x[0]
    return isinstance(x, (str, bytes))


def convert_to_numpy(x):
    """``x`` (Tensor, engine array, NumPy data or Python number) as a NumPy array."""
    if isinstance(x, Tensor):
        return x.numpy()
    backend = state.backend()
    return backend.to_numpy(x) if backend.is_array(x) else np.asarray(x)


def is_tensor(x):
    """Whether ``x`` is a lamina Tensor (or Variable)."""
    return isinstance(x, Tensor)


def dtype(x):
    """The dtype name of ``x`` (``"float32"``, ``"int32"``, ...), as ``keras.ops.dtype``."""
    value = data_of(x)
    return np.dtype(getattr(value, "dtype", None) or state.floatx()).name


def size(x):
    """The number of elements of ``x``."""
    return int(np.prod(getattr(data_of(x), "shape", ()), dtype=np.int64))


def ndim(x):
    """The number of axes of ``x``."""
    return int(getattr(data_of(x), "ndim", 0))


def cast(x, dtype):
    """Convert to ``dtype``; gradients flow back (cast to the input dtype) for floats."""
    a = data_of(x)
    if not hasattr(a, "astype"):
        a = Tensor(a).data
    source_dtype = a.dtype

    def backward(g, needs):
        return (g.astype(source_dtype) if source_dtype.kind == "f" else None,)

    return record(a.astype(dtype), (x,), backward, "cast")


def saturate_cast(x, dtype):
    """``cast`` that first clips ``x`` into the target dtype's range (no wrap-around:
    300 becomes 255 as uint8)."""
    a = data_of(x)
    target = np.dtype(dtype)
    if target.kind in "iu" and a.dtype.kind in "fiu":
        info = np.iinfo(target)
        low, high = (float(info.min), float(info.max)) if a.dtype.kind == "f" \
            else (info.min, info.max)
        from .math import clip

        return cast(clip(x, low, high), dtype)
    return cast(x, dtype)


def copy(x):
    """A copy of ``x`` (differentiable: the gradient passes through)."""
    a = data_of(x)
    if not hasattr(a, "copy"):
        a = Tensor(a).data
    return record(a.copy(), (x,), lambda g, needs: (g,), "copy")


def array(x, dtype=None):
    """A new Tensor holding a copy of ``x`` (cast to ``dtype`` when given)."""
    return copy(x) if dtype is None else cast(copy(x), dtype)


def view(x, dtype=None):
    """The bytes of ``x`` reinterpreted as ``dtype`` (``keras.ops.view``, NumPy's
    ``ndarray.view``): with a different item size the last axis scales by the size
    ratio. No gradient (the values are not a function of ``x``'s values).

    Example:
        >>> view(np.array([1, 2, 3], "int32"), "float32")   # [1.4e-45, 2.8e-45, 4.2e-45]
    """
    a = data_of(x)
    if not hasattr(a, "view"):
        a = Tensor(a).data
    if dtype is None:
        return record(a.copy(), (), None, "view")
    target = np.dtype(dtype)
    if target.itemsize != a.dtype.itemsize:
        if a.ndim == 0:
            raise ValueError(f"view: cannot view a scalar of dtype {a.dtype} as {target}: "
                             f"the item sizes differ")
        if a.shape[-1] * a.dtype.itemsize % target.itemsize:
            raise ValueError(f"view: cannot view shape {tuple(a.shape)} of dtype "
                             f"{a.dtype} as {target}: the last axis' bytes are not a "
                             f"multiple of {target.itemsize}")
    contiguous = state.backend().xp.ascontiguousarray(a)
    return record(contiguous.view(target).copy(), (), None, "view")
