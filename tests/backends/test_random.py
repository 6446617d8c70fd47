"""``lamina.random`` (``backends/random.py``): Keras 3's ``SeedGenerator`` and the
``keras.random`` distributions, reproducible under ``set_random_seed`` and with ``seed=`` an
int (same draws every call) or a ``SeedGenerator`` (a new draw per call), every engine."""

import numpy as np
import pytest
from scipy import stats

import lamina
from lamina import ops, random
from lamina.backends import state


def test_namespace():
    assert lamina.random is random
    assert set(random.__all__) == {"SeedGenerator", "beta", "binomial", "categorical",
                                   "dropout", "gamma", "normal", "randint", "shuffle",
                                   "truncated_normal", "uniform"}


def test_seed_generator_state(engine):
    gen = random.SeedGenerator(seed=42, name="noise")
    assert gen.state.dtype == np.int64 and not gen.state.trainable
    np.testing.assert_array_equal(gen.state.numpy(), [42, 0])
    np.testing.assert_array_equal(gen.next().numpy(), [42, 0])
    np.testing.assert_array_equal(gen.state.numpy(), [42, 1])
    assert gen.get_config() == {"seed": 42, "name": "noise"}
    clone = random.SeedGenerator.from_config(gen.get_config())
    np.testing.assert_array_equal(clone.state.numpy(), [42, 0])
    with pytest.raises(ValueError, match="integer"):
        random.SeedGenerator(seed=1.5)


def test_seed_generator_gives_new_reproducible_draws(engine):
    first, second = random.SeedGenerator(7), random.SeedGenerator(7)
    a, b = random.normal((3,), seed=first), random.normal((3,), seed=first)
    assert not np.allclose(a.numpy(), b.numpy())
    np.testing.assert_array_equal(random.normal((3,), seed=second).numpy(), a.numpy())
    np.testing.assert_array_equal(random.normal((3,), seed=second).numpy(), b.numpy())


def test_int_seed_is_stateless(engine):
    a = random.uniform((4,), seed=3)
    np.testing.assert_array_equal(random.uniform((4,), seed=3).numpy(), a.numpy())
    # as in Keras: an int seed draws what a fresh SeedGenerator(seed) draws first
    np.testing.assert_array_equal(random.uniform((4,), seed=random.SeedGenerator(3)).numpy(),
                                  a.numpy())
    assert not np.allclose(random.uniform((4,), seed=4).numpy(), a.numpy())
    with pytest.raises(ValueError, match="SeedGenerator"):
        random.normal((2,), seed="abc")


def test_set_random_seed_makes_global_draws_reproducible(engine):
    def draws():
        lamina.utils.set_random_seed(11)
        return [random.normal((3,)).numpy(), random.randint((3,), 0, 100).numpy(),
                random.SeedGenerator().state.numpy()]

    for first, second in zip(draws(), draws()):
        np.testing.assert_array_equal(first, second)


def test_normal_uniform_truncated(engine):
    values = random.normal((20000,), mean=2.0, stddev=0.5, seed=1)
    assert values.dtype == np.float32
    assert abs(float(values.numpy().mean()) - 2.0) < 0.02
    assert abs(float(values.numpy().std()) - 0.5) < 0.02
    values = random.uniform((20000,), minval=-1.0, maxval=3.0, dtype="float64", seed=2).numpy()
    assert values.dtype == np.float64 and values.min() >= -1.0 and values.max() < 3.0
    assert abs(values.mean() - 1.0) < 0.05
    values = random.truncated_normal((20000,), mean=1.0, stddev=2.0, seed=3).numpy()
    assert values.min() >= -3.0 and values.max() <= 5.0
    assert abs(values.std() - 2.0 * stats.truncnorm(-2, 2).std()) < 0.05
    with pytest.raises(ValueError, match="randint"):
        random.uniform((2,), dtype="int32")


def test_randint(engine):
    values = random.randint((5000,), 3, 8, seed=4)
    assert values.dtype == np.int32
    np.testing.assert_array_equal(np.unique(values.numpy()), [3, 4, 5, 6, 7])
    assert random.randint((2,), 0, 2, dtype="int64").dtype == np.int64
    with pytest.raises(ValueError, match="integers"):
        random.randint((2,), 0, 5, dtype="float32")
    with pytest.raises(ValueError, match="minval < maxval"):
        random.randint((2,), 5, 5)


def test_categorical(engine):
    logits = np.log(np.array([[0.2, 0.5, 0.3], [0.9, 0.05, 0.05]]))
    draws = random.categorical(logits, 20000, seed=5)
    assert draws.shape == (2, 20000) and draws.dtype == np.int32
    for row, probabilities in zip(draws.numpy(), np.exp(logits)):
        np.testing.assert_allclose(np.bincount(row, minlength=3) / 20000, probabilities,
                                   atol=0.015)
    with pytest.raises(ValueError, match="batch, classes"):
        random.categorical(np.zeros(3), 2)


def test_gamma_beta_binomial(engine):
    draws = random.gamma((20000,), alpha=np.array(2.5), seed=6).numpy()
    assert abs(draws.mean() - 2.5) < 0.06 and abs(draws.var() - 2.5) < 0.15
    small = random.gamma((20000,), alpha=0.4, seed=7).numpy()
    assert small.min() >= 0 and abs(small.mean() - 0.4) < 0.02
    draws = random.beta((20000,), alpha=2.0, beta=5.0, seed=8).numpy()
    assert draws.min() >= 0 and draws.max() <= 1 and abs(draws.mean() - 2 / 7) < 0.01
    draws = random.binomial((20000,), counts=10, probabilities=0.3, seed=9).numpy()
    assert draws.dtype == np.float32 and draws.min() >= 0 and draws.max() <= 10
    assert abs(draws.mean() - 3.0) < 0.05 and abs(draws.var() - 2.1) < 0.1
    per_column = random.binomial((5000, 2), counts=np.array([4, 20]),
                                 probabilities=np.array([0.5, 0.1]), seed=10).numpy()
    np.testing.assert_allclose(per_column.mean(axis=0), [2.0, 2.0], atol=0.1)


def test_shuffle(engine):
    x = lamina.Tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    out = random.shuffle(x, seed=12)
    np.testing.assert_array_equal(np.sort(out.numpy()[:, 0]), [0.0, 3.0, 6.0, 9.0])
    np.testing.assert_array_equal(out.numpy()[:, 1] - out.numpy()[:, 0], 1.0)   # rows kept
    (g,) = lamina.grad(ops.sum(out * 2.0), [x])
    np.testing.assert_array_equal(g.numpy(), 2.0)
    columns = random.shuffle(np.arange(12.0).reshape(4, 3), axis=1, seed=12).numpy()
    np.testing.assert_array_equal(np.sort(columns[0]), [0.0, 1.0, 2.0])


def test_dropout(engine):
    x = lamina.Tensor(np.ones((200, 100), "float32"), requires_grad=True)
    out = random.dropout(x, 0.25, seed=13)
    values = out.numpy()
    assert abs((values == 0).mean() - 0.25) < 0.01
    np.testing.assert_allclose(values[values != 0], 1 / 0.75)
    (g,) = lamina.grad(ops.sum(out), [x])
    np.testing.assert_array_equal(g.numpy(), values)
    shared = random.dropout(np.ones((4, 50)), 0.5, noise_shape=(1, None), seed=14).numpy()
    np.testing.assert_array_equal(shared, np.broadcast_to(shared[:1], shared.shape))
    np.testing.assert_array_equal(random.dropout(x, 0.25, seed=13).numpy(), values)


def _draws():
    x = np.ones((4, 5), dtype=np.float32)
    return ops.dropout(x, 0.5).numpy(), np.random.rand(3)


def test_set_random_seed_reproducibility(engine):
    lamina.backends.set_random_seed(42)
    first_mask, first_numpy = _draws()
    lamina.backends.set_random_seed(42)
    second_mask, second_numpy = _draws()
    lamina.backends.set_random_seed(43)
    other_mask, _ = _draws()
    np.testing.assert_array_equal(first_mask, second_mask)
    np.testing.assert_array_equal(first_numpy, second_numpy)
    assert not np.array_equal(first_mask, other_mask)


@pytest.mark.parametrize("seed", [-1, 1.5, True, "3"])
def test_set_random_seed_rejects_bad_seeds(seed):
    with pytest.raises(ValueError, match="non-negative int"):
        lamina.backends.set_random_seed(seed)


def test_switching_engines_keeps_the_random_stream_going():
    lamina.utils.set_random_seed(0)
    first = state.generator().random()
    with lamina.backends.use_backend("numpy"):
        pass
    assert state.generator().random() != first
