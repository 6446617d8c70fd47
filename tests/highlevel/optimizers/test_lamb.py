"""``Lamb`` against Keras 3.15 (numbers in keras_optimizer_values.json, made by
make_keras_optimizer_values.py): steps (with betas, epsilon, weight decay and clipnorm too),
state, config, save/load, Keras' own file; the trust ratio's zero-norm cases."""

import numpy as np
from harness.optimizers import (check_config, check_keras_file, check_save_load_continues,
                                check_steps)

import lamina


def test_steps_match_keras():
    check_steps("lamb")


def test_steps_with_options_and_weight_decay_match_keras():
    check_steps("lamb_decay")


def test_config_round_trip():
    check_config("lamb", "lamb")


def test_save_load_continues_training(tmp_path):
    check_save_load_continues(lambda: lamina.optimizers.Lamb(learning_rate=0.01), tmp_path)


def test_keras_file_loads_and_trains_on():
    check_keras_file("lamb")


def test_a_zero_variable_takes_the_plain_adam_step():
    # ||w|| = 0: the trust ratio is 1, so the first step is lr * m_hat / (sqrt(v_hat) + eps)
    variable = lamina.Variable(np.zeros(3, "float32"))
    gradient = np.array([0.5, -2.0, 0.0], "float32")
    lamina.optimizers.Lamb(learning_rate=0.1).apply([gradient], [variable])
    np.testing.assert_allclose(variable.numpy(), -0.1 * gradient / (np.abs(gradient) + 1e-7),
                               rtol=1e-5)
    unchanged = lamina.Variable(np.ones(2, "float32"))              # ||u|| = 0: no change
    lamina.optimizers.Lamb().apply([np.zeros(2, "float32")], [unchanged])
    np.testing.assert_array_equal(unchanged.numpy(), [1.0, 1.0])


def test_the_compiled_step_is_bit_identical_to_eager():
    x = np.random.default_rng(0).normal(size=(64, 4)).astype("float32")
    y = x @ np.ones((4, 2), "float32")
    weights = []
    for jit_compile in (False, True):
        lamina.utils.set_random_seed(1)
        model = lamina.Sequential([lamina.layers.Input((4,)),
                                   lamina.layers.Dense(8, activation="relu"),
                                   lamina.layers.Dense(2)])
        model.compile(lamina.optimizers.Lamb(0.01), "mse", jit_compile=jit_compile)
        model.fit(x, y, epochs=2, batch_size=16, verbose=0)
        weights.append(model.get_weights())
    for eager, compiled in zip(*weights):
        np.testing.assert_array_equal(eager, compiled)
