"""Host scalars that are inputs of a trace (the learning rate, the step count).

Inside a recorded step :func:`host_input` returns a :class:`TraceScalar`: a Python float
that remembers the arithmetic done on it, so the Adam bias correction
``lr * sqrt(1 - b2 ** step) / (1 - b1 ** step)`` becomes an expression the replay
re-evaluates from each step's inputs, with the same float operations in the same order as
eager mode (bit-identical). Outside a trace :func:`host_input` returns the value unchanged.
"""

import operator

from . import session


class TraceScalar(float):
    """A float whose value is computed from named trace inputs by ``expression``:
    ``("input", name)`` or ``(operator, operand, operand)`` with operands TraceScalars or
    constants."""

    __slots__ = ("expression",)

    def __new__(cls, value, expression):
        scalar = super().__new__(cls, value)
        scalar.expression = expression
        return scalar

    def _apply(self, function, other, reflected):
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            return NotImplemented
        left, right = (other, self) if reflected else (self, other)
        return TraceScalar(function(_plain(left), _plain(right)), (function, left, right))

    def __neg__(self):
        return TraceScalar(-float(self), (operator.neg, self))

    def _host_decision(self, function, other):
        session.mark_untraceable("Python control flow on a step input (learning rate or "
                                 "step count)")
        return function(float(self), other)

    def __bool__(self):
        return self._host_decision(operator.ne, 0.0)

    __hash__ = float.__hash__


def _arithmetic(function):
    def forward(self, other):
        return self._apply(function, other, False)

    def reflected(self, other):
        return self._apply(function, other, True)

    return forward, reflected


for _name, _function in (("add", operator.add), ("sub", operator.sub),
                         ("mul", operator.mul), ("truediv", operator.truediv),
                         ("pow", operator.pow)):
    _forward, _reflected = _arithmetic(_function)
    setattr(TraceScalar, f"__{_name}__", _forward)
    setattr(TraceScalar, f"__r{_name}__", _reflected)


for _name in ("lt", "le", "gt", "ge"):
    setattr(TraceScalar, f"__{_name}__",
            lambda self, other, _f=getattr(operator, _name): self._host_decision(_f, other))


def _plain(value):
    return float(value) if isinstance(value, TraceScalar) else value


def host_input(name, value):
    """``value`` (a Python number), or inside a recorded step a :class:`TraceScalar` input
    ``name`` of the trace: the replay supplies that step's value."""
    recorder = session.active()
    if recorder is None:
        return value
    recorder.step_input(name)
    return TraceScalar(float(value), ("input", name))


class Program:
    """The expressions ``roots`` as a flat list of float operations (shared
    sub-expressions once), evaluated per replay by :meth:`run` with eager mode's float
    operations in eager mode's order."""

    def __init__(self, roots):
        self.steps = []          # (function or None for an input, operands or input name)
        positions = {}

        def visit(expression):
            if not isinstance(expression, TraceScalar):
                return ("constant", expression)
            key = id(expression)
            if key not in positions:
                parts = expression.expression
                step = (None, parts[1]) if parts[0] == "input" else (
                    parts[0], tuple(visit(p) for p in parts[1:]))
                positions[key] = len(self.steps)
                self.steps.append(step)
            return positions[key]

        self.outputs = [visit(root) for root in roots]
        self._run = self._generate()

    def run(self, inputs):
        """The roots' values given ``inputs`` ``{name: value}``."""
        return self._run(inputs)

    def _generate(self):
        """:meth:`run` as one generated function: a line per float operation, the
        functions and constants bound by name (no per-operation interpretation)."""
        names, lines = {}, []

        def operand(reference):
            if type(reference) is int:
                return f"v{reference}"
            name = f"c{len(names)}"
            names[name] = reference[1]
            return name

        for position, (function, operands) in enumerate(self.steps):
            if function is None:
                names[f"n{position}"] = operands
                lines.append(f"    v{position} = float(inputs[n{position}])")
            else:
                names[f"f{position}"] = function
                arguments = ", ".join(operand(o) for o in operands)
                lines.append(f"    v{position} = f{position}({arguments})")
        results = ", ".join(operand(o) for o in self.outputs)
        source = "def run(inputs):\n" + "\n".join(lines + [f"    return [{results}]"])
        exec(compile(source, "<trace scalars>", "exec"), names)   # noqa: S102 - our own source
        return names["run"]


def structure(expression):
    """A comparable description of ``expression`` (the same arithmetic on the same inputs
    and constants gives equal structures)."""
    if not isinstance(expression, TraceScalar):
        return ("constant", type(expression).__name__, expression)
    parts = expression.expression
    if parts[0] == "input":
        return parts
    return (parts[0].__name__,) + tuple(structure(p) for p in parts[1:])
