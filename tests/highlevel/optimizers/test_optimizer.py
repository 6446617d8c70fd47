"""The base optimizer's ``use_ema`` / ``ema_momentum`` / ``ema_overwrite_frequency`` and
``gradient_accumulation_steps`` against Keras 3.15 (keras_optimizer_values.json, made by
make_keras_optimizer_values.py): variables, state in Keras' order (``*_average``, then
``*_gradient_accumulator``, then the rule's slots), ``finalize_variable_values``, files.
Adam's own float32 rounding differs from Keras' torch Adam by up to ~1e-5 at lr=0.1, hence
the wider tolerance of the Adam cases."""

import numpy as np
import pytest
from harness.optimizers import check_keras_file, check_save_load_continues, check_steps

import lamina


@pytest.mark.parametrize("name", ["adam_ema", "adam_ema_overwrite", "adam_accumulate"])
def test_adam_options_match_keras(name):
    check_steps(name, atol=2e-5)


def test_sgd_with_accumulation_and_ema_matches_keras():
    check_steps("sgd_accumulate_ema")


@pytest.mark.parametrize("name", ["adam_ema", "adam_accumulate"])
def test_keras_files_with_the_options_load_and_train_on(name):
    check_keras_file(name, atol=2e-5)


@pytest.mark.parametrize("options", [{"use_ema": True, "ema_overwrite_frequency": 2},
                                     {"gradient_accumulation_steps": 2}])
def test_save_load_continues_with_the_options(options, tmp_path):
    check_save_load_continues(lambda: lamina.optimizers.Adam(0.05, **options), tmp_path)


def test_accumulation_updates_every_nth_call_with_the_mean_gradient():
    w = lamina.Variable(np.zeros(2, "float32"), name="w")
    optimizer = lamina.optimizers.SGD(learning_rate=1.0, gradient_accumulation_steps=3)
    for g in ([1.0, 2.0], [3.0, 4.0]):
        optimizer.apply([np.array(g, "float32")], [w])
        np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])
    assert optimizer.iterations == 0 and int(optimizer.iterations_variable.numpy()) == 2
    optimizer.apply([np.array([5.0, 6.0], "float32")], [w])
    np.testing.assert_allclose(w.numpy(), [-3.0, -4.0])
    assert optimizer.iterations == 1
    np.testing.assert_array_equal(optimizer.get_slot(w, "gradient_accumulator").numpy(), 0)


def test_fit_ends_with_the_moving_averages_in_the_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 2)).astype("float32")
    y = rng.normal(size=(16, 1)).astype("float32")
    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.SGD(0.1, use_ema=True), loss="mse")
    model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    averages = [model.optimizer.get_slot(w, "average").numpy()
                for w in model.trainable_weights]
    for weight, average in zip(model.get_weights(), averages):
        np.testing.assert_array_equal(weight, average)


@pytest.mark.parametrize("kwargs, match", [
    ({"gradient_accumulation_steps": 1}, "gradient_accumulation_steps"),
    ({"use_ema": True, "ema_momentum": 1.5}, "ema_momentum"),
    ({"use_ema": True, "ema_overwrite_frequency": 0.5}, "ema_overwrite_frequency"),
])
def test_bad_options_are_refused_as_keras_does(kwargs, match):
    with pytest.raises(ValueError, match=match):
        lamina.optimizers.Adam(**kwargs)
