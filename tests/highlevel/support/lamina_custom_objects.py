"""Custom objects for the pickling tests, in a module importable by name (its folder is
put on ``sys.path`` by the tests that import it, and joblib's workers inherit the parent's
``sys.path``), as a user's own package would be."""

import lamina
from lamina import layers, ops
from lamina.layers.base import LAYERS, Layer


@LAYERS.register()
class RegisteredScale(Layer):
    """Multiplies by a learned per-feature scale (registered in lamina's layer registry,
    which a fresh process only has once this module is imported)."""

    def build(self, input_shape):
        self.scale = self.add_weight((input_shape[-1],), "ones", name="scale")

    def call(self, inputs):
        return inputs * self.scale

    def compute_output_shape(self, input_shape):
        return input_shape


class Shift(Layer):
    """Adds a constant (not registered: only ``custom_objects`` can name it)."""

    def __init__(self, offset=0.5, **kwargs):
        super().__init__(**kwargs)
        self.offset = offset

    def call(self, inputs):
        return inputs + self.offset

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "offset": self.offset}


def soft_clip(inputs):
    """The Lambda function of :func:`custom_network`."""
    return ops.tanh(inputs) * 3.0


def custom_network(n_features, n_classes):
    """A compiled classifier using both custom layers and a Lambda over
    :func:`soft_clip`."""
    model = lamina.Sequential([lamina.Input((n_features,)), RegisteredScale(), Shift(0.25),
                               layers.Lambda(soft_clip), layers.Dense(8, activation="relu"),
                               layers.Dense(n_classes, activation="softmax")])
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="categorical_crossentropy")
    return model
