"""Dice and Tversky (``highlevel/losses/segmentation.py``) against Keras 3.15's values, with
gradients."""

from harness.keras_losses import keras_loss_tests

test_matches_keras, test_gradient = keras_loss_tests(
    "Dice", "Tversky")
