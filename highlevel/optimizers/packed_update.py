"""One flat buffer for all of a small model's parameters, gradients and optimizer slots.

For small models the optimizer's cost is the per-call overhead of its ~10 in-place array
operations per variable, not arithmetic. Packing the variables (and their slots) into
contiguous buffers whose pieces the variables then view lets one fused kernel call update
everything: the gradients are copied into one buffer, then the optimizer's elementwise
update runs once. Elementwise arithmetic is the same either way, so results are bit-identical
to the per-variable path. Large models skip packing (the extra gradient copy would cost
more than the calls it saves).
"""

import operator

from ...backends import state
from ...backends.autodiff import Variable

#: Packing pays while the per-call overhead dominates: below this many parameters.
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

    @staticmethod
    def eligible(variables, records):
        """True when packing applies: one float dtype, same decay, few parameters."""
        dtype = variables[0].data.dtype
        return (sum(int(v.data.size) for v in variables) <= PACK_LIMIT
                and all(v.data.dtype == dtype for v in variables)
                and len({r.decay for r in records}) == 1)

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
