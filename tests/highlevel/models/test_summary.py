"""``model.summary()`` prints what Keras 3 prints for the same models: the table (columns,
widths, wrapping, "Connected to", nested rows, the Trainable column, layer_range) and the
parameter counts with their byte sizes, optimizer parameters included.

The references are Keras 3.15.1's output (tests/data/keras/summaries.json), made by
tests/data/keras/summaries_cases.py, which builds the same models with either framework.
"""

import importlib.util
import json
from pathlib import Path

import pytest

import lamina
from harness.models import two_in_two_out
from lamina import layers
from lamina import layers as L
from lamina.layers import naming as layer_naming
from lamina.highlevel.models.summary import readable_memory_size

DATA = Path(__file__).resolve().parents[2] / "data" / "keras"
KERAS = json.loads((DATA / "summaries.json").read_text(encoding="utf-8"))


def _lamina_cases():
    """The cases built with fresh default names (``dense``, ``dense_1``, ... as in the
    fresh Keras process that made the reference); the name counters then continue from
    the larger of both counts."""
    spec = importlib.util.spec_from_file_location("summaries_cases", DATA / "summaries_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counts = layer_naming._name_counts
    saved = dict(counts)
    counts.clear()
    try:
        return {name: (model, kwargs) for name, model, kwargs in module.cases()}
    finally:
        for base, count in saved.items():
            counts[base] = max(count, counts.get(base, 0))


@pytest.fixture(scope="module")
def lamina_cases():
    return _lamina_cases()


@pytest.mark.parametrize("name", sorted(KERAS))
def test_summary_is_keras_summary(name, lamina_cases, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    model, kwargs = lamina_cases[name]
    texts = []
    model.summary(print_fn=texts.append, **kwargs)
    assert texts == [KERAS[name]["text"]]


def test_default_width_follows_the_terminal(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "60")
    lamina.Sequential([lamina.Input((3,)), L.Dense(2)]).summary()
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) == 56            # min(88, 60 - 4)


def test_unbuilt_layers_and_too_narrow(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    model = lamina.Sequential([L.Dense(2)])
    texts = []
    model.summary(print_fn=texts.append)
    assert "0 (unbuilt)" in texts[0] and "?" in texts[0]
    with pytest.raises(ValueError, match="Insufficient console width"):
        model.summary(line_length=8)


@pytest.mark.parametrize("layer_range, match", [(["a"], "length 2"), ([1, 2], "string"),
                                                (["nope", "dense"], "do not match")])
def test_bad_layer_range(layer_range, match):
    model = lamina.Sequential([lamina.Input((3,)), L.Dense(2)])
    with pytest.raises(ValueError, match=match):
        model.summary(layer_range=layer_range)


@pytest.mark.parametrize("size, text", [(0, "0.00 B"), (1023, "1023.00 B"),
                                        (4935.68, "4.82 KB"), (3 * 1024 ** 3, "3.00 GB")])
def test_readable_memory_size(size, text):
    assert readable_memory_size(size) == text


def summary_lines(model):
    texts = []
    model.summary(print_fn=texts.append)      # Keras 3: one call with the whole summary
    return texts[0].splitlines()


def test_summary_table_lists_layers_shapes_params_and_totals(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    model = lamina.Sequential([lamina.Input((8,)),
                               layers.Dense(16, activation="relu", name="hidden"),
                               layers.Dropout(0.1, name="drop"),
                               layers.Dense(3, name="scores")], name="classifier")
    model.get_layer("hidden").trainable = False
    lines = summary_lines(model)
    text = "\n".join(lines)
    assert lines[0] == 'Model: "classifier"'
    header = next(line for line in lines if "Layer (type)" in line)
    assert "Output Shape" in header and "Param #" in header

    def row(name):
        return next(line for line in lines if line.startswith(f"\u2502 {name} ")).split()[1:-1]

    assert row("hidden") == ["hidden", "(Dense)", "\u2502", "(None,", "16)", "\u2502", "144"]
    assert row("drop") == ["drop", "(Dropout)", "\u2502", "(None,", "16)", "\u2502", "0"]
    assert row("scores") == ["scores", "(Dense)", "\u2502", "(None,", "3)", "\u2502", "51"]
    assert "Total params: 195" in text
    assert "Trainable params: 51" in text
    assert "Non-trainable params: 144" in text


def test_summary_prints_to_stdout_for_functional_model(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    model = two_in_two_out(as_dict=False)
    model.summary()
    out = capsys.readouterr().out
    assert "numbers (InputLayer)" in out and "label (Dense)" in out
    assert "(None, 3)" in out
    total = 3 * 4 + 4 + 2 * 4 + 4 + 4 * 1 + 1 + 4 * 3 + 3
    assert f"Total params: {total:,}" in out


def test_summary_is_logged_without_interactive_logging(capsys, caplog):
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)], name="logged")
    model.summary()
    printed = capsys.readouterr().out
    lamina.config.disable_interactive_logging()
    try:
        with caplog.at_level("INFO", logger="lamina"):
            model.summary()
    finally:
        lamina.config.enable_interactive_logging()
    assert capsys.readouterr().out == ""
    assert [record.getMessage() + "\n" for record in caplog.records] == [printed]
