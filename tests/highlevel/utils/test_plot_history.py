"""``lamina.utils.plot_history``: one panel per quantity (loss first), train and validation
curves with the History's numbers; saved when ``to_file`` is given."""

import sys

import numpy as np
import pytest

import lamina
from lamina import layers as L

pytest.importorskip("matplotlib", reason="plot_history needs the [plot] extra")


def test_one_panel_per_metric_with_train_and_validation(tmp_path):
    model = lamina.Sequential([lamina.Input((3,)), L.Dense(2, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    x = np.random.RandomState(0).randn(20, 3).astype("float32")
    history = model.fit(x, (x[:, 0] > 0).astype("int32"), epochs=3, validation_split=0.25,
                        verbose=0)
    figure = lamina.utils.plot_history(history, to_file=tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes().startswith(b"\x89PNG")
    titles = [axis.get_title() for axis in figure.axes]
    assert titles[0] == "loss" and sorted(titles) == ["accuracy", "loss"]
    lines = {line.get_label(): line.get_ydata() for line in figure.axes[0].get_lines()}
    np.testing.assert_allclose(lines["train"], history.history["loss"])
    np.testing.assert_allclose(lines["validation"], history.history["val_loss"])


def test_dict_without_validation_and_bad_input():
    figure = lamina.utils.plot_history({"loss": [3.0, 2.0], "mae": [1.0, 0.5]})
    assert [len(axis.get_lines()) for axis in figure.axes] == [1, 1]
    with pytest.raises(ValueError, match="non-empty"):
        lamina.utils.plot_history({})
    with pytest.raises(ValueError, match="no values for"):
        lamina.utils.plot_history({"loss": [1.0]}, metrics=["auc"])


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"lamina\[plot\]"):
        lamina.utils.plot_history({"loss": [1.0]})
