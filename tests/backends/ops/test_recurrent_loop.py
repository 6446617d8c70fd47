"""The recurrent ops' compiled-loop path (``backends/ops/recurrent_loop.py``): ``lstm``,
``gru`` and ``simple_rnn`` on the engine's compiled time loops against the same ops stepped
from Python (the array-call path), forward and every gradient, in float32 and float64,
with masks, ``go_backwards``, initial states, recurrent dropout and no bias, also when the
batch runs in several row blocks; the compiled path joins the op harness; and the cases
that keep the Python loop (other activations, ``reset_after=False``, mixed dtypes)."""

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends import Tensor, use_backend
from lamina.backends.numpy import engine as numpy_backend

from harness.recurrent import gru_step, lstm_step, reference_run, simple_step

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(
    numpy_backend.NumpyBackend().recurrent_loop_kernels("lstm", "float32") is None,
    reason="no compiled loops here (LAMINA_JIT=0 or no CBLAS entry point)")

RNG = np.random.default_rng(21)
BATCH, STEPS, FEATURES, UNITS = 5, 6, 3, 4
MASK = RNG.uniform(size=(BATCH, STEPS)) > 0.3
DROPOUT = 2.0 * (RNG.uniform(size=(BATCH, UNITS)) > 0.5)

# op, gate count, bias shape, number of states
OPS = {"lstm": (ops.lstm, 4, (4 * UNITS,), 2),
       "gru": (ops.gru, 3, (2, 3 * UNITS), 1),
       "simple_rnn": (ops.simple_rnn, 1, (UNITS,), 1)}
OPTIONS = {
    "plain": {},
    "no_bias": {"bias": None},
    "go_backwards": {"go_backwards": True},
    "mask_dropout_states": {"mask": MASK, "recurrent_dropout_mask": DROPOUT, "states": True},
    "everything": {"mask": MASK, "go_backwards": True, "recurrent_dropout_mask": DROPOUT,
                   "states": True},
}


def case(name, options, dtype):
    """(arrays, keyword arguments) of op ``name`` in ``dtype``."""
    _, gates, bias_shape, states = OPS[name]
    arrays = [RNG.standard_normal((BATCH, STEPS, FEATURES)),
              RNG.standard_normal((FEATURES, gates * UNITS)) * 0.6,
              RNG.standard_normal((UNITS, gates * UNITS)) * 0.6,
              RNG.standard_normal(bias_shape) * 0.3]
    if "bias" in options:
        arrays[3] = None
    if options.get("states"):
        arrays += [RNG.standard_normal((BATCH, UNITS)) for _ in range(states)]
    arrays = [None if a is None else a.astype(dtype) for a in arrays]
    kwargs = {k: v for k, v in options.items() if k not in ("bias", "states")}
    if "recurrent_dropout_mask" in kwargs:
        kwargs["recurrent_dropout_mask"] = kwargs["recurrent_dropout_mask"].astype(dtype)
    return arrays, kwargs


def values_and_gradients(op, arrays, kwargs, constant=()):
    """Outputs and the gradients of every given array (but those at the indices in
    ``constant``, which need none) under a loss that weights each output differently."""
    tensors = [None if a is None else Tensor(a, requires_grad=k not in constant)
               for k, a in enumerate(arrays)]
    outputs = op(*tensors, **kwargs)
    loss = sum(ops.sum(out * np.asarray(RNG.standard_normal(out.shape), out.dtype))
               for out in outputs)
    return [out.numpy() for out in outputs] + \
        [g.numpy() for g in lamina.grad(loss, [t for t in tensors
                                               if t is not None and t.requires_grad])]


def python_loop(monkeypatch):
    """Make the NumPy engine answer no compiled loops (the ops then step in Python)."""
    monkeypatch.setattr(numpy_backend.NumpyBackend, "recurrent_loop_kernels",
                        lambda self, cell, dtype: None)


def compare_paths(name, arrays, kwargs, monkeypatch, dtype, blocks=None, constant=()):
    """The op on the compiled loop equals the op stepped from Python."""
    op = OPS[name][0]
    with use_backend("numpy"):
        with monkeypatch.context() as patch:
            if blocks is not None:
                patch.setattr(numpy_backend.NumpyBackend, "batch_blocks",
                              lambda self, batch, elements: blocks)
            state = RNG.bit_generator.state
            compiled = values_and_gradients(op, arrays, kwargs, constant)
        RNG.bit_generator.state = state          # the same loss weights on both paths
        python_loop(monkeypatch)
        stepped = values_and_gradients(op, arrays, kwargs, constant)
    tolerance = dict(rtol=3e-5, atol=3e-6) if dtype == "float32" else dict(rtol=1e-10,
                                                                          atol=1e-12)
    assert len(compiled) == len(stepped)
    for got, want in zip(compiled, stepped):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, want, **tolerance)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("variant", list(OPTIONS))
@pytest.mark.parametrize("name", list(OPS))
def test_compiled_loop_equals_the_python_loop(name, variant, dtype, monkeypatch):
    arrays, kwargs = case(name, OPTIONS[variant], dtype)
    compare_paths(name, arrays, kwargs, monkeypatch, dtype)


@pytest.mark.parametrize("name", list(OPS))
def test_row_blocks_write_only_their_rows(name, monkeypatch):
    """Three uneven row blocks (as threads run them) give the one-block result."""
    arrays, kwargs = case(name, OPTIONS["everything"], "float32")
    compare_paths(name, arrays, kwargs, monkeypatch, "float32",
                  blocks=[slice(0, 1), slice(1, 3), slice(3, BATCH)])


@pytest.mark.parametrize("name", list(OPS))
def test_a_bias_that_needs_no_gradient(name, monkeypatch):
    """With the bias constant the backward loops skip its sums (an empty stand-in); the
    other gradients are unchanged, also over several row blocks."""
    arrays, kwargs = case(name, OPTIONS["mask_dropout_states"], "float32")
    compare_paths(name, arrays, kwargs, monkeypatch, "float32",
                  blocks=[slice(0, 2), slice(2, BATCH)], constant=(3,))


def test_the_ops_take_the_compiled_loop(monkeypatch):
    """With default activations every op asks for its loop (and uses it)."""
    asked = []
    original = numpy_backend.NumpyBackend.recurrent_loop_kernels

    def spy(self, cell, dtype):
        asked.append(cell)
        return original(self, cell, dtype)

    monkeypatch.setattr(numpy_backend.NumpyBackend, "recurrent_loop_kernels", spy)
    with use_backend("numpy"):
        for name in OPS:
            arrays, kwargs = case(name, {}, "float32")
            OPS[name][0](*arrays, **kwargs)
    assert asked == ["lstm", "gru", "simple_rnn"]


@pytest.mark.parametrize("name,kwargs", [
    ("lstm", {"recurrent_activation": "hard_sigmoid"}),
    ("gru", {"reset_after": False}),
    ("simple_rnn", {"activation": "relu"}),
], ids=["lstm_hard_sigmoid", "gru_reset_before", "simple_rnn_relu"])
def test_other_activations_keep_the_python_loop(name, kwargs, monkeypatch):
    monkeypatch.setattr(numpy_backend.NumpyBackend, "recurrent_loop_kernels",
                        lambda self, cell, dtype: pytest.fail("compiled loop asked for"))
    arrays, _ = case(name, {}, "float32")
    if name == "gru":
        arrays[3] = arrays[3][0]
    with use_backend("numpy"):
        assert OPS[name][0](*arrays, **kwargs)[0].shape == (BATCH, STEPS, UNITS)


def test_mixed_dtypes_keep_the_python_loop(monkeypatch):
    arrays, _ = case("lstm", {}, "float32")
    arrays[2] = arrays[2].astype("float64")
    with use_backend("numpy"):
        mixed = ops.lstm(*arrays)[0].numpy()
        python_loop(monkeypatch)
        np.testing.assert_array_equal(ops.lstm(*arrays)[0].numpy(), mixed)


def lstm_reference(inputs, kernel, recurrent_kernel, bias, initial_h, initial_c, mask,
                   recurrent_dropout_mask):
    step = lstm_step(kernel, recurrent_kernel, bias, dropout=recurrent_dropout_mask)
    sequence, states = reference_run(step, inputs, [initial_h, initial_c], mask)
    return [sequence, *states]


def gru_reference(inputs, kernel, recurrent_kernel, bias, initial_h, mask,
                  recurrent_dropout_mask):
    step = gru_step(kernel, recurrent_kernel, bias, dropout=recurrent_dropout_mask)
    sequence, states = reference_run(step, inputs, [initial_h], mask)
    return [sequence, *states]


def simple_reference(inputs, kernel, recurrent_kernel, bias, initial_h, mask,
                     recurrent_dropout_mask):
    step = simple_step(kernel, recurrent_kernel, bias, dropout=recurrent_dropout_mask)
    sequence, states = reference_run(step, inputs, [initial_h], mask)
    return [sequence, *states]


@pytest.mark.parametrize("name,reference", [("lstm", lstm_reference),
                                            ("gru", gru_reference),
                                            ("simple_rnn", simple_reference)])
def test_compiled_loop_joins_the_op_harness(check_op, engine, name, reference):
    """Float64 forward against the NumPy loops and finite-difference gradients of every
    input, on every engine (on NumPy through the compiled loop; CuPy keeps its path)."""
    arrays, _ = case(name, {"states": True}, "float64")
    mask, dropout = MASK[:2, :3], DROPOUT[:2]
    arrays = [a[:2, :3] if a.ndim == 3 else a for a in arrays[:4]] + \
        [a[:2] for a in arrays[4:]]

    def op(inputs, *weights_and_states):
        return OPS[name][0](inputs, *weights_and_states, mask=mask,
                            recurrent_dropout_mask=dropout.astype(inputs.dtype))

    check_op(op, arrays, reference=lambda *a: reference(
        *a, mask=mask, recurrent_dropout_mask=dropout), atol=1e-7, rtol=1e-5)
