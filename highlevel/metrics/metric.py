"""The :class:`Metric` base class and the array helpers metrics compute with.

Metrics compute on the engine's raw arrays (no autodiff graph is recorded) and keep their
running totals on the engine, so nothing leaves the device until ``result()``.
"""

from ...backends import state
from ...backends.autodiff import Tensor, as_engine_array
from ...layers.base import snake_case
from ..losses.loss_utils import squeeze_or_expand_to_same_rank


def _array(x):
    """The engine array behind ``x`` (Tensor, engine/NumPy array, list or number)."""
    return x.data if isinstance(x, Tensor) else as_engine_array(x)


def _float(x, dtype=None):
    """``x`` as a floating engine array (integer/bool arrays become ``floatx()``)."""
    x = _array(x)
    if dtype is not None:
        return x.astype(dtype, copy=False)
    return x if x.dtype.kind == "f" else x.astype(state.floatx())


class Metric:
    """Base class of stateful metrics.

    Subclasses implement ``update_state``, ``result`` and ``reset_state``; the state lives
    in engine arrays created by ``reset_state`` (listed by ``variables``).
    """

    def __init__(self, dtype=None, name=None):
        self.name = name or snake_case(type(self).__name__)
        self.dtype = dtype or state.floatx()
        self._state_names = ()

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"Metric '{type(self).__name__}' must implement update_state")

    def result(self):
        raise NotImplementedError(f"Metric '{type(self).__name__}' must implement result")

    def reset_state(self):
        for name in self._state_names:
            getattr(self, name)[...] = 0

    def _add_state(self, name, shape=(), value=0.0):
        """Create an engine accumulator (float64, so long runs do not lose counts)."""
        xp = state.backend().xp
        setattr(self, name, xp.full(shape, value, dtype="float64"))
        self._state_names = tuple(self._state_names) + (name,)

    @property
    def variables(self):
        """The engine arrays holding the metric's state."""
        return [getattr(self, name) for name in self._state_names]

    def __call__(self, *args, **kwargs):
        """Update the state with one batch and return the running result (Keras 3)."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


def _result_value(array):
    """A 0-d engine array as a Python float; a 1-d one as a NumPy array."""
    values = state.backend().to_numpy(array)
    return float(values) if values.ndim == 0 else values.astype("float32")


def _samplewise(values, sample_weight):
    """Keras' reduction of ``values`` (and ``sample_weight``) to one value per sample."""
    if sample_weight is not None:
        weights = _float(sample_weight, values.dtype)
        values, weights = squeeze_or_expand_to_same_rank(values, weights)
        if values.ndim > weights.ndim:
            values = values.mean(axis=tuple(range(weights.ndim, values.ndim)))
        weights = state.backend().xp.broadcast_to(weights, values.shape)
        values = values * weights
        if weights.ndim > 1:
            weights = weights.mean(axis=tuple(range(1, weights.ndim)))
        sample_weight = weights
    if values.ndim > 1:
        values = values.mean(axis=tuple(range(1, values.ndim)))
    return values, sample_weight

