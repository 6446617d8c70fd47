"""Small models' optimizer updates run on flat packed buffers: same numbers, same state."""

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.highlevel.optimizers import packed_update


def _train(optimizer_name):
    lamina.utils.set_random_seed(3)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 5)).astype("float32")
    y = rng.standard_normal((64, 1)).astype("float32")
    model = lamina.Sequential([layers.Input((5,)), layers.Dense(7, activation="relu"),
                               layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.get(optimizer_name), loss="mse")
    model.fit(x, y, batch_size=16, epochs=3, verbose=0)
    return model


@pytest.mark.parametrize("optimizer_name", ["adam", "sgd", "rmsprop", "adagrad", "adamw"])
def test_packed_and_per_variable_updates_are_bit_identical(monkeypatch, optimizer_name):
    packed = _train(optimizer_name)
    assert packed.optimizer._packed is not None
    _assert_trains_as_unpacked(packed, lambda: _train(optimizer_name), monkeypatch)


def _assert_trains_as_unpacked(packed, train, monkeypatch):
    """``train()`` without packing ends with ``packed``'s weights and optimizer state."""
    monkeypatch.setattr(packed_update, "PACK_LIMIT", 0)
    separate = train()
    assert separate.optimizer._packed is None
    for a, b in zip(packed.get_weights(), separate.get_weights()):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(packed.optimizer.variables, separate.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_weights_set_from_outside_reach_the_packed_buffers():
    model = _train("adam")
    group = model.optimizer._packed[1]
    new_weights = [np.full_like(w, 0.5) for w in model.get_weights()]
    model.set_weights(new_weights)
    assert group.intact()
    np.testing.assert_array_equal(lamina.backends.get_backend().to_numpy(group.params), 0.5)


def test_a_replaced_array_repacks_instead_of_updating_a_stale_buffer():
    model = _train("sgd")
    kernel = model.layers[0].kernel
    kernel.data = kernel.data.copy()
    assert not model.optimizer._packed[1].intact()
    before = kernel.numpy().copy()
    model.train_on_batch(np.ones((4, 5), "float32"), np.zeros((4, 1), "float32"))
    assert not np.array_equal(kernel.numpy(), before)
    assert model.optimizer._packed[1].intact()


def test_variables_own_their_memory():
    source = np.zeros(3, "float32")
    variable = lamina.Variable(source)
    variable.assign(np.ones(3, "float32"))
    np.testing.assert_array_equal(source, 0.0)


def test_excluding_variables_from_weight_decay_after_training_starts():
    model = _train("adamw")
    kernel = model.layers[0].kernel
    model.optimizer.exclude_from_weight_decay(var_names=["kernel", "bias"])
    model.optimizer.learning_rate = 0.0
    before = kernel.numpy().copy()
    model.train_on_batch(np.ones((4, 5), "float32"), np.zeros((4, 1), "float32"))
    np.testing.assert_array_equal(kernel.numpy(), before)   # lr 0 and no decay: unchanged


def _train_with_an_embedding(optimizer_name):
    lamina.utils.set_random_seed(5)
    rng = np.random.default_rng(1)
    ids = rng.integers(0, 700, (64, 6))
    y = rng.standard_normal((64, 1)).astype("float32")
    model = lamina.Sequential([layers.Input((6,), dtype="int32"),
                               layers.Embedding(700, 100),       # 70,000 > PACK_LIMIT
                               layers.GlobalAveragePooling1D(),
                               layers.Dense(9, activation="relu"), layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.get(optimizer_name), loss="mse")
    model.fit(ids, y, batch_size=16, epochs=2, verbose=0)
    return model


@pytest.mark.parametrize("optimizer_name", ["adam", "sgd"])
def test_a_large_variable_keeps_its_own_update_and_the_small_ones_are_packed(
        monkeypatch, optimizer_name):
    mixed = _train_with_an_embedding(optimizer_name)
    _, group, positions, _ = mixed.optimizer._packed
    embedding = mixed.layers[0].embeddings
    assert positions == [1, 2, 3, 4]                # the Dense kernels and biases
    assert all(embedding is not v for v in group.variables)
    assert group.params.size == 100 * 9 + 9 + 9 + 1
    _assert_trains_as_unpacked(mixed, lambda: _train_with_an_embedding(optimizer_name),
                               monkeypatch)


def test_the_variables_that_share_a_weight_decay_are_packed_together():
    model = _train("adamw")
    model.optimizer.exclude_from_weight_decay(var_names=["bias"])
    model.train_on_batch(np.ones((4, 5), "float32"), np.zeros((4, 1), "float32"))
    _, group, positions, _ = model.optimizer._packed
    assert group.decay is True and positions == [0, 2]     # the two kernels
