"""Regression losses (``highlevel/losses/regression.py``) against Keras 3.15's values, with
gradients."""

from harness.keras_losses import keras_loss_tests

# mape divides by max(|y_true|, 1e-7): a zero target makes its loss ~1e8, where central
# differences keep only ~4 significant digits
test_matches_keras, test_gradient = keras_loss_tests(
    "CosineSimilarity", "LogCosh", "Huber", "MeanSquaredLogarithmicError",
    "MeanAbsolutePercentageError", gradient_rtol={"mape": 2e-3})
