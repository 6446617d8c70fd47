"""Dtype names and Keras 3's type promotion: :func:`standardize_dtype`,
:func:`is_float_dtype` / :func:`is_int_dtype` and :func:`result_type`.

Keras does not promote as NumPy does. Its rules (``keras.backend.result_type``, after
JAX's) are a lattice::

    bool -> int -> {uint8, int8}      uint8 -> {uint16, int16} ... uint64 -> float
    int8 -> int16 -> int32 -> int64 -> float -> {bfloat16, float16} -> float32 -> float64

where ``int`` and ``float`` are the *weak* types of Python numbers: the result of mixing
dtypes is their least upper bound on the lattice, so an integer array with a float array
gives the float array's dtype (``int64`` with ``float32``: ``float32``, not NumPy's
``float64``), a Python number takes the array's dtype (``int8`` array ``+ 1``: ``int8``;
``int32`` array ``+ 1.5``: ``floatx()``), and a result that is itself weak (``int64`` with
``uint64``, or only Python numbers) resolves to the precision of ``floatx()``.

lamina keeps 64-bit results as they are (``float64`` with ``float64`` is ``float64``), as
Keras' TensorFlow backend does for ``int64`` and ``float64``; its JAX and torch backends
narrow them to 32 bits, and TensorFlow narrows ``uint64`` and ``complex128``, which lamina
does not. ``bfloat16`` takes part in the lattice by name (NumPy has no such dtype).
"""

import numpy as np

from . import state

_WEAK_INT, _WEAK_FLOAT = "int", "float"
# Each dtype's immediate successors on Keras' promotion lattice.
_LATTICE = {
    "bool": ("int",),
    "uint8": ("int16", "uint16"), "uint16": ("int32", "uint32"),
    "uint32": ("int64", "uint64"), "uint64": ("float",),
    "int": ("uint8", "int8", "complex64"),
    "int8": ("int16",), "int16": ("int32",), "int32": ("int64",), "int64": ("float",),
    "float": ("bfloat16", "float16"), "bfloat16": ("float32",), "float16": ("float32",),
    "float32": ("float64", "complex64"), "float64": ("complex128",),
    "complex64": ("complex128",), "complex128": (),
}


def _upper_bounds():
    """Every dtype's set of upper bounds on the lattice (itself included)."""
    bounds = {}

    def reach(node):
        if node not in bounds:
            bounds[node] = {node}.union(*(reach(up) for up in _LATTICE[node]))
        return bounds[node]

    for node in _LATTICE:
        reach(node)
    return bounds


_UPPER_BOUNDS = _upper_bounds()


def standardize_dtype(dtype=None):
    """The canonical dtype name: ``None`` -> ``floatx()``, ``np.float32``/``"float32"``/a
    NumPy dtype -> ``"float32"``, ``float`` -> ``"float32"``, ``int`` -> ``"int64"``,
    ``bool`` -> ``"bool"``, ``str``/``"string"`` -> ``"string"``, ``"bfloat16"`` stays;
    raises ``ValueError`` for anything else."""
    if dtype is None:
        return state.floatx()
    if dtype is str or (isinstance(dtype, str) and dtype == "string"):
        return "string"
    if dtype is float or (isinstance(dtype, str) and dtype == "float"):
        return "float32"
    if dtype is int or (isinstance(dtype, str) and dtype == "int"):
        return "int64"
    if isinstance(dtype, str) and dtype == "bfloat16":
        return dtype
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


def _least_upper_bound(nodes):
    common = set.intersection(*(_UPPER_BOUNDS[node] for node in nodes))
    least = (common & nodes) or {c for c in common if common <= _UPPER_BOUNDS[c]}
    if len(least) != 1:
        raise ValueError(f"Input dtypes {tuple(sorted(nodes))} have no implicit dtype "
                         f"promotion path; cast the inputs to the dtype you want")
    return least.pop()


def _resolve_weak(name):
    """A weak result in the precision of ``floatx()`` (``int`` -> ``int32`` under
    ``float32``)."""
    precision = state.floatx()[-2:]
    return f"int{precision}" if name == _WEAK_INT else f"float{precision}"


def _promoted(dtypes):
    names, weak = [], []
    for dtype in dtypes:
        if dtype is int or dtype is float:
            names.append(_WEAK_INT if dtype is int else _WEAK_FLOAT)
            weak.append(True)
            continue
        name = state.floatx() if dtype is None else standardize_dtype(dtype)
        if name not in _LATTICE:
            raise ValueError(f"dtype {name!r} is not a valid dtype for Keras type promotion")
        names.append(name)
        weak.append(False)
    if all(weak):
        return _resolve_weak(_least_upper_bound(set(names)))
    if len(set(names)) == 1:
        return names[0]
    result = _least_upper_bound(set(names))
    return _resolve_weak(result) if result in (_WEAK_INT, _WEAK_FLOAT) else result


_RESULTS = {}   # (floatx, dtypes) -> name: the ops ask for the same few pairs every step


def result_type(*dtypes):
    """The dtype Keras' type promotion gives ``dtypes`` (``keras.backend.result_type``).

    Args:
        *dtypes: dtypes (names, NumPy dtypes or types), the Python types ``int`` and
            ``float`` (weakly typed Python numbers), ``bool``, or ``None`` (``floatx()``).

    Returns:
        The result dtype's name; ``floatx()`` when no dtype is given.

    Example:
        >>> result_type("int64", "float32"), result_type("int32", float)
        ('float32', 'float32')
    """
    if not dtypes:
        return state.floatx()
    key = (state.floatx(), dtypes)
    try:
        return _RESULTS[key]
    except KeyError:
        pass
    except TypeError:   # an unhashable dtype-like
        return _promoted(dtypes)
    result = _RESULTS[key] = _promoted(dtypes)
    return result


def _dtype_of(operand):
    """An op operand's dtype for promotion: the array's, or the Python number's weak type."""
    dtype = getattr(operand, "dtype", None)
    return type(operand) if dtype is None else dtype


# Array kinds a weakly typed Python number takes the dtype of (``float32 * 2.0``,
# ``int8 + 1``): Keras' lattice gives the array's dtype, so nothing is cast.
_KEEPS_WEAK = {int: "fiuc", float: "fc"}


def promote(a, b, weak=None):
    """The operands of a binary elementwise op cast to Keras' result dtype of the two (and
    of ``weak``, e.g. ``float`` for true division): engine arrays are cast where their
    dtype differs, Python numbers stay (weakly typed, they take the arrays' dtype)."""
    array, number = (a, b) if hasattr(a, "dtype") else (b, a)
    kinds = _KEEPS_WEAK.get(type(number))
    if kinds is not None and hasattr(array, "dtype") and array.dtype.kind in kinds and (
            weak is None or array.dtype.kind in "fc"):
        return a, b   # an array with a Python number of its kind: nothing to cast
    dtypes = (_dtype_of(a), _dtype_of(b)) if weak is None else (_dtype_of(a), _dtype_of(b),
                                                                 weak)
    target = result_type(*dtypes)
    if target == "bfloat16":   # not a NumPy dtype: compute as NumPy would
        return a, b
    return _cast(a, target), _cast(b, target)


def promote_all(arrays):
    """A list of engine arrays or Python numbers (``concatenate``'s, ``stack``'s) cast to
    Keras' result dtype of them when their dtypes differ; the same list when they agree."""
    dtypes = {_dtype_of(array) for array in arrays}
    if len(dtypes) < 2:
        return arrays
    target = result_type(*sorted(dtypes, key=str))
    if target == "bfloat16":
        return arrays
    return [_cast(array, target) for array in arrays]


def _cast(operand, dtype):
    if not hasattr(operand, "astype") or operand.dtype == dtype:
        return operand   # a Python number stays weakly typed
    return operand.astype(dtype)


__all__ = ["is_float_dtype", "is_int_dtype", "promote", "promote_all", "result_type",
           "standardize_dtype"]
