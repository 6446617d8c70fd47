"""``split_dataset``: one dataset of arrays into two, as ``keras.utils.split_dataset``."""

import numpy as np


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None):
    """Split ``dataset`` (an array, or a tuple/list/dict of equally long arrays) into a
    ``(left, right)`` pair of the same structure.

    Args:
        left_size, right_size: an int (samples) or a float in (0, 1) (a fraction, rounded
            as Keras); one may be None (the rest); both None: ``left_size=0.5``.
        shuffle: shuffle the samples first (``np.random.default_rng(seed)``).
        seed: the shuffling seed.
    """
    arrays, pack = _flatten(dataset)
    total = len(arrays[0])
    if any(len(a) != total for a in arrays):
        raise ValueError(f"split_dataset needs arrays of one length, got "
                         f"{[len(a) for a in arrays]}")
    if left_size is None and right_size is None:
        left_size = 0.5
    left = _size(left_size, total, "left_size")
    right = _size(right_size, total, "right_size")
    if left is None:
        left = total - right
    elif right is None:
        right = total - left
    if left <= 0 or right < 0 or left + right > total:
        raise ValueError(f"split_dataset: left_size={left_size!r} and right_size="
                         f"{right_size!r} do not fit {total} samples")
    order = np.random.default_rng(seed).permutation(total) if shuffle else np.arange(total)
    return (pack([a[order[:left]] for a in arrays]),
            pack([a[order[left:left + right]] for a in arrays]))


def _size(value, total, name):
    if value is None:
        return None
    if isinstance(value, float):
        if not 0.0 < value < 1.0:
            raise ValueError(f"split_dataset needs a float {name} in (0, 1), got {value}")
        return int(round(value * total))
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > 0:
        if value > total:
            raise ValueError(f"split_dataset: {name}={value} exceeds the {total} samples")
        return int(value)
    raise ValueError(f"split_dataset needs {name} a positive int or a float, got {value!r}")


def _flatten(dataset):
    if isinstance(dataset, dict):
        keys = list(dataset)
        return [np.asarray(dataset[k]) for k in keys], lambda parts: dict(zip(keys, parts))
    if isinstance(dataset, (tuple, list)) and dataset and hasattr(dataset[0], "__len__") \
            and not isinstance(dataset[0], str):
        kind = type(dataset)
        return [np.asarray(a) for a in dataset], lambda parts: kind(parts)
    return [np.asarray(dataset)], lambda parts: parts[0]
