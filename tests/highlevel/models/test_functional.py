"""Functional models: multi-input / multi-output graphs, shared layers, nested models,
Keras' layer order and config round trips."""

import numpy as np
import pytest

import lamina
from harness.models import f32, rng, two_in_two_out
from lamina import layers, ops


def _reference_forward(model, xn, xe):
    w = {layer.name: layer.get_weights() for layer in model.layers if layer.weights}
    merged = xn @ w["from_numbers"][0] + w["from_numbers"][1] + \
        xe @ w["from_extras"][0] + w["from_extras"][1]
    value = merged @ w["value"][0] + w["value"][1]
    logits = merged @ w["label"][0] + w["label"][1]
    label = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    return value, label


@pytest.mark.parametrize("as_dict", [False, True])
def test_functional_multi_input_multi_output(as_dict):
    lamina.utils.set_random_seed(0)
    model = two_in_two_out(as_dict)
    # dicts are flattened by sorted key, as Keras does
    assert model.input_names == (["extras", "numbers"] if as_dict else ["numbers", "extras"])
    assert model.output_names == (["label", "value"] if as_dict else ["value", "label"])
    heads = ["label", "value"] if as_dict else ["value", "label"]
    assert [layer.name for layer in model.layers if not isinstance(layer, layers.InputLayer)] \
        == ["from_numbers", "from_extras", "add"] + heads
    r = rng(1)
    xn, xe = f32(r.standard_normal((6, 3))), f32(r.standard_normal((6, 2)))
    ref_value, ref_label = _reference_forward(model, xn, xe)
    # predict takes a list (in model input order) or a dict keyed by input name
    by_dict = model.predict({"numbers": xn, "extras": xe}, verbose=0)
    assert isinstance(by_dict, list) and len(by_dict) == 2
    outputs = dict(zip(model.output_names, by_dict))
    np.testing.assert_allclose(outputs["value"], ref_value, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outputs["label"], ref_label, rtol=1e-5, atol=1e-6)
    if not as_dict:
        by_list = model.predict([xn, xe], verbose=0)
        np.testing.assert_allclose(by_list[0], ref_value, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(by_list[1], ref_label, rtol=1e-5, atol=1e-6)
    else:
        direct = model({"numbers": xn, "extras": xe})
        assert set(direct) == {"value", "label"}
        np.testing.assert_allclose(direct["label"].numpy(), ref_label, rtol=1e-5, atol=1e-6)


def test_functional_multi_io_trains_with_dict_losses():
    lamina.utils.set_random_seed(0)
    model = two_in_two_out(as_dict=False)
    r = rng(2)
    xn, xe = f32(r.standard_normal((128, 3))), f32(r.standard_normal((128, 2)))
    value = f32(xn.sum(1, keepdims=True) - xe[:, :1])
    label = (xn[:, 0] > 0).astype("int64") + (xe[:, 0] > 1).astype("int64")
    model.compile(optimizer=lamina.optimizers.Adam(0.02),
                  loss={"value": "mse", "label": "sparse_categorical_crossentropy"},
                  loss_weights={"value": 1.0, "label": 0.5},
                  metrics={"label": ["accuracy"]})
    history = model.fit({"numbers": xn, "extras": xe}, {"value": value, "label": label},
                        batch_size=32, epochs=30, verbose=0)
    h = history.history
    assert set(h) == {"loss", "value_loss", "label_loss", "label_accuracy"}
    assert h["value_loss"][-1] < 0.05 * h["value_loss"][0]
    assert h["label_loss"][-1] < h["label_loss"][0]
    # the total is the weighted sum of the output losses
    logs = model.evaluate([xn, xe], [value, label], verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(logs["value_loss"] + 0.5 * logs["label_loss"],
                                         rel=1e-5)


def test_shared_layer_has_one_set_of_weights_and_gets_both_gradients():
    lamina.utils.set_random_seed(0)
    shared = layers.Dense(2, name="shared_dense")
    left, right = lamina.Input((3,)), lamina.Input((3,))

    def difference(t):
        return t[0] - t[1]

    out = layers.Lambda(difference)([shared(left), shared(right)])
    model = lamina.Model([left, right], out)
    assert [layer.name for layer in model.layers].count("shared_dense") == 1
    assert len(model.weights) == 2 and len(shared.inbound_nodes) == 2
    xl, xr = f32([[1, 2, 3]]), f32([[0, 1, -1]])
    kernel = shared.get_weights()[0]
    np.testing.assert_allclose(model.predict([xl, xr], verbose=0), (xl - xr) @ kernel,
                               rtol=1e-5, atol=1e-6)
    loss = ops.sum(model([xl, xr]))
    grads = lamina.grad(loss, model.trainable_weights)
    np.testing.assert_allclose(grads[0].numpy(), np.repeat((xl - xr).T, 2, axis=1),
                               rtol=1e-6)
    np.testing.assert_allclose(grads[1].numpy(), [0.0, 0.0], atol=1e-7)  # biases cancel
    config = model.get_config()
    rebuilt = lamina.Model.from_config(config, custom_objects={"difference": difference})
    rebuilt.set_weights(model.get_weights())
    np.testing.assert_allclose(rebuilt.predict([xl, xr], verbose=0),
                               model.predict([xl, xr], verbose=0), rtol=1e-6)
    assert len(rebuilt.get_layer("shared_dense").inbound_nodes) == 2


def test_model_used_as_layer_in_another_model():
    lamina.utils.set_random_seed(0)
    inner = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="relu"),
                               layers.Dense(2)], name="encoder")
    x_in = lamina.Input((4,))
    outer = lamina.Model(x_in, layers.Dense(1, name="head")(inner(x_in)))
    assert [layer.name for layer in outer.layers][1:] == ["encoder", "head"]
    assert len(outer.weights) == 6 and outer.count_params() == (4 * 3 + 3) + (3 * 2 + 2) + 3
    x = f32(rng(3).standard_normal((5, 4)))
    np.testing.assert_allclose(outer.predict(x, verbose=0),
                               inner.predict(x, verbose=0) @ outer.get_layer("head").kernel
                               .numpy() + outer.get_layer("head").bias.numpy(), rtol=1e-5,
                               atol=1e-6)
    # training the outer model trains the inner one
    before = inner.get_weights()
    outer.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    outer.fit(x, np.ones((5, 1), dtype="float32"), epochs=2, verbose=0)
    assert not np.allclose(before[0], inner.get_weights()[0])
    # freezing the inner model freezes all its weights
    inner.trainable = False
    assert len(outer.trainable_weights) == 2
    frozen = inner.get_weights()
    outer.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    outer.fit(x, np.zeros((5, 1), dtype="float32"), epochs=2, verbose=0)
    for a, b in zip(frozen, inner.get_weights()):
        np.testing.assert_array_equal(a, b)
    # a functional model nested in a Sequential one
    seq = lamina.Sequential([lamina.Input((4,)), inner, layers.Dense(1)])
    assert seq.predict(x, verbose=0).shape == (5, 1)


def test_functional_layer_order_follows_keras():
    # depth from the outputs first, ties broken by the order inputs are visited
    a, b = lamina.Input((2,), name="a"), lamina.Input((2,), name="b")
    a1 = layers.Dense(2, name="a1")(a)
    b1 = layers.Dense(2, name="b1")(b)
    b2 = layers.Dense(2, name="b2")(b1)
    out = layers.Lambda(lambda t: t[0] + t[1], name="join")([a1, b2])
    model = lamina.Model([a, b], out)
    assert [layer.name for layer in model.layers] == ["b", "a", "b1", "a1", "b2", "join"]
    assert [w.path for w in model.weights][::2] == ["b1/kernel", "a1/kernel", "b2/kernel"]


def test_functional_config_round_trip_multi_io():
    lamina.utils.set_random_seed(0)
    numbers = lamina.Input((3,), name="n_in")
    extras = lamina.Input((2,), name="e_in")
    h = layers.Dense(4, activation="relu", name="h")(numbers)
    out1 = layers.Dense(1, name="o1")(h)
    out2 = layers.Dense(2, name="o2")(layers.Flatten(name="flat")(extras))
    model = lamina.Model([numbers, extras], [out1, out2])
    config = model.get_config()
    assert config["input_layers"] == [["n_in", 0, 0], ["e_in", 0, 0]]
    assert config["output_layers"] == [["o1", 0, 0], ["o2", 0, 0]]
    rebuilt = lamina.Model.from_config(config)
    assert [layer.name for layer in rebuilt.layers] == [layer.name for layer in model.layers]
    rebuilt.set_weights(model.get_weights())
    r = rng(8)
    xs = [f32(r.standard_normal((4, 3))), f32(r.standard_normal((4, 2)))]
    for a, b in zip(rebuilt.predict(xs, verbose=0), model.predict(xs, verbose=0)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_feature_extraction_from_functional_and_sequential_models():
    x = f32(rng(3).normal(size=(6, 4)))
    inputs = lamina.Input((4,), name="pixels")
    hidden = layers.Dense(5, activation="relu", name="hidden")(inputs)
    model = lamina.Model(inputs, layers.Dense(2, name="head")(hidden))
    assert model.input is inputs and model.output is model.outputs[0]
    assert model.get_layer("hidden").input is inputs and model.get_layer("hidden").output is hidden
    assert (model.input_shape, model.output_shape) == ((None, 4), (None, 2))
    extractor = lamina.Model(inputs=model.inputs, outputs=model.get_layer("hidden").output)
    dense = model.get_layer("hidden")
    np.testing.assert_allclose(extractor.predict(x, verbose=0),
                               np.maximum(x @ dense.kernel.numpy() + dense.bias.numpy(), 0),
                               rtol=1e-5)
    every = lamina.Model(inputs=model.inputs, outputs=[layer.output for layer in model.layers])
    assert [o.shape for o in every.predict(x, verbose=0)] == [(6, 4), (6, 5), (6, 2)]

    sequential = lamina.Sequential([lamina.Input((4,)), layers.Dense(5, name="s1"),
                                    layers.Dense(3, name="s2")])
    sequential.add(layers.Dense(2, name="s3"))   # rebuilding keeps one node per layer
    assert [len(layer.inbound_nodes) for layer in sequential.layers] == [1, 1, 1]
    assert (sequential.input_shape, sequential.output_shape) == ((None, 4), (None, 2))
    assert sequential.layers[1].input.shape == (None, 5)
    features = lamina.Model(inputs=sequential.inputs,
                            outputs=[layer.output for layer in sequential.layers])
    outputs = features.predict(x, verbose=0)
    np.testing.assert_allclose(outputs[-1], sequential.predict(x, verbose=0), rtol=1e-6)
    with pytest.raises(AttributeError, match="never been called"):
        layers.Dense(2).output
