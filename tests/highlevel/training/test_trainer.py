"""Training (issue #3): compile, fit and its arguments, the accepted input kinds, evaluate,
predict, the per-batch methods, History keys and lamina.utils.to_categorical."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backends import autodiff


def rng(seed=0):
    return np.random.default_rng(seed)


def f32(a):
    return np.asarray(a, dtype="float32")


def linear_model(features=3, outputs=1, name=None):
    """A single Dense layer with known weights: kernel ones * 0.5, bias 0."""
    model = lamina.Sequential([lamina.Input((features,)),
                               layers.Dense(outputs, kernel_initializer="ones")], name=name)
    model.set_weights([np.full((features, outputs), 0.5, dtype="float32"),
                       np.zeros(outputs, dtype="float32")])
    return model


def classifier(features=4, classes=3, hidden=16):
    return lamina.Sequential([lamina.Input((features,)),
                              layers.Dense(hidden, activation="relu"),
                              layers.Dense(classes, activation="softmax")])


def blobs(n=150, features=4, classes=3, seed=0):
    """Well separated Gaussian blobs (a task a small MLP solves exactly)."""
    r = rng(seed)
    centres = r.standard_normal((classes, features)) * 4
    labels = np.arange(n) % classes
    x = centres[labels] + r.standard_normal((n, features)) * 0.5
    return f32(x), labels.astype("int64")


class Recorder(lamina.callbacks.Callback):
    """Records every hook call with its logs."""

    def __init__(self):
        super().__init__()
        self.events = []

    def on_train_begin(self, logs=None):
        self.events.append(("train_begin", None))

    def on_epoch_begin(self, epoch, logs=None):
        self.events.append(("epoch_begin", epoch))

    def on_train_batch_end(self, batch, logs=None):
        self.events.append(("batch_end", batch, dict(logs or {})))

    def on_epoch_end(self, epoch, logs=None):
        self.events.append(("epoch_end", epoch, dict(logs or {})))

    def on_train_end(self, logs=None):
        self.events.append(("train_end", None))

    def batches(self):
        return [e for e in self.events if e[0] == "batch_end"]


class BatchLog(layers.Layer):
    """Identity layer that records the first feature of every row it sees in training."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []
        self.sizes = []
        self.recording = []

    def call(self, inputs, training=None):
        if training:
            self.seen.append(np.asarray(inputs.numpy()[:, 0]).copy())
        self.sizes.append(inputs.shape[0])
        self.recording.append(autodiff.is_recording())
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


# ------------------------------------------------------------------ compile
def test_compile_accepts_strings_and_objects():
    model = classifier()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    assert isinstance(model.optimizer, lamina.optimizers.Adam)
    optimizer = lamina.optimizers.SGD(learning_rate=0.05, momentum=0.9)
    model.compile(optimizer=optimizer, loss=lamina.losses.SparseCategoricalCrossentropy(),
                  metrics=[lamina.metrics.SparseCategoricalAccuracy()])
    assert model.optimizer is optimizer
    x, y = blobs()
    history = model.fit(x, y, epochs=2, batch_size=32, verbose=0)
    assert set(history.history) == {"loss", "sparse_categorical_accuracy"}


def test_compile_with_loss_function_callable():
    def half_mse(y_true, y_pred):
        return ops.mean(ops.square(y_pred - y_true), axis=-1) * 0.5

    model = linear_model()
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss=half_mse)
    x = f32([[1, 2, 3], [0, 0, 2]])
    y = f32([[1], [3]])
    pred = x.sum(1, keepdims=True) * 0.5
    assert model.evaluate(x, y, verbose=0) == pytest.approx(0.5 * np.mean((pred - y) ** 2))


def test_recompiling_resets_optimizer_and_metrics():
    model = linear_model()
    x, y = f32(np.ones((4, 3))), f32(np.ones((4, 1)))
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    model.fit(x, y, verbose=0)
    model.compile(optimizer="adam", loss="mae")
    assert isinstance(model.optimizer, lamina.optimizers.Adam)
    assert model.evaluate(x, y, verbose=0, return_dict=True).keys() == {"loss"}


# ------------------------------------------------------------------ fit
def test_fit_learns_classification_task_and_history_matches_keras():
    lamina.utils.set_random_seed(0)
    x, y = blobs()
    model = classifier()
    model.compile(optimizer=lamina.optimizers.Adam(0.02),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, batch_size=16, epochs=15, validation_split=0.2, verbose=0)
    assert isinstance(history, lamina.callbacks.History) and history is model.history
    assert list(history.history) == ["loss", "accuracy", "val_loss", "val_accuracy"]
    assert history.epoch == list(range(15))
    assert all(len(v) == 15 for v in history.history.values())
    assert history.history["accuracy"][-1] == 1.0
    assert history.history["val_accuracy"][-1] == 1.0
    assert history.history["loss"][-1] < 0.2 * history.history["loss"][0]
    assert history.params["epochs"] == 15 and history.params["steps"] == 8


def test_fit_batch_size_epochs_and_callbacks():
    model = linear_model()
    model.compile(optimizer="sgd", loss="mse")
    recorder = Recorder()
    x, y = f32(rng().standard_normal((50, 3))), f32(np.zeros((50, 1)))
    model.fit(x, y, batch_size=16, epochs=3, verbose=0, callbacks=[recorder])
    kinds = [e[0] for e in recorder.events]
    assert kinds[0] == "train_begin" and kinds[-1] == "train_end"
    assert kinds.count("epoch_begin") == 3 and kinds.count("epoch_end") == 3
    assert len(recorder.batches()) == 3 * 4  # ceil(50 / 16) steps per epoch
    assert [e[1] for e in recorder.batches()][:4] == [0, 1, 2, 3]
    assert all(set(e[2]) == {"loss"} for e in recorder.batches())
    assert model.optimizer.iterations == 12
    # default batch size is 32
    model.fit(x, y, epochs=1, verbose=0, callbacks=[recorder])
    assert model.optimizer.iterations == 14


def test_fit_loss_is_sample_weighted_running_average_of_batches():
    model = linear_model()
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    x = f32(np.arange(15).reshape(5, 3))
    y = f32(np.zeros((5, 1)))
    history = model.fit(x, y, batch_size=2, epochs=1, verbose=0, shuffle=False)
    per_sample = (x.sum(1) * 0.5) ** 2
    assert history.history["loss"][0] == pytest.approx(per_sample.mean(), rel=1e-6)


def test_fit_verbose_modes(capsys):
    model = linear_model()
    model.compile(optimizer="sgd", loss="mse")
    x, y = f32(np.ones((8, 3))), f32(np.ones((8, 1)))
    model.fit(x, y, epochs=2, verbose=0)
    assert capsys.readouterr().out == ""
    model.fit(x, y, epochs=2, verbose=2)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out
    assert out.count("loss:") == 2


def test_validation_split_holds_out_the_last_samples():
    model = linear_model()
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    x = f32(rng(1).standard_normal((20, 3)))
    y = f32(rng(2).standard_normal((20, 1)))
    recorder = BatchLog()
    probe = lamina.Sequential([lamina.Input((3,)), recorder, model])
    probe.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    history = probe.fit(x, y, epochs=1, batch_size=32, validation_split=0.25, verbose=0,
                        shuffle=False)
    np.testing.assert_array_equal(np.concatenate(recorder.seen), x[:15, 0])
    assert history.history["val_loss"][0] == pytest.approx(
        probe.evaluate(x[15:], y[15:], verbose=0), rel=1e-6)
    assert history.history["loss"][0] == pytest.approx(
        probe.evaluate(x[:15], y[:15], verbose=0), rel=1e-6)


def test_validation_data_with_and_without_sample_weight():
    model = linear_model()
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse", metrics=["mae"])
    x, y = f32(rng(3).standard_normal((12, 3))), f32(rng(4).standard_normal((12, 1)))
    vx, vy = f32(rng(5).standard_normal((6, 3))), f32(rng(6).standard_normal((6, 1)))
    history = model.fit(x, y, epochs=2, verbose=0, validation_data=(vx, vy))
    assert list(history.history) == ["loss", "mae", "val_loss", "val_mae"]
    pred = vx.sum(1, keepdims=True) * 0.5
    assert history.history["val_loss"][-1] == pytest.approx(np.mean((pred - vy) ** 2),
                                                            rel=1e-5)
    assert history.history["val_mae"][-1] == pytest.approx(np.mean(np.abs(pred - vy)),
                                                           rel=1e-5)
    weights = f32([1, 0, 0, 0, 0, 1])
    weighted = model.fit(x, y, epochs=1, verbose=0, validation_data=(vx, vy, weights))
    errors = ((pred - vy) ** 2)[:, 0]
    assert weighted.history["val_loss"][0] == pytest.approx((errors * weights).sum() / 6,
                                                            rel=1e-5)


def test_shuffle_false_keeps_order_and_shuffle_true_permutes_each_epoch():
    x = f32(np.arange(40).repeat(2).reshape(40, 2))
    y = f32(np.zeros((40, 1)))
    log = BatchLog()
    model = lamina.Sequential([lamina.Input((2,)), log, layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, batch_size=10, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_array_equal(np.concatenate(log.seen), np.tile(np.arange(40), 2))
    log.seen.clear()
    model.fit(x, y, batch_size=10, epochs=2, shuffle=True, verbose=0)
    first, second = np.concatenate(log.seen[:4]), np.concatenate(log.seen[4:])
    assert sorted(first) == list(range(40)) and sorted(second) == list(range(40))
    assert not np.array_equal(first, np.arange(40))
    assert not np.array_equal(first, second)


def test_class_weight_equals_matching_sample_weight():
    x, y = blobs(n=60)
    results = []
    for kwargs in ({"class_weight": {0: 1.0, 1: 3.0, 2: 0.5}},
                   {"sample_weight": np.array([1.0, 3.0, 0.5])[y]}):
        lamina.utils.set_random_seed(0)
        model = classifier()
        model.compile(optimizer=lamina.optimizers.SGD(0.1),
                      loss="sparse_categorical_crossentropy")
        history = model.fit(x, y, batch_size=20, epochs=2, verbose=0, shuffle=False, **kwargs)
        results.append((history.history["loss"], model.get_weights()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_sample_weight_scales_the_loss_and_zero_weight_ignores_samples():
    model = linear_model()
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    x = f32([[1, 1, 1], [2, 2, 2], [0, 0, 4], [1, 0, 0]])
    y = f32([[0], [0], [0], [10]])
    weights = f32([2.0, 1.0, 0.0, 0.0])
    errors = ((x.sum(1) * 0.5 - y[:, 0]) ** 2)
    expected = (errors * weights).sum() / 4  # Keras' sum_over_batch_size
    assert model.test_on_batch(x, y, sample_weight=weights) == pytest.approx(expected)
    assert model.evaluate(x, y, sample_weight=weights, verbose=0) == pytest.approx(expected)
    history = model.fit(x, y, sample_weight=weights, batch_size=4, epochs=1, verbose=0)
    assert history.history["loss"][0] == pytest.approx(expected)
    # with lr > 0, samples of weight 0 do not move the weights at all
    lamina.utils.set_random_seed(0)
    trained = linear_model()
    trained.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    trained.fit(x[2:], y[2:], sample_weight=np.zeros(2), epochs=3, verbose=0)
    np.testing.assert_array_equal(trained.get_weights()[0], np.full((3, 1), 0.5))


def test_initial_epoch_and_steps_per_epoch():
    model = linear_model()
    model.compile(optimizer="sgd", loss="mse")
    x, y = f32(np.ones((64, 3))), f32(np.ones((64, 1)))
    recorder = Recorder()
    history = model.fit(x, y, epochs=5, initial_epoch=3, batch_size=8, verbose=0,
                        callbacks=[recorder])
    assert history.epoch == [3, 4]
    assert [e[1] for e in recorder.events if e[0] == "epoch_begin"] == [3, 4]
    assert model.optimizer.iterations == 2 * 8
    history = model.fit(x, y, epochs=3, steps_per_epoch=2, batch_size=8, verbose=0)
    assert model.optimizer.iterations == 16 + 3 * 2
    assert len(history.history["loss"]) == 3


# ------------------------------------------------------------------ input kinds
def test_inputs_as_list_and_dict_of_arrays():
    lamina.utils.set_random_seed(0)
    a, b = lamina.Input((2,), name="a"), lamina.Input((3,), name="b")
    joined = layers.Lambda(lambda t: ops.concatenate(t, axis=-1))([a, b])
    model = lamina.Model([a, b], layers.Dense(1, name="out")(joined))
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    r = rng(7)
    xa, xb, y = f32(r.standard_normal((10, 2))), f32(r.standard_normal((10, 3))), \
        f32(r.standard_normal((10, 1)))
    kernel, bias = model.get_layer("out").get_weights()
    expected = np.mean((np.concatenate([xa, xb], 1) @ kernel + bias - y) ** 2)
    assert model.evaluate([xa, xb], y, verbose=0) == pytest.approx(expected, rel=1e-5)
    assert model.evaluate({"a": xa, "b": xb}, y, verbose=0) == pytest.approx(expected,
                                                                              rel=1e-5)
    assert model.evaluate((xa, xb), [y], verbose=0) == pytest.approx(expected, rel=1e-5)
    history = model.fit({"a": xa, "b": xb}, {"out": y}, epochs=1, verbose=0)
    assert history.history["loss"][0] == pytest.approx(expected, rel=1e-5)
    np.testing.assert_allclose(model.predict({"b": xb, "a": xa}, verbose=0),
                               model.predict([xa, xb], verbose=0))
    # a single output may be named in compile() and in y, as in Keras
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss={"out": "mse"},
                  metrics={"out": ["mae"]})
    logs = model.evaluate([xa, xb], {"out": y}, verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(expected, rel=1e-5) and set(logs) == {"loss", "mae"}


def test_python_generator_input():
    lamina.utils.set_random_seed(0)
    x, y = blobs(n=96)

    def batches():
        while True:
            for start in range(0, 96, 24):
                yield x[start:start + 24], y[start:start + 24]

    model = classifier()
    model.compile(optimizer=lamina.optimizers.Adam(0.02),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(batches(), epochs=10, steps_per_epoch=4, verbose=0,
                        validation_data=(x, y))
    assert model.optimizer.iterations == 40
    assert history.history["val_accuracy"][-1] == 1.0
    loss, accuracy = model.evaluate(batches(), steps=4, verbose=0)
    assert accuracy == 1.0
    reference = model.evaluate(x, y, batch_size=24, verbose=0)
    assert loss == pytest.approx(reference[0], rel=1e-5)
    predictions = model.predict((xb for xb, _ in batches()), steps=2, verbose=0)
    assert predictions.shape == (48, 3)
    with pytest.raises(ValueError, match="y must be None"):
        model.fit(batches(), y, steps_per_epoch=1, verbose=0)


class ArraySequence:
    """A Keras Sequence / PyDataset-like object: __len__ + __getitem__ (+ on_epoch_end)."""

    def __init__(self, x, y, batch_size, weights=None):
        self.x, self.y, self.batch_size, self.weights = x, y, batch_size, weights
        self.epochs_ended = 0

    def __len__(self):
        return -(-len(self.x) // self.batch_size)

    def __getitem__(self, index):
        rows = slice(index * self.batch_size, (index + 1) * self.batch_size)
        if self.weights is not None:
            return self.x[rows], self.y[rows], self.weights[rows]
        return self.x[rows], self.y[rows]

    def on_epoch_end(self):
        self.epochs_ended += 1


def test_sequence_like_input_for_fit_evaluate_predict():
    lamina.utils.set_random_seed(0)
    x, y = blobs(n=90)
    train = ArraySequence(x, y, 16)
    model = classifier()
    model.compile(optimizer=lamina.optimizers.Adam(0.02),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(train, epochs=10, verbose=0, validation_data=ArraySequence(x, y, 45))
    assert train.epochs_ended == 10
    assert model.optimizer.iterations == 10 * 6
    assert history.history["accuracy"][-1] == 1.0 and history.history["val_accuracy"][-1] == 1
    logs = model.evaluate(ArraySequence(x, y, 30), verbose=0, return_dict=True)
    assert logs["accuracy"] == 1.0
    assert logs["loss"] == pytest.approx(model.evaluate(x, y, batch_size=30, verbose=0)[0],
                                         rel=1e-5)

    class XOnly(ArraySequence):
        def __getitem__(self, index):
            return self.x[index * self.batch_size:(index + 1) * self.batch_size]

    np.testing.assert_allclose(model.predict(XOnly(x, None, 40), verbose=0),
                               model.predict(x, verbose=0), rtol=1e-6, atol=1e-7)
    weighted = ArraySequence(x, y, 90, weights=np.where(y == 0, 1.0, 0.0))
    zero_weight = model.evaluate(weighted, verbose=0, return_dict=True)["loss"]
    per_class = model.evaluate(x[y == 0], y[y == 0], batch_size=90, verbose=0)[0]
    assert zero_weight == pytest.approx(per_class * np.mean(y == 0), rel=1e-5)


# ------------------------------------------------------------------ evaluate / predict
def test_evaluate_return_forms():
    model = linear_model()
    x, y = f32(np.ones((6, 3))), f32(np.zeros((6, 1)))
    model.compile(optimizer="sgd", loss="mse")
    assert model.evaluate(x, y, verbose=0) == pytest.approx(1.5 ** 2)
    assert isinstance(model.evaluate(x, y, verbose=0), float)
    model.compile(optimizer="sgd", loss="mse", metrics=["mae", "mse"])
    assert model.evaluate(x, y, verbose=0) == pytest.approx([2.25, 1.5, 2.25])
    assert model.evaluate(x, y, verbose=0, return_dict=True) == pytest.approx(
        {"loss": 2.25, "mae": 1.5, "mse": 2.25})
    assert model.metrics_names == ["loss", "mae", "mse"]


def test_evaluate_averages_over_uneven_batches():
    model = linear_model()
    model.compile(optimizer="sgd", loss="mae")
    x = f32(np.arange(21).reshape(7, 3))
    y = f32(np.zeros((7, 1)))
    expected = np.mean(np.abs(x.sum(1) * 0.5))
    for batch_size in (1, 3, 4, 7, 100):
        assert model.evaluate(x, y, batch_size=batch_size, verbose=0) == pytest.approx(
            expected, rel=1e-6)


def test_predict_numpy_batched_without_recording_gradients():
    log = BatchLog()
    model = lamina.Sequential([lamina.Input((3,)), log, layers.Dense(2)])
    x = f32(rng(8).standard_normal((70, 3)))
    out = model.predict(x, batch_size=32, verbose=0)
    assert type(out) is np.ndarray and out.dtype == np.float32 and out.shape == (70, 2)
    assert log.sizes == [32, 32, 6]
    assert log.recording == [False, False, False]
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(out, x @ kernel + bias, rtol=1e-5, atol=1e-6)
    log.sizes.clear()
    model.predict(x, verbose=0)
    assert log.sizes == [32, 32, 6]  # default batch size 32
    # a training call records a graph; predict never does
    log.recording.clear()
    model(x, training=True)
    assert log.recording == [True]


def test_predict_multi_output_returns_list_of_arrays():
    inputs = lamina.Input((2,))
    model = lamina.Model(inputs, [layers.Dense(1)(inputs), layers.Dense(4)(inputs)])
    outs = model.predict(np.ones((5, 2)), verbose=0)
    assert isinstance(outs, list) and [o.shape for o in outs] == [(5, 1), (5, 4)]
    assert all(type(o) is np.ndarray for o in outs)


def test_per_batch_methods():
    model = linear_model()
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    x = f32([[1, 0, 0], [0, 2, 0]])
    y = f32([[0], [0]])
    loss, mae = model.test_on_batch(x, y)
    assert loss == pytest.approx((0.25 + 1.0) / 2) and mae == pytest.approx(0.75)
    assert model.test_on_batch(x, y, return_dict=True) == pytest.approx(
        {"loss": 0.625, "mae": 0.75})
    # test_on_batch does not change the weights
    np.testing.assert_array_equal(model.get_weights()[0], np.full((3, 1), 0.5))
    # train_on_batch returns the loss before the update and applies exactly one SGD step
    assert model.train_on_batch(x, y)[0] == pytest.approx(0.625)
    grad_kernel = (2 / 2) * x.T @ (x.sum(1, keepdims=True) * 0.5 - y)
    np.testing.assert_allclose(model.get_weights()[0], 0.5 - 0.1 * grad_kernel, rtol=1e-6)
    assert model.optimizer.iterations == 1
    out = model.predict_on_batch(x)
    assert type(out) is np.ndarray
    np.testing.assert_allclose(out, x @ model.get_weights()[0] + model.get_weights()[1])


def test_predict_on_batch_prints_nothing(capsys):
    # Keras' predict_on_batch runs the step without a progress bar
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(1)])
    capsys.readouterr()
    model.predict_on_batch(np.ones((2, 3), "float32"))
    assert capsys.readouterr().out == ""


# ------------------------------------------------------------------ multi-output history
def test_multi_output_history_keys_follow_keras():
    lamina.utils.set_random_seed(0)
    inputs = lamina.Input((4,))
    hidden = layers.Dense(8, activation="relu")(inputs)
    model = lamina.Model(inputs, [layers.Dense(1, name="price")(hidden),
                                  layers.Dense(2, activation="softmax", name="kind")(hidden)])
    model.compile(optimizer="adam", loss=["mse", "sparse_categorical_crossentropy"],
                  metrics=[["mae"], ["accuracy"]], loss_weights=[2.0, 1.0])
    x = f32(rng(9).standard_normal((40, 4)))
    price, kind = f32(x[:, :1] * 2), (x[:, 1] > 0).astype("int64")
    history = model.fit(x, [price, kind], epochs=2, batch_size=8, verbose=0,
                        validation_split=0.25)
    assert list(history.history) == [
        "loss", "price_loss", "kind_loss", "price_mae", "kind_accuracy",
        "val_loss", "val_price_loss", "val_kind_loss", "val_price_mae", "val_kind_accuracy"]
    logs = model.evaluate(x, [price, kind], verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(2 * logs["price_loss"] + logs["kind_loss"], rel=1e-5)
    values = model.evaluate(x, [price, kind], verbose=0)
    assert values == pytest.approx(list(logs.values()))


# ------------------------------------------------------------------ utils
def test_to_categorical():
    out = lamina.utils.to_categorical([0, 2, 1, 2])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1]])
    assert lamina.utils.to_categorical([1, 0], num_classes=5).shape == (2, 5)
    column = lamina.utils.to_categorical(np.array([[1], [0]]))
    np.testing.assert_array_equal(column, [[0, 1], [1, 0]])
    grid = lamina.utils.to_categorical(np.array([[0, 1], [1, 1]]), num_classes=2)
    assert grid.shape == (2, 2, 2) and grid[0, 0].tolist() == [1, 0]
    with pytest.raises(ValueError, match="out of range"):
        lamina.utils.to_categorical([0, 3], num_classes=3)
    with pytest.raises(ValueError, match="negative"):
        lamina.utils.to_categorical([-1, 0])


def test_to_categorical_targets_train_with_categorical_crossentropy():
    lamina.utils.set_random_seed(0)
    x, y = blobs()
    model = classifier()
    model.compile(optimizer=lamina.optimizers.Adam(0.02), loss="categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x, lamina.utils.to_categorical(y), epochs=15, batch_size=16, verbose=0)
    assert model.evaluate(x, lamina.utils.to_categorical(y), verbose=0)[1] == 1.0


class _LogisticEndpoint(layers.Layer):
    """keras.io's endpoint layer: add_loss plus a Metric attribute updated in call."""

    def __init__(self, name=None):
        super().__init__(name=name)
        self.loss_fn = lamina.losses.BinaryCrossentropy(from_logits=True)
        self.accuracy_metric = lamina.metrics.BinaryAccuracy(name="accuracy")

    def call(self, logits, targets=None, sample_weight=None):
        if targets is not None:
            self.add_loss(self.loss_fn(targets, logits, sample_weight))
            self.accuracy_metric.update_state(targets, logits, sample_weight)
        return ops.sigmoid(logits)


def test_metrics_held_by_layers_are_model_metrics():
    # Reference: Keras 3.15.1 (torch) on the same model and data.
    x = np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)
    t = np.array([[1], [0], [1], [1], [0], [0], [1], [0]], dtype="float32")
    inputs, targets = lamina.Input((3,), name="inputs"), lamina.Input((1,), name="targets")
    logits = layers.Dense(1, kernel_initializer="ones")(inputs)
    model = lamina.Model([inputs, targets], _LogisticEndpoint()(logits, targets))
    model.compile("sgd")
    assert [m.name for m in model.metrics] == ["loss", "accuracy"]
    data = {"inputs": x, "targets": t}
    for _ in range(2):   # reset between runs
        result = model.evaluate(data, verbose=0, return_dict=True)
        assert result["accuracy"] == pytest.approx(0.375)
        assert result["loss"] == pytest.approx(1.3212696, rel=1e-5)
    history = model.fit(data, epochs=1, verbose=0, batch_size=8).history
    assert history["accuracy"] == [pytest.approx(0.375)]


def test_metrics_of_nested_models_are_not_model_metrics():
    # Keras 3: Outer.metrics -> ['loss', 'tracker'] (the compiled inner model's left out).
    inner = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    inner.compile("sgd", "mse", metrics=["mae"])

    class Outer(lamina.Model):
        def __init__(self):
            super().__init__()
            self.inner = inner
            self.tracker = lamina.metrics.Mean(name="tracker")

        def call(self, x):
            return self.inner(x)

    outer = Outer()
    outer.compile("sgd", "mse")
    outer.evaluate(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
    assert [m.name for m in outer.metrics] == ["loss", "tracker"]


def test_a_metric_made_after_the_first_look_is_found():
    # model.metrics walks the layers again only after a new metric was made in the process
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    assert [m.name for m in model.metrics] == ["loss"]
    model.layers[0].tracker = lamina.metrics.Mean(name="tracker")
    assert [m.name for m in model.metrics] == ["loss", "tracker"]
    assert model.metrics[1] is model.layers[0].tracker
