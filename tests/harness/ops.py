"""The generic op-test harness shared by every engine test (``from harness.ops import ...``).

Every op joins the harness with a few lines::

    def test_tanh(check_op):
        check_op(ops.tanh, [rand(3, 4)], reference=np.tanh)

``check_op`` runs the op on the active engine (the ``check_op`` fixture requests the
``engine`` fixture of :mod:`harness.engines`, so each test runs once per engine in
``ENGINES``; the CuPy case skips with the reason when CuPy or a GPU is missing), compares
the float64 forward to a plain-NumPy reference, checks the gradient of every differentiable
input against central finite differences in float64, and checks that float32 inputs give
float32 outputs and gradients. :func:`numerical_gradient` is the suite's one
finite-difference routine; the layer harness and every other gradient check use it."""

import numpy as np
import pytest

import lamina
from lamina import ops


def _is_float_array(value):
    """True for NumPy float arrays and NumPy float scalars (Python floats are constants)."""
    return isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind == "f"


def _as_outputs(result):
    """The op's result as a list of Tensors (ops may return one Tensor or a sequence)."""
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _call(op, inputs, wrt, kwargs, requires_grad):
    """Run ``op`` with the inputs at positions ``wrt`` wrapped as Tensors."""
    wrapped = list(inputs)
    for i in wrt:
        wrapped[i] = lamina.Tensor(inputs[i], requires_grad=requires_grad)
    return wrapped, _as_outputs(op(*wrapped, **kwargs))


def _projected_loss(op, inputs, wrt, kwargs, projections):
    """``sum(op(x) * r)`` as a Python float, computed without recording."""
    with lamina.no_grad():
        _, outputs = _call(op, inputs, wrt, kwargs, requires_grad=False)
    return float(sum((np.asarray(out, dtype=np.float64) * r).sum()
                     for out, r in zip(outputs, projections)))


def numerical_gradient(loss, array, eps=1e-6):
    """Central finite differences of ``loss()`` with respect to ``array``.

    The one finite-difference routine of the suite: ``array`` (a float64 NumPy or engine
    array that ``loss`` reads) is perturbed in place one element at a time and restored;
    ``loss()`` returns a number. Returns the gradient as a float64 NumPy array.
    """
    gradient = np.zeros(array.shape)
    for index in np.ndindex(*array.shape):
        original = float(array[index])
        array[index] = original + eps
        upper = float(loss())
        array[index] = original - eps
        lower = float(loss())
        array[index] = original
        gradient[index] = (upper - lower) / (2 * eps)
    return gradient


def _op_numerical_gradient(op, inputs, wrt, kwargs, projections, index, eps):
    """:func:`numerical_gradient` of ``sum(op(x) * r)`` w.r.t. ``inputs[index]``."""
    perturbed = list(inputs)
    perturbed[index] = np.array(inputs[index], dtype=np.float64)
    return numerical_gradient(
        lambda: _projected_loss(op, perturbed, wrt, kwargs, projections), perturbed[index], eps)


def check_op(op, inputs, reference=None, kwargs=None, wrt=None, atol=1e-6, rtol=1e-5,
             eps=1e-6, check_float32=True, seed=0):
    """Check ``op`` on the active engine: forward, gradients and float32 dtype discipline.

    Args:
        op: callable taking ``*inputs, **kwargs`` and returning a Tensor or a sequence of
            Tensors (wrap ops with extra outputs in a lambda that picks the Tensor ones).
        inputs: NumPy arrays or Python numbers. Float arrays are the differentiable inputs
            (unless ``wrt`` says otherwise) and are used in float64.
        reference: plain-NumPy function of the same ``*inputs, **kwargs`` returning the
            expected output (or a sequence of them); compared to the float64 forward.
        kwargs: keyword arguments passed to both ``op`` and ``reference``.
        wrt: positions of the inputs to differentiate (default: every float array).
        atol, rtol: tolerances for the forward and the gradient comparisons.
        eps: finite-difference step.
        check_float32: also run with float32 inputs and assert that every float output and
            gradient is float32 (no float64 leaks in).
        seed: seed of the random upstream-gradient projections ``r``.

    Returns:
        The float64 outputs as NumPy arrays, for further assertions.
    """
    kwargs = dict(kwargs or {})
    inputs = [np.asarray(x, dtype=np.float64) if _is_float_array(x) else x for x in inputs]
    if wrt is None:
        wrt = [i for i, x in enumerate(inputs) if _is_float_array(x)]

    tensors, outputs = _call(op, inputs, wrt, kwargs, requires_grad=True)
    values = [np.asarray(out) for out in outputs]
    if reference is not None:
        expected = reference(*inputs, **kwargs)
        expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
        assert len(expected) == len(values), "op and reference return different counts"
        for got, want in zip(values, expected):
            want = np.asarray(want)
            assert got.shape == want.shape, f"forward shape {got.shape} != {want.shape}"
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                       err_msg="forward differs from the NumPy reference")

    if wrt:
        projections = [np.random.default_rng(seed + k).standard_normal(v.shape)
                       for k, v in enumerate(values)]
        loss = sum(ops.sum(out * r) for out, r in zip(outputs, projections))
        gradients = lamina.grad(loss, [tensors[i] for i in wrt])
        for i, gradient in zip(wrt, gradients):
            assert gradient.shape == inputs[i].shape, (
                f"gradient of input {i} has shape {gradient.shape}, input {inputs[i].shape}")
            assert gradient.dtype == np.float64, f"gradient of input {i} is {gradient.dtype}"
            expected = _op_numerical_gradient(op, inputs, wrt, kwargs, projections, i, eps)
            np.testing.assert_allclose(np.asarray(gradient), expected, rtol=rtol, atol=atol,
                                       err_msg=f"gradient of input {i} != finite differences")

    if check_float32:
        _check_float32(op, inputs, wrt, kwargs)
    return values


def _check_float32(op, inputs, wrt, kwargs):
    """Float32 inputs must give float32 outputs and gradients."""
    single = [x.astype(np.float32) if _is_float_array(x) else x for x in inputs]
    tensors, outputs = _call(op, single, wrt, kwargs, requires_grad=True)
    for out in outputs:
        if out.dtype.kind == "f":
            assert out.dtype == np.float32, f"float32 inputs gave a {out.dtype} output"
    if wrt:
        loss = sum(ops.sum(out) for out in outputs if out.dtype.kind == "f")
        for i, gradient in zip(wrt, lamina.grad(loss, [tensors[i] for i in wrt])):
            assert gradient.dtype == np.float32, (
                f"float32 input {i} got a {gradient.dtype} gradient")


@pytest.fixture(name="check_op")
def check_op_fixture(engine):
    """:func:`check_op`, run under each engine (requesting it parametrizes the test)."""
    return check_op
