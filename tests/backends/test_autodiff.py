"""The autodiff engine: accumulation, graph freeing, no_grad, Variables, dtypes."""

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends import FreedGraphError
from lamina.backends.autodiff import record

from harness.ops import numerical_gradient


def tensor(values, dtype="float64"):
    """A float Tensor that records its ops."""
    return lamina.Tensor(np.asarray(values, dtype=dtype), requires_grad=True)


# ------------------------------------------------------------------ accumulation
def test_tensor_used_several_times_accumulates(engine):
    x = tensor([1.0, -2.0, 3.0])
    (gx,) = lamina.grad(ops.sum(x * x + x), [x])
    np.testing.assert_allclose(gx.numpy(), 2 * x.numpy() + 1)


def test_diamond_graph(engine):
    x = tensor([0.5, 1.5])
    shared = ops.exp(x)
    left, right = shared * 3.0, ops.square(shared)
    (gx,) = lamina.grad(ops.sum(left + right), [x])
    e = np.exp(x.numpy())
    np.testing.assert_allclose(gx.numpy(), 3 * e + 2 * e * e)


def test_grad_with_respect_to_intermediate_and_several_sources(engine):
    x = tensor([[1.0, 2.0], [3.0, 4.0]])
    w = lamina.Variable(np.array([[0.5], [-1.0]]), name="w")
    hidden = x @ w
    loss = ops.sum(ops.square(hidden))
    gx, gw, gh = lamina.grad(loss, [x, w, hidden])
    h = x.numpy() @ w.numpy()
    np.testing.assert_allclose(gh.numpy(), 2 * h)
    np.testing.assert_allclose(gw.numpy(), x.numpy().T @ (2 * h))
    np.testing.assert_allclose(gx.numpy(), (2 * h) @ w.numpy().T)


def test_single_source_returns_a_tensor_and_unused_source_gets_zeros(engine):
    x, unused = tensor([2.0, 3.0]), tensor([[1.0, 1.0, 1.0]])
    gx = lamina.grad(ops.sum(x * 4.0), x)
    assert isinstance(gx, lamina.Tensor)
    np.testing.assert_array_equal(gx.numpy(), [4.0, 4.0])
    (g_unused,) = lamina.grad(ops.sum(x * 1.0), [unused])
    np.testing.assert_array_equal(g_unused.numpy(), np.zeros((1, 3)))


def test_output_gradient_for_non_scalar_loss(engine):
    x = tensor([1.0, 2.0, 3.0])
    (gx,) = lamina.grad(x * x, [x], output_gradient=np.array([1.0, 0.0, -1.0]))
    np.testing.assert_array_equal(gx.numpy(), [2.0, 0.0, -6.0])


def _reported(loss, sources):
    seen = []
    grads = lamina.grad(loss, sources, on_gradient=lambda position, gradient: seen.append(
        (position, np.array(lamina.backends.state.backend().to_numpy(gradient)))))
    return seen, grads


def test_on_gradient_reports_each_final_gradient_during_the_backward_pass(engine):
    w1, w2, unused = tensor([[1.0, -2.0], [0.5, 3.0]]), tensor([2.0, -1.0]), tensor([1.0])
    x = np.array([[1.0, 2.0], [-1.0, 0.5]])
    seen, grads = _reported(ops.sum(ops.relu(ops.matmul(x, w1)) * w2), [w1, w2, unused])
    assert [position for position, _ in seen] == [1, 0]     # the last layer's first
    for position, reported in seen:                          # final: what grad returns
        np.testing.assert_array_equal(reported, grads[position].numpy())
    # a source used twice is reported once, with both contributions summed
    seen, grads = _reported(ops.sum(w2 * 3.0) + ops.sum(w2 * w2), [w2])
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0][1], 3.0 + 2.0 * w2.numpy())


def test_grad_argument_errors(engine):
    x = tensor([1.0])
    with pytest.raises(TypeError, match="position 1"):
        lamina.grad(ops.sum(x * 2.0), [x, np.ones(1)])
    with pytest.raises(TypeError, match="Tensor loss"):
        lamina.grad(3.0, [x])


# ------------------------------------------------------------------ recording
def test_no_grad_records_nothing(engine):
    x = tensor([1.0, 2.0])
    with lamina.no_grad():
        assert not lamina.backends.is_recording()
        y = ops.tanh(x * 2.0)
    assert lamina.backends.is_recording()
    assert y.node is None and not y.requires_grad
    np.testing.assert_allclose(y.numpy(), np.tanh([2.0, 4.0]))


def test_no_grad_restores_recording_after_an_error(engine):
    with pytest.raises(RuntimeError):
        with lamina.no_grad():
            raise RuntimeError("boom")
    assert lamina.backends.is_recording()


def test_constants_record_nothing(engine):
    y = ops.exp(lamina.Tensor(np.ones(3))) * np.ones(3)
    assert y.node is None and not y.requires_grad


def test_freed_graph_raises_clear_error(engine):
    x = tensor([1.0, 2.0])
    loss = ops.sum(ops.exp(x) * 2.0)
    lamina.grad(loss, [x])
    with pytest.raises(FreedGraphError, match="already freed.*retain_graph=True"):
        lamina.grad(loss, [x])
    assert issubclass(FreedGraphError, RuntimeError)


def test_retain_graph_allows_a_second_walk(engine):
    x = tensor([1.0, 2.0])
    loss = ops.sum(ops.exp(x) * 2.0)
    (first,) = lamina.grad(loss, [x], retain_graph=True)
    (second,) = lamina.grad(loss, [x])
    np.testing.assert_allclose(first.numpy(), 2 * np.exp([1.0, 2.0]))
    np.testing.assert_array_equal(first.numpy(), second.numpy())


def test_frozen_variable_gets_no_node_and_no_gradient_work(engine):
    frozen = lamina.Variable(np.ones((2, 2)), trainable=False, name="frozen")
    assert not frozen.requires_grad
    assert (frozen * 3.0).node is None
    trainable = lamina.Variable(np.full((2, 2), 2.0), name="kernel")
    seen = []

    def scaled_product(a, b):
        def backward(g, needs):
            seen.append(needs)
            return (g * b.data if needs[0] else None, g * a.data if needs[1] else None)

        return record(a.data * b.data, (a, b), backward, "scaled_product")

    g_frozen, g_trainable = lamina.grad(ops.sum(scaled_product(frozen, trainable)),
                                        [frozen, trainable])
    assert seen == [(False, True)]
    np.testing.assert_array_equal(g_trainable.numpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(g_frozen.numpy(), np.zeros((2, 2)))
    frozen.trainable = True
    assert frozen.requires_grad and (frozen * 3.0).node is not None


def test_harness_detects_a_wrong_gradient(check_op):
    def wrong_square(x):  # the harness passes differentiable inputs as Tensors
        return record(x.data * x.data, (x,), lambda g, needs: (g * 2.1 * x.data,),
                      "wrong_square")

    with pytest.raises(AssertionError, match="finite differences"):
        check_op(wrong_square, [np.array([0.3, -1.2])], check_float32=False)


# ------------------------------------------------------------------ Tensor and Variable
def test_tensor_from_python_data_uses_floatx(engine):
    assert lamina.Tensor([1, 2, 3]).dtype == np.float32
    assert lamina.Tensor(2.5).shape == ()
    assert lamina.Tensor(np.arange(3)).dtype == np.arange(3).dtype
    assert lamina.Tensor([1, 2], dtype="int32").dtype == np.int32


def test_non_numeric_input_raises_type_error(engine):
    with pytest.raises(TypeError, match="numeric"):
        lamina.Tensor(np.array(["a", "b"]))
    with pytest.raises(TypeError, match="numeric"):
        lamina.Tensor("not a number")
    with pytest.raises(TypeError, match="numeric"):
        ops.add(np.array(["a"]), 1.0)


def test_variable_assign(engine):
    v = lamina.Variable(np.zeros((2, 3), dtype=np.float32), name="kernel")
    v.assign(np.ones((2, 3)))
    assert v.dtype == np.float32
    np.testing.assert_array_equal(v.numpy(), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"'kernel' has shape \(2, 3\).*shape \(3, 2\)"):
        v.assign(np.ones((3, 2)))
    np.testing.assert_array_equal(v.numpy(), np.ones((2, 3)))


def test_variable_api_as_keras_variable(engine):
    v = lamina.Variable(np.array([1.0, 2.0], "float32"), name="bias")
    assert v.shape == (2,) and v.ndim == 1 and v.dtype == "float32" and v.name == "bias"
    assert v.path == "bias" and v.trainable and v.aggregation == "none"
    assert v.value is v and v.numpy().tolist() == [1.0, 2.0]
    assert v.assign_add([0.5, 0.5]) is v
    np.testing.assert_array_equal(v.numpy(), [1.5, 2.5])
    v.assign_sub(ops.convert_to_tensor(np.ones(2, "float32")))
    np.testing.assert_array_equal(v.numpy(), [0.5, 1.5])
    v.trainable = False
    assert not v.trainable and not v.requires_grad
    assert "path=bias, shape=(2,), dtype=float32" in repr(v)
    with pytest.raises(ValueError, match="aggregation"):
        lamina.Variable(np.zeros(2), aggregation="max")


def test_variable_from_initializer_and_shape(engine):
    v = lamina.Variable(lamina.initializers.Ones(), shape=(2, 3), dtype="float32", name="k")
    assert v.shape == (2, 3) and v.numpy().sum() == 6.0
    with pytest.raises(ValueError, match="needs a shape"):
        lamina.Variable(lamina.initializers.Ones())
    with pytest.raises(ValueError, match="expected shape"):
        lamina.Variable(np.zeros(3), shape=(2,))


def test_variable_arithmetic_works_as_a_tensor_and_gets_gradients(engine):
    w = lamina.Variable(np.array([[1.0, -2.0], [0.5, 3.0]], "float32"), name="w")
    x = np.array([[2.0, 1.0]], "float32")
    y = 2.0 * w + 1.0 - w / 2.0
    np.testing.assert_allclose(y.numpy(), 1.5 * w.numpy() + 1.0)
    np.testing.assert_allclose((x @ w).numpy(), x @ w.numpy())
    np.testing.assert_allclose((-w).numpy(), -w.numpy())
    np.testing.assert_allclose((w ** 2).numpy(), w.numpy() ** 2)
    np.testing.assert_allclose(w[0].numpy(), [1.0, -2.0])
    np.testing.assert_allclose(np.asarray(w), w.numpy())
    (g,) = lamina.grad(ops.sum(ops.matmul(x, w) * w), [w])
    expected = x.T * w.numpy().sum(axis=0) + x @ w.numpy()  # d/dw of sum((x @ w) * w)
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-6)


def test_detach_cuts_the_graph(engine):
    x = tensor([1.0, 2.0])
    y = (x * 3.0).detach()
    assert y.node is None and not y.requires_grad
    np.testing.assert_array_equal(y.numpy(), [3.0, 6.0])


# ------------------------------------------------------------------ dtypes
def test_float32_stays_float32_with_python_scalars(engine):
    x = lamina.Variable(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), name="x")
    w = lamina.Variable(np.full((3, 2), 0.5, dtype=np.float32), name="w")
    steps = [x * 2.0, 1.5 - x, x / 3.0, 2.0 ** x, x ** 2, ops.exp(x * 0.1), x + 1,
             ops.mean(x, axis=0), ops.sigmoid(x), ops.softmax(x), x @ w,
             ops.dense(x, w, activation="tanh"), ops.max(x), ops.var(x, axis=1)]
    for value in steps:
        assert value.dtype == np.float32, value
    loss = sum(ops.sum(value) for value in steps)
    assert loss.dtype == np.float32
    for gradient in lamina.grad(loss, [x, w]):
        assert gradient.dtype == np.float32


def test_float64_fully_supported(engine):
    x = lamina.Variable(np.array([[0.3, -0.7], [1.1, 0.2]]), name="x")
    y = ops.log_softmax(ops.tanh(x @ x) / 0.5 + 1e-12)
    assert y.dtype == np.float64
    (gx,) = lamina.grad(ops.sum(y * y), [x])
    assert gx.dtype == np.float64

    def loss_of(values):
        shifted = np.tanh(values @ values) / 0.5 + 1e-12
        log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        return (log_p * log_p).sum()

    values = x.numpy().copy()
    numeric = numerical_gradient(lambda: loss_of(values), values, eps=1e-7)
    np.testing.assert_allclose(gx.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_integer_labels_stay_integer(engine):
    labels = np.array([2, 0, 1], dtype=np.int32)
    logits = lamina.Variable(np.zeros((3, 3), dtype=np.float32), name="logits")
    loss = ops.sparse_softmax_cross_entropy(labels, logits)
    assert loss.dtype == np.float32
    assert ops.one_hot(labels, 3, dtype="int32").dtype == np.int32
    assert ops.argmax(logits).dtype.kind == "i"


def test_gradients_handed_out_are_writeable_and_not_shared():
    x = lamina.Variable(np.ones((2, 3), "float32"))
    y = lamina.Variable(np.ones((2, 3), "float32"))
    gx, gy = lamina.grad(lamina.ops.sum(x + y), [x, y])
    assert gx.data is not gy.data
    gx.data *= 0.5                     # a caller may scale its gradient in place
    np.testing.assert_array_equal(gy.numpy(), 1.0)


def test_no_grad_in_one_thread_leaves_recording_on_in_the_others():
    import threading

    inside, release = threading.Event(), threading.Event()

    def infer():
        with lamina.no_grad():
            inside.set()
            release.wait(30)

    worker = threading.Thread(target=infer)
    worker.start()
    try:
        assert inside.wait(30)
        assert lamina.backends.is_recording()
        w = lamina.Variable(np.array([2.0, 3.0], "float32"))
        (g,) = lamina.grad(lamina.ops.sum(w * w), [w])
    finally:
        release.set()
        worker.join(30)
    np.testing.assert_array_equal(g.numpy(), [4.0, 6.0])
    with lamina.no_grad():
        with lamina.no_grad():
            assert not lamina.backends.is_recording()
        assert not lamina.backends.is_recording()
    assert lamina.backends.is_recording()


def test_one_element_tensors_convert_to_python_numbers_as_keras():
    # Keras 3.15 (torch): float(keras.ops.ones((1, 1))) -> 1.0, int(...) -> 1
    tensor = lamina.ops.ones((1, 1)) * 2.5
    assert float(tensor) == 2.5 and int(tensor) == 2
    with pytest.raises((TypeError, ValueError)):
        float(lamina.ops.ones((2,)))
