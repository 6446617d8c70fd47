"""``benchmarks/gemm_floor.py``: the GEMMs it times are those of one W5 training step, and a
worker run prints its JSON line, back-to-back and after-idle times included (no timing is
asserted)."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import gemm_floor  # noqa: E402


def test_the_shapes_are_a_w5_steps_gemms():
    dense = gemm_floor.dense_shapes()
    # Per block 4 layers (q/k/v packed 128->384, output 128->128, MLP 128->256->128), each
    # forward, input gradient and kernel gradient: the same multiply-adds three times.
    assert len(dense) == 2 * 4 * 3
    assert sum(m * k * n for m, k, n in dense) == 2 * 3 * 2048 * 128 * (384 + 128 + 256 + 256)
    for forward, input_grad, kernel_grad in zip(dense[::3], dense[1::3], dense[2::3]):
        rows, fan_in, fan_out = forward
        assert input_grad == (rows, fan_out, fan_in) and kernel_grad == (fan_in, rows, fan_out)
    attention = gemm_floor.attention_shapes()
    # 2 products forward and 4 backward per block, each over the 32 x 4 (sample, head) pairs.
    assert len(attention) == 2 * 6
    assert all(sorted(shape) == [32, 64, 64] for shape in attention)


def test_a_numpy_worker_prints_its_times():
    completed = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benchmarks", "gemm_floor.py"), "--worker",
         "numpy", "--repeats", "1"], capture_output=True, text=True, timeout=300, check=False)
    assert completed.returncode == 0, completed.stderr[-2000:]
    times = json.loads(completed.stdout)
    assert set(times) == {"dense_ms", "dense_after_idle_ms", "attention_ms"}
    assert all(value > 0 for value in times.values())
