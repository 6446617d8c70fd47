"""Engine state: the default float dtype (``floatx``) and the per-thread scopes (a scoped
value stays in its thread; top-level settings reach every thread)."""

import threading

import numpy as np
import pytest

import lamina
from harness.engines import hold_in_other_thread
from lamina.backends import state


@pytest.fixture
def restore_floatx():
    """Put the default float dtype back after the test."""
    previous = lamina.config.floatx()
    yield
    lamina.config.set_floatx(previous)


def test_floatx_defaults_and_set_floatx(engine, restore_floatx):
    assert lamina.config.floatx() == "float32"
    assert lamina.backends.floatx() == "float32"
    lamina.config.set_floatx("float64")
    assert lamina.config.floatx() == lamina.backends.floatx() == "float64"
    assert lamina.Tensor([1.0, 2.0]).dtype == np.float64
    assert lamina.ops.one_hot([1], 2).dtype == np.float64
    lamina.backends.set_floatx(np.float16)
    assert lamina.config.floatx() == "float16"
    assert lamina.Tensor(1.0).dtype == np.float16


def test_set_floatx_rejects_non_float_dtypes(restore_floatx):
    with pytest.raises(ValueError, match="float16.*float32.*float64"):
        lamina.config.set_floatx("int32")
    assert lamina.config.floatx() == "float32"


def test_a_scoped_floatx_and_seed_stay_in_their_thread():
    def scope():
        return state.scoped(floatx="float64", seed=7)

    seen = []
    hold_in_other_thread(scope, lambda: seen.append((state.floatx(), state.seed())))
    assert seen == [(state.floatx(), state.seed())] and state.floatx() == "float32"


def test_top_level_settings_reach_every_thread_and_scoped_setters_stay_scoped():
    seen = []
    try:
        lamina.config.set_floatx("float64")   # top level: process-wide, as users expect
        worker = threading.Thread(target=lambda: seen.append(state.floatx()))
        worker.start()
        worker.join(30)
        with state.scoped(floatx="float16"):
            lamina.config.set_floatx("float32")    # inside a scope: changes the scope only
            assert state.floatx() == "float32"
        assert seen == ["float64"] and state.floatx() == "float64"
    finally:
        lamina.config.set_floatx("float32")


def test_standardize_data_format_reads_the_image_data_format():
    assert state.standardize_data_format("CHANNELS_FIRST") == "channels_first"
    assert state.standardize_data_format(None) == "channels_last"
    state.set_image_data_format("channels_first")
    try:
        assert state.standardize_data_format(None) == "channels_first"
    finally:
        state.set_image_data_format("channels_last")
    with pytest.raises(ValueError, match="Received: data_format=nhwc"):
        state.standardize_data_format("nhwc")


def test_set_epsilon_stores_a_float():
    state.set_epsilon(np.float32(0.5))
    try:
        assert state.epsilon() == 0.5 and type(state.epsilon()) is float
    finally:
        state.set_epsilon(1e-7)


def test_a_thread_adopts_another_thread_s_scoped_values_and_restores_its_own():
    generator = np.random.default_rng(3)
    with state.scoped(floatx="float64", generator=generator, epoch_key=(2, 5)):
        values = state.thread_values()
    seen = []

    def adopting():
        token = state.adopt(values)
        try:
            seen.append((state.floatx(), state.generator() is generator, state.epoch_key()))
        finally:
            state.restore(token)
        seen.append(state.floatx())

    worker = threading.Thread(target=adopting)
    worker.start()
    worker.join(30)
    assert seen == [("float64", True, (2, 5)), state.floatx()]
    assert state.thread_values() == {}    # this thread: no scope open now
