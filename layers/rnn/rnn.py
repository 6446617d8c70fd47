"""Recurrent layers: ``RNN`` (any cell), ``SimpleRNN``, ``LSTM`` and ``GRU``, with Keras 3's
arguments, defaults, configs and weight layout (``Bidirectional`` is in :mod:`.bidirectional`).

The built-in layers run a whole sequence as one fused op (see ``lamina.ops.lstm``); the
weights live on a cell sublayer as in Keras (``lstm/lstm_cell/kernel``), and
``layer.weights`` lists ``kernel, recurrent_kernel, bias``.

Example:
    >>> model = lamina.Sequential([lamina.Input((None,), dtype="int32"),
    ...                            layers.Embedding(1000, 32, mask_zero=True),
    ...                            layers.LSTM(64), layers.Dense(1, activation="sigmoid")])
"""

from ...backends import ops, state
from ...backends.autodiff import Tensor, Variable, wrap
from ...backends.ops.core import index_data
from ..options import regularizers as regularizers_module
from ..base import LAYERS, InputSpec, Layer
from ..wrappers import serialize_inner
from .cells import GRUCell, LSTMCell, SimpleRNNCell, FusedCell, nest_weight_paths

# Keras 2 config keys that have no effect here (dropped when loading a config).
_LEGACY_KEYS = ("implementation", "time_major")


def deserialize_nested(entry, custom_objects=None):
    """A nested layer (Bidirectional's layers, RNN's cell) from ``{"class_name", "config"}``;
    a Keras 3 DTypePolicy dict in the nested config becomes its dtype name."""
    config = dict(entry["config"])
    if isinstance(config.get("dtype"), dict):
        name = (config["dtype"].get("config") or {}).get("name", "float32")
        config["dtype"] = "float32" if name.startswith("mixed_") else name
    return LAYERS.lookup(entry["class_name"], custom_objects).from_config(config)


def first_mask(mask):
    """The mask of the first input when a layer is given a list of masks."""
    return mask[0] if isinstance(mask, (list, tuple)) else mask


@LAYERS.register()
class RNN(Layer):
    """Runs a recurrent ``cell`` over the time axis of (batch, time, features) inputs.

    Args:
        cell: a cell layer (``LSTMCell``, ``GRUCell``, ``SimpleRNNCell``: fused) or any
            layer with ``state_size`` and ``call(inputs, states) -> (output, new_states)``
            (run step by step with ``lamina.ops``).
        return_sequences: return every step's output (batch, time, units), not the last.
        return_state: also return the final states (``[output, *states]``).
        go_backwards: process the sequence from the end; outputs come in that order.
        stateful: carry each sample's final states over as the initial states of the
            same sample in the next batch (and the next ``predict``); needs a fixed batch
            size (``Input(..., batch_size=n)`` or ``batch_input_shape=``). ``layer.states``
            holds them; ``reset_state()`` zeroes them.
        unroll: accepted for Keras compatibility; the fused loop needs no unrolling.
        zero_output_for_mask: output zeros at masked steps instead of the previous output.
        activity_regularizer: optional penalty on the output.

    Call arguments: ``sequences``, ``initial_state`` (list of (batch, units) tensors),
    ``mask`` (batch, time) bool, ``training``.
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False,
                 activity_regularizer=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        if dtype is None and isinstance(cell, Layer):
            dtype = cell.dtype
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not isinstance(cell, Layer) and callable(cell):
            try:
                cell = cell()
            except ValueError as error:
                raise ValueError(f"Layer '{self.name}' ({type(self).__name__}): {error}") \
                    from None
        if not isinstance(cell, Layer) or not hasattr(cell, "state_size"):
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}) needs a cell layer "
                             f"with a state_size attribute, got {cell!r}")
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.states = None
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.activity_regularizer = regularizers_module.get(activity_regularizer)
        self.supports_masking = True
        self.input_spec = InputSpec(ndim=3)

    def state_sizes(self):
        sizes = self.cell.state_size
        return list(sizes) if isinstance(sizes, (list, tuple)) else [sizes]

    def state_shapes(self, batch):
        """The shape of each state for a batch of ``batch`` sequences."""
        return [(batch, size) for size in self.state_sizes()]

    def build(self, input_shape):
        features = input_shape[-1]
        if features is None:
            raise ValueError(f"Layer '{self.name}' needs a known last input dimension, "
                             f"got input shape {tuple(input_shape)}")
        if not self.cell.built:
            self.cell.ensure_built((input_shape[0], features))
            nest_weight_paths(self, self.cell)
            self.sync_requires_grad(True)      # a frozen layer freezes its cell's weights
        self.input_spec = InputSpec(ndim=3, axes={-1: features})
        if self.stateful:
            self._create_state_variables(input_shape)
        self.built = True

    # ------------------------------------------------------------------ stateful
    def _create_state_variables(self, input_shape):
        batch = input_shape[0]
        if batch is None:
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}): when using "
                             "`stateful=True` in a RNN, the batch size must be static. "
                             f"Found dynamic batch size: sequence.shape={tuple(input_shape)}")
        zeros = state.backend().xp.zeros
        self.states = [Variable(zeros(shape, dtype=self.dtype), trainable=False,
                                name="rnn_state") for shape in self.state_shapes(batch)]
        for variable in self.states:
            variable.path = f"{self.name}/rnn_state"

    def reset_state(self):
        """Zero the carried states of a stateful layer (Keras 3's ``reset_state``)."""
        for variable in self.states or ():
            variable.assign(state.backend().xp.zeros(variable.shape, dtype=variable.dtype))

    def reset_states(self):
        """Keras' compatibility alias of :meth:`reset_state`."""
        self.reset_state()

    # ------------------------------------------------------------------ running
    def call(self, sequences, initial_state=None, mask=None, training=None):
        mask = first_mask(mask)
        batch = sequences.shape[0]
        if self.stateful and initial_state is None:
            initial_state = self._carried_states(batch)
        states = self._initial_states(initial_state, batch)
        if isinstance(self.cell, FusedCell):
            inputs = self.cell.dropped_inputs(sequences, training)
            results = self.cell.run_sequence(
                inputs, states, mask, self.go_backwards,
                self.cell.recurrent_dropout_mask(batch, training))
            sequence, last_output, final_states = results[0], results[1], list(results[1:])
        else:
            if hasattr(self.cell, "reset_dropout_mask"):   # one dropout mask per sequence
                self.cell.reset_dropout_mask()
            sequence, last_output, final_states = self._run_cell_loop(
                sequences, states, mask, training)
        if self.stateful:
            for variable, final in zip(self.states, final_states):
                variable.assign(final)
        if self.return_sequences:
            output = sequence
            if self.zero_output_for_mask and mask is not None:
                keep = index_data(mask).astype(bool)
                if self.go_backwards:
                    keep = keep[:, ::-1]
                keep = keep.reshape(keep.shape + (1,) * (output.ndim - 2))
                output = ops.multiply(output, keep.astype(output.dtype))
        else:
            output = last_output
        if self.return_state:
            return [output, *final_states]
        return output

    def _carried_states(self, batch):
        """Copies of the carried states (the variables change after this call, while the
        recorded graph still needs these values)."""
        expected = self.states[0].shape[0]
        if batch != expected:
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}): if an RNN is "
                             "stateful, the batch size of the input sequences must be the "
                             f"same as the batch size of the initial state. Expected batch "
                             f"size: {expected}, received batch size: {batch}")
        return [wrap(variable.data.copy()) for variable in self.states]

    def _initial_states(self, initial_state, batch):
        shapes = self.state_shapes(batch)
        if initial_state is None:
            return [None] * len(shapes)
        if not isinstance(initial_state, (list, tuple)):
            initial_state = [initial_state]
        if len(initial_state) != len(shapes):
            raise ValueError(f"Layer '{self.name}' expects {len(shapes)} initial state(s), "
                             f"got {len(initial_state)}")
        states = []
        for value, shape in zip(initial_state, shapes):
            if not isinstance(value, Tensor):
                value = Tensor(value, dtype=self.dtype)
            if value.shape != shape:
                raise ValueError(f"Layer '{self.name}' expects initial states of shape "
                                 f"{shape}, got {value.shape}")
            states.append(value)
        return states

    def _run_cell_loop(self, sequences, states, mask, training):
        """Generic step-by-step loop for cells without a fused op (lamina.ops only)."""
        batch, steps = sequences.shape[0], sequences.shape[1]
        zeros = state.backend().xp.zeros
        states = [zeros(shape, dtype=self.dtype) if s is None else s
                  for s, shape in zip(states, self.state_shapes(batch))]
        keep = None if mask is None else index_data(mask).astype(bool)
        pieces = ops.split(sequences, steps, axis=1)
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs = []
        for t in order:
            output, new_states = self.cell(ops.squeeze(pieces[t], 1), states,
                                           training=training)
            new_states = list(new_states) if isinstance(new_states, (list, tuple)) \
                else [new_states]
            if keep is not None:
                step_keep = keep[:, t].reshape((batch,) + (1,) * (states[0].ndim - 1))
                output = ops.where(step_keep, output, states[0])
                new_states = [ops.where(step_keep, new, old)
                              for new, old in zip(new_states, states)]
            outputs.append(output)
            states = new_states
        return ops.stack(outputs, axis=1), outputs[-1], states

    # ------------------------------------------------------------------ shapes and masks
    def compute_output_shape(self, input_shape):
        batch, steps = input_shape[0], input_shape[1]
        sizes = self.state_sizes()
        units = getattr(self.cell, "output_size", None) or sizes[0]
        output = (batch, steps, units) if self.return_sequences else (batch, units)
        if self.return_state:
            return [output] + [(batch, size) for size in sizes]
        return output

    def compute_mask(self, inputs, mask=None):
        mask = first_mask(mask)
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(self.state_sizes())
        return output_mask

    # ------------------------------------------------------------------ config
    def get_config(self):
        return {**super().get_config(), "return_sequences": self.return_sequences,
                "return_state": self.return_state, "go_backwards": self.go_backwards,
                "stateful": self.stateful, "unroll": self.unroll,
                "zero_output_for_mask": self.zero_output_for_mask,
                "activity_regularizer": regularizers_module.serialize(
                    self.activity_regularizer),
                "cell": serialize_inner(self.cell)}

    @classmethod
    def from_config(cls, config):
        return cls.from_config_with_objects(config)

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        config = {k: v for k, v in config.items() if k not in _LEGACY_KEYS}
        if isinstance(config.get("cell"), dict):
            config["cell"] = deserialize_nested(config["cell"], custom_objects)
        return super().from_config(config)


_CELL_ATTRIBUTES = frozenset((
    "units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
    "recurrent_initializer", "bias_initializer", "unit_forget_bias", "kernel_regularizer",
    "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
    "bias_constraint", "dropout", "recurrent_dropout", "seed", "reset_after",
    "kernel", "recurrent_kernel", "bias"))


class BuiltinRNN(RNN):
    """SimpleRNN, LSTM and GRU: a built-in cell whose arguments are the layer's own (read
    through to the cell, flattened into the config as Keras does)."""

    cell_attributes = _CELL_ATTRIBUTES

    def __getattr__(self, name):
        cell = self.__dict__.get("cell")
        if name in type(self).cell_attributes and cell is not None:
            return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def get_config(self):
        config = super().get_config()
        cell_config = config.pop("cell")["config"]
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        return {**config, **cell_config}


@LAYERS.register()
class SimpleRNN(BuiltinRNN):
    """Fully connected RNN: ``h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel
    + bias)``. Weights: ``kernel`` (features, units), ``recurrent_kernel`` (units, units),
    ``bias`` (units,). See :class:`RNN` for the sequence arguments."""

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, zero_output_for_mask=False,
                 name=None, trainable=True, dtype=None, input_shape=None):
        def make_cell():
            return SimpleRNNCell(
                units, activation=activation, use_bias=use_bias,
                kernel_initializer=kernel_initializer,
                recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                kernel_regularizer=kernel_regularizer,
                recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
                kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
                bias_constraint=bias_constraint, dropout=dropout,
                recurrent_dropout=recurrent_dropout, seed=seed, name="simple_rnn_cell",
                dtype=self.dtype_policy)

        super().__init__(make_cell, return_sequences, return_state, go_backwards, stateful,
                         unroll, zero_output_for_mask, activity_regularizer, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)


@LAYERS.register()
class LSTM(BuiltinRNN):
    """Long short-term memory layer (Hochreiter & Schmidhuber, 1997), Keras 3's LSTM.

    Weights: ``kernel`` (features, 4u), ``recurrent_kernel`` (u, 4u), ``bias`` (4u,), gate
    blocks ``[i|f|c|o]``. With ``return_state`` returns ``[output, h, c]``. See
    :class:`RNN` for the sequence arguments and :class:`LSTMCell` for the cell ones.
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, zero_output_for_mask=False,
                 use_cudnn="auto", name=None, trainable=True, dtype=None, input_shape=None):
        def make_cell():
            return LSTMCell(
                units, activation=activation, recurrent_activation=recurrent_activation,
                use_bias=use_bias, kernel_initializer=kernel_initializer,
                recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
                recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
                kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
                bias_constraint=bias_constraint, dropout=dropout,
                recurrent_dropout=recurrent_dropout, seed=seed, name="lstm_cell",
                dtype=self.dtype_policy)

        super().__init__(make_cell, return_sequences, return_state, go_backwards, stateful,
                         unroll, zero_output_for_mask, activity_regularizer, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.use_cudnn = use_cudnn

    def get_config(self):
        return {**super().get_config(), "use_cudnn": self.use_cudnn}


@LAYERS.register()
class GRU(BuiltinRNN):
    """Gated recurrent unit (Cho et al., 2014), Keras 3's GRU.

    Weights: ``kernel`` (features, 3u), ``recurrent_kernel`` (u, 3u), ``bias`` (2, 3u) with
    ``reset_after=True`` (the default) or (3u,); gate blocks ``[z|r|h]``. See :class:`RNN`
    for the sequence arguments and :class:`GRUCell` for the cell ones.
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, reset_after=True, zero_output_for_mask=False,
                 use_cudnn="auto", name=None, trainable=True, dtype=None, input_shape=None):
        def make_cell():
            return GRUCell(
                units, activation=activation, recurrent_activation=recurrent_activation,
                use_bias=use_bias, kernel_initializer=kernel_initializer,
                recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                kernel_regularizer=kernel_regularizer,
                recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
                kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
                bias_constraint=bias_constraint, dropout=dropout,
                recurrent_dropout=recurrent_dropout, seed=seed, reset_after=reset_after,
                name="gru_cell", dtype=self.dtype_policy)

        super().__init__(make_cell, return_sequences, return_state, go_backwards, stateful,
                         unroll, zero_output_for_mask, activity_regularizer, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.use_cudnn = use_cudnn

    def get_config(self):
        return {**super().get_config(), "use_cudnn": self.use_cudnn}
