"""What the scikit-learn wrappers (:mod:`lamina.highlevel.wrappers.sklearn`) use when the user
leaves things out: the MLP-like networks built for ``model=None`` (scikit-learn's
``MLPClassifier``/``MLPRegressor`` defaults, in float64), the training arguments (for
the default network ``batch_size=min(200, n_samples)``, up to 200 epochs, early stopping
on the training loss; for a user model Keras' ``fit`` defaults; silent), the
re-compilation of a cloned model, what the wrappers read off a user
model (output units, sparse loss), and the scoped engine state (seed, default float dtype,
BLAS threads) that one wrapper fit runs under and restores.
"""

import contextlib
import copy
import numbers
import os

from ...backends import state
from ...layers.core import Dense
from ...layers.input_layer import Input
from ..callbacks import EarlyStopping
from ..models.model import Model
from ..optimizers import Adam

#: ``model_kwargs`` understood by the default networks, with scikit-learn's MLP defaults.
DEFAULT_MODEL_KWARGS = {"hidden_layer_sizes": (100,), "activation": "relu",
                        "learning_rate": 0.001}
MAX_EPOCHS = 200            # MLP's max_iter
MAX_BATCH_SIZE = 200        # MLP's batch_size="auto" = min(200, n_samples)
TOL = 1e-4                  # MLP's tol
N_ITER_NO_CHANGE = 10       # MLP's n_iter_no_change
DEFAULT_DTYPE = "float64"   # scikit-learn's MLP computes in float64
CODE_LAYER = "code"         # the default autoencoder's hidden layer (SKLearnTransformer)


def network_settings(model_kwargs):
    """``(hidden_layer_sizes tuple, activation, learning_rate)`` from ``model_kwargs``.

    Raises ``ValueError`` for an unknown key or an invalid value (at fit time, as
    scikit-learn validates parameters)."""
    given = dict(model_kwargs or {})
    unknown = sorted(set(given) - set(DEFAULT_MODEL_KWARGS))
    if unknown:
        raise ValueError(f"model_kwargs {unknown} are not understood by the default network "
                         f"(model=None); known keys: {sorted(DEFAULT_MODEL_KWARGS)}. Pass "
                         "model=<callable> to build your own network from model_kwargs.")
    settings = {**DEFAULT_MODEL_KWARGS, **given}
    sizes = settings["hidden_layer_sizes"]
    if isinstance(sizes, numbers.Integral) and not isinstance(sizes, bool):
        sizes = (sizes,)
    try:
        sizes = tuple(sizes)
    except TypeError:
        sizes = None
    if sizes is None or not all(isinstance(s, numbers.Integral) and not isinstance(s, bool)
                                and s > 0 for s in sizes):
        raise ValueError("model_kwargs['hidden_layer_sizes'] must be a positive int or a "
                         f"sequence of positive ints, got {settings['hidden_layer_sizes']!r}")
    rate = settings["learning_rate"]
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not rate > 0:
        raise ValueError(f"model_kwargs['learning_rate'] must be a positive number, got "
                         f"{rate!r}")
    activation = settings["activation"]
    if activation == "logistic":             # scikit-learn's name for the sigmoid
        activation = "sigmoid"
    if activation == "identity":
        activation = "linear"
    return tuple(int(s) for s in sizes), activation, float(rate)


def _optimizer(learning_rate):
    # scikit-learn's Adam: beta_1=0.9, beta_2=0.999, epsilon=1e-8
    return Adam(learning_rate=learning_rate, epsilon=1e-8)


def build_mlp(n_features, n_units, output_activation, loss, model_kwargs):
    """The default network of SKLearnClassifier/SKLearnRegressor: ``hidden_layer_sizes``
    Dense layers, then ``n_units`` outputs; Adam; float64; compiled with ``loss``."""
    sizes, activation, rate = network_settings(model_kwargs)
    inputs = Input((n_features,), dtype=DEFAULT_DTYPE, name="features")
    hidden = inputs
    for position, units in enumerate(sizes):
        hidden = Dense(units, activation=activation, dtype=DEFAULT_DTYPE,
                       name=f"hidden_{position}")(hidden)
    outputs = Dense(n_units, activation=output_activation, dtype=DEFAULT_DTYPE,
                    name="output")(hidden)
    model = Model(inputs, outputs, name="mlp")
    model.compile(optimizer=_optimizer(rate), loss=loss)
    return model


def build_autoencoder(n_features, model_kwargs):
    """SKLearnTransformer's default: an autoencoder on X. The encoder is
    ``hidden_layer_sizes`` (its last layer, named ``"code"``, is the transform), the
    decoder mirrors it back to ``n_features`` linear outputs; mean squared error."""
    sizes, activation, rate = network_settings(model_kwargs)
    inputs = Input((n_features,), dtype=DEFAULT_DTYPE, name="features")
    hidden = inputs
    for position, units in enumerate(sizes):
        name = CODE_LAYER if position == len(sizes) - 1 else f"encoder_{position}"
        hidden = Dense(units, activation=activation, dtype=DEFAULT_DTYPE, name=name)(hidden)
    for position, units in enumerate(sizes[-2::-1]):
        hidden = Dense(units, activation=activation, dtype=DEFAULT_DTYPE,
                       name=f"decoder_{position}")(hidden)
    outputs = Dense(n_features, dtype=DEFAULT_DTYPE, name="reconstruction")(hidden)
    model = Model(inputs, outputs, name="autoencoder")
    model.compile(optimizer=_optimizer(rate), loss="mean_squared_error")
    return model


def encoder_of(autoencoder):
    """The sub-model from the autoencoder's input to its ``"code"`` layer (shares the
    layers, so it always reflects the trained weights)."""
    code = autoencoder.get_layer(CODE_LAYER).inbound_nodes[0].outputs[0]
    return Model(autoencoder.inputs[0], code, name="encoder")


#: ``model.fit`` defaults for a user-supplied model: Keras' own (as Keras 3's and
#: scikeras' wrappers train), but silent.
KERAS_FIT_DEFAULTS = {"batch_size": 32, "epochs": 1, "verbose": 0, "shuffle": True}


def training_arguments(n_samples, fit_kwargs, call_kwargs, epochs_done=0, one_epoch=False,
                       default_network=True):
    """The keyword arguments of ``model.fit``: the defaults, then ``fit_kwargs``, then the
    keywords given to the wrapper's ``fit`` (later ones win). Nothing given is mutated.

    The defaults depend on who made the network. The default network
    (``default_network=True``, ``model=None``) trains like scikit-learn's MLP:
    ``batch_size=min(200, n_samples)``, up to 200 epochs, early stopping on the training
    loss (tol 1e-4, 10 epochs without improvement) unless ``callbacks`` are given. A
    user-supplied model trains with Keras' ``fit`` defaults (:data:`KERAS_FIT_DEFAULTS`:
    ``batch_size=32``, ``epochs=1``, no early stopping). Both are silent (``verbose=0``).

    ``epochs`` counts the epochs of this call: when training continues (warm start,
    ``partial_fit``) the epoch numbers carry on from ``epochs_done``, so each epoch gets
    its own shuffling. ``one_epoch`` (``partial_fit``) trains exactly one epoch."""
    if default_network:
        arguments = {"batch_size": min(MAX_BATCH_SIZE, n_samples), "epochs": MAX_EPOCHS,
                     "verbose": 0, "shuffle": True}
    else:
        arguments = dict(KERAS_FIT_DEFAULTS)
    arguments.update(fit_kwargs or {})
    arguments.update(call_kwargs or {})
    if default_network and "callbacks" not in arguments and not one_epoch:
        arguments["callbacks"] = [EarlyStopping(monitor="loss", min_delta=TOL,
                                                patience=N_ITER_NO_CHANGE)]
    if one_epoch:
        arguments["epochs"] = 1
    if "initial_epoch" not in arguments:
        arguments["initial_epoch"] = epochs_done
        arguments["epochs"] = epochs_done + arguments["epochs"]
    return arguments


def compile_like(clone, original):
    """Compile ``clone`` (from ``clone_model(original)``) as ``original`` was: a fresh
    optimizer of the same class and configuration, the same losses, loss weights and
    metrics (fresh metric objects)."""
    if not getattr(original, "compiled", False):
        raise ValueError(f"model '{original.name}' must be compiled before it is given to a "
                         "scikit-learn wrapper: call model.compile(optimizer=..., loss=...)")
    optimizer = type(original.optimizer).from_config(original.optimizer.get_config())
    compiled_loss = original.compiled_loss
    names = compiled_loss.output_names
    single = len(names) == 1

    def per_output(values):
        return values[0] if single else dict(zip(names, values))

    compiled_metrics = original.compiled_metrics
    weights = compiled_loss.weights
    clone.compile(optimizer=optimizer, loss=per_output(list(compiled_loss.losses)),
                  loss_weights=None if all(w == 1.0 for w in weights) else per_output(weights),
                  metrics=per_output(copy.deepcopy(compiled_metrics.requested)),
                  weighted_metrics=per_output(copy.deepcopy(compiled_metrics.requested_weighted)))
    return clone


def seed_from(random_state):
    """The engine seed of one fit: ``random_state`` itself when it is an int, else a draw
    from it (a ``RandomState``) or from NumPy's global generator (``None``), as
    scikit-learn's ``check_random_state`` does."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, got {random_state}")
        return int(random_state)
    from sklearn.utils import check_random_state

    return int(check_random_state(random_state).randint(0, 2**31 - 1))


@contextlib.contextmanager
def engine_scope(seed, floatx=None, blas_threads=None):
    """Run a wrapper's fit with lamina's seed set to ``seed`` (weight initialization,
    shuffling and dropout derive from it), the default float dtype set to ``floatx`` and
    BLAS limited to ``blas_threads`` threads; restore all of it afterwards, so that no
    global state leaks from an estimator. The seed and dtype are scoped to the calling
    thread (estimators may fit on several threads at once); the BLAS limit is
    process-wide."""
    values = {"seed": seed} if floatx is None else {"seed": seed, "floatx": floatx}
    with state.scoped(**values), blas_limits(blas_threads):
        yield


def blas_limits(threads):
    """A context limiting BLAS to ``threads`` threads (a no-op for ``None``)."""
    if threads is None:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=threads, user_api="blas")


def worker_blas_threads():
    """BLAS threads for a wrapper running inside a joblib worker process: the worker's
    share of the cores (joblib's loky backend announces it through the ``*_NUM_THREADS``
    variables it sets in its workers); ``None`` (no limit) outside workers."""
    if not _in_worker_process():
        return None
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(variable)
        if value and value.isdigit() and int(value) > 0:
            return int(value)
    return 1


def _in_worker_process():
    import multiprocessing

    return multiprocessing.parent_process() is not None


def as_dense(X):
    """Sparse input densified (the engines compute on dense arrays); arrays unchanged."""
    return X.toarray() if hasattr(X, "toarray") else X


def output_units(model):
    """The last dimension of the model's single output, or None when unknown."""
    outputs = getattr(model, "outputs", None)
    if not outputs or len(outputs) != 1:
        return None
    shape = outputs[0].shape
    return shape[-1] if len(shape) >= 2 else None


def uses_sparse_loss(model):
    """Whether the model's single loss takes integer labels (a sparse cross-entropy)."""
    compiled = getattr(model, "compiled_loss", None)
    if compiled is None or len(compiled.losses) != 1 or compiled.losses[0] is None:
        return False
    loss = compiled.losses[0]
    names = (getattr(loss, "name", "") or "", type(loss).__name__,
             getattr(getattr(loss, "fn", None), "__name__", "") or "")
    return any("sparse" in name.lower() for name in names)


__all__ = ["DEFAULT_MODEL_KWARGS", "KERAS_FIT_DEFAULTS", "build_autoencoder", "build_mlp",
           "compile_like", "encoder_of", "engine_scope", "network_settings", "output_units",
           "seed_from", "training_arguments", "uses_sparse_loss", "worker_blas_threads"]
