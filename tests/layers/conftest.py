"""Shared checks for layer tests (fixtures, so every test file can use them).

* ``float64``: switches ``floatx`` to float64 for the test and restores it.
* ``check_gradients(layer, x, training=False)``: the gradient of ``sum(layer(x) * R)``
  (fixed random ``R``) with respect to the input and every trainable weight, against
  central finite differences.
* ``check_config(layer, x)``: ``get_config`` is JSON-serializable, ``from_config``
  rebuilds an equal config, and the rebuilt layer with copied weights gives the same output.
* ``check_output_shape(layer, x)``: ``compute_output_shape`` with a ``None`` batch matches
  the computed output.
* ``check_models(make_layer, x)``: the layer inside a ``Sequential`` and a functional
  ``Model`` predicts what the bare layer computes.
* ``numeric_gradient(loss, array, eps=1e-6)``: central finite differences of ``loss()``.
* ``layer_case``: a test asking for it runs once per ``(make, shape)`` in its module's
  ``CASES`` (ids ``CASE_IDS``); ``layer_case.check_gradients()``,
  ``.check_config_and_output_shape()`` and ``.check_models()`` run the checks above on
  ``make()`` with an input drawn by the module's ``rand(*shape)``.
"""

import json

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends import Tensor, floatx, no_grad, set_floatx


@pytest.fixture
def float64():
    previous = floatx()
    set_floatx("float64")
    try:
        yield
    finally:
        set_floatx(previous)


def _call(layer, x, training):
    if layer._call_accepts_training:
        return layer(x, training=training)
    return layer(x)


def _numeric_gradient(loss, array, eps=1e-6):
    """Central differences of ``loss()`` with respect to ``array`` (a NumPy or engine
    array, perturbed in place one element at a time)."""
    gradient = np.zeros(array.shape)
    for index in np.ndindex(*array.shape):
        original = float(array[index])
        array[index] = original + eps
        plus = loss()
        array[index] = original - eps
        minus = loss()
        array[index] = original
        gradient[index] = (plus - minus) / (2 * eps)
    return gradient


def _check_gradients(layer, x, training=False, eps=1e-6, rtol=1e-5, atol=1e-7):
    assert floatx() == "float64", "gradient checks run in float64 (use the float64 fixture)"
    x = np.array(x, dtype="float64")
    out = _call(layer, Tensor(x), training)
    weights = layer.trainable_weights
    assert all(w.dtype == np.float64 for w in layer.weights if w.dtype.kind == "f")
    upstream = np.random.default_rng(1).standard_normal(out.shape)

    def loss_value():
        with no_grad():
            return float(np.sum(_call(layer, Tensor(x), training).numpy() * upstream))

    x_tensor = Tensor(x, requires_grad=True)
    loss = ops.sum(ops.multiply(_call(layer, x_tensor, training), upstream))
    analytic = lamina.grad(loss, [x_tensor, *weights])
    targets = [("input", x)] + [(w.name, w.data) for w in weights]
    for (label, array), got in zip(targets, analytic):
        expected = _numeric_gradient(loss_value, array, eps)
        np.testing.assert_allclose(got.numpy(), expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of {label} in {layer.name}")
    return analytic


def _check_config(layer, x):
    expected = _call(layer, x, False).numpy()
    assert np.all(np.isfinite(expected))
    if np.asarray(x).dtype == np.float32:
        assert expected.dtype == np.float32  # no float64 in a float32 layer
    config = layer.get_config()
    assert json.loads(json.dumps(config)) == config
    cls = lamina.layers.get(type(layer).__name__)
    clone = cls.from_config(config)
    assert clone.get_config() == config
    _call(clone, x, False)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(_call(clone, x, False).numpy(), expected, rtol=1e-6, atol=1e-6)
    return clone


def _check_output_shape(layer, x):
    out = _call(layer, x, False)
    shape = layer.compute_output_shape((None,) + tuple(np.shape(x)[1:]))
    assert tuple(shape) == (None,) + tuple(out.shape[1:])
    assert tuple(layer.compute_output_shape(tuple(np.shape(x)))) == tuple(out.shape)


def _check_models(make_layer, x, atol=1e-5):
    x = np.asarray(x, dtype=floatx())
    inner = make_layer()
    model = lamina.Sequential([lamina.Input(x.shape[1:]), inner])
    predicted = model.predict(x, verbose=0)
    with no_grad():
        direct = _call(inner, x, False).numpy()
    np.testing.assert_allclose(predicted, direct, atol=atol)

    inputs = lamina.Input(x.shape[1:])
    layer = make_layer()
    outputs = layer(inputs)
    assert tuple(outputs.shape) == (None,) + direct.shape[1:]
    functional = lamina.Model(inputs, outputs)
    layer.set_weights(inner.get_weights())
    np.testing.assert_allclose(functional.predict(x, verbose=0), direct, atol=atol)
    return model, functional


@pytest.fixture
def check_gradients():
    return _check_gradients


@pytest.fixture
def check_config():
    return _check_config


@pytest.fixture
def check_output_shape():
    return _check_output_shape


@pytest.fixture
def check_models():
    return _check_models


@pytest.fixture
def numeric_gradient():
    return _numeric_gradient


class _LayerCase:
    def __init__(self, make, shape, rand):
        self.make, self.shape, self.rand = make, shape, rand

    def check_gradients(self):
        _check_gradients(self.make(), self.rand(*self.shape))

    def check_config_and_output_shape(self):
        x = self.rand(*self.shape).astype("float32")
        layer = self.make()
        _check_output_shape(layer, x)
        _check_config(layer, x)

    def check_models(self):
        _check_models(self.make, self.rand(*self.shape))


def pytest_generate_tests(metafunc):
    if "layer_case" in metafunc.fixturenames:
        metafunc.parametrize("layer_case", metafunc.module.CASES, ids=metafunc.module.CASE_IDS,
                             indirect=True)


@pytest.fixture
def layer_case(request):
    make, shape = request.param
    return _LayerCase(make, shape, request.module.rand)
