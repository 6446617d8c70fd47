"""Data-parallel training of an MLP with ``lamina.distribution`` over MPI.

Every process runs this same script; ``batch_size`` is the global batch, split over the
processes, and the result does not depend on how many there are: one process and two
print the same final accuracy. (In float32 the processes sum each gradient in another
order than one process does, so weights agree to about 1e-5 rather than bit for bit; with
``--dtype float64`` they agree to about 1e-13.)

Run:
    python examples/distributed_mlp.py                          # one process
    mpirun -np 2 python examples/distributed_mlp.py             # two (pip install lamina[mpi])
    mpirun -np 2 -H host1,host2 python examples/distributed_mlp.py   # two machines

As root, Open MPI's mpirun also needs OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1. Give each process one BLAS thread when the processes
share a machine's cores (OMP_NUM_THREADS=1), else they oversubscribe it.

Prints (rank 0 only) the training throughput in samples/s and the final test accuracy;
exits with status 1 if the accuracy is below ``--min-accuracy`` (0.85).
"""

import argparse
import sys
import time

import numpy as np
from sklearn.datasets import make_classification

import lamina
from lamina import distribution, layers


def make_data(samples, seed=0):
    """A 4-class problem with 32 features (scikit-learn), 80% train / 20% test."""
    x, y = make_classification(n_samples=samples, n_features=32, n_informative=16,
                               n_classes=4, n_clusters_per_class=2, class_sep=1.5,
                               random_state=seed)
    cut = int(0.8 * samples)
    x = x.astype(lamina.config.floatx())
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])


def build_model(features, classes):
    model = lamina.Sequential([
        layers.Input((features,)),
        layers.Dense(256, activation="relu"),
        layers.Dropout(0.1),
        layers.Dense(256, activation="relu"),
        layers.Dense(classes, activation="softmax"),
    ])
    model.compile(optimizer=lamina.optimizers.Adam(1e-3),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=256, help="the global batch")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--min-accuracy", type=float, default=0.85)
    args = parser.parse_args()
    lamina.config.set_floatx(args.dtype)

    distribution.initialize()                         # MPI under mpirun, else one process
    distribution.set_distribution(distribution.DataParallel())
    lamina.utils.set_random_seed(0)                   # shuffles and dropout: rank-independent
    (x_train, y_train), (x_test, y_test) = make_data(args.samples)
    model = build_model(x_train.shape[1], 4)
    chief = distribution.process_id() == 0

    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=1, verbose=0)  # warm-up
    start = time.perf_counter()
    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs,
              verbose=2 if chief else 0)
    elapsed = time.perf_counter() - start
    loss, accuracy = model.evaluate(x_test, y_test, batch_size=1024, verbose=0)
    if chief:
        rate = args.epochs * len(x_train) / elapsed
        print(f"processes: {distribution.num_processes()}")
        print(f"throughput: {rate:.0f} samples/s")
        print(f"final accuracy: {accuracy:.3f}")
        print(f"final loss: {loss:.4f}")
    return 0 if accuracy >= args.min_accuracy else 1


if __name__ == "__main__":
    sys.exit(main())
