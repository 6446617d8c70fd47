"""``to_categorical`` and ``normalize`` (``highlevel/utils/numerical.py``) against Keras 3.15
outputs (printed by ``keras.utils`` in ``/work/kvenv`` for the same calls)."""

import numpy as np
import pytest

from lamina.utils import normalize, to_categorical


def test_to_categorical_matches_keras():
    out = to_categorical(x=[[1], [0], [3]], num_classes=4)
    np.testing.assert_array_equal(out, [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]])
    assert out.dtype == np.float32   # Keras 3 returns float64; lamina keeps floatx
    with pytest.raises(ValueError, match="out of range for num_classes=2"):
        to_categorical([0, 2], num_classes=2)


def test_normalize_matches_keras():
    np.testing.assert_allclose(normalize(np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 1.0]])),
                               [[0.6, 0.8], [0.0, 0.0], [0.7071067811865475] * 2])
    # axis=0: Keras 3.15 turns axis 0 into -1 when expanding (``axis or -1``) and returns
    # [[0.75, 1.0], [0.1667, 0.3333]]; lamina divides by the column norms as documented.
    np.testing.assert_allclose(normalize(np.array([[3.0, 4.0], [1.0, 2.0]]), axis=0, order=1),
                               [[0.75, 4 / 6], [0.25, 2 / 6]])
