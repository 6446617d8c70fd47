"""``HashedCrossing``: the feature cross of several categorical inputs hashed into
``num_bins`` bins, with TensorFlow's ``sparse.cross_hashed`` hash (FarmHash64 fingerprints of
strings, integers as they are, combined by ``FingerprintCat64``), so bins match Keras."""

import numpy as np

from ..arguments import is_int, layer_error
from ..base import LAYERS
from .data_layer import (DataLayer, check_output_mode, encode_categorical, encoded_shape,
                         to_host)
from .farmhash import fingerprint64

_MASK = (1 << 64) - 1
_CAT_MUL = 0xC6A4A7935BD1E995
_CROSS_HASH_KEY = 0xDECAFCAFFE     # tf.sparse.cross_hashed's default hash_key


def fingerprint_cat64(first, second):
    """TensorFlow's ``FingerprintCat64`` of two 64-bit fingerprints."""
    result = first ^ _CAT_MUL
    result ^= _shift_mix((second * _CAT_MUL) & _MASK) * _CAT_MUL & _MASK
    result = (result * _CAT_MUL) & _MASK
    result = (_shift_mix(result) * _CAT_MUL) & _MASK
    return _shift_mix(result)


def _shift_mix(value):
    return value ^ (value >> 47)


@LAYERS.register()
class HashedCrossing(DataLayer):
    """Crosses two or more categorical features (strings or integers) and hashes each
    combination into ``num_bins`` bins, as Keras.

    Args:
        num_bins: the number of bins.
        output_mode: ``"int"`` (default; the bin index) or ``"one_hot"``.
        sparse: only ``False``.

    Called on a tuple/list of inputs of the same shape ``()``, ``(batch,)`` or
    ``(batch, 1)``.

    Example:
        >>> HashedCrossing(num_bins=5)((np.array(["A", "B"]), np.array([1, 2])))
        [bin, bin]
    """

    takes_strings = True

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not is_int(num_bins) or num_bins < 1:
            raise layer_error(self, f"needs num_bins, a positive int, got {num_bins!r}")
        self.num_bins = int(num_bins)
        self.output_mode = check_output_mode(self, output_mode, ("int", "one_hot"))
        if sparse:
            raise layer_error(self, "has no sparse outputs (lamina has no sparse tensors); "
                                    "needs sparse=False")
        self.sparse = False

    def _convert_inputs(self, inputs):
        if isinstance(inputs, (list, tuple)):
            return [to_host(column) for column in inputs]
        return to_host(inputs)

    def call(self, inputs):
        columns = self._columns(inputs)
        flat = [column.ravel() for column in columns]
        hashes = [self._feature_hashes(column) for column in flat]
        bins = np.fromiter(
            (self._cross(row) for row in zip(*hashes)), dtype=np.int64, count=flat[0].size)
        dtype = "int64" if self.output_mode == "int" else self.dtype
        return self._output(encode_categorical(bins.reshape(columns[0].shape),
                                               self.output_mode, self.num_bins, dtype))

    def _cross(self, row):
        value = _CROSS_HASH_KEY
        for feature in row:
            value = fingerprint_cat64(value, feature)
        return value % self.num_bins

    def _feature_hashes(self, column):
        if column.dtype.kind in "iub":
            return [int(v) & _MASK for v in column.astype(np.int64)]
        strings = self._strings(column)
        unique, inverse = np.unique(strings, return_inverse=True)
        prints = [fingerprint64(value) for value in unique]
        return [prints[i] for i in inverse]

    def _columns(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise layer_error(self, f"expects a list or tuple of at least two inputs, got "
                                    f"{type(inputs).__name__}")
        columns = [np.asarray(to_host(column)) for column in inputs]
        shape = columns[0].shape
        for column in columns:
            if column.shape != shape or len(shape) > 2 or (len(shape) == 2 and shape[1] != 1):
                raise layer_error(self, f"expects inputs of one shape (), (batch,) or "
                                        f"(batch, 1), got shapes {[c.shape for c in columns]}")
            if column.dtype.kind == "f":
                raise layer_error(self, f"expects string or integer inputs, got dtype "
                                        f"{column.dtype}")
        return columns

    def compute_output_shape(self, input_shape):
        return encoded_shape(tuple(input_shape[0]), self.output_mode, self.num_bins)

    def _output_dtype(self, inputs):
        return "int64" if self.output_mode == "int" else self.dtype

    def get_config(self):
        return {**super().get_config(), "num_bins": self.num_bins,
                "output_mode": self.output_mode, "sparse": self.sparse}
