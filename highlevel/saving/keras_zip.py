"""Keras 3's ``.keras`` format: ``model.save("m.keras")``, ``load_model("m.keras")``,
``load_weights("m.keras")``.

A zip archive (see :mod:`keras_archive` for how it is read safely) of three members, plus
the assets of layers that have them::

    metadata.json     {"keras_version", "date_saved", "lamina": {...}}
    config.json       the model's Keras 3 serialization (keras_serialization):
                      module, class_name, config, registered_name, build_config,
                      compile_config
    model.weights.h5  Keras 3's weights layout (layers/<key>/vars/<i>, optimizer/vars),
                      the same file ``save_weights("m.weights.h5")`` writes
    assets/<path>/... what each layer's ``save_assets`` wrote (keras_assets): the
                      vocabulary.txt of lookups and TextVectorization adapted or given
                      a vocabulary file, whose config.json then has ``vocabulary: null``
                      as Keras writes it

lamina's ``metadata.json`` has a ``lamina`` entry Keras ignores: the format version, the
lamina version, the random seed (a resumed ``fit`` repeats the original run) and the
sha256 of ``config.json``, of ``model.weights.h5`` and of every asset, verified on load
(the weights file also carries lamina's per-dataset checksums). Files of an older lamina
(a vocabulary in config.json, no assets) load as before. The inner weights file goes through the same
guarded HDF5 reader as any other (``h5io.open_h5`` + ``inspect_file``). Files Keras wrote
have no ``lamina`` entry and are read without the checksums.
"""

import datetime
import json
import warnings

from ...backends import state
from ...layers.preprocessing.lookup import vocabulary_as_asset
from . import h5io as integrity
from . import (keras_archive, keras_assets, keras_format, keras_serialization, model_config,
               model_file, optimizer_state, weights_file as weights_files)
from .errors import CorruptFileError, UnsupportedFormatError, describe
from .object_registration import CustomObjectScope

FORMAT_VERSION = 1
LAMINA_KEY = "lamina"
is_keras_zip = keras_archive.is_keras_zip


# ---------------------------------------------------------------------------- writing
def archive_members(model, include_optimizer=True):
    """``[(name, bytes)]`` of the ``.keras`` archive of ``model``."""
    with vocabulary_as_asset():
        config_text = model_config.to_json(keras_serialization.model_document(
            model, include_optimizer)).encode("utf-8")
    with integrity.h5_bytes_writer() as (handle, result):
        weights_files.write_weights_file(handle, model, include_optimizer)
    weights = result.data
    assets = keras_assets.asset_members(model)
    metadata = {
        "keras_version": keras_format.KERAS_SCHEMA_VERSION,
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
        LAMINA_KEY: {"format_version": FORMAT_VERSION,
                     "lamina_version": weights_files.lamina_version(),
                     "random_seed": int(state.seed_or_random()),
                     "sha256": {name: integrity.bytes_checksum(data) for name, data in
                                [(keras_archive.CONFIG, config_text),
                                 (keras_archive.WEIGHTS, weights), *assets]}}}
    return [(keras_archive.METADATA, json.dumps(metadata).encode("utf-8")),
            (keras_archive.CONFIG, config_text), (keras_archive.WEIGHTS, weights), *assets]


def save_model(model, filepath, overwrite=True, include_optimizer=True):
    """``model.save("m.keras")``: the archive, written atomically."""
    if not model.built:
        warnings.warn(f"saving model '{model.name}', which has not been built yet: it has "
                      "no weights to save", stacklevel=3)
    keras_archive.write_archive(filepath, archive_members(model, include_optimizer),
                                overwrite)


def to_bytes(model, include_optimizer=True):
    """The bytes of the ``.keras`` archive ``model.save`` would write."""
    return keras_archive.archive_bytes(archive_members(model, include_optimizer))


# ---------------------------------------------------------------------------- reading
class KerasFile:
    """A ``.keras`` archive read and verified: ``document`` (config.json), ``lamina``
    (whether lamina wrote it), ``seed``, ``content`` (``{path: FileVars}`` of the weights),
    ``opened`` (the closed inner weights file, for messages) and ``assets`` (``{member
    name: bytes}``)."""

    def __init__(self, source, document, lamina, seed, content, opened, assets=None):
        self.source, self.document, self.lamina, self.seed = source, document, lamina, seed
        self.content, self.opened, self.assets = content, opened, assets or {}


def _parse(data, path, member):
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise CorruptFileError(f"{describe(path)}: {member} is not valid JSON ({error})",
                               path) from None
    if not isinstance(value, dict):
        raise CorruptFileError(f"{describe(path)}: {member} is not a JSON object", path)
    return value


def _lamina_entry(members, path):
    """The verified ``lamina`` entry of metadata.json (None for files Keras wrote)."""
    if keras_archive.METADATA not in members:
        return None
    entry = _parse(members[keras_archive.METADATA], path, keras_archive.METADATA).get(
        LAMINA_KEY)
    if entry is None:
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), dict):
        raise CorruptFileError(f"{describe(path)}: the lamina entry of metadata.json is "
                               "damaged", path)
    version = entry.get("format_version")
    if not isinstance(version, int) or not 1 <= version <= FORMAT_VERSION:
        raise UnsupportedFormatError(f"{describe(path)} has lamina .keras format version "
                                     f"{version!r}; this lamina reads versions 1 to "
                                     f"{FORMAT_VERSION}", path)
    for member in set(members) - {keras_archive.METADATA} | set(entry["sha256"]):
        if member not in members:
            raise CorruptFileError(f"{describe(path)}: member {member[:120]!r} is missing: "
                                   "the file is corrupted", path)
        if entry["sha256"].get(member) != integrity.bytes_checksum(members[member]):
            raise CorruptFileError(f"{describe(path)}: the checksum of {member[:120]!r} "
                                   "does not match: the file is corrupted", path)
    seed = entry.get("random_seed")
    if seed is not None and not (isinstance(seed, int) and 0 <= seed < 2**63):
        raise CorruptFileError(f"{describe(path)}: random_seed {seed!r} is not an integer "
                               "from 0 to 2**63 - 1", path)
    entry["random_seed"] = seed
    return entry


def _open_inner(members, path):
    return integrity.open_h5(members[keras_archive.WEIGHTS], label=path)


def open_weights(source):
    """The archive's ``model.weights.h5`` opened through the guarded HDF5 reader (for
    ``load_weights("m.keras")``)."""
    members, path = keras_archive.read_archive(source)
    _lamina_entry(members, path)
    return _open_inner(members, path)


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    """``model.load_weights("m.keras")``: the weights (and optimizer state) of the
    archive's ``model.weights.h5``, as :func:`weights_file.load_weights` reads them."""
    return weights_files.load_weights(model, filepath, by_name, skip_mismatch,
                                      opener=open_weights)


def read_keras_file(source):
    """Read and verify a ``.keras`` archive into a :class:`KerasFile`."""
    members, path = keras_archive.read_archive(source)
    lamina = _lamina_entry(members, path)
    document = _parse(members[keras_archive.CONFIG], path, keras_archive.CONFIG)
    opened = _open_inner(members, path)
    try:
        layout, content = integrity.guarded(
            opened, lambda: weights_files.read_weights_content(opened), "the weights")
    finally:
        opened.close()
    if layout != "keras3":
        raise CorruptFileError(f"{describe(path)}: {keras_archive.WEIGHTS} is not in Keras "
                               "3's weights layout", path)
    assets = {name: data for name, data in members.items() if keras_archive.is_asset(name)}
    return KerasFile(path, document, lamina is not None,
                     None if lamina is None else lamina["random_seed"], content, opened,
                     assets)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """A model from a ``.keras`` archive (lamina's or Keras'): rebuilt from config.json,
    its weights assigned, compiled with its optimizer state when ``compile``."""
    with CustomObjectScope(custom_objects or {}):     # as model_file.load_model
        return _load_model(filepath, custom_objects, compile, safe_mode)


def _load_model(filepath, custom_objects, compile, safe_mode):
    found = read_keras_file(filepath)
    stored = sum(int(a.size) for item in found.content.values() for a in item.arrays)
    model = keras_serialization.load_model_document(
        found.document, custom_objects, compile=False, safe_mode=safe_mode,
        source=found.source, from_keras=not found.lamina,
        max_weight_values=stored + model_file.CONFIG_SLACK_VALUES)
    plan, _ = weights_files.plan_layout(model, found.content, found.opened)
    weights_files.apply_plan(plan)
    keras_assets.load_named_variables(model, found.content, found.opened.name, found.source)
    keras_assets.load_assets(model, found.assets, found.source)
    compiled = found.document.get("compile_config")
    if compile and isinstance(compiled, dict) and compiled:     # Keras: {} uncompiled
        model_file.compile_from_config(model, compiled, custom_objects, found.source)
        optimizer_plan = optimizer_state.plan_from_layout(
            model, found.content.get("optimizer"), f"{found.opened.name} optimizer/vars")
        if optimizer_plan is not None:
            optimizer_state.apply(model, optimizer_plan)
        model_file.adopt_seed(found.seed)
    return model


__all__ = ["FORMAT_VERSION", "KerasFile", "archive_members", "is_keras_zip", "load_model",
           "load_weights", "open_weights", "read_keras_file", "save_model", "to_bytes"]
