"""DataParallel in one process (``thread_replicas``): each training batch split over the
engine's threads trains to the plain step's weights and logs its losses and metrics
(float64 to 1e-12, float32 to 1e-5) -- with Dropout/GaussianNoise and RandomFlip (one
draw for the whole batch), the reductions ``"sum"`` and ``"mean_with_sample_weight"``, a
kernel regularizer, a mask whose valid timesteps differ between the shares, and uneven
shares. Models with non-trainable weights and custom ``train_step`` s run plainly; an
error in one share is the one raised, and no weight changes. After a probe the kind of
step that ran faster is the one that runs (``split_choice``), with the same weights."""

import time

import numpy as np
import pytest

import distributed_worker as worker        # tests/highlevel/support (conftest)
import lamina
from lamina import distribution, layers
from lamina.backends import replica, state
from lamina.backends.numpy import threads as batch_threads
from lamina.highlevel.distribution import split_choice, thread_replicas

MEAN = "sum_over_batch_size"
SPLIT = [("mlp", "float64", 27, MEAN), ("mlp", "float32", 32, MEAN),
         ("dropout", "float64", 27, MEAN), ("noise", "float32", 25, MEAN),
         ("mlp", "float64", 27, "sum"), ("mlp", "float64", 27, "mean_with_sample_weight"),
         ("regularized", "float64", 27, MEAN), ("masked", "float64", 27, MEAN),
         ("masked", "float64", 27, "mean_with_sample_weight"), ("flip", "float64", 27, MEAN)]
PLAIN = [("syncbn", "float64", 27, MEAN), ("custom", "float64", 27, MEAN)]


@pytest.fixture
def two_threads(engine, monkeypatch):
    """The NumPy engine offers two threads whatever the machine's BLAS; returns a list
    that counts the steps that ran split."""
    monkeypatch.setattr(batch_threads, "thread_count", lambda: 2)
    splits = []
    backend_type = type(state.backend())
    run_replicas = backend_type.run_replicas
    monkeypatch.setattr(backend_type, "run_replicas", lambda self, work, count: splits.append(
        count) or run_replicas(self, work, count))
    return splits


def _train(kind, dtype, batch, reduction, split):
    lamina.utils.set_random_seed(0)
    x, y, weights = worker.sequences() if kind == "masked" else worker.data(
        features=16 if kind == "flip" else 8)
    if kind != "masked":
        x = x.astype(dtype).reshape((-1, 4, 4, 1) if kind == "flip" else (-1, 8))
    model = worker.build(kind, reduction=reduction)
    distribution.set_distribution(distribution.DataParallel() if split else None)
    try:
        history = model.fit(x[:80], y[:80], sample_weight=weights[:80], batch_size=batch,
                            epochs=2, verbose=0)
    finally:
        distribution.set_distribution(None)
    return model.get_weights(), history.history


@pytest.mark.parametrize("kind,dtype,batch,reduction", SPLIT + PLAIN)
def test_a_split_step_trains_to_the_plain_step_s_weights(two_threads, kind, dtype, batch,
                                                         reduction):
    with state.scoped(floatx=dtype):
        plain_weights, plain_logs = _train(kind, dtype, batch, reduction, split=False)
        assert not two_threads
        weights, logs = _train(kind, dtype, batch, reduction, split=True)
    splits = bool(two_threads)
    assert splits == ((kind, dtype, batch, reduction) in SPLIT
                      and state.backend().name == "numpy")
    tolerance = (1e-12 if dtype == "float64" else 1e-5) if splits else 0.0
    for got, expected in zip(weights, plain_weights):
        np.testing.assert_allclose(got, expected, rtol=0, atol=tolerance)
    for name, values in plain_logs.items():
        np.testing.assert_allclose(logs[name], values, rtol=0, atol=tolerance, err_msg=name)


class _FailsInTheSecondShare(layers.Layer):
    """Raises in the share that starts after row 0 (one thread of a split step)."""

    def call(self, inputs):
        share = replica.current_share()
        if share is not None and share[1] > 0:
            raise ArithmeticError("the second share failed")
        return inputs


@pytest.mark.parametrize("engine", ["numpy"], indirect=True)
def test_an_error_in_one_share_is_raised_and_no_weight_changes(two_threads):
    model = lamina.Sequential([layers.Input((8,)), layers.Dense(4), _FailsInTheSecondShare(),
                               layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    x = np.ones((16, 8), "float32")
    model.train_on_batch(x[:1], np.zeros((1, 2), "float32"))    # one row: a plain step
    before = model.get_weights()
    distribution.set_distribution(distribution.DataParallel())
    try:
        with pytest.raises(ArithmeticError, match="second share"):
            model.train_on_batch(x, np.zeros((16, 2), "float32"))
        assert two_threads == [2]
        for got, expected in zip(model.get_weights(), before):
            np.testing.assert_array_equal(got, expected)
        # the threads are free again: the next split step runs (and fails) the same way
        with pytest.raises(ArithmeticError):
            model.train_on_batch(x, np.zeros((16, 2), "float32"))
    finally:
        distribution.set_distribution(None)


@pytest.mark.parametrize("engine", ["numpy"], indirect=True)
def test_shares_cover_the_batch_once_per_thread_or_none(two_threads, monkeypatch):
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(2)])
    x = np.zeros((5, 3), "float32")
    assert thread_replicas.shares(model, x) is None          # no DataParallel set
    distribution.set_distribution(distribution.DataParallel())
    try:
        assert thread_replicas.shares(model, x) == [slice(0, 2), slice(2, 5)]
        assert thread_replicas.shares(model, x[:1]) is None  # fewer rows than threads
        monkeypatch.setattr(batch_threads, "thread_count", lambda: 1)
        assert thread_replicas.shares(model, x) is None      # one thread
    finally:
        distribution.set_distribution(None)


def _encoder():
    ids = layers.Input((12,), dtype="int32")
    x = layers.Embedding(40, 16)(ids)
    attended = layers.MultiHeadAttention(num_heads=2, key_dim=8, dropout=0.25)(x, x)
    x = layers.LayerNormalization()(layers.Add()([x, attended]))
    outputs = layers.Dense(3)(layers.GlobalAveragePooling1D()(layers.Dropout(0.2)(x)))
    model = lamina.Model(ids, outputs)
    model.compile(optimizer="adam", metrics=["accuracy"],
                  loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def test_an_encoder_with_attention_dropout_trains_to_the_plain_step_s_weights(two_threads):
    rng = np.random.default_rng(4)
    x, y = rng.integers(0, 40, size=(45, 12)).astype("int32"), rng.integers(0, 3, size=45)
    results = []
    for split in (False, True):
        lamina.utils.set_random_seed(2)
        model = _encoder()
        distribution.set_distribution(distribution.DataParallel() if split else None)
        try:
            history = model.fit(x, y, batch_size=23, epochs=2, verbose=0)
        finally:
            distribution.set_distribution(None)
        results.append((model.get_weights(), history.history))
    assert bool(two_threads) == (state.backend().name == "numpy")
    (plain, plain_logs), (weights, logs) = results
    for got, expected in zip(weights, plain):
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)
    for name, values in plain_logs.items():
        np.testing.assert_allclose(logs[name], values, rtol=0, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("slower", ["split", "plain"])
@pytest.mark.parametrize("engine", ["numpy"], indirect=True)
def test_the_kind_of_step_that_ran_slower_in_the_probe_stops_running(two_threads, slower,
                                                                    monkeypatch):
    x, y, _ = worker.data(features=8)
    x = x[:96].astype("float32").reshape(-1, 8)
    results = []
    for split in (False, True):
        lamina.utils.set_random_seed(0)
        model = worker.build("mlp", reduction=MEAN)
        step = model._loss_and_gradients

        def delayed(data, *args, kind=slower):    # 20 ms more on the slower kind's steps
            if (replica.current_share() is not None) == (kind == "split"):
                time.sleep(0.02)                   # (a split step's shares side by side)
            return step(data, *args)

        monkeypatch.setattr(model, "_loss_and_gradients", delayed)
        distribution.set_distribution(distribution.DataParallel() if split else None)
        try:   # 12 steps of 8 rows: a warm-up pair, PROBE_PAIRS pairs, then the choice
            history = model.fit(x, y[:96], batch_size=8, epochs=1, verbose=0,
                                shuffle=False)
        finally:
            distribution.set_distribution(None)
        results.append((model.get_weights(), history.history["loss"]))
    probe_splits = 1 + split_choice.PROBE_PAIRS
    assert len(two_threads) == (probe_splits if slower == "split" else 12 - probe_splits)
    (plain, plain_loss), (weights, loss) = results
    for got, expected in zip(weights, plain):
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)
    np.testing.assert_allclose(loss, plain_loss, rtol=0, atol=1e-5)
