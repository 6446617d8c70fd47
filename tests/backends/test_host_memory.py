"""The NumPy engine keeps freed array memory in the process (glibc ``mallopt``), so steps
that allocate and free the same large arrays do not fault fresh pages in every time."""

import os
import platform
import subprocess
import sys

import pytest

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# Allocate five 8 MB arrays and free them, twenty times; report the minor page faults.
STEPS = """
import resource, numpy as np
import lamina
from lamina.backends import host_memory
tuned = host_memory.keep_freed_memory()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    arrays = [np.ones(2 * 1024 * 1024, dtype=np.float32) for _ in range(5)]
    del arrays
print(tuned, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def run_steps(setting):
    env = dict(os.environ, LAMINA_TUNE_MALLOC=setting)
    out = subprocess.run([sys.executable, "-c", STEPS], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout.split()
    return out[0] == "True", int(out[1])


@pytest.mark.skipif(not GLIBC, reason="the allocator settings are glibc's")
def test_tuned_allocator_reuses_freed_memory_and_can_be_switched_off():
    tuned, tuned_faults = run_steps("1")
    untuned, untuned_faults = run_steps("0")
    assert tuned and not untuned
    # glibc's defaults return most of the 40 MB to the kernel on every round (~40,000
    # faults here); kept memory is faulted in once (~2,500)
    assert untuned_faults > 20_000
    assert tuned_faults < untuned_faults / 5


def test_switched_off_changes_nothing(monkeypatch):
    from lamina.backends import host_memory
    monkeypatch.setenv("LAMINA_TUNE_MALLOC", "0")
    assert host_memory._tune() is False
