"""Categorical preprocessing layers: ``CategoryEncoding`` (integer ids to one-hot /
multi-hot / counts), ``Hashing`` (FarmHash64 bins, as Keras) and ``Discretization``
(value ranges to bin ids, with quantile boundaries learned by ``adapt``)."""

import numpy as np

from ...backends import state
from ..arguments import is_int, layer_error
from ..base import LAYERS
from .data_layer import (DataLayer, check_output_mode, encode_categorical, encoded_shape,
                         to_host)
from .farmhash import hash_buckets
from .siphash import strong_hash_buckets


@LAYERS.register()
class CategoryEncoding(DataLayer):
    """Encodes integer ids in ``[0, num_tokens)`` as in Keras.

    Args:
        num_tokens: the number of categories (the output depth).
        output_mode: ``"multi_hot"`` (default; 1 for each id present in a sample, the last
            axis), ``"one_hot"`` (one vector per id; a last axis of size 1 is replaced) or
            ``"count"`` (how often each id occurs; ``count_weights`` weighs them).
        sparse: only ``False`` (dense outputs).

    Example:
        >>> CategoryEncoding(4, output_mode="multi_hot")(np.array([[0, 1], [3, 3]]))
        [[1, 1, 0, 0], [0, 0, 0, 1]]
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not is_int(num_tokens) or num_tokens < 1:
            raise layer_error(self, f"needs num_tokens, a positive int, got {num_tokens!r}")
        self.num_tokens = int(num_tokens)
        self.output_mode = check_output_mode(self, output_mode,
                                             ("one_hot", "multi_hot", "count"))
        _check_dense(self, sparse)
        self.sparse = False

    def call(self, inputs, count_weights=None):
        ids = np.asarray(inputs)
        if ids.dtype.kind not in "iuf" or (ids.dtype.kind == "f" and not np.all(ids == np.round(ids))):
            raise layer_error(self, f"expects integer ids, got an array of dtype {ids.dtype}")
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_tokens):
            raise layer_error(self, f"expects ids in [0, {self.num_tokens}) (num_tokens), got "
                                    f"values from {ids.min()} to {ids.max()}")
        if count_weights is not None and self.output_mode != "count":
            raise layer_error(self, f"takes count_weights only with output_mode='count', "
                                    f"got output_mode={self.output_mode!r}")
        weights = None if count_weights is None else np.asarray(to_host(count_weights))
        return self._output(encode_categorical(ids, self.output_mode, self.num_tokens,
                                               self.dtype, weights))

    def compute_output_shape(self, input_shape):
        return encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def _output_dtype(self, inputs):
        return self.dtype

    def get_config(self):
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode, "sparse": self.sparse}


@LAYERS.register()
class Hashing(DataLayer):
    """Hashes strings or integers into ``num_bins`` bins with FarmHash64, or SipHash64 when
    salted (the bins Keras' ``Hashing`` gives: a value's decimal text is hashed for
    numbers; floats are first truncated to int64).

    Args:
        num_bins: the number of bins, including the mask bin when ``mask_value`` is set.
        mask_value: a value mapped to bin 0 (the others to ``1 .. num_bins - 1``).
        salt: ``None`` (FarmHash64), or an int or a pair of ints: the key of a salted
            SipHash64 (an int ``s`` is the key ``[s, s]``).
        output_mode: ``"int"`` (default), ``"one_hot"``, ``"multi_hot"`` or ``"count"``.
        sparse: only ``False``.

    Example:
        >>> Hashing(num_bins=3)(np.array([["A"], ["B"], ["C"], ["D"], ["E"]]))
        [[1], [0], [1], [1], [2]]
    """

    takes_strings = True

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not is_int(num_bins) or num_bins < 1:
            raise layer_error(self, f"needs num_bins, a positive int, got {num_bins!r}")
        if salt is not None and not is_int(salt) and not (
                isinstance(salt, (tuple, list)) and len(salt) == 2
                and all(is_int(s) for s in salt)):
            raise layer_error(self, f"needs salt, None, an int or a pair of ints, got "
                                    f"salt={salt!r}")
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.salt = None if salt is None else (
            [int(salt)] * 2 if is_int(salt) else [int(s) for s in salt])
        self.output_mode = check_output_mode(self, output_mode,
                                             ("int", "one_hot", "multi_hot", "count"))
        _check_dense(self, sparse)
        self.sparse = False

    def call(self, inputs):
        values = np.asarray(inputs)
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = values == self.mask_value
        if values.dtype.kind == "f":
            values = values.astype(np.int64)
        if values.dtype.kind in "iub":
            text = values.astype(np.int64).astype(str).astype(object)
        else:
            text = self._strings(values)
        indices = (hash_buckets(text, bins) if self.salt is None
                   else strong_hash_buckets(text, bins, self.salt))
        if mask is not None:
            indices = np.where(mask, 0, indices + 1)
        dtype = "int64" if self.output_mode == "int" else state.floatx()
        return self._output(encode_categorical(indices, self.output_mode, self.num_bins, dtype))

    def compute_output_shape(self, input_shape):
        return encoded_shape(input_shape, self.output_mode, self.num_bins)

    def get_config(self):
        return {**super().get_config(), "num_bins": self.num_bins,
                "mask_value": self.mask_value, "salt": self.salt,
                "output_mode": self.output_mode, "sparse": self.sparse}


@LAYERS.register()
class Discretization(DataLayer):
    """Buckets continuous values by ranges: value ``x`` goes to bin ``i`` where
    ``bin_boundaries[i-1] <= x < bin_boundaries[i]`` (Keras' ``digitize``).

    Args:
        bin_boundaries: sorted boundaries (``len + 1`` bins); or ``None`` and ``num_bins``
            with :meth:`adapt`.
        num_bins: the number of bins to learn from data by ``adapt`` (approximate
            quantiles with Keras' summary algorithm and tolerance ``epsilon``).
        epsilon: the quantile error tolerance (default ``0.01``).
        output_mode: ``"int"`` (default), ``"one_hot"``, ``"multi_hot"`` or ``"count"``.
        sparse: only ``False``.

    Example:
        >>> Discretization(bin_boundaries=[0.0, 1.0, 2.0])(np.array([[-1.0, 0.5, 2.5]]))
        [[0, 1, 3]]
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if (bin_boundaries is None) == (num_bins is None):
            raise layer_error(self, f"needs exactly one of bin_boundaries and num_bins, got "
                                    f"bin_boundaries={bin_boundaries!r}, num_bins={num_bins!r}")
        if num_bins is not None and (not is_int(num_bins) or num_bins < 1):
            raise layer_error(self, f"needs num_bins, a positive int, got {num_bins!r}")
        if bin_boundaries is not None:
            bin_boundaries = [float(b) for b in bin_boundaries]
            if any(b > a for a, b in zip(bin_boundaries[1:], bin_boundaries)):
                raise layer_error(self, f"needs sorted bin_boundaries, got {bin_boundaries}")
        self.bin_boundaries = bin_boundaries
        self.num_bins = num_bins
        self.epsilon = float(epsilon)
        self.output_mode = check_output_mode(self, output_mode,
                                             ("int", "one_hot", "multi_hot", "count"))
        _check_dense(self, sparse)
        self.sparse = False

    def adapt(self, data, steps=None):
        """Learn ``num_bins`` quantile boundaries from ``data`` (an array or an iterable of
        batches), as Keras: each batch is summarized, summaries are merged and compressed,
        and the boundaries are read off the final summary."""
        if self.num_bins is None:
            raise layer_error(self, "was given bin_boundaries; adapt() needs num_bins instead")
        batches = [data] if hasattr(data, "shape") or isinstance(data, (list, tuple)) and \
            not (data and hasattr(data[0], "shape")) else data
        summary = np.zeros((2, 0), dtype=np.float32)
        for step, batch in enumerate(batches):
            if steps is not None and step >= steps:
                break
            values = np.asarray(to_host(batch), dtype=np.float32).ravel()
            if values.size:
                summary = _merge(summary, _summarize(values, self.epsilon), self.epsilon)
        if summary.shape[1] == 0:
            raise layer_error(self, "cannot adapt to empty data")
        self.bin_boundaries = _compress(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise layer_error(self, "has no bin_boundaries: pass them or call adapt() first")
        values = np.asarray(inputs)
        if values.dtype.kind not in "iuf":
            raise layer_error(self, f"expects numbers, got an array of dtype {values.dtype}")
        indices = np.searchsorted(np.asarray(self.bin_boundaries), values, side="right")
        dtype = "int64" if self.output_mode == "int" else state.floatx()
        return self._output(encode_categorical(indices, self.output_mode,
                                               len(self.bin_boundaries) + 1, dtype))

    def compute_output_shape(self, input_shape):
        depth = self.num_bins if self.bin_boundaries is None else len(self.bin_boundaries) + 1
        return encoded_shape(input_shape, self.output_mode, depth)

    def get_config(self):
        return {**super().get_config(), "bin_boundaries": self.bin_boundaries,
                "num_bins": self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": self.sparse}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if config.get("bin_boundaries") is not None:
            config["num_bins"] = None   # an adapted layer comes back with its boundaries
        return super().from_config(config)


def _check_dense(layer, sparse):
    if sparse:
        raise layer_error(layer, "has no sparse outputs (lamina has no sparse tensors); "
                                 "needs sparse=False")


def _summarize(values, epsilon):
    """Every ``step``-th sorted value with weight ``step`` (Keras' batch summary)."""
    values = np.sort(values)
    step = max(values.size * epsilon, 1)
    picked = values[int(step - 1)::int(step)]
    return np.stack([picked, np.full_like(picked, step)])


def _merge(first, second, epsilon):
    merged = np.concatenate((first, second), axis=1)
    return _compress(merged[:, np.argsort(merged[0], kind="stable")], epsilon)


def _compress(summary, epsilon):
    """The summary re-sampled at cumulative-weight fractions ``epsilon, 2 epsilon, ...``."""
    if summary.shape[1] * epsilon < 1:
        return summary
    fractions = epsilon + np.arange(0.0, 1.0, epsilon)
    cumulative = summary[1].cumsum()
    position = cumulative / cumulative[-1]
    values = np.interp(fractions, position, summary[0])
    weights = np.diff(np.interp(fractions, position, cumulative), prepend=0.0)
    return np.stack((values, weights)).astype(np.float32)
