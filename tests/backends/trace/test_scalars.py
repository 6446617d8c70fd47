"""TraceScalar arithmetic records expressions that Program re-evaluates bit for bit."""

from lamina.backends.trace import TraceScalar, recording, Recorder
from lamina.backends.trace.scalars import Program, structure


def test_program_repeats_eager_float_arithmetic():
    lr, step = TraceScalar(1e-3, ("input", "learning_rate")), TraceScalar(3.0, ("input", "step"))
    alpha = lr * (1.0 - 0.999 ** step) ** 0.5 / (1.0 - 0.9 ** step)
    assert float(alpha) == 1e-3 * (1.0 - 0.999 ** 3) ** 0.5 / (1.0 - 0.9 ** 3)
    program = Program([alpha, -lr, 2 - step])
    values = program.run({"learning_rate": 0.5, "step": 7})
    assert values == [0.5 * (1.0 - 0.999 ** 7) ** 0.5 / (1.0 - 0.9 ** 7), -0.5, -5.0]
    assert structure(alpha) == structure(lr * (1.0 - 0.999 ** step) ** 0.5 / (1.0 - 0.9 ** step))
    assert Program([2.5, lr]).run({"learning_rate": 0.25}) == [2.5, 0.25]   # a constant root


def test_control_flow_on_a_step_input_marks_the_recording():
    recorder = Recorder([], [])
    with recording(recorder):
        if TraceScalar(2.0, ("input", "step")) > 1:
            pass
    assert recorder.reasons and "control flow" in recorder.reasons[0]
