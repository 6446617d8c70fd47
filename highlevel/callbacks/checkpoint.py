"""Callbacks that write checkpoints during training: :class:`ModelCheckpoint` (model or
weights) and :class:`BackupAndRestore` (resumable ``fit``).
"""

import json
import os
import warnings

import numpy as np

from ..saving import atomic_write
from .callback import CALLBACKS, Callback, print_line
from .monitor import MODES, resolve_mode


@CALLBACKS.register()
class ModelCheckpoint(Callback):
    """Saves the model (or only its weights) during training.

    ``filepath`` may hold ``str.format`` placeholders filled with ``epoch`` (1-based),
    ``batch`` (1-based, when saving every N batches) and the logs, e.g.
    ``"ckpt-{epoch:02d}-{val_loss:.2f}.h5"``. ``save_best_only``: save only when
    ``monitor`` improves (``mode`` as in :class:`EarlyStopping`) on ``best``, which
    starts at ``initial_value_threshold``. ``save_freq``: ``"epoch"`` or an integer
    number of batches. Calls ``model.save_weights(path)`` or ``model.save(path)``.
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        if save_freq != "epoch" and (not isinstance(save_freq, int) or save_freq <= 0):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are "
                             "'epoch' or positive integer values")
        self.save_freq = save_freq
        self._direction = resolve_mode(mode, monitor, owner="ModelCheckpoint")
        self.mode = mode if mode in MODES else "auto"
        if initial_value_threshold is not None:
            self.best = initial_value_threshold
        else:
            self.best = np.inf if self._direction == "min" else -np.inf
        self._current_epoch = 0
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0

    def monitor_op(self, value, best):
        return value < best if self._direction == "min" else value > best

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save_on_batch(self, batch):
        if self.save_freq == "epoch":
            return False
        if batch <= self._last_batch_seen:  # a new epoch
            added = batch + 1
        else:
            added = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _get_file_path(self, epoch, batch, logs):
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as error:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {error}") from None

    def _write(self, filepath):
        if os.path.isdir(filepath):
            raise IOError("Please specify a non-directory filepath for ModelCheckpoint. "
                          f"Filepath used is an existing directory: {filepath}")
        if self.save_weights_only:
            self.model.save_weights(filepath)
        else:
            self.model.save(filepath)

    def _save_model(self, epoch, batch, logs):
        logs = logs or {}
        filepath = self._get_file_path(epoch, batch, logs)
        dirname = os.path.dirname(filepath)
        if dirname and not os.path.exists(dirname):
            os.makedirs(dirname, exist_ok=True)
        if not self.save_best_only:
            if self.verbose > 0:
                print_line(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            self._write(filepath)
            return
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available, skipping.",
                          stacklevel=2)
            return
        if np.ndim(current) > 0:
            warnings.warn(f"Can save best model only when `monitor` is a scalar value. "
                          f"Received: {current}. Falling back to `save_best_only=False`.",
                          stacklevel=2)
            self._write(filepath)
            return
        if self.monitor_op(current, self.best):
            if self.verbose > 0:
                print_line(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} "
                       f"to {current:.5f}, saving model to {filepath}")
            self.best = current
            self._write(filepath)
        elif self.verbose > 0:
            print_line(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")


@CALLBACKS.register()
class BackupAndRestore(Callback):
    """Backs training up so an interrupted ``fit`` resumes where it stopped.

    Contract with the model and the training loop:

    * Backup (at each epoch end, or every ``save_freq`` batches when it is an integer):
      ``model.save(os.path.join(backup_dir, "latest.h5"))`` (full model: weights,
      optimizer state), then ``training_state.json`` with ``{"epoch": E, "batch": B}``
      where ``E`` is the index of the last *finished* epoch (-1 when the backup was
      made inside the first epoch) and ``B`` the last batch seen (null at an epoch end).
      The JSON is written atomically after the model, so its presence means the model
      file is complete.
    * Restore (``on_train_begin``): when the JSON exists, calls
      ``model.restore_from_checkpoint(path_to_latest_h5, initial_epoch=E + 1)`` (loads
      weights and optimizer state into the model in place). The training loop reads
      that epoch right after ``on_train_begin`` and starts from it, skipping the
      finished ones.
    * Cleanup: when training ends normally (``on_train_end``) and ``delete_checkpoint``
      is true, both files are deleted (and ``backup_dir`` when left empty). An
      exception in ``fit`` skips ``on_train_end``, so the backup survives the crash.
    """

    MODEL_FILE = "latest.h5"
    STATE_FILE = "training_state.json"

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and (not isinstance(save_freq, int) or save_freq <= 0):
            raise ValueError(f"Invalid value for argument `save_freq`. Received: {save_freq}. "
                             "Expected either 'epoch' or a positive integer value.")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self._model_path = os.path.join(self.backup_dir, self.MODEL_FILE)
        self._state_path = os.path.join(self.backup_dir, self.STATE_FILE)
        self._current_epoch = 0
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = -1

    def on_train_begin(self, logs=None):
        if not os.path.exists(self._state_path):
            return
        with open(self._state_path, "r") as f:
            state = json.load(f)
        last_epoch = int(state["epoch"])
        if not os.path.exists(self._model_path):
            raise FileNotFoundError(f"Backup state {self._state_path} found but the model "
                                    f"file {self._model_path} is missing")
        self.model.restore_from_checkpoint(self._model_path, initial_epoch=last_epoch + 1)
        self._current_epoch = last_epoch + 1

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch
        self._last_batch_seen = -1

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches_seen_since_last_saving += batch - self._last_batch_seen
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            self._backup(self._current_epoch - 1, batch)

    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        if self.save_freq == "epoch":
            self._backup(epoch, None)

    def _backup(self, last_finished_epoch, batch):
        os.makedirs(self.backup_dir, exist_ok=True)
        self.model.save(self._model_path)
        state = json.dumps({"epoch": last_finished_epoch, "batch": batch})
        atomic_write.write_atomically(self._state_path, state.encode("utf-8"))

    def on_train_end(self, logs=None):
        if not self.delete_checkpoint:
            return
        for path in (self._state_path, self._model_path):
            if os.path.exists(path):
                os.remove(path)
        try:
            os.rmdir(self.backup_dir)
        except OSError:  # missing, or holds other files
            pass

