"""scikit-learn wrappers: learning real tasks, target types and labels, fitted attributes,
parameters (nested model_kwargs/fit_kwargs keys, clone, grid search), incremental and
warm-started training, determinism without global side effects, pickling through HDF5,
and joblib parallelism; last, scikit-learn's own estimator checks over the wrappers'
defaults (every applicable check passes: none is marked as an expected failure and no tag
switches checks off; checks that need pandas or array-API support skip with
scikit-learn's reason)."""

import copy
import io
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import (load_breast_cancer, load_iris, make_multilabel_classification,
                              make_regression)
from sklearn.exceptions import DataConversionWarning, NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted
from scipy import sparse

import lamina
from lamina import layers
from lamina.backends import state
from lamina.highlevel.wrappers import default_networks as wrapper_defaults
from lamina.highlevel.wrappers.sklearn import SKLearnClassifier, SKLearnRegressor, SKLearnTransformer

import lamina_custom_objects as custom_objects         # tests/highlevel/support (conftest)

SMALL = {"hidden_layer_sizes": (16,)}
SUPPORT = str(pathlib.Path(custom_objects.__file__).parent)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def regression():
    X, y = make_regression(n_samples=200, n_features=6, n_targets=2, noise=1.0,
                           random_state=0)
    return X, y / y.std(axis=0)


def build_softmax(X, y, width=8, loss="categorical_crossentropy"):
    model = lamina.Sequential([lamina.Input((X.shape[1],)),
                               layers.Dense(width, activation="relu"),
                               layers.Dense(y.shape[1], activation="softmax")])
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss=loss)
    return model


# ---------------------------------------------------------------------- learning
def test_default_classifier_learns_binary(cancer):
    X, y = cancer
    clf = SKLearnClassifier(random_state=0).fit(X[:400], y[:400])
    assert clf.score(X[400:], y[400:]) >= 0.95
    proba = clf.predict_proba(X[400:])
    assert proba.shape == (len(X) - 400, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert proba.dtype == np.float64
    assert clf.model_.layers[-1].dtype == "float64"
    assert set(clf.history_) == {"loss"} and len(clf.history_["loss"]) == clf.n_iter_


def test_default_classifier_multiclass_with_string_labels(iris):
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = SKLearnClassifier(random_state=0).fit(X, names)
    assert list(clf.classes_) == ["setosa", "versicolor", "virginica"]
    assert clf.predict(X).dtype == names.dtype
    assert clf.score(X, names) >= 0.93
    assert clf.predict_proba(X).shape == (150, 3)
    assert clf.n_outputs_ == 1 and clf.n_features_in_ == 4


@pytest.mark.parametrize("labels", [np.array([-3, 7]), np.array([False, True]),
                                    np.array(["no", "yes"], dtype=object)])
def test_classifier_returns_the_original_labels(cancer, labels):
    X, y = cancer
    target = labels[y]
    clf = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 30},
                            random_state=0).fit(X, target)
    assert clf.classes_.tolist() == labels.tolist()
    predicted = clf.predict(X)
    assert set(predicted.tolist()) <= set(labels.tolist())
    assert np.mean(predicted == target) > 0.9


def test_classifier_multilabel():
    X, Y = make_multilabel_classification(n_samples=200, n_features=8, n_classes=4,
                                          random_state=0)
    X = StandardScaler().fit_transform(X)
    clf = SKLearnClassifier(random_state=0).fit(X, Y)
    predicted = clf.predict(X)
    assert predicted.shape == Y.shape and predicted.dtype == Y.dtype
    assert clf.predict_proba(X).shape == Y.shape
    assert clf.classes_.tolist() == [0, 1, 2, 3] and clf.n_outputs_ == 4
    assert np.mean(predicted == Y) > 0.8


def test_classifier_rejects_one_class_and_regression_targets(cancer):
    X, _ = cancer
    with pytest.raises(ValueError, match="1 class"):
        SKLearnClassifier().fit(X[:10], np.ones(10))
    with pytest.raises(ValueError, match="Unknown label type"):
        SKLearnClassifier().fit(X[:10], np.linspace(0, 1, 10))


def test_classifier_column_target_warns_and_gives_the_same_model(iris):
    X, y = iris
    flat = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 5}, random_state=1)
    column = clone(flat)
    with pytest.warns(DataConversionWarning):
        column.fit(X, y[:, None])
    np.testing.assert_array_equal(flat.fit(X, y).predict_proba(X), column.predict_proba(X))


def test_default_regressor_single_and_multi_output(regression):
    X, Y = regression
    multi = SKLearnRegressor(random_state=0).fit(X, Y)
    assert multi.predict(X).shape == (200, 2) and multi.n_outputs_ == 2
    assert multi.score(X, Y) > 0.95
    single = SKLearnRegressor(random_state=0).fit(X, Y[:, 0])
    assert single.predict(X).shape == (200,) and single.n_outputs_ == 1
    assert single.score(X, Y[:, 0]) > 0.95
    column = SKLearnRegressor(model_kwargs=SMALL, fit_kwargs={"epochs": 3},
                              random_state=0).fit(X, Y[:, :1])
    assert column.predict(X).shape == (200, 1)


def test_default_transformer_is_an_autoencoder_hidden_layer():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 2)) @ rng.normal(size=(2, 6)) + 0.05 * rng.normal(size=(200, 6))
    transformer = SKLearnTransformer(model_kwargs={"hidden_layer_sizes": (12, 3),
                                                   "learning_rate": 0.01}, random_state=0)
    codes = transformer.fit_transform(X)
    assert codes.shape == (200, 3) and codes.dtype == np.float64
    np.testing.assert_array_equal(codes, transformer.transform(X))
    assert transformer.get_feature_names_out().tolist() == [
        "sklearntransformer0", "sklearntransformer1", "sklearntransformer2"]
    # the code is what the decoder reconstructs X from: reconstruction beats the mean
    reconstruction = transformer.model_.predict(X, verbose=0)
    assert np.mean((reconstruction - X) ** 2) < 0.1 * np.mean((X - X.mean(0)) ** 2)
    assert [layer.units for layer in transformer.model_.layers[1:]] == [12, 3, 12, 6]


def test_transformer_with_a_user_encoder_returns_its_output(iris):
    X, y = iris

    def encoder(X, y):
        model = lamina.Sequential([lamina.Input((X.shape[1],)),
                                   layers.Dense(2, activation="tanh")])
        model.compile(optimizer="adam", loss="mse")
        return model

    transformer = SKLearnTransformer(model=encoder, fit_kwargs={"epochs": 2},
                                     random_state=0)
    features = transformer.fit(X, np.c_[y, y] / 2.0).transform(X)
    np.testing.assert_allclose(features, transformer.model_.predict(X, verbose=0))
    assert features.shape == (150, 2) and transformer.get_feature_names_out().shape == (2,)


# ---------------------------------------------------------------------- fitted state
def test_fitted_attributes_and_errors(iris):
    X, y = iris
    clf = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 2})
    with pytest.raises(NotFittedError):
        clf.predict(X)
    with pytest.raises(NotFittedError):
        check_is_fitted(clf)
    clf.fit(X, y)
    check_is_fitted(clf)
    assert isinstance(clf.model_, lamina.Model)
    assert clf.history_["loss"] and clf.n_iter_ == 2
    with pytest.raises(ValueError, match="X has 3 features, but SKLearnClassifier is "
                                         "expecting 4 features as input"):
        clf.predict(X[:, :3])
    transformer = SKLearnTransformer()
    with pytest.raises(NotFittedError):
        transformer.transform(X)


def test_sparse_input_is_accepted(iris):
    X, y = iris
    dense = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 3}, random_state=0)
    from_sparse = clone(dense).fit(sparse.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.fit(X, y).predict_proba(X),
                                  from_sparse.predict_proba(sparse.csr_matrix(X)))


def test_feature_names_from_a_dataframe(iris):
    pd = pytest.importorskip("pandas")
    X, y = iris
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    clf = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 1}).fit(frame, y)
    assert clf.feature_names_in_.tolist() == ["a", "b", "c", "d"]


# ---------------------------------------------------------------------- parameters
def test_nested_params_and_set_params_copies_the_dict():
    user_kwargs = {"hidden_layer_sizes": (8,)}
    fit_kwargs = {"epochs": 3}
    clf = SKLearnClassifier(model_kwargs=user_kwargs, fit_kwargs=fit_kwargs)
    params = clf.get_params()
    assert params["model_kwargs__hidden_layer_sizes"] == (8,)
    assert params["fit_kwargs__epochs"] == 3
    assert "model_kwargs__hidden_layer_sizes" not in clf.get_params(deep=False)
    clf.set_params(model_kwargs__hidden_layer_sizes=(4, 4), fit_kwargs__batch_size=16,
                   random_state=3)
    assert clf.model_kwargs == {"hidden_layer_sizes": (4, 4)}
    assert clf.fit_kwargs == {"epochs": 3, "batch_size": 16}
    assert user_kwargs == {"hidden_layer_sizes": (8,)} and fit_kwargs == {"epochs": 3}
    assert clf.random_state == 3
    fresh = SKLearnRegressor().set_params(model_kwargs__activation="tanh")
    assert fresh.model_kwargs == {"activation": "tanh"}
    pipeline = make_pipeline(StandardScaler(), SKLearnClassifier(fit_kwargs={"epochs": 1}))
    assert "sklearnclassifier__fit_kwargs__epochs" in pipeline.get_params()
    pipeline.set_params(sklearnclassifier__fit_kwargs__epochs=7)
    assert pipeline[-1].fit_kwargs == {"epochs": 7}


def test_clone_keeps_every_parameter_and_copies_a_model():
    model = build_softmax(np.zeros((1, 4)), np.zeros((1, 3)))
    clf = SKLearnClassifier(model=model, warm_start=True, model_kwargs={"width": 3},
                            fit_kwargs={"epochs": 4}, random_state=7)
    copied = clone(clf)
    for name, value in clf.get_params(deep=False).items():
        if name != "model":
            assert copied.get_params()[name] == value
    assert copied.model is not model and isinstance(copied.model, lamina.Model)
    x = np.random.RandomState(0).rand(5, 4)
    np.testing.assert_array_equal(copied.model.predict(x, verbose=0),
                                  model.predict(x, verbose=0))


def test_fit_never_mutates_parameters(iris):
    X, y = iris
    model_kwargs, fit_kwargs = {"hidden_layer_sizes": [8]}, {"epochs": 2}
    clf = SKLearnClassifier(model_kwargs=model_kwargs, fit_kwargs=fit_kwargs)
    clf.fit(X, y, batch_size=10)
    assert model_kwargs == {"hidden_layer_sizes": [8]} and fit_kwargs == {"epochs": 2}
    assert clf.model_kwargs is model_kwargs and clf.fit_kwargs is fit_kwargs


def test_grid_search_tunes_model_and_fit_kwargs(iris):
    X, y = iris
    search = GridSearchCV(
        SKLearnClassifier(model=build_softmax, fit_kwargs={"epochs": 1}, random_state=0),
        {"model_kwargs__width": [2, 16], "fit_kwargs__epochs": [1, 40]}, cv=3)
    search.fit(X, y)
    assert search.best_params_ == {"fit_kwargs__epochs": 40, "model_kwargs__width": 16}
    assert search.best_score_ > 0.85
    assert search.best_estimator_.model_kwargs == {"width": 16}


# ---------------------------------------------------------------------- user models
def test_model_instance_is_cloned_and_compiled_like_the_original(iris):
    X, y = iris
    model = build_softmax(X, np.eye(3)[y], width=16)
    before = [w.copy() for w in model.get_weights()]
    clf = SKLearnClassifier(model=model, fit_kwargs={"epochs": 60}, random_state=0)
    clf.fit(X, y)
    assert clf.model_ is not model
    for old, new in zip(before, model.get_weights()):
        np.testing.assert_array_equal(old, new)        # the parameter is untouched
    assert type(clf.model_.optimizer) is type(model.optimizer)
    assert clf.model_.optimizer is not model.optimizer
    assert clf.score(X, y) > 0.9
    uncompiled = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    with pytest.raises(ValueError, match="compiled"):
        SKLearnClassifier(model=uncompiled).fit(X, y)


def test_callable_gets_one_hot_targets_and_model_kwargs(iris):
    X, y = iris
    seen = {}

    def build(X, y, width, loss):
        seen.update(shape=y.shape, rows=np.unique(y.sum(axis=1)).tolist(), width=width)
        return build_softmax(X, y, width=width, loss=loss)

    clf = SKLearnClassifier(model=build, model_kwargs={"width": 8, "loss":
                                                       "sparse_categorical_crossentropy"},
                            fit_kwargs={"epochs": 40}, random_state=0).fit(X, y)
    assert seen == {"shape": (150, 3), "rows": [1.0], "width": 8}
    assert clf.score(X, y) > 0.85          # trained on integer labels (sparse loss)


def test_binary_model_with_one_sigmoid_unit(cancer):
    X, y = cancer

    def build(X, y):
        model = lamina.Sequential([lamina.Input((X.shape[1],)),
                                   layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="binary_crossentropy")
        return model

    clf = SKLearnClassifier(model=build, fit_kwargs={"epochs": 20}, random_state=0)
    labels = np.array(["benign", "malignant"])[1 - y]
    clf.fit(X, labels)
    assert clf.predict_proba(X).shape == (len(X), 2)
    assert clf.score(X, labels) > 0.95


def test_class_weight_uses_the_original_labels(cancer):
    X, y = cancer
    labels = np.array(["b", "m"])[y]
    heavy = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={
        "epochs": 5, "class_weight": {"b": 50.0, "m": 1.0}}, random_state=0).fit(X, labels)
    assert np.mean(heavy.predict(X) == "b") > np.mean(labels == "b")


# ---------------------------------------------------------------------- sample weights
def test_integer_sample_weights_equal_repeated_rows(iris):
    X, y = iris
    rows = np.random.RandomState(0).choice(150, 40, replace=False)
    X, y = X[rows], y[rows]
    weights = np.random.RandomState(1).randint(0, 3, size=40)
    weighted = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 20},
                                 random_state=0)
    repeated = clone(weighted).fit(X.repeat(weights, axis=0), y.repeat(weights))
    weighted.fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X),
                               rtol=1e-7, atol=1e-10)
    with pytest.raises(ValueError, match="non-zero"):
        clone(weighted).fit(X, y, sample_weight=np.zeros(40))


# ---------------------------------------------------------------------- determinism
def test_random_state_makes_fits_identical_without_global_side_effects(iris):
    X, y = iris
    lamina.utils.set_random_seed(123)
    seed, generator, floatx = state.seed(), state.generator(), state.floatx()
    numpy_state = np.random.get_state()[1].copy()
    first = SKLearnClassifier(random_state=5).fit(X, y).predict_proba(X)
    second = SKLearnClassifier(random_state=5).fit(X, y).predict_proba(X)
    other = SKLearnClassifier(random_state=6).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(first, second)
    assert not np.array_equal(first, other)
    assert state.seed() == seed and state.generator() is generator
    assert state.floatx() == floatx == "float32"
    np.testing.assert_array_equal(np.random.get_state()[1], numpy_state)
    # a float32 model built afterwards is unaffected by the float64 default networks
    assert layers.Dense(2).dtype == "float32"


def test_random_state_none_draws_from_numpy(iris):
    X, y = iris
    np.random.seed(0)
    a = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 2}).fit(X, y)
    np.random.seed(0)
    b = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 2}).fit(X, y)
    c = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 2}).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(a.predict_proba(X), c.predict_proba(X))


# ---------------------------------------------------------------------- incremental
def test_partial_fit(iris):
    X, y = iris
    clf = SKLearnClassifier(model_kwargs={**SMALL, "learning_rate": 0.01},
                            fit_kwargs={"batch_size": 10}, random_state=0)
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit(X[:50], y[:50])
    clf.partial_fit(X[:50], y[:50], classes=[0, 1, 2])   # the first batch holds one class
    assert clf.n_iter_ == 1 and clf.classes_.tolist() == [0, 1, 2]
    for _ in range(10):
        clf.partial_fit(X, y)
    assert clf.n_iter_ == 11 and len(clf.history_["loss"]) == 11
    assert clf.score(X, y) > 0.85
    with pytest.raises(ValueError, match="not in classes_"):
        clf.partial_fit(X[:3], [0, 1, 5])
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(X[:, :3], y)
    reg = SKLearnRegressor(model_kwargs=SMALL, random_state=0)
    reg.partial_fit(X, y.astype(float)).partial_fit(X, y.astype(float))
    assert reg.n_iter_ == 2


def test_warm_start_continues_training(iris):
    X, y = iris
    clf = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 5}, warm_start=True,
                            random_state=0).fit(X, y)
    model, first_loss = clf.model_, clf.history_["loss"][-1]
    clf.fit(X, y)
    assert clf.model_ is model and clf.n_iter_ == 10
    assert len(clf.history_["loss"]) == 10 and clf.history_["loss"][-1] < first_loss
    cold = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 5},
                             random_state=0).fit(X, y)
    old = cold.model_
    cold.fit(X, y)
    assert cold.model_ is not old and cold.n_iter_ == 5


def test_warm_start_with_a_model_starts_from_its_weights(iris):
    X, y = iris
    model = build_softmax(X, np.eye(3)[y], width=8)
    trained = SKLearnClassifier(model=model, fit_kwargs={"epochs": 50},
                                random_state=0).fit(X, y).model_
    before = [w.copy() for w in trained.get_weights()]
    clf = SKLearnClassifier(model=trained, warm_start=True, fit_kwargs={"epochs": 1})
    assert clf.fit(X, y).score(X, y) > 0.85        # starts from trained weights
    for old, new in zip(before, trained.get_weights()):
        np.testing.assert_array_equal(old, new)     # never mutates the parameter


# ---------------------------------------------------------------------- pickling
def _pickled_globals(data):
    """Load a pickle, recording every (module, name) global it refers to."""
    seen = set()

    class Recorder(pickle.Unpickler):
        def find_class(self, module, name):
            seen.add((module, name))
            return super().find_class(module, name)

    Recorder(io.BytesIO(data)).load()
    return seen


@pytest.mark.parametrize("make", [
    lambda: SKLearnClassifier(random_state=0),
    lambda: SKLearnRegressor(random_state=0),
    lambda: SKLearnTransformer(model_kwargs={"hidden_layer_sizes": (3,)}, random_state=0),
])
def test_pickle_round_trip_goes_through_hdf5(iris, make):
    X, y = iris
    estimator = make().fit(X, y if not isinstance(make(), SKLearnRegressor) else y * 1.0)
    method = "transform" if isinstance(estimator, SKLearnTransformer) else "predict"
    data = pickle.dumps(estimator)
    found = _pickled_globals(data)
    lamina_globals = {(m, n) for m, n in found if m.startswith("lamina")}
    assert lamina_globals == {("lamina.highlevel.wrappers.sklearn", type(estimator).__name__),
                              ("lamina.highlevel.wrappers.sklearn", "_SerializedModel")}, found
    restored = pickle.loads(data)
    np.testing.assert_array_equal(getattr(restored, method)(X), getattr(estimator, method)(X))
    assert restored.history_ == estimator.history_
    copied = copy.deepcopy(estimator)
    np.testing.assert_array_equal(getattr(copied, method)(X), getattr(estimator, method)(X))


def test_unpickled_estimator_keeps_training(iris):
    X, y = iris
    clf = SKLearnClassifier(model_kwargs=SMALL, random_state=0).partial_fit(X, y, [0, 1, 2])
    restored = pickle.loads(pickle.dumps(clf))
    clf.partial_fit(X, y)
    restored.partial_fit(X, y)
    np.testing.assert_allclose(restored.predict_proba(X), clf.predict_proba(X), rtol=1e-10)


def test_model_parameter_pickles_as_hdf5(iris):
    X, y = iris
    model = build_softmax(X, np.eye(3)[y])
    clf = SKLearnClassifier(model=model, fit_kwargs={"epochs": 1}, random_state=0).fit(X, y)
    restored = pickle.loads(pickle.dumps(clf))
    assert isinstance(restored.model, lamina.Model)
    np.testing.assert_array_equal(restored.predict(X), clf.predict(X))


def _custom_classifier(iris_X, **kwargs):
    model = custom_objects.custom_network(iris_X.shape[1], 3)
    return SKLearnClassifier(model=model, fit_kwargs={"epochs": 3}, random_state=0,
                             **kwargs)


def test_custom_layers_and_lambda_pickle_by_import_name_only(iris, tmp_path):
    X, y = iris
    clf = _custom_classifier(X).fit(X, y)
    data = pickle.dumps(clf)
    found = _pickled_globals(data)
    modules = {module for module, _ in found}
    assert not modules & {"lamina_custom_objects", "__main__"}, found
    for name in (b"RegisteredScale", b"Shift", b"soft_clip"):
        assert b"lamina_custom_objects:" + name in data
    # a fresh process, where neither the module nor its registration has been imported
    (tmp_path / "clf.pkl").write_bytes(data)
    np.save(tmp_path / "X.npy", X)
    script = (f"import pickle, sys, numpy as np; sys.path.insert(0, {SUPPORT!r}); "
              f"clf = pickle.loads(open({str(tmp_path / 'clf.pkl')!r}, 'rb').read()); "
              "assert 'lamina_custom_objects' in sys.modules; "
              f"np.save({str(tmp_path / 'p.npy')!r}, "
              f"clf.predict_proba(np.load({str(tmp_path / 'X.npy')!r})))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    np.testing.assert_array_equal(np.load(tmp_path / "p.npy"), clf.predict_proba(X))


def test_custom_layers_in_grid_search_and_cross_validate_in_two_processes(iris):
    from sklearn.model_selection import cross_validate

    X, y = iris
    search = GridSearchCV(_custom_classifier(X), {"fit_kwargs__epochs": [1, 2]}, cv=3,
                          n_jobs=2).fit(X, y)
    assert type(search.best_estimator_.model_.layers[0]) is custom_objects.RegisteredScale
    results = cross_validate(_custom_classifier(X), X, y, cv=3, n_jobs=2,
                             return_estimator=True)
    serial = cross_validate(_custom_classifier(X), X, y, cv=3, return_estimator=True)
    np.testing.assert_allclose(results["test_score"], serial["test_score"])
    for fitted in results["estimator"]:
        assert [type(layer).__name__ for layer in fitted.model_.layers[:3]] == \
            ["RegisteredScale", "Shift", "Lambda"]
        assert fitted.model_.layers[2].function is custom_objects.soft_clip


def test_a_lambda_function_is_never_pickled_as_code(iris):
    X, y = iris
    model = lamina.Sequential([lamina.Input((4,)), layers.Lambda(lambda t: t * 2.0),
                               layers.Dense(3, activation="softmax")])
    model.compile(optimizer="adam", loss="categorical_crossentropy")
    clf = SKLearnClassifier(model=model, fit_kwargs={"epochs": 1}).fit(X, y)
    with pytest.raises(pickle.PicklingError, match="not importable by name"):
        pickle.dumps(clf)
    assert clf.predict(X[:2]).shape == (2,)       # the estimator is untouched


# ---------------------------------------------------------------------- joblib
def test_cross_val_score_and_grid_search_in_two_processes(cancer):
    X, y = cancer
    pipeline = Pipeline([("net", SKLearnClassifier(model_kwargs=SMALL, random_state=0))])
    serial = cross_val_score(pipeline, X, y, cv=3)
    parallel = cross_val_score(pipeline, X, y, cv=3, n_jobs=2)
    np.testing.assert_allclose(parallel, serial)
    assert serial.mean() > 0.95
    search = GridSearchCV(pipeline, {"net__fit_kwargs__epochs": [2, 50]}, cv=3, n_jobs=2)
    assert search.fit(X, y).best_params_ == {"net__fit_kwargs__epochs": 50}


def test_fitted_estimator_travels_to_workers(cancer):
    X, y = cancer
    fitted = SKLearnClassifier(model_kwargs=SMALL, random_state=0).fit(X, y)
    scores = cross_val_score(fitted, X, y, cv=3, n_jobs=2)
    assert scores.mean() > 0.95


def test_workers_limit_blas_threads():
    from joblib import Parallel, delayed

    assert wrapper_defaults.worker_blas_threads() is None       # the main process
    shares = Parallel(n_jobs=2)(delayed(wrapper_defaults.worker_blas_threads)()
                                for _ in range(2))
    assert all(isinstance(share, int) and share >= 1 for share in shares)


def test_training_arguments_defaults_and_precedence():
    fit_kwargs = {"epochs": 7, "batch_size": 5}
    arguments = wrapper_defaults.training_arguments(1000, fit_kwargs, {"batch_size": 9})
    assert arguments["batch_size"] == 9 and arguments["epochs"] == 7
    assert arguments["verbose"] == 0 and len(arguments["callbacks"]) == 1
    assert fit_kwargs == {"epochs": 7, "batch_size": 5}
    defaults = wrapper_defaults.training_arguments(50, None, None)
    assert defaults["batch_size"] == 50 and defaults["epochs"] == 200
    stop = defaults["callbacks"][0]
    assert (stop.monitor, stop.min_delta, stop.patience) == ("loss", 1e-4, 10)
    assert "callbacks" not in wrapper_defaults.training_arguments(50, None, None,
                                                                  one_epoch=True)
    with pytest.raises(ValueError, match="known keys"):
        wrapper_defaults.network_settings({"hidden_units": 3})


def test_a_user_model_trains_with_keras_fit_defaults(iris, monkeypatch):
    X, y = iris
    seen = []
    original = lamina.Model.fit

    def recording_fit(self, *args, **kwargs):
        seen.append(kwargs)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(lamina.Model, "fit", recording_fit)
    frozen = build_softmax(X, np.eye(3)[y])
    frozen.compile(optimizer=lamina.optimizers.SGD(0.0), loss="categorical_crossentropy")
    # the loss never improves: MLP-style early stopping would end after 11 epochs
    clf = SKLearnClassifier(model=frozen, fit_kwargs={"epochs": 20}, random_state=0)
    clf.fit(X, y)
    assert clf.n_iter_ == 20 and len(clf.history_["loss"]) == 20
    assert seen[-1]["batch_size"] == 32 and "callbacks" not in seen[-1]
    SKLearnRegressor(model=lambda X, y: _linear(X), random_state=0).fit(X, y * 1.0)
    assert (seen[-1]["batch_size"], seen[-1]["epochs"]) == (32, 1)
    assert "callbacks" not in seen[-1]
    default = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 20},
                                random_state=0)
    default.fit(X, y)
    assert seen[-1]["batch_size"] == len(X) and len(seen[-1]["callbacks"]) == 1
    arguments = wrapper_defaults.training_arguments(1000, {"epochs": 4}, None,
                                                    default_network=False)
    assert arguments == {"batch_size": 32, "epochs": 4, "verbose": 0, "shuffle": True,
                         "initial_epoch": 0}


def _linear(X):
    model = lamina.Sequential([lamina.Input((X.shape[1],)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    return model


# ---------------------------------------------------------------------- pandas
def test_dataframe_in_a_pipeline_works_like_the_numpy_array(iris):
    pandas = pytest.importorskip("pandas")
    X, y = iris
    frame = pandas.DataFrame(X, columns=["sepal_l", "sepal_w", "petal_l", "petal_w"])
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    series = pandas.Series(labels, name="species")
    weights = np.arange(len(X)) % 3 + 1.0

    def pipeline():
        return make_pipeline(StandardScaler().set_output(transform="pandas"),
                             SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 5},
                                               random_state=0))

    from_frame = pipeline().fit(frame, series,
                                sklearnclassifier__sample_weight=pandas.Series(weights))
    from_array = pipeline().fit(X, labels, sklearnclassifier__sample_weight=weights)
    # (StandardScaler itself differs in the last bit between a DataFrame and an array)
    np.testing.assert_allclose(from_frame.predict_proba(frame), from_array.predict_proba(X),
                               rtol=1e-12)
    assert from_frame.predict(frame.iloc[:5]).tolist() == from_array.predict(X[:5]).tolist()
    network = from_frame[-1]
    assert network.feature_names_in_.tolist() == frame.columns.tolist()
    with pytest.raises(ValueError, match="feature names"):
        network.predict(frame[frame.columns[::-1]])
    bare = SKLearnClassifier(model_kwargs=SMALL, fit_kwargs={"epochs": 5}, random_state=0)
    bare_frame, bare_array = clone(bare).fit(frame, series), clone(bare).fit(X, labels)
    np.testing.assert_array_equal(bare_frame.predict_proba(frame),
                                  bare_array.predict_proba(X))
    assert bare_frame.feature_names_in_.tolist() == frame.columns.tolist()
    assert not hasattr(bare_array, "feature_names_in_")
    targets = pandas.DataFrame({"a": X[:, 0], "b": X[:, 1]})
    regressor = SKLearnRegressor(model_kwargs=SMALL, fit_kwargs={"epochs": 3},
                                 random_state=0)
    np.testing.assert_array_equal(
        clone(regressor).fit(frame, targets).predict(frame),
        clone(regressor).fit(X, targets.to_numpy()).predict(X))


# ---------------------------------------------------------------------- estimator checks
@parametrize_with_checks([SKLearnClassifier(), SKLearnRegressor(), SKLearnTransformer()])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
