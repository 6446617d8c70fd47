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


#: ``keras.saving.load_model``: the same function as ``lamina.load_model`` (``.keras`` or
#: ``.h5``; see :func:`model_file.load_model`).
load_model = model_file.load_model


def save_weights(model, filepath, overwrite=True):
    """``model.save_weights(filepath)``."""
    weights_file.save_weights(model, filepath, overwrite=overwrite)


def load_weights(model, filepath, skip_mismatch=False, by_name=False):
    """``model.load_weights(filepath)`` from ``.weights.h5``, ``.h5`` or ``.keras``."""
    return weights_file.load_weights(model, filepath, by_name=by_name,
                                     skip_mismatch=skip_mismatch)


__all__ = ["load_model", "load_weights", "save_model", "save_weights"]
