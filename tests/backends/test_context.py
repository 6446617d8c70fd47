"""Engine selection (set_backend, use_backend, LAMINA_BACKEND) and the float dtype setting."""

import os
import subprocess
import sys

import numpy as np
import pytest

import lamina
from lamina.backends import (available_backends, get_backend, known_backends, set_backend,
                             use_backend)


def test_numpy_is_always_available():
    assert "numpy" in available_backends()
    assert set(available_backends()) <= set(known_backends())
    assert known_backends() == ("numpy", "cupy")


def test_set_and_get_backend(engine):
    previous = get_backend()
    try:
        set_backend(engine)
        assert get_backend().name == engine
        assert lamina.config.backend() == engine
        assert isinstance(get_backend(), lamina.backends.Backend)
    finally:
        set_backend(previous.name)


def test_use_backend_restores_the_previous_engine_even_after_an_error(engine):
    before = get_backend()
    with pytest.raises(KeyError):
        with use_backend("numpy") as active:
            assert active.name == "numpy" and get_backend() is active
            raise KeyError("inside")
    assert get_backend() is before


def test_unknown_backend_lists_the_names():
    before = get_backend()
    with pytest.raises(ValueError) as info:
        set_backend("jax")
    message = str(info.value)
    assert "'jax'" in message
    for name in available_backends():
        assert repr(name) in message
    assert get_backend() is before


@pytest.mark.skipif("cupy" in available_backends(), reason="CuPy with a GPU is available")
def test_cupy_without_cupy_or_gpu_says_what_is_missing():
    before = get_backend()
    with pytest.raises(RuntimeError) as info:
        set_backend("cupy")
    assert "CuPy" in str(info.value) or "GPU" in str(info.value)
    try:
        import cupy  # noqa: F401
    except ImportError:
        assert "not installed" in str(info.value)
    else:
        assert "GPU" in str(info.value)
    assert get_backend() is before


def _run_with_env(code, **env):
    """Run ``code`` in a fresh interpreter with extra environment variables."""
    full_env = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True,
                          text=True, timeout=60)


def test_lamina_backend_env_var_is_respected():
    code = "import lamina; print(lamina.backends.get_backend().name)"
    result = _run_with_env(code, LAMINA_BACKEND="numpy")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "numpy"
    result = _run_with_env(code, LAMINA_BACKEND="no-such-engine")
    assert result.returncode != 0
    assert "ValueError" in result.stderr and "no-such-engine" in result.stderr
    if "cupy" not in available_backends():
        result = _run_with_env(code, LAMINA_BACKEND="cupy")
        assert result.returncode != 0
        assert "RuntimeError" in result.stderr and "cupy" in result.stderr


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
