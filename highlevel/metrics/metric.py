"""The :class:`Metric` base class and the array helpers metrics compute with.

Metrics compute on the engine's raw arrays (no autodiff graph is recorded) and keep their
running totals on the engine, so nothing leaves the device until ``result()``.
"""

from ...backends import state
from ...backends.autodiff import Tensor, Variable, as_engine_array
from ...layers.naming import snake_case
from ...layers.options import initializers
from ..losses.loss_utils import squeeze_or_expand_to_same_rank


def engine_array(x):
    """The engine array behind ``x`` (Tensor, engine/NumPy array, list or number)."""
    return x.data if isinstance(x, Tensor) else as_engine_array(x)


def float_array(x, dtype=None):
    """``x`` as a floating engine array (integer/bool arrays become ``floatx()``)."""
    x = engine_array(x)
    if dtype is not None:
        return x.astype(dtype, copy=False)
    return x if x.dtype.kind == "f" else x.astype(state.floatx())


class MetricVariable(Variable):
    """A metric's state variable (``Metric.add_variable``): non-trainable, with Keras'
    ``assign_add`` / ``assign_sub`` and the initializer ``reset_state`` restores."""

    __slots__ = ("initializer", "aggregation")

    def assign_add(self, value):
        """``self += value`` in place (shape kept)."""
        self.assign(self.data + as_engine_array(value, self.data.dtype))

    def assign_sub(self, value):
        """``self -= value`` in place (shape kept)."""
        self.assign(self.data - as_engine_array(value, self.data.dtype))

    def reset(self):
        """Back to the initializer's values."""
        self.assign(self.initializer(tuple(self.data.shape), self.data.dtype))


class Metric:
    """Base class of stateful metrics (``keras.metrics.Metric``).

    Subclasses implement ``update_state`` and ``result``. Their state is either Keras 3's
    ``self.add_variable(shape, initializer, dtype=None, aggregation="sum", name=None)``
    (Variables updated with ``assign`` / ``assign_add``) or, inside lamina, float64 engine
    accumulators made by ``_add_state``; ``reset_state`` restores both, ``variables`` lists
    them.

    Example (Keras' custom-metric pattern)::

        class Total(Metric):
            def __init__(self, name="total", **kwargs):
                super().__init__(name=name, **kwargs)
                self.total = self.add_variable(shape=(), initializer="zeros", name="total")

            def update_state(self, values, sample_weight=None):
                self.total.assign_add(ops.sum(values))

            def result(self):
                return self.total
    """

    #: How many metrics this process has made: a model re-walks its layers for metric
    #: attributes (``model.metrics``) only after this changed.
    instances_made = 0

    def __init__(self, dtype=None, name=None):
        Metric.instances_made += 1
        self.name = name or snake_case(type(self).__name__)
        self.dtype = dtype or state.floatx()
        self._state_names = ()
        self._metric_variables = []

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """A non-trainable state variable of ``shape`` filled by ``initializer`` (a name
        such as ``"zeros"``, an Initializer or a callable ``(shape, dtype)``), tracked by
        ``variables`` and restored by ``reset_state``."""
        if aggregation not in ("none", "mean", "sum", "only_first_replica"):
            raise ValueError(f"Metric '{self.name}': invalid aggregation {aggregation!r}; "
                             "expected 'none', 'mean', 'sum' or 'only_first_replica'")
        initializer = initializers.get(initializer)
        dtype = dtype or self.dtype
        shape = tuple(shape)
        variable = MetricVariable(initializer(shape, dtype), trainable=False, dtype=dtype,
                                  name=name or f"variable_{len(self._metric_variables)}")
        variable.initializer, variable.aggregation = initializer, aggregation
        self._metric_variables.append(variable)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """Keras' older spelling of :meth:`add_variable` (default initializer zeros)."""
        return self.add_variable(shape, initializer or "zeros", dtype=dtype, name=name)

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"Metric '{type(self).__name__}' must implement update_state")

    def result(self):
        raise NotImplementedError(f"Metric '{type(self).__name__}' must implement result")

    def reset_state(self):
        """Start over: accumulators to 0, variables to their initializer's values."""
        for name in self._state_names:
            getattr(self, name)[...] = 0
        for variable in self._metric_variables:
            variable.reset()

    def _add_state(self, name, shape=(), value=0.0):
        """Create an engine accumulator (float64, so long runs do not lose counts)."""
        xp = state.backend().xp
        setattr(self, name, xp.full(shape, value, dtype="float64"))
        self._state_names = tuple(self._state_names) + (name,)

    @property
    def variables(self):
        """The metric's state: its accumulators' engine arrays, then its variables."""
        return [getattr(self, name) for name in self._state_names] + \
            list(self._metric_variables)

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


def result_value(array):
    """A 0-d engine array as a Python float; a 1-d one as a NumPy array."""
    values = state.backend().to_numpy(array)
    return float(values) if values.ndim == 0 else values.astype("float32")


def samplewise(values, sample_weight):
    """Keras' reduction of ``values`` (and ``sample_weight``) to one value per sample."""
    if sample_weight is not None:
        weights = float_array(sample_weight, values.dtype)
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


def aligned_floats(y_true, y_pred):
    """Both as floating engine arrays in ``y_pred``'s dtype, ranks aligned (Keras)."""
    y_pred = float_array(y_pred)
    return squeeze_or_expand_to_same_rank(float_array(y_true, y_pred.dtype), y_pred)

