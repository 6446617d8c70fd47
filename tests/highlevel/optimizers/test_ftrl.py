"""``Ftrl`` against Keras 3.15 (numbers in keras_optimizer_values.json, made by
make_keras_optimizer_values.py): steps (every regularization option too), state, config, save/load, Keras' own files."""

from harness.optimizers import (check_config, check_keras_file, check_save_load_continues,
                                check_steps)

import lamina


def test_steps_match_keras():
    check_steps("ftrl")


def test_steps_with_regularization_match_keras():
    check_steps("ftrl_options")


def test_negative_strengths_are_refused():
    import pytest
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        lamina.optimizers.Ftrl(l1_regularization_strength=-1.0)
    with pytest.raises(ValueError, match="learning_rate_power"):
        lamina.optimizers.Ftrl(learning_rate_power=0.5)


def test_config_round_trip():
    check_config("ftrl", "ftrl")


def test_save_load_continues_training(tmp_path):
    check_save_load_continues(lambda: lamina.optimizers.Ftrl(learning_rate=0.1, l1_regularization_strength=0.01), tmp_path)


def test_keras_file_loads_and_trains_on():
    check_keras_file("ftrl")
