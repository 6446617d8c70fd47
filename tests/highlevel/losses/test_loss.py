"""The ``Loss`` base class: the mask a layer attached to ``y_pred`` weights the losses as
in Keras 3 (padded timesteps count for nothing), alone and with ``sample_weight``."""

import importlib.util
import json
import pathlib

import numpy as np
import pytest

import lamina
from lamina.backends.autodiff import Tensor

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "keras"


def masked_prediction(probabilities, mask):
    y_pred = Tensor(np.asarray(probabilities, "float32"))
    y_pred._keras_mask = Tensor(np.asarray(mask, bool))
    return y_pred


def per_token_losses(y, probabilities):
    picked = np.take_along_axis(probabilities, y[..., None], axis=-1)[..., 0]
    return -np.log(np.clip(picked, 1e-7, 1.0))


@pytest.mark.usefixtures("engine")
def test_mask_on_y_pred_weights_the_losses():
    rng = np.random.default_rng(0)
    probabilities = rng.dirichlet(np.ones(4), size=(3, 5)).astype("float32")
    y = rng.integers(0, 4, size=(3, 5))
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 1, 1]], bool)
    loss = lamina.losses.SparseCategoricalCrossentropy()
    tokens = per_token_losses(y, probabilities)
    got = float(loss(y, masked_prediction(probabilities, mask)))
    np.testing.assert_allclose(got, tokens[mask].mean(), rtol=1e-5)
    unmasked = float(loss(y, Tensor(probabilities)))
    assert abs(unmasked - tokens.mean()) < 1e-5 and abs(unmasked - got) > 1e-3
    # "sum" adds the valid tokens only; a per-sample weight spreads over its timesteps.
    summed = lamina.losses.SparseCategoricalCrossentropy(reduction="sum")
    np.testing.assert_allclose(float(summed(y, masked_prediction(probabilities, mask))),
                               tokens[mask].sum(), rtol=1e-5)
    weights = np.array([1.0, 2.0, 0.5], "float32")
    got = float(loss(y, masked_prediction(probabilities, mask), sample_weight=weights))
    expected = (tokens * weights[:, None] * mask).sum() / mask.sum()
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_masked_sequence_model_evaluates_as_keras():
    """Keras 3.15's numbers for the same weights (tests/data/keras/make_masked_loss_reference.py)."""
    spec = importlib.util.spec_from_file_location(
        "make_masked_loss_reference", DATA / "make_masked_loss_reference.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    reference = json.loads((DATA / "masked_loss_reference.json").read_text())
    model = script.build(lamina)
    model.load_weights(str(DATA / "masked_loss.weights.h5"))
    x, y = np.array(reference["x"], "int32"), np.array(reference["y"])
    result = model.evaluate(x, y, verbose=0, return_dict=True)
    assert sorted(result) == sorted(reference["evaluate"])
    for name, value in reference["evaluate"].items():
        np.testing.assert_allclose(result[name], value, rtol=1e-5, err_msg=name)
