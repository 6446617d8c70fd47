"""``lamina.callbacks.TensorBoard``: event files with Keras 3's folders and tags, read back
with the ``tensorboard`` package's EventAccumulator and compared with ``History``."""

import sys

import numpy as np
import pytest

import lamina
from lamina import layers as L

pytest.importorskip("tensorboardX", reason="TensorBoard needs the [tensorboard] extra")
event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.event_accumulator",
    reason="the tensorboard package (the [tensorboard] extra) reads the event files back")


def _read(folder):
    accumulator = event_accumulator.EventAccumulator(
        str(folder), size_guidance={event_accumulator.SCALARS: 0,
                                    event_accumulator.HISTOGRAMS: 0,
                                    event_accumulator.IMAGES: 0,
                                    event_accumulator.TENSORS: 0})
    accumulator.Reload()
    return accumulator


def _scalars(accumulator, tag):
    return [(event.step, event.value) for event in accumulator.Scalars(tag)]


def _fit(tmp_path, **kwargs):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((4,)), L.Dense(8, activation="relu"),
                               L.Dense(3, activation="softmax")])
    model.compile(optimizer=lamina.optimizers.SGD(0.05), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    x = np.random.RandomState(0).randn(40, 4).astype("float32")
    y = (x[:, 0] > 0).astype("int32")
    callback = lamina.callbacks.TensorBoard(log_dir=tmp_path / "logs", **kwargs)
    history = model.fit(x, y, batch_size=10, epochs=3, validation_split=0.25, verbose=0,
                        callbacks=[callback])
    return model, history


def test_epoch_scalars_match_history(tmp_path):
    _, history = _fit(tmp_path, histogram_freq=1, write_images=True)
    train, validation = _read(tmp_path / "logs" / "train"), _read(tmp_path / "logs" / "validation")
    for name in ("loss", "accuracy"):
        np.testing.assert_allclose([v for _, v in _scalars(train, f"epoch_{name}")],
                                   history.history[name], rtol=1e-6)
        assert [s for s, _ in _scalars(train, f"epoch_{name}")] == [0, 1, 2]
        np.testing.assert_allclose([v for _, v in _scalars(validation, f"epoch_{name}")],
                                   history.history[f"val_{name}"], rtol=1e-6)
    np.testing.assert_allclose([v for _, v in _scalars(train, "epoch_learning_rate")],
                               [0.05] * 3, rtol=1e-6)
    assert any(tag.endswith("kernel/histogram") for tag in train.Tags()["histograms"])
    assert any(tag.endswith("kernel/image") for tag in train.Tags()["images"])
    assert "keras" in train.Tags()["tensors"]                   # the model config graph
    iterations = [s for s, _ in _scalars(validation, "evaluation_loss_vs_iterations")]
    assert iterations == [3, 6, 9]
    assert not any(tag.startswith("batch_") for tag in train.Tags()["scalars"])


@pytest.mark.parametrize("update_freq, steps", [("batch", list(range(1, 10))), (2, [2, 4, 6, 8])])
def test_batch_scalars_every_update_freq(update_freq, steps, tmp_path):
    _fit(tmp_path, update_freq=update_freq, write_steps_per_second=True, write_graph=False)
    train = _read(tmp_path / "logs" / "train")
    assert [s for s, _ in _scalars(train, "batch_loss")] == steps
    assert [s for s, _ in _scalars(train, "batch_steps_per_second")] == steps
    assert len(_scalars(train, "epoch_steps_per_second")) == 3


def test_profile_batch_is_accepted_with_a_warning(tmp_path):
    with pytest.warns(UserWarning, match="profile_batch"):
        lamina.callbacks.TensorBoard(log_dir=tmp_path, profile_batch=2)
    with pytest.raises(ValueError, match="update_freq"):
        lamina.callbacks.TensorBoard(log_dir=tmp_path, update_freq="sometimes")


def test_missing_tensorboardx_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(ImportError, match=r"lamina\[tensorboard\]"):
        lamina.callbacks.TensorBoard(log_dir=tmp_path)
