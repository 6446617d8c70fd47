"""Time per training step with the gradient sums overlapping the backward pass, or not.

    OMP_NUM_THREADS=1 python benchmarks/overlap.py                 # one process
    OMP_NUM_THREADS=1 mpirun -np 2 python benchmarks/overlap.py    # two processes

An MLP with ``--width`` units in ``--layers`` hidden layers (about 12.6 MB of float32
gradients at the defaults) is fit on synthetic data; each configuration -- overlap on or
off, for each ``--bucket-mb`` -- runs one epoch of ``--steps`` global batches, the
configurations alternating ``--rounds`` times (the machine's load hits all alike). Rank 0
prints the median milliseconds per step of each.
"""

import argparse
import statistics
import time

import numpy as np

import lamina
from lamina import distribution, layers


def _model(width, depth, features, classes):
    stack = [layers.Input((features,))]
    stack += [layers.Dense(width, activation="relu") for _ in range(depth)]
    model = lamina.Sequential(stack + [layers.Dense(classes)])
    model.compile(optimizer=lamina.optimizers.SGD(0.01),
                  loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bucket-mb", type=float, nargs="+", default=[16, 2])
    args = parser.parse_args()
    distribution.initialize()
    lamina.utils.set_random_seed(0)
    features, classes = args.width, 10
    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.batch * args.steps, features)).astype("float32")
    y = rng.integers(0, classes, size=len(x))
    model = _model(args.width, args.layers, features, classes)
    megabytes = sum(int(np.prod(w.shape)) for w in model.trainable_weights) * 4 / 1e6
    configurations = [(overlap, bucket) for bucket in args.bucket_mb
                      for overlap in (False, True)]
    if distribution.num_processes() == 1:
        configurations = [(False, args.bucket_mb[0])]
    times = {configuration: [] for configuration in configurations}
    for round_ in range(args.rounds + 1):          # round 0 warms up
        for overlap, bucket in configurations:
            distribution.set_distribution(distribution.DataParallel(
                bucket_bytes=int(bucket * 2 ** 20), overlap=overlap))
            start = time.perf_counter()
            model.fit(x, y, batch_size=args.batch, epochs=1, shuffle=False, verbose=0)
            if round_:
                times[(overlap, bucket)].append((time.perf_counter() - start) / args.steps)
    if distribution.process_id() == 0:
        print(f"processes: {distribution.num_processes()}, gradients: {megabytes:.1f} MB "
              f"float32, global batch {args.batch}")
        for (overlap, bucket), values in times.items():
            label = "one process" if distribution.num_processes() == 1 else (
                f"overlap {'on ' if overlap else 'off'}, bucket {bucket:g} MiB")
            print(f"{label:>28}: {statistics.median(values) * 1e3:8.2f} ms/step "
                  f"(min {min(values) * 1e3:.2f})")


if __name__ == "__main__":
    main()
