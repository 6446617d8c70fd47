"""Recurrent cells: ``SimpleRNNCell``, ``LSTMCell`` and ``GRUCell``.

A cell owns the weights in Keras' layout (``kernel``, ``recurrent_kernel``, ``bias``) and
runs whole sequences through the fused ops of ``lamina.ops`` (one recorded op per
sequence, hand-written backpropagation through time). Called directly on one step
``(batch, features)`` with a list of states, a cell returns ``(output, new_states)`` as in
Keras, so it can also drive the generic ``RNN`` loop.
"""

from ...backends import ops, state
from ...backends.random import SeededStream
from ...backends.replica import draw_rows
from ...backends.ops.recurrent import RECURRENT_ACTIVATIONS
from ..options import activations as activations_module
from ..options import weight_options
from ..base import LAYERS, Layer


def fused_activation_name(layer, activation, argument):
    """The Keras name of ``activation``, checked to be one the fused ops support."""
    name = activations_module.serialize(activations_module.get(activation))
    if name not in RECURRENT_ACTIVATIONS:
        raise ValueError(f"Layer '{layer.name}' ({type(layer).__name__}) supports "
                         f"{argument} in {RECURRENT_ACTIVATIONS}, got {activation!r}")
    return name


def store_cell_options(cell, kernel, recurrent, bias, dropout_options):
    """Check and keep what every recurrent cell takes: the (initializer, regularizer,
    constraint) of its ``kernel``, ``recurrent`` and ``bias`` weights, and the
    ``(dropout, recurrent_dropout, seed)`` of its dropout (rates in [0, 1); the seed of
    the stream its masks are drawn from)."""
    dropout, recurrent_dropout, seed = dropout_options
    for argument, rate in (("dropout", dropout), ("recurrent_dropout", recurrent_dropout)):
        if not 0.0 <= rate < 1.0:
            raise ValueError(f"Layer '{cell.name}' ({type(cell).__name__}) needs "
                             f"{argument} in [0, 1), got {rate!r}")
    for family, options in (("kernel", kernel), ("recurrent", recurrent), ("bias", bias)):
        weight_options.store(cell, family, *options)
    cell.dropout = float(dropout)
    cell.recurrent_dropout = float(recurrent_dropout)
    cell.seed = seed
    cell.dropout_stream = SeededStream(seed)


def dropout_keep_mask(stream, shape, rate, dtype):
    """A constant ``dtype`` mask of ``shape`` (axis 0 the batch): zeros at a fraction
    ``rate``, the rest ``1 / (1 - rate)``, drawn from the SeededStream ``stream``."""
    backend = state.backend()
    keep = draw_rows(lambda size: backend.random_uniform(stream.generator(), size, dtype),
                     shape) >= rate
    return keep.astype(dtype) * (1.0 / (1.0 - rate))


def forget_bias_initializer(base, units, default_dtype):
    """The fused ``[i|f|c|o]`` bias initializer of ``unit_forget_bias=True``: ``base``
    everywhere but ones for the forget gate."""
    def initializer(shape, dtype=None):
        dtype = dtype or default_dtype
        return ops.concatenate([base((units,), dtype=dtype), ops.ones((units,), dtype=dtype),
                                base((2 * units,), dtype=dtype)])

    return initializer


def nest_weight_paths(parent, child):
    """Prefix the weight paths of ``child`` with ``parent``'s name, as Keras names
    variables of nested layers (``lstm/lstm_cell/kernel``)."""
    for weight in child.weights:
        weight.path = f"{parent.name}/{weight.path}"


class FusedCell(Layer):
    """What the three cells share: the weights, dropout masks, config and one-step call.

    Subclasses set ``_gates`` (column blocks of the kernels) and implement
    ``run_sequence``.
    """

    _gates = 1

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 name=None, trainable=True, dtype=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype)
        if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}) needs a positive "
                             f"int units, got {units!r}")
        store_cell_options(self, (kernel_initializer, kernel_regularizer, kernel_constraint),
                           (recurrent_initializer, recurrent_regularizer, recurrent_constraint),
                           (bias_initializer, bias_regularizer, bias_constraint),
                           (dropout, recurrent_dropout, seed))
        self.units = units
        self.activation = fused_activation_name(self, activation, "activation")
        self.use_bias = bool(use_bias)

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def build(self, input_shape):
        features = input_shape[-1]
        if features is None:
            raise ValueError(f"Layer '{self.name}' needs a known last input dimension, "
                             f"got input shape {tuple(input_shape)}")
        width = self._gates * self.units
        self.kernel = self.add_weight((features, width), self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.recurrent_kernel = self.add_weight(
            (self.units, width), self.recurrent_initializer,
            regularizer=self.recurrent_regularizer, constraint=self.recurrent_constraint,
            name="recurrent_kernel")
        self.bias = (self.add_weight(self._bias_shape(), self._bias_initializer(),
                                     regularizer=self.bias_regularizer,
                                     constraint=self.bias_constraint, name="bias")
                     if self.use_bias else None)
        self.built = True

    def _bias_shape(self):
        return (self._gates * self.units,)

    def _bias_initializer(self):
        return self.bias_initializer

    # ------------------------------------------------------------------ dropout
    def _random_generator(self):
        return self.dropout_stream.generator()

    def dropped_inputs(self, sequences, training):
        """Input dropout with one mask per sequence (the same for every step, as Keras)."""
        if not training or self.dropout == 0.0:
            return sequences
        noise_shape = (None,) * (sequences.ndim - 2) + (1, None) if sequences.ndim >= 3 \
            else None
        return ops.dropout(sequences, self.dropout, self._random_generator(), noise_shape)

    def recurrent_dropout_mask(self, batch, training):
        """A (batch, units) mask scaling the state before the recurrent GEMM, or None."""
        if not training or self.recurrent_dropout == 0.0:
            return None
        return dropout_keep_mask(self.dropout_stream, (batch, self.units),
                                 self.recurrent_dropout, self.dtype)

    # ------------------------------------------------------------------ running
    def get_initial_state(self, batch_size):
        """Zero states, one per entry of ``state_size``."""
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) \
            else [self.state_size]
        xp = state.backend().xp
        return [ops.convert_to_tensor(xp.zeros((batch_size, size), dtype=self.dtype))
                for size in sizes]

    def run_sequence(self, sequences, states, mask=None, go_backwards=False,
                     recurrent_mask=None):
        """Run the fused op on (batch, time, features): returns (sequence, *final_states)."""
        raise NotImplementedError

    def call(self, inputs, states, training=None):
        """One step: inputs (batch, features), ``states`` a list -> (output, new_states)."""
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        step = self.dropped_inputs(ops.expand_dims(inputs, 1), training)
        results = self.run_sequence(step, states, None, False,
                                    self.recurrent_dropout_mask(inputs.shape[0], training))
        return results[1], list(results[1:])

    def get_config(self):
        return {**super().get_config(), "units": self.units, "activation": self.activation,
                "use_bias": self.use_bias,
                **weight_options.config(self, "kernel", "recurrent", "bias"),
                "dropout": self.dropout,
                "recurrent_dropout": self.recurrent_dropout, "seed": self.seed}


@LAYERS.register()
class SimpleRNNCell(FusedCell):
    """``h' = activation(x @ kernel + h @ recurrent_kernel + bias)``.

    Weights: ``kernel`` (features, units), ``recurrent_kernel`` (units, units), ``bias``
    (units,).
    """

    def run_sequence(self, sequences, states, mask=None, go_backwards=False,
                     recurrent_mask=None):
        return ops.simple_rnn(sequences, self.kernel, self.recurrent_kernel, self.bias,
                              states[0], mask=mask, go_backwards=go_backwards,
                              activation=self.activation, recurrent_dropout_mask=recurrent_mask)


@LAYERS.register()
class LSTMCell(FusedCell):
    """Long short-term memory cell, Keras' fused layout with gate blocks ``[i|f|c|o]``.

    Weights: ``kernel`` (features, 4u), ``recurrent_kernel`` (u, 4u), ``bias`` (4u,).
    ``unit_forget_bias`` initializes the forget-gate bias to ones. States: ``[h, c]``.
    """

    _gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 name=None, trainable=True, dtype=None):
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         seed, name=name, trainable=trainable, dtype=dtype)
        self.recurrent_activation = fused_activation_name(self, recurrent_activation,
                                                          "recurrent_activation")
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        return forget_bias_initializer(self.bias_initializer, self.units, self.dtype)

    def run_sequence(self, sequences, states, mask=None, go_backwards=False,
                     recurrent_mask=None):
        return ops.lstm(sequences, self.kernel, self.recurrent_kernel, self.bias, states[0],
                        states[1], mask=mask, go_backwards=go_backwards,
                        activation=self.activation,
                        recurrent_activation=self.recurrent_activation,
                        recurrent_dropout_mask=recurrent_mask)

    def get_config(self):
        return {**super().get_config(), "recurrent_activation": self.recurrent_activation,
                "unit_forget_bias": self.unit_forget_bias}


@LAYERS.register()
class GRUCell(FusedCell):
    """Gated recurrent unit cell, Keras' layout with gate blocks ``[z|r|h]``.

    Weights: ``kernel`` (features, 3u), ``recurrent_kernel`` (u, 3u), ``bias`` (2, 3u)
    with ``reset_after=True`` (input and recurrent biases; Keras 3's default) or (3u,).
    """

    _gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, reset_after=True,
                 name=None, trainable=True, dtype=None):
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         seed, name=name, trainable=trainable, dtype=dtype)
        self.recurrent_activation = fused_activation_name(self, recurrent_activation,
                                                          "recurrent_activation")
        self.reset_after = bool(reset_after)

    def _bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def run_sequence(self, sequences, states, mask=None, go_backwards=False,
                     recurrent_mask=None):
        return ops.gru(sequences, self.kernel, self.recurrent_kernel, self.bias, states[0],
                       mask=mask, go_backwards=go_backwards, activation=self.activation,
                       recurrent_activation=self.recurrent_activation,
                       reset_after=self.reset_after, recurrent_dropout_mask=recurrent_mask)

    def get_config(self):
        return {**super().get_config(), "recurrent_activation": self.recurrent_activation,
                "reset_after": self.reset_after}
