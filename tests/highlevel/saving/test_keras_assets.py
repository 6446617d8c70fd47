"""Keras 3's layer assets and named variables in ``.keras`` files (``keras_assets``): the
vocabularies of TextVectorization / StringLookup / IntegerLookup as
``assets/<layer path>/vocabulary.txt``, tf_idf weights as ``vars/idf_weights``.

Both directions against real Keras 3.15 (``tests/data/keras/make_keras_assets.py``, run by
hand): Keras' files load and reproduce Keras' outputs; lamina's files, which Keras loaded
and reproduced (``lamina_assets_to_keras.json``), keep exactly the members, assets and
weights layout Keras accepted. Then round trips, an older lamina file, and bad archives.
"""

import importlib.util
import json
import os
import zipfile

import numpy as np
import pytest

import lamina
from lamina.highlevel.saving import keras_archive
from lamina.saving import CorruptFileError, UnsupportedFormatError

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "keras")
_spec = importlib.util.spec_from_file_location("make_keras_assets",
                                               os.path.join(DATA, "make_keras_assets.py"))
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
KERAS = json.load(open(os.path.join(DATA, "keras_assets.json"), encoding="utf-8"))["cases"]
RECORD = json.load(open(os.path.join(DATA, "lamina_assets_to_keras.json"), encoding="utf-8"))
VOCABULARY = "assets/layers/text_vectorization/vocabulary.txt"
INNER_VOCABULARY = "assets/layers/text_vectorization/_lookup_layer/vocabulary.txt"


def keras_file(name):
    return os.path.join(DATA, f"keras_assets_{name}.keras")


def query(name):
    values = KERAS[name]["query"]
    return np.array(values, dtype=object if isinstance(values[0][0], str) else "int64")


def predict(model, x):
    return np.asarray(model.predict(x, verbose=0))


def members(path):
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def rewrite(source, target, change):
    """A copy of the archive ``source`` with ``change(members)`` applied (a dict)."""
    found = members(source)
    change(found)
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in found.items():
            archive.writestr(name, data)
    return target


# ---------------------------------------------------------------------------- Keras -> lamina
@pytest.mark.parametrize("name", make.CASES)
def test_keras_files_load_and_predict_keras_outputs(name):
    model = lamina.saving.load_model(keras_file(name))
    np.testing.assert_allclose(predict(model, query(name)), KERAS[name]["output"],
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["text_int", "text_tf_idf"])
def test_the_vocabulary_comes_from_the_asset(name):
    layout = KERAS[name]["layout"]
    assert layout["config"]["config"]["layers"][1]["config"]["vocabulary"] is None
    layer = lamina.saving.load_model(keras_file(name)).get_layer(index=1)
    assert "\n".join(layer.get_vocabulary()) == layout["assets"][VOCABULARY]


def test_tf_idf_weights_come_from_the_named_variable():
    layer = lamina.saving.load_model(keras_file("text_tf_idf")).get_layer(index=1)
    keras_layer = lamina.layers.TextVectorization(output_mode="tf_idf", max_tokens=12,
                                                  pad_to_max_tokens=True)
    keras_layer.adapt(np.array(make.SENTENCES))
    np.testing.assert_allclose(layer(np.array([["the cat"]])),
                               keras_layer(np.array([["the cat"]])), rtol=1e-6)


def test_a_vocabulary_given_to_the_constructor_stays_in_the_config():
    layout = KERAS["string_lookup_vocabulary"]["layout"]
    assert not layout["assets"]
    assert layout["config"]["config"]["layers"][1]["config"]["vocabulary"] == \
        ["a", "b", "c", "é"]


def test_keras_weights_file_with_idf_weights_loads(tmp_path):
    model = lamina.saving.load_model(keras_file("text_tf_idf"))
    path = tmp_path / "m.weights.h5"
    with zipfile.ZipFile(keras_file("text_tf_idf")) as archive:
        path.write_bytes(archive.read("model.weights.h5"))
    lookup = model.get_layer(index=1)._lookup_layer
    before = lookup.get_config()["idf_weights"]
    lookup.load_own_variables({"idf_weights": np.ones(12)})
    model.load_weights(path)
    np.testing.assert_allclose(lookup.get_config()["idf_weights"], before)
    np.testing.assert_allclose(predict(model, query("text_tf_idf")),
                               KERAS["text_tf_idf"]["output"], rtol=1e-6)


# ---------------------------------------------------------------------------- lamina -> Keras
@pytest.mark.parametrize("name", make.CASES)
def test_lamina_files_keep_what_keras_accepted(tmp_path, name):
    recorded = RECORD["cases"][name]
    assert recorded["max_abs_diff"] == 0 and recorded["same_members_as_keras"], name
    model, x = make.build(name, lamina)
    np.testing.assert_allclose(predict(model, x), recorded["lamina_output"], rtol=1e-6)
    model.save(tmp_path / "m.keras")
    layout = make.archive_layout(tmp_path / "m.keras")
    assert layout["members"] == recorded["members"] == KERAS[name]["layout"]["members"]
    assert layout["assets"] == recorded["assets"] == KERAS[name]["layout"]["assets"]
    # vars paths, keys and shapes (the saveables' names carry per-session counters)
    assert [[g[0], g[2]] for g in layout["weights"]] == [[g[0], g[2]]
                                                         for g in recorded["weights"]]
    keras_config = KERAS[name]["layout"]["config"]["config"]["layers"][1]["config"]
    lamina_config = layout["config"]["config"]["layers"][1]["config"]
    for key in set(keras_config) - {"name", "dtype"}:
        assert lamina_config[key] == keras_config[key], key


@pytest.mark.parametrize("name", make.CASES)
def test_lamina_round_trip(tmp_path, name):
    model, x = make.build(name, lamina)
    model.save(tmp_path / "m.keras")
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(predict(loaded, x), predict(model, x))
    layer, again = model.get_layer(index=1), loaded.get_layer(index=1)
    assert again.get_vocabulary() == layer.get_vocabulary()
    assert again.get_config() == layer.get_config()


def test_h5_and_to_json_keep_the_vocabulary_in_the_config(tmp_path):
    model, x = make.build("text_tf_idf", lamina)
    config = json.loads(model.to_json())["config"]["layers"][1]["config"]
    assert config["vocabulary"] == model.get_layer(index=1).get_vocabulary(False)
    model.save(tmp_path / "m.h5")
    np.testing.assert_allclose(predict(lamina.load_model(tmp_path / "m.h5"), x),
                               predict(model, x), rtol=1e-6)


def test_set_vocabulary_after_construction_travels_as_an_asset(tmp_path):
    layer = lamina.layers.StringLookup(vocabulary=["a", "b"])
    layer.set_vocabulary(["x", "y", "z"])
    inputs = lamina.Input((2,), dtype="string")
    lamina.Model(inputs, layer(inputs)).save(tmp_path / "m.keras")
    found = members(tmp_path / "m.keras")
    assert found["assets/layers/string_lookup/vocabulary.txt"] == b"[UNK]\nx\ny\nz"
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    assert loaded.get_layer(index=1).get_vocabulary() == ["[UNK]", "x", "y", "z"]


def test_an_older_lamina_file_with_the_vocabulary_in_its_config_loads():
    path = os.path.join(DATA, "lamina_v1_text_tf_idf.keras")
    assert not any(name.startswith("assets/") for name in members(path))
    model = lamina.saving.load_model(path)
    np.testing.assert_allclose(predict(model, query("text_tf_idf")),
                               KERAS["text_tf_idf"]["output"], rtol=1e-6)


def test_an_unadapted_layer_round_trips(tmp_path):
    inputs = lamina.Input((1,), dtype="string")
    lamina.Model(inputs, lamina.layers.TextVectorization()(inputs)).save(tmp_path / "m.keras")
    assert members(tmp_path / "m.keras")[VOCABULARY] == b"\n[UNK]"
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    assert loaded.get_layer(index=1).get_vocabulary() == ["", "[UNK]"]


def test_integer_lookup_farmhash_oov_matches_keras():
    # keras.layers.IntegerLookup(vocabulary=[12, 36], num_oov_indices=3,
    #     oov_method="farmhash")(np.array([[5, 6, 7, 100, 12, -3, 123456789]])), Keras 3.15
    layer = lamina.layers.IntegerLookup(vocabulary=[12, 36], num_oov_indices=3,
                                        oov_method="farmhash")
    out = layer(np.array([[5, 6, 7, 100, 12, -3, 123456789]]))
    assert np.asarray(out).tolist() == [[1, 2, 1, 0, 3, 0, 2]]
    assert layer.get_config()["oov_method"] == "farmhash"
    with pytest.raises(ValueError, match="salt"):
        lamina.layers.StringLookup(salt=7)
    with pytest.raises(ValueError, match="oov_method"):
        lamina.layers.IntegerLookup(oov_method="modulo")


# ---------------------------------------------------------------------------- bad archives
def test_an_asset_outside_every_layer_folder_is_refused(tmp_path):
    path = rewrite(keras_file("text_int"), tmp_path / "m.keras",
                   lambda m: m.update({"assets/layers/dense/secret.txt": b"x"}))
    with pytest.raises(UnsupportedFormatError, match="assets/layers/dense/secret.txt"):
        lamina.saving.load_model(path)


@pytest.mark.parametrize("name,error", [("assets/../evil.txt", CorruptFileError),
                                        ("assets/layers/../../evil", CorruptFileError),
                                        ("/assets/x", CorruptFileError),
                                        ("assets//x", UnsupportedFormatError),
                                        ("assets/./x", UnsupportedFormatError),
                                        ("other/vocabulary.txt", UnsupportedFormatError)])
def test_bad_asset_names_are_refused(tmp_path, name, error):
    path = rewrite(keras_file("text_int"), tmp_path / "m.keras",
                   lambda m: m.update({name: b"x"}))
    with pytest.raises(error):
        lamina.saving.load_model(path)


def test_a_vocabulary_that_is_not_utf8_names_the_file_and_member(tmp_path):
    path = rewrite(keras_file("text_int"), tmp_path / "m.keras",
                   lambda m: m.update({VOCABULARY: b"\n[UNK]\n\xff\xfe"}))
    with pytest.raises(CorruptFileError, match=r"m\.keras.*" + VOCABULARY + ".*UTF-8"):
        lamina.saving.load_model(path)


def test_an_integer_vocabulary_with_text_is_refused(tmp_path):
    name = "assets/layers/integer_lookup/vocabulary.txt"
    path = rewrite(keras_file("integer_lookup"), tmp_path / "m.keras",
                   lambda m: m.update({name: b"0\n-1\n12\nabc"}))
    with pytest.raises(CorruptFileError, match=name):
        lamina.saving.load_model(path)


def test_a_zip_bomb_asset_is_refused(tmp_path):
    found = members(keras_file("text_int"))
    path = tmp_path / "m.keras"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in found.items():
            archive.writestr(name, data)
        archive.writestr(INNER_VOCABULARY + "2", b"\0" * 5_000_000,   # ~40 bytes stored
                         compress_type=zipfile.ZIP_BZIP2)
    with pytest.raises(CorruptFileError, match="zip bomb"):
        lamina.saving.load_model(path)


def test_assets_over_their_total_limit_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(keras_archive, "ASSETS_LIMIT", 40)
    with pytest.raises(CorruptFileError, match="assets declare"):
        lamina.saving.load_model(keras_file("text_int"))


@pytest.mark.parametrize("change", [
    lambda m: m.update({VOCABULARY: m[VOCABULARY] + b"\nextra"}),
    lambda m: m.pop(INNER_VOCABULARY),
    lambda m: m.update({"assets/layers/text_vectorization/notes.txt": b"hi"})])
def test_lamina_checksums_cover_the_assets(tmp_path, change):
    model, _ = make.build("text_int", lamina)
    model.save(tmp_path / "m.keras")
    path = rewrite(tmp_path / "m.keras", tmp_path / "bad.keras", change)
    with pytest.raises(CorruptFileError, match="corrupted"):
        lamina.saving.load_model(path)


def test_a_layer_after_an_asset_layer_is_rebuilt_with_the_recorded_depth(tmp_path):
    # config.json has vocabulary null and vocabulary_size 6: Dense is rebuilt on 6 inputs
    # before load_assets restores the vocabulary, as Keras' frozen vocabulary size does.
    layer = lamina.layers.StringLookup(output_mode="multi_hot")
    layer.adapt(np.array([["a"], ["b"], ["c"], ["d"], ["e"]]))
    model = lamina.Sequential([lamina.Input((2,), dtype="string"), layer,
                               lamina.layers.Dense(3)])
    model.save(tmp_path / "m.keras")
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    assert loaded.layers[1].get_weights()[0].shape == (6, 3)
    np.testing.assert_array_equal(loaded.layers[1].get_weights()[0],
                                  model.layers[1].get_weights()[0])
    assert loaded.layers[0].get_vocabulary() == layer.get_vocabulary()
