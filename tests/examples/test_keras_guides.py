"""The keras.io guides and examples in ``examples/keras_guides`` run unchanged on lamina.

Each file is a keras.io guide or example with only its imports changed (``import lamina
as keras``) and downloads replaced by generated data; reverting the imports, each runs on
Keras 3.15 (``KERAS_BACKEND=torch``), which is how the ports were checked. Each runs here
in a subprocess in a fresh folder (they write checkpoints and CSV files), must exit 0 and,
where the guide prints or asserts a result, show it.
"""

import os
import pathlib
import re
import subprocess
import sys

import pytest

GUIDES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "keras_guides"

# guide -> lines (regular expressions) its output must contain.
EXPECTED = {
    "sequential_model": [r"^2$", r"Number of weights after calling the model: 6",
                         r"feature shape: \(1, 121, 121, 32\)"],
    "functional_api": [r"Test accuracy: [0-9.]+", r"functional API guide OK"],
    "training_with_built_in_methods": [r"predictions shape: \(3, 10\)",
                                       r"training guide OK"],
    "making_new_layers_and_models_via_subclassing": [r"^weights: 6$",
                                                     r"subclassing guide OK"],
    "serialization_and_saving": [r"variable ordering changed: False", r"saving guide OK"],
    "understanding_masking_and_padding": [r"padded vs unpadded max difference",
                                          r"masking guide OK"],
    "working_with_rnns": [r"RNN guide OK"],
    "writing_your_own_callbacks": [r"Stop predicting; got log keys: \[\]",
                                   r"callbacks guide OK"],
    "mnist_convnet": [r"Test accuracy: 0\.[5-9]|Test accuracy: 1\.0"],
    "imbalanced_classification": [r"Number of positive samples in training data",
                                  r"Epoch 5/5"],
    "timeseries_classification_from_scratch": [r"Test accuracy 0\.\d+",
                                               r"history has accuracy 8"],
    "bidirectional_lstm_imdb": [r"160 Training sequences", r"bidirectional LSTM example OK"],
    "antirectifier": [r"800 train samples", r"antirectifier example OK"],
    "addition_rnn": [r"Total questions: 2000", r"addition RNN example OK"],
}

def _cases():
    return [pytest.param(name, id=name) for name in EXPECTED]


def test_every_guide_is_listed():
    assert sorted(p.stem for p in GUIDES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", _cases())
def test_keras_guide_runs_on_lamina(name, tmp_path):
    result = subprocess.run([sys.executable, str(GUIDES / f"{name}.py")], cwd=tmp_path,
                            env=dict(os.environ), capture_output=True, text=True,
                            timeout=240)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    for pattern in EXPECTED[name]:
        assert re.search(pattern, result.stdout, re.MULTILINE), (pattern, output[-4000:])
