"""Vocabulary lookups: ``StringLookup`` and ``IntegerLookup`` (Keras' ``IndexLookup``
contract: a mask index, ``num_oov_indices`` OOV indices, then the vocabulary by
frequency; ``invert``; ``int``/``one_hot``/``multi_hot``/``count``/``tf_idf`` outputs)."""

import collections
import contextlib
import os
import threading

import numpy as np

from ...backends import state
from ..arguments import is_int, layer_error
from ..base import LAYERS
from .data_layer import DataLayer, check_output_mode, encode_categorical, encoded_shape, to_host
from .farmhash import hash_buckets

VOCABULARY_FILE = "vocabulary.txt"      # the asset Keras' save_assets writes
_ARCHIVE = threading.local()


@contextlib.contextmanager
def vocabulary_as_asset():
    """Within this block the lookup layers' (and TextVectorization's) ``get_config`` is
    Keras': ``vocabulary`` / ``idf_weights`` are only those given to the constructor; a
    vocabulary learned by ``adapt`` or set later is written by :meth:`save_assets`
    instead (and tf_idf weights by ``save_own_variables``), as in a ``.keras`` archive.
    Outside it the config carries the current vocabulary (``.h5`` files, ``to_json``)."""
    previous = getattr(_ARCHIVE, "active", False)
    _ARCHIVE.active = True
    try:
        yield
    finally:
        _ARCHIVE.active = previous


class IndexLookup(DataLayer):
    """The shared lookup machinery (not public; see :class:`StringLookup`)."""

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                 idf_weights, invert, output_mode, pad_to_max_tokens, sparse, name, trainable,
                 dtype, input_shape, vocabulary_size=None, oov_method="floormod", salt=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if oov_method not in ("floormod", "farmhash"):
            raise layer_error(self, f"needs oov_method 'floormod' or 'farmhash', got "
                                    f"{oov_method!r}")
        if salt is not None:
            raise layer_error(self, f"has no salted (SipHash64) OOV hashing; needs "
                                    f"salt=None, got {salt!r}")
        self.oov_method = oov_method
        self.salt = None
        # The size a config recorded (Keras' frozen vocabulary size): the output depth
        # of a layer rebuilt from a .keras file until load_assets restores its vocabulary.
        self._recorded_size = vocabulary_size if is_int(vocabulary_size) else None
        if max_tokens is not None and (not is_int(max_tokens) or max_tokens <= 1):
            raise layer_error(self, f"needs max_tokens > 1 or None, got {max_tokens!r}")
        if pad_to_max_tokens and max_tokens is None:
            raise layer_error(self, "needs max_tokens when pad_to_max_tokens=True")
        if not is_int(num_oov_indices) or num_oov_indices < 0:
            raise layer_error(self, f"needs num_oov_indices >= 0, got {num_oov_indices!r}")
        self.output_mode = check_output_mode(self, output_mode)
        if invert and self.output_mode != "int":
            raise layer_error(self, f"needs output_mode='int' when invert=True, got "
                                    f"output_mode={self.output_mode!r}")
        if sparse:
            raise layer_error(self, "has no sparse outputs; needs sparse=False")
        if idf_weights is not None and self.output_mode != "tf_idf":
            raise layer_error(self, f"takes idf_weights only with output_mode='tf_idf', got "
                                    f"output_mode={self.output_mode!r}")
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.invert = bool(invert)
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self.sparse = False
        self._oov_start = 1 if mask_token is not None and self.output_mode == "int" else 0
        self._token_start = self._oov_start + self.num_oov_indices
        self._tokens = []          # the learned/given vocabulary, special tokens excluded
        self._index = {}           # token -> output index
        self._idf = None           # tf_idf weights over the output depth
        self._stored_idf = None    # tf_idf weights read by load_own_variables
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        elif self.output_mode == "tf_idf" and idf_weights is not None:
            raise layer_error(self, "got idf_weights without a vocabulary")
        # The constructor's vocabulary travels in the config (None: a file path, or none
        # given); any other vocabulary is an asset (Keras' input_vocabulary).
        given = vocabulary is not None and not isinstance(vocabulary, (str, os.PathLike))
        self._input_vocabulary = (list(vocabulary) if isinstance(vocabulary, (list, tuple))
                                  else to_host(vocabulary).tolist()) if given else None
        self._input_idf_weights = None if not given or idf_weights is None else \
            np.asarray(to_host(idf_weights), dtype=np.float64).ravel().tolist()

    # ------------------------------------------------------------------ vocabulary
    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary, index ``i`` holding the token that maps to ``i`` (with the mask
        and OOV tokens first unless ``include_special_tokens=False``)."""
        special = [self.mask_token] * self._oov_start + [self.oov_token] * self.num_oov_indices
        return (special if include_special_tokens else []) + list(self._tokens)

    def vocabulary_size(self):
        """The number of indices the layer maps to, special tokens included."""
        return self._token_start + len(self._tokens)

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the vocabulary (a list/array of tokens or a text file, one token a line) and,
        for ``tf_idf``, its inverse document frequencies (Keras' ``set_vocabulary``)."""
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise layer_error(self, "needs idf_weights with the vocabulary when "
                                    "output_mode='tf_idf'")
        if isinstance(vocabulary, (str, os.PathLike)):
            if not os.path.isfile(vocabulary):
                raise layer_error(self, f"got a vocabulary file {str(vocabulary)!r} that does "
                                        "not exist")
            with open(vocabulary, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
            while lines and lines[-1] == "":
                lines.pop()
            vocabulary = self._vocabulary_from_lines(lines)
        tokens = list(to_host(vocabulary).tolist()) if not isinstance(vocabulary, list) \
            else list(vocabulary)
        if not tokens:
            raise layer_error(self, "cannot set an empty vocabulary")
        special = self.get_vocabulary()[:self._token_start]
        found_special = tokens[:self._token_start] == special and self._token_start > 0
        if found_special:
            tokens = tokens[self._token_start:]
        repeated = [t for t, n in collections.Counter(tokens).items() if n > 1]
        if repeated:
            raise layer_error(self, f"got a vocabulary with repeated tokens {repeated}")
        if self.mask_token is not None and self.mask_token in tokens:
            raise layer_error(self, f"got the mask token {self.mask_token!r} inside the "
                                    f"vocabulary; put special tokens only first, as {special}")
        if self.invert and self.oov_token in tokens:
            raise layer_error(self, f"got the OOV token {self.oov_token!r} inside the "
                                    f"vocabulary; put special tokens only first, as {special}")
        if self.max_tokens is not None and self._token_start + len(tokens) > self.max_tokens:
            raise layer_error(self, f"got a vocabulary of size "
                                    f"{self._token_start + len(tokens)} > max_tokens="
                                    f"{self.max_tokens}")
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf":
            weights = np.asarray(to_host(idf_weights), dtype=np.float64).ravel()
            if len(weights) != len(tokens) + (self._token_start if found_special else 0):
                raise layer_error(self, f"needs one idf weight per vocabulary entry, got "
                                        f"{len(weights)} for {len(tokens)} tokens")
            if not found_special:
                weights = np.concatenate([np.full(self._token_start, weights.mean()), weights])
            self._set_idf(weights)
        self._input_vocabulary = self._input_idf_weights = None

    def _set_tokens(self, tokens):
        self._tokens = list(tokens)
        self._index = {token: i + self._token_start for i, token in enumerate(self._tokens)}

    def _set_idf(self, weights):
        depth = self.output_depth()
        padded = np.zeros(max(depth, len(weights)))
        padded[:len(weights)] = weights
        self._idf = padded.astype(state.floatx())

    @property
    def idf_weights(self):
        """The ``tf_idf`` weights over the output depth (None before ``adapt`` or outside
        ``tf_idf`` mode)."""
        return self._idf

    def output_depth(self):
        """The size of the last output axis in the multi-hot/count/tf_idf modes (the
        size a loaded config recorded until its vocabulary is restored)."""
        if self.pad_to_max_tokens:
            return self.max_tokens
        if not self._tokens and self._recorded_size is not None:
            return self._recorded_size
        return self.vocabulary_size()

    # ------------------------------------------------------------------ adapt
    def adapt(self, data, steps=None):
        """Learn the vocabulary (and document frequencies for ``tf_idf``) from ``data``: an
        array or list (a rank-1 one is one token per document) or an iterable of batches.
        Tokens are ordered by count, ties by the token (high to low), as Keras."""
        if isinstance(data, (list, tuple, np.ndarray)) or hasattr(data, "shape"):
            array = self._keys(to_host(data))
            batches = [array[:, None] if array.ndim == 1 else array]
        else:
            batches = (self._keys(to_host(b)) for b in data)
        counts = collections.Counter()
        documents = collections.Counter()
        num_documents = 0
        for step, batch in enumerate(batches):
            if steps is not None and step >= steps:
                break
            rows = batch.reshape(1, -1) if batch.ndim < 2 else batch.reshape(
                len(batch), int(np.prod(batch.shape[1:])))
            flat = rows.ravel()
            row_ids = np.repeat(np.arange(len(rows)), rows.shape[1])
            num_documents += self.count_tokens(flat, row_ids, counts, documents)
        self.finish_adapt(counts, documents, num_documents)

    def count_tokens(self, flat, row_ids, counts, documents):
        """Add token counts (and per-document counts) of ``flat`` tokens in rows ``row_ids``;
        returns the number of documents."""
        if flat.size == 0:
            return int(row_ids.max() + 1) if row_ids.size else 0
        unique, inverse, number = np.unique(flat, return_inverse=True, return_counts=True)
        counts.update(dict(zip(unique.tolist(), number.tolist())))
        if self.output_mode == "tf_idf":
            pairs = np.unique(row_ids * len(unique) + inverse.ravel())
            per_token = np.bincount(pairs % len(unique), minlength=len(unique))
            documents.update(dict(zip(unique.tolist(), per_token.tolist())))
        return int(row_ids.max()) + 1

    def finish_adapt(self, counts, documents, num_documents):
        """Set the vocabulary (and the ``tf_idf`` weights) from the token ``counts`` and
        per-token document counts an ``adapt`` gathered (``TextVectorization`` too)."""
        for special in (self.mask_token, self.oov_token):
            counts.pop(special, None)
        if not counts:
            raise layer_error(self, "cannot adapt to empty data (no tokens found)")
        ordered = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
        if self.max_tokens is not None:
            ordered = ordered[:self.max_tokens - self._token_start]
        self._set_tokens([token for token, _ in ordered])
        self._input_vocabulary = self._input_idf_weights = None
        if self.output_mode == "tf_idf":
            frequency = np.array([documents[t] for t in self._tokens], dtype=np.float64)
            idf = np.log(1.0 + num_documents / (1.0 + frequency))
            self._set_idf(np.concatenate([np.full(self._token_start, idf.mean()), idf]))

    # ------------------------------------------------------------------ lookup
    def lookup_indices(self, keys):
        """Output indices of the token array ``keys`` (mask -> 0 in int mode, dropped (-1)
        otherwise; OOV -> the OOV indices, hashed when there are several)."""
        flat = keys.ravel()
        unique, inverse = np.unique(flat, return_inverse=True)
        found = np.fromiter((self._index.get(u, -1) for u in unique.tolist()), np.int64,
                            count=len(unique))
        indices = found[inverse.ravel()]
        masked = np.zeros(flat.shape, bool) if self.mask_token is None else \
            flat == self.mask_token
        oov = (indices < 0) & ~masked
        if oov.any():
            if self.num_oov_indices == 0:
                raise layer_error(self, f"has num_oov_indices=0, so every input must be in "
                                        f"the vocabulary; got OOV values "
                                        f"{np.unique(flat[oov])[:5].tolist()}")
            indices[oov] = self._oov_start + (
                0 if self.num_oov_indices == 1 else self._oov_bucket(flat[oov]))
        indices[masked] = 0 if self.output_mode == "int" else -1
        return indices.reshape(keys.shape)

    def _encode(self, indices):
        depth = self.output_depth()
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        out = encode_categorical(indices, mode, depth, state.floatx())
        return out * self._idf[:depth] if self.output_mode == "tf_idf" else out

    def check_ready(self):
        """ValueError naming the layer when a mode that needs a vocabulary has none."""
        if self.output_mode not in ("int",) and not self.pad_to_max_tokens and not self._tokens:
            raise layer_error(self, f"has no vocabulary: with output_mode="
                                    f"{self.output_mode!r} pass vocabulary= or call adapt()")

    def call(self, inputs):
        if self.invert:
            return self._inverse(inputs)
        self.check_ready()
        indices = self.lookup_indices(self._keys(inputs))
        if self.output_mode == "int":
            return self._output(indices)
        return self._output(self._encode(indices))

    def _inverse(self, inputs):
        indices = np.asarray(inputs)
        if indices.dtype.kind not in "iu":
            raise layer_error(self, f"with invert=True expects integer indices, got dtype "
                                    f"{indices.dtype}")
        vocabulary = np.empty(self.vocabulary_size() + 1, dtype=object)
        vocabulary[:-1] = self.get_vocabulary()
        vocabulary[-1] = self.oov_token
        inside = (indices >= 0) & (indices < self.vocabulary_size())
        return vocabulary[np.where(inside, indices, -1)]

    def compute_output_shape(self, input_shape):
        return encoded_shape(input_shape, self.output_mode, self.output_depth())

    # ------------------------------------------------------------------ saving
    def save_assets(self, dir_path):
        """Write the vocabulary (special tokens first, one a line, UTF-8) to
        ``dir_path/vocabulary.txt``, as Keras, unless it came with the constructor (then
        the config holds it)."""
        if self._input_vocabulary is not None:
            return
        text = "\n".join(str(token) for token in self.get_vocabulary())
        with open(os.path.join(dir_path, VOCABULARY_FILE), "w", encoding="utf-8") as handle:
            handle.write(text)

    def load_assets(self, dir_path):
        """Read the vocabulary :meth:`save_assets` wrote (with the tf_idf weights
        :meth:`load_own_variables` read). A file holding only the special tokens leaves
        the layer without a vocabulary, as it was saved."""
        if self._input_vocabulary is not None:
            return
        path = os.path.join(dir_path, VOCABULARY_FILE)
        if not os.path.isfile(path):
            raise layer_error(self, f"found no {VOCABULARY_FILE} among its assets")
        with open(path, "rb") as handle:
            data = handle.read()
        try:
            lines = data.decode("utf-8").splitlines()
        except UnicodeDecodeError as error:
            raise layer_error(self, f"cannot read its {VOCABULARY_FILE}: not UTF-8 text "
                                    f"({error})") from None
        while lines and lines[-1] == "":
            lines.pop()
        if len(lines) <= self._token_start:
            return
        try:
            values = self._vocabulary_from_lines(lines)
        except ValueError as error:
            raise layer_error(self, f"cannot read its {VOCABULARY_FILE}: {error}") from None
        idf = None
        if self.output_mode == "tf_idf":
            if self._stored_idf is None:
                raise layer_error(self, "has output_mode='tf_idf' but no idf_weights were "
                                        "stored with its vocabulary")
            idf = self._stored_idf[:len(values)]
        self.set_vocabulary(values, idf)

    def save_own_variables(self, store):
        """Keras' variables of a lookup: ``store["idf_weights"]`` in tf_idf mode (the
        weights over the output depth, special tokens and padding included)."""
        if self.output_mode == "tf_idf" and self._idf is not None:
            store["idf_weights"] = np.array(self._idf)

    def load_own_variables(self, store):
        """Read what :meth:`save_own_variables` wrote (before :meth:`load_assets`)."""
        if self.output_mode != "tf_idf" or "idf_weights" not in store:
            return
        weights = np.asarray(store["idf_weights"], dtype=np.float64)
        if weights.ndim != 1:
            raise layer_error(self, f"needs 1-D idf_weights, the file holds shape "
                                    f"{weights.shape}")
        self._stored_idf = weights
        if self._tokens:
            self._set_idf(weights[:self.vocabulary_size()])

    def get_config(self):
        idf = None
        if self._idf is not None:
            idf = self._idf[self._token_start:self.vocabulary_size()].tolist()
        vocabulary = list(self._tokens) or None
        if getattr(_ARCHIVE, "active", False):
            vocabulary, idf = self._input_vocabulary, self._input_idf_weights
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                "mask_token": self.mask_token, "output_mode": self.output_mode,
                "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary": vocabulary, "idf_weights": idf,
                "vocabulary_size": self.vocabulary_size(), "oov_method": self.oov_method,
                "salt": self.salt}


@LAYERS.register()
class StringLookup(IndexLookup):
    """Maps strings to integer indices from a vocabulary, as ``keras.layers.StringLookup``.

    Index 0 is the mask (when ``mask_token`` is set and ``output_mode="int"``), then
    ``num_oov_indices`` OOV indices (several: tokens are spread over them by FarmHash64, as
    Keras), then the vocabulary. ``invert=True`` maps indices back to strings (a NumPy
    array of ``str``).

    Args:
        max_tokens: the maximum vocabulary size, special tokens included (``None``: no cap).
        num_oov_indices: the number of OOV indices (default 1; 0: OOV raises ValueError).
        mask_token: a token mapped to 0 (``None``: no mask).
        oov_token: the token ``invert`` returns for OOV indices (default ``"[UNK]"``).
        vocabulary: a list/array of tokens or a file path; else learn it with ``adapt``.
        idf_weights: inverse document frequencies with ``vocabulary`` for ``tf_idf``.
        invert, output_mode, pad_to_max_tokens, sparse (only ``False``), encoding: as Keras.
        salt: only ``None`` (Keras' salted SipHash64 OOV hashing is not implemented).
        oov_method: accepted as Keras writes it in configs; strings always hash with FarmHash.

    A vocabulary learned by ``adapt`` (or set later) is saved in ``.keras`` files as
    Keras saves it: ``assets/<layer path>/vocabulary.txt`` (:meth:`save_assets`), tf_idf
    weights as the ``idf_weights`` variable (:meth:`save_own_variables`).

    Example:
        >>> layer = StringLookup(vocabulary=["a", "b", "c", "d"])
        >>> layer(np.array([["a", "c", "d"], ["d", "z", "b"]]))
        [[1, 3, 4], [4, 0, 2]]
    """

    takes_strings = True

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 pad_to_max_tokens=False, sparse=False, encoding="utf-8", name=None,
                 salt=None, trainable=True, dtype=None, input_shape=None,
                 vocabulary_size=None, oov_method="floormod"):
        self.encoding = encoding
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         idf_weights, invert, output_mode, pad_to_max_tokens, sparse, name,
                         trainable, dtype, input_shape, vocabulary_size, oov_method, salt)

    def _keys(self, values):
        return self._strings(values)

    def _vocabulary_from_lines(self, lines):
        return list(lines)

    def _oov_bucket(self, tokens):
        return hash_buckets(tokens, self.num_oov_indices)

    def get_config(self):
        return {**super().get_config(), "encoding": self.encoding}


@LAYERS.register()
class IntegerLookup(IndexLookup):
    """Maps integers to contiguous indices from a vocabulary, as
    ``keras.layers.IntegerLookup`` (OOV values spread over several OOV indices by
    ``value % num_oov_indices``, or FarmHash64 of the decimal text with
    ``oov_method="farmhash"``). Arguments as :class:`StringLookup`, with an integer
    ``mask_token`` and ``oov_token`` (default -1).

    Example:
        >>> IntegerLookup(vocabulary=[12, 36, 1138, 42])(np.array([[12, 1138, 42], [42, 1000, 36]]))
        [[1, 3, 4], [4, 0, 2]]
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, name=None, trainable=True, dtype=None,
                 input_shape=None, vocabulary_size=None):
        if vocabulary_dtype not in ("int32", "int64"):
            raise ValueError(f"IntegerLookup needs vocabulary_dtype 'int32' or 'int64', got "
                             f"{vocabulary_dtype!r}")
        self.vocabulary_dtype = vocabulary_dtype
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         idf_weights, invert, output_mode, pad_to_max_tokens, sparse, name,
                         trainable, dtype, input_shape, vocabulary_size, oov_method, salt)

    def _keys(self, values):
        array = np.asarray(values)
        if array.dtype.kind == "f" and np.all(array == np.round(array)):
            array = array.astype(np.int64)
        if array.dtype.kind not in "iu":
            raise layer_error(self, f"expects integer inputs, got an array of dtype "
                                    f"{array.dtype}")
        return array.astype(np.int64)

    def _vocabulary_from_lines(self, lines):
        return [int(line) for line in lines]

    def _oov_bucket(self, values):
        if self.oov_method == "farmhash":
            return hash_buckets(np.array([str(v) for v in values.tolist()], dtype=object),
                                self.num_oov_indices)
        return np.mod(values, self.num_oov_indices)

    def _inverse(self, inputs):
        return self._output(super()._inverse(inputs).astype(np.int64))

    def get_config(self):
        return {**super().get_config(), "vocabulary_dtype": self.vocabulary_dtype}
