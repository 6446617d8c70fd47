"""Scenarios the lamina.distribution tests run under ``mpirun -np 2`` (and as one plain
process for the single-process reference): ``python distributed_worker.py SCENARIO OUT
[options]``. Each process writes ``OUT.rank<r>.npz`` (or text files) for the test to
compare; nothing here asserts."""

import argparse
import os
import sys

import numpy as np

import lamina
from lamina import callbacks, layers


def data(n=100, features=8, classes=3):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, features))
    y = (x[:, 0] + x[:, 1] > 0).astype("int64") + (x[:, 2] > 1).astype("int64")
    weights = rng.uniform(0.5, 1.5, size=n)
    return x, y % classes, weights


def sequences(n=100, steps=6, tokens=10, classes=3):
    """Token sequences padded with 0 to random lengths (so the valid timesteps of two
    shares of a batch differ), a class per timestep, a weight per sequence."""
    rng = np.random.default_rng(1)
    x = rng.integers(1, tokens, size=(n, steps))
    x[np.arange(steps) >= rng.integers(1, steps + 1, size=(n, 1))] = 0
    y = (x + np.roll(x, 1, axis=1)) % classes
    return x, y, rng.uniform(0.5, 1.5, size=n)


class _CustomStep(lamina.Sequential):
    """A train_step written with lamina.grad and optimizer.apply (no averaging of its
    own: the optimizer averages over the processes)."""

    def train_step(self, data):
        x, y, sample_weight = data
        y_pred = self(x, training=True)
        loss = self.compute_loss(x, y, y_pred, sample_weight)
        variables = self.trainable_weights
        self.optimizer.apply(lamina.grad(loss, variables), variables)
        return {"step_loss": 0.0}


def build(kind, features=8, reduction="sum_over_batch_size"):
    if kind == "masked":
        stack = [layers.Input((6,), dtype="int64"), layers.Embedding(10, 4, mask_zero=True),
                 layers.LSTM(5, return_sequences=True)]
    elif kind == "flip":
        stack = [layers.Input((4, 4, 1)), layers.RandomFlip(seed=3), layers.Flatten(),
                 layers.Dense(16, activation="relu")]
    else:
        regularizer = lamina.regularizers.L2(0.01) if kind == "regularized" else None
        stack = [layers.Input((features,)),
                 layers.Dense(16, activation="relu", kernel_regularizer=regularizer)]
    if kind in ("dropout", "noise"):
        stack.append(layers.Dropout(0.3))
    if kind == "noise":
        stack += [layers.GaussianNoise(0.1), layers.Dropout(0.2, seed=7)]
    if kind == "syncbn":
        stack.append(layers.BatchNormalization(synchronized=True, momentum=0.8))
    stack.append(layers.Dense(3, activation="softmax"))
    model = (_CustomStep if kind == "custom" else lamina.Sequential)(stack)
    model.compile(optimizer=lamina.optimizers.Adam(0.01, global_clipnorm=1.0),
                  loss=lamina.losses.SparseCategoricalCrossentropy(reduction=reduction),
                  metrics=["accuracy"])
    return model


def train(args, rank):
    x, y, weights = sequences() if args.model == "masked" else data(
        features=16 if args.model == "flip" else 8)
    x = x.astype(args.dtype) if args.model != "masked" else x
    if args.model == "flip":
        x = x.reshape(-1, 4, 4, 1)
    model = build(args.model, reduction=args.reduction)
    history = model.fit(x[:80], y[:80], sample_weight=weights[:80], batch_size=args.batch,
                        epochs=args.epochs, validation_data=(x[80:], y[80:]), verbose=0)
    evaluated = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    predicted = model.predict(x, batch_size=16, verbose=0)
    logged = {"val_loss": np.array(history.history["val_loss"])}
    if args.model != "custom":    # a custom step logs its own loss
        logged["loss"] = np.array(history.history["loss"])
    np.savez(f"{args.out}.rank{rank}.npz", *model.get_weights(), **logged,
             evaluated=np.array([evaluated["loss"], evaluated["accuracy"]]),
             predicted=predicted)


class _RecordingCheckpoint(callbacks.ModelCheckpoint):
    """A ModelCheckpoint that also logs which process wrote each file."""

    def on_epoch_end(self, epoch, logs=None):
        with open(self.log_path, "a") as log:
            log.write(f"{lamina.distribution.process_id()}\n")
        super().on_epoch_end(epoch, logs)


class _ChiefStops(callbacks.Callback):
    """Stops training on rank 0 only, after epoch ``at``: only the broadcast of rank 0's
    decision stops the other processes."""

    def __init__(self, at):
        super().__init__()
        self.at = at

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.at and lamina.distribution.process_id() == 0:
            self.model.stop_training = True


def checkpoint(args, rank):
    x, y, weights = data()
    model = build("mlp")
    saver = _RecordingCheckpoint(os.path.join(args.out, "model_{epoch}.weights.h5"),
                                 save_weights_only=True)
    saver.log_path = os.path.join(args.out, "writers.txt")
    csv = callbacks.CSVLogger(os.path.join(args.out, "log.csv"))
    model.fit(x, y, batch_size=20, epochs=3, callbacks=[saver, csv], verbose=0)


def early_stopping(args, rank):
    x, y, weights = data()
    model = build("dropout")
    stopper = callbacks.EarlyStopping(monitor="loss", min_delta=0.05, patience=1)
    history = model.fit(x, y, batch_size=25, epochs=40,
                        callbacks=[stopper, _ChiefStops(args.chief_stop)], verbose=0)
    with open(f"{args.out}.rank{rank}.txt", "w") as result:
        result.write(f"{len(history.history['loss'])}\n")


class _Raises(callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        if lamina.distribution.process_id() == 1 and batch == 2:
            raise ValueError("boom from rank 1")


def raising(args, rank):
    x, y, weights = data()
    model = build("mlp")
    model.fit(x, y, batch_size=10, epochs=1000, callbacks=[_Raises()], verbose=0)


def collectives(args, rank):
    """Every MPICommunicator collective, results written for the test."""
    communicator = lamina.distribution.get_communicator()
    summed = np.arange(6, dtype="float64") * (rank + 1)
    communicator.allreduce(summed)
    started = np.full(5, rank + 1.0, dtype="float32")
    request = communicator.allreduce_start(started)
    while not request.test():             # progresses without blocking, then completes
        pass
    request.wait()
    broadcast = np.full(3, float(rank))
    communicator.broadcast(broadcast, root=1)
    chief = communicator.broadcast_object({"rank": rank})
    everyone = communicator.allgather_object(rank * 10)
    communicator.barrier()
    np.savez(f"{args.out}.rank{rank}.npz", summed=summed, started=started,
             broadcast=broadcast, chief=np.array(chief["rank"]), everyone=np.array(everyone),
             size=np.array(communicator.size), name=np.array(communicator.name))


SCENARIOS = {"train": train, "collectives": collectives, "checkpoint": checkpoint,
             "early_stopping": early_stopping, "raise": raising}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("out")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--reduction", default="sum_over_batch_size")
    parser.add_argument("--bucket-bytes", type=int, default=16 * 2 ** 20)
    parser.add_argument("--no-overlap", action="store_true")
    parser.add_argument("--chief-stop", type=int, default=1000)
    args = parser.parse_args()
    lamina.config.set_floatx(args.dtype)
    lamina.distribution.initialize()
    lamina.distribution.set_distribution(lamina.distribution.DataParallel(
        bucket_bytes=args.bucket_bytes, overlap=not args.no_overlap))
    lamina.utils.set_random_seed(1234)
    SCENARIOS[args.scenario](args, lamina.distribution.process_id())
    sys.stdout.flush()


if __name__ == "__main__":
    main()
