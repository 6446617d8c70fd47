"""``Adafactor`` against Keras 3.15 (numbers in keras_optimizer_values.json, made by
make_keras_optimizer_values.py): steps (factored r/c slots of a 2-D kernel, a full velocity for the bias), state, config, save/load, Keras' own files."""

from harness.optimizers import (check_config, check_keras_file, check_save_load_continues,
                                check_steps)

import lamina


def test_steps_match_keras():
    check_steps("adafactor")


def test_steps_with_options_match_keras():
    check_steps("adafactor_options")


def test_slot_shapes_are_keras_factored_ones():
    import numpy as np
    kernel = lamina.Variable(np.ones((4, 2, 3), "float32"), name="kernel")
    bias = lamina.Variable(np.ones(3, "float32"), name="bias")
    optimizer = lamina.optimizers.Adafactor()
    optimizer.build([kernel, bias])
    shapes = [tuple(v.shape) for v in optimizer.variables[1:]]
    assert shapes == [(4, 2), (4, 3), (4, 2, 3), (), (), (3,)]
    assert optimizer.get_slot(bias, "r").numpy().dtype == np.int32   # Keras placeholder


def test_config_round_trip():
    check_config("adafactor", "adafactor")


def test_save_load_continues_training(tmp_path):
    check_save_load_continues(lambda: lamina.optimizers.Adafactor(learning_rate=0.1), tmp_path)


def test_keras_file_loads_and_trains_on():
    check_keras_file("adafactor")
