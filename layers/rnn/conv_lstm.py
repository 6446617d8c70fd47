"""Convolutional LSTM layers: ``ConvLSTM1D``, ``ConvLSTM2D`` and ``ConvLSTM3D`` (Keras 3), an
LSTM whose input and recurrent transformations are convolutions.

The layers are :class:`~.rnn.RNN` s over a ``ConvLSTMCell`` (run step by step by the RNN's
loop, with its masking, ``go_backwards``, ``stateful`` and initial states); each step is
two fused convolutions (input: the layer's strides, padding and dilation, with the bias;
recurrent: ``"same"``, stride 1) and the LSTM gates, written with ``lamina.ops`` so the
backward comes from them. Weights as Keras: ``kernel`` (*kernel_size, channels, 4f),
``recurrent_kernel`` (*kernel_size, f, 4f), ``bias`` (4f,), gate blocks ``[i|f|c|o]``;
paths ``conv_lstm2d/conv_lstm_cell/kernel``.

Example:
    >>> model = lamina.Sequential([lamina.Input((10, 16, 16, 1)),
    ...                            layers.ConvLSTM2D(8, 3, padding="same"),
    ...                            layers.Conv2D(1, 1, activation="sigmoid")])
"""

from ...backends import ops
from ...backends.ops.conv import conv_output_length
from ..arguments import check_data_format, check_padding, layer_error, positive_tuple
from ..base import InputSpec, LAYERS, Layer
from ..channels import channels_last_shape, layout_shape
from ..options import activations as activations_module
from ..options import weight_options
from .cells import (dropout_keep_mask, forget_bias_initializer, nest_weight_paths,
                    store_cell_options)
from .rnn import BuiltinRNN

_GATES = 4


class ConvLSTMCell(Layer):
    """One ConvLSTM step (Keras' ``ConvLSTMCell``; built by the ConvLSTM layers, not
    exported, as in Keras). ``call(inputs, [h, c], training)`` -> ``(h', [h', c'])`` with
    inputs (batch, *spatial, channels) and states (batch, *out_spatial, filters), in the
    ``data_format`` layout. Dropout draws four masks per sequence (one per gate), kept
    until :meth:`reset_dropout_mask`, as Keras.
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, activation="tanh",
                 recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, name=None, trainable=True, dtype=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype)
        if not isinstance(filters, int) or isinstance(filters, bool) or filters <= 0:
            raise layer_error(self, f"needs a positive int filters, got {filters!r}")
        self.rank = rank
        self.filters = filters
        self.kernel_size = positive_tuple(self, kernel_size, rank, "kernel_size")
        self.strides = positive_tuple(self, strides, rank, "strides")
        self.padding = check_padding(self, padding, ("valid", "same"))
        self.data_format = check_data_format(self, data_format)
        self.dilation_rate = positive_tuple(self, dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise layer_error(self, "does not support strides > 1 with dilation_rate > 1, got "
                                    f"strides={self.strides} and "
                                    f"dilation_rate={self.dilation_rate}")
        store_cell_options(self, (kernel_initializer, kernel_regularizer, kernel_constraint),
                           (recurrent_initializer, recurrent_regularizer, recurrent_constraint),
                           (bias_initializer, bias_regularizer, bias_constraint),
                           (dropout, recurrent_dropout, seed))
        self.activation = activations_module.get(activation)
        self.recurrent_activation = activations_module.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.state_shape = None
        self.reset_dropout_mask()

    @property
    def state_size(self):
        return [self.filters, self.filters]

    def build(self, input_shape):
        shape = channels_last_shape(self, input_shape)
        if None in shape[1:]:
            raise layer_error(self, "needs static spatial and channel dimensions, got input "
                                    f"shape {tuple(input_shape)}")
        channels = shape[-1]
        self.kernel = self.add_weight(
            self.kernel_size + (channels, _GATES * self.filters), self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
            name="kernel")
        self.recurrent_kernel = self.add_weight(
            self.kernel_size + (self.filters, _GATES * self.filters),
            self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint, name="recurrent_kernel")
        initializer = (forget_bias_initializer(self.bias_initializer, self.filters, self.dtype)
                       if self.unit_forget_bias else self.bias_initializer)
        self.bias = (self.add_weight((_GATES * self.filters,), initializer,
                                     regularizer=self.bias_regularizer,
                                     constraint=self.bias_constraint, name="bias")
                     if self.use_bias else None)
        self.state_shape = self.compute_output_shape(input_shape)[1:]
        self.built = True

    def compute_output_shape(self, input_shape):
        """The shape of the step output (and of each state) for a step input shape."""
        shape = channels_last_shape(self, input_shape)
        spatial = [None if n is None else conv_output_length(n, k, s, self.padding, d)
                   for n, k, s, d in zip(shape[1:-1], self.kernel_size, self.strides,
                                         self.dilation_rate)]
        if any(n is not None and n <= 0 for n in spatial):
            raise layer_error(self, f"has kernel_size={self.kernel_size} larger than its "
                                    f"input of shape {tuple(input_shape)} with "
                                    f"padding='{self.padding}'")
        return layout_shape(self, (shape[0], *spatial, self.filters))

    # ------------------------------------------------------------------ dropout
    def reset_dropout_mask(self):
        """Forget the dropout masks (the RNN calls this before each sequence)."""
        self._masks = {}

    def _gate_masks(self, kind, rate, shape, training):
        """Four masks of ``shape`` for ``kind`` (drawn once per sequence), or None."""
        if not training or rate == 0.0:
            return None
        if kind not in self._masks:
            self._masks[kind] = [dropout_keep_mask(self.dropout_stream, shape, rate,
                                                   self.compute_dtype) for _ in range(_GATES)]
        return self._masks[kind]

    # ------------------------------------------------------------------ running
    def _gate_conv(self, x, kernel, bias, masks, strides, padding, dilation):
        """``[i|f|c|o]`` pre-activations: one convolution, or one per gate on its own
        dropped-out copy of ``x``."""
        if masks is None:
            return ops.conv(x, kernel, strides, padding, dilation, bias=bias)
        kernels = ops.split(kernel, _GATES, axis=-1)
        biases = [None] * _GATES if bias is None else ops.split(bias, _GATES)
        return ops.concatenate([ops.conv(x * mask, k, strides, padding, dilation, bias=b)
                                for mask, k, b in zip(masks, kernels, biases)], axis=-1)

    def call(self, inputs, states, training=None):
        to_last = (0, *range(2, self.rank + 2), 1)
        to_first = (0, self.rank + 1, *range(1, self.rank + 1))
        h, c = states
        if self.data_format == "channels_first":
            inputs, h, c = (ops.transpose(v, to_last) for v in (inputs, h, c))
        z = self._gate_conv(inputs, self.kernel, self.bias,
                            self._gate_masks("input", self.dropout, inputs.shape, training),
                            self.strides, self.padding, self.dilation_rate)
        z = z + self._gate_conv(h, self.recurrent_kernel, None,
                                self._gate_masks("recurrent", self.recurrent_dropout,
                                                 h.shape, training), 1, "same", 1)
        i, f, g, o = ops.split(z, _GATES, axis=-1)
        gate = self.recurrent_activation
        c = gate(f) * c + gate(i) * self.activation(g)
        h = gate(o) * self.activation(c)
        if self.data_format == "channels_first":
            h, c = ops.transpose(h, to_first), ops.transpose(c, to_first)
        return h, [h, c]

    def get_config(self):
        return {**super().get_config(), "filters": self.filters,
                "kernel_size": list(self.kernel_size), "strides": list(self.strides),
                "padding": self.padding, "data_format": self.data_format,
                "dilation_rate": list(self.dilation_rate),
                "activation": activations_module.serialize(self.activation),
                "recurrent_activation": activations_module.serialize(
                    self.recurrent_activation),
                "use_bias": self.use_bias,
                **weight_options.config(self, "kernel", "recurrent", "bias"),
                "unit_forget_bias": self.unit_forget_bias, "dropout": self.dropout,
                "recurrent_dropout": self.recurrent_dropout, "seed": self.seed}


class ConvLSTM(BuiltinRNN):
    """What ConvLSTM1D/2D/3D share (subclasses set ``rank``): the RNN over a
    ``ConvLSTMCell``, its arguments the layer's own.

    Input (batch, time, *spatial, channels), or (batch, time, channels, *spatial) with
    ``data_format="channels_first"``; output (batch, *out_spatial, filters) (or with the
    time axis, ``return_sequences=True``), plus ``[h, c]`` with ``return_state=True``.
    Strides > 1 and dilation > 1 cannot be combined; the recurrent convolution is always
    ``"same"`` with stride 1. See :class:`~.rnn.RNN` for the sequence arguments.
    """

    rank = 2
    cell_attributes = BuiltinRNN.cell_attributes | {
        "filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate"}

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, zero_output_for_mask=False,
                 name=None, trainable=True, dtype=None, input_shape=None):
        def make_cell():   # the cell's arguments, in its signature's order
            return ConvLSTMCell(
                self.rank, filters, kernel_size, strides, padding, data_format, dilation_rate,
                activation, recurrent_activation, use_bias, kernel_initializer,
                recurrent_initializer, bias_initializer, unit_forget_bias, kernel_regularizer,
                recurrent_regularizer, bias_regularizer, kernel_constraint,
                recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed,
                name="conv_lstm_cell", dtype=self.dtype_policy)

        super().__init__(make_cell, return_sequences, return_state, go_backwards, stateful,
                         unroll, zero_output_for_mask, activity_regularizer, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 3)

    def build(self, input_shape):
        step_shape = (input_shape[0],) + tuple(input_shape[2:])
        if not self.cell.built:
            self.cell.ensure_built(step_shape)
            nest_weight_paths(self, self.cell)
            self.sync_requires_grad(True)      # a frozen layer freezes its cell's weights
        self.input_spec = InputSpec(ndim=self.rank + 3, axes={
            axis: size for axis, size in enumerate(input_shape) if axis > 1})
        if self.stateful:
            self._create_state_variables(input_shape)
        self.built = True

    def state_shapes(self, batch):
        return [(batch, *self.cell.state_shape)] * 2

    def compute_output_shape(self, input_shape):
        batch, steps = input_shape[0], input_shape[1]
        state_shape = tuple(self.cell.compute_output_shape((batch, *input_shape[2:])))
        output = (batch, steps, *state_shape[1:]) if self.return_sequences else state_shape
        return [output, state_shape, state_shape] if self.return_state else output


@LAYERS.register()
class ConvLSTM1D(ConvLSTM):
    """1-D convolutional LSTM: (batch, time, steps, channels) -> (batch, steps', filters)."""

    rank = 1


@LAYERS.register()
class ConvLSTM2D(ConvLSTM):
    """2-D convolutional LSTM: (batch, time, rows, cols, channels) -> (batch, rows',
    cols', filters) (Shi et al., 2015)."""

    rank = 2


@LAYERS.register()
class ConvLSTM3D(ConvLSTM):
    """3-D convolutional LSTM: (batch, time, d1, d2, d3, channels) -> (batch, d1', d2',
    d3', filters)."""

    rank = 3
