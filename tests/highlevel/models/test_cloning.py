"""clone_model: the same architecture with fresh weights, for Sequential, functional and
subclassed models."""

import numpy as np

import lamina
from harness.models import TwoLayerNet, f32, rng, two_in_two_out
from lamina import layers


def test_clone_model_same_architecture_fresh_weights():
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((5,)), layers.Dense(4), layers.Dense(1)])
    clone = lamina.models.clone_model(model)
    assert clone is not model and type(clone) is lamina.Sequential
    assert [w.shape for w in clone.weights] == [w.shape for w in model.weights]
    assert not np.allclose(clone.get_weights()[0], model.get_weights()[0])
    assert all(a is not b for a, b in zip(clone.weights, model.weights))
    clone.set_weights(model.get_weights())
    x = f32(rng(9).standard_normal((3, 5)))
    np.testing.assert_allclose(clone.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)
    # training the clone leaves the original alone
    before = model.get_weights()
    clone.compile(optimizer="sgd", loss="mse")
    clone.fit(x, np.ones((3, 1)), epochs=1, verbose=0)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    # functional and subclassed models clone too
    functional = two_in_two_out(as_dict=False)
    functional_clone = lamina.models.clone_model(functional)
    assert [layer.name for layer in functional_clone.layers] == [
        layer.name for layer in functional.layers]
    sub = TwoLayerNet(units=5, name="sub")
    sub.build((None, 2))
    sub_clone = lamina.models.clone_model(sub)
    assert type(sub_clone) is TwoLayerNet and sub_clone.units == 5
    assert [w.shape for w in sub_clone.weights] == [w.shape for w in sub.weights]


def test_clone_layer_called_on_a_tuple_of_tensors():
    a, b = lamina.Input((3,)), lamina.Input((3,))
    model = lamina.Model([a, b], layers.Dense(2)(layers.Concatenate()((a, b))))
    clone = lamina.models.clone_model(model)
    clone.set_weights(model.get_weights())
    x = [np.ones((2, 3), "float32"), np.arange(6, dtype="float32").reshape(2, 3)]
    np.testing.assert_allclose(clone.predict(x, verbose=0), model.predict(x, verbose=0))
    assert clone.layers[-1] is not model.layers[-1]
