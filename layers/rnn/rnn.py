"""Recurrent layers: ``RNN`` (any cell), ``SimpleRNN``, ``LSTM``, ``GRU`` and the
``Bidirectional`` wrapper, with Keras 3's arguments, defaults, configs and weight layout.

The built-in layers run a whole sequence as one fused op (see ``lamina.ops.lstm``); the
weights live on a cell sublayer as in Keras (``lstm/lstm_cell/kernel``), and
``layer.weights`` lists ``kernel, recurrent_kernel, bias``.

Example:
    >>> model = lamina.Sequential([lamina.Input((None,), dtype="int32"),
    ...                            layers.Embedding(1000, 32, mask_zero=True),
    ...                            layers.LSTM(64), layers.Dense(1, activation="sigmoid")])
"""

from ...backends import ops, state
from ...backends.autodiff import Tensor
from ...backends.ops.core import index_data
from ..options import regularizers as regularizers_module
from ..base import LAYERS, InputSpec, Layer
from .cells import GRUCell, LSTMCell, SimpleRNNCell, _FusedCell, nest_weight_paths

# Keras 2 config keys that have no effect here (dropped when loading a config).
_LEGACY_KEYS = ("implementation", "time_major")


def _deserialize(entry, custom_objects=None):
    """A nested layer (Bidirectional's layers, RNN's cell) from ``{"class_name", "config"}``;
    a Keras 3 DTypePolicy dict in the nested config becomes its dtype name."""
    config = dict(entry["config"])
    if isinstance(config.get("dtype"), dict):
        name = (config["dtype"].get("config") or {}).get("name", "float32")
        config["dtype"] = "float32" if name.startswith("mixed_") else name
    return LAYERS.lookup(entry["class_name"], custom_objects).from_config(config)


def _serialize(layer):
    return {"class_name": layer.registered_class_name(), "config": layer.get_config()}


def _first(mask):
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
        stateful: not supported (raises ``ValueError``); pass ``initial_state`` instead.
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
        if stateful:
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}): stateful=True is "
                             "not supported; carry states across batches with "
                             "return_state=True and initial_state=[...] instead")
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
        self.stateful = False
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.activity_regularizer = regularizers_module.get(activity_regularizer)
        self.supports_masking = True
        self.input_spec = InputSpec(ndim=3)

    def _state_sizes(self):
        sizes = self.cell.state_size
        return list(sizes) if isinstance(sizes, (list, tuple)) else [sizes]

    def build(self, input_shape):
        features = input_shape[-1]
        if features is None:
            raise ValueError(f"Layer '{self.name}' needs a known last input dimension, "
                             f"got input shape {tuple(input_shape)}")
        if not self.cell.built:
            self.cell._maybe_build((input_shape[0], features))
            nest_weight_paths(self, self.cell)
            self._sync_requires_grad(True)      # a frozen layer freezes its cell's weights
        self.input_spec = InputSpec(ndim=3, axes={-1: features})
        self.built = True

    # ------------------------------------------------------------------ running
    def call(self, sequences, initial_state=None, mask=None, training=None):
        mask = _first(mask)
        batch = sequences.shape[0]
        states = self._initial_states(initial_state, batch)
        if isinstance(self.cell, _FusedCell):
            inputs = self.cell.dropped_inputs(sequences, training)
            results = self.cell.run_sequence(
                inputs, states, mask, self.go_backwards,
                self.cell.recurrent_dropout_mask(batch, training))
            sequence, last_output, final_states = results[0], results[1], list(results[1:])
        else:
            sequence, last_output, final_states = self._run_cell_loop(
                sequences, states, mask, training)
        if self.return_sequences:
            output = sequence
            if self.zero_output_for_mask and mask is not None:
                keep = index_data(mask).astype(bool)
                if self.go_backwards:
                    keep = keep[:, ::-1]
                output = ops.multiply(output, keep[:, :, None].astype(output.dtype))
        else:
            output = last_output
        if self.return_state:
            return [output, *final_states]
        return output

    def _initial_states(self, initial_state, batch):
        sizes = self._state_sizes()
        if initial_state is None:
            return [None] * len(sizes)
        if not isinstance(initial_state, (list, tuple)):
            initial_state = [initial_state]
        if len(initial_state) != len(sizes):
            raise ValueError(f"Layer '{self.name}' expects {len(sizes)} initial state(s), "
                             f"got {len(initial_state)}")
        states = []
        for value, size in zip(initial_state, sizes):
            if not isinstance(value, Tensor):
                value = Tensor(value, dtype=self.dtype)
            if value.shape != (batch, size):
                raise ValueError(f"Layer '{self.name}' expects initial states of shape "
                                 f"{(batch, size)}, got {value.shape}")
            states.append(value)
        return states

    def _run_cell_loop(self, sequences, states, mask, training):
        """Generic step-by-step loop for cells without a fused op (lamina.ops only)."""
        batch, steps = sequences.shape[0], sequences.shape[1]
        zeros = state.backend().xp.zeros
        states = [zeros((batch, size), dtype=self.dtype) if s is None else s
                  for s, size in zip(states, self._state_sizes())]
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
                step_keep = keep[:, t:t + 1]
                output = ops.where(step_keep, output, states[0])
                new_states = [ops.where(step_keep, new, old)
                              for new, old in zip(new_states, states)]
            outputs.append(output)
            states = new_states
        return ops.stack(outputs, axis=1), outputs[-1], states

    # ------------------------------------------------------------------ shapes and masks
    def compute_output_shape(self, input_shape):
        batch, steps = input_shape[0], input_shape[1]
        sizes = self._state_sizes()
        units = getattr(self.cell, "output_size", None) or sizes[0]
        output = (batch, steps, units) if self.return_sequences else (batch, units)
        if self.return_state:
            return [output] + [(batch, size) for size in sizes]
        return output

    def compute_mask(self, inputs, mask=None):
        mask = _first(mask)
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(self._state_sizes())
        return output_mask

    # ------------------------------------------------------------------ config
    def get_config(self):
        return {**super().get_config(), "return_sequences": self.return_sequences,
                "return_state": self.return_state, "go_backwards": self.go_backwards,
                "stateful": self.stateful, "unroll": self.unroll,
                "zero_output_for_mask": self.zero_output_for_mask,
                "activity_regularizer": regularizers_module.serialize(
                    self.activity_regularizer),
                "cell": _serialize(self.cell)}

    @classmethod
    def from_config(cls, config):
        return cls.from_config_with_objects(config)

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        config = {k: v for k, v in config.items() if k not in _LEGACY_KEYS}
        if isinstance(config.get("cell"), dict):
            config["cell"] = _deserialize(config["cell"], custom_objects)
        return super().from_config(config)


_CELL_ATTRIBUTES = frozenset((
    "units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
    "recurrent_initializer", "bias_initializer", "unit_forget_bias", "kernel_regularizer",
    "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
    "bias_constraint", "dropout", "recurrent_dropout", "seed", "reset_after",
    "kernel", "recurrent_kernel", "bias"))


class _BuiltinRNN(RNN):
    """SimpleRNN, LSTM and GRU: a built-in cell whose arguments are the layer's own (read
    through to the cell, flattened into the config as Keras does)."""

    def __getattr__(self, name):
        cell = self.__dict__.get("cell")
        if name in _CELL_ATTRIBUTES and cell is not None:
            return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def get_config(self):
        config = super().get_config()
        cell_config = config.pop("cell")["config"]
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        return {**config, **cell_config}


@LAYERS.register()
class SimpleRNN(_BuiltinRNN):
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
                dtype=self.dtype)

        super().__init__(make_cell, return_sequences, return_state, go_backwards, stateful,
                         unroll, zero_output_for_mask, activity_regularizer, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)


@LAYERS.register()
class LSTM(_BuiltinRNN):
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
                dtype=self.dtype)

        super().__init__(make_cell, return_sequences, return_state, go_backwards, stateful,
                         unroll, zero_output_for_mask, activity_regularizer, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.use_cudnn = use_cudnn

    def get_config(self):
        return {**super().get_config(), "use_cudnn": self.use_cudnn}


@LAYERS.register()
class GRU(_BuiltinRNN):
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
                name="gru_cell", dtype=self.dtype)

        super().__init__(make_cell, return_sequences, return_state, go_backwards, stateful,
                         unroll, zero_output_for_mask, activity_regularizer, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.use_cudnn = use_cudnn

    def get_config(self):
        return {**super().get_config(), "use_cudnn": self.use_cudnn}


# ---------------------------------------------------------------------- Bidirectional
_MERGE_MODES = ("concat", "sum", "mul", "ave", None)


@LAYERS.register()
class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy backwards and merges the outputs.

    Args:
        layer: the recurrent layer (``LSTM``, ``GRU``, ``SimpleRNN``, ``RNN``); it is
            copied from its config into ``forward_layer`` (named ``forward_<name>``).
        merge_mode: ``"concat"`` (default), ``"sum"``, ``"mul"``, ``"ave"`` or ``None``
            (a list of both outputs).
        backward_layer: optional layer for the backward direction (needs the opposite
            ``go_backwards`` and the same ``return_sequences``/``return_state``); by
            default a copy of ``layer`` named ``backward_<name>`` with ``go_backwards``.

    With ``return_state`` returns ``[output, *forward_states, *backward_states]``;
    ``initial_state`` takes the forward states followed by the backward ones. Weights:
    the forward layer's, then the backward layer's.
    """

    def __init__(self, layer, merge_mode="concat", backward_layer=None, name=None,
                 trainable=True, dtype=None, input_shape=None):
        if not isinstance(layer, Layer):
            raise ValueError(f"Bidirectional needs a recurrent layer instance, got {layer!r}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Bidirectional merge_mode must be one of {_MERGE_MODES}, "
                             f"got {merge_mode!r}")
        if input_shape is None and layer._batch_input_shape is not None:
            input_shape = layer._batch_input_shape[1:]
        super().__init__(name=name, trainable=trainable, dtype=dtype or layer.dtype,
                         input_shape=input_shape)
        self.forward_layer = self._copy(layer, "forward_")
        if backward_layer is None:
            backward_layer = self._copy(layer, "backward_", go_backwards=True)
        elif not isinstance(backward_layer, Layer):
            raise ValueError(f"Layer '{self.name}' (Bidirectional) needs a layer instance as "
                             f"backward_layer, got {backward_layer!r}")
        self.backward_layer = backward_layer
        if self.forward_layer.go_backwards == self.backward_layer.go_backwards:
            raise ValueError(f"Layer '{self.name}' (Bidirectional): the forward and backward "
                             "layers need different go_backwards values")
        for attribute in ("stateful", "return_sequences", "return_state"):
            if getattr(self.forward_layer, attribute) != getattr(self.backward_layer,
                                                                 attribute):
                raise ValueError(f"Layer '{self.name}' (Bidirectional): the forward and "
                                 f"backward layers need the same {attribute}")
        for direction in (self.forward_layer, self.backward_layer):
            if hasattr(direction, "zero_output_for_mask"):
                direction.zero_output_for_mask = direction.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = self.forward_layer.return_sequences
        self.return_state = self.forward_layer.return_state
        self.stateful = self.forward_layer.stateful
        self.supports_masking = True
        self.input_spec = self.forward_layer.input_spec

    @staticmethod
    def _copy(layer, prefix, **overrides):
        config = layer.get_config()
        base = layer.name[len(prefix):] if layer.name.startswith(prefix) else layer.name
        config.update(overrides, name=prefix + base)
        config.pop("batch_input_shape", None)
        entry = {"class_name": layer.registered_class_name(), "config": config}
        return _deserialize(entry, {entry["class_name"]: type(layer)})

    def build(self, input_shape):
        for direction in (self.forward_layer, self.backward_layer):
            if not direction.built:
                direction._maybe_build(input_shape)
                nest_weight_paths(self, direction)
        self._sync_requires_grad(True)
        self.input_spec = self.forward_layer.input_spec
        self.built = True

    def call(self, sequences, initial_state=None, mask=None, training=None):
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=forward_state, mask=mask,
                               training=training)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, mask=mask,
                                    training=training)
        states = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = ops.getitem(y_rev, (slice(None), slice(None, None, -1)))
        if self.merge_mode == "concat":
            output = [ops.concatenate([y, y_rev], axis=-1)]
        elif self.merge_mode == "sum":
            output = [y + y_rev]
        elif self.merge_mode == "ave":
            output = [(y + y_rev) * 0.5]
        elif self.merge_mode == "mul":
            output = [y * y_rev]
        else:
            output = [y, y_rev]
        if self.return_state or self.merge_mode is None:
            return output + states
        return output[0]

    def compute_output_shape(self, input_shape):
        shape = self.forward_layer.compute_output_shape(input_shape)
        states = []
        if self.return_state:
            shape, states = shape[0], list(shape[1:])
        if self.merge_mode == "concat":
            output = [tuple(shape[:-1]) + (None if shape[-1] is None else 2 * shape[-1],)]
        elif self.merge_mode is None:
            output = [tuple(shape), tuple(shape)]
        else:
            output = [tuple(shape)]
        if self.return_state or self.merge_mode is None:
            return output + states + states
        return output[0]

    def compute_mask(self, inputs, mask=None):
        mask = _first(mask)
        output_mask = mask if self.return_sequences else None
        masks = [output_mask] if self.merge_mode else [output_mask, output_mask]
        if self.return_state:
            states = len(self.forward_layer._state_sizes()) \
                if hasattr(self.forward_layer, "_state_sizes") else 1
            return masks + [None] * (2 * states)
        return masks[0] if self.merge_mode else masks

    def get_config(self):
        return {**super().get_config(), "merge_mode": self.merge_mode,
                "layer": _serialize(self.forward_layer),
                "backward_layer": _serialize(self.backward_layer)}

    @classmethod
    def from_config(cls, config):
        return cls.from_config_with_objects(config)

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        config = dict(config)
        config["layer"] = _deserialize(config["layer"], custom_objects)
        if isinstance(config.get("backward_layer"), dict):
            config["backward_layer"] = _deserialize(config["backward_layer"], custom_objects)
        return super().from_config(config)
