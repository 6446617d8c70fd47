"""Turning what users pass to ``fit``/``evaluate``/``predict`` into batches.

Arrays (single, lists or dicts, matched to the model's inputs/outputs) are converted to the
engine once, validated once, and gathered per step into reused buffers. Python generators
and ``Sequence``-like objects (``__len__`` + ``__getitem__``) yield batches directly.
"""

import sys

import numpy as np

from ...backends import state
from ...backends.autodiff import Tensor
from ...backends.ops.losses import integer_labels
from ..utils.py_dataset import ordered_batches


def is_pandas(value):
    """True for a pandas ``DataFrame`` or ``Series`` (pandas is never imported for this:
    an object can only be one if the user's program has imported pandas already)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, (pandas.DataFrame, pandas.Series))


def from_pandas(value):
    """A pandas ``DataFrame``/``Series`` as its NumPy array (``to_numpy()``: rows are
    samples, the index is dropped); any other value unchanged. The one conversion the
    training loop and the scikit-learn wrappers share."""
    return value.to_numpy() if is_pandas(value) else value


def _to_numpy(value, name, strings=False):
    if isinstance(value, Tensor):
        return value.numpy()
    array = np.asarray(from_pandas(value))
    if strings and array.dtype.kind in "OUS":   # an Input(dtype="string"): text stays text
        return array.astype(object)
    if array.dtype.kind not in "fiub":
        raise TypeError(f"{name} must be numeric, got an array of dtype {array.dtype}")
    return array


def structure_to_list(value, names, what):
    """``value`` (array, list/tuple of arrays, or dict keyed by ``names``) as a list."""
    if value is None:
        return None
    if isinstance(value, dict):
        missing = [n for n in names if n not in value]
        if missing:
            raise ValueError(f"{what} dict is missing keys {missing}; expected {names}")
        return [value[n] for n in names]
    if len(names) > 1:
        if not isinstance(value, (list, tuple)) or len(value) != len(names):
            raise ValueError(f"{what} must be a list of {len(names)} arrays (or a dict keyed "
                             f"by {names}) for this model")
        return list(value)
    if isinstance(value, (list, tuple)) and len(value) == 1 and hasattr(value[0], "shape"):
        return [value[0]]
    if isinstance(value, (list, tuple)) and len(value) > 1 and all(
            isinstance(v, (np.ndarray, Tensor)) and v.ndim >= 2 for v in value):
        raise ValueError(f"{what} is a list of {len(value)} arrays, but the model has one "
                         f"{'input' if what == 'x' else 'output'} ({names[0]!r}): pass one array")
    return [value]


class ArrayData:
    """In-memory inputs, targets and sample weights as engine arrays.

    Args:
        x: list of input arrays (already matched to the model inputs).
        y: list of target arrays or None.
        sample_weight: array (n,) or (n, timesteps), or None.
        input_dtypes: dtype per input (floating inputs are cast once to it).
        target_dtype: dtype that floating targets are cast to.
        source: what the arrays were passed as, for error messages (``"x"``,
            ``"validation_data"``).
        input_keys: the dict keys of ``x`` for a model without named inputs (a subclassed
            model reading ``inputs["a"]``): batches are handed to it as dicts again.

    Raises:
        ValueError: no samples, inputs/targets/weights of different lengths, or
            ``sample_weight`` of a shape that does not match ``y``.
    """

    def __init__(self, x, y=None, sample_weight=None, input_dtypes=None, target_dtype=None,
                 source="x", input_keys=None):
        backend = state.backend()
        self.input_keys = input_keys
        dtypes = input_dtypes or [state.floatx()] * len(x)
        xs = [_to_numpy(v, "x", i < len(dtypes) and dtypes[i] == "string")
              for i, v in enumerate(x)]
        ys = None if y is None else [_to_numpy(v, "y") for v in y]
        lengths = {len(a) if a.ndim else 1 for a in xs}
        if len(lengths) != 1:
            raise ValueError(f"all inputs must have the same number of samples, got "
                             f"{sorted(lengths)}")
        self.size = lengths.pop()
        if self.size == 0:
            raise ValueError(f"{source} has 0 samples (an array of shape "
                             f"{tuple(xs[0].shape)}): at least one sample is needed")
        if ys is not None:
            for position, target in enumerate(ys):
                if len(target) != self.size:
                    raise ValueError(f"x and y have different numbers of samples: x has "
                                     f"{self.size}, y{'' if len(ys) == 1 else f'[{position}]'} "
                                     f"has {len(target)}")
        if sample_weight is not None:
            sample_weight = _checked_sample_weight(
                _to_numpy(sample_weight, "sample_weight").astype(state.floatx()),
                self.size, ys)
        self.x = [a if a.dtype == object else backend.asarray(
            a.astype(d, copy=False) if a.dtype.kind == "f" or d.startswith("float") else a)
            for a, d in zip(xs, dtypes)]
        target_dtype = target_dtype or state.floatx()
        self.y = None if ys is None else [
            backend.asarray(t.astype(target_dtype, copy=False) if t.dtype.kind in "fb" else t)
            for t in ys]
        self.sample_weight = None if sample_weight is None else backend.asarray(sample_weight)
        self._buffers = {}

    def split(self, fraction):
        """(train, validation): the last ``fraction`` of samples held out, as Keras does."""
        cut = int(self.size * (1.0 - fraction))
        if cut <= 0 or cut >= self.size:
            raise ValueError(f"validation_split={fraction} leaves no samples on one side "
                             f"of {self.size}")
        return self._subset(slice(0, cut)), self._subset(slice(cut, None))

    def _subset(self, index):
        clone = object.__new__(ArrayData)
        clone.x = [a[index] for a in self.x]
        clone.y = None if self.y is None else [a[index] for a in self.y]
        clone.sample_weight = None if self.sample_weight is None else self.sample_weight[index]
        clone.size = len(clone.x[0])
        clone.input_keys = self.input_keys
        clone._buffers = {}
        return clone

    def num_batches(self, batch_size):
        return -(-self.size // batch_size)

    def batches(self, batch_size, order=None):
        """Yield (x list, y list or None, sample_weight or None) per batch; ``order`` is an
        index permutation (None: sequential slices, no copy)."""
        xp = state.backend().xp
        for start in range(0, self.size, batch_size):
            stop = min(start + batch_size, self.size)
            if order is None:
                index = slice(start, stop)
                yield ([a[index] for a in self.x],
                       None if self.y is None else [a[index] for a in self.y],
                       None if self.sample_weight is None else self.sample_weight[index])
                continue
            rows = order[start:stop]
            yield ([self._gather(a, rows, ("x", i), xp) for i, a in enumerate(self.x)],
                   None if self.y is None else
                   [self._gather(a, rows, ("y", i), xp) for i, a in enumerate(self.y)],
                   None if self.sample_weight is None else
                   self._gather(self.sample_weight, rows, ("w", 0), xp))

    def _gather(self, array, rows, key, xp):
        if array.dtype == object:   # strings stay host NumPy arrays
            return array[np.asarray(state.backend().to_numpy(rows))]
        shape = (len(rows),) + array.shape[1:]
        buffer = self._buffers.get((key, shape))
        if buffer is None:
            buffer = xp.empty(shape, dtype=array.dtype)
            self._buffers[(key, shape)] = buffer
        xp.take(array, rows, axis=0, out=buffer)
        return buffer


def _checked_sample_weight(weights, size, targets):
    """``weights`` (one per sample, or per sample and timestep) checked against the number
    of samples and every target array; a trailing axis of length 1 is dropped."""
    received = tuple(weights.shape)
    if weights.ndim == 0:
        raise ValueError(f"sample_weight must hold one weight per sample, shape ({size},); "
                         f"got a scalar")
    if weights.shape[0] != size:
        raise ValueError(f"sample_weight has {weights.shape[0]} entries for {size} samples")
    if weights.ndim > 1 and weights.shape[-1] == 1:
        weights = weights.reshape(weights.shape[:-1])
    for target in targets or ():
        if tuple(weights.shape) != tuple(target.shape[:weights.ndim]):
            raise ValueError(f"sample_weight of shape {received} does not match y of shape "
                             f"{tuple(target.shape)}: it must have shape ({size},) or the "
                             f"leading shape of y (e.g. (samples, timesteps))")
    return weights


def _is_array_like(value):
    return isinstance(value, (np.ndarray, list, tuple, dict, Tensor)) or is_pandas(value)


def is_sequence_like(value):
    """True for Keras ``Sequence``/``PyDataset``-like objects (len + indexing)."""
    return hasattr(value, "__len__") and hasattr(value, "__getitem__") and not \
        _is_array_like(value)


def is_generator_like(value):
    """True for iterators/generators yielding batches."""
    return hasattr(value, "__next__") or (hasattr(value, "__iter__") and not
                                          _is_array_like(value) and not is_sequence_like(value))


def unpack_batch(batch):
    """A yielded batch ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` as a triple."""
    if isinstance(batch, tuple):
        if len(batch) == 1:
            return batch[0], None, None
        if len(batch) == 2:
            return batch[0], batch[1], None
        if len(batch) == 3:
            return batch
        raise ValueError(f"a batch must be x, (x, y) or (x, y, sample_weight); got a tuple "
                         f"of {len(batch)}")
    return batch, None, None


def sequence_batches(dataset, count):
    """One pass over batches ``0 .. count-1`` of a ``Sequence``/``PyDataset`` as
    ``(x, y, sample_weight)`` triples, in order, between its ``on_epoch_begin`` and
    ``on_epoch_end``; a ``PyDataset`` with workers has them prepared by its workers while the
    caller trains (``lamina.utils.py_dataset.ordered_batches``). Close it (or let it go) to
    stop the workers early."""
    if hasattr(dataset, "on_epoch_begin"):
        dataset.on_epoch_begin()
    for batch in ordered_batches(dataset, count):
        yield unpack_batch(batch)
    if hasattr(dataset, "on_epoch_end"):
        dataset.on_epoch_end()


def class_weight_to_sample_weight(y, class_weight):
    """Per-sample weights from a ``{class: weight}`` dict (sparse or one-hot targets)."""
    labels = np.asarray(state.backend().to_numpy(y))
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = labels.argmax(axis=-1)
    labels = integer_labels(labels.reshape(len(labels), -1)[:, 0] if labels.ndim > 1
                            else labels, xp=np)
    unknown = sorted(set(np.unique(labels).tolist()) - set(class_weight))
    if unknown:
        raise ValueError(f"class_weight has no entry for classes {unknown}")
    table = np.zeros(max(max(class_weight), labels.max(initial=0)) + 1, dtype=state.floatx())
    for label, weight in class_weight.items():
        table[label] = weight
    return table[labels]
