"""The NumPy engine's compiled LSTM and GRU cells (``backends/compiled_cells.py``): the
kernels against the equations written in NumPy, the float32 ``tanh`` against float64, the
ops with the kernels against the ops with array calls, and the switches that turn them
off."""

import os
import subprocess
import sys

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends import Tensor, use_backend
from lamina.backends.numpy import engine as numpy_backend

pytest.importorskip("numba")
compiled_cells = numpy_backend.compiled("cells")
pytestmark = pytest.mark.skipif(compiled_cells is None, reason="LAMINA_JIT=0 is set")

RNG = np.random.default_rng(5)
TOLERANCE = {"float32": dict(rtol=2e-6, atol=2e-6), "float64": dict(rtol=1e-12, atol=1e-12)}


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def reference_step(z, bias, c_old):
    """The LSTM step in float64, gates in the internal order [i | f | o | c]."""
    u = c_old.shape[1]
    pre = z.astype("float64") + bias
    i, f, o = (sigmoid(pre[:, k * u:(k + 1) * u]) for k in range(3))
    g = np.tanh(pre[:, 3 * u:])
    c = f * c_old + i * g
    return np.concatenate([i, f, o, g], axis=1), c, np.tanh(c), o * np.tanh(c)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("scale", [1.0, 12.0])      # 12: saturated gates
def test_forward_kernel_matches_the_lstm_equations(dtype, scale):
    batch, u = 5, 7                                 # odd sizes: the vector loops' tails
    z = (RNG.standard_normal((batch, 4 * u)) * scale).astype(dtype)
    bias = RNG.standard_normal(4 * u).astype(dtype)
    c_old = RNG.standard_normal((batch, u)).astype(dtype)
    want = reference_step(z, bias, c_old)
    c_new, cell_act, h_new = (np.empty((batch, u), dtype) for _ in range(3))
    compiled_cells.lstm_cell_forward(z, bias, c_old, c_new, cell_act, h_new)
    for got, expected in zip((z, c_new, cell_act, h_new), want):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, expected, **TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_backward_kernel_matches_the_lstm_derivatives(dtype):
    batch, u = 6, 9
    gates, c_old = RNG.uniform(0.01, 0.99, (batch, 4 * u)), RNG.standard_normal((batch, u))
    gates[:, 3 * u:] = RNG.uniform(-0.99, 0.99, (batch, u))
    cell_act = RNG.uniform(-0.99, 0.99, (batch, u))
    d_h, d_c = RNG.standard_normal((batch, u)), RNG.standard_normal((batch, u))
    i, f, o, g = (gates[:, k * u:(k + 1) * u] for k in range(4))
    d_cell = d_h * o * (1 - cell_act ** 2) + d_c
    want_gates = np.concatenate([d_cell * g * i * (1 - i), d_cell * c_old * f * (1 - f),
                                 d_h * cell_act * o * (1 - o), d_cell * i * (1 - g ** 2)], axis=1)
    arrays = [a.astype(dtype) for a in (d_h, d_c, gates, cell_act, c_old)]
    d_gates = np.empty((batch, 4 * u), dtype)
    compiled_cells.lstm_cell_backward(*arrays, d_gates)
    np.testing.assert_allclose(d_gates, want_gates, **TOLERANCE[dtype])
    np.testing.assert_allclose(arrays[1], d_cell * f, **TOLERANCE[dtype])


def test_float32_tanh_is_within_3e7_and_never_leaves_the_unit_interval():
    x = np.concatenate([np.linspace(-20, 20, 4001), [0.0, 1e-30, -1e-30, 1e-8, 7.9, 8.0]])
    z = np.zeros((1, 4 * x.size), "float32")
    z[0, 3 * x.size:] = x                           # the cell block: g = tanh(z)
    c_old = np.zeros((1, x.size), "float32")        # so c = i * g and the outputs follow
    outputs = [np.empty_like(c_old) for _ in range(3)]
    compiled_cells.lstm_cell_forward(z, np.zeros(4 * x.size, "float32"), c_old, *outputs)
    g = z[0, 3 * x.size:]
    assert np.max(np.abs(g - np.tanh(x.astype("float32").astype("float64")))) <= 3e-7
    assert np.all(np.abs(g) <= 1.0)
    np.testing.assert_array_equal(g[x == 0.0], 0.0)


def values_and_gradients(op, arrays, options):
    """Outputs and the gradients of every array (None stays None: an absent argument)."""
    tensors = [None if a is None else Tensor(a, requires_grad=True) for a in arrays]
    outputs = op(*tensors, **options)
    loss = sum(ops.sum(out * np.float32(k + 1)) for k, out in enumerate(outputs))
    sources = [t for t in tensors if t is not None]
    return [out.numpy() for out in outputs] + \
        [g.numpy() for g in lamina.grad(loss, sources)]


# op, gates, bias shape, initial states, the engine method that gives its kernels
CELLS = {"lstm": (ops.lstm, 4, lambda u: (4 * u,), 2, "lstm_cell_kernels"),
         "gru": (ops.gru, 3, lambda u: (2, 3 * u), 1, "gru_cell_kernels")}


@pytest.mark.parametrize("cell", list(CELLS))
@pytest.mark.parametrize("options", [
    {},
    dict(bias=None),                                    # the kernels get a zero bias
    dict(go_backwards=True),
    dict(mask=np.array([[1, 1, 0, 1, 0], [1, 0, 1, 1, 1], [0, 1, 1, 1, 1]], dtype=bool),
         recurrent_dropout_mask=np.float32(2.0) * (RNG.uniform(size=(3, 4)) > 0.5)),
], ids=["plain", "no_bias", "go_backwards", "mask_dropout"])
def test_op_with_compiled_cell_equals_array_calls(cell, options, monkeypatch):
    op, gates, bias_shape, states, kernels_method = CELLS[cell]
    batch, steps, features, units = 3, 5, 6, 4
    arrays = [RNG.standard_normal(shape).astype("float32") * 0.6 for shape in (
        (batch, steps, features), (features, gates * units), (units, gates * units),
        bias_shape(units))] + [RNG.standard_normal((batch, units)).astype("float32")
                               for _ in range(states)]
    if "bias" in options:
        arrays[3], options = options["bias"], {k: v for k, v in options.items() if k != "bias"}
    monkeypatch.setattr(numpy_backend.NumpyBackend, "recurrent_loop_kernels",
                        lambda self, cell, dtype: None)     # the cells stepped from Python
    with use_backend("numpy"):
        compiled = values_and_gradients(op, arrays, options)
        monkeypatch.setattr(numpy_backend.NumpyBackend, kernels_method,
                            lambda self, dtype: None)
        array_calls = values_and_gradients(op, arrays, options)
    for got, want in zip(compiled, array_calls):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=5e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gru_kernels_match_the_gru_equations(dtype):
    batch, u = 5, 7
    x_part, recurrent = (RNG.standard_normal((batch, 3 * u)) for _ in range(2))
    recurrent_bias, h = RNG.standard_normal(3 * u), RNG.standard_normal((batch, u))
    pre = x_part + recurrent + recurrent_bias
    z, r = sigmoid(pre[:, :u]), sigmoid(pre[:, u:2 * u])
    memory = recurrent[:, 2 * u:] + recurrent_bias[2 * u:]
    candidate = np.tanh(x_part[:, 2 * u:] + r * memory)
    arrays = [a.astype(dtype) for a in (x_part, recurrent, recurrent_bias, h)]
    gates, got_memory, h_new = (np.empty(shape, dtype) for shape in
                                ((batch, 3 * u), (batch, u), (batch, u)))
    compiled_cells.gru_cell_forward(*arrays, gates, got_memory, h_new)
    for got, want in ((gates, np.concatenate([z, r, candidate], axis=1)),
                      (got_memory, memory), (h_new, z * h + (1 - z) * candidate)):
        np.testing.assert_allclose(got, want, **TOLERANCE[dtype])

    d_h = RNG.standard_normal((batch, u))
    d_candidate = d_h * (1 - z) * (1 - candidate ** 2)
    d_z = d_h * (h - candidate) * z * (1 - z)
    d_r = d_candidate * memory * r * (1 - r)
    d_input, d_recurrent = np.empty((batch, 3 * u), dtype), np.empty((batch, 3 * u), dtype)
    d_direct = np.empty((batch, u), dtype)
    compiled_cells.gru_cell_backward(d_h.astype(dtype), arrays[3], gates, got_memory,
                                     d_input, d_recurrent, d_direct)
    tolerance = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else TOLERANCE[dtype]
    np.testing.assert_allclose(d_input, np.concatenate([d_z, d_r, d_candidate], axis=1),
                               **tolerance)
    np.testing.assert_allclose(d_recurrent,
                               np.concatenate([d_z, d_r, d_candidate * r], axis=1), **tolerance)
    np.testing.assert_allclose(d_direct, d_h * z, **tolerance)


def run_python(code, **environment):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, **environment), timeout=120)


def test_lamina_jit_0_and_missing_numba_fall_back_to_array_calls():
    check = ("import numpy as np, lamina\n"
             "from lamina.backends.numpy.engine import NumpyBackend\n"
             "assert NumpyBackend().lstm_cell_kernels('float32') is None\n"
             "x = np.ones((2, 3, 4), 'float32')\n"
             "print(lamina.layers.LSTM(5)(x).shape)\n")
    switched_off = run_python(check, LAMINA_JIT="0")
    assert switched_off.returncode == 0, switched_off.stderr
    assert "(2, 5)" in switched_off.stdout
    missing = run_python("import sys; sys.modules['numba'] = None\n" + check)
    assert missing.returncode == 0, missing.stderr
    assert "(2, 5)" in missing.stdout


def test_nan_propagates_through_the_compiled_cell():
    u = 3
    z = np.zeros((2, 4 * u), "float32")
    z[0, 3 * u] = np.nan                            # row 0, unit 0: the cell candidate
    c_old = np.zeros((2, u), "float32")
    c_new, cell_act, h_new = (np.empty((2, u), "float32") for _ in range(3))
    compiled_cells.lstm_cell_forward(z, np.zeros(4 * u, "float32"), c_old, c_new, cell_act,
                                     h_new)
    assert np.isnan(c_new[0, 0]) and np.isnan(h_new[0, 0])
    assert not np.isnan(h_new[1]).any() and not np.isnan(h_new[0, 1:]).any()


def test_float16_runs_as_array_calls():
    assert numpy_backend.NumpyBackend().lstm_cell_kernels("float16") is None
    arrays = [RNG.standard_normal(shape).astype("float16") * 0.5
              for shape in ((2, 3, 4), (4, 20), (5, 20), (20,))]
    with use_backend("numpy"):
        sequence, h, c = ops.lstm(*arrays)
        want = ops.lstm(*[a.astype("float32") for a in arrays])[1].numpy()
    assert h.dtype == np.float16
    np.testing.assert_allclose(h.numpy(), want, atol=5e-3)


def test_a_failing_import_warns_and_falls_back(monkeypatch):
    def broken(name):
        raise RuntimeError("cannot cache function: no locator available")

    monkeypatch.setattr(numpy_backend, "_COMPILED", {})
    monkeypatch.setattr(numpy_backend.importlib, "import_module", broken)
    with pytest.warns(RuntimeWarning, match="compiled kernels 'cells' unavailable"):
        assert numpy_backend.compiled("cells") is None
    assert numpy_backend.NumpyBackend().lstm_cell_kernels("float32") is None
