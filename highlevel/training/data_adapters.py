"""The data path of ``fit``/``evaluate``/``predict``: what users pass, turned into batches.

The training loop calls one entry point per call: :func:`adapt` (``fit``, ``evaluate``:
inputs, targets, sample and class weights, the validation split or validation data),
:func:`adapt_inputs` (``predict``) or :func:`single_batch` (the per-batch methods); each
gets the model's side as a :class:`DataSpec`. Arrays (single, lists or dicts, matched to
the model's inputs/outputs) are converted to the engine once, validated once, and gathered
per step into reused buffers. Python generators and ``Sequence``-like objects
(``__len__`` + ``__getitem__``) yield batches directly.
"""

import sys

import numpy as np

from ...backends import state
from ...backends.autodiff import Tensor
from ...backends.ops.losses import integer_labels
from ...backends.random import derived_generator
from ..utils.keras_tensors import unpack_batch
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
        array.take(rows, axis=0, out=buffer)
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


# ---------------------------------------------------------------------------- entry points
class DataSpec:
    """What the data path needs to know of a model.

    Args:
        input_names: the names its inputs are matched by (dict keys, list order); empty
            for a model without named inputs (a subclassed one), which then takes a dict
            as its batches (the dict's keys, sorted) or anything else as one input.
        output_names: the names its targets are matched by.
        input_dtypes: dtype per input (floating inputs are cast once to it), or None.
        target_dtype: dtype that floating targets are cast to.
        input_shapes: ``[(input name, shape with the batch axis)]`` the data must fit, or
            None when the model does not know them yet.
        model_name: the model's name, for error messages.
    """

    __slots__ = ("input_names", "output_names", "input_dtypes", "target_dtype",
                 "input_shapes", "model_name")

    def __init__(self, input_names, output_names, input_dtypes=None, target_dtype=None,
                 input_shapes=None, model_name="model"):
        self.input_names = input_names
        self.output_names = output_names
        self.input_dtypes = input_dtypes
        self.target_dtype = target_dtype
        self.input_shapes = input_shapes
        self.model_name = model_name

    def input_arrays(self, x):
        """``(list of input arrays, dict keys or None)`` of ``x``: the keys when a model
        without named inputs is given a dict (its batches are then dicts again)."""
        keys = sorted(x) if isinstance(x, dict) and not self.input_names else None
        return structure_to_list(x, self.input_names or keys or ["input"], "x"), keys

    def fit_input_ranks(self, arrays):
        """``arrays`` with Keras' rank adjustment of functional inputs: an array one axis
        short of an input whose last axis is 1 gains that axis, one with an extra last
        axis of 1 loses it; then checked as :meth:`check_input_shapes`."""
        if self.input_shapes is None:
            return arrays
        fitted = []
        for array, (_, shape) in zip(arrays, self.input_shapes):
            if array.ndim == len(shape) - 1 and shape[-1] == 1:
                array = array.reshape(array.shape + (1,))
            elif array.ndim == len(shape) + 1 and array.shape[-1] == 1:
                array = array.reshape(array.shape[:-1])
            fitted.append(array)
        fitted.extend(arrays[len(fitted):])
        self.check_input_shapes(fitted)
        return fitted

    def check_input_shapes(self, arrays):
        """ValueError naming the input unless every array fits its input's shape."""
        if self.input_shapes is None:
            return
        for array, (name, shape) in zip(arrays, self.input_shapes):
            if len(array.shape) != len(shape) or any(
                    e is not None and e != a for e, a in zip(shape[1:], array.shape[1:])):
                raise ValueError(f"Input '{name}' of model '{self.model_name}' expects shape "
                                 f"{tuple(shape)}, got data of shape {tuple(array.shape)}")


class Batches:
    """The batches of one ``fit``/``evaluate``/``predict`` call.

    ``epoch()`` yields ``(x, y, sample_weight)`` per step (a single input or target as
    itself, several as a list) from arrays, a generator or a ``Sequence``; ``steps`` is the
    number of steps per epoch when it is known up front (given, or counted from arrays),
    ``sequence_length`` the length of a ``Sequence`` source, and ``validation`` the
    :class:`Batches` of the validation data of ``fit`` (None without).
    """

    def __init__(self, source, batch_size, steps=None):
        self.source = source
        self.batch_size = batch_size
        self.max_steps = steps
        self.steps = source.num_batches(batch_size) if steps is None and \
            isinstance(source, ArrayData) else steps
        self.sequence_length = len(source) if is_sequence_like(source) else None
        self.validation = None

    def epoch(self, shuffle_key=None):
        """One pass over the data, in the order derived from ``shuffle_key`` (arrays only;
        None: sequential) and at most ``steps`` batches."""
        source, steps = self.source, self.max_steps
        if isinstance(source, ArrayData):
            order = None
            if shuffle_key is not None:
                order = state.backend().permutation(derived_generator(1, *shuffle_key),
                                                    source.size)
            for step, batch in enumerate(source.batches(self.batch_size, order)):
                if steps is not None and step >= steps:
                    return
                yield _as_step_input(*batch, source.input_keys)
            return
        if is_sequence_like(source):
            count = len(source) if steps is None else min(steps, len(source))
            yield from sequence_batches(source, count)
            return
        for step, batch in enumerate(source):
            if steps is not None and step >= steps:
                return
            yield unpack_batch(batch)


def adapt(spec, x, y=None, sample_weight=None, class_weight=None, *, batch_size, steps=None,
          validation_split=0.0, validation_data=None, validation_batch_size=None,
          validation_steps=None):
    """The :class:`Batches` of ``fit`` / ``evaluate``: ``x`` (arrays, a generator or a
    ``Sequence``), ``y``, ``sample_weight`` and ``class_weight`` checked and converted
    once; with ``validation_split`` the last fraction of the arrays held out (as Keras),
    with ``validation_data`` (a tuple or a batch source) that data, as ``.validation``."""
    data = _source(spec, x, y, sample_weight, class_weight)
    validation = None
    if validation_split and isinstance(data, ArrayData):
        data, validation = data.split(validation_split)
    elif validation_split:
        raise ValueError("validation_split needs array inputs; pass validation_data "
                         "for generators")
    if validation_data is not None and (is_sequence_like(validation_data)
                                        or is_generator_like(validation_data)):
        validation = validation_data  # yields (x, y) batches itself
    elif validation_data is not None:
        vx, vy, vw = unpack_batch(tuple(validation_data))
        validation = _source(spec, vx, vy, vw, source="validation_data")
    batches = Batches(data, batch_size, steps)
    if validation is not None:
        batches.validation = Batches(validation, validation_batch_size, validation_steps)
    return batches


def adapt_inputs(spec, x, *, batch_size, steps=None):
    """The :class:`Batches` of ``predict``: inputs only (arrays, a generator or a
    ``Sequence``)."""
    if is_sequence_like(x) or is_generator_like(x):
        return Batches(x, batch_size, steps)
    xs, keys = spec.input_arrays(x)
    data = ArrayData(xs, None, None, spec.input_dtypes, input_keys=keys)
    data.x = spec.fit_input_ranks(data.x)
    return Batches(data, batch_size, steps)


def single_batch(spec, x, y=None, sample_weight=None, class_weight=None):
    """All of ``x`` (arrays) as the one ``(x, y, sample_weight)`` batch of
    ``train_on_batch`` / ``test_on_batch``."""
    data = _arrays(spec, x, y, sample_weight, class_weight)
    return _as_step_input(*next(data.batches(data.size)), data.input_keys)


def sample_count(spec, x):
    """The number of samples of ``x`` (its first input)."""
    return len(spec.input_arrays(x)[0][0])


def _source(spec, x, y, sample_weight, class_weight=None, source="x"):
    """``x`` itself when it yields batches (checked), else its arrays as ArrayData."""
    if is_sequence_like(x) or is_generator_like(x):
        if y is not None:
            raise ValueError("y must be None when x is a generator or Sequence "
                             "(it yields (x, y) batches)")
        if is_sequence_like(x) and len(x) == 0:
            raise ValueError(f"{source} is a Sequence of length 0: it yields no batches")
        return x
    if x is None:
        raise ValueError("x is required")
    return _arrays(spec, x, y, sample_weight, class_weight, source)


def _arrays(spec, x, y, sample_weight, class_weight=None, source="x"):
    """Inputs, targets and weights (class weights folded in) as checked ArrayData."""
    xs, keys = spec.input_arrays(x)
    ys = structure_to_list(y, spec.output_names, "y")
    if class_weight is not None:
        if ys is None or len(ys) != 1:
            raise ValueError("class_weight needs a single-output model and y")
        cw = class_weight_to_sample_weight(np.asarray(ys[0]), class_weight)
        sample_weight = cw if sample_weight is None else np.asarray(sample_weight) * cw
    data = ArrayData(xs, ys, sample_weight, spec.input_dtypes, spec.target_dtype, source, keys)
    data.x = spec.fit_input_ranks(data.x)
    return data


def _as_step_input(xs, ys, sample_weight, input_keys=None):
    """A batch of lists as a step takes it: one input (target) as itself, several as a list
    (a dict again with ``input_keys``)."""
    return (dict(zip(input_keys, xs)) if input_keys else xs[0] if len(xs) == 1 else xs,
            None if ys is None else (ys[0] if len(ys) == 1 else ys), sample_weight)
