"""The Layer base class: the Keras contract (issue #3).

build / call / add_weight, configs, output shapes, weight lists, get/set_weights,
freezing, automatic names, masking, add_loss / regularization penalties and the one
place where input checks live.
"""

import subprocess
import sys

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.layers import Layer


def rng(seed=0):
    return np.random.default_rng(seed)


class Scale(Layer):
    """A user-style layer: one trainable vector and one non-trainable counter."""

    def __init__(self, init="ones", **kwargs):
        super().__init__(**kwargs)
        self.init = init
        self.build_calls = 0

    def build(self, input_shape):
        self.build_calls += 1
        self.w = self.add_weight((input_shape[-1],), self.init, name="w")
        self.count = self.add_weight((), "zeros", trainable=False, name="count")

    def call(self, inputs):
        return inputs * self.w

    def get_config(self):
        return {**super().get_config(), "init": self.init}


# ------------------------------------------------------------------ build / call / weights
def test_build_runs_once_on_first_call_and_creates_weights():
    layer = Scale()
    assert not layer.built and layer.weights == []
    x = np.arange(6, dtype="float32").reshape(2, 3)
    out = layer(x)
    assert layer.built and layer.build_calls == 1
    np.testing.assert_array_equal(out.numpy(), x)
    layer(x)
    assert layer.build_calls == 1
    assert [w.name for w in layer.weights] == ["w", "count"]
    assert layer.w.shape == (3,) and layer.count.shape == ()
    assert [w.name for w in layer.trainable_weights] == ["w"]
    assert [w.name for w in layer.non_trainable_weights] == ["count"]
    assert layer.count_params() == 4


def test_add_weight_initializer_dtype_and_path():
    layer = Scale(init="zeros", name="scaler")
    layer(np.ones((1, 4), dtype="float32"))
    assert layer.w.dtype == np.float32
    np.testing.assert_array_equal(layer.w.numpy(), np.zeros(4))
    assert layer.w.path == "scaler/w"
    with pytest.raises(ValueError, match="non-negative"):
        layer.add_weight((-1, 2), name="bad")


def test_dense_weights_follow_keras_names_shapes_and_order():
    dense = layers.Dense(4)
    dense(np.zeros((2, 3), dtype="float32"))
    assert [w.name for w in dense.weights] == ["kernel", "bias"]
    assert dense.kernel.shape == (3, 4) and dense.bias.shape == (4,)
    assert dense.count_params() == 3 * 4 + 4


def test_get_weights_returns_copies_and_set_weights_round_trips():
    dense = layers.Dense(2)
    dense(np.zeros((1, 3), dtype="float32"))
    kernel = np.arange(6, dtype="float32").reshape(3, 2)
    bias = np.array([10.0, -1.0], dtype="float32")
    dense.set_weights([kernel, bias])
    got = dense.get_weights()
    assert all(isinstance(a, np.ndarray) for a in got)
    np.testing.assert_array_equal(got[0], kernel)
    np.testing.assert_array_equal(got[1], bias)
    got[0][...] = 99.0  # a copy: the layer keeps its values
    np.testing.assert_array_equal(dense.kernel.numpy(), kernel)
    x = np.array([[1.0, 2.0, 3.0]], dtype="float32")
    np.testing.assert_allclose(dense(x).numpy(), x @ kernel + bias)


def test_set_weights_checks_everything_before_assigning():
    dense = layers.Dense(2, name="dense_checked")
    dense(np.zeros((1, 3), dtype="float32"))
    before = dense.get_weights()
    with pytest.raises(ValueError, match=r"expects 2 weight arrays, got 1"):
        dense.set_weights([before[0]])
    with pytest.raises(ValueError, match=r"'bias' has shape \(2,\), got an array of shape "
                                         r"\(3,\)"):
        dense.set_weights([before[0] + 1, np.zeros(3, dtype="float32")])
    # the kernel (valid) was not assigned either
    np.testing.assert_array_equal(dense.get_weights()[0], before[0])


def test_compute_output_shape_declared_and_traced():
    assert layers.Dense(7).compute_output_shape((None, 3)) == (None, 7)

    class Twice(Layer):  # no compute_output_shape: traced from call
        def call(self, inputs):
            return ops.concatenate([inputs, inputs], axis=-1)

    assert Twice().compute_output_shape((None, 5)) == (None, 10)
    symbolic = Twice()(lamina.Input((4,)))
    assert symbolic.shape == (None, 8)


def test_get_config_from_config_round_trip_for_custom_layer():
    layer = Scale(init="zeros", name="my_scale", trainable=False, dtype="float64")
    config = layer.get_config()
    assert config == {"name": "my_scale", "trainable": False, "dtype": "float64",
                      "init": "zeros"}
    clone = Scale.from_config(config)
    assert clone.get_config() == config
    assert clone.name == "my_scale" and not clone.trainable and clone.dtype == "float64"


def test_layer_names_with_a_slash_are_refused_at_creation():
    with pytest.raises(ValueError, match="cannot contain '/'.*'a/b'"):
        layers.Dense(3, name="a/b")
    with pytest.raises(ValueError, match="cannot contain '/'"):
        lamina.Sequential([layers.Dense(2)], name="outer/inner")


def test_input_shape_kwarg_in_config():
    dense = layers.Dense(3, input_shape=(5,))
    config = dense.get_config()
    assert config["batch_input_shape"] == [None, 5]
    clone = layers.Dense.from_config(config)
    assert clone.batch_input_shape == (None, 5)


# ------------------------------------------------------------------ names
def test_default_names_are_keras_style_in_a_fresh_process():
    code = ("from lamina import layers\n"
            "names = [layers.Dense(2).name, layers.Dense(2).name, layers.Dense(2).name,\n"
            "         layers.Conv2D(2, 3).name, layers.Dropout(0.1).name,\n"
            "         layers.BatchNormalization().name]\n"
            "print(','.join(names))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "dense,dense_1,dense_2,conv2d,dropout,batch_normalization"


def test_default_names_count_up_per_class():
    class FancyProbeLayer(Layer):
        def call(self, inputs):
            return inputs

    first, second, third = FancyProbeLayer(), FancyProbeLayer(), FancyProbeLayer()
    assert first.name == "fancy_probe_layer"
    assert second.name == "fancy_probe_layer_1"
    assert third.name == "fancy_probe_layer_2"
    assert FancyProbeLayer(name="explicit").name == "explicit"
    with pytest.raises(TypeError, match="name must be a string"):
        FancyProbeLayer(name=3)


# ------------------------------------------------------------------ input checks
def test_input_checks_name_the_layer_and_both_shapes():
    lamina.utils.set_random_seed(0)
    dense = layers.Dense(4, name="dense_probe")
    dense(np.zeros((2, 64), dtype="float32"))
    with pytest.raises(ValueError) as info:
        dense(np.zeros((32, 10), dtype="float32"))
    assert str(info.value) == ("Layer 'dense_probe' expects input of shape (None, 64), "
                               "got input of shape (32, 10)")
    with pytest.raises(ValueError, match=r"Layer 'dense_probe' expects input of rank >= 2, "
                                         r"got input of shape \(64,\)"):
        dense(np.zeros((64,), dtype="float32"))


def test_input_checks_apply_to_symbolic_calls_too():
    permute = layers.Permute((2, 1), name="permute_probe")
    with pytest.raises(ValueError, match=r"Layer 'permute_probe' expects input of rank 3, "
                                         r"got input of shape \(None, 4\)"):
        permute(lamina.Input((4,)))
    dense = layers.Dense(2, name="dense_sym_probe")
    dense(lamina.Input((3,)))
    with pytest.raises(ValueError, match=r"Layer 'dense_sym_probe' expects input of shape "
                                         r"\(None, 3\), got input of shape \(None, 5\)"):
        dense(lamina.Input((5,)))


def test_custom_input_spec_checked_by_base_class():
    class NeedsFour(Layer):
        input_spec = layers.InputSpec(ndim=2, axes={-1: 4})

        def call(self, inputs):
            return inputs

    layer = NeedsFour(name="needs_four")
    with pytest.raises(ValueError, match=r"Layer 'needs_four' expects input of shape "
                                         r"\(None, 4\), got input of shape \(3, 5\)"):
        layer(np.zeros((3, 5), dtype="float32"))


# ------------------------------------------------------------------ trainable / freezing
def test_freezing_moves_weights_to_non_trainable():
    dense = layers.Dense(2)
    dense(np.zeros((1, 3), dtype="float32"))
    assert len(dense.trainable_weights) == 2
    dense.trainable = False
    assert dense.trainable_weights == []
    assert [w.name for w in dense.non_trainable_weights] == ["kernel", "bias"]
    assert not any(w.requires_grad for w in dense.weights)
    dense.trainable = True
    assert len(dense.trainable_weights) == 2
    assert all(w.requires_grad for w in dense.weights)


def test_frozen_layer_weights_do_not_change_during_fit_while_others_do():
    lamina.utils.set_random_seed(0)
    r = rng(1)
    x = r.standard_normal((64, 4)).astype("float32")
    y = (x @ r.standard_normal((4, 1))).astype("float32")
    frozen = layers.Dense(8, activation="tanh", name="frozen_dense")
    head = layers.Dense(1, name="head_dense")
    model = lamina.Sequential([lamina.Input((4,)), frozen, head])
    frozen.trainable = False
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    assert [w.path for w in model.trainable_weights] == ["head_dense/kernel",
                                                          "head_dense/bias"]
    frozen_before = frozen.get_weights()
    head_before = head.get_weights()
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)
    for before, after in zip(frozen_before, frozen.get_weights()):
        np.testing.assert_array_equal(before, after)
    assert not np.allclose(head_before[0], head.get_weights()[0])
    assert history.history["loss"][-1] < history.history["loss"][0]
    # a frozen layer counts as non-trainable in the model too
    assert model.count_params() == 4 * 8 + 8 + 8 + 1
    assert sum(int(np.prod(w.shape)) for w in model.non_trainable_weights) == 4 * 8 + 8


def test_frozen_nested_sublayer_via_parent():
    class Block(Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = layers.Dense(3)
            self.outer = layers.Dense(2)

        def call(self, inputs):
            return self.outer(self.inner(inputs))

    block = Block()
    block(np.zeros((1, 4), dtype="float32"))
    assert len(block.weights) == 4 and len(block.trainable_weights) == 4
    block.trainable = False
    assert block.trainable_weights == [] and len(block.non_trainable_weights) == 4
    assert not any(w.requires_grad for w in block.weights)


# ------------------------------------------------------------------ masking
class ZeroMasker(Layer):
    """Produces a mask: True where any feature of a time step is non-zero."""

    supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_mask(self, inputs, mask=None):
        return ops.not_equal(ops.sum(ops.abs(inputs), axis=-1), 0.0)


class MaskedMean(Layer):
    """Consumes a mask: the mean over the unmasked time steps."""

    def call(self, inputs, mask=None):
        self.seen_mask = None if mask is None else np.asarray(mask.numpy())
        if mask is None:
            return ops.mean(inputs, axis=1)
        weights = ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
        return ops.sum(inputs * weights, axis=1) / ops.sum(weights, axis=1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], input_shape[2])

    def compute_mask(self, inputs, mask=None):
        return None  # consumes the mask (as Keras' GlobalAveragePooling1D)


def _masked_batch():
    x = np.zeros((2, 4, 3), dtype="float32")
    x[0, :2] = [[1, 2, 3], [3, 4, 5]]
    x[1, :3] = [[1, 1, 1], [2, 2, 2], [6, 6, 6]]
    return x


def test_mask_propagates_through_functional_graph_to_consumer():
    inputs = lamina.Input((4, 3))
    masked = ZeroMasker()(inputs)
    scaled = layers.Activation("linear")(masked)  # supports_masking: passes it on
    consumer = MaskedMean()
    model = lamina.Model(inputs, consumer(scaled))
    x = _masked_batch()
    out = model.predict(x, verbose=0)
    np.testing.assert_array_equal(consumer.seen_mask,
                                  [[True, True, False, False], [True, True, True, False]])
    np.testing.assert_allclose(out, [[2, 3, 4], [3, 3, 3]], rtol=1e-6)


def test_mask_propagates_in_sequential_and_eager_calls():
    consumer = MaskedMean()
    model = lamina.Sequential([lamina.Input((4, 3)), ZeroMasker(), layers.Identity(),
                               consumer])
    out = model.predict(_masked_batch(), verbose=0)
    np.testing.assert_array_equal(consumer.seen_mask,
                                  [[True, True, False, False], [True, True, True, False]])
    np.testing.assert_allclose(out, [[2, 3, 4], [3, 3, 3]], rtol=1e-6)


def test_non_masking_layer_stops_mask():
    consumer = MaskedMean()
    inputs = lamina.Input((4, 3))
    blocked = layers.Lambda(lambda t: t * 1.0)(ZeroMasker()(inputs))  # no supports_masking
    model = lamina.Model(inputs, consumer(blocked))
    with pytest.warns(UserWarning, match="does not support masking"):
        out = model.predict(_masked_batch(), verbose=0)
    assert consumer.seen_mask is None
    np.testing.assert_allclose(out, _masked_batch().mean(axis=1), rtol=1e-6)


def test_compute_mask_default():
    x = ops.convert_to_tensor(np.ones((2, 3), dtype="float32"))
    mask = ops.convert_to_tensor(np.array([[True, False, True]] * 2))
    assert layers.Identity().compute_mask(x, mask) is mask  # supports_masking
    assert layers.Dense(2).compute_mask(x, mask) is mask  # Keras 3: Dense supports masking
    assert layers.Flatten().compute_mask(x, mask) is None


# ------------------------------------------------------------------ losses
def test_add_loss_collects_penalties_of_every_layer():
    class Penalized(Layer):
        def call(self, inputs):
            self.add_loss(ops.sum(inputs) * 0.5)
            return inputs

    outer = Penalized()
    inner = Penalized()
    outer.child = inner
    x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype="float32")
    outer(x)
    inner(x * 2)
    assert sorted(float(v.numpy()) for v in outer.losses) == [5.0, 10.0]
    outer._clear_call_losses()
    assert outer.losses == []


def test_weight_regularizers_listed_in_losses():
    dense = layers.Dense(2, kernel_regularizer=lamina.regularizers.L2(0.1),
                         bias_regularizer=lamina.regularizers.L1(0.5))
    dense(np.zeros((1, 3), dtype="float32"))
    kernel = np.arange(6, dtype="float32").reshape(3, 2) / 10
    bias = np.array([1.0, -2.0], dtype="float32")
    dense.set_weights([kernel, bias])
    values = sorted(float(v.numpy()) for v in dense.losses)
    np.testing.assert_allclose(values, sorted([0.1 * (kernel ** 2).sum(), 0.5 * 3.0]),
                               rtol=1e-6)


def test_training_loss_equals_data_loss_plus_penalties():
    lamina.utils.set_random_seed(0)
    r = rng(2)
    x = r.standard_normal((16, 3)).astype("float32")
    y = r.standard_normal((16, 2)).astype("float32")
    first = layers.Dense(4, kernel_regularizer=lamina.regularizers.L2(0.01),
                         activity_regularizer=lamina.regularizers.L1(0.02))
    second = layers.Dense(2, kernel_regularizer=lamina.regularizers.L1L2(l1=0.03, l2=0.04))
    model = lamina.Sequential([lamina.Input((3,)), first, second])
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    k1, b1, k2, b2 = model.get_weights()
    hidden = x @ k1 + b1
    pred = hidden @ k2 + b2
    data_loss = np.mean((pred - y) ** 2)
    weight_penalty = 0.01 * (k1 ** 2).sum() + 0.03 * np.abs(k2).sum() + 0.04 * (k2 ** 2).sum()
    activity_penalty = 0.02 * np.abs(hidden).sum()  # Keras 3: not divided by the batch size
    expected = data_loss + weight_penalty + activity_penalty
    reported = model.test_on_batch(x, y)
    np.testing.assert_allclose(reported, expected, rtol=1e-5)
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=16, verbose=0), expected,
                               rtol=1e-5)
    # lr=0 keeps the weights, so the training loss of the one full batch is the same total
    history = model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"][0], expected, rtol=1e-5)
    # the regularized weights get the penalty's gradient: with lr>0 l2 shrinks the kernel
    only_penalty = lamina.Sequential([lamina.Input((3,)), layers.Dense(
        2, kernel_regularizer=lamina.regularizers.L2(1.0), use_bias=False)])
    only_penalty.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse")
    kernel = only_penalty.get_weights()[0]
    zero_x = np.zeros((4, 3), dtype="float32")
    only_penalty.train_on_batch(zero_x, np.zeros((4, 2), dtype="float32"))
    np.testing.assert_allclose(only_penalty.get_weights()[0], kernel * (1 - 0.1 * 2.0),
                               rtol=1e-5)


def test_activity_penalties_do_not_accumulate_across_steps():
    lamina.utils.set_random_seed(0)
    x = np.ones((8, 2), dtype="float32")
    y = np.zeros((8, 1), dtype="float32")
    model = lamina.Sequential([lamina.Input((2,)), layers.Dense(
        1, kernel_initializer="ones", activity_regularizer=lamina.regularizers.L1(1.0))])
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    first = model.test_on_batch(x, y)
    for _ in range(3):
        model.train_on_batch(x, y)
    assert model.test_on_batch(x, y) == pytest.approx(first)
    assert first == pytest.approx(4.0 + 16.0)  # mse (2-0)^2 + sum of |2| over 8 rows


# ------------------------------------------------------------------ Keras 3's add_weight
# The Keras guide "Making new layers and models via subclassing", its snippets as written
# there with `import lamina as keras` (and keras.ops for the TensorFlow calls).
def test_keras_guide_linear_compute_sum_and_mlp_block():
    keras = lamina

    class Linear(keras.layers.Layer):
        def __init__(self, units=32, input_dim=32):
            super().__init__()
            self.w = self.add_weight(
                shape=(input_dim, units), initializer="random_normal", trainable=True
            )
            self.b = self.add_weight(shape=(units,), initializer="zeros", trainable=True)

        def call(self, inputs):
            return keras.ops.matmul(inputs, self.w) + self.b

    x = keras.ops.ones((2, 2))
    linear_layer = Linear(4, 2)
    y = linear_layer(x)
    assert linear_layer.weights == [linear_layer.w, linear_layer.b]
    np.testing.assert_allclose(y.numpy(), np.ones((2, 2)) @ linear_layer.w.numpy(), rtol=1e-6)

    class ComputeSum(keras.layers.Layer):
        def __init__(self, input_dim):
            super().__init__()
            self.total = self.add_weight(
                initializer="zeros", shape=(input_dim,), trainable=False
            )

        def call(self, inputs):
            self.total.assign_add(keras.ops.sum(inputs, axis=0))
            return self.total

    my_sum = ComputeSum(2)
    assert my_sum(x).numpy().tolist() == [2.0, 2.0]   # Keras prints [2. 2.] then [4. 4.]
    assert my_sum(x).numpy().tolist() == [4.0, 4.0]
    assert len(my_sum.weights) == 1 and len(my_sum.non_trainable_weights) == 1
    assert my_sum.trainable_weights == []

    class LazyLinear(keras.layers.Layer):
        def __init__(self, units=32):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(
                shape=(input_shape[-1], self.units),
                initializer="random_normal",
                trainable=True,
            )
            self.b = self.add_weight(
                shape=(self.units,), initializer="random_normal", trainable=True
            )

        def call(self, inputs):
            return keras.ops.matmul(inputs, self.w) + self.b

    class MLPBlock(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.linear_1 = LazyLinear(32)
            self.linear_2 = LazyLinear(32)
            self.linear_3 = LazyLinear(1)

        def call(self, inputs):
            x = self.linear_1(inputs)
            x = keras.activations.relu(x)
            x = self.linear_2(x)
            x = keras.activations.relu(x)
            return self.linear_3(x)

    mlp = MLPBlock()
    y = mlp(keras.ops.ones(shape=(3, 64)))
    assert y.shape == (3, 1)
    assert len(mlp.weights) == 6 and len(mlp.trainable_weights) == 6  # as Keras prints
    assert [w.shape for w in mlp.weights] == [(64, 32), (32,), (32, 32), (32,), (32, 1), (1,)]


def test_add_weight_forms_and_defaults():
    layer = Layer(name="forms")
    scalar = layer.add_weight()                                  # Keras: shape (), glorot
    assert scalar.shape == () and scalar.name == "variable" and scalar.dtype == "float32"
    positional = layer.add_weight((2, 3), "ones", "float32")     # shape, initializer, dtype
    assert positional.numpy().tolist() == [[1.0] * 3] * 2
    counter = layer.add_weight(shape=(2,), dtype="int32", trainable=False, name="count")
    assert counter.dtype == "int32" and not counter.numpy().any()  # non-float: zeros
    assert counter.path == "forms/count" and not counter.trainable
    mean = layer.add_weight(shape=(2,), initializer="zeros", aggregation="mean", name="m")
    assert mean.aggregation == "mean"
    alias = layer.add_variable((3,), "ones", name="alias")       # Keras 3's add_variable
    assert alias.numpy().tolist() == [1.0, 1.0, 1.0] and alias in layer.weights
    assert layer.variables == layer.weights
    assert layer.trainable_variables == layer.trainable_weights
    assert layer.non_trainable_variables == [counter]
    with pytest.raises(ValueError, match=r"`name` must be passed as a keyword.*name='kernel'"):
        layer.add_weight("kernel", (2, 2))


class _ScaleByKeyword(Layer):
    def call(self, logits, offset=None):
        return logits * 2.0 + (0.0 if offset is None else offset)


def test_first_call_argument_can_be_passed_by_keyword():
    # Keras 3 (torch): Scale()(logits=[[1, -2]], offset=[[0.5, 0.5]]) -> [[2.5, -3.5]].
    layer = _ScaleByKeyword()
    out = layer(logits=np.array([[1.0, -2.0]], "float32"),
                offset=np.array([[0.5, 0.5]], "float32"))
    np.testing.assert_allclose(ops.convert_to_numpy(out), [[2.5, -3.5]])
    symbolic = layer(logits=lamina.Input((2,)))
    assert tuple(symbolic.shape) == (None, 2)
    with pytest.raises(TypeError, match=r"scale_by_keyword' .*first argument 'logits'"):
        layer(offset=np.zeros((1, 2), "float32"))
