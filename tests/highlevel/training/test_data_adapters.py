"""What fit/evaluate/predict accept as data (issue #12): pandas DataFrames and Series work
like the NumPy arrays they hold (they are not mistaken for batch Sequences), and empty data,
a ``sample_weight`` that does not match ``y`` and labels that are not class indices raise
ValueError before any weight is updated."""

import subprocess
import sys

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.highlevel.training.data_adapters import from_pandas, is_generator_like, is_sequence_like

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(3)
X = RNG.normal(size=(24, 4)).astype("float32")
Y = np.arange(24) % 3
W = RNG.uniform(0.5, 2.0, 24)


def classifier():
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def unchanged(model, before):
    return all(np.array_equal(a, b) for a, b in zip(before, model.get_weights()))


# ------------------------------------------------------------------ pandas
def test_pandas_objects_are_arrays_not_sequences():
    frame, series = pd.DataFrame(X, columns=list("abcd")), pd.Series(Y)
    for value in (frame, series, frame["a"]):
        assert not is_sequence_like(value) and not is_generator_like(value)
    np.testing.assert_array_equal(from_pandas(frame), X)
    np.testing.assert_array_equal(from_pandas(series), Y)
    assert from_pandas(X) is X


def test_fit_evaluate_predict_on_pandas_match_numpy():
    index = np.arange(100, 124)[::-1]   # a non-default index must not matter
    frame = pd.DataFrame(X, columns=list("abcd"), index=index)
    labels, weights = pd.Series(Y, index=index), pd.Series(W, index=index)
    results = []
    for x, y, w in ((X, Y, W), (frame, labels, weights)):
        model = classifier()
        history = model.fit(x, y, sample_weight=w, batch_size=8, epochs=2, verbose=0,
                            validation_data=(x, y, w))
        results.append((history.history, model.evaluate(x, y, sample_weight=w, verbose=0),
                        model.predict(x, verbose=0), model.get_weights()))
    (h_np, e_np, p_np, w_np), (h_pd, e_pd, p_pd, w_pd) = results
    assert h_pd == h_np and e_pd == e_np
    np.testing.assert_array_equal(p_pd, p_np)
    for a, b in zip(w_np, w_pd):
        np.testing.assert_array_equal(a, b)


def test_pandas_single_column_targets_and_per_batch_methods():
    frame = pd.DataFrame(X)
    model = classifier()
    model.fit(frame, pd.DataFrame({"label": Y}), epochs=1, verbose=0)
    assert np.isfinite(model.train_on_batch(frame, pd.Series(Y))[0])
    np.testing.assert_allclose(model.predict_on_batch(frame), model.predict(X, verbose=0),
                               rtol=1e-6)


def test_lamina_does_not_import_pandas():
    script = ("import sys, numpy as np, lamina\n"
              "m = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])\n"
              "m.compile('sgd', 'mse')\n"
              "m.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)\n"
              "m.predict(np.ones((4, 2)), verbose=0)\n"
              "assert 'pandas' not in sys.modules, 'lamina imported pandas'\n")
    subprocess.run([sys.executable, "-c", script], check=True)


# ------------------------------------------------------------------ empty data
@pytest.mark.parametrize("method", ["fit", "evaluate", "predict", "train_on_batch"])
def test_zero_samples_is_an_error(method):
    model = classifier()
    args = (X[:0],) if method == "predict" else (X[:0], Y[:0])
    with pytest.raises(ValueError, match=r"x has 0 samples \(an array of shape \(0, 4\)\)"):
        getattr(model, method)(*args, **({} if method == "train_on_batch" else {"verbose": 0}))


def test_zero_validation_samples_and_empty_sequence_are_errors():
    model = classifier()
    before = model.get_weights()
    with pytest.raises(ValueError, match=r"validation_data has 0 samples"):
        model.fit(X, Y, validation_data=(X[:0], Y[:0]), verbose=0)
    with pytest.raises(ValueError, match=r"x has 0 samples"):
        model.fit(X[:0], Y[:0], class_weight={0: 1.0, 1: 1.0, 2: 1.0}, verbose=0)

    class Empty:
        def __len__(self):
            return 0

        def __getitem__(self, index):
            raise IndexError(index)

    with pytest.raises(ValueError, match="x is a Sequence of length 0"):
        model.fit(Empty(), verbose=0)
    assert unchanged(model, before)


# ------------------------------------------------------------------ sample_weight
@pytest.mark.parametrize("weights, message", [
    (np.ones((24, 2)), r"sample_weight of shape \(24, 2\) does not match y of shape \(24,\)"),
    (np.ones((24, 3, 1)), r"sample_weight of shape \(24, 3, 1\) does not match y"),
    (np.float32(2.0), r"sample_weight must hold one weight per sample, shape \(24,\); got a "
                      r"scalar"),
    (np.ones(23), r"sample_weight has 23 entries for 24 samples"),
], ids=["per-class", "extra axis", "scalar", "short"])
def test_sample_weight_of_the_wrong_shape(weights, message):
    model = classifier()
    before = model.get_weights()
    with pytest.raises(ValueError, match=message):
        model.fit(X, Y, sample_weight=weights, verbose=0)
    with pytest.raises(ValueError, match=message):
        model.evaluate(X, Y, sample_weight=weights, verbose=0)
    assert unchanged(model, before)


def test_sample_weight_shapes_that_match():
    model = classifier()
    for weights in (W, W.reshape(-1, 1), pd.Series(W)):
        assert np.isfinite(model.evaluate(X, Y, sample_weight=weights, verbose=0)[0])
    # per-timestep weights for sequence targets
    seq = lamina.Sequential([lamina.Input((5, 4)), layers.Dense(3)])
    seq.compile(optimizer="sgd", loss=lamina.losses.SparseCategoricalCrossentropy(
        from_logits=True))
    labels = RNG.integers(0, 3, (6, 5))
    mask = (np.arange(5) < 3).astype("float32")[None].repeat(6, 0)
    seq.fit(RNG.normal(size=(6, 5, 4)), labels, sample_weight=mask, verbose=0)


# ------------------------------------------------------------------ labels
@pytest.mark.parametrize("bad, message", [
    (np.nan, r"labels must be whole class indices, got nan"),
    (2.5, r"labels must be whole class indices, got 2.5"),
    (3.0, r"labels must lie in \[0, 3\) for 3 classes, got 3 \(labels range from 0 to 3\)"),
    (-1.0, r"got -1 \(labels range from -1 to 2\)"),
])
def test_bad_float_labels_in_fit_are_reported_before_training(bad, message):
    model = classifier()
    before = model.get_weights()
    labels = Y.astype("float32")
    labels[5] = bad
    with pytest.raises(ValueError, match=message):
        model.fit(X, labels, verbose=0)
    assert unchanged(model, before) and int(model.optimizer.iterations) == 0


def test_class_weight_with_nan_label_names_it():
    model = classifier()
    labels = Y.astype("float32")
    labels[0] = np.nan
    with pytest.raises(ValueError, match="whole class indices, got nan"):
        model.fit(X, labels, class_weight={0: 1.0, 1: 1.0, 2: 1.0}, verbose=0)


def test_inputs_one_axis_short_or_long_of_a_trailing_1_are_fitted_as_keras():
    # Keras 3.15 (torch): Input((3, 1)) -> Flatten -> Dense(1, ones, no bias) predicts
    # [[3.0], [12.0]] on x = arange(6).reshape(2, 3); Input((3,)) the same on x[..., None];
    # fit accepts the short data; a (2, 3, 2) array still raises ValueError.
    x = np.arange(6, dtype="float32").reshape(2, 3)
    inp = lamina.Input((3, 1))
    dense = lamina.layers.Dense(1, kernel_initializer="ones", use_bias=False)
    model = lamina.Model(inp, dense(lamina.layers.Flatten()(inp)))
    np.testing.assert_allclose(model.predict(x, verbose=0), [[3.0], [12.0]])
    inp2 = lamina.Input((3,))
    model2 = lamina.Model(inp2, lamina.layers.Dense(1, kernel_initializer="ones",
                                                    use_bias=False)(inp2))
    np.testing.assert_allclose(model2.predict(x[..., None], verbose=0), [[3.0], [12.0]])
    model.compile("sgd", "mse")
    assert len(model.fit(x, np.zeros((2, 1)), verbose=0).history["loss"]) == 1
    with pytest.raises(ValueError, match="expects shape"):
        model2.predict(np.zeros((2, 3, 2), "float32"), verbose=0)
