"""``StackedRNNCells``: several recurrent cells run as one cell (``RNN(StackedRNNCells([
LSTMCell(64), GRUCell(32)]))``), with Keras 3's arguments, config and weight order.

Inside ``RNN`` the stack runs cell after cell over the whole sequence, each through its
fused op when every cell has one: the output of cell ``k`` at step ``t`` feeds cell ``k+1``
at step ``t`` and nothing flows back, so this is the step-by-step stack exactly (masked
steps hold every cell's states, as Keras' loop does).
"""

from ...backends.ops.core import index_data
from ..base import LAYERS, Layer
from ..wrappers import serialize_inner
from .cells import FusedCell, nest_weight_paths
from .rnn import deserialize_nested


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


@LAYERS.register()
class StackedRNNCells(Layer):
    """Runs ``cells`` one after the other as a single recurrent cell.

    Args:
        cells: a list of cell layers (each with ``state_size``; the output of one is the
            input of the next).

    ``state_size`` is Keras' list of the cells' state sizes (``[[u1, u1], u2]`` for an
    LSTMCell and a GRUCell). ``RNN`` takes and returns the states flattened in that
    order (``initial_state=[h1, c1, h2]``; ``return_state`` gives ``[output, h1, c1,
    h2]``, where Keras nests them as ``[output, [h1, c1], h2]``); a direct ``call`` takes
    them flat or nested per cell and returns them flat. Weights: each cell's, in order.
    """

    def __init__(self, cells, name=None, trainable=True, dtype=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype)
        if not isinstance(cells, (list, tuple)) or not cells:
            raise ValueError(f"Layer '{self.name}' (StackedRNNCells) needs a non-empty "
                             f"list of cells, got {cells!r}")
        for cell in cells:
            if not isinstance(cell, Layer) or not hasattr(cell, "state_size"):
                raise ValueError(f"Layer '{self.name}' (StackedRNNCells): all cells must "
                                 f"have a `state_size` attribute, got {cell!r}")
        self.cells = list(cells)

    @property
    def state_size(self):
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self):
        return _output_size(self.cells[-1])

    def _state_counts(self):
        return [len(_as_list(cell.state_size)) for cell in self.cells]

    def build(self, input_shape):
        shape = tuple(input_shape)
        for cell in self.cells:
            if not cell.built:
                cell.ensure_built(shape)
                nest_weight_paths(self, cell)
            shape = (shape[0], _output_size(cell))
        self.built = True

    def _split_states(self, states):
        """The flat (or per-cell nested) ``states`` as one list per cell."""
        states = list(states)
        counts = self._state_counts()
        if len(states) == len(self.cells) and any(isinstance(s, (list, tuple))
                                                  for s in states):
            return [_as_list(s) for s in states]
        if len(states) != sum(counts):
            raise ValueError(f"Layer '{self.name}' (StackedRNNCells) expects "
                             f"{sum(counts)} states, got {len(states)}")
        per_cell, start = [], 0
        for count in counts:
            per_cell.append(states[start:start + count])
            start += count
        return per_cell

    def call(self, inputs, states, training=None):
        """One step: ``(output of the last cell, new states flattened)``."""
        new_states = []
        for cell, cell_states in zip(self.cells, self._split_states(_as_list(states))):
            kwargs = {"training": training} if cell.call_accepts_training else {}
            inputs, cell_states = cell(inputs, cell_states, **kwargs)
            new_states.extend(_as_list(cell_states))
        return inputs, new_states

    def runs_fused(self):
        """Whether every cell runs whole sequences through a fused op."""
        return all(isinstance(cell, FusedCell) for cell in self.cells)

    def run_stack(self, sequences, states, mask, go_backwards, training):
        """The whole sequence through each cell in turn (see the module docstring):
        ``(sequence, last output, final states flattened)``."""
        final_states = []
        for i, (cell, cell_states) in enumerate(zip(self.cells, self._split_states(states))):
            inputs = cell.dropped_inputs(sequences, training)
            results = cell.run_sequence(
                inputs, cell_states, mask, go_backwards and i == 0,
                cell.recurrent_dropout_mask(sequences.shape[0], training))
            sequences, last_output = results[0], results[1]
            final_states.extend(results[1:])
            if go_backwards and i == 0 and mask is not None:
                mask = index_data(mask)[:, ::-1].copy()   # later cells see the reversed order
        return sequences, last_output, final_states

    def get_config(self):
        return {**super().get_config(), "cells": [serialize_inner(c) for c in self.cells]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls.from_config_with_objects(config, custom_objects)

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        config = dict(config)
        config["cells"] = [deserialize_nested(entry, custom_objects) if isinstance(entry, dict)
                           else entry for entry in config["cells"]]
        return super().from_config(config)


def _output_size(cell):
    if getattr(cell, "output_size", None) is not None:
        return cell.output_size
    return _as_list(cell.state_size)[0]
