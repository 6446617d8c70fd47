"""The callbacks that watch a logged quantity and act on training (``callbacks/monitor.py``):
EarlyStopping, ReduceLROnPlateau, LearningRateScheduler and TerminateOnNaN, driven the way
the training loop drives them (``harness.callbacks``)."""

import math

import pytest

from harness.callbacks import FakeModel, fit, val_losses
from lamina.highlevel import callbacks as cb


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


# ------------------------------------------------------------------------- TerminateOnNaN


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
