"""``save_weights`` / ``load_weights``: both of Keras' layouts, layout detection from the
file's contents, ``by_name`` and ``skip_mismatch`` with their reports, and errors that
leave the model unchanged."""

import logging
import shutil

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.highlevel.saving.errors import WeightMismatchError
from lamina.highlevel.saving.weights_file import LoadReport


def stack(units=(8, 4), name=None, seed=0, names=("first", "second")):
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([layers.Input((5,))] + [
        layers.Dense(u, activation="relu", name=n) for u, n in zip(units, names)], name=name)
    return model


def same(first, second):
    return all(np.array_equal(a, b) for a, b in zip(first.get_weights(), second.get_weights()))


def group_tree(path):
    found = {}
    with h5py.File(path, "r") as handle:
        def visit(name, obj):
            if isinstance(obj, h5py.Group) and name.endswith("vars"):
                label = obj.attrs.get("name")
                found[name] = (label.decode() if isinstance(label, bytes) else label,
                               sorted(obj.keys(), key=int))
        handle.visititems(visit)
        return found, dict(handle.attrs)


# ----------------------------------------------------------------------------- layouts
def test_weights_h5_uses_keras3_layout_with_class_keys_and_nested_cells(tmp_path):
    a, b = lamina.Input((4, 3), name="a"), lamina.Input((4, 3), name="b")
    seq = layers.LSTM(5, name="memory")(a)
    attended = layers.MultiHeadAttention(num_heads=2, key_dim=2, name="mha")(b, b)
    pooled = layers.GlobalAveragePooling1D()(attended)
    out_1 = layers.Dense(2, name="out_1")(layers.Concatenate()([seq, pooled]))
    out_2 = layers.Dense(1, name="out_2")(pooled)
    model = lamina.Model([a, b], [out_1, out_2])
    model.compile(optimizer="adam", loss=["mse", "mse"])
    x = [np.ones((2, 4, 3), "float32")] * 2
    model.train_on_batch(x, [np.ones((2, 2), "float32"), np.ones((2, 1), "float32")])
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    tree, attrs = group_tree(path)
    assert "layer_names" not in attrs
    # model.layers (as Keras orders them): b, a, mha, memory, ... -> keys by class counter
    assert [layer.name for layer in model.layers][:4] == ["b", "a", "mha", "memory"]
    assert tree["layers/input_layer/vars"] == ("b", [])
    assert tree["layers/input_layer_1/vars"] == ("a", [])
    assert tree["layers/lstm/vars"] == ("memory", [])
    assert tree["layers/lstm/cell/vars"] == ("lstm_cell", ["0", "1", "2"])
    assert tree["layers/multi_head_attention/query_dense/vars"] == ("query", ["0", "1"])
    assert tree["layers/multi_head_attention/output_dense/vars"][1] == ["0", "1"]
    assert tree["layers/dense/vars"] == ("out_1", ["0", "1"])
    assert tree["layers/dense_1/vars"] == ("out_2", ["0", "1"])
    assert tree["optimizer/vars"][0] == "adam"
    assert len(tree["optimizer/vars"][1]) == 2 + 2 * len(model.trainable_weights)
    assert tree["vars"] == (model.name, [])


def test_other_paths_use_the_legacy_layout(tmp_path):
    model = stack(name="legacy_stack")
    model.save_weights(tmp_path / "w.h5")
    with h5py.File(tmp_path / "w.h5", "r") as handle:
        assert [n.decode() for n in handle.attrs["layer_names"]] == ["first", "second"]
        assert [n.decode() for n in handle["first"].attrs["weight_names"]] == [
            "legacy_stack/first/kernel", "legacy_stack/first/bias"]
        assert "model_config" not in handle.attrs


@pytest.mark.parametrize("saved_as, loaded_as", [("w.weights.h5", "renamed.bin"),
                                                 ("w.h5", "renamed.weights.h5"),
                                                 ("w.h5", "w.h5")])
def test_load_weights_detects_the_layout_from_the_contents(tmp_path, saved_as, loaded_as):
    source, target = stack(seed=1), stack(seed=2)
    assert not same(source, target)
    source.save_weights(tmp_path / saved_as)
    if saved_as != loaded_as:
        shutil.copy(tmp_path / saved_as, tmp_path / loaded_as)
    assert target.load_weights(tmp_path / loaded_as) is None
    assert same(source, target)


def test_load_weights_from_a_full_model_file(tmp_path):
    source, target = stack(seed=1), stack(seed=2)
    source.save(tmp_path / "full.h5")
    target.load_weights(tmp_path / "full.h5")
    assert same(source, target)


def test_optimizer_state_travels_in_weights_h5(tmp_path):
    model = stack(seed=1)
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse")
    x, y = np.ones((8, 5), "float32"), np.zeros((8, 4), "float32")
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    model.save_weights(tmp_path / "w.weights.h5")
    twin = stack(seed=2)
    twin.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse")
    twin.load_weights(tmp_path / "w.weights.h5")
    assert twin.optimizer.iterations == 4
    model.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    twin.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    assert same(model, twin)


# ----------------------------------------------------------------------------- by_name / skip
@pytest.mark.parametrize("suffix", [".h5", ".weights.h5"])
def test_by_name_loads_matching_layers_and_reports_the_rest(tmp_path, suffix, caplog):
    source = stack(units=(8, 4), names=("first", "second"), seed=1)
    source.save_weights(tmp_path / f"w{suffix}")
    target = stack(units=(8, 6), names=("first", "other"), seed=2)
    before_other = target.get_layer("other").get_weights()
    with caplog.at_level(logging.WARNING, logger="lamina.saving"):
        report = target.load_weights(tmp_path / f"w{suffix}", by_name=True)
    assert isinstance(report, LoadReport)
    assert report.loaded == ["first/kernel", "first/bias"]
    skipped = dict(report.skipped)
    assert "other" in skipped
    assert any("second" in what for what in skipped)
    assert report.mismatched == []
    assert "skipped" in caplog.text
    np.testing.assert_array_equal(target.get_layer("first").get_weights()[0],
                                  source.get_layer("first").get_weights()[0])
    for a, b in zip(before_other, target.get_layer("other").get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("suffix", [".h5", ".weights.h5"])
@pytest.mark.parametrize("by_name", [False, True])
def test_skip_mismatch_with_and_without_by_name(tmp_path, suffix, by_name):
    source = stack(units=(8, 4), seed=1)
    source.save_weights(tmp_path / f"w{suffix}")
    target = stack(units=(8, 3), seed=2)             # "second" has a different shape
    before = target.get_layer("second").get_weights()
    with pytest.raises(WeightMismatchError, match="second"):
        target.load_weights(tmp_path / f"w{suffix}", by_name=by_name)
    report = target.load_weights(tmp_path / f"w{suffix}", by_name=by_name, skip_mismatch=True)
    assert report.loaded == ["first/kernel", "first/bias"]
    assert [what for what, _ in report.mismatched] == ["second"]
    assert "(4,)" in report.summary() or "4)" in report.summary()
    for a, b in zip(before, target.get_layer("second").get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("suffix", [".h5", ".weights.h5"])
def test_a_load_that_sets_nothing_raises(tmp_path, suffix):
    stack(names=("a", "b")).save_weights(tmp_path / f"w{suffix}")
    target = stack(names=("c", "d"))
    with pytest.raises(WeightMismatchError, match="no weight"):
        target.load_weights(tmp_path / f"w{suffix}", by_name=True)
    wrong = stack(units=(3, 2), names=("a", "b"))
    with pytest.raises(WeightMismatchError, match="no weight"):
        wrong.load_weights(tmp_path / f"w{suffix}", skip_mismatch=True)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("suffix", [".h5", ".weights.h5"])
def test_layer_count_and_shape_mismatch_leave_the_model_unchanged(tmp_path, suffix):
    stack(units=(8, 4), seed=1).save_weights(tmp_path / f"w{suffix}")
    deeper = lamina.Sequential([layers.Input((5,)), layers.Dense(8), layers.Dense(4),
                                layers.Dense(2)])
    before = deeper.get_weights()
    with pytest.raises(WeightMismatchError, match="layer count") as error:
        deeper.load_weights(tmp_path / f"w{suffix}")
    assert f"w{suffix}" in str(error.value)
    assert all(np.array_equal(a, b) for a, b in zip(before, deeper.get_weights()))
    wider = stack(units=(8, 5), seed=2)               # first layer fits, second does not
    before = wider.get_weights()
    with pytest.raises(WeightMismatchError, match="second"):
        wider.load_weights(tmp_path / f"w{suffix}")
    assert all(np.array_equal(a, b) for a, b in zip(before, wider.get_weights()))


def test_load_weights_into_an_unbuilt_model_raises(tmp_path):
    stack().save_weights(tmp_path / "w.h5")
    with pytest.raises(ValueError, match="build"):
        lamina.Sequential([layers.Dense(8), layers.Dense(4)]).load_weights(tmp_path / "w.h5")


def test_weights_file_has_checksums(tmp_path):
    stack().save_weights(tmp_path / "w.weights.h5")
    with h5py.File(tmp_path / "w.weights.h5", "r") as handle:
        dataset = handle["layers/dense/vars/0"]
        assert len(dataset.attrs["lamina_sha256"]) == 64
        assert "lamina_checksums" in handle.attrs


def _two_branches(order):
    a, b = lamina.Input((4,), name="a"), lamina.Input((4,), name="b")
    branches = {"left": layers.Dense(3, name="left")(a),
                "right": layers.Dense(3, name="right")(b)}
    return lamina.Model([a, b], [branches[name] for name in order])


@pytest.mark.parametrize("suffix", [".h5", ".weights.h5"])
def test_matching_names_pair_layers_whatever_their_order(tmp_path, suffix):
    lamina.utils.set_random_seed(0)
    source = _two_branches(["left", "right"])
    target = _two_branches(["right", "left"])          # same layers, other order
    assert [layer.name for layer in source.layers] != [layer.name for layer in target.layers]
    source.save_weights(tmp_path / f"w{suffix}")
    target.load_weights(tmp_path / f"w{suffix}")
    for name in ("left", "right"):
        for a, b in zip(source.get_layer(name).get_weights(),
                        target.get_layer(name).get_weights()):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("names, expected", [
    ((".", "second"), "not a valid HDF5 group name"),
    (("..", "second"), "not a valid HDF5 group name"),
    (("fir\0st", "second"), "not a valid HDF5 group name"),
    (("x" * 70000, "second"), "70000 bytes long"),
    (("top_level_model_weights", "second"), "reserved"),
    (("twin", "twin"), "used by two layers"),
])
@pytest.mark.parametrize("how", ["save", "save_weights"])
def test_layer_names_the_legacy_layout_cannot_store_are_refused_at_save(tmp_path, names,
                                                                        expected, how):
    model = stack(names=names)
    path = tmp_path / "m.h5"
    with pytest.raises(ValueError, match=f"cannot save model.*{expected}.*rename the layer"):
        getattr(model, how)(path)
    assert not path.exists()


def test_keras3_layout_stores_any_layer_name(tmp_path):
    model = stack(names=(".", "x" * 70000))
    model.save_weights(tmp_path / "m.weights.h5")
    twin = stack(names=(".", "x" * 70000), seed=1)
    twin.load_weights(tmp_path / "m.weights.h5")
    assert same(model, twin)
