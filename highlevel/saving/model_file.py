"""Full-model HDF5 checkpoints in Keras' legacy layout: ``model.save("m.h5")`` and
``lamina.load_model("m.h5")``; in-memory copies (``to_bytes``, read back by
``load_model``), and the pickle / deepcopy support of :class:`Model` built on them.

File layout (Keras 3's legacy ``.h5``, readable by ``keras.models.load_model``)::

    /                      attrs: keras_version, backend, model_config, training_config,
                                  lamina_format_version, lamina_version, lamina_checksums,
                                  lamina_random_seed
    /model_weights/        attrs: layer_names, backend, keras_version
    /model_weights/<layer>/              attr weight_names; datasets (attr lamina_sha256)
    /model_weights/top_level_model_weights/
    /optimizer_weights/    attr weight_names: <opt>/iteration, <opt>/learning_rate, slots

``model_config`` and ``training_config`` are JSON naming public, registered class names
only; loading rebuilds the model from them (custom classes and Lambda functions come from
``custom_objects``: no pickle, no eval), reads and verifies every weight, then assigns.
Errors are the documented :mod:`checkpoint_errors` (re-exported here).
"""

import importlib
import json
import pickle

import numpy as np

from ...backends import state
from . import h5io as integrity
from . import (keras_format as keras_files, model_config, optimizer_state,
               weights_file as weights_files)
from .errors import (CheckpointError, ConfigError, CorruptFileError, MissingConfigError,
                     NotHDF5Error, TruncatedFileError, UnknownClassError,
                     UnsupportedFormatError, WeightMismatchError, describe)
from .h5io import CheckpointNotFoundError
from .object_registration import CustomObjectScope

SEED_ATTR = "lamina_random_seed"
# A stored config may create at most the file's weight values plus this many (so a file
# missing a few weights still gets the precise weight-count or shape error).
CONFIG_SLACK_VALUES = 2**20


# ---------------------------------------------------------------------------- writing
def training_config(model):
    """The ``training_config`` JSON dict of a compiled model (Keras' keys; losses in
    object form so Keras can recompile), or None."""
    if not getattr(model, "compiled", False) or model.optimizer is None:
        return None
    compiled = model.get_compile_config() or {}
    optimizer = model.optimizer
    return {"loss": keras_files.loss_for_file(compiled.get("loss")),
            "loss_weights": compiled.get("loss_weights"),
            "metrics": compiled.get("metrics"),
            "weighted_metrics": compiled.get("weighted_metrics"),
            "run_eagerly": False, "steps_per_execution": 1, "jit_compile": False,
            "optimizer_config": {"class_name": type(optimizer).__name__,
                                 "config": optimizer.get_config()}}


def write_model(handle, model, include_optimizer=True):
    """Write the whole model into an open ``h5py.File``."""
    config_text = model_config.to_json(model_config.model_entry(model))
    training = training_config(model) if include_optimizer else None
    training_text = None if training is None else model_config.to_json(training)
    weights_files.write_root_attrs(handle)
    integrity.write_text_attr(handle, "model_config", config_text)
    if training_text is not None:
        integrity.write_text_attr(handle, "training_config", training_text)
    handle.attrs[SEED_ATTR] = np.int64(state.seed_or_random())
    layout = weights_files.write_legacy_weights(handle.create_group("model_weights"), model)
    optimizer_names = None
    if training is not None:
        optimizer_names = optimizer_state.write_optimizer_weights(handle, model)
    integrity.write_text_attr(handle, integrity.CHECKSUMS_ATTR, integrity.checksums_attr(
        {"model_config": config_text, "training_config": training_text,
         "weights_layout": layout, "optimizer_layout": optimizer_names,
         "random_seed": int(handle.attrs[SEED_ATTR])}))


def save_model(model, filepath, overwrite=True, include_optimizer=True):
    """``model.save("m.h5")``: architecture, weights and compile/optimizer state in the
    legacy HDF5 layout, written atomically (a temporary file in the same folder, then
    ``os.replace``). :func:`saving_api.save_model` sends ``.keras`` paths to
    :mod:`keras_zip` instead."""
    with integrity.h5_writer(filepath, overwrite) as handle:
        write_model(handle, model, include_optimizer)


def to_bytes(model, include_optimizer=True):
    """The bytes of the HDF5 file ``model.save`` would write."""
    with integrity.h5_bytes_writer() as (handle, result):
        write_model(handle, model, include_optimizer)
    return result.data


# ---------------------------------------------------------------------------- reading
class ModelFile:
    """Everything a full-model file holds, read and verified, in memory."""

    def __init__(self, source):
        self.source = source
        self.lamina = False
        self.model_config = None
        self.training_config = None
        self.layers = []
        self.top = None             # the model's own weights (FileLayer) or None
        self.optimizer = None       # (names, arrays) or None
        self.seed = None


def _parse_json(opened, text, what):
    try:
        return json.loads(text)
    except ValueError as error:
        raise CorruptFileError(f"{opened.name}: the {what} attribute is not valid JSON "
                               f"({error})", opened.path) from None


def read_model_file(opened):
    """Read and check a full-model file (see :class:`ModelFile`)."""
    content = ModelFile(opened.path)
    content.lamina = weights_files.is_lamina_file(opened)
    config_text = integrity.read_text_attr(opened, opened.handle, "model_config")
    if config_text is None:
        raise MissingConfigError(
            f"{opened.name} has no model_config attribute, so it holds no architecture "
            "(a weights-only file?): build the model in code and use load_weights",
            opened.path)
    training_text = integrity.read_text_attr(opened, opened.handle, "training_config")
    if "model_weights" not in opened.handle:
        raise CorruptFileError(f"{opened.name} has a model_config but no model_weights "
                               "group", opened.path)
    content.seed = _read_seed(opened) if content.lamina else None
    content.layers, content.top, layout = weights_files.read_legacy_layers(
        opened, opened.handle["model_weights"], content.lamina)
    content.optimizer = optimizer_state.read_optimizer_weights(opened, content.lamina)
    if content.lamina:
        integrity.verify_checksums(opened, {
            "model_config": config_text, "training_config": training_text,
            "weights_layout": layout,
            "optimizer_layout": None if content.optimizer is None else content.optimizer[0],
            "random_seed": content.seed}, optional=("random_seed",))
    content.model_config = _parse_json(opened, config_text, "model_config")
    if training_text is not None:
        content.training_config = _parse_json(opened, training_text, "training_config")
    if not isinstance(content.model_config, dict):
        raise ConfigError(f"{opened.name}: model_config is not a JSON object", opened.path)
    return content


def _read_seed(opened):
    """The stored ``lamina_random_seed`` (None when absent): an integer in [0, 2**63)."""
    seed = integrity.read_int_attr(opened, opened.handle, SEED_ATTR)
    if seed is not None and not 0 <= seed < 2**63:
        raise CorruptFileError(f"{opened.name}: attribute {SEED_ATTR} is {seed}; a random "
                               "seed is an integer from 0 to 2**63 - 1", opened.path)
    return seed


def stored_weight_values(content):
    """How many weight values a :class:`ModelFile` holds (its layers and own weights)."""
    layers = content.layers + ([content.top] if content.top is not None else [])
    return sum(int(array.size) for layer in layers for array in layer.arrays)


def read_source(source):
    """Open, read and verify ``source`` (a path or bytes of HDF5) into a
    :class:`ModelFile`."""
    opened = integrity.open_h5(source)
    try:
        return integrity.guarded(opened, lambda: read_model_file(opened), "the model")
    finally:
        opened.close()


def _resolve_identifiers(value, getter):
    if value is None or isinstance(value, (int, float, bool)):
        return value
    if isinstance(value, list):
        return [_resolve_identifiers(item, getter) for item in value]
    if isinstance(value, dict) and "class_name" not in value:
        return {key: _resolve_identifiers(item, getter) for key, item in value.items()}
    return getter(value)


def compile_from_config(model, config, custom_objects, source):
    """``model.compile(...)`` with the arguments stored in ``training_config``."""
    from ..losses import losses as losses_module
    from ..metrics import metrics as metrics_module
    from .. import optimizers as optimizers_module

    def metric(identifier):
        if isinstance(identifier, str) and not (custom_objects and identifier in
                                                custom_objects):
            return identifier          # names resolve at first use, as at compile time
        return metrics_module.get(identifier, custom_objects=custom_objects)

    try:
        optimizer_entry = config.get("optimizer_config") or config.get("optimizer")
        optimizer = optimizers_module.deserialize(optimizer_entry, custom_objects)
        loss = _resolve_identifiers(config.get("loss"),
                                    lambda i: losses_module.get(i, custom_objects))
        model.compile(optimizer=optimizer, loss=loss,
                      metrics=_resolve_identifiers(config.get("metrics"), metric),
                      loss_weights=config.get("loss_weights"),
                      weighted_metrics=_resolve_identifiers(config.get("weighted_metrics"),
                                                            metric))
    except CheckpointError:
        raise
    except Exception as error:
        raise ConfigError(f"{describe(source)}: cannot compile model '{model.name}' from the "
                          f"stored training_config: {type(error).__name__}: {error}. Pass "
                          "custom losses/metrics in custom_objects, or load with "
                          "compile=False", source) from error


def adopt_seed(seed):
    """An unseeded process takes the checkpoint's seed, so that the shuffling and dropout
    of a resumed ``fit`` (derived from (seed, epoch)) repeat the original run."""
    if seed is not None and state.seed() is None:
        state.set_seed(int(seed))


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Rebuild a model saved by ``model.save("m.h5")`` (or by Keras' ``model.save("x.h5")``)
    from that path or the bytes of such a file; the arguments and errors are those of
    :func:`saving_api.load_model`, which sends zip archives to :mod:`keras_zip` instead."""
    # Keras: the custom objects resolve everywhere inside the load, also where a config
    # names them deep down (a custom activation function of a Dense).
    with CustomObjectScope(custom_objects or {}):
        return _load_model(filepath, custom_objects, compile, safe_mode)


def _load_model(filepath, custom_objects, compile, safe_mode):
    content = read_source(filepath)
    source = content.source
    model = model_config.build_model(
        content.model_config, custom_objects, source, from_keras=not content.lamina,
        max_weight_values=stored_weight_values(content) + CONFIG_SLACK_VALUES,
        safe_mode=safe_mode)
    opened = integrity.OpenedFile(None, source, 0)
    plan, _ = weights_files.plan_legacy(model, content.layers, opened, top=content.top)
    weights_files.apply_plan(plan)
    if compile and content.training_config is not None:
        compile_from_config(model, content.training_config, custom_objects, source)
        if content.optimizer is not None:
            names, arrays = content.optimizer
            optimizer_plan = optimizer_state.plan(model, names, arrays, describe(source))
            if optimizer_plan is not None:
                optimizer_state.apply(model, optimizer_plan)
        adopt_seed(content.seed)
    return model


def restore_from_checkpoint(model, filepath):
    """Load weights, optimizer state (iterations, slots) and learning rate from a
    full-model file into ``model`` in place (``BackupAndRestore``). Everything is checked
    before anything is assigned."""
    content = read_source(filepath)
    opened = integrity.OpenedFile(None, content.source, 0)
    plan, _ = weights_files.plan_legacy(model, content.layers, opened, top=content.top)
    optimizer_plan = None
    learning_rate = None
    if getattr(model, "compiled", False) and model.optimizer is not None:
        if content.optimizer is not None:
            names, arrays = content.optimizer
            optimizer_plan = optimizer_state.plan(model, names, arrays,
                                                  describe(content.source), strict=True)
        stored = ((content.training_config or {}).get("optimizer_config") or {}).get(
            "config") or {}
        if isinstance(stored.get("learning_rate"), (int, float)) and \
                model.optimizer.learning_rate_schedule is None:
            learning_rate = float(stored["learning_rate"])
    weights_files.apply_plan(plan)
    if optimizer_plan is not None:
        optimizer_state.apply(model, optimizer_plan)
    if learning_rate is not None:
        model.optimizer.learning_rate = learning_rate
    adopt_seed(content.seed)


# ---------------------------------------------------------------------------- pickling
_OWN_PACKAGE = __name__.split(".")[0]


def _is_own(obj):
    module = getattr(obj, "__module__", None) or ""
    return module == _OWN_PACKAGE or module.startswith(_OWN_PACKAGE + ".")


def custom_objects_of(model):
    """``{name: class or function}`` for every object a config of ``model`` names that
    lamina's own registry would not give back in a fresh process: classes defined outside
    lamina (even when registered: the registration runs only where their module is
    imported), every Lambda function (configs store only its name) and custom loss
    functions. Keys are the names the configs use."""
    from ...layers.base import LAYERS
    objects = {}
    stack, seen = [model], set()
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        name = layer.registered_class_name()
        cls = type(layer)
        if not _is_own(cls) or name not in LAYERS or LAYERS.lookup(name) is not cls:
            objects[name] = cls
        function = getattr(layer, "function", None)
        if callable(function) and cls.__name__ == "Lambda":
            key = getattr(function, "__name__", None)
            objects[key if key and key != "<lambda>" else layer.name] = function
        stack.extend(layer.tracked_layers())
        stack.extend(getattr(layer, "layers", None) or [])
    compiled = getattr(model, "compiled_loss", None)
    for loss in getattr(compiled, "losses", None) or []:
        fn = getattr(loss, "fn", None)
        if callable(fn) and getattr(fn, "__name__", None) and not _is_own(fn):
            objects.setdefault(fn.__name__, fn)
    return objects


def _import(reference):
    """The object ``"module:qualname"`` names, imported (a module must be importable)."""
    module_name, _, qualname = reference.partition(":")
    parts = qualname.split(".")
    if not all(part.isidentifier() for part in module_name.split(".") + parts):
        raise ValueError(f"{reference!r} is not a 'module:qualname' reference")
    found = importlib.import_module(module_name)
    for part in parts:
        found = getattr(found, part)
    return found


def import_reference(obj, name, model_name):
    """``"module:qualname"`` by which another process imports ``obj`` (the custom object
    configs call ``name``). Raises ``pickle.PicklingError`` when that name does not lead
    back to ``obj`` (a lambda, a function or class defined inside a function, a
    ``functools.partial``): such objects could only travel as code, which lamina never
    pickles."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    reference = f"{module}:{qualname}"
    try:
        importable = bool(module and qualname) and _import(reference) is obj
    except (ImportError, AttributeError, ValueError):
        importable = False
    if not importable:
        raise pickle.PicklingError(
            f"cannot pickle model '{model_name}': its custom object {name!r} ({obj!r}) is "
            "not importable by name, and lamina pickles custom objects only by their "
            "import name, never as code: define it at the top level of an importable "
            "module")
    return reference


def resolve_references(references):
    """``{name: object}`` from ``{name: "module:qualname"}`` (:func:`import_reference`):
    each module is imported by name (it must be importable in this process; nothing is
    evaluated). Raises ``pickle.UnpicklingError`` naming the object and the module."""
    if not isinstance(references, dict):
        raise pickle.UnpicklingError(f"custom object references must be a dict, got "
                                     f"{type(references).__name__}")
    objects = {}
    for name, reference in references.items():
        if not isinstance(reference, str):
            raise pickle.UnpicklingError(f"the custom object {name!r} is pickled as "
                                         f"{type(reference).__name__}, not as a "
                                         "'module:qualname' reference")
        try:
            found = _import(reference)
        except (ImportError, AttributeError, ValueError) as error:
            raise pickle.UnpicklingError(
                f"cannot rebuild the pickled model: its custom object {name!r} is "
                f"{reference!r}, which this process cannot import ({type(error).__name__}: "
                f"{error}); make module {reference.partition(':')[0]!r} importable here "
                "(sys.path / PYTHONPATH)") from error
        if not callable(found):
            raise pickle.UnpicklingError(f"the custom object {name!r} ({reference!r}) is "
                                         f"not a class or function: {found!r}")
        objects[name] = found
    return objects


def pickled_state(model):
    """``(HDF5 bytes, {name: "module:qualname"})``: all a pickle of ``model`` holds."""
    references = {name: import_reference(obj, name, model.name)
                  for name, obj in custom_objects_of(model).items()}
    return to_bytes(model), references


def rebuild(data, references):
    """Unpickling entry point of :meth:`Model.__reduce__`: the model from its HDF5 bytes,
    custom objects imported by name (:func:`resolve_references`)."""
    return load_model(data, custom_objects=resolve_references(references))


def reduce_model(model):
    """``Model.__reduce__``: the model travels as in-memory HDF5 bytes, its custom objects
    as ``"module:qualname"`` strings (no class, function or code in the pickle)."""
    return rebuild, pickled_state(model)


def deepcopy_model(model):
    """``Model.__deepcopy__``: a save/load round trip in memory."""
    return load_model(to_bytes(model), custom_objects=custom_objects_of(model))


__all__ = ["CheckpointError", "CheckpointNotFoundError", "ConfigError", "CorruptFileError",
           "MissingConfigError", "NotHDF5Error", "TruncatedFileError", "UnknownClassError",
           "UnsupportedFormatError", "WeightMismatchError", "deepcopy_model",
           "import_reference", "load_model", "pickled_state", "read_source", "rebuild",
           "reduce_model", "resolve_references", "restore_from_checkpoint", "save_model",
           "to_bytes", "training_config"]
