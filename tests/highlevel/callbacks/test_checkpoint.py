"""ModelCheckpoint and BackupAndRestore, driven on a fake model (file names, best-only
decisions, save frequency, resuming after a crash) and on real models (the files load,
a crashed fit resumes bit-identically)."""

import json
import os

import numpy as np
import pytest

import lamina
from harness.callbacks import FakeModel, fit, val_losses
from harness.saving import assert_same_predictions, data, mlp
from lamina.highlevel import callbacks as cb


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
    assert resumed.initial_epoch == 2
    assert seen_epochs == [2, 3, 4] and history.epoch == [2, 3, 4]
    assert not backup_dir.exists()  # deleted after a successful end

    model = FakeModel()
    fit([cb.BackupAndRestore(backup_dir, delete_checkpoint=False)], [{"loss": 1.0}] * 2,
        model=model)
    with open(backup_dir / "training_state.json") as f:
        assert json.load(f) == {"epoch": 1, "batch": None}
    fresh = FakeModel()
    cb.CallbackList([cb.BackupAndRestore(tmp_path / "empty")], model=fresh).on_train_begin()
    assert fresh.restored_from is None and fresh.initial_epoch is None


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


def test_model_checkpoint_writes_formatted_files_that_load(tmp_path):
    x, y = data(64)
    model = mlp()
    pattern = str(tmp_path / "ckpt-{epoch:02d}-{val_loss:.2f}.h5")
    model.fit(x, y, epochs=3, batch_size=16, validation_split=0.25, verbose=0,
              callbacks=[lamina.callbacks.ModelCheckpoint(pattern)])
    files = sorted(os.listdir(tmp_path))
    assert [f[:8] for f in files] == ["ckpt-01-", "ckpt-02-", "ckpt-03-"]
    val = model.history.history["val_loss"][-1]
    assert files[-1] == f"ckpt-03-{val:.2f}.h5"
    assert_same_predictions(model, lamina.load_model(tmp_path / files[-1]), x)

    best = str(tmp_path / "best.weights.h5")
    model.fit(x, y, epochs=2, batch_size=16, validation_split=0.25, verbose=0,
              callbacks=[lamina.callbacks.ModelCheckpoint(best, save_best_only=True,
                                                          save_weights_only=True,
                                                          mode="min", save_freq="epoch")])
    twin = mlp(compiled=False)
    twin.load_weights(best)
    assert any(not np.array_equal(a, b) for a, b in zip(twin.get_weights(),
                                                         mlp(compiled=False).get_weights()))


class _Interrupt(lamina.callbacks.Callback):
    def __init__(self, at_epoch):
        super().__init__()
        self.at_epoch = at_epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.at_epoch:
            raise KeyboardInterrupt("simulated crash")


def test_backup_and_restore_resumes_bit_identically(tmp_path):
    x, y = data(80)
    straight = mlp()
    straight.fit(x, y, epochs=5, batch_size=16, verbose=0)
    backup = tmp_path / "backup"
    crashed = mlp()
    with pytest.raises(KeyboardInterrupt):
        crashed.fit(x, y, epochs=5, batch_size=16, verbose=0,
                    callbacks=[lamina.callbacks.BackupAndRestore(backup), _Interrupt(3)])
    assert os.path.exists(backup / "latest.h5")
    fresh = mlp()                           # a new process would rebuild the model
    history = fresh.fit(x, y, epochs=5, batch_size=16, verbose=0,
                        callbacks=[lamina.callbacks.BackupAndRestore(backup)])
    assert len(history.history["loss"]) == 2          # epochs 4 and 5 only
    for a, b in zip(straight.get_weights(), fresh.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not os.path.exists(backup)
