"""Layers that start a (masked) sequence: ``Embedding`` (integer ids -> dense vectors) and
``Masking`` (skip time steps equal to a padding value)."""

import numpy as np

from ..backends import ops
from ..backends.autodiff import Tensor
from ..backends.trace import host_check
from .options import regularizers as regularizers_module
from .options import weight_options
from .base import LAYERS, Layer


@LAYERS.register()
class Embedding(Layer):
    """Turns integer ids into dense vectors: ``outputs = embeddings[inputs]``.

    Args:
        input_dim: vocabulary size (ids lie in ``[0, input_dim)``).
        output_dim: size of each vector.
        embeddings_initializer: default ``"uniform"`` (``RandomUniform(-0.05, 0.05)``).
        embeddings_regularizer, activity_regularizer: optional penalties.
        mask_zero: id 0 is padding: ``compute_mask`` returns ``inputs != 0`` so that
            recurrent layers downstream skip the padded steps (then ``input_dim`` should
            be the vocabulary size + 1).
        input_length: accepted for Keras 2 configs; ignored.

    Shapes: (batch, ...) integer ids -> (batch, ..., output_dim). Weight: ``embeddings``
    (input_dim, output_dim). The gradient is a scatter-add into the used rows.
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        for argument, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Layer '{self.name}' (Embedding) needs a positive int "
                                 f"{argument}, got {value!r}")
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        weight_options.store(self, "embeddings", embeddings_initializer,
                             embeddings_regularizer, embeddings_constraint)
        self.activity_regularizer = regularizers_module.get(activity_regularizer)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero

    def build(self, input_shape):
        self.embeddings = self.add_weight(
            (self.input_dim, self.output_dim), self.embeddings_initializer,
            regularizer=self.embeddings_regularizer, constraint=self.embeddings_constraint,
            name="embeddings")
        self.built = True

    def _ids(self, inputs):
        """The ids as an integer engine array, checked to lie in ``[0, input_dim)``."""
        ids = inputs.data if isinstance(inputs, Tensor) else Tensor(inputs).data
        if ids.dtype.kind == "f":
            if ids.size and bool((ids != ids.round()).any()):
                raise ValueError(f"Layer '{self.name}' (Embedding) expects integer ids, got "
                                 f"non-integer values of dtype {ids.dtype}")
            ids = ids.astype("int32")
        elif ids.dtype.kind not in "iu":
            raise ValueError(f"Layer '{self.name}' (Embedding) expects integer ids, got "
                             f"dtype {ids.dtype}")
        if ids.size:
            host_check(self._check_range, ids)   # a traced step checks every batch too
        return ids

    def _check_range(self, ids):
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or high >= self.input_dim:
            raise ValueError(f"Layer '{self.name}' (Embedding) got id "
                             f"{low if low < 0 else high} outside [0, {self.input_dim}) "
                             f"(input_dim={self.input_dim})")

    def call(self, inputs):
        return ops.take(self.embeddings, self._ids(inputs), axis=0)

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        ids = inputs.data if isinstance(inputs, Tensor) else Tensor(inputs).data
        return Tensor(ids != 0)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self):
        return {**super().get_config(), "input_dim": self.input_dim,
                "output_dim": self.output_dim,
                **weight_options.config(self, "embeddings"),
                "activity_regularizer": regularizers_module.serialize(self.activity_regularizer),
                "mask_zero": self.mask_zero}


@LAYERS.register()
class Masking(Layer):
    """Masks time steps whose features all equal ``mask_value``.

    ``outputs = inputs * any(inputs != mask_value, axis=-1)`` and the mask
    ``any(inputs != mask_value, axis=-1)`` goes to the layers downstream (recurrent layers
    then carry their state over the masked steps).

    Shapes: (batch, time, features) -> same.
    """

    supports_masking = True

    def __init__(self, mask_value=0.0, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.mask_value = mask_value

    def _keep(self, inputs):
        data = inputs.data if isinstance(inputs, Tensor) else Tensor(inputs).data
        return (data != self.mask_value).any(axis=-1)

    def call(self, inputs):
        keep = self._keep(inputs)
        return ops.multiply(inputs, keep[..., None].astype(inputs.dtype))

    def compute_mask(self, inputs, mask=None):
        return Tensor(self._keep(inputs))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}
