"""scikit-learn estimators around lamina models: ``SKLearnClassifier``,
``SKLearnRegressor`` and ``SKLearnTransformer`` (``lamina.wrappers``).

Keras 3's signature plus scikit-learn's ``random_state``::

    SKLearnClassifier(model=None, warm_start=False, model_kwargs=None, fit_kwargs=None,
                      random_state=None)

* ``model``: a compiled lamina ``Model`` (cloned with fresh weights and compiled the same
  way before each fit; with ``warm_start=True`` a copy that keeps its weights), or a
  callable ``model(X=X, y=y, **model_kwargs)`` returning a compiled model (classifiers
  pass ``y`` one-hot encoded, as Keras does), or ``None``: a network like scikit-learn's
  ``MLPClassifier``/``MLPRegressor`` (``model_kwargs`` keys ``hidden_layer_sizes``,
  ``activation``, ``learning_rate``; Adam; computed in float64). ``SKLearnTransformer``'s
  default is an autoencoder on X whose hidden layer is the transform.
* ``fit_kwargs``: keyword arguments of ``model.fit`` (the keywords of the wrapper's ``fit``
  win). The defaults depend on the network. For ``model=None`` (the MLP-like default
  network) they are scikit-learn's MLP ones: ``batch_size=min(200, n_samples)``,
  ``epochs=200``, early stopping on the training loss (tol 1e-4, 10 epochs without
  improvement) unless ``callbacks`` are given. A user-supplied ``model`` (instance or
  callable) trains with Keras' own ``fit`` defaults, as Keras 3's and scikeras' wrappers
  do: ``batch_size=32``, ``epochs=1``, no early stopping. Always ``verbose=0``,
  ``shuffle=True``.
* ``random_state``: an int makes fits reproducible (weights, shuffling, dropout); the
  engine's global seed is set during the fit and restored afterwards.

Keys inside ``model_kwargs``/``fit_kwargs`` are parameters too
(``model_kwargs__hidden_layer_sizes``, ``fit_kwargs__epochs``), so ``GridSearchCV`` can
tune them. A fitted estimator pickles its network as in-memory HDF5 (no code or arrays go
through pickle's object graph), so joblib parallelism works. Custom layer classes, Lambda
functions and loss functions travel by their import name ``"module:qualname"`` only:
they must be defined at the top level of a module the unpickling process (a joblib
worker) can import; a lambda or a locally defined one raises ``pickle.PicklingError``.
X may be a NumPy array, a sparse matrix or a pandas DataFrame (``feature_names_in_`` is
kept, as scikit-learn does); y an array, a pandas Series or DataFrame.

Example:
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> clf = make_pipeline(StandardScaler(), lamina.wrappers.SKLearnClassifier())
    >>> clf.fit(X, y).score(X, y)
"""

import copy

import numpy as np
from sklearn.base import (BaseEstimator, ClassifierMixin, ClassNamePrefixFeaturesOutMixin,
                          RegressorMixin, TransformerMixin)
from sklearn.utils.multiclass import check_classification_targets, type_of_target, unique_labels
from sklearn.utils.validation import (_check_sample_weight, check_is_fitted, column_or_1d,
                                      validate_data)

from ..saving import model_file as saving
from . import default_networks as defaults
from ..models import Model, clone_model

_NESTED = ("model_kwargs", "fit_kwargs")
#: scikit-learn's validation of X (arrays, sparse matrices, pandas DataFrames: it keeps
#: ``feature_names_in_`` and checks them at prediction time)
_X_CHECKS = {"accept_sparse": ("csr", "csc", "coo"), "dtype": (np.float64, np.float32)}


class _SerializedModel:
    """A fitted model inside a pickle: its in-memory HDF5 bytes (see ``Model.to_bytes``)
    and its custom objects as ``{name: "module:qualname"}`` strings
    (:func:`saving.pickled_state`), so the pickle holds no class, function or code."""

    def __init__(self, model):
        self.data, self.references = saving.pickled_state(model)

    def rebuild(self):
        """The model, its custom objects imported by name in this process."""
        return saving.rebuild(self.data, getattr(self, "references", {}))


class SKLearnWrapper(BaseEstimator):
    """Base of the scikit-learn wrappers (parameters, fitting, pickling); see the module
    docstring for the parameters.

    Attributes (after ``fit``):
        model_: the fitted lamina model.
        history_: dict of per-epoch logs (``{"loss": [...], ...}``) of all training so far.
        n_iter_: number of epochs trained.
        n_features_in_: number of features seen in ``fit``.
        feature_names_in_: feature names (only when X was a DataFrame with string columns).
    """

    def __init__(self, model=None, warm_start=False, model_kwargs=None, fit_kwargs=None,
                 random_state=None):
        self.model = model
        self.warm_start = warm_start
        self.model_kwargs = model_kwargs
        self.fit_kwargs = fit_kwargs
        self.random_state = random_state

    # ------------------------------------------------------------------ parameters
    def get_params(self, deep=True):
        """The constructor parameters; with ``deep=True`` also every key of
        ``model_kwargs``/``fit_kwargs`` as ``model_kwargs__<key>``/``fit_kwargs__<key>``."""
        params = super().get_params(deep=deep)
        if deep:
            for name in _NESTED:
                value = params.get(name)
                if isinstance(value, dict):
                    params.update({f"{name}__{key}": item for key, item in value.items()})
        return params

    def set_params(self, **params):
        """Set parameters; ``model_kwargs__<key>=value`` (and ``fit_kwargs__<key>``)
        replaces the dict with an updated copy (the caller's dict is never mutated)."""
        nested = {name: {} for name in _NESTED}
        plain = {}
        for key, value in params.items():
            head, separator, sub_key = key.partition("__")
            if separator and head in nested:
                nested[head][sub_key] = value
            else:
                plain[key] = value
        if plain:
            super().set_params(**plain)
        for name, updates in nested.items():
            if not updates:
                continue
            current = getattr(self, name)
            if current is not None and not isinstance(current, dict):
                raise ValueError(f"cannot set {name}__{next(iter(updates))}: {name} is "
                                 f"{current!r}, not a dict")
            setattr(self, name, {**(current or {}), **updates})
        return self

    # ------------------------------------------------------------------ tags
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True            # densified before training
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "model_")

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None, sample_weight=None, **kwargs):
        """Fit the network on ``X``, ``y`` (``sample_weight`` optional); ``kwargs`` go to
        ``model.fit`` and win over ``fit_kwargs``. Returns ``self``."""
        return self._fit(X, y, sample_weight, kwargs, incremental=False)

    def _partial_fit(self, X, y, sample_weight, classes=None):
        return self._fit(X, y, sample_weight, {}, incremental=True, classes=classes)

    def _fit(self, X, y, sample_weight, call_kwargs, incremental, classes=None):
        continuing = hasattr(self, "model_") and (incremental or self.warm_start)
        X, y = self._validate_fit_data(X, y, reset=not continuing)
        X = defaults.as_dense(X)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                                 ensure_non_negative=True)
            total = float(sample_weight.sum())
            if total <= 0:
                raise ValueError("Sample weights must contain at least one non-zero number.")
            # the loss averages weighted per-sample losses over the batch: rescale so that
            # an integer weight counts as that many repeated samples, as scikit-learn does
            sample_weight = sample_weight * (len(sample_weight) / total)
        target = self._learn_target(y, first=not continuing, classes=classes)
        if not continuing:
            self._seed = defaults.seed_from(self.random_state)
            self._epochs_done = 0
        with defaults.engine_scope(self._seed, floatx=self._scope_floatx(),
                                   blas_threads=defaults.worker_blas_threads()):
            model = self.model_ if continuing else self._build_model(X, target)
            arguments = defaults.training_arguments(
                len(X), self.fit_kwargs, call_kwargs, epochs_done=self._epochs_done,
                one_epoch=incremental, default_network=self.model is None)
            self._translate_fit_arguments(arguments)
            history = model.fit(X, self._fit_target(model, X, target),
                                sample_weight=sample_weight, **arguments)
        logs = {key: list(values) for key, values in history.history.items()}
        if continuing:
            previous = self.history_
            logs = {key: previous.get(key, []) + values for key, values in logs.items()}
        self.model_ = model
        self.history_ = logs
        self._epochs_done = arguments["initial_epoch"] + len(history.epoch)
        self.n_iter_ = self._epochs_done
        self._after_fit(X)
        return self

    def _scope_floatx(self):
        return defaults.DEFAULT_DTYPE if self.model is None else None

    def _validate_fit_data(self, X, y, reset):
        return validate_data(self, X, y, reset=reset, **_X_CHECKS, multi_output=True,
                             y_numeric=False)

    def _build_model(self, X, target):
        if self.model is None:
            return self._default_model(X, target)
        if isinstance(self.model, Model):
            if self.warm_start:                  # keep the given weights, never mutate them
                model = copy.deepcopy(self.model)
            else:
                model = defaults.compile_like(clone_model(self.model), self.model)
        elif callable(self.model):
            model = self.model(X=X, y=self._builder_target(target), **(self.model_kwargs or {}))
        else:
            raise TypeError(f"model must be a lamina Model, a callable returning a compiled "
                            f"Model, or None; got {self.model!r}")
        if not hasattr(model, "fit") or not hasattr(model, "predict"):
            raise TypeError(f"the model callable must return a compiled lamina Model, got "
                            f"{model!r}")
        if not getattr(model, "compiled", True):
            raise ValueError(f"the model built by {self.model!r} is not compiled: call "
                             "model.compile(optimizer=..., loss=...) before returning it")
        return model

    def _builder_target(self, target):
        return target

    def _translate_fit_arguments(self, arguments):
        """Hook: adapt ``model.fit`` arguments (classifiers map class_weight labels)."""

    def _after_fit(self, X):
        """Hook: fitted attributes computed from the trained model."""

    # ------------------------------------------------------------------ predicting
    def _outputs(self, X):
        X = self._checked_X(X)
        return self._predict_with(self.model_, X)

    def _checked_X(self, X):
        """``X`` of a prediction, validated against the fit (features, names), dense."""
        check_is_fitted(self)
        return defaults.as_dense(validate_data(self, X, reset=False, **_X_CHECKS))

    def _predict_with(self, model, X):
        batch_size = (self.fit_kwargs or {}).get("batch_size") or 1024
        with defaults.blas_limits(defaults.worker_blas_threads()):
            return model.predict(X, batch_size=batch_size, verbose=0)

    # ------------------------------------------------------------------ pickling
    def __getstate__(self):
        """The estimator's state with every lamina model as in-memory HDF5 bytes."""
        state = dict(super().__getstate__())
        for key in ("model", "model_"):
            if isinstance(state.get(key), Model):
                state[key] = _SerializedModel(state[key])
        return state

    def __setstate__(self, state):
        state = dict(state)
        for key in ("model", "model_"):
            if isinstance(state.get(key), _SerializedModel):
                state[key] = state[key].rebuild()
        super().__setstate__(state)


class SKLearnClassifier(ClassifierMixin, SKLearnWrapper):
    """A scikit-learn classifier around a lamina model (binary, multiclass and multilabel
    targets; string, integer or boolean labels).

    The default network (``model=None``) ends in a sigmoid unit (binary), a softmax over
    the classes (multiclass, sparse categorical cross-entropy) or one sigmoid per label
    (multilabel, binary cross-entropy). A user model may end in 1 sigmoid unit (binary) or
    one unit per class (trained on one-hot targets, or integer labels when its loss is a
    sparse one).

    Attributes (after ``fit``, besides the base ones): ``classes_`` (the original labels;
    ``0..n_labels-1`` for multilabel targets), ``n_outputs_`` (1, or the number of labels).

    Example:
        >>> clf = SKLearnClassifier(model_kwargs={"hidden_layer_sizes": (32,)},
        ...                         random_state=0).fit(X, y)
        >>> clf.predict_proba(X[:2]).shape
        (2, 2)
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One more epoch on ``X``, ``y``; ``classes`` (every label) is required on the
        first call, as in scikit-learn's incremental estimators."""
        if not hasattr(self, "model_") and classes is None and \
                type_of_target(y) != "multilabel-indicator":
            raise ValueError("classes must be passed on the first call to partial_fit.")
        return self._partial_fit(X, y, sample_weight, classes=classes)

    def _learn_target(self, y, first, classes=None):
        if hasattr(y, "toarray"):
            y = y.toarray()
        check_classification_targets(y)
        kind = type_of_target(y)
        if kind == "multilabel-indicator":
            if first:
                self.classes_ = np.arange(y.shape[1])
                self.n_outputs_ = y.shape[1]
                self._label_dtype = y.dtype
            elif getattr(self, "_label_dtype", None) is None or y.shape[1] != self.n_outputs_:
                raise ValueError(f"y has {y.shape[1]} labels; this classifier was fitted on "
                                 f"{self.n_outputs_} outputs of another target type")
            return y.astype(np.float64)
        if kind not in ("binary", "multiclass"):
            raise ValueError(f"{type(self).__name__} supports binary, multiclass and "
                             f"multilabel-indicator targets, got {kind!r}")
        y = column_or_1d(y, warn=True)
        if first:
            self.classes_ = unique_labels(y if classes is None else classes)
            if len(self.classes_) < 2:
                raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes "
                                 f"in the data, but the data contains only 1 class: "
                                 f"{self.classes_[0]!r}")
            self.n_outputs_ = 1
            self._label_dtype = None
        elif self._label_dtype is not None:
            raise ValueError("y is single-label but this classifier was fitted on "
                             "multilabel targets")
        elif classes is not None and not np.array_equal(unique_labels(classes), self.classes_):
            raise ValueError(f"classes={classes!r} is not the same as on the first call to "
                             f"partial_fit: {self.classes_!r}")
        encoded = np.searchsorted(self.classes_, y)
        encoded = np.minimum(encoded, len(self.classes_) - 1)
        unseen = self.classes_[encoded] != y
        if np.any(unseen):
            raise ValueError(f"y contains labels not in classes_: "
                             f"{sorted(set(np.asarray(y)[unseen].tolist()))}")
        return encoded.astype(np.int64)

    def _is_multilabel(self):
        return getattr(self, "_label_dtype", None) is not None

    def _builder_target(self, target):
        if self._is_multilabel():
            return target
        onehot = np.zeros((len(target), len(self.classes_)), dtype=np.float64)
        onehot[np.arange(len(target)), target] = 1.0
        return onehot

    def _default_model(self, X, target):
        if self._is_multilabel():
            units, activation, loss = self.n_outputs_, "sigmoid", "binary_crossentropy"
        elif len(self.classes_) == 2:
            units, activation, loss = 1, "sigmoid", "binary_crossentropy"
        else:
            units, activation, loss = (len(self.classes_), "softmax",
                                       "sparse_categorical_crossentropy")
        return defaults.build_mlp(X.shape[1], units, activation, loss, self.model_kwargs)

    def _fit_target(self, model, X, target):
        """The targets in the form the model's output and loss expect."""
        if self._is_multilabel():
            return target
        units = defaults.output_units(model)
        if units == 1:
            if len(self.classes_) != 2:
                raise ValueError(f"the model has 1 output unit but there are "
                                 f"{len(self.classes_)} classes: give it one unit per class")
            return target.astype(np.float64).reshape(-1, 1)
        if units is not None and units != len(self.classes_):
            raise ValueError(f"the model has {units} output units for {len(self.classes_)} "
                             "classes: give it one unit per class (or 1 for binary targets)")
        if defaults.uses_sparse_loss(model):
            return target
        return self._builder_target(target)

    def _translate_fit_arguments(self, arguments):
        weights = arguments.get("class_weight")
        if isinstance(weights, dict) and not self._is_multilabel():
            index = {label: position for position, label in enumerate(self.classes_.tolist())}
            arguments["class_weight"] = {index.get(label, label): weight
                                         for label, weight in weights.items()}

    def predict_proba(self, X):
        """Class probabilities, shape ``(n_samples, n_classes)`` (binary included; for
        multilabel targets one probability per label)."""
        outputs = np.asarray(self._outputs(X))
        if outputs.ndim == 1:
            outputs = outputs.reshape(-1, 1)
        if outputs.shape[1] == 1 and not self._is_multilabel():
            outputs = np.hstack([1.0 - outputs, outputs])
        return outputs

    def predict(self, X):
        """Predicted labels (the original ``classes_``; a 0/1 matrix for multilabel)."""
        probabilities = self.predict_proba(X)
        if self._is_multilabel():
            return (probabilities > 0.5).astype(self._label_dtype)
        return self.classes_[np.argmax(probabilities, axis=1)]


class SKLearnRegressor(RegressorMixin, SKLearnWrapper):
    """A scikit-learn regressor around a lamina model (single or multi-output targets).

    The default network (``model=None``) has one linear output per target and minimizes
    the mean squared error. ``predict`` returns shape ``(n_samples,)`` when ``y`` was 1-D,
    else ``(n_samples, n_outputs)``.

    Example:
        >>> reg = SKLearnRegressor(fit_kwargs={"epochs": 50}, random_state=0).fit(X, y)
        >>> reg.score(X, y)
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def partial_fit(self, X, y, sample_weight=None):
        """One more epoch on ``X``, ``y``."""
        return self._partial_fit(X, y, sample_weight)

    def _validate_fit_data(self, X, y, reset):
        return validate_data(self, X, y, reset=reset, **_X_CHECKS, multi_output=True,
                             y_numeric=True)

    def _learn_target(self, y, first, classes=None):
        y = np.asarray(y.toarray() if hasattr(y, "toarray") else y)
        outputs = 1 if y.ndim == 1 else y.shape[1]
        if first:
            self.n_outputs_ = outputs
            self._y_ndim = y.ndim
        elif outputs != self.n_outputs_:
            raise ValueError(f"y has {outputs} outputs; this regressor was fitted on "
                             f"{self.n_outputs_}")
        return y.reshape(len(y), -1).astype(np.float64)

    def _builder_target(self, target):
        return target[:, 0] if self._y_ndim == 1 else target

    def _default_model(self, X, target):
        return defaults.build_mlp(X.shape[1], self.n_outputs_, None, "mean_squared_error",
                                  self.model_kwargs)

    def _fit_target(self, model, X, target):
        return target

    def predict(self, X):
        """Predicted targets (1-D when the training ``y`` was 1-D)."""
        outputs = np.asarray(self._outputs(X))
        if self._y_ndim == 1 and outputs.ndim == 2 and outputs.shape[1] == 1:
            return outputs[:, 0]
        return outputs


class SKLearnTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, SKLearnWrapper):
    """A scikit-learn transformer whose ``transform`` is the output of a lamina model.

    ``model=None`` builds an autoencoder on X (``y`` ignored): ``transform`` returns its
    hidden layer (the last of ``hidden_layer_sizes``). A user model is trained on
    ``(X, y)`` when ``y`` is given, else on ``(X, X)``, and ``transform`` returns its
    output (for example an encoder's features). ``get_feature_names_out`` names the
    features ``sklearntransformer0``, ``sklearntransformer1``, ...

    Example:
        >>> codes = SKLearnTransformer(model_kwargs={"hidden_layer_sizes": (2,)},
        ...                            random_state=0).fit_transform(X)
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the default network computes in float64; a user model keeps its own dtype
        tags.transformer_tags.preserves_dtype = ["float64"] if self.model is None else []
        return tags

    def fit(self, X, y=None, sample_weight=None, **kwargs):
        """Fit the network: the default autoencoder on X; a user model on (X, y), or on
        (X, X) when ``y`` is None. Returns ``self``."""
        return self._fit(X, y, sample_weight, kwargs, incremental=False)

    def partial_fit(self, X, y=None, sample_weight=None):
        """One more epoch on ``X`` (and ``y``)."""
        return self._partial_fit(X, y, sample_weight)

    def _validate_fit_data(self, X, y, reset):
        if self.model is None or y is None:
            X = validate_data(self, X, reset=reset, **_X_CHECKS)
            return X, None
        return validate_data(self, X, y, reset=reset, **_X_CHECKS, multi_output=True)

    def _learn_target(self, y, first, classes=None):
        return y

    def _default_model(self, X, target):
        return defaults.build_autoencoder(X.shape[1], self.model_kwargs)

    def _fit_target(self, model, X, target):
        return X if target is None else target

    def _transform_model(self):
        if self.model is None:
            return defaults.encoder_of(self.model_)
        return self.model_

    def _after_fit(self, X):
        features = np.asarray(self._predict_with(self._transform_model(), X[:1]))
        self._n_features_out = int(np.prod(features.shape[1:])) if features.ndim > 1 else 1

    def transform(self, X):
        """The model's output for ``X`` (the default autoencoder: its hidden layer)."""
        X = self._checked_X(X)
        return np.asarray(self._predict_with(self._transform_model(), X))


__all__ = ["SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer"]
