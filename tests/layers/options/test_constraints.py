"""Weight constraints: closed-form projections, applied after every optimizer update,
serialized in configs and checkpoints."""

import numpy as np
import pytest

import lamina
from lamina import constraints, layers


def _column_norms(w):
    return np.sqrt((w * w).sum(axis=0))


W_NUMPY = np.array([[3.0, -0.1], [4.0, 0.2]], dtype="float32")   # column norms 5.0, ~0.224


def project(constraint):
    """Apply ``constraint`` to W on the active engine; the result as NumPy."""
    backend = lamina.backends.get_backend()
    return backend.to_numpy(constraint(backend.asarray(W_NUMPY)))


def test_non_neg():
    np.testing.assert_allclose(project(constraints.NonNeg()), [[3.0, 0.0], [4.0, 0.2]], rtol=1e-6)


def test_max_norm_rescales_only_long_columns():
    out = project(constraints.MaxNorm(max_value=2.0))
    np.testing.assert_allclose(_column_norms(out), [2.0, _column_norms(W_NUMPY)[1]], rtol=1e-5)


def test_unit_norm():
    np.testing.assert_allclose(_column_norms(project(constraints.UnitNorm())), [1.0, 1.0], rtol=1e-5)


def test_min_max_norm_with_rate():
    out = project(constraints.MinMaxNorm(min_value=1.0, max_value=2.0, rate=0.5))
    norms = _column_norms(W_NUMPY)
    expected = 0.5 * np.clip(norms, 1.0, 2.0) + 0.5 * norms
    np.testing.assert_allclose(_column_norms(out), expected, rtol=1e-5)


def test_unknown_constraint_name_lists_known_ones():
    with pytest.raises(ValueError, match="non_neg"):
        layers.Dense(2, kernel_constraint="positive")


def _fit_towards_negative(constraint):
    lamina.utils.set_random_seed(0)
    x = np.ones((32, 3), "float32")
    y = -np.ones((32, 1), "float32")
    model = lamina.Sequential([lamina.Input((3,)),
                               layers.Dense(1, kernel_constraint=constraint)])
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    model.fit(x, y, epochs=5, batch_size=8, verbose=0)
    return model


def test_constraint_holds_after_every_update():
    kernel = _fit_towards_negative("non_neg").layers[0].kernel.numpy()
    assert kernel.min() >= 0.0
    unconstrained = _fit_towards_negative(None).layers[0].kernel.numpy()
    assert unconstrained.min() < 0.0


def test_constraints_round_trip_through_config_and_checkpoint(tmp_path):
    dense = layers.Dense(3, kernel_constraint=constraints.MaxNorm(1.5, axis=0),
                         bias_constraint="non_neg")
    config = dense.get_config()
    assert config["kernel_constraint"] == {"class_name": "MaxNorm",
                                           "config": {"max_value": 1.5, "axis": 0}}
    clone = layers.Dense.from_config(config)
    assert isinstance(clone.kernel_constraint, constraints.MaxNorm)
    assert clone.kernel_constraint.max_value == 1.5
    assert isinstance(clone.bias_constraint, constraints.NonNeg)
    model = _fit_towards_negative("non_neg")
    path = tmp_path / "constrained.h5"
    model.save(path)
    loaded = lamina.load_model(path)
    assert isinstance(loaded.layers[0].kernel_constraint, constraints.NonNeg)


def test_lower_case_constraints_and_deserialize():
    from lamina import constraints
    assert constraints.max_norm is constraints.MaxNorm
    assert constraints.min_max_norm is constraints.MinMaxNorm
    assert constraints.non_neg is constraints.NonNeg
    assert constraints.unit_norm is constraints.UnitNorm
    rebuilt = constraints.deserialize({"module": "keras.constraints", "class_name": "MaxNorm",
                                       "config": {"max_value": 3, "axis": 1},
                                       "registered_name": None})
    assert type(rebuilt) is constraints.MaxNorm and (rebuilt.max_value, rebuilt.axis) == (3, 1)
    assert type(constraints.deserialize("non_neg")) is constraints.NonNeg


def test_the_norm_constraints_add_lamina_config_epsilon():
    # Keras 3.15.1, keras.config.set_epsilon(1e-3): UnitNorm(axis=0)(full((2, 1), 1e-4))
    # -> [[0.08761005848646164], [0.08761005848646164]]
    lamina.config.set_epsilon(1e-3)
    try:
        projected = lamina.constraints.UnitNorm(axis=0)(np.full((2, 1), 1e-4, "float32"))
    finally:
        lamina.config.set_epsilon(1e-7)
    np.testing.assert_allclose(np.asarray(projected), [[0.08761005848646164]] * 2,
                               rtol=1e-6)
