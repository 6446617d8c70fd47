"""BatchNormalization, LayerNormalization, GroupNormalization, UnitNormalization and
RMSNormalization: values
against plain NumPy and Keras 3's recorded outputs, moving statistics, frozen layers,
gradients, configs, shapes, models and bad arguments."""

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.keras_references import case_id, check_against_keras, keras_cases
from harness.more_keras_references import check_more_against_keras, more_cases

RNG = np.random.default_rng(13)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


def batch_norm_reference(x, gamma, beta, mean, variance, epsilon):
    """Per-channel loop: (x - mean) / sqrt(variance + epsilon) * gamma + beta."""
    out = np.empty_like(x, dtype="float64")
    for c in range(x.shape[-1]):
        out[..., c] = (x[..., c] - mean[c]) / np.sqrt(variance[c] + epsilon) * gamma[c] + beta[c]
    return out


def channel_moments(x):
    """Per-channel mean and biased variance by an explicit loop over channels."""
    means, variances = [], []
    for c in range(x.shape[-1]):
        values = x[..., c].astype("float64").ravel()
        m = values.sum() / values.size
        means.append(m)
        variances.append(((values - m) ** 2).sum() / values.size)
    return np.array(means), np.array(variances)


def randomized_batch_norm(**kwargs):
    layer = layers.BatchNormalization(**kwargs)
    layer.build((None, 3))
    ranges = {"gamma": (0.5, 1.5), "beta": (-0.5, 0.5), "moving_mean": (-0.5, 0.5),
              "moving_variance": (0.5, 1.5)}
    layer.set_weights([RNG.uniform(*ranges[w.name], 3) for w in layer.weights])
    return layer


# ------------------------------------------------------------------ BatchNormalization
def test_synchronized_batch_norm_of_one_process_is_batch_norm(float64):
    """synchronized=True inside a data-parallel step of one process (the share is the
    whole batch): the same outputs, moving statistics and gradients as plain batch norm
    (the 2-process equality is tests/highlevel/distribution/test_data_parallel.py)."""
    from lamina.backends import replica

    x = lamina.Tensor(rand(6, 4, 3) * 2 + 0.3)
    upstream = rand(6, 4, 3)
    results, initial = [], randomized_batch_norm().get_weights()
    for synchronized in (False, True):
        layer = randomized_batch_norm(synchronized=synchronized, momentum=0.5)
        layer.set_weights(initial)
        replica.set_share((6, 0, 6))
        try:
            y = layer(x, training=True)
        finally:
            replica.set_share(None)
        loss = lamina.ops.sum(lamina.ops.multiply(y, upstream))
        grads = lamina.grad(loss, [x, layer.gamma, layer.beta])
        results.append((layer.get_weights(), y.numpy(), [g.numpy() for g in grads]))
    (w0, y0, g0), (w1, y1, g1) = results
    np.testing.assert_allclose(y1, y0, atol=1e-12)
    for a, b in zip(w1 + g1, w0 + g0):
        np.testing.assert_allclose(a, b, atol=1e-12)
    assert layers.BatchNormalization(synchronized=True).get_config()["synchronized"] is True


def test_batch_norm_training_uses_batch_statistics_and_updates_moving_ones():
    x = (rand(4, 5, 5, 3) * 2 + 0.7).astype("float32")
    layer = layers.BatchNormalization(momentum=0.9, epsilon=1e-3,
                                      gamma_initializer="random_uniform",
                                      beta_initializer="random_uniform")
    layer.build((None, 5, 5, 3))
    gamma, beta, moving_mean, moving_var = layer.get_weights()
    got = layer(x, training=True).numpy()
    mean, variance = channel_moments(x)
    np.testing.assert_allclose(got, batch_norm_reference(x, gamma, beta, mean, variance, 1e-3),
                               atol=1e-5)
    new_mean, new_var = layer.get_weights()[2:]
    np.testing.assert_allclose(new_mean, moving_mean * 0.9 + mean * 0.1, atol=1e-6)
    np.testing.assert_allclose(new_var, moving_var * 0.9 + variance * 0.1, atol=1e-6)
    assert new_mean.dtype == np.float32


def test_batch_norm_inference_uses_moving_statistics():
    x = rand(6, 3).astype("float32")
    layer = randomized_batch_norm(epsilon=0.01)
    gamma, beta, mean, variance = layer.get_weights()
    expected = batch_norm_reference(x, gamma, beta, mean, variance, 0.01)
    for training in (None, False):
        np.testing.assert_allclose(layer(x, training=training).numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(layer.get_weights()[2], mean)  # not updated


def test_batch_norm_without_center_or_scale():
    x = rand(6, 3).astype("float32")
    layer = layers.BatchNormalization(center=False, scale=False)
    layer.build((None, 3))
    assert layer.weights[0].name == "moving_mean" and len(layer.weights) == 2
    mean, variance = channel_moments(x)
    ones, zeros = np.ones(3), np.zeros(3)
    np.testing.assert_allclose(layer(x, training=True).numpy(),
                               batch_norm_reference(x, ones, zeros, mean, variance, 1e-3),
                               atol=1e-5)
    moving_mean, moving_var = layer.get_weights()
    np.testing.assert_allclose(layer(x).numpy(),
                               batch_norm_reference(x, ones, zeros, moving_mean, moving_var,
                                                    1e-3), atol=1e-5)


def test_frozen_batch_norm_runs_in_inference_mode_even_when_training():
    x = rand(8, 3).astype("float32")
    layer = randomized_batch_norm()
    before = layer.get_weights()
    layer.trainable = False
    expected = batch_norm_reference(x, *before, 1e-3)
    np.testing.assert_allclose(layer(x, training=True).numpy(), expected, atol=1e-5)
    for old, new in zip(before, layer.get_weights()):
        np.testing.assert_array_equal(old, new)
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 4

    # Frozen through the model that holds it.
    inner = randomized_batch_norm()
    model = lamina.Sequential([lamina.Input((3,)), inner])
    model.trainable = False
    weights = inner.get_weights()
    np.testing.assert_allclose(inner(x, training=True).numpy(),
                               batch_norm_reference(x, *weights, 1e-3), atol=1e-5)


def test_batch_norm_weights_order_names_and_config():
    layer = layers.BatchNormalization()
    layer.build((None, 4, 4, 7))
    assert [w.name for w in layer.weights] == ["gamma", "beta", "moving_mean",
                                               "moving_variance"]
    assert [w.trainable for w in layer.weights] == [True, True, False, False]
    assert all(w.shape == (7,) for w in layer.weights)
    config = layer.get_config()
    assert config["momentum"] == 0.99 and config["epsilon"] == 1e-3 and config["axis"] == -1
    assert layer.name.startswith("batch_normalization")
    assert layers.BatchNormalization.from_config({**config, "axis": [-1]}).axis == -1


def test_batch_norm_fit_updates_moving_statistics():
    lamina.utils.set_random_seed(0)
    x = (RNG.standard_normal((64, 3)) * 3 + 5).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    bn = layers.BatchNormalization(momentum=0.5)
    model = lamina.Sequential([lamina.Input((3,)), bn, layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    mean, variance = bn.get_weights()[2:]
    np.testing.assert_allclose(mean, x.mean(axis=0), atol=1.0)
    assert np.all(variance > 3)
    # predict uses the moving statistics (the output does not depend on the batch).
    np.testing.assert_allclose(model.predict(x[:5], verbose=0),
                               model.predict(x, verbose=0)[:5], atol=1e-5)


# ------------------------------------------------------------------ LayerNormalization
def test_layer_norm_values():
    x = rand(2, 4, 5).astype("float32") * 3
    layer = layers.LayerNormalization(gamma_initializer="random_uniform",
                                      beta_initializer="random_uniform")
    got = layer(x).numpy()
    gamma, beta = layer.get_weights()
    assert [w.name for w in layer.weights] == ["gamma", "beta"]
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    np.testing.assert_allclose(got, (x - mean) / np.sqrt(variance + 1e-3) * gamma + beta,
                               atol=1e-5)
    rms = layers.LayerNormalization(rms_scaling=True, gamma_initializer="random_uniform")
    got = rms(x).numpy()
    assert [w.name for w in rms.weights] == ["gamma"]
    np.testing.assert_allclose(got, x / np.sqrt(variance + 1e-3) * rms.get_weights()[0],
                               atol=1e-5)


# ------------------------------------------------------------------ group and unit
def group_norm_reference(x, groups, gamma, beta, epsilon):
    """Per sample and group: normalize the group's channels over every spatial cell."""
    out = np.empty_like(x, dtype="float64")
    size = x.shape[-1] // groups
    for n in range(x.shape[0]):
        for g in range(groups):
            block = x[n, ..., g * size:(g + 1) * size].astype("float64")
            out[n, ..., g * size:(g + 1) * size] = (block - block.mean()) / np.sqrt(
                block.var() + epsilon)
    return out * gamma + beta


@pytest.mark.parametrize("groups", [1, 2, 4, -1])
def test_group_norm_values(groups):
    x = rand(3, 5, 2, 4).astype("float32")
    layer = layers.GroupNormalization(groups, gamma_initializer="random_uniform",
                                      beta_initializer="random_uniform")
    got = layer(x).numpy()
    gamma, beta = layer.get_weights()
    assert [w.name for w in layer.weights] == ["gamma", "beta"]
    expected = group_norm_reference(x, 4 if groups == -1 else groups, gamma, beta, 1e-3)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert layer.get_config()["groups"] == (4 if groups == -1 else groups)   # as Keras


def test_group_norm_on_a_channels_first_axis():
    x = rand(2, 4, 3, 5).astype("float32")
    layer = layers.GroupNormalization(2, axis=1, center=False)
    got = layer(x).numpy()
    assert [w.shape for w in layer.weights] == [(4,)]
    reference = group_norm_reference(np.moveaxis(x, 1, -1), 2, layer.get_weights()[0], 0.0,
                                     1e-3)
    np.testing.assert_allclose(got, np.moveaxis(reference, -1, 1), atol=1e-5)


def test_unit_norm_values():
    x = rand(3, 4, 5).astype("float32")
    np.testing.assert_allclose(layers.UnitNormalization()(x).numpy(),
                               x / np.linalg.norm(x, axis=-1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(
        layers.UnitNormalization(axis=[1, 2])(x).numpy(),
        x / np.sqrt((x ** 2).sum(axis=(1, 2), keepdims=True)), rtol=1e-5)
    assert np.all(layers.UnitNormalization()(np.zeros((2, 3), "float32")).numpy() == 0)
    assert layers.UnitNormalization(axis=(1, 2)).get_config()["axis"] == [1, 2]


@pytest.mark.parametrize("case", keras_cases("lamina.layers.normalization"), ids=case_id)
def test_matches_keras(case):
    check_against_keras(case)


def test_group_and_unit_norm_bad_arguments():
    with pytest.raises(ValueError, match=r"Layer 'g0' \(GroupNormalization\) needs groups"):
        layers.GroupNormalization(0, name="g0")
    with pytest.raises(ValueError, match="Layer 'g1' .*axis"):
        layers.GroupNormalization(2, axis=[1], name="g1")
    with pytest.raises(ValueError, match="Layer 'g2' .*divide the 6 channels"):
        layers.GroupNormalization(4, name="g2")(rand(2, 6).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'g3' .*non-batch axis"):
        layers.GroupNormalization(1, axis=0, name="g3")(rand(2, 6).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'g4' .*epsilon"):
        layers.GroupNormalization(1, epsilon=-1.0, name="g4")
    with pytest.raises(ValueError, match="Layer 'u0' .*axis"):
        layers.UnitNormalization(axis="last", name="u0")
    with pytest.raises(ValueError, match="Layer 'u1' .*out of bounds"):
        layers.UnitNormalization(axis=3, name="u1")(rand(2, 3).astype("float32"))


# ------------------------------------------------------------------ RMSNormalization
@pytest.mark.parametrize("case", more_cases("RMSNormalization"), ids=case_id)
def test_rms_norm_matches_keras(case):
    check_more_against_keras(case)


def test_rms_norm_values_weights_and_config():
    x = rand(2, 3, 4).astype("float32")
    layer = layers.RMSNormalization(axis=[2, 1], epsilon=0.01)
    assert layer.get_config()["axis"] == [2, 1]
    y = layer(x).numpy()
    expected = x / np.sqrt((x.astype("float64") ** 2).mean(axis=(1, 2), keepdims=True) + 0.01)
    np.testing.assert_allclose(y, expected, rtol=1e-5)
    assert [(w.name, w.shape) for w in layer.weights] == [("scale", (3, 4))]
    config = layer.get_config()
    assert (config["axis"], config["epsilon"]) == ([1, 2], 0.01)   # sorted once built
    middle = layers.RMSNormalization(axis=1)
    middle(x)
    middle.set_weights([np.array([1.0, 2.0, 3.0], "float32")])
    np.testing.assert_allclose(
        middle(x).numpy(),
        x / np.sqrt((x ** 2).mean(axis=1, keepdims=True) + 1e-6) * np.array([1, 2, 3])[:, None],
        rtol=1e-5)
    with pytest.raises(ValueError, match="Layer 'rms' .*axis"):
        layers.RMSNormalization(axis=3, name="rms")(x)


# ------------------------------------------------------------------ shared checks
CASES = [
    (lambda: randomized_batch_norm(), (5, 3), True),
    (lambda: randomized_batch_norm(), (5, 3), False),
    (lambda: randomized_batch_norm(center=False), (2, 3, 3), True),
    (lambda: layers.LayerNormalization(gamma_initializer="random_uniform"), (2, 3, 4), False),
    (lambda: layers.LayerNormalization(scale=False), (3, 4), False),
    (lambda: layers.LayerNormalization(rms_scaling=True), (3, 4), False),
    (lambda: layers.GroupNormalization(2, gamma_initializer="random_uniform",
                                       beta_initializer="random_uniform"), (2, 3, 4), False),
    (lambda: layers.GroupNormalization(-1, axis=1, scale=False), (2, 3, 4), False),
    (lambda: layers.UnitNormalization(), (3, 4), False),
    (lambda: layers.UnitNormalization(axis=[1, 2]), (2, 3, 2), False),
    (lambda: layers.RMSNormalization(), (3, 4), False),
    (lambda: layers.RMSNormalization(axis=[1, 2], epsilon=0.01), (2, 3, 4), False),
    (lambda: layers.RMSNormalization(axis=1), (2, 3, 4), False),
]
CASE_IDS = ["bn_train", "bn_infer", "bn_no_center", "ln", "ln_no_scale", "ln_rms",
            "group_norm", "instance_norm", "unit_norm", "unit_norm_axes", "rms_norm",
            "rms_norm_axes", "rms_norm_middle_axis"]


@pytest.mark.parametrize("make, shape, training", CASES, ids=CASE_IDS)
def test_gradients_match_finite_differences(float64, check_gradients, make, shape, training):
    layer = make()
    check_gradients(layer, rand(*shape) * 2 + 0.3, training=training)


@pytest.mark.parametrize("make, shape, training", CASES, ids=CASE_IDS)
def test_config_round_trip_and_output_shape(check_config, check_output_shape, make, shape,
                                            training):
    x = rand(*shape).astype("float32")
    layer = make()
    check_output_shape(layer, x)
    check_config(layer, x)


@pytest.mark.parametrize("make, shape, training", CASES, ids=CASE_IDS)
def test_inside_sequential_and_functional_models(check_models, make, shape, training):
    check_models(make, rand(*shape))


def test_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match="Layer 'n0' .*axis=-1"):
        layers.BatchNormalization(axis=1, name="n0")(rand(2, 3, 4).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'n1' .*axis=-1"):
        layers.LayerNormalization(axis=[1, 2], name="n1")
    with pytest.raises(ValueError, match="Layer 'n2' .*momentum"):
        layers.BatchNormalization(momentum=1.5, name="n2")
    with pytest.raises(ValueError, match="Layer 'n3' .*epsilon"):
        layers.LayerNormalization(epsilon=0, name="n3")
    layer = layers.BatchNormalization(name="n4")
    layer(rand(2, 3).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'n4' expects input of shape"):
        layer(rand(2, 4).astype("float32"))
    # axis given as the last positive index is the last axis.
    assert layers.BatchNormalization(axis=2)(rand(2, 3, 4).astype("float32")).shape == (2, 3, 4)
