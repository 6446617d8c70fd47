"""``ArrayBatches``: fixed in-memory arrays served as a sequence of batches (what the
dataset helpers of ``lamina.utils`` return instead of a ``tf.data.Dataset``)."""

import numpy as np


class ArrayBatches:
    """Batches of equally long arrays: ``batches[i]`` is the tuple of rows
    ``i*batch_size : (i+1)*batch_size`` of each array (a single array when there is one;
    ``(x, y)`` for inputs and targets). ``len`` is the number of batches (the last one may
    be smaller); iterating yields them in order. ``fit``, ``evaluate`` and ``predict``
    accept it as they accept a ``PyDataset``. ``batch_size=None``: one sample per item,
    unbatched, as Keras' ``batch_size=None``.

    Attributes:
        arrays: the tuple of full arrays.
        batch_size: the batch size.
        class_names: the class names, for directory datasets (else None).
    """

    def __init__(self, arrays, batch_size, class_names=None):
        self.arrays = tuple(np.asarray(a) if not isinstance(a, np.ndarray) else a
                            for a in arrays)
        if batch_size is not None and (not isinstance(batch_size, (int, np.integer))
                                       or batch_size <= 0):
            raise ValueError(f"batch_size must be a positive int or None, got {batch_size!r}")
        self.batch_size = batch_size
        self.class_names = class_names
        self._size = len(self.arrays[0]) if self.arrays else 0

    def __len__(self):
        if self.batch_size is None:
            return self._size
        return -(-self._size // self.batch_size)

    def __getitem__(self, index):
        if not -len(self) <= index < len(self):
            raise IndexError(f"batch {index} out of range for {len(self)} batches")
        index %= len(self)
        if self.batch_size is None:
            items = tuple(a[index] for a in self.arrays)
        else:
            rows = slice(index * self.batch_size, (index + 1) * self.batch_size)
            items = tuple(a[rows] for a in self.arrays)
        return items[0] if len(items) == 1 else items

    def __iter__(self):
        for index in range(len(self)):
            yield self[index]
