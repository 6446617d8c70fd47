"""``Input`` and ``InputLayer``: the entry points of a functional model."""

import numpy as np

from ..backends import state
from .base import LAYERS, Layer
from .symbolic import Node, SymbolicTensor


@LAYERS.register()
class InputLayer(Layer):
    """Declares the shape and dtype of a model input; has no weights.

    Args:
        shape: shape without the batch axis, e.g. ``(784,)``.
        batch_size: optional fixed batch size.
        dtype: input dtype (default ``floatx()``; use an integer dtype for token ids).
        batch_shape: full shape including the batch axis (instead of shape/batch_size).
        name: layer name.
    """

    def __init__(self, shape=None, batch_size=None, dtype=None, batch_shape=None, name=None,
                 sparse=False):
        super().__init__(name=name, dtype=dtype)
        if batch_shape is None:
            if shape is None:
                raise ValueError("InputLayer needs shape (without the batch axis) or batch_shape")
            if isinstance(shape, int):
                shape = (shape,)
            batch_shape = (batch_size,) + tuple(shape)
        batch_shape = tuple(None if s is None else int(s) for s in batch_shape)
        if any(s is not None and s <= 0 for s in batch_shape):
            raise ValueError(f"InputLayer '{self.name}' needs positive sizes, got shape "
                             f"{batch_shape[1:]}")
        self.batch_shape = batch_shape
        self.sparse = sparse
        self.built = True
        node = Node(self, (), {})
        node.outputs = [SymbolicTensor(batch_shape, self.dtype, node, 0, name=self.name)]
        self._inbound_nodes.append(node)

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return self.batch_shape

    def get_config(self):
        return {"batch_shape": list(self.batch_shape), "dtype": self.dtype,
                "sparse": self.sparse, "name": self.name}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if "batch_input_shape" in config:  # Keras 2 files
            config["batch_shape"] = config.pop("batch_input_shape")
        config.pop("ragged", None)
        return cls(**config)


def Input(shape=None, batch_size=None, dtype=None, name=None, batch_shape=None):
    """A symbolic model input, as ``keras.Input``.

    Example:
        >>> inputs = lamina.Input((784,))
        >>> outputs = lamina.layers.Dense(10)(inputs)
        >>> model = lamina.Model(inputs, outputs)
    """
    dtype = "string" if dtype == "string" else np.dtype(dtype or state.floatx()).name
    return InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                      batch_shape=batch_shape).output
