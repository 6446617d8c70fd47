"""Writes preprocessing_references.json: Keras 3 outputs of its text/lookup/categorical
preprocessing layers on fixed inputs (run with real Keras + TensorFlow, never by the tests):

    KERAS_BACKEND=torch /work/kvenv/bin/python tests/data/keras/make_preprocessing_references.py
"""

import json
import os

import numpy as np
import keras
from keras import layers as L

SENTENCES = ["The cat sat on the mat.", "The dog ate my homework!", "Cats, dogs & birds...",
             "the THE tHe", "Hello, World: it's 3.14 o'clock", "a b c d e f g"]
QUERIES = [["the cat ate"], ["unknown words here"], ["Dogs, CATS!"], [""]]


def numpy(value):
    return np.asarray(keras.ops.convert_to_numpy(value)).tolist()


def text_case(name, **kwargs):
    layer = L.TextVectorization(**kwargs)
    layer.adapt(SENTENCES)
    return name, {"kwargs": kwargs, "vocabulary": layer.get_vocabulary(),
                  "output": numpy(layer(np.array(QUERIES)))}


def main():
    cases = dict([
        text_case("int_default"),
        text_case("int_len5", output_sequence_length=5),
        text_case("int_len2_max6", output_sequence_length=2, max_tokens=6),
        text_case("lower", standardize="lower", output_sequence_length=6),
        text_case("strip", standardize="strip_punctuation", output_sequence_length=6),
        text_case("none_split_char", standardize=None, split="character",
                  output_sequence_length=8),
        text_case("ngrams2", ngrams=2, output_sequence_length=8),
        text_case("ngrams_13", ngrams=(1, 3), output_mode="count"),
        text_case("multi_hot", output_mode="multi_hot"),
        text_case("count_max8", output_mode="count", max_tokens=8),
        text_case("tf_idf", output_mode="tf_idf"),
        text_case("tf_idf_pad", output_mode="tf_idf", max_tokens=12, pad_to_max_tokens=True),
    ])
    data = np.array([["a", "b", "a"], ["c", "a", "d"], ["b", "b", "e"]])
    query = np.array([["a", "z", "e"], ["q", "b", "a"], ["", "c", "zz"]])
    lookups = {}
    for name, kwargs in {
            "string_int": {}, "string_mask": {"mask_token": ""},
            "string_oov3": {"num_oov_indices": 3, "mask_token": ""},
            "string_one_hot": {"output_mode": "one_hot"},
            "string_multi_hot": {"output_mode": "multi_hot", "mask_token": ""},
            "string_count": {"output_mode": "count", "num_oov_indices": 2},
            "string_tf_idf": {"output_mode": "tf_idf"}}.items():
        layer = L.StringLookup(**kwargs)
        layer.adapt(data)
        q = query[:, :1] if kwargs.get("output_mode") == "one_hot" else query
        lookups[name] = {"kwargs": kwargs, "vocabulary": layer.get_vocabulary(),
                         "query": q.tolist(), "output": numpy(layer(q))}
    ints = np.array([[12, 36, 12], [1138, 42, 12], [7, 36, 36]])
    int_query = np.array([[12, 5, 42], [1000, 1001, 1002], [0, 36, 7]])
    for name, kwargs in {"integer_int": {}, "integer_mask": {"mask_token": 0},
                         "integer_oov2": {"num_oov_indices": 2},
                         "integer_count": {"output_mode": "count"}}.items():
        layer = L.IntegerLookup(**kwargs)
        layer.adapt(ints)
        lookups[name] = {"kwargs": kwargs, "vocabulary": [int(v) for v in
                                                          layer.get_vocabulary()],
                         "query": int_query.tolist(), "output": numpy(layer(int_query))}
    words = np.array([["apple"], ["banana"], ["cherry"], ["durian"], ["x" * 70], ["é"]])
    hashing = {"bins7": numpy(L.Hashing(num_bins=7)(words)),
               "bins5_mask": numpy(L.Hashing(num_bins=5, mask_value="banana")(words)),
               "ints": numpy(L.Hashing(num_bins=11)(np.array([[1], [42], [-7], [123456]]))),
               "multi_hot": numpy(L.Hashing(num_bins=4, output_mode="multi_hot")(
                   np.array([["a", "b"], ["c", "d"]])))}
    out = {"keras_version": keras.__version__, "sentences": SENTENCES, "queries": QUERIES,
           "text": cases, "lookup": lookups, "hashing": hashing}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "preprocessing_references.json")
    with open(path, "w") as handle:
        json.dump(out, handle, indent=1)


if __name__ == "__main__":
    main()
