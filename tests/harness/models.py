"""Small models several model tests share: a two-input two-output functional graph with a
Lambda merge, a subclassed two-layer network, and the seeded float32 data helpers."""

import numpy as np

import lamina
from lamina import layers


def rng(seed=0):
    """A seeded NumPy generator."""
    return np.random.default_rng(seed)


def f32(a):
    """``a`` as a float32 array."""
    return np.asarray(a, dtype="float32")


def two_in_two_out(as_dict):
    """Inputs "numbers" (3) and "extras" (2), summed by a Lambda into outputs "value" (1)
    and "label" (3, softmax); dict inputs and outputs when ``as_dict``."""
    numbers = lamina.Input((3,), name="numbers")
    extras = lamina.Input((2,), name="extras")
    a = layers.Dense(4, name="from_numbers")(numbers)
    b = layers.Dense(4, name="from_extras")(extras)
    merged = layers.Lambda(lambda t: t[0] + t[1], name="add")([a, b])
    value = layers.Dense(1, name="value")(merged)
    label = layers.Dense(3, activation="softmax", name="label")(merged)
    if as_dict:
        return lamina.Model({"numbers": numbers, "extras": extras},
                            {"value": value, "label": label})
    return lamina.Model([numbers, extras], [value, label])


class TwoLayerNet(lamina.Model):
    """A subclassed model: Dense(units, tanh) then Dense(1)."""

    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = layers.Dense(units, activation="tanh")
        self.out = layers.Dense(1)

    def call(self, inputs, training=None):
        return self.out(self.hidden(inputs))

    def get_config(self):
        return {**super().get_config(), "units": self.units}
