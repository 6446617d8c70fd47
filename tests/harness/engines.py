"""The engines a test runs on: ``ENGINES`` and the ``engine`` fixture; and
:func:`hold_in_other_thread` for the tests of per-thread engine state.

``ENGINES`` is every engine available here plus ``"cupy"``, so a test asking for ``engine``
(directly or through ``check_op``) runs once per engine; the CuPy case skips with the
engine's own reason when CuPy or a GPU is missing.
"""

import threading

import pytest

from lamina.backends import available_backends, use_backend

ENGINES = tuple(dict.fromkeys(available_backends() + ("cupy",)))


def unavailable_reason(name):
    """Why engine ``name`` cannot be selected here (the engine's own error message)."""
    try:
        with use_backend(name):
            pass
    except RuntimeError as error:
        return str(error)
    return "engine could not be selected"


@pytest.fixture(params=ENGINES)
def engine(request):
    """The name of an engine, active for the duration of the test (restored afterwards)."""
    name = request.param
    if name not in available_backends():
        reason = unavailable_reason(name)
        if name == "cupy":
            pytest.skip(f"CuPy/GPU not available: {reason}")
        pytest.skip(f"engine {name!r} not available: {reason}")
    with use_backend(name):
        yield name


def hold_in_other_thread(enter, check):
    """Run ``with enter():`` on another thread and call ``check()`` here while it is open."""
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
