"""``lamina.saving``'s functions with Keras 3's signatures (``keras.saving.save_model``,
``load_model``, ``save_weights``, ``load_weights``), over the formats of this package.

This module chooses the format by the file's kind: a ``.keras`` path or a zip archive goes
to :mod:`keras_zip`, anything else to the HDF5 modules :mod:`model_file` and
:mod:`weights_file` (which ``keras_zip`` builds on, so they never import it)."""

import os

from . import keras_zip, model_file, weights_file


def save_model(model, filepath, overwrite=True, zipped=None, include_optimizer=True):
    """``model.save(filepath)``: a ``.keras`` archive for a ``.keras`` path, the legacy
    HDF5 layout otherwise. ``zipped=False`` (Keras' unzipped folder) is not supported."""
    if zipped is False:
        raise ValueError("save_model(zipped=False) writes an unzipped folder, which lamina "
                         "does not support: save to a '.keras' or '.h5' path")
    writer = keras_zip if str(os.fspath(filepath)).endswith(".keras") else model_file
    writer.save_model(model, filepath, overwrite=overwrite,
                      include_optimizer=include_optimizer)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Rebuild a model saved by ``model.save`` (or by Keras' ``model.save``).

    Args:
        filepath: path of a ``.keras`` or ``.h5`` file (or the bytes of one); a zip
            archive is read as ``.keras`` (:mod:`keras_zip`), anything else as HDF5
            (:mod:`model_file`).
        custom_objects: ``{name: class or function}`` for custom layers, models, losses,
            metrics and Lambda functions.
        compile: compile the model with the stored training config and restore the
            optimizer state (iteration counter and slots).
        safe_mode: refuse Lambda layers whose function is stored as code (Keras'
            ``__lambda__``), as Keras does; lamina never evaluates stored code either way.
    Raises:
        One of the :mod:`errors` (``lamina.saving.CheckpointError`` and its subclasses),
        naming the file (and the layer).
    """
    reader = keras_zip if keras_zip.is_keras_zip(filepath) else model_file
    return reader.load_model(filepath, custom_objects, compile, safe_mode)


def from_bytes(data, custom_objects=None, compile=True):
    """A model from bytes made by ``model.to_bytes()`` (an in-memory HDF5 file; the bytes
    of a ``.keras`` archive load too)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"from_bytes expects bytes, got {type(data).__name__}")
    return load_model(bytes(data), custom_objects=custom_objects, compile=compile)


def save_weights(model, filepath, overwrite=True):
    """``model.save_weights(filepath)``."""
    weights_file.save_weights(model, filepath, overwrite=overwrite)


def load_weights(model, filepath, skip_mismatch=False, by_name=False):
    """``model.load_weights(filepath)`` from ``.weights.h5``, ``.h5`` or ``.keras``."""
    reader = keras_zip if keras_zip.is_keras_zip(filepath) else weights_file
    return reader.load_weights(model, filepath, by_name=by_name, skip_mismatch=skip_mismatch)


__all__ = ["from_bytes", "load_model", "load_weights", "save_model", "save_weights"]
