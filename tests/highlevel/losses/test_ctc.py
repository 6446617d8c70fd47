"""The CTC loss (``highlevel/losses/ctc.py``): ``losses.CTC`` / ``losses.ctc`` against Keras
3.15's values for every reduction, with and without ``sample_weight``; names, config and
serialization; a Dense-over-time model compiled with it that learns, saved and loaded.

The expected numbers were computed once with Keras 3.15.1 (torch backend)::

    KERAS_BACKEND=torch /work/kvenv/bin/python -c '
    import numpy as np, keras
    logits = (2 * np.sin(0.7 * np.arange(120.0)) + np.cos(1.3 * np.arange(120.0))
              ).reshape(4, 6, 5).astype("float32")
    y_true = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0], [2, 3, 4]], dtype="int32")
    w = np.array([0.5, 1.0, 2.0, 1.5], dtype="float32")
    print(keras.losses.ctc(y_true, logits))
    for r in ["sum_over_batch_size", "sum", "none", "mean_with_sample_weight"]:
        loss = keras.losses.CTC(reduction=r)
        print(r, loss(y_true, logits), loss(y_true, logits, sample_weight=w))
    print(keras.losses.serialize(keras.losses.CTC()))
    '
"""

import json
import zipfile

import numpy as np
import pytest

import lamina
from lamina import layers, losses

LOGITS = (2 * np.sin(0.7 * np.arange(120.0))
          + np.cos(1.3 * np.arange(120.0))).reshape(4, 6, 5).astype("float32")
Y_TRUE = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0], [2, 3, 4]], dtype="int32")
WEIGHTS = np.array([0.5, 1.0, 2.0, 1.5], dtype="float32")
PER_SAMPLE = [10.768301010131836, 6.080959796905518, 12.401432991027832, 5.943760871887207]
KERAS_VALUES = {  # reduction -> (unweighted, weighted)
    "sum_over_batch_size": (8.798613548278809, 11.295904159545898),
    "sum": (35.194454193115234, 45.183616638183594),
    "none": (PER_SAMPLE, [5.384150505065918, 6.080959796905518, 24.802865982055664,
                          8.915641784667969]),
    "mean_with_sample_weight": (8.798613548278809, 9.036723136901855),
}
KERAS_SERIALIZED = {"module": "keras.losses", "class_name": "CTC",
                    "config": {"name": "ctc", "reduction": "sum_over_batch_size"},
                    "registered_name": None}


def test_function_matches_keras(engine):
    for y_true in (Y_TRUE, Y_TRUE.astype("float32")):     # float labels holding integers
        values = losses.ctc(y_true, LOGITS)
        assert values.dtype == np.float32 and values.shape == (4,)
        np.testing.assert_allclose(values.numpy(), PER_SAMPLE, rtol=1e-6)


@pytest.mark.parametrize("reduction", sorted(KERAS_VALUES))
def test_class_matches_keras_for_every_reduction(engine, reduction):
    loss = losses.CTC(reduction=reduction)
    unweighted, weighted = KERAS_VALUES[reduction]
    np.testing.assert_allclose(loss(Y_TRUE, LOGITS).numpy(), unweighted, rtol=1e-6)
    np.testing.assert_allclose(loss(Y_TRUE, LOGITS, sample_weight=WEIGHTS).numpy(), weighted,
                               rtol=1e-6)


def test_names_config_and_serialization():
    assert type(losses.get("ctc")) is losses.CTC and type(losses.get("CTC")) is losses.CTC
    assert type(losses.get(losses.ctc)) is losses.CTC
    loss = losses.CTC()
    assert loss.name == "ctc" and loss.get_config() == KERAS_SERIALIZED["config"]
    assert losses.serialize(loss) == KERAS_SERIALIZED
    again = losses.deserialize(KERAS_SERIALIZED)
    assert type(again) is losses.CTC and again.get_config() == loss.get_config()
    custom = losses.CTC(reduction="sum", name="mine", dtype="float32")
    assert losses.CTC.from_config(custom.get_config()).get_config() == {
        "name": "mine", "reduction": "sum"}


def test_bad_shapes_are_reported():
    with pytest.raises(ValueError, match=r"y_true.shape=\(4, 3, 1\)"):
        losses.ctc(Y_TRUE[..., None] + 0, LOGITS)
    with pytest.raises(ValueError, match=r"y_pred.shape=\(4, 30\)"):
        losses.ctc(Y_TRUE, LOGITS.reshape(4, 30))


def _sequence_task(samples=64, frames=8, classes=5):
    """Frames holding a noisy one-hot of their label (blank 0 between labels): the model
    must learn to read the label sequence off them."""
    rng = np.random.default_rng(3)
    labels = rng.integers(1, classes, size=(samples, 3))
    lengths = rng.integers(1, 4, size=samples)
    y = np.where(np.arange(3)[None, :] < lengths[:, None], labels, 0).astype("int32")
    frame_labels = np.zeros((samples, frames), dtype="int64")
    frame_labels[:, 1:7:2] = y                      # label, blank, label, ...
    x = np.eye(classes)[frame_labels] + 0.1 * rng.standard_normal((samples, frames, classes))
    return x.astype("float32"), y


def test_model_learns_with_ctc_and_saves(engine, tmp_path):
    lamina.utils.set_random_seed(0)
    x, y = _sequence_task()
    model = lamina.Sequential([lamina.Input((8, 5)), layers.Dense(16, activation="relu"),
                               layers.Dense(5)])
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss=losses.CTC())
    history = model.fit(x, y, batch_size=16, epochs=30, verbose=0)
    first, last = history.history["loss"][0], history.history["loss"][-1]
    assert last < 0.2 * first, (first, last)
    decoded, _ = lamina.ops.ctc_decode(model.predict(x, verbose=0), np.full(len(x), 8))
    assert (decoded.numpy()[0][:, :3] == np.where(y == 0, -1, y)).all(axis=1).mean() > 0.9

    path = tmp_path / "ctc_model.keras"
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
    assert config["compile_config"]["loss"] == KERAS_SERIALIZED
    loaded = lamina.saving.load_model(path)
    reloaded = loaded.get_compile_config()["loss"]
    assert (reloaded["class_name"], reloaded["config"]) == ("CTC", KERAS_SERIALIZED["config"])
    np.testing.assert_allclose(loaded.evaluate(x, y, verbose=0),
                               model.evaluate(x, y, verbose=0), rtol=1e-6)
