"""``Adamax`` against Keras 3.15 (numbers in keras_optimizer_values.json, made by
make_keras_optimizer_values.py): steps, state, config, save/load, Keras' own files."""

from harness.optimizers import (check_config, check_keras_file, check_save_load_continues,
                                check_steps)

import lamina


def test_steps_match_keras():
    check_steps("adamax")


def test_config_round_trip():
    check_config("adamax", "adamax")


def test_save_load_continues_training(tmp_path):
    check_save_load_continues(lambda: lamina.optimizers.Adamax(learning_rate=0.05), tmp_path)


def test_keras_file_loads_and_trains_on():
    check_keras_file("adamax")
