"""LambdaCallback: a callback made from plain functions."""

import pytest

from harness.callbacks import fit
from lamina.highlevel import callbacks as cb


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
