"""Model: subclassed models with a custom call, custom train_step / test_step, and
get_layer."""

import numpy as np
import pytest

import lamina
from harness.models import TwoLayerNet, f32, rng, two_in_two_out
from lamina import layers, ops


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


def test_get_layer_by_name_and_index():
    model = two_in_two_out(as_dict=False)
    assert model.get_layer("label").units == 3
    assert model.get_layer(index=-1) is model.layers[-1]
    assert model.get_layer(index=0).name == "numbers"
    with pytest.raises(ValueError, match=r"no layer named 'nope'.*label"):
        model.get_layer("nope")
    with pytest.raises(ValueError, match="no index 99"):
        model.get_layer(index=99)


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
