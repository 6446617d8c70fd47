"""Nested structures ("trees") of lists, tuples, namedtuples, dicts and deques: flatten,
map and repack them, with Keras 3's ``keras.tree`` semantics (its optree rules).

The nodes are exactly ``list``, ``tuple``, namedtuples (and struct sequences such as
``time.struct_time``), ``dict``, ``collections.defaultdict``, ``collections.OrderedDict``
and ``collections.deque``; everything else, ``None`` included, is a leaf (so are
subclasses of list/tuple/dict that are not namedtuples). A ``dict`` or ``defaultdict``
gives its values in sorted key order, an ``OrderedDict`` in its own order; repacking a
dict keeps the structure's original key order. This module is the one nesting utility of
lamina: the layers and models flatten their inputs and outputs with it.
"""

import warnings
from collections import OrderedDict, defaultdict, deque

__all__ = ["MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten",
           "flatten_with_path", "is_nested", "lists_to_tuples", "map_shape_structure",
           "map_structure", "map_structure_up_to", "pack_sequence_as", "traverse"]

_DICTS = (dict, defaultdict, OrderedDict)


class MAP_TO_NONE:
    """Special value for :func:`traverse`: a ``func`` returning it replaces the sub-tree
    with ``None`` (returning ``None`` itself means "keep going" / "unchanged")."""


def _sorted_keys(mapping):
    """The keys of a dict in Keras' deterministic order: sorted; keys of types that do not
    compare are sorted by (qualified type name, key), else kept in insertion order."""
    try:
        return sorted(mapping)
    except TypeError:
        try:
            return sorted(mapping, key=lambda key: (
                f"{type(key).__module__}.{type(key).__qualname__}", key))
        except TypeError:
            return list(mapping)


def _is_named_tuple(structure):
    kind = type(structure)
    return isinstance(structure, tuple) and (
        hasattr(kind, "_fields") or hasattr(kind, "n_sequence_fields"))


def _node(structure):
    """``(keys, children)`` of a node, in flattening order, or None for a leaf."""
    kind = type(structure)
    if kind is list or kind is tuple or kind is deque or _is_named_tuple(structure):
        return range(len(structure)), list(structure)
    if kind is dict or kind is defaultdict:
        keys = _sorted_keys(structure)
        return keys, [structure[key] for key in keys]
    if kind is OrderedDict:
        keys = list(structure)
        return keys, [structure[key] for key in keys]
    return None


def _rebuild(structure, keys, children):
    """A node of ``structure``'s kind holding ``children`` (given in ``keys`` order)."""
    kind = type(structure)
    if kind is list:
        return list(children)
    if kind is tuple:
        return tuple(children)
    if kind is deque:
        return deque(children, maxlen=structure.maxlen)
    if isinstance(structure, tuple):                     # namedtuple or struct sequence
        return kind(children) if hasattr(kind, "n_sequence_fields") else kind(*children)
    by_key = dict(zip(keys, children))
    if kind is OrderedDict:
        return OrderedDict((key, by_key[key]) for key in keys)
    values = ((key, by_key[key]) for key in structure)   # the structure's own key order
    if kind is defaultdict:
        return defaultdict(structure.default_factory, values)
    return dict(values)


def is_nested(structure):
    """True when ``structure`` is a node (list, tuple, namedtuple, dict, deque), False for
    a leaf (``None``, arrays, tensors, scalars, strings, other objects)."""
    return _node(structure) is not None


def _flatten_into(structure, leaves):
    kind = type(structure)
    if kind is list or kind is tuple:
        for item in structure:
            _flatten_into(item, leaves)
        return
    if kind is dict:
        for key in _sorted_keys(structure):
            _flatten_into(structure[key], leaves)
        return
    node = _node(structure)
    if node is None:
        leaves.append(structure)
    else:
        for item in node[1]:
            _flatten_into(item, leaves)


def flatten(structure):
    """The leaves of ``structure`` as a flat list, depth first (dicts by sorted key,
    ``OrderedDict`` in its order); a leaf gives ``[leaf]``, so ``flatten(None)`` is
    ``[None]``."""
    leaves = []
    _flatten_into(structure, leaves)
    return leaves


def flatten_with_path(structure):
    """``[(path, leaf), ...]`` in :func:`flatten`'s order; a path is the tuple of indices
    (sequences and namedtuples) and keys (mappings) leading to the leaf."""
    pairs = []

    def visit(item, path):
        node = _node(item)
        if node is None:
            pairs.append((path, item))
            return
        for key, child in zip(*node):
            visit(child, path + (key,))

    visit(structure, ())
    return pairs


def _mismatch(detail):
    return ValueError(f"The two structures don't have the same nested structure: {detail}.")


def _aligned_children(reference, keys, other):
    """``other``'s children in the order of ``reference``'s ``keys``, after checking that
    ``other`` is the same kind of node (dict kinds are one kind: same key set)."""
    if type(reference) in _DICTS:
        if type(other) not in _DICTS:
            raise _mismatch(f"expected a mapping with keys {sorted(map(str, keys))}, "
                            f"got {other!r}")
        if set(other) != set(keys):
            missing = [k for k in keys if k not in other]
            extra = [k for k in other if k not in reference]
            raise _mismatch(f"mapping keys differ, missing {missing}, extra {extra}")
        return [other[key] for key in keys]
    if type(other) is not type(reference):
        raise _mismatch(f"expected an instance of {type(reference).__qualname__}, "
                        f"got {other!r}")
    if len(other) != len(reference):
        raise _mismatch(f"expected {len(reference)} items, got {len(other)} in {other!r}")
    return list(other)


def _map(func, structures, none_is_leaf):
    first, others = structures[0], structures[1:]
    if first is None and not none_is_leaf:
        if any(other is not None for other in others):
            raise _mismatch(f"expected None, got {[o for o in others if o is not None][0]!r}")
        return None
    node = _node(first)
    if node is None:
        for other in others:
            if is_nested(other) or (other is None and not none_is_leaf):
                raise _mismatch(f"expected a leaf like {first!r}, got {other!r}")
        return func(*structures)
    keys, children = node
    columns = [children] + [_aligned_children(first, keys, other) for other in others]
    return _rebuild(first, keys, [_map(func, list(items), none_is_leaf)
                                  for items in zip(*columns)])


def _map_one(func, structure, is_leaf=None):
    """``func`` on the leaves of one structure (the common case, without the checks of
    several); ``is_leaf`` marks further sub-trees to pass whole."""
    if is_leaf is not None and is_leaf(structure):
        return func(structure)
    kind = type(structure)
    if kind is list:
        return [_map_one(func, item, is_leaf) for item in structure]
    if kind is tuple:
        return tuple(_map_one(func, item, is_leaf) for item in structure)
    node = _node(structure)
    if node is None:
        return func(structure)
    keys, children = node
    return _rebuild(structure, keys, [_map_one(func, child, is_leaf) for child in children])


def map_structure(func, *structures, none_is_leaf=True):
    """``func`` applied to the leaves of ``structures`` (same layout), in a new structure of
    the first one's layout; ``none_is_leaf=False`` keeps ``None`` leaves as ``None``
    without calling ``func``. Raises ValueError when the structures differ."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    if not callable(func):
        raise TypeError(f"`func` must be callable, got {func!r}")
    if len(structures) == 1 and none_is_leaf:
        return _map_one(func, structures[0])
    return _map(func, structures, none_is_leaf)


def map_structure_up_to(shallow_structure, func, *structures):
    """``func`` applied to the sub-trees of ``structures`` that sit where
    ``shallow_structure`` has its leaves (deeper nesting is passed whole), in a structure of
    ``shallow_structure``'s layout. Raises ValueError when a structure is shallower."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    if not callable(func):
        raise TypeError(f"`func` must be callable, got {func!r}")

    def visit(shallow, items):
        node = _node(shallow)
        if node is None:
            return func(*items)
        keys, _ = node
        columns = [_aligned_children(shallow, keys, item) for item in items]
        return _rebuild(shallow, keys, [visit(child, list(column)) for child, column in
                                        zip(node[1], zip(*columns))])

    return visit(shallow_structure, list(structures))


def assert_same_structure(a, b, check_types=None):
    """Raise ValueError unless ``a`` and ``b`` are nested the same way: at every level the
    same node type and size (dict, OrderedDict and defaultdict are one type with the same
    keys; list, tuple, namedtuples and deque differ). ``check_types`` is deprecated and has
    no effect, as in Keras."""
    if check_types is not None:
        warnings.warn("The `check_types` argument is deprecated and no longer has any "
                      "effect" + (", please remove." if check_types else
                                  ". For a looser check, use `assert_same_paths()`."),
                      DeprecationWarning, stacklevel=2)
    _map(lambda *leaves: None, (a, b), True)


def assert_same_paths(a, b):
    """Raise ValueError unless ``a`` and ``b`` have the same leaf paths (the container
    types are not compared: a list and a tuple of two leaves match)."""
    a_paths = {path for path, _ in flatten_with_path(a)}
    b_paths = {path for path, _ in flatten_with_path(b)}
    if a_paths != b_paths:
        message = "`a` and `b` don't have the same paths."
        if a_paths - b_paths:
            message += f"\nPaths in `a` missing in `b`:\n{a_paths - b_paths}"
        if b_paths - a_paths:
            message += f"\nPaths in `b` missing in `a`:\n{b_paths - a_paths}"
        raise ValueError(message)


def pack_sequence_as(structure, flat_sequence):
    """The leaves of ``flat_sequence`` (in :func:`flatten`'s order) packed into the layout
    of ``structure``; raises ValueError when the number of leaves differs and TypeError
    when ``flat_sequence`` is not iterable."""
    flat = list(flat_sequence)
    expected = len(flatten(structure))
    if len(flat) != expected:
        raise ValueError(f"Too {'few' if len(flat) < expected else 'many'} leaves to pack: "
                         f"the structure holds {expected}, got {len(flat)}.")
    leaves = iter(flat)

    def rebuild(item):
        node = _node(item)
        if node is None:
            return next(leaves)
        keys, children = node
        return _rebuild(item, keys, [rebuild(child) for child in children])

    return rebuild(structure)


def traverse(func, structure, top_down=True):
    """Depth-first traversal calling ``func`` on every sub-tree. Top down: a result other
    than None replaces the sub-tree and stops the descent; bottom up: a result other than
    None replaces the (already traversed) sub-tree. ``MAP_TO_NONE`` replaces it with None."""
    if not callable(func):
        raise TypeError(f"`func` must be callable, got {func!r}")

    def children_traversed(item):
        node = _node(item)
        if node is None:
            return item
        keys, children = node
        return _rebuild(item, keys, [visit(child) for child in children])

    def visit(item):
        if top_down:
            result = func(item)
            if result is None:
                return children_traversed(item)
        else:
            item = children_traversed(item)
            result = func(item)
            if result is None:
                return item
        return None if result is MAP_TO_NONE else result

    return visit(structure)


def lists_to_tuples(structure):
    """``structure`` with every list (at any depth) turned into a tuple."""
    return traverse(lambda item: tuple(item) if isinstance(item, list) else None,
                    structure, top_down=False)


def _is_shape(item):
    return isinstance(item, (list, tuple)) and all(
        isinstance(dim, int) or dim is None for dim in item)


def map_shape_structure(func, structure):
    """:func:`map_structure` where a list/tuple of ints and Nones (a shape) counts as one
    leaf: ``func`` receives whole shapes."""
    return _map_one(func, structure, _is_shape)
