"""Optimizers by identifier: ``get`` (case-insensitive names, instances, Keras 2 configs)
and the error listing the known names."""

import pytest

from lamina.highlevel import optimizers


def test_get_is_case_insensitive_and_accepts_dicts():
    for name, cls in (("adam", optimizers.Adam), ("Adam", optimizers.Adam),
                      ("SGD", optimizers.SGD), ("sgd", optimizers.SGD),
                      ("rmsprop", optimizers.RMSprop), ("RMSprop", optimizers.RMSprop),
                      ("adagrad", optimizers.Adagrad), ("adamw", optimizers.AdamW),
                      ("AdamW", optimizers.AdamW)):
        assert type(optimizers.get(name)) is cls
    instance = optimizers.SGD()
    assert optimizers.get(instance) is instance
    keras2 = {"class_name": "Adam", "config": {"name": "Adam", "learning_rate": 0.01,
                                               "decay": 0.0, "beta_1": 0.9, "beta_2": 0.999,
                                               "epsilon": 1e-7, "amsgrad": False,
                                               "jit_compile": False,
                                               "is_legacy_optimizer": False}}
    assert optimizers.get(keras2).learning_rate == pytest.approx(0.01)


def test_unknown_optimizer_lists_known_names():
    with pytest.raises(ValueError, match="rmsprop"):
        optimizers.get("adamax_typo")
