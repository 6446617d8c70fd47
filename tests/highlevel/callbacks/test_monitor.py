"""Callbacks and the progress display, driven the way the training loop drives them.

The real Model is not needed: a small fake model exposes the duck-typed surface the
callbacks use (stop_training, get/set_weights, optimizer.learning_rate, save,
save_weights, _restore_from_checkpoint) and records what was done to it.
"""

import csv
import io
import json
import math
import os
import re
import sys

import numpy as np
import pytest

from lamina.highlevel import callbacks as cb
from lamina.highlevel.callbacks import progbar as progress


class FakeOptimizer:
    def __init__(self, learning_rate=0.01):
        self._lr = float(learning_rate)

    @property
    def learning_rate(self):
        return self._lr

    @learning_rate.setter
    def learning_rate(self, value):
        self._lr = float(value)


class FakeModel:
    """Weights are one array holding the index of the epoch that last 'trained' them."""

    def __init__(self, learning_rate=0.01):
        self.stop_training = False
        self.optimizer = FakeOptimizer(learning_rate)
        self.weights = [np.array([-1.0])]
        self.saved = []  # ("save" | "save_weights", path)
        self.restored_from = None

    def get_weights(self):
        return [w.copy() for w in self.weights]

    def set_weights(self, weights):
        self.weights = [np.array(w, copy=True) for w in weights]

    def save(self, filepath):
        self.saved.append(("save", filepath))
        with open(filepath, "w") as f:
            f.write(f"weights={self.weights[0][0]}")

    def save_weights(self, filepath):
        self.saved.append(("save_weights", filepath))

    def _restore_from_checkpoint(self, path):
        self.restored_from = path


def fit(callbacks, epoch_logs, model=None, steps=3, batch_logs=None, verbose=0,
        crash_at_epoch=None):
    """Drive ``callbacks`` like ``Model.fit``: one ``epoch_logs`` dict per epoch."""
    model = FakeModel() if model is None else model
    epochs = len(epoch_logs)
    callbacks = cb.CallbackList(callbacks, add_history=True, add_progbar=verbose != 0,
                                model=model, verbose=verbose, epochs=epochs, steps=steps)
    model.stop_training = False
    callbacks.on_train_begin({})
    start = getattr(model, "_initial_epoch_from_backup", None) or 0
    for epoch in range(start, epochs):
        if epoch == crash_at_epoch:
            raise KeyboardInterrupt
        callbacks.on_epoch_begin(epoch, {})
        for batch in range(steps):
            callbacks.on_train_batch_begin(batch, {})
            model.weights = [np.array([float(epoch)])]
            logs = {"loss": 1.0 / (batch + 1)} if batch_logs is None else batch_logs(epoch, batch)
            callbacks.on_train_batch_end(batch, logs)
            if model.stop_training:
                break
        callbacks.on_epoch_end(epoch, dict(epoch_logs[epoch]))
        if model.stop_training:
            break
    callbacks.on_train_end({})
    return model.history


def val_losses(*values):
    return [{"loss": v + 0.1, "val_loss": v} for v in values]


# --------------------------------------------------------------------------- CallbackList


def test_history_records_epoch_logs_and_is_set_on_the_model():
    model = FakeModel()
    logs = [{"accuracy": 0.5, "loss": 0.9, "val_accuracy": 0.4, "val_loss": 1.0},
            {"accuracy": 0.7, "loss": 0.6, "val_accuracy": 0.6, "val_loss": 0.8}]
    history = fit([], logs, model=model)
    assert isinstance(history, cb.History)
    assert model.history is history
    assert history.epoch == [0, 1]
    assert history.history == {"accuracy": [0.5, 0.7], "loss": [0.9, 0.6],
                               "val_accuracy": [0.4, 0.6], "val_loss": [1.0, 0.8]}


def test_callback_list_adds_defaults_and_passes_params_and_model():
    model = FakeModel()
    mine = cb.Callback()
    callbacks = cb.CallbackList([mine], add_history=True, add_progbar=True, model=model,
                                verbose=2, epochs=5, steps=10)
    kinds = [type(c) for c in callbacks.callbacks]
    assert kinds == [cb.Callback, cb.History, cb.ProgbarLogger]
    for c in callbacks.callbacks:
        assert c.model is model
        assert c.params == {"verbose": 2, "epochs": 5, "steps": 10}
    assert model.history is callbacks.callbacks[1]

    quiet = cb.CallbackList(None, add_history=True, add_progbar=False, model=model,
                            verbose=0, epochs=1, steps=1)
    assert [type(c) for c in quiet.callbacks] == [cb.History]
    # A History or ProgbarLogger passed in is used instead of a new one.
    own = cb.History()
    listed = cb.CallbackList([[own]], add_history=True, model=model)
    assert listed.callbacks == [own]


def test_batch_hooks_reach_only_callbacks_that_implement_them():
    calls = []

    class Legacy(cb.Callback):
        def on_batch_end(self, batch, logs=None):
            calls.append(("legacy", batch, logs["loss"]))

    class Modern(cb.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            calls.append(("begin", batch))

    callbacks = cb.CallbackList([Legacy(), Modern(), cb.Callback()], add_history=True,
                                model=FakeModel())
    assert len(callbacks._batch_hooks["on_train_batch_end"]) == 1
    assert len(callbacks._batch_hooks["on_test_batch_end"]) == 0
    callbacks.on_train_batch_begin(0, {})
    callbacks.on_train_batch_end(0, {"loss": 0.5})
    callbacks.on_test_batch_end(0, {"loss": 0.5})
    assert calls == [("begin", 0), ("legacy", 0, 0.5)]


# -------------------------------------------------------------------------- EarlyStopping


def test_early_stopping_stops_after_patience_and_restores_best_weights():
    model = FakeModel()
    stopper = cb.EarlyStopping(patience=2, restore_best_weights=True)
    history = fit([stopper], val_losses(1.0, 0.8, 0.9, 0.85, 0.95, 0.7), model=model)
    # best 0.8 at epoch 1; epochs 2 and 3 do not improve -> stop at epoch 3
    assert history.epoch == [0, 1, 2, 3]
    assert stopper.stopped_epoch == 3
    assert stopper.best == 0.8 and stopper.best_epoch == 1
    assert model.weights[0][0] == 1.0  # weights of the end of epoch 1


def test_early_stopping_restores_best_weights_even_without_stopping():
    model = FakeModel()
    stopper = cb.EarlyStopping(patience=10, restore_best_weights=True)
    fit([stopper], val_losses(1.0, 0.5, 0.7), model=model)
    assert stopper.stopped_epoch == 0
    assert model.weights[0][0] == 1.0


def test_early_stopping_patience_zero_min_delta_and_auto_max_mode(capsys):
    # patience=0: stop at the first epoch without improvement (never at epoch 0)
    stopper = cb.EarlyStopping(patience=0)
    assert fit([stopper], val_losses(1.0, 1.1, 0.5)).epoch == [0, 1]

    # an improvement smaller than min_delta does not count
    stopper = cb.EarlyStopping(min_delta=0.1, patience=2, verbose=1)
    assert fit([stopper], val_losses(1.0, 0.95, 0.92, 0.5)).epoch == [0, 1, 2]
    assert "Epoch 3: early stopping" in capsys.readouterr().out

    # accuracy is maximized in auto mode
    logs = [{"val_accuracy": a} for a in (0.5, 0.6, 0.55, 0.58, 0.9)]
    stopper = cb.EarlyStopping(monitor="val_accuracy", patience=2)
    assert fit([stopper], logs).epoch == [0, 1, 2, 3]
    assert stopper.best == 0.6


def test_early_stopping_baseline_and_start_from_epoch():
    # a plateau above the baseline 0.5: epoch 0 already counts against the patience
    plateau = val_losses(0.9, 0.9, 0.9, 0.9)
    assert fit([cb.EarlyStopping(patience=2)], plateau).epoch == [0, 1, 2]
    assert fit([cb.EarlyStopping(patience=2, baseline=0.5)], plateau).epoch == [0, 1]
    # beating the baseline restarts the count as usual
    stopper = cb.EarlyStopping(patience=2, baseline=0.95)
    assert fit([stopper], plateau).epoch == [0, 1, 2]
    # the first two epochs are warm-up: no stop although val_loss rises
    stopper = cb.EarlyStopping(patience=0, start_from_epoch=2)
    assert fit([stopper], val_losses(1.0, 2.0, 3.0, 4.0, 3.5)).epoch == [0, 1, 2, 3]


def test_early_stopping_warns_when_monitor_is_missing():
    stopper = cb.EarlyStopping(monitor="val_auc")
    with pytest.warns(UserWarning, match="val_auc.*not available"):
        history = fit([stopper], [{"loss": 1.0}, {"loss": 0.9}])
    assert history.epoch == [0, 1]


# ---------------------------------------------------------------------- ReduceLROnPlateau


@pytest.mark.parametrize("cooldown, expected", [
    (0, [1.0, 1.0, 1.0, 0.5, 0.5, 0.3, 0.3]),
    (2, [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.3]),
])
def test_reduce_lr_on_plateau_patience_cooldown_and_min_lr(cooldown, expected):
    model = FakeModel(learning_rate=1.0)
    reduce = cb.ReduceLROnPlateau(factor=0.5, patience=2, min_lr=0.3, cooldown=cooldown)
    history = fit([reduce], val_losses(*[1.0] * 7), model=model)
    # "learning_rate" is logged at each epoch end, before that epoch's reduction
    assert history.history["learning_rate"] == pytest.approx(expected)
    assert model.optimizer.learning_rate == pytest.approx(0.3)  # never below min_lr


def test_reduce_lr_on_plateau_improvement_resets_wait_and_bad_factor():
    model = FakeModel(learning_rate=1.0)
    reduce = cb.ReduceLROnPlateau(patience=2)
    fit([reduce], val_losses(1.0, 1.0, 0.5, 0.5, 0.4), model=model)
    assert model.optimizer.learning_rate == 1.0
    reduce = cb.ReduceLROnPlateau(monitor="val_accuracy", patience=1, factor=0.1)
    fit([reduce], [{"val_accuracy": a} for a in (0.5, 0.9, 0.8)], model=model)
    assert model.optimizer.learning_rate == pytest.approx(0.1)
    with pytest.raises(ValueError, match="factor"):
        cb.ReduceLROnPlateau(factor=1.5)


# ------------------------------------------------------------------ LearningRateScheduler


def test_learning_rate_scheduler_two_argument_and_one_argument_schedules():
    model = FakeModel(learning_rate=1.0)
    seen = []
    record = cb.LambdaCallback(
        on_epoch_begin=lambda epoch, logs: seen.append(model.optimizer.learning_rate))
    halve = cb.LearningRateScheduler(lambda epoch, lr: lr if epoch == 0 else lr * 0.5)
    history = fit([halve, record], [{"loss": 1.0}] * 4, model=model)
    assert seen == [1.0, 0.5, 0.25, 0.125]
    assert history.history["learning_rate"] == [1.0, 0.5, 0.25, 0.125]

    def by_epoch(epoch):
        return 0.1 / (epoch + 1)

    model = FakeModel(learning_rate=1.0)
    fit([cb.LearningRateScheduler(by_epoch)], [{"loss": 1.0}] * 3, model=model)
    assert model.optimizer.learning_rate == pytest.approx(0.1 / 3)

    with pytest.raises(ValueError, match="should be a float"):
        fit([cb.LearningRateScheduler(lambda epoch, lr: "fast")], [{"loss": 1.0}])


# ------------------------------------------------------------------------------ CSVLogger


def read_csv(path, delimiter=","):
    with open(path, newline="") as f:
        return list(csv.reader(f, delimiter=delimiter))


def test_csv_logger_writes_epoch_then_sorted_keys(tmp_path):
    path = tmp_path / "log.csv"
    logs = [{"loss": 0.5, "val_loss": 0.6, "accuracy": 0.75},
            {"loss": 0.25, "val_loss": 0.4, "accuracy": 0.875}]
    fit([cb.CSVLogger(path)], logs)
    assert read_csv(path) == [["epoch", "accuracy", "loss", "val_loss"],
                              ["0", "0.75", "0.5", "0.6"],
                              ["1", "0.875", "0.25", "0.4"]]
    # append: continues without a second header
    fit([cb.CSVLogger(path, append=True)], logs[:1])
    rows = read_csv(path)
    assert len(rows) == 4 and rows[0][0] == "epoch" and rows[3] == ["0", "0.75", "0.5", "0.6"]
    # overwrite, custom separator, missing key written as NA
    fit([cb.CSVLogger(str(path), separator=";")], [{"loss": 1.0, "val_loss": 2.0},
                                                    {"loss": 0.5}])
    assert read_csv(path, ";") == [["epoch", "loss", "val_loss"], ["0", "1.0", "2.0"],
                                   ["1", "0.5", "NA"]]
    # no validation in the first epoch (validation_freq > 1): val_ columns are added
    fit([cb.CSVLogger(path)], [{"loss": 1.0}, {"loss": 0.5, "val_loss": 0.75}])
    assert read_csv(path) == [["epoch", "loss", "val_loss"], ["0", "1.0", "NA"],
                              ["1", "0.5", "0.75"]]


# ------------------------------------------------------------ TerminateOnNaN, Lambda


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_terminate_on_nan_stops_on_invalid_batch_loss(bad, capsys):
    model = FakeModel()
    history = fit([cb.TerminateOnNaN()], [{"loss": 1.0}] * 3, model=model, steps=4,
                  batch_logs=lambda e, b: {"loss": bad if (e, b) == (1, 2) else 0.5})
    assert model.stop_training is True
    assert history.epoch == [0, 1]
    assert "Batch 2: Invalid loss, terminating training" in capsys.readouterr().out
    model = FakeModel()
    fit([cb.TerminateOnNaN()], [{"loss": 1.0}] * 2, model=model)
    assert model.stop_training is False


def test_lambda_callback_calls_the_given_functions():
    calls = []
    lam = cb.LambdaCallback(
        on_train_begin=lambda logs: calls.append("train_begin"),
        on_epoch_begin=lambda epoch, logs: calls.append(f"epoch_begin {epoch}"),
        on_train_batch_end=lambda batch, logs: calls.append(f"batch {batch}"),
        on_epoch_end=lambda epoch, logs: calls.append(f"epoch_end {epoch} {logs['loss']}"),
        on_train_end=lambda logs: calls.append("train_end"),
        on_test_end=lambda logs: calls.append("test_end"),
    )
    fit([lam], [{"loss": 0.5}, {"loss": 0.25}], steps=2)
    assert calls == ["train_begin", "epoch_begin 0", "batch 0", "batch 1", "epoch_end 0 0.5",
                     "epoch_begin 1", "batch 0", "batch 1", "epoch_end 1 0.25", "train_end"]
    lam.on_test_end({})
    assert calls[-1] == "test_end"
    with pytest.raises(ValueError, match="unknown hook"):
        cb.LambdaCallback(on_everything=print)


# ------------------------------------------------------------------------ ModelCheckpoint


def test_model_checkpoint_formats_filenames_with_epoch_and_logs(tmp_path):
    model = FakeModel()
    path = str(tmp_path / "ckpt" / "m-{epoch:02d}-{val_loss:.2f}.h5")
    fit([cb.ModelCheckpoint(path)], val_losses(0.5, 0.375), model=model)
    assert model.saved == [("save", str(tmp_path / "ckpt" / "m-01-0.50.h5")),
                           ("save", str(tmp_path / "ckpt" / "m-02-0.38.h5"))]
    assert os.path.exists(model.saved[0][1])  # the folder was created

    model = FakeModel()
    path = str(tmp_path / "w-{epoch}.weights.h5")
    fit([cb.ModelCheckpoint(path, save_weights_only=True)], val_losses(0.5), model=model)
    assert model.saved == [("save_weights", str(tmp_path / "w-1.weights.h5"))]

    with pytest.raises(KeyError, match="Failed to format"):
        fit([cb.ModelCheckpoint(str(tmp_path / "{val_auc}.h5"))], val_losses(0.5))


def test_model_checkpoint_save_best_only_decisions(tmp_path, capsys):
    model = FakeModel()
    path = str(tmp_path / "best-{epoch}.weights.h5")
    check = cb.ModelCheckpoint(path, save_best_only=True, save_weights_only=True, verbose=1)
    fit([check], val_losses(0.5, 0.6, 0.4, 0.4), model=model)
    assert [p for _, p in model.saved] == [str(tmp_path / "best-1.weights.h5"),
                                          str(tmp_path / "best-3.weights.h5")]
    assert check.best == 0.4
    out = capsys.readouterr().out
    assert "Epoch 1: val_loss improved from inf to 0.50000" in out
    assert "Epoch 2: val_loss did not improve from 0.50000" in out

    # accuracy is maximized; initial_value_threshold must be beaten first
    model = FakeModel()
    logs = [{"val_accuracy": a} for a in (0.7, 0.85, 0.9, 0.8)]
    check = cb.ModelCheckpoint(path, monitor="val_accuracy", save_best_only=True,
                               save_weights_only=True, initial_value_threshold=0.8)
    fit([check], logs, model=model)
    assert [p for _, p in model.saved] == [str(tmp_path / "best-2.weights.h5"),
                                          str(tmp_path / "best-3.weights.h5")]

    model = FakeModel()
    check = cb.ModelCheckpoint(path, save_best_only=True, mode="max", save_weights_only=True)
    fit([check], val_losses(0.5, 0.6, 0.4), model=model)
    assert len(model.saved) == 2

    model = FakeModel()
    with pytest.warns(UserWarning, match="Can save best model only with val_loss"):
        fit([cb.ModelCheckpoint(path, save_best_only=True)], [{"loss": 1.0}], model=model)
    assert model.saved == []


def test_model_checkpoint_save_freq_in_batches(tmp_path):
    model = FakeModel()
    path = str(tmp_path / "e{epoch}-b{batch}.h5")
    fit([cb.ModelCheckpoint(path, save_freq=2)], [{"loss": 1.0}] * 2, model=model, steps=3)
    # batches seen: 2 (e1 b2), 4 (e2 b1), 6 (e2 b3)
    assert [os.path.basename(p) for _, p in model.saved] == ["e1-b2.h5", "e2-b1.h5",
                                                            "e2-b3.h5"]
    with pytest.raises(ValueError, match="save_freq"):
        cb.ModelCheckpoint(path, save_freq="batch")


# ----------------------------------------------------------------------- BackupAndRestore


def test_backup_and_restore_resumes_after_a_crash_and_cleans_up(tmp_path):
    backup_dir = tmp_path / "backup"
    model = FakeModel()
    with pytest.raises(KeyboardInterrupt):
        fit([cb.BackupAndRestore(backup_dir)], [{"loss": 1.0}] * 5, model=model,
            crash_at_epoch=2)
    with open(backup_dir / "training_state.json") as f:
        assert json.load(f)["epoch"] == 1  # epochs 0 and 1 finished
    assert (backup_dir / "latest.h5").read_text() == "weights=1.0"

    resumed = FakeModel()
    seen_epochs = []
    history = fit([cb.BackupAndRestore(backup_dir),
                   cb.LambdaCallback(on_epoch_begin=lambda e, logs: seen_epochs.append(e))],
                  [{"loss": 1.0}] * 5, model=resumed)
    assert resumed.restored_from == str(backup_dir / "latest.h5")
    assert resumed._initial_epoch_from_backup == 2
    assert seen_epochs == [2, 3, 4] and history.epoch == [2, 3, 4]
    assert not backup_dir.exists()  # deleted after a successful end

    model = FakeModel()
    fit([cb.BackupAndRestore(backup_dir, delete_checkpoint=False)], [{"loss": 1.0}] * 2,
        model=model)
    with open(backup_dir / "training_state.json") as f:
        assert json.load(f) == {"epoch": 1, "batch": None}
    fresh = FakeModel()
    cb.CallbackList([cb.BackupAndRestore(tmp_path / "empty")], model=fresh).on_train_begin()
    assert fresh.restored_from is None and not hasattr(fresh, "_initial_epoch_from_backup")


def test_backup_and_restore_every_n_batches(tmp_path):
    backup_dir = tmp_path / "b"
    model = FakeModel()
    with pytest.raises(KeyboardInterrupt):
        fit([cb.BackupAndRestore(backup_dir, save_freq=2, delete_checkpoint=False)],
            [{"loss": 1.0}] * 3, model=model, steps=3, crash_at_epoch=1)
    # a backup after batch index 1 of epoch 0 (no finished epoch) and none after
    assert len(model.saved) == 1
    with open(backup_dir / "training_state.json") as f:
        assert json.load(f) == {"epoch": -1, "batch": 1}
    with pytest.raises(ValueError):
        cb.BackupAndRestore("")


# ---------------------------------------------------------------------- get / registry


def test_get_resolves_names_configs_and_instances():
    assert isinstance(cb.get("TerminateOnNaN"), cb.TerminateOnNaN)
    stopper = cb.get({"class_name": "EarlyStopping", "config": {"patience": 3}})
    assert isinstance(stopper, cb.EarlyStopping) and stopper.patience == 3
    assert cb.get(stopper) is stopper and cb.get(None) is None
    assert isinstance(cb.get(cb.History), cb.History)
    for name in ("Callback", "History", "ProgbarLogger", "EarlyStopping", "ModelCheckpoint",
                 "ReduceLROnPlateau", "LearningRateScheduler", "CSVLogger", "TerminateOnNaN",
                 "LambdaCallback", "BackupAndRestore"):
        assert name in cb.CALLBACKS
    with pytest.raises(ValueError, match="unknown callback 'Nope'.*EarlyStopping"):
        cb.get("Nope")


# -------------------------------------------------------------------------------- progress

LINE = re.compile(r"^(\d+)/(\d+) - \d+s - \d+(us|ms|s)/step((?: - \w+: [-\d.e+]+)*)$")


def epoch_logs(n):
    return [{"loss": 0.5 / (e + 1), "accuracy": 0.9, "val_loss": 0.6, "val_accuracy": 0.8}
            for e in range(n)]


def progress_lines(out):
    return [line for line in out.splitlines() if line.strip()]


@pytest.mark.parametrize("verbose", [2, 1, "auto"])
def test_one_line_per_epoch_when_verbose_2_or_not_a_tty(verbose, capsys):
    fit([], epoch_logs(3), steps=4, verbose=verbose)
    lines = progress_lines(capsys.readouterr().out)
    assert lines[0::2] == ["Epoch 1/3", "Epoch 2/3", "Epoch 3/3"]
    for line, epoch in zip(lines[1::2], range(3)):
        match = LINE.match(line)
        assert match, line
        assert match.group(1) == match.group(2) == "4"
        assert match.group(4) == (f" - loss: {0.5 / (epoch + 1):.4f} - accuracy: 0.9000"
                                  " - val_loss: 0.6000 - val_accuracy: 0.8000")
    assert len(lines) == 6


def test_single_epoch_has_no_header_and_verbose_0_prints_nothing(capsys):
    fit([], epoch_logs(1), steps=4, verbose=2)
    lines = progress_lines(capsys.readouterr().out)
    assert len(lines) == 1 and LINE.match(lines[0])
    fit([], epoch_logs(2), steps=4, verbose=0)
    assert capsys.readouterr().out == ""


def test_unknown_steps_use_the_count_seen(capsys):
    fit([], epoch_logs(1), steps=5, verbose=2)
    callbacks = cb.CallbackList([], add_progbar=True, model=FakeModel(), verbose=2,
                                epochs=1, steps=None)
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    for batch in range(7):
        callbacks.on_train_batch_end(batch, {"loss": 0.1})
    callbacks.on_epoch_end(0, {"loss": 0.1})
    line = progress_lines(capsys.readouterr().out)[-1]
    assert line.startswith("7/7 - ")


def test_evaluate_and_predict_progress_outside_fit(capsys):
    callbacks = cb.CallbackList([], add_progbar=True, model=FakeModel(), verbose=2,
                                epochs=1, steps=3)
    callbacks.on_test_begin()
    for batch in range(3):
        callbacks.on_test_batch_end(batch, {"loss": 0.25})
    callbacks.on_test_end({"loss": 0.25})
    callbacks.on_predict_begin()
    for batch in range(3):
        callbacks.on_predict_batch_end(batch, {"outputs": None})
    callbacks.on_predict_end()
    lines = progress_lines(capsys.readouterr().out)
    assert len(lines) == 2
    assert LINE.match(lines[0]).group(4) == " - loss: 0.2500"
    assert LINE.match(lines[1]).group(4) == ""


def test_validation_inside_fit_is_not_shown_separately(capsys):
    callbacks = cb.CallbackList([], add_progbar=True, model=FakeModel(), verbose=2,
                                epochs=1, steps=2)
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    for batch in range(2):
        callbacks.on_train_batch_end(batch, {"loss": 0.5})
    callbacks.on_test_begin()
    callbacks.on_test_batch_end(0, {"loss": 0.7})
    callbacks.on_test_end({"loss": 0.7})
    callbacks.on_epoch_end(0, {"loss": 0.5, "val_loss": 0.7})
    callbacks.on_train_end()
    lines = progress_lines(capsys.readouterr().out)
    assert len(lines) == 1 and lines[0].endswith(" - loss: 0.5000 - val_loss: 0.7000")


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_live_bar_on_a_terminal(monkeypatch):
    stream = FakeTTY()
    monkeypatch.setattr(sys, "stdout", stream)
    steps = 2000
    fit([], epoch_logs(2), steps=steps, verbose=1,
        batch_logs=lambda e, b: {"loss": 0.25, "accuracy": 0.5})
    out = stream.getvalue()
    assert "Epoch 1/2\n" in out and "Epoch 2/2\n" in out
    final = [seg for seg in re.split(r"[\r\n]", out) if seg.startswith(f"{steps}/{steps}")]
    assert len(final) >= 2
    for line in final[-2:]:
        assert re.search(r"\d+(us|ms|s)/step - loss: 0\.\d{4} - accuracy: 0\.9000"
                         r" - val_loss: 0\.6000 - val_accuracy: 0\.8000$", line.rstrip()), line
    # redraws are throttled: far fewer than one per batch
    assert out.count("\r") < steps / 10


def test_live_progbar_redraws_at_most_every_interval(monkeypatch):
    stream = FakeTTY()
    monkeypatch.setattr(sys, "stdout", stream)
    clock = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    bar = progress.Progbar(target=100, verbose=1, interval=0.1)
    assert bar.live
    draws = stream.getvalue().count("\r")
    for step in range(1, 100):
        clock[0] += 0.01  # 10 ms per step: a redraw every 10 steps
        bar.update(step, {"loss": 1.0 / step})
    redraws = stream.getvalue().count("\r") - draws
    assert 8 <= redraws <= 11
    assert "10ms/step - loss:" in stream.getvalue()
    clock[0] += 0.01
    bar.update(100, {"loss": 0.01})
    last = stream.getvalue().rstrip("\n").split("\r")[-1].rstrip()
    assert last.startswith("100/100") and last.endswith("10ms/step - loss: 0.0100")


def test_number_and_time_formats():
    assert progress.format_time_per_step(0.012) == "12ms/step"
    assert progress.format_time_per_step(0.0004) == "400us/step"
    assert progress.format_time_per_step(2.4) == "2s/step"
    assert progress.format_value(0.123456) == "0.1235"
    assert progress.format_value(0.0001) == "1.0000e-04"
    assert progress.format_value(np.float32(2.0)) == "2.0000"
    assert progress.format_logs({"loss": 0.5, "acc": 1}) == " - loss: 0.5000 - acc: 1.0000"
