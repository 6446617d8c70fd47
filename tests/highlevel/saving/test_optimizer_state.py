"""Optimizer state in checkpoints: every optimizer's iterations and slots round trip and
training continues identically; a stored iteration that is not a whole number in range is
refused."""

import h5py
import numpy as np
import pytest

import lamina
from harness.saving import data, keras_copy, mlp
from lamina.highlevel.saving.errors import CorruptFileError


@pytest.mark.parametrize("value", [np.float64(1e300), np.int64(-7), np.float64(np.nan)])
def test_a_bad_optimizer_iteration_is_refused(tmp_path, value):
    path = keras_copy(tmp_path)
    with h5py.File(path, "r+") as handle:
        del handle["optimizer_weights/adam/iteration"]
        handle["optimizer_weights/adam/iteration"] = value
    with pytest.raises(CorruptFileError, match="k.h5.*iteration"):
        lamina.load_model(path)


@pytest.mark.parametrize("optimizer", [
    lamina.optimizers.SGD(0.01, momentum=0.8, nesterov=True, clipnorm=1.0),
    lamina.optimizers.Adam(0.002, beta_1=0.8, amsgrad=True),
    lamina.optimizers.AdamW(0.003, weight_decay=0.01),
    lamina.optimizers.RMSprop(0.001, rho=0.8, momentum=0.3, centered=True),
    lamina.optimizers.Adagrad(0.05, initial_accumulator_value=0.2),
    lamina.optimizers.Adam(lamina.optimizers.schedules.ExponentialDecay(0.01, 10, 0.9)),
], ids=["sgd", "adam_amsgrad", "adamw", "rmsprop", "adagrad", "schedule"])
@pytest.mark.parametrize("suffix", [".h5", ".keras"])
def test_every_optimizer_state_round_trips(tmp_path, optimizer, suffix):
    x, y = data(48)
    fresh = lamina.optimizers.deserialize(lamina.optimizers.serialize(optimizer))
    model = mlp(optimizer=fresh)          # one optimizer instance serves both suffixes
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    model.save(tmp_path / f"o{suffix}")
    loaded = lamina.load_model(tmp_path / f"o{suffix}")
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    assert loaded.optimizer.iterations == 3
    assert len(loaded.optimizer.variables) == len(model.optimizer.variables)
    for first, second in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(first.numpy(), second.numpy())
    model.fit(x, y, epochs=1, batch_size=16, verbose=0, shuffle=False)
    loaded.fit(x, y, epochs=1, batch_size=16, verbose=0, shuffle=False)
    for first, second in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_array_equal(first, second)
