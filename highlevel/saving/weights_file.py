"""``save_weights`` / ``load_weights`` in both of Keras' HDF5 weight layouts.

* Legacy layout (any path not ending in ``.weights.h5``, and the ``model_weights`` group of
  a full-model ``.h5``): attribute ``layer_names``; one group per layer with attribute
  ``weight_names`` listing its datasets in order (trainable, then non-trainable).
* Keras 3 layout (``.weights.h5``): ``layers/<key>/vars/<i>`` per layer and nested
  sublayer (``<key>`` is the snake-cased class name plus a counter), ``vars`` groups carry
  the saveable's ``name``; ``optimizer/vars/<i>`` holds the optimizer state.

Loading reads and checks everything first (counts, shapes, checksums of lamina files),
builds a list of assignments, and only then assigns: a failed load leaves the model
unchanged. ``load_weights`` detects the layout from the file's contents. With
``by_name=True`` or ``skip_mismatch=True`` it returns (and logs) a :class:`LoadReport`; a
load that would set no weight at all raises :class:`WeightMismatchError`.
"""

import importlib.metadata
import logging

import numpy as np

from . import h5io as integrity
from . import keras_assets, keras_format as keras_files
from .errors import CorruptFileError, UnsupportedFormatError, WeightMismatchError, describe

logger = logging.getLogger("lamina.saving")

FORMAT_VERSION = 1                       # lamina's file format version (root attribute)
FORMAT_ATTR = "lamina_format_version"
LAMINA_BACKEND = "lamina"


# ---------------------------------------------------------------------------- reports
class LoadReport:
    """What a ``load_weights`` call did: ``loaded`` (``"layer/weight"`` strings),
    ``skipped`` and ``mismatched`` (``(what, reason)`` pairs)."""

    def __init__(self, path):
        self.path = path
        self.loaded = []
        self.skipped = []
        self.mismatched = []

    def __repr__(self):
        return (f"<LoadReport {describe(self.path)}: {len(self.loaded)} weights loaded, "
                f"{len(self.skipped)} skipped, {len(self.mismatched)} mismatched>")

    def summary(self):
        """A multi-line, human-readable account of the load."""
        lines = [repr(self)]
        lines += [f"  skipped {what}: {why}" for what, why in self.skipped]
        lines += [f"  mismatched {what}: {why}" for what, why in self.mismatched]
        return "\n".join(lines)


# ---------------------------------------------------------------------------- writing
def is_weights_layout_path(path):
    return str(path).endswith(".weights.h5")


def check_not_keras_zip(path):
    """save_weights refuses ``.keras`` paths, as Keras does: that archive holds a whole
    model (``model.save``)."""
    if str(path).endswith(".keras"):
        raise UnsupportedFormatError(
            f"{describe(path)}: save_weights writes weights files ('m.weights.h5', or a "
            "legacy '.h5'); a .keras archive holds the whole model: use model.save", path)


def lamina_version():
    """The installed lamina version (from the package metadata, not the root package)."""
    try:
        return importlib.metadata.version("lamina")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def write_root_attrs(handle):
    integrity.write_text_attr(handle, "keras_version", keras_files.KERAS_SCHEMA_VERSION)
    integrity.write_text_attr(handle, "backend", LAMINA_BACKEND)
    handle.attrs[FORMAT_ATTR] = np.int64(FORMAT_VERSION)
    integrity.write_text_attr(handle, "lamina_version", lamina_version())


def check_group_names(model, layers):
    """Raise ValueError, naming the layer, for layer names the legacy layout cannot store as
    group names: ``.`` / ``..``, names with a NUL character (HDF5 cuts them there), names
    over ``NAME_LIMIT`` bytes, two layers of one name, and the reserved
    ``top_level_model_weights``."""
    seen = set()
    for layer in layers:
        name = layer.name
        problem = None
        if name in (".", "..") or "\0" in name:
            problem = "is not a valid HDF5 group name"
        elif len(name.encode("utf-8")) > integrity.NAME_LIMIT:
            problem = (f"is {len(name.encode('utf-8'))} bytes long; HDF5 files (and Keras) "
                       f"store names of at most {integrity.NAME_LIMIT} bytes")
        elif name == "top_level_model_weights":
            problem = "is reserved for the model's own weights in the file"
        elif name in seen:
            problem = "is used by two layers; layer names must be unique within a model"
        if problem is not None:
            raise ValueError(f"cannot save model '{model.name}': layer name "
                             f"{name[:60]!r}{'...' if len(name) > 60 else ''} {problem}; "
                             "rename the layer (name=...)")
        seen.add(name)


def write_legacy_weights(group, model):
    """Write ``model``'s weights in the legacy layout into ``group``; returns the layout
    structure (names) that the layout checksum covers."""
    layers = model.layers
    check_group_names(model, layers)
    integrity.write_name_list(group, "layer_names", [layer.name for layer in layers])
    integrity.write_text_attr(group, "backend", LAMINA_BACKEND)
    integrity.write_text_attr(group, "keras_version", keras_files.KERAS_SCHEMA_VERSION)
    structure = []
    for layer in sorted(layers, key=lambda item: item.name):
        sub = group.create_group(layer.name)
        weights = keras_files.legacy_weights(layer)
        names = keras_files.legacy_weight_names(model, layer)
        integrity.write_name_list(sub, "weight_names", names)
        for name, weight in zip(names, weights):
            integrity.write_array(sub, name, weight.numpy())
        structure.append([layer.name, names])
    top = group.create_group("top_level_model_weights")
    own = keras_files.own_variables(model)
    own_names = [f"{model.name}/{weight.name}" for weight in own]
    integrity.write_name_list(top, "weight_names", own_names)
    for name, weight in zip(own_names, own):
        integrity.write_array(top, name, weight.numpy())
    return [[layer.name for layer in layers], structure, own_names]


def write_layout_weights(handle, model, optimizer_values=None, inner_values=None):
    """Write ``model`` in Keras 3's weights layout (plus ``optimizer/vars`` when
    ``optimizer_values`` is given, and ``optimizer/inner_optimizer/vars`` for a
    LossScaleOptimizer's ``inner_values``, which Keras writes there too); returns the
    structure the layout checksum covers."""
    structure = []
    for entry in keras_files.weights_layout_entries(model):
        path = f"{entry.path}/vars" if entry.path else "vars"
        group = handle.require_group(path)
        integrity.write_text_attr(group, "name", entry.name)
        for index, variable in enumerate(entry.variables):
            integrity.write_array(group, str(index), variable.numpy())
        named = keras_assets.named_variables(entry.saveable)
        for key, value in named.items():
            integrity.write_array(group, key, value)
        structure.append([path, entry.name, len(entry.variables) + len(named)])
    groups = [("optimizer/vars", optimizer_values),
              ("optimizer/inner_optimizer/vars", inner_values)]
    for path, named_values in groups:
        if named_values is None:
            continue
        name, values = named_values
        group = handle.require_group(path)
        integrity.write_text_attr(group, "name", name)
        for index, value in enumerate(values):
            integrity.write_array(group, str(index), value)
        structure.append([path, name, len(values)])
    return sorted(structure)


def save_weights(model, filepath, overwrite=True):
    """``model.save_weights(filepath)``: Keras 3's layout for ``*.weights.h5``, the legacy
    layout otherwise; written atomically, with checksums."""
    check_not_keras_zip(filepath)
    if not model.built:
        raise ValueError(f"model '{model.name}' has no weights yet: build it (call it on "
                         "data, or give it an Input) before save_weights")
    with integrity.h5_writer(filepath, overwrite) as handle:
        if is_weights_layout_path(filepath):
            write_weights_file(handle, model)
        else:
            write_root_attrs(handle)
            structure = write_legacy_weights(handle, model)
            integrity.write_text_attr(handle, integrity.CHECKSUMS_ATTR,
                                      integrity.checksums_attr({"weights_layout": structure}))


def write_weights_file(handle, model, include_optimizer=True):
    """A whole Keras 3 weights-layout file (``.weights.h5``, or ``model.weights.h5``
    inside a ``.keras`` archive) into the open ``handle``: root attributes, every
    ``vars`` group, the optimizer state of a compiled model, and the layout checksum."""
    from . import optimizer_state
    write_root_attrs(handle)
    values = inner_values = None
    if include_optimizer and getattr(model, "optimizer", None) is not None and \
            model.compiled:
        named = optimizer_state.optimizer_values(model)
        values = (model.optimizer.name, [v for _, v in named])
        inner = getattr(model.optimizer, "inner_optimizer", None)
        if inner is not None:
            inner_values = (inner.name, [v for n, v in named
                                         if n.startswith(f"{inner.name}/")])
    structure = write_layout_weights(handle, model, values, inner_values)
    integrity.write_text_attr(handle, integrity.CHECKSUMS_ATTR, integrity.checksums_attr(
        {"weights_layout": structure}))


# ---------------------------------------------------------------------------- reading
class FileLayer:
    """A layer group of a legacy-layout file, read into memory."""

    __slots__ = ("name", "weight_names", "arrays")

    def __init__(self, name, weight_names, arrays):
        self.name, self.weight_names, self.arrays = name, weight_names, arrays


def _read_file_layer(opened, group, name, verify):
    sub = group[name]
    weight_names = integrity.read_name_list(opened, sub, "weight_names")
    arrays = []
    for weight_name in weight_names:
        if weight_name not in sub:
            raise CorruptFileError(f"{opened.name}: layer '{name}' lists weight "
                                   f"'{weight_name}' but has no such dataset", opened.path)
        arrays.append(integrity.read_array(opened, sub[weight_name],
                                           f"layer '{name}' weight '{weight_name}'", verify))
    return FileLayer(name, weight_names, arrays)


def read_legacy_layers(opened, group, verify):
    """``(layers, top, structure)`` of a legacy-layout group: a :class:`FileLayer` per
    entry of ``layer_names``, the model's own weights (``top_level_model_weights``, or
    None), every array read and checked; and the structure its layout checksum covers."""
    layer_names = integrity.read_name_list(opened, group, "layer_names")
    layers, structure = [], []
    for name in layer_names:
        if name not in group:
            raise CorruptFileError(f"{opened.name}: layer_names lists '{name}' but the file "
                                   "has no group for it", opened.path)
        layer = _read_file_layer(opened, group, name, verify)
        layers.append(layer)
        structure.append([name, layer.weight_names])
    top = None
    if "top_level_model_weights" in group:
        top = _read_file_layer(opened, group, "top_level_model_weights", verify)
    return layers, top, [layer_names, sorted(structure),
                         [] if top is None else top.weight_names]


class FileVars:
    """A ``vars`` group of a Keras 3 weights-layout file, read into memory: the numbered
    ``arrays`` and the ``named`` ones (``{key: array}``, Keras' ``idf_weights``)."""

    __slots__ = ("path", "name", "arrays", "named")

    def __init__(self, path, name, arrays, named=None):
        self.path, self.name, self.arrays, self.named = path, name, arrays, named or {}


def read_layout_vars(opened, verify):
    """``{path: FileVars}`` for every ``vars`` group (path without ``/vars``), plus the
    structure the layout checksum covers."""
    found = []

    def visit(name, obj):
        if name.split("/")[-1] == "vars" and hasattr(obj, "keys"):
            found.append(name)

    opened.handle.visititems(visit)
    result, structure = {}, []
    for group_path in sorted(found):
        group = opened.handle[group_path]
        keys, named = keras_assets.split_keys(list(group.keys()))
        if keys != [str(i) for i in range(len(keys))]:
            raise CorruptFileError(f"{opened.name}: {group_path} has gaps in its variable "
                                   f"indices {keys}", opened.path)
        name = integrity.read_text_attr(opened, group, "name") or ""
        arrays = [integrity.read_array(opened, group[key], f"{group_path}/{key}", verify)
                  for key in keys]
        named = {key: integrity.read_array(opened, group[key], f"{group_path}/{key}", verify)
                 for key in named}
        path = group_path[:-len("/vars")] if group_path.endswith("/vars") else ""
        result[path] = FileVars(path, name, arrays, named)
        structure.append([group_path, name, len(arrays) + len(named)])
    return result, structure


def detect_layout(opened):
    """``"legacy"`` (layer_names at the root), ``"model_weights"`` (a full-model file),
    ``"keras3"`` (``layers`` / ``vars`` groups); UnsupportedFormatError otherwise."""
    handle = opened.handle
    if "layer_names" in handle.attrs or "layer_names0" in handle.attrs:
        return "legacy"
    if "model_weights" in handle:
        return "model_weights"
    if "layers" in handle or "vars" in handle:
        return "keras3"
    raise UnsupportedFormatError(f"{opened.name} holds no weights lamina recognizes (no "
                                 "layer_names attribute, model_weights group or layers "
                                 "group)", opened.path)


def is_lamina_file(opened):
    """Whether lamina wrote the file (then every checksum must be present and match)."""
    version = integrity.read_int_attr(opened, opened.handle, FORMAT_ATTR)
    if version is None:
        return False
    opened.strict = True
    if version > FORMAT_VERSION or version < 1:
        raise UnsupportedFormatError(f"{opened.name} has lamina format version {version}; "
                                     f"this lamina reads versions 1 to {FORMAT_VERSION}",
                                     opened.path)
    return True


# ---------------------------------------------------------------------------- planning
def _shape_text(shape):
    return str(tuple(int(s) for s in shape))


def _mismatch(model_layer, opened, what, reason, skip_mismatch, report):
    """Record a mismatch in ``report`` when ``skip_mismatch``, else raise it."""
    if skip_mismatch:
        report.mismatched.append((model_layer.name, reason))
        return
    raise WeightMismatchError(f"{opened.name}: {what} '{model_layer.name}': {reason}",
                              opened.path)


def _plan_layer(model_layer, file_layer, opened, label, skip_mismatch, report, plan):
    """Add ``(variable, array)`` pairs for one layer to ``plan``, or record why not."""
    weights = keras_files.legacy_weights(model_layer)
    arrays = file_layer.arrays
    if len(weights) != len(arrays):
        reason = (f"layer expects {len(weights)} weights, the file has {len(arrays)} "
                  f"({label})")
        _mismatch(model_layer, opened, "weight count mismatch for layer", reason,
                  skip_mismatch, report)
        return
    for weight, array, file_name in zip(weights, arrays, file_layer.weight_names):
        what, reason = "dtype mismatch in layer", _dtype_problem(weight, array,
                                                                  f"the file's '{file_name}'")
        if reason is None and tuple(weight.shape) != tuple(array.shape):
            what = "shape mismatch in layer"
            reason = (f"weight '{weight.name}' has shape {_shape_text(weight.shape)}, the "
                      f"file's '{file_name}' has shape {_shape_text(array.shape)}")
        if reason is not None:
            _mismatch(model_layer, opened, what, reason, skip_mismatch, report)
            return
    for weight, array in zip(weights, arrays):
        plan.append((weight, array))
        report.loaded.append(f"{model_layer.name}/{weight.name}")


def _dtype_problem(weight, array, what):
    """Why ``array`` cannot be assigned to ``weight`` without losing its values (None when
    it can): a floating-point weight takes any real number; an integer or boolean weight
    (a layer whose config asks for an integer dtype, a counter) only integers/booleans."""
    kind = np.dtype(weight.dtype).kind
    if kind == "f" or (kind in "iub" and array.dtype.kind in "iub"):
        return None
    return (f"weight '{weight.name}' has dtype {np.dtype(weight.dtype).name}, {what} holds "
            f"{array.dtype.name} values that it would truncate")


def plan_legacy(model, file_layers, opened, by_name=False, skip_mismatch=False, top=None):
    """``(assignments, report)`` for loading legacy-layout ``file_layers`` (and the
    model's own weights ``top``) into ``model``."""
    report = LoadReport(opened.path)
    plan = []
    own = keras_files.own_variables(model)
    if own or (top is not None and top.arrays):
        _plan_own(model, own, top, opened, skip_mismatch, report, plan)
    model_layers = [layer for layer in model.layers if keras_files.legacy_weights(layer)]
    stored = [layer for layer in file_layers if layer.arrays]
    if by_name:
        by_layer_name = {layer.name: layer for layer in stored}
        for layer in model_layers:
            found = by_layer_name.pop(layer.name, None)
            if found is None:
                report.skipped.append((layer.name, "no layer of that name in the file"))
                continue
            _plan_layer(layer, found, opened, f"file layer '{found.name}'", skip_mismatch,
                        report, plan)
        for name in by_layer_name:
            report.skipped.append((name, "in the file, no layer of that name in the model"))
    else:
        if len(model_layers) != len(stored):
            raise WeightMismatchError(
                f"{opened.name}: layer count mismatch: model '{model.name}' has "
                f"{len(model_layers)} layers with weights "
                f"({[layer.name for layer in model_layers]}), the file has {len(stored)} "
                f"({[layer.name for layer in stored]})", opened.path)
        if sorted(layer.name for layer in model_layers) == sorted(f.name for f in stored):
            # Same names: pair by name, which equals the topological pairing whenever the
            # orders agree and stays right when parallel branches were ordered differently.
            by_layer_name = {layer.name: layer for layer in stored}
            stored = [by_layer_name[layer.name] for layer in model_layers]
        for layer, found in zip(model_layers, stored):
            _plan_layer(layer, found, opened, f"file layer '{found.name}'", skip_mismatch,
                        report, plan)
    return plan, report


def _plan_own(model, own, top, opened, skip_mismatch, report, plan):
    """The model's own (top-level) weights, e.g. ``add_weight`` in a subclassed model."""
    arrays = [] if top is None else top.arrays
    problem = None
    if len(own) != len(arrays):
        problem = (f"model '{model.name}' has {len(own)} weights of its own, the file has "
                   f"{len(arrays)}")
    else:
        bad = [(w, a) for w, a in zip(own, arrays) if tuple(w.shape) != tuple(a.shape)]
        if bad:
            problem = (f"weight '{bad[0][0].name}' has shape {_shape_text(bad[0][0].shape)}, "
                       f"the file's has shape {_shape_text(bad[0][1].shape)}")
    if problem is None:
        plan.extend(zip(own, arrays))
        report.loaded.extend(f"{model.name}/{w.name}" for w in own)
    elif skip_mismatch:
        report.mismatched.append((model.name, problem))
    else:
        raise WeightMismatchError(f"{opened.name}: top-level weights: {problem}", opened.path)


def _top_key(path):
    """The top-level saveable a ``vars`` path belongs to (``layers/dense`` or ``left``)."""
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "layers" and len(parts) > 1 else parts[0]


def _owner_groups(model):
    """``[(owner, base path, entries)]``: the model itself (its own ``vars``) when it has
    variables, then each top-level layer with every ``vars`` entry of its subtree."""
    walk = keras_files.weights_layout_entries(model)
    groups = [(model, "", walk[:1])] if walk[0].variables else []
    for entry in walk[1:]:
        if groups and groups[-1][0] is entry.owner:
            groups[-1][2].append(entry)
        else:
            groups.append((entry.owner, entry.path, [entry]))
    return groups


def _match_entries(entries, base, file_base, file_vars):
    """``(pairs, problem)``: ``(variable, array, file path)`` for every entry of one layer,
    or the reason they do not fit."""
    pairs = []
    for entry in entries:
        if not entry.variables:
            continue
        path = file_base + entry.path[len(base):]
        found = file_vars.get(path) or _by_saveable_name(file_vars, file_base, entry.name)
        if found is None:
            return None, f"no group {path}/vars in the file"
        if len(found.arrays) != len(entry.variables):
            return None, (f"{entry.path} expects {len(entry.variables)} variables, the "
                          f"file's {found.path}/vars has {len(found.arrays)}")
        for variable, array in zip(entry.variables, found.arrays):
            problem = _dtype_problem(variable, array, f"the file's {found.path}/vars")
            if problem is not None:
                return None, problem
            if tuple(variable.shape) != tuple(array.shape):
                return None, (f"weight '{variable.name}' has shape "
                              f"{_shape_text(variable.shape)}, the file's {found.path}/vars "
                              f"holds shape {_shape_text(array.shape)}")
            pairs.append((variable, array, found.path))
    return pairs, None


def plan_layout(model, file_vars, opened, by_name=False, skip_mismatch=False):
    """``(assignments, report)`` for loading Keras 3 weights-layout ``file_vars``: layers
    pair by their ``layers/<key>`` path (by the ``name`` attribute with ``by_name``, or
    when every name matches), nested ``vars`` by relative path (else by saveable name)."""
    report = LoadReport(opened.path)
    plan = []
    unused = {path: item for path, item in file_vars.items()
              if path and _top_key(path) != "optimizer" and item.arrays}
    file_top = {path: item.name for path, item in file_vars.items()
                if path and _top_key(path) == path and path != "optimizer"}
    groups = _owner_groups(model)
    layers_with_weights = [g for g in groups if g[1] and any(e.variables for e in g[2])]
    stored_top = sorted({_top_key(path) for path in unused})
    if not by_name and len(stored_top) != len(layers_with_weights):
        raise WeightMismatchError(
            f"{opened.name}: layer count mismatch: model '{model.name}' has "
            f"{len(layers_with_weights)} layers with weights, the file has "
            f"{len(stored_top)} ({stored_top})", opened.path)
    stored_names = {file_top.get(key): key for key in stored_top}
    same_names = sorted(map(str, stored_names)) == sorted(
        g[0].name for g in layers_with_weights)
    for owner, base, entries in groups:
        file_base = base
        if base and by_name:
            matches = [p for p, name in file_top.items() if name == owner.name]
            if not matches:
                if any(e.variables for e in entries):
                    report.skipped.append((owner.name, "no layer of that name in the file"))
                continue
            file_base = matches[0]
        elif base and same_names and owner.name in stored_names:
            file_base = stored_names[owner.name]       # as in plan_legacy: names decide
        pairs, problem = _match_entries(entries, base, file_base, file_vars)
        if problem is not None:
            if skip_mismatch:
                report.mismatched.append((owner.name, problem))
                continue
            raise WeightMismatchError(f"{opened.name}: layer '{owner.name}': {problem}",
                                      opened.path)
        for variable, array, path in pairs:
            plan.append((variable, array))
            unused.pop(path, None)
            report.loaded.append(f"{owner.name}/{variable.name}")
    for path in sorted(unused):
        report.skipped.append((f"{unused[path].name} ({path})",
                               "in the file, not used by the model"))
    return plan, report


def _by_saveable_name(file_vars, base, name):
    for path, item in file_vars.items():
        if path.startswith(base + "/") and item.name == name:
            return item
    return None


def apply_plan(plan):
    """Assign every ``(variable, array)`` pair (everything was checked before)."""
    for variable, array in plan:
        variable.assign(array)


def finish_report(model, plan, report, opened, by_name, skip_mismatch):
    """Raise when nothing would load; log (and return when asked) the report."""
    if not plan and any(True for _ in model.weights):
        raise WeightMismatchError(
            f"{opened.name}: no weight of model '{model.name}' would be loaded "
            f"({report.summary()})", opened.path)
    if report.skipped or report.mismatched:
        logger.warning("%s", report.summary())
    else:
        logger.info("%s", report.summary())
    return report if (by_name or skip_mismatch) else None


def read_weights_content(opened):
    """``(layout, content)``: ``("keras3", {path: FileVars})`` or
    ``("legacy" | "model_weights", [FileLayer])``, every array read and verified."""
    verify = is_lamina_file(opened)
    layout = detect_layout(opened)
    if layout == "keras3":
        content, structure = read_layout_vars(opened, verify)
        if verify:
            integrity.verify_checksums(opened, {"weights_layout": structure})
        return layout, content
    group = opened.handle if layout == "legacy" else opened.handle["model_weights"]
    layers, top, structure = read_legacy_layers(opened, group, verify)
    if verify:
        integrity.verify_checksums(opened, {"weights_layout": structure})
    return layout, (layers, top)


def load_weights(model, filepath, by_name=False, skip_mismatch=False, opener=None):
    """``model.load_weights(filepath, by_name, skip_mismatch)`` for both layouts and for
    full-model files; see the module docstring. ``opener(filepath)`` opens the HDF5 file
    (default :func:`h5io.open_h5`; :mod:`keras_zip` passes the opener of the weights
    inside a ``.keras`` archive)."""
    from . import optimizer_state
    if not model.built:
        raise ValueError(f"model '{model.name}' has no weights yet: build it (call it on "
                         "data, or give it an Input) before load_weights")
    opened = (opener or integrity.open_h5)(filepath)
    try:
        layout, content = integrity.guarded(opened, lambda: read_weights_content(opened),
                                            "the weights")
    finally:
        opened.close()
    if layout == "keras3":
        plan, report = plan_layout(model, content, opened, by_name, skip_mismatch)
        optimizer_plan = optimizer_state.plan_from_layout(model, content.get("optimizer"),
                                                          f"{opened.name} optimizer/vars")
    else:
        plan, report = plan_legacy(model, content[0], opened, by_name, skip_mismatch,
                                   top=content[1])
        optimizer_plan = None
    result = finish_report(model, plan, report, opened, by_name, skip_mismatch)
    apply_plan(plan)
    if layout == "keras3":
        keras_assets.load_named_variables(model, content, opened.name, opened.path)
    if optimizer_plan is not None:
        optimizer_state.apply(model, optimizer_plan)
    return result


__all__ = ["FORMAT_VERSION", "FileLayer", "FileVars", "LoadReport", "apply_plan",
           "detect_layout", "is_lamina_file", "load_weights", "plan_layout", "plan_legacy",
           "read_layout_vars", "read_legacy_layers", "save_weights", "write_legacy_weights",
           "write_layout_weights", "write_root_attrs", "write_weights_file"]
