"""The Callback registry and its lookup (``callbacks.get``)."""

import pytest

from lamina.highlevel import callbacks as cb


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
