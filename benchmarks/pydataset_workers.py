"""Parallel loading of a ``PyDataset``: ``fit`` on a dataset whose ``__getitem__`` sleeps
(stands in for reading and decoding files) with ``workers=1`` and ``workers=4``.

Usage:
    python benchmarks/pydataset_workers.py                  # threads, 5 ms per batch
    python benchmarks/pydataset_workers.py --processes      # use_multiprocessing=True
    python benchmarks/pydataset_workers.py --repeats 7 --batches 60 --sleep-ms 5

The two settings alternate (1, 4, 4, 1, 1, 4, ...) so background load hits both alike; the
line printed per setting is the median seconds per epoch over the repeats, and the last
line the speed-up (median workers=1 / median workers=4). The issue asks for >= 1.8x.
"""

import argparse
import statistics
import time

import numpy as np

import lamina


class SleepyBatches(lamina.utils.PyDataset):
    """``batches`` batches of 32 x 16 features; each ``__getitem__`` sleeps ``sleep_s``."""

    def __init__(self, batches, sleep_s, **kwargs):
        super().__init__(**kwargs)
        self.batches, self.sleep_s = batches, sleep_s
        rng = np.random.default_rng(0)
        self.x = rng.normal(size=(batches, 32, 16)).astype("float32")
        self.y = self.x.sum(axis=2, keepdims=True)

    def __len__(self):
        return self.batches

    def __getitem__(self, index):
        time.sleep(self.sleep_s)
        return self.x[index], self.y[index]


def epoch_seconds(workers, arguments):
    """Seconds of one ``fit`` epoch (after a warm-up epoch) with ``workers`` workers."""
    data = SleepyBatches(arguments.batches, arguments.sleep_ms / 1000, workers=workers,
                         use_multiprocessing=arguments.processes)
    model = lamina.Sequential([lamina.layers.Input((16,)), lamina.layers.Dense(32, "relu"),
                               lamina.layers.Dense(1)])
    model.compile("adam", "mse")
    model.fit(data, epochs=1, verbose=0)
    start = time.perf_counter()
    model.fit(data, epochs=1, verbose=0)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=60)
    parser.add_argument("--sleep-ms", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--processes", action="store_true",
                        help="workers are processes (use_multiprocessing=True)")
    arguments = parser.parse_args()
    times = {1: [], 4: []}
    for repeat in range(arguments.repeats):
        for workers in ((1, 4) if repeat % 2 == 0 else (4, 1)):
            times[workers].append(epoch_seconds(workers, arguments))
    kind = "processes" if arguments.processes else "threads"
    medians = {w: statistics.median(t) for w, t in times.items()}
    for workers, median in medians.items():
        print(f"workers={workers} ({kind}): {median * 1000:.0f} ms/epoch median of "
              f"{arguments.repeats} ({arguments.batches} batches, "
              f"{arguments.sleep_ms:g} ms sleep each)")
    print(f"speed-up workers=4 / workers=1: {medians[1] / medians[4]:.2f}x")


if __name__ == "__main__":
    main()
