"""``lamina.saving``'s functions with Keras 3's signatures (``keras.saving.save_model``,
``load_model``, ``save_weights``, ``load_weights``), over the formats of this package."""

from . import model_file, weights_file


def save_model(model, filepath, overwrite=True, zipped=None, include_optimizer=True):
    """``model.save(filepath)``: a ``.keras`` archive for a ``.keras`` path, the legacy
    HDF5 layout otherwise. ``zipped=False`` (Keras' unzipped folder) is not supported."""
    if zipped is False:
        raise ValueError("save_model(zipped=False) writes an unzipped folder, which lamina "
                         "does not support: save to a '.keras' or '.h5' path")
    model_file.save_model(model, filepath, overwrite=overwrite,
                          include_optimizer=include_optimizer)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """A model saved by ``save_model`` / ``model.save`` (or by Keras): ``.keras`` or
    ``.h5``; see :func:`model_file.load_model`."""
    return model_file.load_model(filepath, custom_objects=custom_objects, compile=compile,
                                 safe_mode=safe_mode)


def save_weights(model, filepath, overwrite=True):
    """``model.save_weights(filepath)``."""
    weights_file.save_weights(model, filepath, overwrite=overwrite)


def load_weights(model, filepath, skip_mismatch=False, by_name=False):
    """``model.load_weights(filepath)`` from ``.weights.h5``, ``.h5`` or ``.keras``."""
    return weights_file.load_weights(model, filepath, by_name=by_name,
                                     skip_mismatch=skip_mismatch)


__all__ = ["load_model", "load_weights", "save_model", "save_weights"]
