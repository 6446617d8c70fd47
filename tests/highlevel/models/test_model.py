"""Models (issue #3): Sequential, functional multi-input/multi-output models, shared layers,
nested models, subclassed models, custom train_step / test_step, summary(), get_layer,
layers, get_config / from_config and clone_model."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops


def rng(seed=0):
    return np.random.default_rng(seed)


def f32(a):
    return np.asarray(a, dtype="float32")


def summary_lines(model):
    texts = []
    model.summary(print_fn=texts.append)      # Keras 3: one call with the whole summary
    return texts[0].splitlines()


# ------------------------------------------------------------------ Sequential
def test_sequential_from_list_with_input_is_built():
    lamina.utils.set_random_seed(0)
    first, second = layers.Dense(4, activation="relu"), layers.Dense(2)
    model = lamina.Sequential([lamina.Input((3,)), first, second])
    assert model.built and model.layers == [first, second]
    assert model.inputs[0].shape == (None, 3) and model.outputs[0].shape == (None, 2)
    assert [w.shape for w in model.weights] == [(3, 4), (4,), (4, 2), (2,)]
    x = f32(rng().standard_normal((5, 3)))
    k1, b1, k2, b2 = model.get_weights()
    expected = np.maximum(x @ k1 + b1, 0) @ k2 + b2
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model(x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_sequential_add_and_pop():
    model = lamina.Sequential(name="stack")
    model.add(lamina.Input((6,)))
    model.add(layers.Dense(5))
    model.add(layers.Dense(4))
    last = layers.Dense(3)
    model.add(last)
    assert [layer.units for layer in model.layers] == [5, 4, 3]
    assert model.outputs[0].shape == (None, 3)
    assert model.pop() is last
    assert model.outputs[0].shape == (None, 4) and len(model.weights) == 4
    assert model.predict(np.zeros((2, 6)), verbose=0).shape == (2, 4)
    with pytest.raises(ValueError, match="already in Sequential"):
        model.add(model.layers[0])
    with pytest.raises(TypeError, match="only accepts layers"):
        model.add("dense")
    with pytest.raises(ValueError, match="Input can only come first"):
        model.add(lamina.Input((6,)))
    empty = lamina.Sequential()
    with pytest.raises(ValueError, match="no layers to pop"):
        empty.pop()


def test_sequential_built_on_first_data():
    model = lamina.Sequential([layers.Dense(4, activation="relu"), layers.Dense(2)])
    assert not model.built and model.weights == []
    out = model.predict(np.ones((3, 7), dtype="float32"), verbose=0)
    assert out.shape == (3, 2) and model.built
    assert [w.shape for w in model.weights] == [(7, 4), (4,), (4, 2), (2,)]
    assert model.inputs[0].shape == (None, 7)
    # the same can happen in fit
    fresh = lamina.Sequential([layers.Dense(1)])
    fresh.compile(optimizer="sgd", loss="mse")
    fresh.fit(np.ones((8, 5), dtype="float32"), np.ones((8, 1), dtype="float32"), verbose=0)
    assert fresh.get_weights()[0].shape == (5, 1)
    # and with input_shape= on the first layer (Keras 2 style)
    keras2 = lamina.Sequential([layers.Dense(2, input_shape=(9,))])
    assert keras2.built and keras2.weights[0].shape == (9, 2)


def test_sequential_build_with_explicit_shape():
    model = lamina.Sequential([layers.Dense(3)])
    model.build((None, 4))
    assert model.built and model.weights[0].shape == (4, 3)


# ------------------------------------------------------------------ functional
def _two_in_two_out(as_dict):
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
    model = _two_in_two_out(as_dict)
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
    model = _two_in_two_out(as_dict=False)
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
    assert len(model.weights) == 2 and len(shared._inbound_nodes) == 2
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
    assert len(rebuilt.get_layer("shared_dense")._inbound_nodes) == 2


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


class TwoLayerNet(lamina.Model):
    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = layers.Dense(units, activation="tanh")
        self.out = layers.Dense(1)

    def call(self, inputs, training=None):
        return self.out(self.hidden(inputs))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_subclassed_model_with_custom_call_trains():
    lamina.utils.set_random_seed(0)
    model = TwoLayerNet(units=16)
    assert model.name == "two_layer_net" and not model.built
    r = rng(4)
    x = f32(r.standard_normal((128, 2)))
    y = f32(np.sin(x[:, :1]) + 0.5 * x[:, 1:])
    model.compile(optimizer=lamina.optimizers.Adam(0.02), loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=32, epochs=40, verbose=0)
    assert model.built and [layer.name for layer in model.layers] == [
        model.hidden.name, model.out.name]
    assert len(model.trainable_weights) == 4
    assert history.history["loss"][-1] < 0.05 * history.history["loss"][0]
    np.testing.assert_allclose(model.predict(x, verbose=0), model(x).numpy(), rtol=1e-6)
    clone = TwoLayerNet.from_config(model.get_config())
    assert clone.units == 16


def test_subclassed_model_built_by_build_call():
    model = TwoLayerNet(units=3)
    model.build((None, 5))
    assert model.built and [w.shape for w in model.weights] == [(5, 3), (3,), (3, 1), (1,)]


class ManualStepModel(lamina.Model):
    """Overrides train_step / test_step with lamina.grad and self.optimizer.apply."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(1)
        self.train_calls = 0
        self.test_calls = 0

    def call(self, inputs, training=None):
        return self.dense(inputs)

    def train_step(self, data):
        x, y, _ = data
        self.train_calls += 1
        prediction = self(x, training=True)
        loss = ops.mean(ops.abs(prediction - y))  # L1 loss, though none was compiled
        variables = self.trainable_weights
        self.optimizer.apply(lamina.grad(loss, variables), variables)
        return {"l1": float(loss.numpy()), "scale": 2.0}

    def test_step(self, data):
        x, y, _ = data
        self.test_calls += 1
        error = ops.max(ops.abs(self(x) - y))
        return {"max_error": error}


def test_overridden_train_step_and_test_step_customize_fit_and_evaluate():
    lamina.utils.set_random_seed(0)
    r = rng(5)
    x = f32(r.standard_normal((64, 3)))
    y = f32(x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3)
    model = ManualStepModel()
    model.compile(optimizer=lamina.optimizers.Adam(0.05))  # no loss: train_step has its own
    history = model.fit(x, y, batch_size=16, epochs=40, verbose=0,
                        validation_data=(x[:16], y[:16]))
    assert model.train_calls == 40 * 4
    assert set(history.history) == {"l1", "scale", "val_max_error"}
    assert history.history["scale"] == [2.0] * 40
    assert history.history["l1"][-1] < 0.1 * history.history["l1"][0]
    np.testing.assert_allclose(model.dense.kernel.numpy(), [[1.0], [-2.0], [0.5]], atol=0.05)
    calls = model.test_calls
    result = model.evaluate(x, y, batch_size=64, verbose=0, return_dict=True)
    assert model.test_calls == calls + 1 and set(result) == {"max_error"}
    expected = np.abs(model.predict(x, verbose=0) - y).max()
    assert result["max_error"] == pytest.approx(expected, rel=1e-5)
    assert model.evaluate(x, y, batch_size=64, verbose=0) == pytest.approx(expected, rel=1e-5)
    assert model.train_on_batch(x, y, return_dict=True)["scale"] == 2.0


def test_train_step_calling_super_keeps_default_behaviour():
    class Counting(lamina.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = layers.Dense(1)
            self.seen = 0

        def call(self, inputs, training=None):
            return self.dense(inputs)

        def train_step(self, data):
            self.seen += 1
            return super().train_step(data)

    lamina.utils.set_random_seed(0)
    model = Counting()
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    x = f32(rng(6).standard_normal((32, 2)))
    history = model.fit(x, x[:, :1], batch_size=8, epochs=2, verbose=0)
    assert model.seen == 8 and set(history.history) == {"loss", "mae"}


# ------------------------------------------------------------------ summary
def test_summary_table_lists_layers_shapes_params_and_totals(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    model = lamina.Sequential([lamina.Input((8,)),
                               layers.Dense(16, activation="relu", name="hidden"),
                               layers.Dropout(0.1, name="drop"),
                               layers.Dense(3, name="scores")], name="classifier")
    model.get_layer("hidden").trainable = False
    lines = summary_lines(model)
    text = "\n".join(lines)
    assert lines[0] == 'Model: "classifier"'
    header = next(line for line in lines if "Layer (type)" in line)
    assert "Output Shape" in header and "Param #" in header

    def row(name):
        return next(line for line in lines if line.startswith(f"\u2502 {name} ")).split()[1:-1]

    assert row("hidden") == ["hidden", "(Dense)", "\u2502", "(None,", "16)", "\u2502", "144"]
    assert row("drop") == ["drop", "(Dropout)", "\u2502", "(None,", "16)", "\u2502", "0"]
    assert row("scores") == ["scores", "(Dense)", "\u2502", "(None,", "3)", "\u2502", "51"]
    assert "Total params: 195" in text
    assert "Trainable params: 51" in text
    assert "Non-trainable params: 144" in text


def test_summary_prints_to_stdout_for_functional_model(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    model = _two_in_two_out(as_dict=False)
    model.summary()
    out = capsys.readouterr().out
    assert "numbers (InputLayer)" in out and "label (Dense)" in out
    assert "(None, 3)" in out
    total = 3 * 4 + 4 + 2 * 4 + 4 + 4 * 1 + 1 + 4 * 3 + 3
    assert f"Total params: {total:,}" in out


# ------------------------------------------------------------------ structure and config
def test_get_layer_by_name_and_index():
    model = _two_in_two_out(as_dict=False)
    assert model.get_layer("label").units == 3
    assert model.get_layer(index=-1) is model.layers[-1]
    assert model.get_layer(index=0).name == "numbers"
    with pytest.raises(ValueError, match=r"no layer named 'nope'.*label"):
        model.get_layer("nope")
    with pytest.raises(ValueError, match="no index 99"):
        model.get_layer(index=99)


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


def test_sequential_config_round_trip():
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="tanh"),
                               layers.Dropout(0.2), layers.Dense(2, activation="softmax")],
                              name="seq_cfg")
    config = model.get_config()
    assert config["name"] == "seq_cfg"
    assert [entry["class_name"] for entry in config["layers"]] == [
        "InputLayer", "Dense", "Dropout", "Dense"]
    rebuilt = lamina.Sequential.from_config(config)
    assert [type(layer) for layer in rebuilt.layers] == [type(layer) for layer in model.layers]
    assert [w.shape for w in rebuilt.weights] == [w.shape for w in model.weights]
    rebuilt.set_weights(model.get_weights())
    x = f32(rng(7).standard_normal((3, 4)))
    np.testing.assert_allclose(rebuilt.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)
    assert rebuilt.get_config() == config


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
    functional = _two_in_two_out(as_dict=False)
    functional_clone = lamina.models.clone_model(functional)
    assert [layer.name for layer in functional_clone.layers] == [
        layer.name for layer in functional.layers]
    sub = TwoLayerNet(units=5)
    sub.build((None, 2))
    sub_clone = lamina.models.clone_model(sub)
    assert type(sub_clone) is TwoLayerNet and sub_clone.units == 5
    assert [w.shape for w in sub_clone.weights] == [w.shape for w in sub.weights]


def test_a_layer_that_does_not_fit_leaves_the_sequential_model_unchanged():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    x = np.ones((2, 4), "float32")
    expected = model.predict(x, verbose=0)
    with pytest.raises(ValueError, match="conv2d"):
        model.add(layers.Conv2D(2, 3))
    assert [layer.name for layer in model.layers] == [model.layers[0].name]
    np.testing.assert_array_equal(model.predict(x, verbose=0), expected)


# ------------------------------------------------------------------ graph position (Keras 3)
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
    assert [len(layer._inbound_nodes) for layer in sequential.layers] == [1, 1, 1]
    assert (sequential.input_shape, sequential.output_shape) == ((None, 4), (None, 2))
    assert sequential.layers[1].input.shape == (None, 5)
    features = lamina.Model(inputs=sequential.inputs,
                            outputs=[layer.output for layer in sequential.layers])
    outputs = features.predict(x, verbose=0)
    np.testing.assert_allclose(outputs[-1], sequential.predict(x, verbose=0), rtol=1e-6)
    with pytest.raises(AttributeError, match="never been called"):
        layers.Dense(2).output


def test_variables_lists_of_layers_and_models():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2),
                               layers.BatchNormalization()])
    assert model.variables == model.weights and len(model.variables) == 6
    assert model.trainable_variables == model.trainable_weights
    assert [v.name for v in model.non_trainable_variables] == ["moving_mean",
                                                                "moving_variance"]


class _DictModel(lamina.Model):
    """A subclassed model reading its inputs by key (as Keras' guides write them)."""

    def __init__(self):
        super().__init__()
        self.a = layers.Dense(3, name="a_dense")
        self.b = layers.Dense(3, name="b_dense")
        self.head = layers.Dense(1)

    def call(self, inputs):
        return self.head(ops.concatenate([self.a(inputs["a"]), self.b(inputs["b"])], axis=-1))


def test_subclassed_model_fits_and_predicts_dict_inputs():
    data = rng(4)
    xa, xb = f32(data.normal(size=(16, 4))), f32(data.normal(size=(16, 2)))
    y = xa[:, :1] - xb[:, 1:]
    model = _DictModel()
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse")
    history = model.fit({"a": xa, "b": xb}, y, batch_size=8, epochs=20, verbose=0,
                        validation_split=0.25)
    assert history.history["loss"][-1] < history.history["loss"][0] / 2
    predicted = model.predict({"b": xb, "a": xa}, batch_size=5, verbose=0)
    np.testing.assert_allclose(predicted, model({"a": xa, "b": xb}).numpy(), rtol=1e-5)
    assert model.evaluate({"a": xa, "b": xb}, y, verbose=0) == pytest.approx(
        float(np.mean((predicted - y) ** 2)), rel=1e-4)
