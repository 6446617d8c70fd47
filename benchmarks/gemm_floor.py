"""The GEMMs alone of one W5 training step: the time no engine's step can go below.

Usage:
    python benchmarks/gemm_floor.py                 # NumPy's BLAS, and PyTorch if installed
    python benchmarks/gemm_floor.py --repeats 50

W5's step (batch 32, length 64, width 128, 4 heads of 32, MLP 256, 2 blocks) multiplies,
per block, the packed query/key/value projection, the attention output projection and
the two MLP layers forward (4 GEMMs of 2,048 token rows) and backward (each layer's input
and kernel gradients: 8 more), and per (sample, head) pair the scores q k^T and the
context p v forward and 4 products backward (768 GEMMs of 64x64x32 per block). Both
frameworks run exactly these products, so their sum is each framework's floor. They are
timed here with random operands of the same shapes, in a fresh process per framework,
interleaved, 2 threads, into preallocated outputs: the dense GEMMs as one 2-D matmul each
(all BLAS threads); the attention's over the 128 pairs as NumPy's stacked matmul (one BLAS
call per pair, half the pairs on each of 2 threads with BLAS on one thread each, as
lamina's compiled attention core runs them, though from Python with NumPy's per-call
overhead) and as PyTorch's ``bmm`` (one batched call on its threads).
``dense_after_idle_ms`` times the same dense GEMMs one at a time, each after
:data:`IDLE_SECONDS` of sleep: the BLAS threads (and, on a virtual machine, their vCPUs)
have gone idle, as between the GEMMs of a real step that does other work in between, and
each GEMM pays for waking them.
Prints one JSON line per framework and round: medians in ms per training step.
"""

import argparse
import functools
import importlib.util
import json
import statistics
import subprocess
import sys
import time
import timeit
from concurrent.futures import ThreadPoolExecutor

import numpy as np

BATCH = 32
#: The sleep before each GEMM of ``dense_after_idle_ms``: longer than OpenBLAS' idle spin
#: as lamina sets it (~0.4 ms), shorter than a step.
IDLE_SECONDS = 2e-3
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from workloads import BLOCKS, HEADS, HIDDEN, LENGTH, WIDTH  # noqa: E402


def dense_shapes():
    """``(m, k, n)`` of each dense GEMM of one W5 step (forward and backward)."""
    rows, head = BATCH * LENGTH, WIDTH // HEADS
    layers = [(WIDTH, 3 * HEADS * head), (HEADS * head, WIDTH), (WIDTH, HIDDEN), (HIDDEN, WIDTH)]
    shapes = []
    for fan_in, fan_out in layers:
        shapes += [(rows, fan_in, fan_out),      # forward
                   (rows, fan_out, fan_in),      # input gradient
                   (fan_in, rows, fan_out)]      # kernel gradient
    return shapes * BLOCKS


def attention_shapes():
    """``(m, k, n)`` of each batched product over W5's (sample, head) pairs in one step."""
    head = WIDTH // HEADS
    forward = [(LENGTH, head, LENGTH), (LENGTH, LENGTH, head)]           # q k^T, p v
    backward = [(LENGTH, head, LENGTH), (LENGTH, LENGTH, head),          # g v^T, p^T g
                (LENGTH, LENGTH, head), (LENGTH, LENGTH, head)]          # dS k, dS^T q
    return (forward + backward) * BLOCKS


def _time(step, repeats):
    """The median of ``repeats`` timed calls of ``step`` after one untimed call, in ms."""
    step()
    return statistics.median(timeit.repeat(step, number=1, repeat=repeats)) * 1e3


def _time_after_idle(calls, repeats):
    """The sum over ``calls`` of each one's median time when it starts after
    :data:`IDLE_SECONDS` of sleep, in ms."""
    total = 0.0
    for call in calls:
        call()
        times = []
        for _ in range(repeats):
            time.sleep(IDLE_SECONDS)
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        total += statistics.median(times)
    return total * 1e3


def measure(framework, repeats):
    """``{"dense_ms": ..., "dense_after_idle_ms": ..., "attention_ms": ...}`` of
    ``framework`` ("numpy" or "torch")."""
    rng = np.random.default_rng(0)

    def operands(m, k, n, batch=None):
        lead = () if batch is None else (batch,)
        return (rng.standard_normal(lead + (m, k), dtype=np.float32),
                rng.standard_normal(lead + (k, n), dtype=np.float32),
                np.empty(lead + (m, n), np.float32))

    dense = [operands(*shape) for shape in dense_shapes()]
    pairs = [operands(*shape, batch=BATCH * HEADS) for shape in attention_shapes()]
    if framework == "torch":
        import torch

        torch.set_num_threads(2)
        dense = [tuple(torch.from_numpy(a) for a in arrays) for arrays in dense]
        pairs = [tuple(torch.from_numpy(a) for a in arrays) for arrays in pairs]
        matmul, batched = torch.mm, torch.bmm
        attention = lambda: [torch.bmm(a, b, out=c) for a, b, c in pairs]   # noqa: E731
        matmul = torch.mm
    else:
        from lamina.backends.numpy import host_tuning

        host_tuning.apply()     # OpenBLAS' idle threads spin as briefly as in lamina
        attention = functools.partial(_in_two_halves, pairs, ThreadPoolExecutor(1))
        matmul = np.matmul
    # Into outputs made once: a step's results all stay alive for its backward, and fresh
    # allocations would time the operating system's page faults, not the GEMMs.
    return {"dense_ms": _time(lambda: [matmul(a, b, out=c) for a, b, c in dense], repeats),
            "dense_after_idle_ms": _time_after_idle(
                [functools.partial(matmul, a, b, out=c) for a, b, c in dense], repeats),
            "attention_ms": _time(attention, repeats)}


def _in_two_halves(pairs, pool):
    """NumPy's stacked matmuls of ``pairs``, the first half of the (sample, head) pairs on
    this thread and the second on another, BLAS on one thread each: as lamina's compiled
    attention core runs its per-pair GEMMs in row blocks on the engine's threads."""
    from threadpoolctl import threadpool_limits

    half = len(pairs[0][0]) // 2

    def run(rows):
        for a, b, c in pairs:
            np.matmul(a[rows], b[rows], out=c[rows])

    with threadpool_limits(1):
        other = pool.submit(run, slice(half, None))
        run(slice(0, half))
        other.result()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", choices=("numpy", "torch"))
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(measure(args.worker, args.repeats)))
        return
    frameworks = ["numpy"] + (["torch"] if importlib.util.find_spec("torch") else [])
    for round_ in range(args.rounds):
        for framework in frameworks:
            line = subprocess.run([sys.executable, __file__, "--worker", framework,
                                   "--repeats", str(args.repeats)], check=True,
                                  capture_output=True, text=True).stdout
            print(json.dumps({"framework": framework, "round": round_, **json.loads(line)}))


if __name__ == "__main__":
    main()
