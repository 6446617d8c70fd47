"""The ``Bidirectional`` wrapper: a recurrent layer run forwards and a copy run backwards,
their outputs merged, with Keras 3's arguments, config and weight order."""

from ...backends import ops
from ..base import LAYERS, Layer
from ..wrappers import serialize_inner
from .cells import nest_weight_paths
from .rnn import deserialize_nested, first_mask


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
        super().__init__(name=name, trainable=trainable, dtype=dtype or layer.dtype,
                         input_shape=input_shape)
        if input_shape is None:
            self._batch_input_shape = layer.batch_input_shape
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
        return deserialize_nested(entry, {entry["class_name"]: type(layer)})

    def build(self, input_shape):
        for direction in (self.forward_layer, self.backward_layer):
            if not direction.built:
                direction.ensure_built(input_shape)
                nest_weight_paths(self, direction)
        self.sync_requires_grad(True)
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
        mask = first_mask(mask)
        output_mask = mask if self.return_sequences else None
        masks = [output_mask] if self.merge_mode else [output_mask, output_mask]
        if self.return_state:
            states = len(self.forward_layer.state_sizes()) \
                if hasattr(self.forward_layer, "state_sizes") else 1
            return masks + [None] * (2 * states)
        return masks[0] if self.merge_mode else masks

    def get_config(self):
        return {**super().get_config(), "merge_mode": self.merge_mode,
                "layer": serialize_inner(self.forward_layer),
                "backward_layer": serialize_inner(self.backward_layer)}

    @classmethod
    def from_config(cls, config):
        return cls.from_config_with_objects(config)

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        config = dict(config)
        config["layer"] = deserialize_nested(config["layer"], custom_objects)
        if isinstance(config.get("backward_layer"), dict):
            config["backward_layer"] = deserialize_nested(config["backward_layer"], custom_objects)
        return super().from_config(config)
