"""One flat buffer for a model's small parameters, their gradients and optimizer slots.

For small variables the optimizer's cost is the per-call overhead of its ~10 in-place
array operations (or of one compiled kernel call) per variable, not arithmetic. Packing
the variables (and their slots) into contiguous buffers whose pieces the variables then
view lets one fused kernel call update them all: the gradients are copied into one
buffer, then the optimizer's elementwise update runs once. Elementwise arithmetic is the
same either way, so results are bit-identical to the per-variable path. Variables larger
than :data:`PACK_LIMIT` (an embedding table, a wide kernel) keep their own update: their
gradient's copy would cost more than the call it saves.
"""

import operator

from ...backends import state
from ...backends.autodiff import Variable

#: Packing pays while the per-call overhead dominates: for variables of at most this
#: many elements.
PACK_LIMIT = 1 << 16


class PackedGroup:
    """Variables and their slots re-homed as views into flat buffers.

    Args:
        variables: the trainable Variables, all of one dtype.
        records: their optimizer records (``.slots`` tuples of slot Variables).
    """

    def __init__(self, variables, records):
        xp = state.backend().xp
        dtype = variables[0].data.dtype
        total = sum(int(v.data.size) for v in variables)
        slot_count = len(records[0].slots)
        self.params = xp.empty(total, dtype=dtype)
        self.gradients = xp.empty(total, dtype=dtype)
        self.slots = tuple(Variable(xp.empty(total, dtype=dtype), trainable=False)
                           for _ in range(slot_count))
        self.decay = records[0].decay
        self.variables = list(variables)
        self.slot_variables = [slot for record in records for slot in record.slots]
        self.gradient_views = []
        self._watched = self.variables + self.slot_variables
        start = 0
        for variable, record in zip(variables, records):
            stop = start + int(variable.data.size)
            variable.data = _rehome(variable.data, self.params, start, stop)
            for slot, flat in zip(record.slots, self.slots):
                slot.data = _rehome(slot.data, flat.data, start, stop)
            self.gradient_views.append(self.gradients[start:stop].reshape(variable.data.shape))
            start = stop
        self._homes = [v.data for v in self._watched]

    def intact(self):
        """False once anything replaced a variable's or slot's array (not in place)."""
        # The eager step's check, without Python-level loops: every variable and slot still
        # holds the view of the flat buffers it was given.
        if all(map(operator.is_, map(_DATA, self._watched), self._homes)):
            return True
        params = _owner(self.params)       # a traced step's arrays view the state's views
        if not all(_owner(v.data) is params for v in self.variables):
            return False
        bases = [_owner(flat.data) for flat in self.slots]
        count = len(bases)
        return all(_owner(slot.data) is bases[i % count]
                   for i, slot in enumerate(self.slot_variables)) if count else True

    def update(self, optimizer, gradients, learning_rate, step):
        """Copy ``gradients`` into the flat buffer and run one optimizer update."""
        for view, gradient in zip(self.gradient_views, gradients):
            view[...] = gradient
        optimizer.update_rule(self.params, self.gradients, self.slots, learning_rate, step,
                          self.decay)


def select(variables, records):
    """The positions of the variables to pack together: those of at most
    :data:`PACK_LIMIT` elements, of the float dtype and the weight decay (on or off) that
    most of them share (on a tie, the first one's). Empty when fewer than two qualify
    (one call either way)."""
    kinds = {}
    for position, (variable, record) in enumerate(zip(variables, records)):
        if variable.data.size <= PACK_LIMIT:
            kinds.setdefault((variable.data.dtype.str, record.decay), []).append(position)
    positions = max(kinds.values(), key=len, default=[])
    return positions if len(positions) >= 2 else []


_DATA = operator.attrgetter("data")


def _owner(array):
    """The array owning ``array``'s memory (a traced step views state through a subclass
    view, whose base is the variable's own view)."""
    while array.base is not None:
        array = array.base
    return array


def _rehome(array, flat, start, stop):
    view = flat[start:stop].reshape(array.shape)
    view[...] = array
    return view
