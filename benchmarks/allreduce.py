"""Time per step of lamina.distribution's gradient average against gradient size.

Run under MPI (one BLAS thread per process):
    OMP_NUM_THREADS=1 mpirun -np 2 python benchmarks/allreduce.py

For each gradient size (float32) it times ``GradientAverager.average`` -- pack the
weighted gradients into the flat buffer, sum it over the processes in buckets, scale --
and a bare in-place ``MPI.Allreduce`` of the same bytes, as medians of interleaved
repeats; rank 0 prints a table (microseconds per step).
"""

import argparse
import statistics
import time

import numpy as np

from lamina import distribution
from lamina.highlevel.distribution.gradient_buckets import GradientAverager

SIZES = [1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26]   # bytes


def _gradients(total_bytes):
    """Ten gradient arrays (float32) of ``total_bytes`` together, like a model's layers."""
    count = max(10, total_bytes // 4)
    parts = np.array_split(np.random.default_rng(0).normal(size=count).astype("float32"), 10)
    return [p.copy() for p in parts]


def _median_us(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--bucket-mb", type=float, default=16)
    args = parser.parse_args()
    distribution.initialize()
    communicator = distribution.get_communicator()
    averager = GradientAverager(communicator, int(args.bucket_mb * 2 ** 20))
    rows = []
    for size in SIZES:
        gradients = _gradients(size)
        flat = np.concatenate(gradients)
        repeats = max(5, args.repeats if size <= 1 << 22 else args.repeats // 5)
        averaged, bare = [], []
        for _ in range(3):               # interleaved: the machine's load hits both alike
            communicator.barrier()
            averaged.append(_median_us(lambda: averager.average(gradients, 1.0), repeats))
            communicator.barrier()
            bare.append(_median_us(lambda: communicator.allreduce(flat), repeats))
        rows.append((size, statistics.median(averaged), statistics.median(bare)))
    if communicator.rank == 0:
        print(f"processes: {communicator.size}, communicator: {communicator.name}, "
              f"bucket: {args.bucket_mb} MiB")
        print(f"{'gradient':>10} {'average (us)':>14} {'bare allreduce (us)':>20} "
              f"{'GB/s (average)':>15}")
        for size, average, bare in rows:
            label = f"{size / 2 ** 20:.3g} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
            print(f"{label:>10} {average:14.1f} {bare:20.1f} {size / average / 1e3:15.2f}")


if __name__ == "__main__":
    main()
