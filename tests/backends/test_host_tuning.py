"""The NumPy engine's process settings (``backends/host_tuning.py``): freed array memory
stays in the process (glibc), OpenBLAS' idle threads stop spinning soon, and
``LAMINA_HOST_TUNING=0`` leaves the process alone."""

import json
import os
import platform
import subprocess
import sys

import pytest

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# Allocate five 8 MB arrays and free them, twenty times; report the minor page faults,
# what the engine set up, and a GEMM computed after OpenBLAS' threads were restarted.
SCRIPT = """
import json, os, resource
import numpy as np
import threadpoolctl
import lamina
from lamina.backends.numpy import host_tuning, threads as batch_threads
lamina.backends.get_backend()
blas = threadpoolctl.threadpool_info()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    arrays = [np.ones(2 * 1024 * 1024, dtype=np.float32) for _ in range(5)]
    del arrays
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
a = np.arange(512 * 512, dtype=np.float64).reshape(512, 512) % 7
print(json.dumps({
    "memory": host_tuning.freed_memory_kept(), "faults": faults,
    "threads": batch_threads.available(),
    "timeout": os.environ.get("OPENBLAS_THREAD_TIMEOUT"),
    "openblas_pthreads": any(i["internal_api"] == "openblas" and
                             i.get("threading_layer") == "pthreads" for i in blas),
    "gemm_ok": bool(np.array_equal(a @ a, np.einsum("ij,jk->ik", a, a))),
}))
"""


def run_script(setting):
    env = dict(os.environ, LAMINA_HOST_TUNING=setting)
    env.pop("OPENBLAS_THREAD_TIMEOUT", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.skipif(not GLIBC, reason="the allocator settings are glibc's")
def test_freed_memory_is_reused_and_the_setting_can_be_switched_off():
    tuned, untuned = run_script("1"), run_script("0")
    assert tuned["memory"] and not untuned["memory"]
    # glibc's defaults return most of the 40 MB to the kernel on every round (~40,000
    # faults here); kept memory is faulted in once (~2,500)
    assert untuned["faults"] > 20_000
    assert tuned["faults"] < untuned["faults"] / 5


def test_openblas_threads_spin_briefly_and_gemms_stay_right():
    tuned, untuned = run_script("1"), run_script("0")
    assert tuned["gemm_ok"] and untuned["gemm_ok"]
    assert not untuned["threads"] and untuned["timeout"] is None
    if not tuned["openblas_pthreads"]:
        pytest.skip("NumPy's BLAS here is not OpenBLAS with pthreads")
    assert tuned["threads"] and tuned["timeout"] == "20"


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
    monkeypatch.setattr(host_tuning, "_STATE", {})
    monkeypatch.setenv("LAMINA_HOST_TUNING", "0")
    assert not host_tuning.blas_spin_is_short() and not host_tuning.freed_memory_kept()
