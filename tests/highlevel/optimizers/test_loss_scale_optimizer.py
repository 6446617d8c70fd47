"""LossScaleOptimizer against Keras 3.15's numbers: the loss-scale trajectory (skip and
halve on inf/NaN, double after ``dynamic_growth_steps`` finite steps), the unscaled
updates, the config, and the arguments Keras refuses."""

import numpy as np
import pytest

import lamina
from lamina import optimizers

# KERAS_BACKEND=torch keras 3.15.1:
#   v = keras.Variable([1.0, 2.0]); opt = LossScaleOptimizer(SGD(0.1), initial_scale=8.0,
#   dynamic_growth_steps=2); opt.apply([g], [v]) for each g below; after each step:
#   (dynamic_scale, step_counter, iterations, v)
GRADIENTS = [[1.0, 1.0], [np.inf, 1.0], [0.5, 0.5], [np.nan, 0.0], [2.0, 2.0], [1.0, 1.0],
             [1.0, 1.0], [4.0, 4.0]]
KERAS_TRAJECTORY = [
    (8.0, 1, 1, [0.987500011920929, 1.9874999523162842]),
    (4.0, 0, 1, [0.987500011920929, 1.9874999523162842]),
    (4.0, 1, 2, [0.9750000238418579, 1.9749999046325684]),
    (2.0, 0, 2, [0.9750000238418579, 1.9749999046325684]),
    (2.0, 1, 3, [0.875, 1.8749998807907104]),
    (4.0, 0, 4, [0.824999988079071, 1.8249999284744263]),
    (4.0, 1, 5, [0.800000011920929, 1.7999999523162842]),
    (8.0, 0, 6, [0.699999988079071, 1.6999999284744263]),
]


def test_scale_trajectory_matches_keras():
    variable = lamina.Variable(np.array([1.0, 2.0], "float32"))
    optimizer = optimizers.LossScaleOptimizer(optimizers.SGD(0.1), initial_scale=8.0,
                                              dynamic_growth_steps=2)
    for gradient, expected in zip(GRADIENTS, KERAS_TRAJECTORY):
        optimizer.apply([np.array(gradient, "float32")], [variable])
        scale, counter, iterations, values = expected
        assert float(optimizer.dynamic_scale.numpy()) == scale
        assert int(optimizer.step_counter.numpy()) == counter
        assert optimizer.iterations == iterations
        np.testing.assert_array_equal(variable.numpy(), np.float32(values))


def test_scale_loss_and_delegation():
    inner = optimizers.Adam(learning_rate=0.5, loss_scale_factor=4.0)
    optimizer = optimizers.LossScaleOptimizer(inner)
    assert inner.loss_scale_factor is None            # not unscaled twice
    assert float(optimizer.scale_loss(lamina.Tensor(np.float32(2.0)))) == 65536.0
    assert optimizer.learning_rate == 0.5
    optimizer.learning_rate = 0.25
    assert inner.learning_rate == 0.25
    assert lamina.mixed_precision.LossScaleOptimizer is optimizers.LossScaleOptimizer


def test_config_round_trip_as_keras():
    optimizer = optimizers.LossScaleOptimizer(optimizers.SGD(0.1), initial_scale=8.0,
                                              dynamic_growth_steps=2)
    config = optimizer.get_config()
    assert config["name"] == "loss_scale_optimizer"
    assert (config["initial_scale"], config["dynamic_growth_steps"]) == (8.0, 2)
    assert config["inner_optimizer"]["class_name"] == "SGD"
    again = optimizers.deserialize(optimizers.serialize(optimizer))
    assert type(again) is optimizers.LossScaleOptimizer and again.get_config() == config
    # Keras 3.15 writes this (the inner optimizer's module names Keras' torch class)
    keras_config = {"module": "keras.optimizers", "class_name": "LossScaleOptimizer",
                    "config": {"name": "loss_scale_optimizer", "inner_optimizer": {
                        "module": "keras.src.backend.torch.optimizers.torch_sgd",
                        "class_name": "SGD", "config": {"name": "sgd", "learning_rate": 0.01,
                                                        "momentum": 0.0, "nesterov": False},
                        "registered_name": "SGD"},
                        "initial_scale": 32768.0, "dynamic_growth_steps": 2000},
                    "registered_name": None}
    from_keras = optimizers.deserialize(keras_config)
    assert type(from_keras.inner_optimizer).__name__ == "SGD"
    assert float(from_keras.dynamic_scale.numpy()) == 32768.0


@pytest.mark.parametrize("kwargs, message", [
    ({"dynamic": False}, "no longer supports `dynamic=False`"),
    ({"clipnorm": 1.0}, "does not support `clipnorm`"),
    ({"foo": 1}, "does not support arguments: `foo`"),
])
def test_refused_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        optimizers.LossScaleOptimizer(optimizers.SGD(), **kwargs)
    optimizers.LossScaleOptimizer(optimizers.SGD(), weight_decay=None)   # defaults accepted


def test_overflowing_float16_step_is_skipped_in_fit():
    lamina.mixed_precision.set_global_policy("mixed_float16")
    try:
        model = lamina.Sequential([lamina.layers.Input((2,)), lamina.layers.Dense(1),
                                   lamina.layers.Activation("linear", dtype="float32")])
        model.compile(optimizers.SGD(0.01), "mse")
    finally:
        lamina.mixed_precision.set_global_policy(None)
    before = model.get_weights()
    x = np.full((4, 2), 100.0, "float32")               # loss * 2**15 overflows float16
    model.train_on_batch(x, np.zeros((4, 1), "float32"))
    assert float(model.optimizer.dynamic_scale.numpy()) == 16384.0
    assert model.optimizer.iterations == 0
    for old, new in zip(before, model.get_weights()):
        np.testing.assert_array_equal(old, new)


def test_gradients_are_averaged_once_before_the_finite_check():
    # data-parallel: the average comes first (every process then skips alike), and the
    # inner optimizer does not average again
    calls = []
    lamina.backends.replica.set_gradient_reducer(
        lambda grads: calls.append(1) or [np.zeros_like(g) for g in grads])
    variable = lamina.Variable(np.array([1.0, 2.0], "float32"))
    optimizer = optimizers.LossScaleOptimizer(optimizers.SGD(0.1), initial_scale=8.0)
    try:
        optimizer.apply([np.array([np.inf, 1.0], "float32")], [variable])
    finally:
        lamina.backends.replica.set_gradient_reducer(None)
    assert calls == [1] and float(optimizer.dynamic_scale.data) == 8.0
    assert int(optimizer.iterations) == 1
