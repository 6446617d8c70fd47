"""``model.summary()``: a Keras-like table of layers, output shapes and parameter counts."""

import numpy as np


def _output_shape(layer):
    nodes = layer._inbound_nodes
    if nodes and nodes[-1].outputs:
        shapes = [t.shape for t in nodes[-1].outputs]
        return str(shapes[0]) if len(shapes) == 1 else str(shapes)
    return "?"


def _count(weights):
    return int(sum(int(np.prod(w.shape)) for w in weights))


def print_summary(model, print_fn=None):
    """Print ``model``'s layers (name and type, output shape, parameter count) and the
    total / trainable / non-trainable parameter counts."""
    print_fn = print_fn or print
    rows = [(f"{layer.name} ({type(layer).__name__})", _output_shape(layer),
             f"{layer.count_params():,}") for layer in model.layers]
    header = ("Layer (type)", "Output Shape", "Param #")
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) + 2 if rows
              else len(header[i]) + 2 for i in range(3)]
    line = "-" * sum(widths)
    print_fn(f'Model: "{model.name}"')
    print_fn("=" * sum(widths))
    print_fn("".join(h.ljust(w) for h, w in zip(header, widths)))
    print_fn("=" * sum(widths))
    for row in rows:
        print_fn("".join(cell.ljust(w) for cell, w in zip(row, widths)))
        print_fn(line)
    trainable = _count(model.trainable_weights)
    non_trainable = _count(model.non_trainable_weights)
    print_fn(f" Total params: {trainable + non_trainable:,}")
    print_fn(f" Trainable params: {trainable:,}")
    print_fn(f" Non-trainable params: {non_trainable:,}")
