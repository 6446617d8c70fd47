"""Engine selection (set_backend, use_backend, LAMINA_BACKEND), per thread."""

import os
import subprocess
import sys

import pytest

import lamina
from harness.engines import hold_in_other_thread
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


# ---------------------------------------------------------------------- threads
def test_use_backend_in_one_thread_leaves_the_others_engine(monkeypatch):
    from lamina.backends import context as selection
    from lamina.backends.numpy.engine import NumpyBackend

    other = NumpyBackend()
    other.name = "other"
    monkeypatch.setitem(selection._ENGINES, "other", selection._ENGINES["numpy"])
    monkeypatch.setitem(selection._instances, "other", other)
    before = get_backend()
    seen = []
    hold_in_other_thread(lambda: use_backend("other"),
                          lambda: seen.append(get_backend()))
    assert seen == [before] and get_backend() is before
    with use_backend("other") as engine:   # and in this thread it does apply
        assert engine is other and get_backend() is other
    assert get_backend() is before


@pytest.mark.parametrize("name", ["cpu", "CPU:0", "/device:CPU:0", "/cpu:0"])
def test_device_cpu_selects_the_numpy_engine_for_its_body(name):
    before = get_backend()
    with lamina.device(name) as device_name:
        assert device_name == "cpu:0"
        assert lamina.backend.backend() == "numpy"
    assert get_backend() is before


@pytest.mark.parametrize("name", ["tpu", "cpu:1", "gpu:x", "cuda:-1", "", 0, None])
def test_device_refuses_names_it_does_not_know(name):
    with pytest.raises(ValueError, match="device_name.*'cpu'.*'gpu:N'.*Received"):
        with lamina.device(name):
            pass


@pytest.mark.skipif("cupy" in available_backends(), reason="CuPy with a GPU is available")
@pytest.mark.parametrize("name", ["gpu", "cuda:0", "GPU:1"])
def test_device_gpu_without_cupy_or_a_gpu_says_what_is_missing(name):
    with pytest.raises(RuntimeError, match="cupy"):
        with lamina.device(name):
            pass


@pytest.mark.skipif("cupy" not in available_backends(), reason="needs CuPy and a GPU")
def test_device_gpu_runs_on_that_gpu_with_the_cupy_engine():
    import cupy

    count = cupy.cuda.runtime.getDeviceCount()
    with lamina.device(f"cuda:{count - 1}") as device_name:
        assert device_name == f"gpu:{count - 1}"
        assert lamina.backend.backend() == "cupy"
        assert cupy.cuda.Device().id == count - 1
        assert lamina.ops.add(lamina.ops.ones((2,)), 1.0).data.device.id == count - 1
    with pytest.raises(ValueError, match=f"has {count} GPU"):
        with lamina.device(f"gpu:{count}"):
            pass
