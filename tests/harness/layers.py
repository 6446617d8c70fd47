"""The layer-test harness shared by every layer test (``from harness.layers import ...``;
each check is also a fixture of the same name, registered by ``tests/conftest.py``).

* ``float64``: switches ``floatx`` to float64 for the test and restores it.
* ``check_gradients(layer, x, training=False)``: the gradient of ``sum(layer(x) * R)``
  (fixed random ``R``) with respect to the input and every trainable weight, against
  central finite differences (:func:`harness.ops.numerical_gradient`).
* ``check_config(layer, x)``: ``get_config`` is JSON-serializable, ``from_config``
  rebuilds an equal config, and the rebuilt layer with copied weights gives the same output.
* ``check_output_shape(layer, x)``: ``compute_output_shape`` with a ``None`` batch matches
  the computed output.
* ``check_models(make_layer, x)``: the layer inside a ``Sequential`` and a functional
  ``Model`` predicts what the bare layer computes.
* ``layer_case``: a test asking for it runs once per ``(make, shape)`` in its module's
  ``CASES`` (ids ``CASE_IDS``); ``layer_case.check_gradients()``,
  ``.check_config_and_output_shape()`` and ``.check_models()`` run the checks above on
  ``make()`` with an input drawn by the module's ``rand(*shape)``. A test module with
  ``CASES`` imports the three tests that run them (``test_gradients_match_finite_differences``,
  ``test_config_round_trip_and_output_shape``, ``test_inside_sequential_and_functional_models``)
  from here; pytest collects them in that module.
"""

import json

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends import Tensor, floatx, no_grad, set_floatx

from harness.ops import numerical_gradient


@pytest.fixture
def float64():
    """``floatx`` is float64 for the test (restored afterwards)."""
    previous = floatx()
    set_floatx("float64")
    try:
        yield
    finally:
        set_floatx(previous)


def _call(layer, x, training):
    """``layer(x)``, passing ``training`` when the layer's ``call`` takes it."""
    if layer.call_accepts_training:
        return layer(x, training=training)
    return layer(x)


def check_gradients(layer, x, training=False, eps=1e-6, rtol=1e-5, atol=1e-7):
    """Gradients of ``sum(layer(x) * R)`` w.r.t. ``x`` and every trainable weight against
    finite differences (float64); returns the analytic gradients."""
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
        expected = numerical_gradient(loss_value, array, eps)
        np.testing.assert_allclose(got.numpy(), expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of {label} in {layer.name}")
    return analytic


def check_config(layer, x):
    """The config is JSON-able and rebuilds a layer that, with copied weights, gives the
    same output; returns the rebuilt layer."""
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


def check_output_shape(layer, x):
    """``compute_output_shape`` (with and without a ``None`` batch) matches the output."""
    out = _call(layer, x, False)
    shape = layer.compute_output_shape((None,) + tuple(np.shape(x)[1:]))
    assert tuple(shape) == (None,) + tuple(out.shape[1:])
    assert tuple(layer.compute_output_shape(tuple(np.shape(x)))) == tuple(out.shape)


def check_models(make_layer, x, atol=1e-5):
    """``make_layer()`` inside a Sequential and a functional Model predicts what the bare
    layer computes; returns both models."""
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


def as_fixture(check):
    """``check`` as a fixture of the same name (the fixture's value is the function)."""
    def fixture():
        return check

    fixture.__doc__ = f":func:`{check.__name__}`, as a fixture."
    return pytest.fixture(name=check.__name__)(fixture)


CHECK_FIXTURES = tuple(as_fixture(check) for check in (check_gradients, check_config,
                                                      check_output_shape, check_models))


class _LayerCase:
    """One ``(make, shape)`` of a module's ``CASES``, with the checks bound to it."""

    def __init__(self, make, shape, rand):
        self.make, self.shape, self.rand = make, shape, rand

    def check_gradients(self):
        check_gradients(self.make(), self.rand(*self.shape))

    def check_config_and_output_shape(self):
        x = self.rand(*self.shape).astype("float32")
        layer = self.make()
        check_output_shape(layer, x)
        check_config(layer, x)

    def check_models(self):
        check_models(self.make, self.rand(*self.shape))


def pytest_generate_tests(metafunc):
    """Parametrize a test asking for ``layer_case`` over its module's ``CASES``."""
    if "layer_case" in metafunc.fixturenames:
        metafunc.parametrize("layer_case", metafunc.module.CASES, ids=metafunc.module.CASE_IDS,
                             indirect=True)


@pytest.fixture
def layer_case(request):
    """The current case of the module's ``CASES`` (see :func:`pytest_generate_tests`)."""
    make, shape = request.param
    return _LayerCase(make, shape, request.module.rand)


def test_gradients_match_finite_differences(float64, layer_case):
    """Each case's gradients against finite differences (float64)."""
    layer_case.check_gradients()


def test_config_round_trip_and_output_shape(layer_case):
    """Each case's config round trip and ``compute_output_shape``."""
    layer_case.check_config_and_output_shape()


def test_inside_sequential_and_functional_models(layer_case):
    """Each case inside a Sequential and a functional Model."""
    layer_case.check_models()
