"""Thread safety of training and inference: ``predict`` on several threads, ``predict``
on some threads while another fits, and the engine scopes of the scikit-learn wrappers."""

import threading

import numpy as np

import lamina
from lamina import layers
from lamina.backends import state
from lamina.highlevel.wrappers import default_networks as wrapper_defaults

THREADS = 8


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(96, 6)).astype("float32")
    y = (x[:, :1] + x[:, 1:2] > 0).astype("float32")
    return x, y


def _model():
    """A model using every piece of per-call state: recording, the epoch's generator
    (Dropout) and the penalties of the forward pass (an activity regularizer)."""
    lamina.utils.set_random_seed(3)
    model = lamina.Sequential([
        layers.Input((6,)),
        layers.Dense(16, activation="relu", activity_regularizer="l2"),
        layers.Dropout(0.3),
        layers.Dense(1, activation="sigmoid"),
    ])
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    return model


def _run_threads(targets):
    errors = []

    def guarded(target):
        def run():
            try:
                target()
            except BaseException as error:  # noqa: BLE001 - reported below
                errors.append(error)
        return run

    workers = [threading.Thread(target=guarded(t)) for t in targets]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert not errors, errors


def test_threads_predicting_on_one_model_give_the_serial_results():
    x, _ = _data()
    model = _model()
    serial = model.predict(x, batch_size=8, verbose=0)
    results = [None] * THREADS

    def predict(k):
        def run():
            for _ in range(10):
                results[k] = model.predict(x, batch_size=8, verbose=0)
        return run

    _run_threads([predict(k) for k in range(THREADS)])
    for result in results:
        np.testing.assert_array_equal(result, serial)


def _fit(model, x, y):
    history = model.fit(x, y, batch_size=8, epochs=4, verbose=0)
    return [w.copy() for w in model.get_weights()], history.history


def test_fit_while_other_threads_predict_is_bit_identical_to_a_serial_fit():
    x, y = _data()
    serial_weights, serial_history = _fit(_model(), x, y)

    model = _model()
    done = threading.Event()
    outcome = {}

    def fit():
        try:
            outcome["weights"], outcome["history"] = _fit(model, x, y)
        finally:
            done.set()

    def predict_until_done():
        while not done.is_set():
            model.predict(x[:8], batch_size=4, verbose=0)

    _run_threads([fit] + [predict_until_done] * 3)
    assert outcome["history"] == serial_history
    for trained, serial in zip(outcome["weights"], serial_weights):
        np.testing.assert_array_equal(trained, serial)


def test_a_wrappers_engine_scope_stays_in_its_thread():
    inside, release = threading.Event(), threading.Event()
    seen = {}

    def scoped_fit():
        with wrapper_defaults.engine_scope(11, floatx="float64"):
            seen["inside"] = (state.floatx(), state.seed())
            inside.set()
            release.wait(30)

    lamina.utils.set_random_seed(5)
    worker = threading.Thread(target=scoped_fit)
    worker.start()
    try:
        assert inside.wait(30)
        seen["outside"] = (state.floatx(), state.seed())
    finally:
        release.set()
        worker.join(30)
    assert seen == {"inside": ("float64", 11), "outside": ("float32", 5)}
    assert (state.floatx(), state.seed()) == ("float32", 5)
