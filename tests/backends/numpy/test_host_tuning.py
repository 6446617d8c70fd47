"""The NumPy engine's process settings (``backends/numpy/host_tuning.py``): ``import
lamina`` changes nothing; the first use of the NumPy engine makes freed array memory stay
in the process (glibc) and OpenBLAS' idle threads stop spinning soon (only while no other
thread runs), and ``LAMINA_HOST_TUNING=0`` leaves the process alone."""

import json
import os
import platform
import subprocess
import sys

import pytest

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# Allocate five 8 MB arrays and free them, twenty times, after ``import lamina`` and again
# after the engine's first use; report the minor page faults, the BLAS timeout, what the
# engine set up, and a GEMM computed after OpenBLAS' threads were restarted. With
# OTHER_THREAD a second thread is alive when the engine is first used.
SCRIPT = """
import json, os, resource, sys, threading
import numpy as np
import threadpoolctl
import lamina
from lamina.backends.numpy import host_tuning, threads as batch_threads

def faults():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        arrays = [np.ones(2 * 1024 * 1024, dtype=np.float32) for _ in range(5)]
        del arrays
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

at_import = {"faults": faults(), "timeout": os.environ.get("OPENBLAS_THREAD_TIMEOUT")}
release = threading.Event()
if sys.argv[1] == "OTHER_THREAD":
    threading.Thread(target=release.wait).start()
lamina.backends.get_backend()
release.set()
blas = threadpoolctl.threadpool_info()
a = np.arange(512 * 512, dtype=np.float64).reshape(512, 512) % 7
print(json.dumps({
    "at_import": at_import, "faults": faults(), "memory": host_tuning.freed_memory_kept(),
    "threads": batch_threads.available(),
    "timeout": os.environ.get("OPENBLAS_THREAD_TIMEOUT"),
    "openblas_pthreads": any(i["internal_api"] == "openblas" and
                             i.get("threading_layer") == "pthreads" for i in blas),
    "gemm_ok": bool(np.array_equal(a @ a, np.einsum("ij,jk->ik", a, a))),
}))
"""


def run_script(setting, other_thread=False):
    env = dict(os.environ, LAMINA_HOST_TUNING=setting)
    env.pop("OPENBLAS_THREAD_TIMEOUT", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT,
                          "OTHER_THREAD" if other_thread else "ALONE"], env=env,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.skipif(not GLIBC, reason="the allocator settings are glibc's")
def test_freed_memory_is_reused_and_the_setting_can_be_switched_off():
    tuned, untuned = run_script("1"), run_script("0")
    assert tuned["memory"] and not untuned["memory"]
    # glibc's defaults return most of the 40 MB to the kernel on every round (~40,000
    # faults here); kept memory is faulted in once (~2,500)
    assert untuned["faults"] > 20_000
    assert tuned["faults"] < untuned["faults"] / 5


@pytest.mark.skipif(not GLIBC, reason="the allocator settings are glibc's")
def test_import_changes_nothing_until_the_engine_is_first_used():
    tuned = run_script("1")
    assert tuned["at_import"]["timeout"] is None
    assert tuned["at_import"]["faults"] > 20_000            # glibc's defaults still hold
    assert tuned["faults"] < tuned["at_import"]["faults"] / 5


def test_openblas_threads_spin_briefly_and_gemms_stay_right():
    tuned, untuned = run_script("1"), run_script("0")
    assert tuned["gemm_ok"] and untuned["gemm_ok"]
    assert not untuned["threads"] and untuned["timeout"] is None
    if not tuned["openblas_pthreads"]:
        pytest.skip("NumPy's BLAS here is not OpenBLAS with pthreads")
    from lamina.backends.numpy import host_tuning

    assert tuned["threads"] and tuned["timeout"] == str(host_tuning.BLAS_SPIN_EXPONENT)


def test_openblas_is_left_alone_while_another_thread_runs():
    tuned = run_script("1", other_thread=True)
    assert tuned["gemm_ok"] and tuned["timeout"] is None and not tuned["threads"]
    assert tuned["memory"] == GLIBC


def test_a_timeout_the_user_chose_is_kept_and_tuning_can_be_switched_off(monkeypatch):
    from lamina.backends.numpy import host_tuning

    class Library:
        internal_api, threading_layer, filepath = "openblas", "pthreads", "/nonexistent"

    class Controller:
        lib_controllers = [Library()]

    monkeypatch.setenv("OPENBLAS_THREAD_TIMEOUT", "28")
    assert host_tuning._tune_openblas(Controller()) is False     # long spin: no blocks
    monkeypatch.setenv("OPENBLAS_THREAD_TIMEOUT", "10")
    assert host_tuning._tune_openblas(Controller()) is True
    monkeypatch.setenv("OPENBLAS_THREAD_TIMEOUT", "20")                # still short
    assert host_tuning._tune_openblas(Controller()) is True
    monkeypatch.setattr(host_tuning, "_STATE", {})
    monkeypatch.setenv("LAMINA_HOST_TUNING", "0")
    assert not host_tuning.blas_spin_is_short() and not host_tuning.freed_memory_kept()
