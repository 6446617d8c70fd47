"""What the data preprocessing layers share: inputs stay host NumPy arrays (strings
included), outputs become engine Tensors, and the Keras categorical encodings
(``one_hot``, ``multi_hot``, ``count``) of integer indices."""

import numpy as np

from ...backends import state
from ...backends.autodiff import Tensor
from ..arguments import layer_error
from ..base import Layer

OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


class DataLayer(Layer):
    """A layer that works on host NumPy data, not differentiable: lookups, hashing,
    binning. Its ``call`` receives NumPy arrays (``str``/``object`` arrays for string
    layers) and returns an engine Tensor (no gradient flows through it)."""

    takes_strings = False   # True: the input may be text (StringLookup, TextVectorization)

    def _convert_inputs(self, inputs):
        return to_host(inputs)

    def _output(self, array):
        """``array`` (NumPy) as an engine Tensor."""
        return Tensor(state.backend().asarray(array))

    def _strings(self, values, argument="inputs"):
        """``values`` as a NumPy object array of ``str`` (bytes are decoded as UTF-8);
        anything else raises a ValueError naming the layer."""
        array = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) \
            else values
        if array.dtype.kind == "S":
            array = np.char.decode(array, "utf-8")
        if array.dtype.kind == "U":
            return array.astype(object)
        flat = array.ravel()
        if array.dtype.kind != "O" or not all(isinstance(v, (str, bytes)) for v in flat):
            sample = flat[:3].tolist() if flat.size else []
            raise layer_error(self, f"expects string {argument}, got an array of dtype "
                                    f"{array.dtype} (first values {sample})")
        if any(isinstance(v, bytes) for v in flat):
            array = np.vectorize(lambda v: v.decode("utf-8") if isinstance(v, bytes) else v,
                                 otypes=[object])(array)
        return array

    def _output_dtype(self, inputs):
        return "int64" if getattr(self, "output_mode", "int") == "int" else state.floatx()


def to_host(value):
    """A Tensor, engine array, list or NumPy array as a NumPy array (nested structures of
    several inputs keep their nesting)."""
    if isinstance(value, Tensor):
        value = value.data
    if isinstance(value, dict):
        return {key: to_host(item) for key, item in value.items()}
    backend = state.backend()
    if backend.is_array(value) and not isinstance(value, np.ndarray):
        return backend.to_numpy(value)
    if isinstance(value, np.ndarray):
        return value
    array = np.asarray(value)
    if array.dtype.kind == "U":
        array = array.astype(object)
    return array


def check_output_mode(layer, output_mode, allowed=OUTPUT_MODES):
    """Keras' output mode names (with the deprecated ``binary``/``tf-idf`` spellings)."""
    output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
    if output_mode not in allowed:
        raise layer_error(layer, f"needs output_mode in {allowed}, got {output_mode!r}")
    return output_mode


def encode_categorical(indices, output_mode, depth, dtype, count_weights=None):
    """Keras' ``encode_categorical_inputs`` on NumPy int indices: ``one_hot`` adds an axis
    of ``depth`` (replacing a last axis of size 1); ``multi_hot``/``count`` reduce the last
    axis (a rank-0/1 input is one sample). Indices outside ``[0, depth)`` (a dropped mask)
    count nowhere. ``count_weights`` weighs each index in ``count`` mode."""
    indices = np.asarray(indices, dtype=np.int64)
    if output_mode == "int":
        return indices.astype(dtype)
    if indices.ndim == 0:
        indices = indices[None]
    valid = (indices >= 0) & (indices < depth)
    safe = np.where(valid, indices, 0)
    if output_mode == "one_hot":
        if indices.ndim > 1 and indices.shape[-1] == 1:
            safe, valid = safe[..., 0], valid[..., 0]
        out = np.zeros(safe.shape + (depth,), dtype=dtype)
        np.put_along_axis(out, safe[..., None], valid[..., None].astype(dtype), axis=-1)
        return out
    rows = safe.reshape(-1, safe.shape[-1])
    weights = valid.reshape(rows.shape).astype(np.float64)
    if count_weights is not None and output_mode == "count":
        weights = weights * np.asarray(count_weights, dtype=np.float64).reshape(rows.shape)
    out = np.zeros((rows.shape[0], depth), dtype=np.float64)
    np.add.at(out, (np.arange(rows.shape[0])[:, None], rows), weights)
    if output_mode == "multi_hot":
        out = (out > 0).astype(np.float64)
    return out.reshape(indices.shape[:-1] + (depth,)).astype(dtype)


def encoded_shape(input_shape, output_mode, depth):
    """The output shape of :func:`encode_categorical` for ``input_shape``."""
    input_shape = tuple(input_shape)
    if output_mode == "int":
        return input_shape
    if output_mode == "one_hot":
        if len(input_shape) > 1 and input_shape[-1] == 1:
            return input_shape[:-1] + (depth,)
        return input_shape + (depth,)
    return input_shape[:-1] + (depth,)
