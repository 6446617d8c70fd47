"""A layer's state that is neither a weight nor config, saved as Keras 3 saves it.

* **Assets** (``.keras`` archives only): Keras calls ``layer.save_assets(dir_path)`` with a
  folder of its own per saveable and zips what it wrote as
  ``assets/<saveable path>/<file>``, the path being the one of the saveable's ``vars``
  group (``assets/layers/text_vectorization/vocabulary.txt``,
  ``assets/layers/text_vectorization/_lookup_layer/vocabulary.txt``); loading calls
  ``layer.load_assets(dir_path)`` on the same folder. lamina's lookups and
  TextVectorization write their learned vocabulary there, exactly as Keras.
* **Named variables** (``.keras`` and ``.weights.h5``): ``layer.save_own_variables(store)``
  puts arrays in a dict under names, written beside the numbered variables of the
  saveable's ``vars`` group (Keras' ``idf_weights`` of a tf_idf lookup, which are not
  weights); ``layer.load_own_variables(store)`` gets them back, before ``load_assets``.

Asset members are checked before anything is written to disk: each must lie in the
asset folder of a saveable of the model that has ``load_assets`` (any other is refused),
names were already checked against path traversal by :mod:`keras_archive`, sizes are
bounded there, and the folder they are extracted to is a fresh temporary one.
"""

import os
import tempfile

import numpy as np

from . import keras_format as keras_files
from .errors import CorruptFileError, UnsupportedFormatError, describe

ASSETS = "assets"                      # the archive folder of every asset member


# ---------------------------------------------------------------------------- named variables
def named_variables(saveable):
    """``{name: array}`` a saveable's ``save_own_variables`` stores (``{}`` without one)."""
    if not hasattr(saveable, "save_own_variables"):
        return {}
    store = {}
    saveable.save_own_variables(store)
    for key in store:
        if not isinstance(key, str) or not key or key.isdigit() or "/" in key:
            raise ValueError(f"layer '{saveable.name}': save_own_variables stored the key "
                             f"{key!r}; a name other than a number is needed")
    return {key: np.asarray(value) for key, value in sorted(store.items())}


def split_keys(keys):
    """``(numbered keys in order, named keys sorted)`` of a ``vars`` group."""
    numbered = sorted((key for key in keys if key.isdigit()), key=int)
    return numbered, sorted(key for key in keys if not key.isdigit())


def load_named_variables(model, content, label, path=None):
    """Give every saveable of ``model`` that has ``load_own_variables`` the named arrays
    of its ``vars`` group in ``content`` (``{path: FileVars}`` of the file ``label``)."""
    for entry in keras_files.weights_layout_entries(model):
        found = content.get(entry.path)
        if found is None or not found.named or not hasattr(entry.saveable,
                                                           "load_own_variables"):
            continue
        try:
            entry.saveable.load_own_variables(dict(found.named))
        except ValueError as error:
            raise CorruptFileError(f"{label}: {entry.path}/vars cannot be loaded: {error}",
                                   path) from None


# ---------------------------------------------------------------------------- assets
def _folder(root, path):
    return os.path.join(root, *path.split("/")) if path else root


def _asset_dir(path):
    return f"{ASSETS}/{path}" if path else ASSETS


def asset_members(model):
    """``[(member name, bytes)]`` of every file the model's saveables' ``save_assets``
    write, in the order of Keras' walk."""
    members = []
    with tempfile.TemporaryDirectory(prefix="lamina-assets-") as root:
        for entry in keras_files.weights_layout_entries(model):
            if not hasattr(entry.saveable, "save_assets"):
                continue
            folder = _folder(root, entry.path)
            os.makedirs(folder, exist_ok=True)
            before = set(_files(root))
            entry.saveable.save_assets(folder)
            for relative in sorted(set(_files(root)) - before):
                with open(os.path.join(root, relative), "rb") as handle:
                    members.append((f"{ASSETS}/{relative}", handle.read()))
    return members


def _files(root):
    for folder, _, names in os.walk(root):
        for name in names:
            yield os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")


def load_assets(model, assets, source):
    """Hand ``assets`` (``{member name: bytes}``, every name under ``assets/``) to the
    ``load_assets`` of the saveables they belong to. A member outside every such
    saveable's folder raises :class:`UnsupportedFormatError`; a saveable with no member
    keeps the state its config gave it (a vocabulary in the config, or a file of an older
    lamina); an asset a layer cannot read raises :class:`CorruptFileError` naming it."""
    readers = [entry for entry in keras_files.weights_layout_entries(model)
               if hasattr(entry.saveable, "load_assets")]
    files = {name: data for name, data in assets.items() if not name.endswith("/")}
    for name in files:
        if not any(name.startswith(_asset_dir(e.path) + "/") for e in readers):
            raise UnsupportedFormatError(
                f"{describe(source)}: archive member {name[:120]!r} is not in the assets "
                f"folder of any layer of model '{model.name}' that has assets "
                f"({sorted(_asset_dir(e.path) + '/' for e in readers)})", source)
    if not files:
        return
    with tempfile.TemporaryDirectory(prefix="lamina-assets-") as root:
        real_root = os.path.realpath(root)
        for name, data in files.items():
            target = os.path.realpath(_folder(root, name[len(ASSETS) + 1:]))
            if os.path.commonpath([real_root, target]) != real_root:
                raise CorruptFileError(f"{describe(source)}: archive member {name!r} leaves "
                                       "the assets folder; refused", source)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(data)
        for entry in readers:
            prefix = _asset_dir(entry.path) + "/"
            if not any(name.startswith(prefix) for name in files):
                continue
            try:
                entry.saveable.load_assets(_folder(root, entry.path))
            except (ValueError, OSError) as error:
                own = sorted(n for n in files if n.startswith(prefix) and
                             "/" not in n[len(prefix):]) or sorted(
                    n for n in files if n.startswith(prefix))
                raise CorruptFileError(f"{describe(source)}: archive member "
                                       f"{', '.join(own)} cannot be loaded into layer "
                                       f"'{entry.saveable.name}': {error}", source) from None


__all__ = ["ASSETS", "asset_members", "load_assets", "load_named_variables",
           "named_variables", "split_keys"]
