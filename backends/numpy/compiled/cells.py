"""The NumPy engine's compiled LSTM and GRU cells: one step's gate arithmetic as ONE
vectorized loop.

A step of a recurrent op is a GEMM plus about a dozen elementwise passes over the gates; as
separate NumPy calls those passes cost as much as the GEMM (each one a trip through memory
and the interpreter). Numba compiles the whole step into one loop that the compiler
vectorizes (AVX2/AVX-512), and the kernels release the GIL, so row blocks of a batch run
side by side on threads (see :mod:`lamina.backends.numpy.threads`).

The NumPy engine imports this module on first use (not at ``import lamina``), through
:func:`lamina.backends.numpy.engine.compiled`, which answers None when Numba is
missing or ``LAMINA_JIT=0`` is set; the engine then runs the same math as NumPy calls.
Compiled code is cached on disk (``cache=True``), so only the first process on a machine
pays the compile (about a second per kernel and dtype).

float32 uses a rational ``tanh`` (Eigen's, |error| <= 3e-7, |tanh| <= 1), which the compiler
vectorizes where a libm call would not be; other dtypes use ``math.tanh``.

The kernels' contracts are :meth:`lamina.backends.Backend.lstm_cell_kernels` and
:meth:`~lamina.backends.Backend.gru_cell_kernels`.
"""

import math

import numba
from numba import types
from numba.extending import overload

# Fast-math without "no NaN" and "no inf": NaN and inf pass through as they do in NumPy.
# INLINE_OPTIONS for helpers compiled into a kernel, KERNEL_OPTIONS for the entry points
# (also those of recurrent_loop.py).
INLINE_OPTIONS = dict(fastmath={"contract", "arcp", "afn", "reassoc", "nsz"}, error_model="numpy",
                      boundscheck=False)
KERNEL_OPTIONS = dict(INLINE_OPTIONS, nogil=True, cache=True)
_CLAMP = 7.90531110763549805      # |tanh| rounds to 1 in float32 beyond this


def tanh(x):
    """``tanh`` inside the kernels: rational for float32, ``math.tanh`` otherwise."""
    return math.tanh(x)


@numba.njit(**INLINE_OPTIONS)
def _rational_tanh(x):
    x = min(max(x, numba.float32(-_CLAMP)), numba.float32(_CLAMP))
    x2 = x * x
    p = x2 * numba.float32(-2.76076847742355e-16) + numba.float32(2.00018790482477e-13)
    p = x2 * p + numba.float32(-8.60467152213735e-11)
    p = x2 * p + numba.float32(5.12229709037114e-08)
    p = x2 * p + numba.float32(1.48572235717979e-05)
    p = x2 * p + numba.float32(6.37261928875436e-04)
    p = x2 * p + numba.float32(4.89352455891786e-03)
    q = x2 * numba.float32(1.19825839466702e-06) + numba.float32(1.18534705686654e-04)
    q = x2 * q + numba.float32(2.26843463243900e-03)
    q = x2 * q + numba.float32(4.89352518554385e-03)
    return x * p / q


@overload(tanh)
def _typed_tanh(x):
    if x == types.float32:
        return lambda x: _rational_tanh(x)
    return lambda x: math.tanh(x)


@numba.njit(**KERNEL_OPTIONS)
def lstm_cell_forward(z, bias, c_old, c_new, cell_activation, h_new):
    """One LSTM step forward; see :meth:`lamina.backends.Backend.lstm_cell_kernels`."""
    units = c_old.shape[1]
    half = z.dtype.type(0.5)
    bi, bf = bias[:units], bias[units:2 * units]
    bo, bg = bias[2 * units:3 * units], bias[3 * units:]
    for row in range(z.shape[0]):
        zi, zf = z[row, :units], z[row, units:2 * units]
        zo, zg = z[row, 2 * units:3 * units], z[row, 3 * units:]
        old, new, act, h = c_old[row], c_new[row], cell_activation[row], h_new[row]
        for j in range(units):
            i = half + half * tanh(half * (zi[j] + bi[j]))       # sigmoid
            f = half + half * tanh(half * (zf[j] + bf[j]))
            o = half + half * tanh(half * (zo[j] + bo[j]))
            g = tanh(zg[j] + bg[j])
            zi[j], zf[j], zo[j], zg[j] = i, f, o, g
            c = f * old[j] + i * g
            a = tanh(c)
            new[j], act[j], h[j] = c, a, o * a


@numba.njit(**KERNEL_OPTIONS)
def lstm_cell_backward(d_h, d_c, gates, cell_activation, c_old, d_gates):
    """One LSTM step backward; see :meth:`lamina.backends.Backend.lstm_cell_kernels`."""
    units = d_h.shape[1]
    one = gates.dtype.type(1.0)
    for row in range(d_h.shape[0]):
        gi, gf = gates[row, :units], gates[row, units:2 * units]
        go, gg = gates[row, 2 * units:3 * units], gates[row, 3 * units:]
        di, df = d_gates[row, :units], d_gates[row, units:2 * units]
        do, dg = d_gates[row, 2 * units:3 * units], d_gates[row, 3 * units:]
        dh, dc, act, old = d_h[row], d_c[row], cell_activation[row], c_old[row]
        for j in range(units):
            i, f, o, g, a = gi[j], gf[j], go[j], gg[j], act[j]
            d_cell = dh[j] * o * (one - a * a) + dc[j]
            di[j] = d_cell * g * i * (one - i)
            df[j] = d_cell * old[j] * f * (one - f)
            do[j] = dh[j] * a * o * (one - o)
            dg[j] = d_cell * i * (one - g * g)
            dc[j] = d_cell * f


@numba.njit(**KERNEL_OPTIONS)
def gru_cell_forward(x_part, recurrent, recurrent_bias, h, gates, memory, h_new):
    """One GRU step forward (reset_after); see :meth:`lamina.backends.Backend.gru_cell_kernels`."""
    units = h.shape[1]
    half = gates.dtype.type(0.5)
    bz, br, bh = recurrent_bias[:units], recurrent_bias[units:2 * units], recurrent_bias[2 * units:]
    for row in range(h.shape[0]):
        xz, xr, xh = x_part[row, :units], x_part[row, units:2 * units], x_part[row, 2 * units:]
        rz, rr, rh = recurrent[row, :units], recurrent[row, units:2 * units], recurrent[row, 2 * units:]
        gz, gr, gh = gates[row, :units], gates[row, units:2 * units], gates[row, 2 * units:]
        old, mem, new = h[row], memory[row], h_new[row]
        for j in range(units):
            z = half + half * tanh(half * (xz[j] + rz[j] + bz[j]))       # sigmoid
            r = half + half * tanh(half * (xr[j] + rr[j] + br[j]))
            m = rh[j] + bh[j]
            candidate = tanh(xh[j] + r * m)
            gz[j], gr[j], gh[j], mem[j] = z, r, candidate, m
            new[j] = candidate + z * (old[j] - candidate)


@numba.njit(**KERNEL_OPTIONS)
def gru_cell_backward(d_h, h, gates, memory, d_input, d_recurrent, d_direct):
    """One GRU step backward (reset_after); see :meth:`lamina.backends.Backend.gru_cell_kernels`."""
    units = h.shape[1]
    one = gates.dtype.type(1.0)
    for row in range(h.shape[0]):
        gz, gr, gh = gates[row, :units], gates[row, units:2 * units], gates[row, 2 * units:]
        iz, ir, ih = d_input[row, :units], d_input[row, units:2 * units], d_input[row, 2 * units:]
        rz, rr, rh = (d_recurrent[row, :units], d_recurrent[row, units:2 * units],
                      d_recurrent[row, 2 * units:])
        dh, old, mem, direct = d_h[row], h[row], memory[row], d_direct[row]
        for j in range(units):
            z, r, candidate = gz[j], gr[j], gh[j]
            d_candidate = dh[j] * (one - z) * (one - candidate * candidate)
            d_z = dh[j] * (old[j] - candidate) * z * (one - z)
            d_r = d_candidate * mem[j] * r * (one - r)
            iz[j], ir[j], ih[j] = d_z, d_r, d_candidate
            rz[j], rr[j], rh[j] = d_z, d_r, d_candidate * r
            direct[j] = dh[j] * z
