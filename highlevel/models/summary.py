"""``model.summary()``: Keras 3's table of layers, output shapes, parameter counts (and, for
non-sequential functional models, the "Connected to" column), then the parameter totals
with their sizes in bytes and, once the optimizer has state, its parameters.

The columns, their widths (``line_length`` and ``positions`` as Keras computes them),
the wrapping of long cells and the numbers are Keras'; the table is drawn with the same
box characters and column widths as Keras' ``rich`` table, in plain text (no colours, no
``rich`` dependency).
"""

import math
import re
import shutil
import textwrap

import numpy as np

from ..callbacks.callback import print_line

_UNITS = ["B", "KB", "MB", "GB", "TB", "PB"]


def readable_memory_size(size):
    """Keras' ``"4.82 KB"`` for a size in bytes (powers of 1024, two decimals)."""
    for unit in _UNITS:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} {_UNITS[-1]}"


def _unique(variables):
    return list({id(v): v for v in variables}.values())


def count_params(variables):
    """Number of scalars in ``variables`` (each counted once)."""
    return int(sum(math.prod(v.shape) for v in _unique(variables)))


def memory_size(variables):
    """Bytes held by ``variables`` (each counted once), from their dtypes."""
    return float(sum(math.prod(v.shape) * np.dtype(str(v.dtype)).itemsize
                     for v in _unique(variables)))


def optimizer_params(optimizer):
    """(count, bytes) of the optimizer's state as Keras counts it, or None before the
    optimizer has built its state: Keras' int32 ``iteration`` and float32
    ``learning_rate`` (absent with a schedule or a callable) plus every slot variable."""
    if optimizer is None or not getattr(optimizer, "built", False):
        return None
    slots = [slot for _, by_name in optimizer.slot_variables() for slot in by_name.values()]
    scalars = 1 + (optimizer.learning_rate_schedule is None)
    return scalars + count_params(slots), 4.0 * scalars + memory_size(slots)


def _format_shape(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def format_layer_shape(layer):
    """The output shape(s) of the layer's last call, or ``"?"`` when it was never called
    on symbolic inputs."""
    nodes = layer.inbound_nodes
    if not nodes or not nodes[-1].outputs:
        return "?"
    shapes = [_format_shape(t.shape) for t in nodes[-1].outputs]
    return shapes[0] if len(shapes) == 1 else "[" + ", ".join(shapes) + "]"


def _is_sequential_like(model):
    """Keras' test: a Sequential or subclassed model, or a functional model whose graph is
    one chain (one input per node, one node per depth, no shared layer)."""
    graph = getattr(model, "functional_graph", None)
    if graph is None or type(model).__name__ == "Sequential":
        return True
    nodes = graph.all_nodes
    if len(graph.flat_outputs) != 1 or len({id(n.layer) for n in nodes}) != len(nodes):
        return False
    for previous, node in zip(nodes, nodes[1:]):
        inputs = node.flat_inputs
        if len(inputs) != 1 or inputs[0].node is not previous:
            return False
    return True


def _connections(layer, relevant):
    parts = []
    for node in layer.inbound_nodes:
        if id(node) not in relevant:
            continue
        for tensor in node.flat_inputs:
            source = tensor.node.layer
            parts.append(f"{source.name}[{source.inbound_nodes.index(tensor.node)}]"
                         f"[{tensor.index}]")
    return ", ".join(parts) or "-"


def _class_name(layer):
    """Keras' class name: a ``Model(inputs, outputs)`` is a ``Functional``."""
    if type(layer).__name__ == "Model" and getattr(layer, "functional_graph", None) is not None:
        return "Functional"
    return type(layer).__name__


def _params(layer):
    if not layer.built:
        return "0 (unbuilt)"
    return f"{layer.count_params():,}"


def layer_index_range(layers, layer_range):
    """``[first, last + 1]`` of the layers whose names match ``layer_range`` (two regexes,
    both ends inclusive), as Keras' ``get_layer_index_bound_by_layer_name``."""
    if layer_range is None:
        return [0, len(layers)]
    if len(layer_range) != 2:
        raise ValueError(f"layer_range must be a list or tuple of length 2. Received: "
                         f"layer_range = {layer_range} of length {len(layer_range)}")
    if not all(isinstance(name, str) for name in layer_range):
        raise ValueError(f"layer_range should contain string type only. Received: "
                         f"{layer_range}")
    lower = [i for i, layer in enumerate(layers) if re.match(layer_range[0], layer.name)]
    upper = [i for i, layer in enumerate(layers) if re.match(layer_range[1], layer.name)]
    if not lower or not upper:
        raise ValueError(f"Passed layer_names do not match the layer names in the model. "
                         f"Received: {layer_range}")
    if min(lower) > max(upper):
        return [min(upper), max(lower) + 1]
    return [min(lower), max(upper) + 1]


def _fit(text, width):
    return text if len(text) <= width else text[:max(width - 1, 0)] + "\u2026"


def _cell_lines(text, width):
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return [_fit(line, width) for line in lines] or [""]


def _align(text, width, how):
    if how == "right":
        return text.rjust(width)
    if how == "center":
        return text.center(width)
    return text.ljust(width)


class _Table:
    """A plain-text table with rich's heavy-header box characters and row separators."""

    def __init__(self, header, alignment, widths):
        self.header, self.alignment, self.widths = header, alignment, widths

    def _border(self, left, fill, middle, right):
        return left + middle.join(fill * w for w in self.widths) + right

    def _row(self, cells, bar, alignment):
        inner = [w - 2 for w in self.widths]
        wrapped = [_cell_lines(cell, w) for cell, w in zip(cells, inner)]
        height = max(len(lines) for lines in wrapped)
        out = []
        for i in range(height):
            parts = [" " + _align(lines[i] if i < len(lines) else "", w, how) + " "
                     for lines, w, how in zip(wrapped, inner, alignment)]
            out.append(bar + bar.join(parts) + bar)
        return out

    def render(self, rows):
        lines = [self._border("\u250f", "\u2501", "\u2533", "\u2513")]
        inner = [w - 2 for w in self.widths]
        lines.append("\u2503" + "\u2503".join(
            " " + _align(_fit(h, w), w, how) + " "
            for h, w, how in zip(self.header, inner, self.alignment)) + "\u2503")
        lines.append(self._border("\u2521", "\u2501", "\u2547", "\u2529"))
        for position, row in enumerate(rows):
            if position:
                lines.append(self._border("\u251c", "\u2500", "\u253c", "\u2524"))
            lines.extend(self._row(row, "\u2502", self.alignment))
        lines.append(self._border("\u2514", "\u2500", "\u2534", "\u2518"))
        return lines


def _column_widths(line_length, positions):
    """Each column's width, borders excluded, as Keras' ``rich`` table lays them out: the
    widths from ``positions`` plus cell padding, reduced evenly (rich's ``ratio_reduce``
    with Python's rounding) until the table with its borders is ``line_length`` wide."""
    widths, current = [], 0
    for position in positions:
        width = int(position * line_length) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width + 2)
        current += width
    remaining = sum(widths) - (line_length - len(widths) - 1)
    count = len(widths)
    for index, width in enumerate(widths):
        if remaining <= 0:
            break
        reduction = min(width, round(remaining / count))
        widths[index] = width - reduction
        remaining -= reduction
        count -= 1
    return widths


def summary_text(model, line_length=None, positions=None, expand_nested=False,
                 show_trainable=False, layer_range=None):
    """The summary of ``model`` as one string (see :func:`print_summary`)."""
    sequential_like = _is_sequential_like(model)
    layers = model.layers
    if sequential_like:
        default_length, positions = 88, positions or [0.45, 0.80, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
        alignment = ["left", "left", "right"]
        relevant = set()
    else:
        default_length, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        alignment = ["left", "left", "right", "left"]
        relevant = {id(node) for node in model.functional_graph.all_nodes}
    if show_trainable:
        default_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        alignment.append("center")
    default_length = min(default_length, shutil.get_terminal_size().columns - 4)
    widths = _column_widths(line_length or default_length, positions)

    def rows_of(layer, level=0):
        prefix = "   " * level + "\u2514 " if level else ""
        row = [f"{prefix}{layer.name} ({_class_name(layer)})", format_layer_shape(layer),
               _params(layer)]
        if not sequential_like:
            row.append(_connections(layer, relevant))
        if show_trainable:
            row.append(("Y" if layer.trainable else "N") if layer.weights else "-")
        rows = [row]
        if expand_nested and getattr(layer, "functional_graph", None) is not None:
            for inner in layer.layers:
                rows.extend(rows_of(inner, level + 1))
        return rows

    first, last = layer_index_range(layers, layer_range)
    rows = [row for layer in layers[first:last] for row in rows_of(layer)]
    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    counts = [("Trainable", count_params(trainable), memory_size(trainable)),
              ("Non-trainable", count_params(non_trainable), memory_size(non_trainable))]
    optimizer = optimizer_params(getattr(model, "optimizer", None))
    if optimizer is not None:
        counts.append(("Optimizer", *optimizer))
    total_count = sum(c for _, c, _ in counts)
    total_size = sum(s for _, _, s in counts)
    lines = [f'Model: "{model.name}"', *_Table(header, alignment, widths).render(rows),
             f" Total params: {total_count:,} ({readable_memory_size(total_size)})"]
    lines += [f" {label} params: {count:,} ({readable_memory_size(size)})"
              for label, count, size in counts]
    return "\n".join(lines) + "\n"


def print_summary(model, line_length=None, positions=None, print_fn=None,
                  expand_nested=False, show_trainable=False, layer_range=None):
    """Print ``model``'s summary as Keras 3 does.

    Args:
        line_length: total width (default 88, or 108 with "Connected to"; +12 with
            ``show_trainable``; at most the terminal's width - 4).
        positions: right edges of the columns, as fractions of ``line_length``.
        print_fn: called once with the whole summary (default: printed to stdout, or
            logged when ``lamina.config.disable_interactive_logging()`` was called).
        expand_nested: also list the layers of nested models, indented with ``└``.
        show_trainable: add a "Trainable" column (Y / N, ``-`` for layers without
            weights).
        layer_range: two regexes: show the layers from the first match of the first to
            the last match of the second.
    """
    text = summary_text(model, line_length, positions, expand_nested, show_trainable,
                        layer_range)
    if print_fn is None:    # stdout, or logging without interactive logging (as Keras)
        print_line(text.removesuffix("\n"))
    else:
        print_fn(text)
