"""Checkpoint, crash, resume: a resumed run ends exactly where an uninterrupted one does.

1. An uninterrupted run trains a small classifier (with Dropout and shuffling) for 6 epochs.
2. A second run saves a checkpoint after every epoch with ``ModelCheckpoint``
   (``ckpt-{epoch:02d}-{val_loss:.2f}.h5``) and is "killed" during epoch 4.
3. The latest checkpoint is loaded with ``lamina.load_model`` (weights, optimizer slots and
   iteration counter) and training continues with ``fit(..., initial_epoch=3, epochs=6)``.
4. The same crash is then handled by ``BackupAndRestore``, which resumes by itself.

Both resumed runs must match the uninterrupted one bit for bit (NumPy engine); the script
prints the final losses and weights checksums and exits with status 1 if they differ.

Run: ``python examples/checkpoint_resume.py``
"""

import glob
import hashlib
import os
import sys
import tempfile

import numpy as np

import lamina
from lamina import layers

EPOCHS = 6
CRASH_AT_EPOCH = 3          # 0-based: the 4th epoch never finishes


def make_data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=3.0, size=(3, 8))
    labels = rng.integers(0, 3, n)
    features = centers[labels] + rng.normal(size=(n, 8))
    return features.astype("float32"), labels


def build_model():
    lamina.utils.set_random_seed(42)
    model = lamina.Sequential([
        layers.Input((8,)),
        layers.Dense(32, activation="relu"),
        layers.Dropout(0.25),
        layers.Dense(16, activation="relu"),
        layers.Dense(3, activation="softmax"),
    ])
    model.compile(optimizer=lamina.optimizers.Adam(0.003),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


class SimulatedCrash(lamina.callbacks.Callback):
    """Raises in the middle of an epoch, like a killed process."""

    def on_train_batch_begin(self, batch, logs=None):
        if self._epoch == CRASH_AT_EPOCH and batch == 5:
            raise KeyboardInterrupt("simulated crash")

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch


def fingerprint(model):
    digest = hashlib.sha256()
    for weight in model.get_weights():
        digest.update(weight.tobytes())
    return digest.hexdigest()[:16]


def main():
    x, y = make_data()
    fit_args = dict(batch_size=32, validation_split=0.2, shuffle=True, verbose=0)

    straight = build_model()
    history = straight.fit(x, y, epochs=EPOCHS, **fit_args)
    print(f"uninterrupted : final loss {history.history['loss'][-1]:.6f}, "
          f"weights {fingerprint(straight)}")

    with tempfile.TemporaryDirectory() as folder:
        pattern = os.path.join(folder, "ckpt-{epoch:02d}-{val_loss:.2f}.h5")
        crashed = build_model()
        try:
            crashed.fit(x, y, epochs=EPOCHS, callbacks=[
                lamina.callbacks.ModelCheckpoint(pattern), SimulatedCrash()], **fit_args)
        except KeyboardInterrupt:
            print(f"interrupted during epoch {CRASH_AT_EPOCH + 1}; checkpoints: "
                  f"{sorted(os.path.basename(p) for p in glob.glob(folder + '/ckpt-*'))}")
        latest = sorted(glob.glob(os.path.join(folder, "ckpt-*.h5")))[-1]
        done = int(os.path.basename(latest)[5:7])              # epochs finished
        resumed = lamina.load_model(latest)
        history = resumed.fit(x, y, epochs=EPOCHS, initial_epoch=done, **fit_args)
        print(f"resumed (file): final loss {history.history['loss'][-1]:.6f}, "
              f"weights {fingerprint(resumed)}  (from {os.path.basename(latest)})")

        backup = os.path.join(folder, "backup")
        crashed = build_model()
        try:
            crashed.fit(x, y, epochs=EPOCHS, callbacks=[
                lamina.callbacks.BackupAndRestore(backup), SimulatedCrash()], **fit_args)
        except KeyboardInterrupt:
            pass
        restarted = build_model()           # what a restarted script would do
        history = restarted.fit(x, y, epochs=EPOCHS,
                                callbacks=[lamina.callbacks.BackupAndRestore(backup)],
                                **fit_args)
        print(f"resumed (backup): final loss {history.history['loss'][-1]:.6f}, "
              f"weights {fingerprint(restarted)}")

    same = all(np.array_equal(a, b) for model in (resumed, restarted)
               for a, b in zip(straight.get_weights(), model.get_weights()))
    print("identical to the uninterrupted run:", same)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
