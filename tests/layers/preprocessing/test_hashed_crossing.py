"""HashedCrossing (``layers/preprocessing/hashed_crossing.py``) against Keras 3.15
(``tf.sparse.cross_hashed``; ``tests/data/keras/make_image_references.py``)."""

import json

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.images import REFERENCES

STRINGS, INTS = REFERENCES["cross_strings"].astype(object), REFERENCES["cross_ints"]


def test_bins_match_keras():
    np.testing.assert_array_equal(layers.HashedCrossing(5)((STRINGS, INTS)).numpy(),
                                  REFERENCES["cross_str_int_5"])
    np.testing.assert_array_equal(layers.HashedCrossing(1000)([INTS, list(STRINGS)]).numpy(),
                                  REFERENCES["cross_int_str_1000"])
    np.testing.assert_array_equal(
        layers.HashedCrossing(7)((STRINGS, INTS, STRINGS[::-1])).numpy(),
        REFERENCES["cross_three_7"])
    np.testing.assert_array_equal(layers.HashedCrossing(2**40)((INTS, INTS[::-1])).numpy(),
                                  REFERENCES["cross_int_int_big"])
    one_hot = layers.HashedCrossing(4, output_mode="one_hot")((STRINGS[:, None], INTS[:, None]))
    assert one_hot.numpy().dtype == np.float32
    np.testing.assert_array_equal(one_hot.numpy(), REFERENCES["cross_one_hot_4"])
    scalar = layers.HashedCrossing(5)((np.array("a", dtype=object), np.array(1)))
    assert scalar.numpy().shape == () and scalar.numpy() == REFERENCES["cross_str_int_5"][0]


def test_config_and_saving_in_a_functional_model(tmp_path):
    layer = layers.HashedCrossing(6, output_mode="one_hot")
    config = layer.get_config()
    assert json.loads(json.dumps(config)) == config
    assert layers.HashedCrossing.from_config(config).get_config() == config
    words, ids = lamina.Input((1,), dtype="string"), lamina.Input((1,), dtype="int64")
    crossed = layers.HashedCrossing(6, output_mode="one_hot")((words, ids))
    assert tuple(crossed.shape) == (None, 6)
    model = lamina.Model([words, ids], layers.Dense(2)(crossed))
    x = [STRINGS[:, None], INTS[:, None]]
    expected = model.predict(x, verbose=0)
    for suffix in (".h5", ".keras"):
        model.save(tmp_path / f"m{suffix}")
        loaded = lamina.load_model(tmp_path / f"m{suffix}")
        np.testing.assert_allclose(loaded.predict(x, verbose=0), expected, rtol=1e-6)


def test_bad_input_raises_naming_the_layer():
    with pytest.raises(ValueError, match=r"HashedCrossing.*at least two inputs"):
        layers.HashedCrossing(3)(STRINGS)
    with pytest.raises(ValueError, match=r"HashedCrossing.*one shape.*\(7,\), \(3,\)"):
        layers.HashedCrossing(3)((STRINGS, INTS[:3]))
    with pytest.raises(ValueError, match=r"HashedCrossing.*\(batch, 1\).*\(7, 2\)"):
        layers.HashedCrossing(3)((np.stack([INTS, INTS], 1), np.stack([INTS, INTS], 1)))
    with pytest.raises(ValueError, match=r"HashedCrossing.*string or integer.*float"):
        layers.HashedCrossing(3)((INTS * 0.5, INTS))
    with pytest.raises(ValueError, match=r"HashedCrossing.*output_mode.*'multi_hot'"):
        layers.HashedCrossing(3, output_mode="multi_hot")
    with pytest.raises(ValueError, match=r"HashedCrossing.*num_bins"):
        layers.HashedCrossing(0)
