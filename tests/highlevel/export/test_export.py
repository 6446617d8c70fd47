"""``model.export`` dispatch: ``h5``/``keras`` save as ``save`` does; unknown formats raise."""

import numpy as np
import pytest

import lamina
from lamina import layers as L


def _model():
    return lamina.Sequential([lamina.Input((3,)), L.Dense(2)])


def test_h5_export_saves_as_save_does(tmp_path):
    model = _model()
    model.export(str(tmp_path / "m.h5"), format="h5")
    restored = lamina.load_model(str(tmp_path / "m.h5"))
    x = np.ones((2, 3), "float32")
    np.testing.assert_array_equal(restored.predict(x, verbose=0), model.predict(x, verbose=0))


@pytest.mark.parametrize("format", ["tf_saved_model", "tflite", "openvino"])
def test_unknown_format_lists_the_known_ones(format, tmp_path):
    with pytest.raises(ValueError, match="onnx"):
        _model().export(str(tmp_path / "m"), format=format)
