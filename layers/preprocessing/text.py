"""``TextVectorization``: raw strings to token ids or bag-of-words vectors, as
``keras.layers.TextVectorization`` (standardize, split, n-grams, then a ``StringLookup``
whose mask token is ``""``)."""

import collections
import re

import numpy as np

from ..arguments import is_int, layer_error
from ..base import LAYERS
from .data_layer import DataLayer, check_output_mode, to_host
from .lookup import StringLookup

# Keras' punctuation pattern (tf.strings.regex_replace in text_vectorization.py).
STRIP_PUNCTUATION = re.compile(r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']')
# tf.strings.lower without an encoding lowercases ASCII letters only.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@LAYERS.register()
class TextVectorization(DataLayer):
    """Turns raw strings into token indices or document vectors.

    Each string is standardized (``"lower_and_strip_punctuation"`` by default: ASCII
    lowercase, then Keras' punctuation regex removed; ``"lower"``, ``"strip_punctuation"``,
    ``None`` or a callable on a NumPy array of strings), split (``"whitespace"``,
    ``"character"``, ``None`` or a callable returning one token list per string), turned
    into n-grams (``ngrams``: an int n for 1..n-grams, or a tuple of widths), and looked up
    in a vocabulary learned by :meth:`adapt` (by frequency; index 0 is padding ``""``,
    index 1 the OOV token ``"[UNK]"``).

    Args:
        max_tokens: the maximum vocabulary size (padding and OOV included).
        standardize, split, ngrams: as above.
        output_mode: ``"int"`` (default: a padded matrix of ids, ``output_sequence_length``
            columns when set: longer sequences are truncated at the end, shorter ones
            padded with 0 at the end), ``"multi_hot"``, ``"count"`` or ``"tf_idf"``
            (counts times ``log(1 + documents / (1 + document frequency))``).
        output_sequence_length: the fixed length of ``"int"`` outputs.
        pad_to_max_tokens: bag outputs have ``max_tokens`` columns.
        vocabulary, idf_weights: a fixed vocabulary (and idf weights for ``tf_idf``).
        sparse, ragged: only ``False``. encoding: only UTF-8.

    Inputs: a NumPy array of strings of shape ``(batch,)`` or ``(batch, 1)``, or a list.

    Example:
        >>> layer = TextVectorization(output_sequence_length=4)
        >>> layer.adapt(["foo bar", "bar baz", "baz bada boom"])
        >>> layer(np.array([["foo qux bar"], ["qux baz"]]))
        [[4, 1, 3, 0], [1, 2, 0, 0]]
    """

    takes_strings = True

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode="int",
                 output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None,
                 trainable=True, dtype=None, input_shape=None, vocabulary_size=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not (standardize is None or callable(standardize) or standardize in (
                "lower_and_strip_punctuation", "lower", "strip_punctuation")):
            raise layer_error(self, f"needs standardize in ('lower_and_strip_punctuation', "
                                    f"'lower', 'strip_punctuation', None, a callable), got "
                                    f"{standardize!r}")
        if not (split is None or callable(split) or split in ("whitespace", "character")):
            raise layer_error(self, f"needs split in ('whitespace', 'character', None, a "
                                    f"callable), got {split!r}")
        self.output_mode = check_output_mode(self, output_mode,
                                             ("int", "multi_hot", "count", "tf_idf"))
        if isinstance(ngrams, list):
            ngrams = tuple(ngrams)
        if not (ngrams is None or is_int(ngrams) or isinstance(ngrams, tuple) and all(
                is_int(n) for n in ngrams)):
            raise layer_error(self, f"needs ngrams None, an int or a tuple of ints, got "
                                    f"{ngrams!r}")
        if output_sequence_length is not None and (
                self.output_mode != "int" or not is_int(output_sequence_length)):
            raise layer_error(self, f"takes output_sequence_length (an int) only with "
                                    f"output_mode='int', got {output_sequence_length!r} with "
                                    f"output_mode={self.output_mode!r}")
        if sparse or ragged:
            raise layer_error(self, "has dense outputs only; needs sparse=False, ragged=False")
        self.standardize = standardize
        self.split = split
        self.ngrams = ngrams
        self._widths = tuple(range(1, ngrams + 1)) if is_int(ngrams) else ngrams
        self.output_sequence_length = output_sequence_length
        self.encoding = encoding
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens, mask_token="", output_mode=self.output_mode,
            vocabulary_size=vocabulary_size)

    # ------------------------------------------------------------------ vocabulary
    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary (index ``i`` is token ``i``; ``""`` and ``"[UNK]"`` first)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        """The vocabulary size, padding and OOV tokens included."""
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the vocabulary (and ``tf_idf`` weights) directly instead of ``adapt``."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    def adapt(self, data, batch_size=None, steps=None):
        """Learn the vocabulary from ``data``: an array/list of strings or an iterable of
        such batches (most frequent first; ties by the token, high to low)."""
        if isinstance(data, (list, tuple, np.ndarray)) or hasattr(data, "shape"):
            batches = [data]
        else:
            batches = data
        lookup = self._lookup_layer
        counts, documents, num_documents = collections.Counter(), collections.Counter(), 0
        for step, batch in enumerate(batches):
            if steps is not None and step >= steps:
                break
            flat, row_ids, rows = self._tokens(batch)
            if rows:
                num_documents += rows
                lookup.count_tokens(flat, row_ids, counts, documents)
        lookup.finish_adapt(counts, documents, num_documents)

    # ------------------------------------------------------------------ text
    def _tokens(self, inputs):
        """(flat token array, row id of each token, number of rows) of a batch of text."""
        text = self._strings(to_host(inputs))
        if self.split is not None and text.ndim > 1:
            if text.shape[-1] != 1:
                raise layer_error(self, f"splits strings, so it needs inputs of shape "
                                        f"(batch,) or (batch, 1), got {text.shape}")
            text = text[..., 0]
        text = text.reshape(-1) if text.ndim else text.reshape(1)
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            text = np.array([s.translate(_ASCII_LOWER) for s in text], dtype=object)
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            text = np.array([STRIP_PUNCTUATION.sub("", s) for s in text], dtype=object)
        if callable(self.standardize):
            text = np.asarray(self.standardize(text), dtype=object).reshape(-1)
        if self.split is None:
            rows = [[s] for s in text]
        elif self.split == "whitespace":
            rows = [s.split() for s in text]
        elif self.split == "character":
            rows = [list(s) for s in text]
        else:
            rows = [[str(t) for t in to_host(tokens).tolist()] if not isinstance(tokens, list)
                    else tokens for tokens in self.split(text)]
        if self._widths is not None:
            rows = [[" ".join(tokens[i:i + n]) for n in self._widths
                     for i in range(len(tokens) - n + 1)] for tokens in rows]
        lengths = np.array([len(r) for r in rows], dtype=np.int64)
        flat = np.empty(int(lengths.sum()), dtype=object)
        flat[:] = [t for r in rows for t in r]
        return flat, np.repeat(np.arange(len(rows)), lengths), len(rows)

    def call(self, inputs):
        lookup = self._lookup_layer
        lookup.check_ready()
        flat, row_ids, num_rows = self._tokens(inputs)
        indices = lookup.lookup_indices(flat)
        if self.output_mode == "int":
            lengths = np.bincount(row_ids, minlength=num_rows)
            width = self.output_sequence_length
            if width is None:
                width = int(lengths.max()) if num_rows else 0
            position = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            keep = position < width
            out = np.zeros((num_rows, width), dtype=np.int64)
            out[row_ids[keep], position[keep]] = indices[keep]
            return self._output(out)
        depth = lookup.output_depth()
        keep = indices >= 0
        bag = np.zeros((num_rows, depth))
        np.add.at(bag, (row_ids[keep], indices[keep]), 1.0)
        return self._output(_bag_output(bag, self.output_mode, lookup.idf_weights, depth, self.dtype))

    # ------------------------------------------------------------------ saving
    def save_assets(self, dir_path):
        """The vocabulary file, as the inner lookup writes it (Keras writes it twice)."""
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path):
        """Read the vocabulary :meth:`save_assets` wrote."""
        self._lookup_layer.load_assets(dir_path)

    def save_own_variables(self, store):
        """The inner lookup's ``idf_weights`` (tf_idf mode), as Keras."""
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store):
        """Read what :meth:`save_own_variables` wrote."""
        self._lookup_layer.load_own_variables(store)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return (input_shape[0], self.output_sequence_length)
        return (input_shape[0], self._lookup_layer.output_depth())

    def get_config(self):
        lookup = self._lookup_layer
        config = lookup.get_config()
        return {**super().get_config(), "max_tokens": lookup.max_tokens,
                "standardize": self.standardize, "split": self.split,
                "ngrams": list(self.ngrams) if isinstance(self.ngrams, tuple) else self.ngrams,
                "output_mode": self.output_mode,
                "output_sequence_length": self.output_sequence_length,
                "pad_to_max_tokens": lookup.pad_to_max_tokens, "sparse": False,
                "ragged": False, "vocabulary": config["vocabulary"],
                "idf_weights": config["idf_weights"], "encoding": self.encoding,
                "vocabulary_size": self.vocabulary_size()}


def _bag_output(bag, output_mode, idf, depth, dtype):
    if output_mode == "multi_hot":
        bag = (bag > 0).astype(bag.dtype)
    elif output_mode == "tf_idf":
        bag = bag * idf[:depth]
    return bag.astype(dtype)

