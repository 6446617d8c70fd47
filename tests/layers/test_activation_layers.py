"""Activation layers (ReLU, LeakyReLU, PReLU, ELU, Softmax): Keras 3's outputs on fixed
inputs and weights, gradients against finite differences, configs, models, masks and bad
arguments."""

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.keras_references import case_id, check_against_keras, keras_cases
from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(21)


def rand(*shape):
    """Inputs away from the kinks at 0 and at the thresholds used below (finite
    differences of a kink are not the derivative)."""
    values = RNG.uniform(0.1, 2.0, size=shape) * RNG.choice([-1.0, 1.0], size=shape)
    return np.where(np.abs(values - 0.7) < 0.05, values + 0.1, values)


@pytest.mark.parametrize("case", keras_cases("lamina.layers.activation_layers"), ids=case_id)
def test_matches_keras(case):
    check_against_keras(case)


def test_relu_options_follow_keras_formula():
    x = np.array([[-3.0, -1.0, 0.0, 0.2, 0.5, 1.0, 2.0, 7.0]], dtype="float32")
    np.testing.assert_allclose(layers.ReLU()(x).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(layers.ReLU(max_value=1.0)(x).numpy(), np.clip(x, 0, 1))
    np.testing.assert_allclose(layers.ReLU(threshold=0.5)(x).numpy(),
                               np.where(x > 0.5, x, 0))
    got = layers.ReLU(max_value=1.5, negative_slope=0.1, threshold=0.5)(x).numpy()
    expected = np.where(x >= 1.5, 1.5, np.where(x > 0.5, x, 0.1 * (x - 0.5)))
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(layers.LeakyReLU()(x).numpy(), np.where(x > 0, x, 0.3 * x),
                               rtol=1e-6)
    np.testing.assert_allclose(layers.ELU(0.5)(x).numpy(),
                               np.where(x > 0, x, 0.5 * np.expm1(x)), rtol=1e-6)


def test_prelu_weight_shape_name_and_sharing():
    layer = layers.PReLU(alpha_initializer="ones", shared_axes=[1, 2])
    out = layer(rand(2, 3, 4, 5).astype("float32"))
    assert [w.name for w in layer.weights] == ["alpha"]
    assert layer.weights[0].shape == (1, 1, 5) and out.dtype == np.float32
    assert layers.PReLU(shared_axes=1).get_config()["shared_axes"] == [1]
    # Unshared axes are fixed by the build; shared ones may vary.
    layer(rand(2, 6, 2, 5).astype("float32"))
    with pytest.raises(ValueError, match=f"Layer '{layer.name}' expects input of shape"):
        layer(rand(2, 3, 4, 6).astype("float32"))
    # Zeros (the default) make it a ReLU.
    x = rand(3, 4).astype("float32")
    np.testing.assert_allclose(layers.PReLU()(x).numpy(), np.maximum(x, 0))


def test_prelu_learns_its_slope():
    lamina.utils.set_random_seed(0)
    x = RNG.standard_normal((256, 1)).astype("float32")
    y = np.where(x > 0, x, 0.25 * x)
    model = lamina.Sequential([lamina.Input((1,)), layers.PReLU()])
    model.compile(lamina.optimizers.SGD(0.5), "mse")
    model.fit(x, y, epochs=30, batch_size=64, verbose=0)
    assert model.layers[0].get_weights()[0][0] == pytest.approx(0.25, abs=1e-3)


def test_softmax_axes_and_mask():
    x = rand(2, 3, 4).astype("float32")
    out = layers.Softmax(axis=[1, 2])(x).numpy()
    np.testing.assert_allclose(out.sum(axis=(1, 2)), 1.0, rtol=1e-6)
    mask = np.ones((2, 1, 4), dtype=bool)
    mask[..., 0] = False
    masked = layers.Softmax()(x, mask=mask).numpy()
    assert np.all(masked[..., 0] == 0)
    np.testing.assert_allclose(masked.sum(axis=-1), 1.0, rtol=1e-6)
    # A float mask keeps positions > 0.5.
    np.testing.assert_allclose(layers.Softmax()(x, mask=mask.astype("float32")).numpy(),
                               masked)
    with pytest.raises(ValueError, match="Layer 'sm' .*mask broadcastable"):
        layers.Softmax(name="sm")(x, mask=np.ones((2, 3, 5), dtype=bool))


@pytest.mark.parametrize("make", [layers.ReLU, layers.LeakyReLU, layers.ELU,
                                  lambda: layers.PReLU(shared_axes=1)])
def test_activation_layers_pass_masks_on(make):
    # (Softmax takes the mask as its own argument: a (batch, steps) mask does not
    # broadcast to (batch, steps, features) and raises there, as in Keras.)
    # With the mask carried through, trailing padding does not change the LSTM's output.
    lamina.utils.set_random_seed(1)
    inputs = lamina.Input((None,), dtype="int32")
    hidden = make()(layers.Embedding(10, 3, mask_zero=True)(inputs))
    model = lamina.Model(inputs, layers.LSTM(2)(hidden))
    short = np.array([[3, 1, 4]], dtype="int32")
    padded = np.array([[3, 1, 4, 0, 0]], dtype="int32")
    np.testing.assert_allclose(model.predict(padded, verbose=0),
                               model.predict(short, verbose=0), atol=1e-6)


def test_leaky_relu_reads_the_legacy_alpha_argument():
    layer = layers.LeakyReLU(alpha=0.1)
    assert layer.negative_slope == 0.1
    assert layer.get_config()["negative_slope"] == 0.1 and "alpha" not in layer.get_config()


CASES = [
    (lambda: layers.ReLU(), (3, 4)),
    (lambda: layers.ReLU(max_value=1.5, negative_slope=0.2, threshold=0.7), (3, 5)),
    (lambda: layers.ReLU(max_value=6.0, negative_slope=0.1), (3, 4)),
    (lambda: layers.LeakyReLU(0.2), (3, 4)),
    (lambda: layers.PReLU(alpha_initializer="random_uniform", shared_axes=[1]), (2, 3, 4)),
    (lambda: layers.ELU(0.5), (3, 4)),
    (lambda: layers.Softmax(), (3, 4)),
    (lambda: layers.Softmax(axis=[1, 2]), (2, 3, 4)),
]
CASE_IDS = ["relu", "relu_options", "relu6_leaky", "leaky", "prelu", "elu", "softmax",
            "softmax_axes"]


@pytest.mark.parametrize("make, message", [
    (lambda: layers.ReLU(max_value=-1.0, name="a0"), r"Layer 'a0' \(ReLU\) needs max_value"),
    (lambda: layers.ReLU(negative_slope=-0.1, name="a1"), "Layer 'a1' .*negative_slope"),
    (lambda: layers.ReLU(negative_slope=None, name="a2"), "Layer 'a2' .*negative_slope"),
    (lambda: layers.ReLU(threshold=-1.0, name="a3"), "Layer 'a3' .*threshold"),
    (lambda: layers.LeakyReLU(-0.3, name="a4"), "Layer 'a4' .*negative_slope"),
    (lambda: layers.ELU("big", name="a5"), "Layer 'a5' .*alpha"),
    (lambda: layers.PReLU(shared_axes=[0], name="a6"), "Layer 'a6' .*shared_axes"),
    (lambda: layers.Softmax(axis="last", name="a7"), "Layer 'a7' .*axis"),
])
def test_bad_arguments_raise_value_error_naming_the_layer(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_prelu_needs_its_unshared_axes_known():
    with pytest.raises(ValueError, match="Layer 'p' .*known sizes"):
        layers.PReLU(name="p")(lamina.Input((None, 3)))
    assert layers.PReLU(shared_axes=1)(lamina.Input((None, 3))).shape == (None, None, 3)
    with pytest.raises(ValueError, match="Layer 'q' .*out of range"):
        layers.PReLU(shared_axes=3, name="q")(lamina.Input((2, 3)))
