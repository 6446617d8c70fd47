"""SwapEMAWeights against Keras 3.15: the validation losses of a fit, and the weights after
it, match what real Keras printed for the same model and data:

    KERAS_BACKEND=torch python -c "... model = keras.Sequential([keras.Input((3,)),
    keras.layers.Dense(1)]); model.set_weights([KERNEL, zeros(1)]);
    model.compile(keras.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.9), 'mse');
    h = model.fit(X, Y, batch_size=4, epochs=3, shuffle=False, validation_data=(XV, YV),
    callbacks=[keras.callbacks.SwapEMAWeights(swap_on_epoch=...)], verbose=0)"
"""

import numpy as np
import pytest

import lamina as keras

X = (np.arange(24, dtype="float32").reshape(8, 3) % 5) / 4 - 0.5
Y = (X @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")
XV, YV = X[:4] * 1.5, Y[:4]
KERNEL = np.array([[0.1], [0.2], [-0.3]], "float32")
KERAS_VAL_LOSS = [0.9349561, 0.9099678, 0.8693531]
KERAS_LOSS = [0.6351467, 0.5703403, 0.5165451]
KERAS_WEIGHTS = [[0.10755719989538193, 0.07290689647197723, -0.26660001277923584],
                 [0.07956449687480927]]


def make_model(use_ema=True):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.set_weights([KERNEL, np.zeros(1, "float32")])
    model.compile(keras.optimizers.SGD(0.1, use_ema=use_ema, ema_momentum=0.9), "mse")
    return model


@pytest.mark.parametrize("swap_on_epoch", [False, True])
def test_fit_validates_with_the_ema_weights_as_keras(swap_on_epoch):
    model = make_model()
    history = model.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0,
                        validation_data=(XV, YV),
                        callbacks=[keras.callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch)])
    np.testing.assert_allclose(history.history["val_loss"], KERAS_VAL_LOSS, rtol=1e-5)
    np.testing.assert_allclose(history.history["loss"], KERAS_LOSS, rtol=1e-5)
    for weight, expected in zip(model.get_weights(), KERAS_WEIGHTS):
        np.testing.assert_allclose(weight.ravel(), expected, rtol=1e-5)


def test_without_the_callback_validation_sees_the_raw_weights():
    history = make_model().fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0,
                               validation_data=(XV, YV))
    assert not np.allclose(history.history["val_loss"], KERAS_VAL_LOSS, rtol=1e-3)


def test_evaluate_and_predict_swap_in_and_back():
    model = make_model()
    model.train_on_batch(X, Y)
    model.train_on_batch(X * 0.5, Y)
    optimizer = model.optimizer
    raw = [w.copy() for w in model.get_weights()]
    averages = [slots["average"].numpy().copy() for _, slots in optimizer.slot_variables()]
    assert not np.allclose(raw[0], averages[0])
    ema_model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    ema_model.set_weights(averages)
    swap = keras.callbacks.SwapEMAWeights()
    loss = model.evaluate(XV, YV, verbose=0, callbacks=[swap])
    np.testing.assert_allclose(loss, np.mean((ema_model.predict(XV, verbose=0) - YV) ** 2),
                               rtol=1e-6)
    np.testing.assert_allclose(model.predict(XV, verbose=0, callbacks=[swap]),
                               ema_model.predict(XV, verbose=0), rtol=1e-6)
    for weight, before in zip(model.get_weights(), raw):             # swapped back
        np.testing.assert_array_equal(weight, before)
    for (_, slots), before in zip(optimizer.slot_variables(), averages):
        np.testing.assert_array_equal(slots["average"].numpy(), before)


def test_an_optimizer_without_ema_is_rejected():
    model = make_model(use_ema=False)
    with pytest.raises(ValueError, match="use_ema=True"):
        model.evaluate(XV, YV, verbose=0, callbacks=[keras.callbacks.SwapEMAWeights()])


def test_the_inner_optimizer_of_a_loss_scale_optimizer_is_swapped():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.set_weights([KERNEL, np.zeros(1, "float32")])
    model.compile(keras.optimizers.LossScaleOptimizer(
        keras.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.9)), "mse")
    history = model.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0,
                        validation_data=(XV, YV), callbacks=[keras.callbacks.SwapEMAWeights()])
    np.testing.assert_allclose(history.history["val_loss"], KERAS_VAL_LOSS, rtol=1e-5)
