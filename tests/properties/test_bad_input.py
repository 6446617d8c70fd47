"""Bad input gives a clear ValueError / TypeError naming the problem (issue #3)."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops


def compiled_classifier(**compile_kwargs):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((4,), name="features"),
                               layers.Dense(3, activation="softmax")], name="clf")
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", **compile_kwargs)
    return model


X = np.ones((10, 4), dtype="float32")
Y = np.zeros(10, dtype="int64")


# ------------------------------------------------------------------ shapes
@pytest.mark.parametrize("bad", [np.ones((10, 5)), np.ones((10, 4, 2)), np.ones(10)])
def test_wrong_feature_count_or_rank_names_input_and_shapes(bad):
    model = compiled_classifier()
    expected = (rf"Input 'features' of model 'clf' expects shape \(None, 4\), got data of "
                rf"shape \({bad.shape[0]},")
    with pytest.raises(ValueError, match=expected):
        model.fit(bad, Y, verbose=0)
    with pytest.raises(ValueError, match=expected):
        model.evaluate(bad, Y, verbose=0)
    with pytest.raises(ValueError, match=expected):
        model.predict(bad, verbose=0)
    with pytest.raises(ValueError, match=expected):
        model.train_on_batch(bad, Y)


def test_a_trailing_axis_of_one_too_many_is_dropped_as_keras_does():
    # Keras' functional models squeeze (10, 4, 1) to their (None, 4) input in fit,
    # evaluate, predict and the *_on_batch methods (checked with Keras 3.15).
    model = compiled_classifier()
    extra = np.ones((10, 4, 1))
    np.testing.assert_allclose(model.predict(extra, verbose=0), model.predict(X, verbose=0))
    assert model.evaluate(extra, Y, verbose=0) == model.evaluate(X, Y, verbose=0)
    model.train_on_batch(extra, Y)
    model.fit(extra, Y, verbose=0)
    assert model.predict_on_batch(extra).shape == (10, 3)


def test_bad_shape_leaves_weights_untouched():
    model = compiled_classifier()
    before = model.get_weights()
    with pytest.raises(ValueError):
        model.fit(np.ones((10, 5)), Y, verbose=0)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_wrong_shape_for_model_built_on_data_and_direct_call():
    model = lamina.Sequential([layers.Dense(2, name="dense_first")], name="lazy")
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
    with pytest.raises(ValueError, match=r"expects shape \(None, 3\), got data of shape "
                                         r"\(4, 5\)"):
        model.fit(np.ones((4, 5)), np.ones((4, 2)), verbose=0)
    with pytest.raises(ValueError, match=r"Layer 'dense_first' expects input of shape "
                                         r"\(None, 3\), got input of shape \(4, 5\)"):
        model(np.ones((4, 5), dtype="float32"))


def test_subclassed_model_reports_layer_input_check():
    class Net(lamina.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1, name="net_dense")

        def call(self, inputs):
            return self.dense(inputs)

    model = Net()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((4, 3)), np.ones((4, 1)), verbose=0)
    with pytest.raises(ValueError, match=r"Layer 'net_dense' expects input of shape "
                                         r"\(None, 3\), got input of shape \(4, 5\)"):
        model.fit(np.ones((4, 5)), np.ones((4, 1)), verbose=0)


def test_multi_input_structure_errors():
    a, b = lamina.Input((2,), name="a"), lamina.Input((3,), name="b")
    joined = layers.Lambda(lambda t: ops.concatenate(t, axis=-1))([a, b])
    model = lamina.Model([a, b], layers.Dense(1)(joined), name="two_in")
    model.compile(optimizer="sgd", loss="mse")
    y = np.ones((4, 1))
    with pytest.raises(ValueError, match=r"list of 2 arrays .*\['a', 'b'\]"):
        model.fit(np.ones((4, 2)), y, verbose=0)
    with pytest.raises(ValueError, match=r"missing keys \['b'\]"):
        model.fit({"a": np.ones((4, 2))}, y, verbose=0)
    with pytest.raises(ValueError, match=r"Input 'b' of model 'two_in' expects shape "
                                         r"\(None, 3\), got data of shape \(4, 2\)"):
        model.fit([np.ones((4, 2)), np.ones((4, 2))], y, verbose=0)
    with pytest.raises(ValueError, match=r"same number of samples, got \[4, 5\]"):
        model.fit([np.ones((4, 2)), np.ones((5, 3))], y, verbose=0)


def test_list_of_arrays_for_single_input_model():
    model = compiled_classifier()
    with pytest.raises(ValueError, match=r"x is a list of 2 arrays, but the model has one "
                                         r"input \('features'\)"):
        model.fit([X, X], Y, verbose=0)


# ------------------------------------------------------------------ lengths and labels
def test_x_and_y_of_different_lengths():
    model = compiled_classifier()
    with pytest.raises(ValueError, match="x and y have different numbers of samples: x has "
                                         "10, y has 9"):
        model.fit(X, Y[:9], verbose=0)
    with pytest.raises(ValueError, match="x has 10, y has 12"):
        model.evaluate(X, np.zeros(12, dtype="int64"), verbose=0)
    with pytest.raises(ValueError, match="sample_weight has 3 entries for 10 samples"):
        model.fit(X, Y, sample_weight=np.ones(3), verbose=0)


@pytest.mark.parametrize("label", [3, -1, 7])
def test_labels_out_of_range_for_sparse_categorical_crossentropy(label):
    model = compiled_classifier()
    labels = Y.copy()
    labels[4] = label
    before = model.get_weights()
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 3\) for 3 classes"):
        model.fit(X, labels, verbose=0)
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 3\)"):
        model.evaluate(X, labels, verbose=0)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------ compile
@pytest.mark.parametrize("method, args", [
    ("fit", (X, Y)), ("evaluate", (X, Y)), ("train_on_batch", (X, Y)),
    ("test_on_batch", (X, Y))])
def test_training_before_compile(method, args):
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)], name="raw")
    with pytest.raises(ValueError, match=rf"model 'raw' must be compiled before {method}\(\)"):
        getattr(model, method)(*args)
    # predict needs no compile
    assert model.predict(X, verbose=0).shape == (10, 3)


@pytest.mark.parametrize("kind, kwargs, listed", [
    ("loss", {"optimizer": "adam", "loss": "msee"}, ["mse", "sparse_categorical_crossentropy"]),
    ("optimizer", {"optimizer": "adamm", "loss": "mse"}, ["adam", "sgd", "rmsprop"]),
    ("metric", {"optimizer": "adam", "loss": "mse", "metrics": ["acc_uracy"]},
     ["mae", "accuracy"]),
])
def test_unknown_compile_names_list_known_names(kind, kwargs, listed):
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    with pytest.raises(ValueError) as info:
        model.compile(**kwargs)
    message = str(info.value)
    assert f"unknown {kind}" in message
    bad = kwargs.get("metrics", [None])[0] if kind == "metric" else kwargs[kind]
    assert repr(bad) in message
    for name in listed:
        assert name in message


def test_unknown_activation_and_initializer_names_list_known_names():
    with pytest.raises(ValueError) as info:
        layers.Dense(3, activation="rellu")
    assert "unknown activation 'rellu'" in str(info.value)
    assert "relu" in str(info.value) and "softmax" in str(info.value)
    with pytest.raises(ValueError) as info:
        layers.Dense(3, kernel_initializer="glorot")
    assert "unknown initializer 'glorot'" in str(info.value)
    assert "glorot_uniform" in str(info.value) and "he_normal" in str(info.value)
    with pytest.raises(ValueError, match="unknown activation 'nope'"):
        layers.Activation("nope")


# ------------------------------------------------------------------ non-numeric data
@pytest.mark.parametrize("x, y, name", [
    (np.array([["a", "b", "c", "d"]] * 10), Y, "x"),
    (X, np.array(["cat"] * 10), "y"),
    (np.array([[1, 2, 3, None]] * 10), Y, "x"),
])
def test_non_numeric_arrays(x, y, name):
    model = compiled_classifier()
    with pytest.raises(TypeError, match=rf"{name} must be numeric, got an array of dtype"):
        model.fit(x, y, verbose=0)
    if name == "x":
        with pytest.raises(TypeError, match="must be numeric"):
            model.predict(x, verbose=0)


def test_non_numeric_array_to_layer():
    with pytest.raises(TypeError, match="numeric"):
        layers.Dense(2)(np.array([["a", "b"]]))


def test_bad_fit_arguments():
    model = compiled_classifier()
    with pytest.raises(ValueError, match="validation_split=1.5"):
        model.fit(X, Y, validation_split=1.5, verbose=0)
    with pytest.raises(ValueError, match="class_weight has no entry for classes \\[2\\]"):
        model.fit(X, np.array([0, 1, 2] * 3 + [0]), class_weight={0: 1.0, 1: 2.0}, verbose=0)
    with pytest.raises(ValueError, match="x is required"):
        model.fit(None, Y, verbose=0)
