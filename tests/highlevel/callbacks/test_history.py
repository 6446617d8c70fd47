"""The History callback records the epoch logs and is set on the model."""

from harness.callbacks import FakeModel, fit
from lamina.highlevel import callbacks as cb


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
