"""Normalization (feature-wise standardization learned by ``adapt``)."""

import numpy as np

from ...backends import ops, state
from ...backends.autodiff import Tensor
from ..arguments import layer_error
from ..base import LAYERS, Layer



@LAYERS.register()
class Normalization(Layer):
    """Shifts and scales inputs to zero mean and unit variance per feature:
    ``(x - mean) / maximum(sqrt(variance), 1e-7)`` (Keras' formula), or the inverse with
    ``invert=True``.

    The statistics are either given (``mean`` and ``variance``, scalars or arrays that
    broadcast over the kept axes) or computed from data with :meth:`adapt`.

    Args:
        axis: the axis (or axes) that keep their own statistics; the others are reduced.
            ``-1`` (default): one mean/variance per feature. ``None``: one scalar for all.
        mean, variance: optional fixed statistics (both or neither).
        invert: apply ``x * sqrt(variance) + mean`` instead.
    Weights (when adapting): ``mean``, ``variance`` (non-trainable, shape of the kept
    axes) and ``count`` (int scalar, kept for Keras compatibility).

    Example:
        >>> norm = lamina.layers.Normalization()
        >>> norm.adapt(x_train)
        >>> model = lamina.Sequential([lamina.Input((4,)), norm, lamina.layers.Dense(1)])
    """

    supports_masking = True

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if axis is None:
            axis = ()
        elif hasattr(axis, "__index__"):
            axis = (int(axis),)
        self.axis = tuple(int(a) for a in axis)
        if (mean is None) != (variance is None):
            raise layer_error(self, f"needs both mean and variance or neither, got "
                                    f"mean={mean!r}, variance={variance!r}")
        if mean is not None and np.shape(mean) != np.shape(variance):
            raise layer_error(self, f"needs mean and variance of the same shape, got "
                                    f"{np.shape(mean)} and {np.shape(variance)}")
        if mean is not None and np.ndim(mean) > len(self.axis):
            raise layer_error(self, f"needs mean of rank <= {len(self.axis)} (the number of "
                                    f"kept axes {self.axis}), got shape {np.shape(mean)}")
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)
        self._mean = self._scale = None  # given statistics, broadcastable engine arrays

    # ------------------------------------------------------------------ building
    def build(self, input_shape):
        ndim = len(input_shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise layer_error(self, f"has axis={self.axis} outside the range of input "
                                    f"shape {tuple(input_shape)}")
        self._keep = tuple(sorted(a % ndim for a in self.axis))
        for a in self._keep:
            if input_shape[a] is None:
                raise layer_error(self, f"needs known sizes on the kept axes {self.axis}, got "
                                        f"input shape {tuple(input_shape)}")
        self._reduce = tuple(a for a in range(ndim) if a not in self._keep)
        self._broadcast_shape = tuple(input_shape[a] if a in self._keep else 1
                                      for a in range(ndim))
        self._stats_shape = tuple(input_shape[a] for a in self._keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(self._stats_shape, "zeros",
                                              trainable=False, name="mean")
            self.adapt_variance = self.add_weight(self._stats_shape, "ones",
                                                  trainable=False, name="variance")
            self.count = self.add_weight((), "zeros", dtype="int64", trainable=False,
                                         name="count")
        else:
            mean, variance = self._given_statistics()
            backend = state.backend()
            self._mean = backend.asarray(mean, self.dtype)
            self._scale = backend.asarray(
                np.maximum(np.sqrt(variance), state.epsilon()), self.dtype)
        self.built = True

    def _statistics(self):
        """(mean, scale) as engine arrays broadcastable against the input."""
        if self.input_mean is not None:
            return self._mean, self._scale
        xp = state.backend().xp
        mean = self.adapt_mean.data.reshape(self._broadcast_shape)
        scale = xp.maximum(xp.sqrt(self.adapt_variance.data), state.epsilon())
        return mean, scale.reshape(self._broadcast_shape).astype(mean.dtype, copy=False)

    def _given_statistics(self):
        ndim = len(self._broadcast_shape)
        mean = np.asarray(self.input_mean, dtype="float64")
        variance = np.asarray(self.input_variance, dtype="float64")
        if mean.ndim:
            # Align the given dimensions with the kept axes, from the right (as Keras).
            expanded = [1] * ndim
            for i in range(1, mean.ndim + 1):
                expanded[self._keep[-i]] = mean.shape[-i]
            mean, variance = mean.reshape(expanded), variance.reshape(expanded)
        return (np.broadcast_to(mean, self._broadcast_shape),
                np.broadcast_to(variance, self._broadcast_shape))

    # ------------------------------------------------------------------ adapt
    def adapt(self, data):
        """Compute the mean and variance of ``data`` over the reduced axes.

        Args:
            data: a NumPy/engine array or Tensor, or an iterable of such batches (for
                instance a generator); the statistics are those of all the data.
        """
        if self.input_mean is not None:
            raise layer_error(self, "was given mean and variance; adapt() is only for "
                                    "layers created without them")
        if isinstance(data, Tensor) or hasattr(data, "shape"):
            batches = [data]
        elif hasattr(data, "__iter__"):
            batches = data
        else:
            raise layer_error(self, f"cannot adapt to data of type {type(data).__name__}; "
                                    "pass an array or an iterable of arrays")
        total_mean = total_var = None
        total_count = 0
        for batch in batches:
            if isinstance(batch, (tuple, list)) and not hasattr(batch, "shape"):
                batch = batch[0]  # (x, y) pairs: statistics of x
            values = _as_numpy(batch)
            if not self.built:
                self.ensure_built((None,) + values.shape[1:] if values.ndim else ())
            self._check_batch(values.shape)
            count = int(np.prod([values.shape[a] for a in self._reduce])) if self._reduce \
                else 1
            if count == 0:
                continue
            batch_mean = values.mean(axis=self._reduce)
            batch_var = values.var(axis=self._reduce)
            if total_mean is None:
                total_mean, total_var, total_count = batch_mean, batch_var, count
                continue
            # Merge (Chan et al.): exact combined mean and biased variance.
            new_count = total_count + count
            delta = batch_mean - total_mean
            merged_mean = total_mean + delta * (count / new_count)
            total_var = (total_var * total_count + batch_var * count
                         + delta ** 2 * (total_count * count / new_count)) / new_count
            total_mean, total_count = merged_mean, new_count
        if total_mean is None:
            raise layer_error(self, "cannot adapt to empty data")
        self.adapt_mean.assign(np.asarray(total_mean).astype(self.dtype))
        self.adapt_variance.assign(np.asarray(total_var).astype(self.dtype))
        self.count.assign(np.asarray(total_count, dtype="int64"))

    def _check_batch(self, shape):
        if len(shape) != len(self._broadcast_shape) or any(
                shape[a] != self._broadcast_shape[a] for a in self._keep):
            expected = tuple(s if a in self._keep else None
                             for a, s in enumerate(self._broadcast_shape))
            raise layer_error(self, f"was built for inputs of shape {expected}, got data "
                                    f"of shape {tuple(shape)}")

    # ------------------------------------------------------------------ calling
    def call(self, inputs):
        if inputs.dtype != self.dtype:
            inputs = ops.cast(inputs, self.dtype)
        mean, scale = self._statistics()
        if self.invert:
            return ops.add(ops.multiply(inputs, scale), mean)
        return ops.divide(ops.subtract(inputs, mean), scale)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        def listed(value):
            return None if value is None else np.asarray(value).tolist()

        return {**super().get_config(), "axis": list(self.axis), "invert": self.invert,
                "mean": listed(self.input_mean), "variance": listed(self.input_variance)}


def _as_numpy(batch):
    """A batch (NumPy or engine array, Tensor, nested list) as a float64 NumPy array."""
    if isinstance(batch, Tensor):
        batch = batch.data
    backend = state.backend()
    if backend.is_array(batch):
        batch = backend.to_numpy(batch)
    return np.asarray(batch, dtype="float64")
