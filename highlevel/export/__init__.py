"""``model.export``: write a model for serving (ONNX), or as ``save`` does (``.h5``/``.keras``)."""

EXPORT_FORMATS = ("onnx", "h5", "keras")


def export_model(model, filepath, format="onnx", verbose=True, input_signature=None,
                 **kwargs):
    """Write ``model`` to ``filepath`` in ``format``.

    ``"onnx"``: an ONNX graph of the model in inference mode (needs the ``[onnx]`` extra;
    keyword arguments go to :func:`lamina.highlevel.export.onnx.export_onnx`).
    ``"h5"``/``"keras"``: ``model.save(filepath)``. Keras' ``"tf_saved_model"`` and
    ``"openvino"`` need TensorFlow/OpenVINO and raise ``ValueError``.
    """
    if format == "onnx":
        from .onnx import export_onnx
        return export_onnx(model, filepath, verbose=verbose, input_signature=input_signature,
                           **kwargs)
    if format in ("h5", "keras"):
        if kwargs or input_signature is not None:
            raise ValueError(f"export(format={format!r}) takes no other arguments, got "
                             f"{sorted(kwargs) + (['input_signature'] if input_signature is not None else [])}")
        return model.save(filepath)
    raise ValueError(f"export: format must be one of {list(EXPORT_FORMATS)}, got {format!r}")


__all__ = ["EXPORT_FORMATS", "export_model"]
