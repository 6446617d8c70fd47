"""``lamina.utils.model_to_dot`` / ``plot_model``: the pydot graph has one node per layer and
one edge per connection (Sequential, multi-input/output, shared, nested, expanded), labels
as Keras 3 writes them, and pictures render in PNG/SVG/PDF when Graphviz is installed."""

import shutil
import sys

import pytest

import lamina
from lamina import layers as L

pydot = pytest.importorskip("pydot", reason="plot_model needs the [plot] extra")
HAS_DOT = shutil.which("dot") is not None


def _edges(dot, model_layers):
    """(source, destination) layer names of the graph's edges, clusters included."""
    names = {str(id(layer)): layer.name for layer in model_layers}
    edges = [(names[e.get_source()], names[e.get_destination()]) for e in dot.get_edges()]
    for cluster in dot.get_subgraphs():
        edges += _edges(cluster, model_layers)
    return sorted(edges)


def _nodes(dot):
    return {n.get_name() for n in dot.get_nodes()} - {"node", "edge", "graph"}


def _functional():
    a, b = lamina.Input((4,), name="a"), lamina.Input((3,), name="b")
    shared = L.Dense(2, name="shared")
    joined = L.Concatenate(name="cat")([shared(L.Dense(2, name="da")(a)),
                                        shared(L.Dense(2, name="db")(b))])
    return lamina.Model([a, b], [L.Dense(1, name="y1")(joined),
                                 L.Dense(1, activation="sigmoid", name="y2")(joined)])


def test_sequential_is_a_chain():
    model = lamina.Sequential([lamina.Input((4,)), L.Dense(3, name="h"), L.Dropout(0.1, name="d"),
                               L.Dense(1, name="o")])
    dot = model_to_dot(model)
    assert _nodes(dot) == {str(id(layer)) for layer in model.layers}
    assert _edges(dot, model.layers) == [("d", "o"), ("h", "d")]
    assert dot.get("rankdir") == "TB"


def test_functional_multi_io_and_shared_layers():
    model = _functional()
    dot = model_to_dot(model, show_shapes=True, show_dtype=True, show_layer_activations=True,
                       show_trainable=True, rankdir="LR")
    assert _nodes(dot) == {str(id(layer)) for layer in model.layers}
    assert _edges(dot, model.layers) == [
        ("a", "da"), ("b", "db"), ("cat", "y1"), ("cat", "y2"), ("da", "shared"),
        ("db", "shared"), ("shared", "cat")]
    label = dot.get_node(str(id(model.get_layer("y2"))))[0].get("label")
    assert "<b>y2</b> (Dense)" in label and "Activation: <b>sigmoid</b>" in label
    assert "Input shape: <b>(None, 4)</b>" in label and "Output shape: <b>(None, 1)</b>" in label
    assert "Output dtype: <b>float32</b>" in label and "Trainable" in label


def test_nested_model_collapsed_and_expanded():
    inner_in = lamina.Input((4,))
    inner = lamina.Model(inner_in, L.Dense(2, name="inner_dense")(inner_in), name="inner")
    x = lamina.Input((4,), name="x")
    model = lamina.Model(x, L.Dense(1, name="head")(inner(x)))
    collapsed = model_to_dot(model)
    assert _edges(collapsed, model.layers) == [("inner", "head"), ("x", "inner")]
    expanded = model_to_dot(model, expand_nested=True)
    clusters = expanded.get_subgraphs()
    assert [c.get_name() for c in clusters] == ["cluster_inner"]
    every = model.layers + inner.layers
    inner_input = inner.layers[0].name
    assert _edges(expanded, every) == sorted([("x", inner_input), (inner_input, "inner_dense"),
                                              ("inner_dense", "head")])


def test_bad_arguments():
    model = lamina.Sequential([lamina.Input((2,)), L.Dense(1)])
    with pytest.raises(ValueError, match="layer_range"):
        model_to_dot(model, layer_range=["a", "b"])
    with pytest.raises(ValueError, match="Unrecognized"):
        model_to_dot(model, colour="red")
    with pytest.raises(ValueError, match="not yet been built"):
        model_to_dot(lamina.Sequential([L.Dense(1)]))


def test_missing_pydot_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydot", None)
    with pytest.raises(ImportError, match=r"lamina\[plot\]"):
        plot_model(lamina.Sequential([lamina.Input((2,)), L.Dense(1)]))


def test_missing_graphviz_names_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))          # no `dot` on the PATH
    with pytest.raises(ImportError, match="Graphviz"):
        plot_model(lamina.Sequential([lamina.Input((2,)), L.Dense(1)]),
                   to_file=str(tmp_path / "m.png"))


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz's `dot` is not installed (apt-get install "
                                        "graphviz; .ci/run installs it)")
@pytest.mark.parametrize("extension, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"),
                                              ("pdf", b"%PDF")])
def test_plot_model_renders_by_extension(extension, magic, tmp_path):
    path = tmp_path / f"model.{extension}"
    assert plot_model(_functional(), to_file=str(path), show_shapes=True,
                      expand_nested=True) is None
    assert path.read_bytes().startswith(magic)


from lamina.utils import model_to_dot, plot_model  # noqa: E402  (after the importorskip)
