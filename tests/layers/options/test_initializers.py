"""Initializers (``layers/options/initializers.py``): constants, variance-scaling statistics
and bounds, orthogonality, seeding, configs and unknown names."""

import math

import numpy as np
import pytest

import lamina
from lamina import initializers, layers
from lamina.backends import state


def draw(name_or_obj, shape, dtype="float32"):
    init = initializers.get(name_or_obj)
    values = state.backend().to_numpy(init(shape, dtype=dtype))
    assert values.shape == tuple(shape) and values.dtype == np.dtype(dtype)
    return values


def test_constant_initializers():
    np.testing.assert_array_equal(draw("zeros", (3, 2)), np.zeros((3, 2)))
    np.testing.assert_array_equal(draw("ones", (4,)), np.ones(4))
    np.testing.assert_array_equal(draw(initializers.Constant(2.5), (2, 2)), np.full((2, 2), 2.5))
    np.testing.assert_array_equal(draw({"class_name": "Constant", "config": {"value": -1.0}},
                                       (3,)), [-1.0, -1.0, -1.0])
    assert draw("zeros", (2,), dtype="float64").dtype == np.float64


def test_glorot_uniform_is_dense_default_and_within_bounds():
    lamina.utils.set_random_seed(0)
    fan_in, fan_out = 300, 200
    limit = math.sqrt(6 / (fan_in + fan_out))
    values = draw("glorot_uniform", (fan_in, fan_out))
    assert values.min() >= -limit and values.max() <= limit
    assert values.min() < -0.98 * limit and values.max() > 0.98 * limit  # fills the range
    assert abs(values.std() - limit / math.sqrt(3)) < 0.01 * limit
    assert abs(values.mean()) < 0.01 * limit
    dense = layers.Dense(200)
    dense(np.zeros((1, 300), dtype="float32"))
    assert isinstance(dense.kernel_initializer, initializers.GlorotUniform)
    kernel = dense.kernel.numpy()
    assert kernel.min() >= -limit and kernel.max() <= limit
    np.testing.assert_array_equal(dense.bias.numpy(), np.zeros(200))


@pytest.mark.parametrize("name, scale, fan", [
    ("he_normal", 2.0, "in"), ("lecun_normal", 1.0, "in"), ("glorot_normal", 1.0, "avg")])
def test_truncated_normal_variance_scaling_std(name, scale, fan):
    lamina.utils.set_random_seed(1)
    fan_in, fan_out = 400, 250
    values = draw(name, (fan_in, fan_out))
    denominator = fan_in if fan == "in" else (fan_in + fan_out) / 2
    expected_std = math.sqrt(scale / denominator)
    assert abs(values.std() - expected_std) < 0.02 * expected_std
    assert abs(values.mean()) < 0.02 * expected_std
    # truncated at two (untruncated) standard deviations
    bound = 2 * expected_std / 0.87962566103423978
    assert np.abs(values).max() <= bound * (1 + 1e-6)


@pytest.mark.parametrize("name, scale, fan", [("he_uniform", 2.0, "in"),
                                              ("lecun_uniform", 1.0, "in")])
def test_uniform_variance_scaling_bounds(name, scale, fan):
    lamina.utils.set_random_seed(2)
    values = draw(name, (500, 100))
    limit = math.sqrt(3 * scale / 500)
    assert values.min() >= -limit and values.max() <= limit
    assert values.min() < -0.98 * limit and values.max() > 0.98 * limit
    assert abs(values.std() - limit / math.sqrt(3)) < 0.02 * limit


def test_variance_scaling_uses_receptive_field_for_conv_kernels():
    lamina.utils.set_random_seed(3)
    values = draw("he_normal", (3, 3, 32, 64))
    expected_std = math.sqrt(2 / (3 * 3 * 32))
    assert abs(values.std() - expected_std) < 0.03 * expected_std


def test_random_normal_uniform_and_truncated():
    lamina.utils.set_random_seed(4)
    normal = draw("random_normal", (200, 200))
    assert abs(normal.std() - 0.05) < 0.001 and abs(normal.mean()) < 0.001
    shifted = draw(initializers.RandomNormal(mean=1.0, stddev=2.0), (200, 200))
    assert abs(shifted.mean() - 1.0) < 0.03 and abs(shifted.std() - 2.0) < 0.03
    uniform = draw("random_uniform", (200, 200))
    assert uniform.min() >= -0.05 and uniform.max() <= 0.05
    assert abs(uniform.std() - 0.1 / math.sqrt(12)) < 0.001
    custom = draw(initializers.RandomUniform(2.0, 3.0), (1000,))
    assert custom.min() >= 2.0 and custom.max() <= 3.0 and abs(custom.mean() - 2.5) < 0.03
    truncated = draw(initializers.TruncatedNormal(mean=0.0, stddev=1.0), (200, 200))
    assert np.abs(truncated).max() <= 2.0
    # std of a standard normal truncated to [-2, 2]
    assert abs(truncated.std() - 0.87962566103423978) < 0.01


def test_orthogonal_is_orthogonal():
    lamina.utils.set_random_seed(5)
    square = draw("orthogonal", (64, 64)).astype("float64")
    np.testing.assert_allclose(square.T @ square, np.eye(64), atol=1e-5)
    tall = draw("orthogonal", (100, 30)).astype("float64")
    np.testing.assert_allclose(tall.T @ tall, np.eye(30), atol=1e-5)
    wide = draw("orthogonal", (20, 50)).astype("float64")
    np.testing.assert_allclose(wide @ wide.T, np.eye(20), atol=1e-5)
    scaled = draw(initializers.Orthogonal(gain=3.0), (16, 16)).astype("float64")
    np.testing.assert_allclose(scaled.T @ scaled, 9 * np.eye(16), atol=1e-4)


def test_seeded_initializer_is_reproducible_and_global_seed_governs_others():
    a = draw(initializers.GlorotUniform(seed=42), (10, 10))
    b = draw(initializers.GlorotUniform(seed=42), (10, 10))
    np.testing.assert_array_equal(a, b)
    lamina.utils.set_random_seed(7)
    c = draw("he_normal", (10, 10))
    d = draw("he_normal", (10, 10))
    assert not np.array_equal(c, d)
    lamina.utils.set_random_seed(7)
    np.testing.assert_array_equal(draw("he_normal", (10, 10)), c)


def test_initializer_config_round_trip_and_by_name_in_layer():
    init = initializers.VarianceScaling(scale=0.5, mode="fan_out", distribution="uniform",
                                        seed=3)
    config = initializers.serialize(init)
    assert config == {"class_name": "VarianceScaling",
                      "config": {"scale": 0.5, "mode": "fan_out", "distribution": "uniform",
                                 "seed": 3}}
    clone = initializers.get(config)
    np.testing.assert_array_equal(draw(clone, (5, 5)), draw(init, (5, 5)))
    dense = layers.Dense(3, kernel_initializer="ones", bias_initializer="constant")
    dense(np.zeros((1, 2), dtype="float32"))
    np.testing.assert_array_equal(dense.kernel.numpy(), np.ones((2, 3)))


def test_unknown_initializer_lists_known_names():
    with pytest.raises(ValueError) as info:
        initializers.get("glorot_uniformm")
    message = str(info.value)
    assert "glorot_uniformm" in message
    for known in ("glorot_uniform", "he_normal", "orthogonal", "zeros"):
        assert known in message
    with pytest.raises(ValueError, match="glorot_uniformm"):
        layers.Dense(2, kernel_initializer="glorot_uniformm")


# Every lower-case name Keras 3.15 exports in keras.initializers (STFT aside) and the class
# it is: `keras.initializers.he_normal is keras.initializers.HeNormal`, and so on.
LOWER_CASE = {
    "constant": "Constant", "glorot_normal": "GlorotNormal", "glorot_uniform": "GlorotUniform",
    "he_normal": "HeNormal", "he_uniform": "HeUniform", "identity": "Identity",
    "lecun_normal": "LecunNormal", "lecun_uniform": "LecunUniform", "ones": "Ones",
    "orthogonal": "Orthogonal", "random_normal": "RandomNormal",
    "random_uniform": "RandomUniform", "truncated_normal": "TruncatedNormal",
    "variance_scaling": "VarianceScaling", "zeros": "Zeros",
    "IdentityInitializer": "Identity", "OrthogonalInitializer": "Orthogonal",
}


@pytest.mark.parametrize("name", sorted(LOWER_CASE))
def test_lower_case_initializers_are_the_keras_classes(name):
    cls = getattr(initializers, LOWER_CASE[name])
    assert getattr(initializers, name) is cls
    assert type(initializers.get(name)) is cls


def test_lower_case_call_as_in_keras_code():
    values = draw(initializers.he_normal(seed=1), (50, 40))
    np.testing.assert_array_equal(values, draw(initializers.HeNormal(seed=1), (50, 40)))
    layer = lamina.layers.Dense(3, kernel_initializer=initializers.glorot_uniform(seed=2))
    layer.build((None, 4))
    assert layer.kernel.shape == (4, 3)


def test_identity_matches_keras():
    # keras.initializers.Identity(2.0)((2, 3)) -> [[2, 0, 0], [0, 2, 0]]
    np.testing.assert_array_equal(draw(initializers.Identity(gain=2.0), (2, 3)),
                                  [[2, 0, 0], [0, 2, 0]])
    assert draw("identity", (3, 3)).dtype == np.float32
    with pytest.raises(ValueError, match="2D"):
        initializers.Identity()((2, 2, 2))


def test_variance_scaling_axes_and_keras3_config():
    init = initializers.VarianceScaling(scale=3.0, mode="fan_in", distribution="uniform",
                                        seed=0, input_axes=[0, 1], output_axes=[2])
    values = draw(init, (10, 20, 5))
    assert np.abs(values).max() <= np.sqrt(3.0 * 3.0 / 200) + 1e-7
    # what Keras 3.15 writes for he_normal(seed=1)
    keras_config = {"module": "keras.initializers", "class_name": "HeNormal",
                    "config": {"seed": 1, "input_axes": None, "output_axes": None},
                    "registered_name": None}
    rebuilt = initializers.deserialize(keras_config)
    assert type(rebuilt) is initializers.HeNormal and rebuilt.seed == 1
    # unset axes are left out (lamina's files stay as Keras 3.15 accepted them)
    assert initializers.serialize(rebuilt)["config"] == {"seed": 1}
    assert initializers.serialize(init)["config"]["input_axes"] == [0, 1]
    assert type(initializers.deserialize("lecun_uniform")) is initializers.LecunUniform
    with pytest.raises(ValueError, match="initializer"):
        initializers.deserialize(3)


def test_calling_an_initializer_gives_a_tensor_as_keras():
    # Keras 3.15 (torch): float(keras.initializers.RandomNormal(seed=42)(shape=(1, 1)))
    # works on the returned backend tensor; np.asarray / np.allclose read it too.
    value = initializers.GlorotNormal(seed=42)(shape=(3, 5))
    assert isinstance(value, lamina.Tensor)
    assert np.allclose(value, initializers.GlorotNormal(seed=42)(shape=(3, 5)))
    assert float(initializers.Ones()(shape=(1, 1))) == 1.0
    assert isinstance(float(initializers.RandomNormal(seed=42)(shape=(1, 1))), float)
