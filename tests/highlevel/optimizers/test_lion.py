"""``Lion`` against Keras 3.15 (numbers in keras_optimizer_values.json, made by
make_keras_optimizer_values.py): steps (with weight decay too), state, config, save/load, Keras' own files."""

from harness.optimizers import (check_config, check_keras_file, check_save_load_continues,
                                check_steps)

import lamina


def test_steps_match_keras():
    check_steps("lion")


def test_steps_with_betas_and_weight_decay_match_keras():
    check_steps("lion_decay")


def test_beta_1_out_of_range_is_refused():
    import pytest
    with pytest.raises(ValueError, match="beta_1"):
        lamina.optimizers.Lion(beta_1=0.0)


def test_config_round_trip():
    check_config("lion", "lion")


def test_save_load_continues_training(tmp_path):
    check_save_load_continues(lambda: lamina.optimizers.Lion(learning_rate=0.01), tmp_path)


def test_keras_file_loads_and_trains_on():
    check_keras_file("lion")
