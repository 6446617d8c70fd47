"""clone_model: a fresh model with the same structure, new weights."""

import numpy as np

import lamina
from lamina import layers


def test_clone_layer_called_on_a_tuple_of_tensors():
    a, b = lamina.Input((3,)), lamina.Input((3,))
    model = lamina.Model([a, b], layers.Dense(2)(layers.Concatenate()((a, b))))
    clone = lamina.models.clone_model(model)
    clone.set_weights(model.get_weights())
    x = [np.ones((2, 3), "float32"), np.arange(6, dtype="float32").reshape(2, 3)]
    np.testing.assert_allclose(clone.predict(x, verbose=0), model.predict(x, verbose=0))
    assert clone.layers[-1] is not model.layers[-1]
