"""Merge layers: values, broadcasting, gradients, output shapes, masks, configs, models and
errors for mismatched inputs."""

import json
import math

import numpy as np
import pytest

import lamina
from lamina import layers, ops

RNG = np.random.default_rng(5)


def rand(*shape, dtype="float32"):
    return RNG.uniform(-1.0, 1.0, size=shape).astype(dtype)


class FromFlat(layers.Layer):
    """Slices one (batch, n) input into tensors of ``shapes`` and calls a multi-input
    layer on them, so the shared single-input gradient check covers every input."""

    def __init__(self, inner, shapes, **kwargs):
        super().__init__(**kwargs)
        self.inner, self.shapes = inner, [tuple(s) for s in shapes]

    def call(self, x):
        pieces, start = [], 0
        for shape in self.shapes:
            size = math.prod(shape)
            pieces.append(ops.reshape(x[:, start:start + size], (x.shape[0],) + shape))
            start += size
        return self.inner(pieces)


def flat_input(batch, shapes):
    return RNG.uniform(-1, 1, size=(batch, sum(math.prod(s) for s in shapes)))


ELEMENTWISE = {
    "add": (layers.Add, lambda xs: sum(xs)),
    "multiply": (layers.Multiply, lambda xs: np.prod(xs, axis=0)),
    "average": (layers.Average, lambda xs: np.mean(xs, axis=0)),
    "maximum": (layers.Maximum, lambda xs: np.max(xs, axis=0)),
    "minimum": (layers.Minimum, lambda xs: np.min(xs, axis=0)),
}


# ------------------------------------------------------------------ values
@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_values(name):
    cls, reference = ELEMENTWISE[name]
    xs = [rand(3, 4, 2) for _ in range(3)]
    out = cls()(xs)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), reference(np.stack(xs)), rtol=1e-6)


@pytest.mark.parametrize("helper, cls", [
    (layers.add, layers.Add), (layers.subtract, layers.Subtract),
    (layers.multiply, layers.Multiply), (layers.average, layers.Average),
    (layers.maximum, layers.Maximum), (layers.minimum, layers.Minimum)])
def test_functional_helpers_build_and_call_the_layer(helper, cls):
    xs = [rand(3, 4), rand(3, 4)]
    np.testing.assert_allclose(helper(xs).numpy(), cls()(xs).numpy())
    a, b = lamina.Input((4,)), lamina.Input((4,))
    out = helper([a, b], name=f"helper_{cls.__name__.lower()}")
    model = lamina.Model([a, b], out)
    assert type(model.layers[-1]) is cls and model.layers[-1].name.startswith("helper_")
    np.testing.assert_allclose(model.predict(xs, verbose=0), cls()(xs).numpy(), rtol=1e-6)


def test_concatenate_and_dot_helpers_take_keras_arguments():
    x, y = rand(2, 3, 4), rand(2, 3, 5)
    np.testing.assert_array_equal(layers.concatenate([x, y]).numpy(),
                                  np.concatenate([x, y], axis=-1))
    np.testing.assert_array_equal(layers.concatenate([x, x], axis=1).numpy(),
                                  np.concatenate([x, x], axis=1))
    np.testing.assert_allclose(layers.dot([x, x], axes=2).numpy(), x @ x.transpose(0, 2, 1),
                               rtol=1e-5)
    u, v = rand(2, 4), rand(2, 4)
    cosine = (u * v).sum(-1) / np.linalg.norm(u, axis=-1) / np.linalg.norm(v, axis=-1)
    np.testing.assert_allclose(layers.dot([u, v], axes=-1, normalize=True).numpy()[:, 0],
                               cosine, rtol=1e-5)
    np.testing.assert_allclose(layers.dot([u, v]).numpy()[:, 0], (u * v).sum(-1), rtol=1e-5)


def test_subtract_and_broadcasting():
    a, b = rand(3, 4), rand(3, 4)
    np.testing.assert_allclose(layers.Subtract()([a, b]).numpy(), a - b)
    full, row = rand(2, 5, 3), rand(2, 1, 3)
    layer = layers.Add()
    np.testing.assert_allclose(layer([full, row]).numpy(), full + row, rtol=1e-6)
    assert layer.compute_output_shape([(None, 5, 3), (None, 1, 3)]) == (None, 5, 3)
    assert layer.compute_output_shape([(None, None, 3), (None, 1, 3)]) == (None, None, 3)


def test_concatenate_values_and_shapes():
    a, b = rand(2, 3, 4), rand(2, 5, 4)
    layer = layers.Concatenate(axis=1)
    np.testing.assert_array_equal(layer([a, b]).numpy(), np.concatenate([a, b], axis=1))
    assert layer.compute_output_shape([(None, 3, 4), (None, 5, 4)]) == (None, 8, 4)
    assert layer.compute_output_shape([(None, None, 4), (None, 5, 4)]) == (None, None, 4)
    c = rand(2, 3, 2)
    np.testing.assert_array_equal(layers.Concatenate()([a, c]).numpy(),
                                  np.concatenate([a, c], axis=-1))


def test_dot_values_axes_and_normalize():
    a, b = rand(4, 3), rand(4, 3)
    np.testing.assert_allclose(layers.Dot(axes=1)([a, b]).numpy(),
                               np.sum(a * b, axis=1, keepdims=True), rtol=1e-5)
    cosine = layers.Dot(axes=-1, normalize=True)([a, b]).numpy()
    expected = np.sum(a * b, 1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(cosine[:, 0], expected, rtol=1e-5)
    q, v = rand(2, 3, 5), rand(2, 4, 5)
    layer = layers.Dot(axes=2)
    np.testing.assert_allclose(layer([q, v]).numpy(), np.einsum("btn,bsn->bts", q, v),
                               rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape([(None, 3, 5), (None, 4, 5)]) == (None, 3, 4)
    m, n = rand(2, 5, 3), rand(2, 5, 4)
    pair = layers.Dot(axes=(1, 1))
    np.testing.assert_allclose(pair([m, n]).numpy(), np.einsum("btm,btn->bmn", m, n),
                               rtol=1e-5, atol=1e-6)
    assert pair.compute_output_shape([(None, 5, 3), (None, 5, 4)]) == (None, 3, 4)


# ------------------------------------------------------------------ gradients
GRADIENT_CASES = {
    "add_broadcast": (layers.Add, [(2, 3), (1, 3), (2, 3)]),
    "subtract": (layers.Subtract, [(3,), (3,)]),
    "multiply": (layers.Multiply, [(2, 2), (2, 2), (2, 2)]),
    "average": (layers.Average, [(4,), (4,)]),
    "maximum": (layers.Maximum, [(5,), (5,), (5,)]),
    "minimum": (layers.Minimum, [(5,), (5,)]),
    "concatenate_axis1": (lambda: layers.Concatenate(axis=1), [(2, 3), (1, 3)]),
    "concatenate_last": (layers.Concatenate, [(2, 3), (2, 1)]),
    "dot_2d": (lambda: layers.Dot(axes=1), [(4,), (4,)]),
    "dot_3d": (lambda: layers.Dot(axes=2), [(2, 3), (4, 3)]),
    "dot_axes_pair_normalize": (lambda: layers.Dot(axes=(1, 1), normalize=True),
                                [(3, 2), (3, 4)]),
}


@pytest.mark.parametrize("case", list(GRADIENT_CASES))
def test_gradients_match_finite_differences(float64, check_gradients, case):
    make, shapes = GRADIENT_CASES[case]
    check_gradients(FromFlat(make(), shapes), flat_input(3, shapes))


# ------------------------------------------------------------------ masks
def test_masks_combine_as_keras():
    a, b = rand(2, 3, 4), rand(2, 3, 4)
    m1 = np.array([[1, 1, 0], [1, 0, 0]], dtype=bool)
    m2 = np.array([[1, 0, 0], [1, 1, 0]], dtype=bool)
    np.testing.assert_array_equal(layers.Add().compute_mask([a, b], [m1, m2]).numpy(), m1 & m2)
    np.testing.assert_array_equal(layers.Add().compute_mask([a, b], [m1, None]).numpy(), m1)
    assert layers.Add().compute_mask([a, b], None) is None
    concat = layers.Concatenate()
    np.testing.assert_array_equal(concat.compute_mask([a, b], [m1, m2]).numpy(), m1 | m2)
    np.testing.assert_array_equal(concat.compute_mask([a, b], [m1, None]).numpy(),
                                  np.ones((2, 3), bool))
    along_time = layers.Concatenate(axis=1).compute_mask([a, b], [m1, m2]).numpy()
    np.testing.assert_array_equal(along_time, np.concatenate([m1, m2], axis=1))


# ------------------------------------------------------------------ errors
def test_mismatched_inputs_raise_naming_the_layer():
    with pytest.raises(ValueError, match="Layer 'add_probe' \\(Add\\) needs inputs of matching"):
        layers.Add(name="add_probe")([rand(2, 3), rand(2, 4)])
    with pytest.raises(ValueError, match="Layer 'rank_probe' .*same rank"):
        layers.Multiply(name="rank_probe")([rand(2, 3), rand(2, 3, 1)])
    with pytest.raises(ValueError, match="Layer 'sub_probe' .*exactly 2 inputs, got 3"):
        layers.Subtract(name="sub_probe")([rand(2, 3)] * 3)
    with pytest.raises(ValueError, match="Layer 'list_probe' .*list of tensors"):
        layers.Add(name="list_probe")(rand(2, 3))
    with pytest.raises(ValueError, match="Layer 'cat_probe' .*except on axis -1"):
        layers.Concatenate(name="cat_probe")([rand(2, 3, 1), rand(2, 4, 1)])
    with pytest.raises(ValueError, match="Layer 'dot_probe' .*dot axes"):
        layers.Dot(axes=1, name="dot_probe")([rand(2, 3), rand(2, 4)])
    with pytest.raises(ValueError, match="Layer 'dot_batch' .*non-batch axes"):
        layers.Dot(axes=0, name="dot_batch")([rand(2, 3), rand(2, 3)])
    a, b = lamina.Input((3,)), lamina.Input((4,))
    with pytest.raises(ValueError, match="Layer 'symbolic_probe'"):
        layers.Maximum(name="symbolic_probe")([a, b])
    built = layers.Add(name="built_probe")
    built([rand(2, 3), rand(2, 3)])
    with pytest.raises(ValueError, match="built_probe"):
        built([rand(2, 3), rand(2, 5)])


# ------------------------------------------------------------------ configs and models
@pytest.mark.parametrize("make", [layers.Add, layers.Subtract, layers.Maximum,
                                  lambda: layers.Concatenate(axis=1),
                                  lambda: layers.Dot(axes=(1, 2), normalize=True)],
                         ids=["add", "subtract", "maximum", "concatenate", "dot"])
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    assert json.loads(json.dumps(config)) == config
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    xs = [rand(2, 3, 3), rand(2, 3, 3)]
    np.testing.assert_allclose(clone(xs).numpy(), layer(xs).numpy())


def test_in_functional_model_and_training():
    lamina.utils.set_random_seed(0)
    left, right = lamina.Input((3,)), lamina.Input((3,))
    shared = layers.Dense(4, activation="tanh")
    merged = layers.Concatenate()([shared(left), shared(right), layers.Subtract()([left, right])])
    summed = layers.Add()([layers.Dense(1)(merged), layers.Dot(axes=1)([left, right])])
    model = lamina.Model([left, right], summed)
    a, b = rand(64, 3), rand(64, 3)
    target = (a * b).sum(axis=1, keepdims=True) + a[:, :1] - b[:, 1:2]
    symbolic_shape = merged.shape
    assert symbolic_shape == (None, 11)
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse")
    history = model.fit([a, b], target, epochs=40, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.2 * history.history["loss"][0]
    assert model.predict([a, b], verbose=0).shape == (64, 1)
