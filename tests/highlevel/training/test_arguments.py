"""The scalar arguments of fit/evaluate/predict (issue #12): a value that used to be a
silent no-op (or silently replaced by a default) raises ValueError naming the argument and
what was received, before any weight is updated or any callback is called; and the caps of
``lamina.config.set_max_epochs`` / ``set_max_steps_per_epoch``."""

import warnings

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.highlevel.training.arguments import check_validation_freq

X = np.linspace(0, 1, 40, dtype="float32").reshape(10, 4)
Y = np.arange(10) % 3


class Calls(lamina.callbacks.Callback):
    """Records the first hook of each loop."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def on_train_begin(self, logs=None):
        self.calls.append("train_begin")

    def on_epoch_begin(self, epoch, logs=None):
        self.calls.append("epoch_begin")

    def on_test_begin(self, logs=None):
        self.calls.append("test_begin")

    def on_predict_begin(self, logs=None):
        self.calls.append("predict_begin")


def classifier():
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


FIT_CASES = [
    ({"batch_size": 0}, r"`batch_size` must be a positive integer or None. Received: "
                        r"batch_size=0 of type int"),
    ({"batch_size": -4}, r"batch_size=-4 of type int"),
    ({"batch_size": 2.5}, r"batch_size=2.5 of type float"),
    ({"batch_size": "32"}, r"batch_size='32' of type str"),
    ({"batch_size": True}, r"batch_size=True of type bool"),
    ({"epochs": 2.5}, r"`epochs` must be an integer >= 0. Received: epochs=2.5 of type float"),
    ({"epochs": -1}, r"epochs=-1"),
    ({"initial_epoch": 0.5}, r"`initial_epoch` must be an integer >= 0"),
    ({"steps_per_epoch": -1}, r"`steps_per_epoch` must be a positive integer or None. "
                              r"Received: steps_per_epoch=-1"),
    ({"steps_per_epoch": 0}, r"steps_per_epoch=0"),
    ({"validation_steps": 0, "validation_split": 0.2}, r"validation_steps=0"),
    ({"validation_batch_size": 0, "validation_split": 0.2}, r"validation_batch_size=0"),
    ({"validation_freq": 0, "validation_split": 0.2},
     r"`validation_freq` must be a positive integer. Received: validation_freq=0"),
    ({"validation_freq": 1.5}, r"validation_freq=1.5"),
    ({"validation_freq": [1, 0]}, r"1-based epoch numbers .* validation_freq=\[1, 0\]"),
    ({"verbose": 3}, r"`verbose` must be one of \(0, 1, 2, 'auto'\). Received: verbose=3 "
                     r"of type int"),
    ({"verbose": "loud"}, r"verbose='loud' of type str"),
    ({"verbose": 1.0}, r"verbose=1.0 of type float"),
]


@pytest.mark.parametrize("kwargs, message", FIT_CASES, ids=lambda v: str(v)[:40])
def test_bad_fit_argument_raises_before_any_state_changes(kwargs, message):
    model = classifier()
    before = model.get_weights()
    calls = Calls()
    kwargs = {"verbose": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        model.fit(X, Y, callbacks=[calls], **kwargs)
    assert calls.calls == []
    assert int(model.optimizer.iterations) == 0
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("method", ["evaluate", "predict"])
@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, r"`batch_size` must be a positive integer or None. Received: "
                        r"batch_size=0"),
    ({"batch_size": 1.5}, r"batch_size=1.5 of type float"),
    ({"steps": -2}, r"`steps` must be a positive integer or None. Received: steps=-2"),
    ({"verbose": 5}, r"`verbose` must be one of .* Received: verbose=5"),
], ids=str)
def test_bad_evaluate_and_predict_arguments(method, kwargs, message):
    model = classifier()
    calls = Calls()
    args = (X, Y) if method == "evaluate" else (X,)
    with pytest.raises(ValueError, match=message):
        getattr(model, method)(*args, callbacks=[calls], **{"verbose": 0, **kwargs})
    assert calls.calls == []


@pytest.mark.parametrize("verbose", [0, 1, 2, "auto", True, np.int64(2)])
def test_every_accepted_verbose_value_trains(verbose, capsys):
    model = classifier()
    history = model.fit(X, Y, epochs=1, verbose=verbose)
    assert len(history.history["loss"]) == 1
    assert np.isfinite(model.evaluate(X, Y, verbose=verbose))
    assert model.predict(X, verbose=verbose).shape == (10, 3)


def test_integer_like_counts_are_accepted():
    model = classifier()
    history = model.fit(X, Y, batch_size=np.int64(4), epochs=np.int32(2),
                        steps_per_epoch=np.int64(2), verbose=0)
    assert len(history.history["loss"]) == 2
    assert int(model.optimizer.iterations) == 4


def test_validation_freq_as_int_and_as_list_of_epochs():
    assert [e for e in range(6) if check_validation_freq(2)(e)] == [1, 3, 5]
    assert [e for e in range(6) if check_validation_freq([1, 4])(e)] == [0, 3]
    model = classifier()
    history = model.fit(X, Y, epochs=4, validation_data=(X, Y), validation_freq=[2, 3],
                        verbose=0)
    assert len(history.history["val_loss"]) == 2
    assert len(history.history["loss"]) == 4


@pytest.fixture
def caps():
    """``lamina.config.set_max_epochs(2)`` and ``set_max_steps_per_epoch(3)``, undone after."""
    lamina.config.set_max_epochs(2)
    lamina.config.set_max_steps_per_epoch(3)
    yield
    lamina.config.set_max_epochs(None)
    lamina.config.set_max_steps_per_epoch(None)


class StepCounter(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.epochs, self.train, self.test, self.predict = 0, 0, 0, 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epochs += 1

    def on_train_batch_begin(self, batch, logs=None):
        self.train += 1

    def on_test_batch_begin(self, batch, logs=None):
        self.test += 1

    def on_predict_batch_begin(self, batch, logs=None):
        self.predict += 1


def test_max_epochs_and_max_steps_per_epoch_cap_fit_evaluate_predict(caps):
    # Keras 3's trainer test: epochs=3 over 8 batches gives 2 epochs of 3 steps
    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.ones((32, 2), "float32"), np.ones((32, 1), "float32")
    counter = StepCounter()
    with pytest.warns(UserWarning) as caught:
        history = model.fit(x, y, batch_size=4, epochs=3, verbose=0, callbacks=[counter])
    assert {str(w.message) for w in caught} == {"Limiting epochs to 2",
                                                "Limiting steps_per_epoch to 3"}
    assert (counter.epochs, counter.train, len(history.history["loss"])) == (2, 6, 2)
    with pytest.warns(UserWarning, match="Limiting steps_per_epoch to 3"):
        model.fit(x, y, batch_size=4, epochs=1, validation_data=(x, y), verbose=0,
                  callbacks=[counter])
    assert counter.test == 3
    with pytest.warns(UserWarning, match="Limiting steps_per_epoch to 3"):
        model.evaluate(x, y, batch_size=4, verbose=0, callbacks=[counter])
    with pytest.warns(UserWarning, match="Limiting steps_per_epoch to 3"):
        predictions = model.predict(x, batch_size=4, verbose=0, callbacks=[counter])
    assert (counter.test, counter.predict, len(predictions)) == (6, 3, 12)


def test_caps_above_the_request_change_nothing(caps):
    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    model.compile("sgd", "mse")
    counter = StepCounter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), batch_size=2,
                  epochs=1, steps_per_epoch=2, verbose=0, callbacks=[counter])
    assert (counter.epochs, counter.train) == (1, 2)
