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


# ---------------------------------------------------------------------- threads
def _hold_in_other_thread(enter, check):
    """Run ``with enter():`` on another thread and call ``check()`` here while it is open."""
    import threading

    inside, release, errors = threading.Event(), threading.Event(), []

    def hold():
        try:
            with enter():
                inside.set()
                release.wait(30)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
            inside.set()

    worker = threading.Thread(target=hold)
    worker.start()
    try:
        assert inside.wait(30)
        check()
    finally:
        release.set()
        worker.join(30)
    assert not errors, errors


def test_use_backend_in_one_thread_leaves_the_others_engine(monkeypatch):
    from lamina.backends import context as selection
    from lamina.backends.numpy.engine import NumpyBackend

    other = NumpyBackend()
    other.name = "other"
    monkeypatch.setitem(selection._ENGINES, "other", selection._ENGINES["numpy"])
    monkeypatch.setitem(selection._instances, "other", other)
    before = get_backend()
    seen = []
    _hold_in_other_thread(lambda: use_backend("other"),
                          lambda: seen.append(get_backend()))
    assert seen == [before] and get_backend() is before
    with use_backend("other") as engine:   # and in this thread it does apply
        assert engine is other and get_backend() is other
    assert get_backend() is before


def test_a_scoped_floatx_and_seed_stay_in_their_thread():
    from lamina.backends import state

    def scope():
        return state.scoped(floatx="float64", seed=7)

    seen = []
    _hold_in_other_thread(scope, lambda: seen.append((state.floatx(), state.seed())))
    assert seen == [(state.floatx(), state.seed())] and state.floatx() == "float32"


def test_top_level_settings_reach_every_thread_and_scoped_setters_stay_scoped():
    import threading

    from lamina.backends import state

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
