"""``lamina.config``: Keras' global settings (their defaults, checks and the environment
variables Keras reads); what each setting changes is tested where it acts (losses, layers,
the progress bar, the trainer, loading)."""

import os
import subprocess
import sys

import pytest

import lamina
from lamina import config


@pytest.fixture
def restore_settings():
    """Put Keras' defaults back after the test."""
    yield
    config.set_epsilon(1e-7)
    config.set_image_data_format("channels_last")
    config.enable_interactive_logging()
    config.enable_traceback_filtering()
    config.enable_flash_attention()
    config.set_max_epochs(None)
    config.set_max_steps_per_epoch(None)


def test_every_keras_config_name_is_there():
    # dir(keras.config) of Keras 3.15.1
    keras_names = {
        "backend", "disable_flash_attention", "disable_interactive_logging",
        "disable_traceback_filtering", "dtype_policy", "enable_flash_attention",
        "enable_interactive_logging", "enable_traceback_filtering",
        "enable_unsafe_deserialization", "epsilon", "floatx", "image_data_format",
        "is_flash_attention_enabled", "is_interactive_logging_enabled", "is_nnx_enabled",
        "is_traceback_filtering_enabled", "max_epochs", "max_steps_per_epoch", "set_backend",
        "set_dtype_policy", "set_epsilon", "set_floatx", "set_image_data_format",
        "set_max_epochs", "set_max_steps_per_epoch"}
    assert keras_names <= set(lamina.config.__all__)
    assert all(callable(getattr(lamina.config, name)) for name in keras_names)


def test_keras_defaults():
    assert config.epsilon() == 1e-7
    assert config.image_data_format() == "channels_last"
    assert config.is_interactive_logging_enabled() is True
    assert config.is_traceback_filtering_enabled() is True
    assert config.is_flash_attention_enabled() is None       # Keras' "not disabled"
    assert config.is_nnx_enabled() is False
    assert config.max_epochs() is None and config.max_steps_per_epoch() is None


def test_setters_change_what_the_getters_return(restore_settings):
    config.set_epsilon(1e-5)
    assert config.epsilon() == 1e-5 and lamina.backend.epsilon() == 1e-5
    config.set_image_data_format("Channels_First")
    assert config.image_data_format() == "channels_first"
    config.disable_interactive_logging()
    assert config.is_interactive_logging_enabled() is False
    config.disable_traceback_filtering()
    assert config.is_traceback_filtering_enabled() is False
    config.disable_flash_attention()
    assert config.is_flash_attention_enabled() is False
    config.enable_flash_attention()
    assert config.is_flash_attention_enabled() is None
    config.set_max_epochs(3)
    config.set_max_steps_per_epoch(5)
    assert (config.max_epochs(), config.max_steps_per_epoch()) == (3, 5)


def test_bad_values_raise_and_change_nothing(restore_settings):
    with pytest.raises(ValueError, match="channels_first.*channels_last.*Received: "
                                         "data_format=channels_middle"):
        config.set_image_data_format("channels_middle")
    assert config.image_data_format() == "channels_last"
    for bad in (0, -2, 2.5, "3", True):
        with pytest.raises(ValueError, match="max_epochs must be a positive integer"):
            config.set_max_epochs(bad)
        with pytest.raises(ValueError, match="max_steps_per_epoch must be a positive"):
            config.set_max_steps_per_epoch(bad)
    assert config.max_epochs() is None and config.max_steps_per_epoch() is None


def test_the_caps_come_from_keras_environment_variables():
    environment = {**os.environ, "KERAS_MAX_EPOCHS": "2", "KERAS_MAX_STEPS_PER_EPOCH": "7"}
    code = ("import lamina; assert lamina.config.max_epochs() == 2; "
            "assert lamina.config.max_steps_per_epoch() == 7")
    subprocess.run([sys.executable, "-c", code], check=True, env=environment)
    # 0 is no cap, as in Keras (which tests the value's truth); text names the variable
    environment = {**os.environ, "KERAS_MAX_EPOCHS": "0", "KERAS_MAX_STEPS_PER_EPOCH": ""}
    code = ("import lamina; assert lamina.config.max_epochs() is None; "
            "assert lamina.config.max_steps_per_epoch() is None")
    subprocess.run([sys.executable, "-c", code], check=True, env=environment)
    environment["KERAS_MAX_EPOCHS"] = "two"
    failed = subprocess.run([sys.executable, "-c", "import lamina"], env=environment,
                            capture_output=True, text=True)
    assert failed.returncode != 0 and "KERAS_MAX_EPOCHS must be an integer" in failed.stderr


def test_enable_unsafe_deserialization_turns_safe_mode_off_for_good():
    code = ("from lamina.backends import config; "
            "assert config.effective_safe_mode(True) is True; "
            "config.enable_unsafe_deserialization(); "
            "assert config.effective_safe_mode(True) is False")
    subprocess.run([sys.executable, "-c", code], check=True)
