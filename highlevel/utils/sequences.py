"""Sequence helpers as in ``keras.utils``: ``pad_sequences`` and
``timeseries_dataset_from_array``."""

import numpy as np

from .array_batches import ArrayBatches


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """Pad (or truncate) a list of sequences to one array of shape
    ``(len(sequences), maxlen, *sample_shape)``, exactly as ``keras.utils.pad_sequences``.

    Args:
        sequences: a list of sequences (lists or arrays, items of one shape).
        maxlen: the output length (default: the longest sequence).
        dtype: the output dtype (``object`` for variable-length strings).
        padding: ``"pre"`` (default) or ``"post"``: where the padding goes.
        truncating: ``"pre"`` (default: drop the start) or ``"post"``: what is cut.
        value: the padding value.

    Example:
        >>> pad_sequences([[1], [2, 3], [4, 5, 6]])
        array([[0, 0, 1], [0, 2, 3], [4, 5, 6]], dtype=int32)
    """
    if padding not in ("pre", "post"):
        raise ValueError(f"pad_sequences needs padding 'pre' or 'post', got {padding!r}")
    if truncating not in ("pre", "post"):
        raise ValueError(f"pad_sequences needs truncating 'pre' or 'post', got {truncating!r}")
    if not hasattr(sequences, "__len__"):
        raise ValueError(f"pad_sequences needs a list of sequences, got "
                         f"{type(sequences).__name__}")
    try:
        lengths = np.array([len(s) for s in sequences], dtype=np.int64)
    except TypeError as error:
        raise ValueError(f"pad_sequences needs a list of iterables; got a non-iterable "
                         f"item ({error})") from None
    items = [np.asarray(s) for s in sequences if len(s)]
    sample_shape = items[0].shape[1:] if items else ()
    for position, item in enumerate(items):
        if item.shape[1:] != sample_shape:
            raise ValueError(f"pad_sequences got a sample of shape {item.shape[1:]} in "
                             f"sequence {position}, unlike the first one's {sample_shape}")
    is_text = np.issubdtype(np.dtype(dtype), np.str_) or np.issubdtype(np.dtype(dtype),
                                                                       np.bytes_)
    if isinstance(value, str) and dtype is not object and not is_text:
        raise ValueError(f"pad_sequences: dtype {dtype} cannot hold value={value!r}; set "
                         f"dtype=object for variable-length strings")
    maxlen = int(lengths.max()) if maxlen is None and len(lengths) else int(maxlen or 0)
    out = np.full((len(lengths), maxlen) + tuple(sample_shape), value, dtype=dtype)
    if not items or maxlen == 0:
        return out
    flat = np.concatenate(items).astype(dtype)
    kept = np.minimum(lengths, maxlen)
    row = np.repeat(np.arange(len(lengths)), lengths)
    position = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    if truncating == "pre":
        position = position - np.repeat(lengths - kept, lengths)
    keep = (position >= 0) & (position < np.repeat(kept, lengths))
    if padding == "pre":
        position = position + np.repeat(maxlen - kept, lengths)
    out[row[keep], position[keep]] = flat[keep]
    return out


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None):
    """Sliding windows over a time series, as ``keras.utils.timeseries_dataset_from_array``:
    window ``i`` starts at ``start_index + s_i`` (``s_i = 0, sequence_stride, ...``) and
    takes every ``sampling_rate``-th of ``sequence_length`` steps; its target is
    ``targets[start_index + s_i]``.

    Returns an :class:`ArrayBatches` of ``(x, y)`` NumPy batches (``x`` alone when
    ``targets`` is None) that ``fit``/``evaluate``/``predict`` accept directly.
    ``shuffle=True`` permutes the windows with ``np.random.RandomState(seed)`` as Keras
    does (Keras' extra ``tf.data`` buffer shuffle is not reproduced).
    """
    data = np.asarray(data)
    for name, amount in (("sequence_length", sequence_length),
                         ("sequence_stride", sequence_stride),
                         ("sampling_rate", sampling_rate)):
        if not isinstance(amount, (int, np.integer)) or amount <= 0:
            raise ValueError(f"timeseries_dataset_from_array needs {name} a positive int, "
                             f"got {amount!r}")
    start_index = 0 if start_index is None else int(start_index)
    end_index = len(data) if end_index is None else int(end_index)
    if not 0 <= start_index < max(len(data), 1) or not start_index < end_index <= len(data):
        raise ValueError(f"timeseries_dataset_from_array needs 0 <= start_index < end_index "
                         f"<= len(data) = {len(data)}, got start_index={start_index}, "
                         f"end_index={end_index}")
    count = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        targets = np.asarray(targets)
        count = min(count, len(targets))
    starts = np.arange(0, max(count, 0), sequence_stride, dtype=np.int64)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(starts)
    windows = start_index + starts[:, None] + np.arange(sequence_length) * sampling_rate
    x = data[windows]
    arrays = (x,) if targets is None else (x, targets[start_index + starts])
    return ArrayBatches(arrays, batch_size)
