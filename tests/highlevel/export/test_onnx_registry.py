"""The ONNX converter registry: registration by exact class, the errors naming a layer,
and the built-in converters registered once the exporter is imported (no ``onnx`` needed)."""

import numpy as np
import pytest

from lamina import layers as L
from lamina.highlevel.export import onnx as onnx_export
from lamina.highlevel.export import onnx_registry


def test_converts_registers_the_exact_classes(monkeypatch):
    monkeypatch.setattr(onnx_registry, "CONVERTERS", {})

    class Mine(L.Dense):
        pass

    @onnx_registry.converts(Mine, L.Dropout)
    def convert(builder, layer, inputs, shapes, node):
        return inputs

    assert onnx_registry.CONVERTERS == {Mine: convert, L.Dropout: convert}
    assert L.Dense not in onnx_registry.CONVERTERS          # exact types, no subclassing


def test_the_exporter_finds_the_registered_converters():
    for layer in (L.Dense(2), L.Conv2D(2, 3), L.LSTM(2), L.MultiHeadAttention(1, 2),
                  L.Concatenate()):
        assert onnx_export.converter_for(layer) is onnx_registry.CONVERTERS[type(layer)]


def test_a_layer_without_converter_gets_an_error_naming_it():
    class Custom(L.Layer):
        pass

    with pytest.raises(onnx_registry.ExportError, match=r"layer 'odd' \(Custom\).*no ONNX "
                                                        r"converter"):
        onnx_export.converter_for(Custom(name="odd"))
    assert issubclass(onnx_registry.ExportError, ValueError)


def test_weight_is_float32_numpy():
    dense = L.Dense(2)
    dense.build((None, 3))
    value = onnx_registry.weight(dense.kernel)
    assert isinstance(value, np.ndarray) and value.dtype == np.float32
    np.testing.assert_array_equal(value, np.asarray(dense.kernel.numpy()))
