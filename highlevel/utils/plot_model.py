"""``plot_model`` and ``model_to_dot``: the model's layer graph drawn by Graphviz through
``pydot`` (the ``[plot]`` extra; Graphviz's ``dot`` program is a system package:
``apt-get install graphviz``, ``brew install graphviz``, ``conda install graphviz``).

One node per layer, labelled as Keras 3 labels it (name and class, and optionally the
activation, input/output shapes, output dtype, trainable state); one edge per connection
between layers; nested models are single nodes or, with ``expand_nested``, dashed clusters
whose inner layers are wired to the outer graph.
"""

import os
import sys

from ...layers.input_layer import InputLayer
from ...layers.options import activations as activations_module


def _pydot():
    try:
        import pydot
    except ImportError as error:
        raise ImportError("plot_model/model_to_dot need the 'pydot' package: pip install "
                          "'lamina[plot]' (and Graphviz's dot program, e.g. apt-get install "
                          "graphviz)") from error
    return pydot


def _check_graphviz(pydot):
    try:
        pydot.Dot.create(pydot.Dot())
    except (OSError, pydot.PydotException) as error:   # FileNotFoundError is an OSError
        raise ImportError("plot_model needs Graphviz's 'dot' program on the PATH (a system "
                          "package: apt-get install graphviz, brew install graphviz or "
                          "conda install graphviz; see https://graphviz.org/download/)") \
            from error


def _is_model(layer):
    return getattr(layer, "functional_graph", None) is not None


def _class_name(layer):
    if type(layer).__name__ == "Model" and _is_model(layer):
        return "Functional"
    return type(layer).__name__


def _shapes(tensors):
    if not tensors:
        return "?"
    shapes = [tuple(t.shape) for t in tensors]
    return str(shapes[0]) if len(shapes) == 1 else str(shapes)


def _activation_name(activation):
    return activation if isinstance(activation, str) else activations_module.serialize(
        activation)


def make_layer_label(layer, show_layer_names, show_layer_activations, show_dtype,
                     show_shapes, show_trainable):
    """Keras 3's HTML-like Graphviz label of ``layer``."""
    class_name = _class_name(layer)
    colspan = max(1, int(show_dtype) + int(show_trainable) + (2 if show_shapes else 0))
    title = f"<b>{layer.name}</b> ({class_name})" if show_layer_names else f"<b>{class_name}</b>"
    table = ('<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">'
             f'<tr><td colspan="{colspan}" bgcolor="black"><font point-size="16" '
             f'color="white">{title}</font></td></tr>')
    if show_layer_activations and getattr(layer, "activation", None) is not None:
        table += (f'<tr><td bgcolor="white" colspan="{colspan}"><font point-size="14">'
                  f"Activation: <b>{_activation_name(layer.activation)}</b></font></td></tr>")
    node = layer.inbound_nodes[-1] if layer.inbound_nodes else None
    cells = []
    if show_shapes:
        if not isinstance(layer, InputLayer):
            cells.append(f"Input shape: <b>{_shapes(node.flat_inputs if node else None)}</b>")
        cells.append(f"Output shape: <b>{_shapes(node.outputs if node else None)}</b>")
    if show_dtype:
        dtype = node.outputs[0].dtype if node and node.outputs else "?"
        cells.append(f"Output dtype: <b>{dtype}</b>")
    cols = [f'<td bgcolor="white"><font point-size="14">{cell}</font></td>' for cell in cells]
    if show_trainable and layer.weights:
        color, text = (("forestgreen", "Trainable") if layer.trainable
                       else ("firebrick", "Non-trainable"))
        cols.append(f'<td bgcolor="{color}"><font point-size="14" color="white">'
                    f"<b>{text}</b></font></td>")
    if cols:
        table += f"<tr>{''.join(cols)}</tr>"
    return table + "</table>>"


def _add_edge(pydot, dot, source, destination):
    src, dst = str(id(source)), str(id(destination))
    if not dot.get_edge(src, dst):
        edge = pydot.Edge(src, dst)
        edge.set("penwidth", "2")
        dot.add_edge(edge)


def _resolve_source(layer, tensor):
    """The innermost layer producing ``tensor`` when ``layer`` is an expanded model."""
    while _is_model(layer):
        tensor = layer.functional_graph.flat_outputs[tensor.index]
        layer = tensor.node.layer
    return layer


def _resolve_destination(layer, position):
    """The innermost first layer receiving input ``position`` of an expanded model."""
    while _is_model(layer):
        if type(layer).__name__ == "Sequential":
            layer = layer.layers[0]
        else:
            layer = layer.functional_graph.flat_inputs[position].node.layer
    return layer


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True,
                 rankdir="TB", expand_nested=False, dpi=200, subgraph=False,
                 show_layer_activations=False, show_trainable=False, splines="ortho",
                 **kwargs):
    """The model as a ``pydot.Dot`` (a ``pydot.Cluster`` with ``subgraph=True``): one node
    per layer (node name ``str(id(layer))``), one edge per connection. Arguments as
    Keras 3's ``keras.utils.model_to_dot``."""
    pydot = _pydot()
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
    if not model.built:
        raise ValueError("This model has not yet been built. Build the model first by "
                         "calling `build()` or by calling the model on a batch of data.")
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name)
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot()
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set("splines", splines)
        dot.set_node_defaults(shape="record")
    label_options = dict(show_layer_names=show_layer_names, show_dtype=show_dtype,
                         show_layer_activations=show_layer_activations,
                         show_shapes=show_shapes, show_trainable=show_trainable)

    def node_of(layer):
        node = pydot.Node(str(id(layer)), label=make_layer_label(layer, **label_options))
        node.set("fontname", "Helvetica")
        node.set("border", "0")
        node.set("margin", "0")
        return node

    if not _is_model(model):                        # subclassed: one node
        dot.add_node(node_of(model))
        return dot
    for layer in model.operations:   # Keras draws the operations (``x + y``) too
        if expand_nested and _is_model(layer):
            dot.add_subgraph(model_to_dot(
                layer, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested,
                subgraph=True, show_layer_activations=show_layer_activations,
                show_trainable=show_trainable))
        else:
            dot.add_node(node_of(layer))
    drawn = {id(layer) for layer in model.operations}
    for node in model.functional_graph.nodes:
        for position, tensor in enumerate(node.flat_inputs):
            source, destination = tensor.node.layer, node.layer
            if id(source) not in drawn:             # a Sequential's implicit InputLayer
                continue
            if expand_nested:
                source = _resolve_source(source, tensor)
                destination = _resolve_destination(destination, position)
            _add_edge(pydot, dot, source, destination)
    return dot


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=False, rankdir="TB", expand_nested=False, dpi=200,
               show_layer_activations=False, show_trainable=False, splines="ortho",
               **kwargs):
    """Draw the model's graph into ``to_file``; the format is the file's extension
    (``.png``, ``.svg``, ``.pdf``, ...; none: PNG). Arguments as Keras 3's
    ``keras.utils.plot_model``. Returns an ``IPython.display.Image`` inside a notebook
    (not for PDF), else None. Raises ImportError naming pydot or Graphviz when missing."""
    pydot = _pydot()
    _check_graphviz(pydot)
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations,
                       show_trainable=show_trainable, splines=splines, **kwargs)
    to_file = os.fspath(to_file)
    extension = os.path.splitext(to_file)[1][1:] or "png"
    dot.write(to_file, format=extension)
    if extension != "pdf" and "ipykernel" in sys.modules:
        from IPython import display
        return display.Image(filename=to_file)
    return None
